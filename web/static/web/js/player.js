// A player's profile, from GET /api/v1/players/{username} and .../stats: the figures and the distribution
// of results per game (a switcher: every game, or one), a small SVG chart and the table of recent results.

import { el, get } from "./api.js";
import { distribution, statsTiles } from "./stats-view.js";

const box = document.getElementById("profile");
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const shortDate = (iso) => `${Number(iso.slice(8, 10))} ${MONTHS[Number(iso.slice(5, 7)) - 1]}`;

/** Bars of recent scores, oldest left: green for a win, grey otherwise. */
function chart(recent) {
  const results = recent.slice().reverse();
  const width = 600, height = 160, pad = 24;
  const max = Math.max(100, ...results.map((r) => r.score));
  const step = Math.min(28, (width - 2 * pad) / Math.max(results.length, 1));
  const root = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `scores of the last ${results.length} ranked results` });
  root.append(svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, stroke: "#999" }));
  root.append(svg("text", { x: pad, y: 14, "font-size": 12, fill: "#555" }, `score (max ${max}); green = won`));
  results.forEach((r, i) => {
    const h = Math.max(2, ((height - 2 * pad - 10) * r.score) / max);
    const bar = svg("rect", { x: pad + i * step + step * 0.15, y: height - pad - h, width: step * 0.7, height: h,
      fill: r.won ? "#1f8a4c" : "#a3a3a3", rx: 2 });
    bar.append(svg("title", {}, `${r.date} ${r.game}: ${r.won ? "won" : "not won"}, score ${r.score}`));
    root.append(bar);
  });
  // One date under the first bar of each day (games of one day share it), never two labels too close.
  let lastX = -Infinity;
  results.forEach((r, i) => {
    if (i > 0 && results[i - 1].date === r.date) return;
    const x = pad + i * step;
    if (x - lastX < 70) return;
    lastX = x;
    root.append(svg("text", { x, y: height - 6, "font-size": 11, fill: "#555" }, shortDate(r.date)));
  });
  return root;
}

function recentTable(recent, names) {
  const rows = recent.map((r) => el("tr", {},
    el("td", { text: shortDate(r.date), title: r.date }),
    el("td", {}, el("a", { href: `/board/${r.date}/${r.game}`, text: names[r.game] || r.game })),
    el("td", { text: r.won ? "won" : "not won" }),
    el("td", { class: "num", text: String(r.score) }),
    el("td", { class: "num moves", text: String(r.moves) }),
    // A loss has a place on the board, below every win, but never reads "#1".
    el("td", { class: "num", text: r.rank ? `${r.won ? `#${r.rank}` : "not won"}${r.assisted ? " (assisted)" : ""}` : "",
      title: r.assisted ? "assisted: ranked on the board of all results" : "" }),
    // Once the day is over the game is public: its replay and review (GET /api/v1/attempts/{id}/review).
    el("td", {}, r.attempt ? el("a", { href: `/games/${r.attempt}`, class: "game-link", text: "Review", title: "watch the game and read its review" })
      : el("span", { class: "small", text: "after the day", title: "games are public once their day is over" }))));
  return el("table", { class: "leaderboard" },
    el("thead", {}, el("tr", {}, ...["Day", "Game", "Result", "Score", "Moves", "Rank", "Game review"].map((t) =>
      el("th", { text: t, class: t === "Moves" ? "moves" : "" })))),
    el("tbody", {}, rows));
}

/** One game's part (or every game's, ``game`` null): figures, distribution, chart and table. */
function view(p, stats, names, game) {
  const s = game ? stats.games.find((g) => g.game === game) : stats.overall;
  const recent = game ? p.recent.filter((r) => r.game === game) : p.recent;
  const what = game ? names[game] || game : "every game";
  return [
    statsTiles(s),
    s.played ? distribution(s, `Results, ${what}: wins by play time`) : null,
    recent.length ? chart(recent) : el("p", { class: "empty", text: "No ranked results yet." }),
    recent.length ? recentTable(recent, names) : null,
  ];
}

async function load() {
  try {
    const name = encodeURIComponent(box.dataset.username);
    const [p, stats, games] = await Promise.all([get(`players/${name}`), get(`players/${name}/stats`), get("games")]);
    const names = Object.fromEntries(games.map((g) => [g.id, g.name]));
    const part = el("div", { class: "profile-game", id: "profile-game", "aria-live": "polite" });
    const choices = [[null, "All games"], ...stats.games.map((g) => [g.game, names[g.game] || g.game])];
    const switcher = el("div", { class: "tabs game-switch", role: "group", "aria-label": "Statistics of" },
      choices.map(([game, label]) => el("button", { type: "button", class: "button", "aria-pressed": String(!game),
        dataset: { game: game || "" }, text: label })));
    switcher.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (!button) return;
      for (const b of switcher.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b === button));
      part.replaceChildren(...view(p, stats, names, button.dataset.game || null).filter(Boolean));
      part.dataset.game = button.dataset.game;
    });
    part.replaceChildren(...view(p, stats, names, null).filter(Boolean));
    part.dataset.game = "";
    box.replaceChildren(stats.games.length > 1 ? switcher : "", part);
  } catch (exc) {
    box.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  box.dataset.ready = "true";
}

load();
