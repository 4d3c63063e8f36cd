// Divide and Conquer in the browser: the table frame's game module (static/js/games/README.md).
//
// Everything drawn comes from the server's view (app/games/divide/state.py, `view()`): both
// hands are public, so each seat's unshown cards are drawn face up, a face-down card
// included, in its place and unmarked (the server never says which it is). A commitment
// is shown face up only to its owner (`board.commitment`); everyone else sees a back,
// from `committed`, which is all the view says. Who won each battle and why are the
// server's (`winner`, `why`); nothing here knows who beats whom.

import { fill, fillIfChanged, h, plural } from "../../dom.js";
import { cardBack } from "../../cards.js";
import { nameHead } from "../../render.js";

// How a card is written and named. The value is printed on the cards whose value is not
// their pips (the queen is 12, a red card ten more): a fact of the deck, as on a real card.
const RANK = { T: "10" };
const NAME = { T: "10", Q: "queen" };
const SHOWN_VALUE = { Q: 12, r2: 12, r4: 14, r5: 15, r6: 16, r8: 18 };

const isRed = (code) => code[0] === "r";
const rank = (code) => (isRed(code) ? code.slice(1) : RANK[code] || code);

/** "10", "queen", "red 4" */
export function cardName(code) {
  return isRed(code) ? `red ${code.slice(1)}` : NAME[code] || code;
}

/** "queen (12)", "red 4 (14)", "7" */
function cardLabel(code) {
  const v = SHOWN_VALUE[code];
  return v ? `${cardName(code)} (${v})` : cardName(code);
}

/** A face-up card (rank only: suits do not matter in this game). */
function face(code, { size = "", tag = "div", classes = [], attrs = {} } = {}) {
  const value = SHOWN_VALUE[code];
  return h(tag, {
    class: ["card", "dc-card", isRed(code) && "card--red", value && "dc-card--valued", size && `card--${size}`, ...classes],
    dataset: { card: code },
    "aria-label": cardLabel(code),
    title: cardLabel(code),
    ...attrs,
  },
  h("span", { class: "card__corner", "aria-hidden": "true" }, h("span", { class: "card__rank" }, rank(code))),
  h("span", { class: "dc-card__big", "aria-hidden": "true" }, rank(code)),
  value ? h("span", { class: "dc-card__value", "aria-hidden": "true" }, `= ${value}`) : null);
}

/** A face-down card: no value, no data-card, nothing that depends on which card it is. */
function back(size, label) {
  const el = cardBack({ size, label });
  el.classList.add("dc-back");
  return el;
}

/** The seat read as "you" (`ctx.reader`): this browser's, at the table or in a replay. */
const isYou = (seat, ctx) => seat === ctx.reader;
const verb = (seat, ctx, one, other) => (isYou(seat, ctx) ? one : other);
/** A seat as the subject of a sentence: "You" for the reader (a replay names every seat). */
const subject = (seat, ctx) => (isYou(seat, ctx) ? "You" : ctx.name(seat));
const wins = (seat, ctx) => `${subject(seat, ctx)} ${verb(seat, ctx, "win", "wins")}`;
const whose = (seat, ctx) => (isYou(seat, ctx) ? "your" : `${ctx.name(seat)}'s`);

/** The seat drawn at the bottom (this browser's, or seat 0 for a spectator) and the other. */
function order(ctx) {
  let bottom = ctx.seat;
  if (bottom === null || bottom === undefined) {
    bottom = ctx.position && ctx.position(1) === "bottom" ? 1 : 0;
  }
  return { bottom, top: 1 - bottom };
}

// ---- the board ------------------------------------------------------------------------------

