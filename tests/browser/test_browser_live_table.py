"""Who is at the table and what they can do: bot names and strength, a dropped player's
countdown, the host handover, a replaced tab, turn alerts, and creating in one click."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from .browserkit import (
    CUT,
    DESKTOP,
    MOVES,
    PHONE,
    HeldIntents,
    assert_no_horizontal_overflow,
    click_if_still_there,
    create_table,
    my_turn,
    play_match,
    shot,
    sit_down,
    take_turn,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser


#: Makes the page believe its tab is hidden (true) or shown (false).
HIDDEN = "Object.defineProperty(document, 'hidden', {{configurable: true, get: () => {}}})"


#: Every bot strength pick narrower than its words (a select squeezed to "nc" for "normal").
PICK_CUT = """[...document.querySelectorAll('select.bot-kind')].filter(s => {
  const free = s.cloneNode(true);
  free.style.cssText = 'position: absolute; visibility: hidden; width: auto; max-width: none';
  s.parentElement.appendChild(free);
  const cut = s.getBoundingClientRect().width + 1 < free.getBoundingClientRect().width;
  free.remove();
  return cut;
}).map(s => s.value)"""


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_bots_have_names_and_a_strength_the_host_picks(
        server: str, open_page: Callable[..., Page], size: dict[str, int]) -> None:
    page = open_page(size)
    # The strengths on offer are the server's bot kinds.
    page.goto(f"{server}/")
    page.wait_for_selector('select[data-seat="1"] option', state="attached")
    offered = page.eval_on_selector_all('select[data-seat="1"] option',
                                        "os => os.map(o => [o.value, o.textContent])")
    kinds = page.evaluate("fetch('/api/bots').then(r => r.json())")
    assert offered == [[k["kind"], k["strength"]] for k in kinds]
    assert offered == [["random", "easy"], ["heuristic", "normal"], ["hard", "hard"]]
    # Each game offers its own bots, the normal one picked.
    for game in page.evaluate("fetch('/api/games').then(r => r.json())"):
        page.check(f"#game-{game['name']}")
        offered = page.eval_on_selector_all(
            'select[data-seat="1"] option',
            "os => os.map(o => [o.value, o.textContent, o.selected])")
        assert offered == [[k["kind"], k["strength"], k["strength"] == "normal"]
                           for k in game["bots"]], game["name"]

    link = create_table(page, server, "Ann", bots=(1, 2, 3), bot_kinds={2: "random"})
    assert page.url == link, "creating a table opens it at once"
    names = page.eval_on_selector_all(".seat__name", "els => els.map(e => e.textContent)")
    assert sorted(names) == ["Ann", "Bruno · bot", "Cleo · bot", "Dov · bot"]
    assert page.inner_text('.seat[data-seat="2"] .badge--bot') == "easy"
    assert page.inner_text('.seat[data-seat="1"] .badge--bot') == "normal"
    assert page.get_attribute('.seat[data-seat="2"] .seat__name', "title") == \
        "Cleo: a bot that plays easy"

    # The host swaps Dov for an easy bot from the "Add bot" control.
    page.click('.seat[data-seat="3"] button:text("Remove bot")')
    page.wait_for_selector('.seat[data-seat="3"].seat--empty')
    assert page.evaluate(PICK_CUT) == [], "a bot strength is cut short"
    page.select_option('.seat[data-seat="3"] select.bot-kind', "random")
    page.click('.seat[data-seat="3"] button:text("Add bot")')
    page.wait_for_selector('.seat[data-seat="3"] .badge--bot:text("easy")')
    assert "Dov, a bot, left seat 4.\nDov, a bot, took seat 4." in page.inner_text("#log")

    page.click("#start-btn")
    page.wait_for_selector("#scoreboard-table")
    assert page.evaluate(CUT) == [], "no name is cut short"
    text = page.inner_text("body")
    assert "Heuristi" not in text and "Random bot" not in text
    shot(page, f"bots-{'phone' if size is PHONE else 'desktop'}")


def test_a_dropped_player_is_counted_down_and_the_host_role_passes(
        server: str, browser: Browser, open_page: Callable[..., Page]) -> None:
    ann_context = browser.new_context(viewport=DESKTOP)
    ann = ann_context.new_page()
    link = create_table(ann, server, "Ann", bots=(2, 3))
    bea = open_page(PHONE)
    sit_down(bea, link, "Bea", 1)
    ann.wait_for_selector("#start-btn:not([disabled])")
    ann.click("#start-btn")
    bea.wait_for_selector("#hand .card")

    ann_context.close()  # Ann's browser is gone
    gone = bea.locator('.seat[data-seat="0"] .seat__gone')
    gone.wait_for()
    assert re.fullmatch(r"Ann left · a bot takes over in 0:0[0-6]", gone.inner_text())
    shot(bea, "player-left-phone")
    # The game comes round to Ann, and waits for her by name.
    rng = random.Random(4)
    while "Waiting for Ann (disconnected)" not in bea.inner_text("#prompt"):
        if not take_turn(bea, rng):
            bea.wait_for_timeout(40)
    assert "discarding" not in bea.inner_text("#prompt")

    # After the grace, a bot plays for Ann and Bea, seated longest of those here, is host.
    bea.wait_for_selector("#log li:text('You are the host now (the host left).')")
    bea.wait_for_selector(".seat--me .badge--host")
    assert "Ann left · a bot plays for now" in bea.inner_text('.seat[data-seat="0"]')
    # The new host gives Ann's seat to a bot for good.
    bea.select_option('.seat[data-seat="0"] select.bot-kind', "random")
    bea.click('.seat[data-seat="0"] button:text("Give to a bot")')
    bea.wait_for_selector('.seat[data-seat="0"] .seat__name:text("Ada · bot")')
    assert bea.inner_text('.seat[data-seat="0"] .badge--bot') == "easy"
    given = "The host gave Ann's seat to a bot: Ada plays seat 1 from now on."
    assert given in bea.inner_text("#log")
    shot(bea, "host-handed-over-phone")


def test_once_the_match_is_over_a_player_who_left_is_only_said_to_have_left(
        server: str, browser: Browser, open_page: Callable[..., Page]) -> None:
    """No bot takes over a match that is over: Bea's plate no longer counts down to one
    (nor says one plays for her)."""
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(2, 3))
    bea_context = browser.new_context(viewport=PHONE)
    bea = bea_context.new_page()
    sit_down(bea, link, "Bea", 1)
    ann.click("#start-btn")
    bea.wait_for_selector("#hand .card")
    bea_context.close()
    gone = ann.locator('.seat[data-seat="1"] .seat__gone')
    gone.wait_for()
    assert "a bot takes over in" in gone.inner_text()
    play_match(ann, random.Random(8))
    assert gone.inner_text() == "Bea left"
    ann.wait_for_timeout(1200)  # the countdown's ticks leave it so
    assert gone.inner_text() == "Bea left"


def test_a_move_the_timer_made_is_told_on_screen(server: str,
                                                open_page: Callable[..., Page]) -> None:
    """Time runs out and a bot moves for you: a toast says so, not only the game log."""
    page = open_page(DESKTOP)
    page.goto(f"{server}/")
    page.wait_for_selector("#create-form[data-ready]")
    page.fill("#name", "Ann")
    # Five seconds a turn, the server's least (the form offers 15 s and more).
    page.evaluate("() => { const s = document.querySelector('#timer');"
                  " s.add(new Option('5 s', '5')); s.value = '5'; }")
    page.click("#create-btn")
    page.wait_for_selector(".seat--me")
    page.click("#start-btn")
    page.wait_for_selector(".toast:text('Time ran out: a bot moved for you.')", timeout=20_000)
    assert "Time ran out: a bot moved for you." in page.inner_text("#log")


def test_the_host_hands_the_role_over_and_frees_an_absent_players_seat(
        server: str, browser: Browser, open_page: Callable[..., Page]) -> None:
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(3,))
    bea = open_page(PHONE)
    cy_context = browser.new_context(viewport=DESKTOP)
    try:
        for page, name, seat in ((bea, "Bea", 1), (cy_context.new_page(), "Cy", 2)):
            sit_down(page, link, name, seat)
        ann.wait_for_selector('.seat[data-seat="2"] .seat__name:text("Cy")')
        assert bea.locator("button:text('Make host'), #start-btn").count() == 0

        # Ann hands the host role to Bea: everyone is told, and the controls move with it.
        ann.click('.seat[data-seat="1"] button:text("Make host")')
        bea.wait_for_selector(".seat--me .badge--host")
        bea.wait_for_selector("#log li:text('You are the host now (handed over).')")
        ann.wait_for_selector("#log li:text('Bea is the host now (handed over).')")
        assert ann.locator(".seat--me .badge--host").count() == 0
        assert ann.locator("button:text('Make host'), button:text('Add bot'), #start-btn"
                           ).count() == 0
        assert bea.locator("#start-btn").count() == 1
        shot(bea, "host-handed-by-hand-phone")

        # Cy's browser is gone before the match: the new host frees the seat for someone else.
        cy_context.close()
        gone = bea.locator('.seat[data-seat="2"] .seat__gone')
        gone.wait_for()
        assert gone.inner_text().startswith("Cy left")
        # The role goes only to someone here: an absent host would leave the table waiting.
        assert bea.locator('.seat[data-seat="2"] button:text("Make host")').count() == 0
        bea.click('.seat[data-seat="2"] button:text("Free seat")')
        bea.wait_for_selector('.seat[data-seat="2"].seat--empty')
        bea.wait_for_selector("#log li:text(\"The host freed Cy's seat: seat 3 is free again.\")")
        ann.wait_for_selector('.seat[data-seat="2"].seat--empty')
        shot(bea, "host-freed-seat-phone")

        # The new host leaves its seat: no plate shows the role now, and the controls stay
        # with Bea, not with the page that was given the role when it opened (Ann's).
        bea.click("#leave-seat")
        bea.wait_for_selector(".toast:text('You left your seat: you are watching, and still "
                              "the host.')")
        ann.wait_for_selector("#watchers:text-is('1 watching: the host')")
        assert ann.locator("button:text('Add bot'), button:text('Make host'), #start-btn"
                           ).count() == 0
        bea.wait_for_selector('.seat[data-seat="1"] button:text("Add bot")')
        assert bea.locator("#start-btn").count() == 1
    finally:
        cy_context.close()


def test_in_the_lobby_a_host_who_left_is_counted_down_to_the_role_passing(
        server: str, browser: Browser, open_page: Callable[..., Page]) -> None:
    """Before the match no bot takes over anyone, but the host role passes when the host's
    grace runs out: the one who will get it sees when."""
    ann_context = browser.new_context(viewport=DESKTOP)
    link = create_table(ann_context.new_page(), server, "Ann", bots=(2, 3))
    bea = open_page(PHONE)
    sit_down(bea, link, "Bea", 1)
    ann_context.close()
    gone = bea.locator('.seat[data-seat="0"] .seat__gone')
    gone.wait_for()
    assert re.fullmatch(r"Ann left · the host role passes in 0:0[0-6]", gone.inner_text())
    assert bea.get_attribute('.seat[data-seat="0"] .dot', "aria-label") == "disconnected"
    shot(bea, "lobby-host-left-phone")
    bea.wait_for_selector("#log li:text('You are the host now (the host left).')")
    bea.wait_for_selector(".seat--me .badge--host")
    assert gone.inner_text() == "Ann left"
    assert bea.get_attribute('.seat[data-seat="0"] .dot', "aria-label") == "away"


def test_in_the_lobby_a_watching_host_who_left_is_counted_down_too(
        server: str, open_page: Callable[..., Page]) -> None:
    """A host who left its seat and then the table shows on no plate: the lobby counts down
    to the role passing (it said "Waiting for the host" for the whole grace period). Back
    after that, its page is told the role has gone."""
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(2, 3))
    bea = open_page(PHONE)
    sit_down(bea, link, "Bea", 1)
    cy = open_page(PHONE)  # watches: told the same
    cy.goto(link)
    ann.click("#leave-seat")
    # The host watching is told to fill the seats and start, not that the match starts soon.
    ann.wait_for_function("document.querySelector('#prompt').textContent"
                          " === 'Fill every seat, then start the match.'")
    line = bea.locator("#lobby p.muted >> nth=-2")
    bea.wait_for_selector("#lobby p:text('The host is watching, not seated')")
    cy.wait_for_selector("#lobby p:text('The host is watching, not seated')")
    ann.goto("about:blank")
    bea.wait_for_selector("#lobby p:text('The host left')")
    assert re.fullmatch(r"The host left · the host role passes in 0:0[0-6]", line.inner_text())
    cy.wait_for_selector("#lobby p:text('The host left · the host role passes in')")
    shot(bea, "lobby-watching-host-left-phone")
    bea.wait_for_selector("#log li:text('You are the host now (the host left).')")
    bea.wait_for_selector(".seat--me .badge--host")
    assert bea.locator("#start-btn").count() == 1
    ann.goto(link)
    ann.wait_for_selector(".toast:text('While you were away the host role passed to a player at "
                          "the table: you are watching.')")
    assert ann.locator("#start-btn, button:text('Add bot')").count() == 0


def test_a_player_leaves_the_seat_before_and_during_the_match(
        server: str, open_page: Callable[..., Page]) -> None:
    """"Leave seat": in the lobby the seat is free at once; during the
    match only once the player says so (a bot plays it from then on). Either way the player
    watches on, also after a reload, and everyone's log says it once."""
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(2, 3))
    bea = open_page(PHONE)
    sit_down(bea, link, "Bea", 1)
    bea.dblclick("#leave-seat")  # (a second press is not a second leave)
    bea.wait_for_selector(".toast:text('You left your seat: you are watching.')")
    bea.wait_for_timeout(300)
    assert not bea.locator(".seat--me, .toast--error").count()
    ann.wait_for_selector('.seat[data-seat="1"].seat--empty')
    assert "Bea left: seat 2 is free again." in ann.inner_text("#log")
    bea.click('.seat[data-seat="1"] button:text("Sit here")')
    bea.wait_for_selector(".seat--me")
    ann.wait_for_selector("#start-btn:not([disabled])")
    ann.click("#start-btn")
    bea.wait_for_selector("#hand .card")
    # Bea plays a move first: the log keeps it hers when the table is loaded again later.
    rng = random.Random(2)
    deadline = time.monotonic() + 30
    while not re.search(r"Bea (discarded|passed|played)", ann.inner_text("#log")):
        assert time.monotonic() < deadline, "Bea never moved"
        for page in (ann, bea):
            if my_turn(page) and take_turn(page, rng):
                page.wait_for_selector("#hand:not(.hand--busy)")
        ann.wait_for_timeout(20)
    hers = [line for line in ann.locator("#log li").all_inner_texts()
            if re.match(r"Bea (discarded|passed|played)", line)]
    # During the match it asks first; Escape (or Stay) keeps the seat.
    bea.click("#leave-seat")
    bea.wait_for_selector("dialog.ask[open]")
    assert bea.evaluate("document.activeElement.id") == "ask-no"
    assert_no_horizontal_overflow(bea)
    shot(bea, "leave-seat-asks-phone")
    bea.keyboard.press("Escape")
    bea.wait_for_selector("dialog.ask", state="detached")
    assert bea.locator(".seat--me").count() == 1
    bea.click("#leave-seat")
    bea.click("#ask-yes")
    bea.wait_for_selector('.seat[data-seat="1"] .seat__name:text("Bruno · bot")')
    assert not bea.locator(".seat--me, #hand .card").count()
    ann.wait_for_selector('.seat[data-seat="1"] .seat__name:text("Bruno · bot")')
    line = "Bea left: a bot, Bruno, plays seat 2 from now on."
    for page in (ann, bea):
        page.wait_for_selector(f"#log li:text('{line}')")
        assert page.inner_text("#log").count(line) == 1
    # Loaded again, the log names Bea for her move, not the bot that has her seat now.
    ann.reload()
    ann.wait_for_selector(f"#log li:text('{line}')")
    assert set(hers) <= set(ann.locator("#log li").all_inner_texts()), hers
    # A reload finds no seat to take back: still watching, nothing refused.
    bea.reload()
    bea.wait_for_selector('.seat[data-seat="1"] .seat__name:text("Bruno · bot")')
    assert not bea.locator(".seat--me, .toast--error").count()


