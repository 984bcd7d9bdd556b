// Legality from the visible state and the rules of GET /api/v1/games (SPEC sections 1 and 4).
// The page uses it to pick a card's destination and to plan multi-move actions; the server
// remains the judge of every move it is sent.

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";

export const rankOf = (card) => RANKS.indexOf(card[0]);
export const suitOf = (card) => card[1];
export const isRed = (card) => card[1] === "D" || card[1] === "H";

/** May `card` go onto `top` in a column? */
export function builds(rules, top, card) {
  if (rankOf(card) + 1 !== rankOf(top)) return false;
  return rules.build === "suit" ? suitOf(card) === suitOf(top) : isRed(card) !== isRed(top);
}

/** May a column take `card` (the first card of what moves)? */
export function columnTakes(rules, column, card) {
  if (column.length === 0) return rules.empty_column_takes !== "king" || card[0] === "K";
  const top = column[column.length - 1];
  return top.up && builds(rules, top.card, card);
}

/** The foundation (0-based) that takes `card`, or -1: a matching pile first, else the first empty one for an ace. */
export function foundationFor(state, card) {
  const found = state.foundations;
  if (card[0] === "A") return found.findIndex((pile) => pile.length === 0);
  return found.findIndex((pile) => pile.length > 0 && pile[pile.length - 1] === RANKS[rankOf(card) - 1] + suitOf(card));
}

/** How many cards at the top of a column form a run by the game's building rule (face up). */
export function runLength(rules, column) {
  let n = column.length ? 1 : 0;
  while (n < column.length) {
    const lower = column[column.length - n - 1];
    const upper = column[column.length - n];
    if (!lower.up || !upper.up || !builds(rules, lower.card, upper.card)) break;
    n += 1;
  }
  if (n === 1 && !column[column.length - 1].up) return 0;
  return n;
}

const emptyColumns = (state, except) =>
  state.tableau.map((col, i) => i).filter((i) => state.tableau[i].length === 0 && !except.includes(i));

/**
 * The moves that carry the last `n` cards of column `src` onto column `dst`, or {error}.
 * Run games send one `tXtY:n`; single-card games move a run card by card through empty
 * columns (with k empty columns, up to k + 1 cards).
 */
export function planColumnMove(rules, state, src, n, dst) {
  const column = state.tableau[src];
  if (src === dst) return { error: "a column cannot move onto itself" };
  if (n < 1 || n > column.length) return { error: `column ${src + 1} has no ${n} cards to move` };
  if (n > runLength(rules, column)) {
    return { error: `the last ${n} cards of column ${src + 1} are not a run that can move together` };
  }
  const card = column[column.length - n].card;
  if (!columnTakes(rules, state.tableau[dst], card)) {
    return { error: state.tableau[dst].length ? `${card} does not build on ${state.tableau[dst].at(-1).card}`
      : `${card} cannot fill an empty column: only a king can` };
  }
  const s = `t${src + 1}`, d = `t${dst + 1}`;
  if (n === 1) return { moves: [`${s}${d}`] };
  if (rules.moves_as_unit === "run") return { moves: [`${s}${d}:${n}`] };
  const free = emptyColumns(state, [src, dst]);
  if (free.length < n - 1) {
    return { error: `${rules.name} moves one card at a time: ${n} cards need ${n - 1} empty column${n > 2 ? "s" : ""}` };
  }
  const via = free.slice(0, n - 1).map((i) => `t${i + 1}`);
  const moves = via.map((t) => `${s}${t}`);
  moves.push(`${s}${d}`);
  for (const t of via.slice().reverse()) moves.push(`${t}${d}`);
  return { moves };
}

