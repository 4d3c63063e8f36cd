"""The Divide and Conquer client module (static/js/games/divide/) in Chromium.

Real engine views (tests/browser/divide_views.py) drawn by the module in a page laid out
like the table frame (its CSS, its felt, tray, seat plates, scoreboard box and results
panel), at 1280 and 390 pixels: what is drawn for each seat and for a spectator, the
commits offered and sent, and that the other side's face-down card changes nothing on
the page. Screenshots go to test-artifacts/divide-*.png.
"""

from __future__ import annotations

import contextlib
import mimetypes
import random
import re
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import (
    CUT,
    DESKTOP,
    PHONE,
    ROOT,
    WORDS_BROKEN,
    assert_no_horizontal_overflow,
    shot,
)
from .divide_views import scenarios

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

ORIGIN = "http://divide.harness"

#: A page shaped like the table frame (static/table.html): the felt with the other seat's
#: plate on top, the board in the centre, the tray with this seat's plate, the prompt and
#: the hand, the side column's scoreboard, and the results panel over the felt.
HARNESS = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/css/base.css">
<link rel="stylesheet" href="/static/css/cards.css">
<link rel="stylesheet" href="/static/css/table.css">
<link rel="stylesheet" href="/static/js/games/divide/divide.css">
</head>
<body class="table-page">
<main class="table-layout">
  <section class="play-area">
    <div class="felt felt--two" id="felt">
      <div class="pos pos--top" id="pos-top"></div>
      <div class="pos pos--left"></div><div class="pos pos--right"></div>
      <div class="center" id="center"></div>
      <div class="felt-overlay" id="overlay" hidden></div>
    </div>
    <div class="tray" id="tray">
      <div class="pos pos--bottom" id="pos-bottom"></div>
      <div class="tray__now"><p class="prompt" id="prompt"></p><div class="actions" id="actions">
      </div></div>
      <div class="hand" id="hand"></div>
    </div>
  </section>
  <aside class="side">
    <section class="side-card"><h2>Scoreboard</h2>
      <p class="side-note" id="rule"></p><div class="scoreboard" id="scoreboard"></div></section>
  </aside>
