// The home page: pick a game, create a table and share its link, or join one.
//
// The games, their options (names, limits, defaults, words) and their bots come from the
// server (GET /api/games): the form is built from that list, so a game's options are
// defined once, on the server. An older server without /api/games gets Dingo's form and
// the create body of that time.

import { $, h, fill, plural } from "./dom.js";
import { cardEl } from "./cards.js";
import {
  ApiError, forgetKeys, forgetTable, getJSON, heldTables, postJSON, rememberTable, saveName, savedName,
  tableIdFrom, tableMemory,
} from "./api.js";

const TIMER_CHOICES = [[0, "No limit"], [15, "15 seconds"], [30, "30 seconds"], [60, "1 minute"], [120, "2 minutes"]];
const DEFAULT_TIMER = 30;

/**
 * Dingo as GET /api/games describes it, only for a server from before that endpoint:
 * its form is then built from this, and the table is created with the old body.
 */
const LEGACY_DINGO = {
  name: "dingo", title: "Dingo", seats: 4, playable: true, blurb: "", legacy: true,
  options: [
    { name: "games_to_win", title: "Games to win", description: "", kind: "int", default: 5, minimum: 1, maximum: 50, choices: [], optional: false },
    { name: "points_to_win", title: "Points to win", description: "", kind: "int", default: null, minimum: 1, maximum: 1000, choices: [], optional: true },
    { name: "open_discards", title: "Open discards", description: "Show the whole discard pile instead of only its top card (the original game hides it).", kind: "bool", default: false, minimum: null, maximum: null, choices: [], optional: false },
  ],
  bots: [{ kind: "heuristic", strength: "normal" }],
};

const F = {
  games: [],     // the playable games, Dingo first
  game: null,    // the chosen one
};

function drawHero() {
  const fan = $("#hero-cards");
  const cards = ["QC", "QD", "QH", "QS"];
  cards.forEach((code, i) => {
    const angle = (i - 1.5) * 16;
    fan.appendChild(cardEl(code, {
      size: "lg",
      attrs: { style: { transform: `translateX(-50%) rotate(${angle}deg)` }, "aria-hidden": "true" },
    }));
  });
  const roles = $("#roles");
  for (const [code, text] of [["7D", "Rabbits are hunted"], ["7H", "Dingoes start a hunt"],
    ["7C", "Wolves catch rabbits"], ["AD", "The ace rabbit: 10"]]) {
    roles.appendChild(h("div", { class: "role-demo" }, cardEl(code, { size: "sm" }), text));
  }
}

// ---- the games on offer -----------------------------------------------------------------

async function loadGames() {
  try {
    const list = await getJSON("/api/games");
    const games = (Array.isArray(list) ? list : []).filter((g) => g.playable);
    if (games.length) {
      games.sort((a, b) => (b.name === "dingo") - (a.name === "dingo"));
      return games;
    }
  } catch { /* an older server: Dingo only */ }
  const legacy = { ...LEGACY_DINGO };
  try {
    legacy.bots = await getJSON("/api/bots");
  } catch { /* keep the server's default kind */ }
  return [legacy];
}

/** The game picker: one choice per playable game (hidden when there is only Dingo). */
function drawGamePicks() {
  const field = $("#game-field");
  field.hidden = F.games.length < 2;
  fill($("#game-picks"), F.games.map((g) => h("label", { class: "game-pick" },
    h("input", { type: "radio", name: "game", value: g.name, id: `game-${g.name}`, checked: g === F.game }),
    h("span", { class: "game-pick__title" }, g.title),
    h("small", {}, `${g.seats} players`))));
  $("#game-picks").onchange = (e) => {
    const game = F.games.find((g) => g.name === e.target.value);
    if (game) chooseGame(game);
  };
}

/** Nodes in a sentence ("Bingo, Divide and Conquer, and Mate"), with commas alone where the
 * browser has no Intl.ListFormat. */
function listed(nodes) {
  const parts = typeof Intl.ListFormat === "function"
    ? new Intl.ListFormat("en", { type: "conjunction" }).formatToParts(nodes.map(() => "x"))
    : nodes.flatMap((_, i) => [...(i ? [{ type: "literal", value: ", " }] : []), { type: "element" }]);
  let next = 0;
  return parts.map((part) => (part.type === "element" ? nodes[next++] : part.value));
}

/** The hero speaks of Dingo; under it the site's other games, each a button that picks it
 * in the form below ("Also here: Bingo, Divide and Conquer, and Mate, each for two players."). */
