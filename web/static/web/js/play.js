// The game table: draws the state the API discloses, turns clicks, drags and keys into moves,
// sends them in batches to POST /attempts/{id}/moves and shows what the server answers.

import { el, get, post } from "./api.js";
import { cardElement } from "./cards.js";
import { startCountdown } from "./countdown.js";
import { createPlayer, frameState } from "./replay.js";
import * as R from "./rules.js";
import { cardWords, moveWords, movePiles, pileWords, withCardWords } from "./words.js";

const root = document.getElementById("game");
const cfg = root.dataset;
const $ = (id) => document.getElementById(id);
const tableEl = $("table");

const game = {
  rules: null,
  state: null, // the visible state, as the API returns it
  attempt: null, // {id, ranked, moves, finished_at, ...} while there is one
  solution: null, // the day's solution, once the day is over
  busy: false,
  picked: null, // keyboard: the pile picked up ("t3", "w", "f1")
  giveUpArmed: false,
  hint: null, // {from, to}: the piles of the last hint, shown on the table until the next move
  watching: null, // the replay player while a log is watched on the table
  saved: null, // the game's own state while a replay is shown
};

const playing = () =>
  Boolean(game.attempt && !game.attempt.finished_at && game.state && !game.state.won && !game.watching);

// --- messages --------------------------------------------------------------------------------

let messageTimer = null;
function message(text, kind = "info") {
  const box = $("message");
  box.textContent = withCardWords(text || "");
  box.className = `message ${kind}`;
  clearTimeout(messageTimer);
  if (text && kind === "info") messageTimer = setTimeout(() => { box.textContent = ""; }, 6000);
}

// --- drawing ---------------------------------------------------------------------------------

/**
 * Mark a move's piles on the table. A hint (before the move): the cards that would move and
 * the pile that takes them. A replayed move (after it): the pile it came from and the cards it put down.
 */
function showOnTable(piles, kind) {
  if (!piles) return;
  const from = tableEl.querySelector(`[data-pile="${piles.from}"]`);
  const to = tableEl.querySelector(`[data-pile="${piles.to}"]`);
  const n = piles.n || 1;
  const carrier = kind === "hint" ? from : to;
  const cards = carrier && piles.from !== "s" ? [...carrier.querySelectorAll(".card")].slice(-n) : [];
  cards.forEach((node) => node.classList.add(`${kind}-card`));
  from?.classList.add(`${kind}-from`);
  to?.classList.add(`${kind}-to`);
}

function slot(pile, label, extraClass = "") {
  return el("div", { class: `pile ${extraClass}`, dataset: { pile }, tabindex: "0", "aria-label": label });
}

