// The replay viewer: a finished game step by step (GET /api/matches/{id}/games/{n}/replay).
// Dingo: every hand visible, each score change with the rule behind it. Any other game:
// drawn by the game's own client module (static/js/games/<name>/index.js, the interface
// in static/js/games/README.md) from the view the server rebuilt for the chosen seat, or
// for a spectator ("Seen from"), with the server's narration (`say`) of each step.

import { $, h, fill } from "./dom.js";
import { fillNames, loadGameModule, safeGameName } from "./games/load.js";
import { getJSON } from "./api.js";
import { cardEl, cardName, pileValue, rankLabel, rankPlural } from "./cards.js";
import { avatar, botBadge, cardRow, lineEl, loadFailed, readerSeat, seatNames, youBadge } from "./render.js";
import { describeEvent, secondPerson, signed } from "./words.js";

const [, , matchId, , gameNumber] = location.pathname.split("/").map(decodeURIComponent);
const POSITIONS = ["bottom", "left", "top", "right"];
const AUTOPLAY_MS = 900;

const R = { data: null, index: 0, timer: null, generic: false, module: null, seen: null, mine: null };

const frames = () => [R.data.deal, ...R.data.steps];
/** Who held ``seat`` when step ``step`` was played (0: the deal): a player who left
 * mid-game is named for their steps, the bot that took the seat for the rest. */
function holderAt(seat, step = R.index) {
  const turns = R.data.holders[seat];
  for (let i = turns.length - 1; i > 0; i--) if (turns[i].since < Math.max(step, 1)) return turns[i];
  return turns[0];
}
/** A holder's name as the steps they played name it ("Ann 2" where two share a name). */
const nameOfHolder = (seat, t) => nameOf(seat, t.since + 1);
const nameOf = (seat, step = R.index) => seatNames(R.data.holders.map((_, s) => holderAt(s, step)))[seat];
/** Everyone who held a seat in this game, each with the seat ({seat, name, bot...}). */
const allHolders = () => R.data.holders.flatMap((turns, seat) => turns.map((t) => ({ ...t, seat })));

function show(index, { scroll = true } = {}) {
  const all = frames();
  R.index = Math.max(0, Math.min(all.length - 1, index));
  const frame = all[R.index];
  if (R.generic) {
    drawGeneric(frame);
  } else {
    drawTable(frame);
    drawNow(frame);
  }
  $("#slider").value = String(R.index);
  $("#step-count").textContent = `${R.index} / ${all.length - 1}`;
  $("#prev").disabled = $("#first").disabled = R.index === 0;
  $("#next").disabled = $("#last").disabled = R.index === all.length - 1;
  for (const li of document.querySelectorAll("#steps li")) {
    const current = Number(li.dataset.index) === R.index;
    li.classList.toggle("current", current);
    if (current) {
      li.setAttribute("aria-current", "step");
      if (scroll) {
        const list = $("#steps");
        if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
          list.scrollTop = li.offsetTop - list.clientHeight / 2;
        }
      }
    } else {
      li.removeAttribute("aria-current");
    }
  }
  const q = new URLSearchParams(location.search);
  q.set("step", String(R.index));
  if (R.generic) q.set("seen", R.seen === null ? "spectator" : String(R.seen));
  history.replaceState(null, "", `${location.pathname}?${q}`);
  if (R.index === all.length - 1) stop();
}

