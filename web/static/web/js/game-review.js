// One game played back with its review (/games/{id}): the replay player (replay.js) over the game's frames
// (GET /api/v1/attempts/{id}/replay), the review's claims in words (GET .../review), the losing move
// marked in the move list, and "show a win from here" (GET .../review/win: the engine-checked win, in pages).

import { el, get, post } from "./api.js";
import { cardElement } from "./cards.js";
import { createPlayer, frameState, wholeSource } from "./replay.js";
import { cardName, moveWords, withCardWords } from "./words.js";

const box = document.getElementById("game-review");
const id = box.dataset.attempt;
const $ = (name) => document.getElementById(name);
let player = null;
let shown = null; // {moves, frames, marks: {step: class}}
let game = null; // the game played, kept while a win is watched

/** A pile of the review's table, named in words for screen readers (the table's cards are pictures). */
function pile(kind, label, ...cards) {
  return el("div", { class: `pile ${kind}`, role: "img", "aria-label": label }, ...cards);
}

/** A frame drawn with the table's cards (cards.js, site.css): stock, waste, foundations, then the columns. */
function draw(frame) {
  const table = $("review-table");
  const decks = frame.f.length > 4 ? 2 : 1;
  table.style.setProperty("--slots", String(Math.max(frame.t.length, 2 + frame.f.length + (decks === 1 ? 1 : 0.5))));
  const stock = pile("stock", frame.s ? `stock, ${frame.s} cards` : "stock, empty");
  if (frame.s) stock.append(cardElement(null), el("span", { class: "count", text: String(frame.s) }));
  const waste = pile("waste", frame.w.length ? `waste, top card ${cardName(frame.w.at(-1))}` : "waste, empty");
  if (frame.w.length) waste.append(cardElement(frame.w.at(-1)));
  const foundations = frame.f.map((top, i) => {
    const node = pile("foundation", top ? `foundation ${i + 1}, up to ${cardName(top)}` : `foundation ${i + 1}, empty`);
    if (top) node.append(cardElement(top));
    return node;
  });
  const row = el("div", { class: `top-row${decks > 1 ? " two-deck" : ""}` }, stock, waste);
  if (decks > 1) row.append(el("div", { class: "foundation-band band" }, ...foundations));
  else row.append(el("div", { class: "gap" }), ...foundations);
  const columns = frame.t.map((column, i) => {
    let offset = 0;
    const cards = column.map((text, k) => {
      const node = cardElement(text === "??" ? null : text);
      node.style.top = `calc(var(--card-h) * ${offset})`;
      offset += k === column.length - 1 ? 0 : text === "??" ? 0.1 : 0.25;
      return node;
    });
    const node = pile("column", column.length ? `column ${i + 1}, ${column.filter((c) => c !== "??").map(cardName).join(", ") || "face down"}`
      : `column ${i + 1}, empty`, ...cards);
    node.style.height = `calc(var(--card-h) * ${1 + offset})`;
    return node;
  });
  table.replaceChildren(row, el("div", { class: "tableau" }, ...columns));
  $("review-score").textContent = `score ${frame.score} · ${frame.home} cards home${frame.won ? " · won" : ""}`;
}

function show(data, marks, startAt) {
  player?.pause();
  const frames = data.frames;
  const states = frames.map(frameState);
  shown = { moves: data.moves, frames };
  $("rv-moves").replaceChildren(...data.moves.map((move, i) => el("li",
    { class: marks[i + 1] || "", dataset: { step: String(i + 1) } },
    el("button", { type: "button", class: "link step", text: moveWords(move, states[i]) }))));
  player = createPlayer({
    source: wholeSource(data),
    onFrame: (_state, step) => {
      draw(frames[step]); // the compact frame: draw() lists its piles as the server sent them
      $("rv-pos").textContent = `${step} / ${data.moves.length}`;
      $("rv-play").textContent = player?.playing ? "Pause" : "Play";
      $("rv-move").textContent = step ? `${step}. ${moveWords(data.moves[step - 1], states[step - 1])}` : "The deal";
      $("rv-moves").querySelectorAll("li").forEach((li) => li.classList.toggle("current", Number(li.dataset.step) === step));
    },
  });
  player.seek(startAt);
}

/** A practice game is reviewed when its player asks (POST .../review: a few a day); a ranked one without asking. */
function askButton() {
  const button = el("button", { type: "button", id: "rv-ask", class: "button", text: "Review this game" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const body = await post(`attempts/${id}/review`);
      if (body.status === "done") load(); // made at once (no broker): the page as for any reviewed game
      else $("review-claims").replaceChildren(...claims(body));
    } catch (exc) {
      button.disabled = false;
      $("review-claims").append(el("p", { class: "message error", text: exc.message }));
    }
  });
  return button;
}

