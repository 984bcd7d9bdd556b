// A player for any move log, shown on the table like a video: play, pause, step, seek, speed.
// It knows nothing of the rules: the server sends one visible position ("frame") per move.

import { movePiles } from "./words.js";

/** A compact frame (GET .../solution, GET /attempts/{id}/replay) as the table's visible state. */
export function frameState(frame) {
  return {
    tableau: frame.t.map((column) => column.map((card) => ({ card, up: card !== "??" }))),
    stock: frame.s,
    waste: frame.w,
    foundations: frame.f.map((top) => (top ? [top] : [])),
    redeals_left: frame.r,
    score: frame.score,
    moves: frame.moves,
    foundation_cards: frame.home,
    won: frame.won,
    can_undo: false,
  };
}

const BASE_DELAY_MS = 700; // one move per 0.7 s at 1x

/**
 * frames[i] is the position after i moves (frames[0] the deal). onFrame(state, step) draws one.
 * Returns {seek, step, play, pause, toggle, speed, piles, playing}.
 */
export function createPlayer({ moves, frames, onFrame }) {
  let step = 0;
  let timer = null;
  let rate = 1;
  const player = {
    playing: false,
    seek(to) {
      step = Math.max(0, Math.min(moves.length, to));
      if (step === moves.length) player.pause();
      onFrame(frames[step], step);
    },
    step(delta) {
      player.pause();
      player.seek(step + delta);
    },
    play() {
      if (step >= moves.length) step = 0;
      player.playing = true;
      const tick = () => {
        if (!player.playing) return;
        player.seek(step + 1);
        if (player.playing) timer = setTimeout(tick, BASE_DELAY_MS / rate);
      };
      timer = setTimeout(tick, BASE_DELAY_MS / rate);
      onFrame(frames[step], step);
    },
    pause() {
      player.playing = false;
      clearTimeout(timer);
    },
    toggle() {
      if (player.playing) {
        player.pause();
        onFrame(frames[step], step);
      } else {
        player.play();
      }
    },
    speed(value) {
      rate = value > 0 ? value : 1;
    },
    /** The piles of the move that led to the shown frame, to mark them on the table. */
    piles() {
      if (!step) return null;
      const move = moves[step - 1];
      const piles = movePiles(move);
      return piles && { ...piles, n: Number(move.split(":")[1] || 1) };
    },
    get position() {
      return step;
    },
  };
  return player;
}
