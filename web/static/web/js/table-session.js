// Talking to the server: the attempt, move batches, submitting, the result, the day's end.

import { get, post } from "./api.js";
import * as R from "./rules.js";
import { $, cfg, clearStaleMessage, game, hooks, message, playing, root, safeHomeFor, tableEl } from "./table-page.js";
import { distribution, statsTiles } from "./stats-view.js";
import { celebrate, clockFrom, clockText, render } from "./table-view.js";
import { cardLabel } from "./cards.js";
import { moveWords, withCardWords } from "./words.js";

export function takeAttempt(data) {
  if (typeof data.elapsed_ms === "number" && !data.finished_at) clockFrom(data.elapsed_ms);
  if (game.attempt?.id !== data.id) line.inflight = 0; // a batch of the last attempt answers to nobody
  game.attempt = { ...data, moves: (data.moves || []).slice() };
  game.state = data.state;
  // What the server holds: the page's log and state start from it again.
  line.stored = game.attempt.moves.length;
  line.waiting = false;
  line.intents = [];
  syncBusy();
  showMode();
  safeHomeFor(Boolean(data.ranked));
  render();
  stored();
}

/** Tell the page's other parts (the still-winnable light) that the server holds every move shown. */
function stored() {
  root.dispatchEvent(new CustomEvent("dp:stored"));
}

/** The attempt's badge: ranked, ranked and assisted, or practice. */
function showMode() {
  const data = game.attempt;
  const mode = $("mode");
  mode.hidden = false;
  mode.textContent = modeText(data);
  mode.title = data.ranked
    ? data.assisted ? "Ranked, assisted: this game ranks on the board of all results, marked assisted"
      : "Ranked: this game ranks on the day's board"
    : "Practice: this game is not ranked";
  mode.className = `badge ${data.ranked ? "ranked" : "practice"}${data.assisted ? " assisted" : ""}`;
}

/** The attempt's status in words: ranked, ranked and assisted, or practice. */
export function modeText(attempt) {
  if (!attempt.ranked) return "practice";
  return attempt.assisted ? "ranked, assisted" : "ranked";
}

// --- undo ----------------------------------------------------------------------------------------

/** The move an undo now takes back: the log's last move not undone yet (SPEC section 4). */
function moveToUndo(log) {
  const line = [];
  for (const move of log) {
    if (move === "u") line.pop();
    else line.push(move);
  }
  return line.at(-1);
}

/**
 * Undo, asking first when it would mark a ranked attempt assisted (SPEC section 7): the server's state
 * says whether the move it takes back showed a card for the first time (undo_assists).
 */
export function undo() {
  if (!playing()) return;
  if (line.waiting) { line.intents.push(undo); return; }
  if (!game.state.can_undo) return;
  const attempt = game.attempt;
  if (!attempt.ranked || attempt.assisted || !game.state.undo_assists) {
    play(["u"]);
    return;
  }
  const look = moveToUndo(attempt.moves) === "s"
    ? "Undoing this draw shows you a hidden card and takes it back"
    : "Undoing this move hides again the card it turned up: you saw it and take it back";
  $("undo-warning-text").textContent = `${look}: your game will rank on the assisted board.`;
  askFirst("undo-warning", "undo", () => play(["u"]), "Nothing undone: your game still ranks on the day's board.");
}

/**
 * Before the first assist of a ranked game (an undo that takes back a look, a hint): a modal dialog
 * that says so in words (no tooltip: phones show none), "Keep playing" focused. The dialog's confirm
 * button has the value `yes`; `then` runs once it is pressed, else the page says nothing changed.
 */
const asking = {};
export function askFirst(id, yes, then, kept) {
  const dialog = $(id);
  asking[id] = { yes, then, kept };
  dialog.returnValue = "";
  dialog.showModal();
  dialog.querySelector("button[value=keep]").focus();
}

function answered(event) {
  const dialog = event.target;
  const question = asking[dialog.id];
  delete asking[dialog.id];
  if (!question) return;
  if (dialog.returnValue === question.yes && playing()) question.then();
  else message(question.kept);
}

for (const id of ["undo-warning", "hint-warning"]) $(id)?.addEventListener("close", answered);

function reasonOf(exc) {
  const reason = exc.details && exc.details.reason;
  return reason ? `${exc.details.move ? `${exc.details.move}: ` : ""}${reason}` : exc.message;
}

export async function reload() {
  takeAttempt(await get(`attempts/${game.attempt.id}`));
}

// --- moves: shown at once, sent in order -------------------------------------------------------------
//
// game.attempt.moves is the log as the page has it: the server holds its first `line.stored` entries.
// A move the visible state decides (R.applyVisible) shows at once and joins the log; the moves not
// sent yet go in one batch as soon as no request is in flight. A move only the server can tell the
// outcome of (a draw, a redeal, an undo, a turn-up) joins the log too, and the page waits for the
// server's state: input meanwhile waits in `line.intents`, in order, and is played once it is known.