def test_the_host_leaves_its_seat_and_stays_the_host(server: str,
                                                     open_page: Callable[..., Page]) -> None:
    """The host may leave its seat like anyone: it watches and is still the host (also after
    a reload: its token names the role), sits again with the role, and mid-match is told it
    stays the host before a bot takes its seat. The others read that the host watches."""
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(2,))
    bea = open_page(DESKTOP)
    sit_down(bea, link, "Bea", 1)
    assert bea.locator("#watchers").is_hidden()
    ann.click("#leave-seat")
    ann.wait_for_selector(".toast:text('You left your seat: you are watching, and still the "
                          "host.')")
    ann.wait_for_selector('.seat[data-seat="0"].seat--empty')
    bea.wait_for_selector("#watchers:text-is('1 watching: the host')")
    assert bea.locator("#lobby p.muted").all_inner_texts()[-2:] == [
        "The host is watching, not seated.",
        "2 seats still empty: the host can start the match once every seat is taken."]
    assert ann.inner_text("#watchers") == "1 watching"
    ann.reload()
    # Still the host: a bot can be added to the free seats.
    ann.wait_for_selector('.seat[data-seat="3"] button:text("Add bot")')
    assert not ann.locator(".seat--me").count()
    ann.fill("#sit-name", "Ann")
    ann.click('.seat[data-seat="0"] button:text("Sit here")')
    ann.wait_for_selector(".seat--me .badge--host")
    bea.wait_for_selector("#watchers", state="hidden")
    assert bea.locator("#lobby p.muted").all_inner_texts()[-2:] == [
        "Share this link: friends can sit in an empty seat or watch.",
        "1 seat still empty: the host can start the match once every seat is taken."]
    ann.reload()
    ann.wait_for_selector(".seat--me .badge--host")
    ann.click('.seat[data-seat="3"] button:text("Add bot")')
    ann.click("#start-btn:not([disabled])")
    ann.wait_for_selector("#hand .card")
    ann.click("#leave-seat")
    ann.wait_for_selector("dialog.ask[open]")
    assert ("You stay the host: you may remove the bot between games and sit down again."
            in ann.inner_text("dialog.ask"))
    ann.click("#ask-yes")
    ann.wait_for_selector('.seat[data-seat="0"] .seat__name:text("Ada · bot")')
    ann.reload()
    ann.wait_for_selector('.seat[data-seat="0"] .seat__name:text("Ada · bot")')
    assert not ann.locator(".seat--me, .toast--error").count()
    assert ann.evaluate("JSON.parse(localStorage.getItem(`dingo.table.${location.pathname"
                        ".split('/')[2]}`)).played_seat") == 0


