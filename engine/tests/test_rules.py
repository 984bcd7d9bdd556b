"""The rules of SPEC sections 1, 4 and 5, one by one, on hand-built and real positions.

Hand-built positions start from a real ``State`` and overwrite its piles; they need not hold a
whole deck, since the move checks only look at the piles involved. Every illegal move is checked
for its error type, for the key words of its reason, and for leaving the state untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine import (
    GAME_IDS,
    GAMES,
    MAX_LOG_LENGTH,
    IllegalMoveError,
    InvalidLogError,
    InvalidSeedError,
    Move,
    State,
    UnknownGameError,
    card_text,
    check_log,
    deal,
    find_rules,
    parse_card,
    replay,
)
from engine.tests.make_perft import SPEC_GAMES

SUIT_GAMES = ["josephine", "forty-thieves", "lucas", "limited", "forty-and-eight"]
ONE_CARD_GAMES = ["forty-thieves", "lucas", "limited", "maria", "forty-and-eight"]
RUN_GAMES = ["josephine", "klondike", "klondike-3"]
KLONDIKES = ["klondike", "klondike-3"]
NOT_KLONDIKE = [g for g in GAME_IDS if g not in KLONDIKES]
ONE_PASS = ["josephine", "forty-thieves", "lucas", "limited", "maria"]


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def position(
    game: str,
    tab: Sequence[str] = (),
    down: Sequence[int] = (),
    stock: str = "",
    waste: str = "",
    found: Sequence[str] = (),
    seed: int = 1,
    score: int = 0,
) -> State:
    """A state of ``game`` with the given piles: columns bottom to top, the stock in draw order,
    the waste bottom to top, foundations by their top card ("" or "-" for empty)."""
    state = State(deal(game, seed))
    rules = state.rules
    state.tab = [cards(c) for c in tab] + [[] for _ in range(rules.columns - len(tab))]
    state.down = list(down) + [0] * (rules.columns - len(down))
    state.stock = list(reversed(cards(stock)))
    state.waste = cards(waste)
    tops = [parse_card(f) if f not in ("", "-") else -1 for f in found]
    state.found = tops + [-1] * (rules.foundations - len(tops))
    state.on_foundations = sum(t // 4 + 1 for t in state.found if t >= 0)
    state.score = score
    return state


def snapshot(state: State) -> tuple[object, ...]:
    return (state.key(), state.score, state.moves, state.won, state.on_foundations, len(state.history))


def illegal(state: State, text: str, *words: str) -> str:
    """Play ``text``, expect ``IllegalMoveError`` whose reason holds every word; nothing changes."""
    before = snapshot(state)
    with pytest.raises(IllegalMoveError) as info:
        state.play_text(text)
    reason = info.value.reason
    assert isinstance(reason, str) and reason.strip()
    for word in words:
        assert word.lower() in reason.lower(), f"{word!r} not in reason {reason!r}"
    assert snapshot(state) == before, "an illegal move changed the state"
    assert Move.parse(text) not in set(state.legal_moves())
    return reason


def legal(state: State, text: str) -> None:
    move = Move.parse(text)
    assert move in set(state.legal_moves()), f"{text} missing from legal_moves()"
    state.play(move)


def col(state: State, i: int) -> str:
    return " ".join(card_text(c) for c in state.tab[i])


# -- the rules as data ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
def test_rules_match_spec_table(game: str) -> None:
    spec, rules = SPEC_GAMES[game], find_rules(game)
    assert rules.decks == spec["decks"]
    assert rules.columns == spec["columns"]
    assert rules.stock_size == spec["stock"]
    assert rules.draw == spec["draw"]
    assert rules.passes == spec["passes"]
    assert rules.build.value == spec["build"]
    assert (rules.unit.value == "run") == spec["runs"]
    assert rules.empty_takes_king_only == spec["king_only"]
    assert rules.aces_start_on_foundations == spec["aces_start"]
    assert rules.foundation_to_tableau == spec["from_foundation"]
    assert rules.redeal_penalty == spec["redeal_penalty"]
    assert rules.foundations == 4 * spec["decks"]
    data = rules.as_dict()
    assert data["id"] == game and data["stock"] == spec["stock"] and data["foundations"] == 4 * spec["decks"]


@pytest.mark.parametrize("game", GAME_IDS)
@pytest.mark.parametrize("seed", [0, 1, 2026, 2**64 - 1])
def test_deal_shape(game: str, seed: int) -> None:
    spec, d = SPEC_GAMES[game], deal(game, seed)
    assert d.game == game and d.seed == seed
    assert len(d.tableau) == spec["columns"]
    assert len(d.stock) == spec["stock"]
    assert len(d.foundations) == 4 * spec["decks"]
    if spec["rows"] is None:  # Klondike's triangle, only the last card face up
        assert [len(c) for c in d.tableau] == [1, 2, 3, 4, 5, 6, 7]
        assert list(d.face_down) == [0, 1, 2, 3, 4, 5, 6]
    else:
        assert all(len(c) == spec["rows"] for c in d.tableau)
        assert list(d.face_down) == [0] * spec["columns"]
    everything = [c for column in d.tableau for c in column] + list(d.stock)
    everything += [rank * 4 + (t & 3) for t in d.foundations if t >= 0 for rank in range(t // 4 + 1)]
    assert sorted(everything) == sorted(list(range(52)) * spec["decks"])
    state = State(d)
    assert state.score == 0 and state.moves == 0 and not state.won and not state.can_undo()
    assert state.passes_left == (-1 if spec["passes"] is None else spec["passes"] - 1)


def test_lucas_aces_start_on_the_foundations() -> None:
    for seed in (0, 1, 2026, 99):
        d = deal("lucas", seed)
        assert sorted(d.foundations) == [0, 0, 1, 1, 2, 2, 3, 3]
        rest = [c for column in d.tableau for c in column] + list(d.stock)
        assert all(c >= 4 for c in rest)
        assert [len(c) for c in d.tableau] == [3] * 13 and len(d.stock) == 57
        state = State(d)
        assert state.on_foundations == 8
        assert replay("lucas", seed, []).to_json() == {"won": False, "score": 0, "moves": 0, "foundation_cards": 8}
    for game in NOT_KLONDIKE:
        if game != "lucas":
            assert deal(game, 1).foundations == (-1,) * 8


def test_deal_is_pure_and_seeds_differ() -> None:
    assert deal("maria", 5) == deal("maria", 5)
    assert deal("maria", 5).to_json() == deal(find_rules("maria"), 5).to_json()
    assert deal("maria", 5).tableau != deal("maria", 6).tableau
    # Same 2-deck shuffle for every Forty Thieves layout of a seed.
    assert deal("josephine", 3).tableau == deal("forty-thieves", 3).tableau
    assert deal("klondike", 3).tableau == deal("klondike-3", 3).tableau


# -- game ids, seeds and logs --------------------------------------------------------------------


@pytest.mark.parametrize("game", ["nope", "", "Klondike", "klondike ", None, 1, ["klondike"]])
def test_unknown_game(game: str) -> None:
    with pytest.raises(UnknownGameError) as info:
        deal(game, 1)
    assert isinstance(info.value, ValueError)
    assert "klondike" in str(info.value) and "josephine" in str(info.value)
    with pytest.raises(UnknownGameError):
        find_rules(game)
    with pytest.raises(UnknownGameError):
        replay(game, 1, [])


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70, True, False, "1", 1.0, None, [1]])
def test_invalid_seed(seed: int) -> None:
    with pytest.raises(InvalidSeedError) as info:
        deal("josephine", seed)
    assert isinstance(info.value, ValueError)
    assert "18446744073709551615" in str(info.value)
    with pytest.raises(InvalidSeedError):
        replay("klondike", seed, [])


@pytest.mark.parametrize("seed", [0, 1, 2**63, 2**64 - 1])
def test_seed_limits(seed: int) -> None:
    for game in GAME_IDS:
        assert deal(game, seed).seed == seed


@pytest.mark.parametrize("log", [None, "s", {"moves": ["s"]}, 5, ("s",), b"s"])
def test_log_not_an_array(log: object) -> None:
    with pytest.raises(InvalidLogError) as info:
        check_log(log)
    assert "array" in str(info.value)
    with pytest.raises(InvalidLogError):
        replay("josephine", 1, log)


@pytest.mark.parametrize("log", [[1], [None], ["s", ["u"]], ["s", True], ["s", {"m": "s"}], ["s", 1.5]])
def test_log_entries_must_be_strings(log: list[object]) -> None:
    with pytest.raises(InvalidLogError) as info:
        replay("josephine", 1, log)
    assert f"entry {len(log) - 1}" in str(info.value)


def test_log_length_limit() -> None:
    assert MAX_LOG_LENGTH == 5000
    ok = ["s", "u"] * 2500
    result = replay("josephine", 1, ok)
    assert result.error is None and result.state.moves == 5000 and result.state.score == 0
    with pytest.raises(InvalidLogError) as info:
        replay("josephine", 1, [*ok, "s"])
    assert "5000" in str(info.value).replace(",", "")
    # Rejected as a whole even when the extra entries would never be reached.
    with pytest.raises(InvalidLogError):
        replay("josephine", 1, ["x"] * 5001)


def test_empty_log() -> None:
    for game in GAME_IDS:
        result = replay(game, 7, [])
        assert result.error is None
        assert result.to_json() == {
            "won": False,
            "score": 0,
            "moves": 0,
            "foundation_cards": 8 if game == "lucas" else 0,
        }


def test_replay_reports_notation_and_rule_errors() -> None:
    result = replay("josephine", 1, ["s", "T1T2", "s"])
    assert result.error is not None
    assert result.error.index == 1 and result.error.move == "T1T2" and "lower case" in result.error.reason
    assert result.state.moves == 1
    result = replay("josephine", 1, ["s", "u", "u"])
    assert result.error is not None
    assert result.error.to_json() == {"index": 2, "move": "u", "reason": "nothing to undo"}
    assert result.to_json() == {"error": result.error.to_json()}
    assert not result.ok


# -- building on the tableau ---------------------------------------------------------------------


@pytest.mark.parametrize("game", SUIT_GAMES)
def test_columns_build_down_in_suit(game: str) -> None:
    s = position(game, tab=["5H", "6D", "6H", "7H", "5C 4H"])
    illegal(s, "t1t2", "5H", "6D", "in suit")
    illegal(s, "t1t4", "5H", "7H", "in suit")  # right suit, wrong rank
    illegal(s, "t4t3", "7H", "6H")  # up, not down
    legal(s, "t1t3")
    assert col(s, 2) == "6H 5H" and s.score == 0


@pytest.mark.parametrize("game", ["maria", "klondike", "klondike-3"])
def test_columns_build_down_in_alternate_colours(game: str) -> None:
    s = position(game, tab=["5H", "6D", "6H", "7S", "6S", "6C"])
    illegal(s, "t1t2", "5H", "6D", "alternate colours")
    illegal(s, "t1t3", "alternate colours")
    illegal(s, "t1t4", "alternate colours")  # black, but two ranks apart
    legal(s, "t1t5")
    assert col(s, 4) == "6S 5H"
    legal(s, "t2t4")  # 6D on 7S
    assert col(s, 3) == "7S 6D"


@pytest.mark.parametrize("game", NOT_KLONDIKE)
def test_empty_column_takes_any_card(game: str) -> None:
    s = position(game, tab=["5H", "", "9C 2D"], waste="7S")
    legal(s, "t1t2")
    assert col(s, 1) == "5H" and col(s, 0) == ""
    legal(s, "wt1")
    assert col(s, 0) == "7S" and s.score == 5


@pytest.mark.parametrize("game", KLONDIKES)
def test_klondike_empty_column_takes_only_a_king(game: str) -> None:
    s = position(game, tab=["", "QH", "KS QH", "KD", "4C JS TD"], down=[0, 0, 0, 0, 1], waste="QC", found=["AH"])
    illegal(s, "t2t1", "QH", "only a king")
    illegal(s, "wt1", "QC", "only a king")
    illegal(s, "t5t1:2", "JS", "only a king")
    illegal(s, "f1t1", "AH", "only a king")
    legal(s, "t3t1:2")  # a run starting with a king
    assert col(s, 0) == "KS QH" and col(s, 2) == ""
    legal(s, "t4t3")
    assert col(s, 2) == "KD"
    s = position(game, tab=["", "3C"], waste="KH", score=7)
    legal(s, "wt1")
    assert col(s, 0) == "KH" and s.score == 12


# -- moving runs ---------------------------------------------------------------------------------


def test_josephine_moves_suited_runs_any_length_and_split() -> None:
    s = position("josephine", tab=["2S 9H 8H 7H", "TH", "9H", "8H", ""])
    legal(s, "t1t2:3")
    assert col(s, 1) == "TH 9H 8H 7H" and col(s, 0) == "2S"
    s = position("josephine", tab=["2S 9H 8H 7H", "TH", "9H", "8H", ""])
    legal(s, "t1t3:2")  # a split run: 8H 7H onto 9H
    assert col(s, 2) == "9H 8H 7H" and col(s, 0) == "2S 9H"
    s = position("josephine", tab=["2S 9H 8H 7H", "TH", "9H", "8H", ""])
    legal(s, "t1t5:3")  # onto an empty column
    assert col(s, 4) == "9H 8H 7H"
    s = position("josephine", tab=["2S 9H 8H 7H", "TH", "9H", "8H", ""])
    legal(s, "t1t4")  # one card
    assert col(s, 3) == "8H 7H"
    assert s.score == 0


def test_josephine_run_must_be_a_run() -> None:
    s = position("josephine", tab=["9C 8H 7H", "TC 9S 8H", "TH", "9C", ""])
    illegal(s, "t1t3:3", "not a run", "8H", "9C")  # broken suit
    illegal(s, "t2t5:2", "not a run", "in suit")
    s = position("josephine", tab=["9H 7H", "8H", ""])
    illegal(s, "t1t3:2", "not a run")  # a gap in rank
    s = position("josephine", tab=["7H 8H", "9H", ""])
    illegal(s, "t1t3:2", "not a run")  # ascending


@pytest.mark.parametrize("game", KLONDIKES)
def test_klondike_moves_alternate_colour_runs(game: str) -> None:
    s = position(game, tab=["4D 9C 8H 7S", "TD", "TH 9S", ""], down=[1])
    legal(s, "t1t2:3")
    assert col(s, 1) == "TD 9C 8H 7S"
    assert col(s, 0) == "4D" and s.down[0] == 0 and s.score == 5  # turned up
    s = position(game, tab=["9C 8C", "9H", ""])
    illegal(s, "t1t2:2", "not a run", "alternate colours")


@pytest.mark.parametrize("game", ONE_CARD_GAMES)
def test_one_card_games_do_not_move_runs(game: str) -> None:
    s = position(game, tab=["5D 9H 8H 7H", "TH", "9H", ""] if game != "maria" else ["5D 9H 8S 7H", "TS", "9D", ""])
    reason = illegal(s, "t1t2:3", "one card at a time", "t1t2")
    assert GAMES[game].name in reason
    illegal(s, "t1t4:2", "one card at a time")
    illegal(s, "t1t3:2", "one card at a time")


def test_forty_thieves_t1t2_2_from_the_deal() -> None:
    result = replay("forty-thieves", 1, ["t1t2:2"])
    assert result.error is not None
    assert result.error.index == 0 and "one card at a time" in result.error.reason
    assert "Forty Thieves" in result.error.reason


@pytest.mark.parametrize("game", RUN_GAMES)
def test_too_many_cards(game: str) -> None:
    s = position(game, tab=["KH QS JH", "KS", ""])
    illegal(s, "t1t3:4", "only 3 cards", "not 4")
    illegal(s, "t3t1", "column 3 is empty")
    illegal(s, "t3t1:2", "column 3 is empty")


@pytest.mark.parametrize("game", KLONDIKES)
def test_face_down_cards_do_not_move(game: str) -> None:
    s = position(game, tab=["8D 5H", "6S", "", "6C 9D 8S"], down=[1, 0, 0, 2])
    illegal(s, "t1t2:2", "only 1 face-up card", "not 2")
    illegal(s, "t4t2:2", "face-up")
    illegal(s, "t4t3:3", "face-up")
    legal(s, "t1t2")  # the face-up card moves, and the one below turns up
    assert s.down[0] == 0 and col(s, 0) == "8D" and s.score == 5


def test_column_onto_itself_and_missing_columns() -> None:
    s = position("maria", tab=["5H", "6S"], waste="4C")
    illegal(s, "t1t1", "onto itself")
    illegal(s, "t11t1", "no column 11", "9 columns")
    illegal(s, "t1t10", "no column 10")
    illegal(s, "wt10", "no column 10")
    illegal(s, "t10f1", "no column 10")
    s = position("klondike", tab=["5H"], found=["AC"])
    illegal(s, "f1t8", "no column 8", "7 columns")


def test_waste_moves_need_a_waste_card() -> None:
    s = position("forty-thieves", tab=["5H", ""], found=[""])
    illegal(s, "wt1", "waste is empty")
    illegal(s, "wt2", "waste is empty")
    illegal(s, "wf1", "waste is empty")
    illegal(s, "wf9", "no foundation 9")


# -- foundations ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
def test_foundations_start_with_an_ace_and_build_up_in_suit(game: str) -> None:
    s = position(game, tab=["2H", "AH", "3H", "2C", "KC", ""], waste="AS", found=["", "QC"])
    illegal(s, "t1f1", "2H", "empty foundation takes an ace")
    illegal(s, "t1f2", "2H", "QC", "up in suit")
    legal(s, "t2f1")
    assert s.found[0] == parse_card("AH") and s.score == 10 and s.on_foundations == 13
    illegal(s, "t3f1", "3H", "AH", "up in suit")  # skipping a rank
    illegal(s, "t4f1", "2C", "AH", "up in suit")  # wrong suit
    illegal(s, "t5f1", "up in suit")
    illegal(s, "t6f1", "column 6 is empty")
    legal(s, "t5f2")
    assert s.found[1] == parse_card("KC") and s.score == 20
    legal(s, "wf3")  # any ace onto any empty foundation
    assert s.found[2] == parse_card("AS") and s.score == 30 and s.waste == []
    legal(s, "t1f1")
    assert s.score == 40 and s.on_foundations == 16
    nf = 4 * SPEC_GAMES[game]["decks"]
    illegal(s, f"t3f{nf + 1}", f"no foundation {nf + 1}", f"{nf} foundations")


@pytest.mark.parametrize("game", ["josephine", "maria"])
def test_any_ace_may_start_any_empty_foundation(game: str) -> None:
    s = position(game, tab=["AD"])
    assert {str(m) for m in s.legal_moves() if m.kind == 5} == {f"t1f{i}" for i in range(1, 9)}


@pytest.mark.parametrize("game", NOT_KLONDIKE)
def test_foundation_to_tableau_only_in_klondike(game: str) -> None:
    s = position(game, tab=["3H", ""], found=["2C", "AS"])
    illegal(s, "f1t1", "never leave the foundations")
    illegal(s, "f2t2", "never leave the foundations")
    illegal(s, "f8t1", "never leave the foundations")


def test_foundation_to_tableau_from_a_lucas_deal() -> None:
    result = replay("lucas", 1, ["f1t1"])
    assert result.error is not None
    assert result.error.index == 0 and "never leave the foundations" in result.error.reason


@pytest.mark.parametrize("game", KLONDIKES)
def test_klondike_foundation_to_tableau(game: str) -> None:
    s = position(game, tab=["3H", "", "4S"], found=["2C", "", "KD"], score=40)
    legal(s, "f1t1")
    assert col(s, 0) == "3H 2C" and s.found[0] == parse_card("AC") and s.score == 25
    assert s.on_foundations == 14
    illegal(s, "f2t1", "foundation 2 is empty")
    illegal(s, "f5t1", "no foundation 5", "4 foundations")
    illegal(s, "f1t1", "AC", "2C", "alternate colours")
    illegal(s, "f1t3", "AC", "4S")
    legal(s, "f3t2")  # a king onto an empty column
    assert col(s, 1) == "KD" and s.score == 10 and s.found[2] == parse_card("QD")
    s = position(game, tab=["2D"], found=["AC"], score=5)
    legal(s, "f1t1")
    assert s.score == 0 and s.found[0] == -1  # clamped at 0, foundation empty again


# -- stock, waste and redeals --------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
def test_draw_turns_the_next_stock_cards(game: str) -> None:
    d = deal(game, 2026)
    s = State(d)
    per = SPEC_GAMES[game]["draw"]
    legal(s, "s")
    assert s.waste == list(d.stock[:per])
    assert len(s.stock) == len(d.stock) - per and s.score == 0


@pytest.mark.parametrize("game", KLONDIKES)
def test_draw_three_or_what_is_left(game: str) -> None:
    s = position(game, tab=["KS"], stock="2C 3C 4C 5C 6C")
    per = SPEC_GAMES[game]["draw"]
    legal(s, "s")
    assert s.waste == cards("2C 3C 4C 5C 6C")[:per]
    while s.stock:
        legal(s, "s")
    assert s.waste == cards("2C 3C 4C 5C 6C")
    if per == 3:
        assert s.moves == 2
        s.undo()  # the short draw comes back whole
        assert s.waste == cards("2C 3C 4C") and s.stock == cards("6C 5C")
        legal(s, "s")
        assert s.waste == cards("2C 3C 4C 5C 6C")


@pytest.mark.parametrize("game", GAME_IDS)
def test_draw_from_an_empty_stock(game: str) -> None:
    s = position(game, tab=["KS"], stock="", waste="")
    illegal(s, "s", "stock is empty")
    s = position(game, tab=["KS"], stock="", waste="2C")
    reason = illegal(s, "s", "stock is empty")
    assert ("redeal" in reason) == (game in KLONDIKES or game == "forty-and-eight")


@pytest.mark.parametrize("game", GAME_IDS)
def test_redeal_needs_an_empty_stock_and_a_waste(game: str) -> None:
    s = position(game, tab=["KS"], stock="2C", waste="3C")
    illegal(s, "r", "stock is not empty")
    s = position(game, tab=["KS"], stock="", waste="")
    illegal(s, "r", "nothing to redeal")


@pytest.mark.parametrize("game", ONE_PASS)
def test_no_redeal_in_one_pass_games(game: str) -> None:
    d = deal(game, 11)
    s = State(d)
    for _ in d.stock:
        legal(s, "s")
    assert s.passes_left == 0
    illegal(s, "r", "no redeal")
    illegal(s, "s", "stock is empty")
    assert not [m for m in s.legal_moves() if str(m) in ("s", "r")]


def test_forty_and_eight_has_exactly_one_redeal() -> None:
    d = deal("forty-and-eight", 11)
    s = State(d)
    assert s.passes_left == 1
    for _ in d.stock:
        legal(s, "s")
    legal(s, "r")
    assert s.passes_left == 0 and s.score == 0 and s.waste == []
    assert s.stock == list(reversed(d.stock))  # the first card drawn is drawn first again
    for card in d.stock:
        legal(s, "s")
        assert s.waste[-1] == card
    reason = illegal(s, "r", "no redeal left")
    assert "2 passes" in reason
    # The same through a log: the second r is reported.
    log = ["s"] * 64 + ["r"] + ["s"] * 64 + ["r"]
    result = replay("forty-and-eight", 11, log)
    assert result.error is not None
    assert result.error.index == 129 and result.error.move == "r"
    # Undoing the redeal gives the pass back.
    s = State(d)
    for _ in d.stock:
        s.play_text("s")
    s.play_text("r")
    s.undo()
    assert s.passes_left == 1 and s.stock == [] and s.waste == list(d.stock)
    legal(s, "r")


@pytest.mark.parametrize("game, penalty", [("klondike", 50), ("klondike-3", 20)])
def test_klondike_unlimited_redeals_with_penalty(game: str, penalty: int) -> None:
    d = deal(game, 5)
    s = State(d)
    draws = -(-24 // SPEC_GAMES[game]["draw"])
    s.score = 130
    for _ in range(4):
        for _ in range(draws):
            legal(s, "s")
        assert s.waste == list(d.stock) and s.stock == []
        before = s.score
        legal(s, "r")
        assert s.passes_left == -1
        assert s.score == max(0, before - penalty)
        assert s.stock == list(reversed(d.stock))
    assert s.score == max(0, 130 - 4 * penalty)  # floored at 0 for klondike
    # Undo of a redeal: score back to before it, then -10.
    s = State(d)
    for _ in range(draws):
        s.play_text("s")
    s.score = 100
    s.play_text("r")
    assert s.score == 100 - penalty
    s.undo()
    assert s.score == 90 and s.stock == [] and s.waste == list(d.stock) and s.passes_left == -1


@pytest.mark.parametrize("game", ["josephine", "forty-thieves", "lucas", "limited", "maria", "forty-and-eight"])
def test_redeal_costs_nothing_outside_klondike(game: str) -> None:
    s = position(game, tab=["KS"], stock="", waste="2C 3C", score=30)
    s.passes_left = 1
    legal(s, "r")
    assert s.score == 30 and s.stock == cards("3C 2C")


def test_only_the_top_waste_card_plays() -> None:
    s = position("forty-thieves", tab=["3C", "6H"], waste="2C 5H")
    legal(s, "wt2")
    illegal(s, "wt2", "does not build")
    legal(s, "wt1")
    assert col(s, 0) == "3C 2C" and s.score == 10


# -- undo ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
def test_undo_with_nothing_to_undo(game: str) -> None:
    s = State(deal(game, 3))
    assert not s.can_undo()
    illegal(s, "u", "nothing to undo")
    s.play_text("s")
    assert s.can_undo()
    s.play_text("u")
    assert s.moves == 2 and not s.can_undo()
    illegal(s, "u", "nothing to undo")  # an undo is not undone by another one
    result = replay(game, 3, ["u"])
    assert result.error is not None
    assert result.error.index == 0 and result.error.reason == "nothing to undo"


def test_undos_follow_each_other() -> None:
    d = deal("josephine", 1)
    s = State(d)
    start = s.key()
    s.play_text("s")
    after_one = s.key()
    s.play_text("t7f1")  # AS from column 7
    s.play_text("s")
    assert s.score == 10
    s.undo()
    assert s.score == 0 and len(s.waste) == 1  # back to 10, then -10
    s.undo()
    assert s.key() == after_one and s.score == 0
    s.undo()
    assert s.key() == start and s.moves == 6 and s.score == 0
    illegal(s, "u", "nothing to undo")


def test_undo_score_goes_back_then_minus_ten() -> None:
    s = position("forty-thieves", tab=["3C", "6H", "AD"], waste="2C 5H", score=100)
    s.play_text("wt2")
    assert s.score == 105
    s.play_text("t3f1")
    assert s.score == 115
    s.undo()
    assert s.score == 95  # 105 - 10
    s.undo()
    assert s.score == 90  # 100 - 10
    assert s.waste == cards("2C 5H") and col(s, 1) == "6H" and col(s, 2) == "AD"


def test_score_never_below_zero() -> None:
    s = State(deal("josephine", 1))
    s.play_text("s")
    s.undo()
    assert s.score == 0  # 0 - 10 is clamped
    result = replay("josephine", 1, ["s", "u", "s", "u", "s", "u"])
    assert result.to_json()["score"] == 0
    s = position("klondike", tab=["2D"], found=["AC"], score=10)
    s.play_text("f1t1")
    assert s.score == 0
    s.undo()
    assert s.score == 0  # back to 10, then -10


# -- Klondike turning cards up -------------------------------------------------------------------


@pytest.mark.parametrize("game", KLONDIKES)
def test_klondike_turns_up_on_a_column_move(game: str) -> None:
    s = State(deal(game, 0))  # t4 is [2S] [AC] [QS] 3H, t5 ends 4S
    assert s.down[3] == 3
    s.play_text("t4t5")
    assert s.down[3] == 2 and card_text(s.tab[3][-1]) == "QS" and s.score == 5 and s.moves == 1
    s.undo()
    assert s.down[3] == 3 and s.key() == State(deal(game, 0)).key() and s.score == 0
    s.score = 50
    s.play_text("t4t5")
    assert s.score == 55
    s.undo()
    assert s.score == 40 and s.down[3] == 3  # back to 50, then -10


@pytest.mark.parametrize("game", KLONDIKES)
def test_klondike_turns_up_on_a_foundation_move(game: str) -> None:
    s = State(deal(game, 0))  # t7 ends [8D] AD
    s.score = 100
    s.play_text("t7f1")
    assert s.score == 115 and s.down[6] == 5 and card_text(s.tab[6][-1]) == "8D" and s.on_foundations == 1
    s.undo()
    assert s.down[6] == 6 and s.key() == State(deal(game, 0)).key() and s.score == 90


@pytest.mark.parametrize("game", KLONDIKES)
def test_klondike_no_turn_when_the_column_empties_or_no_card_is_down(game: str) -> None:
    s = position(game, tab=["5H", "6S", "QD 9C 8H 7S"], down=[0, 0, 1])
    s.play_text("t1t2")
    assert s.score == 0 and s.down == [0, 0, 1, 0, 0, 0, 0]
    s = position(game, tab=["5H", "6S", "QD 9C 8H 7S", "8D"], down=[0, 0, 1])
    s.play_text("t3t4")  # 7S alone: 8H stays face up, nothing turns
    assert s.score == 0 and s.down[2] == 1


def test_visible_after_turn_up() -> None:
    from engine import visible

    s = State(deal("klondike", 0))
    view = visible(s)
    assert isinstance(view["tableau"], list)
    assert [c["card"] for c in view["tableau"][3]] == ["??", "??", "??", "3H"]
    s.play_text("t4t5")
    view = visible(s)
    assert isinstance(view["tableau"], list)
    assert [c["card"] for c in view["tableau"][3]] == ["??", "??", "QS"]
    assert view["stock"] == 24 and view["score"] == 5 and view["can_undo"] is True


# -- scores of the other events ------------------------------------------------------------------


def test_scores_per_event() -> None:
    s = position("maria", tab=["5H", "6S", "AC"], waste="2C 5D", stock="9H")
    s.play_text("wt2")
    assert s.score == 5  # waste to tableau
    s.play_text("t3f1")
    assert s.score == 15  # to a foundation
    s.play_text("wf1")
    assert s.score == 25
    s.play_text("s")
    assert s.score == 25  # drawing is free
    s = position("maria", tab=["5H", "6S"])
    s.play_text("t1t2")
    assert s.score == 0  # column to column
    assert s.moves == 1


# -- winning -------------------------------------------------------------------------------------


def near_won(game: str) -> State:
    """Every card on the foundations but the king of spades, which is the last card of column 1."""
    decks = SPEC_GAMES[game]["decks"]
    return position(game, tab=["KS"], found=["KC", "KD", "KH", "KS"] * (decks - 1) + ["KC", "KD", "KH", "QS"])


@pytest.mark.parametrize("game", GAME_IDS)
def test_win_bonus_and_nothing_after_a_win(game: str) -> None:
    s = near_won(game)
    assert (s.on_foundations, s.won) == (52 * SPEC_GAMES[game]["decks"] - 1, False)
    s.moves = 100
    s.score = 40
    s.play_text(f"t1f{4 * SPEC_GAMES[game]['decks']}")
    assert s.won and s.moves == 101
    assert s.score == 40 + 10 + (700 - 2 * 101)
    assert s.result() == {"won": True, "score": 548, "moves": 101, "foundation_cards": s.rules.cards}
    assert list(s.legal_moves()) == [] and not s.can_undo()
    for text in ("u", "s", "r", "t1t2", "wt1", "f1t1", "t1f1"):
        reason = illegal(s, text, "already won")
        assert "winning" in reason
    assert s.score == 548  # the bonus came once


def test_win_from_the_waste() -> None:
    s = position("forty-thieves", tab=[""], waste="KS", found=["KC", "KD", "KH", "KS", "KC", "KD", "KH", "QS"])
    s.play_text("wf8")
    assert s.won and s.score == 10 + 698 and s.on_foundations == 104


@pytest.mark.parametrize("moves, bonus", [(0, 698), (349, 0), (348, 2), (400, 0), (4999, 0)])
def test_win_bonus_never_negative(moves: int, bonus: int) -> None:
    s = near_won("klondike")
    s.moves = moves
    s.play_text("t1f4")
    assert s.won and s.score == 10 + bonus


def test_foundation_move_that_does_not_win_has_no_bonus() -> None:
    s = position("klondike", tab=["KS", "KD"], found=["KC", "QD", "KH", "QS"])
    s.play_text("t2f2")
    assert (s.won, s.score) == (False, 10)
    s.play_text("t1f4")
    assert s.won and s.score == 10 + 10 + (700 - 4)


def test_win_needs_every_card() -> None:
    s = position("lucas", tab=["2C"], found=["AC"])
    s.play_text("t1f1")
    assert not s.won and s.on_foundations == 2
