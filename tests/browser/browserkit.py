"""What the browser tests do on the pages, in one place: create a table, take turns, look."""

from __future__ import annotations

import contextlib
import os
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from serverkit import free_port

if TYPE_CHECKING:
    from playwright.sync_api import Page, WebSocketRoute

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
SUITS = "CDHS"
RANKS = "23456789TJQKA"
MATCH_SECONDS = 120.0

# Anything the player may click now: a legal card, or a hunt button.
MOVES = ("#hand button.card--legal:not([aria-disabled]), #play-none:not([disabled]), "
         "#play-both:not([disabled])")


#: True once no finite CSS animation is still running (a panel fading in, a card arriving).
SETTLED = ("document.getAnimations().every(a => a.playState !== 'running'"
           " || !isFinite(a.effect.getComputedTiming().endTime))")


#: Screenshots are for a person to open. CI keeps no files, so .ci/run sets SCREENSHOTS=0:
#: there the suite's ~260 full-page shots would only cost time (about a minute of it).
SCREENSHOTS = os.environ.get("SCREENSHOTS", "1") != "0"


def shot(page: Page, name: str, *, full_page: bool = True) -> Path:
    """Save a screenshot (of the whole page, or of the window) as test-artifacts/<name>.png,
    once animations have ended (the wait is kept with SCREENSHOTS=0: the next step of a test
    may count on it)."""
    with contextlib.suppress(Exception):  # a page that keeps animating is shot as it is
        page.wait_for_function(SETTLED, timeout=3000)
    path = ARTIFACTS / f"{name}.png"
    if SCREENSHOTS:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(path), full_page=full_page)
    return path


def create_table(page: Page, base: str, name: str, *, games: int = 1,
                 bots: tuple[int, ...] = (1, 2, 3), timer: str = "0",
                 open_discards: bool = False, bot_kinds: dict[int, str] | None = None,
                 game: str = "dingo") -> str:
    """Fill in the home page form and create; return the table link the new table shows.

    ``bot_kinds``: the strength picked per bot seat (a kind of the game's ``bots`` in
    ``GET /api/games``). ``games`` and ``open_discards`` are Dingo's options (the form's
    fields are built from ``GET /api/games``, each named ``#opt-<option>``).
    """
    bot_kinds = bot_kinds or {}
    page.goto(f"{base}/")
    page.wait_for_selector("#create-form[data-ready]")
    page.fill("#name", name)
    if page.locator(f"#game-{game}").is_visible():
        page.check(f"#game-{game}")
    if game == "dingo":
        page.fill("#opt-games_to_win", str(games))
        page.set_checked("#opt-open_discards", open_discards)
    page.select_option("#timer", timer)
    seats = page.locator('input[name="bot"]').count()
    for seat in range(seats):
        page.set_checked(f'input[name="bot"][value="{seat}"]', seat in bots)
        if seat in bots and seat in bot_kinds:
            page.select_option(f'select[data-seat="{seat}"]', bot_kinds[seat])
    page.click("#create-btn")
    # One click: the table opens, the creator sits down by itself, and the lobby shows the link.
    page.wait_for_url("**/t/*")
    page.wait_for_selector(".seat--me")
    return page.input_value("#lobby .link-box input")


class HeldIntents:
    """The page's socket goes through the test, and its messages that contain ``marker``
    are held on their way to the server while ``holding`` (an intent that crosses another
    seat's), until ``release()``."""

    def __init__(self, page: Page, marker: str, *, holding: bool = True) -> None:
        self.page, self.marker, self.holding = page, marker, holding
        self.held: list[Callable[[], None]] = []
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: WebSocketRoute) -> None:
        to_server = ws.connect_to_server()

        def up(message: str | bytes) -> None:
            if self.holding and self.marker in str(message):
                self.held.append(lambda: to_server.send(message))
            else:
                to_server.send(message)

        ws.on_message(up)
        to_server.on_message(ws.send)

    def wait(self) -> None:
        """Until one message is held (the route hears it while Playwright waits)."""
        deadline = time.monotonic() + 5
        while not self.held:
            assert time.monotonic() < deadline, f"no {self.marker} was sent"
            self.page.wait_for_timeout(20)

    def release(self) -> None:
        """Send what is held, and hold nothing from now on."""
        self.holding = False
        while self.held:
            self.held.pop(0)()


