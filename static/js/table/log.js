// The game log and the chat of the table frame: lines kept in this tab (they survive a
// reload), the table's own events told by the frame, the game's by its module.

import { $, h, fill } from "../dom.js";
import { describeEvent } from "../words.js";
import { lineEl } from "../render.js";
import { S, has, hook, occupantName, saveList, sayYou } from "./state.js";

const LOG_LIMIT = 300;
const CHAT_LIMIT = 100;
/** Events of the table itself (docs/protocol.md), told by the frame; a game's module tells the rest. */
const TABLE_EVENTS = new Set(["seat_taken", "bot_added", "bot_removed", "auto_move", "match_recorded",
  "host_changed", "seat_replaced"]);
const GAME_LINES = new Set(["game_start", "game_over", "match_over", "match_start"]);


/** An event as a line of parts (strings and {card} objects), or null to leave it out of the log. */
export function describe(ev, ctx) {
  // (Who sat, left or hosts: the seats' holders now.)
  if (TABLE_EVENTS.has(ev.type) || ev.type === "match_start") {
    return describeEvent(ev, (seat) => (seat === S.seat ? "You" : occupantName(seat)));
  }
  // The module's words; where it has none (undefined), the server's `say`, to its reader.
  let line = has("describe") ? hook("describe", ev, ctx) : undefined;
  if (line === undefined) line = ev.say ? sayYou(ev.say) : null;
  if (line === null || line === "") return null;
  return typeof line === "string" ? [line] : line;
}

function kindOf(ev) {
  if (GAME_LINES.has(ev.type)) return "game";
  if (TABLE_EVENTS.has(ev.type)) return "meta";
  return hook("logKind", ev) || "";
}

/** Log ``events``; ``namesBefore[i]``: names of seats that changed hands after event i. */
export function logEvents(events, ctx, namesBefore = null) {
  events.forEach((ev, i) => {
    S.logNames = namesBefore && namesBefore[i];
    hook("observe", ev, ctx);
    const parts = describe(ev, ctx);
    if (parts) addLog([parts], kindOf(ev), false, ev.type === "game_start");
  });
  S.logNames = null;
  saveList("log", S.log);
}

/**
 * The answer to hello or sync carries the server's log of the current game (from its
 * deal on), which holds what this tab missed while away, or everything on a new device.
 * It replaces our lines from this game's start; earlier lines of this tab stay.
 */
export function replaceGameLog(events, ctx) {
  const dealt = events.length > 0 && events[0].type === "game_start";
  let keep = 0;
  if (dealt) {
    for (let i = S.log.length - 1; i >= 0; i -= 1) {
      if (S.log[i].start) { keep = i; break; }
    }
  }
  S.log.splice(keep);
  // A seat that changed hands in this game: its lines before that name who held it then
  // (the event says who: `player`), as they did when they were first told.
  const before = [];
  let names = {};
  for (let i = events.length - 1; i >= 0; i -= 1) {
    before[i] = names;
    if (events[i].type === "seat_replaced" && events[i].player) names = { ...names, [events[i].seat]: events[i].player };
  }
  logEvents(events, ctx, before);
}

export function addLog(lines, kind, save = true, start = false) {
  for (const parts of lines) S.log.push(start ? { parts, kind, start } : { parts, kind });
  if (S.log.length > LOG_LIMIT) S.log.splice(0, S.log.length - LOG_LIMIT);
  if (save) saveList("log", S.log);
}

export function renderLog() {
  const list = $("#log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  fill(list, S.log.map((line) => lineEl(line.parts, "li", { class: line.kind ? `log--${line.kind}` : null })));
  if (!S.log.length) list.appendChild(h("li", { class: "log--meta" }, "Nothing has happened yet."));
  if (atBottom || list.dataset.scrolled !== "1") {
    list.scrollTop = list.scrollHeight;
    list.dataset.scrolled = "0";
  }
}

export function addChat(msg) {
  S.chat.push({ seat: msg.seat, name: msg.name, text: msg.text, at: msg.at });
  if (S.chat.length > CHAT_LIMIT) S.chat.splice(0, S.chat.length - CHAT_LIMIT);
  saveList("chat", S.chat);
  renderChat();
}

export function renderChat() {
  const list = $("#chat-list");
  fill(list, S.chat.map((m) => h("li", {},
    h("b", { class: `chat__name chat__name--${m.seat}` }, m.name), m.text)));
  if (!S.chat.length) list.appendChild(h("li", { class: "chat__empty" }, "No messages yet."));
  list.scrollTop = list.scrollHeight;
  const seated = S.seat !== null && !S.inert;
  $("#chat-form").hidden = !seated;
  $("#chat-note").hidden = seated;
  const free = !S.state || S.state.seats.some((s) => s.kind === "empty");
  $("#chat-note").textContent = S.inert ? "Chat from the tab that plays your seat."
    : free ? "Take a seat to chat." : "Only the players chat; you are watching.";
}
