// Cards drawn in the page: rank text and SVG suit symbols (<symbol id="suit-X"> in play.html).

import { isRed } from "./rules.js";
import { cardName } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
const RANK_TEXT = { T: "10" };

function suitIcon(suit, cls) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#suit-${suit}`);
  svg.append(use);
  return svg;
}

export const cardLabel = cardName;

/** A face-up card ("TH") or a face-down one (null). */
export function cardElement(card) {
  const node = document.createElement("div");
  if (!card || card === "??") {
    node.className = "card down";
    node.setAttribute("aria-hidden", "true"); // its pile's name counts it
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", "face-down card");
    return node;
  }
  const suit = card[1];
  node.className = `card up ${isRed(card) ? "red" : "black"} suit-${suit}`;
  node.dataset.card = card;
  // The pile is the control a screen reader lands on, and its name says every card in view; the card's
  // own name stays on it (role img) for whatever reads one card, hidden from the reading of the pile.
  node.setAttribute("aria-hidden", "true");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", cardLabel(card));
  const corner = document.createElement("span");
  corner.className = "corner";
  // The index is drawn (site.css: .rank::before), like the suit: part of the card's picture, whose words
  // are its name ("king of diamonds"), never a text "K" that a pile's name would have to repeat.
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.dataset.rank = RANK_TEXT[card[0]] || card[0];
  corner.append(rank, suitIcon(suit, "pip"));
  node.append(corner, suitIcon(suit, "center"));
  return node;
}
