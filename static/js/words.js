// The game in plain words: log lines for events and the rule behind each hunt.
// A line is a list of parts: strings, and {card: "7H"} objects that pages draw
// as coloured card names (see render.js `lineEl`). Nothing here builds HTML.

import { rankLabel, suitOf } from "./cards.js";
import { plural } from "./dom.js";

const c = (card) => ({ card });

/** Card codes as parts: "7♣ and 7♠". */
function cardList(cards) {
  const parts = [];
  cards.forEach((code, i) => {
    if (i) parts.push(i === cards.length - 1 ? " and " : ", ");
    parts.push(c(code));
  });
  return parts;
}

export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0";
}

export const SEAT_LABELS = ["Seat 1", "Seat 2", "Seat 3", "Seat 4"];

/** The verbs of the servers' narration (`say`) in the second person. */
const SECOND_PERSON = {
  claims: "claim", closes: "close", commits: "commit", deals: "deal", decides: "decide",
  declares: "declare", discards: "discard", does: "do", draws: "draw", foreplaces: "foreplace",
  has: "have", holds: "hold", is: "are", keeps: "keep", leads: "lead", must: "must",
  passes: "pass", plays: "play", reaches: "reach", scores: "score", takes: "take", wins: "win",
};

/**
 * A server's `say` with `{seat}` as "you" and its verbs in the second person ("{1} wins" →
 * "you win", "{0} now holds" → "You now hold", "{1} wins the deal and scores 2" → "you win
 * the deal and score 2", "{1}'s" → "your"); every other `{n}` is left for the names. A verb
 * after "and" is the same subject's up to the clause's end (. : ; ! ?) or the next `{n}`.
 * "You" at the start of a sentence. No seat (a spectator): `text` as it is; no text: "".
 */
export function secondPerson(text, seat) {
  if (!text) return "";
  if (seat === null || seat === undefined) return text;
  const mine = new RegExp(`\\{${seat}\\}(?:('s)\\b|\\s+((?:now|also|still)\\s+)?(\\w+)([^.:;!?{]*))?`, "g");
  return text.replace(mine, (whole, owner, adverb, verb, clause, at, all) => {
    const start = at === 0 || /[.!?]\s*$/.test(all.slice(0, at));
    if (owner) return start ? "Your" : "your";
    const you = start ? "You" : "you";
    if (!verb) return you;
    const rest = clause.replace(/\band (\w+)/g, (and, next) => (SECOND_PERSON[next] ? `and ${SECOND_PERSON[next]}` : and));
    return `${you} ${adverb || ""}${SECOND_PERSON[verb] || verb}${rest}`;
  });
}

/**
 * names(seat) gives the display name ("You" for the viewer); the sentences
 * below only use it at the start of a clause or after a verb.
 */
