// "How to play" (web/static/web/js/learn-demos.js): every game has a demo, every step is a move the
// browser's rules play from the position before it, and no demo starts from a deal (cards already home).
//   node --test web/tests/js/learn-demos.test.mjs   (from the repository root; PYTHON names the interpreter)

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { DEMOS, demoStart, stepState } from "../../static/web/js/learn-demos.js";
import * as R from "../../static/web/js/rules.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const venv = join(ROOT, ".venv/bin/python");
const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
const rules = JSON.parse(execFileSync(python, ["-c",
  "import json; from engine import GAME_IDS, find_rules; print(json.dumps({g: find_rules(g).as_dict() for g in GAME_IDS}))"],
{ cwd: ROOT, encoding: "utf8" }));

test("every game has a demo", () => {
  assert.deepEqual(Object.keys(DEMOS).sort(), Object.keys(rules).sort());
});

for (const [game, demo] of Object.entries(DEMOS)) {
  test(`${game}: each step is legal from the position before it`, () => {
    const r = rules[game];
    let state = demoStart(r);
    assert.equal(state.tableau.length, r.columns);
    assert.equal(state.foundations.length, r.foundations);
    assert.ok(state.foundation_cards > (game === "lucas" ? 8 : 0), "cards already home: no deal looks like this");
    assert.ok(demo.steps.length >= 4);
    demo.steps.forEach((step, i) => {
      if (step.move !== "s" && step.move !== "r" && !step.turn) {
        assert.ok(R.legalMoves(r, state).includes(step.move), `${game} step ${i} ${step.move} is among the legal moves`);
      }
      const outcome = stepState(r, state, step);
      assert.ok(outcome.state, `${game} step ${i} ${step.move}: ${outcome.error || outcome.server}`);
      assert.equal(outcome.state.moves, i + 1);
      assert.ok(step.say.length > 20);
      state = outcome.state;
    });
  });
}