function render() {
  const { state, rules } = game;
  if (!state || !rules) return;
  const focused = document.activeElement?.closest?.("[data-pile]")?.dataset.pile;
  const compact = compactLayout(rules);
  const perRow = compact ? Math.ceil(rules.columns / 2) : rules.columns;
  const topSlots = compact ? 2 + Math.ceil(rules.foundations / 2) : 2 + rules.foundations + (rules.decks === 1 ? 1 : 0);
  tableEl.style.setProperty("--slots", Math.max(perRow, topSlots));
  tableEl.classList.toggle("compact", compact);
  tableEl.classList.toggle("readonly", !playing());
  tableEl.replaceChildren();

  const top = el("div", { class: "top-row" });
  // Stock: a face-down card with the count, or the redeal sign.
  const redeal = R.stockMove(state) === "r";
  const stock = slot("s", state.stock ? `stock, ${state.stock} cards: draw` : redeal ? "empty stock: redeal" : "empty stock",
    `stock${state.stock ? "" : " empty"}`);
  if (state.stock) {
    stock.append(cardElement(null), el("span", { class: "count", text: String(state.stock) }));
  } else {
    stock.append(el("span", { class: "mark", text: redeal ? "↻" : "✕" }));
  }
  const waste = slot("w", state.waste.length ? `waste, top card ${state.waste.at(-1)}` : "waste, empty", "waste");
  const shown = state.waste.slice(-Math.max(1, rules.draw));
  shown.forEach((card, i) => {
    const node = cardElement(card);
    node.style.setProperty("--k", String(i));
    if (i === shown.length - 1) node.dataset.top = "true";
    waste.append(node);
  });
  waste.classList.toggle("fan3", rules.draw > 1);
  top.append(stock, waste);
  if (rules.decks === 1 && !compact) top.append(el("div", { class: "gap" }));
  const foundations = compact ? el("div", { class: "foundation-grid" }) : top;
  if (compact) top.append(foundations);
  state.foundations.forEach((pile, i) => {
    const node = slot(`f${i + 1}`, pile.length ? `foundation ${i + 1}, ${pile.at(-1)}` : `foundation ${i + 1}, empty`,
      "foundation");
    if (pile.length) {
      const card = cardElement(pile.at(-1));
      card.dataset.top = "true";
      node.append(card);
    }
    foundations.append(node);
  });

  const tableau = el("div", { class: "tableau" });
  const rows = compact ? [el("div", { class: "tableau-row" }), el("div", { class: "tableau-row" })] : [tableau];
  if (compact) tableau.append(...rows);
  state.tableau.forEach((column, i) => {
    const col = slot(`t${i + 1}`, column.length ? `column ${i + 1}, top card ${column.at(-1).card}` : `column ${i + 1}, empty`,
      "column");
    column.forEach((c, k) => {
      const node = cardElement(c.up ? c.card : null);
      node.dataset.index = String(k);
      col.append(node);
    });
    rows[i < perRow ? 0 : rows.length - 1].append(col);
  });
  tableEl.append(top, tableau);
  layoutColumns();
  if (game.picked) tableEl.querySelector(`[data-pile="${game.picked}"]`)?.classList.add("picked");
  if (game.hint) showOnTable(game.hint, "hint");
  if (game.watching) showOnTable(game.watching.piles(), "replay");
  if (focused) tableEl.querySelector(`[data-pile="${focused}"]`)?.focus({ preventScroll: true });

  showClock();
  $("moves").textContent = String(state.moves);
  $("score").textContent = String(state.score);
  $("redeals-box").hidden = rules.passes === null || rules.passes === 1; // only forty-and-eight has a redeal to count
  $("redeals").textContent = String(state.redeals_left ?? "");
  $("draw").disabled = !playing() || !R.stockMove(state);
  $("draw").textContent = redeal && !state.stock ? "Redeal" : "Draw";
  $("undo").disabled = !playing() || !state.can_undo;
  $("giveup").disabled = !playing();
  if ($("hint")) $("hint").disabled = !playing();
}

/** Fan the columns: face-up cards show their corner; long columns are squeezed to fit the screen. */
/**
 * Many columns on a narrow portrait screen (a phone): the tableau in two rows and the foundations
 * in a block, so that cards stay big enough for a finger (13 columns in one row were 25 px wide).
 */
function compactLayout(rules) {
  const slots = Math.max(rules.columns, 2 + rules.foundations);
  return slots > 8 && window.innerWidth < 700 && window.innerHeight > window.innerWidth;
}

function layoutColumns() {
  const columns = [...tableEl.querySelectorAll(".column")];
  if (!columns.length) return;
  const width = columns[0].getBoundingClientRect().width;
  const height = width * 1.4;
  // Small cards (many columns on a phone) get a larger corner index, and a little more room for it.
  const narrow = width < 44;
  tableEl.classList.toggle("narrow", narrow);
  const rows = tableEl.classList.contains("compact") ? [...tableEl.querySelectorAll(".tableau-row")] : [tableEl];
  const topOfTableau = columns[0].getBoundingClientRect().top;
  const gap = parseFloat(getComputedStyle(tableEl).getPropertyValue("--gap")) || 8;
  const total = window.innerHeight - topOfTableau - 12 - gap * (rows.length - 1);
  const room = Math.max(total / rows.length, height * (rows.length > 1 ? 2.2 : 3.2));
  for (const col of columns) {
    const cards = [...col.querySelectorAll(".card")];
    const down = cards.filter((c) => c.classList.contains("down")).length;
    const up = cards.length - down;
    let fanUp = height * (narrow ? 0.29 : 0.25);
    let fanDown = height * 0.1;
    const spread = Math.max(0, up - 1) * fanUp + down * fanDown;
    if (height + spread > room && spread > 0) {
      const scale = (room - height) / spread;
      fanUp = Math.max(fanUp * scale, height * (narrow ? 0.27 : 0.19));
      fanDown = Math.max(fanDown * scale, height * 0.06);
    }
    let y = 0;
    cards.forEach((card) => {
      card.style.top = `${y}px`;
      y += card.classList.contains("down") ? fanDown : fanUp;
    });
    col.style.setProperty("--fan-up", `${fanUp}px`);
    col.style.height = `${Math.max(height * 1.5, (cards.length ? y - (cards.at(-1).classList.contains("down") ? fanDown : fanUp) : 0) + height)}px`;
  }
}

