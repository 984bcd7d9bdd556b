"""The rules of each game in plain words, for its "How to play" page (SPEC section 1, said for a person)."""

from __future__ import annotations

COMMON = [
    "Every card goes home to the foundations: each builds up in one suit, from the ace to the king. "
    "Any ace starts an empty foundation, and one card goes home at a time.",
    "Only the top card of the waste plays. The game is won when every card is home.",
]

FORTY_THIEVES_FAMILY = "Two decks (104 cards), so eight foundations; every card is dealt face up."

RULES: dict[str, list[str]] = {
    "klondike": [
        "One deck. Seven columns of one to seven cards, only the last card of each face up; 24 cards in the stock.",
        "In the columns, build down in alternate colours (a red 6 on a black 7). Any face-up run in alternate "
        "colours moves as one, and only a king (or a run starting with a king) fills an empty column.",
        "A face-down card left at the end of its column turns face up by itself.",
        "Draw one card at a time from the stock onto the waste; when the stock is empty the waste turns over, "
        "as often as you like (a redeal costs 50 points).",
        "A card may come back from a foundation to a column (15 points less).",
    ],
    "klondike-3": [
        "As Klondike: one deck, seven columns of one to seven cards, only the last of each face up.",
        "Build down in alternate colours; any face-up run in alternate colours moves as one; only a king (or a "
        "run from a king) fills an empty column. A face-down card left at the end of its column turns up.",
        "A draw turns three cards onto the waste, and only the top one plays; the waste turns over as often as "
        "you like (a redeal costs 20 points).",
        "A card may come back from a foundation to a column (15 points less).",
    ],
    "forty-thieves": [
        f"{FORTY_THIEVES_FAMILY} Ten columns of four; 64 cards in the stock.",
        "Build down in the same suit (the 8 of hearts on the 9 of hearts), one card at a time.",
        "Any card fills an empty column.",
        "Draw one card at a time; there is one pass only: once the stock is empty it does not come back.",
    ],
    "josephine": [
        f"{FORTY_THIEVES_FAMILY} Ten columns of four; 64 cards in the stock.",
        "Build down in the same suit. A run of the same suit moves as one, of any length, and a run may be "
        "split: the end of it moves on its own.",
        "Any card, or such a run, fills an empty column.",
        "Draw one card at a time; one pass only.",
    ],
    "lucas": [
        f"{FORTY_THIEVES_FAMILY} The eight aces start on the foundations; thirteen columns of three; 57 cards "
        "in the stock.",
        "Build down in the same suit, one card at a time. Any card fills an empty column.",
        "Draw one card at a time; one pass only.",
    ],
    "limited": [
        f"{FORTY_THIEVES_FAMILY} Twelve columns of three; 68 cards in the stock.",
        "Build down in the same suit, one card at a time. Any card fills an empty column.",
        "Draw one card at a time; one pass only.",
    ],
    "maria": [
        f"{FORTY_THIEVES_FAMILY} Nine columns of four; 68 cards in the stock.",
        "Build down in alternate colours (a red 8 on a black 9), one card at a time. Any card fills an empty column.",
        "Draw one card at a time; one pass only.",
    ],
    "forty-and-eight": [
        f"{FORTY_THIEVES_FAMILY} Eight columns of five; 64 cards in the stock.",
        "Build down in the same suit, one card at a time. Any card fills an empty column.",
        "Draw one card at a time. Once the stock is empty, the waste turns over as a new stock once (one redeal).",
    ],
}

SCORING = (
    "Scoring: 10 points a card home, 5 a card from the waste to a column, 5 a Klondike card turned up; an undo "
    "takes its move back and costs 10; a win adds 700 less two a move. Your first game of a day is ranked: "
    "won games first, then the higher score, fewer moves, the shorter time."
)
