// Dingo on the table page: the game's module for the table frame (static/js/games/README.md).
//
// The frame (static/js/table.js) owns the connection, the seats, the lobby, chat, the log,
// the timer and the results panel; this module draws Dingo's board (rabbits, discards, dead
// rabbits, the hunt), your hand and the hunt buttons, what you passed and received, each
// seat's piles, the hunts strip in the side column, the scoreboard and the results' "why".
// Everything comes from the server's view: what may be played is `view.legal`.

import { h, fill, plural } from "../../dom.js";
import { cardEl, cardBack, cardValue, pileValue, longName, rankPlural, sortCards, suitOf } from "../../cards.js";
import { describeEvent, huntWords, signed } from "../../words.js";
import { avatar, cardRow, lineEl } from "../../render.js";

// Where a card flies in from, per position on screen.
const FROM = { bottom: ["0px", "90px"], left: ["-90px", "0px"], top: ["0px", "-90px"], right: ["90px", "0px"] };

// What the page keeps of this game besides the view: its hunts, and the order of my passes.
const M = {
  hunts: [],      // this game's hunt_result events, in order
  passOrder: [],  // "gave:left" / "got:left" in the order my passes happened
};

const decisionOf = (view) => view && view.decision;

// ---- the seats' plates --------------------------------------------------------------------

function plate(seat, g, ctx) {
  const isMe = seat === ctx.seat && ctx.seat !== null;
  const winner = Boolean(g.result && g.result.winner === seat);
  const badges = [];
  if (g.dealer === seat) badges.push({ text: "Dealer", kind: "dealer", title: "Dealer" });
  if (winner) badges.push({ text: "Winner", kind: "winner" });

  const meta = [];
  const size = g.hand_sizes[seat];
  if (!isMe) {
    const backs = h("span", { class: "seat__backs", "aria-hidden": "true" });
    for (let i = 0; i < Math.min(size, 10); i++) backs.appendChild(cardBack());
    meta.push(backs);
  }
  meta.push(h("span", { class: "seat__count" }, plural(size, "card")));

  const body = [];
  const scoreVal = pileValue(g.score_piles[seat]);
  const penaltyVal = pileValue(g.penalty_piles[seat], { penalty: true });
  body.push(h("div", { class: "seat__piles" },
    h("span", { class: "pile-val pile-val--score", title: "Score pile value" },
      h("span", { class: "pile-val__label" }, "Score"), h("span", { class: "pile-val__short", "aria-hidden": "true" }, "S"),
      h("b", {}, String(scoreVal))),
    // A penalty shows what it costs ("−3"), as the results table and the hunt lines do.
    h("span", { class: "pile-val pile-val--penalty", title: "Penalty pile value" },
      h("span", { class: "pile-val__label" }, "Penalty"), h("span", { class: "pile-val__short", "aria-hidden": "true" }, "P"),
      h("b", {}, signed(-penaltyVal)))));

  const cards = h("div", { class: "seat__cards" });
  if (g.score_piles[seat].length) cards.appendChild(cardRow(g.score_piles[seat], { label: "Score pile" }));
  if (g.penalty_piles[seat].length) {
    cards.appendChild(h("span", { class: "seat__cards-label" }, "Penalty"));
    cards.appendChild(cardRow(g.penalty_piles[seat], { label: "Penalty pile" }));
  }
  if (cards.childNodes.length) body.push(cards);

  if (g.result && g.result.hands[seat].length && !isMe) {
    body.push(h("div", { class: "seat__reveal" },
      h("span", { class: "seat__cards-label" }, "Left in hand"),
      cardRow(g.result.hands[seat], { label: `${ctx.plainName(seat)}'s hand` })));
  }
  return {
    score: { text: signed(g.scores[seat]), title: "Points this game" },
    badges, meta, body, winner, turn: decisionShort(decisionOf(g)),
  };
}

