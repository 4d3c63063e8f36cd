// Bingo (dominoes played like Sixty-six) for the table frame: see ../README.md for the
// interface and docs/rules-bingo.md for the game.
//
// Everything drawn comes from the server's view: the hand, `legal` (the only moves offered),
// the turn-up, the stock count, the trick being played, the LAST trick (never the ones
// before it: players count in their heads), tricks won, declarations, and the tally and the
// reveal only when the view carries them (`open_tally`, or once the deal is over). Nothing
// here decides a rule: no trump, no duty, no points are worked out in the browser.

import { fill, h, plural } from "../../dom.js";
import { nameHead } from "../../render.js";

// Where the pips sit in a half's 3×3 grid (cells 0..8, row by row). An upright tile's
// halves are stacked; a flat tile's halves sit side by side and its six runs in rows.
const PIPS = {
  0: [], 1: [4], 2: [2, 6], 3: [2, 4, 6], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8],
  6: [0, 2, 3, 5, 6, 8],
};
const PIPS_FLAT = { ...PIPS, 6: [0, 1, 2, 6, 7, 8] };
const NUMBER = ["blank", "one", "two", "three", "four", "five", "six"];
const SUITS = ["blanks", "ones", "twos", "threes", "fours", "fives", "sixes"];
/** The points a correct claim needs (rules, section 10). */
const CLAIM_AT = 70;

// Whether the table shows the open tally: describe() has no view, so render() notes it.
let openTally = false;

const ends = (code) => code.split("-").map(Number);

/** "3-5", "the bingo (0-0)", "double 4 (4-4)": a tile's accessible name. */
export function tileName(code) {
  const [a, b] = ends(code);
  if (code === "0-0") return "the bingo, double blank (0-0)";
  if (a === b) return `double ${NUMBER[a]} (${code})`;
  return `${NUMBER[a]}–${NUMBER[b]} (${code})`;
}

function half(n, { flat, trump }) {
  const cells = (flat ? PIPS_FLAT : PIPS)[n] || [];
  return h("span", { class: ["bingo-half", n === trump && "bingo-half--trump"] },
    cells.map((c) => h("span", { class: `bingo-pip bingo-pip--${c}` })));
}

/**
 * A domino drawn with CSS: two halves of pips and a bar. Options: size ("lg", "sm", "xs"),
 * flat (lying sideways), tag ("span" or "button"), trump (a number whose halves are tinted),
 * classes, attrs. `data-tile` carries the code, so tests can find every tile on the page.
 */
export function tileEl(code, { size = "", flat = false, tag = "span", trump = null,
  classes = [], attrs = {} } = {}) {
  const [a, b] = ends(code);
  return h(tag, {
    class: ["bingo-tile", size && `bingo-tile--${size}`, flat && "bingo-tile--flat",
      a === b && "bingo-tile--double", code === "0-0" && "bingo-tile--bingo", ...classes],
    "data-tile": code,
    role: tag === "button" ? null : "img",
    "aria-label": tileName(code),
    title: code,
    ...attrs,
  }, half(a, { flat, trump }), h("span", { class: "bingo-tile__bar" }), half(b, { flat, trump }));
}

/** A face-down tile (the stock, the other hand): no code anywhere on it. */
function backEl({ size = "", flat = false, classes = [] } = {}) {
  return h("span", {
    class: ["bingo-tile", "bingo-tile--back", size && `bingo-tile--${size}`,
      flat && "bingo-tile--flat", ...classes],
    "aria-hidden": "true",
  });
}

/** One half on its own: the trump number as a glyph. */
function numberEl(n, label) {
  return h("span", { class: "bingo-number", role: "img", "aria-label": label, title: label },
    half(n, { flat: false, trump: null }));
}

const seatsOf = (ctx) => Array.from({ length: ctx.seats || 2 }, (_, i) => i);
const name = (ctx, seat) => (seat === null || seat === undefined ? "" : ctx.name(seat));
/** A seat's own name for sentences in the third person ("Ann was dealt", never "You was"). */
const plain = (ctx, seat) => (ctx.plainName ? ctx.plainName(seat) : ctx.name(seat));

/** The seats in screen order: the one at the top first, the bottom one last. */
function topDown(ctx) {
  const order = { top: 0, left: 1, right: 2, bottom: 3 };
  return seatsOf(ctx).sort((a, b) => (order[ctx.position(a)] ?? 1) - (order[ctx.position(b)] ?? 1));
}

