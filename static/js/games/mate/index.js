// Mate on the table page: the game's module for the table frame (static/js/games/README.md).
//
// Everything drawn here comes from the server's view (app/games/mate/state.py `view()`):
// what may be played is `view.legal`, what happened is `view.board.moves`, how a game ended
// is `view.board.result` and its `say`. No rule of Mate is worked out in the browser. The
// one secret of the game, which card a player foreplaced, is never in another seat's view,
// so it cannot be drawn: the opponent's face-down card is a card back until the reveal.

import { h } from "../../dom.js";
import { cardEl, cardBack, cardName } from "../../cards.js";
import { nameHead } from "../../render.js";

const RANK_WORD = { A: "ace", T: "ten", K: "king", Q: "queen", 7: "seven" };
const SUIT_WORD = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const MOVES = 10; // columns of the move strip: a game has at most ten moves

/** "ten of clubs" (Mate's own words: a ten, not a 10). */
function cardWords(code) {
  return `${RANK_WORD[code[0]] || code[0]} of ${SUIT_WORD[code[1]] || code[1]}`;
}

/** A Mate card: the shared face without Dingo's role ribbon, named in Mate's words. */
function card(code, { size = "", tag = "div", classes = [], attrs = {} } = {}) {
  const name = cardWords(code);
  return cardEl(code, {
    size, tag, classes: ["mate-card", ...classes],
    attrs: { "aria-label": name, title: name, ...attrs },
  });
}

function back(label, size = "") {
  const el = cardBack({ size, label });
  el.classList.add("mate-card", "mate-back");
  el.setAttribute("role", "img");
  el.title = label;
  return el;
}

function slot(label, size = "") {
  return h("div", { class: ["card", "card--slot", "mate-card", size && `card--${size}`], "aria-label": label, role: "img" });
}

/** A seat's name inside a sentence: "you" for the reader (`ctx.reader`), the name otherwise. */
function nameIn(ctx, seat) {
  return seat === ctx.reader ? "you" : ctx.name(seat);
}

/** A seat's name starting a sentence. */
function nameStart(ctx, seat) {
  return seat === ctx.reader ? "You" : ctx.name(seat);
}

/** Seats in screen order: the one at the top first, the bottom one (this browser's) last. */
function screenOrder(ctx) {
  const top = [0, 1].find((s) => ctx.position(s) === "top");
  const first = top === undefined ? (ctx.seat === null ? 1 : 1 - ctx.seat) : top;
  return [first, 1 - first];
}

// The server's narration names seats as {0} and {1} in the third person ("{0} scores");
// ctx.sayYou puts the viewer's own seat in the second person ("you score") and fills in the
// other names. Only the grammar changes, never the facts.
const label = (text, extra = {}) => h("span", { class: "mate-label", ...extra }, text);

// ---- the board -------------------------------------------------------------------------

/** Where a seat is in the foreplace decision: "deciding…" (its turn) or "next to decide" (either reads after "You:" and "Bea:"). */
function deciding(view, seat) {
  return view.to_act.includes(seat) ? "deciding\u2026" : "next to decide";
}

/** What a seat has done about foreplacing, in words, and its face-down card once the game
 * is over. (A player's own face-down card is named on its plate, so the felt draws this tile
 * for the other seat only; a spectator sees both seats' tiles.) */
function faceDownTile(view, seat, ctx) {
  const b = view.board;
  const code = b.phase === "over" && b.reveal ? b.reveal.foreplaced[seat] : null;
  let pic;
  let words;
  if (code) {
    pic = card(code, { size: "sm", classes: ["mate-facedown"], attrs: { "aria-label": `${cardWords(code)}, face down` } });
    words = "was face down";
  } else if (b.foreplaced[seat]) {
    pic = back(`${ctx.name(seat)}'s face-down card`, "sm");
    words = "1 card face down";
  } else if (b.foreplaced[seat] === false) {
    pic = slot("no face-down card", "sm");
    words = "no card face down";
  } else {
    pic = slot("not decided yet", "sm");
    words = b.phase === "foreplace" && !b.decided[seat] ? deciding(view, seat) : "\u2014";
  }
  return h("div", { class: "mate-fd", dataset: { seat: String(seat) } }, pic, label(words, { class: "mate-label mate-fd__words" }));
}

