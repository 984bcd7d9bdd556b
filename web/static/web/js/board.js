// A day's leaderboard, from GET /api/v1/leaderboards/{date}/{game}[?around=me][&board=all]: the day's
// board ranks the unassisted games; the board of all results adds the assisted ones, marked.

import { el, get } from "./api.js";
import { dailyTable } from "./boards.js";

const box = document.getElementById("board");
const aroundMe = document.getElementById("around-me");
const allResults = document.getElementById("all-results");
const me = document.body.dataset.user;

function emptyText(around, all, total) {
  if (around) return "You have no ranked result on this board yet.";
  if (total) return "No more results.";
  return all ? "Nobody has finished this deal yet." : "No unassisted ranked result yet.";
}

/** The caller's place in words: a loss is never "#1" (it stands below every win); a past day is over. */
function mine(board) {
  const { rank, entry } = board.me;
  if (rank && entry && !entry.won) return "Your game: not won, below every won game.";
  if (rank) return `Your rank: #${rank}.`;
  const over = box.dataset.over === "true";
  // Why a game the viewer played is not on this board (the page knows: web.views._board_mine).
  const played = {
    assisted: "Your game was assisted (a hint, or a look at a hidden card taken back): it is on the board with assisted games.",
    ranked: "Your game is on the board with assisted games.",
    held: "Your game is held for a fair-play check: it joins the board once staff have checked it.",
    checking: "Your game is being checked: it appears here in a moment.",
    playing: over ? "Your game was still open at midnight: it is being closed and checked." : "Your game is in progress.",
    practice: "You played this deal as practice only: practice is not ranked.",
  }[box.dataset.mine];
  if (played) return played;
  return over ? "You did not play this day's ranked game." : "Your rank: none yet.";
}

async function load() {
  const params = new URLSearchParams();
  if (aroundMe && aroundMe.checked) params.set("around", "me");
  if (allResults && allResults.checked) params.set("board", "all");  // the assisted games too, marked
  const around = params.has("around");
  try {
    const query = params.toString() ? `?${params}` : "";
    const board = await get(`leaderboards/${box.dataset.date}/${box.dataset.game}${query}`);
    const summary = el("p", { class: "summary" },
      `${board.total} ranked result${board.total === 1 ? "" : "s"}.`, board.me ? ` ${mine(board)}` : "");
    box.replaceChildren(summary, board.entries.length ? dailyTable(board.entries, me)
      : el("p", { class: "empty", text: emptyText(around, params.has("board"), board.total) }));
  } catch (exc) {
    box.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  box.dataset.ready = "true";
}

aroundMe?.addEventListener("change", load);
allResults?.addEventListener("change", load);
load();
