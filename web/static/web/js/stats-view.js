// A player's statistics of one game, or of every game (GET /api/v1/players/{username}/stats): the figures
// in a row of tiles, and the distribution of results as Wordle-style bars with today's marked.
// Used by the profile page (player.js) and the end of a game (table-session.js).

import { el } from "./api.js";

/** A play time as the site writes it: minutes, seconds and hundredths, cut (games.selectors.play_time_text). */
export function timeText(ms) {
  const centis = Math.floor(Math.max(0, ms) / 10);
  return `${Math.floor(centis / 6000)}:${String(Math.floor(centis / 100) % 60).padStart(2, "0")}.` +
    String(centis % 100).padStart(2, "0");
}

const tile = (label, value, key) => el("div", { class: "stat", dataset: { stat: key } },
  el("b", { text: String(value) }), label);

/** The figures: played, win share, current and best streak, best time and best score. */
export function statsTiles(s) {
  return el("div", { class: "stats-grid" },
    tile("played", s.played, "played"),
    tile("won", `${Math.round(s.win_rate * 100)}%`, "win-rate"),
    tile("streak", s.current_streak, "current-streak"),
    tile("best streak", s.best_streak, "best-streak"),
    tile("best time", s.best_time_ms === null ? "–" : timeText(s.best_time_ms), "best-time"),
    tile("best score", s.best_score === null ? "–" : s.best_score, "best-score"));
}

/** The distribution: a row per bar, its length the share of the largest; today's result marked. */
export function distribution(s, caption) {
  const most = Math.max(1, ...s.distribution.map((b) => b.count));
  const rows = s.distribution.map((b, i) => {
    const today = b.today > 0;
    const bar = el("span", { class: `bar${b.won ? "" : " lost"}${today ? " today" : ""}`,
      title: `${b.count} game${b.count === 1 ? "" : "s"}` });
    bar.style.setProperty("--share", String(b.count / most)); // CSSOM, not a style attribute: CSP-clean
    bar.style.setProperty("--won", b.won ? "1" : "0");
    return el("li", { class: today ? "today" : "", dataset: { bucket: String(i), count: String(b.count) } },
      el("span", { class: "bin", text: b.label }), bar,
      el("span", { class: "count", text: `${b.count}${today ? " · today" : ""}` }));
  });
  return el("figure", { class: "histogram player-distribution" },
    el("figcaption", { text: caption }), el("ol", { "aria-label": caption }, rows));
}
