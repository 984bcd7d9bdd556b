"""The pace judge (games.pace): what it holds, and what it must never hold."""

from __future__ import annotations

import json
from pathlib import Path

from games.pace import (
    BURST,
    DAY_FRACTION,
    MIN_BATCHES,
    MIN_GAP_MS,
    PERSON_RATE,
    RATE,
    counted_moves,
    finishing_run_start,
    pace_verdict,
    whole_game_verdict,
)

LOG = json.loads((Path(__file__).parent / "data" / "winning_logs.json").read_text())["klondike"]["moves"]
TABLE_GAPS_MS = [  # the table clicked by Playwright (test_win_result_share_and_leaderboard), as the server received it
    90,
    94,
    68,
    67,
    108,
    94,
    94,
    73,
    61,
    105,
    103,
    60,
    69,
    80,
    100,
    59,
    127,
    135,
    109,
    156,
    135,
    135,
    108,
    138,
    150,
    120,
    104,
    80,
    69,
    97,
    85,
    103,
    103,
    96,
]


def receipts(gaps_ms: list[int], counts: list[int]) -> list[list[int]]:
    at, out = 0, []
    for gap, count in zip(gaps_ms, counts, strict=True):
        at += gap
        out.append([at, count])
    return out


def test_the_finishing_run_is_the_trailing_moves_onto_foundations() -> None:
    assert finishing_run_start(["s", "t1t2", "wf1", "t3f2"]) == 2
    assert finishing_run_start(["wf1", "s"]) == 2
    assert finishing_run_start(["t1f1", "t10f8"]) == 0
    assert finishing_run_start([]) == 0


def test_a_whole_game_in_one_batch_is_held_at_once_or_after_any_wait() -> None:
    for wait_ms in (60, 100, 60_000, 3_600_000):
        reason = pace_verdict(log=LOG, batches=[[wait_ms, len(LOG)]])
        assert reason is not None and "faster than a person" in reason


def test_one_request_per_move_without_pause_is_held_by_the_cadence() -> None:
    log = (["t1t2", "u"] * 40)[:60]
    reason = pace_verdict(log=log, batches=receipts([MIN_GAP_MS - 20] * 60, [1] * 60))
    assert reason is not None  # (the bucket or the cadence, whichever comes first)
    quick_then_pause = pace_verdict(log=log, batches=receipts([150, 150, 150, 2_000] * 15, [1] * 60))
    assert quick_then_pause is None  # quick triples, then a pause: a person's rhythm


def test_the_cadence_rule_alone() -> None:
    log = (["t1t2", "u"] * 13)[:25]  # 25 one-move batches 45 ms apart: the bucket never fills, the cadence fails
    batches = receipts([45] * 25, [1] * 25)
    few = MIN_BATCHES - 1
    assert pace_verdict(log=log[:few], batches=batches[:few]) is None  # too few batches to judge
    reason = pace_verdict(log=log, batches=batches)
    assert reason is not None and "median 45 ms apart" in reason


def test_draws_redeals_and_the_finishing_run_are_not_counted() -> None:
    log = ["s"] * 24 + ["r"] + ["s"] * 24 + ["t1t2"] + ["wf1"] * 40
    assert pace_verdict(log=log, batches=[[50, len(log)]]) is None


def test_the_table_clicked_by_a_machine_is_held_only_after_seconds_of_it() -> None:
    clicks = [f"t{1 + i % 7}t{1 + (i + 1) % 7}" for i in range(len(TABLE_GAPS_MS))]
    assert pace_verdict(log=clicks, batches=receipts(TABLE_GAPS_MS, [1] * len(clicks))) is None
    long = clicks * 4  # the same rhythm (about 10 moves a second) kept up for 14 s
    assert pace_verdict(log=long, batches=receipts(TABLE_GAPS_MS * 4, [1] * len(long))) is not None


def test_a_person_at_full_speed_is_never_held() -> None:
    log = [f"t{1 + i % 7}t{1 + (i + 1) % 7}" for i in range(600)]
    steady = receipts([int(1000 / RATE) + 5] * 600, [1] * 600)  # just under RATE moves a second, for 100 s
    assert pace_verdict(log=log, batches=steady) is None
    bursts = receipts([4_000, 40] * 30, [BURST // 2, BURST // 2] * 30)  # a burst of BURST moves every 4 s
    assert pace_verdict(log=log, batches=bursts) is None


def test_no_receipts_or_receipts_that_do_not_add_up_are_not_judged() -> None:
    assert pace_verdict(log=LOG, batches=[]) is None  # stored before receipts were recorded
    assert pace_verdict(log=LOG, batches=[[1, len(LOG) - 1]]) is None


# --- a person's pace over the whole game (issue 51) -----------------------------------------------------


def test_a_won_game_faster_than_a_persons_pace_over_the_whole_game_is_held() -> None:
    counted = counted_moves(LOG)
    assert counted == 77  # the Klondike line: draws and the finishing run aside
    # The paced bot of issue 51: under the bucket (30 at once, then 6 a second), over 2 a second.
    reason = whole_game_verdict(log=LOG, play_time_ms=20_000)
    assert reason is not None and "2 a second" in reason
    assert whole_game_verdict(log=LOG, play_time_ms=int(counted / PERSON_RATE * 1000)) is None
    assert whole_game_verdict(log=LOG, play_time_ms=int(counted / PERSON_RATE * 1000) - 10) is not None


def test_a_win_far_under_the_days_median_is_held_once_the_day_has_enough_winners() -> None:
    slow_enough = int(counted_moves(LOG) / PERSON_RATE * 1000) + 1_000  # passes the rate rule
    assert whole_game_verdict(log=LOG, play_time_ms=slow_enough, day_median_ms=None) is None
    median = int(slow_enough / DAY_FRACTION) + 1_000
    reason = whole_game_verdict(log=LOG, play_time_ms=slow_enough, day_median_ms=median)
    assert reason is not None and "median" in reason
    assert whole_game_verdict(log=LOG, play_time_ms=slow_enough, day_median_ms=slow_enough * 5) is None
