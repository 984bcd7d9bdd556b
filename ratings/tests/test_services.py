"""Rating a day: its places, the ratings it moves, once, in order, and only when it is closed."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings as live
from django.utils import timezone
from pytest_django import Settings

from games import days
from games.models import Attempt
from ratings import services
from ratings.models import Rating, RatingHistory, RatingRun
from ratings.services import DayNotClosed, EarlierDayNotRated, day_places, rating_day_rate, ratings_rate_closed_days
from ratings.tests.factories import make_challenge, make_guest, make_result, make_user
from tests.concurrency import at_once

pytestmark = pytest.mark.django_db(transaction=False)


def past(n: int) -> dt.date:
    return days.today() - dt.timedelta(days=n)


def snapshot() -> tuple[list[tuple[object, ...]], ...]:
    return tuple(list(m.objects.order_by("id").values_list()) for m in (RatingRun, Rating, RatingHistory))


def test_places_follow_the_board_with_ties_shared_and_losses_below_wins() -> None:
    day = make_challenge(day=past(1))
    fast, slow, tie_a, tie_b, loss_high, loss_low = (make_user() for _ in range(6))
    make_result(challenge=day, player=slow, score=600, moves=100, play_time_ms=200_000)
    make_result(challenge=day, player=fast, score=600, moves=100, play_time_ms=100_000)
    make_result(challenge=day, player=tie_a, score=550)
    make_result(challenge=day, player=tie_b, score=550)
    make_result(challenge=day, player=loss_low, won=False, score=40)
    make_result(challenge=day, player=loss_high, won=False, score=900)  # a high score still ranks below every win
    places = [(p.player_id, p.rank) for p in day_places(challenge=day)]
    assert places == [
        (fast.pk, 1),
        (slow.pk, 2),
        (tie_a.pk, 3),
        (tie_b.pk, 3),  # equal in won, score, moves and time: one place
        (loss_high.pk, 5),
        (loss_low.pk, 6),
    ]


def test_assisted_held_disqualified_guest_practice_and_pending_results_are_not_in_the_match() -> None:
    day = make_challenge(day=past(1))
    counted = make_result(challenge=day)
    make_result(challenge=day, assisted=True)
    make_result(challenge=day, held=True)
    make_result(challenge=day, disqualified=True)
    make_result(challenge=day, player=make_guest())
    make_result(challenge=day, ranked=False)
    make_result(challenge=day, status="invalid")
    assert [p.player_id for p in day_places(challenge=day)] == [counted.player_id]


def test_a_day_moves_the_winner_up_and_the_loser_down_and_keeps_the_history() -> None:
    day = make_challenge(day=past(1))
    winner, middle, loser = make_user(), make_user(), make_user()
    make_result(challenge=day, player=winner, score=650)
    make_result(challenge=day, player=middle, score=500)
    make_result(challenge=day, player=loser, won=False, score=100)
    run = rating_day_rate(game="klondike", day=day.date)
    assert run.players == 3
    shown = {r.player_id: r.rating for r in Rating.objects.all()}
    assert shown[winner.pk] > shown[middle.pk] > shown[loser.pk]
    mu = {r.player_id: r.mu for r in Rating.objects.all()}
    assert mu[winner.pk] > 25 > mu[loser.pk]  # the model's start is 25 (OpenSkill's default)
    history = {h.player_id: h for h in RatingHistory.objects.all()}
    assert {h.day for h in history.values()} == {day.date}
    assert [history[p.pk].rank for p in (winner, middle, loser)] == [1, 2, 3]
    assert all(h.previous == 1000 and h.players == 3 for h in history.values())  # a new player shows 1000
    assert history[winner.pk].rating == shown[winner.pk]


def test_tied_players_move_alike() -> None:
    day = make_challenge(day=past(1))
    a, b, c = make_user(), make_user(), make_user()
    make_result(challenge=day, player=a, score=500)
    make_result(challenge=day, player=b, score=500)
    make_result(challenge=day, player=c, won=False, score=10)
    rating_day_rate(game="klondike", day=day.date)
    rows = {r.player_id: r for r in Rating.objects.all()}
    assert rows[a.pk].mu == pytest.approx(rows[b.pk].mu) and rows[a.pk].rating == rows[b.pk].rating


def test_a_day_is_rated_once_a_redelivery_finds_it_done() -> None:
    day = make_challenge(day=past(1))
    make_result(challenge=day, score=600)
    make_result(challenge=day, score=300)
    first = rating_day_rate(game="klondike", day=day.date)
    before = snapshot()
    again = rating_day_rate(game="klondike", day=day.date)
    assert again.pk == first.pk and snapshot() == before


def test_the_next_day_starts_from_the_ratings_the_day_before_left() -> None:
    one, two = make_challenge(day=past(2)), make_challenge(day=past(1))
    a, b = make_user(), make_user()
    for day in (one, two):
        make_result(challenge=day, player=a, score=600)
        make_result(challenge=day, player=b, won=False, score=50)
    rating_day_rate(game="klondike", day=one.date)
    after_one = Rating.objects.get(player=a).mu
    rating_day_rate(game="klondike", day=two.date)
    rating = Rating.objects.get(player=a)
    assert rating.mu > after_one and rating.days == 2 and rating.last_day == two.date
    assert list(RatingHistory.objects.filter(player=a).order_by("day").values_list("day", flat=True)) == [
        one.date,
        two.date,
    ]


def test_a_day_waits_for_the_days_before_it_and_refusing_writes_nothing() -> None:
    one, two = make_challenge(day=past(2)), make_challenge(day=past(1))
    for day in (one, two):
        make_result(challenge=day, score=600)
        make_result(challenge=day, score=100)
    before = snapshot()
    with pytest.raises(EarlierDayNotRated):
        rating_day_rate(game="klondike", day=two.date)
    assert snapshot() == before


def test_a_day_is_not_rated_before_it_ends_nor_while_its_games_are_open_or_checked(settings: Settings) -> None:
    settings.RATING_WAIT_HOURS = 24 * 30
    today = make_challenge(day=days.today())
    make_result(challenge=today)
    make_result(challenge=today)
    with pytest.raises(DayNotClosed):
        rating_day_rate(game="klondike", day=today.date)
    day = make_challenge(day=past(1), game="maria")
    make_result(challenge=day)
    Attempt.objects.create(player=make_user(), challenge=day, ranked=True)  # still open (closed by beat)
    with pytest.raises(DayNotClosed):
        rating_day_rate(game="maria", day=day.date)
    assert not RatingRun.objects.exists()
    # Past RATING_WAIT_HOURS after its end the day is rated with what is there.
    late = days.next_day_starts_at(day.date) + dt.timedelta(hours=live.RATING_WAIT_HOURS)
    assert rating_day_rate(game="maria", day=day.date, now=late).players == 0


def test_a_pending_submission_holds_the_day(settings: Settings) -> None:
    settings.RATING_WAIT_HOURS = 24 * 30
    day = make_challenge(day=past(1))
    make_result(challenge=day)
    make_result(challenge=day, status="pending")
    assert not services.day_is_closed(challenge=day)


def test_the_sweep_rates_every_games_closed_days_in_order_and_stops_at_one_still_open(settings: Settings) -> None:
    settings.RATING_WAIT_HOURS = 24 * 30
    days_ = [make_challenge(day=past(n)) for n in (4, 3, 2, 1)]
    for day in days_:
        make_result(challenge=day, score=600)
        make_result(challenge=day, score=200)
    Attempt.objects.create(player=make_user(), challenge=days_[2], ranked=True)  # day -2 still has an open game
    other = make_challenge(day=past(1), game="lucas")
    make_result(challenge=other)
    make_result(challenge=other, won=False)
    assert ratings_rate_closed_days() == 3  # klondike -4, -3 (then it waits at -2), lucas -1
    assert set(RatingRun.objects.values_list("game", "day")) == {
        ("klondike", past(4)),
        ("klondike", past(3)),
        ("lucas", past(1)),
    }
    assert ratings_rate_closed_days() == 0  # nothing new: the same rows
    Attempt.objects.filter(challenge=days_[2], finished_at__isnull=True).update(finished_at=timezone.now())
    assert ratings_rate_closed_days() == 2


def test_the_task_is_on_beats_one_schedule_and_rates_through_the_service() -> None:
    from ratings.tasks import rate_closed_days

    assert live.CELERY_BEAT_SCHEDULE["rate-closed-days"]["task"] == rate_closed_days.name == "ratings.rate_closed_days"
    day = make_challenge(day=past(1))
    make_result(challenge=day, score=600)
    make_result(challenge=day, score=100)
    assert rate_closed_days.delay().get() == 1
    assert rate_closed_days.delay().get() == 0 and RatingHistory.objects.count() == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_rate_a_day_once() -> None:
    day = make_challenge(day=past(1))
    players = [make_user() for _ in range(6)]
    for i, player in enumerate(players):
        make_result(challenge=day, player=player, score=100 * i)
    runs = at_once(*[lambda: rating_day_rate(game="klondike", day=day.date) for _ in range(4)])
    assert len({r.pk for r in runs}) == 1
    assert RatingRun.objects.count() == 1 and RatingHistory.objects.count() == 6
    assert all(r.days == 1 for r in Rating.objects.all())


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_rate_each_day_once_in_order() -> None:
    a, b = make_user(), make_user()
    for n in (3, 2, 1):
        day = make_challenge(day=past(n))
        make_result(challenge=day, player=a, score=600)
        make_result(challenge=day, player=b, score=100)
    at_once(ratings_rate_closed_days, ratings_rate_closed_days)
    ratings_rate_closed_days()  # a sweep that met the other's day in flight stopped there: the next goes on
    assert RatingRun.objects.count() == 3 and RatingHistory.objects.count() == 6
    assert sorted(Rating.objects.values_list("days", flat=True)) == [3, 3]


def test_the_sweep_starts_no_day_once_its_budget_is_spent_and_the_next_run_goes_on() -> None:
    for n in (3, 2, 1):
        day = make_challenge(day=past(n))
        make_result(challenge=day, score=600)
        make_result(challenge=day, score=100)
    ticks = iter([0.0, 0.0, 50.0, 130.0, 130.0])  # the start, then before each day: the third is past 120 s
    assert ratings_rate_closed_days(clock=lambda: next(ticks)) == 2
    assert list(RatingRun.objects.order_by("day").values_list("day", flat=True)) == [past(3), past(2)]
    assert ratings_rate_closed_days() == 1