function drawOtherGames() {
  const others = F.games.filter((g) => g.name !== "dingo");
  const line = $("#hero-more");
  line.hidden = !others.length;
  if (!others.length) return;
  const pick = (game) => () => {
    const radio = $(`#game-${game.name}`);
    radio.click();  // the picker's own change: the form follows
    radio.focus({ preventScroll: true });
    $("#game-field").scrollIntoView({ block: "center", behavior: "smooth" });
  };
  const names = others.map((g) => h("button", { type: "button", class: "hero__game", onclick: pick(g) }, g.title));
  const seats = new Set(others.map((g) => g.seats));
  const [n] = seats;
  const each = seats.size === 1 && n > 1 ? `, each for ${["", "", "two", "three", "four"][n] || n} players` : "";
  fill(line, "Also here: ", listed(names), `${each}.`);
}

function chooseGame(game) {
  F.game = game;
  $("#game-blurb").textContent = game.blurb || "";
  $("#game-blurb").hidden = !game.blurb;
  // "How a game goes" shows Dingo's walk-through; for another game its own steps (the
  // server's `how`), else its blurb, and its rules.
  const dingo = game.name === "dingo";
  const steps = !dingo && Array.isArray(game.how) ? game.how : [];
  $("#how-title").textContent = dingo ? "How a game goes" : `How ${game.title} goes`;
  $("#how-other").textContent = dingo || steps.length ? "" : game.blurb || "";
  $("#how-other").hidden = dingo || steps.length > 0;
  fill($("#how-steps"), steps.map((text) => h("li", {}, text)));
  $("#how-steps").hidden = !steps.length;
  $("#roles").hidden = $("#how-dingo").hidden = !dingo;
  $("#how-rules").href = `/rules/${encodeURIComponent(game.name)}`;
  $("#how-rules").textContent = `Read the whole rules of ${game.title}`;
  drawOptions(game);
  drawSeatPicks(game);
}

// ---- the chosen game's options ----------------------------------------------------------

const optionId = (o) => `opt-${o.name}`;

/** A number the box shows for an optional number before anyone has typed one. */
function suggested(o) {
  if (o.default !== null && o.default !== undefined) return o.default;
  if (o.maximum) return Math.max(o.minimum || 1, Math.round(o.maximum / 10));
  return o.minimum || 1;
}

/** Whole numbers and choices go in two columns with the turn timer; ticks and optional numbers follow. */
function drawOptions(game) {
  const grid = h("div", { class: "two-cols" });
  const rows = [];
  for (const o of game.options) {
    const id = optionId(o);
    const tip = o.description || null;
    if (o.kind === "int" && !o.optional) {
      grid.appendChild(h("div", { class: "field" },
        h("label", { for: id, title: tip }, o.title),
        h("input", {
          id, name: o.name, type: "number", min: o.minimum ?? null, max: o.maximum ?? null,
          value: String(o.default ?? o.minimum ?? 0), inputmode: "numeric", title: tip,
        })));
    } else if (o.kind === "choice") {
      grid.appendChild(h("div", { class: "field" },
        h("label", { for: id, title: tip }, o.title),
        h("select", { id, name: o.name, title: tip },
          o.choices.map((c) => h("option", { value: String(c), selected: c === o.default }, String(c))))));
    } else if (o.kind === "int") {
      const hint = o.description ? h("span", { class: "field__hint", hidden: true }, o.description) : null;
      const box = h("input", { id, name: o.name, type: "number", min: o.minimum ?? null, max: o.maximum ?? null,
        value: String(suggested(o)), inputmode: "numeric", "aria-label": o.title, hidden: true });
      rows.push(h("div", { class: "field" },
        h("label", { class: "check" }, h("input", {
          id: `${id}-on`, type: "checkbox", dataset: { option: o.name },
          onchange: (e) => { box.hidden = !e.target.checked; if (hint) hint.hidden = !e.target.checked; },
        }), o.title),
        box, hint));
    } else if (o.kind === "bool") {
      rows.push(h("div", { class: "field" },
        h("label", { class: "check" }, h("input", { id, name: o.name, type: "checkbox", checked: Boolean(o.default) }), o.title),
        o.description ? h("span", { class: "field__hint" }, o.description) : null));
    }
  }
  // A choice's words say what each choice means (Divide and Conquer's decks): under the columns.
  const hints = game.options.filter((o) => o.kind === "choice" && o.description)
    .map((o) => h("p", { class: "field__hint choice-hint" }, h("b", {}, `${o.title}: `), o.description));
  grid.appendChild(h("div", { class: "field" },
    h("label", { for: "timer" }, "Turn timer"),
    h("select", { id: "timer", name: "turn_seconds" },
      TIMER_CHOICES.map(([v, text]) => h("option", { value: String(v), selected: v === DEFAULT_TIMER }, text)))));
  fill($("#game-options"), grid, hints, rows);
}

