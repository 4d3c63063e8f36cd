// The table page: one WebSocket to the table server (docs/protocol.md), and
// a drawing of the latest `state` the server sent. Every change comes from
// the server; the page only sends intents and redraws what it is told.

import { $, h, fill, fillIfChanged, toast, copyText, plural } from "./dom.js";
import { cardEl, cardBack, cardValue, pileValue, longName, rankLabel, rankPlural, sortCards, suitOf } from "./cards.js";
import { forgetSeat, rememberTable, saveName, savedName, tableMemory } from "./api.js";
import { Connection } from "./connection.js";
import { describeEvent, huntWords, signed, SEAT_LABELS } from "./words.js";
import { avatar, cardRow, lineEl, seatNames } from "./render.js";

const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
const POSITIONS = ["bottom", "left", "top", "right"];
// Where a card flies in from, per position on screen.
const FROM = { bottom: ["0px", "90px"], left: ["-90px", "0px"], top: ["0px", "-90px"], right: ["90px", "0px"] };
const LOG_LIMIT = 300;
const CHAT_LIMIT = 100;

const S = {
  seat: null,        // my seat, or null when watching
  host: false,
  welcomed: false,
  state: null,       // the last `state` message
  pending: null,     // {id, v} of a game intent awaiting its answer
  seq: 0,
  timer: null,       // {seat, end (performance.now ms), total (s)}
  wasLost: false,
  resultsHidden: null, // resultsKey() of results the player put aside
  inert: false,      // another tab took this seat: show the table, offer no moves
  skew: 0,           // server clock minus ours (s), from the turn timer
  hunts: [],         // this game's hunt_result events, in order
  passOrder: [],     // "gave:left" / "got:left" in the order my passes happened
  botKind: {},       // per empty seat: the kind the host picked in "Add bot"
  flashTimer: null,
  log: loadList("log"),
  chat: loadList("chat"),
};

// ---- memory of this tab: the log and chat survive a reload ---------------------

function loadList(kind) {
  try { return JSON.parse(sessionStorage.getItem(`dingo.${kind}.${tableId}`) || "[]"); } catch { return []; }
}
function saveList(kind, list) {
  try { sessionStorage.setItem(`dingo.${kind}.${tableId}`, JSON.stringify(list)); } catch { /* not kept */ }
}

// ---- names -----------------------------------------------------------------------

function seatsOf(state = S.state) {
  return state ? state.seats : [0, 1, 2, 3].map((seat) => ({ seat, kind: "empty" }));
}

function nameOf(seat, state = S.state) {
  if (seat === S.seat && S.seat !== null) return "You";
  return plainName(seat, state);
}

/** A seat's name; where two seats share one (three "Heuristic bot"s), the seat number is added. */
function plainName(seat, state = S.state) {
  return seatNames(seatsOf(state))[seat] || SEAT_LABELS[seat];
}

/** Seat shown at the bottom: mine, or seat 0 for a spectator. */
const baseSeat = () => (S.seat === null ? 0 : S.seat);
const positionOf = (seat) => POSITIONS[(seat - baseSeat() + 4) % 4];

// ---- the connection ----------------------------------------------------------------

const conn = new Connection(tableId, {
  hello: () => {
    const mem = tableMemory(tableId) || {};
    return { type: "hello", token: mem.token || mem.host_token || null };
  },
  onMessage,
  onStatus: showConnection,
});

let retryTicker = null;

