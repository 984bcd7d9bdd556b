"""Fair-play cases: ranked results held for an implausible pace or for disclosures shared between
identities, results flagged for a shared origin, and staff's decisions (``models.FairPlayCase``).

- At validation (:func:`result_fair_play_check`, inside the validating transaction): a ranked result
  whose play ``games.pace`` judges faster than a person (its batches, or a win over its whole play time)
  is **held** (``Result.held``): it is on no public board, league board, game review or game page, or
  other player's view until staff clear it. So is one when, before it ended, hidden cards of the same
  deal were disclosed to another identity in the same browser, or from the same address when either of
  the two is new (a guest, or an account made that day): SPEC section 7, identities share their
  disclosures. A guest's result is checked again when an account claims it
  (:func:`result_fair_play_check_claimed`). A ranked result of a player when another player has a
  ranked attempt on the same challenge from the same address or browser and nothing holds it is
  **flagged** (a signal for staff, not a sanction: the result stays on the boards): established
  accounts behind one address. Flags are one case per address (or browser) and day, naming the day's
  ranked players from there (at most :data:`NAMES_SHOWN`, with their count): a campus behind one
  address makes one row, not one per player naming all the others. Holds stay one case per held
  result, apart from flags.
- In the admin (:func:`fair_play_case_clear`, :func:`fair_play_case_disqualify`): staff clear a case (a
  held result goes on the boards once no open case holds it) or disqualify the result; who and when are
  recorded.

Addresses and browser cookies are stored only as keyed hashes (:func:`origin_hash`): equal inputs
give equal hashes, and nothing else can be read from them without the server's secret.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from engine import EngineError, State, deal
from games import days, hooks
from games.errors import Conflict
from games.models import Attempt, FairPlayCase, Result, Submission
from games.pace import DAY_WINNERS, pace_verdict, whole_game_verdict

# A long-lived random cookie naming the browser (set by the table's page, web.views.play): accounts that
# rank on one challenge from one browser are flagged, whatever address they come from.
BROWSER_COOKIE = "dp_browser"
BROWSER_COOKIE_SECONDS = 2 * 365 * 24 * 60 * 60
NAMES_SHOWN = 20  # names a case lists; past it "and N more" (the count is FairPlayCase.players)


def origin_hash(*, kind: str, value: str) -> str:
    """A keyed hash of a client address or a browser cookie (``kind`` names which); "" for no value."""
    if not value:
        return ""
    value = value[:256]
    # (The key's words are part of every stored hash: changed, no new attempt would match an older one.)
    key = f"daily-patience review {kind}".encode() + settings.SECRET_KEY.encode()
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:32]


def result_fair_play_check(*, result: Result, attempt: Attempt) -> None:
    """Check a new ranked result (called by the validation, in its transaction, before it is announced)."""
    if not result.ranked:
        return
    reason = pace_verdict(log=attempt.moves, batches=attempt.batches)
    if reason is None and result.won:
        reason = whole_game_verdict(
            log=attempt.moves, play_time_ms=result.play_time_ms, day_median_ms=_day_median_win_ms(result)
        )
    if reason is not None:
        _hold(result)
        FairPlayCase.objects.create(result=result, kind=FairPlayCase.Kind.PACE, holds=True, reason=f"Held: {reason}.")
    _judge_shared(result=result, attempt=attempt, flag=True)


def result_fair_play_check_claimed(*, result: Result, attempt: Attempt) -> None:
    """Check a guest's ranked result again once an account claims it (``players.guest_claim``, in its
    transaction, after the attempt moved): by the same rule, with the account as the player. A hold found
    now is added; one found before stays (staff clear it)."""
    if result.ranked:
        _judge_shared(result=result, attempt=attempt, flag=False)


def _hold(result: Result) -> None:
    if not result.held:
        result.held = True
        result.save(update_fields=["held"])


def _day_median_win_ms(result: Result) -> int | None:
    """The median play time of the challenge's other counted wins, once there are ``DAY_WINNERS``."""
    wins = Result.objects.filter(
        challenge_id=result.challenge_id,
        ranked=True,
        won=True,
        held=False,
        disqualified=False,
        submission__status=Submission.Status.VALID,
    ).exclude(pk=result.pk)
    count = wins.count()
    if count < DAY_WINNERS:
        return None
    return int(wins.order_by("play_time_ms").values_list("play_time_ms", flat=True)[count // 2])


def player_is_new(*, player_id: int, day: dt.date) -> bool:
    """A guest, or an account made on ``day`` (SPEC section 7: a new identity is cheap)."""
    made_that_day = Q(date_joined__gte=days.next_day_starts_at(day - dt.timedelta(days=1))) & Q(
        date_joined__lt=days.next_day_starts_at(day)
    )
    return User.objects.filter(pk=player_id).filter(Q(guest__isnull=False) | made_that_day).exists()


def attempt_disclosed_at(*, attempt: Attempt) -> dt.datetime | None:
    """When the attempt's stored log first disclosed a hidden card of its deal (a stock card drawn, a
    face-down card turned up), by the server's receipts; None when it never did. An attempt whose
    receipts do not add up to its log is taken as disclosing at its start."""
    challenge = attempt.challenge
    state = State(deal(challenge.game, challenge.seed_int))
    face_down = list(state.seen_down)
    first: int | None = None
    for index, move in enumerate(attempt.moves):
        try:
            state.play_text(move)
        except EngineError:
            break
        if state.seen_stock > 0 or state.seen_down != face_down:
            first = index
            break
    if first is None:
        return None
    batches = attempt.batches or []
    if sum(int(b[1]) for b in batches) != len(attempt.moves):
        return attempt.started_at
    stored = 0
    for at_ms, count in batches:
        stored += int(count)
        if stored > first:
            return attempt.started_at + dt.timedelta(milliseconds=int(at_ms))
    return attempt.started_at  # pragma: no cover - the sum above guarantees a batch


def _judge_shared(*, result: Result, attempt: Attempt, flag: bool) -> None:
    """SPEC section 7, identities share their disclosures: the result is held when, before it finished,
    hidden cards of the deal were disclosed to another identity in the same browser, or from the same
    address when either identity is new (a guest, an account made that day); established accounts
    behind one address only flag each other (``flag``: also write those flags, at validation)."""
    sources = [(FairPlayCase.Kind.BROWSER, attempt.browser), (FairPlayCase.Kind.ADDRESS, attempt.origin)]
    sources = [(kind, value) for kind, value in sources if value]
    if not sources:
        return
    challenge = attempt.challenge
    finished = result.finished_at
    me_new = player_is_new(player_id=result.player_id, day=challenge.date)
    where_from = Q(pk__in=[])
    for kind, value in sources:
        where_from |= Q(**{kind_field(kind=kind): value})
    others = list(
        Attempt.objects.filter(challenge_id=challenge.pk)
        .exclude(player_id=result.player_id)
        .filter(where_from)
        .select_related("player", "challenge")
        .order_by("pk")
    )
    newness: dict[int, bool] = {}
    disclosed: dict[int, bool] = {}  # per attempt: did it disclose a hidden card before this game ended?
    for kind, value in sources:
        field = kind_field(kind=kind)
        same = [other for other in others if getattr(other, field) == value]
        holders: set[str] = set()
        for other in same:
            if kind == FairPlayCase.Kind.ADDRESS and not me_new:  # checked first: no replay for an office's peers
                if other.player_id not in newness:
                    newness[other.player_id] = player_is_new(player_id=other.player_id, day=challenge.date)
                if not newness[other.player_id]:
                    continue  # established accounts behind one address do not hold each other
            if other.pk not in disclosed:
                at = attempt_disclosed_at(attempt=other)
                disclosed[other.pk] = at is not None and at < finished
            if disclosed[other.pk]:
                holders.add(other.player.get_username())
        where = "client address" if kind == FairPlayCase.Kind.ADDRESS else "browser"
        holds = FairPlayCase.objects.filter(result=result, kind=kind, holds=True)
        decided = holds.exclude(status=FairPlayCase.Status.OPEN).exists()
        if holders and not decided:  # (a claim never reopens what staff decided)
            _hold(result)
            names = sorted(holders)
            FairPlayCase.objects.update_or_create(
                result=result,
                kind=kind,
                holds=True,
                defaults={
                    "others": names[:NAMES_SHOWN],
                    "players": len(names),
                    "reason": (
                        f"Held: hidden cards of this deal were disclosed to {_listed(names)} from the same "
                        f"{where} before this game ended (identities share their disclosures)."
                    ),
                    "status": FairPlayCase.Status.OPEN,
                },
            )
            continue
        if flag and any(other.ranked for other in same):
            _flag_origin(result=result, kind=kind, value=value, day=challenge.date, where=where)


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")


def _flag_origin(*, result: Result, kind: str, value: str, day: dt.date, where: str) -> None:
    """The day's flag of this address or browser, made by the first result it concerns and brought up to
    date by the next ones: the day's ranked players from there, named up to NAMES_SHOWN, and counted.
    Two queries whatever their number; a flag staff decided stays decided (its names still grow)."""
    concerned = (
        Attempt.objects.filter(**{kind_field(kind=kind): value}, ranked=True, challenge__date=day)
        .values_list("player__username", flat=True)
        .distinct()
        .order_by("player__username")
    )
    names = list(concerned[: NAMES_SHOWN + 1])
    count = len(names) if len(names) <= NAMES_SHOWN else concerned.count()
    shown = names[:NAMES_SHOWN]
    more = f" and {count - len(shown)} more" if count > len(shown) else ""
    reason = f"Flagged: {count} players ranked on {day} from the same {where}: {', '.join(shown)}{more}."
    fields = {"others": shown, "players": count, "reason": reason}
    case, made = FairPlayCase.objects.get_or_create(
        kind=kind, origin=value, day=day, holds=False, defaults={"result": result, **fields}
    )
    if not made:
        FairPlayCase.objects.filter(pk=case.pk).update(**fields)


Decisions = dict[tuple[str, bool], tuple[str, int | None, dt.datetime | None]]


def fair_play_decisions(*, result: Result) -> Decisions:
    """Staff's decisions on a result's fair-play cases, by kind and hold: kept across a revalidation (which
    replaces the result, and with it the cases it holds or anchors)."""
    return {
        (c.kind, c.holds): (c.status, c.decided_by_id, c.decided_at)
        for c in result.fair_play_cases.exclude(status=FairPlayCase.Status.OPEN)
    }


def fair_play_decisions_apply(*, result: Result, decided: Decisions) -> None:
    """Apply :func:`fair_play_decisions` to the new result's cases of the same kinds (in the caller's transaction)."""
    for case in result.fair_play_cases.filter(kind__in=[kind for kind, _holds in decided]):
        if (case.kind, case.holds) in decided:
            case.status, case.decided_by_id, case.decided_at = decided[(case.kind, case.holds)]
            case.save(update_fields=["status", "decided_by", "decided_at"])
    if result.held and not result.fair_play_cases.filter(holds=True, status=FairPlayCase.Status.OPEN).exists():
        result.held = False
        result.save(update_fields=["held"])


def kind_field(*, kind: str) -> str:
    """The attempt's field a case of ``kind`` compares: its address's hash, or its browser's."""
    return "origin" if kind == FairPlayCase.Kind.ADDRESS else "browser"


def _decide(*, case_id: int, staff: User, status: str) -> FairPlayCase:
    with transaction.atomic():
        case = FairPlayCase.objects.select_for_update().select_related("result").get(pk=case_id)
        result = Result.objects.select_for_update().get(pk=case.result_id)
        if result.disqualified and status == FairPlayCase.Status.CLEARED:
            raise Conflict(f"the result of fair-play case {case_id} is disqualified: clearing does not undo that")
        case.status = status
        case.decided_by = staff
        case.decided_at = timezone.now()
        case.save(update_fields=["status", "decided_by", "decided_at"])
        if status == FairPlayCase.Status.DISQUALIFIED:
            changed = not result.disqualified
            result.disqualified = True
            result.save(update_fields=["disqualified"])
            if changed:
                transaction.on_commit(lambda: hooks.send(hooks.result_removed, result_id=result.pk))
        else:
            still_held = result.fair_play_cases.filter(holds=True, status=FairPlayCase.Status.OPEN).exists()
            if result.held and not still_held:
                result.held = False
                result.save(update_fields=["held"])
                transaction.on_commit(lambda: hooks.send(hooks.result_recorded, result_id=result.pk))
    return case


def fair_play_case_clear(*, case_id: int, staff: User) -> FairPlayCase:
    """Staff looked and found a person: the case is closed, and a held result goes on the boards."""
    return _decide(case_id=case_id, staff=staff, status=FairPlayCase.Status.CLEARED)


def fair_play_case_disqualify(*, case_id: int, staff: User) -> FairPlayCase:
    """Staff looked and found no fair play: the result is disqualified, on no board for good."""
    return _decide(case_id=case_id, staff=staff, status=FairPlayCase.Status.DISQUALIFIED)


def player_history(*, player_id: int, limit: int = 20) -> list[Result]:
    """The player's latest results, for staff deciding a case of one of them."""
    return list(
        Result.objects.filter(player_id=player_id)
        .select_related("challenge", "submission")
        .order_by("-finished_at")[:limit]
    )