function decisionShort(decision) {
  if (!decision) return "";
  if (decision.kind === "discard") return "discarding…";
  if (decision.kind === "pass") return "passing…";
  return "deciding…";
}

// ---- the board ---------------------------------------------------------------------------

function board(g, ctx) {
  const prevGame = ctx.prev;
  const el = h("div", { class: "board" });
  const from = (seat) => FROM[ctx.position(seat)] || FROM.bottom;

  // the rabbit pile
  const rabbits = h("div", { class: "spot board__rabbits" }, h("span", { class: "spot__label" }, "Rabbits"));
  if (g.rabbits.length) {
    rabbits.appendChild(h("div", { class: ["stack", g.rabbits.length > 1 && "stack--deep"] }, cardEl(g.rabbits[0], { size: "sm" })));
    rabbits.appendChild(h("span", { class: "spot__count" }, `${g.rabbits.length} left`));
  } else {
    rabbits.appendChild(h("div", { class: "card card--sm card--slot", "aria-label": "no rabbits left" }));
  }
  el.appendChild(rabbits);

  // the discard pile
  const discards = h("div", { class: "spot board__discards" }, h("span", { class: "spot__label" }, "Discards"));
  const newTop = g.discard_top && (!prevGame || prevGame.discard_count !== g.discard_count);
  const discarder = lastDiscarder(ctx);
  const enterAttrs = (seat) => (seat === null ? {} : { style: { "--from-x": from(seat)[0], "--from-y": from(seat)[1] } });
  if (g.discards && g.discards.length) {
    const fan = h("div", { class: "discard-fan" });
    g.discards.forEach((code, i) => fan.appendChild(cardEl(code, {
      size: "xs", classes: [newTop && i === g.discards.length - 1 && "card--enter"], attrs: i === g.discards.length - 1 ? enterAttrs(discarder) : {},
    })));
    discards.appendChild(fan);
  } else if (g.discard_top) {
    discards.appendChild(h("div", { class: ["stack", g.discard_count > 1 && "stack--deep"] },
      cardEl(g.discard_top, { size: "sm", classes: [newTop && "card--enter"], attrs: enterAttrs(discarder) })));
  } else {
    discards.appendChild(h("div", { class: "card card--sm card--slot", "aria-label": "no discards yet" }));
  }
  discards.appendChild(h("span", { class: "spot__count" }, g.discard_count ? `${g.discard_count} discarded` : "none yet"));
  el.appendChild(discards);

  // dead rabbits
  const dead = h("div", { class: "spot board__dead" }, h("span", { class: "spot__label" }, "Dead rabbits"));
  if (g.dead_rabbits.length) {
    const row = cardRow(g.dead_rabbits, { overlap: true, label: "Dead rabbits" });
    row.style.setProperty("--n", String(g.dead_rabbits.length));
    dead.appendChild(row);
  } else {
    dead.appendChild(h("span", { class: "spot__count" }, "none"));
  }
  el.appendChild(dead);

  // the hunt in the middle, or the exchange round
  const middle = h("div", { class: "spot board__hunted" });
  if (g.hunt) {
    const title = g.hunt.rank === "A" ? "The ace hunt" : `Hunting the ${rankPlural(g.hunt.rank)}`;
    middle.appendChild(h("div", { class: "hunted" },
      cardEl(g.hunt.rabbit, { classes: [huntIsNew(g, prevGame) && "card--enter"] }),
      h("span", { class: "hunted__title" }, title)));
  } else {
    middle.appendChild(stageBadge(g));
  }
  el.appendChild(middle);

  // each seat's cards in this hunt
  const prevPlays = new Set();
  if (prevGame && prevGame.hunt && g.hunt && prevGame.hunt.rank === g.hunt.rank) {
    for (const p of prevGame.hunt.plays) for (const c of p.cards) prevPlays.add(c);
  }
  for (let seat = 0; seat < ctx.seats; seat++) {
    const pos = ctx.position(seat);
    const slot = h("div", { class: `play play--${pos}`, dataset: { seat: String(seat) } });
    if (g.hunt) {
      const cards = g.hunt.plays.filter((p) => p.seat === seat).flatMap((p) => p.cards);
      for (const code of cards) {
        slot.appendChild(cardEl(code, {
          size: "sm",
          classes: [!prevPlays.has(code) && "card--enter"],
          attrs: { style: { "--from-x": FROM[pos][0], "--from-y": FROM[pos][1] } },
        }));
      }
    }
    el.appendChild(slot);
  }

  // the last hunt in which a card was played, in words (dead rabbits do not count)
  const info = h("div", { class: "spot board__info", id: "last-hunt" });
  const last = lastPlayedHunt(g);
  if (last) {
    info.appendChild(h("span", { class: "spot__label" }, "Last hunt"));
    info.appendChild(lastHuntEl(last, ctx));
  }
  el.appendChild(info);
  return el;
}

