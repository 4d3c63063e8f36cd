// The seats' plates of the table frame: who sits where, presence, badges, the turn timer,
// the game module's part of each plate (its `plate` hook), and the host's seat buttons.

import { h } from "../dom.js";
import { SEAT_LABELS } from "../words.js";
import { avatar } from "../render.js";
import { S, gameOver, hook, occupantName, roundWord, status, toAct } from "./state.js";

/** A seat's plate: who sits there, their badges and presence, the module's part, the host's buttons. */
export function seatEl(info, ctx, { send, sitAt, leaveSeat }) {
  const g = S.state.game;
  const seat = info.seat;
  const isMe = seat === S.seat && S.seat !== null;
  const turn = Boolean(g && toAct().includes(seat) && !gameOver());
  const plate = g ? hook("plate", seat, g, ctx) || {} : {};
  const winner = Boolean(plate.winner);
  const el = h("div", {
    class: ["seat", `seat--${info.kind}`, isMe && "seat--me", turn && "seat--turn", winner && "seat--winner"],
    dataset: { seat: String(seat) },
    "aria-label": `${info.kind === "empty" ? "Empty seat" : occupantName(seat)}${turn ? ", to play" : ""}`,
  });

  const bot = info.kind === "bot";
  const score = typeof plate.score === "string" ? { text: plate.score } : plate.score;
  const head = h("div", { class: "seat__head" },
    info.kind === "empty" ? null : avatar(info.name, seat),
    h("span", { class: "seat__name", title: bot ? `${occupantName(seat)}: a bot that plays ${info.strength}` : null },
      info.kind === "empty" ? `${SEAT_LABELS[seat]}: empty` : occupantName(seat),
      bot ? h("span", { class: "seat__bot" }, " \u00B7 bot") : null),
    score ? h("span", { class: "seat__points", title: score.title || null }, score.text) : null);
  if (info.kind !== "empty") {
    // Your own dot follows this page's connection: the state says what the table saw last.
    const connected = info.connected && !(isMe && S.offline);
    const playing = !["lobby", "match_over"].includes(status());
    const presence = info.away ? (playing ? "away: a bot plays for now" : "away")
      : connected ? "connected" : "disconnected";
    head.appendChild(h("span", {
      class: ["dot", connected && !info.away && "dot--on", info.away && "dot--away"],
      title: presence, role: "img", "aria-label": presence,
    }));
  }
  el.appendChild(head);

  const meta = h("div", { class: "seat__meta" });
  if (isMe) meta.appendChild(h("span", { class: "badge badge--you" }, "You"));
  if (bot) meta.appendChild(h("span", { class: "badge badge--bot", title: `Bot strength: ${info.strength}` }, info.strength));
  if (info.host) meta.appendChild(h("span", { class: "badge badge--host", title: "The host starts the match and manages the seats" }, "Host"));
  for (const b of plate.badges || []) {
    meta.appendChild(h("span", { class: ["badge", b.kind && `badge--${b.kind}`], title: b.title || null }, b.text));
  }
  if (info.kind === "human" && info.ready && ["between_games", "match_over"].includes(status())) {
    meta.appendChild(h("span", { class: "badge badge--ready" }, "Ready"));
  }
  if (info.away) meta.appendChild(h("span", { class: "badge badge--away" }, "Away"));
  // The game on the felt was someone else's at this seat (taken or freed since it ended):
  // the plate's score and badges are theirs.
  if (info.played && gameOver()) {
    meta.appendChild(h("span", { class: "seat__played", dataset: { played: "1" } },
      `${info.played.name}${info.played.bot ? " (bot)" : ""} played this ${roundWord()}`));
  }
  if (info.kind === "human" && !info.connected) el.appendChild(goneEl(info));
  if (g) {
    for (const node of plate.meta || []) meta.appendChild(node);
    if (turn) {
      if (S.timer && S.timer.seats.includes(seat) && info.connected) {
        meta.appendChild(h("span", { class: "timer", dataset: { timer: "1" } },
          h("span", { class: "timer__text" }), h("span", { class: "timer__bar" }, h("span"))));
      } else {
        meta.appendChild(h("span", { class: "timer" }, isMe && !S.inert ? (S.offline ? "your turn · offline" : "your turn") : (plate.turn || "deciding…")));
      }
    }
  }
  if (meta.childNodes.length) el.appendChild(meta);
  for (const node of plate.body || []) el.appendChild(node);

  // The module's own small area on the plate (render's slots.seats[seat]).
  const slot = h("div", { class: "seat__game" });
  el.appendChild(slot);

  const actions = h("div", { class: "seat__actions" });
  if (info.kind === "empty" && S.seat === null && !S.inert) {
    actions.appendChild(h("button", { class: "btn btn--primary btn--small", type: "button", disabled: S.offline, onclick: () => sitAt(seat) }, "Sit here"));
  }
  const host = S.host && !S.inert;
  if (info.kind === "empty" && host) {
    actions.appendChild(botPicker(seat, "Add bot", (kind) => send("add_bot", { seat, kind })));
  }
  if (info.kind === "bot" && host && status() !== "playing") {
    actions.appendChild(h("button", {
      class: "btn btn--ghost-dark btn--small", type: "button", disabled: S.offline,
      onclick: () => send("remove_bot", { seat }),
    }, "Remove bot"));
  }
  if (info.kind === "human" && host && !info.host && !isMe) {
    // Only to someone here: an absent host would leave the table waiting.
    if (info.connected && !info.away) {
      actions.appendChild(h("button", {
        class: "btn btn--ghost-dark btn--small", type: "button", "aria-label": `Make ${occupantName(seat)} the host`, disabled: S.offline,
        onclick: () => send("make_host", { seat }),
      }, "Make host"));
    }
    if (!info.connected) {
      actions.appendChild(botPicker(seat, "Give to a bot", (kind) => send("replace_seat", { seat, kind })));
      if (status() !== "playing") {
        actions.appendChild(h("button", {
          class: "btn btn--ghost-dark btn--small", type: "button", "aria-label": `Free ${occupantName(seat)}'s seat`, disabled: S.offline,
          onclick: () => send("replace_seat", { seat }),
        }, "Free seat"));
      }
    }
  }
  if (isMe && !S.inert) {
    const still = info.host ? "; you stay the host" : "";
    actions.appendChild(h("button", {
      class: "btn btn--ghost-dark btn--small", type: "button", id: "leave-seat", disabled: S.offline,
      title: ({ lobby: "Give your seat up and watch", match_over: "A bot takes your seat for a rematch, and you watch" }[status()]
        || "A bot plays your seat from now on, and you watch") + still,
      onclick: leaveSeat,
    }, "Leave seat"));
  }
  if (actions.childNodes.length) el.appendChild(actions);
  return { el, slot };
}