// --- talking to the server ---------------------------------------------------------------------

// --- the clock: time since the server started the attempt ---------------------------------------

let clockBase = null; // performance.now() at the attempt's start, from the server's elapsed_ms
let clockTimer = null;

export function clockText(ms, precise = false) {
  const total = Math.max(0, ms) / 1000;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  const shown = precise ? seconds.toFixed(2) : String(Math.floor(seconds));
  return `${minutes}:${shown.padStart(precise ? 5 : 2, "0")}`;
}

function showClock() {
  const box = $("clock-box");
  const attempt = game.attempt;
  if (!box || !attempt || !attempt.ranked || game.watching) {
    if (box) box.hidden = true;
    return;
  }
  box.hidden = false;
  clearTimeout(clockTimer);
  if (attempt.finished_at) {
    const ms = Date.parse(attempt.finished_at) - Date.parse(attempt.started_at);
    $("clock").textContent = clockText(ms, true);
    return;
  }
  const tick = () => {
    if (!game.attempt || game.attempt.finished_at || clockBase === null) return;
    const ms = performance.now() - clockBase;
    $("clock").textContent = clockText(ms);
    clockTimer = setTimeout(tick, 1000 - (ms % 1000) + 5);
  };
  tick();
}

function takeAttempt(data) {
  if (typeof data.elapsed_ms === "number" && !data.finished_at) clockBase = performance.now() - data.elapsed_ms;
  game.attempt = data;
  game.state = data.state;
  const mode = $("mode");
  mode.hidden = false;
  mode.textContent = (data.ranked ? "ranked" : "practice") + (data.assisted ? " · assisted" : "");
  mode.className = `badge ${data.ranked ? "ranked" : "practice"}`;
  render();
}

function reasonOf(exc) {
  const reason = exc.details && exc.details.reason;
  return reason ? `${exc.details.move ? `${exc.details.move}: ` : ""}${reason}` : exc.message;
}

async function reload() {
  takeAttempt(await get(`attempts/${game.attempt.id}`));
}

/**
 * Send a batch; the server's state replaces ours. A 400 snaps back with its reason, a 409 reloads.
 * Only after a stored batch does the page go on by itself (submit a win, finish the game).
 */
async function send(moves) {
  if (!playing() || game.busy || !moves.length) return;
  game.busy = true;
  game.hint = null;
  tableEl.classList.add("busy");
  let stored = false;
  try {
    const sent = game.attempt.moves;
    const answer = await post(`attempts/${game.attempt.id}/moves`, { from: sent.length, moves });
    // The answer carries the new log length, not the log: ours grows by what was stored.
    const log = sent.concat(moves.slice(0, answer.applied));
    if (log.length === answer.log_length) takeAttempt({ ...answer, moves: log, submission: null });
    else await reload();
    stored = true;
    message("");
  } catch (exc) {
    if (exc.code === "day_over") {
      dayOverPending = true;
    } else if (exc.status === 409) {
      try { await reload(); } catch (again) { message(again.message, "error"); }
      message(`${exc.message} The game was reloaded from the server.`, "error");
    } else if (exc.code === "illegal_move" && exc.details && exc.details.applied) {
      // The legal moves before the illegal one are stored: take the server's position.
      try { await reload(); } catch (again) { message(again.message, "error"); }
      message(reasonOf(exc), "error");
    } else {
      render(); // snap back
      message(reasonOf(exc), "error");
    }
  } finally {
    game.busy = false;
    tableEl.classList.remove("busy");
  }
  if (dayOverPending) await closeAtDayEnd();
  else if (stored) await afterMoves();
}

// --- the day's end ---------------------------------------------------------------------------------

let dayOverPending = false;

/**
 * A ranked attempt takes no move once its day is over (the seed and the solution are public then):
 * the page says so and submits the game as it stands, which is how the server counts it anyway.
 */