/** The move(s) for a dragged source dropped on a pile ("t3", "f2"), or {error}. */
export function planDrop(rules, state, source, target) {
  const kind = target[0];
  const index = Number(target.slice(1)) - 1;
  if (source.pile === "t") {
    if (kind === "t") return planColumnMove(rules, state, source.index, source.n, index);
    if (kind === "f") {
      if (source.n !== 1) return { error: "only one card at a time goes to a foundation" };
      const card = state.tableau[source.index].at(-1).card;
      return foundationTakes(state, index, card) ? { moves: [`t${source.index + 1}f${index + 1}`] }
        : { error: `${card} does not go on foundation ${index + 1}` };
    }
  }
  if (source.pile === "w") {
    const card = state.waste.at(-1);
    if (kind === "f") {
      return foundationTakes(state, index, card) ? { moves: [`wf${index + 1}`] }
        : { error: `${card} does not go on foundation ${index + 1}` };
    }
    if (kind === "t") {
      return columnTakes(rules, state.tableau[index], card) ? { moves: [`wt${index + 1}`] }
        : { error: `${card} does not go on column ${index + 1}` };
    }
  }
  if (source.pile === "f" && kind === "t") {
    if (!rules.foundation_to_tableau) return { error: `in ${rules.name} cards never leave the foundations` };
    const card = state.foundations[source.index].at(-1);
    return columnTakes(rules, state.tableau[index], card) ? { moves: [`f${source.index + 1}t${index + 1}`] }
      : { error: `${card} does not go on column ${index + 1}` };
  }
  return { error: "cards cannot go there" };
}

function foundationTakes(state, index, card) {
  const pile = state.foundations[index];
  if (!pile) return false;
  if (pile.length === 0) return card[0] === "A";
  const top = pile.at(-1);
  return suitOf(top) === suitOf(card) && rankOf(top) + 1 === rankOf(card);
}

/** Piles ("t3", "f1") that would take the source: to highlight drop targets. */
export function targetsFor(rules, state, source) {
  const piles = [];
  state.foundations.forEach((_, i) => { if (planDrop(rules, state, source, `f${i + 1}`).moves) piles.push(`f${i + 1}`); });
  state.tableau.forEach((_, i) => { if (planDrop(rules, state, source, `t${i + 1}`).moves) piles.push(`t${i + 1}`); });
  return piles;
}

/**
 * Where a clicked card goes: a foundation first, then a column it builds on, then an empty
 * column (never a whole column onto an empty one, which changes nothing). {moves} or {error}.
 */
export function planBest(rules, state, source) {
  const moveable = source.pile !== "t" || source.n === 1;
  if (moveable && source.pile !== "f") {
    const card = source.pile === "w" ? state.waste.at(-1) : state.tableau[source.index].at(-1).card;
    const f = foundationFor(state, card);
    if (f >= 0) return planDrop(rules, state, source, `f${f + 1}`);
  }
  const wholeColumn = source.pile === "t" && source.n === state.tableau[source.index].length;
  let firstError = null;
  for (const wantEmpty of [false, true]) {
    for (let i = 0; i < state.tableau.length; i += 1) {
      if (source.pile === "t" && source.index === i) continue;
      if ((state.tableau[i].length === 0) !== wantEmpty) continue;
      if (wantEmpty && wholeColumn) continue;
      const plan = planDrop(rules, state, source, `t${i + 1}`);
      if (plan.moves) return plan;
      firstError ??= plan.error;
    }
  }
  return { error: firstError && firstError.includes("empty column") ? firstError : "no place for that card" };
}

/** The stock's move: draw, or redeal when the stock is empty and a pass remains; null otherwise. */
export function stockMove(state) {
  if (state.stock > 0) return "s";
  if (state.waste.length > 0 && state.redeals_left !== 0) return "r";
  return null;
}

/**
 * Auto-finish: when every card is face up and the stock and waste are empty, the foundation
 * moves that win, if foundation moves alone can win from here; otherwise null.
 */
