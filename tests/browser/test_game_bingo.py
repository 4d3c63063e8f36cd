"""Bingo in Chromium: the client module (static/js/games/bingo) drawing real engine views.

The harness test serves the static files to a page shaped like the table page (felt, seat
plates, tray, scoreboard box, results panel) and renders the views of tests/browser/
bingo_views.py with the module, as the frame would: what is drawn, what may be clicked, and
that the other hand, the face-down stock and earlier tricks never appear. Screenshots at
1280x900 and 390x844 go to test-artifacts/bingo-*.png.
"""

from __future__ import annotations

import contextlib
import json
import mimetypes
import random
import re
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .bingo_views import scenarios
from .browserkit import CUT, ROOT, WORDS_BROKEN, assert_no_horizontal_overflow, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
ORIGIN = "http://bingo.test"
TILE = re.compile(r"\b[0-6]-[0-6]\b")
#: The trump numbers in words, as the rules page names the suits.
TRUMP_NAMES = ["blanks", "ones", "twos", "threes", "fours", "fives", "sixes"]

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
      <div class="tray__now"><p class="prompt" id="prompt"></p>
        <div class="actions" id="actions"></div></div>
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
import { secondPerson } from "/static/js/words.js";
const NAMES = window.NAMES = ["Ann", "Bruno"];  // a test may rename a seat
window.acted = [];
window.announced = [];
window.show = (s, { busy = false, results = true } = {}) => {
  const seat = s.seat;
  const name = (i) => (i === seat ? "You" : NAMES[i]);
  const ctx = {
    seat, reader: seat, seats: 2, name, busy,
    plainName: (i) => NAMES[i],
    say: (text) => String(text).replace(/\\{(\\d+)\\}/g, (_, d) => NAMES[Number(d)]),
    sayYou: (text) => ctx.say(secondPerson(text, seat)),
    act: (action) => window.acted.push(action),
    announce: (text) => window.announced.push(text),
    myTurn: seat !== null && s.view.to_act.includes(seat),
    status: s.status,
    position: (i) => ((seat === null ? i === 0 : i === seat) ? "bottom" : "top"),
  };
  const plate = (i) => {
    const slot = document.createElement("div");
    const el = document.createElement("div");
    el.className = "seat" + (s.view.to_act.includes(i) ? " seat--turn" : "");
    const p = game.plate(i, s.view, ctx);
    el.innerHTML = `<div class="seat__head"><span class="avatar avatar--${i}">${NAMES[i][0]}</span>`
      + `<span class="seat__name"></span><span class="seat__points"></span></div>`
      + `<div class="seat__meta"></div>`;
    el.querySelector(".seat__name").textContent = NAMES[i];
    el.querySelector(".seat__points").textContent = p.score ? p.score.text : "";
    const meta = el.querySelector(".seat__meta");
    const you = '<span class="badge badge--you">You</span>';
    if (i === seat) meta.insertAdjacentHTML("beforeend", you);
    for (const b of p.badges || []) {
      const badge = document.createElement("span");
      badge.className = `badge badge--${b.kind}`;
      badge.textContent = b.text;
      meta.appendChild(badge);
    }
    meta.append(...(p.meta || []));
    slot.className = "seat__game";
    el.appendChild(slot);
    const where = ctx.position(i) === "top" ? "pos-top" : "pos-bottom";
    document.getElementById(where).replaceChildren(el);
    return slot;
  };
  const seats = { 0: plate(0), 1: plate(1) };
  const prompt = document.getElementById("prompt");
  prompt.textContent = ctx.sayYou(s.view.prompt);
  prompt.className = "prompt" + (ctx.myTurn ? " prompt--act" : "");
  ctx.match = s.match;
  ctx.options = { open_tally: s.view.board.open_tally };
  game.render(s.view, ctx, { board: document.getElementById("board-slot"),
                             hand: document.getElementById("hand"),
                             actions: document.getElementById("actions"), seats });
  document.getElementById("rule").textContent = game.rule(ctx.options, ctx);
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
    title.textContent = game.headline(s.view, ctx);
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
            board_tiles |= set(tiles_on(page, "#actions"))
            extra = board_tiles - allowed_on_board(view)
            assert not extra, f"{name}: {sorted(extra)} drawn from nowhere in the view"
            if not b["open_tally"] and not b["result"]:
                assert not page.locator("#bingo-tally").count(), name
            # The hand: every tile, and the legal plays as buttons.
            hand = tiles_on(page, "#hand")
            assert sorted(hand) == sorted(b.get("hand", [])) if s["seat"] is not None else not hand
            plays = sorted(a["tile"] for a in view["legal"] if a["type"] == "play")
            buttons = page.eval_on_selector_all(
                "#hand button.move.card--legal", "els => els.map(e => e.dataset.tile)")
            assert sorted(buttons) == plays, name
            others = [a for a in view["legal"] if a["type"] != "play"]
            labels = page.eval_on_selector_all("#actions button.move",
                                               "els => els.map(e => e.textContent)")
            assert len(labels) == len(others), name
            for action, label in zip(others, labels, strict=True):
                words = {"claim": "Claim 70", "close": "Close the stock", "declare": "Declare"}
                assert words[action["type"]] in label, (name, label)
            if any(a["type"] == "claim" for a in others):
                # The main button only when the open tally shows the 70 a claim needs.
                sure = bool(b["tally"]) and b["tally"]["points"][s["seat"]] >= 70
                primary = "btn--primary" in (page.get_attribute(".bingo-action--claim", "class")
                                             or "")
                assert primary == sure, name
            # Stock, turn-up, trumps, tricks won.
            count = page.get_attribute("#bingo-stock-count", "data-count")
            assert count == str(b["stock_count"]), name
            assert b["trump_name"] in page.inner_text(".bingo-trumps").lower()
            # The scoreboard names each deal's trumps beside their glyph (a blank half alone
            # is an empty square).
            trumps = page.eval_on_selector_all(
                "#scoreboard-table tbody td.bingo-sb__trump", "els => els.map(e => e.innerText)")
            assert trumps == [TRUMP_NAMES[g["trump"]] for g in s["match"]["games"]], name
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
                assert b["result"]["why"], name
                for line in b["result"]["why"]:
                    # In the reader's words: "you win the deal and score 2", "Ann had …".
                    shown = page.evaluate("line => window.ctx.sayYou(line)", line)
                    assert shown.split(":")[0] in panel, (name, shown)
                assert page.locator("#bingo-reveal").count(), name
            assert_no_horizontal_overflow(page)
            if name in {"first-lead", "declare-offered", "closed-must-follow", "open-tally",
                        "opponent-declared", "spectator", "stock-gone"}:
                shot(page, f"bingo-{name}-{size}")
            if b["result"]:
                shot(page, f"bingo-{name}-results-{size}")
                if name == "played-out":  # the whole deal, opened
                    page.click("#results .bingo-results__reveal summary")
                    dealt = set(tiles_on(page, "#results .bingo-reveal__list"))
                    assert dealt == {f"{x}-{y}" for x in range(7) for y in range(x, 7)}
                    shot(page, f"bingo-{name}-results-open-{size}")
                show(page, s, results=False)
                assert_no_horizontal_overflow(page)
                shot(page, f"bingo-{name}-board-{size}")


def test_long_names_head_the_count_whole(harness: Callable[..., Page],
                                         views: dict[str, Any]) -> None:
    """Someone watching "Charlotte Montgomery" play Bruno reads both names whole over the
    deal's count (they were cut to "Charlotte Mo…"), never split inside a word, at both
    sizes; so does the scoreboard."""
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = harness(viewport)
        page.evaluate("NAMES[0] = 'Charlotte Montgomery'")
        show(page, views["deal-over-spectator"])
        page.wait_for_selector("#results")
        for where in ("#results", "#scoreboard"):
            heads = page.eval_on_selector_all(
                f"{where} .name-head",
                "els => els.map(e => [e.textContent, e.scrollHeight <= e.clientHeight + 1,"
                " e.scrollWidth <= e.clientWidth + 1])")
            whole = [["Charlotte Montgomery", True, True], ["Bruno", True, True]]
            assert heads[:2] == whole and heads == whole * (len(heads) // 2), (where, heads)
            assert page.evaluate(WORDS_BROKEN, f"{where} .name-head") == [], where
        assert page.evaluate(CUT) == []
        assert_no_horizontal_overflow(page)
        shot(page, f"bingo-long-names-{size}")


def test_bingo_module_moves(harness: Callable[..., Page], views: dict[str, Any]) -> None:
    page = harness(DESKTOP)
    s = views["declare-offered"]
    legal = s["view"]["legal"]
    # Clicking sends the action from view.legal unchanged.
    show(page, s)
    page.click("#hand button.move.card--legal >> nth=0")
    page.click(".bingo-action--declare")
    page.click(".bingo-action--close")
    page.click(".bingo-action--claim")  # no tally to back it: asks again first
    page.wait_for_timeout(ANSWER_AFTER_MS)
    page.click(".bingo-action--claim")
    acted = page.evaluate("window.acted")
    first_play = next(a for a in legal if a["type"] == "play")
    assert acted == [first_play, *(a for t in ("declare", "close", "claim")
                                   for a in legal if a["type"] == t)]
    # While an action is in flight every move is drawn disabled and clicks do nothing.
    show(page, s, busy=True)
    moves = page.locator("#hand button.move, #actions button.move")
    assert moves.count() == len(legal)
    for i in range(moves.count()):
        assert moves.nth(i).get_attribute("aria-disabled") == "true"
    page.click("#hand button.move >> nth=0", force=True)
    assert len(page.evaluate("window.acted")) == 4
    # Not your turn: no moves at all.
    show(page, views["opponent-declared"])
    assert page.locator("#hand button.move, #actions button.move").count() == 0
    assert page.locator("#hand [data-tile]").count() == 7
    # A spectator has no hand.
    show(page, views["spectator"])
    assert page.locator("#hand [data-tile]").count() == 0


CLAIM_BUTTON = ".bingo-action--claim"
ARMED_CLAIM = f"{CLAIM_BUTTON}[data-armed]"


def claim_button(page: Page) -> list[Any]:
    """The claim button's words, whether it asks again, and whether it is the main button."""
    said: list[Any] = page.eval_on_selector(
        CLAIM_BUTTON, "e => [e.textContent, e.classList.contains('bingo-action--armed'),"
        " e.classList.contains('btn--primary')]")
    return said


#: How long the claim button waits before a second press counts (ASK_AGAIN_MS), and a bit.
ANSWER_AFTER_MS = 550


def test_a_claim_the_tally_does_not_back_asks_again(harness: Callable[..., Page],
                                                    views: dict[str, Any]) -> None:
    """A claim short of 70 gives the deal away: unless the open tally shows 70, the first
    press only asks again, on the button (and to screen readers); a press elsewhere or
    leaving the button takes that back, a double-click is one press, and the question
    outlives a redraw of the same lead. A second press claims. With 70 on the open tally
    one click claims."""
    page = harness(PHONE)
    short = views["claim-short"]
    points = short["view"]["board"]["tally"]["points"][short["seat"]]
    assert 0 < points < 70
    other = ["Ann", "Bruno"][1 - short["seat"]]
    show(page, short)
    page.click(CLAIM_BUTTON)
    assert page.evaluate("window.acted") == []
    assert claim_button(page) == [f"You have {points}: claim anyway?", True, False]
    stakes = f"If you have fewer than 70 points, {other} wins the deal."
    assert stakes in (page.get_attribute(CLAIM_BUTTON, "aria-label") or "")
    assert page.evaluate("window.announced") == [
        f"You have {points}: claim anyway? {stakes} Press again to claim."]
    assert_no_horizontal_overflow(page)
    shot(page, "bingo-claim-asks-again-phone")
    # A redraw of the same lead (any news from the table) keeps the question.
    show(page, short)
    assert claim_button(page)[1] is True
    page.click("#scoreboard")  # a press elsewhere takes it back
    assert claim_button(page) == ["Claim 70", False, False]
    page.click(CLAIM_BUTTON)
    page.focus("#hand button.move >> nth=0")  # and so does leaving the button
    assert claim_button(page) == ["Claim 70", False, False]
    # Two presses at once (a double-click, a held key) are one: they ask, and do not claim.
    page.evaluate(f"(() => {{ const b = document.querySelector('{CLAIM_BUTTON}');"
                  " b.click(); b.click(); })()")
    assert claim_button(page)[1] is True and page.evaluate("window.acted") == []
    page.wait_for_timeout(ANSWER_AFTER_MS)
    page.click(CLAIM_BUTTON)
    assert page.evaluate("window.acted") == [{"type": "claim"}]
    # By the keyboard: Enter asks, Enter again claims.
    show(page, short)
    assert claim_button(page)[1] is False  # a claim sent asks nothing more
    page.focus(CLAIM_BUTTON)
    page.keyboard.press("Enter")
    assert claim_button(page)[1] is True
    page.wait_for_timeout(ANSWER_AFTER_MS)
    page.keyboard.press("Enter")
    assert page.evaluate("window.acted") == [{"type": "claim"}] * 2
    # With the tally hidden there is nothing to back a claim: it asks too.
    show(page, views["declare-offered"])
    page.click(CLAIM_BUTTON)
    assert claim_button(page) == ["Sure? Claim 70", True, False]
    assert len(page.evaluate("window.acted")) == 2
    # While the move is in flight the question is not even asked.
    show(page, short, busy=True)
    page.click(CLAIM_BUTTON, force=True)
    assert claim_button(page) == ["Claim 70", False, False]
    # 70 on the open tally: the main button, and one click claims.
    show(page, views["claim-sure"])
    assert claim_button(page) == ["Claim 70", False, True]
    page.click(CLAIM_BUTTON)
    assert page.evaluate("window.acted") == [{"type": "claim"}] * 3


def test_bingo_log_hides_earlier_tricks(harness: Callable[..., Page],
                                        views: dict[str, Any]) -> None:
    """describe(): leads and answers are logged without their tiles unless the tally is open;
    every other line (and every line with the open tally) is the server's own."""
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
    reader = views["answer-phase-one"]["seat"]
    ann, bob = ("you" if seat == reader else name
                for seat, name in enumerate(("Ann", "Bruno")))  # the page's NAMES
    assert page.evaluate(describe, lead) == f"Trick 3 led by {bob}."
    assert page.evaluate(describe, follow) == f"Trick 3 answered by {ann}, won by {bob}."
    assert page.evaluate(describe, draw) is None  # the frame's default: the server's say
    show(page, views["open-tally"])
    assert page.evaluate(describe, lead) is None
    assert page.evaluate(describe, follow) is None


def test_bingo_views_json(tmp_path: Any) -> None:
    """The scenarios are plain JSON (what the table sends), each with its secrets listed."""
    data = json.loads(json.dumps(scenarios()))
    names = [s["name"] for s in data]
    assert len(names) == len(set(names))
    for s in data:
        if s["status"] == "playing":
            assert s["hidden"], s["name"]


# ---- a whole match on the real table page ------------------------------------------------

#: Tiles this page may click now: a legal play, or a claim / declare / close button.
TILE_MOVES = "#hand button.move:not([aria-disabled])"
ACTION_MOVES = "#actions button.move:not([aria-disabled])"
LIVE_SECONDS = 240.0

#: Every tile code on the felt, the tray and the scoreboard (drawn, named in text or labels),
#: the deal the scoreboard is on, whether the board shows the reveal, and the log's lines.
LOOK = """() => {
  const codes = new Set();
  const re = /\\b[0-6]-[0-6]\\b/g;
  for (const sel of ['#felt', '#tray', '#scoreboard']) {
    const root = document.querySelector(sel);
    if (!root) continue;
    for (const el of root.querySelectorAll('[data-tile]')) codes.add(el.dataset.tile);
    for (const m of root.innerText.match(re) || []) codes.add(m);
    for (const el of root.querySelectorAll('[aria-label],[title]')) {
      const t = (el.getAttribute('aria-label') || '') + ' ' + (el.getAttribute('title') || '');
      for (const m of t.match(re) || []) codes.add(m);
    }
  }
  const deals = [...document.querySelectorAll('#scoreboard-table tbody td:first-child')]
    .map(td => Number((td.textContent.match(/Deal (\\d+)/) || [])[1] || 0));
  return {codes: [...codes], deal: Math.max(0, ...deals),
          over: Boolean(document.querySelector('#bingo-reveal, #overlay:not([hidden])')),
          log: [...document.querySelectorAll('#log li')].map(li => li.textContent)};
}"""


def _open_bingo_table(page: Page, base: str, name: str, open_tally: bool = False) -> str:
    """A Bingo table opened through the API with a heuristic bot in seat 1; this page is
    its host and sits down by itself (as the home page's create does)."""
    page.goto(f"{base}/")
    table_id: str = page.evaluate(
        """async ([name, openTally]) => {
          const res = await fetch('/api/tables', {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({game: 'bingo', options: {open_tally: openTally},
                                  bots: [{seat: 1, kind: 'heuristic'}]})});
          const t = await res.json();
          localStorage.setItem('dingo.table.' + t.table_id,
            JSON.stringify({host_token: t.host_token, name, autosit: true}));
          localStorage.setItem('dingo.name', name);
          return t.table_id;
        }""", [name, open_tally])
    page.goto(f"{base}/t/{table_id}")
    page.wait_for_selector(".seat--me")
    page.wait_for_selector("#start-btn:not([disabled])")
    page.click("#start-btn")
    page.wait_for_selector(".bingo-board")
    return table_id


def _pick(page: Page, rng: random.Random) -> bool:
    """Click a move: declare when offered, close or claim now and then, else a tile."""
    actions = page.locator(ACTION_MOVES)
    kinds = {actions.nth(i).get_attribute("data-key"): actions.nth(i)
             for i in range(actions.count())}
    tiles = page.locator(TILE_MOVES)
    choice = None
    if "bingo-declare" in kinds and rng.random() < 0.7:
        choice = kinds["bingo-declare"]
    elif "bingo-close" in kinds and rng.random() < 0.15:
        choice = kinds["bingo-close"]
    elif "bingo-claim" in kinds and rng.random() < 0.04:
        choice = kinds["bingo-claim"]
    elif tiles.count():
        choice = tiles.nth(rng.randrange(tiles.count()))
    elif kinds:
        choice = next(iter(kinds.values()))
    if choice is None:
        return False
    choice.click()
    if page.locator(ARMED_CLAIM).count():  # a claim the tally does not back asks again
        page.wait_for_timeout(ANSWER_AFTER_MS)
        page.click(ARMED_CLAIM)
    page.wait_for_selector("#hand:not(.hand--busy)", state="attached")
    return True


def _log_by_deal(lines: list[str]) -> dict[int, set[str]]:
    """Tile codes in the log's lines, by the deal they were written in ("Deal N: ..." opens
    a deal's lines; a log cut at the top leaves its first lines without a deal)."""
    out: dict[int, set[str]] = {}
    deal = 0
    for line in lines:
        m = re.match(r"Deal (\d+):", line)
        if m:
            deal = int(m.group(1))
        if deal:
            out.setdefault(deal, set()).update(TILE.findall(line))
    return out


def _secrets(record: dict[str, Any], seat: int | None) -> dict[int, set[str]]:
    """Per deal (1, 2, ...), the tiles ``seat`` never legitimately saw before its reveal:
    the other hand's tiles never played nor declared, and the stock it never drew (for a
    spectator, ``None``: every tile never played nor declared, the turn-up aside)."""
    from app.games.bingo.state import BingoMatch
    from app.games.bingo.tiles import CODES

    match = BingoMatch.from_record(record)
    out: dict[int, set[str]] = {}
    for number, deal in enumerate(match.deals, 1):
        known = 1 << deal.setup.turn_up
        if seat is not None:
            known |= deal.setup.hands[seat]
        for tile, who in zip(deal.order, deal.drawer, strict=False):
            if who == seat:
                known |= 1 << tile
        for trick in deal.tricks:
            known |= 1 << trick.lead
            if trick.follow is not None:
                known |= 1 << trick.follow
        for other in (0, 1):
            if other != seat:
                known |= deal.declared_mask[other]
        out[number] = {CODES[t] for t in range(28) if not known >> t & 1}
    return out


def _record_of(page: Page, base: str, table_id: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        """async ([base, id]) => {
          for (let i = 0; i < 50; i++) {  // the record is stored as the match ends
            const list = await (await fetch(`${base}/api/matches?table=${id}&game=bingo`)).json();
            if (list.items.length) {
              return await (await fetch(`${base}/api/matches/${list.items[0].id}`)).json();
            }
            await new Promise(r => setTimeout(r, 100));
          }
          return null;
        }""", [base, table_id])
    assert found, "the finished match is not in the history"
    return {"seed": found["seed"], "options": found["options"],
            "games": [{"setup": g["setup"], "actions": g["actions"]} for g in found["games"]]}


def test_a_whole_bingo_match_by_clicking(open_page: Callable[..., Page], server: str) -> None:
    rng = random.Random(16)
    page = open_page(DESKTOP)
    table_id = _open_bingo_table(page, server, "Ann")
    seat = int(page.get_attribute(".seat--me", "data-seat") or 0)
    shot(page, "bingo-live-start-desktop")
    # Someone watching the table from another browser, all match long.
    watcher = open_page(DESKTOP)
    watcher.goto(f"{server}/t/{table_id}")
    watcher.wait_for_selector(".bingo-board")
    watched: dict[int, set[str]] = {}
    seen: dict[int, set[str]] = {}
    logs: list[str] = []
    moves = 0
    shots = {"declare": False, "closed": False, "last": False}
    deadline = time.monotonic() + LIVE_SECONDS
    while not page.locator("#rematch-btn").count():
        assert time.monotonic() < deadline, "the match did not end in time"
        look = page.evaluate(LOOK)
        if not look["over"] and look["deal"]:
            seen.setdefault(look["deal"], set()).update(look["codes"])
        logs = look["log"] if len(look["log"]) >= len(logs) else logs + look["log"]
        other = watcher.evaluate(LOOK)
        if not other["over"] and other["deal"]:
            watched.setdefault(other["deal"], set()).update(other["codes"])
        if page.locator("#ready-btn:not([disabled])").count():
            with contextlib.suppress(Exception):
                page.click("#ready-btn:not([disabled])", timeout=2_000)
            continue
        if page.locator(TILE_MOVES).count() or page.locator(ACTION_MOVES).count():
            assert_no_horizontal_overflow(page)
            if not shots["declare"] and page.locator(".bingo-action--declare").count():
                shots["declare"] = bool(shot(page, "bingo-live-declare-desktop"))
            if not shots["closed"] and page.locator(".bingo-chip--closed").count():
                shots["closed"] = bool(shot(page, "bingo-live-closed-desktop"))
            if not shots["last"] and page.locator("#bingo-last-trick").count():
                shots["last"] = bool(shot(page, "bingo-live-trick-desktop"))
            if _pick(page, rng):
                moves += 1
        else:
            page.wait_for_timeout(40)
    # Played by clicking (wrong claims, the bot's or ours, can end a match within ten moves).
    assert moves > 0
    shot(page, "bingo-live-match-over-desktop")
    assert page.locator("#overlay .bingo-results").count()
    # Nothing hidden was ever on the page while its deal was on: the other hand, the stock.
    record = _record_of(page, server, table_id)
    secrets = _secrets(record, seat)
    assert set(seen) <= set(secrets)
    for number, codes in seen.items():
        leaked = codes & secrets[number]
        assert not leaked, f"deal {number}: {sorted(leaked)} shown before the reveal"
    for number, codes in _log_by_deal(logs).items():
        leaked = codes & secrets.get(number, set())
        assert not leaked, f"deal {number}: the log named {sorted(leaked)}"
    # Count in your head: the log names no tile of an earlier lead or answer.
    tricks = re.compile(r"(leads|plays) the [0-6]-[0-6]")
    assert not [line for line in logs if tricks.search(line)]
    assert any(line.startswith("Trick ") for line in logs)
    hidden = _secrets(record, None)
    assert watched, "the watcher saw no deal"
    for number, codes in watched.items():
        leaked = codes & hidden[number]
        assert not leaked, f"deal {number}: {sorted(leaked)} shown to a spectator"
    for number, codes in _log_by_deal(watcher.evaluate(LOOK)["log"]).items():
        leaked = codes & hidden.get(number, set())
        assert not leaked, f"deal {number}: the spectator's log named {sorted(leaked)}"
    assert not watcher.locator("#hand [data-tile], #actions .move").count()
    shot(watcher, "bingo-live-spectator-desktop")
    # The scoreboard ends on the server's totals.
    totals = page.eval_on_selector_all(
        "#scoreboard-table tr.totals td", "els => els.slice(2).map(e => Number(e.textContent))")
    assert max(totals) >= 7


def test_a_claim_asked_by_keyboard_survives_news_from_the_table(
        open_page: Callable[..., Page], server: str) -> None:
    """Enter asks "Sure? Claim 70"; someone then looks in (the table is drawn anew): the
    focus stays on the same button, still asking, and Enter claims."""
    rng = random.Random(3)
    page = open_page(DESKTOP)
    table_id = _open_bingo_table(page, server, "Ann")
    deadline = time.monotonic() + LIVE_SECONDS / 4
    while not page.locator(f"{CLAIM_BUTTON}:not([aria-disabled])").count():
        assert time.monotonic() < deadline, "no lead came to Ann"
        if page.locator(TILE_MOVES).count():
            page.locator(TILE_MOVES).nth(rng.randrange(page.locator(TILE_MOVES).count())).click()
            page.wait_for_selector("#hand:not(.hand--busy)", state="attached")
        else:
            page.wait_for_timeout(40)
    page.focus(CLAIM_BUTTON)
    page.keyboard.press("Enter")
    assert claim_button(page)[:2] == ["Sure? Claim 70", True]
    watcher = open_page(PHONE)
    watcher.goto(f"{server}/t/{table_id}")
    page.wait_for_selector("#watchers:text('1 watching')")
    assert page.evaluate("document.activeElement.dataset.key") == "bingo-claim"
    assert claim_button(page)[:2] == ["Sure? Claim 70", True]
    page.wait_for_timeout(ANSWER_AFTER_MS)
    page.keyboard.press("Enter")
    page.wait_for_selector("#overlay:not([hidden]) .bingo-results")
    assert "You claim with" in page.inner_text("#log")


def test_bingo_on_a_phone(open_page: Callable[..., Page], server: str) -> None:
    """390 px: the whole hand and the moves on the first screen, no sideways scroll, and
    the results panel readable after the first deal."""
    rng = random.Random(7)
    page = open_page(PHONE)
    _open_bingo_table(page, server, "Bea", open_tally=True)
    shot(page, "bingo-live-start-phone")
    deadline = time.monotonic() + LIVE_SECONDS / 2
    while not page.locator("#overlay:not([hidden]) .bingo-results").count():
        assert time.monotonic() < deadline, "the deal did not end in time"
        if page.locator(TILE_MOVES).count() or page.locator(ACTION_MOVES).count():
            assert_no_horizontal_overflow(page)
            tiles = page.locator("#hand [data-tile]")
            for i in range(tiles.count()):
                box = tiles.nth(i).bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
            if page.locator("#bingo-tally").count() and page.locator("#bingo-last-trick").count():
                shot(page, "bingo-live-tally-phone")
            _pick(page, rng)
        else:
            page.wait_for_timeout(40)
    assert_no_horizontal_overflow(page)
    shot(page, "bingo-live-results-phone")
    # With the open tally the log keeps the server's words, tiles and all, to its reader:
    # "you lead the 5-5", "You draw the 2-3 from the stock", never "Bea".
    log = page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")
    assert any(re.search(r"(you lead|leads) the [0-6]-[0-6]", line) for line in log), log
    assert any(line.startswith("You draw the ") for line in log), log
    assert not any("Bea" in line for line in log), log
    assert "Bea" not in page.inner_text("#overlay")
