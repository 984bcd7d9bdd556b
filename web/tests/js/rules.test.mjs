// The browser's rules (web/static/web/js/rules.js) against the engine, over what the page can see:
// every step of the engine's vectors and the perft positions (cases from engine_cases.py).
//   node --test web/tests/js/        (from the repository root; PYTHON names the interpreter)

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as R from "../../static/web/js/rules.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const venv = join(ROOT, ".venv/bin/python");
const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
const cases = JSON.parse(execFileSync(python, ["-m", "web.tests.js.engine_cases"], {
  cwd: ROOT, maxBuffer: 1 << 28, encoding: "utf8",
}));
const rulesOf = (game) => cases.rules[game];
const sorted = (moves) => moves.slice().sort();

test("the cases cover every game, many steps, moves played, refused and left to the server", () => {
  const steps = cases.logs.flatMap((log) => log.steps);
  assert.ok(Object.keys(cases.rules).length >= 8);
  assert.ok(steps.length > 1000, `${steps.length} steps`);
  assert.ok(steps.some((s) => s.illegal) && steps.some((s) => s.local) && steps.some((s) => s.after && !s.local));
});

for (const log of cases.logs) {
  test(`${log.game} seed ${log.seed}: each move as the engine plays it`, () => {
    const rules = rulesOf(log.game);
    log.steps.forEach((step, i) => {
      const where = `${log.game} ${log.seed} step ${i} ${step.move}`;
      assert.deepEqual(sorted(R.legalMoves(rules, step.before)), sorted(step.legal), `${where}: legal moves`);
      const outcome = R.applyVisible(rules, step.before, step.move);
      if (step.illegal) {
        assert.ok(outcome.error, `${where}: the engine refuses it (${step.illegal}), the page ${JSON.stringify(Object.keys(outcome))}`);
      } else if (step.local) {
        assert.ok(outcome.state, `${where}: the page can play it (${outcome.error || outcome.server})`);
        assert.deepEqual(outcome.state, step.after, `${where}: the state after it`);
      } else {
        assert.ok(outcome.server, `${where}: only the server knows its outcome (${outcome.error || "played"})`);
      }
    });
  });
}

function visiblePerft(rules, state, depth) {
  if (depth === 0) return 1;
  let total = 0;
  for (const move of R.legalMoves(rules, state)) {
    const outcome = R.applyVisible(rules, state, move);
    if (outcome.state && !outcome.state.won) total += visiblePerft(rules, outcome.state, depth - 1);
  }
  return total;
}

for (const position of cases.positions) {
  test(`perft ${position.game} seed ${position.seed}: the engine's counts`, () => {
    const rules = rulesOf(position.game);
    assert.equal(R.legalMoves(rules, position.state).length, position.perft1, "perft(1), every legal move");
    assert.deepEqual([1, 2, 3].map((d) => visiblePerft(rules, position.state, d)), position.visible,
      "sequences of 1, 2 and 3 moves the page plays itself");
  });
}

test("text that is no move is refused, never played", () => {
  const rules = rulesOf("klondike");
  const state = cases.positions.find((p) => p.game === "klondike").state;
  for (const text of ["", "t0t1", "t01t2", "t1t2:1", "t1t2:01", "wf", "w1f1", "f1f2", "t1f1:2", "T1T2", "t1t2 ", "t99t1", "s1", "x"]) {
    assert.ok(R.applyVisible(rules, state, text).error, text);
  }
});

// --- the "safe cards home" option: the solver's safe rule, its conservative part ---------------------

test("safe cards: the page's rule is the solver's on column tops, and never sends what the solver would not", () => {
  let safeTops = 0;
  let sent = 0;
  for (const log of cases.logs) {
    const rules = rulesOf(log.game);
    log.steps.forEach((step, i) => {
      const where = `${log.game} ${log.seed} step ${i}`;
      const state = step.before;
      for (const column of state.tableau) {
        if (!column.length || !column.at(-1).up) continue;
        const card = column.at(-1).card;
        const page = R.isSafeCard(rules, state, card);
        assert.equal(page, step.safe.includes(card), `${where}: ${card} at a column's top`);
        if (page) safeTops += 1;
      }
      const move = R.safeMove(rules, state);
      if (!move) return;
      sent += 1;
      const card = R.parseMove(move).src === "w" ? state.waste.at(-1) : state.tableau[R.parseMove(move).from].at(-1).card;
      assert.ok(step.safe.includes(card), `${where}: ${move} sends ${card}, which the solver does not call safe`);
      if (rules.draw !== 1) assert.notEqual(move[0], "w", `${where}: with draw ${rules.draw} the waste is left alone`);
      assert.ok(R.legalMoves(rules, state).includes(move), `${where}: ${move} is a legal move`);
    });
  }
  assert.ok(safeTops > 50 && sent > 50, `${safeTops} safe tops, ${sent} moves sent`);
});

test("safe cards: a hand-made Klondike position", () => {
  const rules = rulesOf("klondike");
  const up = (card) => ({ card, up: true });
  const state = {
    tableau: [[up("2H")], [up("3H")], [up("2C")], [up("KS"), up("QH")], [], [], []],
    stock: 0, waste: ["AS"], foundations: [["AH"], ["AD", "2D"], ["AC"], []],
    redeals_left: null, score: 0, moves: 0, foundation_cards: 4, won: false, can_undo: false,
  };
  // Lemma K: a card goes home once both suits of the other colour are at its rank and its twin one below.
  assert.equal(R.isSafeCard(rules, state, "2H"), false); // the spades are at 0: the A♠ may still need it
  assert.equal(R.isSafeCard(rules, state, "2C"), true); // both red aces are home
  assert.equal(R.isSafeCard(rules, state, "AS"), true); // an ace always
  assert.equal(R.isSafeCard(rules, state, "3H"), false); // not its pile's next card
  assert.equal(R.safeMove(rules, state), "t3f3"); // column tops first
  assert.deepEqual(R.safeMoves(rules, state), ["t3f3", "wf4", "t1f1"]); // then A♠ (draw 1: the waste), then 2H
  const draw3 = { ...rules, draw: 3 };
  assert.deepEqual(R.safeMoves(draw3, state), ["t3f3"], "draw 3: the waste's A♠ is left alone, and so 2H waits");
});