export const line = { stored: 0, inflight: 0, waiting: false, intents: [], idle: [] };
hooks.waiting = () => line.waiting;

function syncBusy() {
  game.busy = line.inflight > 0 || line.waiting || (game.attempt ? game.attempt.moves.length > line.stored : false);
}

/** Run `action` now, or once the server has answered the move the page waits for (input is never dropped). */
export function whenReady(action) {
  if (line.waiting) line.intents.push(action);
  else action();
}

/** Run `action` once every move is stored and nothing waits (submitting, a hint). */
export function whenIdle(action) {
  syncBusy();
  if (!game.busy) action();
  else line.idle.push(action);
}

/**
 * Play moves on the table: the ones the page can see at once, then send. A refused move (the page
 * knows the rules as the server does) leaves the table as it was and says why.
 */
export function play(moves) {
  if (!playing() || !moves.length) return;
  if (line.waiting) { line.intents.push(() => play(moves)); return; }
  let shown = false;
  const said = [];
  for (const [i, move] of moves.entries()) {
    const outcome = R.applyVisible(game.rules, game.state, move);
    if (!outcome.error) said.push(moveWords(move, game.state, true));
    if (outcome.error) {
      if (!shown) message(withCardWords(outcome.error), "error");
      break;
    }
    game.attempt.moves.push(move);
    shown = true;
    if (outcome.state) {
      game.state = outcome.state;
    } else {
      line.waiting = true;
      if (i + 1 < moves.length) line.intents.unshift(() => play(moves.slice(i + 1)));
      break;
    }
  }
  if (!shown) return;
  clearStaleMessage();
  announce(said.join(". "));
  game.hint = null;
  syncBusy();
  render();
  if (game.state.won) message("");
  flush();
}

/**
 * Moves and their outcomes in words for screen readers: a polite live region (it waits for the reader to
 * finish), one line added per event (a move, then the card it turned up): additions are read, the
 * region keeps the last three.
 */
export function announce(text) {
  const box = $("announce");
  if (!box || !text) return;
  const line = document.createElement("span");
  line.textContent = /[.!?]$/.test(text) ? `${text} ` : `${text}. `;
  box.append(line);
  while (box.childNodes.length > 3) box.firstChild.remove();
}

/** "Turned up 9 of spades in column 7": the tableau cards face down on the table and face up in ``after``. */
function turnedUp(before, after) {
  const said = [];
  after.tableau.forEach((column, i) => {
    const top = column.at(-1);
    const was = before.tableau[i]?.[column.length - 1];
    if (top?.up && was && !was.up) said.push(`Turned up ${cardLabel(top.card)} in column ${i + 1}`);
  });
  return said;
}

/** For tests and the console: the moves as the server takes them (the page's checks first). */
export const send = play;

async function flush() {
  if (line.inflight || !game.attempt) return;
  const log = game.attempt.moves;
  line.stored = Math.min(line.stored, log.length);
  const batch = log.slice(line.stored);
  if (!batch.length) { settle(); return; }
  const from = line.stored;
  line.inflight = batch.length;
  tableEl.classList.toggle("busy", line.waiting);
  const attemptId = game.attempt.id;
  try {
    const answer = await post(`attempts/${attemptId}/moves`, { from, moves: batch });
    if (!game.attempt || game.attempt.id !== attemptId) return;
    line.inflight = 0;
    if (answer.log_length !== from + batch.length) throw Object.assign(new Error("out of step"), { status: 409 });
    line.stored = from + batch.length;
    // The server's state, with the moves played on the table since the batch left.
    let state = answer.state;
    line.waiting = false;
    for (const move of game.attempt.moves.slice(line.stored)) {
      const outcome = R.applyVisible(game.rules, state, move);
      if (outcome.error) throw Object.assign(new Error(outcome.error), { status: 409 });
      if (!outcome.state) { line.waiting = true; break; }
      state = outcome.state;
    }
    if (typeof answer.elapsed_ms === "number" && !answer.finished_at) clockFrom(answer.elapsed_ms);
    for (const key of ["assisted", "ranked", "finished_at"]) if (key in answer) game.attempt[key] = answer[key];
    showMode();
    if (batch.at(-1) === "s" && answer.state.waste.length) announce(`Drew ${cardLabel(answer.state.waste.at(-1))}`);
    const turned = turnedUp(game.state, state);
    if (turned.length) announce(turned.join(". "));
    const changed = JSON.stringify(state) !== JSON.stringify(game.state);
    game.state = state;
    tableEl.classList.remove("busy");
    if (changed) render(); // the server agreed with what the table shows: nothing to redraw
    while (!line.waiting && line.intents.length && playing()) line.intents.shift()();
    if (!line.inflight) await flush();
  } catch (exc) {
    line.inflight = 0;
    line.intents = [];
    tableEl.classList.remove("busy");
    await refused(exc);
  }
}