function statusBar(view, ctx) {
  const b = view.board;
  const total = b.battles_per_half * 2;
  const where = b.over
    ? `Game ${view.match.game_number} · all ${total} battles fought`
    : `Game ${view.match.game_number} · half ${b.half} of 2 · battle ${b.battle} of ${total}`;
  const { bottom, top } = order(ctx);
  const tally = (s) => h("span", { class: "dc-tally__seat", dataset: { seat: String(s) } },
    h("span", { class: "dc-tally__name" }, ctx.name(s)), " ",
    h("b", { class: "dc-tally__wins" }, String(b.seats[s].wins)));
  return h("div", { class: "dc-status" },
    h("span", { class: "dc-status__where", id: "dc-where" }, where),
    h("span", { class: "dc-tally", id: "dc-tally", "aria-label": `Battles won: ${ctx.name(bottom)} ${b.seats[bottom].wins}, ${ctx.name(top)} ${b.seats[top].wins}` },
      h("span", { class: "dc-tally__label" }, "Battles won"), tally(bottom), h("span", { "aria-hidden": "true" }, "–"), tally(top)));
}

/** A seat's cards not yet shown this half, face up (its face-down card among them, unmarked). */
function unshown(view, seat, ctx, where) {
  const cards = view.board.seats[seat].cards;
  return h("section", { class: ["dc-hand", `dc-hand--${where}`], dataset: { seat: String(seat) }, "aria-label": `${ctx.name(seat)}: cards not shown this half` },
    h("div", { class: "dc-label" }, h("b", {}, ctx.name(seat)), ` · not shown this half (${cards.length})`),
    cards.length
      ? h("div", { class: "card-row dc-row" }, cards.map((c) => face(c, { size: "sm" })))
      : h("div", { class: "dc-empty" }, "none"));
}

/** The current battle's place for one seat: your card face up, anyone else's face down. */
function slot(view, seat, ctx) {
  const b = view.board;
  const mine = seat === ctx.seat;
  const info = b.seats[seat];
  let card;
  let note;
  if (b.over) {
    card = h("div", { class: "card card--slot dc-slot__empty" });
    note = "";
  } else if (mine && b.commitment) {
    card = face(b.commitment, { classes: ["dc-committed"] });
    note = isYou(seat, ctx) ? "Your card, face down" : `${ctx.name(seat)}'s card, face down to the other side`;
  } else if (info.committed) {
    card = back("", `${ctx.name(seat)}: a card face down`);
    note = `${subject(seat, ctx)} ${verb(seat, ctx, "have", "has")} committed`;
  } else {
    card = h("div", { class: "card card--slot dc-slot__empty", "aria-hidden": "true" });
    note = isYou(seat, ctx) ? "Commit a card from your hand" : `${ctx.name(seat)} ${verb(seat, ctx, "are", "is")} choosing…`;
  }
  return h("div", {
    class: ["dc-slot", info.committed && "dc-slot--down", view.to_act.includes(seat) && "dc-slot--acting"],
    dataset: { seat: String(seat), committed: String(Boolean(info.committed)) },
  }, card, h("div", { class: "dc-slot__note" }, note));
}

/** "Battle 3: 9 against 5 — 9 is higher, Ann wins." with the server's reason. */
function battleText(battle, ctx) {
  const [c0, c1] = battle.cards;
  const winner = isYou(battle.winner, ctx) ? "you win" : wins(battle.winner, ctx);
  return `Battle ${battle.number}: ${whose(0, ctx)} ${cardName(c0)} against ${whose(1, ctx)} ${cardName(c1)} — ${battle.why}, ${winner}.`;
}

function arena(view, ctx) {
  const b = view.board;
  const { bottom, top } = order(ctx);
  const last = b.battles[b.battles.length - 1];
  let middle;
  if (b.over) {
    const r = b.result;
    middle = r.winner === null || r.winner === undefined
      ? `Game over: a draw, ${r.wins[0]} battles each`
      : `Game over: ${wins(r.winner, ctx)}, ${r.wins[r.winner]} battles to ${r.wins[1 - r.winner]}`;
  } else {
    middle = `Battle ${b.battle}`;
  }
  if (b.over) {
    return h("div", { class: "dc-arena dc-arena--over", id: "dc-arena" },
      h("div", { class: "dc-arena__mid" }, h("div", { class: "dc-arena__title" }, middle)));
  }
  return h("div", { class: "dc-arena", id: "dc-arena" },
    slot(view, top, ctx),
    h("div", { class: "dc-arena__mid" },
      h("div", { class: "dc-arena__title" }, middle),
      last && !b.over ? h("div", { class: "dc-last", id: "dc-last" }, battleText(last, ctx)) : null),
    slot(view, bottom, ctx));
}

