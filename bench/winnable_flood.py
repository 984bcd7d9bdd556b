"""The still-winnable light under a flood: does an honest player's light still come while guests flood it?

    python bench/winnable_flood.py [--flooders 10] [--seconds 40] [--days 5] [--game forty-thieves]
                                   [--accounts] [--no-shares] [--throttled]

On the production-like stack (bench/stack.py: gunicorn, the workers, PostgreSQL, Redis; one winnable
worker process), with request throttling off (``API_THROTTLE=false``: the fair shares alone are measured,
not the request rates in front of them; ``--throttled`` turns them on) and ``DJANGO_NUM_PROXIES=1``
(each client names its address in ``X-Forwarded-For``, as a proxy would; the requests go to gunicorn
directly, since the stack's proxy would name 127.0.0.1 for all of them). ``--days`` past days of
``--game`` (forty-thieves: many positions take the solver's whole budget) are prepared by the prepare
worker. ``--flooders`` guests (``--accounts``: players with accounts) from one address each open a
practice attempt on every one of those days and then, as fast as the server answers, play one legal move
on one of their attempts and ask for its light (a new position every time, never polling). Meanwhile an
honest player from another address plays a move every second and polls its light until it is answered.

Prints the asks the flood made and what they got, the solver tasks the winnable worker ran, the deepest
winnable queue seen (sampled every 0.1 s), and the honest player's latency (move stored to light answered):
median, 95th percentile and longest. ``--no-shares`` raises the per-player and per-address shares to 1,000
(one solve in flight per attempt still holds) to compare.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import playout  # noqa: E402
from bench.stack import Stack, request  # noqa: E402

GAME = "klondike"  # --game
FLOOD_ADDRESS = "203.0.113.5"
HONEST_ADDRESS = "198.51.100.9"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def make_users(stack: Stack, names: list[str], *, guests: bool) -> list[tuple[str, str]]:
    """(username, token) for each name, made in the database (guests marked as such)."""
    os.environ.update(stack.env)
    import django
    from django.apps import apps

    if not apps.ready:
        django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import connections

    from games.auth import tokens_create
    from games.models import Guest

    users = get_user_model().objects.bulk_create(
        get_user_model()(username=name, password=make_password(None)) for name in names
    )
    if guests:
        Guest.objects.bulk_create(Guest(user=u) for u in users)
    tokens = tokens_create(user_ids=[u.pk for u in users])
    connections.close_all()
    return [(u.username, t) for u, t in zip(users, tokens, strict=True)]


class Player:
    def __init__(self, stack: Stack, token: str, address: str) -> None:
        # gunicorn itself, behind the proxy's back: the proxy would append 127.0.0.1 to X-Forwarded-For and
        # make every client of this one machine one address.
        self.url = stack.web_url
        self.headers = {"Authorization": f"Token {token}", "X-Forwarded-For": address}
        self.attempts: list[tuple[int, list[str], int]] = []  # id, line to play, moves played
        self.waits: list[float] = []  # each request's time (the web's share of a latency)

    def call(self, method: str, path: str, data: Any = None) -> tuple[int, Any]:
        began = time.perf_counter()
        answer = request(f"{self.url}/api/v1/{path}", method=method, data=data, headers=self.headers, timeout=30)
        self.waits.append(time.perf_counter() - began)
        return answer.status, answer.json()

    def start(self, day: str, line: list[str]) -> None:
        status, body = self.call("POST", f"daily/{day}/{GAME}/attempts", {})
        assert status == 201, (status, body)
        self.attempts.append((body["id"], line, 0))

    def move(self, index: int) -> int | None:
        """Play the next move of attempt ``index``; its id, or None when its line is spent."""
        aid, line, played = self.attempts[index]
        if played >= len(line):
            return None
        status, body = self.call("POST", f"attempts/{aid}/moves", {"from": played, "moves": [line[played]]})
        assert status == 200, (status, body)
        self.attempts[index] = (aid, line, played + 1)
        return aid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flooders", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--game", default="forty-thieves", help="forty-thieves: positions that take the whole budget")
    parser.add_argument("--accounts", action="store_true", help="flood as players with accounts, not guests")
    parser.add_argument("--no-shares", action="store_true", help="per-player and per-address shares at 1,000")
    parser.add_argument("--throttled", action="store_true", help="request throttling on, as in production")
    parser.add_argument("--redis-db", type=int, default=11)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    global GAME
    GAME = args.game
    rng = random.Random(args.seed)
    extra = {"API_THROTTLE": "true" if args.throttled else "false", "DJANGO_NUM_PROXIES": "1"}
    if args.no_shares:
        for share in ("PLAYER", "GUEST", "ADDRESS"):
            extra[f"WINNABLE_TASKS_PER_{share}"] = "1000"
        extra["WINNABLE_GUEST_TASKS_PER_ADDRESS"] = "1000"
    workdir = Path(tempfile.mkdtemp(prefix="dp-flood-"))
    stack = Stack(redis_url=f"redis://127.0.0.1:6379/{args.redis_db}", workdir=workdir, extra_env=extra)
    try:
        stack.create_database()
        stack.start()
        today = request(f"{stack.url}/api/v1/daily").json()["date"]
        import datetime as dt

        days = [(dt.date.fromisoformat(today) - dt.timedelta(days=1 + i)).isoformat() for i in range(args.days)]
        for day in days:
            stack.send_task("solver_worker.prepare_challenge", day=day, game=GAME)
        seeds: dict[str, int] = {}
        deadline = time.monotonic() + 300
        while len(seeds) < len(days) and time.monotonic() < deadline:
            rows = stack.sql("SELECT date, seed FROM games_challenge WHERE game = %s AND status = 'ready'", GAME)
            seeds = {str(d): s % (1 << 64) for d, s in rows if str(d) in days}
            time.sleep(0.5)
        assert len(seeds) == len(days), stack.tail("worker-prepare")
        log(f"stack up, {len(days)} past days prepared; logs in {workdir}")

        kind = "acct" if args.accounts else "guest"
        flood_users = make_users(stack, [f"{kind}{i:03d}" for i in range(args.flooders)], guests=not args.accounts)
        (_, honest_token), *_ = make_users(stack, ["honest"], guests=False)
        flooders = [Player(stack, token, FLOOD_ADDRESS) for _, token in flood_users]
        for player in flooders:
            for day in days:
                player.start(day, playout(GAME, seeds[day], 400, rng))
        honest = Player(stack, honest_token, HONEST_ADDRESS)
        honest.start(days[0], playout(GAME, seeds[days[0]], 400, rng))
        honest.waits.clear()

        import redis

        broker = redis.Redis.from_url(stack.redis_url)
        stop = threading.Event()
        lock = threading.Lock()
        asks: dict[int, int] = {}
        depths: list[int] = []
        latencies: list[float] = []
        unanswered: list[int] = []

        def flood(player: Player) -> None:
            turn = 0
            while not stop.is_set():
                index = turn % len(player.attempts)
                turn += 1
                aid = player.move(index)
                if aid is None:
                    continue
                status, _ = player.call("GET", f"attempts/{aid}/winnable")
                with lock:
                    asks[status] = asks.get(status, 0) + 1

        def sample() -> None:
            while not stop.is_set():
                depths.append(int(broker.llen(stack.winnable_queue)))
                time.sleep(0.1)

        def play_honestly() -> None:
            while not stop.is_set():
                aid = honest.move(0)
                if aid is None:
                    return
                asked = time.perf_counter()
                while True:
                    status, body = honest.call("GET", f"attempts/{aid}/winnable")
                    if status == 200 and body["state"] != "pending":
                        latencies.append(time.perf_counter() - asked)
                        break
                    if time.perf_counter() - asked > 30:
                        unanswered.append(aid)
                        break
                    time.sleep(body.get("retry_after_ms", 250) / 1000 if isinstance(body, dict) else 0.25)
                time.sleep(max(0.0, 1.0 - (time.perf_counter() - asked)))

        threads = [threading.Thread(target=flood, args=(p,), daemon=True) for p in flooders]
        threads += [threading.Thread(target=sample, daemon=True), threading.Thread(target=play_honestly, daemon=True)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        time.sleep(args.seconds)
        stop.set()
        for thread in threads:
            thread.join(timeout=40)
        elapsed = time.perf_counter() - started
        time.sleep(2)
        lines = stack.log("worker-winnable").read_text(errors="replace").splitlines()
        ran = sum(1 for line in lines if "winnable_position" in line and "succeeded" in line)
        flood_asks = sum(asks.values())
        print(
            f"{args.flooders} {'players' if args.accounts else 'guests'} from one address, {len(days)} practice "
            f"attempts each, {elapsed:.0f} s{' (shares off)' if args.no_shares else ''}:\n"
            f"  flood: {flood_asks} asks ({flood_asks / elapsed:.0f}/s), answers {dict(sorted(asks.items()))}\n"
            f"  winnable worker: {ran} tasks run; deepest winnable queue "
            f"{max(depths, default=0)}, median {statistics.median(depths) if depths else 0}\n"
            f"  honest player's light, move stored to answer: {len(latencies)} answered, median "
            f"{statistics.median(latencies):.2f} s, p95 {pct(latencies, 0.95):.2f} s, longest {max(latencies):.2f} s; "
            f"{len(unanswered)} unanswered after 30 s\n"
            f"  the honest player's requests (the web's share): median {statistics.median(honest.waits):.3f} s, "
            f"p95 {pct(honest.waits, 0.95):.3f} s, longest {max(honest.waits):.3f} s"
        )
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
