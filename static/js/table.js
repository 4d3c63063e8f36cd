// The table page: one WebSocket to the table server (docs/protocol.md), and a drawing of
// the latest state: the full `state` the server sent, patched by every `delta` since
// (patch.js). Every change comes from the server; the page only sends intents and redraws
// what it is told.
//
// This file is the frame, which knows no game's rules: the connection, the seats around
// the felt, the lobby, chat, the game log, the turn timer, the scoreboard box, the results
// panel, banners, turn alerts and announcements. The game itself is drawn by its module,
// static/js/games/<name>/index.js, loaded once the first `state` says which game the table
// plays (`state.table.game`); the interface is static/js/games/README.md. The frame's other
// parts: table/state.js (what the page knows, names, places, the module's hooks),
// table/seats.js (the plates), table/log.js (log and chat), table/alerts.js (turn alerts).

import { $, $$, ask, h, fill, fillIfChanged, toast, copyText, plural, andList } from "./dom.js";
import { forgetSeat, rememberTable, saveName, savedName, tableMemory } from "./api.js";
import { Connection } from "./connection.js";
import { applyDelta } from "./patch.js";
import { lineEl } from "./render.js";
import { setupAlerts, turnAlert } from "./table/alerts.js";
import {
  ALL_POSITIONS, G, S, freeSeats, gameOver, gameTitle, has, hook, isMyTurn, loadGame, loadList, nameOf,
  occupantName, plainName, positionOf, reader, roundWord, saveList, say, sayYou, seatCount, status, tableId, toAct,
} from "./table/state.js";
import { addChat, addLog, describe, logEvents, renderChat, renderLog, replaceGameLog } from "./table/log.js";
import { seatEl, tick, tickingLine } from "./table/seats.js";
// ---- the connection ----------------------------------------------------------------

const conn = new Connection(tableId, {
  hello: () => {
    const mem = tableMemory(tableId) || {};
    return { type: "hello", token: mem.token || mem.host_token || null };
  },
  onMessage: queueMessage,
  onStatus: showConnection,
});

let retryTicker = null;

/**
 * Offline (from the moment the socket is lost until the fresh `state` after the reconnect
 * is in): nothing that sends can be pressed (ctx.busy for the game's module, the frame's
 * own buttons are disabled), the prompt says so and the tray is greyed. An intent sent just
 * before the drop stays in S.outbox and is sent again after the reconnect (resendUnanswered).
 */
function markOffline(on) {
  S.offline = on;
  document.body.classList.toggle("table-page--offline", on);
  for (const el of $$("#chat-form button")) el.disabled = on;
}

function showConnection(status) {
  if (status.state !== "open" && (!S.offline || status.state === "stopped")) {
    markOffline(true);
    render();
  }
  const el = $("#conn");
  el.className = `conn conn--${status.state}`;
  const text = { connecting: "Connecting…", reconnecting: "Reconnecting…", open: "Connected", lost: "Offline", stopped: "Disconnected" };
  $("#conn-text").textContent = text[status.state] || "";
  const banner = $("#banner");
  const btn = $("#banner-btn");
  clearInterval(retryTicker);
  if (status.state === "open") {
    banner.hidden = true;
    if (S.inert) {
      S.inert = false;
      render();
    }
    return;
  }
  if (status.state === "lost") {
    S.wasLost = true;
    const update = () => {
      const secs = Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000));
      $("#banner-text").textContent = `Connection lost: your moves are paused until it is back. Reconnecting${secs ? ` in ${secs} s` : ""}…`;
    };
    update();
    retryTicker = setInterval(update, 500);
    btn.textContent = "Retry now";
    btn.hidden = false;
    btn.onclick = () => conn.retryNow();
    banner.className = "banner";
    banner.hidden = false;
  } else if (status.state === "reconnecting") {
    $("#banner-text").textContent = "Reconnecting… your moves are paused until it is back.";
    btn.hidden = true;
  } else if (status.state === "stopped") {
    notice(status.reason);
    if (status.code === 4001) {
      // Another tab holds the seat now: this one only shows the table.
      S.inert = true;
      S.pending = null;
      S.outbox.clear();
      S.unreached.clear();
      S.timer = null;
      btn.textContent = "Play here instead";
      btn.hidden = false;
      btn.onclick = () => conn.restart();
      render();
    }
  }
}

/** The banner as a notice without a button: the connection ended, or the page reloads. */
function notice(text) {
  $("#banner-text").textContent = text;
  $("#banner-btn").hidden = true;
  $("#banner").className = "banner banner--info";
  $("#banner").hidden = false;
}

/** Messages are handled in order; the first `state` waits for its game's module to load. */
let inbox = Promise.resolve();
function queueMessage(msg) {
  inbox = inbox.then(async () => {
    if (msg.type === "state" && !G.module) await loadGame(msg.table && msg.table.game);
    onMessage(msg);
  }).catch((e) => setTimeout(() => { throw e; }));
}