def test_a_player_who_leaves_after_the_match_leaves_a_bot_for_the_rematch(
        server: str, open_page: Callable[..., Page]) -> None:
    """Once the match is over, each is told who asked for a rematch (on a phone the results
    cover the plates' badges). "Leave seat" (on the plate, under the results) asks in the
    after-match words (the seat goes to a bot for a rematch); the rematch the host asked for
    then starts at once with the bot in it."""
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(2, 3))
    bea = open_page(PHONE)
    sit_down(bea, link, "Bea", 1)
    ann.click("#start-btn:not([disabled])")
    rng = random.Random(3)
    deadline = time.monotonic() + 120
    while not (ann.locator("#rematch-btn").count() and bea.locator("#rematch-btn").count()):
        assert time.monotonic() < deadline, "the match did not end in time"
        for page in (ann, bea):
            if my_turn(page) and take_turn(page, rng):
                page.wait_for_selector("#hand:not(.hand--busy)")
        ann.wait_for_timeout(20)
    assert not bea.locator("#results-votes").count()
    ann.click("#rematch-btn")
    bea.wait_for_selector("#results-votes:text-is('Ann asked for a rematch.')")
    shot(bea, "rematch-asked-phone", full_page=False)
    ann.wait_for_selector("#results-votes:text-is('Waiting for Bea.')")
    bea.click("#hide-results")  # (on a phone the results cover the plate)
    bea.click("#leave-seat")
    bea.wait_for_selector("dialog.ask[open]")
    assert bea.inner_text("dialog.ask h2") == "Leave the table?"
    assert "A bot takes your seat for a rematch" in bea.inner_text("dialog.ask")
    assert_no_horizontal_overflow(bea)
    shot(bea, "leave-after-the-match-phone")
    bea.click("#ask-yes")
    ann.wait_for_selector('.seat[data-seat="1"].seat--bot')
    assert not bea.locator(".seat--me, #rematch-btn").count()
    ann.wait_for_selector("#hand .card")
    bea.wait_for_selector('#log li:text("Rematch! Match 2 begins.")')


