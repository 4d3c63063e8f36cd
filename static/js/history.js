// The history page: finished matches, newest first, searchable by player and
// table, a page at a time. The search lives in the address (?player=&table=&offset=).

import { $, h, fill, formatDate } from "./dom.js";
import { ApiError, getJSON } from "./api.js";
import { avatar, seatNames } from "./render.js";

const LIMIT = 20;

function readQuery() {
  const q = new URLSearchParams(location.search);
  return {
    player: q.get("player") || "",
    table: q.get("table") || "",
    offset: Math.max(0, Number.parseInt(q.get("offset") || "0", 10) || 0),
  };
}

function writeQuery(query, push) {
  const q = new URLSearchParams();
  if (query.player) q.set("player", query.player);
  if (query.table) q.set("table", query.table);
  if (query.offset) q.set("offset", String(query.offset));
  const url = `${location.pathname}${q.toString() ? `?${q}` : ""}`;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

async function load(query) {
  $("#player").value = query.player;
  $("#table").value = query.table;
  const q = new URLSearchParams({ limit: String(LIMIT), offset: String(query.offset) });
  if (query.player.trim()) q.set("player", query.player.trim());
  if (query.table.trim()) q.set("table", query.table.trim());
  const results = $("#results");
  results.setAttribute("aria-busy", "true");
  try {
    const page = await getJSON(`/api/matches?${q}`);
    show(page, query);
  } catch (e) {
    fill(results, h("p", { class: "error-text" }, e instanceof ApiError ? e.message : "Could not load the history."));
    $("#count").textContent = "";
    $("#pager").hidden = true;
  } finally {
    results.removeAttribute("aria-busy");
  }
}

function show(page, query) {
  const results = $("#results");
  const searching = query.player || query.table;
  if (!page.items.length) {
    fill(results, h("div", { class: "panel empty-state" },
      h("p", {}, searching ? "No finished match matches this search." : "No match has finished yet."),
      h("a", { class: "btn btn--primary", href: "/" }, "Start a table")));
  } else {
    fill(results, page.items.map(matchRow));
  }
  const first = page.total ? page.offset + 1 : 0;
  const last = page.offset + page.items.length;
  $("#count").textContent = page.total
    ? `${page.total} ${page.total === 1 ? "match" : "matches"}${searching ? " found" : ""}`
    : "";
  $("#page-info").textContent = page.total ? `${first}–${last} of ${page.total}` : "";
  $("#pager").hidden = page.total <= page.limit;
  $("#newer").disabled = page.offset === 0;
  $("#older").disabled = page.next_offset === null || page.next_offset === undefined;
  $("#older").onclick = () => go({ ...query, offset: page.next_offset });
  $("#newer").onclick = () => go({ ...query, offset: Math.max(0, page.offset - page.limit) });
}

function matchRow(m) {
  const names = seatNames(m.players);
  const players = m.players.map((p) => h("li", { class: ["player", p.seat === m.winner && "player--winner"] },
    avatar(p.name, p.seat),
    h("span", { class: "player__name" }, names[p.seat]),
    p.bot ? h("span", { class: "badge badge--bot" }, "Bot") : null,
    h("span", { class: "player__wins", title: "games won" }, String(m.game_wins[p.seat])),
    p.seat === m.winner ? h("span", { class: "badge badge--win" }, "Winner") : null));
  return h("a", { class: "panel match-row", href: `/matches/${m.id}`, "aria-label": `Match ${m.id}, won by ${names[m.winner]}` },
    h("div", { class: "match-row__meta" },
      h("span", { class: "match-row__id" }, `Match #${m.id}`),
      h("span", { class: "muted" }, formatDate(m.ended_at)),
      h("span", { class: "muted" }, `Table ${m.table_id}`)),
    h("ul", { class: "players" }, players));
}

function go(query) {
  writeQuery(query, true);
  load(query);
}

$("#search").addEventListener("submit", (e) => {
  e.preventDefault();
  go({ player: $("#player").value.trim(), table: $("#table").value.trim(), offset: 0 });
});
window.addEventListener("popstate", () => load(readQuery()));

const initial = readQuery();
writeQuery(initial, false);
load(initial);