/** The bot kinds the server has ("easy", "normal", ...), as a select, and a button to use the pick. */
function botPicker(seat, label, onPick) {
  const kinds = S.state.table.bot_kinds || [];
  // The "normal" bot unless the host picks another (Dingo's heuristic bot).
  const fallback = (kinds.find((k) => k.strength === "normal") || kinds.find((k) => k.kind === "heuristic")
    || kinds[kinds.length - 1] || { kind: "heuristic" }).kind;
  const chosen = S.botKind[seat] || fallback;
  const select = h("select", {
    class: "bot-kind", "aria-label": `Bot strength for ${(SEAT_LABELS[seat] || `seat ${seat + 1}`).toLowerCase()}`,
    onchange: (e) => { S.botKind[seat] = e.target.value; },
  }, kinds.map((k) => h("option", { value: k.kind, selected: k.kind === chosen }, k.strength)));
  return h("span", { class: "bot-pick" }, select, h("button", {
    class: "btn btn--ghost-dark btn--small", type: "button", disabled: S.offline,
    onclick: () => onPick(S.botKind[seat] || fallback),
  }, label));
}

/** What passes when a player's reconnect grace runs out, by the line's `data-passes`. */
const PASSES = { bot: "a bot takes over", host: "the host role passes" };

/** "Bea left · a bot takes over in 0:45" (ticking), "Bea left · a bot plays for now";
 * while no game is played "Bea left", or for a host in the lobby with someone here to take
 * the role "Bea left · the host role passes in 0:45". */
function goneEl(info) {
  const name = occupantName(info.seat);
  const gone = (text) => h("p", { class: "seat__gone" }, text);
  const ticking = (passes) => tickingLine("seat__gone", name, info.back_by, passes);
  // (In the lobby nobody plays yet; once the match is over nobody plays any more.)
  if (status() === "lobby") {
    const heir = S.state.seats.some((s) => s.seat !== info.seat && s.kind === "human"
      && s.connected && !s.away);
    return info.host && info.back_by && heir ? ticking("host") : gone(`${name} left`);
  }
  if (status() === "match_over") return gone(`${name} left`);
  if (info.away || !info.back_by) return gone(`${name} left \u00B7 a bot plays for now`);
  return ticking("bot");
}

/** "Bea left · a bot takes over in 0:45", a line (of class `cls`) that `tick()` counts down. */
export function tickingLine(cls, name, backBy, passes) {
  return h("p", { class: cls, dataset: { backBy: String(backBy), name, passes } },
    takesOver(name, backBy, passes));
}

/** The ticking line of a player gone for less than the reconnect grace. */
function takesOver(name, backBy, passes) {
  return `${name} left \u00B7 ${PASSES[passes]} in ${countdown(backBy)}`;
}

function countdown(serverTime) {
  const secs = Math.max(0, Math.ceil(serverTime - (Date.now() / 1000 + S.skew)));
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
}

export function tick() {
  for (const el of document.querySelectorAll("[data-back-by]")) {
    el.textContent = takesOver(el.dataset.name, Number(el.dataset.backBy), el.dataset.passes);
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