def test_a_leave_from_the_lobby_that_crosses_the_start_keeps_the_seat(
        server: str, open_page: Callable[..., Page]) -> None:
    """Bea clicks "Leave seat" in the lobby as Ann starts the match, and Ann's start arrives
    first: Bea meant to free a lobby seat, not to give a match seat to a bot for good, so
    she keeps it, is told why, and may leave again (the match's way: it asks). A leave that
    crosses another change of the lobby (a bot removed) goes again by itself."""
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(2, 3))
    bea = open_page(PHONE)
    leaves = HeldIntents(bea, '"leave_seat"')
    sit_down(bea, link, "Bea", 1)
    bea.click("#leave-seat")
    leaves.wait()
    ann.click('.seat[data-seat="3"] button:text("Remove bot")')
    ann.wait_for_selector('.seat[data-seat="3"].seat--empty')
    leaves.release()
    ann.wait_for_selector('.seat[data-seat="1"].seat--empty')
    bea.wait_for_selector(".toast:text('You left your seat: you are watching.')")
    assert not bea.locator(".toast--error").count()
    bea.click('.seat[data-seat="1"] button:text("Sit here")')
    bea.wait_for_selector(".seat--me")
    ann.click('.seat[data-seat="3"] button:text("Add bot")')
    leaves.holding = True
    bea.click("#leave-seat")
    leaves.wait()
    ann.click("#start-btn:not([disabled])")
    bea.wait_for_selector("#hand .card")
    leaves.release()
    bea.wait_for_selector(".toast--error:text('The match started before you left')")
    assert bea.locator(".seat--me").count() == 1
    ann.wait_for_selector("#hand .card")
    assert ann.locator('.seat[data-seat="1"] .seat__name:text-is("Bea")').count() == 1
    assert "plays seat 2 from now on" not in ann.inner_text("#log")
    bea.click("#leave-seat")
    bea.wait_for_selector("dialog.ask[open]")