</main>
<script type="module">
import game from "/static/js/games/divide/index.js";
import { h, fill } from "/static/js/dom.js";
import { secondPerson } from "/static/js/words.js";
const NAMES = ["Charlotte Montgomery", "Bruno"];
window.acts = [];
window.flashes = [];
window.show = (sc, { busy = false, results = true, events = [] } = {}) => {
  const seat = sc.seat;
  const name = (s) => (s === seat ? "You" : NAMES[s]);
  const say = (t) => t.replace(/\\{(\\d)\\}/g, (_, s) => NAMES[Number(s)]);
  const ctx = {
    seat, reader: seat, seats: 2, name, plainName: (s) => NAMES[s], say, busy,
    sayYou: (t) => say(secondPerson(t, seat)),
    act: (a) => window.acts.push(a),
    myTurn: seat !== null && sc.view.to_act.includes(seat) && sc.view.legal.length > 0,
    status: sc.status,
    position: (s) => (s === (seat === null ? 0 : seat) ? "bottom" : "top"),
    view: sc.view, match: sc.match, options: sc.view.options,
    flash: (text, opts) => window.flashes.push([text, opts]),
  };
  // the frame's seat plates, with the module's plate() parts
  const over = sc.status !== "playing";
  const slots = {};
  for (const s of [0, 1]) {
    const plate = game.plate(s, sc.view, ctx) || {};
    const turn = sc.view.to_act.includes(s) && !over;
    slots[s] = h("div", { class: "seat__game" });
    fill(document.getElementById(`pos-${ctx.position(s)}`),
      h("div", { class: ["seat", "seat--human", turn && "seat--turn", s === seat && "seat--me"],
                 dataset: { seat: String(s) } },
        h("div", { class: "seat__head" }, h("span", { class: `avatar avatar--${s}` }, NAMES[s][0]),
          h("span", { class: "seat__name" }, NAMES[s]),
          plate.score ? h("span", { class: "seat__points", title: plate.score.title },
                          plate.score.text) : null),
        h("div", { class: "seat__meta" },
          s === seat ? h("span", { class: "badge badge--you" }, "You") : null,
          (plate.badges || []).map((b) => h("span", { class: ["badge", `badge--${b.kind}`],
                                                       title: b.title }, b.text)),
          turn ? h("span", { class: "timer" }, s === seat ? "your turn" : plate.turn) : null),
        slots[s]));
  }
  const center = document.getElementById("center");
  fill(center);
  const prompt = document.getElementById("prompt");
  prompt.textContent = say(sc.view.prompt);
  prompt.className = ctx.myTurn ? "prompt prompt--act" : "prompt";
  const hand = document.getElementById("hand");
  fill(hand);
  hand.className = ["hand", !ctx.myTurn && "hand--waiting", busy && "hand--busy"]
    .filter(Boolean).join(" ");
  game.render(sc.view, ctx, { board: center, hand, actions: document.getElementById("actions"),
                              below: h("div"), seats: slots, side: h("div") });
  if (events.length) game.onEvents(events, ctx);
  document.getElementById("rule").textContent = sc.match.rule;
  fill(document.getElementById("scoreboard"), game.scoreboard(sc.match, ctx));
  const overlay = document.getElementById("overlay");
  const body = over && results ? game.results(sc.view, null, ctx) : null;
  overlay.hidden = !body;
  fill(overlay, body ? h("div", { class: "center-panel", id: "results" },
    h("h2", { id: "headline" }, game.headline(sc.view, ctx)), body) : null);
};
window.ready = true;
</script>
</body></html>
"""


@pytest.fixture(scope="module")
def views() -> dict[str, Any]:
    return scenarios()


def _serve(route: Route) -> None:
    path = route.request.url[len(ORIGIN):].split("?")[0]
    if path == "/harness.html":
        route.fulfill(status=200, content_type="text/html", body=HARNESS)
        return
    file = (ROOT / path.lstrip("/")).resolve()
    inside = path.startswith("/static/") and file.is_relative_to(ROOT / "static")
    if not inside or not file.is_file():
        route.fulfill(status=404, body="not found")
        return
    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    if file.suffix == ".js":
        kind = "text/javascript"
    route.fulfill(status=200, content_type=kind, body=file.read_bytes())


@pytest.fixture
def harness(open_page: Callable[..., Page]) -> Iterator[Callable[..., Page]]:
    """harness(viewport) -> a page with the module loaded; ``draw(page, scenario)`` paints."""

    def make(viewport: dict[str, int] | None = None) -> Page:
        page = open_page(viewport or DESKTOP)
        page.route(f"{ORIGIN}/**", _serve)
        page.goto(f"{ORIGIN}/harness.html")
        page.wait_for_function("window.ready === true")
        return page

    yield make


def draw(page: Page, scenario: dict[str, Any], **opts: Any) -> None:
    page.evaluate("([sc, opts]) => window.show(sc, opts)", [scenario, opts])


def board_html(page: Page) -> str:
    return str(page.inner_html("#center")) + str(page.inner_html("#pos-top")) + str(
        page.inner_html("#pos-bottom"))


def test_every_view_fits_both_sizes(harness: Callable[..., Page], views: dict[str, Any]) -> None:
    """Every scenario draws without a sideways scroll at 390 and 1280 pixels; shots of each."""
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = harness(viewport)
        for name, scenario in views.items():
            draw(page, scenario)
            assert page.locator("#dc-board").count() == 1, name
            assert_no_horizontal_overflow(page)
            # nothing on the felt sticks out of it
            sticking = page.evaluate("""() => {
              const felt = document.querySelector('#felt').getBoundingClientRect();
              return [...document.querySelectorAll('#center *')].filter(e => {
                const r = e.getBoundingClientRect();
                return r.width && (r.left < felt.left - 1 || r.right > felt.right + 1);
              }).map(e => e.className);
            }""")
            assert not sticking, f"{name} ({label}): {sticking}"
            shot(page, f"divide-{label}-{name}")


def test_the_other_sides_face_down_card_changes_nothing(harness: Callable[..., Page],
                                                         views: dict[str, Any]) -> None:
    """Seat 1 has committed and seat 0 has not: seat 0's page (and a spectator's) is the same
    whichever of seat 1's cards is face down, and the face-down card is a back with no value."""
    scenario = views["they_committed"]
    page = harness(DESKTOP)
    pages: dict[str, set[str]] = {"seat": set(), "spectator": set()}
    for alt in scenario["alternatives"]:
        draw(page, {**scenario, "view": alt["view"]})
        pages["seat"].add(board_html(page))
        draw(page, {**scenario, "view": alt["spectator"], "seat": None})
        pages["spectator"].add(board_html(page))
    assert len(scenario["alternatives"]) == 3
    assert len(pages["seat"]) == 1 and len(pages["spectator"]) == 1

    draw(page, scenario)
    slot = page.locator('.dc-slot[data-seat="1"]')
    assert slot.get_attribute("data-committed") == "true"
    assert slot.locator(".card--back").count() == 1
    assert slot.locator("[data-card]").count() == 0
    assert "has committed" in slot.inner_text()
    # Seat 1's unshown cards are all drawn face up, none marked: the face-down one included.
    theirs = page.eval_on_selector_all('.dc-hand[data-seat="1"] [data-card]',
                                       "els => els.map(e => e.dataset.card)")
    assert theirs == scenario["view"]["board"]["seats"][1]["cards"]
    classes = page.eval_on_selector_all('.dc-hand[data-seat="1"] [data-card]',
                                        "els => els.map(e => e.className)")
    # (the queen's and red cards' printed value aside, every card is drawn alike)
    marks = {c.replace(" dc-card--valued", "").replace(" card--red", "") for c in classes}
    assert len(marks) == 1, classes
    # Their plate says their card is down; it names no card.
    plate = page.inner_text('.seat[data-seat="1"]')
    assert "card down" in plate and "choosing" not in plate
    assert "your turn" in page.inner_text('.seat[data-seat="0"]')
    # The owner sees its own card face up in its slot.
    owner = views["they_committed_owner"]
    draw(page, owner)
    mine = page.locator('.dc-slot[data-seat="1"] [data-card]')
    assert mine.get_attribute("data-card") == owner["view"]["board"]["commitment"]
    assert page.locator('.dc-slot[data-seat="0"] .card--back').count() == 0
    shot(page, "divide-desktop-owner-sees-its-card")


