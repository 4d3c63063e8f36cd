"""A whole game played by clicking on the table page, then found in the history and replayed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .browserkit import shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

#: What the rules engine says about a card that cannot be played now.
WHY_NOT = (r"Aces may not be discarded\.|.+ is not a wolf of this hunt: (you may play .+, "
           r"or no wolf|you hold no wolf of it: play no wolf)\.")


def test_a_whole_game_by_clicking_ends_on_the_scoreboard(finished_match: dict[str, Any]) -> None:
    played = finished_match
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/t/[A-Za-z0-9_-]{6,}", played["link"])
    assert played["copied"] == played["link"], "the copy button copies the table link"
    # Seven exchange decisions at least (four discards, three passes), the first by keyboard.
    assert played["moves"] >= 7
    assert played["seen"]["keyboard"]
    prompts = played["seen"]["prompts"]
    assert any(p.startswith("Discard a card") for p in prompts)
    assert any(p.startswith("Pass a card") for p in prompts)
    assert "wins the match" in played["winner_line"] or "win the match" in played["winner_line"]
    rows = {row[0]: row[1:] for row in played["scoreboard"]}
    assert rows["Game"] == ["You", "Bruno", "Cleo", "Dov"]
    assert "1" in rows, "game 1 has a row of points"
    assert sorted(rows["Games won"]) == ["0", "0", "0", "1"]
    assert re.fullmatch(r"/matches/\d+", played["record_url"])
    assert "1 (now)" in played["after_rematch"], "the rematch starts again from game 1"


def test_the_table_says_what_just_happened_and_why(finished_match: dict[str, Any]) -> None:
    seen = finished_match["seen"]
    board = seen["board"]
    # The last hunt is one in which a card was played, never a dead rabbit's.
    assert board["lastHunts"], "a last hunt was shown"
    assert not [t for t in board["lastHunts"] if "dead" in t], board["lastHunts"]
    # Each says who caught what: the catcher (or that the rabbit escaped) and the points.
    for told in board["lastHunts"]:
        assert re.fullmatch(r"(caught by \w+|hunted|escaped: no wolf came) \(.+\)", told), told
    # The hunt banner covers neither the dead rabbits nor the last hunt.
    assert board["banners"] > 0
    assert board["overlaps"] == []
    assert seen["cut"] == [], "no seat name or scoreboard heading is cut short"
    # Each scoreboard column is headed by its seat's avatar, as on the seat's plate.
    for seat, (plate, head) in enumerate(seen["avatars"]):
        assert plate is not None and head == plate, (seat, plate, head)
        assert plate[0] == f"avatar avatar--{seat}"
    # Thirteen hunts, 2 to ace, in the strip: rank, the cards, who scored.
    rows = seen["hunt_rows"]
    assert len(rows) == 13 and "\n2s\n" in rows[0] and "\nAces\n" in rows[-1]
    # The results say why: every seat's rabbits and penalties, and the winner rule.
    why = seen["why"]
    for name in ("You", "Bruno", "Cleo", "Dov"):
        assert name in why
    assert "Ann" not in why, why  # the reader is "you": "to your penalty pile"
    assert "Rabbits caught:" in why or "No rabbit caught." in why
    assert re.search(r"The highest score wins the game|tie", why)
    # Every point is told: the values named add up to each seat's points.
    assert len(seen["why_seats"]) == 4
    for block in seen["why_seats"]:
        points = re.match(r"\S+ ([+\u2212]?)(\d+)", block)
        assert points, block
        # The cards won are listed "A♥ (3)"; a penalty line "Penalty A♦ (\u22123): <how>",
        # whose explanation of the hunt states the points again, signed.
        told = (sum(int(v) for v in re.findall(r"\((\d+)\)", block))
                - sum(int(v) for v in re.findall(r"Penalty [^()]* \(\u2212(\d+)\)", block)))
        assert told == (-1 if points[1] == "\u2212" else 1) * int(points[2]), block
    assert seen["buttons_in_sight"], "a results panel that scrolls hides its buttons"
    # A penalty counts against, with a minus sign, as the why beside it says "(\u22123)".
    assert len(seen["penalty_column"]) == 4
    assert all(re.fullmatch("0|\u2212[1-9][0-9]*", v) for v in seen["penalty_column"]), \
        seen["penalty_column"]
    assert seen["plate_penalties"] == seen["penalty_column"], "the plates say it as the table does"
    if seen["why_not"] is not None:  # (test_browser_live_table makes sure of one)
        assert re.fullmatch(WHY_NOT, seen["why_not"])
    # Screen readers hear that it is your turn; a double click selects no text.
    assert "Your turn." in seen["announced"]
    assert seen["selected_by_double_click"] == ""


def test_exchange_notes_read_in_the_order_things_happened(finished_match: dict[str, Any]) -> None:
    notes, log = finished_match["seen"]["exchanges"]
    assert len(notes) == 3
    for note in notes:
        m = re.fullmatch(r"Pass \w+: you (gave|got) (\S+) (?:to|from) (\w+), (gave|got) (\S+) "
                         r"(?:to|from) (\w+)", note)
        assert m, note
        (gave, to), (got, by) = ((m[2], m[3]), (m[5], m[6])) if m[1] == "gave" else (
            (m[5], m[6]), (m[2], m[3]))
        # Each neighbour is passed to or from in one round only: naming them finds this
        # round's lines even when a card went round (passed, then passed back later).
        gave_at = log.index(f"You passed {gave} to {to}.")
        got_at = log.index(f"{by} passed you {got}.")
        assert (m[1] == "gave") == (gave_at < got_at), (note, log)


def test_the_match_record_says_you_to_the_one_who_played(
        finished_match: dict[str, Any], server: str, open_page: Callable[..., Page]) -> None:
    """The browser that sat at the table (its seat and name kept for that table) reads its
    own seat as "You" on the record; anyone else reads names only."""
    page = open_page()
    page.goto(f"{server}/")
    record = page.evaluate("u => fetch('/api' + u).then(r => r.json())",
                           finished_match["record_url"])
    ann = next(p for p in record["players"] if p["name"] == "Ann")
    winner = next(p["name"] for p in record["players"] if p["seat"] == record["winner"])
    for who, expected in (("Ann", "You" if record["winner"] == ann["seat"] else winner),
                          ("Nobody", winner)):
        page.evaluate("([id, m]) => localStorage.setItem(`dingo.table.${id}`, JSON.stringify(m))",
                      [record["table_id"], {"name": who, "seat": ann["seat"]}])
        page.goto(f"{server}{finished_match['record_url']}")
        page.wait_for_selector("#score-table")
        title = page.inner_text(".winner-panel__title")
        assert title == f"{expected} won the match", (who, title)
        yours = page.locator(".score-legend .badge--you")
        assert yours.count() == (who == "Ann"), who
        if who == "Ann":
            assert "Ann" in yours.locator("xpath=..").inner_text()
            shot(page, "match-you")
        # Its replay marks the seat too, as the match page does.
        page.goto(f"{server}{finished_match['record_url']}/games/1")
        page.wait_for_selector(".rseat__name")
        mine = page.locator(".rseat .badge--you")
        assert mine.count() == (who == "Ann"), who
        if who == "Ann":
            assert page.locator(f'.rseat[data-seat="{ann["seat"]}"] .badge--you').count() == 1
            shot(page, "replay-you")


def test_the_history_finds_the_match_and_replays_it(
        finished_match: dict[str, Any], server: str, open_page: Callable[..., Page]) -> None:
    page = open_page()
    page.goto(f"{server}/history")
    page.fill("#player", finished_match["name"])
    page.click("#search button[type=submit]")
    # The unfiltered list already shows the match: wait for the search's own answer.
    page.wait_for_url(re.compile(r"player=Ann"))
    page.wait_for_function("!document.querySelector('#results[aria-busy]')")
    row = page.locator(f'a.match-row[href="{finished_match["record_url"]}"]')
    row.wait_for()
    assert "Ann" in row.inner_text()
    shot(page, "history")

    page.fill("#player", "Nobody-by-this-name")
    page.click("#search button[type=submit]")
    page.wait_for_selector(".empty-state")
    page.go_back()
    row.wait_for()

    row.click()
    page.wait_for_selector("#score-table")
    assert page.url.endswith(finished_match["record_url"])
    assert "won the match" in page.inner_text(".winner-panel")
    games_won = page.locator("#score-table tfoot tr").first.inner_text()
    assert "Games won" in games_won
    shot(page, "match")

    page.get_by_role("link", name="Replay game 1", exact=True).click()
    page.wait_for_selector("#steps li")
    total = int(page.inner_text("#step-count").split("/")[1])
    assert page.inner_text("#step-count").startswith("0 /")
    # At the deal every hand is on view: forty cards.
    assert page.locator(".rseat__hand [data-card]").count() == 40
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#step-count") == f"3 / {total}"
    assert page.inner_text(".step-now__title").startswith("Step 3:")
    # A step that moved points names the rule in words.
    first_score = page.locator("#steps li:has(.badge--win) button").first
    first_score.click()
    change = page.locator(".score-change").first
    assert len(change.inner_text()) > 30
    page.keyboard.press("End")
    page.wait_for_selector(".score-change--final")
    assert page.inner_text("#step-count") == f"{total} / {total}"
    # A penalty pile says what it costs, as the table does ("Penalty \u22123").
    tags = page.locator(".pile-tag--penalty").all_inner_texts()
    assert len(tags) == 4 and all(re.fullmatch("Penalty (0|\u2212[1-9][0-9]*)", t)
                                  for t in tags), tags
    shot(page, "replay")