function spot(label, cls, ...body) {
  return h("section", { class: ["bingo-spot", cls] },
    h("h3", { class: "bingo-spot__label" }, label), ...body);
}

// ---- the board ---------------------------------------------------------------------------

function stockEl(b, ctx) {
  const n = b.stock_count;
  const faceDown = b.turn_up_face_up ? n - 1 : n;
  const pile = h("span", { class: "bingo-stack", "aria-hidden": "true" },
    Array.from({ length: Math.min(Math.max(faceDown, 0), 4) }, (_, i) =>
      backEl({ size: "sm", flat: true, classes: [`bingo-stack__${i}`] })));
  let note;
  if (n === 0) note = "Stock gone";
  else if (b.closed_by !== null && b.closed_by !== undefined) note = `${plural(n, "tile")}, closed`;
  else note = [plural(n, "tile"), b.turn_up_face_up ? h("span", { class: "bingo-wide" }, " with the turn-up") : null];
  return spot("Stock", "bingo-stock", n ? pile : h("span", { class: "bingo-slot bingo-slot--flat" }),
    h("p", { class: "bingo-spot__count", id: "bingo-stock-count", dataset: { count: String(n) } }, note),
    b.closed_by !== null && b.closed_by !== undefined
      ? h("p", { class: "bingo-chip bingo-chip--closed" }, `Closed by ${name(ctx, b.closed_by)}`)
      : null);
}

function trumpsEl(b, ctx) {
  let up;
  let note;
  if (b.turn_up_face_up) {
    up = tileEl(b.turn_up, { size: "sm", flat: true, trump: b.trump, classes: ["bingo-turnup"] });
    note = "turn-up";
  } else if (b.turn_up_drawn_by !== null && b.turn_up_drawn_by !== undefined) {
    up = tileEl(b.turn_up, { size: "sm", flat: true, trump: b.trump, classes: ["bingo-turnup", "bingo-tile--gone"] });
    note = `turn-up, taken by ${name(ctx, b.turn_up_drawn_by)}`;
  } else {
    up = backEl({ size: "sm", flat: true });
    note = `turn-up ${b.turn_up}, turned down`;
  }
  return spot("Trumps", "bingo-trumps",
    h("p", { class: "bingo-trumps__name" }, numberEl(b.trump, b.trump_name), h("b", {}, b.trump_name)),
    up, h("p", { class: "bingo-spot__count" }, note));
}

function trickEl(view, ctx) {
  const b = view.board;
  const t = b.trick;
  const toAct = view.to_act || [];
  // The tile just led arrives with a short animation (not again on a redraw).
  const before = ctx.prev && ctx.prev.board ? ctx.prev.board.trick : undefined;
  const fresh = before !== undefined && !(before && t && before.lead === t.lead);
  const slots = topDown(ctx).map((seat) => {
    let body;
    if (t && t.leader === seat) {
      body = tileEl(t.lead, { flat: true, trump: b.trump, classes: [fresh && "bingo-played"] });
    } else {
      const waiting = toAct.includes(seat) ? (t ? "to answer" : "to lead") : "";
      body = h("span", { class: "bingo-slot bingo-slot--flat" }, waiting);
    }
    return h("div", { class: ["bingo-trick__slot", `bingo-trick__slot--${ctx.position(seat)}`] },
      body, h("span", { class: "bingo-trick__who" }, name(ctx, seat)));
  });
  const label = b.result ? "Deal over" : `Trick ${b.trick_number}`;
  return spot(label, "bingo-trick", h("div", { class: "bingo-trick__slots", id: "bingo-trick" }, slots));
}

function lastTrickEl(b, ctx) {
  const t = b.last_trick;
  if (!t) return null;
  const row = (seat, code) => h("span", { class: "bingo-last__play" },
    tileEl(code, { size: "xs", flat: true, trump: b.trump }),
    h("span", { class: "bingo-last__who" }, name(ctx, seat)));
  return h("section", { class: "bingo-panel bingo-last", id: "bingo-last-trick" },
    h("h3", {}, `Last trick · ${t.trick}`),
    h("div", { class: "bingo-last__plays" }, row(t.leader, t.lead), row(1 - t.leader, t.follow)),
    h("p", { class: "bingo-panel__note" }, `Won by ${name(ctx, t.winner)}`));
}