async function closeAtDayEnd() {
  dayOverPending = false;
  if (!game.attempt || !game.attempt.ranked || game.attempt.finished_at) return;
  $("day-over").hidden = false;
  await submit();
}

function watchDayEnd() {
  const endsAt = Date.parse(cfg.endsAt || "");
  if (Number.isNaN(endsAt)) return;
  const wait = endsAt - Date.now();
  if (wait <= 0) return;
  // Timers drift and sleep with the tab: a second after the end, then the server decides.
  setTimeout(() => { if (playing() && game.attempt.ranked) closeAtDayEnd(); }, Math.min(wait + 1000, 2 ** 31 - 1));
}

async function afterMoves() {
  if (!game.attempt || game.attempt.finished_at) return;
  if (game.state.won) {
    await submit();
    return;
  }
  const finish = R.finishPlan(game.state);
  if (finish) {
    message("Finishing…");
    await send(finish);
  }
}

async function submit() {
  if (!game.attempt || game.busy) return;
  game.busy = true;
  try {
    let submission = await post(`attempts/${game.attempt.id}/submit`, {});
    game.attempt.finished_at = game.attempt.finished_at || new Date().toISOString();
    $("start").hidden = true; // the result panel offers the next practice
    render();
    showResult(submission, true);
    for (let i = 0; submission.status === "pending" && i < 240; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, i < 10 ? 300 : 1000));
      submission = await get(`submissions/${submission.id}`);
    }
    showResult(submission, false);
  } catch (exc) {
    message(exc.message, "error");
  } finally {
    game.busy = false;
  }
}

const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The server's share text (one definition, games.selectors.result_share_text) with the deal's address. */
function shareText(submission) {
  const r = submission.result;
  if (r && r.share) return `${r.share}\n${location.origin}/play/${cfg.date}/${cfg.game}`;
  return "The share text appears once the server has checked the game.";
}

function showResult(submission, pending) {
  const panel = $("result");
  panel.hidden = false;
  const r = submission.result;
  if (pending || submission.status === "pending") {
    $("result-title").textContent = game.state.won ? "Won! Checking…" : "Submitted. Checking…";
    $("result-text").textContent = "The server is replaying your moves.";
  } else if (submission.status === "valid" && r) {
    $("result-title").textContent = r.won ? "You won!" : "Game over";
    const board = cfg.over === "true" ? "the day's" : "today's";
    const rank = r.rank
      ? r.won ? `Rank #${r.rank} on ${board} board.` : `Rank #${r.rank} on ${board} board, below every won game.`
      : r.ranked ? "Ranked." : "Practice: not ranked.";
    const time = r.ranked ? ` Time ${clockText(r.play_time_ms, true)}.` : "";
    $("result-text").textContent = `${r.won ? "Won" : "Not won"} with score ${r.score} in ${count(r.moves, "move")}` +
      ` (${count(r.foundation_cards, "card")} home).${time} ${rank}`;
  } else {
    $("result-title").textContent = "Not accepted";
    const error = submission.error || {};
    $("result-text").textContent = withCardWords(
      `The replay stopped at move ${(error.index ?? 0) + 1}: ${error.reason || "invalid log"}`);
  }
  panel.dataset.status = submission.status;
  if (submission.status === "valid" && r && r.won && !pending) celebrate();
  $("share-text").value = shareText(submission);
}

async function start() {
  try {
    takeAttempt(await post(`daily/${cfg.date}/${cfg.game}/attempts`));
    $("start").hidden = true;
    $("result").hidden = true;
    message(game.attempt.ranked ? "Ranked attempt started: good luck!" : "Practice attempt started.");
    tableEl.querySelector('[data-pile="t1"]')?.focus({ preventScroll: true });
  } catch (exc) {
    message(exc.message, "error");
  }
}

// --- actions -----------------------------------------------------------------------------------

function sourceOf(pile, index) {
  const kind = pile[0];
  const i = Number(pile.slice(1)) - 1;
  if (kind === "t") {
    const column = game.state.tableau[i];
    if (!column.length || index === undefined || !column[index]?.up) return null;
    return { pile: "t", index: i, n: column.length - index };
  }
  if (kind === "w") return game.state.waste.length ? { pile: "w" } : null;
  if (kind === "f") return game.state.foundations[i]?.length && game.rules.foundation_to_tableau ? { pile: "f", index: i } : null;
  return null;
}