function huntIsNew(g, prevGame) {
  return !prevGame || !prevGame.hunt || prevGame.hunt.rank !== g.hunt.rank;
}

function lastDiscarder(ctx) {
  const ev = [...(ctx.events || [])].reverse().find((e) => e.type === "discard");
  return ev ? ev.seat : null;
}

function stageBadge(g) {
  const d = g.decision;
  if (!d) return h("div", { class: "stage-badge" }, g.phase === "over" ? "Game over" : g.phase);
  if (d.kind === "pass") {
    const arrow = { left: "\u21B6", across: "\u21C5", right: "\u21B7" }[d.direction] || "";
    return h("div", { class: "stage-badge" }, h("span", { class: "arrow", "aria-hidden": "true" }, arrow),
      `Pass ${d.direction}`, h("small", {}, "face down, one card each"));
  }
  return h("div", { class: "stage-badge" }, `Discard ${d.round} of 4`,
    h("small", {}, "aces can't be discarded"));
}

function lastPlayedHunt(g) {
  const played = M.hunts.filter((e) => e.rule !== "void");
  if (played.length) return played[played.length - 1];
  return g.last_hunt && g.last_hunt.rule !== "void" ? g.last_hunt : null;
}

/** Who caught what in a hunt: "Bruno +2, you +1", or how the rabbit escaped. */
function huntOutcome(hunt, ctx) {
  const names = (seat) => (seat === ctx.reader ? "you" : ctx.name(seat));
  const gains = hunt.points.map((p, seat) => (p ? `${names(seat)} ${signed(p)}` : null)).filter(Boolean);
  if (hunt.rule === "void") return "dead: its dingo was discarded";
  if (hunt.rule === "no_wolf" || hunt.rule === "ace_no_wolf") return `escaped: no wolf came (${gains.join(", ") || "no points"})`;
  const by = hunt.caught_by !== null && hunt.caught_by !== undefined ? `caught by ${names(hunt.caught_by)}` : "hunted";
  return `${by} (${gains.join(", ") || "no points"})`;
}

function lastHuntEl(hunt, ctx) {
  const rabbit = cardEl(hunt.rabbit, { size: "xs" });
  return h("div", { class: "spot", title: lineEl(huntWords(hunt, ctx.name)).textContent }, rabbit,
    h("span", { class: "spot__count" }, huntOutcome(hunt, ctx)));
}

