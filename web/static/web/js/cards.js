// Cards drawn in the page: rank text and SVG suit symbols (<symbol id="suit-X"> in play.html).

import { isRed } from "./rules.js";

const SVG = "http://www.w3.org/2000/svg";
const RANK_TEXT = { T: "10" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king", T: "10" };

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

export function cardLabel(card) {
  return `${RANK_NAMES[card[0]] || card[0]} of ${SUIT_NAMES[card[1]]}`;
}

/** A face-up card ("TH") or a face-down one (null). */
export function cardElement(card) {
  const node = document.createElement("div");
  if (!card || card === "??") {
    node.className = "card down";
    node.setAttribute("aria-label", "face-down card");
    return node;
  }
  const suit = card[1];
  node.className = `card up ${isRed(card) ? "red" : "black"} suit-${suit}`;
  node.dataset.card = card;
  node.setAttribute("aria-label", cardLabel(card));
  const corner = document.createElement("span");
  corner.className = "corner";
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = RANK_TEXT[card[0]] || card[0];
  corner.append(rank, suitIcon(suit, "pip"));
  node.append(corner, suitIcon(suit, "center"));
  return node;
}