/** The first card of what a source carries. */
function cardOf(source) {
  if (source.pile === "w") return game.state.waste.at(-1);
  if (source.pile === "f") return game.state.foundations[source.index].at(-1);
  const column = game.state.tableau[source.index];
  return column[column.length - source.n].card;
}

function stockAction() {
  const move = R.stockMove(game.state);
  if (move) send([move]);
  else message("The stock is empty and no redeal is left.", "error");
}

function bestFor(source) {
  if (!source) return;
  const plan = R.planBest(game.rules, game.state, source);
  if (plan.moves) send(plan.moves);
  else message(plan.error, "error");
}

// Pointer: a press that does not travel is a click; one that travels drags the card and those above it.
let press = null;

tableEl.addEventListener("pointerdown", (event) => {
  if (!playing() || game.busy || event.button !== 0) return;
  const pileEl = event.target.closest("[data-pile]");
  if (!pileEl) return;
  const pile = pileEl.dataset.pile;
  const cardEl = event.target.closest(".card");
  let source = null;
  if (cardEl && pile !== "s") {
    if (pile[0] === "t") source = sourceOf(pile, Number(cardEl.dataset.index));
    else if (cardEl.dataset.top) source = sourceOf(pile);
  }
  // Only what can move together is dragged: a run (card by card through empty columns in the single-card games).
  const column = pile[0] === "t" ? game.state.tableau[Number(pile.slice(1)) - 1] : null;
  const draggable = Boolean(source) && (!column || source.n <= R.runLength(game.rules, column));
  press = { x: event.clientX, y: event.clientY, pile, pileEl, cardEl, source, draggable, drag: null };
  if (source) event.preventDefault();
});

document.addEventListener("pointermove", (event) => {
  if (!press || !press.draggable) return;
  if (!press.drag) {
    if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < 6) return;
    startDrag();
  }
  const { ghost, dx, dy } = press.drag;
  ghost.style.transform = `translate(${event.clientX - dx}px, ${event.clientY - dy}px)`;
});

function movingCards() {
  const { pileEl, cardEl, source } = press;
  if (source.pile !== "t") return [cardEl];
  const cards = [...pileEl.querySelectorAll(".card")];
  return cards.slice(cards.indexOf(cardEl));
}

function startDrag() {
  const cards = movingCards();
  const first = cards[0].getBoundingClientRect();
  const ghost = el("div", { class: "ghost" });
  ghost.style.width = `${first.width}px`;
  cards.forEach((card) => {
    const rect = card.getBoundingClientRect();
    const copy = card.cloneNode(true);
    copy.style.top = `${rect.top - first.top}px`;
    copy.style.left = "0px";
    ghost.append(copy);
    card.classList.add("lifted");
  });
  // Inside the table, where the card size is defined (a ghost in <body> had no size at all).
  ghost.style.height = `${first.height}px`;
  tableEl.append(ghost);
  press.drag = { ghost, cards, dx: press.x - first.left, dy: press.y - first.top, home: { x: first.left, y: first.top } };
  ghost.style.transform = `translate(${first.left}px, ${first.top}px)`;
  for (const pile of R.targetsFor(game.rules, game.state, press.source)) {
    tableEl.querySelector(`[data-pile="${pile}"]`)?.classList.add("target");
  }
}

function dropTarget(event) {
  const { ghost } = press.drag;
  ghost.style.display = "none";
  const under = document.elementFromPoint(event.clientX, event.clientY)?.closest("[data-pile]");
  if (under && tableEl.contains(under)) return under.dataset.pile;
  // Not over a pile: the pile the dragged card overlaps most.
  const first = press.drag.cards[0].getBoundingClientRect();
  const box = { left: event.clientX - press.drag.dx, top: event.clientY - press.drag.dy, width: first.width, height: first.height };
  let best = null;
  let bestArea = 0;
  for (const pileEl of tableEl.querySelectorAll('[data-pile^="t"], [data-pile^="f"]')) {
    const r = pileEl.getBoundingClientRect();
    const w = Math.min(box.left + box.width, r.right) - Math.max(box.left, r.left);
    const h = Math.min(box.top + box.height, r.bottom) - Math.max(box.top, r.top);
    if (w > 0 && h > 0 && w * h > bestArea) { bestArea = w * h; best = pileEl.dataset.pile; }
  }
  return best;
}

