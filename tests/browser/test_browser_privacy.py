"""Two people at one table and a spectator: each sees what it may, and nothing more.

Also: a reload, and a dropped connection, bring back exactly the same view.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import (
    create_table,
    go_to_table,
    hand,
    my_turn,
    shot,
    shown_cards,
    sit_down,
    take_turn,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page, WebSocketRoute

pytestmark = pytest.mark.browser

WAIT_SECONDS = 20.0


def seat_two_people(server: str, open_page: Callable[..., Page]) -> tuple[Page, Page, str]:
    """Ann creates a table (bots in seats 2 and 3) and sits in seat 0; Bea takes seat 1."""
    ann = open_page()
    link = create_table(ann, server, "Ann", bots=(2, 3))
    go_to_table(ann)
    bea = open_page()
    sit_down(bea, link, "Bea", 1)
    return ann, bea, link


def until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def view(page: Page) -> dict[str, Any]:
    """What a person sees of the table, as text."""
    return page.evaluate("""() => ({
        hand: [...document.querySelectorAll('#hand [data-card]')].map(e => e.dataset.card),
        prompt: document.querySelector('#prompt').textContent,
        seats: [...document.querySelectorAll('.seat')].map(e => e.textContent),
        board: document.querySelector('#center').textContent,
        exchanges: document.querySelector('#exchanges').textContent,
        scoreboard: document.querySelector('#scoreboard').textContent,
        log: [...document.querySelectorAll('#log li')].map(e => e.textContent),
    })""")


def test_each_player_sees_only_their_own_hand_and_a_spectator_none(
        server: str, open_page: Callable[..., Page]) -> None:
    ann, bea, link = seat_two_people(server, open_page)
    spectator = open_page()
    spectator.goto(link)
    spectator.wait_for_selector('.seat[data-seat="1"] .dot--on')
    ann.wait_for_selector('.seat[data-seat="1"] .dot--on')  # Bea is connected
    ann.click("#start-btn")
    # Let the bots play until a person must discard: then nothing moves.
    until(lambda: my_turn(ann) or my_turn(bea), "a person's turn")
    spectator.wait_for_selector(".stage-badge")

    ann_hand, bea_hand = set(hand(ann)), set(hand(bea))
    assert len(ann_hand) >= 9 and len(bea_hand) >= 9
    assert not ann_hand & bea_hand
    assert not shown_cards(ann) & bea_hand, "Ann's page shows one of Bea's cards"
    assert not shown_cards(bea) & ann_hand, "Bea's page shows one of Ann's cards"
    assert spectator.locator("#hand").is_hidden()
    assert hand(spectator) == []
    assert not shown_cards(spectator) & (ann_hand | bea_hand), "the spectator sees a hand"
    assert spectator.inner_text("#prompt").startswith("You are watching.")
    # Turn alerts are offered to a seat only: someone watching has no turn.
    assert spectator.locator("#turn-alerts").is_hidden()
    assert ann.locator("#turn-alerts").is_visible()
    # Someone who opens the link mid-game reads the game log from the deal on.
    late = open_page()
    late.goto(link)
    late.wait_for_selector("#log li:has-text('Game 1 begins')")
    log_lines = 'Array.from(document.querySelectorAll("#log li"), (li) => li.innerText)'
    early_log, late_log = spectator.evaluate(log_lines), late.evaluate(log_lines)
    dealt = next(i for i, line in enumerate(early_log) if line.startswith("Game 1 begins"))
    assert late_log == early_log[dealt:]  # at least the deal: a person may act first
    # Everyone sees how many are watching, and it follows them coming and going.
    ann.wait_for_selector("#watchers:has-text('2 watching')")
    late.wait_for_selector("#watchers:has-text('2 watching')")
    late.close()
    bea.wait_for_selector("#watchers:has-text('1 watching')")
    shot(ann, "two-players-ann")
    shot(bea, "two-players-bea")
    shot(spectator, "spectator")

    # Chat is text, never markup.
    line = '<img src=x onerror="document.title=1">hello & <b>bye</b>'
    ann.fill("#chat-input", line)
    ann.press("#chat-input", "Enter")
    bea.wait_for_selector("#chat-list li:has-text('hello')")
    assert bea.locator("#chat-list li").last.text_content() == f"Ann{line}"
    assert bea.locator("#chat-list img, #chat-list b:not(.chat__name)").count() == 0
    assert spectator.locator("#chat-form").is_hidden(), "spectators do not chat"
    # (Every seat is taken: none to take to chat.)
    assert spectator.inner_text("#chat-note") == "Only the players chat; you are watching."

    # Who is connected: Bea leaves, and Ann's page says so.
    bea.context.close()
    ann.wait_for_selector('.seat[data-seat="1"] .dot:not(.dot--on)')


def test_reloading_mid_game_restores_the_same_view(
        server: str, open_page: Callable[..., Page]) -> None:
    ann, bea, _ = seat_two_people(server, open_page)
    ann.click("#start-btn")
    rng = random.Random(4)
    ann_moves = 0
    # Play both seats until Ann has moved twice and it is Bea's turn: the table then waits.
    while True:
        until(lambda: my_turn(ann) or my_turn(bea), "a person's turn")
        if my_turn(ann):
            ann_moves += take_turn(ann, rng)
            ann.wait_for_selector("#hand:not(.hand--busy)")
        elif ann_moves >= 2:
            break
        else:
            take_turn(bea, rng)
            bea.wait_for_selector("#hand:not(.hand--busy)")
    before = view(ann)
    ann.reload()
    ann.wait_for_selector(".seat--me")
    ann.wait_for_selector("#conn.conn--open")
    assert view(ann) == before
    shot(ann, "after-reload")


def test_a_lost_connection_shows_a_banner_and_comes_back(
        server: str, open_page: Callable[..., Page]) -> None:
    ann = open_page()
    sockets: list[tuple[WebSocketRoute, WebSocketRoute]] = []

    def through(ws: WebSocketRoute) -> None:
        sockets.append((ws, ws.connect_to_server()))

    ann.route_web_socket(re.compile(r"/ws/"), through)
    create_table(ann, server, "Ann")
    go_to_table(ann)
    ann.click("#start-btn")
    until(lambda: my_turn(ann), "Ann's turn")
    before = view(ann)

    page_side, server_side = sockets[-1]
    server_side.close()
    page_side.close(code=4000, reason="network gone")
    ann.wait_for_selector("#banner:not([hidden]):has-text('Connection lost')")
    shot(ann, "connection-lost")
    ann.wait_for_selector("#banner", state="hidden")
    ann.wait_for_selector("#conn.conn--open")
    assert len(sockets) >= 2, "the page opened a new socket"
    after = view(ann)
    assert after["log"][-1] == "Reconnected."
    after["log"].pop()
    assert after == before
    # The new connection works: a move goes through.
    size = len(hand(ann))
    assert take_turn(ann, random.Random(1))
    until(lambda: len(hand(ann)) != size or not my_turn(ann), "the move to land")
