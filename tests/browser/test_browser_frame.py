"""The table frame with games other than Dingo, and the home page's game pick.

The frame (static/js/table.js) loads the table's game module; these check it with the
two-seat games end to end through the home page: two plates (bottom and top), the moves
the module offers, a game played to its results panel, and simultaneous decisions (both
plates glow at once). The home page builds its form from GET /api/games and falls back to
Dingo's form and body of old when the server has none.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import (
    CUT,
    DESKTOP,
    PHONE,
    SETTLED,
    HeldIntents,
    assert_no_horizontal_overflow,
    create_table,
    shot,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request, Route

#: Any move a game module offers: its legal moves are buttons with class `move`.
MOVES = ("#hand .move:not([aria-disabled]):not([disabled]), #actions .move:not([disabled]), "
         "#center .move:not([disabled]):not([aria-disabled])")


#: Counts, in the page, each time both plates start to glow together (``window.plateWatch``).
#: The page is watched from inside: every state the server sends is drawn at once, and a
#: bot answers a simultaneous decision 50 ms later, sooner than a loaded machine's test
#: process can look; a sample taken from outside misses the moment.
WATCH_PLATES = """() => {
  const seen = window.plateWatch = {both: 0, lit: 0};
  new MutationObserver(() => {
    const lit = document.querySelectorAll('.seat--turn').length;
    if (lit === 2 && seen.lit !== 2) seen.both += 1;
    seen.lit = lit;
  }).observe(document.body, {childList: true, subtree: true});
}"""


def play_one_game(page: Page, rng: random.Random, seconds: float = 60.0) -> dict[str, int]:
    """Click moves until the results panel shows; how many moves were made."""
    deadline = time.monotonic() + seconds
    seen = {"moves": 0}
    while not page.locator("#ready-btn, #rematch-btn").count():
        assert time.monotonic() < deadline, "the game did not end in time"
        moves = page.locator(MOVES)
        if moves.count():
            moves.nth(rng.randrange(moves.count())).click()
            seen["moves"] += 1
            page.wait_for_selector("#hand:not(.hand--busy)")
        else:
            page.wait_for_timeout(40)
    return seen


def test_a_two_seat_game_is_played_through_the_frame(server: str,
                                                      open_page: Callable[..., Page]) -> None:
    page = open_page()
    create_table(page, server, "Ann", game="mate", bots=(1,))
    assert page.locator(".seat").count() == 2
    assert page.locator("#pos-bottom .seat--me").count() == 1
    assert page.locator('#pos-top .seat--bot[data-seat="1"]').count() == 1
    assert not page.locator("#pos-left .seat, #pos-right .seat").count()
    page.click("#start-btn")
    page.wait_for_selector("#scoreboard-table, #scoreboard table")
    seen = play_one_game(page, random.Random(4))
    assert seen["moves"] > 0
    assert page.locator("#results").is_visible()
    assert "Mate table" in page.title()
    shot(page, "frame-mate-results")


def test_simultaneous_decisions_light_both_plates(server: str,
                                                  open_page: Callable[..., Page]) -> None:
    page = open_page(PHONE)
    create_table(page, server, "Ann", game="divide", bots=(1,))
    page.evaluate(WATCH_PLATES)
    page.click("#start-btn")
    seen = play_one_game(page, random.Random(5))
    # Each of your commits decided one battle, and every battle began with both plates lit.
    assert seen["moves"] == 10
    assert page.evaluate("window.plateWatch.both") == seen["moves"], (
        "Divide and Conquer's battles are decided by both at once")
    assert_no_horizontal_overflow(page)
    shot(page, "frame-divide-phone")


#: The longest name a seat takes (24 characters), with no space to break at.
LONG_NAME = "Bartholomew-Featherstone"

#: How a move is told apart from the others: its id, card, tile or words.
KEY_OF = "e => e.id || e.dataset.card || e.dataset.key || e.textContent"

#: Why the focused move would not be seen: None when it shows a focus ring (styled
#: otherwise than a move like it without the focus).
FOCUS_UNSEEN = """() => {
  const a = document.activeElement;
  if (!a || !a.matches(':focus-visible')) return 'no visible focus';
  const look = (e) => { const s = getComputedStyle(e);
    return [s.outlineStyle, s.outlineWidth, s.boxShadow, s.transform].join('|'); };
  const twin = [...a.parentElement.children].find(e => e !== a && e.className === a.className);
  return !twin || look(a) !== look(twin) ? null : 'the focused move looks like the others';
}"""


#: Keeps every announcement for screen readers (``window.announced``).
WATCH_ANNOUNCE = """() => {
  const said = window.announced = [];
  const region = document.querySelector('#announce');
  new MutationObserver(() => said.push(region.textContent))
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""


def keyboard_to(page: Page, key: str) -> None:
    """Move the focus to the move whose KEY_OF is ``key`` with keys only: arrows along
    the hand, else Shift+Tab and Tab through the page."""
    at = f"(() => {{ const e = document.activeElement; return e && ({KEY_OF})(e) === {key!r}; }})()"
    in_hand = page.evaluate("document.activeElement && document.querySelector('#hand')"
                            ".contains(document.activeElement)")
    hand_keys = page.eval_on_selector_all("#hand button", f"els => els.map({KEY_OF})")
    if in_hand and key in hand_keys:
        for _ in range(len(hand_keys)):
            if page.evaluate(at):
                return
            page.keyboard.press("ArrowRight")
    for press in ["Shift+Tab"] * 40 + ["Tab"] * 80:
        if page.evaluate(at):
            return
        page.keyboard.press(press)
    raise AssertionError(f"no key reaches the move {key!r}")


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("game", ["dingo", "mate", "divide", "bingo"])
def test_every_game_is_played_with_the_keyboard_alone(
        patient_server: str, open_page: Callable[..., Page], game: str, size: str) -> None:
    """A whole game, from Start to its results, by keys alone: the frame gives your turn's
    first move the focus, the focus is seen, arrows and Tab reach every other move, Enter
    plays it, screen readers hear that it is your turn, and the results take the focus.
    The longest name is never cut short, and a phone never scrolls sideways. On
    ``patient_server``: the results stay while the test turns the phone (``server`` deals the
    next game after 1 s, and on a loaded machine the results closed under it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = open_page(PHONE if size == "phone" else DESKTOP)
    create_table(page, patient_server, LONG_NAME, game=game,
                 bots=(1, 2, 3) if game == "dingo" else (1,))
    page.evaluate(WATCH_ANNOUNCE)
    keyboard_to(page, "start-btn")
    page.keyboard.press("Enter")
    rng = random.Random(8)
    moves = 0
    deadline = time.monotonic() + 90
    while not page.locator("#ready-btn, #rematch-btn").count():
        assert time.monotonic() < deadline, "the game did not end in time"
        if not page.locator(MOVES).count():
            page.wait_for_timeout(40)
            continue
        if moves == 0:
            # A live region in the accessibility tree; it said "Your turn." (a bot's news
            # may have followed at once: a simultaneous decision).
            assert page.locator("#announce").aria_snapshot().startswith("- status")
            said = page.evaluate("window.announced")
            assert any("Your turn." in line for line in said), said
        # Your turn: the focus is on a move already, and it shows.
        try:
            page.wait_for_function(f"document.activeElement?.matches({MOVES!r})")
        except PlaywrightTimeout:
            shot(page, f"keyboard-{game}-{size}-no-focus")
            raise AssertionError("your turn, and the focus is on " + page.evaluate(
                "document.activeElement.outerHTML.slice(0, 300)")) from None
        page.wait_for_function(SETTLED)
        assert page.evaluate(FOCUS_UNSEEN) is None, page.evaluate(FOCUS_UNSEEN)
        offered = page.eval_on_selector_all(MOVES, f"els => els.map({KEY_OF})")
        keyboard_to(page, rng.choice(offered))
        page.keyboard.press("Enter")
        moves += 1
        # Its answer came (the game's last move leaves the hand hidden under the results).
        page.wait_for_selector("#hand:not(.hand--busy)", state="attached")
        if size == "phone":
            assert_no_horizontal_overflow(page)
    assert moves > 0
    assert page.locator("#results").is_visible()
    # The keys go on from the results: their first button has the focus, and what they
    # cover (a bot's "Remove bot") is out of Tab's way.
    page.wait_for_function("document.querySelector('#overlay').contains(document.activeElement)")
    assert page.evaluate("document.activeElement.id") in ("ready-btn", "rematch-btn")
    assert page.evaluate("[...document.querySelectorAll('#felt > :not(#overlay)')]"
                         ".every((el) => el.inert)")
    # On a phone they fill the screen: the page behind them is out of the way too.
    behind = page.evaluate("[...document.querySelectorAll('.topbar, #tray, .side')]"
                           ".map((el) => el.inert)")
    assert behind == [size == "phone"] * 3, behind
    if size == "phone":  # turned to a wide screen, the results no longer fill it
        page.set_viewport_size(DESKTOP)
        page.wait_for_function("![...document.querySelectorAll('.topbar, #tray, .side')]"
                               ".some((el) => el.inert)")
        page.set_viewport_size(PHONE)
        page.wait_for_function("document.querySelector('.side').inert")
    assert page.evaluate(CUT) == [], "a name is cut short"
    if size == "phone":
        assert_no_horizontal_overflow(page)
    shot(page, f"keyboard-{game}-{size}")


@pytest.mark.parametrize(("game", "size"), [("dingo", "desktop"), ("dingo", "phone"),
                                          ("mate", "phone"), ("divide", "desktop"),
                                          ("bingo", "phone")])
def test_a_double_click_on_a_card_selects_no_text(server: str, open_page: Callable[..., Page],
                                                  game: str, size: str) -> None:
    """Double-clicking a card to play it (a habit from other card sites): the first click
    plays it, the second lands where it was, and no text of the page gets selected."""
    page = open_page(PHONE if size == "phone" else DESKTOP)
    create_table(page, server, "Ann", game=game, bots=(1, 2, 3) if game == "dingo" else (1,))
    page.click("#start-btn")
    # Where the last card to play is (a bot's move may redraw the hand: the same place).
    x, y = page.wait_for_function("""() => {
      const card = [...document.querySelectorAll(
        '#hand .move:not([aria-disabled]):not([disabled])')].pop();
      const box = card && card.getBoundingClientRect();
      return box && box.width ? [box.x + box.width / 2, box.y + box.height / 2] : null;
    }""").json_value()
    page.mouse.dblclick(x, y)
    page.wait_for_selector("#hand:not(.hand--busy)")
    assert page.evaluate("getSelection().toString()") == ""


def test_a_move_on_its_way_keeps_the_hand_busy_until_its_answer(
        server: str, open_page: Callable[..., Page]) -> None:
    """Divide and Conquer, two people: Ann's commit is held on its way to the server while
    Bea commits. Bea's commit reaching Ann's page is not the answer to Ann's: her cards are
    not offered again (a second commit would be refused as stale); once hers arrives, the
    battle is fought and the next one offers her cards, with no error."""
    ann = open_page(PHONE)
    commits = HeldIntents(ann, '"commit"', holding=False)
    link = create_table(ann, server, "Ann", game="divide", bots=())
    bea = open_page(PHONE)
    bea.goto(link)
    bea.fill("#sit-name", "Bea")
    bea.click('.seat[data-seat="1"] button:text("Sit here")')
    ann.click("#start-btn:not([disabled])")
    bea.wait_for_selector(MOVES)
    commits.holding = True
    ann.click(MOVES)
    ann.wait_for_selector("#hand.hand--busy")
    commits.wait()
    bea.click(MOVES)
    ann.wait_for_selector(".seat[data-seat='1'] .badge:text('card down')")
    assert ann.locator(MOVES).count() == 0, "Ann's cards are offered again"
    assert ann.locator("#hand.hand--busy").count() == 1
    commits.release()
    ann.wait_for_function("document.querySelector('#log').textContent.includes('Battle 1:')")
    ann.wait_for_selector(MOVES)
    assert ann.locator(".toast--error").count() == 0


def test_the_home_page_posts_the_game_and_its_options(server: str,
                                                      open_page: Callable[..., Page]) -> None:
    page = open_page()
    bodies: list[dict[str, Any]] = []

    def keep(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/api/tables"):
            bodies.append(json.loads(request.post_data or "{}"))

    page.on("request", keep)
    create_table(page, server, "Ann", games=3, timer="60", open_discards=True, bots=(2, 3))
    bots = [{"seat": 2, "kind": "heuristic"}, {"seat": 3, "kind": "heuristic"}]
    assert bodies == [{"game": "dingo",
                       "options": {"games_to_win": 3, "points_to_win": None, "open_discards": True},
                       "turn_seconds": 60, "bots": bots}]
    assert page.locator(".seat").count() == 4


def test_how_a_game_goes_follows_the_game_picked(server: str,
                                                open_page: Callable[..., Page]) -> None:
    page = open_page()
    page.goto(f"{server}/")
    page.wait_for_selector('input[value="bingo"]', state="attached")
    assert page.inner_text("#how-title") == "How a game goes"
    assert page.is_visible("#how-dingo") and page.get_attribute("#how-rules", "href") == (
        "/rules/dingo")
    listed = {g["name"]: g for g in page.evaluate(
        "fetch('/api/games').then(r => r.json())")}
    for name in ("bingo", "divide", "mate"):
        page.check(f'input[value="{name}"]')
        assert page.inner_text("#how-title") == f"How {listed[name]['title']} goes"
        assert not page.is_visible("#how-dingo") and not page.is_visible("#roles")
        # The game's own steps, not its blurb again (which is under the game picker).
        steps = page.eval_on_selector_all("#how-steps li", "els => els.map(e => e.innerText)")
        assert steps == listed[name]["how"] and len(steps) >= 3
        assert not page.is_visible("#how-other")
        assert page.inner_text("#game-blurb") == listed[name]["blurb"]
        assert page.get_attribute("#how-rules", "href") == f"/rules/{name}"
    page.check('input[value="dingo"]')
    assert page.is_visible("#how-dingo") and not page.is_visible("#how-steps")


def test_the_hero_names_the_other_games_and_picks_one(server: str,
                                                     open_page: Callable[..., Page]) -> None:
    """The hero speaks of Dingo; the line under it names every other game the server offers,
    and each name picks that game in the form."""
    page = open_page(PHONE)
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form[data-ready]")
    assert page.inner_text("#hero-more") == (
        "Also here: Bingo, Divide and Conquer, and Mate, each for two players.")
    page.click('.hero__game >> text="Divide and Conquer"')
    assert page.is_checked("#game-divide")
    assert page.inner_text("#how-title") == "How Divide and Conquer goes"
    assert page.evaluate("document.activeElement.id") == "game-divide"
    page.wait_for_function("(() => { const r = document.querySelector('#game-field')"
                           ".getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;"
                           " })()")
    assert_no_horizontal_overflow(page)
    # A browser without Intl.ListFormat lists them with commas.
    page.add_init_script("delete Intl.ListFormat")
    page.reload()
    page.wait_for_selector("#create-form[data-ready]")
    assert page.inner_text("#hero-more") == (
        "Also here: Bingo, Divide and Conquer, Mate, each for two players.")


def test_without_the_games_list_the_home_page_offers_dingo_as_before(
        server: str, open_page: Callable[..., Page]) -> None:
    page = open_page()
    bodies: list[dict[str, Any]] = []

    def no_games(route: Route) -> None:
        route.fulfill(status=404, content_type="application/json", body='{"detail": "Not Found"}')

    page.route("**/api/games", no_games)
    page.on("request", lambda r: bodies.append(json.loads(r.post_data or "{}"))
            if r.method == "POST" and r.url.endswith("/api/tables") else None)
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form[data-ready]")
    assert page.locator("#game-field").is_hidden() and page.locator("#hero-more").is_hidden()
    assert page.locator('input[name="bot"]').count() == 4
    page.fill("#name", "Ann")
    page.check("#opt-points_to_win-on")
    page.fill("#opt-points_to_win", "40")
    page.click("#create-btn")
    page.wait_for_selector(".seat--me")
    assert bodies == [{"games_to_win": 5, "points_to_win": 40, "open_discards": False,
                       "turn_seconds": 30,
                       "bots": [{"seat": 1, "kind": "heuristic"}, {"seat": 2, "kind": "heuristic"},
                                {"seat": 3, "kind": "heuristic"}]}]