/** A seat's unplayed cards (public in Mate: its hand and any face-down card, as one set). */
function unplayedPanel(view, seat, ctx) {
  const b = view.board;
  // After the game the face-down card has its own tile: the row is what was left in hand.
  const cards = (b.phase === "over" && b.reveal ? b.reveal.remaining[seat] : b.unplayed[seat]) || [];
  const hidden = b.foreplaced[seat] && b.phase !== "over";
  const held = b.hand_sizes[seat];
  let count = `${held} in hand`;
  if (hidden) count += " + 1 face down";
  else if (b.phase !== "over" && b.foreplaced[seat] === false) count += ", none face down";
  const who = seat === ctx.reader ? "Your" : `${ctx.name(seat)}'s`;
  const title = b.phase === "over" ? `${who} cards left` : `${who} unplayed cards`;
  const row = h("div", { class: "mate-row mate-unplayed__cards", role: "list", "aria-label": `${title}: ${cards.map(cardWords).join(", ") || "none"}` },
    cards.length
      ? cards.map((c) => card(c, { size: "sm", attrs: { role: "listitem" } }))
      : h("span", { class: "mate-none" }, "none"));
  return h("section", { class: "mate-seatpanel", dataset: { seat: String(seat) } },
    h("div", { class: "mate-seatpanel__head" },
      h("h3", { class: "mate-seatpanel__title" }, title),
      h("span", { class: "mate-count" }, count),
      hidden ? h("span", { class: "mate-note" }, "One of these is face down: which one is secret until the game ends.") : null),
    h("div", { class: ["mate-seatpanel__body", b.phase !== "over" && "mate-seatpanel__body--playing"] },
      h("div", { class: "mate-unplayed" }, row),
      faceDownTile(view, seat, ctx)));
}

/** Both piles side by side, move by move: who led, who won, the card played again. */
function moveStrip(b, order, ctx) {
  const byMove = new Map(b.moves.map((m) => [m.move, m]));
  const grid = h("div", { class: "mate-strip__grid", role: "table", "aria-label": "The moves so far: each player's pile in order" });
  const head = [h("div", { class: "mate-strip__corner", role: "columnheader" }, "Move")];
  for (let n = 1; n <= MOVES; n++) {
    const now = b.phase === "play" && n === b.move;
    head.push(h("div", { class: ["mate-strip__num", now && "mate-strip__num--now"], role: "columnheader", "aria-current": now ? "step" : null }, String(n)));
  }
  grid.appendChild(h("div", { class: "mate-strip__line", role: "row" }, head));
  for (const seat of order) {
    const cells = [h("div", { class: "mate-strip__who", role: "rowheader", title: ctx.name(seat) }, ctx.name(seat))];
    for (let n = 1; n <= MOVES; n++) {
      const m = byMove.get(n);
      let code = null;
      if (m) code = m.leader === seat ? m.lead : m.answer;
      const led = m && m.leader === seat;
      const won = m && m.winner === seat;
      const again = Boolean(code) && m.repeat === seat;
      const mated = m && b.result && b.result.mated === seat && n === b.result.move && code === null;
      const words = [code ? cardWords(code) : null, led && "led", won && "won the move", again && "played again"].filter(Boolean).join(", ");
      const inner = code
        ? card(code, { size: "xs", classes: [won && "mate-won", again && "mate-again"] })
        : h("div", { class: ["card", "card--xs", "card--slot", "mate-card", mated && "mate-slot--mated"] });
      cells.push(h("div", {
        class: ["mate-strip__cell", led && "mate-strip__cell--led", won && "mate-strip__cell--won"],
        role: "cell", "aria-label": m ? `Move ${n}: ${words || (mated ? "mated" : "no card")}` : `Move ${n}`,
      }, inner,
      again ? h("span", { class: "mate-led mate-led--again", "aria-hidden": "true" }, "again")
        : led ? h("span", { class: "mate-led", "aria-hidden": "true" }, "led")
          : mated ? h("span", { class: "mate-led mate-led--mated", "aria-hidden": "true" }, "mate") : null));
    }
    grid.appendChild(h("div", { class: "mate-strip__line", role: "row", dataset: { seat: String(seat) } }, cells));
  }
  return h("section", { class: "mate-strip", "aria-label": "Piles" }, grid,
    h("p", { class: "mate-legend" },
      h("span", { class: "mate-legend__won" }, "gold"), " won the move \u00b7 ",
      h("span", { class: "mate-led mate-led--inline" }, "led"), " led it"));
}