/** Every battle of the game: done ones with both cards and the winner, then the ones to come. */
function track(view, ctx) {
  const b = view.board;
  const { bottom, top } = order(ctx);
  const per = b.battles_per_half;
  const who = (s) => h("span", { class: "dc-who", title: ctx.name(s) }, ctx.name(s));
  const half = (n) => {
    // which row is whose, at the start of each half (the halves wrap on narrow screens)
    const cells = [h("li", { class: "dc-battle dc-battle--who", "aria-hidden": "true" },
      who(top), h("span", { class: "dc-battle__n" }, "#"), who(bottom))];
    for (let i = 0; i < per; i++) {
      const number = (n - 1) * per + i + 1;
      const battle = b.battles[number - 1];
      if (battle) {
        const card = (s) => face(battle.cards[s], { size: "xs", classes: [battle.winner === s ? "dc-won" : "dc-lost"] });
        cells.push(h("li", {
          class: ["dc-battle", battle.winner === bottom ? "dc-battle--bottom" : "dc-battle--top",
            number === b.battles.length && "dc-battle--last"],
          dataset: { number: String(number), winner: String(battle.winner) },
          title: battleText(battle, ctx),
          "aria-label": battleText(battle, ctx),
        }, card(top), h("span", { class: "dc-battle__n", "aria-hidden": "true" }, String(number)), card(bottom)));
      } else {
        cells.push(h("li", {
          class: ["dc-battle", "dc-battle--todo", number === b.battle && "dc-battle--now"],
          dataset: { number: String(number) },
          "aria-label": number === b.battle ? `Battle ${number}: now` : `Battle ${number}: to come`,
        }, h("span", { class: "card card--xs card--slot" }), h("span", { class: "dc-battle__n", "aria-hidden": "true" }, String(number)),
        h("span", { class: "card card--xs card--slot" })));
      }
    }
    return h("div", { class: ["dc-half", b.half === n && !b.over && "dc-half--now"], dataset: { half: String(n) } },
      h("div", { class: "dc-half__title" }, `Half ${n}`),
      h("ol", { class: "dc-battles", start: String((n - 1) * per + 1) }, cells));
  };
  const swap = h("div", { class: ["dc-swap", b.swap.done && "dc-swap--done"], id: "dc-swap" },
    h("span", { class: "dc-swap__icon", "aria-hidden": "true" }, "\u21c5"),
    h("span", { class: "dc-swap__text" },
      b.swap.done ? `Hands changed after battle ${b.swap.after_battle}` : `Hands change after battle ${b.swap.after_battle}`));
  return h("section", { class: ["dc-track", per > 5 && "dc-track--long"], id: "dc-track", "aria-label": "The battles of this game" },
    h("div", { class: "dc-track__halves" }, half(1), swap, half(2)));
}

/** After the game: what each seat was dealt (its first half's cards, the other's second). */
function dealt(view, ctx) {
  const { bottom, top } = order(ctx);
  const row = (s) => h("div", { class: "dc-dealt__seat", dataset: { seat: String(s) } },
    h("div", { class: "dc-label" }, h("b", {}, subject(s, ctx)), ` ${verb(s, ctx, "were", "was")} dealt`),
    h("div", { class: "card-row dc-row" }, view.board.seats[s].dealt.map((c) => face(c, { size: "sm" }))));
  return h("section", { class: "dc-dealt", id: "dc-dealt", "aria-label": "The deal" }, row(top), row(bottom));
}

function board(view, ctx) {
  const { bottom, top } = order(ctx);
  const b = view.board;
  const spectator = ctx.seat === null || ctx.seat === undefined;
  return h("div", { class: ["dc-board", b.over && "dc-board--over", spectator && !b.over && "dc-board--watch"], id: "dc-board", dataset: { game: "divide" } },
    statusBar(view, ctx),
    b.over ? null : unshown(view, top, ctx, "top"),
    arena(view, ctx),
    spectator && !b.over ? unshown(view, bottom, ctx, "bottom") : null,
    b.over ? dealt(view, ctx) : null,
    track(view, ctx));
}

