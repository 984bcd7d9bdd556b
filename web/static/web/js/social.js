// The profile's social parts: the Follow button (PUT / DELETE /api/v1/me/follows/{username}) and the
// rating per game with its history chart (GET /api/v1/players/{username}/ratings and .../ratings/{game}).

import { api, el, get } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const shortDate = (iso) => `${Number(iso.slice(8, 10))} ${MONTHS[Number(iso.slice(5, 7)) - 1]}`;
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

// --- Follow ---------------------------------------------------------------------------------------------

const button = document.getElementById("follow");
if (button) {
  button.addEventListener("click", async () => {
    const following = button.getAttribute("aria-pressed") === "true";
    const path = `me/follows/${encodeURIComponent(button.dataset.username)}`;
    button.disabled = true;
    try {
      await api(following ? "DELETE" : "PUT", path);
      button.setAttribute("aria-pressed", String(!following));
      button.textContent = following ? "Follow" : "Following";
    } catch (exc) {
      document.getElementById("follow-note").textContent = exc.message;
    }
    button.disabled = false;
  });
}

// --- Rating ---------------------------------------------------------------------------------------------

/** The rating after each rated day, oldest left: a line, a dot per day (its place in its title). */
export function ratingChart(history, gameName, room = 600) {
  // Drawn at the width it is shown (up to 600): its text stays legible on a phone instead of shrinking.
  const width = Math.max(300, Math.min(600, Math.round(room))), height = 180, left = 44, right = 12, top = 16, bottom = 26;
  const values = history.map((p) => p.rating);
  const low = Math.min(...values, ...history.map((p) => p.rating - p.change));
  const high = Math.max(...values);
  const span = Math.max(20, high - low);
  const y = (v) => top + (height - top - bottom) * (1 - (v - low) / span);
  // The rating before the first day at the left edge, then one step per rated day.
  const step = (width - left - right) / history.length;
  const x = (i) => left + (i + 1) * step;
  const root = svg("svg", { class: "chart rating-chart", id: "rating-chart", viewBox: `0 0 ${width} ${height}`,
    role: "img", "aria-label": `${gameName} rating after each of the last ${history.length} rated days, ` +
      `from ${history[0].rating - history[0].change} to ${values[values.length - 1]}` });
  for (const v of [low, high]) {
    root.append(svg("line", { x1: left, y1: y(v), x2: width - right, y2: y(v) }));
    root.append(svg("text", { x: 4, y: y(v) + 4, "font-size": 11 }, String(Math.round(v))));
  }
  const points = [[left, y(history[0].rating - history[0].change)], ...history.map((p, i) => [x(i), y(p.rating)])];
  root.append(svg("polyline", { class: "rating-line", fill: "none", "stroke-width": 2,
    points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" ") }));
  history.forEach((p, i) => {
    const dot = svg("circle", { class: `rating-dot${p.change >= 0 ? " up" : " down"}`, cx: x(i), cy: y(p.rating), r: 3.5 });
    dot.append(svg("title", {}, `${p.date}: ${p.rating} (${signed(p.change)}), place ${p.rank} of ${p.players}`));
    root.append(dot);
  });
  root.append(svg("circle", { class: "rating-start", cx: left, cy: points[0][1], r: 3 }));
  // The first and the last day under their dots (the hollow dot at the left is the rating before them).
  root.append(svg("text", { x: width - right, y: height - 6, "font-size": 11, "text-anchor": "end" },
    shortDate(history[history.length - 1].date)));
  if (history.length > 1 && x(history.length - 1) - x(0) > 90) {
    root.append(svg("text", { x: Math.max(left, x(0) - 20), y: height - 6, "font-size": 11 }, shortDate(history[0].date)));
  }
  return root;
}

async function showGame(box, part, name, rating, gameName) {
  const body = await get(`players/${encodeURIComponent(name)}/ratings/${rating.game}`);
  const history = body.history;
  const last = history[history.length - 1];
  const figure = el("p", { class: "rating-now", id: "rating-now" },
    el("b", { class: "rating-value", text: String(rating.rating) }),
    ` in ${gameName} after ${rating.days} rated day${rating.days === 1 ? "" : "s"}` +
      (last ? `; ${shortDate(last.date)}: ${signed(last.change)}, place ${last.rank} of ${last.players}.` : "."));
  part.replaceChildren(figure);
  if (history.length) part.append(ratingChart(history, gameName, part.clientWidth || 600));
  box.dataset.game = rating.game;
}

async function loadRatings() {
  const box = document.getElementById("ratings");
  if (!box) return;
  const name = box.dataset.username;
  try {
    const [ratings, games] = await Promise.all([get(`players/${encodeURIComponent(name)}/ratings`), get("games")]);
    const names = Object.fromEntries(games.map((g) => [g.id, g.name]));
    const title = box.querySelector("h2");
    const about = el("p", { class: "small", text: "A rating per game, moved after each day by that day's board as one " +
      "match of all its players (OpenSkill). Assisted, held and guests' games do not move it; a new player starts at 1000." });
    if (!ratings.length) {
      box.replaceChildren(title, el("p", { class: "empty", id: "no-rating", text: "No rating yet: a game's rating moves " +
        "once a day is over on which this player finished a ranked game of it beside other players." }), about);
    } else {
      const part = el("div", { class: "rating-game", "aria-live": "polite" });
      const first = ratings.reduce((a, b) => (b.days > a.days ? b : a));
      const tabs = el("div", { class: "tabs game-switch", role: "group", "aria-label": "Rating in" },
        ratings.map((r) => el("button", { type: "button", class: "button", "aria-pressed": String(r === first),
          dataset: { game: r.game }, text: `${names[r.game] || r.game} ${r.rating}` })));
      tabs.addEventListener("click", async (event) => {
        const b = event.target.closest("button");
        if (!b) return;
        for (const other of tabs.querySelectorAll("button")) other.setAttribute("aria-pressed", String(other === b));
        const r = ratings.find((x) => x.game === b.dataset.game);
        await showGame(box, part, name, r, names[r.game] || r.game);
      });
      box.replaceChildren(title, ratings.length > 1 ? tabs : "", part, about);
      await showGame(box, part, name, first, names[first.game] || first.game);
    }
  } catch (exc) {
    box.append(el("p", { class: "message error", text: exc.message }));
  }
  box.querySelector(".loading")?.remove();
  box.dataset.ready = "true";
}

loadRatings();