/** The options as the server wants them, or {error, focus} for the first one out of bounds. */
function readOptions(game) {
  const values = {};
  for (const o of game.options) {
    const id = optionId(o);
    if (o.kind === "bool") {
      values[o.name] = $(`#${id}`).checked;
      continue;
    }
    if (o.kind === "choice") {
      const raw = $(`#${id}`).value;
      values[o.name] = o.choices.find((c) => String(c) === raw) ?? o.default;
      continue;
    }
    if (o.optional && !$(`#${id}-on`).checked) {
      values[o.name] = null;
      continue;
    }
    const n = Number($(`#${id}`).value);
    const low = o.minimum ?? -Infinity;
    const high = o.maximum ?? Infinity;
    if (!Number.isInteger(n) || n < low || n > high) {
      const range = o.minimum !== null && o.maximum !== null ? ` from ${o.minimum} to ${o.maximum}` : "";
      return { error: `${o.title} must be a whole number${range}.`, focus: `#${id}` };
    }
    values[o.name] = n;
  }
  return { values };
}

// ---- bots: one pick per seat of the chosen game -------------------------------------------

/** Each seat: a box to put a bot there, and how strong the bot plays (the game's kinds). */
function drawSeatPicks(game) {
  const picks = $("#seat-picks");
  const kinds = game.bots && game.bots.length ? game.bots : [{ kind: "heuristic", strength: "normal" }];
  const preferred = (kinds.find((k) => k.strength === "normal") || kinds.find((k) => k.kind === game.stand_in)
    || kinds[kinds.length - 1]).kind;
  picks.style.setProperty("--seats", String(game.seats));
  fill(picks, [...Array(game.seats).keys()].map((seat) => h("div", { class: "seat-pick" },
    h("label", {},
      h("input", { type: "checkbox", name: "bot", value: String(seat), checked: seat !== 0 }),
      `Seat ${seat + 1}`,
      h("small", {}, seat === 0 ? "open" : "bot")),
    h("select", { name: "bot-kind", dataset: { seat: String(seat) }, "aria-label": `Bot strength, seat ${seat + 1}`, disabled: seat === 0 },
      kinds.map((k) => h("option", { value: k.kind, selected: k.kind === preferred }, k.strength))))));
}

function onSeatPick(e) {
  const box = e.target.closest(".seat-pick");
  if (box && e.target.name === "bot") {
    box.querySelector("small").textContent = e.target.checked ? "bot" : "open";
    box.querySelector("select").disabled = !e.target.checked;
  }
}

// ---- creating ------------------------------------------------------------------------------

function readForm() {
  const game = F.game;
  const name = $("#name").value.trim();
  if (!name) return { error: "Please enter your name.", focus: "#name" };
  if (!game) return { error: "The games could not be loaded. Reload the page and try again.", focus: "#name" };
  const options = readOptions(game);
  if (options.error) return options;
  const bots = [...document.querySelectorAll('input[name="bot"]:checked')]
    .map((b) => ({ seat: Number(b.value), kind: $(`select[data-seat="${b.value}"]`)?.value || "heuristic" }));
  if (bots.length === game.seats) {
    return { error: "Leave at least one seat open for a person.", focus: "#seat-picks input" };
  }
  const turnSeconds = Number($("#timer").value) || null;
  // An older server takes Dingo's options at the top level; today's takes the game and its options.
  const body = game.legacy
    ? { ...options.values, turn_seconds: turnSeconds, bots }
    : { game: game.name, options: options.values, turn_seconds: turnSeconds, bots };
  return { name, body };
}

async function onCreate(event) {
  event.preventDefault();
  const err = $("#create-error");
  err.textContent = "";
  const form = readForm();
  if (form.error) {
    err.textContent = form.error;
    $(form.focus)?.focus();
    return;
  }
  saveName(form.name);
  const btn = $("#create-btn");
  btn.disabled = true;
  btn.textContent = "Creating…";
  try {
    const table = await postJSON("/api/tables", form.body);
    goToTable(table, form.name);
  } catch (e) {
    err.textContent = e instanceof ApiError ? e.message : "Something went wrong. Please try again.";
    btn.disabled = false;
    btn.textContent = "Create table";
  }
}

/** One click: the new table opens at once; its lobby shows the link to send. */
function goToTable(table, name) {
  const id = table.table_id;
  const path = table.url || `/t/${id}`;
  // The creator sits down in the first free seat on arrival (table.js autoSit).
  const mem = { name, autosit: true };
  if (table.host_token) mem.host_token = table.host_token;
  rememberTable(id, mem);
  location.assign(path);
}

