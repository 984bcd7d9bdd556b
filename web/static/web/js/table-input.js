// Input: clicks, drags (mouse and touch), keys and the buttons, turned into moves for the server.

import { el, post } from "./api.js";
import * as R from "./rules.js";
import { $, cfg, game, message, playing, safeHomeFor, safeHomeRemember, stuck, tableEl } from "./table-page.js";
import { afterMoves, askFirst, line, modeText, play, start, submit, undo, whenIdle, whenReady } from "./table-session.js";
import { launchFrom, render } from "./table-view.js";
import { cardWords, moveWords, movePiles, pileWords } from "./words.js";

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
  whenReady(() => {
    if (!playing()) return;
    const move = R.stockMove(game.state);
    if (move) play([move]);
    else message("The stock is empty and no redeal is left.", "error");
  });
}

function bestFor(source) {
  if (!source) return;
  const plan = R.planBest(game.rules, game.state, source);
  if (plan.moves) play(plan.moves);
  else message(plan.error, "error");
}

/** A click on a card: its best place, planned on the position once the server's answer (if awaited) is in. */
function clickCard(pile, index) {
  whenReady(() => { if (playing()) bestFor(sourceOf(pile, index)); });
}

// Pointer: a press that does not travel is a click; one that travels drags the card and those above it.
let press = null;

tableEl.addEventListener("pointerdown", (event) => {
  if (!playing() || event.button !== 0) return;
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
      if (plan && plan.moves && !line.waiting) {
        current.drag.ghost.style.display = "";
        launchFrom(current.drag.ghost.querySelectorAll(".card")); // the cards fly on from where they were dropped
      }
      endDrag(!plan || !plan.moves);
      if (plan && plan.moves) whenReady(() => dropAgain(current, target));
      else if (plan) message(`${cardWords(cardOf(current.source))} cannot go there: ${plan.error}`, "error");
    } else if (current.pile === "s") {
      stockAction();
    } else if (current.source) {
      clickCard(current.pile, current.pile[0] === "t" ? Number(current.cardEl.dataset.index) : undefined);
    }
  } finally {
    press = null;
  }
});

/** A drop, planned again on the position when it is played (the same cards, if still there). */
function dropAgain(current, target) {
  if (!playing()) return;
  const { pile } = current;
  const source = pile[0] === "t" ? sourceOf(pile, Number(current.cardEl.dataset.index)) : sourceOf(pile);
  const plan = source && R.planDrop(game.rules, game.state, source, target);
  if (plan && plan.moves) play(plan.moves);
  else message(plan ? plan.error : "those cards are no longer there", "error");
}

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
    if (plan.moves) return play(plan.moves);
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
  if (key === "u" && playing()) { event.preventDefault(); undo(); return; }
  if (!pileEl || !tableEl.contains(pileEl)) return;
  const pile = pileEl.dataset.pile;
  if (key.startsWith("Arrow")) { event.preventDefault(); moveFocus(pile, key); return; }
  if (key === "Escape") { unpick(); return; }
  if (!playing()) return;
  if (key === " ") {
    event.preventDefault();
    if (pile === "s") return stockAction();
    return whenReady(() => playing() && spaceOn(pile));
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
    if (from !== pile) whenReady(() => playing() && keyboardDrop(from, pile));
  }
});

/** Space on a pile: its top card home if it can go, else the longest run to its best place. */
function spaceOn(pile) {
  const top = sourceOf(pile, pile[0] === "t" ? game.state.tableau[Number(pile.slice(1)) - 1].length - 1 : undefined);
  const toFoundation = top && R.planBest(game.rules, game.state, top);
  if (toFoundation?.moves && toFoundation.moves[0].includes("f")) return play(toFoundation.moves);
  return bestFor(longestSource(pile));
}

// --- buttons -------------------------------------------------------------------------------------

$("draw").addEventListener("click", () => playing() && stockAction());
$("undo").addEventListener("click", () => undo());
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
$("hint")?.addEventListener("click", () => whenIdle(hintPressed));
$("stuck-undo")?.addEventListener("click", () => undo());
$("stuck-giveup")?.addEventListener("click", () => { if (playing()) submit(); });