/** Drop the ghost; with `back`, it first glides back to where the cards came from. */
function endDrag(back = false) {
  const { ghost, cards, home } = press.drag;
  tableEl.querySelectorAll(".target").forEach((node) => node.classList.remove("target"));
  const finish = () => {
    ghost.remove();
    cards.forEach((card) => card.classList.remove("lifted"));
  };
  if (!back || !ghost.animate) {
    finish();
    return;
  }
  ghost.style.display = "";
  ghost.classList.add("returning");
  const animation = ghost.animate(
    [{ transform: ghost.style.transform }, { transform: `translate(${home.x}px, ${home.y}px)` }],
    { duration: 220, easing: "ease-out" },
  );
  animation.onfinish = finish;
  animation.oncancel = finish;
}

document.addEventListener("pointerup", (event) => {
  if (!press) return;
  const current = press;
  try {
    if (current.drag) {
      const target = dropTarget(event);
      const plan = target && target !== current.pile ? R.planDrop(game.rules, game.state, current.source, target) : null;
      endDrag(!plan || !plan.moves);
      if (plan && plan.moves) send(plan.moves);
      else if (plan) message(`${cardWords(cardOf(current.source))} cannot go there: ${plan.error}`, "error");
    } else if (current.pile === "s") {
      stockAction();
    } else if (current.source) {
      bestFor(current.source);
    }
  } finally {
    press = null;
  }
});

document.addEventListener("pointercancel", () => {
  if (press?.drag) endDrag();
  press = null;
});

// Keyboard: arrows move between piles, Enter picks and drops, Space plays to the best place.
function pileOrder() {
  const top = [...tableEl.querySelectorAll(".top-row [data-pile]")].map((n) => n.dataset.pile);
  const bottom = [...tableEl.querySelectorAll(".tableau [data-pile]")].map((n) => n.dataset.pile);
  return { top, bottom };
}

function moveFocus(from, key) {
  const { top, bottom } = pileOrder();
  const row = top.includes(from) ? top : bottom;
  const i = row.indexOf(from);
  let next = from;
  if (key === "ArrowLeft") next = row[(i - 1 + row.length) % row.length];
  else if (key === "ArrowRight") next = row[(i + 1) % row.length];
  else {
    const other = row === top ? bottom : top;
    next = other[Math.min(other.length - 1, Math.round((i / Math.max(1, row.length - 1)) * (other.length - 1)))];
  }
  tableEl.querySelector(`[data-pile="${next}"]`)?.focus();
}

function longestSource(pile) {
  if (pile[0] !== "t") return sourceOf(pile);
  const column = game.state.tableau[Number(pile.slice(1)) - 1];
  const n = R.runLength(game.rules, column);
  return n ? sourceOf(pile, column.length - n) : null;
}

/** From a picked pile to a target: the longest part of the run that the target takes. */
function keyboardDrop(from, target) {
  const first = longestSource(from);
  if (!first) return message("nothing to move there", "error");
  let lastError = null;
  for (let n = first.n || 1; n >= 1; n -= 1) {
    const source = first.pile === "t" ? { ...first, n } : first;
    const plan = R.planDrop(game.rules, game.state, source, target);
    if (plan.moves) return send(plan.moves);
    lastError = plan.error;
    if (first.pile !== "t") break;
  }
  message(lastError, "error");
}