/** The multiplier for a mate now, from the server's `mate_worth`. */
function worthEl(b, ctx, order) {
  const w = b.mate_worth;
  if (!w) return null;
  const values = /\(([^()]*)\)\.?\s*$/.exec(w.say || "");
  const parts = [...order].reverse().map((s) => `\u00d7\u202f${w.multipliers[s]} for ${nameIn(ctx, s)}`);
  return h("div", { class: "mate-worth", title: ctx.sayYou(w.say) },
    h("span", { class: "mate-worth__head" }, "A mate now scores the card's value"),
    h("span", { class: "mate-worth__mult" }, parts.join(" \u00b7 ")),
    values ? h("span", { class: "mate-worth__values" }, `values: ${values[1]}`) : null,
    h("span", { class: "sr-only" }, ctx.sayYou(w.say)));
}

/** The move on the table: the card led now (and the answer to come), or the last move. */
function nowPanel(view, ctx, order) {
  const b = view.board;
  const panel = h("section", { class: "mate-now", "aria-label": "The move on the table" });
  const badge = h("div", { class: "mate-movebadge" },
    h("span", { class: "mate-movebadge__label" }, b.phase === "foreplace" ? "Before move" : "Move"),
    h("b", { class: "mate-movebadge__n", id: "mate-move" }, String(b.move)),
    h("span", { class: "mate-movebadge__of" }, `of ${MOVES}`));
  panel.appendChild(badge);

  const spot = (seat, code, words, opts = {}) => h("div", { class: ["mate-spot", opts.cls], dataset: { seat: String(seat) } },
    code ? card(code, { classes: ["mate-spot__card", opts.won && "mate-won", opts.again && "mate-again"] })
      : slot(words, ""),
    h("span", { class: "mate-spot__who" }, words));

  const cards = h("div", { class: "mate-trick" });
  if (b.phase === "foreplace") {
    for (const seat of order) {
      const d = b.decided[seat];
      const words = !d ? `${nameStart(ctx, seat)}: ${deciding(view, seat)}`
        : b.foreplaced[seat] ? `${nameStart(ctx, seat)}: a card face down` : `${nameStart(ctx, seat)}: declined`;
      cards.appendChild(h("div", { class: "mate-spot" },
        d && b.foreplaced[seat] ? back(words) : slot(words),
        h("span", { class: "mate-spot__who" }, words)));
    }
    panel.appendChild(cards);
    panel.appendChild(h("p", { class: "mate-now__text" },
      `Foreplacing: ${nameIn(ctx, b.leader)} decide${b.leader === ctx.reader ? "" : "s"} first and lead${b.leader === ctx.reader ? "" : "s"} move 1.`));
    return panel;
  }
  const current = b.lead ? b.moves[b.moves.length - 1] : null;
  const last = b.moves.length ? b.moves[b.moves.length - 1] : null;
  let text = "";
  if (current) {
    const other = 1 - current.leader;
    cards.appendChild(spot(current.leader, current.lead, `${nameStart(ctx, current.leader)} led`, { again: current.repeat === current.leader }));
    cards.appendChild(spot(other, null, other === ctx.reader ? "your answer" : `${ctx.name(other)} to answer`, { cls: "mate-spot--waiting" }));
  } else if (last) {
    const first = [last.leader, 1 - last.leader];
    for (const seat of first) {
      const code = seat === last.leader ? last.lead : last.answer;
      const again = last.repeat === seat;
      let words = seat === last.leader ? `${nameStart(ctx, seat)} led` : `${nameStart(ctx, seat)} answered`;
      if (again) words += " again";
      if (code === null) words = b.result && b.result.mated === seat ? `${nameStart(ctx, seat)}: no answer` : words;
      cards.appendChild(spot(seat, code, words, { won: last.winner === seat, again, cls: code === null && "mate-spot--mated" }));
    }
    if (b.phase === "over" && b.result) {
      text = ctx.sayYou(b.result.say);
    } else if (last.winner !== null && last.winner !== undefined) {
      const next = b.to_lead;
      text = `${nameStart(ctx, last.winner)} won move ${last.move}`
        + (next !== null && next !== undefined ? `; ${nameIn(ctx, next)} lead${next === ctx.reader ? "" : "s"} move ${b.move}.` : ".");
    }
  } else {
    const next = b.to_lead === null || b.to_lead === undefined ? b.leader : b.to_lead;
    cards.appendChild(slot("nothing led yet"));
    text = `${nameStart(ctx, next)} lead${next === ctx.reader ? "" : "s"} move 1.`;
  }
  panel.appendChild(cards);
  if (text) panel.appendChild(h("p", { class: ["mate-now__text", b.phase === "over" && "mate-now__text--result"] }, text));
  const worth = worthEl(b, ctx, order);
  if (worth) panel.appendChild(worth);
  return panel;
}