function declarationsEl(b, ctx, { inResults = false } = {}) {
  const list = b.declarations || [];
  if (!list.length) return null;
  return h("section", { class: "bingo-panel bingo-decls", id: inResults ? null : "bingo-declarations" },
    h("h3", {}, "Declarations"),
    h("ul", {}, list.map((d) => h("li", { class: "bingo-decl" },
      h("span", { class: "bingo-decl__who" }, name(ctx, d.seat)),
      h("span", { class: "bingo-decl__tiles" },
        d.tiles.map((code) => tileEl(code, { size: "xs", trump: b.trump }))),
      h("span", { class: "bingo-decl__what" },
        `${d.name}${d.bingo ? " with the bingo" : ""}`,
        d.value ? `, ${d.value}` : "",
        h("small", { class: "bingo-wide" }, ` before trick ${d.trick}`))))));
}

function tallyEl(b, ctx) {
  const t = b.tally;
  if (!t) return null;
  const seats = seatsOf(ctx);
  const row = (label, cells) => h("tr", {}, h("th", { scope: "row" }, label), cells.map((c) => h("td", {}, c)));
  const body = [
    row("Tile points", seats.map((s) => t.card_points[s])),
    row("Declared, counting", seats.map((s) => t.declared_counting[s])),
  ];
  if (t.last_trick_bonus !== null && t.last_trick_bonus !== undefined) {
    body.push(row("Last trick", seats.map((s) => (s === t.last_trick_bonus ? "✓" : ""))));
  }
  body.push(h("tr", { class: "bingo-tally__total" }, h("th", { scope: "row" }, "Points"),
    seats.map((s) => h("td", {}, h("b", {}, String(t.points[s]))))));
  const tricks = (t.tricks || []).map((tr) => h("li", { class: "bingo-tricklist__row" },
    h("span", { class: "bingo-tricklist__n" }, String(tr.trick)),
    tileEl(tr.lead, { size: "xs", flat: true, trump: b.trump }),
    tr.follow ? tileEl(tr.follow, { size: "xs", flat: true, trump: b.trump }) : null,
    h("span", { class: "bingo-tricklist__who" }, name(ctx, tr.winner))));
  return h("section", { class: "bingo-panel bingo-tally", id: "bingo-tally" },
    h("h3", {}, b.result ? "The count" : "Open tally"),
    h("table", { class: "bingo-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), seats.map((s) => nameHead(ctx, s)))),
      h("tbody", {}, body)),
    tricks.length && !b.result
      ? h("details", { class: "bingo-tricklist" }, h("summary", {}, `Stored tricks (${tricks.length})`),
        h("ol", {}, tricks))
      : null);
}

/** After the deal: what was still hidden in the hands and the stock. */
function revealEl(b, ctx) {
  const r = b.reveal;
  if (!r) return null;
  const rows = seatsOf(ctx).map((s) => h("li", {},
    h("span", { class: "bingo-reveal__who" }, `${name(ctx, s)} held`),
    r.hands[s].length
      ? h("span", { class: "bingo-reveal__tiles" }, r.hands[s].map((c) => tileEl(c, { size: "xs", trump: b.trump })))
      : h("span", { class: "bingo-reveal__none" }, "nothing")));
  if (r.stock_left && r.stock_left.length) {
    rows.push(h("li", {}, h("span", { class: "bingo-reveal__who" }, "Left in the stock"),
      h("span", { class: "bingo-reveal__tiles" }, r.stock_left.map((c) => tileEl(c, { size: "xs", trump: b.trump })))));
  }
  return h("section", { class: "bingo-panel bingo-reveal", id: "bingo-reveal" },
    h("h3", {}, "Revealed"), h("ul", {}, rows));
}

function boardEl(view, ctx) {
  const b = view.board;
  const chips = [];
  if (b.bingo_bonus !== null && b.bingo_bonus !== undefined) {
    chips.push(h("span", { class: "bingo-chip bingo-chip--bonus" }, `Bingo bonus: ${name(ctx, b.bingo_bonus)}`));
  }
  const info = [lastTrickEl(b, ctx), declarationsEl(b, ctx), tallyEl(b, ctx), revealEl(b, ctx)]
    .filter(Boolean);
  return h("div", { class: "bingo-board", dataset: { phase: String(b.phase) } },
    h("div", { class: "bingo-board__table" }, stockEl(b, ctx), trickEl(view, ctx), trumpsEl(b, ctx)),
    chips.length ? h("div", { class: "bingo-chips" }, chips) : null,
    info.length ? h("div", { class: "bingo-board__info" }, info) : null);
}

// ---- the tray: your hand and the other moves ----------------------------------------------

/** A legal action that is not a tile, in plain words from its own fields. */
function actionLabel(action) {
  switch (action.type) {
    case "claim": return ["Claim 70"];
    case "close": return ["Close the stock"];
    case "declare": {
      const tiles = action.tiles || [];
      return [`Declare ${tiles.length} doubles`,
        h("span", { class: "bingo-action__tiles", "aria-hidden": "true" },
          tiles.map((c) => tileEl(c, { size: "xs" })))];
    }
    case "draw": return ["Draw from the stock"];
    default: {
      const extra = Object.entries(action).filter(([k]) => k !== "type")
        .map(([, v]) => (Array.isArray(v) ? v.join(", ") : String(v))).join(" ");
      const word = String(action.type).replace(/_/g, " ");
      return [word[0].toUpperCase() + word.slice(1) + (extra ? ` ${extra}` : "")];
    }
  }
}

function actionHint(action) {
  switch (action.type) {
    case "claim": return "Claim that you have 70 points: the deal ends now";
    case "close": return "Turn the turn-up face down: nobody draws again";
    case "declare": return `Show your doubles ${(action.tiles || []).join(", ")}, then lead one of them`;
    default: return null;
  }
}

function moveKey(action) {
  return action.type === "play" ? action.tile : `bingo-${action.type}`;
}

/** The tray's parts: the hand's tiles (legal plays are buttons) and the other moves. */
function trayParts(view, ctx) {
  const b = view.board;
  const legal = ctx.myTurn ? view.legal || [] : [];
  const plays = new Map();
  const others = [];
  for (const action of legal) {
    if (action.type === "play" && typeof action.tile === "string") plays.set(action.tile, action);
    else others.push(action);
  }
  const busy = Boolean(ctx.busy);
  const send = (action) => () => {
    if (ctx.busy) return;
    ctx.act(action);
  };
  const verb = b.trick ? "Answer with" : "Lead";
  const shown = new Set(b.declared_tiles || []);
  const tiles = (b.hand || []).map((code) => {
    const action = plays.get(code);
    const declared = shown.has(code);
    const mark = declared ? h("span", { class: "bingo-tile__shown", "aria-hidden": "true" }, "shown") : null;
    const el = action
      ? tileEl(code, {
        tag: "button", trump: b.trump, size: "lg",
        classes: ["move", "card--legal", "bingo-tile--legal", declared && "bingo-tile--declared"],
        attrs: {
          type: "button", dataset: { key: code },
          "aria-disabled": busy ? "true" : null,
          "aria-label": `${verb} the ${tileName(code)}${declared ? ", declared" : ""}`,
          onclick: send(action),
        },
      })
      : tileEl(code, {
        trump: b.trump, size: "lg",
        classes: [ctx.myTurn && "bingo-tile--idle", declared && "bingo-tile--declared"],
        attrs: {
          dataset: { key: code },
          "aria-label": `${tileName(code)}${declared ? ", declared" : ""}${ctx.myTurn ? ": not playable now" : ""}`,
        },
      });
    if (mark) el.appendChild(mark);
    return el;
  });
  // A claim ends the deal at once: the main button only when the open tally shows 70.
  const sure = Boolean(b.tally && b.tally.points[ctx.seat] >= CLAIM_AT);
  const buttons = others.map((action) => {
    const unsure = action.type === "claim" && !sure;
    const button = h("button", {
      type: "button",
      class: ["btn", "move", "bingo-action", `bingo-action--${action.type}`,
        action.type === "claim" && sure ? "btn--primary" : "btn--ghost-dark"],
      dataset: { key: moveKey(action) },
      "aria-disabled": busy ? "true" : null,
      title: actionHint(action),
      "aria-label": action.type === "declare" ? `Declare your doubles ${(action.tiles || []).join(", ")}` : null,
      onclick: unsure ? askFirst(b, ctx, send(action)) : send(action),
      // (Focus gone to another element; a redraw removing the button blurs it with none.)
      onblur: unsure ? (e) => e.relatedTarget && disarm() : null,
    }, actionLabel(action));
    // Asked already at this lead (the table was redrawn meanwhile): still asking.
    if (unsure && !busy && asked && asked.lead === leadKey(b)) arm(button, b, ctx);
    return button;
  });
  return { tiles, buttons };
}

// ---- a claim the tally does not back asks again ------------------------------------------------
//
// A claim short of 70 gives the deal away, so unless the open tally shows 70 its first click
// (or Enter) only asks again, on the button itself: "You have 52: claim anyway?". The next
// one claims; a press anywhere else, or leaving the button, takes the question back. A
// second press within ASK_AGAIN_MS is not an answer: a double-click or a held key is one
// slip. The question outlives a redraw of the same lead (`asked`).

const ASK_AGAIN_MS = 500;
/** The question being asked: at which lead (`leadKey`) and when (ms). */
let asked = null;

/** One lead of one deal: what this seat holds and how far the deal has gone. */
function leadKey(b) {
  return [b.turn_up, b.trick_number, b.stock_count, (b.hand || []).join(",")].join("|");
}

function askFirst(b, ctx, claim) {
  return (event) => {
    if (ctx.busy) return;
    if (!asked || asked.lead !== leadKey(b)) {
      asked = { lead: leadKey(b), at: Date.now() };
      arm(event.currentTarget, b, ctx, { announce: true });
    } else if (Date.now() - asked.at >= ASK_AGAIN_MS) {
      disarm();
      claim();
    }
  };
}

/** The claim button as a question ("You have 52: claim anyway?"). */
function arm(button, b, ctx, { announce = false } = {}) {
  const other = plain(ctx, seatsOf(ctx).find((s) => s !== ctx.seat));
  const points = b.tally ? b.tally.points[ctx.seat] : null;
  const question = points === null ? "Sure? Claim 70" : `You have ${points}: claim anyway?`;
  const stakes = `If you have fewer than ${CLAIM_AT} points, ${other} wins the deal.`;
  button.dataset.armed = "true";
  button.classList.add("bingo-action--armed");
  button.title = `${stakes} Click again to claim.`;
  button.setAttribute("aria-label", `${question} ${stakes} Press again to claim.`);
  fill(button, question);
  // (A screen reader may not read out a new name on the focused button.)
  if (announce && ctx.announce) ctx.announce(`${question} ${stakes} Press again to claim.`);
  document.addEventListener("pointerdown", pressedElsewhere, { capture: true });
}

function pressedElsewhere(event) {
  if (!(event.target instanceof Element && event.target.closest(".bingo-action--claim"))) disarm();
}

/** Takes the question back: the claim button reads "Claim 70" again. */
function disarm() {
  asked = null;
  document.removeEventListener("pointerdown", pressedElsewhere, { capture: true });
  const button = document.querySelector(".bingo-action--claim[data-armed]");
  if (!button) return;
  delete button.dataset.armed;
  button.classList.remove("bingo-action--armed");
  button.title = actionHint({ type: "claim" });
  button.removeAttribute("aria-label");
  fill(button, ...actionLabel({ type: "claim" }));
}

// ---- on each seat's plate -------------------------------------------------------------------

/** The frame's plate hook: game points by the name, tile backs and count, "closed". */
function plate(seat, view, ctx) {
  if (!view || !view.board) return {};
  const b = view.board;
  const m = view.match || {};
  const n = (b.hand_sizes || [])[seat] ?? 0;
  const meta = [];
  if (seat !== ctx.seat && !b.reveal && n) {
    meta.push(h("span", { class: "bingo-seat__backs", "aria-hidden": "true" },
      Array.from({ length: n }, () => backEl({ size: "mini" }))));
  }
  meta.push(h("span", { class: "bingo-seat__count" }, plural(n, "tile")));
  const gp = (m.match_points || [])[seat];
  return {
    score: gp === undefined ? null : { text: String(gp), title: `${gp} of ${m.target || 7} game points` },
    badges: b.closed_by === seat ? [{ text: "closed", kind: "closed", title: "Closed the stock" }] : [],
    meta,
    turn: b.trick ? "answering…" : "leading…",
    winner: m.over && m.winner === seat,
  };
}

/** The module's own area on a plate: tricks won, and the points when the tally is open. */
function seatEl(view, ctx, seat) {
  const b = view.board;
  const bits = [h("span", { class: "bingo-seat__tricks" }, plural((b.tricks_won || [])[seat] ?? 0, "trick"))];
  if (b.tally) bits.push(h("span", { class: "bingo-seat__points" }, `${b.tally.points[seat]} points`));
  return h("div", { class: "bingo-seat", dataset: { seat: String(seat) } }, bits);
}

// ---- the module ------------------------------------------------------------------------------

function render(view, ctx, slots) {
  for (const el of [slots.board, slots.hand, slots.actions]) if (el) fill(el);
  for (const el of Object.values(slots.seats || {})) if (el) fill(el);
  if (!view || !view.board) return;
  openTally = Boolean(view.board.open_tally);
  if (slots.board) fill(slots.board, boardEl(view, ctx));
  if (ctx.seat !== null && ctx.seat !== undefined && view.board.hand) {
    const { tiles, buttons } = trayParts(view, ctx);
    // Moves that are not a tile go beside the prompt (or above the tiles without that slot).
    const place = slots.actions || slots.hand;
    if (place && buttons.length) {
      place.append(...(slots.actions ? buttons : [h("div", { class: "bingo-actions" }, buttons)]));
    }
    if (slots.hand) slots.hand.append(...tiles);
  }
  for (const [seat, el] of Object.entries(slots.seats || {})) {
    if (el) el.appendChild(seatEl(view, ctx, Number(seat)));
  }
}

function scoreboard(match, ctx) {
  const seats = seatsOf(ctx);
  const games = (match && match.games) || [];
  const totals = (match && match.totals) || seats.map(() => 0);
  const rows = games.map((g) => {
    const r = g.result;
    const bonus = r ? r.bingo_bonus : null;
    return h("tr", { class: r ? null : "now", title: r && r.say ? ctx.sayYou(r.say) : null },
      h("td", {}, `Deal ${g.deal}`),
      // The glyph and the word: a blank half alone is an empty square, like a checkbox.
      h("td", { class: "bingo-sb__trump" }, numberEl(g.trump, SUITS[g.trump] || String(g.trump)),
        h("span", { "aria-hidden": "true" }, SUITS[g.trump] || String(g.trump))),
      seats.map((s) => h("td", {
        class: r && r.winner === s ? "won" : null,
      }, r || g.game_points[s] ? String(g.game_points[s]) + (bonus === s ? "*" : "") : "…")));
  });
  return h("div", { class: "bingo-sb" },
    h("table", { id: "scoreboard-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Deal"), h("th", {}, "Trumps"),
        seats.map((s) => nameHead(ctx, s)))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { class: "empty", colspan: 2 + seats.length }, "No deal yet")),
        h("tr", { class: "totals" }, h("td", {}, "Game points"), h("td", {}, ""),
          seats.map((s) => h("td", { class: match && match.winner === s ? "won" : null }, String(totals[s])))))),
    games.some((g) => g.result && g.result.bingo_bonus !== null && g.result.bingo_bonus !== undefined)
      ? h("p", { class: "bingo-sb__note" }, "* includes the bingo bonus.") : null);
}

