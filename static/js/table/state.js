// The table frame's shared state: what this page knows (S), the game's module (G), and the
// small questions every part of the frame asks (names, places, whose turn, the module's hooks).

import { toast } from "../dom.js";
import { fillNames, loadGameModule, safeGameName } from "../games/load.js";
import { SEAT_LABELS, secondPerson } from "../words.js";
import { seatNames } from "../render.js";
import fallbackModule from "./fallback.js";

export const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
/** Where each seat sits on screen, from the viewer's seat on, by how many seats the game has. */
export const POSITIONS = { 4: ["bottom", "left", "top", "right"], 2: ["bottom", "top"] };
export const ALL_POSITIONS = ["bottom", "left", "top", "right"];
export const S = {
  seat: null,        // my seat, or null when watching
  host: false,
  heldHost: false,  // whether this page held the host role when a plate last showed it
  state: null,       // the last `state` message, patched by every `delta` since
  resyncing: false,  // a `sync` was sent after a gap: deltas wait for its answer
  pending: null,     // {id, v} of a game intent awaiting its answer
  // id -> every intent sent whose answer has not come yet (sent again after a reconnect;
  // kept across the reload for a new version of the site: updateAndReload)
  outbox: new Map(takeList("outbox").map((msg) => [msg.id, msg])),
  // the client code this page runs: the build its page says, else the first `welcome`'s
  build: document.querySelector('meta[name="dingo-build"]')?.content || null,
  reloading: false,  // the server serves other client code: this page is reloading
  offline: false,    // the socket is down, or the fresh state after the reconnect is not in yet
  unreached: new Set(), // ids answered `service_unavailable`: sent again with the next full state
  seq: 0,
  timer: null,       // {seats, end (performance.now ms), total (s)}
  wasLost: false,
  resultsHidden: null, // resultsKey() of results the player put aside
  inert: false,      // another tab took this seat: show the table, offer no moves
  logNames: null,    // while the log is rebuilt: names of seats that changed hands since
  skew: 0,           // server clock minus ours (s), from the turn timer
  botKind: {},       // per empty seat: the kind the host picked in "Add bot"
  flashTimer: null,
  log: loadList("log"),
  chat: loadList("chat"),
};

/** The game's module: {name, module}, set once the first state has said which game this is. */
export const G = { name: null, module: null };

// ---- memory of this tab: the log and chat survive a reload ---------------------

export function loadList(kind) {
  try { return JSON.parse(sessionStorage.getItem(`dingo.${kind}.${tableId}`) || "[]"); } catch { return []; }
}
export function saveList(kind, list) {
  try { sessionStorage.setItem(`dingo.${kind}.${tableId}`, JSON.stringify(list)); } catch { /* not kept */ }
}
/** A list kept for this tab's next page only: read once, then forgotten. */
function takeList(kind) {
  const list = loadList(kind);
  try { sessionStorage.removeItem(`dingo.${kind}.${tableId}`); } catch { /* nothing kept */ }
  return list;
}

// ---- the game's module -----------------------------------------------------------------

/** Load `/static/js/games/<game>/index.js` and link its CSS; the fallback if it is missing. */
export async function loadGame(game) {
  const name = safeGameName(game) || "dingo";
  let module = await loadGameModule(name);
  if (!module) {
    module = fallbackModule;
    toast("This game cannot be drawn properly in this browser: its moves are shown as buttons.", { error: true });
  }
  G.name = name;
  G.module = module;
  document.body.dataset.game = name;
}

/** A module's hook, called so that a mistake in it never stops the frame (it is still reported). */
export function hook(name, ...args) {
  const fn = G.module && G.module[name];
  if (typeof fn !== "function") return undefined;
  try {
    return fn.apply(G.module, args);
  } catch (e) {
    setTimeout(() => { throw e; });
    return undefined;
  }
}
export const has = (name) => Boolean(G.module && typeof G.module[name] === "function");

/** What one game of the match is called on the frame's buttons and lines ("deal" in Bingo). */
export const roundWord = () => (G.module && G.module.round) || "game";

export function gameTitle() {
  if (S.state && S.state.table.title) return S.state.table.title;
  if (G.module && G.module.title) return G.module.title;
  const name = G.name || "dingo";
  return name.charAt(0).toUpperCase() + name.slice(1);
}

// ---- names and places -------------------------------------------------------------------

export function seatsOf(state = S.state) {
  return state ? state.seats : [0, 1, 2, 3].map((seat) => ({ seat, kind: "empty" }));
}

export const seatCount = () => seatsOf().length;

/** Who played a seat in the game on the felt, once it is over, if someone else holds the
 * seat now (the server's `played`): the game's results and log are theirs. */
const playedBy = (seat, state) => (state && state.game && gameOver() && seatsOf(state)[seat]?.played) || null;

/** The seat this page's words call "you": its own, unless someone else played it in the
 * game on the felt (a seat taken between games). */
export const reader = () => (S.seat !== null && !playedBy(S.seat, S.state) ? S.seat : null);

/** A seat's name in the game ("You" for the reader's). */
export function nameOf(seat, state = S.state) {
  if (seat === reader() && seat !== null) return "You";
  return plainName(seat, state);
}

/** A seat's name in the game: who played it (see playedBy), else who holds it. */
export function plainName(seat, state = S.state) {
  if (S.logNames && seat in S.logNames) return S.logNames[seat];
  const played = playedBy(seat, state);
  return played ? played.name : occupantName(seat, state);
}

/** Who holds a seat now (its plate, the lobby); where two seats share a name (three
 * "Heuristic bot"s), the seat number is added. */
export function occupantName(seat, state = S.state) {
  return seatNames(seatsOf(state))[seat] || SEAT_LABELS[seat] || `Seat ${seat + 1}`;
}

/** The server's narration with `{0}`, `{1}` … replaced by seat names. */
export function say(text) {
  return fillNames(text, plainName);
}

/** `say`, but the reader's seat is "you", its verb in the second person ("you win"). */
export function sayYou(text) {
  return say(secondPerson(text, reader()));
}

/** Seat shown at the bottom: mine, or seat 0 for a spectator. */
export const baseSeat = () => (S.seat === null ? 0 : S.seat);
export function positionOf(seat) {
  const n = seatCount();
  const list = POSITIONS[n] || POSITIONS[4];
  return list[(seat - baseSeat() + n) % n];
}

/** The seats that may act now: `state.to_act` (by default the current state's). Every
 * state and delta carries it, in the lobby too (`[]`): a game's view need not say it. */
export function toAct(state = S.state) {
  return (state && state.to_act) || [];
}

/** Whether `state` (by default the current one) asks this seat for a move. */
export function isMyTurn(state = S.state) {
  const g = state && state.game;
  return Boolean(g && !S.inert && S.seat !== null && toAct(state).includes(S.seat) && g.legal && g.legal.length);
}

export function status() {
  return S.state.table.status;
}

/** The seats nobody holds (a bot removed, a seat freed), by index. */
export function freeSeats() {
  return S.state.seats.filter((s) => s.kind === "empty").map((s) => s.seat);
}

/** The game is over (between games, or the match is): the results panel's time. */
export function gameOver() {
  const g = S.state.game;
  return Boolean(g && (g.phase === "over" || ["between_games", "match_over"].includes(status())));
}
