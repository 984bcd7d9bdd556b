// The "still winnable?" light: on a past day's practice only (the deal is public then), off by default,
// remembered per browser. After each move the server has stored, the page asks GET
// /attempts/{id}/winnable (the server solves its own stored position, never one sent from here) and
// shows green (still winnable), red (no longer winnable) or grey (solver undecided). Nothing waits on it:
// the request runs beside play, and an answer for a log the page has moved past is dropped.

import { get } from "./api.js";
import { $, cfg, game, root } from "./table-page.js";

const STORE = "dp:winnable";
const box = $("winnable"); // only on the page of a day that is over (web/play.html)
const toggle = $("winnable-toggle");
const light = $("winnable-light");
const words = $("winnable-text");
const live = $("winnable-live");
const WAIT_MS = 150; // moves in quick succession are asked about once, after the last
const MAX_POLLS = 40;
const SLOW_MS = 300;

let ticket = 0; // the latest ask: an answer to any earlier one is stale
let timer = null;
let said = "";

const enabled = () => localStorage.getItem(STORE) === "on";
const eligible = () => Boolean(cfg.over === "true" && game.attempt && !game.attempt.ranked);
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function show(state, text) {
  light.classList.toggle("stale", state === "pending");
  light.dataset.state = state;
  words.textContent = text;
  light.hidden = false;
  // the polite live region speaks the verdicts, each once, not the "checking" in between
  if (state !== "pending" && text !== said) {
    said = text;
    live.textContent = text;
  }
}

/** Show or hide the control and the light for the table as it is now, and ask about its position. */
function refresh() {
  if (!box) return;
  box.hidden = !eligible();
  if (box.hidden || !enabled()) {
    light.hidden = true;
    light.dataset.state = "off";
    ticket += 1; // any answer on its way is dropped
    return;
  }
  clearTimeout(timer);
  timer = setTimeout(ask, WAIT_MS);
}

async function ask() {
  if (!eligible() || !enabled() || game.busy) return; // a busy table sends "stored" again when it settles
  const mine = ++ticket;
  const id = game.attempt.id;
  const length = game.attempt.moves.length;
  const current = () => mine === ticket && game.attempt?.id === id && game.attempt.moves.length === length;
  // The last verdict is dimmed at once (it was for the position before this move); "checking…" shows
  // only if the answer is slow, so a cached one does not make the light flicker.
  light.classList.add("stale");
  const slow = setTimeout(() => { if (current()) show("pending", "checking…"); }, SLOW_MS);
  try {
    let answer = await get(`attempts/${id}/winnable`);
    for (let i = 0; answer.state === "pending" && i < MAX_POLLS && current(); i += 1) {
      await sleep(answer.retry_after_ms || 400);
      if (!current()) return;
      answer = await get(`attempts/${id}/winnable`);
    }
    if (!current() || answer.moves !== length) return; // the player moved on: a newer ask is coming
    if (answer.state === "pending") show("undecided", "solver undecided");
    else show(answer.state, answer.words);
  } catch (exc) {
    if (!current()) return;
    show("undecided", exc.status === 429 ? "not checked: too many asks, it resumes shortly" : "solver undecided");
  } finally {
    clearTimeout(slow);
  }
}

if (box) {
  toggle.checked = enabled();
  toggle.addEventListener("change", () => {
    localStorage.setItem(STORE, toggle.checked ? "on" : "off");
    said = "";
    refresh();
  });
  // table-session sends it whenever the server holds every move the table shows (and on a new attempt)
  root.addEventListener("dp:stored", refresh);
}