def test_a_host_who_left_alone_passes_the_role_to_the_first_to_sit(
        server: str, browser: Browser, open_page: Callable[..., Page]) -> None:
    """Nobody else was here when the host's grace ran out: the first to sit is host, and
    the lobby says who is gone instead of 'Everyone is here'."""
    ann_context = browser.new_context(viewport=DESKTOP)
    link = create_table(ann_context.new_page(), server, "Ann", bots=(2, 3))
    ann_context.close()
    bea = open_page(PHONE)
    bea.goto(link)
    # (A spectator meanwhile: the grace runs out with nobody seated here.)
    bea.wait_for_selector('.seat[data-seat="0"] .seat__gone:text-is("Ann left")', timeout=20_000)
    bea.fill("#sit-name", "Bea")
    bea.click('.seat[data-seat="1"] button:text("Sit here")')
    bea.wait_for_selector(".seat--me .badge--host")
    bea.wait_for_selector("#log li:text('You are the host now (the host left).')")
    assert "Every seat is taken, but Ann left." in bea.inner_text("#lobby")
    assert bea.inner_text("#prompt").startswith("Every seat is taken: start the match")
    assert bea.is_enabled("#start-btn")
    shot(bea, "host-left-alone-phone")
    bea.click('.seat[data-seat="0"] button:text("Give to a bot")')
    bea.wait_for_selector('.seat[data-seat="0"].seat--bot')
    assert "Everyone is here." in bea.inner_text("#lobby")