/** The results panel. (The server sends no `why` for Bingo: the result's own lines keep
 * their `{0}`, `{1}`, so each reader gets them in its own words.) */
function results(view, _why, ctx) {
  if (!view || !view.board) return null;
  const b = view.board;
  const r = b.result;
  if (!r) return null;
  const seats = seatsOf(ctx);
  const row = (label, cells, cls) => h("tr", { class: cls }, h("th", { scope: "row" }, label),
    cells.map((c) => h("td", {}, c)));
  const table = h("table", { class: "bingo-table bingo-results__table" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), seats.map((s) => nameHead(ctx, s)))),
    h("tbody", {},
      row("Tricks", seats.map((s) => String(r.tricks[s]))),
      row("Tile points", seats.map((s) => String(r.card_points[s]))),
      row("Declared", seats.map((s) => String(r.declared[s]))),
      r.last_trick !== null && r.last_trick !== undefined
        ? row("Last trick", seats.map((s) => (s === r.last_trick ? "✓" : ""))) : null,
      row("Points", seats.map((s) => h("b", {}, String(r.points[s])))),
      row("Game points", seats.map((s) => h("b", {}, String(r.game_points[s]))), "bingo-results__gp")));
  const rv = b.reveal;
  let reveal = declarationsEl(b, ctx, { inResults: true });
  if (rv) {
    const tiles = (codes) => h("span", { class: "bingo-reveal__tiles" },
      codes.map((c) => tileEl(c, { size: "xs", trump: b.trump })));
    reveal = h("details", { class: "bingo-results__reveal" },
      h("summary", {}, "The whole deal"),
      declarationsEl(b, ctx, { inResults: true }),
      h("ul", { class: "bingo-reveal__list" },
        seats.map((s) => h("li", {}, h("span", { class: "bingo-reveal__who" }, s === ctx.reader ? "You were dealt" : `${plain(ctx, s)} was dealt`), tiles(rv.dealt[s]))),
        h("li", {}, h("span", { class: "bingo-reveal__who" }, "Stock, in order"), tiles(rv.stock)),
        h("li", {}, h("span", { class: "bingo-reveal__who" }, "Turn-up"), tiles([rv.turn_up]))),
      rv.tricks.length
        ? h("ol", { class: "bingo-tricklist__all" }, rv.tricks.map((t) => h("li", { class: "bingo-tricklist__row" },
          h("span", { class: "bingo-tricklist__n" }, String(t.trick)),
          h("span", { class: "bingo-tricklist__who" }, ctx.name(t.leader)),
          tileEl(t.lead, { size: "xs", flat: true, trump: b.trump }),
          t.follow ? tileEl(t.follow, { size: "xs", flat: true, trump: b.trump }) : null,
          h("span", { class: "bingo-tricklist__won" }, t.winner === null ? "" : `→ ${ctx.name(t.winner)}`))))
        : null);
  }
  return h("div", { class: "bingo-results" },
    h("p", { class: "bingo-results__trumps" }, numberEl(b.trump, b.trump_name), `Trumps: ${b.trump_name}`),
    h("ul", { class: "bingo-results__why" }, r.why.map((l) => h("li", {}, ctx.sayYou(l)))),
    table,
    r.bingo_bonus !== null && r.bingo_bonus !== undefined
      ? h("p", { class: "bingo-results__bonus" }, `Bingo bonus: ${ctx.name(r.bingo_bonus)}`) : null,
    reveal);
}

