"""The Mate client module (static/js/games/mate/index.js) in Chromium.

First, real engine views (tests/browser/mate_views.py) drawn by the module on a harness page
laid out like the table: what the hand offers is exactly ``view.legal`` and a click sends
the action unchanged, the opponent's face-down card is never told apart from its unplayed
cards, the scoreboard and the results say what the server said, and nothing scrolls
sideways at 390 px. Screenshots of each moment at 1280x860 and 390x844 go to
test-artifacts/mate-*.png.

Then the real table (the server and the frame, static/js/table.js): a Mate table with the
perfect bot, a whole match played by clicking, at both sizes, checked against the states
the page receives over its WebSocket, with a spectator looking in.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from tablekit import Tracker

from .browserkit import (
    DESKTOP,
    PHONE,
    ROOT,
    assert_no_horizontal_overflow,
    click_if_still_there,
    shot,
)
from .mate_views import HARNESS_ORIGIN, scenarios, serve_harness

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SIZES = {"desktop": DESKTOP, "phone": PHONE}
RANK_WORD = {"A": "ace", "T": "ten", "K": "king", "Q": "queen", "7": "seven"}
SUIT_WORD = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}


def words(code: str) -> str:
    return f"{RANK_WORD[code[0]]} of {SUIT_WORD[code[1]]}"


@pytest.fixture(scope="module")
def views() -> dict[str, dict[str, Any]]:
    return scenarios()


@pytest.fixture
def harness(browser: Browser) -> Iterator[Callable[..., Page]]:
    """harness(scenario, size="desktop", extra="") -> the page with the scenario drawn."""
    contexts = []
    pages: dict[str, Page] = {}
    errors: list[str] = []

    def open_scenario(name: str, size: str = "desktop", extra: str = "") -> Page:
        page = pages.get(size)
        if page is None:
            context = browser.new_context(viewport=SIZES[size])
            context.set_default_timeout(10_000)
            contexts.append(context)
            page = pages[size] = context.new_page()
            page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
            serve_harness(page, ROOT)
        page.goto(f"{HARNESS_ORIGIN}/harness.html?s={name}{extra}")
        page.wait_for_selector("body[data-ready]")
        return page

    yield open_scenario
    for context in contexts:
        context.close()
    assert not errors, "script errors in the harness:\n" + "\n".join(errors)


def drawn(page: Page, selector: str) -> list[str]:
    codes: list[str] = page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)")
    return codes


def legal_buttons(page: Page) -> list[str]:
    return drawn(page, "#hand button.move.card--legal")


def test_every_moment_is_drawn_at_both_sizes(harness: Callable[..., Page],
                                             views: dict[str, dict[str, Any]]) -> None:
    """Each scenario: the hand, the legal moves, the piles and the move number as the view
    says; no sideways scroll at 390 px; a screenshot of each."""
    for name, scenario in views.items():
        view, seat = scenario["view"], scenario["seat"]
        board = view["board"]
        for size in SIZES:
            page = harness(name, size)
            assert_no_horizontal_overflow(page)
            if seat is None:
                assert not page.locator("#hand *").count(), f"{name}: a spectator has no hand"
            else:
                assert drawn(page, "#hand [data-card]") == board["hand"], name
                cards = [a["card"] for a in view["legal"] if "card" in a]
                assert legal_buttons(page) == cards, name
                assert page.locator("#mate-decline").count() == (
                    {"type": "decline"} in view["legal"]), name
                assert not page.locator("#hand [aria-disabled]").count(), name
            # Both piles, move by move, as the view's moves say.
            for move in board["moves"]:
                for who, code in ((move["leader"], move["lead"]),
                                  (1 - move["leader"], move["answer"])):
                    cell = (f'.mate-strip__line[data-seat="{who}"] > '
                            f'.mate-strip__cell:nth-child({move["move"] + 1}) [data-card]')
                    assert drawn(page, cell) == ([code] if code else []), (name, move)
            if board["phase"] == "play":
                assert page.inner_text("#mate-move") == str(board["move"])
            if board["phase"] == "foreplace":
                # Who decides now and who next, in words that read after "You:" too.
                spots = page.locator(".mate-now .mate-spot__who").all_inner_texts()
                for who in (0, 1):
                    label = "You" if who == seat else ("Ann" if who == 0 else "Bruno")
                    doing = "deciding\u2026" if who in view["to_act"] else "next to decide"
                    if not board["decided"][who]:
                        assert f"{label}: {doing}" in spots, (name, spots)
            # The phone's hand fits the screen in one row, every card on it.
            if size == "phone" and seat is not None:
                rights = page.eval_on_selector_all(
                    "#hand [data-card]", "els => els.map(e => e.getBoundingClientRect().right)")
                assert max(rights, default=0) <= SIZES["phone"]["width"], name
            shot(page, f"mate-{name}-{size}")


def test_unplayed_cards_never_tell_which_is_face_down(harness: Callable[..., Page],
                                                      views: dict[str, dict[str, Any]]) -> None:
    """Rules section 7: the opponent's unplayed cards are one set in pack order, the face-down
    card a card back; only the game's end shows which card it was."""
    for name in ("decide-second", "first-lead-waiting", "answer", "answer-waiting",
                 "answer-spectator", "overmate-move9", "game4-mid"):
        scenario = views[name]
        view, seat = scenario["view"], scenario["seat"]
        board = view["board"]
        page = harness(name)
        others = [s for s in (0, 1) if s != seat]
        for other in others:
            panel = f'.mate-seatpanel[data-seat="{other}"]'
            row = f"{panel} .mate-unplayed__cards [data-card]"
            assert drawn(page, row) == board["unplayed"][other]
            tile = page.locator(f'{panel} .mate-fd')
            assert not tile.locator("[data-card]").count(), f"{name}: a face-down card drawn"
            if board["foreplaced"][other]:
                assert tile.locator(".card--back").count() == 1
                assert len(board["unplayed"][other]) == board["hand_sizes"][other] + 1
            # Nothing on the page singles out one of the other seat's cards.
            assert not page.locator(f"{panel} .mate-unplayed__cards .mate-facedown").count()
        if seat is not None and board["face_down"]:
            # Your own face-down card is named on your plate, not drawn on the felt: the
            # felt keeps the room so the hand stays on the first screen.
            chip = page.locator(f'.seat[data-seat="{seat}"] .mate-chip--fd')
            named = f"Your face-down card: the {words(board['face_down'])}"
            assert chip.get_attribute("title") == named, name
            assert not page.locator(f'.mate-seatpanel[data-seat="{seat}"]').count(), name


