"""Properties of the engine over random deals and random legal playouts (hypothesis).

Every test runs for every game and draws seeds from the whole range 0..2^64-1. A playout picks
among ``legal_moves()`` and undo with a seeded ``random.Random`` (the seed is drawn by hypothesis,
so a failure is reproducible and reported with it).
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import (
    DRAW,
    F2T,
    GAME_IDS,
    REDEAL,
    T2F,
    T2T,
    UNDO,
    W2F,
    W2T,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    State,
    card_text,
    deal,
    play_log,
    replay,
    visible,
)
from engine.cards import canonical_deck
from engine.tests.make_perft import SPEC_GAMES, reference_moves

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
RNG_SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
LENGTHS = st.integers(min_value=0, max_value=180)

PLAYOUT = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
QUICK = settings(max_examples=120, deadline=None)


# -- helpers -------------------------------------------------------------------------------------


def clone(state: State) -> State:
    c = copy.copy(state)
    c.tab = [list(col) for col in state.tab]
    c.down = list(state.down)
    c.stock = list(state.stock)
    c.waste = list(state.waste)
    c.found = list(state.found)
    c.history = list(state.history)
    return c


def snapshot(state: State) -> tuple[object, ...]:
    return (state.key(), state.score, state.moves, state.won, state.on_foundations, len(state.history))


def choose(state: State, rng: random.Random) -> Move | None:
    """A random next entry: undo now and then, redeals often, real play preferred over drawing."""
    moves = list(state.legal_moves())
    if state.can_undo() and (not moves or rng.random() < 0.1):
        return Move(UNDO)
    if not moves:
        return None
    redeals = [m for m in moves if m.kind == REDEAL]
    if redeals and rng.random() < 0.5:
        return redeals[0]
    home = [m for m in moves if m.kind in (W2F, T2F)]
    if home and rng.random() < 0.5:
        return rng.choice(home)
    others = [m for m in moves if m.kind != DRAW]
    return rng.choice(others if others and rng.random() < 0.6 else moves)


def playout(game: str, seed: int, rng_seed: int, length: int) -> Iterator[tuple[State, Move | None]]:
    """Yield (state, move) before each move of a random playout; the move is played after the yield."""
    state = State(deal(game, seed))
    rng = random.Random(rng_seed)
    for _ in range(length):
        move = choose(state, rng)
        if move is None:
            return
        yield state, move
        state.play(move)
    yield state, None  # the final position


def play_random(game: str, seed: int, rng_seed: int, length: int) -> tuple[State, list[str]]:
    log: list[str] = []
    final = None
    for final, move in playout(game, seed, rng_seed, length):  # noqa: B007 - the last one is kept
        if move is not None:
            log.append(str(move))
    assert final is not None  # a playout yields its final position at least
    return final, log


def foundation_cards(top: int) -> list[int]:
    return [] if top < 0 else [rank * 4 + (top & 3) for rank in range(top // 4 + 1)]


def every_card(state: State) -> list[int]:
    out = [c for col in state.tab for c in col] + list(state.stock) + list(state.waste)
    for top in state.found:
        out += foundation_cards(top)
    return out


def random_move(rng: random.Random, state: State) -> Move:
    """A syntactically valid move, piles up to one past the last (legal or not)."""
    cols, founds = len(state.tab) + 1, len(state.found) + 1
    kind = rng.choice([DRAW, REDEAL, W2T, W2F, T2F, T2T, T2T, T2T, F2T])
    if kind in (DRAW, REDEAL):
        return Move(kind)
    if kind == W2T:
        return Move(W2T, -1, rng.randrange(cols))
    if kind == W2F:
        return Move(W2F, -1, rng.randrange(founds))
    if kind == T2F:
        return Move(T2F, rng.randrange(cols), rng.randrange(founds))
    if kind == F2T:
        return Move(F2T, rng.randrange(founds), rng.randrange(cols))
    return Move(T2T, rng.randrange(cols), rng.randrange(cols), rng.choice([1, 1, 2, 3, rng.randrange(1, 15)]))


def spec_score(state: State, move: Move) -> int:
    """The score after ``move`` (not undo) by SPEC section 5, win bonus aside, from the position before."""
    score = state.score
    if move.kind == W2T:
        score += 5
    elif move.kind in (W2F, T2F):
        score += 10
    elif move.kind == F2T:
        score = max(0, score - 15)
    elif move.kind == REDEAL:
        score = max(0, score - SPEC_GAMES[state.rules.game]["redeal_penalty"])
    if move.kind in (T2T, T2F):
        n = move.n if move.kind == T2T else 1
        down, size = state.down[move.src], len(state.tab[move.src])
        if down and size - n == down:
            score += 5  # a face-down card turns up
    return score


# -- replay --------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
@PLAYOUT
@given(seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS)
def test_replay_of_a_playout_reaches_the_same_position(game: str, seed: int, rng_seed: int, length: int) -> None:
    state, log = play_random(game, seed, rng_seed, length)
    result = replay(game, seed, log)
    assert result.error is None
    assert result.state.key() == state.key()
    assert (result.state.score, result.state.moves, result.state.won) == (state.score, state.moves, state.won)
    assert result.to_json() == state.result()
    assert result.state.moves == len(log)
    # The same log in two pieces, and parsed from its text one entry at a time.
    cut = len(log) // 3
    other = State(deal(game, seed))
    assert play_log(other, log[:cut]) is None
    assert play_log(other, log[cut:], start=cut) is None
    assert snapshot(other) == snapshot(state)
    third = State(deal(game, seed))
    for text in log:
        third.play_text(json.loads(json.dumps(text)))
    assert snapshot(third) == snapshot(state)


# -- undo and score ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
@PLAYOUT
@given(seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS)
def test_undo_and_score_follow_the_spec(game: str, seed: int, rng_seed: int, length: int) -> None:
    spec = SPEC_GAMES[game]
    state = State(deal(game, seed))
    rng = random.Random(rng_seed)
    stack: list[tuple[tuple[object, ...], int, int]] = []  # (key, score, redeals) before each move still undoable
    redeals = 0
    for entries in range(1, length + 1):
        move = choose(state, rng)
        if move is None:
            break
        key, score = state.key(), state.score
        if move.kind == UNDO:
            assert state.can_undo() and stack
            state.play(move)
            old_key, old_score, redeals = stack.pop()
            assert state.key() == old_key
            assert state.score == max(0, old_score - 10)
            assert state.moves == entries
            continue
        expected = spec_score(state, move)
        stack.append((key, score, redeals))
        redeals += move.kind == REDEAL
        state.play(move)
        if state.won:
            expected += max(0, 700 - 2 * entries)
        assert state.score == expected, f"{move} from {score}"
        assert state.moves == entries
        assert state.passes_left == (-1 if spec["passes"] is None else spec["passes"] - 1 - redeals)
        assert state.can_undo() == (not state.won)
    assert not state.can_undo() or stack


@pytest.mark.parametrize("game", GAME_IDS)
@PLAYOUT
@given(seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS)
def test_move_then_undo_restores_the_position(game: str, seed: int, rng_seed: int, length: int) -> None:
    for state, move in playout(game, seed, rng_seed, length):
        if move is None or move.kind == UNDO:
            continue
        trial = clone(state)
        trial.play(move)
        if trial.won:
            assert not trial.can_undo()
            continue
        trial.undo()
        assert trial.key() == state.key()
        assert trial.score == max(0, state.score - 10)
        assert trial.moves == state.moves + 2
        assert trial.on_foundations == state.on_foundations
        assert list(trial.legal_moves()) == list(state.legal_moves())


# -- conservation of cards -----------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
@PLAYOUT
@given(seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS)
def test_every_card_is_somewhere_exactly_once(game: str, seed: int, rng_seed: int, length: int) -> None:
    deck = sorted(canonical_deck(SPEC_GAMES[game]["decks"]))
    klondike = SPEC_GAMES[game]["rows"] is None
    for state, _move in playout(game, seed, rng_seed, length):
        assert sorted(every_card(state)) == deck
        assert state.on_foundations == sum(len(foundation_cards(t)) for t in state.found)
        assert state.won == (state.on_foundations == len(deck))
        assert len(state.tab) == SPEC_GAMES[game]["columns"] and len(state.found) == len(deck) // 13
        for column, down in zip(state.tab, state.down, strict=True):
            if klondike:  # the last card of a column is always face up
                assert 0 <= down < len(column) or down == 0 == len(column)
            else:
                assert down == 0


# -- hidden information --------------------------------------------------------------------------


def hidden_shuffled(state: State, rng: random.Random) -> State:
    """The same position as the player sees it, with the stock and face-down cards permuted."""
    other = clone(state)
    hidden = list(other.stock) + [c for col, d in zip(other.tab, other.down, strict=True) for c in col[:d]]
    rng.shuffle(hidden)
    other.stock = hidden[: len(other.stock)]
    rest = hidden[len(other.stock) :]
    for col, d in zip(other.tab, other.down, strict=True):
        col[:d], rest = rest[:d], rest[d:]
    return other


def check_view(state: State) -> dict[str, object]:
    view = visible(state)
    json.dumps(view)  # plain JSON
    assert view["game"] == state.rules.game
    assert view["stock"] == len(state.stock) and isinstance(view["stock"], int)
    assert view["waste"] == [card_text(c) for c in state.waste]
    assert view["foundations"] == [[card_text(c) for c in foundation_cards(t)] for t in state.found]
    assert (view["score"], view["moves"], view["won"]) == (state.score, state.moves, state.won)
    assert isinstance(view["tableau"], list)
    for shown, column, down in zip(view["tableau"], state.tab, state.down, strict=True):
        assert len(shown) == len(column)
        for i, (entry, card) in enumerate(zip(shown, column, strict=True)):
            if i < down:
                assert entry == {"card": "??", "up": False}
            else:
                assert entry == {"card": card_text(card), "up": True}
    return view


@pytest.mark.parametrize("game", GAME_IDS)
@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_visible_deal_shows_only_the_face_up_cards(game: str, seed: int) -> None:
    d = deal(game, seed)
    view = check_view(State(d))
    tableau, foundations = view["tableau"], view["foundations"]
    assert isinstance(tableau, list) and isinstance(foundations, list)
    assert view["stock"] == len(d.stock) and view["waste"] == []
    assert sum(e["card"] == "??" for col in tableau for e in col) == sum(d.face_down)
    face_up = [card_text(c) for col, down in zip(d.tableau, d.face_down, strict=True) for c in col[down:]]
    assert [e["card"] for col in tableau for e in col if e["up"]] == face_up
    text = json.dumps(view)
    # The first stock card is not anywhere in the view unless the same card is also face up.
    first = card_text(d.stock[0])
    shown = face_up + [c for pile in foundations for c in pile]
    assert (f'"{first}"' in text) == (first in shown)


@pytest.mark.parametrize("game", GAME_IDS)
@PLAYOUT
@given(seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS)
def test_visible_never_depends_on_hidden_cards(game: str, seed: int, rng_seed: int, length: int) -> None:
    rng = random.Random(rng_seed ^ 0x5EED)
    for state, move in playout(game, seed, rng_seed, length):
        view = check_view(state)
        if move is None or rng.random() < 0.25:
            assert visible(hidden_shuffled(state, rng)) == view


# -- illegal entries in a log --------------------------------------------------------------------

GARBAGE = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            " ",
            "S",
            "U",
            "R",
            "ss",
            "s ",
            " s",
            "uu",
            "t01t2",
            "t1t02",
            "t1t2:02",
            "t1t2:1",
            "t1t2:0",
            "t1t2:",
            "wt1:2",
            "wf1:2",
            "t1f1:2",
            "f1t2:3",
            "f1f2",
            "tw",
            "wt",
            "ww",
            "w1t1",
            "tt1",
            "t1t",
            "t1w",
            "ft1",
            "T1T2",
            "Wt1",
            "t1 t2",
            "t1t2 ",
            "\tt1t2",
            "t1t2\n",
            "t0t1",
            "t1t0",
            "wt0",
            "wf0",
            "t1t2:-2",
            "t1t2:+2",
            "t1t2:2:3",
            "x",
            "draw",
            "s1",
            "u1",
            "r1",
        ]
    ),
)


def illegal_text(state: State, rng: random.Random) -> str:
    """A well-formed move that the position forbids."""
    legal = set(state.legal_moves())
    for _ in range(200):
        move = Move(UNDO) if rng.random() < 0.05 else random_move(rng, state)
        if move.kind == UNDO:
            if not state.can_undo():
                return "u"
            continue
        if move not in legal:
            return str(move)
    return "t1t1"  # a column never moves onto itself


@pytest.mark.parametrize("game", GAME_IDS)
@PLAYOUT
@given(
    seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS, where=st.floats(0, 1), garbage=GARBAGE, use_garbage=st.booleans()
)
def test_first_illegal_entry_is_reported_and_nothing_after_it_applies(
    game: str, seed: int, rng_seed: int, length: int, where: float, garbage: str, use_garbage: bool
) -> None:
    _final, log = play_random(game, seed, rng_seed, length)
    index = int(where * len(log))
    prefix = replay(game, seed, log[:index])
    assert prefix.error is None
    if use_garbage:
        try:
            Move.parse(garbage)
        except InvalidMoveError:
            pass
        else:
            assume(False)
        bad = garbage
    else:
        bad = illegal_text(prefix.state, random.Random(rng_seed + 1))
    result = replay(game, seed, [*log[:index], bad, *log[index:]])
    assert result.error is not None
    assert (result.error.index, result.error.move) == (index, bad)
    assert isinstance(result.error.reason, str) and result.error.reason.strip()
    assert result.to_json() == {"error": {"index": index, "move": bad, "reason": result.error.reason}}
    assert snapshot(result.state) == snapshot(prefix.state)
    assert result.state.moves == index


# -- the move generator --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
@PLAYOUT
@given(seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS)
def test_legal_moves_are_exactly_the_playable_moves(game: str, seed: int, rng_seed: int, length: int) -> None:
    """``legal_moves()`` equals the SPEC-derived reference, every one plays, and any other
    well-formed move raises ``IllegalMoveError`` without changing anything."""
    rng = random.Random(rng_seed + 2)
    for state, _move in playout(game, seed, rng_seed, length):
        moves = list(state.legal_moves())
        assert len(moves) == len(set(moves))
        assert set(moves) == reference_moves(state), state.moves
        assert all(m.kind != UNDO for m in moves)
        for move in moves:
            assert Move.parse(str(move)) == move
            trial = clone(state)
            trial.play(move)
            assert trial.moves == state.moves + 1
        before = snapshot(state)
        for _ in range(8):
            move = random_move(rng, state)
            if move in moves:
                continue
            with pytest.raises(IllegalMoveError) as info:
                state.play(move)
            assert info.value.reason.strip()
            assert snapshot(state) == before
        if not state.can_undo():
            with pytest.raises(IllegalMoveError):
                state.play(Move(UNDO))
            assert snapshot(state) == before


def all_well_formed_moves(state: State) -> Iterator[Move]:
    """Every move the notation can name on this layout (and one pile past it), undo aside."""
    cols, founds = len(state.tab) + 1, len(state.found) + 1
    longest = max(len(c) for c in state.tab) + 1
    yield Move(DRAW)
    yield Move(REDEAL)
    for d in range(cols):
        yield Move(W2T, -1, d)
        for f in range(founds):
            yield Move(F2T, f, d)
        for s in range(cols):
            for n in range(1, longest + 1):
                yield Move(T2T, s, d, n)
    for f in range(founds):
        yield Move(W2F, -1, f)
        for s in range(cols):
            yield Move(T2F, s, f)


@pytest.mark.parametrize("game", GAME_IDS)
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, rng_seed=RNG_SEEDS, length=LENGTHS)
def test_play_accepts_exactly_the_legal_moves(game: str, seed: int, rng_seed: int, length: int) -> None:
    """Exhaustively at the end of a playout: ``play`` succeeds for a move iff it is listed."""
    state, _log = play_random(game, seed, rng_seed, length)
    legal = set(state.legal_moves())
    before = snapshot(state)
    accepted = set()
    for move in all_well_formed_moves(state):
        if move in legal:
            accepted.add(move)
            continue
        with pytest.raises(IllegalMoveError):
            state.play(move)
    assert snapshot(state) == before
    for move in legal:
        clone(state).play(move)
    assert accepted == legal


# -- notation ------------------------------------------------------------------------------------

PILE = st.integers(min_value=0, max_value=98)
MOVES = st.one_of(
    st.sampled_from([Move(DRAW), Move(REDEAL), Move(UNDO)]),
    st.builds(lambda d: Move(W2T, -1, d), PILE),
    st.builds(lambda d: Move(W2F, -1, d), PILE),
    st.builds(lambda s, d: Move(T2F, s, d), PILE, PILE),
    st.builds(lambda s, d: Move(F2T, s, d), PILE, PILE),
    st.builds(lambda s, d, n: Move(T2T, s, d, n), PILE, PILE, st.integers(min_value=1, max_value=999)),
)


@QUICK
@given(MOVES)
def test_move_text_round_trip(move: Move) -> None:
    text = str(move)
    assert Move.parse(text) == move
    assert str(Move.parse(text)) == text
    assert str(move) == text
    assert eval(repr(move), {"Move": Move}) == move  # the repr is pasteable


@QUICK
@given(st.text(alphabet=st.sampled_from("wtfsru0123456789:TWFS -\n"), max_size=9))
def test_parse_accepts_only_canonical_text(text: str) -> None:
    """Whatever parses prints back as the very same text: no second spelling of a move."""
    try:
        move = Move.parse(text)
    except InvalidMoveError as exc:
        assert exc.reason.strip()
        return
    assert str(move) == text


@QUICK
@given(st.text(max_size=30))
def test_parse_any_text_gives_a_move_or_invalid_move_error(text: str) -> None:
    try:
        move = Move.parse(text)
    except InvalidMoveError:
        return
    assert str(move) == text


@pytest.mark.parametrize(
    "text, move",
    [
        ("s", Move(DRAW)),
        ("r", Move(REDEAL)),
        ("u", Move(UNDO)),
        ("wt3", Move(W2T, -1, 2)),
        ("wf2", Move(W2F, -1, 1)),
        ("t4f1", Move(T2F, 3, 0)),
        ("t2t9", Move(T2T, 1, 8)),
        ("f3t5", Move(F2T, 2, 4)),
        ("t3t7:3", Move(T2T, 2, 6, 3)),
        ("t10t13", Move(T2T, 9, 12)),
        ("t13t1:12", Move(T2T, 12, 0, 12)),
        ("wf8", Move(W2F, -1, 7)),
        ("t1t2:2", Move(T2T, 0, 1, 2)),
        ("t1t1", Move(T2T, 0, 0)),  # well-formed; the position rejects it
    ],
)
def test_parse_examples(text: str, move: Move) -> None:
    assert Move.parse(text) == move
    assert str(move) == text


@pytest.mark.parametrize(
    "text, hint",
    [
        ("t01t2", "leading zeros"),
        ("t1t02", "leading zeros"),
        ("t0t1", "numbered from 1"),
        ("wt0", "from 1"),
        ("t1t2:02", "leading zeros"),
        ("t1t2:00", "leading zeros"),
        ("t1t2:1", "from 2"),
        ("t1t2:0", "from 2"),
        ("T1T2", "lower case"),
        ("S", "lower case"),
        ("Wt1", "lower case"),
        ("t1tT2", "lower case"),
        ("t1 t2", "not a move"),
        (" s", "no spaces"),
        ("s ", "no spaces"),
        ("t1t2 ", "no spaces"),
        ("\tt1t2", "no spaces"),
        ("t1t2\n", "no spaces"),
        ("wt1:2", "only column-to-column"),
        ("wf1:2", "only column-to-column"),
        ("t1f1:2", "only column-to-column"),
        ("f1t2:2", "only column-to-column"),
        ("f1f2", "foundation to another"),
        ("tw", "which column"),
        ("wt", "which column"),
        ("tt1", "which column"),
        ("ft1", "which foundation"),
        ("t1f", "which foundation"),
        ("w1t1", "without a number"),
        ("ww", "onto the waste"),
        ("t1w", "onto the waste"),
        ("", "not a move"),
        ("x", "not a move"),
        ("ss", "not a move"),
        ("su", "not a move"),
        ("s1", "not a move"),
        ("u1", "not a move"),
        ("t1t2:", "not a move"),
        ("t1t2::2", "not a move"),
        ("t1t2:2:3", "not a move"),
        ("t1t2:-2", "not a move"),
        ("t1t2:+2", "not a move"),
        ("t-1t2", "not a move"),
        (":1", "not a move"),
        (":0", "not a move"),
        (":02", "not a move"),
        ("draw", "not a move"),
        ("t1t2:\uff12", "not a move"),
        ("t\u0661t2", "not a move"),
        ("\uff541t2", "not a move"),
        ("t1t2:2x", "not a move"),
        ("t1t2:" + "2" * 20, "too long"),
        ("s" * 100, "too long"),
    ],
)
def test_parse_rejects(text: str, hint: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert hint in info.value.reason
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("value", [None, 1, 1.5, b"s", True])
def test_parse_rejects_non_strings(value: object) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(value)  # type: ignore[arg-type]  # a non-string on purpose
    assert "string" in info.value.reason


@pytest.mark.parametrize("value", [["s"], {"m": "s"}])
def test_parse_rejects_unhashable_non_strings(value: object) -> None:
    """A list or dict is not a move either: InvalidMoveError (a ValueError), not a TypeError."""
    with pytest.raises(InvalidMoveError):
        Move.parse(value)  # type: ignore[arg-type]  # a non-string on purpose


def test_parse_cache_does_not_leak_between_texts() -> None:
    assert Move.parse("t3t7:3") == Move.parse("t3t7:3") == Move(T2T, 2, 6, 3)
    with pytest.raises(InvalidMoveError):
        Move.parse("t3t7:03")
    assert Move.parse("t3t7:3") == Move(T2T, 2, 6, 3)


def test_round_trip_of_every_move_from_the_corpus_games() -> None:
    """All moves legal anywhere on a few long playouts print and parse back unchanged."""
    seen: Counter[int] = Counter()
    for game in GAME_IDS:
        for state, _move in playout(game, 12345, 1, 150):
            for move in state.legal_moves():
                assert Move.parse(str(move)) == move
                seen[move.kind] += 1
    assert {DRAW, REDEAL, W2T, W2F, T2F, T2T, F2T} <= set(seen)


# -- whole won games -----------------------------------------------------------------------------

WON = [
    json.loads(line)
    for line in (Path(__file__).resolve().parent / "data" / "won.jsonl").read_text().splitlines()
    if line.strip()
]


def spec_replay_score(game: str, seed: int, log: list[str]) -> int:
    """The final score of a legal log by the per-event model of SPEC section 5."""
    state = State(deal(game, seed))
    stack: list[int] = []
    expected = 0
    for entries, text in enumerate(log, 1):
        move = Move.parse(text)
        if move.kind == UNDO:
            expected = max(0, stack.pop() - 10)
        else:
            stack.append(state.score)
            expected = spec_score(state, move)
        state.play(move)
        if state.won:
            expected += max(0, 700 - 2 * entries)
        assert state.score == expected, (entries, text)
    return expected


@pytest.mark.parametrize("vector", WON, ids=lambda v: f"{v['game']}-{v['seed']}")
def test_won_game(vector: dict[str, Any]) -> None:
    """Real wins (found by a search, kept in data/won.jsonl): bonus, move count, nothing after."""
    game, seed, log = vector["game"], vector["seed"], vector["moves"]
    result = replay(game, seed, log)
    assert result.error is None and result.state.won
    assert result.to_json() == vector["expect"]
    assert result.to_json()["moves"] == len(log) and result.to_json()["foundation_cards"] == 52
    assert result.state.score == spec_replay_score(game, seed, log)
    last = replay(game, seed, log[:-1]).state
    assert not last.won and Move.parse(log[-1]).kind in (W2F, T2F)
    assert result.state.score == last.score + 10 + max(0, 700 - 2 * len(log))
    assert visible(result.state)["won"] is True and visible(result.state)["can_undo"] is False
    foundations = visible(result.state)["foundations"]
    assert isinstance(foundations, list)
    assert all(len(pile) == 13 for pile in foundations)
    for extra in ("u", "s", "r", "t1t2", "wt1", "f1t1"):
        after = replay(game, seed, [*log, extra])
        assert after.error is not None
        assert (after.error.index, after.error.move) == (len(log), extra)
        assert "won" in after.error.reason
        assert snapshot(after.state) == snapshot(result.state)
    # Detours (a move and its undo) cost 10 points and two moves of bonus each, and still win.
    k = len(log) // 2
    detour = [*log[:k], log[k], "u", *log[k:]]
    longer = replay(game, seed, detour)
    assert longer.state.won and longer.state.moves == len(log) + 2
    assert longer.state.score == spec_replay_score(game, seed, detour)
