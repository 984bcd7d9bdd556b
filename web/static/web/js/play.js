// The game table: draws the state the API discloses, turns clicks, drags and keys into moves,
// sends them in batches to POST /attempts/{id}/moves and shows what the server answers.
// The modules: table-page (shared state), table-view (drawing), table-session (the server),
// table-input (pointer, keys, buttons), table-watch (replays); this file starts the page.

import { get } from "./api.js";
import { startCountdown } from "./countdown.js";
import "./table-input.js";
import "./table-winnable.js";
import { $, cfg, game, message, root } from "./table-page.js";
import { afterMoves, closeAtDayEnd, line, reload, send, showResult, takeAttempt, watchDayEnd } from "./table-session.js";
import { render } from "./table-view.js";
import { showSolution } from "./table-watch.js";

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
    await showSolution(); // a past day's moves, each card named, listed before the page says it is ready
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
      // Only a press starts an attempt (the Start button, or "Play now", whose POST started it
      // already): a link, whatever its query, only opens the table.
    }
    offerHowToPlay();
    watchDayEnd();
    startCountdown(document.querySelector("#next-deal .countdown"));
    root.dataset.ready = "true";
  } catch (exc) {
    message(exc.message, "error");
  }
}

/** The first visit to a two-deck game offers its "How to play" page, once (remembered in this browser). */
function offerHowToPlay() {
  const offer = $("learn-offer");
  if (!offer || !game.rules || game.rules.decks < 2 || $("start").hidden) return;
  const key = `dp:learn-offered:${cfg.game}`;
  if (localStorage.getItem(key)) return;
  localStorage.setItem(key, "1");
  offer.hidden = false;
}

// For tests and debugging from the console: the state as the page has it, and the batch sender.
window.patience = { game, send, reload, line };

init();
