// Leaderboard tables shared by the public board and the league boards: built from API entries, text only.

import { el } from "./api.js";

/** Play time to the hundredth of a second, cut from the server's milliseconds (as the table's clock,
 * the result and the share text show it): enough to see why one player ranks above another. */
export function duration(ms) {
  const centis = Math.floor(Math.max(0, Math.round(ms)) / 10);
  const minutes = Math.floor(centis / 6000);
  const seconds = String(Math.floor(centis / 100) % 60).padStart(2, "0");
  return `${minutes}:${seconds}.${String(centis % 100).padStart(2, "0")}`;
}

function playerCell(player, assisted, guest = false) {
  // A guest (league boards) is "Guest": its internal name (guest-1a2b3c) means nothing to anyone.
  const name = guest ? el("span", { class: "guest", text: "Guest" })
    : el("a", { href: `/players/${encodeURIComponent(player)}`, text: player });
  return el("td", {}, name,
    assisted ? el("span", { class: "small", title: "assisted: a hint, or an undo that took back a look at a hidden card", text: " (assisted)" }) : null);
}

/** A day's board: rank, player, result, score, moves, time (GET .../leaderboards|boards/{date}/{game});
 * once the day is over each entry links its game's replay and review (entry.attempt). */
export function dailyTable(entries, me) {
  const links = entries.some((e) => e.attempt);
  const rows = entries.map((e) =>
    el("tr", { class: e.player === me ? "me" : "" },
      el("td", { class: "num", text: String(e.rank) }),
      playerCell(e.player, e.assisted),
      el("td", { text: e.won ? "won" : "not won" }),
      el("td", { class: "num", text: String(e.score) }),
      el("td", { class: "num", text: String(e.moves) }),
      el("td", { class: "num", text: duration(e.play_time_ms) }),
      links ? el("td", {}, e.attempt ? el("a", { href: `/games/${e.attempt}`, class: "game-link", text: "Review", title: "watch the game and read its review" }) : null) : null));
  return el("table", { class: "leaderboard" },
    el("thead", {}, el("tr", {},
      el("th", { class: "num", text: "#" }), el("th", { text: "Player" }), el("th", { text: "Result" }),
      el("th", { class: "num", text: "Score" }), el("th", { class: "num", text: "Moves" }), el("th", { class: "num", text: "Time" }),
      links ? el("th", { text: "Game" }) : null)),
    el("tbody", {}, rows));
}

/** A league's all-time board: rank, player, wins, played, total score (GET /leagues/{id}/boards/all-time). */
export function allTimeTable(entries, me) {
  const rows = entries.map((e) =>
    el("tr", { class: e.player === me ? "me" : "" },
      el("td", { class: "num", text: String(e.rank) }),
      playerCell(e.player, false, e.guest),
      el("td", { class: "num", text: String(e.wins) }),
      el("td", { class: "num", text: String(e.played) }),
      el("td", { class: "num", text: String(e.score) })));
  return el("table", { class: "leaderboard alltime" },
    el("thead", {}, el("tr", {},
      el("th", { class: "num", text: "#" }), el("th", { text: "Player" }), el("th", { class: "num", text: "Wins" }),
      el("th", { class: "num", text: "Played", title: "unassisted ranked games" }), el("th", { class: "num", text: "Score" }))),
    el("tbody", {}, rows));
}