function onMessage(msg) {
  if (S.reloading) return; // this page's code is out of date: the new page takes over
  switch (msg.type) {
    case "welcome":
      if (S.build && msg.build && msg.build !== S.build && !reloadedForUpdateLately()) {
        updateAndReload();
        return;
      }
      // (Reloaded a moment ago and still told of other code: a rolling deploy is under
      // way, and this page may come from a process not updated yet. Carry on: the next
      // reconnect, once that process is gone, tells again.)
      S.build = msg.build || S.build;
      if (msg.seat !== null || msg.host) rememberTable(tableId, {});  // visited now ("Your tables")
      else roleGone();
      S.seat = msg.seat;
      S.host = S.heldHost = Boolean(msg.host);
      break;
    case "seated":
      S.seat = msg.seat;
      S.host = S.heldHost = Boolean(msg.host);
      // A null token means the seat took the token this browser already holds (the host's).
      rememberTable(tableId, msg.token ? { token: msg.token, seat: msg.seat } : { seat: msg.seat });
      break;
    case "unseated": {
      // You gave your seat up (leave_seat): you watch now; the token names no seat. The
      // host's names the role still (kept as the host token); the seat is kept as the one
      // this browser played, for the records (readerSeat).
      const mem = tableMemory(tableId) || {};
      rememberTable(tableId, { played_seat: S.seat, ...(S.host ? { host_token: mem.token || mem.host_token } : {}) });
      S.seat = null;
      forgetSeat(tableId);
      toast(S.host ? "You left your seat: you are watching, and still the host." : "You left your seat: you are watching.");
      break;
    }
    case "state": {
      S.resyncing = false;
      const back = S.offline; // the first state after a (re)connect
      if (back) markOffline(false);
      // The intents sent before, first: this state may send new ones (autoSit), once.
      if (back) resendUnanswered();
      onState(msg);
      if (!back && S.unreached.size) resendUnreached();
      break;
    }
    case "delta": {
      // The answer to a move counts whether or not its patch can be applied here.
      if ("ack" in msg) answered(msg.ack);
      if (S.resyncing) break; // the full state asked for replaces whatever came before it
      const next = applyDelta(S.state, msg);
      if (!next) {
        askFullState(); // a gap (or nothing to patch yet)
        break;
      }
      onState(next);
      break;
    }
    case "ack":
      // A move's answer sent again (after a reconnect) comes alone, and nothing else may
      // follow (the others wait for this seat): it alone frees the hand.
      if (answered(msg.id)) render();
      break;
    case "error":
      onError(msg);
      break;
    case "chat":
      addChat(msg);
      break;
    default:
      break;
  }
}

/**
 * Ask for the full state (after a gap in the deltas). No move goes out until it comes (the
 * tray greys); a `sync` the server let pass unanswered (a rate limit) is asked again.
 */
function askFullState() {
  clearTimeout(resyncRetry);
  S.resyncing = conn.send({ type: "sync" });
  if (S.resyncing) resyncRetry = setTimeout(() => { if (S.resyncing) askFullState(); }, RESYNC_RETRY_MS);
  render();
}
let resyncRetry = null;
const RESYNC_RETRY_MS = 3000;

/**
 * An intent unanswered this long on the socket it went out on: the table may be busy (a bot
 * thinking), or the socket died silently (a phone that changed networks gets no "offline"
 * event, and its socket may stay open, mute, for minutes while the move says "Sending…").
 * Ask the socket (conn.probe): a dead one is dropped, and the page reconnects and sends the
 * intent again (resendUnanswered; never made twice). Asked again while the wait goes on.
 * An intent the table could not take for now (S.unreached) waits on purpose.
 */
const ANSWER_WAIT_MS = 10000;

function expectAnswer(id) {
  const socket = conn.ws;
  setTimeout(() => {
    if (!S.outbox.has(id) || S.unreached.has(id) || conn.ws !== socket) return;
    conn.probe();
    expectAnswer(id);
  }, ANSWER_WAIT_MS);
}

/** Intent `id` is answered: no longer to be sent again; true if it was the move in flight. */
function answered(id) {
  S.outbox.delete(id);
  if (!S.pending || S.pending.id !== id) return false;
  S.pending = null;
  return true;
}

/**
 * The server this page is connected to serves other client code than the page runs (the
 * site was updated while it was open, or a rolling deploy is under way): this code may not
 * read its messages right. Reload, keeping the intents whose answer never came: the new
 * page sends them again with their own ids once its state is in (resendUnanswered), so a
 * move made just before is neither lost nor made twice.
 */
function updateAndReload() {
  S.reloading = true;
  conn.stop();
  saveList("outbox", [...S.outbox.values()]);
  saveList("updated", [Date.now()]);
  notice("Dingo Online was just updated: loading the new version…");
  location.reload();
}

/** Whether this tab reloaded for a new version of the site in the last minute. */
function reloadedForUpdateLately() {
  const [at] = loadList("updated");
  return typeof at === "number" && Date.now() - at < RELOAD_AGAIN_AFTER_MS;
}
const RELOAD_AGAIN_AFTER_MS = 60000;

const FRIENDLY_ERRORS = {
  stale_version: "The table moved on before your move arrived. Have another look and try again.",
  not_your_turn: "It isn't your turn any more.",
  rate_limited: "Slow down a little.",
  // No intent of this page's: the table could not be reached at all (the connection retries).
  service_unavailable: "The table is out of reach for a moment; trying again…",
};

/** Refusals that say more for one kind of intent, once out of the lobby: "<intent type> <code>". */
const FRIENDLY_REFUSALS = {
  "leave_seat stale_version": "The match started before you left: you keep your seat.",
};