/** The strip of this game's finished hunts in the side column: rank, cards played, who scored. */
function renderHunts(side, ctx) {
  let box = side.querySelector("#hunts");
  if (!box) {
    box = h("details", { class: "hunts", id: "hunts" },
      h("summary", {}, "Hunts this game ", h("span", { id: "hunts-count" })),
      h("ol", { class: "hunts__list", id: "hunts-list" }));
    side.appendChild(box);
  }
  const list = box.querySelector("#hunts-list");
  box.querySelector("#hunts-count").textContent = M.hunts.length ? `(${M.hunts.length})` : "";
  if (!M.hunts.length) {
    fill(list, h("li", { class: "hunts__empty" }, "No hunt has finished yet in this game."));
    return;
  }
  fill(list, M.hunts.map((hunt) => h("li", { class: "hunts__row" },
    cardEl(hunt.rabbit, { size: "xs" }),
    h("span", { class: "hunts__rank" }, hunt.rank === "A" ? "Aces" : rankPlural(hunt.rank)),
    h("span", { class: "hunts__plays" }, hunt.rule === "void" ? "no cards: dead rabbit"
      : (hunt.plays || []).map((p, i) => [i ? "; " : "", `${ctx.name(p.seat)} `, p.cards.map((c) => lineEl([{ card: c }, " "]))])),
    h("span", { class: "hunts__who" }, huntOutcome(hunt, ctx)))));
}

// ---- the tray: hunt buttons, the hand, the exchanges --------------------------------------

function legalByCard(g) {
  const map = new Map();
  for (const action of g.legal || []) {
    if (action.type === "play") {
      if (action.cards.length === 1) map.set(action.cards[0], action);
    } else {
      map.set(action.card, action);
    }
  }
  return map;
}

function verb(action) {
  if (action.type === "discard") return "discard";
  if (action.type === "pass") return "pass";
  return "play";
}

function renderTray(g, ctx, slots) {
  // hunt buttons
  const d = decisionOf(g);
  if (ctx.myTurn && d && d.kind === "play") {
    const both = g.legal.find((a) => a.cards.length === 2);
    if (both) {
      slots.actions.appendChild(h("button", {
        class: "btn btn--primary move", type: "button", id: "play-both", disabled: ctx.busy,
        onclick: () => ctx.act(both),
      }, "Play both wolves"));
    }
    const none = g.legal.find((a) => a.cards.length === 0);
    if (none) {
      slots.actions.appendChild(h("button", {
        class: "btn move", type: "button", id: "play-none", disabled: ctx.busy,
        onclick: () => ctx.act(none),
      }, "Play no wolf"));
    }
  }

  // the hand
  const hand = g.hand ? sortCards(g.hand) : null;
  if (hand) {
    const legal = ctx.myTurn ? legalByCard(g) : new Map();
    const before = new Set(ctx.prev && ctx.prev.hand ? ctx.prev.hand : hand);
    for (const code of hand) {
      const action = legal.get(code);
      // A card that cannot be played stays focusable and says why when pressed.
      slots.hand.appendChild(cardEl(code, {
        tag: "button",
        classes: [action ? "card--legal move" : "card--illegal", !before.has(code) && "card--new"],
        attrs: {
          type: "button",
          "aria-disabled": !action || ctx.busy ? "true" : null,
          onclick: () => (action ? ctx.act(action) : whyNot(code, g, ctx)),
          "aria-label": `${longName(code)}${action ? `: ${verb(action)}` : ""}`,
        },
      }));
    }
  }

  // what you passed and received, in the order it happened
  if (g.passed) {
    for (const direction of ["left", "across", "right"]) {
      const gave = g.passed.find((p) => p.direction === direction);
      const got = g.received.find((p) => p.direction === direction);
      if (!gave && !got) continue;
      const gaveAt = M.passOrder.indexOf(`gave:${direction}`);
      const gotAt = M.passOrder.indexOf(`got:${direction}`);
      const gotFirst = got && (!gave || (gotAt >= 0 && (gaveAt < 0 || gotAt < gaveAt)));
      const gaveParts = gave ? ["gave ", { card: gave.card }, ` to ${ctx.plainName(gave.to)}`] : [];
      const gotParts = got ? ["got ", { card: got.card }, ` from ${ctx.plainName(got.from)}`] : [];
      const [first, second] = gotFirst ? [gotParts, gaveParts] : [gaveParts, gotParts];
      const parts = [`Pass ${direction}: you `, ...first];
      if (second.length) parts.push(", ", ...second);
      slots.below.appendChild(lineEl(parts, "span", { class: "exchange" }));
    }
  }
}

