"""Browser tests: the real server in a subprocess, Debian's Chromium driven by Playwright.

Nothing is downloaded: Playwright launches /usr/bin/chromium (the `chromium_path`
fixture of tests/conftest.py skips without it, and fails under CI=true).
Screenshots go to test-artifacts/ at the repository root (not with SCREENSHOTS=0, as in CI).

The browser, Playwright and the server are package-scoped: Playwright's sync API
keeps an event loop marked as running while it is open, so it must be closed
before the asyncio tests in other directories run.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import (
    CUT,
    DESKTOP,
    WATCH_BOARD,
    app_server,
    create_table,
    go_to_table,
    hand,
    play_match,
    shot,
    sort_key,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]
@pytest.fixture(scope="package")
def playwright_api(chromium_path: str) -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "playwright is not installed (pip install -e '.[dev]')"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason} (required when CI=true)", pytrace=False)
        pytest.skip(reason)
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="package")
def browser(playwright_api: Any, chromium_path: str) -> Iterator[Browser]:
    browser = playwright_api.chromium.launch(executable_path=chromium_path, args=LAUNCH_ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="package")
def server(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app under uvicorn on a free port, with a fresh SQLite file and quick bots."""
    with app_server(tmp_path_factory.mktemp("browser-server"),
                    BOT_DELAY_SECONDS="0.05", NEXT_GAME_SECONDS="1",
                    # Short, so a dropped player's stand-in and the host handover can be seen.
                    RECONNECT_GRACE_SECONDS="6") as base:
        yield base


