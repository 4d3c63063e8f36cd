"""What the browser tests do on the pages, in one place: create a table, take turns, look."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
SUITS = "CDHS"
RANKS = "23456789TJQKA"
MATCH_SECONDS = 120.0

# Anything the player may click now: a legal card, or a hunt button.
MOVES = ("#hand button.card--legal:not([disabled]), #play-none:not([disabled]), "
         "#play-both:not([disabled])")


#: True once no finite CSS animation is still running (a panel fading in, a card arriving).
SETTLED = ("document.getAnimations().every(a => a.playState !== 'running'"
           " || !isFinite(a.effect.getComputedTiming().endTime))")


def shot(page: Page, name: str) -> Path:
    """Save a full-page screenshot as test-artifacts/<name>.png, once animations have ended."""
    with contextlib.suppress(Exception):  # a page that keeps animating is shot as it is
        page.wait_for_function(SETTLED, timeout=3000)
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def create_table(page: Page, base: str, name: str, *, games: int = 1,
                 bots: tuple[int, ...] = (1, 2, 3), timer: str = "0",
                 open_discards: bool = False) -> str:
    """Fill in the home page form; return the table link it shows."""
    page.goto(f"{base}/")
    page.fill("#name", name)
    page.fill("#games", str(games))
    page.select_option("#timer", timer)
    page.set_checked("#open-discards", open_discards)
    for seat in range(4):
        page.set_checked(f'input[name="bot"][value="{seat}"]', seat in bots)
    page.click("#create-btn")
    page.wait_for_selector("#created:not([hidden])")
    return page.input_value("#table-link")


def go_to_table(page: Page) -> None:
    """From the home page after creating: open the table; the creator sits down by itself."""
    page.click("#open-table")
    page.wait_for_selector(".seat--me")


def hand(page: Page) -> list[str]:
    codes: list[str] = page.eval_on_selector_all("#hand [data-card]",
                                                 "els => els.map(e => e.dataset.card)")
    return codes


def shown_cards(page: Page) -> set[str]:
    """Every card the page shows anywhere: drawn cards and card names in text."""
    drawn: list[str] = page.eval_on_selector_all("[data-card]",
                                                 "els => els.map(e => e.dataset.card)")
    named: list[str] = page.eval_on_selector_all(".cardname",
                                                 "els => els.map(e => e.textContent)")
    return set(drawn) | {code_of(text) for text in named}


def code_of(name: str) -> str:
    """"10♠" -> "TS"."""
    symbols = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}
    rank = name[:-1]
    return ("T" if rank == "10" else rank) + symbols[name[-1]]


def sort_key(code: str) -> tuple[int, int]:
    return SUITS.index(code[1]), RANKS.index(code[0])


def my_turn(page: Page) -> bool:
    return page.locator(MOVES).count() > 0


def take_turn(page: Page, rng: random.Random) -> bool:
    """Click one of the moves on offer, if any; True when a move was made."""
    moves = page.locator(MOVES)
    count = moves.count()
    if not count:
        return False
    moves.nth(rng.randrange(count)).click()
    return True


def click_if_still_there(page: Page, selector: str) -> None:
    """Click ``selector`` unless it goes away first.

    The ready button leaves the page when the next game starts on its own
    (after the pause, or the others' votes); waiting for it then would wait
    for the end of the next game.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.click(selector, timeout=2_000)
    except PlaywrightTimeout:
        assert not page.locator(selector).count(), f"{selector} stayed but took no click"


def play_match(page: Page, rng: random.Random,
               before_move: Callable[[Page, int], bool] | None = None) -> int:
    """Play this seat by clicking until the match is over (bots play the others); return moves.

    ``before_move(page, moves)`` looks at the page before each move; it returns
    True when it made the move itself (say, by keyboard).
    """
    deadline = time.monotonic() + MATCH_SECONDS
    moves = 0
    while not page.locator("#rematch-btn").count():
        assert time.monotonic() < deadline, "the match did not end in time"
        if page.locator("#ready-btn:not([disabled])").count():
            click_if_still_there(page, "#ready-btn:not([disabled])")
        elif my_turn(page):
            if (before_move and before_move(page, moves)) or take_turn(page, rng):
                moves += 1
                page.wait_for_selector("#hand:not(.hand--busy)")
        else:
            page.wait_for_timeout(40)
    return moves


def assert_no_horizontal_overflow(page: Page) -> None:
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]}px wide in a {widths[1]}px viewport"
