// A player for any move log, shown on the table like a video: play, pause, step, seek, speed.
// It knows nothing of the rules: the server sends one visible position ("frame") per move, all at once
// for the day's solution, a page of 100 at a time for a game's stored log.

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

/** A log whose frames are all at hand (the day's solution): a source for createPlayer. */
export function wholeSource({ moves, frames }) {
  const states = frames.map(frameState);
  return {
    length: moves.length,
    load: async () => {},
    frame: (step) => states[step],
    move: (index) => moves[index],
  };
}

/**
 * An attempt's replay, fetched a page at a time as the player reaches it (GET /attempts/{id}/replay?page=N):
 * page p holds moves [first, first + page_moves) and the frames before each and after the last.
 * After load(step): frame(step), frame(step - 1) and move(step - 1) are all in page pageOf(step).
 */
export async function pagedSource(path, fetchJson) {
  const pages = new Map();
  const loading = new Map();
  const keep = (page) => {
    const states = page.frames.map(frameState);
    pages.set(page.page, { ...page, states });
    return page;
  };
  const first = keep(await fetchJson(`${path}?page=0`));
  const size = first.page_moves;
  const pageOf = (step) => Math.min(first.pages - 1, step ? Math.floor((step - 1) / size) : 0);
  const fetchPage = (p) => {
    if (pages.has(p)) return Promise.resolve();
    if (!loading.has(p)) {
      loading.set(p, fetchJson(`${path}?page=${p}`).then(keep).finally(() => loading.delete(p)));
    }
    return loading.get(p);
  };
  const frameAt = (i) => {
    for (const p of [pageOf(i), Math.floor(i / size)]) { // frame (p + 1) * size ends page p and starts p + 1
      const page = pages.get(p);
      if (page && i - page.first < page.states.length) return page.states[i - page.first];
    }
    return undefined;
  };
  return {
    length: first.length,
    async load(step) {
      const p = pageOf(step);
      await fetchPage(p);
      if (p + 1 < first.pages && step - p * size > size / 2) fetchPage(p + 1).catch(() => {}); // ahead
    },
    frame: frameAt,
    move: (index) => pages.get(Math.floor(index / size)).moves[index % size],
  };
}

/**
 * source.frame(i) is the position after i moves (0: the deal), once source.load(i) resolved;
 * onFrame(state, step) draws one. Returns {seek, step, play, pause, toggle, speed, piles, playing}.
 */
export function createPlayer({ source, onFrame }) {
  let step = 0;
  let timer = null;
  let rate = 1;
  let asked = 0; // the latest seek wins: a page that arrives late draws nothing
  const total = source.length;
  const show = async (to) => {
    const ticket = ++asked;
    await source.load(to);
    if (ticket === asked) onFrame(source.frame(to), to);
  };
  const player = {
    playing: false,
    seek(to) {
      step = Math.max(0, Math.min(total, to));
      if (step === total) player.pause();
      return show(step);
    },
    step(delta) {
      player.pause();
      return player.seek(step + delta);
    },
    play() {
      if (step >= total) step = 0;
      player.playing = true;
      const tick = async () => {
        if (!player.playing) return;
        await player.seek(step + 1);
        if (player.playing) timer = setTimeout(tick, BASE_DELAY_MS / rate);
      };
      timer = setTimeout(tick, BASE_DELAY_MS / rate);
      return show(step);
    },
    pause() {
      player.playing = false;
      clearTimeout(timer);
    },
    toggle() {
      if (player.playing) {
        player.pause();
        return show(step);
      }
      return player.play();
    },
    speed(value) {
      rate = value > 0 ? value : 1;
    },
    /** The piles of the move that led to the shown frame, to mark them on the table. */
    piles() {
      if (!step) return null;
      const move = source.move(step - 1);
      const piles = movePiles(move);
      return piles && { ...piles, n: Number(move.split(":")[1] || 1) };
    },
    get position() {
      return step;
    },
    get length() {
      return total;
    },
  };
  return player;
}