export function finishPlan(state) {
  if (state.won || state.stock > 0 || state.waste.length > 0) return null;
  if (state.tableau.some((col) => col.some((c) => !c.up))) return null;
  const tops = state.foundations.map((pile) => (pile.length ? pile.at(-1) : null));
  const columns = state.tableau.map((col) => col.map((c) => c.card));
  const moves = [];
  let progress = true;
  while (progress) {
    progress = false;
    columns.forEach((col, i) => {
      while (col.length) {
        const card = col.at(-1);
        let f = -1;
        if (card[0] === "A") f = tops.findIndex((t) => t === null);
        else f = tops.findIndex((t) => t !== null && t === RANKS[rankOf(card) - 1] + suitOf(card));
        if (f < 0) break;
        tops[f] = col.pop();
        moves.push(`t${i + 1}f${f + 1}`);
        progress = true;
      }
    });
  }
  return columns.every((col) => col.length === 0) && moves.length ? moves : null;
}

// --- moves the page can play itself ----------------------------------------------------------------
// The table shows a move at once when the visible state decides it (SPEC section 7 keeps the rest on
// the server): a draw, a redeal, an undo and a move that uncovers a face-down card wait for the server.

const MOVE_TEXT = /^(?:(w)|([tf])([1-9]\d*))([tf])([1-9]\d*)(?::([2-9]|[1-9]\d+))?$/;
const totalCards = (rules) => rules.decks * 52;
const homeCount = (state) => state.foundations.reduce((sum, pile) => sum + pile.length, 0);

/** A move's parts: {src: "w"|"t"|"f", from (0-based), dst: "t"|"f", to (0-based), n}, or null for text that is no move. */
export function parseMove(text) {
  const m = MOVE_TEXT.exec(text);
  if (!m) return null;
  const [, waste, src, from, dst, to, count] = m;
  const n = count ? Number(count) : 1;
  if (n > 1 && (src !== "t" || dst !== "t")) return null; // only column to column moves a unit
  return { src: waste ? "w" : src, from: waste ? -1 : Number(from) - 1, dst, to: Number(to) - 1, n };
}

/** Every legal move but undo, from the visible state: each tested against `applyVisible`'s checks. */
export function legalMoves(rules, state) {
  if (state.won) return [];
  const moves = [];
  const f = state.foundations.length;
  const t = state.tableau.length;
  const candidates = [];
  if (state.waste.length) {
    for (let i = 0; i < f; i += 1) candidates.push(`wf${i + 1}`);
    for (let i = 0; i < t; i += 1) candidates.push(`wt${i + 1}`);
  }
  state.tableau.forEach((column, s) => {
    if (!column.length) return;
    for (let i = 0; i < f; i += 1) candidates.push(`t${s + 1}f${i + 1}`);
    const longest = rules.moves_as_unit === "run" ? runLength(rules, column) : Math.min(1, runLength(rules, column));
    for (let n = 1; n <= longest; n += 1) {
      for (let d = 0; d < t; d += 1) if (d !== s) candidates.push(`t${s + 1}t${d + 1}${n > 1 ? `:${n}` : ""}`);
    }
  });
  if (rules.foundation_to_tableau) {
    state.foundations.forEach((pile, i) => {
      if (pile.length) for (let d = 0; d < t; d += 1) candidates.push(`f${i + 1}t${d + 1}`);
    });
  }
  for (const move of candidates) if (!applyVisible(rules, state, move).error) moves.push(move);
  const stock = stockMove(state);
  if (stock) moves.push(stock);
  return moves;
}

const copyState = (state) => ({
  ...state,
  tableau: state.tableau.map((column) => column.map((c) => ({ ...c }))),
  waste: state.waste.slice(),
  foundations: state.foundations.map((pile) => pile.slice()),
});

/**
 * Play `move` on the visible state when the page can tell its outcome: {state} (a new object, the
 * score and move count as the server will have them), {server: why} when only the server knows the
 * outcome (a draw, a redeal, an undo, a move that uncovers a face-down card), or {error: why}.
 */