/** Hint: nothing to ask when the table has no move (it says so by itself); the first of a ranked game asks. */
function hintPressed() {
  if (!playing() || stuck()) return;
  if (game.attempt.ranked && !game.attempt.assisted) {
    askFirst("hint-warning", "hint", () => whenIdle(askHint), "No hint shown: your game still ranks on the day's board.");
    return;
  }
  askHint();
}

async function askHint() {
  if (!playing()) return;
  const first = !game.attempt.assisted;
  try {
    const hint = await post(`attempts/${game.attempt.id}/hint`, {});
    // Asking marks a ranked game, even when no move is found; practice only by a move (the server says).
    game.attempt.assisted = hint.assisted;
    $("mode").textContent = modeText(game.attempt);
    const note = first && hint.assisted ? " This attempt is now marked assisted." : "";
    if (!hint.move) {
      message(`No hint: ${hint.reason}.${note}`);
      render();
      return;
    }
    const piles = movePiles(hint.move);
    const n = Number((hint.move.split(":")[1]) || 1);
    game.hint = piles && { ...piles, n };
    render();
    const plainly = hint.reason && hint.reason.startsWith("no move"); // it says what to do in words already
    message(plainly ? `Hint: ${hint.reason}.${note}`
      : `Hint: ${moveWords(hint.move, game.state)}${hint.reason ? ` (${hint.reason})` : ""}.${note}`, "hint");
  } catch (exc) {
    message(exc.message, "error");
  }
}
$("result-dock")?.addEventListener("click", () => {
  const panel = $("result");
  const docked = panel.classList.toggle("docked");
  $("result-dock").textContent = docked ? "Show the result" : "See the table";
  $("result-dock").setAttribute("aria-expanded", String(!docked));
  if (docked) tableEl.scrollIntoView({ block: "start" });
});
$("start-button")?.addEventListener("click", start);
$("again")?.addEventListener("click", start);
// Phones share through the system's share sheet (Web Share API); elsewhere, or if it fails, the clipboard.
const shareSheet = Boolean(navigator.share) && matchMedia("(pointer: coarse)").matches;
if (shareSheet) $("copy-share").textContent = "Share";
$("copy-share").addEventListener("click", async () => {
  const text = $("share-text").value;
  if (shareSheet) {
    try {
      await navigator.share({ text });
      return;
    } catch (exc) {
      if (exc.name === "AbortError") return; // the player closed the sheet
    }
  }
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    $("share-text").select();
    document.execCommand("copy");
  }
  $("copy-share").textContent = "Copied";
  setTimeout(() => { $("copy-share").textContent = shareSheet ? "Share" : "Copy"; }, 2000);
});

const fourColour = $("four-colour");
fourColour.checked = localStorage.getItem("dp:four-colour") === "1";
document.body.classList.toggle("four-colour", fourColour.checked);
fourColour.addEventListener("change", () => {
  localStorage.setItem("dp:four-colour", fourColour.checked ? "1" : "0");
  document.body.classList.toggle("four-colour", fourColour.checked);
});

// "Safe cards home": before an attempt the checkbox shows the option for the next one (ranked or not).
const safeHome = $("safe-home");
if (safeHome) {
  safeHomeFor(cfg.nextRanked === "true");
  safeHome.addEventListener("change", () => {
    const ranked = game.attempt ? Boolean(game.attempt.ranked && !game.attempt.finished_at) : cfg.nextRanked === "true";
    safeHomeRemember(ranked, safeHome.checked);
    game.safeHome = safeHome.checked;
    if (game.safeHome && playing()) whenIdle(afterMoves);
  });
}

// The skip link: to Start while it is offered, else to the table (its piles are next in the Tab order).
$("skip-link")?.addEventListener("click", (event) => {
  event.preventDefault();
  const target = $("start").hidden ? tableEl : $("start");
  target.scrollIntoView({ block: "nearest" });
  target.focus({ preventScroll: true });
});