export function describeEvent(ev, names) {
  const n = (s) => names(s);
  const you = (s) => names(s) === "You";
  const obj = (s) => (you(s) ? "you" : names(s));
  switch (ev.type) {
    case "seat_taken":
      return [`${you(ev.seat) ? "You" : ev.name} sat down in ${SEAT_LABELS[ev.seat].toLowerCase()}.`];
    case "bot_added":
      return [`${n(ev.seat)}, a bot, took ${SEAT_LABELS[ev.seat].toLowerCase()}.`];
    case "host_changed":
      return [`${n(ev.seat)} ${you(ev.seat) ? "are" : "is"} the host now`,
        ev.reason === "away" ? " (the host left)." : " (handed over)."];
    case "seat_replaced": {
      // Who held it, and whether they left or the host gave their seat away.
      const seat = SEAT_LABELS[ev.seat].toLowerCase();
      if (!ev.kind) return [`${ev.left ? `${ev.player} left` : `The host freed ${ev.player}'s seat`}: ${seat} is free again.`];
      return [ev.left ? `${ev.player} left: a bot, ${n(ev.seat)}, plays ${seat} from now on.`
        : `The host gave ${ev.player}'s seat to a bot: ${n(ev.seat)} plays ${seat} from now on.`];
    }
    case "bot_removed":
      return [`${ev.name}, a bot, left ${SEAT_LABELS[ev.seat].toLowerCase()}.`];
    case "match_start":
      return [ev.match_number > 1 ? `Rematch! Match ${ev.match_number} begins.` : "The match begins."];
    case "game_start":
      return [`Game ${ev.number} begins; ${obj(ev.dealer)} ${you(ev.dealer) ? "deal" : "deals"}.`];
    case "discard":
      return ev.card
        ? [`${n(ev.seat)} discarded `, c(ev.card), "."]
        : [`${n(ev.seat)} discarded a card.`];
    case "pass":
      if (ev.card && you(ev.to)) return [`${n(ev.seat)} passed you `, c(ev.card), "."];
      if (ev.card) return [`${n(ev.seat)} passed `, c(ev.card), ` to ${obj(ev.to)}.`];
      return [`${n(ev.seat)} passed a card ${ev.direction} to ${obj(ev.to)}.`];
    case "dingo":
      if (ev.card === "AH") return [`${n(ev.seat)} ${you(ev.seat) ? "play" : "plays"} the ace dingo `, c("AH"), ": the ace hunt begins."];
      return [`${n(ev.seat)} ${you(ev.seat) ? "play" : "plays"} the dingo `, c(ev.card), ": the ",
        c(ev.card[0] + "D"), " rabbit is hunted."];
    case "wolves":
      if (!ev.cards.length) return [`${n(ev.seat)} ${you(ev.seat) ? "play" : "plays"} no wolf.`];
      return [`${n(ev.seat)} ${you(ev.seat) ? "play" : "plays"} `, ev.cards.length === 2 ? "both wolves " : "the wolf ",
        ...cardList(ev.cards), "."];
    case "ace_rabbit":
      return [`${n(ev.seat)} ${you(ev.seat) ? "play" : "plays"} the ace rabbit `, c("AD"), "!"];
    case "hunt_result":
      return huntWords(ev, names);
    case "game_over":
      return gameOverWords(ev, names);
    case "match_over":
      return [`${n(ev.winner)} ${you(ev.winner) ? "win" : "wins"} the match with ${plural(ev.game_wins[ev.winner], "game")} won!`];
    case "auto_move":
      return ev.reason === "timer"
        ? [`Time ran out: a bot moved for ${obj(ev.seat)}.`]
        : [`${n(ev.seat)} ${you(ev.seat) ? "are" : "is"} away: a bot moved for the seat.`];
    case "match_recorded":
      return ["The match is recorded in the history."];
    default:
      return null;
  }
}

/** A hunt's points per seat: "Ann +3, Bea −1"; a seat whose cards scored and cost as much
 * is there too ("Dov 0"), so every seat the hunt touched is named. */
function pointsWords(ev, names) {
  const touched = (seat) => [ev.to_score, ev.to_penalty].some((piles) => piles && piles[seat] && piles[seat].length);
  const parts = [];
  ev.points.forEach((p, seat) => {
    if (p || touched(seat)) parts.push(`${parts.length ? ", " : ""}${names(seat)} ${signed(p)}`);
  });
  return parts.length ? parts.join("") : "no points";
}

/** The rule behind a finished hunt, in words. */
export function huntWords(ev, names) {
  const obj = (s) => (names(s) === "You" ? "you" : names(s));
  const rabbit = ev.rabbit;
  const dingoSeat = ev.dingo_seat;
  const dingo = ev.rank === "A" ? "AH" : ev.rank + "H";
  const wolves = [];
  for (const play of ev.plays || []) {
    for (const card of play.cards) if (suitOf(card) === "C" || suitOf(card) === "S") wolves.push([play.seat, card]);
  }
  const pts = pointsWords(ev, names);
  switch (ev.rule) {
    case "void":
      return ["The dingo ", c(dingo), " was discarded: the ", c(rabbit), " rabbit is dead and not hunted."];
    case "no_wolf":
      return ["No wolf came: the ", c(rabbit), ` rabbit escapes and ${obj(dingoSeat)} ${names(dingoSeat) === "You" ? "take" : "takes"} the dingo `,
        c(dingo), ` as a penalty (${pts}).`];
    case "one_wolf": {
      const [ws, wc] = wolves[0];
      return [`${names(ws)} caught the `, c(rabbit), " rabbit with ", c(wc),
        `; the dingo scores for ${obj(dingoSeat)} (${pts}).`];
    }
    case "two_wolves": {
      const [, first] = wolves[0];
      const [ws2, second] = wolves[1];
      return ["Two wolves: the second, ", c(second), `, catches the `, c(rabbit), ` rabbit for ${obj(ws2)}; `,
        `${obj(dingoSeat)} ${names(dingoSeat) === "You" ? "keep" : "keeps"} the dingo and the first wolf `, c(first), ` (${pts}).`];
    }
    case "ace_caught": {
      const adHeld = ev.to_penalty.some((p) => p.includes("AD"));
      return ["The ace hunt is over: every ace played scores for its player",
        adHeld ? "; the ace rabbit left in a hand is a penalty" : "", ` (${pts}).`];
    }
    case "ace_no_wolf": {
      const adHeld = ev.to_penalty.some((p) => p.includes("AD"));
      return ["No ace wolf came: the ace dingo ", c("AH"), " is a penalty",
        adHeld ? " and so is the ace rabbit left in a hand" : "", ` (${pts}).`];
    }
    default:
      return [`Hunt of the ${rankLabel(ev.rank)}: ${pts}.`];
  }
}

function gameOverWords(ev, names) {
  if (ev.winner === null || ev.winner === undefined) {
    return ["Game over: a draw, nobody wins this game."];
  }
  const w = names(ev.winner);
  const parts = [`Game over: ${w} ${w === "You" ? "win" : "wins"} with ${ev.scores[ev.winner]} points`];
  if (ev.tie_break && ev.tie_break !== "draw") parts.push(" (the tie broken by the ", c(ev.tie_break), " rabbit)");
  parts.push(".");
  return parts;
}