/** A card that cannot be played was pressed: the server's rules engine says why. */
function whyNot(code, g, ctx) {
  if (ctx.busy) return;
  if (!ctx.myTurn) {
    const d = decisionOf(g);
    ctx.toast(d && ctx.seat !== null && ctx.toAct.length ? `It isn't your turn: waiting for ${ctx.plainName(ctx.toAct[0])}.` : "You can't play a card now.", { error: true });
    return;
  }
  // Ask for the move anyway: the engine refuses it with its reason ("aces may not be discarded").
  const kind = g.decision.kind;
  if (kind === "play") ctx.act({ type: "play", cards: [code] }, { keepFlash: true });
  else ctx.act({ type: kind, card: code }, { keepFlash: true });
}

// ---- the prompt ----------------------------------------------------------------------------

function prompt(g, ctx) {
  const me = ctx.seat;
  const watching = me === null;
  const match = ctx.match;
  if (g.phase === "over") {
    const w = g.result.winner;
    const who = w === null || w === undefined ? "a draw" : `${ctx.name(w)} ${w === me ? "win" : "wins"}`;
    if (ctx.status !== "match_over") return { parts: [`Game over: ${who}.`] };
    const mw = match.winner;  // (as the other games say it: "…: you won it.")
    const won = mw === null || mw === undefined ? "it is a draw" : mw === me ? "you won it" : `${ctx.name(mw)} won it`;
    return { parts: [`The match is over: ${won}.`] };
  }
  const d = g.decision;
  const who = ctx.toAct[0];
  if (ctx.myTurn) {
    if (d.kind === "discard") {
      return { parts: [`Discard a card (discard ${d.round} of 4). Aces can't be discarded.`], act: true };
    }
    if (d.kind === "pass") {
      return { parts: [`Pass a card ${d.direction} to ${ctx.plainName(d.to)}. Any card may be passed.`], act: true };
    }
    return { parts: huntPrompt(g, ctx.name), act: true };
  }
  const prefix = watching ? "You are watching. " : "";
  if (d.kind === "discard") return { parts: [`${prefix}${ctx.plainName(who)} is discarding a card.`] };
  if (d.kind === "pass") return { parts: [`${prefix}${ctx.plainName(who)} is passing a card ${d.direction} to ${ctx.name(d.to) === "You" ? "you" : ctx.plainName(d.to)}.`] };
  if (g.hunt) {
    return { parts: [`${prefix}${ctx.plainName(who)} may play a wolf on the `, { card: g.hunt.rabbit }, " rabbit."] };
  }
  return { parts: [`${prefix}Waiting for ${ctx.plainName(who)}.`] };
}

function huntPrompt(g, names) {
  const hunt = g.hunt;
  const dingo = hunt.rank === "A" ? "AH" : `${hunt.rank}H`;
  const wolvesOut = hunt.plays.flatMap((p) => p.cards).filter((c) => c[1] === "C" || c[1] === "S").length;
  const mine = g.legal.filter((a) => a.cards.length === 1).map((a) => a.cards[0]);
  const parts = [`${names(hunt.dingo_seat)} played the dingo `, { card: dingo }, ". Play "];
  mine.forEach((code, i) => {
    if (i) parts.push(" or ");
    parts.push({ card: code });
  });
  if (mine.length === 2) parts.push(" (or both)");
  if (hunt.rank === "A") {
    parts.push(", or no wolf.");
    if (g.hand.includes("AD")) {
      parts.push(" You hold the ace rabbit: it goes out by itself once both ace wolves are played.");
    }
  } else {
    parts.push(wolvesOut ? " as the second wolf to catch the " : " to catch the ", { card: hunt.rabbit },
      ", or play no wolf.");
  }
  return parts;
}