export function applyVisible(rules, state, move) {
  if (state.won) return { error: "the game is won: no move is left to make" };
  if (move === "s") return state.stock > 0 ? { server: "a draw shows hidden cards" } : { error: "the stock is empty" };
  if (move === "r") {
    if (state.stock > 0) return { error: "the stock is not empty: draw first" };
    if (!state.waste.length) return { error: "there is no waste to turn over" };
    if (state.redeals_left === 0) return { error: "no redeal is left" };
    return { server: "a redeal turns the waste over" };
  }
  if (move === "u") return state.can_undo ? { server: "an undo goes back to what the server holds" } : { error: "nothing to undo" };
  const m = parseMove(move);
  if (!m) return { error: `${move} is not a move` };
  if (m.src === "t" && m.from >= state.tableau.length) return { error: `there is no column ${m.from + 1}` };
  if (m.src === "f" && m.from >= state.foundations.length) return { error: `there is no foundation ${m.from + 1}` };
  if (m.dst === "t" && m.to >= state.tableau.length) return { error: `there is no column ${m.to + 1}` };
  if (m.dst === "f" && m.to >= state.foundations.length) return { error: `there is no foundation ${m.to + 1}` };
  let plan;
  if (m.src === "t" && m.dst === "t") {
    const column = state.tableau[m.from];
    if (m.n > 1 && rules.moves_as_unit !== "run") return { error: `${rules.name} moves one card at a time` };
    if (m.n > 1 && m.n > runLength(rules, column)) {
      return { error: `the last ${m.n} cards of column ${m.from + 1} are not a run that can move together` };
    }
    plan = planColumnMove(rules, state, m.from, m.n, m.to);
    if (plan.moves && plan.moves.length !== 1) return { error: `${rules.name} moves one card at a time` };
  } else if (m.src === "t" && !state.tableau[m.from].length) {
    return { error: `column ${m.from + 1} is empty` };
  } else if (m.src === "w" && !state.waste.length) {
    return { error: "the waste is empty" };
  } else if (m.src === "f" && !state.foundations[m.from].length) {
    return { error: `foundation ${m.from + 1} is empty` };
  } else if (m.src === "t" && m.dst === "f" && !state.tableau[m.from].at(-1).up) {
    return { error: `column ${m.from + 1} has no face-up card` };
  } else {
    const source = m.src === "w" ? { pile: "w" } : { pile: m.src, index: m.from, n: 1 };
    plan = planDrop(rules, state, source, `${m.dst}${m.to + 1}`);
  }
  if (plan.error) return { error: plan.error };
  const next = copyState(state);
  let points = 0;
  if (m.src === "t") {
    const column = next.tableau[m.from];
    const cards = column.splice(column.length - m.n, m.n);
    if (column.length && !column.at(-1).up) return { server: "the move uncovers a face-down card" };
    if (m.dst === "t") next.tableau[m.to].push(...cards);
    else { next.foundations[m.to].push(cards[0].card); points += 10; }
  } else {
    const card = m.src === "w" ? next.waste.pop() : next.foundations[m.from].pop();
    if (m.dst === "f") { next.foundations[m.to].push(card); points += 10; }
    else {
      next.tableau[m.to].push({ card, up: true });
      points += m.src === "w" ? 5 : -15;
    }
  }
  next.moves = state.moves + 1;
  next.score = Math.max(0, state.score + points);
  next.foundation_cards = homeCount(next);
  next.won = next.foundation_cards === totalCards(rules);
  if (next.won) next.score += Math.max(0, 700 - 2 * next.moves);
  next.can_undo = true;
  next.undo_assists = false; // a move the page can play itself shows no hidden card
  return { state: next };
}

/**
 * The finish through the stock, one move at a time (one-deck games, every column face up: all that is
 * left is the stock and the waste). A foundation move from the waste or a column, else a draw, else a
 * redeal as long as the last pass sent a card home; null when it stops. `progress` is what the last
 * step returned (null at first); the answer is {move, progress}.
 */