function renderBoard(view, ctx) {
  const b = view.board;
  const m = view.match;
  const order = screenOrder(ctx);
  const [top, bottom] = order;
  // Whether this game replays the last one's deal with the hands exchanged: the
  // scoreboard's `swapped` when the frame passes it (ctx.match), else the match's shape.
  const row = ctx.match && ctx.match.games ? ctx.match.games[m.game_number - 1] : null;
  const swapped = row && typeof row.swapped === "boolean" ? row.swapped : m.game_number % 2 === 0;
  const info = h("div", { class: "mate-info" },
    h("span", { class: "mate-info__game" }, `Game ${m.game_number} of ${m.games}`),
    swapped ? h("span", { title: `Game ${m.game_number - 1}'s hands, exchanged: each player holds the ten cards the other was dealt` }, "hands exchanged")
      : h("span", {}, `${nameIn(ctx, m.dealer)} dealt`),
    h("span", {}, `${nameStart(ctx, b.leader)} lead${b.leader === ctx.reader ? "" : "s"}`));
  const board = h("div", { class: ["mate-board", `mate-board--${b.phase}`], dataset: { phase: b.phase, move: String(b.move) } },
    info,
    unplayedPanel(view, top, ctx),
    b.moves.length ? moveStrip(b, order, ctx) : null,
    nowPanel(view, ctx, order),
    // A player's own cards are the tray below, and its plate names its face-down card: the
    // felt keeps the room, so the hand stays on the first screen.
    ctx.seat === null || b.phase === "over" ? unplayedPanel(view, bottom, ctx) : null);
  return board;
}

// ---- the tray: the hand and the foreplace decision ----------------------------------------

function actionWords(action) {
  if (action.type === "foreplace") return `Foreplace the ${cardWords(action.card)} face down`;
  if (action.type === "decline") return "Decline: keep all ten cards";
  return `Play the ${cardWords(action.card)}`;
}

/** The tray: your hand, its legal cards as buttons; the Decline button goes to `actions`
 * (beside the prompt) when the frame has that slot, else above the hand. */
function renderHand(view, ctx, actions) {
  const b = view.board;
  if (!b || !b.hand || ctx.seat === null) return null;
  const mine = ctx.myTurn && view.to_act.includes(ctx.seat);
  const legal = mine ? view.legal : [];
  const byCard = new Map(legal.filter((a) => a.card).map((a) => [a.card, a]));
  const busy = Boolean(ctx.busy);
  const go = (action) => () => { if (!ctx.busy) ctx.act(action); };
  const deciding = legal.some((a) => a.type === "foreplace" || a.type === "decline");
  const tray = h("div", { class: ["mate-tray", deciding && "mate-tray--deciding", busy && "mate-tray--busy"] });
  if (deciding) {
    const decline = legal.find((a) => a.type === "decline");
    const button = decline ? h("button", {
      type: "button", class: "btn btn--primary btn--small move mate-decline", id: "mate-decline",
      "aria-disabled": busy ? "true" : null, "aria-label": actionWords(decline), title: actionWords(decline),
      onclick: go(decline),
    }, "Decline") : null;
    if (actions && button) actions.appendChild(button);
    tray.appendChild(h("div", { class: "mate-decide" },
      h("p", { class: "mate-decide__text" }, actions ? "Pick the card to lay face down, or decline." : "Pick the card to lay face down, or"),
      actions ? null : button));
  }
  const cards = h("div", { class: ["mate-hand", !mine && "mate-hand--waiting"], style: { "--n": String(Math.max(b.hand.length, 2)) }, role: "group", "aria-label": deciding ? "Your hand: pick a card to foreplace" : "Your hand" });
  for (const code of b.hand) {
    const action = byCard.get(code);
    if (action) {
      cards.appendChild(card(code, {
        tag: "button",
        classes: ["move", "card--legal", action.type === "foreplace" && "mate-card--foreplace"],
        attrs: {
          type: "button", "aria-disabled": busy ? "true" : null, "aria-label": actionWords(action),
          title: actionWords(action), onclick: go(action),
        },
      }));
    } else {
      cards.appendChild(card(code, {
        classes: [mine && "card--illegal"],
        attrs: { "aria-label": `${cardWords(code)}${mine ? ", cannot be played now" : ""}` },
      }));
    }
  }
  tray.appendChild(cards);
  return tray;
}

