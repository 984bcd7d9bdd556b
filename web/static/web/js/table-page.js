// The table page's shared state: its element, its configuration, what it knows of the game, messages.

import * as R from "./rules.js";
import { withCardWords } from "./words.js";

export const root = document.getElementById("game");
export const cfg = root.dataset;
export const $ = (id) => document.getElementById(id);
export const tableEl = $("table");

export const game = {
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
  safeHome: false, // the option: safe cards go to the foundations by themselves (R.safeMoves)
};

// "Safe cards home", remembered in the browser apart for ranked and practice play (turned on for
// practice, it stays off in ranked play until turned on there too). Off until the player turns it on.
const safeHomeKey = (ranked) => `dp:safe-home:${ranked ? "ranked" : "practice"}`;
export function safeHomeWanted(ranked) {
  return localStorage.getItem(safeHomeKey(ranked)) === "1";
}
export function safeHomeRemember(ranked, on) {
  localStorage.setItem(safeHomeKey(ranked), on ? "1" : "0");
}
/** The option for this kind of play, on the page's checkbox too. */
export function safeHomeFor(ranked) {
  game.safeHome = safeHomeWanted(ranked);
  const box = $("safe-home");
  if (box) box.checked = game.safeHome;
}

/** What the drawing asks the session: whether the page waits for the server's answer to a move. */
export const hooks = { waiting: () => false };

/** No legal move on the visible table (R.legalMoves: it counts a draw, a redeal and any move the table shows). */
export const stuck = () => Boolean(playing() && !hooks.waiting() && !R.legalMoves(game.rules, game.state).length);

export const playing = () =>
  Boolean(game.attempt && !game.attempt.finished_at && game.state && !game.state.won && !game.watching);

// --- messages --------------------------------------------------------------------------------

// An info line goes after 6 s, an error after 8 s (or at the next move that plays); a hint stays
// until the next move.
export let messageTimer = null;
const MESSAGE_MS = { info: 6000, error: 8000 };
export function message(text, kind = "info") {
  const box = $("message");
  box.textContent = withCardWords(text || "");
  box.className = `message ${kind}`;
  clearTimeout(messageTimer);
  if (text && MESSAGE_MS[kind]) messageTimer = setTimeout(() => { box.textContent = ""; }, MESSAGE_MS[kind]);
}

/** A move played: an error or a hint about the position before it is stale now. */
export function clearStaleMessage() {
  const box = $("message");
  if (box.classList.contains("error") || box.classList.contains("hint")) message("");
}
