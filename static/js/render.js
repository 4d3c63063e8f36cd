// Small drawing helpers shared by the table, match and replay pages.

import { h } from "./dom.js";
import { cardEl, cardName } from "./cards.js";
import { ApiError, historyHref, tableMemory } from "./api.js";

/** The seat this browser played in a recorded match, or null: the seat it last sat in at
 * that table, when the record has a person of the name it sat down with there. A record
 * is public: anyone else reads it in names only. */
export function readerSeat(tableId, players) {
  const mem = tableMemory(tableId);
  // The seat it holds, or the one it left (`played_seat`, kept when it left).
  const seat = mem && (Number.isInteger(mem.seat) ? mem.seat : mem.played_seat);
  if (!Number.isInteger(seat) || !mem.name) return null;
  // (Several entries may share a seat: a player who left, the bot that took the seat.)
  const p = (players || []).find((x) => x.seat === seat && !x.bot && x.name === mem.name);
  return p ? p.seat : null;
}

/** A recorded seat holder in words: "Bob", "Bruno (bot)". */
export const heldBy = (p) => `${p.name}${p.bot ? " (bot)" : ""}`;

/** "Also played: Bob, Zed (bot)": who held a seat earlier in a recorded match and not at
 * its end (a player who left, a bot replaced between games); null if nobody. */
export function alsoPlayed(m) {
  const earlier = m.earlier || [];
  return earlier.length ? h("p", { class: "muted also-played" }, `Also played: ${earlier.map(heldBy).join(", ")}`) : null;
}

/** The "You" badge beside the reader's own name on a record (nothing for anyone else). */
export function youBadge(seat, me) {
  return seat === me ? h("span", { class: "badge badge--you", title: "You played this seat" }, "You") : null;
}

/** A line of words (see words.js) as an element; cards become coloured names. */
export function lineEl(parts, tag = "span", attrs = {}) {
  return h(tag, attrs, (parts || []).map((p) => (typeof p === "string" ? p : cardName(p.card))));
}

/** A row of small cards. */
export function cardRow(codes, { size = "xs", overlap = false, label = "" } = {}) {
  return h("div", { class: ["card-row", overlap && "card-row--overlap"], "aria-label": label || null },
    (codes || []).map((code) => cardEl(code, { size })));
}

/** The "Bot" badge of a recorded player (``null`` for a person), with the strength the
 * table showed it at ("Bot · hard"); matches recorded before strengths were kept say "Bot". */
export function botBadge(player) {
  if (!player.bot) return null;
  const strength = player.strength;
  return h("span", { class: "badge badge--bot", title: strength ? `${strength} bot` : "bot" },
    strength ? `Bot · ${strength}` : "Bot");
}

/** A column's head naming a seat's player (two players' scoreboards, Divide's results): the
 * name whole on up to two lines (.name-head) rather than cut to "Char…"; its title the plain
 * name where the words say "You". */
export function nameHead(ctx, seat, attrs = {}) {
  return h("th", {
    scope: "col", title: ctx.plainName ? ctx.plainName(seat) : ctx.name(seat), ...attrs,
    class: ["name-col", attrs.class],
  }, h("span", { class: "name-head" }, ctx.name(seat)));
}

/** A record page that could not be loaded: "not found" only when it is not there (404);
 * when the server failed or could not be reached, what happened, and a way to try again. */
export function loadFailed(error, what, missing) {
  const gone = error instanceof ApiError && error.status === 404;
  return h("div", { class: "panel empty-state", id: "load-failed" },
    h("h1", {}, gone ? `${what.charAt(0).toUpperCase()}${what.slice(1)} not found` : `Could not load the ${what}`),
    h("p", {}, gone ? missing : error instanceof ApiError ? error.message : `Something went wrong while showing the ${what}.`),
    h("div", { class: "btn-row" },
      gone ? null : h("button", { class: "btn btn--primary", type: "button", id: "try-again", onclick: () => location.reload() }, "Try again"),
      h("a", { class: gone ? "btn btn--primary" : "btn", href: historyHref() }, "Back to the history")));
}

/** The first character a reader sees: a whole emoji ("👩‍👩‍👧" is five code points, eight
 * UTF-16 units), not half of one (charAt would give a lone surrogate, drawn as "�"). */
const graphemes = typeof Intl !== "undefined" && Intl.Segmenter ? new Intl.Segmenter() : null;

function firstGrapheme(text) {
  if (graphemes) {
    for (const { segment } of graphemes.segment(text)) return segment;
    return "";
  }
  return Array.from(text)[0] || "";
}

/** A seat's initial in a coloured circle, the same colour for a seat on every page. */
export function avatar(name, seat) {
  const letter = firstGrapheme((name || "").trim()).toUpperCase() || "?";
  return h("span", { class: `avatar avatar--${seat}`, "aria-hidden": "true" }, letter);
}

/**
 * Display names by seat: where two seats share a name (three "Heuristic bot"s)
 * the seat number (1-4) is added, the same way on every page.
 */
export function seatNames(players) {
  return players.map((p, seat) => {
    if (!p || !p.name) return null;
    const twins = players.filter((q) => q && q.name === p.name).length;
    return twins > 1 ? `${p.name} ${seat + 1}` : p.name;
  });
}
