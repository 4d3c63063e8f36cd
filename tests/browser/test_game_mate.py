"""The Mate client module (static/js/games/mate/index.js) in Chromium.

First, real engine views (tests/browser/mate_views.py) drawn by the module on a harness page
laid out like the table: what the hand offers is exactly ``view.legal`` and a click sends
the action unchanged, the opponent's face-down card is never told apart from its unplayed
cards, the scoreboard and the results say what the server said, and nothing scrolls
sideways at 390 px. Screenshots of each moment at 1280x900 and 390x844 go to
test-artifacts/mate-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import ROOT, assert_no_horizontal_overflow, shot
from .mate_views import HARNESS_ORIGIN, scenarios, serve_harness

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
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
            mine = f'.mate-seatpanel[data-seat="{seat}"] .mate-fd [data-card]'
            assert drawn(page, mine) == [board["face_down"]], name


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
    disabled = page.eval_on_selector_all("#hand button.move",
                                         "els => els.map(e => e.getAttribute('aria-disabled'))")
    assert disabled and set(disabled) == {"true"}
    page.click("#hand button.move.card--legal >> nth=0", force=True)
    page.click("#mate-decline", force=True)
    assert page.evaluate("window.acted") == []
    # Waiting for the other seat: no move offered.
    page = harness("answer-waiting")
    assert not page.locator("#hand button.move").count()


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
            f"Bob \u00b7 bot wins the match by {over['match']['margin']}." if winner == 1
            else f"You win the match by {over['match']['margin']}.")
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
        "Game 3: Bob \u00b7 bot gave overmate to you on move 10")
    assert page.inner_text("#mate-say") == (
        "Overmate on move 10: you have neither a spade nor a ace to answer the ace of spades; "
        "Bob \u00b7 bot scores 11 \u00d7 (10 + 1) \u00d7 2 = 242.")
    page = harness("mated-on-10", "phone", "&results")
    assert page.inner_text(".mate-headline") == "Game 1: Bob \u00b7 bot mated you on move 10"
    assert "your only answer would be the ace of diamonds again" in page.inner_text("#mate-say")
    assert drawn(page, '.mate-reveal__seat[data-seat="0"] .mate-facedown') == ["KS"]
    shot(page, "mate-mated-on-10-results-phone")
    # A game in progress and those to come.
    page = harness("game2-start")
    rows = page.eval_on_selector_all("#mate-scoreboard tbody tr",
                                     "rows => rows.map(r => r.innerText)")
    assert "playing" in rows[1] and "to come" in rows[2] and "to come" in rows[3]
    assert words("QH") not in page.inner_text("#mate-scoreboard")  # short names: Q♥ mate