def test_a_click_sends_the_legal_action_unchanged(harness: Callable[..., Page],
                                                  views: dict[str, dict[str, Any]]) -> None:
    # Foreplacing: a card, or declining.
    legal = views["decide-leader"]["view"]["legal"]
    page = harness("decide-leader")
    page.click("#hand button.move.card--legal >> nth=2")
    page.click("#mate-decline")
    assert page.evaluate("window.acted") == [legal[3], {"type": "decline"}]
    # Answering: the only legal card.
    page = harness("answer")
    (only,) = views["answer"]["view"]["legal"]
    page.click("#hand button.move.card--legal")
    assert page.evaluate("window.acted") == [only]
    # While an action is in flight, every move is aria-disabled and a click sends nothing.
    page = harness("decide-leader", extra="&busy")
    disabled = page.eval_on_selector_all("button.move",
                                         "els => els.map(e => e.getAttribute('aria-disabled'))")
    assert disabled and set(disabled) == {"true"}
    page.click("#hand button.move.card--legal >> nth=0", force=True)
    page.click("#mate-decline", force=True)
    assert page.evaluate("window.acted") == []
    # Waiting for the other seat: no move offered.
    page = harness("answer-waiting")
    assert not page.locator("button.move").count()


def test_a_raised_card_leaves_the_foreplace_words_readable(harness: Callable[..., Page]) -> None:
    """A card under the pointer rises above its row: not over "Pick the card to lay face down"."""
    page = harness("decide-leader")
    page.hover("#hand button.move.card--legal >> nth=0")
    page.wait_for_function("!document.getAnimations().some(a => a.playState === 'running')")
    words_end, card_top = page.evaluate(
        "[document.querySelector('.mate-decide__text').getBoundingClientRect().bottom,"
        " document.querySelector('#hand button.move:hover').getBoundingClientRect().top]")
    assert card_top >= words_end - 0.5, (card_top, words_end)


