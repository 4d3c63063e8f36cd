"""The lobby: the host fills seats with bots or friends, and starts; open discards show the pile."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import (
    DESKTOP,
    PHONE,
    assert_no_horizontal_overflow,
    create_table,
    go_to_table,
    my_turn,
    play_match,
    shot,
    sit_down,
    take_turn,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

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
    assert host.locator("#hunts").count() == 0  # no game, no list of its hunts
    host.click("#start-btn")
    host.wait_for_selector("#hunts summary:text('Hunts this game')")

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


def test_the_home_page_leads_back_to_the_tables_this_browser_sits_at(
        server: str, open_page: Callable[..., Page]) -> None:
    """Closed the tab, lost the link: the home page lists the open tables this browser holds
    a seat at, the one visited last first, each with a way back to the seat. A table only
    watched is not listed, a table that is gone is forgotten, a seat freed meanwhile too."""
    ann = open_page(PHONE)
    ann.goto(f"{server}/")
    ann.wait_for_selector("#create-form[data-ready]")
    assert ann.locator("#your-tables").is_hidden()
    first = create_table(ann, server, "Ann", bots=(1, 2, 3))
    bea = open_page(DESKTOP)
    second = create_table(bea, server, "Bea", bots=(2, 3))
    watched = create_table(bea, server, "Bea", bots=(1,), game="mate")
    sit_down(ann, second, "Ann", 1)
    first_id, second_id = (link.rsplit("/", 1)[-1] for link in (first, second))
    ann.goto(watched)
    ann.wait_for_selector('.seat[data-seat="0"]')
    ann.evaluate("localStorage.setItem('dingo.table.gone', "
                 "JSON.stringify({token: 'x', seat: 0, at: Date.now()}))")
    ann.goto(f"{server}/")
    rows = ann.locator("#held-list .held")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    assert [rows.nth(i).get_attribute("data-table") for i in range(2)] == [second_id, first_id]
    assert rows.nth(0).inner_text().split("\n") == [
        "Dingo", "Waiting for the host to start", f"table {second_id}",
        "You are Ann, seat 2, with Bea, Cleo (bot), and Dov (bot).", "Back to the table"]
    assert rows.nth(1).inner_text().split("\n")[1:4] == [
        "Every seat is taken: you can start", f"table {first_id}",
        "You are Ann, seat 1, with Bruno (bot), Cleo (bot), and Dov (bot)."]
    assert ann.evaluate("localStorage.getItem('dingo.table.gone')") is None
    assert rows.nth(1).locator("a").get_attribute("aria-label") == (
        f"Back to your Dingo table {first_id}: Every seat is taken: you can start")
    assert_no_horizontal_overflow(ann)
    shot(ann, "your-tables-phone")
    # Back to the first table: at the seat, and the host.
    rows.nth(1).locator("a:text('Back to the table')").click()
    ann.wait_for_url(first)
    ann.wait_for_selector('.seat--me[data-seat="0"]')
    assert ann.is_enabled("#start-btn")
    # Bea frees Ann's seat at her table while Ann is away: it is no longer Ann's to go
    # back to, and her browser forgets it.
    bea.goto(second)
    bea.click('.seat[data-seat="1"] button:text("Free seat")')
    bea.wait_for_selector('.seat[data-seat="1"].seat--empty')
    ann.goto(f"{server}/")
    ann.wait_for_selector("#held-list .held")
    assert [rows.nth(i).get_attribute("data-table") for i in range(rows.count())] == [first_id]
    kept = ann.evaluate(f"JSON.parse(localStorage.getItem('dingo.table.{second_id}'))")
    assert "token" not in kept and kept["name"] == "Ann"


#: A share sheet (test-only) that keeps what it was given, or is closed by the user.
SHARE_SHEET = """navigator.share = (data) => {
  window.shared = (window.shared || []).concat([data]);
  return window.closeSheet ? Promise.reject(new DOMException('closed', 'AbortError'))
                           : Promise.resolve();
}"""


def test_the_lobby_hands_the_link_to_the_share_sheet_where_there_is_one(
        server: str, open_page: Callable[..., Page]) -> None:
    """On a phone the link goes to the system's share sheet (a chat app) in one press;
    closing the sheet is no error. A browser without one offers "Copy" only."""
    desk = open_page(DESKTOP)
    desk.add_init_script("delete Navigator.prototype.share")  # (some desktops have one)
    create_table(desk, server, "Ann", bots=(2, 3))
    assert desk.locator("#lobby .link-box button").all_inner_texts() == ["Copy"]
    phone = open_page(PHONE)
    phone.add_init_script(SHARE_SHEET)
    link = create_table(phone, server, "Bea", bots=(1,), game="mate")
    phone.click("#share-link")
    phone.wait_for_function("window.shared && window.shared.length === 1")
    assert phone.evaluate("window.shared[0]") == {
        "title": "Mate · Dingo Online", "text": "Come and play Mate with me:", "url": link}
    phone.evaluate("window.closeSheet = true")
    phone.click("#share-link")
    phone.wait_for_function("window.shared.length === 2")
    phone.wait_for_timeout(200)
    assert not phone.locator(".toast--error").count()
    assert_no_horizontal_overflow(phone)
    shot(phone, "lobby-share-phone")


def _table(table_id: str, status: str, seats: list[tuple[str, str | None, bool]]
           ) -> dict[str, Any]:
    """GET /api/tables/{id}'s answer: seats as (kind, name, host)."""
    return {"table_id": table_id, "url": f"/t/{table_id}", "game": "dingo", "title": "Dingo",
            "status": status, "spectators": 0, "match_id": None, "options": {},
            "seats": [{"seat": i, "kind": kind, "name": name, "bot": None, "strength": None,
                       "connected": True, "away": False, "ready": False, "back_by": None,
                       "host": host} for i, (kind, name, host) in enumerate(seats)]}