// ---- the scoreboard ------------------------------------------------------------------------

function scoreboard(m, ctx) {
  const seats = [...Array(ctx.seats).keys()];
  // Four names share a narrow column each and may end in "…": the seat's avatar, the same
  // colour and initial as its plate on the felt, tells whose column it is.
  const head = h("tr", {}, h("th", {}, "Game"), seats.map((s) => h("th", { class: "seat-col", title: ctx.plainName(s) },
    avatar(ctx.plainName(s), s), h("span", { class: "seat-col__name" }, ctx.name(s)))));
  const body = h("tbody");
  for (const game of m.games) {
    body.appendChild(h("tr", {}, h("td", {}, String(game.number)),
      game.scores.map((sc, s) => h("td", { class: game.winner === s ? "won" : null }, signed(sc)))));
  }
  const g = ctx.view;
  if (g && g.phase !== "over") {
    body.appendChild(h("tr", { class: "now" }, h("td", {}, `${m.game_number} (now)`),
      g.scores.map((sc) => h("td", {}, signed(sc)))));
  }
  body.appendChild(h("tr", { class: "wins" }, h("td", {}, "Games won"), m.game_wins.map((w) => h("td", {}, String(w)))));
  body.appendChild(h("tr", { class: "totals" }, h("td", {}, "Points"), m.totals.map((t) => h("td", {}, signed(t)))));
  return h("table", { id: "scoreboard-table" }, h("thead", {}, head), body);
}

// ---- the results -----------------------------------------------------------------------------

function headline(g, ctx) {
  const m = ctx.match;
  const r = g.result;
  return r.winner === null || r.winner === undefined
    ? `Game ${m.game_number}: a draw`
    : `Game ${m.game_number}: ${ctx.name(r.winner)} ${r.winner === ctx.reader ? "win" : "wins"}`;
}

function results(g, why, ctx) {
  const m = ctx.match;
  const r = g.result;
  const body = document.createDocumentFragment();
  if (r.tie_break && r.tie_break !== "draw") {
    body.appendChild(lineEl(["Tie broken by the ", { card: r.tie_break }, " rabbit in the score pile."], "p", { class: "muted" }));
  }
  const rows = [...Array(ctx.seats).keys()].map((seat) => h("tr", {},
    h("td", {}, ctx.name(seat)),
    h("td", { class: "num" }, String(pileValue(r.score_piles[seat]))),
    h("td", { class: "num" }, signed(-pileValue(r.penalty_piles[seat], { penalty: true }))),
    h("td", { class: ["num", r.winner === seat && "win"] }, signed(r.scores[seat])),
    h("td", { class: "num" }, String(m.game_wins[seat]))));
  body.appendChild(h("table", { class: "grid-table result-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", { class: "num", title: "Score pile" }, "Score"),
      h("th", { class: "num", title: "Penalty pile" }, "Penalty"), h("th", { class: "num" }, "Points"), h("th", { class: "num", title: "Games won" }, "Wins"))),
    h("tbody", {}, rows)));
  if (why) body.appendChild(whyEl(r, why, ctx));
  return body;
}

/**
 * Why everyone scored what they did: the rabbits each caught and the dingoes and wolves
 * won (with values), each penalty card and the hunt that put it there, and the rule that
 * decided the game. The sentences
 * are the server's, the same the replay viewer shows (app/api/replay.py).
 */