async function onJoin(event) {
  event.preventDefault();
  const error = $("#join-error");
  const id = tableIdFrom($("#join-code").value);
  if (!id) {
    error.textContent = "That doesn't look like a table link or code.";
    return;
  }
  try {
    const table = await getJSON(`/api/tables/${encodeURIComponent(id)}`);
    location.href = table.url;
  } catch (e) {
    error.textContent = e instanceof ApiError && e.status === 404
      ? "There is no open table with this code. Tables close after a long time without players."
      : e.message;
  }
}

// ---- your tables ---------------------------------------------------------------------------

/** How many of the tables visited last are asked after (each is one request). */
const HELD_ASKED = 6;

/**
 * "Your tables": the open tables this browser holds a seat (or the host role) at, the one
 * visited last first, each with a way back: for whoever closed the tab or lost the link.
 * A table that is gone (404) is forgotten, as is a seat given to a bot or freed meanwhile
 * and a host role that passed to a seat; a table that cannot be asked now is left out
 * this time.
 */
async function drawYourTables() {
  const held = heldTables().slice(0, HELD_ASKED);
  const asked = await Promise.all(held.map(async (mem) => {
    try {
      return { mem, table: await getJSON(`/api/tables/${encodeURIComponent(mem.id)}`) };
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) forgetTable(mem.id);
      return null;
    }
  }));
  const rows = [];
  for (const { mem, table } of asked.filter(Boolean)) {
    const seat = Number.isInteger(mem.seat) ? table.seats[mem.seat] : null;
    if (seat && seat.kind !== "human") forgetIfStill(mem, ["token", "seat"]);
    // (A seat freed and taken by someone else is theirs: the name tells, mostly.)
    const mine = seat && seat.kind === "human" && (!mem.name || seat.name === mem.name) ? seat : null;
    // A host who never sat holds the role while no seat does (the role passes to a seat).
    const seatHosts = table.seats.some((s) => s.host);
    const hosting = Boolean(mem.host_token) && !mine && !seatHosts;
    if (mem.host_token && !Number.isInteger(mem.seat) && seatHosts) forgetIfStill(mem, ["host_token"]);
    if (mine || hosting) rows.push(heldRow(table, mine));
  }
  fill($("#held-list"), rows);
  $("#your-tables").hidden = !rows.length;
}

/** Forget ``keys`` of a table's memory (a seat: token and seat; a host role that passed:
 * host_token), unless another tab changed them meanwhile. */
function forgetIfStill(mem, keys) {
  const now = tableMemory(mem.id);
  if (now && keys.every((k) => now[k] === mem[k])) forgetKeys(mem.id, keys);
}

/** One table of "Your tables": its game, how it stands, who you are, who else is there. */
function heldRow(table, mine) {
  const others = table.seats.filter((s) => s !== mine && s.kind !== "empty")
    .map((s) => (s.kind === "bot" ? `${s.name} (bot)` : s.name));
  const free = table.seats.filter((s) => s.kind === "empty").length;
  const standing = {
    lobby: free ? `Waiting for players: ${plural(free, "seat")} free`
      : !mine || mine.host ? "Every seat is taken: you can start" : "Waiting for the host to start",
    playing: "Match under way",
    between_games: "Between games",
    match_over: "Match over",
  }[table.status] || "";
  const you = mine ? `You are ${mine.name}, seat ${mine.seat + 1}` : "You are the host";
  return h("li", { class: "held", "data-table": table.table_id },
    h("div", { class: "held__what" },
      h("div", { class: "held__head" },
        h("span", { class: "badge badge--game" }, table.title || table.game),
        h("strong", {}, standing),
        h("span", { class: "muted held__code" }, `table ${table.table_id}`)),
      h("span", {}, others.length ? [`${you}, with `, ...listed(others), "."] : `${you}.`)),
    h("a", {
      class: "btn btn--primary btn--small", href: table.url || `/t/${table.table_id}`,
      "aria-label": `Back to your ${table.title || table.game} table ${table.table_id}: ${standing}`,  // (one of several)
    }, "Back to the table"));
}

async function drawForm() {
  F.games = await loadGames();
  F.game = F.games[0];
  drawGamePicks();
  drawOtherGames();
  chooseGame(F.game);
  $("#create-form").dataset.ready = "1";
}

drawHero();
$("#name").value = savedName();
$("#seat-picks").addEventListener("change", onSeatPick);
$("#create-form").addEventListener("submit", onCreate);
$("#join-form").addEventListener("submit", onJoin);
drawForm();
drawYourTables();