function unpick() {
  game.picked = null;
  tableEl.querySelectorAll(".picked").forEach((node) => node.classList.remove("picked"));
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, textarea, select")) return;
  if (event.target.closest("button, a, summary") && (event.key === "Enter" || event.key === " ")) return;
  const pileEl = event.target.closest?.("[data-pile]");
  const key = event.key;
  if (key === "d" && playing()) { event.preventDefault(); stockAction(); return; }
  if (key === "u" && playing()) { event.preventDefault(); if (game.state.can_undo) send(["u"]); return; }
  if (!pileEl || !tableEl.contains(pileEl)) return;
  const pile = pileEl.dataset.pile;
  if (key.startsWith("Arrow")) { event.preventDefault(); moveFocus(pile, key); return; }
  if (key === "Escape") { unpick(); return; }
  if (!playing()) return;
  if (key === " ") {
    event.preventDefault();
    if (pile === "s") return stockAction();
    const top = sourceOf(pile, pile[0] === "t" ? game.state.tableau[Number(pile.slice(1)) - 1].length - 1 : undefined);
    const toFoundation = top && R.planBest(game.rules, game.state, top);
    if (toFoundation?.moves && toFoundation.moves[0].includes("f")) return send(toFoundation.moves);
    return bestFor(longestSource(pile));
  }
  if (key === "Enter") {
    event.preventDefault();
    if (pile === "s") return stockAction();
    if (!game.picked) {
      if (!longestSource(pile)) return message("nothing to pick up there", "error");
      game.picked = pile;
      pileEl.classList.add("picked");
      message(`Picked ${pileWords(pile)}: move to a pile and press Enter (Escape to cancel).`);
      return;
    }
    const from = game.picked;
    unpick();
    if (from !== pile) keyboardDrop(from, pile);
  }
});

// --- buttons -------------------------------------------------------------------------------------

$("draw").addEventListener("click", () => playing() && stockAction());
$("undo").addEventListener("click", () => playing() && game.state.can_undo && send(["u"]));
$("giveup").addEventListener("click", () => {
  if (!playing()) return;
  if (!game.giveUpArmed) {
    game.giveUpArmed = true;
    $("giveup").textContent = "Really give up?";
    setTimeout(() => { game.giveUpArmed = false; $("giveup").textContent = "Give up"; }, 4000);
    return;
  }
  game.giveUpArmed = false;
  $("giveup").textContent = "Give up";
  submit();
});
$("hint")?.addEventListener("click", async () => {
  if (!playing() || game.busy) return;
  const first = !game.attempt.assisted;
  try {
    const hint = await post(`attempts/${game.attempt.id}/hint`, {});
    game.attempt.assisted = true;
    $("mode").textContent = `${game.attempt.ranked ? "ranked" : "practice"} · assisted`;
    if (!hint.move) {
      message(`No hint: ${hint.reason}`);
      return;
    }
    const piles = movePiles(hint.move);
    const n = Number((hint.move.split(":")[1]) || 1);
    game.hint = piles && { ...piles, n };
    render();
    const note = first ? " This attempt is now marked assisted." : "";
    message(`Hint: ${moveWords(hint.move, game.state)}${hint.reason ? ` (${hint.reason})` : ""}.${note}`, "hint");
  } catch (exc) {
    message(exc.message, "error");
  }
});
$("start-button")?.addEventListener("click", start);
$("again")?.addEventListener("click", start);
$("copy-share").addEventListener("click", async () => {
  const text = $("share-text").value;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    $("share-text").select();
    document.execCommand("copy");
  }
  $("copy-share").textContent = "Copied";
  setTimeout(() => { $("copy-share").textContent = "Copy"; }, 2000);
});

const fourColour = $("four-colour");
fourColour.checked = localStorage.getItem("dp:four-colour") === "1";
document.body.classList.toggle("four-colour", fourColour.checked);
fourColour.addEventListener("change", () => {
  localStorage.setItem("dp:four-colour", fourColour.checked ? "1" : "0");
  document.body.classList.toggle("four-colour", fourColour.checked);
});

// --- watching a log on the table: the day's solution, or a finished game ---------------------------

function showSolution() {
  const list = $("solution-moves");
  if (!list || !game.solution) return;
  list.replaceChildren(...game.solution.map((move, i) => el("li", { dataset: { step: String(i + 1) } },
    el("button", { type: "button", class: "link step", text: moveWords(move) }))));
}

/** Play `log` on the table from its frames (visible states from the server); the game waits aside. */
async function watch(path, list) {
  try {
    const data = await get(path);
    stopWatching();
    game.saved = game.state;
    game.picked = null;
    game.hint = null;
    const frames = data.frames.map(frameState);
    if (list) {
      list.replaceChildren(...data.moves.map((move, i) => el("li", { dataset: { step: String(i + 1) } },
        el("button", { type: "button", class: "link step", text: moveWords(move, frames[i]) }))));
    }
    game.watching = createPlayer({
      moves: data.moves,
      frames,
      onFrame: (state, step) => {
        game.state = state;
        render();
        $("watch-pos").textContent = `${step} / ${data.moves.length}`;
        $("watch-play").textContent = game.watching?.playing ? "Pause" : "Play";
        $("watch-move").textContent = step ? `${step}. ${moveWords(data.moves[step - 1], frames[step - 1])}` : "The deal";
        list?.querySelectorAll("li").forEach((li) => li.classList.toggle("current", Number(li.dataset.step) === step));
        list?.querySelector("li.current")?.scrollIntoView({ block: "nearest" });
      },
    });
    $("watch").hidden = false;
    game.watching.speed(Number($("watch-speed").value));
    game.watching.seek(0);
  } catch (exc) {
    message(exc.message, "error");
  }
}

