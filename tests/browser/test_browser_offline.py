"""The table page offline: from a dropped connection until the fresh state is in again.

Every game's moves are then drawn disabled and take no click (the frame's `ctx.busy`; no
module knows about it), the frame's own buttons too, and the prompt and the banner say
why. Back online, the moves the state offers can be made again. A move sent just before
the drop, whose answer never came, is sent again with its own id after the reconnect: made
once whether it was lost on its way up or only its answer was lost on the way down.

The page's WebSocket goes through a switch (Playwright's WebSocket routing): `Network`.
The server here gives a dropped player a minute before a bot plays the seat, so nothing
moves at the table while the page is offline, however slow the machine.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from app.site import client_build

from .browserkit import DESKTOP, PHONE, app_server, create_table, shot, sit_down

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, WebSocketRoute

pytestmark = pytest.mark.browser

#: Every move a game's module draws (its legal moves are buttons with class `move`).
ALL_MOVES = ":is(#hand, #actions, #center) .move"
#: The moves that may be pressed now.
ENABLED = f"{ALL_MOVES}:not([disabled]):not([aria-disabled='true'])"
#: A card or tile that may be played now: one click makes the move (Bingo's "Claim 70",
#: beside the prompt, may ask again first).
IN_HAND = "#hand .move:not([disabled]):not([aria-disabled='true'])"
#: The frame's own buttons that send an intent (seat buttons, start, ready, rematch) or chat.
FRAME_SENDS = ".seat__actions button, #start-btn, #ready-btn, #rematch-btn, #chat-form button"
#: How each enabled move is told apart from the others.
KEY_OF = "els => els.map(e => e.id || e.dataset.card || e.dataset.key || e.textContent)"
WAIT_SECONDS = 20.0


@pytest.fixture(scope="module")
def steady_server(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with app_server(tmp_path_factory.mktemp("offline-server"), BOT_DELAY_SECONDS="0.05",
                    NEXT_GAME_SECONDS="1", RECONNECT_GRACE_SECONDS="60") as base:
        yield base


class Network:
    """The page's sockets through a switch, and every message the page sent on each.

    ``mode``: "up" (through to the server), "refuse" (a new socket is closed at once),
    "hang" (a new socket opens but nothing answers it: the page has said hello and waits).
    ``hold_intent``: the next game intent the page sends is kept from the server
    ("up", lost on its way: the socket goes on carrying everything else, as a live socket to
    a busy table does), or its answers are kept from the page ("down"), or it and everything
    after it, both ways ("mute": a socket that died without closing), or kept from
    the server and answered ``service_unavailable`` as a server does while the table's
    owner cannot be reached ("unreached"; ``reach`` then plays the owner coming back).
    ``build``: set, every ``welcome`` from then on says the server serves that client code
    (the site was updated).
    """

    def __init__(self, page: Page) -> None:
        self.mode = "up"
        self.hold_intent: str | None = None
        self.build: str | None = None
        self.held: list[dict[str, Any]] = []
        self.sent: list[list[dict[str, Any]]] = []  # per socket the page opened, in order
        self.open: list[tuple[WebSocketRoute, WebSocketRoute | None]] = []
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: WebSocketRoute) -> None:
        sent: list[dict[str, Any]] = []
        self.sent.append(sent)
        if self.mode == "refuse":
            ws.close(code=4000, reason="network down")
            return
        if self.mode == "hang":
            ws.on_message(lambda message: sent.append(json.loads(message)))
            self.open.append((ws, None))
            return
        server = ws.connect_to_server()
        answers_held = {"on": False}
        muted = {"on": False}

        def up(message: str | bytes) -> None:
            msg = json.loads(message)
            sent.append(msg)
            if muted["on"]:
                return
            if self.hold_intent and "v" in msg and "id" in msg:
                self.held.append(msg)
                if self.hold_intent == "unreached":
                    self.hold_intent = None
                    ws.send(json.dumps({"type": "error", "code": "service_unavailable",
                                        "message": "the table cannot be reached right now;"
                                                   " retrying", "id": msg["id"]}))
                    return
                if self.hold_intent in ("up", "mute"):
                    muted["on"] = self.hold_intent == "mute"
                    self.hold_intent = None
                    return
                answers_held["on"] = True
                self.hold_intent = None
            server.send(message)

        def down(message: str | bytes) -> None:
            if muted["on"]:
                return
            if self.build is not None and json.loads(message)["type"] == "welcome":
                message = json.dumps({**json.loads(message), "build": self.build})
            if answers_held["on"]:
                self.held.append(json.loads(message))
            else:
                ws.send(message)

        ws.on_message(up)
        server.on_message(down)
        self.open.append((ws, server))

    def reach(self) -> None:
        """The table's owner is reachable again: as the server does then (it replays the
        socket's hello), a full state comes, here asked for with a ``sync``."""
        _, server_side = self.open[-1]
        assert server_side is not None
        server_side.send(json.dumps({"type": "sync"}))

    def cut(self, mode: str) -> None:
        """The connection drops; new ones get ``mode`` ("refuse" or "hang") until restored."""
        self.mode = mode
        page_side, server_side = self.open.pop()
        if server_side is not None:
            server_side.close()
        page_side.close(code=4000, reason="network gone")


