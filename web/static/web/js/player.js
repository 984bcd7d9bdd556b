// A player's profile, from GET /api/v1/players/{username}, with a small SVG chart of recent results.

import { el, get } from "./api.js";

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

async function load() {
  try {
    const [p, games] = await Promise.all([get(`players/${encodeURIComponent(box.dataset.username)}`), get("games")]);
    const names = Object.fromEntries(games.map((g) => [g.id, g.name]));
    const stat = (label, value) => el("div", { class: "stat" }, el("b", { text: String(value) }), label);
    const rows = p.recent.map((r) => el("tr", {},
      el("td", { text: shortDate(r.date), title: r.date }),
      el("td", {}, el("a", { href: `/board/${r.date}/${r.game}`, text: names[r.game] || r.game })),
      el("td", { text: r.won ? "won" : "not won" }),
      el("td", { class: "num", text: String(r.score) }),
      el("td", { class: "num moves", text: String(r.moves) }),
      el("td", { class: "num", text: r.rank ? `#${r.rank}${r.assisted ? " (assisted)" : ""}` : "",
        title: r.assisted ? "assisted: ranked on the board of all results" : "" }),
      // Once the day is over the game is public: its replay and review (GET /api/v1/attempts/{id}/review).
      el("td", {}, r.attempt ? el("a", { href: `/games/${r.attempt}`, class: "game-link", text: "Review", title: "watch the game and read its review" })
        : el("span", { class: "small", text: "after the day", title: "games are public once their day is over" }))));
    box.replaceChildren(
      el("div", { class: "stats-grid" },
        stat("played", p.played), stat("won", p.won), stat("win rate", `${Math.round(p.win_rate * 100)}%`),
        stat("current streak", p.current_streak), stat("best streak", p.best_streak)),
      p.recent.length ? chart(p.recent) : el("p", { class: "empty", text: "No ranked results yet." }),
      p.recent.length ? el("table", { class: "leaderboard" },
        el("thead", {}, el("tr", {}, ...["Day", "Game", "Result", "Score", "Moves", "Rank", "Game review"].map((t) =>
          el("th", { text: t, class: t === "Moves" ? "moves" : "" })))),
        el("tbody", {}, rows)) : null);
  } catch (exc) {
    box.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  box.dataset.ready = "true";
}

load();