function stopWatching() {
  if (!game.watching) return;
  game.watching.pause();
  game.watching = null;
  game.state = game.saved;
  game.saved = null;
  $("watch").hidden = true;
  document.querySelectorAll(".moves-list li.current").forEach((li) => li.classList.remove("current"));
  render();
}

$("solution-watch")?.addEventListener("click", () => watch(`daily/${cfg.date}/${cfg.game}/solution`, $("solution-moves")));
$("game-watch")?.addEventListener("click", () => watch(`attempts/${game.attempt.id}/replay`, null));
$("watch-play")?.addEventListener("click", () => game.watching?.toggle());
$("watch-back")?.addEventListener("click", () => game.watching?.step(-1));
$("watch-next")?.addEventListener("click", () => game.watching?.step(1));
$("watch-start")?.addEventListener("click", () => game.watching?.seek(0));
$("watch-end")?.addEventListener("click", () => game.watching?.seek(Infinity));
$("watch-speed")?.addEventListener("change", (event) => game.watching?.speed(Number(event.target.value)));
$("watch-close")?.addEventListener("click", stopWatching);
$("solution-moves")?.addEventListener("click", (event) => {
  const li = event.target.closest("li");
  if (!li) return;
  if (!game.watching) {
    watch(`daily/${cfg.date}/${cfg.game}/solution`, $("solution-moves")).then(() => game.watching?.seek(Number(li.dataset.step)));
  } else {
    game.watching.seek(Number(li.dataset.step));
  }
});

// --- the end of a game ------------------------------------------------------------------------------

function celebrate() {
  if (matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const cards = [...tableEl.querySelectorAll(".foundation .card")];
  cards.forEach((card, i) => card.animate?.(
    [{ transform: "translateY(0) rotate(0)" }, { transform: `translateY(-18px) rotate(${i % 2 ? 8 : -8}deg)` },
      { transform: "translateY(0) rotate(0)" }],
    { duration: 600, delay: i * 90, easing: "ease-in-out" },
  ));
  $("result")?.classList.add("won");
}

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(render, 100);
});

// --- start-up ------------------------------------------------------------------------------------

async function init() {
  try {
    const [games, challenge] = await Promise.all([get("games"), get(`daily/${cfg.date}/${cfg.game}`)]);
    game.rules = games.find((rules) => rules.id === cfg.game);
    game.solution = challenge.solution;
    showSolution();
    if (cfg.authenticated === "true" && cfg.attempt) {
      const attempt = await get(`attempts/${cfg.attempt}`);
      takeAttempt(attempt);
      if (attempt.finished_at && attempt.submission) {
        showResult(await get(`submissions/${attempt.submission}`), false); // it offers the next practice
      } else if (attempt.finished_at) {
        $("start").hidden = false;
        const startButton = $("start-button");
        if (startButton) startButton.textContent = "Start practice";
        if ($("start-text")) $("start-text").textContent = "This attempt is over. Another one is practice.";
      } else if (attempt.ranked && cfg.over === "true") {
        await closeAtDayEnd();
      } else {
        await afterMoves();
      }
    } else {
      game.state = challenge.layout;
      $("start").hidden = false;
      render();
      // A visitor who just pressed "Play now" (and is a guest player now) starts at once.
      if (cfg.authenticated === "true" && new URLSearchParams(location.search).get("start") === "1") {
        history.replaceState(null, "", location.pathname);
        await start();
      }
    }
    watchDayEnd();
    startCountdown(document.querySelector("#next-deal .countdown"));
    root.dataset.ready = "true";
  } catch (exc) {
    message(exc.message, "error");
  }
}

// For tests and debugging from the console: the state as the page has it, and the batch sender.
window.patience = { game, send, reload };

init();