def test_a_replaced_tab_only_watches_until_it_takes_the_seat_back(
        server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP)
    try:
        first = context.new_page()
        link = create_table(first, server, "Ann", timer="60")
        first.click("#start-btn")
        first.wait_for_selector("#hand .card--legal")
        first.wait_for_selector(".seat--me [data-timer]")

        second = context.new_page()  # the same browser: the same seat token
        second.goto(link)
        second.wait_for_selector("#hand .card--legal")
        first.wait_for_selector("#banner:not([hidden]):has-text('another window or tab')")
        # The old tab shows the table but offers nothing to do.
        assert first.locator("#hand .card").count() > 0
        assert first.locator("#hand .card--legal").count() == 0
        assert first.locator("[data-timer]").count() == 0
        idle = "#actions button, .seat__actions button, #chat-form:visible"
        assert first.locator(idle).count() == 0
        assert first.inner_text("#banner-btn") == "Play here instead"
        assert first.inner_text("#prompt").startswith("This tab only watches")
        assert "your turn" not in first.inner_text(".seat--me")
        shot(first, "replaced-tab")

        first.click("#banner-btn")
        first.wait_for_selector("#hand .card--legal")
        second.wait_for_selector("#banner:not([hidden]):has-text('another window or tab')")
        assert second.locator("#hand .card--legal").count() == 0
    finally:
        context.close()


def test_a_leave_confirmed_after_another_tab_took_the_seat_says_so(
        server: str, browser: Browser, open_page: Callable[..., Page]) -> None:
    """Bea's first tab asks "Leave the match?"; meanwhile her second tab takes the seat.
    Saying yes in the first tab does nothing but say why (not "Reconnecting…", which it
    never would)."""
    ann = open_page(DESKTOP)
    link = create_table(ann, server, "Ann", bots=(2, 3))
    context = browser.new_context(viewport=PHONE)
    try:
        first = context.new_page()
        sit_down(first, link, "Bea", 1)
        ann.click("#start-btn:not([disabled])")
        first.wait_for_selector("#hand .card")
        first.click("#leave-seat")
        first.wait_for_selector("dialog.ask[open]")
        second = context.new_page()  # the same browser: the same seat token
        second.goto(link)
        second.wait_for_selector(".seat--me")
        first.wait_for_selector("#banner:not([hidden]):has-text('another window or tab')")
        first.click("#ask-yes")
        first.wait_for_selector(".toast--error:text('This tab only watches')")
        assert not first.locator(".toast:text('Reconnecting')").count()
        assert ann.locator('.seat[data-seat="1"] .seat__name:text-is("Bea")').count() == 1
    finally:
        context.close()


def test_your_turn_in_a_hidden_tab_chimes_and_notifies_once_turned_on(
        server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP, permissions=["notifications"])
    try:
        page = context.new_page()
        create_table(page, server, "Ann")
        assert not page.is_checked("#alert-sound") and not page.is_checked("#alert-notify")
        page.check("#alert-sound")
        page.check("#alert-notify")
        page.reload()
        page.wait_for_selector(".seat--me")
        assert page.is_checked("#alert-sound") and page.is_checked("#alert-notify")
        page.evaluate(HIDDEN.format("true"))
        assert page.get_attribute("body", "data-turn-alerts") is None
        page.click("#start-btn")
        page.wait_for_selector("body[data-turn-alerts='1']")
        assert page.get_attribute("body", "data-turn-alert") == "sound,notification"
        # A visible tab is not disturbed.
        page.evaluate(HIDDEN.format("false"))
        rng = random.Random(1)
        for _ in range(2):
            page.wait_for_function("document.querySelectorAll('#hand .card--legal').length > 0")
            assert my_turn(page)
            take_turn(page, rng)
            page.wait_for_selector("#hand:not(.hand--busy)")
        assert page.get_attribute("body", "data-turn-alerts") == "1"
    finally:
        context.close()


def test_a_card_that_cannot_be_played_says_why(server: str,
                                               open_page: Callable[..., Page]) -> None:
    """Pressed (by keyboard) on your turn, the rules engine's reason is shown.

    Such a card comes up in nearly every game (an ace in a discard round, a card that
    is not a wolf of the hunt); five games make sure of one.
    """
    from .test_browser_game import WHY_NOT

    page = open_page()
    create_table(page, server, "Ann", games=5)
    page.click("#start-btn")
    rng = random.Random(9)
    while True:
        assert not page.locator("#rematch-btn").count(), "five games without such a card"
        if page.locator("#ready-btn:not([disabled])").count():
            # (The next game may start by itself first: then the button is gone.)
            click_if_still_there(page, "#ready-btn:not([disabled])")
        elif my_turn(page) and page.locator("#hand .card--illegal").count():
            break
        elif not take_turn(page, rng):
            page.wait_for_timeout(40)
        else:
            page.wait_for_selector("#hand:not(.hand--busy)")
    card = page.get_attribute("#hand .card--illegal", "data-card")
    page.focus(f'#hand [data-card="{card}"]')
    page.keyboard.press("Enter")
    toast = page.locator(".toast--error").last
    toast.wait_for()
    assert re.fullmatch(WHY_NOT, toast.inner_text()), toast.inner_text()
    assert page.locator(f'#hand [data-card="{card}"]').count() == 1, "nothing was played"
    shot(page, "why-not")