export function finishStep(rules, state, progress) {
  if (state.won || rules.decks !== 1 || (!state.stock && !state.waste.length)) return null;
  if (state.tableau.some((col) => col.some((c) => !c.up))) return null;
  const moved = progress ? progress.moved : true;
  const home = [];
  if (state.waste.length) home.push(["w", state.waste.at(-1)]);
  state.tableau.forEach((col, i) => { if (col.length) home.push([`t${i + 1}`, col.at(-1).card]); });
  for (const [pile, card] of home) {
    const f = foundationFor(state, card);
    if (f >= 0) return { move: `${pile}f${f + 1}`, progress: { moved: true } };
  }
  const stock = stockMove(state);
  if (stock === "s") return { move: "s", progress: { moved } };
  if (stock === "r" && moved) return { move: "r", progress: { moved: false } };
  return null;
}

// --- safe cards: sent to the foundations by themselves (an option of the table) ---------------------
// The solver's safe rule (solver/safe.py), its conservative part only: a column's top card, or the
// waste's top in a draw-1 game (with draw 3 taking a waste card regroups later passes), never a card
// elsewhere in the talon, and never in a two-deck game whose foundations give cards back.

const OTHER_COLOUR = { C: ["D", "H"], S: ["D", "H"], D: ["C", "S"], H: ["C", "S"] };
const TWIN = { C: "S", S: "C", D: "H", H: "D" };

/** Per suit, its foundation piles' heights, lowest first (a game's `decks` piles per suit). */
function suitLevels(rules, state) {
  const levels = Object.fromEntries([...SUITS].map((s) => [s, []]));
  for (const pile of state.foundations) {
    if (pile.length) levels[suitOf(pile.at(-1))].push(rankOf(pile.at(-1)) + 1); // the top card says the height
  }
  for (const s of SUITS) {
    while (levels[s].length < rules.decks) levels[s].push(0);
    levels[s].sort((a, b) => a - b);
  }
  return levels;
}

/**
 * Is `card` safe to send home: could no other move ever need it? r is its rank (0 for an ace).
 * One deck, alternate colours (Klondike, Lemma K): its pile is at r, both suits of the other colour
 * at r or more, the other suit of its colour at r - 1 or more. Two decks, no card coming back down
 * (the Forty Thieves family): its suit's lower pile is at r, and with alternate colours (Maria) both
 * other-colour suits' lower piles at r or more. An ace is always safe.
 */
export function isSafeCard(rules, state, card) {
  const r = rankOf(card);
  const s = suitOf(card);
  const low = suitLevels(rules, state); // low[x][0]: the lower pile of suit x
  if (low[s][0] !== r) return false; // it must go onto its suit's (lower) pile
  if (r === 0) return true;
  const others = OTHER_COLOUR[s];
  if (rules.decks === 1) {
    if (rules.build !== "alternate") return false;
    return others.every((o) => low[o][0] >= r) && low[TWIN[s]][0] >= r - 1;
  }
  if (rules.foundation_to_tableau) return false;
  return rules.build === "suit" || others.every((o) => low[o][0] >= r);
}

/** The first safe card's move to its foundation ("t3f1", "wf2"), or null. */
export function safeMove(rules, state) {
  if (state.won) return null;
  const tops = [];
  state.tableau.forEach((column, i) => { if (column.length && column.at(-1).up) tops.push([`t${i + 1}`, column.at(-1).card]); });
  if (rules.draw === 1 && state.waste.length) tops.push(["w", state.waste.at(-1)]);
  for (const [pile, card] of tops) {
    if (!isSafeCard(rules, state, card)) continue;
    const f = foundationFor(state, card);
    if (f >= 0) return `${pile}f${f + 1}`;
  }
  return null;
}

/** Safe moves one after the other while the visible position decides them (a turn-up ends the chain:
 * its card is the server's to show). Each is an ordinary move of the log. */
export function safeMoves(rules, state) {
  const moves = [];
  let now = state;
  for (let move = safeMove(rules, now); move; move = safeMove(rules, now)) {
    moves.push(move);
    const outcome = applyVisible(rules, now, move);
    if (!outcome.state) break;
    now = outcome.state;
  }
  return moves;
}