def sit_down(page: Page, link: str, name: str, seat: int) -> None:
    """Open a table's link and sit at ``seat`` as ``name`` (as a friend given the link)."""
    page.goto(link)
    page.fill("#sit-name", name)
    page.click(f'.seat[data-seat="{seat}"] button:text("Sit here")')
    page.wait_for_selector(".seat--me")


def go_to_table(page: Page) -> None:
    """After creating: the creator is at the table, seated (creating goes straight there)."""
    page.wait_for_selector(".seat--me")


#: Every seat name and scoreboard heading (of any game) cut short: its text wider than its box
#: (Dingo's heads clip their name in their own box, under the seat's avatar).
CUT = ("[...document.querySelectorAll('.seat__name, #scoreboard th, #scoreboard .seat-col__name')]"
       ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)")

#: Text that a line break splits inside a word: for each element, the characters
#: on both sides of a break that are not spaces (empty: no word broken).
WORDS_BROKEN = """(selector) => [...document.querySelectorAll(selector)].flatMap((el) => {
  const node = el.firstChild;
  if (el.getBoundingClientRect().width <= 1) return [];  // visually hidden (screen readers)
  if (!node || node.nodeType !== Node.TEXT_NODE) return [];
  const text = node.textContent, range = document.createRange(), broken = [];
  let top = null;
  for (let i = 0; i < text.length; i++) {
    range.setStart(node, i); range.setEnd(node, i + 1);
    const rect = range.getClientRects()[0];
    if (!rect) continue;
    if (top !== null && rect.top > top + 2 && text[i] !== " " && text[i - 1] !== " ")
      broken.push(text.slice(0, i) + "|" + text.slice(i));
    top = rect.top;
  }
  return broken;
})"""

#: Watches the board for the whole game: every "Last hunt" it shows, and whether the
#: hunt banner ever covers the dead rabbits or the last hunt (``window.boardWatch``).
WATCH_BOARD = """() => {
  const seen = window.boardWatch = {lastHunts: [], overlaps: [], banners: 0};
  const meets = (a, b) => !(a.bottom <= b.top || b.bottom <= a.top || a.right <= b.left
                            || b.right <= a.left);
  new MutationObserver(() => {
    const last = document.querySelector('#last-hunt .spot__count');
    if (last && seen.lastHunts[seen.lastHunts.length - 1] !== last.textContent) {
      seen.lastHunts.push(last.textContent);
    }
    const flash = document.querySelector('#flash');
    if (!flash || flash.hidden) return;
    seen.banners += 1;
    for (const sel of ['.board__dead', '#last-hunt']) {
      const other = document.querySelector(sel);
      if (other && meets(flash.getBoundingClientRect(), other.getBoundingClientRect())) {
        seen.overlaps.push(sel);
      }
    }
  }).observe(document.body, {childList: true, subtree: true, attributes: true,
                             attributeFilter: ['hidden']});
}"""


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


SERVER_START_SECONDS = 30.0


def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as res:
            return bool(res.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def app_server(directory: Path, **settings: str) -> Iterator[str]:
    """The app under uvicorn on a SQLite file in ``directory``, migrated: its base URL.

    ``settings`` are environment variables (``BOT_DELAY_SECONDS="0.05"``...); the database
    is ``directory/dingo.db`` unless ``DATABASE_URL`` is given. Stopped on exit.
    """
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{directory / 'dingo.db'}",
           "LOG_LEVEL": "WARNING", **settings}
    subprocess.run([sys.executable, "-m", "app.cli", "migrate"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    port = free_port()
    log_path = directory / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "app.main:create_app",
             "--host", "127.0.0.1", "--port", str(port), "--no-access-log"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_SECONDS
    while not _up(f"{base}/healthz"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the server did not start:\n{log_path.read_text()[-3000:]}", pytrace=False)
        time.sleep(0.1)
    try:
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