def test_your_tables_keeps_a_seat_token_unless_the_seat_is_surely_gone(
        server: str, open_page: Callable[..., Page]) -> None:
    """What the home page makes of each remembered table (the server's answers made up):
    a seat given to a bot is forgotten; a seat someone else (by name) now holds is not
    listed but its token is kept (a name may be written differently); a host who never sat
    is listed while no seat holds the role, and forgets its token once a seat does; a table
    out of reach now is kept for later."""
    bot, eve = ("bot", "Ada", False), ("human", "Eve", False)
    answers = {
        "given": _table("given", "playing", [bot, ("human", "Bo", True)]),
        "taken": _table("taken", "lobby", [("human", "Eve", True), ("empty", None, False)]),
        "hosting": _table("hosting", "lobby", [bot, bot]),
        "passed": _table("passed", "lobby", [("human", "Cy", True), bot]),
        "mine": _table("mine", "between_games", [eve, ("human", "Ann", True)]),
    }
    memory = {"given": {"token": "t1", "seat": 0, "name": "Ann"},
              "taken": {"token": "t2", "seat": 0, "name": "Ann"},
              "hosting": {"host_token": "h3"},
              "passed": {"host_token": "h4"},
              "mine": {"token": "t5", "seat": 1, "name": "Ann"},
              "away": {"token": "t6", "seat": 0, "name": "Ann"}}
    page = open_page(DESKTOP)

    def answer(route: Route) -> None:
        table_id = route.request.url.rsplit("/", 1)[-1]
        if table_id in answers:
            route.fulfill(json=answers[table_id])
        else:  # out of reach for a moment
            route.fulfill(status=503, json={"detail": {"code": "unavailable", "message": "x"}})

    page.route("**/api/tables/*", answer)
    page.goto(f"{server}/")
    page.evaluate("""(memory) => Object.entries(memory).forEach(([id, mem], i) =>
        localStorage.setItem(`dingo.table.${id}`, JSON.stringify({...mem, at: i})))""", memory)
    page.reload()
    page.wait_for_selector("#your-tables:not([hidden])")
    rows = page.locator("#held-list .held")
    listed = {rows.nth(i).get_attribute("data-table"): rows.nth(i).inner_text().split("\n")[1:4]
              for i in range(rows.count())}
    assert listed == {
        "mine": ["Between games", "table mine", "You are Ann, seat 2, with Eve."],
        "hosting": ["Every seat is taken: you can start", "table hosting",
                    "You are the host, with Ada (bot) and Ada (bot)."]}
    kept = page.evaluate("""() => Object.fromEntries(Object.keys(localStorage)
        .filter((k) => k.startsWith('dingo.table.'))
        .map((k) => [k.slice(12), (({token, host_token}) => token || host_token || null)(
          JSON.parse(localStorage.getItem(k)))]))""")
    assert kept == {"given": None, "taken": "t2", "hosting": "h3", "passed": None,
                    "mine": "t5", "away": "t6"}


def test_the_creator_sits_down_with_one_intent(server: str,
                                               open_page: Callable[..., Page]) -> None:
    """The first state both sends the intents left from before (none) and seats the creator:
    the sit goes out once (it went twice, answered twice, and a refusal said twice)."""
    page = open_page(PHONE)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on(
        "framesent", lambda frame: sent.append(str(frame))))
    create_table(page, server, "Ann", bots=(1, 2, 3))
    page.wait_for_timeout(300)
    assert sum('"type":"sit"' in frame.replace(" ", "") for frame in sent) == 1, sent


def test_the_last_hunts_news_is_gone_once_the_rematch_is_dealt(
        server: str, open_page: Callable[..., Page]) -> None:
    """The strip above the prompt tells the last hunt's result; a rematch voted at once
    deals a new game, where that news is old. The prompt says who won the match."""
    page = open_page(PHONE)
    # The strip's own 5-second timer must not hide the news before the deal does.
    page.add_init_script("""{ const later = window.setTimeout;
      window.setTimeout = (f, ms, ...a) => later(f, ms === 5000 ? 600000 : ms, ...a); }""")
    create_table(page, server, "Ann", bots=(1, 2, 3))
    page.click("#start-btn")
    play_match(page, random.Random(11))
    # (In the words every game uses: "you" inside a sentence.)
    assert re.fullmatch(r"The match is over: (you|Bruno|Cleo|Dov) won it\.",
                        page.inner_text("#prompt")), page.inner_text("#prompt")
    page.wait_for_selector("#flash:not([hidden])")
    page.click("#rematch-btn")
    page.wait_for_selector("#log li:text('Rematch! Match 2 begins.')")
    page.wait_for_selector("#hand .card")
    assert page.locator("#flash").is_hidden()
