// "How to play": a few moves per game on a small position written by hand. It is no deal of any day (cards
// already home, a short stock; nothing here is dealt or asked of the server) and every step is a legal
// move the browser's rules play (web/tests/js/learn-demos.test.mjs checks each one).
//
// A step: {move, say} plus, where the table would learn a card it cannot know, the card itself:
// `turn` (the face-down card a Klondike move uncovers) or `draw` (the cards a draw turns up).

import * as R from "./rules.js";

const up = (card) => ({ card, up: true });
const DOWN = { card: "??", up: false };
const cols = (...columns) => columns.map((column) => column.map((c) => (c === "??" ? { ...DOWN } : up(c))));

function position(rules, { tableau, foundations, stock, waste = [] }) {
  const piles = foundations.concat(Array(rules.foundations - foundations.length).fill([]));
  return {
    game: rules.id,
    tableau: cols(...tableau),
    stock,
    waste,
    foundations: piles.map((pile) => pile.slice()),
    redeals_left: rules.passes === null ? null : rules.passes - 1,
    score: 0,
    moves: 0,
    foundation_cards: piles.reduce((n, pile) => n + pile.length, 0),
    won: false,
    can_undo: false,
    undo_assists: false,
  };
}

const KLONDIKE = (draw) => ({
  start: {
    tableau: [["??", "7C"], ["6H"], ["??", "KD"], ["??", "??", "8D"], ["??", "5D"], ["??", "??", "JC"], ["??", "TH"]],
    foundations: [["AH", "2H"], ["AS"]],
    stock: 9,
  },
  steps: [
    { move: "t2t1", say: "Build down in alternate colours: the red 6 goes on the black 7. Column 2 is empty now." },
    { move: "t3t2", turn: "3H", say: "Only a king (or a run from a king) fills an empty column. The card it uncovers turns face up." },
    { move: "t3f1", say: "The foundations build up in suit from the ace: the 3 of hearts goes on the 2." },
    draw === 1
      ? { move: "s", draw: ["QS"], say: "Draw: a card from the stock onto the waste (as often as you like: the waste turns over)." }
      : { move: "s", draw: ["9D", "4C", "QS"], say: "Draw: three cards onto the waste; only the top one plays (the waste turns over as often as you like)." },
    { move: "wt2", say: "The waste's top card plays like any other: the black queen on the red king." },
    { move: "t1t4:2", turn: "2S", say: "A face-up run in alternate colours moves as one: the 7 and 6 onto the red 8. The card under them turns up." },
    { move: "t1f2", say: "And the 2 of spades goes home on its ace." },
  ],
});

// The Forty Thieves family: two decks, eight foundations, every card face up; one card at a time (Josephine:
// a same-suit run at once); any card fills an empty column.
const FAMILY = {
  "forty-thieves": {
    start: {
      tableau: [["KC", "9H"], ["8H"], ["5S", "2D"], ["7D"], ["QS"], ["3C"], ["JH", "4S"], ["TC"], ["6C"], ["AD"]],
      foundations: [["AC"], ["AS", "2S", "3S"]],
      stock: 12,
    },
    steps: [
      { move: "t2t1", say: "Build down in the same suit, one card at a time: the 8 of hearts on the 9 of hearts." },
      { move: "t10f3", say: "Any ace starts an empty foundation (there are eight: two decks)." },
      { move: "t3f3", say: "Foundations build up in suit: the 2 of diamonds on its ace." },
      { move: "t7f2", say: "The 4 of spades goes home on the 3." },
      { move: "t4t2", say: "Any card fills an empty column: the 7 of diamonds." },
      { move: "s", draw: ["2C"], say: "Draw a card onto the waste. There is one pass only: the stock never comes back." },
      { move: "wf1", say: "The 2 of clubs from the waste goes home on its ace." },
    ],
  },
  josephine: {
    start: {
      tableau: [["KC", "9H", "8H"], [], ["5S", "2D"], ["7D"], ["TH"], ["3C"], ["JH", "4S"], ["TC"], ["6C"], ["AD"]],
      foundations: [["AC"], ["AS", "2S", "3S"]],
      stock: 12,
    },
    steps: [
      { move: "t1t5:2", say: "A run in the same suit moves as one: 9 and 8 of hearts onto the 10 of hearts." },
      { move: "t10f3", say: "Any ace starts an empty foundation (there are eight: two decks)." },
      { move: "t3f3", say: "Foundations build up in suit: the 2 of diamonds on its ace." },
      { move: "t7f2", say: "The 4 of spades goes home on the 3." },
      { move: "t5t2:2", say: "A run can be split, and any card or run fills an empty column: the 9 and 8 leave the 10." },
      { move: "s", draw: ["2C"], say: "Draw a card onto the waste. There is one pass only." },
      { move: "wf1", say: "The 2 of clubs from the waste goes home on its ace." },
    ],
  },
  lucas: {
    start: {
      tableau: [["KC", "9H"], ["8H"], ["5S", "2D"], ["7D"], ["QS"], ["3C"], ["JH", "2S"], ["TC"], ["6C"], ["4H"], ["9D"], ["QH"], ["3C"]],
      foundations: [["AC", "2C"], ["AC"], ["AD"], ["AD"], ["AH"], ["AH"], ["AS"], ["AS"]],
      stock: 10,
    },
    steps: [
      { move: "t13f1", say: "The eight aces start on the foundations: build up in suit from them." },
      { move: "t2t1", say: "Build down in the same suit, one card at a time: the 8 of hearts on the 9." },
      { move: "t3f3", say: "The 2 of diamonds goes home." },
      { move: "t7f7", say: "So does the 2 of spades." },
      { move: "t4t2", say: "Any card fills an empty column." },
      { move: "s", draw: ["4C"], say: "Draw a card onto the waste; one pass only." },
      { move: "wf1", say: "The 4 of clubs from the waste goes home on the 3." },
    ],
  },
  limited: {
    start: {
      tableau: [["KC", "9H"], ["8H"], ["5S", "2D"], ["7D"], ["QS"], ["3C"], ["JH", "4S"], ["TC"], ["6C"], ["AD"], ["9D"], ["QH"]],
      foundations: [["AC"], ["AS", "2S", "3S"]],
      stock: 12,
    },
    steps: FAMILYSTEPS(),
  },
  maria: {
    start: {
      tableau: [["KC", "9S"], ["8H"], ["5S", "2D"], ["7D"], ["QS"], ["3C"], ["JH", "4S"], ["TC"], ["AD"]],
      foundations: [["AC"], ["AS", "2S", "3S"]],
      stock: 12,
    },
    steps: [
      { move: "t2t1", say: "Build down in alternate colours, one card at a time: the red 8 on the black 9." },
      { move: "t9f3", say: "Any ace starts an empty foundation (there are eight: two decks)." },
      { move: "t3f3", say: "Foundations build up in suit: the 2 of diamonds on its ace." },
      { move: "t7f2", say: "The 4 of spades goes home on the 3." },
      { move: "t4t2", say: "Any card fills an empty column." },
      { move: "s", draw: ["2C"], say: "Draw a card onto the waste; one pass only." },
      { move: "wf1", say: "The 2 of clubs from the waste goes home on its ace." },
    ],
  },
  "forty-and-eight": {
    start: {
      tableau: [["KC", "9H"], ["8H"], ["5S", "2D"], ["7D"], ["QS"], ["3C"], ["JH", "4S"], ["AD"]],
      foundations: [["AC"], ["AS", "2S", "3S"]],
      stock: 1,
      waste: ["9C", "5H"],
    },
    steps: [
      { move: "t2t1", say: "Build down in the same suit, one card at a time: the 8 of hearts on the 9." },
      { move: "t8f3", say: "Any ace starts an empty foundation (there are eight: two decks)." },
      { move: "t3f3", say: "Foundations build up in suit: the 2 of diamonds on its ace." },
      { move: "t7f2", say: "The 4 of spades goes home on the 3." },
      { move: "s", draw: ["2C"], say: "Draw the stock's last card onto the waste." },
      { move: "wf1", say: "The 2 of clubs goes home on its ace." },
      { move: "r", say: "One redeal: the waste turns over as the new stock, once." },
    ],
  },
};