function showConnection(status) {
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
    S.pending = null;
    const update = () => {
      const secs = Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000));
      $("#banner-text").textContent = `Connection lost. Reconnecting${secs ? ` in ${secs} s` : ""}…`;
    };
    update();
    retryTicker = setInterval(update, 500);
    btn.textContent = "Retry now";
    btn.hidden = false;
    btn.onclick = () => conn.retryNow();
    banner.className = "banner";
    banner.hidden = false;
  } else if (status.state === "reconnecting") {
    $("#banner-text").textContent = "Reconnecting…";
    btn.hidden = true;
  } else if (status.state === "stopped") {
    $("#banner-text").textContent = status.reason;
    banner.className = "banner banner--info";
    banner.hidden = false;
    if (status.code === 4001) {
      // Another tab holds the seat now: this one only shows the table.
      S.inert = true;
      S.pending = null;
      S.timer = null;
      btn.textContent = "Play here instead";
      btn.hidden = false;
      btn.onclick = () => conn.restart();
      render();
    } else {
      btn.hidden = true;
    }
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      S.welcomed = true;
      S.seat = msg.seat;
      S.host = Boolean(msg.host);
      S.welcomeHost = S.host;
      break;
    case "seated":
      S.seat = msg.seat;
      S.host = Boolean(msg.host);
      // A null token means the seat took the token this browser already holds (the host's).
      rememberTable(tableId, msg.token ? { token: msg.token, seat: msg.seat } : { seat: msg.seat });
      break;
    case "state":
      onState(msg);
      break;
    case "ack":
      if (S.pending && msg.id === S.pending.id) S.pending = null;
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

const FRIENDLY_ERRORS = {
  stale_version: "The table moved on before your move arrived. Have another look and try again.",
  not_your_turn: "It isn't your turn any more.",
  rate_limited: "Slow down a little.",
};

/** Card codes in a server message ("AS is not in your hand") as card names ("A♠"). */
function readable(text) {
  const words = String(text || "").replace(/\b([2-9TJQKA])([CDHS])\b/g, (_, r, su) => `${r === "T" ? "10" : r}${{ C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" }[su]}`);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function onError(msg) {
  if (msg.code === "bad_token" && !S.welcomed) {
    // The token this browser kept no longer matches a seat: carry on as a spectator.
    forgetSeat(tableId);
    rememberTable(tableId, { host_token: null });
    conn.send({ type: "hello", token: null });
    toast("Your saved seat is no longer valid; you are watching.", { error: true });
    return;
  }
  if (S.pending && msg.id === S.pending.id) S.pending = null;
  toast(FRIENDLY_ERRORS[msg.code] || (msg.message ? `${readable(msg.message)}.` : "That was refused."), { error: true });
  render();
}

// ---- intents ---------------------------------------------------------------------------

function send(type, fields = {}, { game = false } = {}) {
  const id = `${type.slice(0, 3)}-${Date.now().toString(36)}-${(++S.seq).toString(36)}`;
  const msg = { type, ...fields, id };
  if (game) msg.v = S.state.v;
  if (!conn.send(msg)) {
    toast("Not connected right now. Reconnecting…", { error: true });
    return false;
  }
  if (game) {
    S.pending = { id, v: S.state.v };
    render();
  }
  return true;
}

function playAction(action) {
  if (S.pending || S.inert) return;
  hideFlash();
  if (action.type === "play") send("play", { cards: action.cards }, { game: true });
  else send(action.type, { card: action.card }, { game: true });
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

// ---- a new state --------------------------------------------------------------------------

function onState(msg) {
  const prev = S.state;
  const wasMyTurn = isMyTurn();
  S.state = msg;
  // The host role can move (it passes on when the host is gone, or is handed over).
  if (msg.seats.some((s) => s.host)) S.host = S.seat !== null && Boolean(msg.seats[S.seat].host);
  else S.host = Boolean(S.welcomeHost);
  if (S.pending && msg.v > S.pending.v) S.pending = null;
  if (msg.log) replaceGameLog(msg.log, msg);
  if (S.wasLost && prev) addLog([["Reconnected."]], "meta");
  S.wasLost = false;
  if (msg.events && msg.events.length) logEvents(msg.events, msg);
  setTimer(msg.timer);
  autoSit(msg);
  render(prev);
  const hunt = [...(msg.events || [])].reverse().find((e) => e.type === "hunt_result" && e.rule !== "void");
  if (hunt) flash(hunt);
  announce(msg, prev, wasMyTurn);
  if (!wasMyTurn && isMyTurn()) turnAlert();
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
    seat: timer.seat,
    end: performance.now() + (timer.deadline - timer.server_time) * 1000,
    total: S.state.table.options.turn_seconds || 30,
  };
}

// ---- the log and chat ----------------------------------------------------------------------

function kindOf(ev) {
  if (["game_start", "game_over", "match_over", "match_start"].includes(ev.type)) return "game";
  if (ev.type === "hunt_result") return "hunt";
  if (["seat_taken", "bot_added", "bot_removed", "auto_move", "match_recorded", "host_changed", "seat_replaced"].includes(ev.type)) return "meta";
  return "";
}

function logEvents(events, state) {
  const names = (seat) => nameOf(seat, state);
  for (const ev of events) {
    noteEvent(ev);
    const parts = describeEvent(ev, names);
    if (parts) addLog([parts], kindOf(ev), false, ev.type === "game_start");
  }
  saveList("log", S.log);
}

/**
 * The answer to hello or sync carries the server's log of the current game (from its
 * deal on), which holds what this tab missed while away, or everything on a new device.
 * It replaces our lines from this game's start; earlier lines of this tab stay.
 */
function replaceGameLog(events, state) {
  const dealt = events.length > 0 && events[0].type === "game_start";
  let keep = 0;
  if (dealt) {
    for (let i = S.log.length - 1; i >= 0; i -= 1) {
      if (S.log[i].start) { keep = i; break; }
    }
  }
  S.log.splice(keep);
  logEvents(events, state);
}

/** What the page keeps of this game besides the log: its hunts, and the order of my passes. */
function noteEvent(ev) {
  if (ev.type === "game_start") {
    S.hunts = [];
    S.passOrder = [];
  } else if (ev.type === "hunt_result") {
    S.hunts.push(ev);
  } else if (ev.type === "pass" && S.seat !== null) {
    if (ev.seat === S.seat) S.passOrder.push(`gave:${ev.direction}`);
    else if (ev.to === S.seat) S.passOrder.push(`got:${ev.direction}`);
  }
}

function addLog(lines, kind, save = true, start = false) {
  for (const parts of lines) S.log.push(start ? { parts, kind, start } : { parts, kind });
  if (S.log.length > LOG_LIMIT) S.log.splice(0, S.log.length - LOG_LIMIT);
  if (save) saveList("log", S.log);
}

function renderLog() {
  const list = $("#log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  fill(list, S.log.map((line) => lineEl(line.parts, "li", { class: line.kind ? `log--${line.kind}` : null })));
  if (!S.log.length) list.appendChild(h("li", { class: "log--meta" }, "Nothing has happened yet."));
  if (atBottom || list.dataset.scrolled !== "1") {
    list.scrollTop = list.scrollHeight;
    list.dataset.scrolled = "0";
  }
}

function addChat(msg) {
  S.chat.push({ seat: msg.seat, name: msg.name, text: msg.text, at: msg.at });
  if (S.chat.length > CHAT_LIMIT) S.chat.splice(0, S.chat.length - CHAT_LIMIT);
  saveList("chat", S.chat);
  renderChat();
}

function renderChat() {
  const list = $("#chat-list");
  fill(list, S.chat.map((m) => h("li", {},
    h("b", { class: `chat__name chat__name--${m.seat}` }, m.name), m.text)));
  if (!S.chat.length) list.appendChild(h("li", { class: "chat__empty" }, "No messages yet."));
  list.scrollTop = list.scrollHeight;
  const seated = S.seat !== null && !S.inert;
  $("#chat-form").hidden = !seated;
  $("#chat-note").hidden = seated;
  $("#chat-note").textContent = S.inert ? "Chat from the tab that plays your seat." : "Take a seat to chat.";
}

// ---- drawing --------------------------------------------------------------------------------

function render(prev = null) {
  const state = S.state;
  if (!state) return;
  $("#table-code").textContent = tableId;
  renderWatchers(state.table.spectators || 0);
  for (const pos of POSITIONS) fill($(`#pos-${pos}`));
  for (const info of state.seats) $(`#pos-${positionOf(info.seat)}`).appendChild(seatEl(info));
  renderCenter(prev);
  renderTray(prev);
  renderScoreboard();
  renderHunts();
  renderLog();
  renderChat();
  tick();
  const myTurn = isMyTurn();
  document.title = `${myTurn ? "\u25CF Your turn · " : ""}Dingo table ${tableId}`;
}

// How many connections watch without a seat (you among them if you have none).
function renderWatchers(count) {
  const el = $("#watchers");
  el.hidden = count === 0;
  el.textContent = `${count} watching`;
  el.title = count === 1 ? "1 person is watching this table" : `${count} people are watching this table`;
}

function isMyTurn() {
  const g = S.state && S.state.game;
  return Boolean(g && !S.inert && S.seat !== null && g.to_act === S.seat && g.legal && g.legal.length);
}

function status() {
  return S.state.table.status;
}

function seatEl(info) {
  const g = S.state.game;
  const seat = info.seat;
  const isMe = seat === S.seat && S.seat !== null;
  const turn = g && g.to_act === seat && g.phase !== "over";
  const winner = g && g.result && g.result.winner === seat;
  const el = h("div", {
    class: ["seat", `seat--${info.kind}`, isMe && "seat--me", turn && "seat--turn", winner && "seat--winner"],
    dataset: { seat: String(seat) },
    "aria-label": `${info.kind === "empty" ? "Empty seat" : plainName(seat)}${turn ? ", to play" : ""}`,
  });

  const bot = info.kind === "bot";
  const head = h("div", { class: "seat__head" },
    info.kind === "empty" ? null : avatar(info.name, seat),
    h("span", { class: "seat__name", title: bot ? `${plainName(seat)}: a bot that plays ${info.strength}` : null },
      info.kind === "empty" ? `${SEAT_LABELS[seat]}: empty` : plainName(seat),
      bot ? h("span", { class: "seat__bot" }, " \u00B7 bot") : null),
    g ? h("span", { class: "seat__points", title: "Points this game" }, signed(g.scores[seat])) : null);
  if (info.kind !== "empty") {
    const presence = info.away ? "away: a bot plays for now" : info.connected ? "connected" : "disconnected";
    head.appendChild(h("span", {
      class: ["dot", info.connected && !info.away && "dot--on", info.away && "dot--away"],
      title: presence, role: "img", "aria-label": presence,
    }));
  }
  el.appendChild(head);

  const meta = h("div", { class: "seat__meta" });
  if (isMe) meta.appendChild(h("span", { class: "badge badge--you" }, "You"));
  if (bot) meta.appendChild(h("span", { class: "badge badge--bot", title: `Bot strength: ${info.strength}` }, info.strength));
  if (info.host) meta.appendChild(h("span", { class: "badge badge--host", title: "The host starts the match and manages the seats" }, "Host"));
  if (g && g.dealer === seat) meta.appendChild(h("span", { class: "badge badge--dealer", title: "Dealer" }, "Dealer"));
  if (winner) meta.appendChild(h("span", { class: "badge badge--winner" }, "Winner"));
  if (info.kind === "human" && info.ready && ["between_games", "match_over"].includes(status())) {
    meta.appendChild(h("span", { class: "badge badge--ready" }, "Ready"));
  }
  if (info.away) meta.appendChild(h("span", { class: "badge badge--away" }, "Away"));
  if (info.kind === "human" && !info.connected) el.appendChild(goneEl(info));
  if (g) {
    const size = g.hand_sizes[seat];
    if (!isMe) {
      const backs = h("span", { class: "seat__backs", "aria-hidden": "true" });
      for (let i = 0; i < Math.min(size, 10); i++) backs.appendChild(cardBack());
      meta.appendChild(backs);
    }
    meta.appendChild(h("span", { class: "seat__count" }, plural(size, "card")));
    if (turn) {
      if (S.timer && S.timer.seat === seat && info.connected) {
        meta.appendChild(h("span", { class: "timer", dataset: { timer: "1" } },
          h("span", { class: "timer__text" }), h("span", { class: "timer__bar" }, h("span"))));
      } else {
        meta.appendChild(h("span", { class: "timer" }, isMe && !S.inert ? "your turn" : decisionShort(g.decision)));
      }
    }
  }
  if (meta.childNodes.length) el.appendChild(meta);

  if (g) {
    const scoreVal = pileValue(g.score_piles[seat]);
    const penaltyVal = pileValue(g.penalty_piles[seat], { penalty: true });
    el.appendChild(h("div", { class: "seat__piles" },
      h("span", { class: "pile-val pile-val--score", title: "Score pile value" },
        h("span", { class: "pile-val__label" }, "Score"), h("span", { class: "pile-val__short", "aria-hidden": "true" }, "S"),
        h("b", {}, String(scoreVal))),
      h("span", { class: "pile-val pile-val--penalty", title: "Penalty pile value" },
        h("span", { class: "pile-val__label" }, "Penalty"), h("span", { class: "pile-val__short", "aria-hidden": "true" }, "P"),
        h("b", {}, String(penaltyVal)))));

    const cards = h("div", { class: "seat__cards" });
    if (g.score_piles[seat].length) cards.appendChild(cardRow(g.score_piles[seat], { label: "Score pile" }));
    if (g.penalty_piles[seat].length) {
      cards.appendChild(h("span", { class: "seat__cards-label" }, "Penalty"));
      cards.appendChild(cardRow(g.penalty_piles[seat], { label: "Penalty pile" }));
    }
    if (cards.childNodes.length) el.appendChild(cards);

    if (g.result && g.result.hands[seat].length && !isMe) {
      el.appendChild(h("div", { class: "seat__reveal" },
        h("span", { class: "seat__cards-label" }, "Left in hand"),
        cardRow(g.result.hands[seat], { label: `${plainName(seat)}'s hand` })));
    }
  }

  const actions = h("div", { class: "seat__actions" });
  if (info.kind === "empty" && S.seat === null && !S.inert) {
    actions.appendChild(h("button", { class: "btn btn--primary btn--small", type: "button", onclick: () => sitAt(seat) }, "Sit here"));
  }
  const host = S.host && !S.inert;
  if (info.kind === "empty" && host) {
    actions.appendChild(botPicker(seat, "Add bot", (kind) => send("add_bot", { seat, kind })));
  }
  if (info.kind === "bot" && host && status() !== "playing") {
    actions.appendChild(h("button", {
      class: "btn btn--ghost-dark btn--small", type: "button",
      onclick: () => send("remove_bot", { seat }),
    }, "Remove bot"));
  }
  if (info.kind === "human" && host && !info.host && !isMe) {
    actions.appendChild(h("button", {
      class: "btn btn--ghost-dark btn--small", type: "button", "aria-label": `Make ${plainName(seat)} the host`,
      onclick: () => send("make_host", { seat }),
    }, "Make host"));
    if (!info.connected) {
      actions.appendChild(botPicker(seat, "Give to a bot", (kind) => send("replace_seat", { seat, kind })));
      if (status() !== "playing") {
        actions.appendChild(h("button", {
          class: "btn btn--ghost-dark btn--small", type: "button", "aria-label": `Free ${plainName(seat)}'s seat`,
          onclick: () => send("replace_seat", { seat }),
        }, "Free seat"));
      }
    }
  }
  if (actions.childNodes.length) el.appendChild(actions);
  return el;
}

/** The bot kinds the server has ("easy", "normal", ...), as a select, and a button to use the pick. */
function botPicker(seat, label, onPick) {
  const kinds = S.state.table.bot_kinds || [];
  const fallback = (kinds.find((k) => k.kind === "heuristic") || kinds[0] || { kind: "heuristic" }).kind;
  const chosen = S.botKind[seat] || fallback;
  const select = h("select", {
    class: "bot-kind", "aria-label": `Bot strength for ${SEAT_LABELS[seat].toLowerCase()}`,
    onchange: (e) => { S.botKind[seat] = e.target.value; },
  }, kinds.map((k) => h("option", { value: k.kind, selected: k.kind === chosen }, k.strength)));
  return h("span", { class: "bot-pick" }, select, h("button", {
    class: "btn btn--ghost-dark btn--small", type: "button",
    onclick: () => onPick(S.botKind[seat] || fallback),
  }, label));
}

/** "Bea left · a bot takes over in 0:45" (ticking), or "Bea is away · a bot plays for now". */
function goneEl(info) {
  const name = plainName(info.seat);
  if (info.away || !info.back_by) {
    return h("p", { class: "seat__gone" }, `${name} left \u00B7 a bot plays for now`);
  }
  return h("p", { class: "seat__gone", dataset: { backBy: String(info.back_by), name } },
    `${name} left \u00B7 a bot takes over in ${countdown(info.back_by)}`);
}

function countdown(serverTime) {
  const secs = Math.max(0, Math.ceil(serverTime - (Date.now() / 1000 + S.skew)));
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
}

function decisionShort(decision) {
  if (!decision) return "";
  if (decision.kind === "discard") return "discarding…";
  if (decision.kind === "pass") return "passing…";
  return "deciding…";
}

function tick() {
  for (const el of document.querySelectorAll("[data-back-by]")) {
    el.textContent = `${el.dataset.name} left \u00B7 a bot takes over in ${countdown(Number(el.dataset.backBy))}`;
  }
  for (const el of document.querySelectorAll("[data-timer]")) {
    if (!S.timer) continue;
    const left = Math.max(0, (S.timer.end - performance.now()) / 1000);
    const secs = Math.ceil(left);
    el.querySelector(".timer__text").textContent = `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
    el.querySelector(".timer__bar span").style.width = `${Math.min(100, (left / S.timer.total) * 100)}%`;
    el.classList.toggle("timer--low", left <= 5);
  }
}
setInterval(tick, 250);

// ---- the centre: lobby, board, or results -----------------------------------------------------

function renderCenter(prev) {
  const center = $("#center");
  const state = S.state;
  const g = state.game;
  if (!g) fill(center, lobbyPanel());
  else fill(center, board(prev));
  const overlay = $("#overlay");
  const showResults = Boolean(g && g.phase === "over" && S.resultsHidden !== resultsKey());
  overlay.hidden = !showResults;
  if (showResults) fillIfChanged(overlay, resultPanel());
  else fill(overlay);
}

/** The results of one game (or of the match) can be put aside to look at the table. */
function resultsKey() {
  return `${S.state.match ? S.state.match.game_number : 0}:${status()}`;
}

function toggleResults(show) {
  S.resultsHidden = show ? null : resultsKey();
  render();
  if (show) $("#overlay button, #overlay a")?.focus();
}

function shareBox() {
  const link = `${location.origin}/t/${tableId}`;
  const input = h("input", { type: "text", readonly: true, value: link, "aria-label": "Table link" });
  return h("div", { class: "link-box" }, input,
    h("button", {
      class: "btn btn--small", type: "button",
      onclick: async () => toast((await copyText(link)) ? "Link copied." : "Copy failed: select the link and copy it."),
    }, "Copy"));
}

function lobbyPanel() {
  const seats = S.state.seats;
  const empty = seats.filter((s) => s.kind === "empty").length;
  const panel = h("div", { class: "center-panel", id: "lobby" },
    h("h2", {}, "Waiting for players"),
    h("p", { class: "muted" }, "Share this link: friends can sit in an empty seat or watch."),
    shareBox());
  if (S.seat === null) {
    panel.appendChild(h("p", {}, empty ? "Type your name in the box below and pick an empty seat, or just watch." : "Every seat is taken: you are watching."));
  }
  if (S.host && !S.inert) {
    panel.appendChild(h("p", { class: "muted" }, empty
      ? `${plural(empty, "seat")} still empty. Wait for friends, or add bots.`
      : "Everyone is here."));
    panel.appendChild(h("div", { class: "btn-row" },
      h("button", {
        class: "btn btn--primary", type: "button", id: "start-btn", disabled: empty > 0,
        onclick: () => send("start"),
      }, "Start the match")));
  } else if (S.seat !== null) {
    panel.appendChild(h("p", { class: "muted" }, "Waiting for the host to start the match."));
  }
  return panel;
}

function board(prev) {
  const g = S.state.game;
  const prevGame = prev && prev.game;
  const el = h("div", { class: "board" });

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
  const discarder = lastDiscarder();
  const enterAttrs = (seat) => (seat === null ? {} : { style: { "--from-x": FROM[positionOf(seat)][0], "--from-y": FROM[positionOf(seat)][1] } });
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
  }
  else dead.appendChild(h("span", { class: "spot__count" }, "none"));
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
  for (let seat = 0; seat < 4; seat++) {
    const pos = positionOf(seat);
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
    info.appendChild(lastHuntEl(last));
  }
  el.appendChild(info);
  return el;
}

function huntIsNew(g, prevGame) {
  return !prevGame || !prevGame.hunt || prevGame.hunt.rank !== g.hunt.rank;
}

function lastDiscarder() {
  const ev = [...(S.state.events || [])].reverse().find((e) => e.type === "discard");
  return ev ? ev.seat : null;
}

function stageBadge(g) {
  const d = g.decision;
  if (!d) return h("div", { class: "stage-badge" }, g.phase === "over" ? "Game over" : g.stage);
  if (d.kind === "pass") {
    const arrow = { left: "\u21B6", across: "\u21C5", right: "\u21B7" }[d.direction] || "";
    return h("div", { class: "stage-badge" }, h("span", { class: "arrow", "aria-hidden": "true" }, arrow),
      `Pass ${d.direction}`, h("small", {}, "face down, one card each"));
  }
  return h("div", { class: "stage-badge" }, `Discard ${d.round} of 4`,
    h("small", {}, "aces can't be discarded"));
}

function lastPlayedHunt(g) {
  const played = S.hunts.filter((e) => e.rule !== "void");
  if (played.length) return played[played.length - 1];
  return g.last_hunt && g.last_hunt.rule !== "void" ? g.last_hunt : null;
}

/** Who caught what in a hunt: "Bruno +2, you +1", or how the rabbit escaped. */
function huntOutcome(hunt) {
  const names = (seat) => (seat === S.seat ? "you" : nameOf(seat));
  const gains = hunt.points.map((p, seat) => (p ? `${names(seat)} ${signed(p)}` : null)).filter(Boolean);
  if (hunt.rule === "void") return "dead: its dingo was discarded";
  if (hunt.rule === "no_wolf" || hunt.rule === "ace_no_wolf") return `escaped: no wolf came (${gains.join(", ") || "no points"})`;
  const by = hunt.caught_by !== null && hunt.caught_by !== undefined ? `caught by ${names(hunt.caught_by)}` : "hunted";
  return `${by} (${gains.join(", ") || "no points"})`;
}

function lastHuntEl(hunt) {
  const names = (seat) => nameOf(seat);
  const rabbit = cardEl(hunt.rabbit, { size: "xs" });
  return h("div", { class: "spot", title: lineEl(huntWords(hunt, names)).textContent }, rabbit,
    h("span", { class: "spot__count" }, huntOutcome(hunt)));
}

/** The strip of this game's finished hunts: rank, cards played, who scored. */
function renderHunts() {
  const box = $("#hunts-list");
  const count = $("#hunts-count");
  count.textContent = S.hunts.length ? `(${S.hunts.length})` : "";
  if (!S.hunts.length) {
    fill(box, h("li", { class: "hunts__empty" }, "No hunt has finished yet in this game."));
    return;
  }
  fill(box, S.hunts.map((hunt) => h("li", { class: "hunts__row" },
    cardEl(hunt.rabbit, { size: "xs" }),
    h("span", { class: "hunts__rank" }, hunt.rank === "A" ? "Aces" : rankPlural(hunt.rank)),
    h("span", { class: "hunts__plays" }, hunt.rule === "void" ? "no cards: dead rabbit"
      : (hunt.plays || []).map((p, i) => [i ? "; " : "", `${nameOf(p.seat)} `, p.cards.map((c) => lineEl([{ card: c }, " "]))])),
    h("span", { class: "hunts__who" }, huntOutcome(hunt)))));
}

/**
 * The result of a hunt, in a strip above the prompt (never over the board). It stays
 * until the reader's next move, or 5 s when someone else (or a bot) is to move.
 */
function flash(hunt) {
  const el = $("#flash");
  const caught = !["no_wolf", "ace_no_wolf"].includes(hunt.rule);
  el.className = `flash ${caught ? "flash--caught" : "flash--escaped"}`;
  fill(el, lineEl(huntWords(hunt, (seat) => nameOf(seat))));
  el.hidden = false;
  clearTimeout(S.flashTimer);
  if (!isMyTurn()) S.flashTimer = setTimeout(hideFlash, 5000);
}

function hideFlash() {
  clearTimeout(S.flashTimer);
  $("#flash").hidden = true;
}

function resultPanel() {
  const state = S.state;
  const g = state.game;
  const m = state.match;
  const r = g.result;
  const panel = h("div", { class: "center-panel", id: "results" });
  if (m.over) {
    panel.appendChild(h("p", { class: "winner-line" }, h("span", { class: "trophy", "aria-hidden": "true" }, "\u2605 "),
      `${nameOf(m.winner)} ${m.winner === S.seat ? "win" : "wins"} the match!`));
  }
  const head = r.winner === null || r.winner === undefined
    ? `Game ${m.game_number}: a draw`
    : `Game ${m.game_number}: ${nameOf(r.winner)} ${r.winner === S.seat ? "win" : "wins"}`;
  panel.appendChild(h(m.over ? "h3" : "h2", {}, head));
  if (r.tie_break && r.tie_break !== "draw") {
    panel.appendChild(lineEl(["Tie broken by the ", { card: r.tie_break }, " rabbit in the score pile."], "p", { class: "muted" }));
  }
  const rows = [0, 1, 2, 3].map((seat) => h("tr", {},
    h("td", {}, nameOf(seat)),
    h("td", { class: "num" }, String(pileValue(r.score_piles[seat]))),
    h("td", { class: "num" }, String(pileValue(r.penalty_piles[seat], { penalty: true }))),
    h("td", { class: ["num", r.winner === seat && "win"] }, signed(r.scores[seat])),
    h("td", { class: "num" }, String(m.game_wins[seat]))));
  panel.appendChild(h("table", { class: "grid-table result-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", { class: "num", title: "Score pile" }, "Score"),
      h("th", { class: "num", title: "Penalty pile" }, "Penalty"), h("th", { class: "num" }, "Points"), h("th", { class: "num", title: "Games won" }, "Wins"))),
    h("tbody", {}, rows)));
  if (state.why) panel.appendChild(whyEl(r, state.why));

  const buttons = h("div", { class: "btn-row" });
  const me = S.seat !== null && !S.inert ? state.seats[S.seat] : null;
  if (m.over) {
    if (me) {
      buttons.appendChild(h("button", {
        class: "btn btn--primary", type: "button", id: "rematch-btn", disabled: me.ready,
        onclick: () => send("rematch"),
      }, me.ready ? "Rematch asked" : "Rematch"));
    }
    if (state.table.match_id !== null && state.table.match_id !== undefined) {
      buttons.appendChild(h("a", { class: "btn", href: `/matches/${encodeURIComponent(state.table.match_id)}`, id: "record-link" }, "See the match record"));
    }
    buttons.appendChild(h("a", { class: "btn btn--ghost", href: "/" }, "New table"));
  } else if (me) {
    buttons.appendChild(h("button", {
      class: "btn btn--primary", type: "button", id: "ready-btn", disabled: me.ready,
      onclick: () => send("ready"),
    }, me.ready ? "Ready: waiting for the others" : "Ready for the next game"));
  }
  buttons.appendChild(h("button", { class: "btn btn--ghost", type: "button", id: "hide-results", onclick: () => toggleResults(false) }, "View the table"));
  panel.appendChild(buttons);
  if (!m.over) {
    panel.appendChild(h("p", { class: "muted", style: { "margin-top": "10px" } },
      "The next game starts when everyone is ready, or after a short pause."));
  } else if (me) {
    panel.appendChild(h("p", { class: "muted", style: { "margin-top": "10px" } },
      "A rematch starts with the same seats once every player asks for it."));
  }
  return panel;
}

/**
 * Why everyone scored what they did: the rabbits each caught (with values), each penalty
 * card and the hunt that put it there, and the rule that decided the game. The sentences
 * are the server's, the same the replay viewer shows (app/api/replay.py).
 */
function whyEl(r, why) {
  const box = h("div", { class: "why", id: "why" }, h("h3", {}, "Why"));
  for (let seat = 0; seat < 4; seat++) {
    const rabbits = r.score_piles[seat].filter((c) => suitOf(c) === "D");
    const caught = rabbits.length
      ? ["Rabbits caught: ", ...rabbits.flatMap((c, i) => [i ? ", " : "", { card: c }, ` (${cardValue(c)})`]), "."]
      : ["No rabbit caught."];
    const block = h("div", { class: "why__seat", dataset: { seat: String(seat) } },
      h("b", {}, `${nameOf(seat)} ${signed(r.scores[seat])}`), " ", lineEl(caught));
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
          ` (\u2212${pileValue(cards, { penalty: true })}): `]), hunt ? hunt.explanation : ""));
      }
      block.appendChild(list);
    } else {
      block.appendChild(document.createTextNode(" No penalty."));
    }
    box.appendChild(block);
  }
  box.appendChild(h("p", { class: "why__rule" }, why.winner));
  return box;
}

// ---- the tray: what to do now and your hand ------------------------------------------------

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

function renderTray(prev) {
  const state = S.state;
  const g = state.game;
  const prompt = promptFor(state);
  const promptEl = $("#prompt");
  fill(promptEl, lineEl(prompt.parts));
  promptEl.className = `prompt${prompt.act ? " prompt--act" : ""}`;

  // hunt buttons
  const actions = $("#actions");
  fill(actions);
  if (isMyTurn() && g.decision.kind === "play") {
    const both = g.legal.find((a) => a.cards.length === 2);
    if (both) {
      actions.appendChild(h("button", {
        class: "btn btn--primary", type: "button", id: "play-both", disabled: Boolean(S.pending),
        onclick: () => playAction(both),
      }, `Play both wolves`));
    }
    const none = g.legal.find((a) => a.cards.length === 0);
    if (none) {
      actions.appendChild(h("button", {
        class: "btn", type: "button", id: "play-none", disabled: Boolean(S.pending),
        onclick: () => playAction(none),
      }, "Play no wolf"));
    }
  }
  if (g && g.phase === "over" && S.resultsHidden === resultsKey()) {
    actions.appendChild(h("button", { class: "btn btn--primary", type: "button", id: "show-results", onclick: () => toggleResults(true) },
      state.match.over ? "Show the match result" : "Show the scores"));
  }
  joinBox();

  // the hand
  const handEl = $("#hand");
  const focused = document.activeElement && handEl.contains(document.activeElement) ? document.activeElement.dataset.card : null;
  fill(handEl);
  const hand = g && g.hand ? sortCards(g.hand) : null;
  handEl.hidden = !hand;
  if (hand) {
    const legal = isMyTurn() ? legalByCard(g) : new Map();
    const before = new Set(prev && prev.game && prev.game.hand ? prev.game.hand : hand);
    handEl.className = ["hand", !isMyTurn() && "hand--waiting", S.pending && "hand--busy"].filter(Boolean).join(" ");
    for (const code of hand) {
      const action = legal.get(code);
      // A card that cannot be played stays focusable and says why when pressed.
      handEl.appendChild(cardEl(code, {
        tag: "button",
        classes: [action ? "card--legal" : "card--illegal", !before.has(code) && "card--new"],
        attrs: {
          type: "button",
          "aria-disabled": !action || Boolean(S.pending) ? "true" : null,
          onclick: () => (action ? playAction(action) : whyNot(code)),
          "aria-label": `${longName(code)}${action ? `: ${verb(action)}` : ""}`,
        },
      }));
    }
    const target = handEl.querySelector(`[data-card="${focused}"]`)
      || (isMyTurn() && (document.activeElement === document.body || focused) ? handEl.querySelector(".card--legal") : null);
    if (target) target.focus({ preventScroll: true });
  }

  // what you passed and received, in the order it happened
  const ex = $("#exchanges");
  fill(ex);
  if (g && g.passed) {
    for (const direction of ["left", "across", "right"]) {
      const gave = g.passed.find((p) => p.direction === direction);
      const got = g.received.find((p) => p.direction === direction);
      if (!gave && !got) continue;
      const gaveAt = S.passOrder.indexOf(`gave:${direction}`);
      const gotAt = S.passOrder.indexOf(`got:${direction}`);
      const gotFirst = got && (!gave || (gotAt >= 0 && (gaveAt < 0 || gotAt < gaveAt)));
      const gaveParts = gave ? ["gave ", { card: gave.card }, ` to ${plainName(gave.to)}`] : [];
      const gotParts = got ? ["got ", { card: got.card }, ` from ${plainName(got.from)}`] : [];
      const [first, second] = gotFirst ? [gotParts, gaveParts] : [gaveParts, gotParts];
      const parts = [`Pass ${direction}: you `, ...first];
      if (second.length) parts.push(", ", ...second);
      ex.appendChild(lineEl(parts, "span", { class: "exchange" }));
    }
  }
}

/** A card that cannot be played was pressed: the server's rules engine says why. */
function whyNot(code) {
  if (S.pending || S.inert) return;
  const g = S.state.game;
  if (!isMyTurn()) {
    const d = g && g.decision;
    toast(d && S.seat !== null ? `It isn't your turn: waiting for ${plainName(d.seat)}.` : "You can't play a card now.", { error: true });
    return;
  }
  // Ask for the move anyway: the engine refuses it with its reason ("aces may not be discarded").
  const kind = g.decision.kind;
  if (kind === "play") send("play", { cards: [code] }, { game: true });
  else send(kind, { card: code }, { game: true });
}

// ---- announcements and turn alerts -------------------------------------------------------------

/** Tell screen readers what changed: the events of this state, and when it becomes your turn. */
function announce(msg, prev, wasMyTurn) {
  if (!prev) return;
  const lines = (msg.events || []).map((ev) => describeEvent(ev, (seat) => nameOf(seat, msg))).filter(Boolean)
    .map((parts) => lineEl(parts).textContent);
  for (const info of msg.seats) {
    const before = prev.seats[info.seat];
    if (info.kind === "human" && before.kind === "human" && before.connected && !info.connected) lines.push(`${plainName(info.seat)} left.`);
    if (info.kind === "human" && before.kind === "human" && !before.connected && info.connected) lines.push(`${plainName(info.seat)} is back.`);
  }
  if (!wasMyTurn && isMyTurn()) lines.push(`Your turn. ${$("#prompt").textContent}`);
  if (lines.length) $("#announce").textContent = lines.slice(-4).join(" ");
}

const ALERTS = { sound: "dingo.alert.sound", notify: "dingo.alert.notify" };
const alertOn = (kind) => { try { return localStorage.getItem(ALERTS[kind]) === "1"; } catch { return false; } };
let audio = null;

/** Your turn while the tab is hidden: a short chime (made here, no sound file) and/or a notification. */
function turnAlert() {
  if (!document.hidden) return;
  const done = [];
  if (alertOn("sound")) {
    try {
      audio = audio || new AudioContext();
      const now = audio.currentTime;
      for (const [i, freq] of [[0, 660], [1, 880]]) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, now + i * 0.16);
        gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.16 + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.15);
        osc.connect(gain).connect(audio.destination);
        osc.start(now + i * 0.16);
        osc.stop(now + i * 0.16 + 0.16);
      }
      done.push("sound");
    } catch { /* no audio here */ }
  }
  if (alertOn("notify") && "Notification" in window && Notification.permission === "granted") {
    const note = new Notification("Your turn at Dingo", { body: $("#prompt").textContent, tag: `dingo-${tableId}` });
    note.onclick = () => { window.focus(); note.close(); };
    done.push("notification");
  }
  // Kept on the page (how many, and what the last one did) so the alerts can be checked.
  if (done.length) {
    document.body.dataset.turnAlerts = String(Number(document.body.dataset.turnAlerts || 0) + 1);
    document.body.dataset.turnAlert = done.join(",");
  }
}