function whyEl(r, why, ctx) {
  const box = h("div", { class: "why", id: "why" }, h("h3", {}, "Why"));
  for (let seat = 0; seat < ctx.seats; seat++) {
    const valued = (cards) => cards.flatMap((c, i) => [i ? ", " : "", { card: c }, ` (${cardValue(c)})`]);
    const rabbits = r.score_piles[seat].filter((c) => suitOf(c) === "D");
    const caught = rabbits.length ? ["Rabbits caught: ", ...valued(rabbits), "."] : ["No rabbit caught."];
    // The rest of the score pile counts too: every point is told.
    const won = r.score_piles[seat].filter((c) => suitOf(c) !== "D");
    if (won.length) caught.push(" Dingoes and wolves won: ", ...valued(won), ".");
    const block = h("div", { class: "why__seat", dataset: { seat: String(seat) } },
      h("b", {}, `${ctx.name(seat)} ${signed(r.scores[seat])}`), " ", lineEl(caught));
    const penalties = r.penalty_piles[seat];
    if (penalties.length) {
      const list = h("ul", { class: "why__penalty" });
      const told = new Set();
      for (const card of penalties) {
        const hunt = why.hunts.find((e) => e.to_penalty[seat].includes(card));
        const key = hunt ? hunt.rank : card;
        if (told.has(key)) continue;
        told.add(key);
        const cards = hunt ? hunt.to_penalty[seat] : [card];
        list.appendChild(h("li", {}, lineEl(["Penalty ",
          ...cards.flatMap((c, i) => [i ? " and " : "", { card: c }]),
          ` (\u2212${pileValue(cards, { penalty: true })}): `]), hunt ? ctx.sayYou(hunt.explanation) : ""));
      }
      block.appendChild(list);
    } else {
      block.appendChild(document.createTextNode(" No penalty."));
    }
    box.appendChild(block);
  }
  box.appendChild(h("p", { class: "why__rule" }, ctx.sayYou(why.winner)));
  return box;
}

// ---- the module ------------------------------------------------------------------------------

export default {
  title: "Dingo",

  render(view, ctx, slots) {
    // (No game in the lobby: no list of its hunts either.)
    if (slots.side && view) renderHunts(slots.side, ctx);
    else slots.side?.querySelector("#hunts")?.remove();
    if (!view) return;
    fill(slots.board, board(view, ctx));
    renderTray(view, ctx, slots);
  },

  plate(seat, view, ctx) {
    return plate(seat, view, ctx);
  },

  prompt(view, ctx) {
    return prompt(view, ctx);
  },

  rule(options) {
    const notes = [options.points_to_win ? `First to ${options.points_to_win} points` : `First to ${plural(options.games_to_win, "game")}`];
    if (options.open_discards) notes.push("open discards");
    return notes.join(" · ");
  },

  scoreboard(match, ctx) {
    return scoreboard(match, ctx);
  },

  headline(view, ctx) {
    return headline(view, ctx);
  },

  results(view, why, ctx) {
    return results(view, why, ctx);
  },

  describe(event, ctx) {
    const target = ctx.options && ctx.options.points_to_win;
    if (event.type === "match_over" && target) {
      // Played to a points target: the points decided it, not the games won.
      const w = event.winner;
      return [`${ctx.name(w)} ${ctx.name(w) === "You" ? "win" : "wins"} the match with ${plural(event.totals[w], "point")}!`];
    }
    return describeEvent(event, ctx.name);
  },

  logKind(event) {
    return event.type === "hunt_result" ? "hunt" : "";
  },

  observe(ev, ctx) {
    if (ev.type === "game_start") {
      M.hunts = [];
      M.passOrder = [];
    } else if (ev.type === "hunt_result") {
      M.hunts.push(ev);
    } else if (ev.type === "pass" && ctx.seat !== null) {
      if (ev.seat === ctx.seat) M.passOrder.push(`gave:${ev.direction}`);
      else if (ev.to === ctx.seat) M.passOrder.push(`got:${ev.direction}`);
    }
  },

  /** The result of a hunt, in the strip above the prompt. */
  onEvents(events, ctx) {
    const hunt = [...events].reverse().find((e) => e.type === "hunt_result" && e.rule !== "void");
    if (!hunt) return;
    const caught = !["no_wolf", "ace_no_wolf"].includes(hunt.rule);
    ctx.flash(huntWords(hunt, ctx.name), { tone: caught ? "good" : "bad" });
  },
};