def test_commits_offered_and_sent(harness: Callable[..., Page], views: dict[str, Any]) -> None:
    """The hand's legal commits are `move card--legal` buttons; a click sends the view's
    action unchanged; while busy they are aria-disabled and a click sends nothing."""
    page = harness(PHONE)
    scenario = views["they_committed"]
    draw(page, scenario)
    legal = [a["card"] for a in scenario["view"]["legal"]]
    offered = page.eval_on_selector_all("#hand button.move.card--legal",
                                        "els => els.map(e => e.dataset.card)")
    assert offered == legal == scenario["view"]["board"]["hand"]
    assert page.locator("#hand button[aria-disabled]").count() == 0
    page.click(f'#hand button[data-card="{legal[1]}"]')
    assert page.evaluate("window.acts") == [scenario["view"]["legal"][1]]

    draw(page, scenario, busy=True)
    disabled = page.eval_on_selector_all("#hand button.card--legal",
                                         "els => els.map(e => e.getAttribute('aria-disabled'))")
    assert disabled == ["true"] * len(legal)
    # (aria-disabled: Playwright would wait for it to be enabled; click it as a person can)
    page.click(f'#hand button[data-card="{legal[0]}"]', force=True)
    assert len(page.evaluate("window.acts")) == 1
    shot(page, "divide-phone-busy")

    # After committing: the card is face up in this seat's slot, the rest of the hand is
    # there but not offered, and the other side is choosing.
    mine = views["i_committed"]
    draw(page, mine)
    assert page.locator("#hand .move").count() == 0
    assert page.eval_on_selector_all("#hand button", "els => els.map(e => e.dataset.card)") == \
        mine["view"]["board"]["hand"]
    assert page.get_attribute('.dc-slot[data-seat="0"] [data-card]', "data-card") == \
        mine["view"]["board"]["commitment"]
    assert "choosing" in page.inner_text('.dc-slot[data-seat="1"]')
    assert "You committed the" in page.inner_text("#dc-tray")
    # The other seat, at the same moment, sees only a back where seat 0's card is.
    draw(page, views["i_committed_other"])
    assert page.locator('.dc-slot[data-seat="0"] .card--back').count() == 1
    assert page.locator('.dc-slot[data-seat="0"] [data-card]').count() == 0
    # A spectator has no hand and sees both unshown hands.
    draw(page, views["they_committed_spectator"])
    assert page.locator("#hand *").count() == 0
    assert page.locator(".dc-hand").count() == 2


