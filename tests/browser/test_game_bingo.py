"""Bingo in Chromium: the client module (static/js/games/bingo) drawing real engine views.

The harness test serves the static files to a page shaped like the table page (felt, seat
plates, tray, scoreboard box, results panel) and renders the views of tests/browser/
bingo_views.py with the module, as the frame would: what is drawn, what may be clicked, and
that the other hand, the face-down stock and earlier tricks never appear. Screenshots at
1280x900 and 390x844 go to test-artifacts/bingo-*.png.
"""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .bingo_views import scenarios
from .browserkit import ROOT, assert_no_horizontal_overflow, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
ORIGIN = "http://bingo.test"
TILE = re.compile(r"\b[0-6]-[0-6]\b")

HARNESS = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/css/base.css">
<link rel="stylesheet" href="/static/css/cards.css">
<link rel="stylesheet" href="/static/css/table.css">
<link rel="stylesheet" href="/static/js/games/bingo/bingo.css">
</head>
<body class="table-page">
<main class="table-layout">
  <section class="play-area">
    <div class="felt" id="felt">
      <div class="pos pos--top" id="pos-top"></div>
      <div class="center" id="center"><div id="board-slot"></div></div>
      <div class="felt-overlay" id="overlay" hidden></div>
    </div>
    <div class="tray" id="tray">
      <div class="pos pos--bottom" id="pos-bottom"></div>
      <div class="tray__now"><p class="prompt" id="prompt"></p></div>
      <div class="hand" id="hand"></div>
    </div>
  </section>
  <aside class="side">
    <section class="side-card"><h2>Scoreboard</h2><p class="side-note" id="rule"></p>
      <div id="scoreboard" class="scoreboard"></div></section>
    <section class="side-card"><h2>Game log</h2><ol class="log" id="log"></ol></section>
  </aside>
