// The history page: finished matches of every game, newest first, searchable by game,
// players (several names: matches with all of them), table (a code or a pasted table
// link) and the days they ended, a page at a time. The search lives in the address
// (?game=&player=&table=&from=&to=&offset=).

import { $, h, fill, formatDate } from "./dom.js";
import { ApiError, getJSON, rememberHistory } from "./api.js";
import { alsoPlayed, avatar, botBadge, seatNames } from "./render.js";

const LIMIT = 20;
const FIELDS = ["game", "player", "table", "from", "to"];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

// A pasted table link becomes its code ("https://host/t/abc123" -> "abc123").
function tableCode(text) {
  const link = /\/t\/([^/?#\s]+)/.exec(text);
  return link ? decodeURIComponent(link[1]) : text.trim();
}

/** A day that is on the calendar ("2026-13-45" matches DAY but is none). */
function realDay(text) {
  const day = new Date(`${text}T00:00:00Z`);
  return DAY.test(text) && text >= "0001" && !Number.isNaN(day.getTime())
    && day.toISOString().slice(0, 10) === text;
}

/** Words with something to search by (not only spaces, zero-width or control characters),
 * cut to the length the server reads (in characters, as it counts). */
function searchText(text, max) {
  return /[^\s\p{C}]/u.test(text) ? Array.from(text).slice(0, max).join("") : "";
}

/** The search as the server takes it: what it would refuse (an odd hand-made or old link,
 * or a field of only invisible characters) is dropped, so a reader never meets a refusal
 * in the server's words, and the address is corrected to what was searched. */
function searchable(query) {
  return {
    game: /^[a-z][a-z0-9_]*$/.test(query.game) && query.game.length <= 32 ? query.game : "",
    player: searchText(query.player, 200),
    table: searchText(query.table, 300),
    from: realDay(query.from) ? query.from : "",
    to: realDay(query.to) ? query.to : "",
    offset: Math.min(2 ** 31 - 1, Math.max(0, Number.parseInt(query.offset, 10) || 0)),
  };
}

function readQuery() {
  const q = new URLSearchParams(location.search);
  return searchable({ ...Object.fromEntries(FIELDS.map((name) => [name, q.get(name) || ""])),
    offset: q.get("offset") || "0" });
}

function writeQuery(query, push) {
  const q = new URLSearchParams();
  for (const name of FIELDS) if (query[name]) q.set(name, query[name]);
  if (query.offset) q.set("offset", String(query.offset));
  const url = `${location.pathname}${q.toString() ? `?${q}` : ""}`;
  rememberHistory(q.toString() ? `?${q}` : "");
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

// The game filter offers the games that have finished matches (GET /api/matches/games),
// and one chosen in the address that has none yet, if the site hosts it (GET /api/games).
let gamesListed = null;
let gamesHosted = null;

/** Fill the game filter; false if the game chosen is none the site hosts ("?game=chess"). */
async function listGames(chosen) {
  const select = $("#game");
  if (!gamesListed) {
    gamesListed = getJSON("/api/matches/games").catch(() => []);
  }
  const listed = await gamesListed;
  const options = [h("option", { value: "" }, "All games"),
    ...listed.map((g) => h("option", { value: g.game }, g.game_title))];
  let known = !chosen || listed.some((g) => g.game === chosen);
  if (!known) {
    if (!gamesHosted) gamesHosted = getJSON("/api/games").catch(() => null);
    const hosted = await gamesHosted;
    const game = hosted && hosted.find((g) => g.name === chosen);
    // (Not known to be hosted when the list could not be read: kept as it was asked.)
    known = Boolean(game) || hosted === null;
    if (known) options.push(h("option", { value: chosen }, game ? game.title : chosen));
  }
  fill(select, options);
  select.value = known ? chosen : "";
  return known;
}

// Loads asked for so far: an answer that comes back after a later search's is dropped.
let loads = 0;

async function load(query) {
  const ticket = ++loads;
  // The fields first, before anything is awaited: a name typed while the page's first
  // load waits for the games list must not be written over by it.
  for (const name of FIELDS) if (name !== "game") $(`#${name}`).value = query[name];
  if (!(await listGames(query.game))) {
    if (ticket !== loads) return;  // (a later search has the address)
    query = { ...query, game: "" };  // no such game: every game, and the address says so
    writeQuery(query, false);
  }
  const q = new URLSearchParams({ limit: String(LIMIT), offset: String(query.offset) });
  for (const name of FIELDS) if (query[name].trim()) q.set(name, query[name].trim());
  // The days are the reader's, as the list's dates are (the server's default is UTC).
  if (query.from || query.to) q.set("tz", String(-new Date().getTimezoneOffset()));
  const results = $("#results");
  results.setAttribute("aria-busy", "true");
  let page = null;
  let failed = null;
  try {
    page = await getJSON(`/api/matches?${q}`);
  } catch (e) {
    failed = e;
  }
  if (ticket !== loads) return; // a later search answers (and clears the busy mark)
  results.removeAttribute("aria-busy");
  if (page) {
    show(page, query);
    return;
  }
  // (A refusal is of a search the page did not foresee: not said in the server's terms.)
  const why = !(failed instanceof ApiError) ? "Could not load the history."
    : failed.status === 422 ? "This search could not be read: change it, or clear it to see every match."
      : failed.message;
  fill(results, h("p", { class: "error-text" }, why));
  $("#count").textContent = "";
  $("#pager").hidden = true;
}

function show(page, query) {
  const results = $("#results");
  const searching = query.game || query.player || query.table || query.from || query.to;
  const pastTheEnd = !page.items.length && page.total > 0;
  const lastPage = Math.floor(Math.max(0, page.total - 1) / page.limit) * page.limit;
  if (pastTheEnd) {
    // An old link or a hand-made offset: say so, and offer the last page.
    fill(results, h("div", { class: "panel empty-state" },
      h("p", {}, "This page is past the last match."),
      h("button", { class: "btn btn--primary", type: "button", id: "last-page",
        onclick: () => go({ ...query, offset: lastPage }) }, "Go to the last page")));
  } else if (!page.items.length) {
    fill(results, h("div", { class: "panel empty-state" },
      h("p", {}, !searching ? "No match has finished yet."
        : query.from && query.to && query.from > query.to ? "The “From” day is after the “To” day: no day is in between."
          : "No finished match matches this search."),
      h("a", { class: "btn btn--primary", href: "/" }, "Start a table")));
  } else {
    fill(results, page.items.map(matchRow));
  }
  const first = page.offset + 1;
  const last = page.offset + page.items.length;
  $("#count").textContent = page.total
    ? `${page.total} ${page.total === 1 ? "match" : "matches"}${searching ? " found" : ""}`
    : "";
  $("#page-info").textContent = page.items.length ? `${first}–${last} of ${page.total}` : "";
  $("#pager").hidden = page.total <= page.limit && page.offset === 0;
  $("#newer").disabled = page.offset === 0;
  $("#older").disabled = page.next_offset === null || page.next_offset === undefined;
  $("#older").onclick = () => go({ ...query, offset: page.next_offset });
  $("#newer").onclick = () => go({ ...query, offset: pastTheEnd ? lastPage : Math.max(0, page.offset - page.limit) });
}

function matchRow(m) {
  const names = seatNames(m.players);
  const title = m.game_title || "Dingo";
  const players = m.players.map((p) => h("li", { class: ["player", p.seat === m.winner && "player--winner"] },
    avatar(p.name, p.seat),
    h("span", { class: "player__name" }, names[p.seat]),
    botBadge(p),
    h("span", { class: "player__wins", title: m.rule || null }, String(m.standing[p.seat])),
    p.seat === m.winner ? h("span", { class: "badge badge--win" }, "Winner") : null));
  const outcome = m.winner === null || m.winner === undefined ? "a draw" : `won by ${names[m.winner]}`;
  // The link's name is all a screen reader says of it: who played, and what each had.
  const unit = m.standing_unit || { one: "", other: "" };
  const standings = m.players.map((p) => {
    const n = m.standing[p.seat];
    return `${names[p.seat]} ${n}${unit.one ? ` ${n === 1 ? unit.one : unit.other}` : ""}`;
  }).join(", ");
  return h("a", { class: "panel match-row", href: `/matches/${m.id}`, dataset: { game: m.game || "dingo" },
    "aria-label": `${title} match ${m.id}, ${formatDate(m.ended_at)}, ${outcome}: ${standings}` },
    h("div", { class: "match-row__meta" },
      h("span", { class: "match-row__id" }, `Match #${m.id}`),
      h("span", { class: "badge badge--game" }, title),
      h("span", { class: "muted" }, formatDate(m.ended_at)),
      h("span", { class: "muted" }, `Table ${m.table_id}`),
      // What the players' numbers count, said once: the rows beside it have no room.
      h("span", { class: "muted match-row__unit" }, `Counted in ${m.standing_unit.other}`),
      m.winner === null || m.winner === undefined ? h("span", { class: "badge" }, "Draw") : null),
    h("ul", { class: "players" }, players),
    alsoPlayed(m));
}

function go(query) {
  writeQuery(query, true);
  load(query);
}

$("#search").addEventListener("submit", (e) => {
  e.preventDefault();
  go(searchable({ game: $("#game").value, player: $("#player").value.trim(),
    table: tableCode($("#table").value), from: $("#from").value, to: $("#to").value, offset: 0 }));
});
window.addEventListener("popstate", () => {
  rememberHistory(location.search);
  load(readQuery());
});

const initial = readQuery();
writeQuery(initial, false);
load(initial);
