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