</main>
<script type="module">
import game from "/static/js/games/bingo/index.js";
const NAMES = ["Ann", "Bob · bot"];
window.acted = [];
window.show = (s, { busy = false, results = true } = {}) => {
  const seat = s.seat;
  const name = (i) => (i === seat ? "You" : NAMES[i]);
  const ctx = {
    seat, seats: 2, name, busy,
    say: (text) => String(text).replace(/\\{(\\d+)\\}/g, (_, d) => name(Number(d))),
    act: (action) => window.acted.push(action),
    myTurn: seat !== null && s.view.to_act.includes(seat),
    status: s.status,
    position: (i) => ((seat === null ? i === 0 : i === seat) ? "bottom" : "top"),
  };
  const plate = (i) => {
    const slot = document.createElement("div");
    const el = document.createElement("div");
    el.className = "seat" + (s.view.to_act.includes(i) ? " seat--turn" : "");
    el.innerHTML = `<div class="seat__head"><span class="avatar avatar--${i}">${NAMES[i][0]}</span>`
      + `<span class="seat__name"></span></div>`;
    el.querySelector(".seat__name").textContent = name(i);
    slot.className = "seat__meta";
    el.appendChild(slot);
    const where = ctx.position(i) === "top" ? "pos-top" : "pos-bottom";
    document.getElementById(where).replaceChildren(el);
    return slot;
  };
  const seats = { 0: plate(0), 1: plate(1) };
  const prompt = document.getElementById("prompt");
  prompt.textContent = ctx.say(s.view.prompt);
  prompt.className = "prompt" + (ctx.myTurn ? " prompt--act" : "");
  game.render(s.view, ctx, { board: document.getElementById("board-slot"),
                             hand: document.getElementById("hand"), seats });
  document.getElementById("rule").textContent = s.match.rule;
  document.getElementById("scoreboard").replaceChildren(game.scoreboard(s.match, ctx));
  const overlay = document.getElementById("overlay");
  const body = s.status !== "playing" && results ? game.results(s.view, s.why, ctx) : null;
  overlay.hidden = !body;
  overlay.replaceChildren();
  if (body) {
    const panel = document.createElement("div");
    panel.className = "center-panel";
    panel.id = "results";
    const title = document.createElement("h2");
    const deal = s.view.match.deal_number;
    title.textContent = s.status === "match_over" ? "Match over" : `Deal ${deal}`;
    panel.append(title, body);
    overlay.replaceChildren(panel);
  }
  window.ctx = ctx;
};
window.ready = true;
</script>
</body></html>
"""


@pytest.fixture(scope="module")
def views() -> dict[str, Any]:
    return {s["name"]: s for s in scenarios()}


def _serve(route: Route) -> None:
    path = route.request.url.removeprefix(ORIGIN).split("?")[0]
    if path == "/harness.html":
        route.fulfill(status=200, content_type="text/html", body=HARNESS)
        return
    file = (ROOT / path.lstrip("/")).resolve()
    if not path.startswith("/static/") or not file.is_file() or ROOT / "static" not in file.parents:
        route.fulfill(status=404, body="")
        return
    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    if file.suffix == ".js":
        kind = "text/javascript"
    route.fulfill(status=200, content_type=kind, body=file.read_bytes())


@pytest.fixture
def harness(open_page: Callable[..., Page]) -> Iterator[Callable[..., Page]]:
    def make(viewport: dict[str, int]) -> Page:
        page = open_page(viewport)
        page.route(f"{ORIGIN}/**", _serve)
        page.goto(f"{ORIGIN}/harness.html")
        page.wait_for_function("window.ready === true")
        return page
    yield make


def show(page: Page, scenario: dict[str, Any], **opts: Any) -> None:
    page.evaluate("([s, o]) => window.show(s, o)", [scenario, opts])


def tiles_on(page: Page, selector: str = "body") -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        f"{selector} [data-tile]", "els => els.map(e => e.dataset.tile)")
    return found


def page_text_tiles(page: Page) -> set[str]:
    """Tile codes anywhere on the page: drawn tiles, and codes in text or labels."""
    text: str = page.evaluate(
        "document.body.innerText + ' ' + [...document.querySelectorAll('[aria-label],[title]')]"
        ".map(e => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('title') || ''))"
        ".join(' ')")
    return set(tiles_on(page)) | set(TILE.findall(text))


def allowed_on_board(view: dict[str, Any]) -> set[str]:
    """The tiles the board may draw: what the view shows, nothing remembered."""
    b = view["board"]
    out = {b["turn_up"], *b.get("hand", []), *b.get("declared_tiles", [])}
    if b["trick"]:
        out.add(b["trick"]["lead"])
    if b["last_trick"]:
        out |= {b["last_trick"]["lead"], b["last_trick"]["follow"]}
    for d in b["declarations"]:
        out |= set(d["tiles"])
    if b["tally"]:
        for t in b["tally"]["tricks"]:
            out |= {t["lead"], t["follow"]}
    if b["reveal"]:
        r = b["reveal"]
        out |= {*r["stock"], r["turn_up"], *(c for h in r["dealt"] for c in h)}
    return out


def test_bingo_module_draws_real_views(harness: Callable[..., Page],
                                       views: dict[str, Any]) -> None:
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = harness(viewport)
        for name, s in views.items():
            show(page, s)
            view = s["view"]
            b = view["board"]
            # Secrets: the other hand and the face-down stock are nowhere on the page.
            seen = page_text_tiles(page)
            leaked = seen & set(s["hidden"])
            assert not leaked, f"{name}: {sorted(leaked)} shown"
            # Earlier tricks: the board draws only what the view holds.
            board_tiles = set(tiles_on(page, "#board-slot")) | set(tiles_on(page, "#hand"))
            extra = board_tiles - allowed_on_board(view)
            assert not extra, f"{name}: {sorted(extra)} drawn from nowhere in the view"
            if not b["open_tally"] and not b["result"]:
                assert not page.locator("#bingo-tally").count(), name
            # The hand: every tile, and the legal plays as buttons.
            hand = tiles_on(page, "#bingo-hand")
            assert sorted(hand) == sorted(b.get("hand", [])) if s["seat"] is not None else not hand
            plays = sorted(a["tile"] for a in view["legal"] if a["type"] == "play")
            buttons = page.eval_on_selector_all(
                "#hand button.move.card--legal", "els => els.map(e => e.dataset.tile)")
            assert sorted(buttons) == plays, name
            others = [a for a in view["legal"] if a["type"] != "play"]
            labels = page.eval_on_selector_all("#hand button.move:not(.card--legal)",
                                               "els => els.map(e => e.textContent)")
            assert len(labels) == len(others), name
            for action, label in zip(others, labels, strict=True):
                words = {"claim": "Claim 70", "close": "Close the stock", "declare": "Declare"}
                assert words[action["type"]] in label, (name, label)
            # Stock, turn-up, trumps, tricks won.
            count = page.get_attribute("#bingo-stock-count", "data-count")
            assert count == str(b["stock_count"]), name
            assert b["trump_name"] in page.inner_text(".bingo-trumps").lower()
            for seat in (0, 1):
                plate = page.locator(f'.bingo-seat[data-seat="{seat}"]')
                assert f"{b['tricks_won'][seat]} trick" in plate.inner_text(), name
            if b["trick"]:
                assert b["trick"]["lead"] in tiles_on(page, "#bingo-trick"), name
            if b["last_trick"]:
                last = tiles_on(page, "#bingo-last-trick")
                assert last == [b["last_trick"]["lead"], b["last_trick"]["follow"]], name
            for d in b["declarations"]:
                assert set(d["tiles"]) <= set(tiles_on(page, "#bingo-declarations")), name
            if b["tally"] and b["open_tally"]:
                assert page.locator("#bingo-tally").count(), name
            if b["result"]:
                panel = page.inner_text("#results")
                for line in (s["why"] or {}).get("lines", []):
                    first = re.sub(r"\{\d\}", "", line).split(":")[0].strip()
                    assert first[:20] in panel, (name, line)
                assert page.locator("#bingo-reveal").count(), name
            assert_no_horizontal_overflow(page)
            if name in {"first-lead", "declare-offered", "closed-must-follow", "open-tally",
                        "opponent-declared", "spectator", "stock-gone"}:
                shot(page, f"bingo-{name}-{size}")
            if b["result"]:
                shot(page, f"bingo-{name}-results-{size}")
                show(page, s, results=False)
                assert_no_horizontal_overflow(page)
                shot(page, f"bingo-{name}-board-{size}")


def test_bingo_module_moves(harness: Callable[..., Page], views: dict[str, Any]) -> None:
    page = harness(DESKTOP)
    s = views["declare-offered"]
    legal = s["view"]["legal"]
    # Clicking sends the action from view.legal unchanged.
    show(page, s)
    page.click("#hand button.move.card--legal >> nth=0")
    page.click(".bingo-action--declare")
    page.click(".bingo-action--close")
    page.click(".bingo-action--claim")
    acted = page.evaluate("window.acted")
    first_play = next(a for a in legal if a["type"] == "play")
    assert acted == [first_play, *(a for t in ("declare", "close", "claim")
                                   for a in legal if a["type"] == t)]
    # While an action is in flight every move is drawn disabled and clicks do nothing.
    show(page, s, busy=True)
    moves = page.locator("#hand button.move")
    assert moves.count() == len(legal)
    for i in range(moves.count()):
        assert moves.nth(i).get_attribute("aria-disabled") == "true"
    page.click("#hand button.move >> nth=0", force=True)
    assert len(page.evaluate("window.acted")) == 4
    # Not your turn: no moves at all.
    show(page, views["opponent-declared"])
    assert page.locator("#hand button.move").count() == 0
    assert page.locator("#bingo-hand [data-tile]").count() == 7
    # A spectator has no hand.
    show(page, views["spectator"])
    assert page.locator("#hand [data-tile]").count() == 0


def test_bingo_log_hides_earlier_tricks(harness: Callable[..., Page],
                                        views: dict[str, Any]) -> None:
    """describe(): leads and answers are logged without their tiles unless the tally is open."""
    page = harness(DESKTOP)
    lead = {"type": "lead", "seat": 1, "trick": 3, "tile": "4-4",
            "say": "Trick 3: {1} leads the 4-4."}
    follow = {"type": "follow", "seat": 0, "trick": 3, "tile": "2-4", "winner": 1,
              "say": "{0} plays the 2-4: {1} wins trick 3."}
    draw = {"type": "draw", "seat": 0, "tile": "3-3", "turn_up": False, "stock": 9,
            "say": "{0} draws the 3-3 from the stock."}
    describe = ("async (e) => (await import('/static/js/games/bingo/index.js'))"
                ".default.describe(e, window.ctx)")
    show(page, views["answer-phase-one"])
    assert page.evaluate(describe, lead) == "Trick 3 led by Bob · bot."
    assert page.evaluate(describe, follow) == "Trick 3 answered by You, won by Bob · bot."
    assert page.evaluate(describe, draw) == "You draws the 3-3 from the stock."
    show(page, views["open-tally"])
    assert page.evaluate(describe, lead) == "Trick 3: Bob · bot leads the 4-4."
    assert "2-4" in page.evaluate(describe, follow)


def test_bingo_views_json(tmp_path: Any) -> None:
    """The scenarios are plain JSON (what the table sends), each with its secrets listed."""
    data = json.loads(json.dumps(scenarios()))
    names = [s["name"] for s in data]
    assert len(names) == len(set(names))
    for s in data:
        if s["status"] == "playing":
            assert s["hidden"], s["name"]