@pytest.fixture(scope="package")
def patient_server(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``server``, but the next game waits for every vote (10 minutes): for a test that acts
    between games, which on a loaded machine can take longer than ``server``'s 1 s pause."""
    with app_server(tmp_path_factory.mktemp("patient-server"),
                    BOT_DELAY_SECONDS="0.05", NEXT_GAME_SECONDS="600") as base:
        yield base


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """open_page(viewport=DESKTOP) -> a page in a fresh context (its own storage: one person).

    Uncaught script errors on any page fail the test.
    """
    contexts = []
    errors: list[str] = []

    def make(viewport: dict[str, int] | None = None) -> Page:
        context = browser.new_context(viewport=viewport or DESKTOP)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, "script errors in the page:\n" + "\n".join(errors)



#: Whether every button of the results panel is in sight when the panel is too short for
#: what it says (squeezed to 240 px here, as a long "why" in a short felt) and scrolls.
BUTTONS_IN_SIGHT = """() => {
  const panel = document.querySelector('#results');
  panel.style.maxHeight = '240px';
  const box = panel.getBoundingClientRect();
  const inside = [...panel.querySelectorAll('.btn-row > *')].every((button) => {
    const r = button.getBoundingClientRect();
    return r.top >= box.top && r.bottom <= box.bottom + 0.5;
  });
  panel.style.maxHeight = '';
  return inside;
}"""

#: Each seat's avatar on its plate and over its scoreboard column: [class, letter] pairs.
AVATARS = """() => [0, 1, 2, 3].map((seat) => [
  document.querySelector(`.seat[data-seat="${seat}"] .avatar`),
  document.querySelectorAll('#scoreboard-table thead th')[seat + 1]?.querySelector('.avatar'),
].map((a) => a && [a.className, a.textContent]))"""


@pytest.fixture(scope="package")
def finished_match(browser: Browser, server: str) -> Iterator[dict[str, Any]]:
    """One match of one game played on the table page by clicking; what the player saw of it.

    Seat 0 is a person ("Ann", this page); bots fill seats 1-3. Every move
    the page offers is checked on the way: the hand is sorted, exactly the
    legal cards can be clicked, and no ace is ever offered as a discard.
    """
    context = browser.new_context(viewport=DESKTOP,
                                  permissions=["clipboard-read", "clipboard-write"])
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    seen: dict[str, Any] = {"prompts": [], "keyboard": None, "why_not": None}

    link = create_table(page, server, "Ann")
    shot(page, "table-created")
    page.click("#copy-link")
    page.wait_for_selector("#copy-link:text('Copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    go_to_table(page)
    page.wait_for_selector("#start-btn:not([disabled])")
    shot(page, "table-lobby")
    page.evaluate(WATCH_BOARD)
    page.click("#start-btn")

    def before_move(page: Page, moves: int) -> bool:
        prompt = page.inner_text("#prompt")
        seen["prompts"].append(prompt)
        cards = hand(page)
        assert cards == sorted(cards, key=sort_key), f"hand not sorted: {cards}"
        states = page.eval_on_selector_all(
            "#hand button",
            "els => els.map(e => [e.dataset.card, e.getAttribute('aria-disabled') === 'true',"
            " e.classList.contains('card--legal')])")
        for code, disabled, legal in states:
            assert disabled != legal, f"{code}: legal={legal} but disabled={disabled}"
            if prompt.startswith("Discard"):
                assert not (code[0] == "A" and legal), f"{code} offered as a discard"
        names = {"Discard": "table-discard", "Pass": "table-pass"}
        first_word = prompt.split()[0]
        if first_word in names and names[first_word] not in seen:
            seen[names[first_word]] = shot(page, names[first_word])
        if page.locator("#play-none").count() and "table-hunt" not in seen:
            seen["table-hunt"] = shot(page, "table-hunt")
        if moves and seen["why_not"] is None and page.locator("#hand .card--illegal").count():
            # A card that cannot be played, pressed from the keyboard, says why.
            page.focus("#hand .card--illegal")
            page.keyboard.press("Enter")
            toast = page.locator(".toast--error").last
            toast.wait_for()
            seen["why_not"] = toast.inner_text()
            page.wait_for_selector("#hand:not(.hand--busy)")
        if moves == 1:
            page.dblclick(".board__rabbits .card")
            seen["selected_by_double_click"] = page.evaluate("getSelection().toString()")
        if moves == 0:
            seen["announced"] = page.locator("#announce").aria_snapshot()
            # The first move by keyboard: the first legal card has the focus;
            # move along with an arrow key, then press Enter.
            assert page.evaluate("document.activeElement.classList.contains('card--legal')")
            page.keyboard.press("ArrowRight")
            for _ in range(10):  # arrows visit every card: on to the next that can be played
                if page.evaluate("document.activeElement.classList.contains('card--legal')"):
                    break
                page.keyboard.press("ArrowRight")
            chosen = page.evaluate("document.activeElement.dataset.card")
            page.keyboard.press("Enter")
            page.wait_for_function(f"!document.querySelector('#hand [data-card=\"{chosen}\"]')")
            seen["keyboard"] = chosen
            return True
        return False

    try:
        moves = play_match(page, random.Random(6), before_move)
    except Exception:
        shot(page, "failed-finished-match")  # what the page showed when the game got stuck
        raise
    page.wait_for_selector("#record-link")
    shot(page, "table-results")
    seen["buttons_in_sight"] = page.evaluate(BUTTONS_IN_SIGHT)
    seen["penalty_column"] = page.locator(".result-table tbody td:nth-child(3)").all_inner_texts()
    seen["plate_penalties"] = [
        page.inner_text(f'.seat[data-seat="{seat}"] .pile-val--penalty b') for seat in range(4)]
    seen["why"] = page.inner_text("#why")
    seen["why_seats"] = page.locator("#why .why__seat").all_inner_texts()
    seen["board"] = page.evaluate("window.boardWatch")
    seen["exchanges"] = (page.locator("#exchanges .exchange").all_inner_texts(),
                         page.locator("#log li").all_inner_texts())
    seen["cut"] = page.evaluate(CUT)
    seen["avatars"] = page.evaluate(AVATARS)
    page.click("#hide-results")
    page.click("#hunts summary")
    seen["hunt_rows"] = page.locator("#hunts-list .hunts__row").all_inner_texts()
    shot(page, "table-hunts")
    page.click("#show-results")
    result = {
        "name": "Ann",
        "link": link,
        "copied": copied,
        "moves": moves,
        "seen": seen,
        "winner_line": page.inner_text(".winner-line"),
        "scoreboard": page.eval_on_selector_all(
            "#scoreboard-table tr", "rows => rows.map(r => [...r.cells].map("
            "c => (c.querySelector('.seat-col__name') || c).textContent))"),
        "record_url": page.get_attribute("#record-link", "href"),
    }
    # A rematch: the same seats, a new match from its first game.
    page.click("#rematch-btn")
    page.wait_for_selector("#overlay", state="hidden")
    result["after_rematch"] = page.inner_text("#scoreboard-table")
    context.close()
    assert not errors, f"script errors on the table page: {errors}"
    yield result
