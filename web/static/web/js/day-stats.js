// How a day that is over went (GET /api/v1/daily/{date}/{game}/stats): the share of players who won,
// Wordle-style bars of moves and of play times with the viewer's own game marked, and the difficulty.

import { el, get } from "./api.js";

const box = document.getElementById("day-stats");

function minutes(seconds) {
  const m = Math.floor(seconds / 60);
  return `${m}:${String(seconds % 60).padStart(2, "0")}`;
}

/** One histogram as horizontal bars: a row per bin, the bar's length its players, the won part darker. */
function bars(title, histogram, label, unit) {
  const most = Math.max(1, ...histogram.bins.map((b) => b.players));
  const rows = histogram.bins.map((b, i) => {
    const mine = i === histogram.mine;
    const bar = el("span", { class: `bar${mine ? " mine" : ""}`,
      title: `${b.players} player${b.players === 1 ? "" : "s"}, ${b.won} won` });
    bar.style.setProperty("--share", String(b.players / most));
    bar.style.setProperty("--won", String(b.players ? b.won / b.players : 0));
    return el("li", { class: mine ? "mine" : "", dataset: { bin: String(i) } },
      el("span", { class: "bin", text: label(b) }), bar,
      el("span", { class: "count", text: `${b.players}${mine ? " · you" : ""}` }));
  });
  return el("figure", { class: "histogram" },
    el("figcaption", { text: unit ? `${title} (${unit})` : title }), el("ol", {}, rows));
}

function difficultyText(d) {
  const solver = d.solver === null ? "not rated" : `${d.solver} of 5`;
  if (d.calibrated) {
    return `Difficulty ${d.rating} of 5, calibrated on ${d.model_days} past days: the model expected ` +
      `${Math.round(d.predicted_win_rate * 100)}% of players to win. The solver's own rating: ${solver}.`;
  }
  return `The solver's difficulty: ${solver} (search effort ${d.solver_nodes.toLocaleString("en")} nodes, a ` +
    `${d.solution_moves}-move solution). A rating calibrated on players' results comes once ${d.min_days} ` +
    `days have enough players (${d.model_days} so far).`;
}

async function load() {
  try {
    const s = await get(`daily/${box.dataset.date}/${box.dataset.game}/stats`);
    const share = s.players ? `${Math.round(s.win_rate * 100)}% won` : "nobody ranked on this deal";
    const parts = [
      el("h2", { text: "How hard was it, really?" }),
      el("p", { class: "share" }, el("b", { text: share }),
        s.players ? ` · ${s.won} of ${s.players} ranked player${s.players === 1 ? "" : "s"}` : ""),
      el("p", { class: "difficulty", text: difficultyText(s.difficulty) }),
    ];
    if (s.players) {
      parts.push(el("div", { class: "histograms" },
        bars("Moves", s.moves, (b) => `${b.low}–${b.high - 1}`, ""),
        bars("Time", s.seconds, (b) => `${minutes(b.low)}–${minutes(b.high)}`, "min:s")));
      parts.push(el("p", { class: "small", text: s.me
        ? `Your game: ${s.me.won ? "won" : "not won"} in ${s.me.moves} moves, marked “you”.`
        : "Bars: ranked players in each range; the darker part won." }));
    }
    box.replaceChildren(...parts);
  } catch (exc) {
    box.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  box.dataset.ready = "true";
}

if (box) load();