function FAMILYSTEPS() {
  return [
    { move: "t2t1", say: "Build down in the same suit, one card at a time: the 8 of hearts on the 9." },
    { move: "t10f3", say: "Any ace starts an empty foundation (there are eight: two decks)." },
    { move: "t3f3", say: "Foundations build up in suit: the 2 of diamonds on its ace." },
    { move: "t7f2", say: "The 4 of spades goes home on the 3." },
    { move: "t4t2", say: "Any card fills an empty column." },
    { move: "s", draw: ["2C"], say: "Draw a card onto the waste; one pass only." },
    { move: "wf1", say: "The 2 of clubs from the waste goes home on its ace." },
  ];
}

export const DEMOS = { klondike: KLONDIKE(1), "klondike-3": KLONDIKE(3), ...FAMILY };

export function demoStart(rules) {
  return position(rules, DEMOS[rules.id].start);
}

/** The piles a step moves between, for the table's marks: {from, to, n}. */
export function stepPiles(step) {
  if (step.move === "s" || step.move === "r") return { from: "s", to: "w", n: 1 };
  const m = R.parseMove(step.move);
  const pile = (kind, i) => (kind === "w" ? "w" : `${kind}${i + 1}`);
  return { from: pile(m.src, m.from), to: pile(m.dst, m.to), n: m.n };
}

/** The state after a step: {state} or {error}. A draw, a redeal and a turn-up are played from the script. */
export function stepState(rules, state, step) {
  const next = {
    ...state,
    tableau: state.tableau.map((column) => column.map((c) => ({ ...c }))),
    waste: state.waste.slice(),
    foundations: state.foundations.map((pile) => pile.slice()),
  };
  if (step.move === "s") {
    if (!step.draw || step.draw.length > state.stock) return { error: "a draw needs its cards, from a stock that has them" };
    next.stock -= step.draw.length;
    next.waste.push(...step.draw);
    return { state: { ...next, moves: state.moves + 1, can_undo: true } };
  }
  if (step.move === "r") {
    const refused = R.applyVisible(rules, state, "r");
    if (refused.error) return refused;
    next.stock = state.waste.length;
    next.waste = [];
    next.redeals_left = state.redeals_left - 1;
    return { state: { ...next, moves: state.moves + 1, can_undo: true } };
  }
  let points = 0;
  if (step.turn) {
    const m = R.parseMove(step.move);
    const column = next.tableau[m.from];
    const under = column.length - m.n - 1;
    if (m.src !== "t" || under < 0 || column[under].up) return { error: "nothing face down to turn up" };
    column[under] = up(step.turn);
    points = 5;
  }
  const outcome = R.applyVisible(rules, next, step.move);
  if (outcome.state) outcome.state.score += points;
  return outcome;
}