// ---- the tray: your hand ----------------------------------------------------------------------

function hand(view, ctx) {
  const b = view.board;
  if (ctx.seat === null || ctx.seat === undefined || !b.hand) return null;
  const legal = new Map((view.legal || []).map((a) => [a.card, a]));
  const cards = b.hand.map((code) => {
    const action = legal.get(code);
    const label = action ? `${cardLabel(code)}: commit it face down` : cardLabel(code);
    return face(code, {
      tag: "button",
      classes: action ? ["move", "card--legal"] : ["card--illegal"],
      attrs: {
        type: "button",
        "aria-label": label,
        "aria-disabled": !action || ctx.busy ? "true" : null,
        onclick: (e) => {
          if (!action || e.currentTarget.getAttribute("aria-disabled") === "true") return;
          ctx.act(action);
        },
      },
    });
  });
  const waiting = !legal.size;
  let note = null;
  if (!b.over && b.commitment) {
    note = isYou(ctx.seat, ctx)
      ? `You committed the ${cardLabel(b.commitment)}; it is revealed when the other side commits.`
      : `${ctx.name(ctx.seat)} committed the ${cardLabel(b.commitment)}, face down.`;
  }
  return h("div", { class: ["dc-tray", waiting && "dc-tray--waiting"], id: "dc-tray" },
    note ? h("p", { class: "dc-tray__note" }, note) : null,
    h("div", { class: "dc-tray__cards" }, cards));
}

// ---- the frame's optional hooks ------------------------------------------------------------

/** "Game 2: You win, 6 battles to 4" / "Game 2: a draw, 5 battles each" (the view's result). */
function headline(view, ctx) {
  const b = view && view.board;
  if (!b || !b.result) return null;
  const r = b.result;
  const game = `Game ${view.match.game_number}`;
  if (r.winner === null || r.winner === undefined) return `${game}: a draw, ${r.wins[0]} battles each`;
  return `${game}: ${wins(r.winner, ctx)}, ${r.wins[r.winner]} battles to ${r.wins[1 - r.winner]}`;
}

/** A seat's plate: battles won this game, and whether its card is down (never which). */
function plate(seat, view) {
  const b = view && view.board;
  if (!b || !b.seats) return {};
  const info = b.seats[seat];
  return {
    score: { text: plural(info.wins, "battle"), title: "Battles won this game" },
    turn: "choosing\u2026",
    badges: !b.over && info.committed
      ? [{ text: "card down", kind: "down", title: "Has committed a card face down" }] : [],
    winner: Boolean(b.over && b.result && b.result.winner === seat),
  };
}

/** "First to 3 games · long game (14 cards)", from the table's options. */
function rule(options) {
  const o = options || {};
  const target = o.target_wins ?? 3;
  return `First to ${target} game${target === 1 ? "" : "s"}${o.deck === 14 ? " · long game (14 cards)" : ""}`;
}

// ---- the module -----------------------------------------------------------------------------