// ---- seat plates -----------------------------------------------------------------------

function seatBits(view, seat, ctx) {
  const b = view.board;
  const bits = h("div", { class: "mate-seatbits" });
  bits.appendChild(h("span", { class: "mate-chip", title: "cards in hand" }, `${b.hand_sizes[seat]} in hand`));
  const own = seat === ctx.seat && b.face_down;
  if (own) {
    bits.appendChild(h("span", { class: "mate-chip mate-chip--fd", title: `Your face-down card: the ${cardWords(b.face_down)}` },
      cardName(b.face_down), " face down"));
  } else if (b.foreplaced[seat]) {
    bits.appendChild(h("span", { class: "mate-chip mate-chip--fd", title: "foreplaced a card face down" }, "1 face down"));
  }
  return bits;
}

// ---- the scoreboard and the results --------------------------------------------------------

function howWords(result) {
  if (!result) return "";
  if (result.mated === null || result.mated === undefined) return "draw";
  // cardName's text is "10♣": short enough for the scoreboard
  return `${cardName(result.card).textContent} ${result.overmate ? "overmate" : "mate"}, move ${result.move}`;
}

function scoreboardEl(match, ctx) {
  const rows = [];
  const played = match.games || [];
  const total = 4;
  for (let i = 0; i < Math.max(total, played.length); i++) {
    const g = played[i];
    const deal = `deal ${Math.floor(i / 2) + 1}${i % 2 ? ", exchanged" : ""}`;
    const head = h("th", { scope: "row" }, h("span", { class: "mate-sb__game" }, `Game ${i + 1}`),
      h("span", { class: "mate-sb__deal" }, deal),
      g ? h("span", { class: "mate-sb__deal" }, `${nameStart(ctx, g.leader)} lead${g.leader === ctx.reader ? "" : "s"}`) : null);
    if (!g) {
      rows.push(h("tr", { class: "mate-sb__future" }, head, h("td", { colspan: "2", class: "mate-sb__none" }, "to come")));
      continue;
    }
    if (!g.scores) {
      rows.push(h("tr", { class: "now" }, head, h("td", { colspan: "2", class: "mate-sb__none" }, "playing\u2026")));
      continue;
    }
    const r = g.result;
    const cells = [0, 1].map((s) => {
      const mater = r && r.mater === s;
      return h("td", { class: ["num", mater && "mate-sb__mater"] },
        h("b", {}, String(g.scores[s])),
        mater ? h("span", { class: "mate-sb__how" }, howWords(r)) : null,
        r && r.mated === null && s === 0 ? h("span", { class: "mate-sb__how" }, "draw") : null);
    });
    rows.push(h("tr", { title: r ? ctx.sayYou(r.say) : null, dataset: { game: String(i + 1) } }, head, cells));
  }
  const totals = match.totals || [0, 0];
  rows.push(h("tr", { class: "totals" }, h("th", { scope: "row" }, "Total"),
    [0, 1].map((s) => h("td", { class: ["num", match.over && match.winner === s && "won"] }, String(totals[s])))));
  const table = h("table", { class: "mate-sb", id: "mate-scoreboard" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Game"), [0, 1].map((s) => nameHead(ctx, s, { class: "num", dataset: { seat: String(s) } })))),
    h("tbody", {}, rows));
  const box = h("div", { class: "mate-sb-box" }, table);
  if (match.over) {
    const line = match.winner === null || match.winner === undefined
      ? `The match is a draw, ${totals[0]} to ${totals[1]}.`
      : `${nameStart(ctx, match.winner)} ${match.winner === ctx.reader ? "win" : "wins"} the match by ${match.margin}.`;
    box.appendChild(h("p", { class: "mate-sb__over" }, line));
  }
  return box;
}

/** "Game 2: you mated Bob on move 5", "Game 3: a draw", from the server's `result`. */
function headlineText(view, ctx) {
  const r = view && view.board && view.board.result;
  if (!r) return "";
  const game = `Game ${view.match.game_number}: `;
  if (r.mated === null || r.mated === undefined) return `${game}a draw, nobody was mated`;
  return `${game}${nameIn(ctx, r.mater)} ${r.overmate ? "gave overmate to" : "mated"} ${nameIn(ctx, r.mated)} on move ${r.move}`;
}

function resultsEl(view, why, ctx) {
  const b = view && view.board;
  if (!b || !b.result) return null;
  const r = b.result;
  const m = view.match;
  // The heading ("Game 1: you mated Bob on move 5") is the frame's, from headline() below.
  const box = h("div", { class: "mate-results", id: "mate-results" });
  const say = h("div", { class: "mate-results__say" },
    r.card ? card(r.card, { size: "sm", classes: ["mate-won"] }) : null,
    h("p", { id: "mate-say" }, ctx.sayYou(r.say)));
  box.appendChild(say);
  const scoreRows = [0, 1].map((s) => h("tr", { dataset: { seat: String(s) } },
    h("th", { scope: "row" }, ctx.name(s)),
    h("td", { class: ["num", r.mater === s && "win"] }, String(r.scores[s])),
    h("td", { class: "num" }, String(m.totals[s]))));
  box.appendChild(h("table", { class: "grid-table result-table mate-results__table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", { class: "num" }, `Game ${m.game_number}`), h("th", { class: "num" }, `Match (${m.scores.length} of ${m.games})`))),
    h("tbody", {}, scoreRows)));
  if (b.reveal) {
    const reveal = h("div", { class: "mate-reveal", "aria-label": "Every card, shown after the game" });
    for (const s of [0, 1]) {
      const fd = b.reveal.foreplaced[s];
      const left = b.reveal.remaining[s] || [];
      reveal.appendChild(h("div", { class: "mate-reveal__seat", dataset: { seat: String(s) } },
        h("b", {}, ctx.name(s)),
        h("div", { class: "mate-reveal__line" }, label("Face down"),
          fd ? card(fd, { size: "xs", classes: ["mate-facedown"] }) : h("span", { class: "mate-none" }, "none")),
        h("div", { class: "mate-reveal__line" }, label("Left in hand"),
          left.length ? h("div", { class: "mate-row" }, left.map((c) => card(c, { size: "xs" }))) : h("span", { class: "mate-none" }, "none"))));
    }
    box.appendChild(reveal);
  }
  // (Once the match is over the frame's winner line says who won it, and by how much.)
  if (!m.over) box.appendChild(h("p", { class: "mate-results__next" },
    m.game_number % 2 === 1
      ? `Next: game ${m.game_number + 1}, the same deal with the hands exchanged.`
      : `Next: game ${m.game_number + 1}, a fresh deal.`));
  void why;
  return box;
}