/** The server refused a batch: the table goes back to the server's position, and says why. */
async function refused(exc) {
  if (exc.code === "day_over") {
    line.waiting = false;
    game.attempt.moves.length = line.stored;
    syncBusy();
    await closeAtDayEnd();
    return;
  }
  const why = exc.status === 409 ? `${exc.message}: the game was reloaded from the server.` : reasonOf(exc);
  try { await reload(); } catch (again) { message(again.message, "error"); return; }
  message(why.charAt(0).toUpperCase() + why.slice(1), "error");
  settle();
}

/** Nothing in flight, nothing waiting: what the page does by itself (a win, the finish) and the idle callbacks. */
function settle() {
  syncBusy();
  if (game.busy) return;
  stored();
  const waiting = line.idle.splice(0);
  for (const action of waiting) action();
  afterMoves();
}

// --- the day's end ---------------------------------------------------------------------------------

/**
 * A ranked attempt takes no move once its day is over (the seed and the solution are public then):
 * the page says so and submits the game as it stands, which is how the server counts it anyway.
 */
export async function closeAtDayEnd() {
  guestNoticeAfterTheDay();
  if (!game.attempt || !game.attempt.ranked || game.attempt.finished_at) return;
  $("day-over").hidden = false;
  await submit();
}

/** Whether the deal's day is over: when the page was made, or since (the page's clock past the day's end). */
export function dayIsOver() {
  return cfg.over === "true" || Date.now() >= Date.parse(cfg.endsAt || "");
}

/** A guest's notice once the day is over: no more "today"; signing up keeps the result, logging in to an
 * account that exists keeps it as practice (games.services.guest_claim). */
function guestNoticeAfterTheDay() {
  const notice = $("guest-keep");
  if (!notice || notice.dataset.dayOver === "true") return;
  notice.dataset.dayOver = "true";
  notice.replaceChildren($("guest-keep-after-day").content.cloneNode(true));
}

export function watchDayEnd() {
  const endsAt = Date.parse(cfg.endsAt || "");
  if (Number.isNaN(endsAt)) return;
  const wait = endsAt - Date.now();
  if (wait <= 0) return;
  // Timers drift and sleep with the tab: a second after the end, then the server decides.
  setTimeout(() => { if (playing() && game.attempt.ranked) closeAtDayEnd(); else guestNoticeAfterTheDay(); }, Math.min(wait + 1000, 2 ** 31 - 1));
}

export async function afterMoves() {
  if (!game.attempt || game.attempt.finished_at || game.busy || game.watching) return;
  if (game.state.won) {
    await submit();
    return;
  }
  const finish = R.finishPlan(game.state);
  if (finish) {
    message("Finishing…");
    play(finish);
    return;
  }
  // The option: safe cards go home by themselves, as ordinary moves of the log (not while the finish
  // plays through the stock: it counts the cards it sends home to decide on a redeal).
  // Nor right after an undo, which would take back what the player just took back.
  const safe = game.safeHome && !finishing && game.attempt.moves.at(-1) !== "u" ? R.safeMoves(game.rules, game.state) : [];
  if (safe.length) {
    play(safe);
    return;
  }
  const step = R.finishStep(game.rules, game.state, finishing);
  if (step) {
    finishing = step.progress;
    message("Finishing…");
    play([step.move]);
  } else if (finishing) {
    finishing = null;
    message("Every card is face up: the rest is yours to play.");
  }
}

let finishing = null; // the finish through the stock: what it has done since its last redeal

export async function submit() {
  if (!game.attempt || game.attempt.finished_at) return;
  if (game.busy) { whenIdle(submit); return; }
  if (submitting) return;
  submitting = true;
  game.busy = true;
  game.hint = null; // a finished board keeps no hint marks nor old errors
  game.picked = null;
  message("");
  try {
    let submission = await post(`attempts/${game.attempt.id}/submit`, {});
    try {
      // The ended attempt as the server stored it: its finish and play time are the result's.
      const ended = await get(`attempts/${game.attempt.id}`);
      game.attempt = { ...game.attempt, finished_at: ended.finished_at, elapsed_ms: ended.elapsed_ms };
    } catch {
      game.attempt.finished_at = game.attempt.finished_at || new Date().toISOString();
      game.attempt.elapsed_ms = null;
    }
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
    submitting = false;
    game.busy = false;
  }
}

let submitting = false;

