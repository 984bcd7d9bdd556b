"""A result's place: its rank on its board, whether it is on a public board, why it is held, and its
share text. An unassisted result ranks on the day's board, an assisted one on the board of all results."""

from __future__ import annotations

from django.db.models import Q

from games.models import Result, Submission
from games.selectors import board_results, result_share_text
from leaderboard.selectors.boards import leaderboard_around, leaderboard_rank, leaderboard_results
from ratings.standing import ahead_of_percent


def result_rank(*, result: Result) -> int | None:
    """The rank of a result on its board: only a ranked result that counts has one. An unassisted result
    ranks on the day's board, an assisted one on the board of all results (the only one it is on). A
    guest's result is on no public board (games.selectors.board_results): its rank is the one it would
    have there."""
    if not result.ranked or result.disqualified or result.held:
        return None
    clean = not result.assisted
    if result_on_board(result=result):
        return leaderboard_rank(challenge=result.challenge, player=result.player_id, clean=clean)
    ahead = (
        Q(won__gt=result.won)
        | Q(won=result.won, score__gt=result.score)
        | Q(won=result.won, score=result.score, moves__lt=result.moves)
        | Q(won=result.won, score=result.score, moves=result.moves, play_time_ms__lt=result.play_time_ms)
        | Q(
            won=result.won,
            score=result.score,
            moves=result.moves,
            play_time_ms=result.play_time_ms,
            finished_at__lt=result.finished_at,
        )
    )  # (the board's order, board_order(); a tie to the microsecond ranks the guest after)
    return leaderboard_results(challenge=result.challenge_id, clean=clean).filter(ahead).count() + 1


def result_board(*, result: Result) -> str:
    """The board :func:`result_rank` is on: ``day``, or ``all`` for an assisted result."""
    return "all" if result.assisted else "day"


def result_on_board(*, result: Result) -> bool:
    """Whether the result is on the public boards: counted and not a guest's."""
    return board_results().filter(pk=result.pk).exists()


def result_fair_play(*, result: Result) -> dict[str, str] | None:
    """Why the result is on no board while staff look at it: ``{"status": "held", "reason"}``, the reason of
    its newest open fair-play case that holds it (``games.FairPlayCase``); None when nothing holds it."""
    if not result.held or result.disqualified:
        return None
    case = result.fair_play_cases.filter(holds=True, status="open").order_by("-created_at").first()
    reason = case.reason if case is not None else "Held for a fair-play check."
    return {"status": "held", "reason": reason}


def submission_result(*, submission: Submission) -> dict[str, object] | None:
    """A validated submission's result as the API shows it: the numbers, the rank on the board
    (this app's), the size of that board when the result is on the day's board, and the share text;
    None until it is valid."""
    if submission.status != Submission.Status.VALID:
        return None
    result = submission.result
    on_board = result_on_board(result=result)
    day_board = day_board_place(result=result, on_board=on_board)
    rank = day_board[0] if day_board is not None else result_rank(result=result)
    total = day_board[1] if day_board is not None else None
    return {
        "won": result.won,
        "score": result.score,
        "moves": result.moves,
        "foundation_cards": result.foundation_cards,
        "redeals": result.redeals,
        "play_time_ms": result.play_time_ms,
        "ranked": result.ranked,
        "assisted": result.assisted,
        "disqualified": result.disqualified,
        "fair_play": result_fair_play(result=result),
        "on_board": on_board,
        "rank": rank,
        "board": result_board(result=result),
        "board_total": total,
        # Of the other players ranked on the day's board at this moment (the board grows through the day).
        "ahead_of_percent": None if day_board is None else ahead_of_percent(rank=day_board[0], total=day_board[1]),
        "share": result_share_text(result=result, rank=rank if day_board is not None else None, total=total),
    }


def day_board_place(*, result: Result, on_board: bool | None = None) -> tuple[int, int] | None:
    """(rank, entries) of the result on its day's board, read together (Redis or the database); None when
    it is not there: assisted (on the board of all results only), or on no public board (a guest's,
    held, disqualified, practice)."""
    if result.assisted or not (result_on_board(result=result) if on_board is None else on_board):
        return None
    around = leaderboard_around(challenge=result.challenge, player=result.player_id, radius=0, clean=True)
    return None if around.rank is None else (around.rank, around.total)


def result_share(*, result: Result) -> str:
    """The result's share text, with its rank of N on the day's board when it is there (an unassisted
    ranked result that counts, not a guest's); otherwise the text says what the result is instead."""
    rank, total = day_board_place(result=result) or (None, None)
    return result_share_text(result=result, rank=rank, total=total)
