// A day's leaderboard, from GET /api/v1/leaderboards/{date}/{game}[?around=me].

import { el, get } from "./api.js";

const box = document.getElementById("board");
const aroundMe = document.getElementById("around-me");
const me = document.body.dataset.user;

function duration(seconds) {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

async function load() {
  const around = aroundMe && aroundMe.checked ? "?around=me" : "";
  try {
    const board = await get(`leaderboards/${box.dataset.date}/${box.dataset.game}${around}`);
    const rows = board.entries.map((e) =>
      el("tr", { class: e.player === me ? "me" : "" },
        el("td", { class: "num", text: String(e.rank) }),
        el("td", {}, el("a", { href: `/players/${encodeURIComponent(e.player)}`, text: e.player }),
          e.assisted ? el("span", { class: "small", title: "a hint was used", text: " (assisted)" }) : null),
        el("td", { text: e.won ? "won" : "—" }),
        el("td", { class: "num", text: String(e.score) }),
        el("td", { class: "num", text: String(e.moves) }),
        el("td", { class: "num", text: duration(e.time) })));
    const summary = el("p", { class: "summary" },
      `${board.total} ranked result${board.total === 1 ? "" : "s"}.`,
      board.me ? ` Your rank: ${board.me.rank ? `#${board.me.rank}` : "none yet"}.` : "");
    if (!rows.length) {
      box.replaceChildren(summary, el("p", { class: "empty", text: around ? "You have no ranked result on this board yet." : "Nobody has finished this deal yet." }));
      return;
    }
    box.replaceChildren(summary, el("table", { class: "leaderboard" },
      el("thead", {}, el("tr", {},
        el("th", { class: "num", text: "#" }), el("th", { text: "Player" }), el("th", { text: "Result" }),
        el("th", { class: "num", text: "Score" }), el("th", { class: "num", text: "Moves" }), el("th", { class: "num", text: "Time" }))),
      el("tbody", {}, rows)));
  } catch (exc) {
    box.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  box.dataset.ready = "true";
}

aroundMe?.addEventListener("change", load);
load();