function drawTable(frame) {
  const felt = $("#rfelt");
  const lastEvents = frame.events || [];
  fill(felt);
  for (let seat = 0; seat < 4; seat++) {
    const pos = POSITIONS[seat];
    const turn = frame.to_act === seat;
    const scoreVal = pileValue(frame.score_piles[seat]);
    const penaltyVal = pileValue(frame.penalty_piles[seat], { penalty: true });
    felt.appendChild(h("div", { class: ["rseat", `rseat--${pos}`, turn && "rseat--turn"], dataset: { seat: String(seat) } },
      h("div", { class: "rseat__head" }, avatar(nameOf(seat), seat),
        h("span", { class: "rseat__name" }, nameOf(seat)),
        botBadge(holderAt(seat)), youBadge(seat, R.mine),
        seat === R.data.dealer ? h("span", { class: "badge badge--dealer", title: "Dealer" }, "D") : null,
        h("span", { class: "rseat__score", title: "Points this game" }, signed(frame.scores[seat]))),
      h("div", { class: "rseat__hand" }, cardRow(frame.hands[seat], { size: "sm", label: `${nameOf(seat)}'s hand` })),
      h("div", { class: "rseat__piles" },
        h("span", { class: "pile-tag pile-tag--score" }, `Score pile ${scoreVal}`),
        cardRow(frame.score_piles[seat], { overlap: true, label: "Score pile" }),
        h("span", { class: "pile-tag pile-tag--penalty" }, `Penalty ${signed(-penaltyVal)}`),
        cardRow(frame.penalty_piles[seat], { overlap: true, label: "Penalty pile" }))));
  }
  const center = h("div", { class: "rcenter" });
  center.appendChild(h("div", { class: "spot" }, h("span", { class: "spot__label" }, `Rabbits (${frame.rabbits.length})`),
    frame.rabbits.length ? cardEl(frame.rabbits[0], { size: "sm" }) : h("span", { class: "muted-dark" }, "none left")));
  const hunt = frame.hunt;
  const huntBox = h("div", { class: "spot rhunt" });
  if (hunt) {
    huntBox.appendChild(h("span", { class: "spot__label" }, hunt.rank === "A" ? "The ace hunt" : `Hunting the ${rankPlural(hunt.rank)}`));
    huntBox.appendChild(cardEl(hunt.rabbit, { size: "sm" }));
    huntBox.appendChild(h("div", { class: "rplays" }, hunt.plays.map((p) => h("div", { class: "rplay" },
      h("span", { class: "rplay__who" }, nameOf(p.seat)), cardRow(p.cards, { size: "xs" })))));
  } else {
    huntBox.appendChild(h("span", { class: "spot__label" }, frame.stage === "over" ? "Game over" : frame.stage));
  }
  center.appendChild(huntBox);
  const discardedNow = lastEvents.filter((e) => e.type === "discard").map((e) => e.card);
  center.appendChild(h("div", { class: "spot" }, h("span", { class: "spot__label" }, `Discards (${frame.discards.length})`),
    h("div", { class: "card-row rdiscards" }, frame.discards.map((c) => cardEl(c, { size: "xs", classes: [discardedNow.includes(c) && "card--just"] })))));
  center.appendChild(h("div", { class: "spot" }, h("span", { class: "spot__label" }, `Dead rabbits (${frame.dead_rabbits.length})`),
    cardRow(frame.dead_rabbits, { overlap: true })));
  felt.appendChild(center);
}

function drawNow(frame) {
  const box = $("#step-now");
  if (R.index === 0) {
    fill(box, h("p", { class: "step-now__title" }, "The deal"),
      h("p", { class: "muted" }, `${nameOf(frame.dealer)} deals ten cards to each player. Step through the game with the buttons or the arrow keys.`),
      adviceSummaryEl());
    return;
  }
  const names = (seat) => nameOf(seat);
  const lines = (frame.events || []).filter((ev) => ev.type !== "hunt_result")
    .map((ev) => describeEvent(ev, names)).filter(Boolean);
  fill(box,
    h("p", { class: "step-now__title" }, `Step ${frame.index}: ${frame.text}`),
    standIn(frame.index) ? h("p", { class: "muted" }, `A stand-in bot chose this for ${nameOf(frame.action.seat)}, who was away or out of time.`) : null,
    adviceOn(frame.index) ? adviceEl(adviceOn(frame.index)) : null,
    lines.length ? h("ul", { class: "step-events" }, lines.map((parts) => lineEl(parts, "li"))) : null,
    frame.score_changes.map((ch) => h("div", { class: "score-change" },
      h("div", { class: "score-change__head" }, cardEl(ch.rabbit, { size: "xs" }),
        h("span", {}, ch.rule === "void" ? "No hunt" : "Score change"),
        h("span", { class: "score-change__points" }, ch.points.map((p, s) => (p ? `${nameOf(s)} ${signed(p)}` : null)).filter(Boolean).join(", ") || "no points")),
      h("p", {}, ch.explanation))),
    R.index === frames().length - 1 && R.data.result ? resultEl(R.data.result) : null);
}

// ---- the advice after a Dingo game (the server's app/game/advice.py, worked out in the
// background once the match was over) ---------------------------------------------------

/** The advice on step ``index`` (a person's decision that had a choice), if any. */
function adviceOn(index) {
  const advice = R.data.advice;
  return advice && advice.status === "ready" ? advice.decisions.find((d) => d.index === index) : undefined;
}

/** Whether a stand-in bot played step ``index`` for an absent person. */
const standIn = (index) => (R.data.stand_in || []).includes(index);