def test_scoreboard_and_results_say_what_the_server_said(
        harness: Callable[..., Page], views: dict[str, dict[str, Any]]) -> None:
    over = views["match-over"]
    for size in SIZES:
        page = harness("match-over", size, "&results")
        assert_no_horizontal_overflow(page)
        rows = page.eval_on_selector_all(
            "#mate-scoreboard tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText))")
        games = over["match"]["games"]
        assert len(rows) == 1 + 4 + 1
        for row, game in zip(rows[1:5], games, strict=True):
            assert [int(re.match(r"\d+", cell).group()) for cell in row[1:]] == game["scores"]
        assert rows[-1][1:] == [str(t) for t in over["match"]["totals"]]
        winner = over["match"]["winner"]
        assert page.inner_text(".mate-sb__over") == (
            f"Bruno wins the match by {over['match']['margin']}." if winner == 1
            else f"You win the match by {over['match']['margin']}.")
        # The frame's winner line says who won the match: the results do not say it again.
        assert "the match" not in page.inner_text("#mate-results")
        result = over["view"]["board"]["result"]
        head = page.inner_text(".mate-headline")
        assert head.startswith("Game 4: ") and head.endswith(f"on move {result['move']}")
        assert page.inner_text("#mate-say").endswith(f"= {max(result['scores'])}.")
        reveal = over["view"]["board"]["reveal"]
        for seat in (0, 1):
            block = f'.mate-reveal__seat[data-seat="{seat}"]'
            shown = drawn(page, f"{block} [data-card]")
            face_down = [reveal["foreplaced"][seat]] if reveal["foreplaced"][seat] else []
            assert shown == face_down + reveal["remaining"][seat]
        shot(page, f"mate-match-over-results-{size}")

    # The overmate and the move-10 mate, in the server's words, for the viewer.
    page = harness("overmate", extra="&results")
    assert page.inner_text(".mate-headline") == (
        "Game 3: Bruno gave overmate to you on move 10")
    assert page.inner_text("#mate-say") == (
        "Overmate on move 10: you have neither a spade nor an ace to answer the ace of spades; "
        "Bruno scores 11 \u00d7 (10 + 1) \u00d7 2 = 242.")
    page = harness("mated-on-10", "phone", "&results")
    assert page.inner_text(".mate-headline") == "Game 1: Bruno mated you on move 10"
    assert "your only answer would be the ace of diamonds again" in page.inner_text("#mate-say")
    assert drawn(page, '.mate-reveal__seat[data-seat="0"] .mate-facedown') == ["KS"]
    shot(page, "mate-mated-on-10-results-phone")
    # A draw: both scored 0, both face-down cards shown.
    page = harness("draw", extra="&results")
    assert page.inner_text(".mate-headline") == "Game 1: a draw, nobody was mated"
    assert page.inner_text("#mate-say") == (
        "Draw: every card was played out by move 9 without a mate; 0 to 0.")
    assert drawn(page, ".mate-reveal .mate-facedown") == ["KC", "TD"]
    assert "draw" in page.inner_text('#mate-scoreboard tr[data-game="1"]')
    shot(page, "mate-draw-results-desktop")
    # A game in progress and those to come.
    page = harness("game2-start")
    rows = page.eval_on_selector_all("#mate-scoreboard tbody tr",
                                     "rows => rows.map(r => r.innerText)")
    assert "playing" in rows[1] and "to come" in rows[2] and "to come" in rows[3]
    assert words("QH") not in page.inner_text("#mate-scoreboard")  # short names: Q♥ mate


# --- the real table: a whole match against a bot, clicked in the browser ---------------------

#: A move this seat may make now: a legal card, or the Decline button.
MOVE_NOW = ("#hand button.move.card--legal:not([aria-disabled]), "
            "#mate-decline:not([aria-disabled])")