/**
 * The log: the server's narration (`undefined` leaves it to the frame), except that while
 * the tally is closed a lead or an answer is logged without its tile, so the log is not a
 * running list of the deal's earlier tricks (the board shows the trick in play and the last
 * one; rules: "count in your head").
 */
function describe(event, ctx) {
  if (!event || typeof event.say !== "string") return undefined;
  const open = ctx && ctx.options && "open_tally" in ctx.options ? Boolean(ctx.options.open_tally) : openTally;
  if (open) return undefined;
  if (event.type === "lead") return ctx.sayYou(`Trick ${event.trick} led by {${event.seat}}.`);
  if (event.type === "follow") {
    return ctx.sayYou(`Trick ${event.trick} answered by {${event.seat}}, won by {${event.winner}}.`);
  }
  return undefined;
}

/** Log lines set off: a deal's start and end as the game's lines, declaring and closing marked. */
function logKind(event) {
  if (event.type === "deal" || event.type === "deal_over") return "game";
  if (["declare", "close", "bingo_bonus"].includes(event.type)) return "hunt";
  return "";
}

/** The results panel's heading: who won the deal (the server's `result.winner`). */
function headline(view, ctx) {
  const r = view && view.board && view.board.result;
  const n = view && view.match ? view.match.deal_number : null;
  if (!r) return ctx.sayYou((view && view.prompt) || "");
  const deal = n ? `Deal ${n}: ` : "";
  if (r.winner === null || r.winner === undefined) return `${deal}${ctx.sayYou(r.say)}`;
  const points = r.game_points ? r.game_points[r.winner] : null;
  const who = r.winner === ctx.reader ? "you win" : `${plain(ctx, r.winner)} wins`;
  return `${deal}${who} the deal${points ? `, ${plural(points, "game point")}` : ""}`;
}

/** The note above the scoreboard, from the table's options. */
function rule(options, ctx) {
  const open = options && options.open_tally;
  const target = (ctx && ctx.match && ctx.match.target) || 7;
  return `First to ${target} game points wins the match${open ? " · open tally: everyone sees the points and the stored tricks" : ""}`;
}

export default {
  title: "Bingo", round: "deal", render, plate, scoreboard, results, describe, logKind, headline, rule,
};