/** A Dingo action in words: "passing K♠", "playing 5♣ 5♠", "letting the hunt pass". */
function actionWords(action) {
  const cards = action.cards || (action.card ? [action.card] : []);
  if (action.type === "play" && !cards.length) return ["letting the hunt pass"];
  const verb = { discard: "discarding", pass: "passing", play: "playing" }[action.type] || action.type;
  return [`${verb} `, ...cards.flatMap((c, i) => (i ? [" ", cardName(c)] : [cardName(c)]))];
}

const points = (n) => `${Math.abs(n).toFixed(1).replace(/\.0$/, "")} point${Math.abs(n) === 1 ? "" : "s"}`;

function adviceEl(d) {
  const who = nameOf(d.seat);
  const known = d.known.lost > 0
    ? [`Given what ${who} knew, `, ...actionWords(d.best), ` was worth ${points(d.known.lost)} more on average than `, ...actionWords(d.played), "."]
    : [`Given what ${who} knew, this was the best choice.`];
  const hindsight = d.hindsight.lost > 0
    ? ["With every card known, ", ...actionWords(d.hindsight.best), ` would have scored ${points(d.hindsight.lost)} more.`]
    : [`With every card known, it was the best choice ${d.known.lost > 0 ? "after all" : "too"}.`];
  return h("div", { class: ["advice", d.mistake && "advice--mistake"], role: "note" },
    h("p", { class: "advice__head" }, d.mistake ? "Mistake" : d.known.lost > 0 ? "Could be better" : "Good choice"),
    h("p", {}, ...known), h("p", { class: "muted" }, ...hindsight));
}

/** Under the deal: the advice's state, and each person's mistakes in this game. */
function adviceSummaryEl() {
  const advice = R.data.advice;
  if (!advice || advice.status === "none") return null;
  if (advice.status === "pending") {
    return h("p", { class: "advice advice--pending" }, "The advice on each choice is being worked out; it appears here in a minute or two.");
  }
  // The people who played, named even if a bot took their seat later in the game.
  const people = R.data.holders.map((turns, seat) => ({ seat, person: turns.find((t) => !t.bot) }))
    .filter((p) => p.person);
  const counts = people.map(({ seat, person }) => `${nameOfHolder(seat, person)}: ${advice.mistakes[seat]} mistake${advice.mistakes[seat] === 1 ? "" : "s"}`);
  return h("div", { class: "advice" },
    h("p", { class: "advice__head" }, "Advice after the game"),
    h("p", {}, counts.join(" · ")),
    h("p", { class: "muted" }, `A mistake lost at least one point given what the player knew then (the cards they could not see dealt ${advice.deals} ways and played out by bots); steps marked Mistake say what was better.`));
}

function resultEl(result) {
  // The server's words for the rule that decided the game, the same the live table shows.
  const who = R.data.winner_rule;
  return h("div", { class: "score-change score-change--final" },
    h("p", { class: "step-now__title" }, who),
    h("p", { class: "muted" }, [0, 1, 2, 3].map((s) => `${nameOf(s)}: ${signed(result.scores[s])}`).join(" · ")));
}

function drawSteps() {
  if (R.generic) return drawGenericSteps();
  const list = $("#steps");
  fill(list, frames().map((frame, i) => h("li", { dataset: { index: String(i) } },
    h("button", { type: "button", class: "step-btn", onclick: () => { stop(); show(i); } },
      h("span", { class: "step-btn__n" }, String(i)),
      h("span", {}, i === 0 ? "The deal" : frame.text),
      adviceOn(i)?.mistake ? h("span", { class: "badge badge--mistake" }, "Mistake") : null,
      standIn(i) ? h("span", { class: "badge", title: "A stand-in bot chose this" }, "Bot") : null,
      frame.score_changes && frame.score_changes.some((c) => c.rule !== "void")
        ? h("span", { class: "badge badge--win" }, frame.score_changes.map((c) => rankLabel(c.rank)).join(" ")) : null))));
}

// ---- every game but Dingo: the game's module draws the chosen seat's view ---------------

const say = (text, step = R.index) => fillNames(text, (i) => nameOf(i, step) ?? `Seat ${i + 1}`);

/** Load the game's client module and its CSS (as the table frame does). */
const loadModule = (game) => loadGameModule(safeGameName(game));

/** A module's hook; a mistake in it never stops the viewer (it is still reported). */
function hook(fn, ...args) {
  if (!R.module || typeof R.module[fn] !== "function") return undefined;
  try {
    return R.module[fn](...args);
  } catch (e) {
    setTimeout(() => { throw e; });
    return undefined;
  }
}

function positionOf(seat) {
  const n = R.data.seats;
  const base = R.seen === null ? 0 : R.seen;
  const list = n === 2 ? ["bottom", "top"] : POSITIONS;
  return list[(seat - base + n) % n];
}