def until(page: Page, check: Callable[[], bool], what: str) -> None:
    """Wait for ``check``; the page's wait lets Playwright run the socket handlers meanwhile."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        page.wait_for_timeout(50)


def sit_to_play(page: Page, server: str, game: str) -> None:
    """A table of this game with bots in the other seats, started; wait for this seat's turn."""
    create_table(page, server, "Ann", game=game, bots=(1, 2, 3) if game == "dingo" else (1,))
    page.click("#start-btn")
    page.wait_for_selector(ENABLED)


def enabled_moves(page: Page) -> list[str]:
    keys: list[str] = page.eval_on_selector_all(ENABLED, KEY_OF)
    return keys


def retry_now(page: Page) -> None:
    """Press the banner's "Retry now". The page also tries again by itself, after a pause
    that grows: when its own attempt comes first, the button is gone (hidden while a socket
    is open) and that attempt is the one the test goes on with."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    button = page.locator("#banner-btn:text('Retry now')")
    try:
        button.click(timeout=3000)
    except PlaywrightTimeout:
        if button.is_visible():
            raise


def hold_a_move(page: Page, net: Network, lost: str) -> dict[str, Any]:
    """Make the first move offered, and keep it from the server (``lost`` "up" or "mute")
    or its answers from the page ("down"); the intent."""
    net.hold_intent = lost
    page.locator(ENABLED).first.click()
    until(page, lambda: bool(net.held) if lost in ("up", "mute") else any(
        m.get("ack") is not None or m.get("type") == "ack" for m in net.held[1:]),
        "the move (up) or its answer (down) to be held")
    return net.held[0]


def until_after(page: Page, seconds: float, check: Callable[[], bool], what: str) -> None:
    """``until``, for what may take ``seconds`` to come."""
    deadline = time.monotonic() + seconds + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        page.wait_for_timeout(100)


def back_online(page: Page, net: Network) -> None:
    """Restore the network and reconnect at once (the banner's "Retry now")."""
    net.mode = "up"
    retry_now(page)
    page.wait_for_selector("#conn.conn--open")
    page.wait_for_selector("body:not(.table-page--offline)")


@pytest.mark.parametrize(("game", "size"), [("dingo", "desktop"), ("dingo", "phone"),
                                          ("mate", "desktop"), ("divide", "phone"),
                                          ("bingo", "desktop")])
def test_offline_every_move_is_disabled_and_back_online_they_work(
        steady_server: str, open_page: Callable[..., Page], game: str, size: str) -> None:
    page = open_page(PHONE if size == "phone" else DESKTOP)
    net = Network(page)
    sit_to_play(page, steady_server, game)
    before = enabled_moves(page)
    hand_before = page.inner_html("#hand")
    assert before

    # The connection drops, and the reconnects are refused for now.
    net.cut("refuse")
    page.wait_for_selector("#banner:not([hidden]):has-text('Connection lost')")
    assert "your moves are paused" in page.inner_text("#banner-text")
    page.wait_for_selector("body.table-page--offline")
    assert page.locator(ENABLED).count() == 0, "a move can still be pressed offline"
    assert page.locator(ALL_MOVES).count() >= len(before), "the moves are still shown, disabled"
    assert page.locator(FRAME_SENDS).evaluate_all(
        "els => els.filter(e => !e.disabled && e.offsetParent).length") == 0
    assert page.get_attribute("#prompt", "class") == "prompt prompt--offline"
    assert page.inner_text("#prompt").startswith("Offline: you can play again")
    assert "your turn · offline" in page.inner_text(".seat--me"), "your plate says nothing of it"
    assert page.locator(".seat--me .dot--on").count() == 0, "your plate shows you connected"
    # Drawn greyed out, with a pointer that says no.
    looks = page.eval_on_selector(ALL_MOVES, "e => [getComputedStyle(e).cursor,"
                                  " getComputedStyle(document.querySelector('#hand')).filter]")
    assert looks == ["not-allowed", "grayscale(1)"], looks
    shot(page, f"offline-{game}-{size}")

    # A socket opens, hello goes out, but no state comes: still offline, and a click on a
    # move (the socket could carry it) sends nothing.
    net.mode = "hang"
    retry_now(page)
    until(page, lambda: len(net.open) == 1 and [m["type"] for m in net.sent[-1]] == ["hello"],
          "the page to say hello on the new socket")
    assert page.locator(ENABLED).count() == 0
    page.locator(ALL_MOVES).first.click(force=True)
    page.wait_for_timeout(400)
    assert [m["type"] for m in net.sent[-1]] == ["hello"], "a click went out while offline"
    assert page.locator(".toast--error").count() == 0

    # Back online: the fresh state is in, and its moves are offered again, as before the drop.
    net.cut("refuse")
    page.wait_for_selector("#banner-btn:text('Retry now')")
    back_online(page, net)
    page.wait_for_selector(ENABLED)
    assert enabled_moves(page) == before
    assert page.inner_html("#hand") == hand_before
    assert [m["type"] for m in net.sent[-1]] == ["hello"], "the click offline was sent later"
    assert page.get_attribute("#prompt", "class") != "prompt prompt--offline"
    plate = page.inner_text(".seat--me")
    assert "your turn" in plate and "offline" not in plate, plate
    assert page.locator(".seat--me .dot--on").count() == 1
    assert page.locator(FRAME_SENDS).evaluate_all(
        "els => els.filter(e => e.disabled && e.offsetParent && e.id !== 'start-btn').length") == 0

    # And a move is accepted.
    page.locator(IN_HAND).first.click()
    until(page, lambda: any("v" in m and "id" in m for m in net.sent[-1]), "the move to go out")
    move = next(m for m in net.sent[-1] if "v" in m and "id" in m)
    page.wait_for_function("!document.querySelector('#hand.hand--busy')")
    assert page.inner_html("#hand") != hand_before, f"{move} changed nothing in the hand"
    assert page.locator(".toast--error").count() == 0


def test_the_device_going_offline_is_a_lost_connection(
        steady_server: str, open_page: Callable[..., Page]) -> None:
    """Wi-Fi off: the page does not wait for the socket to fail (a browser may keep a dead
    one open for minutes, the page saying "Connected" and a move "Sending…"): it is offline
    at once, and plays on when the network is back (a move made just before is kept)."""
    page = open_page(PHONE)
    sit_to_play(page, steady_server, "mate")
    hand_before = page.inner_html("#hand")
    page.locator(ENABLED).first.click()
    page.context.set_offline(True)
    page.wait_for_selector("#banner:not([hidden]):has-text('Connection lost')")
    page.wait_for_selector("body.table-page--offline")
    assert page.inner_text("#conn-text") == "Offline"
    assert page.locator(ENABLED).count() == 0
    assert page.is_disabled("#chat-form button")
    page.context.set_offline(False)  # ("online": it reconnects at once)
    page.wait_for_selector("#conn.conn--open")
    page.wait_for_selector("body:not(.table-page--offline)")
    page.wait_for_function("!document.querySelector('#hand.hand--busy')")
    assert page.inner_html("#hand") != hand_before
    assert page.locator(".toast--error").count() == 0


def test_a_seat_freed_while_the_page_was_away_leaves_it_watching(
        steady_server: str, open_page: Callable[..., Page]) -> None:
    """Bea's connection drops; the host frees her seat meanwhile. Her page comes back with a
    token that names no seat: it watches on, and says why (it had joined before)."""
    ann = open_page(DESKTOP)
    link = create_table(ann, steady_server, "Ann", bots=(2, 3))
    bea = open_page(PHONE)
    net = Network(bea)
    sit_down(bea, link, "Bea", 1)
    net.cut("refuse")
    ann.click('.seat[data-seat="1"] button:text("Free seat")')
    ann.wait_for_selector('.seat[data-seat="1"].seat--empty')
    back_online(bea, net)
    bea.wait_for_selector(".toast:text('While you were away the host gave your seat away or "
                          "freed it: you are watching.')")
    bea.wait_for_selector('.seat[data-seat="1"].seat--empty')
    assert not bea.locator(".seat--me").count()
    bea.wait_for_selector('.seat[data-seat="1"] button:text("Sit here")')


@pytest.mark.parametrize(("game", "lost"), [("dingo", "up"), ("dingo", "down"),
                                          ("divide", "up")])
def test_a_move_sent_just_before_the_drop_is_made_once_after_the_reconnect(
        steady_server: str, open_page: Callable[..., Page], game: str, lost: str) -> None:
    """``lost``: "up", the move never reached the server; "down", it was made, but its
    answer never reached the page."""
    page = open_page()
    net = Network(page)
    sit_to_play(page, steady_server, game)
    intent = hold_a_move(page, net, lost)
    card = intent.get("card") or (intent.get("cards") or [None])[0]
    assert card, intent
    net.cut("refuse")
    page.wait_for_selector("body.table-page--offline")
    if lost == "up":
        assert page.inner_text("#prompt").startswith("Offline: your move is sent again")

    back_online(page, net)
    # The same intent, id and all, went out again after hello.
    until(page, lambda: intent in net.sent[-1], "the move to be sent again")
    assert net.sent[-1][0]["type"] == "hello" and net.sent[-1][1] == intent, net.sent[-1]
    page.wait_for_function("!document.querySelector('#hand.hand--busy')")
    page.wait_for_selector(f'#hand [data-card="{card}"]', state="detached")
    assert page.locator(".toast--error").count() == 0
    # Made once: the game log tells of one move of this seat ("You discarded 4♣.",
    # "Ann has committed the 2."), besides sitting down.
    log = page.locator("#log li").all_inner_texts()
    assert len([line for line in log if re.match(r"(You|Ann) (?!sat down)", line)]) == 1, log


#: How long a page waits for an answer before it asks the socket, and then for the pong.
ANSWER_WAIT, PONG_WAIT = 10.0, 5.0


@pytest.mark.parametrize("lost", ["mute", "down"])
def test_a_socket_that_died_silently_is_dropped_and_the_move_made_once(
        steady_server: str, open_page: Callable[..., Page], lost: str) -> None:
    """No close, no "offline" event (a phone that changed networks): the socket stays open
    and carries nothing more, from the move on ("mute") or from its answer on ("down"). Ten
    seconds without the answer the page pings; five more without the pong, it drops the
    socket, reconnects and sends the move again: it is made once."""
    page = open_page(PHONE)
    net = Network(page)
    sit_to_play(page, steady_server, "mate")
    intent = hold_a_move(page, net, lost)
    assert page.inner_text("#prompt") == "Sending\u2026"
    until_after(page, ANSWER_WAIT + PONG_WAIT, lambda: len(net.sent) == 2
                and intent in net.sent[-1], "the page to give up on the socket and send the "
                "move again")
    assert {"type": "ping"} in net.sent[0]
    assert net.sent[-1][0]["type"] == "hello" and net.sent[-1][1] == intent, net.sent[-1]
    page.wait_for_function("!document.querySelector('#hand.hand--busy')")
    page.wait_for_selector("#conn.conn--open")
    assert page.locator(".toast--error").count() == 0
    log = page.locator("#log li").all_inner_texts()
    assert len([line for line in log if re.match(r"(You|Ann) (?!sat down)", line)]) == 1, log


def test_a_slow_answer_on_a_live_socket_is_waited_for(
        steady_server: str, open_page: Callable[..., Page]) -> None:
    """The table is slow to answer (a bot thinking, a table moving between processes) but
    the socket is alive: it answers the page's ping, so the page keeps it and waits."""
    page = open_page()
    net = Network(page)
    sit_to_play(page, steady_server, "divide")
    hold_a_move(page, net, "up")
    until_after(page, ANSWER_WAIT, lambda: {"type": "ping"} in net.sent[0], "the ping")
    page.wait_for_timeout((PONG_WAIT + 1) * 1000)
    assert len(net.sent) == 1, "a live socket was dropped"
    assert page.inner_text("#prompt") == "Sending\u2026"
    assert page.locator("#conn.conn--open").count() == 1


def test_a_move_answered_while_offline_frees_the_hand_when_this_seat_is_asked_again(
        steady_server: str, open_page: Callable[..., Page]) -> None:
    """The move was made but its answer lost ("down"), and by the reconnect the bots have
    acted and this seat is to play again: the fresh state asks this seat, so only the
    move's own answer (sent again: a plain ``ack``) ends the wait. Nothing else comes (the
    bots wait for this seat), so that answer alone must free the hand."""
    page = open_page()
    net = Network(page)
    sit_to_play(page, steady_server, "dingo")
    seat = int(page.get_attribute(".seat--me", "data-seat") or "")
    intent = hold_a_move(page, net, "down")
    until(page, lambda: any(seat in (m.get("patch") or {}).get("to_act", [])
                            for m in net.held[2:]), "this seat to be asked again")
    net.cut("refuse")
    page.wait_for_selector("body.table-page--offline")
    back_online(page, net)
    until(page, lambda: intent in net.sent[-1], "the move to be sent again")
    page.wait_for_selector(ENABLED)
    assert page.locator("#hand.hand--busy").count() == 0
    assert page.inner_text("#prompt") != "Sending…"
    # And the next move goes out and is made.
    before = len(net.sent[-1])
    page.locator(ENABLED).first.click()
    until(page, lambda: any("v" in m and "id" in m for m in net.sent[-1][before:]),
          "the next move to go out")
    page.wait_for_function("!document.querySelector('#hand.hand--busy')")
    assert page.locator(".toast--error").count() == 0


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_move_the_table_could_not_take_goes_out_again_once_it_is_reached(
        steady_server: str, open_page: Callable[..., Page], size: str) -> None:
    """Several servers: a move answered ``service_unavailable`` (the table's owner cannot be
    found for a moment) was not applied; the page keeps it, says so without an error, and
    sends it again, same id, with the full state that comes once the table is back."""
    page = open_page(PHONE if size == "phone" else DESKTOP)
    net = Network(page)
    sit_to_play(page, steady_server, "dingo")
    hand_before = page.inner_html("#hand")
    net.hold_intent = "unreached"
    page.locator(ENABLED).first.click()
    until(page, lambda: bool(net.held), "the move to be answered service_unavailable")
    intent = net.held[0]
    page.wait_for_selector(".toast:has-text('out of reach for a moment')")
    assert page.locator(".toast--error").count() == 0
    assert page.locator("#hand.hand--busy").count() == 1, "the move is still on its way"
    shot(page, f"unreached-dingo-{size}")
    page.wait_for_timeout(300)
    assert net.sent[-1].count(intent) == 1, "sent again before the table was back"

    net.reach()
    until(page, lambda: net.sent[-1].count(intent) == 2, "the move to be sent again")
    page.wait_for_function("!document.querySelector('#hand.hand--busy')")
    page.wait_for_selector(f'#hand [data-card="{intent["card"]}"]', state="detached")
    assert page.inner_html("#hand") != hand_before
    assert page.locator(".toast--error").count() == 0
    log = page.locator("#log li").all_inner_texts()
    assert len([line for line in log if re.match(r"You (?!sat down)", line)]) == 1, log


@pytest.mark.parametrize("lost", ["up", "down"])
def test_a_reconnect_to_an_updated_site_reloads_the_page_and_makes_the_move_once(
        steady_server: str, open_page: Callable[..., Page], lost: str) -> None:
    """The site was updated while the page was open: the server it reconnects to serves
    other client code (``welcome``'s ``build``). The page reloads instead of reading the new
    server's messages with its old code, and the move whose answer never came is sent
    again, same id, by the new page: made once whether it was lost on its way up or only
    its answer on the way down."""
    page = open_page()
    net = Network(page)
    sit_to_play(page, steady_server, "dingo")
    page.evaluate("window.oldPage = true")
    intent = hold_a_move(page, net, lost)

    net.build = "0123456789abcdef"  # the server after a deploy
    with page.expect_navigation():
        net.cut("up")  # the page reconnects by itself, and hears of the new build
    page.wait_for_selector("#conn.conn--open")
    assert page.evaluate("window.oldPage") is None, "the page was not reloaded"
    # The reloaded page's socket: hello, then the same intent, id and all.
    until(page, lambda: intent in net.sent[-1], "the move to be sent again")
    assert len(net.sent) == 3 and net.sent[-1][:2] == [net.sent[-1][0], intent], net.sent
    assert net.sent[-1][0]["type"] == "hello"
    assert not any(intent["id"] == m.get("id") for m in net.sent[1]), "the old page sent it"
    page.wait_for_function("!document.querySelector('#hand.hand--busy')")
    page.wait_for_selector(f'#hand [data-card="{intent["card"]}"]', state="detached")
    assert page.locator(".toast--error").count() == 0
    log = page.locator("#log li").all_inner_texts()
    assert len([line for line in log if re.match(r"You (?!sat down)", line)]) == 1, log
    assert page.evaluate("sessionStorage.length") == len(page.evaluate(
        "Object.keys(sessionStorage).filter(k => !k.startsWith('dingo.outbox.'))"))
    page.wait_for_timeout(500)
    assert page.evaluate("window.oldPage") is None and len(net.sent) == 3, "reloaded again"


def test_a_page_whose_server_runs_other_code_from_the_start_reloads_once(
        steady_server: str, open_page: Callable[..., Page]) -> None:
    """A rolling deploy: the page came from a process on one build, the table lives on a
    process on another. The page reloads once; told of other code again within a minute
    (served by a process not updated yet), it carries on instead of reloading for ever."""
    page = open_page()
    net = Network(page)
    sit_to_play(page, steady_server, "dingo")
    assert page.get_attribute('meta[name="dingo-build"]', "content") == client_build()
    net.build = "fedcba9876543210"  # the table's process runs other code
    loads: list[str] = []
    page.on("load", lambda p: loads.append(p.url))
    page.reload()  # the same page loaded again, from a process on the old build
    page.wait_for_selector(ENABLED)
    page.wait_for_timeout(1500)
    assert len(loads) == 2, loads  # the test's reload, then the page's own: not more
    assert len(net.sent) == 3, net.sent  # a socket per page: before, and after each load
    card = page.locator(ENABLED).first.get_attribute("data-card")
    page.locator(ENABLED).first.click()
    page.wait_for_selector(f'#hand [data-card="{card}"]', state="detached")
    assert page.locator(".toast--error").count() == 0
