"""``python -m engine``: deals, replays and legal moves from the command line.

For tools, third-party checkers and debugging. Output is JSON on stdout; exit
status 0 on success, 1 when a replay stops at an illegal move, 2 for bad input
(unknown game, bad seed, a log that is not a JSON array of strings).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import IO, NoReturn

from engine import (
    GAME_IDS,
    EngineError,
    InvalidLogError,
    State,
    check_log,
    deal,
    find_rules,
    play_log,
    replay,
)
from engine.rng import SEED_MAX

EXIT_OK = 0
EXIT_ILLEGAL = 1
EXIT_BAD_INPUT = 2


class BadInput(Exception):
    """Input the command cannot work with; its message goes to stderr with exit status 2."""


def parse_seed(text: str) -> int:
    text = text.strip()
    if not text.isdigit() or not text.isascii():
        raise BadInput(f"seed {text!r} is not a whole number in 0..{SEED_MAX}")
    seed = int(text)
    if seed > SEED_MAX:
        raise BadInput(f"seed {seed} is outside 0..{SEED_MAX} (an unsigned 64-bit integer)")
    return seed


def parse_game(text: str) -> str:
    try:
        return find_rules(text).game
    except EngineError as exc:
        raise BadInput(str(exc)) from None


def read_log(source: str | None) -> list[str]:
    """A JSON array of move strings from a file, or stdin for ``-`` or no file."""
    try:
        if source is None or source == "-":
            text = sys.stdin.read()
            where = "standard input"
        else:
            with open(source, encoding="utf-8") as fh:
                text = fh.read()
            where = source
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read the move log: {exc}") from None
    try:
        log = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"the move log in {where} is not valid JSON: {exc}") from None
    try:
        return check_log(log)
    except InvalidLogError as exc:
        raise BadInput(str(exc)) from None


def emit(obj: object, out: IO[str]) -> None:
    out.write(json.dumps(obj, separators=(", ", ": ")))
    out.write("\n")


def cmd_deal(args: argparse.Namespace, out: IO[str]) -> int:
    emit(deal(parse_game(args.game), parse_seed(args.seed)).to_json(), out)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace, out: IO[str]) -> int:
    game, seed = parse_game(args.game), parse_seed(args.seed)
    result = replay(game, seed, read_log(args.file))
    emit(result.to_json(), out)
    return EXIT_OK if result.ok else EXIT_ILLEGAL


def cmd_moves(args: argparse.Namespace, out: IO[str]) -> int:
    game, seed = parse_game(args.game), parse_seed(args.seed)
    log = read_log(args.file) if args.file is not None else []
    state = State(deal(game, seed))
    error = play_log(state, log)
    if error is not None:
        emit({"error": error.to_json()}, out)
        return EXIT_ILLEGAL
    moves = [str(m) for m in state.legal_moves()]
    if state.can_undo():
        moves.append("u")
    emit(moves, out)
    return EXIT_OK


def batch_results(lines: Iterable[str]) -> Iterator[dict[str, object]]:
    """One result per input line, in order; a bad line gives an error object and the batch goes on."""
    for number, line in enumerate(lines, 1):
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            yield {"error": {"line": number, "reason": f"not a JSON object: {exc}"}}
            continue
        if not isinstance(item, dict):
            yield {"error": {"line": number, "reason": 'each line is an object {"game", "seed", "moves"}'}}
            continue
        missing = [k for k in ("game", "seed", "moves") if k not in item]
        if missing:
            yield {"error": {"line": number, "reason": f"missing {', '.join(missing)}"}}
            continue
        seed = item["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
            yield {"error": {"line": number, "reason": f"seed {seed!r} is not an integer in 0..{SEED_MAX}"}}
            continue
        try:
            yield replay(item["game"], seed, item["moves"]).to_json()
        except EngineError as exc:  # unknown game, a log that is not an array of strings
            yield {"error": {"line": number, "reason": str(exc)}}


def cmd_replay_batch(args: argparse.Namespace, out: IO[str]) -> int:
    if args.file == "-":
        return _replay_batch(sys.stdin, out)
    try:
        source = open(args.file, encoding="utf-8")  # noqa: SIM115 - closed below; open errors are bad input
    except OSError as exc:
        raise BadInput(f"cannot read {args.file}: {exc}") from None
    with source:
        return _replay_batch(source, out)


def _replay_batch(source: IO[str], out: IO[str]) -> int:
    for result in batch_results(line.rstrip("\n") for line in source):
        emit(result, out)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description="Daily Patience rules engine: deals, replays and legal moves (SPEC sections 1-6).",
        epilog=f"games: {', '.join(GAME_IDS)}; seeds: 0..{SEED_MAX}",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("deal", help="print the deal of GAME and SEED as JSON, every card shown")
    p.add_argument("game", metavar="GAME")
    p.add_argument("seed", metavar="SEED")
    p.set_defaults(func=cmd_deal)

    p = sub.add_parser("replay", help="replay a JSON move log; print the result or the first illegal entry")
    p.add_argument("game", metavar="GAME")
    p.add_argument("seed", metavar="SEED")
    p.add_argument("file", metavar="FILE", nargs="?", help="JSON array of moves; '-' or nothing reads stdin")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("replay-batch", help='replay JSON lines {"game", "seed", "moves"}; one result line each')
    p.add_argument("file", metavar="FILE", help="JSON lines; '-' reads stdin")
    p.set_defaults(func=cmd_replay_batch)

    p = sub.add_parser("moves", help="print the legal moves after a log (none: the opening position)")
    p.add_argument("game", metavar="GAME")
    p.add_argument("seed", metavar="SEED")
    p.add_argument("file", metavar="FILE", nargs="?", help="JSON array of moves played first; '-' reads stdin")
    p.set_defaults(func=cmd_moves)
    return parser


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"python -m engine: error: {message}\n")
    raise SystemExit(EXIT_BAD_INPUT)


def main(argv: list[str] | None = None, out: IO[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args, out or sys.stdout))
    except BadInput as exc:
        fail(str(exc))
    except BrokenPipeError:
        return EXIT_OK