function statusOf(view) {
  if (view && view.match && view.match.over) return "match_over";
  return view && Array.isArray(view.to_act) && view.to_act.length === 0 ? "between_games" : "playing";
}

function ctxFor(frame, view, prev) {
  return {
    seat: R.seen, seats: R.data.seats,
    name: (seat) => nameOf(seat), plainName: (seat) => nameOf(seat), say,
    reader: reader(), sayYou: (text) => say(reader() === null ? text : secondPerson(text, reader())),
    act: () => {}, busy: true, myTurn: false, replay: true,
    status: statusOf(view), position: positionOf,
    view, prev, events: frame.events || [], match: null, options: {},
    toast: () => {}, flash: () => {},
  };
}

/** The seat read as "you": the one seen from, when this browser played it (anyone else
 * reads a record in names). */
const reader = () => (R.seen !== null && R.seen === R.mine ? R.seen : null);

const viewOf = (frame) => (R.seen === null ? frame.spectator : frame.views[R.seen]);

function drawGeneric(frame) {
  const all = frames();
  const view = viewOf(frame);
  const prev = R.index > 0 ? viewOf(all[R.index - 1]) : null;
  const ctx = ctxFor(frame, view, prev);
  const felt = $("#rfelt");
  fill(felt);
  const toAct = new Set(Array.isArray(view.to_act) ? view.to_act : []);
  const seatSlots = {};
  for (let seat = 0; seat < R.data.seats; seat++) {
    const slot = h("div", { class: "gseat__game" });
    seatSlots[seat] = slot;
    felt.appendChild(h("div", { class: ["rseat", "gseat", `rseat--${positionOf(seat)}`, toAct.has(seat) && "rseat--turn"], dataset: { seat: String(seat) } },
      h("div", { class: "rseat__head" }, avatar(nameOf(seat), seat),
        h("span", { class: "rseat__name" }, nameOf(seat)),
        botBadge(holderAt(seat)), youBadge(seat, R.mine),
        seat === R.seen ? h("span", { class: "badge", title: "The replay is seen from this seat" }, "seen from") : null),
      slot));
  }
  const board = h("div", { class: "gboard", id: "gboard" });
  const hand = h("div", { class: "ghand", id: "ghand", role: "group", "aria-label": R.seen === null ? "Hand" : `${nameOf(R.seen)}'s hand` });
  felt.appendChild(h("div", { class: "rcenter gcenter" }, board));
  felt.appendChild(h("div", { class: "gtray" }, hand));
  if (R.module) {
    hook("render", view, ctx, { board, hand, seats: seatSlots });
  } else {
    board.appendChild(h("p", { class: "muted-dark" }, "This game cannot be drawn in this browser; its narration is below."));
  }
  drawGenericNow(frame, view, ctx);
}

/** The sentences (`say`) of the events a step caused, their seats still `{0}`, `{1}` …. */
function narration(frame) {
  return (frame.events || []).map((ev) => ev.say).filter(Boolean);
}

function drawGenericNow(frame, view, ctx) {
  const box = $("#step-now");
  const last = R.index === frames().length - 1;
  // Worded as the board and the results are: the seat the replay is seen from is "you".
  // At the end the game's result in words stands out on its own, not twice.
  const told = narration(frame);
  const final = last && R.data.say ? told.find((text) => say(text) === R.data.say) : undefined;
  const lines = told.filter((text) => text !== final).map((text) => ctx.sayYou(text));
  const results = last ? hook("results", view, null, ctx) : null;
  // Who is to act next, told as a spectator is told (names), not the seat's own instruction.
  const next = !last && frame.spectator && frame.spectator.prompt;
  fill(box,
    h("p", { class: "step-now__title" }, R.index === 0 ? "The deal" : `Step ${frame.index}: ${nameOf(frame.seat)}`),
    lines.length ? h("ul", { class: "step-events", id: "step-says" }, lines.map((text) => h("li", {}, text))) : null,
    next ? h("p", { class: "muted step-prompt", id: "step-next" }, say(next)) : null,
    last && R.data.say ? h("div", { class: "score-change score-change--final" }, h("p", { class: "step-now__title", id: "game-say" }, final === undefined ? R.data.say : ctx.sayYou(final))) : null,
    results instanceof Node ? h("div", { class: "gresults" }, results) : null);
}