def test_a_revealed_battle_is_flashed(harness: Callable[..., Page], views: dict[str, Any]) -> None:
    """The second commit's events: the battle fought goes to the frame's strip, with the
    server's reason, good news or bad for this seat."""
    page = harness(DESKTOP)
    scenario = views["revealed"]
    battle = next(e for e in scenario["events"] if e["type"] == "battle")
    draw(page, scenario, events=scenario["events"])
    [[text, opts]] = page.evaluate("window.flashes")
    assert text.startswith(f"Battle {battle['number']}: ") and battle["why"] in text
    assert opts["tone"] == ("good" if battle["winner"] == 0 else "bad")
    assert text.endswith("you win." if battle["winner"] == 0 else "Bruno wins.")


def test_battles_swap_and_wins(harness: Callable[..., Page], views: dict[str, Any]) -> None:
    """The track shows every battle fought with both cards and the server's winner and why,
    the change of hands, the battle being fought, and the battles won per seat."""
    page = harness(DESKTOP)
    scenario = views["half_two"]
    board = scenario["view"]["board"]
    draw(page, scenario)
    fought = page.eval_on_selector_all(
        ".dc-battle[data-winner]",
        "els => els.map(e => [Number(e.dataset.number), Number(e.dataset.winner),"
        " e.getAttribute('aria-label')])")
    assert [(n, w) for n, w, _ in fought] == [(b["number"], b["winner"]) for b in board["battles"]]
    for (_, _, label), battle in zip(fought, board["battles"], strict=True):
        assert battle["why"] in label
    assert page.locator(".dc-battle--todo").count() == 10 - len(board["battles"])
    assert page.get_attribute(".dc-battle--now", "data-number") == str(board["battle"])
    assert "Hands changed after battle 5" in page.inner_text("#dc-swap")
    assert page.locator('.dc-half--now[data-half="2"]').count() == 1
    tally = page.get_attribute("#dc-tally", "aria-label")
    assert tally == (f"Battles won: You {board['seats'][1]['wins']}, "
                     f"Charlotte Montgomery {board['seats'][0]['wins']}")
    assert f"half 2 of 2 · battle {board['battle']} of 10" in page.inner_text("#dc-where")

    draw(page, views["start"])
    assert "Hands change after battle 5" in page.inner_text("#dc-swap")
    assert page.locator(".dc-battle[data-winner]").count() == 0

    long = views["long_game"]
    draw(page, long)
    assert page.locator(".dc-battle[data-number]").count() == 14
    assert "Hands change after battle 7" in page.inner_text("#dc-swap")


