// Cards, piles and moves in words, for everything a person reads on the page:
// "8♥ from column 3 to a foundation" rather than "t3f1".

const SUIT_SIGNS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const CARD = /\b([A2-9TJQK])([CDHS])\b/g;
const MOVE = /^([wtf])(\d*)([tf])(\d+)(?::(\d+))?$/;

const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king", T: "10" };

/** "KD" -> "king of diamonds": a card as it is said (screen readers, the live region). */
export function cardName(card) {
  if (!card || card === "??") return "a face-down card";
  return `${RANK_NAMES[card[0]] || card[0]} of ${SUIT_NAMES[card[1]]}`;
}

/** "TH" -> "10♥"; a hidden card is "a face-down card". */
export function cardWords(card) {
  if (!card || card === "??") return "a face-down card";
  return `${card[0] === "T" ? "10" : card[0]}${SUIT_SIGNS[card[1]]}`;
}

/** "t3" -> "column 3", "f2" -> "foundation 2", "w" -> "the waste", "s" -> "the stock". */
export function pileWords(pile) {
  if (pile === "s") return "the stock";
  if (pile === "w") return "the waste";
  const n = pile.slice(1);
  return pile[0] === "t" ? `column ${n}` : `foundation ${n}`;
}

/** Card codes inside a sentence (a server's reason, say) written with suit signs. */
export function withCardWords(text) {
  return String(text ?? "").replace(CARD, (_, rank, suit) => cardWords(rank + suit));
}

/** The card a move carries, read off the visible state before it (null when it cannot be told). */
export function movedCard(move, state) {
  const m = MOVE.exec(move);
  if (!m || !state) return null;
  const [, src, from, , , count] = m;
  const n = count ? Number(count) : 1;
  if (src === "w") return state.waste.at(-1) ?? null;
  if (src === "f") return state.foundations[Number(from) - 1]?.at(-1) ?? null;
  const column = state.tableau[Number(from) - 1] || [];
  const card = column[column.length - n];
  return card && card.up ? card.card : null;
}

/**
 * A move in words. With the visible state before it, the card is named:
 * "8♥ from column 3 to a foundation", "Q♠ and 2 cards on it from column 4 to column 8";
 * spoken (for the live region), "8 of hearts from column 3 to a foundation".
 */
export function moveWords(move, state = null, spoken = false) {
  if (move === "s") return "Draw from the stock";
  if (move === "r") return "Turn the waste over: a new pass through the stock";
  if (move === "u") return "Undo the last move";
  const m = MOVE.exec(move);
  if (!m) return move;
  const [, src, from, dst, to, count] = m;
  const n = count ? Number(count) : 1;
  const card = movedCard(move, state);
  let what = card ? (spoken ? cardName(card) : cardWords(card)) : n > 1 ? `${n} cards` : "A card";
  if (card && n > 1) what += ` and ${n - 1} card${n > 2 ? "s" : ""} on it`;
  const source = src === "w" ? "the waste" : src === "t" ? `column ${from}` : `foundation ${from}`;
  const target = dst === "f" ? "a foundation" : `column ${to}`;
  return `${what} from ${source} to ${target}`;
}

/** The piles a move touches ("t3", "f1", "w", "s"): to show it on the table. */
export function movePiles(move) {
  if (move === "s" || move === "r") return { from: "s", to: "w" };
  const m = MOVE.exec(move);
  if (!m) return null;
  const [, src, from, dst, to] = m;
  return { from: src === "w" ? "w" : `${src}${from}`, to: `${dst}${to}` };
}