function drawGenericSteps() {
  const list = $("#steps");
  fill(list, frames().map((frame, i) => {
    // The module's sum of the step, else the server's first sentence (who did what; the
    // list is the same from every seat), else the seat and the action's type.
    const first = hook("stepSay", frame.events || []) ?? narration(frame)[0];
    const text = i === 0 ? "The deal" : first ? say(first, i) : `${nameOf(frame.seat, i)}: ${frame.action.type || "moves"}`;
    return h("li", { dataset: { index: String(i) } },
      h("button", { type: "button", class: "step-btn", onclick: () => { stop(); show(i); } },
        h("span", { class: "step-btn__n" }, String(i)), h("span", {}, text)));
  }));
}

/** A seat as the "Seen from" bar names it: its holders in this game ("Bob / Bruno"). */
const seatTitle = (seat) => [...new Set(R.data.holders[seat].map((t) => nameOfHolder(seat, t)))].join(" / ");

/** "Seen from: Ann / Bob / Spectator": whose view the module draws. */
function drawSeenFrom() {
  const choices = [...R.data.players.map((p) => p.seat), null];
  const bar = h("div", { class: "seen-from", id: "seen-from", role: "group", "aria-label": "Seen from" },
    h("span", { class: "seen-from__label" }, "Seen from:"),
    choices.map((seat) => h("button", {
      type: "button", class: "btn btn--small", "aria-pressed": String(seat === R.seen),
      dataset: { seen: seat === null ? "spectator" : String(seat) },
      onclick: () => { R.seen = seat; drawSeenFrom(); show(R.index, { scroll: false }); },
    }, seat === null ? "Spectator" : seatTitle(seat))));
  const old = $("#seen-from");
  if (old) old.replaceWith(bar);
  else $("#rfelt").before(bar);
}

async function startGeneric() {
  R.generic = true;
  document.body.dataset.game = R.data.game;
  $("#rfelt").classList.add("gfelt", `gfelt--${R.data.seats}`);
  // Seen from the seat the link names, else from the one this browser played, else seat 0.
  const seen = new URLSearchParams(location.search).get("seen");
  const seat = Number.parseInt(seen ?? "", 10);
  R.seen = seen === "spectator" ? null
    : (seat >= 0 && seat < R.data.seats ? seat : R.mine ?? 0);
  R.module = await loadModule(R.data.game);
  drawSeenFrom();
}

function play() {
  if (R.timer) return stop();
  if (R.index === frames().length - 1) show(0);
  setPlaying(true);
  R.timer = setInterval(() => show(R.index + 1), AUTOPLAY_MS);
  return undefined;
}

function setPlaying(on) {
  $("#play .ico-play").toggleAttribute("hidden", on);
  $("#play .ico-pause").toggleAttribute("hidden", !on);
  $("#play-text").textContent = on ? "Pause" : "Play";
  $("#play").setAttribute("aria-label", on ? "Pause" : "Play");
}

function stop() {
  clearInterval(R.timer);
  R.timer = null;
  setPlaying(false);
}

function wire() {
  $("#first").onclick = () => { stop(); show(0); };
  $("#prev").onclick = () => { stop(); show(R.index - 1); };
  $("#next").onclick = () => { stop(); show(R.index + 1); };
  $("#last").onclick = () => { stop(); show(frames().length - 1); };
  $("#play").onclick = play;
  $("#slider").max = String(frames().length - 1);
  $("#slider").addEventListener("input", (e) => { stop(); show(Number(e.target.value)); });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select")) return;
    const keys = { ArrowLeft: () => show(R.index - 1), ArrowRight: () => show(R.index + 1), Home: () => show(0), End: () => show(frames().length - 1) };
    if (keys[e.key]) {
      stop();
      keys[e.key]();
      e.preventDefault();
    } else if (e.key === " " && !e.target.closest("button")) {
      play();
      e.preventDefault();
    }
  });
}

async function main() {
  $("#back").href = `/matches/${encodeURIComponent(matchId)}`;
  try {
    R.data = await getJSON(`/api/matches/${encodeURIComponent(matchId)}/games/${encodeURIComponent(gameNumber)}/replay`);
  } catch (e) {
    fill($("#replay"), loadFailed(e, "replay", "This match has no such game."));
    return;
  }
  const title = R.data.game_title || "Dingo";
  document.title = `Match #${matchId}, ${title} game ${gameNumber} replay · Dingo Online`;
  $("#replay-title").textContent = `Match #${matchId} · ${title} · Game ${gameNumber}`;
  R.mine = readerSeat(R.data.table_id, allHolders());  // (the seat this browser played)
  if (R.data.game && R.data.game !== "dingo") await startGeneric();
  drawSteps();
  wire();
  const start = Number.parseInt(new URLSearchParams(location.search).get("step") || "0", 10) || 0;
  show(start);
}

main();
