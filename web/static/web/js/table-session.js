// Talking to the server: the attempt, move batches, submitting, the result, the day's end.

import { get, post } from "./api.js";
import * as R from "./rules.js";
import { $, cfg, game, message, playing, tableEl } from "./table-page.js";
import { celebrate, clockFrom, clockText, render } from "./table-view.js";
import { withCardWords } from "./words.js";

export function takeAttempt(data) {
  if (typeof data.elapsed_ms === "number" && !data.finished_at) clockFrom(data.elapsed_ms);
  game.attempt = data;
  game.state = data.state;
  const mode = $("mode");
  mode.hidden = false;
  mode.textContent = modeText(data);
  mode.title = data.ranked
    ? data.assisted ? "Ranked, assisted: this game ranks on the board of all results, marked assisted"
      : "Ranked: this game ranks on the day's board"
    : "Practice: this game is not ranked";
  mode.className = `badge ${data.ranked ? "ranked" : "practice"}${data.assisted ? " assisted" : ""}`;
  render();
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
  if (!playing() || game.busy || !game.state.can_undo) return;
  const attempt = game.attempt;
  if (!attempt.ranked || attempt.assisted || !game.state.undo_assists) {
    send(["u"]);
    return;
  }
  const dialog = $("undo-warning");
  const look = moveToUndo(attempt.moves) === "s"
    ? "Undoing this draw shows you a hidden card and takes it back"
    : "Undoing this move hides again the card it turned up: you saw it and take it back";
  $("undo-warning-text").textContent = `${look}: your game will rank on the assisted board.`;
  dialog.returnValue = "";
  dialog.showModal();
  $("undo-cancel").focus();
}

function undoAnswered() {
  const dialog = $("undo-warning");
  if (dialog.returnValue === "undo" && playing()) send(["u"]);
  else message("Nothing undone: your game still ranks on the day's board.");
}

$("undo-warning")?.addEventListener("close", undoAnswered);

function reasonOf(exc) {
  const reason = exc.details && exc.details.reason;
  return reason ? `${exc.details.move ? `${exc.details.move}: ` : ""}${reason}` : exc.message;
}

export async function reload() {
  takeAttempt(await get(`attempts/${game.attempt.id}`));
}

/**
 * Send a batch; the server's state replaces ours. A 400 snaps back with its reason, a 409 reloads.
 * Only after a stored batch does the page go on by itself (submit a win, finish the game).
 */
export async function send(moves) {
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
export async function closeAtDayEnd() {
  dayOverPending = false;
  if (!game.attempt || !game.attempt.ranked || game.attempt.finished_at) return;
  $("day-over").hidden = false;
  await submit();
}

export function watchDayEnd() {
  const endsAt = Date.parse(cfg.endsAt || "");
  if (Number.isNaN(endsAt)) return;
  const wait = endsAt - Date.now();
  if (wait <= 0) return;
  // Timers drift and sleep with the tab: a second after the end, then the server decides.
  setTimeout(() => { if (playing() && game.attempt.ranked) closeAtDayEnd(); }, Math.min(wait + 1000, 2 ** 31 - 1));
}

export async function afterMoves() {
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

export async function submit() {
  if (!game.attempt || game.busy) return;
  game.busy = true;
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
    game.busy = false;
  }
}

export const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The server's share text (one definition, games.selectors.result_share_text) with the deal's address. */
function shareText(submission) {
  const r = submission.result;
  if (r && r.share) return `${r.share}\n${location.origin}/play/${cfg.date}/${cfg.game}`;
  return "The share text appears once the server has checked the game.";
}

export function showResult(submission, pending) {
  const panel = $("result");
  panel.hidden = false;
  const r = submission.result;
  if (pending || submission.status === "pending") {
    $("result-title").textContent = game.state.won ? "Won! Checking…" : "Submitted. Checking…";
    $("result-text").textContent = "The server is replaying your moves.";
  } else if (submission.status === "valid" && r) {
    $("result-title").textContent = r.review ? "Under review" : r.won ? "You won!" : "Game over";
    const board = r.board === "all" ? "the board of all results (assisted)"
      : cfg.over === "true" ? "the day's board" : "today's board";
    const where = r.won ? "" : ", below every won game";
    const rank = r.review
      ? `Under review: ${r.review.reason} It goes on the boards once staff have checked it.`
      : r.rank && r.on_board === false
        ? `As a guest you would rank #${r.rank}${where}: sign up or log in to put this result on ${board}.`
        : r.rank ? `Rank #${r.rank} on ${board}${where}.`
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
  panel.dataset.review = r && r.review ? "held" : "";
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
  } catch (exc) {
    message(exc.message, "error");
  }
}

/** The player's streak under a ranked result (from their profile: the server's one definition). */
async function showStreak() {
  const me = document.body.dataset.user;
  const box = $("result-streak");
  if (!me || !box) return;
  try {
    const p = await get(`players/${encodeURIComponent(me)}`);
    box.textContent = `Streak: ${count(p.current_streak, "day")} won in a row (best ${p.best_streak}).`;
    box.hidden = false;
  } catch {
    box.hidden = true; // the result stands without it
  }
}
