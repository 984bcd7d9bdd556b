// Drawing the table: piles and cards from the visible state, the fanned columns, the phone layout,
// marks for hints and replayed moves, the clock, and the little celebration of a win.

import { el } from "./api.js";
import { cardElement, cardLabel } from "./cards.js";
import * as R from "./rules.js";
import { $, game, playing, stuck, tableEl } from "./table-page.js";

// --- drawing ---------------------------------------------------------------------------------

/**
 * Mark a move's piles on the table. A hint (before the move): the cards that would move and
 * the pile that takes them. A replayed move (after it): the pile it came from and the cards it put down.
 */
export function showOnTable(piles, kind) {
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

/**
 * A column in words, for screen readers, from the top card down: "top card jack of hearts, on queen of
 * clubs and king of diamonds, 3 face-down cards under them" (the pile is one control: its cards are not
 * read out one by one, so the name carries every card a player can see).
 */
function columnWords(column) {
  const top = column.at(-1);
  const down = column.filter((c) => !c.up).length;
  if (!top.up) return `${down} face-down card${down === 1 ? "" : "s"}`;
  const under = column.slice(0, -1).filter((c) => c.up).map((c) => cardLabel(c.card)).reverse();
  let text = `top card ${cardLabel(top.card)}`;
  if (under.length) text += `, on ${under.length > 1 ? `${under.slice(0, -1).join(", ")} and ${under.at(-1)}` : under[0]}`;
  if (down) text += `, ${down} face-down card${down === 1 ? "" : "s"} under ${under.length ? "them" : "it"}`;
  return text;
}

/** A pile: one control, named in words (its cards are drawn for the eye; the name says them). */
function slot(pile, label, extraClass = "") {
  return el("div", { class: `pile ${extraClass}`, dataset: { pile }, tabindex: "0", role: "button", "aria-label": label });
}

// --- motion: cards fly from where they were to where they are (FLIP), turn-ups flip ----------------

const MOTION_MS = 200;
export const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;
let launch = new Map(); // card -> the rect it flies from (a dropped card leaves from where it was dropped)

/** The next render flies these cards from where they are now on screen (the dragged ghost's copies). */
export function launchFrom(nodes) {
  for (const node of nodes) if (node.dataset.card) launch.set(node.dataset.card, node.getBoundingClientRect());
}

/** Where each card is on screen, by a key that follows a face-up card wherever it goes. */
function cardPlaces() {
  const places = new Map();
  const seen = new Map();
  for (const node of tableEl.querySelectorAll("[data-pile] .card")) {
    const key = cardKey(node, seen);
    places.set(key, { rect: node.getBoundingClientRect(), down: node.classList.contains("down") });
  }
  return places;
}

function cardKey(node, seen) {
  const pile = node.closest("[data-pile]").dataset.pile;
  if (!node.dataset.card) return `down:${pile}:${node.dataset.index ?? ""}`;
  const n = (seen.get(node.dataset.card) || 0) + 1; // the two decks' twins: first, second
  seen.set(node.dataset.card, n);
  return `${node.dataset.card}#${n}`;
}

/** Fly moved cards, draw from the stock, flip turned-up cards: short, and finished by the next input. */
function animateFrom(before) {
  const launched = launch;
  launch = new Map();
  if (!before || reducedMotion() || !tableEl.animate) return;
  const stock = tableEl.querySelector('[data-pile="s"]')?.getBoundingClientRect();
  const seen = new Map();
  let homing = 0;
  for (const node of tableEl.querySelectorAll("[data-pile] .card")) {
    const key = cardKey(node, seen);
    const pile = node.closest("[data-pile]").dataset.pile;
    const now = node.getBoundingClientRect();
    const was = launched.get(node.dataset.card) || before.get(key)?.rect
      || (before.has(key) || pile !== "w" ? null : stock); // a card new on the waste comes from the stock
    const upIndex = `down:${pile}:${node.dataset.index ?? ""}`;
    if (node.dataset.card && !before.has(key) && before.get(upIndex)?.down) {
      node.animate([{ transform: "rotateY(90deg)" }, { transform: "rotateY(0)" }],
        { duration: MOTION_MS, easing: "ease-out" }); // a turn-up
      continue;
    }
    if (!was) continue;
    const dx = was.left - now.left;
    const dy = was.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    // Several cards home at once (the finish): a quick cascade, one after the other.
    const delay = pile[0] === "f" ? Math.min(homing++ * 40, 400) : 0;
    node.animate([{ transform: `translate(${dx}px, ${dy}px)`, zIndex: 50 }, { transform: "translate(0, 0)", zIndex: 50 }],
      { duration: MOTION_MS, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" });
  }
}

/** Every running animation jumps to its end: the next input never waits for one. */
export function finishMotion() {
  for (const animation of tableEl.getAnimations?.({ subtree: true }) || []) animation.finish();
}

export function render() {
  const { state, rules } = game;
  if (!state || !rules) return;
  finishMotion();
  const before = tableEl.querySelector(".card") ? cardPlaces() : null;
  const focused = document.activeElement?.closest?.("[data-pile]")?.dataset.pile;
  const compact = compactLayout(rules);
  const perRow = compact ? Math.ceil(rules.columns / 2) : rules.columns;
  // Two decks: the foundations stand apart in a band, half a card from the waste, which is labelled, so
  // that the waste never reads as a ninth foundation.
  const band = rules.decks > 1;
  const topSlots = (compact ? 2 + Math.ceil(rules.foundations / 2) : 2 + rules.foundations + (rules.decks === 1 ? 1 : 0)) +
    (band ? 0.8 : 0);
  tableEl.style.setProperty("--slots", Math.max(perRow, topSlots));
  tableEl.classList.toggle("compact", compact);
  tableEl.classList.toggle("readonly", !playing());
  const ghost = tableEl.querySelector(".ghost"); // a drag in progress survives the server's answer
  tableEl.replaceChildren();
  if (ghost) tableEl.append(ghost);

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
  const waste = slot("w", state.waste.length ? `waste, top card ${cardLabel(state.waste.at(-1))}` : "waste, empty", "waste");
  const shown = state.waste.slice(-Math.max(1, rules.draw));
  shown.forEach((card, i) => {
    const node = cardElement(card);
    node.style.setProperty("--k", String(i));
    if (i === shown.length - 1) node.dataset.top = "true";
    waste.append(node);
  });
  waste.classList.toggle("fan3", rules.draw > 1);
  top.append(stock, waste);
  top.classList.toggle("two-deck", band);
  if (rules.decks === 1 && !compact) top.append(el("div", { class: "gap" }));
  const foundations = compact ? el("div", { class: "foundation-grid" }) : band ? el("div", { class: "foundation-band" }) : top;
  if (foundations !== top) {
    foundations.classList.toggle("band", band);
    top.append(foundations);
  }
  state.foundations.forEach((pile, i) => {
    const node = slot(`f${i + 1}`, pile.length ? `foundation ${i + 1}, up to ${cardLabel(pile.at(-1))}` : `foundation ${i + 1}, empty`,
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
    const col = slot(`t${i + 1}`, column.length ? `column ${i + 1}, ${columnWords(column)}` : `column ${i + 1}, empty`,
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
  animateFrom(game.watching ? null : before);

  showClock();
  $("moves").textContent = String(state.moves);
  $("score").textContent = String(state.score);
  $("redeals-box").hidden = rules.passes === null || rules.passes === 1; // only forty-and-eight has a redeal to count
  $("redeals").textContent = String(state.redeals_left ?? "");
  $("draw").disabled = !playing() || !R.stockMove(state);
  $("draw").textContent = redeal && !state.stock ? "Redeal" : "Draw";
  $("undo").disabled = !playing() || !state.can_undo;
  $("giveup").disabled = !playing();
  // "No more moves", said for free: it shows nothing the table does not (SPEC section 7), so a Hint
  // is not needed to learn it, and the Hint button has nothing to say.
  const dead = stuck();
  if ($("hint")) $("hint").disabled = !playing() || dead;
  const panel = $("stuck");
  if (panel && panel.hidden === dead) {
    panel.hidden = !dead;
    if (dead) $("stuck-undo").disabled = !state.can_undo;
  }
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

export function layoutColumns() {
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

// --- the clock: time since the server started the attempt ---------------------------------------

let clockBase = null; // performance.now() at the attempt's start, from the server's elapsed_ms
let clockTimer = null;

/** Minutes and seconds (and hundredths when precise), cut from the server's milliseconds, never rounded:
 * the one way every page shows a play time (games.selectors.play_time_text on the server). */
export function clockText(ms, precise = false) {
  const centis = Math.floor(Math.max(0, Math.round(ms)) / 10);
  const minutes = Math.floor(centis / 6000);
  const seconds = String(Math.floor(centis / 100) % 60).padStart(2, "0");
  return precise ? `${minutes}:${seconds}.${String(centis % 100).padStart(2, "0")}` : `${minutes}:${seconds}`;
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
    // The server's play time of the ended attempt: the result and the boards show this one.
    $("clock").textContent = typeof attempt.elapsed_ms === "number" ? clockText(attempt.elapsed_ms, true) : "…";
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

// --- the end of a game ------------------------------------------------------------------------------

export function celebrate() {
  $("result")?.classList.add("won");
  if (reducedMotion()) return;
  // The foundations' kings leap and spin, one after the other; the result panel pops in.
  const cards = [...tableEl.querySelectorAll(".foundation .card")];
  cards.forEach((card, i) => card.animate?.(
    [{ transform: "translateY(0) rotate(0) scale(1)" },
      { transform: `translateY(-28px) rotate(${i % 2 ? 12 : -12}deg) scale(1.12)` },
      { transform: "translateY(0) rotate(0) scale(1)" }],
    { duration: 240, delay: i * 60, easing: "ease-out" },
  ));
  $("result")?.animate?.([{ transform: "scale(.92)", opacity: 0.4 }, { transform: "scale(1)", opacity: 1 }],
    { duration: 220, easing: "ease-out" });
}

/** The clock counts from the server's elapsed time at the attempt's last answer. */
export function clockFrom(elapsedMs) {
  clockBase = performance.now() - elapsedMs;
}