#: Every drawn card and where: ``[code, "unplayed:<seat>" | "hand" | "other"]``; and the
#: log lines and the prompt (the text a person reads).
SNAPSHOT = """() => ({
  cards: [...document.querySelectorAll('[data-card]')].map(e => {
    const row = e.closest('.mate-unplayed__cards');
    const panel = row && row.closest('.mate-seatpanel');
    const where = panel ? `unplayed:${panel.dataset.seat}`
      : e.closest('#hand') ? 'hand' : 'other';
    return [e.dataset.card, where];
  }),
  log: [...document.querySelectorAll('#log li')].map(e => e.innerText),
  prompt: document.querySelector('#prompt').innerText,
})"""


def mate_table(page: Page, base: str, name: str, bot: str) -> str:
    """A Mate table with a bot in seat 1, made through POST /api/tables; this page, the
    host, opens it and sits in seat 0 by itself. Returns the table's link."""
    page.goto(f"{base}/")
    created = page.evaluate("""async (body) => {
        const r = await fetch('/api/tables', {method: 'POST',
          headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
        return await r.json(); }""", {"game": "mate", "bots": [{"seat": 1, "kind": bot}]})
    page.evaluate("([id, name, token]) => localStorage.setItem(`dingo.table.${id}`,"
                  " JSON.stringify({name, autosit: true, host_token: token}))",
                  [created["table_id"], name, created["host_token"]])
    page.goto(f"{base}{created['url']}")
    page.wait_for_selector(".seat--me")
    return f"{base}{created['url']}"


def watch_states(page: Page) -> list[dict[str, Any]]:
    """Every state the page holds, in order: each ``state`` message it receives over its
    WebSocket, and the state each ``delta`` leads to (``Tracker``, one per socket)."""
    states: list[dict[str, Any]] = []

    def watch(ws: Any) -> None:
        tracker = Tracker()

        def on_frame(payload: str | bytes) -> None:
            try:
                msg = json.loads(payload)
            except ValueError:
                return
            if isinstance(msg, dict):
                states.extend(m for m in tracker.receive(msg) if m["type"] == "state")

        ws.on("framereceived", on_frame)

    page.on("websocket", watch)
    return states


def current_view(states: list[dict[str, Any]]) -> dict[str, Any] | None:
    return states[-1].get("game") if states else None


def offered(page: Page) -> list[str]:
    return drawn(page, "#hand button.move.card--legal")


