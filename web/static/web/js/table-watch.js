// Watching a log on the table: the day's solution once it is over, or a finished game.

import { el, get } from "./api.js";
import { createPlayer, pagedSource, wholeSource } from "./replay.js";
import { $, cfg, game, message, tableEl } from "./table-page.js";
import { render } from "./table-view.js";
import { moveWords } from "./words.js";

// --- watching a log on the table: the day's solution, or a finished game ---------------------------

// The day's solution with its frames (GET .../solution, public once the day is over), fetched once.
let solutionData = null;
function solutionWithFrames() {
  solutionData ??= get(`daily/${cfg.date}/${cfg.game}/solution`).catch((exc) => { solutionData = null; throw exc; });
  return solutionData;
}

/** The solution's moves in words, each card named ("8♥ from column 3 to a foundation"): the day is
 * over, so the deal is public and every frame can say which card moves, before anything is watched. */
export async function showSolution() {
  const list = $("solution-moves");
  if (!list || !game.solution) return;
  list.replaceChildren(el("li", { class: "loading", text: "Loading the solution…" }));
  try {
    const data = await solutionWithFrames();
    listMoves(list, data, wholeSource(data));
  } catch {
    list.replaceChildren(...game.solution.map((move, i) => el("li", { dataset: { step: String(i + 1) } },
      el("button", { type: "button", class: "link step", text: moveWords(move) }))));
  }
  list.dataset.ready = "true";
}

function listMoves(list, data, source) {
  list.replaceChildren(...data.moves.map((move, i) => el("li", { dataset: { step: String(i + 1) } },
    el("button", { type: "button", class: "link step", text: moveWords(move, source.frame(i)) }))));
}

/** Play a log on the table from its frames (visible states from the server); the game waits aside.
 * `paged`: an attempt's replay, fetched a page at a time; else the day's solution, whole, listed. */
async function watch(path, list, { paged = false } = {}) {
  try {
    let source;
    if (paged) {
      source = await pagedSource(path, get);
    } else {
      const data = list === $("solution-moves") ? await solutionWithFrames() : await get(path);
      source = wholeSource(data);
      if (list && list.dataset.ready !== "true") listMoves(list, data, source);
    }
    stopWatching();
    game.saved = game.state;
    game.picked = null;
    game.hint = null;
    game.watching = createPlayer({
      source,
      onFrame: (state, step) => {
        game.state = state;
        render();
        $("watch-pos").textContent = `${step} / ${source.length}`;
        $("watch-play").textContent = game.watching?.playing ? "Pause" : "Play";
        $("watch-move").textContent = step ? `${step}. ${moveWords(source.move(step - 1), source.frame(step - 1))}` : "The deal";
        list?.querySelectorAll("li").forEach((li) => li.classList.toggle("current", Number(li.dataset.step) === step));
        keepInList(list, list?.querySelector("li.current"));
      },
    });
    $("result")?.classList.add("docked"); // the result waits below the table while a game plays on it
    $("watch").hidden = false;
    // The table in view while it plays (pressed from the list below it, it may be off the screen);
    // from then on only the list scrolls (keepInList), never the page.
    const box = tableEl.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight / 2) tableEl.scrollIntoView({ block: "start" });
    game.watching.speed(Number($("watch-speed").value));
    await game.watching.seek(0);
  } catch (exc) {
    message(exc.message, "error");
  }
}

/** Scroll the moves list (only it: the table stays where it is on the screen) to show `item`. */
function keepInList(list, item) {
  if (!list || !item) return;
  const box = list.getBoundingClientRect();
  const at = item.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
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
$("game-watch")?.addEventListener("click", () => watch(`attempts/${game.attempt.id}/replay`, null, { paged: true }));
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