export const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The server's share text (one definition, games.selectors.result_share_text) with the deal's address. */
function shareText(submission) {
  const r = submission.result;
  if (r && r.share) return `${r.share}\n${location.origin}/play/${cfg.date}/${cfg.game}`;
  return "The share text appears once the server has checked the game.";
}

export function showResult(submission, pending) {
  const panel = $("result");
  const appears = panel.hidden;
  if (panel.hidden) panel.classList.remove("docked");
  panel.hidden = false;
  if (appears) $("result-title").focus({ preventScroll: true }); // the keyboard is where the game went on
  const r = submission.result;
  if (pending || submission.status === "pending") {
    $("result-title").textContent = game.state.won ? "Won! Checking…" : "Submitted. Checking…";
    $("result-text").textContent = "The server is replaying your moves.";
  } else if (submission.status === "valid" && r) {
    $("result-title").textContent = r.fair_play ? "Held for a fair-play check" : r.won ? "You won!" : "Game over";
    const over = dayIsOver();
    if (over) guestNoticeAfterTheDay();
    const board = r.board === "all" ? "the board of all results (assisted)"
      : over ? "the day's board" : "today's board";
    // A loss stands below every win: it is never "#1" (issue 53), whatever its place among the losses.
    const place = r.won ? `would rank #${r.rank}` : "would stand below every won game";
    const rank = r.fair_play
      ? `Held for a fair-play check: ${r.fair_play.reason} It goes on the boards once staff have checked it.`
      : r.rank && r.on_board === false
        ? `As a guest you ${place}: sign up${over ? "" : " or log in"} to put this result on ${board}.`
        : r.rank && r.won ? `Rank #${r.rank}${r.board_total ? ` of ${r.board_total}` : ""} on ${board}.`
          : r.rank ? `On ${board}, below every won game${r.board_total ? ` (${count(r.board_total, "result")})` : ""}.`
            : r.ranked ? "Ranked." : "Practice: not ranked.";
    const time = r.ranked ? ` Time ${clockText(r.play_time_ms, true)}.` : "";
    // Of the players on the day's board at this moment (it grows through the day), and it says so.
    const others = (r.board_total || 1) - 1;
    const ahead = r.ahead_of_percent === null || r.ahead_of_percent === undefined ? ""
      : ` You finished ahead of ${r.ahead_of_percent}% of today's players (the ${count(others, "other player")} ranked so far).`;
    panel.dataset.ahead = ahead ? String(r.ahead_of_percent) : "";
    $("result-text").textContent = `${r.won ? "Won" : "Not won"} with score ${r.score} in ${count(r.moves, "move")}` +
      ` (${count(r.foundation_cards, "card")} home).${time} ${rank}${ahead}`;
  } else {
    $("result-title").textContent = "Not accepted";
    const error = submission.error || {};
    $("result-text").textContent = withCardWords(
      `The replay stopped at move ${(error.index ?? 0) + 1}: ${error.reason || "invalid log"}`);
  }
  if (!pending && submission.status !== "pending") announce(`${$("result-title").textContent} ${$("result-text").textContent}`);
  panel.dataset.status = submission.status;
  panel.dataset.fairPlay = r && r.fair_play ? "held" : "";
  if (submission.status === "valid" && r && r.won && !pending) celebrate();
  if (submission.status === "valid" && r && r.ranked && !pending) showStreak();
  $("share-text").value = shareText(submission);
}

export async function start() {
  try {
    takeAttempt(await post(`daily/${cfg.date}/${cfg.game}/attempts`));
    $("start").hidden = true;
    $("result").hidden = true;
    message(game.attempt.ranked ? "Ranked attempt started: good luck!" : "Practice attempt started.");
    tableEl.querySelector('[data-pile="t1"]')?.focus({ preventScroll: true });
    afterMoves(); // a safe card dealt on a column's top goes home at once, if the option is on
  } catch (exc) {
    message(exc.message, "error");
  }
}

/** Under a ranked result: the overall streak, and this game's figures and distribution with today's bar
 * marked (GET /api/v1/players/{me}/stats?game=: the server's one definition of a streak). */
async function showStreak() {
  const me = document.body.dataset.user;
  const box = $("result-streak");
  const stats = $("result-stats");
  if (!me || !box) return;
  try {
    const s = await get(`players/${encodeURIComponent(me)}/stats?game=${encodeURIComponent(cfg.game)}`);
    box.textContent = `Streak over every game: ${count(s.overall.current_streak, "day")} won in a row ` +
      `(best ${s.overall.best_streak}).`;
    box.hidden = false;
    const mine = s.games[0];
    if (stats && mine && mine.played) {
      stats.replaceChildren(statsTiles(mine), distribution(mine, `Your ${game.rules?.name || cfg.game} results: wins by time`));
      stats.hidden = false;
    }
  } catch {
    box.hidden = true; // the result stands without them
    if (stats) stats.hidden = true;
  }
}
