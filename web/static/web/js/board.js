// A day's leaderboard, from GET /api/v1/leaderboards/{date}/{game}[?around=me].

import { el, get } from "./api.js";
import { dailyTable } from "./boards.js";

const box = document.getElementById("board");
const aroundMe = document.getElementById("around-me");
const cleanOnly = document.getElementById("clean-only");
const me = document.body.dataset.user;

function emptyText(around, clean, total) {
  if (around) return "You have no ranked result on this board yet.";
  if (clean) return "No ranked result without hints yet.";
  return total ? "No more results." : "Nobody has finished this deal yet.";
}

async function load() {
  const params = new URLSearchParams();
  if (aroundMe && aroundMe.checked) params.set("around", "me");
  if (cleanOnly && cleanOnly.checked) params.set("clean", "1");  // the board without hinted results
  const around = params.has("around");
  try {
    const query = params.toString() ? `?${params}` : "";
    const board = await get(`leaderboards/${box.dataset.date}/${box.dataset.game}${query}`);
    const summary = el("p", { class: "summary" },
      `${board.total} ranked result${board.total === 1 ? "" : "s"}.`,
      board.me ? ` Your rank: ${board.me.rank ? `#${board.me.rank}` : "none yet"}.` : "");
    box.replaceChildren(summary, board.entries.length ? dailyTable(board.entries, me)
      : el("p", { class: "empty", text: emptyText(around, params.has("clean"), board.total) }));
  } catch (exc) {
    box.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  box.dataset.ready = "true";
}

aroundMe?.addEventListener("change", load);
cleanOnly?.addEventListener("change", load);
load();
