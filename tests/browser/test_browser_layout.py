"""Every page on a phone-sized screen: no sideways scrolling, and the hand in view."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import (
    MOVES,
    PHONE,
    WORDS_BROKEN,
    assert_no_horizontal_overflow,
    create_table,
    go_to_table,
    my_turn,
    shot,
    take_turn,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

# The same moves the helpers click: a card waiting for the server's answer is
# aria-disabled, so a looser test could pass on the move just made.
YOUR_TURN = f"document.querySelectorAll({MOVES!r}).length > 0"
#: Where the hand's lowest card ends, in the page (not the window: the page may be scrolled);
#: null when no card is drawn, which fails the comparison instead of passing it.
HAND_BOTTOM = ("(cs => cs.length ? Math.max(...cs.map(e => e.getBoundingClientRect().bottom"
               " + scrollY)) : null)([...document.querySelectorAll('#hand .card')])")


def test_phone_layout(server: str, open_page: Callable[..., Page],
                      finished_match: dict[str, Any]) -> None:
    page = open_page(PHONE)
    page.goto(f"{server}/")
    assert_no_horizontal_overflow(page)
    shot(page, "phone-home")

    create_table(page, server, "Pia", timer="30")
    go_to_table(page)
    page.click("#start-btn")
    page.wait_for_function(YOUR_TURN)
    # Whose turn, with the time left.
    assert re.fullmatch(r"0:[0-3]\d", page.inner_text(".seat--me .timer__text"))
    assert_no_horizontal_overflow(page)
    cards = page.locator("#hand .card")
    assert cards.count() >= 9
    for i in range(cards.count()):
        box = cards.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.evaluate("scrollTo(0, 0)")
    assert page.evaluate(HAND_BOTTOM) <= PHONE["height"]
    shot(page, "phone-table")
    rng = random.Random(2)
    for turn in range(3):
        page.wait_for_function(YOUR_TURN)
        assert my_turn(page)
        # The whole hand (two rows of cards) is on the first screen, passing too.
        assert page.evaluate(HAND_BOTTOM) <= PHONE["height"], turn
        take_turn(page, rng)
        page.wait_for_selector("#hand:not(.hand--busy)")
    assert_no_horizontal_overflow(page)

    record = finished_match["record_url"]
    for name, path, ready in [("phone-history", "/history", ".match-row"),
                              ("phone-match", record, "#score-table"),
                              ("phone-replay", f"{record}/games/1?step=12", ".rseat")]:
        page.goto(f"{server}{path}")
        page.wait_for_selector(ready)
        assert_no_horizontal_overflow(page)
        shot(page, name)


#: The top bar's parts on screen: their boxes, for those shown.
TOP_BAR_BOXES = """() => [...document.querySelectorAll(
  '.topbar .brand__mark, .topbar .table-id code, #copy-link, #conn .dot, .topbar nav a')]
  .map(e => [e.id || e.className || e.tagName, e.getBoundingClientRect().toJSON()])
  .filter(([, r]) => r.width > 0)"""


#: Where a test draws a scoreboard: a box of the frame's ``scoreboard`` class in the side
#: column, in place of the frame's own (hidden), which the next state would redraw.
DRAWN = "#drawn-scoreboard"
IN_SIDE_COLUMN = """(node) => {
  const frame = document.querySelector('#scoreboard');
  const box = document.querySelector('#drawn-scoreboard') || document.createElement('div');
  box.id = 'drawn-scoreboard';
  box.className = 'scoreboard';
  frame.hidden = true;
  frame.after(box);
  box.replaceChildren(node);
}"""


def draw_in_side_column(page: Page, build: str, arg: Any = None) -> None:
    """Draw what ``build`` (a JS function of ``arg``, may be async) returns at ``DRAWN``."""
    page.evaluate(f"async (arg) => ({IN_SIDE_COLUMN})(await ({build})(arg))", arg)


#: Dingo's scoreboard, drawn by its module, after two games at a table of four people
#: with long names.
LONG_SCOREBOARD = """async () => {
  const dingo = (await import('/static/js/games/dingo/index.js')).default;
  const names = ['Charlotte Montgomery', 'Alexandrina', 'Bartholomew', 'Ann Marie Fitzgerald'];
  const match = {
    games: [{number: 1, scores: [12, 34, -12, 0], winner: 1},
            {number: 2, scores: [8, -5, 20, 14], winner: 2}],
    game_number: 3, game_wins: [0, 1, 1, 0], totals: [20, 29, 8, 14],
  };
  const ctx = {seats: 4, name: (s) => names[s], plainName: (s) => names[s], view: null};
  return dingo.scoreboard(match, ctx);
}"""


@pytest.mark.parametrize("width", [320, 360, 390])
def test_the_top_bar_fits_a_small_phone(server: str, open_page: Callable[..., Page],
                                        width: int) -> None:
    """360 px is the most common Android width: the table's top bar stays one line there,
    nothing drawn over anything (the connection dot once sat on "Copy link"), and a wide
    scoreboard does not make the page scroll sideways."""
    page = open_page({"width": width, "height": 740})
    create_table(page, server, "Pia")
    go_to_table(page)
    boxes = page.evaluate(TOP_BAR_BOXES)
    assert len(boxes) >= 5, boxes  # the mark, Copy link, the dot, History and Rules
    for name, box in boxes:
        assert box["left"] >= 0 and box["right"] <= width, (name, box)
    for i, (one, a) in enumerate(boxes):
        for other, b in boxes[i + 1:]:
            apart = (a["right"] <= b["left"] or b["right"] <= a["left"]
                     or a["bottom"] <= b["top"] or b["bottom"] <= a["top"])
            assert apart, (one, a, other, b)
    assert_no_horizontal_overflow(page)
    # Four long names over Dingo's scoreboard are wider than a phone's side column: the
    # table scrolls in its box, the page does not scroll sideways.
    draw_in_side_column(page, LONG_SCOREBOARD)
    if width <= 360:  # wider than its box there, so the check below means something
        assert page.evaluate(f"document.querySelector('{DRAWN} table').scrollWidth"
                             f" > document.querySelector('{DRAWN}').clientWidth")
    assert_no_horizontal_overflow(page)


#: A two-player game's scoreboard, drawn by its module in the real page, before any game
#: ends, for someone watching "Charlotte Montgomery" play Bruno.
TWO_NAMES_SCOREBOARD = """async (game) => {
  const module = (await import(`/static/js/games/${game}/index.js`)).default;
  const names = ['Charlotte Montgomery', 'Bruno'];
  const match = {games: [], totals: [0, 0], game_wins: [0, 0], draws: 0, target_wins: 3,
                 deck: 10};
  const ctx = {seat: null, reader: null, seats: 2, name: (s) => names[s],
               plainName: (s) => names[s], sayYou: (text) => text, view: null};
  return module.scoreboard(match, ctx);
}"""
#: Whatever in the scoreboard's head row is cut (wider or taller than its box).
HEADS_CUT = """() => [...document.querySelectorAll('#drawn-scoreboard :is(thead th, .name-head)')]
  .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
  .map(e => e.textContent)"""


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize("game", ["bingo", "divide", "mate"])
def test_two_players_names_head_their_scoreboard_whole(
        server: str, open_page: Callable[..., Page], game: str, width: int) -> None:
    """Two names fit the side column even on a phone, so each is read whole ("Charlotte
    Montgomery" on two lines; Bingo's said "Charl…"), never split inside a word, and the
    page does not scroll sideways. (Four cannot: Dingo's keep to 70 px, see above.)"""
    page = open_page({"width": width, "height": 800})
    create_table(page, server, "Pia", game=game, bots=(1,))
    go_to_table(page)
    draw_in_side_column(page, TWO_NAMES_SCOREBOARD, game)
    heads = page.eval_on_selector_all(f"{DRAWN} thead th", "els => els.map(e => e.textContent)")
    assert heads[-2:] == ["Charlotte Montgomery", "Bruno"], heads
    assert page.evaluate(HEADS_CUT) == []
    assert page.evaluate(WORDS_BROKEN, f"{DRAWN} .name-head") == []
    assert page.evaluate("(b => b.scrollWidth <= b.clientWidth)"
                         f"(document.querySelector('{DRAWN}'))")
    assert_no_horizontal_overflow(page)


#: What a phone's browser shows of a page (Safari on a 390x844 iPhone, Chrome on Android):
#: shorter than the screen, so the hand starts below the window's foot.
PHONE_PAGE = {"width": 390, "height": 660}
#: The hand's last card ends in the window, the prompt above it starts in it.
HAND_IN_VIEW = """() => {
  const cards = [...document.querySelectorAll('#hand [data-card]')];
  const prompt = document.querySelector('#prompt').getBoundingClientRect();
  return cards.length > 0 && prompt.top >= 0
    && Math.max(...cards.map(e => e.getBoundingClientRect().bottom)) <= innerHeight;
}"""


#: Another player sits at ``seat`` as ``name``, from a socket of this page kept open (so they
#: stay at the table); resolves once seated.
SIT_ANOTHER = """([table, seat, name]) => new Promise((seated) => {
  const ws = new WebSocket(`ws://${location.host}/ws/${table}`);
  (window.others = window.others || []).push(ws);
  ws.onopen = () => {
    ws.send(JSON.stringify({type: 'hello', token: null}));
    ws.send(JSON.stringify({type: 'sit', seat, name, id: `sit-${seat}`}));
  };
  ws.onmessage = (m) => { if (JSON.parse(m.data).type === 'seated') seated(); };
})"""


@pytest.mark.parametrize("width", [360, 390])
def test_a_long_name_reads_whole_on_a_phone_plate(server: str, open_page: Callable[..., Page],
                                                  width: int) -> None:
    """Three plates share a phone's width: "Bartholomew" once broke as "Bartholo / mew"
    beside its points. The name has the plate's first row; a word is split only if it is
    wider than the whole plate (a 24-letter one here)."""
    page = open_page({"width": width, "height": 800})
    create_table(page, server, "Pia", bots=(3,))
    go_to_table(page)
    table = page.url.rsplit("/", 1)[1]
    page.evaluate(SIT_ANOTHER, [table, 1, "Bartholomew"])
    page.evaluate(SIT_ANOTHER, [table, 2, "Wolfeschlegelsteinhausen"])
    page.click("#start-btn")
    page.wait_for_selector(".seat--turn")
    names = page.locator(".pos:not(.pos--bottom) .seat__name").all_inner_texts()
    assert "Bartholomew" in names, names
    broken = page.evaluate(WORDS_BROKEN, ".seat__name")
    assert [b for b in broken if b.replace("|", "") != "Wolfeschlegelsteinhausen"] == [], broken
    assert_no_horizontal_overflow(page)


@pytest.mark.parametrize("width", [360, 1280])
def test_a_long_name_without_a_space_fits_the_prompt_and_the_log(
        server: str, open_page: Callable[..., Page], width: int) -> None:
    """"WWW… is discarding a card." with a 24-letter name of wide letters made the felt
    wider than a phone, and its log lines the side column wider than a desktop: the
    prompt and the log break such a name instead."""
    page = open_page({"width": width, "height": 800})
    create_table(page, server, "Pia", bots=(2, 3))
    go_to_table(page)
    page.evaluate(SIT_ANOTHER, [page.url.rsplit("/", 1)[1], 1, "W" * 24])
    page.click("#start-btn:not([disabled])")
    rng = random.Random(2)
    deadline = time.monotonic() + 30
    while "W" * 24 not in page.inner_text("#prompt"):  # until the table waits for W
        assert time.monotonic() < deadline, page.inner_text("#prompt")
        if not (my_turn(page) and take_turn(page, rng)):  # (W's socket never acts)
            page.wait_for_timeout(100)
    assert page.inner_text("#prompt").replace("\n", "") == f"{'W' * 24} is discarding a card."
    assert_no_horizontal_overflow(page)


@pytest.mark.parametrize("game", ["dingo", "divide"])
def test_each_decision_brings_the_hand_into_a_short_window(
        server: str, open_page: Callable[..., Page], game: str) -> None:
    """On a phone the hand is below the first screen: each new decision scrolls down just
    enough to show it with its prompt (Divide asks again at every battle though its turn
    never passed). Someone reading the chat further down is not moved."""
    page = open_page(PHONE_PAGE)
    create_table(page, server, "Pia", game=game, bots=(1, 2, 3) if game == "dingo" else (1,))
    go_to_table(page)
    page.click("#start-btn")
    page.wait_for_function(YOUR_TURN)
    rng = random.Random(4)
    for decision in range(4):
        page.wait_for_function(HAND_IN_VIEW, timeout=3000)
        assert page.evaluate("scrollY") > 0, decision  # the hand did start below the foot
        # The move by script, and back to the top at once: a click scrolls by itself.
        moves = page.locator(MOVES).count()
        page.evaluate(f"document.querySelectorAll({MOVES!r})[{rng.randrange(moves)}].click();"
                      " scrollTo(0, 0)")
        page.wait_for_function(YOUR_TURN)
    # Reading the chat at the foot of the page: the next decision leaves the page there.
    page.evaluate("scrollTo(0, document.documentElement.scrollHeight)")
    below = page.evaluate("scrollY")
    moves = page.locator(MOVES).count()
    page.evaluate(f"document.querySelectorAll({MOVES!r})[{rng.randrange(moves)}].click()")
    page.wait_for_function(f"document.querySelectorAll({MOVES!r}).length > 0 && "
                           "!document.querySelector('#hand.hand--busy')")
    page.wait_for_timeout(300)
    # (The page's foot may shift a few pixels as the log grows; the hand is 800 px up.)
    assert page.evaluate("scrollY") > below - 100, below
