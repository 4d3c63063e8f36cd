// The match page: which game, who played, and the score table of every game, with a
// replay link for each. Dingo has its own score table (dealer, points, tie-breaks);
// every other game is shown from the generic record: each game's winner and its result
// in the server's words (`say`), and the standing the match was decided on (`rule`).

import { $, h, fill, formatSpan, plural } from "./dom.js";
import { ApiError, getJSON, historyHref } from "./api.js";
import { cardName } from "./cards.js";
import { alsoPlayed, avatar, botBadge, heldBy, loadFailed, readerSeat, seatNames, youBadge } from "./render.js";
import { signed } from "./words.js";

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");

function optionsText(o) {
  const parts = [o.points_to_win ? `first to ${o.points_to_win} points` : `first to ${o.games_to_win} ${o.games_to_win === 1 ? "game" : "games"}`];
  if (o.open_discards) parts.push("open discards");
  if (o.turn_seconds) parts.push(`${o.turn_seconds} s turns`);
  return parts.join(" · ");
}

function render(m) {
  if (m.game && m.game !== "dingo") return renderGeneric(m);
  document.title = `Match #${m.id} · ${m.game_title || "Dingo"} · Dingo Online`;
  const names = seatNames(m.players);
  const name = (seat) => names[seat];
  const me = readerSeat(m.table_id, m.players);
  const head = h("div", { class: "page-head" },
    backLink(),
    h("h1", {}, `Match #${m.id}`),
    h("p", { class: "match-game" }, h("span", { class: "badge badge--game" }, m.game_title || "Dingo")),
    h("p", { class: "muted" },
      `Table ${m.table_id} · ${formatSpan(m.started_at, m.ended_at)} · ${optionsText(m.options || {})}`));

  const winner = h("div", { class: "panel winner-panel" },
    h("span", { class: "trophy", "aria-hidden": "true" }, "\u2605"),
    h("div", {},
      h("p", { class: "winner-panel__title" }, `${wonBy(m.winner, me, name)} the match`),
      h("p", { class: "muted" }, `${plural(m.game_wins[m.winner], "game")} won, ${signed(m.totals[m.winner])} ${Math.abs(m.totals[m.winner]) === 1 ? "point" : "points"} in all`)));

  const seats = [0, 1, 2, 3];
  // On a phone the columns show initials (names in the title and for screen
  // readers) and the legend above the table names everyone in full.
  const legend = h("ul", { class: "score-legend", "aria-hidden": "true" },
    seats.map((s) => h("li", {}, avatar(name(s), s), h("span", { class: "score-legend__name" }, name(s)),
      botBadge(m.players[s]), youBadge(s, me))));
  // On a phone the game column is headed "#" (its number is all it holds), a winner's star
  // is small, and "Replay" is a ▶: the four scores and the dealer keep the width.
  const headRow = h("tr", {}, h("th", {}, h("span", { class: "wide-only" }, "Game"), h("span", { class: "phone-only", "aria-hidden": "true" }, "#")),
    h("th", {}, "Dealer"),
    seats.map((s) => h("th", { class: "num", title: name(s) },
      h("span", { class: "th-player" }, avatar(name(s), s), h("span", { class: "th-player__name" }, name(s))),
      botBadge(m.players[s]), youBadge(s, me))),
    h("th", {}, h("span", { class: "sr-only" }, "Replay")));
  const rows = m.games.map((g) => h("tr", {},
    h("td", {}, String(g.number)),
    h("td", { class: "dealer", title: name(g.dealer) }, avatar(name(g.dealer), g.dealer), h("span", { class: "dealer__name" }, name(g.dealer))),
    g.scores.map((sc, s) => h("td", { class: ["num", g.winner === s && "win"] }, signed(sc),
      g.winner === s ? h("span", { class: "win-star" }, " \u2605") : null)),
    h("td", {}, h("a", { class: "btn btn--small replay-btn", href: `/matches/${m.id}/games/${g.number}`, "aria-label": `Replay game ${g.number}` },
      h("span", { class: "wide-only" }, "Replay"), h("span", { class: "phone-only", "aria-hidden": "true" }, "\u25B6\uFE0E")),
      g.winner === null ? h("span", { class: "muted note" }, " draw")
        : g.tie_break && g.tie_break !== "draw" ? h("span", { class: "muted note" }, " tie broken by ", cardName(g.tie_break)) : null)));
  const foot = [
    h("tr", { class: "total" }, h("td", { colspan: "2" }, "Games won"), seats.map((s) => h("td", { class: ["num", s === m.winner && "win"] }, String(m.game_wins[s]))), h("td")),
    h("tr", { class: "total total--points" }, h("td", { colspan: "2" }, "Points"), seats.map((s) => h("td", { class: "num" }, signed(m.totals[s]))), h("td")),
  ];
  const table = h("section", { class: "panel" },
    h("h2", {}, "Score table"),
    legend,
    h("div", { class: "table-scroll" },
      h("table", { class: "grid-table score-table", id: "score-table" }, h("thead", {}, headRow), h("tbody", {}, rows), h("tfoot", {}, foot))),
    alsoPlayed(m));

  fill($("#match"), head, winner, table, seatChanges(m, name), advicePanel(m));
}