def test_results_and_scoreboard(harness: Callable[..., Page], views: dict[str, Any]) -> None:
    """After a game: every battle revealed with its winner and why, the result line from the
    view's result, the match so far; the scoreboard has one row per finished game."""
    for viewport, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = harness(viewport)
        scenario = views["game_over"]
        board = scenario["view"]["board"]
        draw(page, scenario)
        page.wait_for_selector("#dc-results")
        rows = page.locator("#dc-results tbody tr[data-number]")
        assert rows.count() == 10
        assert "the hands changed" in page.text_content('#dc-results [data-half="2"] caption')
        line = page.inner_text("#headline")
        w = board["result"]["wins"]
        winner = board["result"]["winner"]
        if winner is None:
            assert line == f"Game 1: a draw, {w[0]} battles each"
        else:
            who = "You win" if winner == 0 else "Bruno wins"
            assert line == f"Game 1: {who}, {w[winner]} battles to {w[1 - winner]}"
        for i, battle in enumerate(board["battles"]):
            assert battle["why"] in rows.nth(i).inner_text()
        assert_no_horizontal_overflow(page)
        shot(page, f"divide-{label}-results")

        # Someone watching reads both names over the battles' cards whole: "Charlotte
        # Montgomery" on two lines, not cut to "Char…" or split inside a word; so does the
        # scoreboard's head.
        draw(page, views["game_over_spectator"])
        heads = page.eval_on_selector_all(
            "#dc-results .name-head",
            "els => els.map(e => [e.textContent, e.scrollHeight <= e.clientHeight + 1])")
        assert heads == [["Charlotte Montgomery", True], ["Bruno", True]] * 2, heads
        heads = page.eval_on_selector_all(
            "#scoreboard .name-head",
            "els => els.map(e => [e.textContent, e.scrollHeight <= e.clientHeight + 1])")
        assert heads == [["Charlotte Montgomery", True], ["Bruno", True]], heads
        assert page.evaluate(WORDS_BROKEN, "#dc-results .name-head") == []
        assert page.evaluate(WORDS_BROKEN, "#scoreboard .name-head") == []
        assert page.evaluate(CUT) == []
        assert_no_horizontal_overflow(page)
        shot(page, f"divide-{label}-results-spectator")

        final = views["match_over"]
        draw(page, final)
        table = page.eval_on_selector_all(
            ".dc-scoreboard tbody tr",
            "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
        games = final["match"]["games"]
        assert len(table) == len(games) + 1
        assert table[-1] == ["Games won", *map(str, final["match"]["game_wins"])]
        for row, game in zip(table[:-1], games, strict=True):
            assert row[1:] == [str(game["wins"][0]), str(game["wins"][1])]
        foot = page.inner_text(".dc-scoreboard__foot")
        assert f"first to {final['match']['target_wins']} games wins" in foot
        draws = final["match"]["draws"]
        # Drawn games are counted once there are some ("0 drawn games" said nothing).
        assert ("drawn game" in foot) == (draws > 0), foot
        if draws:
            assert foot.startswith(f"{draws} drawn game")
        shot(page, f"divide-{label}-match-over")



# ---- whole matches on the real table page ------------------------------------------------

LIVE_SECONDS = 180.0
#: The lines the table page's log keeps (LOG_LIMIT in static/js/table/log.js).
LOG_LIMIT = 300
MOVES = "#hand button.move.card--legal:not([aria-disabled])"

#: What the page shows while the other seat's card is face down and this seat's is not:
#: the other slot (a back, and whether anything in it names a card), the other side's
#: unshown cards as drawn, each element's look with the card's identity taken out (its
#: code, name, label, and the printed value of a queen or red card), and the log's lines.
SECRET_LOOK = """(mine) => {
  const other = 1 - mine;
  const slot = document.querySelector(`.dc-slot[data-seat="${other}"]`);
  const cards = [...document.querySelectorAll(`.dc-hand[data-seat="${other}"] [data-card]`)];
  const look = (el) => {
    const c = el.cloneNode(true);
    c.removeAttribute('data-card'); c.removeAttribute('aria-label'); c.removeAttribute('title');
    c.classList.remove('card--red', 'dc-card--valued');
    for (const t of c.querySelectorAll('.dc-card__value')) t.remove();
    for (const t of c.querySelectorAll('.card__rank, .dc-card__big')) t.textContent = '';
    return c.outerHTML;
  };
  return {
    down: slot && slot.dataset.committed === 'true',
    mineDown: document.querySelector(`.dc-slot[data-seat="${mine}"]`).dataset.committed === 'true',
    back: Boolean(slot && slot.querySelector('.card--back')),
    named: slot ? slot.querySelectorAll('[data-card], .dc-card').length : -1,
    cards: cards.map(e => e.dataset.card),
    looks: [...new Set(cards.map(look))].length,
    battle: Number(document.querySelector('.dc-battle--now').dataset.number),
    game: Number(document.querySelector('#dc-where').textContent.match(/Game (\\d+)/)[1]),
    log: [...document.querySelectorAll('#log li')].map(li => li.textContent),
  };
}"""


#: Watches the page for the whole match: every time a face-down slot of a seat in ``seats``
#: holds anything that names a card (``window.slotLeaks``), and how often slots were seen
#: face down (``window.slotsDown``).
WATCH_SLOTS = """(seats) => {
  window.slotLeaks = []; window.slotsDown = 0;
  const look = () => {
    for (const s of seats) {
      const slot = document.querySelector(`.dc-slot[data-seat="${s}"]`);
      if (!slot || slot.dataset.committed !== 'true') continue;
      window.slotsDown += 1;
      const named = slot.querySelector('[data-card], .dc-card');
      if (named) window.slotLeaks.push(named.outerHTML);
    }
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true});
}"""


def _open_divide_table(page: Page, base: str, name: str, options: dict[str, Any],
                       bot: str = "equilibrium") -> str:
    """A Divide and Conquer table opened through the API with a bot in seat 1; this page is
    its host, sits down by itself (as the home page's create does) and starts the match."""
    page.goto(f"{base}/")
    table_id: str = page.evaluate(
        """async ([name, options, bot]) => {
          const res = await fetch('/api/tables', {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({game: 'divide', options, bots: [{seat: 1, kind: bot}]})});
          if (!res.ok) throw new Error(`create: ${res.status} ${await res.text()}`);
          const t = await res.json();
          localStorage.setItem('dingo.table.' + t.table_id,
            JSON.stringify({host_token: t.host_token, name, autosit: true}));
          localStorage.setItem('dingo.name', name);
          return t.table_id;
        }""", [name, options, bot])
    page.goto(f"{base}/t/{table_id}")
    page.wait_for_selector(".seat--me")
    page.wait_for_selector("#start-btn:not([disabled])")
    page.click("#start-btn")
    page.wait_for_selector("#dc-board")
    return table_id


def _record_of(page: Page, base: str, table_id: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        """async ([base, id]) => {
          const list = await (await fetch(`${base}/api/matches?table=${id}&game=divide`)).json();
          const item = (list.items || list.matches || list)[0];
          return await (await fetch(`${base}/api/matches/${item.id}`)).json();
        }""", [base, table_id])
    return found


def _play(page: Page, *, until: str, seconds: float,
          on_secret: Callable[[dict[str, Any]], None] | None = None,
          on_move: Callable[[int], bool | None] | None = None) -> int:
    """Click legal commits (first the other side's card is waited for, and what the page
    shows of it looked at) until ``until`` is on the page; the number of commits.
    ``on_move(moves)`` looks before each commit; True when it made the commit itself."""
    deadline = time.monotonic() + seconds
    mine = int(page.get_attribute(".seat--me", "data-seat") or 0)
    moves = 0
    rng = random.Random(5)
    while not page.locator(until).count():
        assert time.monotonic() < deadline, f"{until} did not come in time"
        if page.locator("#ready-btn:not([disabled])").count():
            with contextlib.suppress(Exception):
                page.click("#ready-btn:not([disabled])", timeout=2_000)
            continue
        legal = page.locator(MOVES)
        if not legal.count():
            page.wait_for_timeout(40)
            continue
        # The bot commits within moments: wait for its card to be down, then look.
        with contextlib.suppress(Exception):
            page.wait_for_selector(f'.dc-slot[data-seat="{1 - mine}"][data-committed="true"]',
                                   timeout=3_000)
        look = page.evaluate(SECRET_LOOK, mine)
        if look["down"] and not look["mineDown"] and on_secret:
            on_secret(look)
        if on_move and on_move(moves):
            moves += 1
            page.wait_for_selector("#hand:not(.hand--busy)")
            continue
        legal = page.locator(MOVES)
        if not legal.count():
            continue
        legal.nth(rng.randrange(legal.count())).click()
        moves += 1
        page.wait_for_selector("#hand:not(.hand--busy)")
    return moves


def test_a_whole_divide_match_by_clicking(open_page: Callable[..., Page], server: str) -> None:
    """A match against the equilibrium bot, every commit a click on a legal card. Whenever
    the bot's card is face down and ours is not, the page shows a back in its slot, names
    no card there, draws all the bot's unshown cards alike (the face-down one among them,
    which the record confirms), and the log never says which card it committed."""
    page = open_page(DESKTOP)
    table_id = _open_divide_table(page, server, "Ann", {"target_wins": 2})
    mine = int(page.get_attribute(".seat--me", "data-seat") or 0)
    assert mine == 0
    shot(page, "divide-live-start-desktop")
    # The hand is on the first screen of a desktop too. (Asked of the page in one go: the
    # bot's first commit may redraw the hand between finding a card and measuring it.)
    page.wait_for_function("""(height) => {
      const card = [...document.querySelectorAll('#hand [data-card]')].pop();
      return card && card.getBoundingClientRect().bottom <= height;
    }""", arg=DESKTOP["height"])
    page.evaluate(WATCH_SLOTS, [1])
    # Someone watching: never a face-down card's value, for either seat.
    watcher = open_page(DESKTOP)
    watcher.goto(f"{server}/t/{table_id}")
    watcher.wait_for_selector("#dc-board")
    assert watcher.locator("#hand [data-card]").count() == 0
    watcher.evaluate(WATCH_SLOTS, [0, 1])
    secrets: list[dict[str, Any]] = []

    def on_secret(look: dict[str, Any]) -> None:
        assert look["back"], look
        assert look["named"] == 0, look
        assert look["looks"] == 1, look
        for line in look["log"]:
            # Only our own commitment names its card: "You have committed the 9."
            assert "committed the" not in line or line.startswith("You have committed the "), line
        assert_no_horizontal_overflow(page)
        if not secrets:
            shot(page, "divide-live-bot-committed-desktop")
            shot(watcher, "divide-live-spectator-desktop")
        if look["battle"] == 7 and not any(s["battle"] == 7 for s in secrets):
            shot(page, "divide-live-half-two-desktop")
        secrets.append(look)

    moves = _play(page, until="#rematch-btn", seconds=LIVE_SECONDS, on_secret=on_secret)
    assert moves >= 20 and moves % 10 == 0
    assert len(secrets) >= moves // 2, "the bot's card was seen face down too rarely"
    page.wait_for_selector("#overlay:not([hidden]) #dc-results")
    shot(page, "divide-live-match-over-desktop")
    assert page.evaluate("window.slotLeaks") == []
    assert page.evaluate("window.slotsDown") > 0
    watcher.wait_for_selector("#overlay:not([hidden]) #dc-results")
    shot(watcher, "divide-live-spectator-match-over-desktop")
    assert watcher.evaluate("window.slotLeaks") == []
    assert watcher.evaluate("window.slotsDown") > 0
    # Who won the match, and by how many games ("Bruno wins the match, 2 to 0!").
    line = re.fullmatch(r"\u2605 (You win|Bruno wins) the match, (\d+) to (\d+)!",
                        page.inner_text(".winner-line"))
    assert line, page.inner_text(".winner-line")
    # The log speaks to its reader as the strip above the prompt does: "you", never "Ann".
    log = page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")
    assert any(line.startswith("You have committed the ") for line in log), log
    assert any(re.search(r"(, you win|, Bruno · bot wins)\.$", line) for line in log), log
    # (A long match, draws and all, may have pushed the first lines out: the log keeps 300.)
    assert "You sat down in seat 1." in log or len(log) == LOG_LIMIT, log
    assert not any("Ann" in line for line in log), log
    # So does the prompt below the results: "you won it" (or the bot's name), as the
    # winner's line above it says "You win the match!"; someone watching reads names.
    watched = watcher.inner_text("#prompt")
    winner = re.fullmatch(r"The match is over: (Ann|Bruno) won it\.", watched)
    assert winner, watched
    assert page.inner_text("#prompt") == (
        "The match is over: you won it." if winner[1] == "Ann" else watched)
    assert page.locator("#dc-results tbody tr[data-number]").count() == 10

    # The record: each time the bot's card was down, that card was among its cards drawn.
    # (battle N's card of seat 1 is its N-th commit of the game)
    record = _record_of(page, server, table_id)
    for look in secrets:
        actions = record["games"][look["game"] - 1]["actions"]
        theirs = [a["card"] for s, a in actions if s == 1]
        assert theirs[look["battle"] - 1] in look["cards"], (look, theirs)
    # The scoreboard ends on the server's game wins.
    wins = page.eval_on_selector_all(".dc-scoreboard tr.wins td",
                                     "els => els.slice(1).map(e => Number(e.textContent))")
    assert wins == record["game_wins"]
    won = 0 if line[1] == "You win" else 1
    assert [int(line[2]), int(line[3])] == [wins[won], wins[1 - won]]
    assert max(wins) == 2


def test_divide_on_a_phone(open_page: Callable[..., Page], server: str) -> None:
    """390 px: the hand on screen, no sideways scroll, the battles and the results of the
    first game readable."""
    page = open_page(PHONE)
    _open_divide_table(page, server, "Bea", {"target_wins": 1}, bot="greedy")
    shot(page, "divide-live-start-phone")

    def on_move(moves: int) -> None:
        assert_no_horizontal_overflow(page)
        cards = page.locator("#hand [data-card]")
        top = page.evaluate("window.scrollY")
        for i in range(cards.count()):
            box = cards.nth(i).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
            # the whole hand on the first screen
            assert box["y"] + top + box["height"] <= PHONE["height"], (moves, box, top)
        if moves == 6:
            shot(page, "divide-live-half-two-phone")
        if moves == 0:
            # The first commit by keyboard: the frame puts the focus on a legal card.
            page.wait_for_function("document.activeElement.classList.contains('card--legal')")
            page.keyboard.press("ArrowRight")
            chosen = page.evaluate("document.activeElement.dataset.card")
            page.keyboard.press("Enter")
            page.wait_for_selector(f'#hand [data-card="{chosen}"]', state="detached")
            return True
        return False

    moves = _play(page, until="#overlay:not([hidden]) #dc-results", seconds=LIVE_SECONDS / 2,
                  on_move=on_move)
    assert moves == 10
    assert_no_horizontal_overflow(page)
    # The battles' column heads name both players in full ("Bruno", not "Br…").
    cut = page.eval_on_selector_all(
        "th.dc-res__who", "els => els.filter(e => e.scrollWidth > e.clientWidth).map(e => e.title)")
    assert not cut, cut
    shot(page, "divide-live-results-phone")