function claims(body) {
  const r = body.review;
  if (body.status === "not_requested") {
    return [el("p", { class: "message", text: "A practice game is reviewed when you ask (a few a day): the solver "
      + "finds where it was lost and a win from there." }), el("p", {}, askButton())];
  }
  if (body.status !== "done" || !r) {
    return [el("p", { class: "message", text: body.status === "failed" ? "The review of this game failed; it is tried again."
      : body.ranked ? "The review is being made: it is ready within minutes of the day's end. Reload in a moment."
        : "The review is being made: reload in a moment." })];
  }
  // Cards in the list's notation ("4♣", never "4C"): the losing move as the list says it.
  const out = [el("ul", { class: "claims" }, r.claims.map((text) => el("li", { text: withCardWords(text) })))];
  if (r.losing_move) {
    out.unshift(el("p", { class: "losing-move" }, el("b", { text: `Move ${r.losing_move.ply}: ` }), withCardWords(r.losing_move.words),
      " — the game could not be won after it."));
  }
  return out;
}

/** A paged line (GET .../replay?page=N, .../review/win?page=N) joined: the move list names every move. */
async function wholePages(path) {
  const first = await get(`${path}?page=0`);
  const moves = [...first.moves];
  const frames = [...first.frames];
  for (let page = 1; page < first.pages; page += 1) {
    const next = await get(`${path}?page=${page}`);
    moves.push(...next.moves);
    frames.push(...next.frames.slice(1)); // a page's first frame is the last one of the page before
  }
  return { ...first, moves, frames };
}

async function load() {
  try {
    const replay = await wholePages(`attempts/${id}/replay`);
    let review = null;
    try {
      review = await get(`attempts/${id}/review`);
    } catch (exc) {
      $("review-claims").replaceChildren(el("p", { class: "message", text: exc.message }));
    }
    const marks = {};
    const r = review?.review;
    if (r?.losing_move) marks[r.losing_move.index + 1] = "losing";
    if (r && r.win_from !== null && r.win_from > 0) marks[r.line_index[r.win_from - 1] + 1] ||= "last-winnable";
    game = { data: replay, marks };
    show(replay, marks, 0);
    if (review) $("review-claims").replaceChildren(...claims(review));
    if (r && r.win_from !== null && document.body.dataset.user) {
      $("rv-try").hidden = false; // a practice attempt of yours from the last winnable position
      $("rv-try").textContent = r.win_from ? `Try from after move ${r.win_from}` : "Try this deal";
    }
    if (r?.win && r.win_from !== null) {
      $("rv-win").hidden = false;
      $("rv-win").textContent = r.win_from ? `Show a win from after move ${r.win_from}` : "Show a win from the deal";
    }
  } catch (exc) {
    $("review-claims").replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  box.dataset.ready = "true";
}

$("rv-win").addEventListener("click", async () => {
  try {
    const win = await wholePages(`attempts/${id}/review/win`);
    const marks = {};
    for (let i = win.win_from + 1; i <= win.moves.length; i += 1) marks[i] = "win-move";
    show(win, marks, win.win_from);
    $("rv-list-title").textContent = `A win from after move ${win.win_from} (checked by the engine)`;
    $("rv-win").hidden = true;
    $("rv-game").hidden = false;
    box.dataset.watching = "win";
  } catch (exc) {
    $("review-claims").append(el("p", { class: "message error", text: exc.message }));
  }
});
$("rv-game").addEventListener("click", () => {
  show(game.data, game.marks, 0);
  $("rv-list-title").textContent = "Moves";
  $("rv-win").hidden = false;
  $("rv-game").hidden = true;
  box.dataset.watching = "game";
});
$("rv-try").addEventListener("click", async () => {
  try {
    const started = await post(`attempts/${id}/review/try`);
    window.location.assign(started.play);
  } catch (exc) {
    $("review-claims").append(el("p", { class: "message error", text: exc.message }));
  }
});
$("rv-play").addEventListener("click", () => player?.toggle());
$("rv-back").addEventListener("click", () => player?.step(-1));
$("rv-next").addEventListener("click", () => player?.step(1));
$("rv-start").addEventListener("click", () => player?.seek(0));
$("rv-end").addEventListener("click", () => player?.seek(Infinity));
$("rv-moves").addEventListener("click", (event) => {
  const li = event.target.closest("li");
  if (li && player) player.seek(Number(li.dataset.step));
});

load();
