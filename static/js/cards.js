// Cards of Dingo in the browser: codes such as "7H", "TS", "AD" (see docs/rules.md),
// their names, roles and values, and the card element every page draws.

import { h } from "./dom.js";

const RANKS = "23456789TJQKA";
const SUITS = "CDHS";

const SUIT = {
  C: { symbol: "\u2663", name: "clubs", red: false, role: "wolf" },
  D: { symbol: "\u2666", name: "diamonds", red: true, role: "rabbit" },
  H: { symbol: "\u2665", name: "hearts", red: true, role: "dingo" },
  S: { symbol: "\u2660", name: "spades", red: false, role: "wolf" },
};
const RANK_LABEL = { T: "10" };
const RANK_NAME = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };

const rankOf = (code) => code[0];
export const suitOf = (code) => code[1];
const rankIndex = (code) => RANKS.indexOf(code[0]);
const isRed = (code) => SUIT[suitOf(code)].red;
const suitSymbol = (suit) => SUIT[suit].symbol;
export const rankLabel = (rank) => RANK_LABEL[rank] || rank;

/** "rabbit", "dingo" or "wolf" */
function roleOf(code) {
  return SUIT[suitOf(code)].role;
}

/** "Rabbit", "Ace rabbit", "Dingo", "Wolf" */
function roleLabel(code) {
  if (code === "AD") return "Ace rabbit";
  const role = roleOf(code);
  return role[0].toUpperCase() + role.slice(1);
}

/** "7s", "10s", "queens": the cards of a rank, as in "hunting the queens". */
export function rankPlural(rank) {
  return { J: "jacks", Q: "queens", K: "kings", A: "aces" }[rank] || `${rankLabel(rank)}s`;
}

/** "10♠" */
function shortName(code) {
  return rankLabel(rankOf(code)) + suitSymbol(suitOf(code));
}

/** "10 of spades" */
export function longName(code) {
  const r = rankOf(code);
  return `${RANK_NAME[r] || r} of ${SUIT[suitOf(code)].name}`;
}

/** Points a card is worth: 2-9 one, 10-K two, aces three; AD ten (three as a penalty). */
export function cardValue(code, { penalty = false } = {}) {
  if (code === "AD") return penalty ? 3 : 10;
  const i = rankIndex(code);
  if (i <= 7) return 1;
  return i < 12 ? 2 : 3;
}

export function pileValue(codes, opts) {
  return (codes || []).reduce((sum, c) => sum + cardValue(c, opts), 0);
}

/** Hand order: by suit (clubs, diamonds, hearts, spades), then rank. */
export function sortCards(codes) {
  return [...codes].sort((a, b) =>
    SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b)) || rankIndex(a) - rankIndex(b));
}

/**
 * A card element. Options: size ("lg", "sm", "xs"), tag ("div" or "button"),
 * extra classes, attrs. The accessible name says the card and its role.
 */
export function cardEl(code, { size = "", tag = "div", classes = [], attrs = {} } = {}) {
  const suit = suitOf(code);
  const role = roleOf(code);
  const cls = ["card", `role-${role}`, isRed(code) && "card--red", size && `card--${size}`,
    code === "AD" && "role-ace-rabbit", ...classes];
  return h(tag, {
    class: cls,
    dataset: { card: code },
    "aria-label": `${longName(code)}, ${roleLabel(code).toLowerCase()}`,
    title: `${longName(code)} (${roleLabel(code).toLowerCase()})`,
    ...attrs,
  },
  h("span", { class: "card__corner", "aria-hidden": "true" },
    h("span", { class: "card__rank" }, rankLabel(rankOf(code))),
    h("span", { class: "card__suit" }, suitSymbol(suit))),
  h("span", { class: "card__pip", "aria-hidden": "true" }, suitSymbol(suit)),
  h("span", { class: "card__role", "aria-hidden": "true" }, code === "AD" ? "Rabbit" : roleLabel(code)));
}

/** A face-down card. */
export function cardBack({ size = "", label = "face-down card" } = {}) {
  return h("div", { class: ["card", "card--back", size && `card--${size}`], "aria-label": label });
}

/** An inline card name for running text, coloured by suit: "7♥". */
export function cardName(code) {
  return h("span", { class: ["cardname", isRed(code) && "cardname--red"], title: longName(code) },
    shortName(code));
}