#: The bottom of the hand's lowest card in the page (null with no card drawn, which fails
#: the comparison), and the viewport's height.
HAND_BOTTOM = """() => { const cs = [...document.querySelectorAll('#hand [data-card]')];
  return [cs.length ? Math.max(...cs.map(e => e.getBoundingClientRect().bottom + scrollY))
    : null, innerHeight]; }"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_whole_match_against_a_bot(server: str, open_page: Callable[..., Page],
                                     size: str) -> None:
    """Ann plays all four games against a bot by clicking what the page offers; it offers
    exactly ``view.legal``; the bot's face-down card is never told apart from its unplayed
    cards, nor named, before its game ends; both sizes without sideways scrolling, and the
    whole hand on the first screen (a 1280x860 desktop, a 390x844 phone) at every turn."""
    page = open_page({"desktop": DESKTOP, "phone": PHONE}[size])
    states = watch_states(page)
    link = mate_table(page, server, "Ann", "perfect")
    page.wait_for_selector("#start-btn:not([disabled])")
    # The note above the scoreboard is the match in one line, not the scoring's fine print.
    assert page.inner_text("#options-note") == (
        "Four games (the second and the fourth replay the deal with the hands exchanged)"
        " \u00b7 only a mate scores \u00b7 the higher total wins \u00b7 no turn timer")
    page.click("#start-btn")
    rng = random.Random(15)
    snapshots: list[tuple[int, dict[str, Any]]] = []
    shots: set[str] = set()
    spectator = None
    moves = 0
    deadline = time.monotonic() + 180
    while not page.locator("#rematch-btn").count():
        assert time.monotonic() < deadline, "the match did not end in time"
        if page.locator("#ready-btn:not([disabled])").count():
            view = current_view(states)
            if view and f"results-{view['match']['game_number']}" not in shots:
                shots.add(f"results-{view['match']['game_number']}")
                if view["match"]["game_number"] == 1:
                    shot(page, f"mate-table-results-{size}")
            click_if_still_there(page, "#ready-btn:not([disabled])")
            continue
        if not page.locator(MOVE_NOW).count():
            page.wait_for_timeout(30)
            continue
        view = current_view(states)
        assert view is not None
        legal_cards = [a["card"] for a in view["legal"] if a["type"] in ("play", "foreplace")]
        # The page draws the latest state it was sent: what it offers is view.legal.
        for _ in range(50):
            if offered(page) == legal_cards:
                break
            page.wait_for_timeout(20)
            view = current_view(states)
            legal_cards = [a["card"] for a in view["legal"] if a["type"] in ("play", "foreplace")]
        assert offered(page) == legal_cards
        assert page.locator("#mate-decline").count() == ({"type": "decline"} in view["legal"])
        assert drawn(page, "#hand [data-card]") == view["board"]["hand"]
        bottom, screen = page.evaluate(HAND_BOTTOM)
        assert bottom <= screen, (moves, view["board"]["phase"], bottom)
        snapshots.append((view["match"]["game_number"], page.evaluate(SNAPSHOT)))
        if moves in (0, 6, 14) or (view["board"]["phase"] == "play" and "play" not in shots):
            shots.add("play")
            assert_no_horizontal_overflow(page)
            shot(page, f"mate-table-{size}-{moves}")
        if spectator is None and view["board"]["phase"] == "play" and size == "desktop":
            # Someone watching sees both unplayed sets and no face-down card.
            spectator = open_page(SIZES[size])
            spectator.goto(link)
            spectator.wait_for_selector(".mate-board")
            assert not spectator.locator("#hand [data-card]").count()
            assert not spectator.locator(".mate-fd [data-card]").count()
            assert spectator.locator(".mate-unplayed__cards").count() == 2
            shot(spectator, "mate-table-spectator")
        if moves == 0:
            # The first move by keyboard: the frame gives the first legal card the focus;
            # an arrow key moves along the hand, Enter plays.
            focused = "document.activeElement.classList.contains('card--legal')"
            page.wait_for_function(focused)
            page.keyboard.press("ArrowRight")
            assert page.evaluate(focused)
            chosen = page.evaluate("document.activeElement.dataset.card")
            page.keyboard.press("Enter")
            page.wait_for_function(
                f"!document.querySelector('#hand [data-card=\"{chosen}\"]')")
        else:
            buttons = page.locator(MOVE_NOW)
            buttons.nth(rng.randrange(buttons.count())).click()
        moves += 1
        page.wait_for_selector("#hand:not(.hand--busy)")

    assert_no_horizontal_overflow(page)
    shot(page, f"mate-table-match-over-{size}")
    final = current_view(states)
    assert final is not None and final["match"]["over"]
    assert len(final["match"]["scores"]) == 4
    # The scoreboard shows the four games' scores and the totals the server sent.
    rows = page.eval_on_selector_all(
        "#mate-scoreboard tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText))")
    for row, scores in zip(rows[:4], final["match"]["scores"], strict=True):
        assert [int(re.match(r"\d+", cell).group()) for cell in row[1:]] == scores
    assert rows[4][1:] == [str(t) for t in final["match"]["totals"]]
    assert page.locator("#results .mate-reveal").count() == 1

    # The bot's face-down card of each game, known once the game was over: before that it
    # was drawn only among the bot's unplayed cards, and never named.
    reveals: dict[int, str | None] = {}
    for state in states:
        g = state.get("game")
        if g and g["board"]["phase"] == "over":
            reveals[g["match"]["game_number"]] = g["board"]["reveal"]["foreplaced"][1]
    assert sorted(reveals) == [1, 2, 3, 4]
    for number, snap in snapshots:
        hidden = reveals[number]
        if hidden is None:
            continue
        places = {where for code, where in snap["cards"] if code == hidden}
        assert places <= {"unplayed:1"}, (number, hidden, places)
        started = max(i for i, line in enumerate(snap["log"]) if line.startswith(f"Game {number}:"))
        text = " ".join(snap["log"][started:]) + " " + snap["prompt"]
        assert words(hidden) not in text, (number, hidden)
    assert moves >= 8