#: Watches the hunt banner (#flash): each time it goes, how long after the latest news it
#: showed, whether that news came on this page's turn, and whether this page had just
#: moved (``window.flashWatch``).
WATCH_FLASH = """(moves) => {
  const seen = window.flashWatch = {shown: 0, gone: []};
  const flash = document.querySelector('#flash');
  const deals = () => (document.querySelector('#log').textContent
    .match(/Game \\d+ begins/g) || []).length;
  let since = null, mine = false, text = '', dealt = 0;
  new MutationObserver(() => {
    if (!flash.hidden && (since === null || flash.textContent !== text)) {
      seen.shown += 1;
      since = performance.now();
      mine = document.querySelector(moves) !== null;
      text = flash.textContent;
      dealt = deals();
    } else if (flash.hidden && since !== null) {
      seen.gone.push({after: performance.now() - since, mine,
                      moved: document.querySelector('#hand.hand--busy') !== null,
                      dealt: deals() > dealt});
      since = null;
    }
  }).observe(flash, {attributes: true, attributeFilter: ['hidden'], childList: true,
                     subtree: true, characterData: true});
}"""


def test_the_hunt_banner_stays_until_your_move_or_five_seconds(
        server: str, open_page: Callable[..., Page]) -> None:
    """The result of a hunt stays above the prompt until the reader's next decision;
    when someone else is to move (and always for a spectator) for 5 s; in any case not past
    the next deal (a drawn game is played again)."""
    page = open_page(DESKTOP)
    link = create_table(page, server, "Ann")
    watcher = open_page(PHONE)
    watcher.goto(link)
    watcher.wait_for_selector(".seat--bot")
    for p in (page, watcher):
        p.evaluate(WATCH_FLASH, MOVES)
    page.click("#start-btn")
    rng = random.Random(3)
    while not page.locator("#rematch-btn").count():
        if not take_turn(page, rng):
            page.wait_for_timeout(40)
        else:
            page.wait_for_selector("#hand:not(.hand--busy)")
    # The last hunt's news goes 5 s after it came, nothing moving after it.
    watcher.wait_for_selector("#flash", state="hidden", timeout=10_000)
    page.wait_for_selector("#flash", state="hidden", timeout=10_000)
    shown = page.evaluate("window.flashWatch")
    assert shown["shown"] > 0
    for gone in shown["gone"]:
        # Gone at your move or a new deal; else 5 s after news that came on someone else's turn.
        assert gone["moved"] or gone["dealt"] or (gone["after"] >= 4900 and not gone["mine"]), (
            shown)
    watched = watcher.evaluate("window.flashWatch")
    assert watched["shown"] > 0 and watched["gone"], watched
    assert all((gone["after"] >= 4900 or gone["dealt"]) and not gone["moved"]
               for gone in watched["gone"]), watched


def test_news_that_comes_on_your_turn_waits_for_your_move(
        server: str, open_page: Callable[..., Page]) -> None:
    """Divide and Conquer: each battle's result is flashed as the next battle begins,
    your turn; it stays however long you think (the page's clock is run on 6 s), and goes
    when you commit (for the next battle's news, when the bot had committed first)."""
    page = open_page(PHONE)
    page.clock.install()
    create_table(page, server, "Ann", game="divide", bots=(1,))
    page.click("#start-btn")
    commit = "#hand .move:not([aria-disabled])"
    page.click(commit)
    page.wait_for_selector("#flash:not([hidden])")
    page.wait_for_selector(commit)
    news = page.inner_text("#flash")
    assert news.startswith("Battle 1:")
    page.clock.run_for(6000)
    assert page.is_visible("#flash") and page.inner_text("#flash") == news
    shot(page, "news-on-your-turn-phone")
    page.click(commit)
    page.wait_for_function("news => document.querySelector('#flash').hidden"
                           " || document.querySelector('#flash').textContent !== news", arg=news)


#: Dead rabbits drawn past the edge of their spot, the felt or the screen.
DEAD_CLIPPED = """() => {
  const row = document.querySelector('.board__dead .card-row');
  if (!row) return [];
  const felt = document.querySelector('#felt').getBoundingClientRect();
  const spot = document.querySelector('.board__dead').getBoundingClientRect();
  return [...row.querySelectorAll('.card')].map(c => c.getBoundingClientRect())
    .filter(r => r.left < Math.max(felt.left, spot.left - 40, 0) - 0.5
                 || r.right > Math.min(felt.right, innerWidth) + 0.5)
    .map(r => [r.left, r.right]);
}"""