function setupAlerts() {
  for (const kind of ["sound", "notify"]) {
    const box = $(`#alert-${kind}`);
    box.checked = alertOn(kind);
    box.addEventListener("change", async () => {
      let on = box.checked;
      if (on && kind === "notify") {
        if (!("Notification" in window)) on = false;
        else if (Notification.permission !== "granted") on = (await Notification.requestPermission()) === "granted";
        if (!on) toast("Notifications are blocked in this browser.", { error: true });
      }
      box.checked = on;
      try { localStorage.setItem(ALERTS[kind], on ? "1" : "0"); } catch { /* not kept */ }
    });
  }
}

function verb(action) {
  if (action.type === "discard") return "discard";
  if (action.type === "pass") return "pass";
  return "play";
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

function promptFor(state) {
  const g = state.game;
  const me = S.seat;
  const st = state.table.status;
  const watching = me === null;
  if (!g) {
    if (watching) return { parts: [state.seats.some((s) => s.kind === "empty") ? "Pick an empty seat to play, or just watch." : "You are watching. The match starts soon."] };
    const full = state.seats.every((s) => s.kind !== "empty");
    if (!S.host || S.inert) return { parts: ["Waiting for the host to start the match."] };
    return { parts: [full ? "Everyone is here: start the match when you are ready." : "Fill every seat, then start the match."], act: full };
  }
  if (g.phase === "over") {
    const w = g.result.winner;
    const who = w === null || w === undefined ? "a draw" : `${nameOf(w)} ${w === me ? "win" : "wins"}`;
    return { parts: [st === "match_over" ? `The match is over: ${nameOf(state.match.winner)} ${state.match.winner === me ? "win" : "wins"} it.` : `Game over: ${who}.`] };
  }
  const d = g.decision;
  const who = d.seat;
  const names = (s) => nameOf(s);
  if (S.inert) return { parts: ["This tab only watches: your seat is played in another tab."] };
  if (isMyTurn()) {
    if (S.pending) return { parts: ["Sending…"], act: true };
    if (d.kind === "discard") {
      return { parts: [`Discard a card (discard ${d.round} of 4). Aces can't be discarded.`], act: true };
    }
    if (d.kind === "pass") {
      return { parts: [`Pass a card ${d.direction} to ${plainName(d.to)}. Any card may be passed.`], act: true };
    }
    return { parts: huntPrompt(g, names), act: true };
  }
  const prefix = watching ? "You are watching. " : "";
  const waiting = state.seats[who];
  if (waiting.kind === "human" && (!waiting.connected || waiting.away)) {
    return { parts: [`${prefix}Waiting for ${plainName(who)} (${waiting.away ? "away: a bot plays for now" : "disconnected"}).`] };
  }
  if (d.kind === "discard") return { parts: [`${prefix}${plainName(who)} is discarding a card.`] };
  if (d.kind === "pass") return { parts: [`${prefix}${plainName(who)} is passing a card ${d.direction} to ${names(d.to) === "You" ? "you" : plainName(d.to)}.`] };
  if (g.hunt) {
    return { parts: [`${prefix}${plainName(who)} may play a wolf on the `, { card: g.hunt.rabbit }, " rabbit."] };
  }
  return { parts: [`${prefix}Waiting for ${plainName(who)}.`] };
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

// ---- the scoreboard ----------------------------------------------------------------------------

function renderScoreboard() {
  const state = S.state;
  const opts = state.table.options;
  const notes = [opts.points_to_win ? `First to ${opts.points_to_win} points` : `First to ${plural(opts.games_to_win, "game")}`];
  if (opts.open_discards) notes.push("open discards");
  notes.push(opts.turn_seconds ? `${opts.turn_seconds} s per turn` : "no turn timer");
  $("#options-note").textContent = notes.join(" · ");

  const box = $("#scoreboard");
  const m = state.match;
  if (!m) {
    fill(box, h("p", { class: "empty" }, "The scoreboard fills in as games finish."));
    return;
  }
  const head = h("tr", {}, h("th", {}, "Game"), [0, 1, 2, 3].map((s) => h("th", { title: plainName(s) }, nameOf(s))));
  const body = h("tbody");
  for (const game of m.games) {
    body.appendChild(h("tr", {}, h("td", {}, String(game.number)),
      game.scores.map((sc, s) => h("td", { class: game.winner === s ? "won" : null }, signed(sc)))));
  }
  const g = state.game;
  if (g && g.phase !== "over") {
    body.appendChild(h("tr", { class: "now" }, h("td", {}, `${m.game_number} (now)`),
      g.scores.map((sc) => h("td", {}, signed(sc)))));
  }
  body.appendChild(h("tr", { class: "wins" }, h("td", {}, "Games won"), m.game_wins.map((w) => h("td", {}, String(w)))));
  body.appendChild(h("tr", { class: "totals" }, h("td", {}, "Points"), m.totals.map((t) => h("td", {}, signed(t)))));
  fill(box, h("table", { id: "scoreboard-table" }, h("thead", {}, head), body));
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

