"""The lobby: the host fills seats with bots or friends, and starts; open discards show the pile."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from .browserkit import create_table, go_to_table, my_turn, shot, take_turn

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def test_the_host_seats_bots_and_a_friend_then_starts(
        server: str, open_page: Callable[..., Page]) -> None:
    host = open_page()
    link = create_table(host, server, "Hal", bots=(1,), open_discards=True)
    go_to_table(host)
    start = host.locator("#start-btn")
    assert start.is_disabled(), "two seats are still empty"
    shot(host, "lobby-host")

    host.click('.seat[data-seat="2"] button:text("Add bot")')
    host.wait_for_selector('.seat--bot[data-seat="2"]')
    host.click('.seat[data-seat="1"] button:text("Remove bot")')
    host.wait_for_selector('.seat--empty[data-seat="1"]')

    # A friend joins from the home page with the code (a wrong one is refused).
    guest = open_page()
    guest.goto(f"{server}/")
    guest.fill("#join-code", "nosuchtable")
    guest.click("#join-form button")
    guest.wait_for_selector("#join-error:has-text('no open table')")
    guest.fill("#join-code", link.rsplit("/", 1)[1])
    guest.click("#join-form button")
    guest.wait_for_url(link)
    guest.wait_for_selector('.seat--empty[data-seat="1"] button:text("Sit here")')
    host_controls = "button:text('Add bot'), button:text('Remove bot'), #start-btn"
    assert guest.locator(host_controls).count() == 0
    guest.fill("#sit-name", "")
    guest.click('.seat[data-seat="1"] button:text("Sit here")')
    assert "name" in guest.inner_text("#sit-error")
    guest.fill("#sit-name", "Gus")
    guest.click('.seat[data-seat="3"] button:text("Sit here")')
    guest.wait_for_selector('.seat--me[data-seat="3"]')
    assert guest.locator("#join-box").is_hidden()

    host.click('.seat[data-seat="1"] button:text("Add bot")')
    host.wait_for_selector("#start-btn:not([disabled])")
    assert re.search(r"Gus", host.inner_text('.seat[data-seat="3"]'))
    host.click("#start-btn")

    # Open discards: every discarded card stays on view, and the log names them.
    rng = random.Random(5)
    deadline = time.monotonic() + 20
    while host.locator(".discard-fan [data-card]").count() < 3:
        assert time.monotonic() < deadline, "three discards did not happen"
        for page in (host, guest):
            if my_turn(page):
                take_turn(page, rng)
        time.sleep(0.05)
    fan, label = host.evaluate("""() => [
        document.querySelectorAll('.discard-fan [data-card]').length,
        document.querySelector('.board__discards .spot__count').textContent]""")
    assert label == f"{fan} discarded"
    assert host.locator("#log li:has-text('discarded') .cardname").count() >= 1
    shot(host, "open-discards")