def test_a_whole_game_on_a_phone_shows_every_dead_rabbit_and_why(
        server: str, open_page: Callable[..., Page]) -> None:
    page = open_page(PHONE)
    create_table(page, server, "Pia")
    page.click("#start-btn")
    rng = random.Random(5)
    most_dead = 0
    while not page.locator("#rematch-btn").count():
        dead = page.locator(".board__dead .card").count()
        if dead > most_dead:
            most_dead = dead
            assert page.evaluate(DEAD_CLIPPED) == [], f"{dead} dead rabbits, some clipped"
        if not take_turn(page, rng):
            page.wait_for_timeout(40)
        else:
            page.wait_for_selector("#hand:not(.hand--busy)")
    assert page.evaluate(CUT) == []
    assert "Why" in page.inner_text("#why")
    shot(page, "phone-results")
    page.click("#hide-results")
    assert page.evaluate(DEAD_CLIPPED) == []
    shot(page, "phone-dead-rabbits")


def test_a_seat_freed_between_games_is_offered_over_the_results(
        patient_server: str, open_page: Callable[..., Page]) -> None:
    """Between games the host removes the bot: the results say the next game waits for the
    free seat, and someone who opens the link then is offered it over the results (they
    covered the seat's "Sit here")."""
    ann = open_page(DESKTOP)
    link = create_table(ann, patient_server, "Ann", game="mate", bots=(1,))
    ann.click("#start-btn:not([disabled])")
    rng = random.Random(5)
    deadline = time.monotonic() + 60
    while not ann.locator("#ready-btn").count():
        assert time.monotonic() < deadline, "the game did not end in time"
        if my_turn(ann) and take_turn(ann, rng):
            ann.wait_for_selector("#hand:not(.hand--busy)")
        ann.wait_for_timeout(20)
    assert ann.inner_text("#results-note").startswith("The next game starts when everyone")
    ann.click("#hide-results")
    ann.click('.seat[data-seat="1"] button:text("Remove bot")')
    ann.wait_for_selector('.seat[data-seat="1"].seat--empty')
    ann.click("#show-results")
    note = "Seat 2 is free: the next game waits until someone sits there or you add a bot."
    ann.wait_for_selector(f"#results-note:text-is('{note}')")
    # The finished game is still Bruno's: its results and log name him, not "Seat 2".
    results = ann.inner_text("#results").replace(note, "")
    assert "Bruno" in results and "Seat 2" not in results, results
    assert "Seat 2 " not in ann.inner_text("#log")
    cy = open_page(PHONE)
    cy.goto(link)
    cy.wait_for_selector("#results-note:text-is('Seat 2 is free: the next game waits until "
                         "someone sits there.')")
    cy.click("#take-seat")  # the results close on the free seat
    cy.wait_for_selector("#overlay", state="hidden")
    # The prompt says so too (the game's own words said the next game was coming).
    assert cy.inner_text("#prompt") == ("Seat 2 is free: the next game waits until someone "
                                        "sits there.")
    assert cy.locator('.seat[data-seat="1"] button:text("Sit here")').is_visible()
    assert cy.evaluate("""(() => { const r = document.querySelector('.seat[data-seat="1"]')
        .getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()""")
    cy.fill("#sit-name", "Cy")
    cy.click('.seat[data-seat="1"] button:text("Sit here")')
    cy.wait_for_selector(".seat--me")
    # Cy holds the seat now, but did not play the game on the felt: it is Bruno's to Cy too.
    assert cy.inner_text(".seat--me .seat__name") == "Cy"
    assert cy.inner_text(".seat--me .seat__played") == "Bruno (bot) played this game"
    told = cy.inner_text("#log") + cy.inner_text("#prompt")
    assert "Bruno" in told and "you score" not in told.lower(), told
    assert "You sat down in seat 2." in cy.inner_text("#log")
    # Until the next deal the scoreboard's column is Bruno's (his game is on the felt).
    assert not cy.locator("#scoreboard-earlier").count()
    shot(cy, "free-seat-taken-phone")
    cy.click("#show-results")  # (Ann's are still open)
    ann.click("#ready-btn")
    cy.wait_for_selector("#results-votes:text-is('Ann is ready for the next game.')")
    ann.wait_for_selector("#results-votes:text-is('Waiting for Cy.')")
    # The button says what you did; the line above it says whom the game waits for.
    assert ann.inner_text("#ready-btn") == "You are ready" and ann.is_disabled("#ready-btn")
    cy.click("#ready-btn")
    for page in (ann, cy):  # the next game is dealt: the results close
        page.wait_for_selector("#overlay", state="hidden")
        assert page.locator("#ready-btn").count() == 0
        # The scoreboard's column is Cy's now; under it, whose the game in it was.
        page.wait_for_function("document.querySelector('#scoreboard-earlier')?.textContent"
                               " === 'Bruno (bot) played seat 2 in game 1.'")