// ---- the module ----------------------------------------------------------------------------

export default {
  title: "Mate",

  // The note above the scoreboard: the match in one line. The server's rule (the match
  // record's) spells out the scoring, which the table shows where it happens.
  rule() {
    return "Four games (the second and the fourth replay the deal with the hands exchanged)"
      + " \u00b7 only a mate scores \u00b7 the higher total wins";
  },

  render(view, ctx, slots) {
    const board = slots.board;
    const hand = slots.hand;
    if (board) board.replaceChildren();
    if (hand) hand.replaceChildren();
    for (const el of Object.values(slots.seats || {})) if (el) el.replaceChildren();
    if (!view || !view.board) return;
    if (board) board.appendChild(renderBoard(view, ctx));
    const tray = renderHand(view, ctx, slots.actions || null);
    if (hand && tray) hand.appendChild(tray);
    for (const [seat, el] of Object.entries(slots.seats || {})) {
      const s = Number(seat);
      if (el && (s === 0 || s === 1)) el.appendChild(seatBits(view, s, ctx));
    }
  },

  scoreboard(match, ctx) {
    return scoreboardEl(match || { games: [], totals: [0, 0] }, ctx);
  },

  results(view, why, ctx) {
    return resultsEl(view, why, ctx);
  },

  // Optional hooks of the table frame (static/js/table.js): the results panel's heading
  // (then the body above leaves its own out), the plate's score and turn words, and the
  // prompt in this seat's grammar.
  headline(view, ctx) {
    return headlineText(view, ctx) || null;
  },

  plate(seat, view, ctx) {
    const b = view && view.board;
    if (!b || !view.match) return {};
    const turn = b.phase === "foreplace" ? "deciding\u2026" : b.lead ? "answering\u2026" : "leading\u2026";
    void ctx;
    return { score: { text: String(view.match.totals[seat]), title: "Match total" }, turn };
  },

  prompt(view, ctx) {
    return view && view.prompt ? ctx.sayYou(view.prompt) : null;
  },

  describe(event, ctx) {
    return event && event.say ? ctx.sayYou(event.say) : null;
  },
};