/** Who played a seat in a game when it was not its last holder all along: "Game 1, seat 2
 * (Bruno at the end): Bob, then Bruno (bot) from step 9". Nothing when no seat changed
 * hands. (The seat's column is headed by who held it at the end of the match.) */
function seatChanges(m, name) {
  const lines = m.games.flatMap((g) => g.holders.map((turns, seat) => {
    const last = m.players[seat];
    if (turns.length === 1 && turns[0].name === last.name && turns[0].bot === last.bot) return null;
    const who = turns.map((t, i) => (i ? `${heldBy(t)} from step ${t.since + 1}` : heldBy(t))).join(", then ");
    return h("li", { dataset: { game: String(g.number), seat: String(seat) } }, `Game ${g.number}, seat ${seat + 1} (${name(seat)} at the end): ${who}`);
  })).filter(Boolean);
  if (!lines.length) return null;
  return h("section", { class: "panel", id: "seat-changes" },
    h("h2", {}, "Seats that changed hands"),
    h("p", { class: "muted" }, "A player left, or the host gave a seat to someone else; each game's points count for its seat."),
    h("ul", { class: "seat-changes" }, lines));
}

/** The advice after each game (worked out by the server once the match was over): each
 * person's mistakes per game, with a link to the replay that shows them. */
function advicePanel(m) {
  // Per game, the people who played it (by the name they played under: a bot may have
  // taken their seat later).
  const peopleOf = (g) => g.holders.map((turns, seat) => ({ seat, person: turns.find((t) => !t.bot) }))
    .filter((p) => p.person);
  const games = m.games.filter((g) => g.advice !== "none" && peopleOf(g).length);
  if (!games.length) return null;
  const rows = games.map((g) => h("li", { dataset: { game: String(g.number) } },
    h("a", { href: `/matches/${m.id}/games/${g.number}` }, `Game ${g.number}`), ": ",
    g.advice === "ready"
      ? peopleOf(g).map(({ seat, person }) => `${personName(m, seat, person)} ${plural(g.mistakes[seat], "mistake")}`).join(" · ")
      : h("span", { class: "muted" }, "being worked out…")));
  return h("section", { class: "panel advice-panel", id: "advice" },
    h("h2", {}, "Advice after the game"),
    h("p", { class: "muted" }, "For every choice a player made, the replay says what the best choice would have been worth, given what that player knew then and with every card known. A mistake lost at least one point by the first measure."),
    h("ul", { class: "advice-list" }, rows));
}

/** A person who played a game: as the score table names the seat if they held it at the
 * end ("Ann 2" where two share a name), else by their own name. */
function personName(m, seat, person) {
  const last = m.players[seat];
  return !last.bot && last.name === person.name ? seatNames(m.players)[seat] : person.name;
}

/** "Ann won", or "You won" to the one who played that seat (see readerSeat). */
const wonBy = (seat, me, name) => (me !== null && seat === me ? "You won" : `${name(seat)} won`);