/** Card codes in a server message ("AS is not in your hand") as card names ("A♠"). */
function readable(text) {
  const words = String(text || "").replace(/\b([2-9TJQKA])([CDHS])\b/g, (_, r, su) => `${r === "T" ? "10" : r}${{ C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" }[su]}`);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const ROLE_PASSED = "While you were away the host role passed to a player at the table: you are watching.";

/** Welcomed with neither a seat nor the role, by the token of a host who held no seat (it
 * left its seat, its token kept): the role passed on while this page was away. */
function roleGone() {
  const mem = tableMemory(tableId) || {};
  if (!mem.host_token || mem.token) return;
  rememberTable(tableId, { host_token: null });
  toast(ROLE_PASSED, { error: true });
}

function onError(msg) {
  if (msg.code === "bad_token") {
    // The token this browser kept no longer matches a seat (the host freed it while this
    // page was away, even after it had joined once), or, held by a host without a seat,
    // the role passed on meanwhile: carry on as a spectator.
    const mem = tableMemory(tableId) || {};
    S.seat = null;
    forgetSeat(tableId);
    rememberTable(tableId, { host_token: null });
    conn.send({ type: "hello", token: null });
    toast(mem.token ? "While you were away the host gave your seat away or freed it: you are watching."
      : ROLE_PASSED, { error: true });
    return;
  }
  if (msg.code === "service_unavailable" && S.outbox.has(msg.id)) {
    // Several servers: the table's own server is out of reach for a moment, and the intent
    // was not applied. The server replays this socket's hello once it is back, and a full
    // state follows: the intent goes out again then, same id (docs/protocol.md).
    S.unreached.add(msg.id);
    toast("The table is out of reach for a moment: your move goes out again as soon as it is back.");
    return;
  }
  const sent = S.outbox.get(msg.id);
  answered(msg.id);
  if (sent && sent.type === "leave_seat" && S.seat === null) {
    render();  // a second press: the first leave went through
    return;
  }
  const lobby = status() === "lobby";
  if (sent && sent.type === "leave_seat" && msg.code === "stale_version" && lobby
      && !S.resyncing && S.state.v !== sent.v) {
    // Someone sat down or a bot came meanwhile, and it is still the lobby: leave as it is now.
    send("leave_seat", { v: S.state.v });
    return;
  }
  const words = (sent && !lobby && FRIENDLY_REFUSALS[`${sent.type} ${msg.code}`]) || FRIENDLY_ERRORS[msg.code];
  toast(words || (msg.message ? `${readable(msg.message)}.` : "That was refused."), { error: true });
  render();
}

// ---- intents ---------------------------------------------------------------------------

function send(type, fields = {}, { game = false } = {}) {
  if (S.inert) {
    // (Pressed in a dialog opened before another tab took the seat.)
    toast("This tab only watches: your seat is played in another tab.", { error: true });
    return false;
  }
  const id = `${type.slice(0, 3)}-${Date.now().toString(36)}-${(++S.seq).toString(36)}`;
  const msg = { type, ...fields, id };
  if (game) msg.v = S.state.v;
  if (!conn.send(msg)) {
    toast("Not connected right now. Reconnecting…", { error: true });
    return false;
  }
  S.outbox.set(id, msg);
  expectAnswer(id);
  if (game) {
    S.pending = { id, v: S.state.v };
    render();
  }
  return true;
}

/**
 * After a reconnect, once the fresh state is in: the intents whose answer never came, sent
 * again with their own `id` (and `v`). The server answers an id it already answered with
 * that answer and never applies an intent twice (docs/protocol.md), so a move that got
 * through is not made again, and one lost on the way is made now (or refused, with a toast).
 */
function resendUnanswered() {
  S.unreached.clear();
  for (const msg of S.outbox.values()) {
    if (!conn.send(msg)) return;
    expectAnswer(msg.id);
  }
}

/** Once the table is reached again (a full state came): the intents it could not take. */
function resendUnreached() {
  for (const id of S.unreached) {
    const msg = S.outbox.get(id);
    S.unreached.delete(id);
    if (!msg) continue;
    if (!conn.send(msg)) return;
    expectAnswer(id);
  }
}

/**
 * No move may go out now: one is in flight, another tab plays this seat, the page is
 * offline, or a full state is on its way (the one drawn may be out of date).
 */
function cannotAct() {
  return Boolean(S.pending || S.inert || S.offline || S.resyncing);
}

/** ctx.act: send a game action (the engine's form; its `seat` is left out, the server knows it). */
function act(action, { keepFlash = false } = {}) {
  if (cannotAct()) return;
  if (!keepFlash) hideFlash();
  const { seat: _seat, type, ...fields } = action;
  send(type, fields, { game: true });
}

/** Your seat given up: at once in the lobby; once a match has started (also after it) only
 * once you say so (a bot plays it from then on, and you cannot have it back). A leave from
 * the lobby carries its version: should the host start the match before it arrives, it is
 * refused (stale), not turned into a seat given to a bot for good (refused because the
 * lobby changed otherwise, it goes again: onError). */
async function leaveSeat() {
  if ([...S.outbox.values()].some((m) => m.type === "leave_seat")) return;  // on its way already
  if (status() === "lobby") {
    send("leave_seat", { v: S.state.v });
    return;
  }
  // The host may remove the bot (between games) and sit again; nobody else may.
  const over = status() === "match_over";
  const back = S.host ? ` You stay the host: you may remove the bot${over ? "" : " between games"} and sit down again.`
    : " You cannot take the seat back.";
  const sure = await ask(over ? {
    title: "Leave the table?",
    text: `A bot takes your seat for a rematch, and you watch.${back}`,
    yes: "Leave the table", no: "Stay",
  } : {
    title: "Leave the match?",
    text: `A bot plays your seat from now on, and you watch.${back}`,
    yes: "Leave the match", no: "Stay",
  });
  if (sure) send("leave_seat");
}

function sitAt(seat) {
  const input = $("#sit-name");
  const name = (input.value || "").trim();
  if (!name) {
    $("#sit-error").textContent = "Type your name first, then pick a seat.";
    input.focus();
    return;
  }
  $("#sit-error").textContent = "";
  saveName(name);
  rememberTable(tableId, { name });
  send("sit", { seat, name });
}

// ---- what a module is told: ctx -------------------------------------------------------------

function makeCtx(prev = null) {
  const state = S.state;
  return {
    seat: S.seat,
    seats: seatCount(),
    name: (seat) => nameOf(seat),
    plainName: (seat) => plainName(seat),
    reader: reader(),
    say,
    sayYou,
    act,
    busy: cannotAct(),
    myTurn: isMyTurn(),
    toAct: toAct(state),
    status: state ? state.table.status : "lobby",
    position: positionOf,
    view: state ? state.game : null,
    prev: prev ? prev.game : null,
    events: (state && state.events) || [],
    match: state ? state.match : null,
    options: state ? state.table.options : {},
    toast,
    flash,
    announce: (text) => { $("#announce").textContent = text; },
  };
}

// ---- a new state --------------------------------------------------------------------------

/** A full state's new `events` are also the last lines of its `log` (all but a match's
 * start): the ones it holds are logged once, from the log. */
function notInLog(events, log) {
  const tail = new Set(log.slice(-events.length).map((ev) => JSON.stringify(ev)));
  return events.filter((ev) => !tail.has(JSON.stringify(ev)));
}

function onState(msg) {
  const prev = S.state;
  const wasMyTurn = isMyTurn();
  S.state = msg;
  // The host role can move (it passes on when the host is gone, or is handed over). While
  // the host holds no seat, no plate says whose it is: this page holds it if it watches too
  // and held it when a plate last showed it (or, since then, was told so on its own:
  // welcome, seated). A state missed in a resync can leave that out of date, but a
  // seated page, or any page while the host is not watching, holds no role.
  if (msg.seats.some((s) => s.host)) S.host = S.heldHost = S.seat !== null && Boolean(msg.seats[S.seat].host);
  else S.host = S.seat === null && Boolean(msg.table.host_watching) && Boolean(S.heldHost);
  // A move in flight is answered by its own `ack` or `error` (sent before the state it
  // makes). A state from someone else's move meanwhile (the other half of a simultaneous
  // decision) is not that answer: the hand stays busy, else a second move would go out and
  // be refused as stale. Only a state that no longer asks this seat ends the wait.
  if (S.pending && !toAct(msg).includes(S.seat)) S.pending = null;
  if (msg.log) replaceGameLog(msg.log, makeCtx());
  if (S.wasLost && prev) addLog([["Reconnected."]], "meta");
  S.wasLost = false;
  if (msg.events && msg.events.length) {
    const ctx = makeCtx();
    logEvents(msg.log ? notInLog(msg.events, msg.log) : msg.events, ctx);
    // Not only a line in the log: the player looking at the felt is told too.
    const timedOut = msg.events.find((ev) => ev.type === "auto_move" && ev.reason === "timer" && ev.seat === S.seat);
    if (timedOut && !S.inert) toast(describe(timedOut, ctx).join(""));
    // The last game's news (its last hunt) is old once a new game is dealt.
    if (msg.events.some((ev) => ev.type === "game_start")) hideFlash();
  }
  setTimer(msg.timer);
  autoSit(msg);
  render(prev);
  if (msg.events && msg.events.length) hook("onEvents", msg.events, makeCtx(prev));
  announce(msg, prev, wasMyTurn);
  if (!wasMyTurn && isMyTurn()) turnAlert({ title: gameTitle(), body: $("#prompt").textContent, tag: `dingo-${tableId}` });
  if (isMyTurn() && decision(msg) !== decision(prev)) showHand();
}

/** What this seat is asked now (its legal moves), or null: a new one is a new decision even
 * when the turn never passed (in Divide both seats are asked again as a battle ends). */
const decision = (state) => (isMyTurn(state) ? JSON.stringify(state.game.legal) : null);

/** When a decision comes with your hand below the window's foot (a phone shows about 650 px
 * of page), scroll down just enough to show it, keeping the prompt above it in view. Never
 * upward: someone reading further down (the log, the chat) stays where they are; and not
 * while you look around during one decision. */
function showHand() {
  const hand = $("#hand");
  if (!hand.childElementCount) return;
  const { top, bottom } = hand.getBoundingClientRect();
  if (top < 0 || bottom <= innerHeight) return;
  const promptTop = $("#tray .tray__now").getBoundingClientRect().top;
  const by = Math.min(bottom - innerHeight + 8, promptTop - 8);
  if (by <= 0) return;
  // At once: a smooth scroll is cut short by the next state's redraw (a bot answers fast).
  scrollBy({ top: by, behavior: "instant" });
}

/** The host who just created the table sits down at once in the first free seat. */
function autoSit(state) {
  const mem = tableMemory(tableId) || {};
  if (!mem.autosit || S.seat !== null || !S.host) return;
  rememberTable(tableId, { autosit: false });
  const free = state.seats.find((s) => s.kind === "empty");
  if (free && mem.name) send("sit", { seat: free.seat, name: mem.name });
}

function setTimer(timer) {
  if (!timer || S.inert) {
    S.timer = null;
    return;
  }
  S.skew = timer.server_time - Date.now() / 1000;
  S.timer = {
    seats: Array.isArray(timer.seats) ? timer.seats : [timer.seat],
    end: performance.now() + (timer.deadline - timer.server_time) * 1000,
    total: S.state.table.options.turn_seconds || S.state.table.turn_seconds || 30,
  };
}

// ---- drawing --------------------------------------------------------------------------------

function render(prev = null) {
  const state = S.state;
  if (!state || !G.module) return;
  $("#table-code").textContent = tableId;
  renderWatchers(state.table.spectators || 0, Boolean(state.table.host_watching) && !S.host);
  $("#felt").classList.toggle("felt--two", seatCount() === 2);
  const ctx = makeCtx(prev);
  const seatSlots = {};
  for (const pos of ALL_POSITIONS) fill($(`#pos-${pos}`));
  for (const info of state.seats) {
    const { el, slot } = seatEl(info, ctx, { send, sitAt, leaveSeat });
    seatSlots[info.seat] = slot;
    $(`#pos-${positionOf(info.seat)}`).appendChild(el);
  }
  renderGame(ctx, seatSlots, prev);
  renderScoreboard(ctx);
  renderLog();
  renderChat();
  tick();
  const myTurn = isMyTurn();
  document.title = `${myTurn ? "\u25CF Your turn · " : ""}${gameTitle()} table ${tableId} · Dingo Online`;
  // Turn alerts are for a seat: someone watching has no turn.
  $("#turn-alerts").hidden = S.seat === null;
  $("#rules-link").href = `/rules/${encodeURIComponent(S.state ? S.state.table.game || "dingo" : "dingo")}`;
}

/** "2 watching": the connections without a seat. A host without a seat shows on no plate, so
 * the others learn here that it is still at the table. */
function renderWatchers(count, host) {
  const el = $("#watchers");
  el.hidden = count === 0;
  el.textContent = host ? (count === 1 ? "1 watching: the host" : `${count} watching, the host too`) : `${count} watching`;
  el.title = `${count === 1 ? "1 person is" : `${count} people are`} watching this table${host ? (count === 1 ? ": the host, who holds no seat" : ", the host (who holds no seat) among them") : ""}`;
}

// ---- the game: the centre, the tray, the side ---------------------------------------------------

/** What the module draws (board, hand, actions, below the hand, seats, side), then the frame's parts. */
function renderGame(ctx, seatSlots, prev) {
  const state = S.state;
  const g = state.game;
  const center = $("#center");
  const handEl = $("#hand");
  const actionsEl = $("#actions");
  const inTray = (el) => Boolean(el) && (handEl.contains(el) || actionsEl.contains(el));
  const focusedEl = inTray(document.activeElement) ? document.activeElement : null;
  const focused = focusedEl ? focusedEl.dataset.card ?? focusedEl.dataset.key ?? null : null;
  fill(handEl);
  fill(actionsEl);
  fill($("#exchanges"));
  if (!g) fill(center, lobbyPanel());
  else fill(center);
  hook("render", g, ctx, {
    board: g ? center : h("div"),
    hand: handEl,
    actions: actionsEl,
    below: $("#exchanges"),
    seats: seatSlots,
    side: $("#game-side"),
  });

  // the results of a game over the felt
  const overlay = $("#overlay");
  const showResults = gameOver() && S.resultsHidden !== resultsKey();
  const opens = showResults && overlay.hidden;
  overlay.hidden = !showResults;
  if (showResults) fillIfChanged(overlay, resultPanel(ctx));
  else fill(overlay);
  // What the results cover is out of the keyboard's way (a "Remove bot" under them).
  for (const el of [...$("#felt").children].filter((c) => c !== overlay)) el.inert = showResults;
  coverPage();

  // what to do now
  const prompt = promptFor(ctx);
  const promptEl = $("#prompt");
  fill(promptEl, lineEl(prompt.parts));
  promptEl.className = `prompt${prompt.act ? " prompt--act" : ""}${prompt.offline ? " prompt--offline" : ""}`;
  if (gameOver() && S.resultsHidden === resultsKey()) {
    $("#actions").appendChild(h("button", { class: "btn btn--primary", type: "button", id: "show-results", onclick: () => toggleResults(true) },
      state.match && state.match.over ? "Show the match result" : "Show the scores"));
  }
  joinBox();

  // the hand: keep the keyboard focus on the same card or move (in the hand or beside the
  // prompt), or on a move when it becomes your turn (also away from a card you looked at
  // while waiting that this turn cannot play)
  const myTurn = isMyTurn();
  handEl.className = ["hand", !myTurn && "hand--waiting", S.pending && "hand--busy"].filter(Boolean).join(" ");
  if (handEl.childElementCount) {
    const key = focused === null ? null : CSS.escape(focused);
    const same = `[data-card="${key}"], [data-key="${key}"]`;
    const kept = key !== null ? handEl.querySelector(same) || actionsEl.querySelector(same) : null;
    const move = myTurn && (document.activeElement === document.body || focused) ? handEl.querySelector(".card--legal, .move") : null;
    // Your turn starts, or a new decision is put to you at once (the last to act in one
    // hunt is the first in the next): a card focused for the last one may not be legal.
    const turnStarts = prev !== null && myTurn && (!isMyTurn(prev)
      || JSON.stringify(prev.game.legal) !== JSON.stringify(state.game.legal));
    const target = kept && !(turnStarts && move && !kept.matches(".card--legal, .move")) ? kept : move;
    if (target) target.focus({ preventScroll: true });
  }
  // A keyboard player whose game just ended goes on from the results' first button
  // ("Ready", "Rematch"), not from a card left in the hand or the top of the page; focus
  // elsewhere (the chat) is left alone.
  if (opens && (focusedEl || document.activeElement === document.body)) {
    overlay.querySelector("button, a")?.focus({ preventScroll: true });
  }
}

/** The results of one game (or of the match) can be put aside to look at the table. */
function resultsKey() {
  const m = S.state.match;
  const number = m ? (m.game_number ?? (m.games || []).length) : 0;
  return `${number}:${status()}`;
}

function toggleResults(show) {
  S.resultsHidden = show ? null : resultsKey();
  render();
  if (show) $("#overlay button, #overlay a")?.focus();
}

/** The table's link to send: copy it, or (where the browser can, as phones do) hand it to
 * the system's share sheet (a chat app, a text message). */
function shareBox() {
  const link = `${location.origin}/t/${tableId}`;
  const input = h("input", { type: "text", readonly: true, value: link, "aria-label": "Table link" });
  const box = h("div", { class: "link-box" }, input,
    h("button", {
      class: "btn btn--small", type: "button",
      onclick: async () => toast((await copyText(link)) ? "Link copied." : "Copy failed: select the link and copy it."),
    }, "Copy"));
  if (typeof navigator.share === "function") {
    box.appendChild(h("button", { class: "btn btn--small", type: "button", id: "share-link", onclick: () => shareLink(link) }, "Share"));
  }
  return box;
}

async function shareLink(url) {
  try {
    await navigator.share({ title: `${gameTitle()} · Dingo Online`, text: `Come and play ${gameTitle()} with me:`, url });
  } catch (e) {
    // Closing the share sheet is no failure, nor a second press while it is open.
    if (!e || !["AbortError", "InvalidStateError"].includes(e.name)) toast("Sharing did not work: copy the link instead.", { error: true });
  }
}

function lobbyPanel() {
  const seats = S.state.seats;
  const empty = freeSeats().length;
  const panel = h("div", { class: "center-panel", id: "lobby" },
    h("h2", {}, empty ? "Waiting for players" : "Everyone is seated"),
    h("p", { class: "muted" }, "Share this link: friends can sit in an empty seat or watch."),
    shareBox());
  if (S.seat === null) {
    panel.appendChild(h("p", {}, empty ? "Type your name in the box below and pick an empty seat, or just watch." : "Every seat is taken: you are watching."));
  }
  if (S.host && !S.inert) {
    const gone = seats.filter((s) => s.kind === "human" && (!s.connected || s.away)).map((s) => occupantName(s.seat));
    panel.appendChild(h("p", { class: "muted" }, empty
      ? `${plural(empty, "seat")} still empty. Wait for friends, or add bots.`
      : gone.length
        ? `Every seat is taken, but ${andList(gone)} left. Start anyway (a bot plays ${gone.length > 1 ? "each such seat" : "the seat"} until its player is back), or give ${gone.length > 1 ? "a" : "the"} seat to a bot or free it.`
        : "Everyone is here."));
    panel.appendChild(h("div", { class: "btn-row" },
      h("button", {
        class: "btn btn--primary", type: "button", id: "start-btn", disabled: empty > 0 || S.offline,
        onclick: () => send("start"),
      }, "Start the match")));
  } else {
    // A host without a seat shows on no plate: where it is (or its countdown) is said here,
    // to spectators too (on a phone the top bar does not count the watchers).
    const table = S.state.table;
    if (table.host_back_by) panel.appendChild(tickingLine("muted", "The host", table.host_back_by, "host"));
    else if (table.host_watching) panel.appendChild(h("p", { class: "muted" }, "The host is watching, not seated."));
    if (S.seat !== null) panel.appendChild(h("p", { class: "muted" }, empty
      ? `${plural(empty, "seat")} still empty: the host can start the match once every seat is taken.`
      : "Waiting for the host to start the match."));
  }
  return panel;
}

/**
 * A strip above the prompt (never over the board) for news such as the result of a hunt
 * (ctx.flash). It stays until the reader's next move, or 5 s when someone else is to move.
 */
function flash(parts, { tone = "" } = {}) {
  const el = $("#flash");
  el.className = `flash${tone ? ` flash--${tone}` : ""}`;
  fill(el, typeof parts === "string" ? parts : lineEl(parts));
  el.hidden = false;
  clearTimeout(S.flashTimer);
  if (!isMyTurn()) S.flashTimer = setTimeout(hideFlash, 5000);
}

function hideFlash() {
  clearTimeout(S.flashTimer);
  $("#flash").hidden = true;
}

/** "Ann wins the match, 7 to 4!": who won, and in a two-seat game the final standing (what
 * the match was decided on; Dingo's four seats have theirs on the scoreboard beside it). */
function matchLine(m) {
  const w = m.winner;
  const two = Array.isArray(m.standing) && m.standing.length === 2 ? m.standing : null;
  if (w === null || w === undefined) return `The match is a draw${two ? `, ${two[0]} to ${two[1]}` : ""}.`;
  return `${nameOf(w)} ${w === reader() ? "win" : "wins"} the match${two ? `, ${two[w]} to ${two[1 - w]}` : ""}!`;
}

/** On a phone the results fill the screen (the overlay is fixed): the page behind them is
 * out of the keyboard's way too, until they close or the window grows past a phone's (the
 * offline banner stays above them: it says what the player must know). */
function coverPage() {
  const overlay = $("#overlay");
  const screen = !overlay.hidden && getComputedStyle(overlay).position === "fixed";
  for (const el of document.querySelectorAll(".topbar, #tray, .side")) el.inert = screen;
}
matchMedia("(max-width: 700px)").addEventListener("change", coverPage);

function resultPanel(ctx) {
  const state = S.state;
  const g = state.game;
  const m = state.match || {};
  const panel = h("div", { class: "center-panel", id: "results" });
  if (m.over) {
    panel.appendChild(h("p", { class: "winner-line" }, h("span", { class: "trophy", "aria-hidden": "true" }, "\u2605 "), matchLine(m)));
  }
  const head = has("headline") ? hook("headline", g, ctx) : sayYou(g.prompt || "Game over.");
  if (head) panel.appendChild(h(m.over ? "h3" : "h2", {}, head));
  const body = hook("results", g, state.why || null, ctx);
  if (body) panel.appendChild(body);

  const buttons = h("div", { class: "btn-row" });
  const me = S.seat !== null && !S.inert ? state.seats[S.seat] : null;
  if (m.over) {
    if (me) {
      buttons.appendChild(h("button", {
        class: "btn btn--primary", type: "button", id: "rematch-btn", disabled: me.ready || S.offline,
        onclick: () => send("rematch"),
      }, me.ready ? "Rematch asked" : "Rematch"));
    }
    if (state.table.match_id !== null && state.table.match_id !== undefined) {
      buttons.appendChild(h("a", { class: "btn", href: `/matches/${encodeURIComponent(state.table.match_id)}`, id: "record-link" }, "See the match record"));
    }
    buttons.appendChild(h("a", { class: "btn btn--ghost", href: "/" }, "New table"));
  } else if (me) {
    buttons.appendChild(h("button", {
      class: "btn btn--primary", type: "button", id: "ready-btn", disabled: me.ready || S.offline,
      onclick: () => send("ready"),
    }, me.ready ? "You are ready" : `Ready for the next ${roundWord()}`));
  }
  // An empty seat (a bot removed, a seat freed) holds the table until someone takes it:
  // said above the buttons (a long panel scrolls), and offered to whoever watches.
  const free = freeSeats();
  if (free.length && S.seat === null && !S.inert) {
    buttons.appendChild(h("button", {
      class: "btn btn--primary", type: "button", id: "take-seat",
      onclick: () => {
        toggleResults(false);
        $(`.seat[data-seat="${free[0]}"]`)?.scrollIntoView({ block: "center" });
      },
    }, "Take a free seat"));
  }
  buttons.appendChild(h("button", { class: "btn btn--ghost", type: "button", id: "hide-results", onclick: () => toggleResults(false) }, "View the table"));
  const note = (text, el = null) => panel.insertBefore(h("p", { class: "muted", id: "results-note", style: { "margin-top": "10px" } }, text), el);
  const votes = votesLine(m.over, me);
  if (votes) panel.appendChild(h("p", { class: "results-votes", id: "results-votes" }, votes));
  panel.appendChild(buttons);
  if (free.length) {
    note(freeSeatsLine(free, m.over), buttons);
  } else if (!m.over) {
    note(`The next ${roundWord()} starts when everyone is ready, or after a short pause.`);
  } else if (me) {
    note("A rematch starts with the same seats once every player asks for it.");
  }
  return panel;
}

/** "Seat 2 is free: the next game waits until someone sits there or you add a bot." */
function freeSeatsLine(free, over) {
  const them = andList(free.map((s) => `seat ${s + 1}`));
  return `${them.charAt(0).toUpperCase()}${them.slice(1)} ${free.length > 1 ? "are" : "is"} free: the ${over ? "rematch" : `next ${roundWord()}`} waits until someone sits there${S.host ? " or you add a bot" : ""}.`;
}

/** Who asked for the rematch or is ready for the next game, and, once you are, who is
 * still awaited: the plates' "Ready" badges are under the results on a phone. */
function votesLine(over, me) {
  const others = S.state.seats.filter((s) => s.kind === "human" && s.seat !== S.seat);
  const voted = others.filter((s) => s.ready).map((s) => occupantName(s.seat));
  const awaited = others.filter((s) => !s.ready && !s.away).map((s) => occupantName(s.seat));
  const parts = [];
  if (voted.length) {
    parts.push(over ? `${andList(voted)} asked for a rematch.`
      : `${andList(voted)} ${voted.length > 1 ? "are" : "is"} ready for the next ${roundWord()}.`);
  }
  if (me && me.ready && awaited.length) parts.push(`Waiting for ${andList(awaited)}.`);
  return parts.join(" ");
}

// ---- announcements -------------------------------------------------------------------------------

/** Tell screen readers what changed: the events of this state, and when it becomes your turn. */
function announce(msg, prev, wasMyTurn) {
  if (!prev) return;
  const lines = (msg.events || []).map((ev) => describe(ev, makeCtx())).filter(Boolean)
    .map((parts) => lineEl(parts).textContent);
  for (const info of msg.seats) {
    const before = prev.seats[info.seat];
    if (!before) continue;
    if (info.kind === "human" && before.kind === "human" && before.connected && !info.connected) lines.push(`${occupantName(info.seat)} left.`);
    if (info.kind === "human" && before.kind === "human" && !before.connected && info.connected) lines.push(`${occupantName(info.seat)} is back.`);
  }
  if (!wasMyTurn && isMyTurn()) lines.push(`Your turn. ${$("#prompt").textContent}`);
  if (lines.length) $("#announce").textContent = lines.slice(-4).join(" ");
}

/** The name box for people who are not seated, kept across redraws so typing is never lost. */
function joinBox() {
  let box = $("#join-box");
  const canSit = S.seat === null && S.state.seats.some((s) => s.kind === "empty");
  if (!box) {
    const mem = tableMemory(tableId) || {};
    box = h("div", { class: "join-box", id: "join-box" },
      h("label", { for: "sit-name" }, "Your name"),
      h("input", { id: "sit-name", type: "text", maxlength: "24", autocomplete: "nickname", value: mem.name || savedName() }),
      h("span", { class: "join-hint" }, "then press “Sit here” on an empty seat"),
      h("p", { class: "error-text", id: "sit-error", role: "alert" }));
    $("#tray").appendChild(box);
  }
  box.hidden = !canSit;
}

// ---- the prompt: the frame's cases, then the module's ---------------------------------------

function promptFor(ctx) {
  const state = S.state;
  const g = state.game;
  const watching = S.seat === null;
  if (S.offline && !watching && !S.inert) {
    const why = conn.stopped ? "Disconnected: this page cannot play any more (see the message above)."
      : S.pending ? "Offline: your move is sent again as soon as the connection is back."
        : "Offline: you can play again as soon as the connection is back.";
    return { parts: [why], offline: true };
  }
  if (!g) {
    const free = freeSeats().length;
    if (watching && !S.host) return { parts: [free ? "Pick an empty seat to play, or just watch." : "You are watching. The match starts soon."] };
    const full = free === 0;
    if (!S.host || S.inert) return { parts: [full ? "Waiting for the host to start the match." : `Waiting for players: ${plural(free, "seat")} free.`] };
    const gone = state.seats.some((s) => s.kind === "human" && (!s.connected || s.away));
    return { parts: [full ? `${gone ? "Every seat is taken" : "Everyone is here"}: start the match when you are ready.` : "Fill every seat, then start the match."], act: full };
  }
  if (gameOver()) {
    // (The game's own words say the next game comes; with a seat free, it does not yet.)
    const free = freeSeats();
    return free.length && status() === "between_games" ? { parts: [freeSeatsLine(free, false)] } : modulePrompt(g, ctx);
  }
  if (S.inert) return { parts: ["This tab only watches: your seat is played in another tab."] };
  if (ctx.myTurn && S.pending) return { parts: ["Sending…"], act: true };
  if (!ctx.myTurn) {
    const prefix = watching ? "You are watching. " : "";
    for (const who of toAct(state)) {
      const waiting = state.seats[who];
      if (waiting && waiting.kind === "human" && (!waiting.connected || waiting.away)) {
        return { parts: [`${prefix}Waiting for ${plainName(who)} (${waiting.away ? "away: a bot plays for now" : "disconnected"}).`] };
      }
    }
  }
  return modulePrompt(g, ctx);
}

function modulePrompt(g, ctx) {
  const own = has("prompt") ? hook("prompt", g, ctx) : null;
  if (own) return typeof own === "string" || Array.isArray(own) ? { parts: [].concat(own), act: ctx.myTurn } : own;
  return { parts: [sayYou(g.prompt || "")], act: ctx.myTurn };
}

// ---- the scoreboard box ----------------------------------------------------------------------

function renderScoreboard(ctx) {
  const state = S.state;
  const opts = state.table.options || {};
  const notes = [];
  const rule = has("rule") ? hook("rule", opts, ctx)
    : (state.match && state.match.rule) || state.table.rule;
  if (rule) notes.push(rule.charAt(0).toUpperCase() + rule.slice(1));
  const seconds = opts.turn_seconds ?? state.table.turn_seconds;
  notes.push(seconds ? `${seconds} s per turn` : "no turn timer");
  $("#options-note").textContent = notes.join(" · ");

  const box = $("#scoreboard");
  const m = state.match;
  if (!m) {
    fill(box, h("p", { class: "empty" }, "The scoreboard fills in as games finish."));
    return;
  }
  const body = hook("scoreboard", m, ctx);
  const earlier = earlierLine(state.seats);
  fill(box, body || null, earlier ? h("p", { class: "scoreboard__earlier", id: "scoreboard-earlier" }, earlier) : null);
}

/** "Dov played seat 2 in game 1, Bruno (bot) in games 2 and 3.": the scoreboard's columns
 * are named for whoever holds each seat now, and a player who left mid-match (or the bot
 * that stood in for one) played some of its games. */
function earlierLine(seats) {
  const word = roundWord();
  const games = (numbers) => `${numbers.length > 1 ? `${word}s` : word} ${andList(numbers.map(String))}`;
  return seats.filter((s) => s.earlier && s.earlier.length).map((s) => {
    const [first, ...rest] = s.earlier.map((e) => ({ who: `${e.name}${e.bot ? " (bot)" : ""}`, when: games(e.games) }));
    return `${first.who} played seat ${s.seat + 1} in ${first.when}${rest.map((e) => `, ${e.who} in ${e.when}`).join("")}.`;
  }).join(" ");
}

// ---- keyboard: arrows move along the hand ------------------------------------------------------

$("#hand").addEventListener("keydown", (e) => {
  if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) return;
  const cards = [...$("#hand").querySelectorAll("button")];
  if (!cards.length) return;
  const i = cards.indexOf(document.activeElement);
  let next = i;
  if (e.key === "ArrowLeft") next = i <= 0 ? cards.length - 1 : i - 1;
  if (e.key === "ArrowRight") next = i < 0 || i === cards.length - 1 ? 0 : i + 1;
  if (e.key === "Home") next = 0;
  if (e.key === "End") next = cards.length - 1;
  cards[next].focus();
  e.preventDefault();
});

// ---- the table is for playing, not a text: a double click selects nothing --------------------
// (The first click of a double click plays the card; the second lands where it was, on the
// tray, and would select the nearest word of the page. Dragging still selects text, and a
// double click still selects a word in a text box.)

document.querySelector(".play-area").addEventListener("mousedown", (e) => {
  if (e.detail > 1 && !e.target.closest("input, textarea")) e.preventDefault();
});

// ---- chat and the copy button ---------------------------------------------------------------------

$("#chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("#chat-input");
  const text = input.value.trim();
  if (!text) return;
  if (conn.send({ type: "chat", text })) input.value = "";
  else toast("Not connected right now.", { error: true });
});

$("#copy-link").addEventListener("click", async () => {
  const ok = await copyText(`${location.origin}/t/${tableId}`);
  toast(ok ? "Link copied. Send it to your friends!" : "Copy failed: copy the address bar instead.", { error: !ok });
  if (ok) $("#copy-link").textContent = "Copied";
});

$("#table-code").textContent = tableId;
setupAlerts();
renderLog();
renderChat();
conn.open();
