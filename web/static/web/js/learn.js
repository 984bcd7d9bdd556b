// How to play: the game's real table (table-view's drawing and motion) playing a few scripted moves from a
// position made up for the page (learn-demos.js). Nothing is asked of the server but the games' rules.

import { get } from "./api.js";
import { DEMOS, demoStart, stepPiles, stepState } from "./learn-demos.js";
import { $, cfg, game, tableEl } from "./table-page.js";
import { reducedMotion, render } from "./table-view.js";
import { withCardWords } from "./words.js";

const STEP_MS = 2200;
let steps = [];
let at = 0;
let timer = null;
let running = !reducedMotion(); // with reduced motion: a step at a press, nothing moves by itself

/** The demo's piles are a picture, not controls: no tab stop, no button role (their names stay). */
function quiet() {
  for (const pile of tableEl.querySelectorAll("[data-pile]")) {
    pile.removeAttribute("tabindex");
    pile.setAttribute("role", "group");
  }
}

function draw() {
  render();
  quiet();
  $("demo-pos").textContent = `move ${at} of ${steps.length}`;
}

function restart() {
  at = 0;
  game.hint = null;
  game.state = demoStart(game.rules);
  draw();
  $("demo-say").textContent = withCardWords("The position: watch the marked cards.");
}

/** Mark the step's cards and target, then play it a moment later. */
function step() {
  clearTimeout(timer);
  if (at >= steps.length) {
    restart();
    if (running) timer = setTimeout(step, STEP_MS);
    return;
  }
  const current = steps[at];
  game.hint = stepPiles(current);
  draw();
  $("demo-say").textContent = withCardWords(current.say);
  timer = setTimeout(() => {
    const outcome = stepState(game.rules, game.state, current);
    game.hint = null;
    if (outcome.state) game.state = outcome.state;
    at += 1;
    draw();
    if (running) timer = setTimeout(step, STEP_MS);
  }, running ? STEP_MS / 2 : 500);
}

function setRunning(on) {
  running = on;
  $("demo-play").textContent = on ? "Pause" : "Play";
  clearTimeout(timer);
  if (on) timer = setTimeout(step, 600);
}

async function init() {
  const games = await get("games");
  game.rules = games.find((rules) => rules.id === cfg.game);
  steps = DEMOS[cfg.game].steps;
  restart();
  $("demo-play").addEventListener("click", () => setRunning(!running));
  $("demo-next").addEventListener("click", () => { setRunning(false); step(); });
  $("demo-again").addEventListener("click", () => { restart(); if (running) setRunning(true); });
  setRunning(running);
  cfg.ready = "true";
}

window.addEventListener("resize", () => { if (game.state) draw(); });
init();