export default {
  title: "Divide and Conquer",

  render(view, ctx, slots) {
    if (!view || !view.board) {
      if (slots.board) fill(slots.board);
      if (slots.hand) fill(slots.hand);
      for (const el of Object.values(slots.seats || {})) fill(el);
      return;
    }
    if (slots.board) fill(slots.board, board(view, ctx));
    if (slots.hand) {
      const tray = hand(view, ctx);
      if (tray) fillIfChanged(slots.hand, tray);
      else fill(slots.hand);
    }
    for (const el of Object.values(slots.seats || {})) if (el) fill(el);
  },

  // The results panel's heading (the body below leaves the result out), the plate's
  // score, turn words and "card down" badge.
  headline(view, ctx) {
    return headline(view, ctx);
  },

  /** A replay step: the battle a second commitment brought on, if it did. */
  stepSay(events) {
    const battle = events.find((event) => event.type === "battle");
    return battle ? battle.say : undefined;
  },

  plate(seat, view) {
    return plate(seat, view);
  },

  rule(options) {
    return rule(options);
  },

  /** The battle just fought, in the strip above the prompt (good or bad news for a seat). */
  onEvents(events, ctx) {
    const fought = [...events].reverse().find((e) => e.type === "battle");
    if (!fought || !ctx.flash) return;
    const own = ctx.seat === null || ctx.seat === undefined ? "" : fought.winner === ctx.seat ? "good" : "bad";
    ctx.flash(battleText(fought, ctx), { tone: own });
  },

  logKind(event) {
    return event.type === "battle" ? "hunt" : "";
  },

  /** The server's `say` in this seat's words ("You have committed the 3", "you win"), as
   * the strip above the prompt says it. */
  describe(event, ctx) {
    return event && event.say ? ctx.sayYou(event.say) : null;
  },

  scoreboard(match, ctx) {
    const seats = [0, 1];
    const head = h("tr", {}, h("th", {}, "Game"), seats.map((s) => nameHead(ctx, s)));
    const body = h("tbody");
    for (const game of match.games || []) {
      body.appendChild(h("tr", { class: game.winner === null ? "dc-draw" : null, dataset: { game: String(game.number) } },
        h("td", {}, game.winner === null ? `${game.number} (draw)` : String(game.number)),
        seats.map((s) => h("td", { class: game.winner === s ? "won" : null, title: "battles won" }, String(game.wins[s])))));
    }
    if (!(match.games || []).length) {
      body.appendChild(h("tr", {}, h("td", { class: "empty", colspan: "3" }, "No game finished yet.")));
    }
    body.appendChild(h("tr", { class: "wins" }, h("td", {}, "Games won"), seats.map((s) => h("td", {}, String(match.game_wins[s])))));
    const foot = (match.draws ? `${match.draws} drawn game${match.draws === 1 ? "" : "s"} · ` : "")
      + `first to ${match.target_wins} game${match.target_wins === 1 ? "" : "s"} wins`
      + (match.deck === 14 ? " · long game (14 cards)" : "");
    return h("div", { class: "dc-scoreboard", id: "dc-scoreboard" },
      h("table", { class: "dc-scoreboard__table" }, h("thead", {}, head), body),
      h("p", { class: "dc-scoreboard__foot" }, foot));
  },

  results(view, why, ctx) {
    if (!view || !view.board || !view.board.result) return null;
    const b = view.board;
    const per = b.battles_per_half;
    const chip = (battle, s) => h("span", {
      class: ["dc-chip", isRed(battle.cards[s]) && "dc-chip--red", battle.winner === s && "dc-chip--won"],
      dataset: { card: battle.cards[s] }, title: cardLabel(battle.cards[s]),
    }, rank(battle.cards[s]));
    const half = (n) => h("table", { class: "dc-results__table", dataset: { half: String(n) } },
      h("caption", {}, n === 1 ? "Half 1" : "Half 2 \u00b7 \u21c5 the hands changed"),
      h("thead", {}, h("tr", {},
        h("th", { class: "num", "aria-label": "Battle" }, "#"),
        nameHead(ctx, 0, { class: "dc-res__who" }), nameHead(ctx, 1, { class: "dc-res__who" }),
        h("th", {}, "Won by \u00b7 why"))),
      h("tbody", {}, b.battles.filter((x) => (x.number <= per) === (n === 1)).map((battle) =>
        h("tr", { dataset: { number: String(battle.number), winner: String(battle.winner) } },
          h("td", { class: "num" }, String(battle.number)),
          h("td", {}, chip(battle, 0)), h("td", {}, chip(battle, 1)),
          h("td", { class: "dc-res__why" }, h("b", {}, ctx.name(battle.winner)), ` \u00b7 ${battle.why}`)))));
    const m = view.match;
    const match = `Games won: ${ctx.name(0)} ${m.game_wins[0]}, ${ctx.name(1)} ${m.game_wins[1]}`
      + (m.draws ? `, ${m.draws} drawn` : "") + ` \u00b7 first to ${view.options.target_wins}`;
    return h("div", { class: "dc-results", id: "dc-results" },
      h("div", { class: "dc-results__halves" }, half(1), half(2)),
      h("p", { class: "dc-results__match" }, match));
  },
};
