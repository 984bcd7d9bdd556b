"""Statistics per game (issue 25, item 5): streaks across day boundaries with the clock moved, win share,
best time and score, the distribution's bars, today's bar; GET /api/v1/players/{username}/stats; the share
text's "rank N of M"."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client
from pytest_django import Settings

from games.models import Guest, Result
from games.selectors import result_share_text
from games.tests.factories import token_for
from leaderboard.selectors.ranks import result_share
from leaderboard.selectors.stats import NOT_WON, TIME_EDGES_S, current_streak, player_game_stats, stats_bucket
from leaderboard.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 11, 30)
NOT_WON_BAR = len(TIME_EDGES_S) + 1


def day(back: int) -> dt.date:
    return TODAY - dt.timedelta(days=back)


def at(date: dt.date, hour: int = 12, minute: int = 0) -> dt.datetime:
    """A moment of a challenge day (DAILY_TIMEZONE is UTC in the tests)."""
    return dt.datetime(date.year, date.month, date.day, hour, minute, tzinfo=dt.UTC)


def challenge(back: int, game: str = "klondike") -> Any:
    from games.models import Challenge

    found = Challenge.objects.filter(date=day(back), game=game).first()
    return found or make_challenge(date=day(back), game=game)


def play(player: Any, back: int, *, game: str = "klondike", won: bool = True, **fields: Any) -> Result:
    return make_result(challenge=challenge(back, game), player=player, won=won, **fields)


def stats(player: Any, game: str | None = None, *, viewer: Any = "self") -> Any:
    """The statistics as of the (moved) clock: ``today`` is not passed, the selector reads the clock."""
    return player_game_stats(username=player.get_username(), viewer=player if viewer == "self" else viewer, game=game)


def of(s: Any, game: str) -> Any:
    return next(g for g in s.games if g.game == game)


# --- Streaks: the clock moved over day boundaries ---------------------------------------------------


def test_todays_unplayed_game_does_not_yet_break_the_streak_and_a_missed_day_does() -> None:
    player = make_user("sam")
    for back in (3, 2, 1):  # won the three days before today
        play(player, back)
    with time_machine.travel(at(TODAY, 0, 1), tick=False):  # a minute into today, nothing played yet
        s = stats(player)
        assert (s.overall.current_streak, s.overall.best_streak) == (3, 3)
        assert (of(s, "klondike").current_streak, of(s, "klondike").best_streak) == (3, 3)
    with time_machine.travel(at(TODAY, 23, 59), tick=False):  # still today: still not broken
        assert stats(player).overall.current_streak == 3
    with time_machine.travel(at(day(-1), 0, 0), tick=False):  # midnight: today is yesterday and was missed
        s = stats(player)
        assert (s.overall.current_streak, s.overall.best_streak) == (0, 3)
        assert (of(s, "klondike").current_streak, of(s, "klondike").best_streak) == (0, 3)


def test_a_win_today_extends_the_streak_and_the_next_day_keeps_it_until_it_is_missed() -> None:
    player = make_user()
    play(player, 1)
    play(player, 0)
    with time_machine.travel(at(TODAY), tick=False):
        assert of(stats(player), "klondike").current_streak == 2
    with time_machine.travel(at(day(-1), 8), tick=False):  # tomorrow, unplayed: 2 still
        assert of(stats(player), "klondike").current_streak == 2
    with time_machine.travel(at(day(-2), 8), tick=False):  # the day after: tomorrow was missed
        assert of(stats(player), "klondike").current_streak == 0


def test_a_lost_ranked_game_of_today_ends_that_games_streak_at_once_but_not_the_days() -> None:
    player = make_user()
    play(player, 2)
    play(player, 1)
    play(player, 1, game="maria")
    play(player, 0, won=False)  # today's klondike lost: it cannot be won today any more
    challenge(0, "maria")  # today's maria is not played yet: the day can still be won
    with time_machine.travel(at(TODAY), tick=False):
        s = stats(player)
        assert of(s, "klondike").current_streak == 0 and of(s, "klondike").best_streak == 2
        assert of(s, "maria").current_streak == 1
        assert s.overall.current_streak == 2  # the days 2 and 1 back; today still open through maria
    play(player, 0, game="maria", won=False)  # every game of today lost: the day is lost
    with time_machine.travel(at(TODAY), tick=False):
        assert stats(player).overall.current_streak == 0


def test_streaks_are_per_game_and_over_every_game() -> None:
    player = make_user()
    play(player, 4)  # klondike 4, 3 back; maria 2, 1 back: overall 4 days in a row
    play(player, 3)
    play(player, 2, game="maria")
    play(player, 1, game="maria")
    with time_machine.travel(at(TODAY), tick=False):
        s = stats(player)
        assert (s.overall.current_streak, s.overall.best_streak) == (4, 4)
        assert (of(s, "klondike").current_streak, of(s, "klondike").best_streak) == (0, 2)
        assert (of(s, "maria").current_streak, of(s, "maria").best_streak) == (2, 2)
        assert [g.game for g in s.games] == ["maria", "klondike"]  # the games' own order


def test_streaks_follow_the_challenge_date_not_the_finish_time() -> None:
    """Yesterday's deal finished a minute after midnight still counts for yesterday (the deal's day)."""
    player = make_user()
    play(player, 2)
    play(player, 1, finished_at=at(TODAY, 0, 1))
    with time_machine.travel(at(TODAY, 0, 2), tick=False):
        assert of(stats(player), "klondike").current_streak == 2


def test_current_streak_rule() -> None:
    wins = [day(3), day(2), day(1)]
    assert current_streak(win_dates=wins, today=TODAY, today_open=True) == 3
    assert current_streak(win_dates=wins, today=TODAY, today_open=False) == 0
    assert current_streak(win_dates=[*wins, TODAY], today=TODAY, today_open=False) == 4
    assert current_streak(win_dates=[day(2)], today=TODAY, today_open=True) == 0
    assert current_streak(win_dates=[], today=TODAY, today_open=True) == 0


# --- Counts, records and bars ---------------------------------------------------------------------------


def test_only_counted_ranked_results_count() -> None:
    player = make_user()
    play(player, 5)
    play(player, 4, won=False)
    play(player, 3, ranked=False)  # practice
    play(player, 2, disqualified=True)
    play(player, 1, status="invalid")
    held = play(player, 6)
    Result.objects.filter(pk=held.pk).update(held=True)
    with time_machine.travel(at(TODAY), tick=False):
        s = stats(player)
    assert (s.overall.played, s.overall.won, s.overall.win_rate) == (2, 1, 0.5)
    assert s.overall.best_streak == 1


def test_best_time_and_score_are_unassisted_records() -> None:
    player = make_user()
    play(player, 4, play_time_ms=250_000, score=600)
    play(player, 3, play_time_ms=90_000, score=400, assisted=True)  # faster, higher: but assisted
    play(player, 2, play_time_ms=130_500, score=550)
    play(player, 1, play_time_ms=10_000, score=700, won=False, assisted=True)
    play(player, 5, play_time_ms=20_000, score=100, won=False)  # a quick loss is no best time
    with time_machine.travel(at(TODAY), tick=False):
        k = of(stats(player), "klondike")
    assert (k.best_time_ms, k.best_score) == (130_500, 600)
    assert (k.played, k.won, k.win_rate) == (5, 3, 0.6)
    empty = make_user()
    with time_machine.travel(at(TODAY), tick=False):
        s = stats(empty)
    assert (s.overall.played, s.overall.best_time_ms, s.overall.best_score, s.games) == (0, None, None, [])


def test_bucket_edges() -> None:
    assert stats_bucket(won=True, play_time_ms=0) == 0
    assert stats_bucket(won=True, play_time_ms=59_999) == 0
    assert stats_bucket(won=True, play_time_ms=60_000) == 1
    assert stats_bucket(won=True, play_time_ms=299_999) == 3
    assert stats_bucket(won=True, play_time_ms=300_000) == 4
    assert stats_bucket(won=True, play_time_ms=600_000) == 5
    assert stats_bucket(won=True, play_time_ms=10**9) == 5
    assert stats_bucket(won=False, play_time_ms=30_000) == NOT_WON_BAR


def test_distribution_counts_each_bar_and_marks_todays() -> None:
    player = make_user()
    for back, ms in ((6, 45_000), (5, 150_000), (4, 170_000), (3, 240_000), (2, 700_000)):
        play(player, back, play_time_ms=ms)
    play(player, 1, won=False)
    play(player, 0, play_time_ms=175_000)  # today: the 2-3 min bar
    play(player, 0, game="maria", won=False)
    with time_machine.travel(at(TODAY), tick=False):
        s = stats(player)
    k = of(s, "klondike")
    assert [b.label for b in k.distribution] == [
        "under 1 min",
        "1-2 min",
        "2-3 min",
        "3-5 min",
        "5-10 min",
        "10+ min",
        NOT_WON,
    ]
    assert [b.count for b in k.distribution] == [1, 0, 3, 1, 0, 1, 1]
    assert [b.today for b in k.distribution] == [0, 0, 1, 0, 0, 0, 0]
    assert (k.distribution[2].low_ms, k.distribution[2].high_ms) == (120_000, 180_000)
    assert k.today is not None and (k.today.bucket, k.today.play_time_ms, k.today.won) == (2, 175_000, True)
    assert [b.count for b in s.overall.distribution] == [1, 0, 3, 1, 0, 1, 2]
    assert [b.today for b in s.overall.distribution] == [0, 0, 1, 0, 0, 0, 1]  # both of today's games
    assert s.overall.today is None  # one result a game: the overall has its bars marked instead
    with time_machine.travel(at(day(-1)), tick=False):  # tomorrow: yesterday's bar is no longer today's
        assert sum(b.today for b in of(stats(player), "klondike").distribution) == 0


def test_a_game_asked_for_is_there_even_unplayed() -> None:
    player = make_user()
    play(player, 1)
    with time_machine.travel(at(TODAY), tick=False):
        s = stats(player, "maria")
    assert [g.game for g in s.games] == ["maria"] and s.games[0].played == 0 and s.overall.played == 1


def test_others_see_only_the_public_part_a_guest_sees_their_own() -> None:
    guest = make_user("guest-1")
    Guest.objects.create(user=guest)
    play(guest, 1)
    play(guest, 0)
    other = make_user()
    with time_machine.travel(at(TODAY), tick=False):
        assert stats(guest).overall.played == 2 and stats(guest).own
        seen = stats(guest, viewer=other)
        assert (seen.own, seen.overall.played, seen.games) == (False, 0, [])  # on no public board


# --- The API ---------------------------------------------------------------------------------------------


def test_api_stats_of_a_player(client: Client) -> None:
    player = make_user("ann")
    play(player, 1, play_time_ms=100_000)
    play(player, 0, play_time_ms=100_000)
    rival = make_user("bob")
    play(rival, 0, play_time_ms=31_337, score=987)  # another player's game of today: never in ann's figures
    with time_machine.travel(at(TODAY), tick=False):
        response = Client().get("/api/v1/players/ann/stats")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"username", "today", "own", "overall", "games"}
    assert (body["username"], body["today"], body["own"]) == ("ann", TODAY.isoformat(), False)
    k = body["games"][0]
    assert set(k) == {
        "game",
        "played",
        "won",
        "win_rate",
        "current_streak",
        "best_streak",
        "best_time_ms",
        "best_score",
        "last_played_date",
        "distribution",
        "today",
    }
    assert (k["game"], k["played"], k["won"], k["win_rate"], k["current_streak"]) == ("klondike", 2, 2, 1.0, 2)
    assert k["best_time_ms"] == 100_000 and k["best_score"] == 500
    assert k["today"] == {
        "won": True,
        "score": 500,
        "moves": 120,
        "play_time_ms": 100_000,
        "assisted": False,
        "bucket": 1,
    }
    assert [b["count"] for b in k["distribution"]] == [0, 2, 0, 0, 0, 0, 0]
    assert set(k["distribution"][0]) == {"label", "won", "low_ms", "high_ms", "count", "today"}
    assert body["overall"]["game"] is None and body["overall"]["played"] == 2
    # Hidden information: of today's deal only ann's own result is there; nothing of bob's game, no seed.
    text = response.content.decode()
    assert "31337" not in text and "987" not in text and "seed" not in text and "bob" not in text


def test_api_own_stats_through_the_session_and_a_token(client: Client) -> None:
    guest = make_user("guest-2")
    Guest.objects.create(user=guest)
    play(guest, 0)
    client.force_login(guest)
    with time_machine.travel(at(TODAY), tick=False):
        mine = client.get("/api/v1/players/guest-2/stats").json()
        public = Client().get("/api/v1/players/guest-2/stats").json()
        token = token_for(guest)
        by_token = Client().get("/api/v1/players/guest-2/stats", HTTP_AUTHORIZATION=f"Token {token}").json()
    assert (mine["own"], mine["overall"]["played"]) == (True, 1)
    assert (public["own"], public["overall"]["played"]) == (False, 0)
    assert by_token["own"] is True and by_token["overall"]["played"] == 1


def test_api_game_filter_and_bad_input() -> None:
    player = make_user("cy")
    play(player, 0)
    c = Client()
    with time_machine.travel(at(TODAY), tick=False):
        body = c.get("/api/v1/players/cy/stats", {"game": "maria"}).json()
        assert [g["game"] for g in body["games"]] == ["maria"] and body["overall"]["played"] == 1
        for query in ({"game": "chess"}, {"game": ""}):
            response = c.get("/api/v1/players/cy/stats", query)
            assert response.status_code == 400 and response.json()["error"]["code"] == "invalid", response.content
        for name in ("nobody", "x" * 151, "cy%00"):
            response = c.get(f"/api/v1/players/{name}/stats")
            assert response.status_code == 404 and response.json()["error"]["code"] == "not_found", name
        assert c.post("/api/v1/players/cy/stats").status_code == 405


def test_the_schema_names_the_endpoint() -> None:
    schema = Client().get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/players/{username}/stats"]["get"]
    assert operation["operationId"] == "player_stats"
    assert {"PlayerStats", "PlayerGameStats", "PlayerStatsBucket"} <= set(schema["components"]["schemas"])


# --- The share text -----------------------------------------------------------------------------------------


def test_share_text_has_the_time_and_the_rank_of_the_days_board() -> None:
    today = challenge(0)
    a = make_result(challenge=today, player=make_user(), score=900, play_time_ms=97_720)
    b = make_result(challenge=today, player=make_user(), score=800)
    assisted = make_result(challenge=today, player=make_user(), score=1000, assisted=True)
    guest = make_user("guest-3")
    Guest.objects.create(user=guest)
    as_guest = make_result(challenge=today, player=guest, score=950)
    practice = make_result(challenge=today, player=make_user(), ranked=False)
    share = result_share(result=a)
    assert "rank 1 of 2" in share and "1:37.72" in share  # the assisted and the guest's are not on it
    assert "rank 2 of 2" in result_share(result=b)
    assert "assisted, not on the day's board" in result_share(result=assisted) and "rank " not in result_share(
        result=assisted
    )
    assert "not on the board" in result_share(result=as_guest) and "rank " not in result_share(result=as_guest)
    assert "practice" in result_share(result=practice) and "rank " not in result_share(result=practice)
    assert "rank 3 of 7" in result_share_text(result=a, rank=3, total=7)


def test_a_submissions_result_carries_the_rank_of_the_days_board_and_its_size() -> None:
    from leaderboard.selectors.ranks import submission_result

    today = challenge(0)
    a = make_result(challenge=today, player=make_user(), score=900)
    make_result(challenge=today, player=make_user(), score=950)
    assisted = make_result(challenge=today, player=make_user(), score=1000, assisted=True)
    mine = submission_result(submission=a.submission)
    assert mine is not None and (mine["rank"], mine["board_total"], mine["board"]) == (2, 2, "day")
    assert "rank 2 of 2" in str(mine["share"])
    assert mine["ahead_of_percent"] == 0  # of the other players ranked at this moment: ahead of none
    theirs = submission_result(submission=assisted.submission)
    assert theirs is not None and (theirs["rank"], theirs["board_total"], theirs["board"]) == (1, None, "all")
    assert theirs["ahead_of_percent"] is None  # on the day's board only


def test_the_day_boundary_is_the_challenge_time_zones_midnight(settings: Settings) -> None:
    """DAILY_TIMEZONE decides when today ends: at 03:00 UTC it is still yesterday in New York."""
    settings.DAILY_TIMEZONE = "America/New_York"
    player = make_user()
    play(player, 2)
    play(player, 1)
    # TODAY 03:00 UTC = day(1) 22:00 in New York: day(1) is still "today" there, and it is won.
    with time_machine.travel(at(TODAY, 3), tick=False):
        s = stats(player)
        assert s.today == day(1) and of(s, "klondike").current_streak == 2
        assert of(s, "klondike").today is not None  # day(1)'s result is today's there
    # TODAY+1 04:59 UTC = TODAY 23:59 in New York: TODAY unplayed, not yet breaking the run.
    with time_machine.travel(at(day(-1), 4, 59), tick=False):
        assert of(stats(player), "klondike").current_streak == 2
    # TODAY+1 05:00 UTC = midnight in New York: TODAY was missed.
    with time_machine.travel(at(day(-1), 5, 0), tick=False):
        assert of(stats(player), "klondike").current_streak == 0


# --- The day as one share (issue 53) ------------------------------------------------------------------


def test_the_day_summary_lists_every_game_in_a_fixed_order_and_shares_squares_only() -> None:
    from engine import GAME_IDS
    from games.models import Attempt
    from leaderboard.selectors.days import player_day_summary

    me, other = make_user(), make_user()
    ours = [challenge(0, game) for game in GAME_IDS[:5]]  # the last three games not out yet
    play(me, 0, game=GAME_IDS[0], won=True, score=777)
    play(me, 0, game=GAME_IDS[2], won=False, score=123)
    play(other, 0, game=GAME_IDS[1], won=True)  # another's result says nothing of mine
    Attempt.objects.create(player=me, challenge=ours[3], ranked=True)  # open
    summary = player_day_summary(player=me, day=day(0), challenges=ours, streak=3)
    assert [g.game for g in summary.games] == list(GAME_IDS)
    assert [g.status for g in summary.games] == ["won", "new", "lost", "playing", "new", "absent", "absent", "absent"]
    assert [g.words for g in summary.games][:4] == ["won", "not played", "not won", "in progress"]
    assert (summary.won, summary.lost, summary.not_played) == (1, 1, 6)
    assert summary.share.splitlines() == [
        f"Daily Patience, {day(0):%d %b %Y}: 1 of 8 won",
        "🟩⬜🟥⬜⬜⬜⬜⬜",
        "Streak: 3 days won in a row",
    ]
    assert "777" not in summary.share and "123" not in summary.share and "rank" not in summary.share
    one = player_day_summary(player=other, day=day(0), challenges=ours, streak=1)
    assert one.share.splitlines()[1] == "⬜🟩⬜⬜⬜⬜⬜⬜" and one.share.endswith("1 day won in a row")


def test_a_rank_in_a_share_says_it_is_of_the_board_at_the_time_of_sharing() -> None:
    a = make_result(challenge=challenge(0), player=make_user(), score=900)
    make_result(challenge=challenge(0), player=make_user(), score=800)
    assert "rank 1 of 2 at the time of sharing" in result_share(result=a)


def test_my_day_through_the_api_is_the_callers_own() -> None:
    from engine import GAME_IDS
    from games import days

    me = make_user()
    today = days.today()
    make_result(challenge=make_challenge(date=today, game=GAME_IDS[1]), player=me, won=True)
    make_result(challenge=make_challenge(date=today, game=GAME_IDS[0]), player=make_user(), won=False)
    assert Client().get("/api/v1/me/day").status_code in (401, 403)  # nobody's day without a caller
    body = Client(HTTP_AUTHORIZATION=f"Token {token_for(me)}").get("/api/v1/me/day").json()
    assert body["day"] == today.isoformat() and (body["won"], body["lost"], body["not_played"]) == (1, 0, 7)
    assert [g["game"] for g in body["games"]] == list(GAME_IDS)
    assert [g["status"] for g in body["games"]][:3] == ["new", "won", "absent"]
    assert body["share"].splitlines()[1] == "⬜🟩⬜⬜⬜⬜⬜⬜" and body["streak"] == 1