/** A match of any game but Dingo: players, standing, and each game's winner and result. */
function renderGeneric(m) {
  document.title = `Match #${m.id} · ${m.game_title} · Dingo Online`;
  const names = seatNames(m.players);
  const name = (seat) => names[seat];
  const me = readerSeat(m.table_id, m.players);
  const seats = m.players.map((p) => p.seat);
  // What a seat's number counts, in words: "7 game points".
  const standingOf = (s) => plural(m.standing[s], m.standing_unit.one, m.standing_unit.other);
  // A game's result in the server's words; a result without them shows its per-seat
  // numbers (Divide and Conquer: battles won), named by their key.
  const resultText = (g) => {
    if (g.say) return g.say;
    const perSeat = Object.entries(g.result || {}).filter(([, v]) => Array.isArray(v)
      && v.length === seats.length && v.every((x) => typeof x === "number"));
    return perSeat.map(([key, v]) => `${key.replace(/_/g, " ")}: ${seats.map((s) => `${name(s)} ${v[s]}`).join(" · ")}`).join("; ");
  };
  const head = h("div", { class: "page-head" },
    backLink(),
    h("h1", {}, `Match #${m.id}`),
    h("p", { class: "match-game" }, h("span", { class: "badge badge--game" }, m.game_title)),
    h("p", { class: "muted" },
      `Table ${m.table_id} · ${formatSpan(m.started_at, m.ended_at)}`));

  const drawn = m.winner === null || m.winner === undefined;
  const winner = h("div", { class: "panel winner-panel" },
    h("span", { class: "trophy", "aria-hidden": "true" }, drawn ? "=" : "\u2605"),
    h("div", {},
      h("p", { class: "winner-panel__title" }, drawn ? "The match is a draw" : `${wonBy(m.winner, me, name)} the match`),
      h("p", { class: "muted", id: "standing-line" },
        seats.map((s) => `${name(s)} ${standingOf(s)}`).join(" · ")),
      m.rule ? h("p", { class: "muted match-rule", id: "match-rule" }, `Rule: ${m.rule}`) : null));

  const headRow = h("tr", {}, h("th", {}, "Game"), h("th", {}, "Winner"), h("th", {}, "Result"),
    h("th", {}, h("span", { class: "sr-only" }, "Replay")));
  const rows = m.games.map((g) => h("tr", { dataset: { game: String(g.number) } },
    h("td", {}, String(g.number)),
    h("td", { class: ["game-winner", g.winner !== null && "win"] },
      g.winner === null ? h("span", { class: "muted" }, "draw")
        : [avatar(name(g.winner), g.winner), h("span", { class: "game-winner__name" }, name(g.winner))]),
    h("td", { class: "game-say" }, resultText(g)),
    h("td", {}, h("a", { class: "btn btn--small", href: `/matches/${m.id}/games/${g.number}` }, "Replay"))));
  const foot = h("tr", { class: "total" }, h("td", { colspan: "4" },
    h("span", {}, "Standing: "),
    seats.map((s) => h("span", { class: ["standing", s === m.winner && "win"] },
      avatar(name(s), s), ` ${name(s)} ${standingOf(s)}`))));
  const players = h("ul", { class: "players players--match" },
    m.players.map((p) => h("li", { class: ["player", p.seat === m.winner && "player--winner"] },
      avatar(p.name, p.seat), h("span", { class: "player__name" }, name(p.seat)),
      botBadge(p), youBadge(p.seat, me),
      h("span", { class: "player__wins", title: m.rule || "" }, String(m.standing[p.seat])))));
  const table = h("section", { class: "panel" },
    h("h2", {}, "Games"),
    h("div", { class: "table-scroll" },
      h("table", { class: "grid-table score-table game-table", id: "score-table" }, h("thead", {}, headRow), h("tbody", {}, rows), h("tfoot", {}, foot))));
  fill($("#match"), head, winner, h("section", { class: "panel" }, h("h2", {}, "Players"), players, alsoPlayed(m)),
    table, seatChanges(m, name));
}

/** Back to the history as this tab last searched it, and said so. */
function backLink() {
  const href = historyHref();
  return h("a", { class: "back-link", href }, href === "/history" ? "\u2190 All matches" : "\u2190 Back to your search");
}

/** While the advice on some game is being worked out, look again now and then. */
const ADVICE_POLL_MS = 10000;

/** ``again``: a look for the advice, over a match already shown (if it fails, the page
 * stays as it is and looks again later). */
async function main({ again = false } = {}) {
  try {
    const m = await getJSON(`/api/matches/${encodeURIComponent(matchId)}`);
    render(m);
    if ((m.games || []).some((g) => g.advice === "pending")) setTimeout(() => main({ again: true }), ADVICE_POLL_MS);
  } catch (e) {
    // (A look for advice that fails for a moment keeps the page; one for a match gone, not.)
    if (again && !(e instanceof ApiError && e.status === 404)) setTimeout(() => main({ again: true }), ADVICE_POLL_MS);
    else fill($("#match"), loadFailed(e, "match", "There is no finished match with this number."));
  }
}

main();
