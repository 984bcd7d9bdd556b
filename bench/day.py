"""A day at scale: N players play today's deal against the production processes on this machine.

    .venv/bin/python bench/day.py [--players 2000] [--connections 100] [--seconds 240] [--web-workers 2]
                                  [--validation-concurrency 2] [--win-share 0.3] [--batch 30] [--pace 2]
                                  [--redis-db 11]

Bounded in time and count, and it only talks to 127.0.0.1:

1. Starts the stack of bench/stack.py (nginx in front of gunicorn ``config.wsgi``, a Celery worker on the validation
   queue, one on the solver queue, beat; DEBUG off, no throttling) on a PostgreSQL database of its
   own (dropped at the end unless ``--keep``) and Redis database ``--redis-db`` with names unique to
   the run (deleted at the end). The solver worker prepares today's klondike.
2. Creates ``--players`` accounts with API tokens in bulk (a password hash costs ~0.3 s of CPU: the
   register endpoint is measured on ``--registrations`` of them only), and a line for each from the
   engine: the solver's winning line for ``--win-share`` of them, else a random legal playout of
   50 to 300 moves (bench/corpus.playout).
3. ``--connections`` client threads (keep-alive HTTP/1.1) take players one after the other: each
   reads ``/daily``, starts its ranked attempt, sends the line in batches of ``--batch`` moves at a
   person's pace (after each batch, a wait of its decisions, draws aside, over ``--pace`` a second: what
   games.pace lets a person do, so that results are ranked, not held for a fair-play check), reads
   the public board, submits, then polls its submission (every 0.2 s) until it is validated with
   its rank, then reads the board around itself. The run stops taking players after ``--seconds``.
4. Prints requests/s and p50/p99 per endpoint, validations/s (per validation worker process), the
   validation latency (submit to validated, from the database), board freshness (submit answered
   to the rank seen by the player), the largest queue depth seen on /metrics, and the CPU seconds
   each kind of process used.

Figures depend on the machine and whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import playout  # noqa: E402
from bench.stack import Stack, fresh_source_address, request  # noqa: E402

GAME = "klondike"


def log(message: str) -> None:
    print(message, flush=True)


# --- CPU of process trees ----------------------------------------------------------------------


def tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        with contextlib.suppress(OSError):
            todo.extend(int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split())
    return pids


def cpu_seconds(pid: int) -> float:
    total = 0
    for p in tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    t = os.times()
    return t.user + t.system


# --- HTTP client -------------------------------------------------------------------------------


class Client:
    """One keep-alive connection through the proxy; every call is timed under its endpoint's name.
    Each player comes from a loopback address of its own (:meth:`new_player`), as players do, so that
    the proxy's per-address limits see many clients, not one."""

    def __init__(self, port: int, stats: Stats) -> None:
        self.port, self.stats = port, stats
        self.source = fresh_source_address()
        self.conn = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60, source_address=(self.source, 0))

    def new_player(self) -> None:
        self.conn.close()
        self.source = fresh_source_address()
        self.conn = self._connect()

    def call(self, name: str, method: str, path: str, *, token: str | None = None, data: Any = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Token {token}"} if token else {}
        body = None
        if data is not None:
            body = json.dumps(data)
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = self._connect()
                if attempt:
                    self.stats.record(name, time.perf_counter() - started, ok=False)
                    return 0, None
        elapsed = time.perf_counter() - started
        ok = response.status < 400
        self.stats.record(name, elapsed, ok=ok)
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, None


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.freshness: list[float] = []
        self.players_done = 0
        self.valid_unranked = 0  # polls that saw the submission validated but no rank yet
        self.held = 0  # results held for a fair-play check: the lines arrive faster than a person plays (games.pace)
        self.wrong: list[str] = []

    def record(self, name: str, seconds: float, *, ok: bool) -> None:
        with self.lock:
            self.times[name].append(seconds)
            if not ok:
                self.errors[name] += 1


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Player:
    name: str
    token: str
    line: list[str]
    wins: bool
    user_id: int


def play_one(client: Client, player: Player, day: str, batch: int, pace: float, stats: Stats) -> None:
    client.new_player()
    client.call("GET /daily", "GET", "/api/v1/daily", token=player.token)
    status, attempt = client.call(
        "POST attempts (start)", "POST", f"/api/v1/daily/{day}/{GAME}/attempts", token=player.token, data={}
    )
    if status != 201:
        stats.wrong.append(f"{player.name}: start {status} {attempt}")
        return
    aid = attempt["id"]
    for start in range(0, len(player.line), batch):
        status, body = client.call(
            "POST moves",
            "POST",
            f"/api/v1/attempts/{aid}/moves",
            token=player.token,
            data={"from": start, "moves": player.line[start : start + batch]},
        )
        if status != 200:
            stats.wrong.append(f"{player.name}: moves {status} {body}")
            return
        if pace > 0:  # as a person: this batch's decisions (draws and redeals aside) at ``pace`` a second
            time.sleep(sum(1 for move in player.line[start : start + batch] if move not in ("s", "r")) / pace)
    client.call("GET board (top 50)", "GET", f"/api/v1/leaderboards/{day}/{GAME}?limit=50")
    status, sub = client.call("POST submit", "POST", f"/api/v1/attempts/{aid}/submit", token=player.token, data={})
    submitted = time.perf_counter()
    if status != 202:
        stats.wrong.append(f"{player.name}: submit {status} {sub}")
        return
    deadline = submitted + 120
    body = None
    while time.perf_counter() < deadline:
        status, body = client.call("GET submission", "GET", f"/api/v1/submissions/{sub['id']}", token=player.token)
        if status == 200 and body["status"] != "pending":
            result = body.get("result") or {}
            if body["status"] != "valid" or result.get("won") is not player.wins:
                stats.wrong.append(f"{player.name}: {body}")
                break
            if result.get("rank"):  # on the board: what the player's table shows
                with stats.lock:
                    stats.freshness.append(time.perf_counter() - submitted)
                break
            if result.get("fair_play"):  # held for a fair-play check: faster than a person (games.pace), off the boards
                with stats.lock:
                    stats.held += 1
                break
            with stats.lock:  # validated, not ranked yet: the board's write follows the commit
                stats.valid_unranked += 1
        time.sleep(0.2)
    else:
        stats.wrong.append(f"{player.name}: not ranked within 120 s (submission {sub['id']}, last seen {body})")
    client.call("GET board (around me)", "GET", f"/api/v1/leaderboards/{day}/{GAME}?around=me", token=player.token)
    with stats.lock:
        stats.players_done += 1


# --- Setup -------------------------------------------------------------------------------------


def make_players(
    stack: Stack,
    count: int,
    seed: int,
    solution: list[str],
    win_share: float,
    rng: random.Random,
    *,
    prefix: str = "day",
) -> list[Player]:
    os.environ.update(stack.env)
    import django
    from django.apps import apps

    if not apps.ready:
        django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    user_model = get_user_model()
    unusable = make_password(None)
    users = user_model.objects.bulk_create(
        (user_model(username=f"{prefix}{i:06d}", password=unusable) for i in range(count)), batch_size=2000
    )
    from games.auth import tokens_create

    tokens = tokens_create(user_ids=[u.pk for u in users])
    players = []
    for user, token in zip(users, tokens, strict=True):
        wins = rng.random() < win_share
        line = list(solution) if wins else playout(GAME, seed, rng.randint(50, 300), rng)
        players.append(Player(user.username, token, line, wins, user.pk))
    from django.db import connections

    connections.close_all()
    return players


def scrape(stack: Stack) -> str:
    answer = request(f"{stack.url}/metrics", headers={"Authorization": f"Bearer {stack.metrics_token}"}, timeout=10)
    return answer.body.decode() if answer.status == 200 else ""


def metric(text: str, prefix: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(prefix + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--connections", type=int, default=100, help="client threads, each a player at a time")
    parser.add_argument("--seconds", type=float, default=240.0, help="stop taking new players after this")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--validation-concurrency", type=int, default=2)
    parser.add_argument("--win-share", type=float, default=0.3)
    parser.add_argument("--batch", type=int, default=30, help="moves per POST (games.pace: 30 at most at once)")
    parser.add_argument(
        "--pace",
        type=float,
        default=2.0,
        help="a player's decisions per second (games.pace holds a win above 2 a second); 0: machine speed",
    )
    parser.add_argument("--registrations", type=int, default=20, help="players who register through HTTP")
    parser.add_argument("--redis-db", type=int, default=11)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--burst",
        type=int,
        default=500,
        help="then this many more players submit at once: the validation workers' capacity",
    )
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    workdir = Path(tempfile.mkdtemp(prefix="dp-day-"))
    stack = Stack(
        redis_url=f"redis://127.0.0.1:6379/{args.redis_db}",
        workdir=workdir,
        web_workers=args.web_workers,
        validation_concurrency=args.validation_concurrency,
        solver_seconds=5,
        solver_max_seeds=10,
        extra_env={"API_THROTTLE": "false", "DJANGO_LOG_LEVEL": "WARNING"},
    )
    try:
        started = time.perf_counter()
        stack.create_database()
        stack.start()
        log(
            f"stack up in {time.perf_counter() - started:.1f} s: gunicorn -w {args.web_workers}, validation worker "
            f"concurrency {args.validation_concurrency}, solver worker, beat; logs in {workdir}"
        )
        day = request(f"{stack.url}/api/v1/daily").json()["date"]
        solve_started = time.perf_counter()
        stack.send_task("solver_worker.prepare_challenge", day=day, game=GAME)
        while True:
            rows = stack.sql(
                "SELECT seed, solution, solver_seconds FROM games_challenge WHERE date = %s AND game = %s"
                " AND status = 'ready'",
                day,
                GAME,
            )
            if rows:
                break
            if time.perf_counter() - solve_started > 300:
                tail = stack.tail("worker-prepare")
                raise SystemExit("the solver did not prepare today's klondike in 300 s\n" + tail)
            time.sleep(0.5)
        seed, solution, solver_seconds = rows[0][0] % (1 << 64), rows[0][1], rows[0][2]
        log(
            f"{day} {GAME} prepared by the solver worker: {solver_seconds:.2f} s of solver time, "
            f"{len(solution)}-move winning line"
        )

        made = time.perf_counter()
        players = make_players(stack, args.players, seed, solution, args.win_share, rng)
        log(
            f"{len(players)} players with tokens and lines ({sum(len(p.line) for p in players)} moves) "
            f"in {time.perf_counter() - made:.1f} s"
        )

        stats = Stats()
        reg = Client(stack.port, stats)
        for i in range(args.registrations):
            reg.call(
                "POST register",
                "POST",
                "/api/v1/auth/register",
                data={"username": f"reg{i:04d}", "password": "a long passphrase 42"},
            )

        cpu0 = {name: cpu_seconds(p.pid) for name, p in stack.procs.items()}
        load0 = own_cpu()
        todo = iter(players)
        todo_lock = threading.Lock()
        stop_at = time.perf_counter() + args.seconds
        depth_seen = {"validation": 0.0, "pending": 0.0}

        def worker() -> None:
            client = Client(stack.port, stats)
            while time.perf_counter() < stop_at:
                with todo_lock:
                    player = next(todo, None)
                if player is None:
                    return
                play_one(client, player, day, args.batch, args.pace, stats)

        def sampler(done: threading.Event) -> None:
            while not done.wait(3.0):
                text = scrape(stack)
                q = metric(text, f'dailypatience_celery_queue_length{{queue="{stack.validation_queue}"}}')
                p = metric(text, "dailypatience_submissions_pending")
                depth_seen["validation"] = max(depth_seen["validation"], q or 0)
                depth_seen["pending"] = max(depth_seen["pending"], p or 0)

        t0 = time.perf_counter()
        threads = [threading.Thread(target=worker) for _ in range(args.connections)]
        done = threading.Event()
        sampling = threading.Thread(target=sampler, args=(done,))
        sampling.start()
        for t in threads:
            t.start()
        last = t0
        while any(t.is_alive() for t in threads):
            time.sleep(1)
            if time.perf_counter() - last >= 15:
                last = time.perf_counter()
                log(
                    f"  {last - t0:5.0f} s: {stats.players_done} players done, "
                    f"{sum(map(len, stats.times.values()))} requests"
                )
        elapsed = time.perf_counter() - t0
        done.set()
        sampling.join()
        cpu = {name: cpu_seconds(p.pid) - cpu0[name] for name, p in stack.procs.items()}
        load_cpu = own_cpu() - load0
        final = scrape(stack)

        # --- Report ------------------------------------------------------------------------------
        total = sum(len(v) for k, v in stats.times.items() if k != "POST register")
        log("")
        log(
            f"players: {stats.players_done} of {len(players)} played in {elapsed:.1f} s "
            f"({stats.players_done / elapsed:.1f} players/s), {args.connections} connections, "
            f"{sum(p.wins for p in players[: stats.players_done])} winning lines"
        )
        log(f"HTTP: {total} requests in {elapsed:.1f} s = {total / elapsed:.0f} requests/s")
        log(f"{'endpoint':<24}{'count':>8}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}")
        for name in sorted(stats.times):
            values = stats.times[name]
            log(
                f"{name:<24}{len(values):>8}{pct(values, 0.5) * 1000:>9.1f}{pct(values, 0.99) * 1000:>9.1f}"
                f"{stats.errors.get(name, 0):>8}"
            )
        rows = stack.sql(
            "SELECT EXTRACT(EPOCH FROM validated_at - created_at), EXTRACT(EPOCH FROM created_at),"
            " EXTRACT(EPOCH FROM validated_at) FROM games_submission WHERE validated_at IS NOT NULL"
        )
        latencies = [float(r[0]) for r in rows]
        if rows:
            span = max(float(r[2]) for r in rows) - min(float(r[1]) for r in rows)
            rate = len(rows) / span if span > 0 else float("nan")
            log(
                f"validations: {len(rows)} in {span:.1f} s (first submit to last validated) = {rate:.1f}/s, "
                f"{rate / args.validation_concurrency:.1f}/s per validation worker process "
                f"({args.validation_concurrency} processes); "
                f"latency submit to validated p50 {statistics.median(latencies) * 1000:.0f} ms, "
                f"p99 {pct(latencies, 0.99) * 1000:.0f} ms"
            )
        if stats.freshness:
            log(
                f"board freshness (submit answered to rank seen, polling every 0.2 s): "
                f"p50 {pct(stats.freshness, 0.5) * 1000:.0f} ms, p99 {pct(stats.freshness, 0.99) * 1000:.0f} ms, "
                f"max {max(stats.freshness) * 1000:.0f} ms; {stats.valid_unranked} polls saw a validated "
                "submission not ranked yet"
            )
        log(
            f"held for a fair-play check (played faster than a person: games.pace; --pace 0 plays at machine speed): "
            f"{stats.held} of {stats.players_done} players; off the boards, the rest of their path the same"
        )
        log(
            f"largest depth seen (every 3 s on /metrics): validation queue {depth_seen['validation']:.0f}, "
            f"pending submissions {depth_seen['pending']:.0f}; at the end pending "
            f"{metric(final, 'dailypatience_submissions_pending')}"
        )
        per_player = max(stats.players_done, 1)
        log(
            "CPU seconds during the run (per player, ms): "
            + ", ".join(f"{name} {sec:.1f} ({sec / per_player * 1000:.1f})" for name, sec in cpu.items())
            + f", load generator {load_cpu:.1f} ({load_cpu / per_player * 1000:.1f})"
        )
        log(
            f"PostgreSQL backends of the run (the web and worker connections, since they opened): "
            f"{postgres_cpu(stack):.1f} CPU seconds"
        )
        if args.burst:
            burst(stack, day, seed, solution, args, rng)
        sizes = stack.sql(
            "SELECT s.relname, pg_total_relation_size(c.oid), n_live_tup FROM pg_class c"
            " JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE s.relname IN"
            " ('games_attempt', 'games_submission', 'games_result', 'auth_user') ORDER BY s.relname"
        )
        log(
            "PostgreSQL tables (total size with indexes / rows): "
            + ", ".join(f"{name} {size / 1024 / 1024:.1f} MiB / {rows}" for name, size, rows in sizes)
        )
        board = request(f"{stack.url}/api/v1/leaderboards/{day}/{GAME}?limit=1").json()
        log(f"board: {board.get('total')} ranked entries")
        memory = redis_board_memory(stack, day)
        if memory:
            log(f"Redis memory of the board ({board.get('total')} entries): {memory}")
        if stats.wrong:
            log(f"{len(stats.wrong)} players went wrong; first: {stats.wrong[:3]}")
        return 1 if stats.wrong else 0
    finally:
        stack.stop(drop=not args.keep)


def postgres_cpu(stack: Stack) -> float:
    pids = [
        int(r[0])
        for r in stack.sql(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    ]
    return sum(cpu_seconds_one(pid) for pid in pids)


def cpu_seconds_one(pid: int) -> float:
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def burst(stack: Stack, day: str, seed: int, solution: list[str], args: argparse.Namespace, rng: random.Random) -> None:
    """``--burst`` players whose attempts already hold their lines all submit at once (HTTP, 16 threads):
    the validation workers' rate when they are the bottleneck, and how the queue drains."""
    from games.models import Attempt, Challenge

    challenge = Challenge.objects.get(date=day, game=GAME)
    players = make_players(stack, args.burst, seed, solution, args.win_share, rng, prefix="burst")
    Attempt.objects.bulk_create(
        (Attempt(player_id=p.user_id, challenge=challenge, ranked=True, moves=p.line) for p in players),
        batch_size=1000,
    )
    ids = dict(Attempt.objects.filter(player_id__in=[p.user_id for p in players]).values_list("player_id", "id"))
    from django.db import connections

    connections.close_all()
    stats = Stats()
    todo = iter(players)
    lock = threading.Lock()
    cpu0 = cpu_seconds(stack.procs["worker-validation"].pid)

    def submitter() -> None:
        client = Client(stack.port, stats)
        while True:
            with lock:
                player = next(todo, None)
            if player is None:
                return
            client.new_player()
            client.call(
                "POST submit (burst)",
                "POST",
                f"/api/v1/attempts/{ids[player.user_id]}/submit",
                token=player.token,
                data={},
            )

    started = time.perf_counter()
    threads = [threading.Thread(target=submitter) for _ in range(args.connections)]
    for t in threads:
        t.start()
    deepest = 0.0
    while any(t.is_alive() for t in threads):
        time.sleep(0.5)
        depth = metric(scrape(stack), f'dailypatience_celery_queue_length{{queue="{stack.validation_queue}"}}')
        deepest = max(deepest, depth or 0)
    submitted = time.perf_counter() - started
    while True:
        left = stack.sql("SELECT count(*) FROM games_submission WHERE status = 'pending'")[0][0]
        if not left or time.perf_counter() - started > 300:
            break
        depth = metric(scrape(stack), f'dailypatience_celery_queue_length{{queue="{stack.validation_queue}"}}')
        deepest = max(deepest, depth or 0)
        time.sleep(0.5)
    cpu = cpu_seconds(stack.procs["worker-validation"].pid) - cpu0
    rows = stack.sql(
        "SELECT EXTRACT(EPOCH FROM validated_at - created_at), EXTRACT(EPOCH FROM created_at),"
        " EXTRACT(EPOCH FROM validated_at) FROM games_submission s JOIN games_attempt a"
        " ON a.id = s.attempt_id JOIN auth_user u ON u.id = a.player_id"
        " WHERE u.username LIKE 'burst%%' AND validated_at IS NOT NULL"
    )
    span = max(float(r[2]) for r in rows) - min(float(r[1]) for r in rows)
    latencies = [float(r[0]) for r in rows]
    values = stats.times["POST submit (burst)"]
    errors = stats.errors.get("POST submit (burst)", 0)
    log(
        f"burst: {len(values)} submits in {submitted:.1f} s ({len(values) / submitted:.0f}/s, p50 "
        f"{pct(values, 0.5) * 1000:.0f} ms, p99 {pct(values, 0.99) * 1000:.0f} ms, {errors} errors); "
        f"{len(rows)} validated in {span:.1f} s = {len(rows) / span:.1f}/s, "
        f"{len(rows) / span / args.validation_concurrency:.1f}/s per validation worker process; "
        f"{cpu / max(len(rows), 1) * 1000:.1f} ms of worker CPU each; deepest validation queue {deepest:.0f}; "
        f"latency p50 {pct(latencies, 0.5):.1f} s, max {max(latencies):.1f} s"
    )


def redis_board_memory(stack: Stack, day: str) -> str:
    import redis

    client = redis.Redis.from_url(stack.redis_url, socket_timeout=5)
    try:
        keys = [k for k in client.scan_iter(match=f"*{stack.run}*{{{day}:{GAME}:*", count=1000)]
        sizes = {k.decode().rsplit(":", 1)[1]: client.memory_usage(k) or 0 for k in keys}
        return ", ".join(f"{part} {size / 1024:.0f} KiB" for part, size in sorted(sizes.items())) + (
            f"; total {sum(sizes.values()) / 1024:.0f} KiB"
        )
    finally:
        client.close()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
