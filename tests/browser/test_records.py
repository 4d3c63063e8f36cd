"""Finding things again, in Chromium: history search, not-found pages, the rules, phone layout.

A server of its own, on a database filled with finished matches before it starts
(long single-word names, names with spaces, tables and days to search by).
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest
from matchdb import in_thread, play_match_record

from .browserkit import PHONE, WORDS_BROKEN, app_server, assert_no_horizontal_overflow, shot

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

DESKTOP = {"width": 1280, "height": 900}
DAY1 = datetime(2026, 10, 3, 18, 0, tzinfo=UTC)
DAY2 = datetime(2026, 11, 14, 20, 30, tzinfo=UTC)
#: (table, names, ended): 24 matches, so the history has two pages of 20.
MATCHES = [
    ("room-ann", ("Ann", "Bea", "Cleo", "Dov"), DAY1),
    ("room-ann", ("Ann", "Bob", "Bea", "Zoe"), DAY1 + timedelta(hours=1)),
    ("room-xyz", ("Bea", "Carl", "Dina", "Eli"), DAY2),
    ("room-long", ("Alexandrina", "Bartholomew", "Maximiliane", "Ann Marie Fitzgerald"), DAY2),
] + [(f"room-{i}", ("Finn", "Gus", "Hal", "Ivy"), DAY2 + timedelta(minutes=i)) for i in range(20)]
#: One filler's seat 2 is a name without a space, wider than a phone's plate.
ONE_WORD = "W" * 24
MATCHES[4] = (MATCHES[4][0], ("Finn", ONE_WORD, "Hal", "Ivy"), MATCHES[4][2])

#: How far the page scrolls sideways (0: everything fits the width).
SIDE_SCROLL = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


async def _fill(url: str) -> list[int]:
    from app.db.store import create_store

    store = create_store(url)
    try:
        return [await store.finish_match(play_match_record(
                    500 + i, table_id=table, names=names, ended_at=ended,
                    # The long names' match has two bots: one's strength kept, one's not;
                    # and is the default match, first to 5 games (a long score table).
                    bots=(False, True, True, False) if table == "room-long"
                    else (False, False, False, False),
                    games_to_win=5 if table == "room-long" else 1))
                for i, (table, names, ended) in enumerate(MATCHES)]
    finally:
        await store.close()


@pytest.fixture(scope="module")
def records(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The app under uvicorn on a database holding MATCHES: its address and the match ids."""
    tmp = tmp_path_factory.mktemp("records-server")
    with app_server(tmp, BOT_DELAY_SECONDS="0.05") as base:  # migrates the database
        ids = in_thread(asyncio.run, _fill(f"sqlite+aiosqlite:///{tmp / 'dingo.db'}"))
        yield {"base": base, "ids": ids}


def _row_names(page: Page) -> list[set[str]]:
    return [set(row.locator(".player__name").all_inner_texts())
            for row in page.locator("#results .match-row").all()]


def _search(page: Page, **fields: str) -> None:
    for name in ("player", "table", "from", "to"):
        page.fill(f"#{name}", fields.get(name, ""))
    page.click("#search button[type=submit]")
    page.wait_for_function("!document.querySelector('#results[aria-busy]')"
                           " && location.search.length > 0")
    page.wait_for_load_state("networkidle")


#: The history filters whose placeholder, or a date's "mm/dd/yyyy" and picker icon (about
#: 9 rem), does not fit the field.
CLIPPED_FILTERS = """() => {
  const measure = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('#search input')].filter((input) => {
    const style = getComputedStyle(input);
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (input.type === 'date') return input.clientWidth < 9 * parseFloat(style.fontSize);
    measure.font = `${style.fontSize} ${style.fontFamily}`;
    return measure.measureText(input.placeholder).width > room;
  }).map((input) => input.id);
}"""


@pytest.mark.parametrize(("viewport", "size"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_history_search_by_names_link_and_days(records: dict[str, Any],
                                               open_page: Callable[..., Page],
                                               viewport: dict[str, int], size: str) -> None:
    page = open_page(viewport)
    page.goto(f"{records['base']}/history")
    page.wait_for_selector("#results .match-row")
    assert page.inner_text("#count") == "24 matches"
    shot(page, f"records-history-{size}")
    assert page.evaluate(SIDE_SCROLL) == 0
    assert page.evaluate(CLIPPED_FILTERS) == [], "a filter's hint or date is cut short"

    _search(page, player="ann  BEA")  # both names, any case, extra spaces
    rows = _row_names(page)
    assert len(rows) == 2 and all({"Ann", "Bea"} <= names for names in rows), rows
    assert page.inner_text("#count") == "2 matches found"
    assert "player=ann" in page.url
    shot(page, f"records-history-search-{size}")

    _search(page, player="marie alex")  # a word inside a name, and a second player
    assert _row_names(page) == [set(MATCHES[3][1])]
    # A screen reader hears the row's players and their standings, not only its winner.
    label = page.get_attribute("#results .match-row", "aria-label") or ""
    assert re.fullmatch(r"Dingo match \d+, .+, won by \w+: Alexandrina \d+ games? won, "
                        r"Bartholomew \d+ games? won, Maximiliane \d+ games? won, "
                        r"Ann Marie Fitzgerald \d+ games? won", label), label

    # A pasted table link finds that table's matches; the address keeps the code.
    _search(page, table=f"{records['base']}/t/room-ann")
    assert len(_row_names(page)) == 2 and "table=room-ann" in page.url
    assert page.input_value("#table") == "room-ann"

    # A range of days: only the matches that ended on DAY1.
    _search(page, **{"from": "2026-10-01", "to": "2026-10-03"})
    assert sorted(map(sorted, _row_names(page))) == sorted(sorted(m[1]) for m in MATCHES[:2])
    assert page.inner_text("#count") == "2 matches found"
    shot(page, f"records-history-days-{size}")

    # Reloading the address shows the same search.
    page.reload()
    page.wait_for_selector("#results .match-row")
    assert page.input_value("#from") == "2026-10-01" and len(_row_names(page)) == 2

    _search(page, player="ann zoe carl")
    assert _row_names(page) == []
    assert "No finished match matches this search." in page.inner_text("#results")
    assert page.evaluate(SIDE_SCROLL) == 0


def test_history_days_are_the_readers_days(records: dict[str, Any], browser: Browser) -> None:
    """At UTC+14 the two matches that ended on 3 October at 18:00 and 19:00 UTC ended on
    the 4th: the list says so, and a search for the 4th finds them (days were UTC's)."""
    context = browser.new_context(viewport=DESKTOP, timezone_id="Pacific/Kiritimati")
    try:
        page = context.new_page()
        page.goto(f"{records['base']}/history")
        page.wait_for_selector("#results .match-row")
        _search(page, **{"from": "2026-10-04", "to": "2026-10-04"})
        assert sorted(map(sorted, _row_names(page))) == sorted(sorted(m[1]) for m in MATCHES[:2])
        assert all("Oct 4, 2026" in row for row in
                   page.locator("#results .match-row").all_inner_texts())
        _search(page, **{"from": "2026-10-03", "to": "2026-10-03"})
        assert _row_names(page) == []
        assert "No finished match matches this search." in page.inner_text("#results")
        _search(page, **{"from": "2026-10-05", "to": "2026-10-04"})  # the wrong way round
        assert "The “From” day is after the “To” day" in page.inner_text("#results")
    finally:
        context.close()


def test_a_name_typed_while_the_history_loads_is_searched(records: dict[str, Any],
                                                         open_page: Callable[..., Page]) -> None:
    """The page's first load waits for the games list; a name typed meanwhile is not wiped
    when that load goes on, and the search finds it."""
    page = open_page()
    held: list[Any] = []
    # The games list waits until it is let go.
    page.route("**/api/matches/games", lambda route: held.append(route))
    page.goto(f"{records['base']}/history")
    while not held:
        page.wait_for_timeout(20)
    page.fill("#player", "ann bea")
    held[0].continue_()  # the first load goes on while the name is in the field
    page.wait_for_function("document.querySelectorAll('#results .match-row').length > 0")
    page.click("#search button[type=submit]")
    page.wait_for_function("location.search.includes('player=ann+bea')"
                           " && !document.querySelector('#results[aria-busy]')"
                           " && document.querySelectorAll('#results .match-row').length > 0")
    page.wait_for_load_state("networkidle")
    assert page.input_value("#player") == "ann bea"
    rows = _row_names(page)
    assert len(rows) == 2 and all({"Ann", "Bea"} <= names for names in rows), rows


def test_history_paging_past_the_end(records: dict[str, Any],
                                     open_page: Callable[..., Page]) -> None:
    page = open_page(PHONE)
    page.goto(f"{records['base']}/history?offset=200")
    page.wait_for_selector("#last-page")
    # The counts do not contradict the empty page: no "201-200 of 24".
    assert page.inner_text("#count") == "24 matches"
    assert page.inner_text("#page-info") == ""
    assert "past the last match" in page.inner_text("#results")
    assert page.is_disabled("#older") and page.is_enabled("#newer")
    shot(page, "records-history-past-the-end-phone")
    page.click("#last-page")
    page.wait_for_selector("#results .match-row")
    assert page.inner_text("#page-info") == "21\u201324 of 24"
    assert "offset=20" in page.url and len(_row_names(page)) == 4
    page.click("#newer")
    page.wait_for_function(
        "document.querySelector('#page-info').textContent === '1\u201320 of 24'")
    assert page.is_disabled("#newer") and page.is_enabled("#older")


def test_history_reads_an_odd_link_without_a_refusal(records: dict[str, Any],
                                                   open_page: Callable[..., Page]) -> None:
    """A hand-made or old link asks what the server would refuse (422): a day not on the
    calendar, a name of a zero-width space, a name over 200 characters, an offset beyond
    any column. What cannot be searched is dropped (the address with it), what is too long
    is cut, and the reader never sees a refusal in the server's terms."""
    page = open_page()
    base = records["base"]
    page.goto(f"{base}/history?from=2026-13-45&to=2026-02-30&player=%E2%80%8B&table=%00")
    page.wait_for_selector("#results .match-row")
    assert page.inner_text("#count") == "24 matches"
    assert page.url == f"{base}/history" and page.input_value("#from") == ""
    page.goto(f"{base}/history?player={'Ann' + 'x' * 250}")
    page.wait_for_selector("#results .empty-state")
    assert "No finished match matches this search" in page.inner_text("#results")
    assert page.input_value("#player") == "Ann" + "x" * 197
    # A game the site does not host is no filter; one it hosts is, by its title.
    page.goto(f"{base}/history?game=chess")
    page.wait_for_selector("#results .match-row")
    assert page.url == f"{base}/history" and page.input_value("#game") == ""
    assert "chess" not in page.inner_text("#game")
    page.goto(f"{base}/history?game=bingo")
    page.wait_for_selector("#results .empty-state")
    assert page.eval_on_selector("#game", "s => s.selectedOptions[0].textContent") == "Bingo"
    page.goto(f"{base}/history?offset=99999999999999999999")
    page.wait_for_selector("#last-page")
    assert page.url == f"{base}/history?offset={2**31 - 1}"
    assert not page.locator(".error-text").count()
    # What the page did not foresee is still said in its own words.
    page.route("**/api/matches?*", lambda route: route.fulfill(
        status=422, content_type="application/json",
        body=json.dumps({"detail": [{"msg": "String should match pattern 'x'"}]})))
    page.goto(f"{base}/history?player=Ann")
    page.wait_for_selector(".error-text")
    assert page.inner_text(".error-text") == ("This search could not be read: change it, or "
                                              "clear it to see every match.")


def test_a_record_that_fails_to_load_is_not_called_missing(
        records: dict[str, Any], open_page: Callable[..., Page]) -> None:
    """Only a record that is not there is "not found"; a server or connection failure says
    so and offers to try again, and the way back leads to the list the reader searched."""
    page = open_page(PHONE)
    base, first = records["base"], records["ids"][0]
    page.goto(f"{base}/history?player=Ann")
    page.wait_for_selector("#results .match-row")
    page.click(f'a.match-row[href="/matches/{first}"]')
    page.wait_for_selector("#score-table")
    assert page.get_attribute(".back-link", "href") == "/history?player=Ann"
    assert page.inner_text(".back-link") == "\u2190 Back to your search"
    # (The server answers a page for an unknown match with its 404 page: this is one gone
    # between the page and its data.)
    page.route(f"**/api/matches/{first}", lambda route: route.fulfill(status=404, body=""))
    page.reload()
    page.wait_for_selector("#load-failed")
    assert page.inner_text("#load-failed h1") == "Match not found"
    assert not page.locator("#try-again").count()
    assert page.get_attribute("#load-failed a", "href") == "/history?player=Ann"
    page.unroute(f"**/api/matches/{first}")
    page.route(f"**/api/matches/{first}", lambda route: route.fulfill(status=500, body=""))
    page.reload()
    page.wait_for_selector("#load-failed")
    assert page.inner_text("#load-failed h1") == "Could not load the match"
    assert page.inner_text("#load-failed p") == "The server answered 500."
    page.unroute(f"**/api/matches/{first}")
    page.click("#try-again")
    page.wait_for_selector("#score-table")
    page.route("**/replay", lambda route: route.abort())
    page.goto(f"{base}/matches/{first}/games/1")
    page.wait_for_selector("#load-failed")
    assert page.inner_text("#load-failed h1") == "Could not load the replay"
    assert "cannot be reached" in page.inner_text("#load-failed p")
    assert_no_horizontal_overflow(page)
    shot(page, "records-replay-unreachable-phone")
    page.unroute("**/replay")
    page.route("**/replay", lambda route: route.fulfill(status=404, body=""))
    page.reload()
    page.wait_for_selector("#load-failed")
    assert page.inner_text("#load-failed h1") == "Replay not found"
    assert page.inner_text("#load-failed p") == "This match has no such game."


@pytest.mark.parametrize("path", ["/nope", "/matches/abc", "/t/", "/t/abc123", "/history/x/y"])
def test_unknown_pages_are_for_people(records: dict[str, Any], open_page: Callable[..., Page],
                                      path: str) -> None:
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_page(viewport)
        response = page.goto(f"{records['base']}{path}")
        assert response is not None and response.status == 404
        page.wait_for_load_state("networkidle")
        heading = page.inner_text("main h1:visible")
        home = page.locator("main a[href='/']")
        assert home.is_visible() and page.locator("main #history-link").is_visible()
        if path == "/t/abc123":
            assert heading == "This table is not open"
            assert page.inner_text("#table-code") == "abc123"
            assert page.get_attribute("#history-link", "href") == "/history?table=abc123"
        else:
            assert heading == "Page not found"
            assert page.inner_text("#page-path") == path
            assert page.get_attribute("#history-link", "href") == "/history"
        assert page.evaluate(SIDE_SCROLL) == 0
        # Its buttons keep apart, also when they wrap onto two rows on a phone.
        boxes = [b.bounding_box() for b in page.locator("main .btn-row .btn").all()]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert a and b and (a["x"] + a["width"] + 4 <= b["x"]
                                    or a["y"] + a["height"] + 4 <= b["y"]), (a, b)
        slug = re.sub(r"\W+", "-", path).strip("-") or "root"
        shot(page, f"records-404-{slug}-{size}")
        page.click("#history-link")
        page.wait_for_selector("#results > *")
        assert page.url.endswith("/history?table=abc123" if path == "/t/abc123" else "/history")
    # JSON stays under /api/.
    with pytest.raises(urllib.error.HTTPError) as failed:
        urllib.request.urlopen(f"{records['base']}/api/nope", timeout=5)
    assert failed.value.code == 404
    assert failed.value.headers["content-type"] == "application/json"
    assert json.loads(failed.value.read()) == {"detail": "Not Found"}


def test_rules_page_and_its_links(records: dict[str, Any],
                                  open_page: Callable[..., Page]) -> None:
    page = open_page(DESKTOP)
    page.goto(f"{records['base']}/")
    page.click("header a[href='/rules']")
    page.wait_for_url("**/rules")
    assert page.inner_text("#rules h1").startswith("Dingo")
    assert "The ace hunt" in page.locator("#rules h2").all_inner_texts()
    assert page.locator("#rules strong", has_text="Aces may never be discarded.").count() == 1
    shot(page, "records-rules-desktop")
    # The table page links to the rules too (in a new tab: the table stays open).
    created = urllib.request.urlopen(urllib.request.Request(
        f"{records['base']}/api/tables", data=b"{}", method="POST",
        headers={"content-type": "application/json"}), timeout=5)
    table_url = json.loads(created.read())["url"]
    page.goto(f"{records['base']}{table_url}")
    # Once the table's state has come, the link goes to the rules of its game.
    link = page.locator("header a[href='/rules/dingo']")
    link.wait_for()
    assert link.is_visible() and link.get_attribute("target") == "_blank"
    shot(page, "records-rules-link-table-desktop")
    phone = open_page(PHONE)
    phone.goto(f"{records['base']}{table_url}")
    phone.locator("header a[href='/rules/dingo']").wait_for()
    assert phone.locator("header a[href='/rules/dingo']").is_visible()
    shot(phone, "records-rules-link-table-phone")
    phone.goto(f"{records['base']}/")
    assert phone.locator("header a[href='/rules']").is_visible()
    phone.goto(f"{records['base']}/rules")
    assert phone.evaluate(SIDE_SCROLL) == 0
    shot(phone, "records-rules-phone")
    shot(phone, "records-rules-phone-top", full_page=False)
    # Every game's page fits a phone (Mate's examples have long code spans of moves).
    for game in ("mate", "divide", "bingo"):
        phone.goto(f"{records['base']}/rules/{game}")
        assert phone.evaluate(SIDE_SCROLL) == 0, game


def test_a_name_without_a_space_breaks_rather_than_widen_a_phone(
        records: dict[str, Any], open_page: Callable[..., Page]) -> None:
    """A 24-letter name once made the match page 630 px wide and the replay 485 on a 390 px
    phone (a phone then shows the whole page small)."""
    page = open_page(PHONE)
    match_id = records["ids"][4]
    for path in (f"/matches/{match_id}", f"/matches/{match_id}/games/1", "/history"):
        page.goto(records["base"] + path)
        page.wait_for_selector(".score-table, .rseat__name, .match-row")
        assert ONE_WORD in page.inner_text("main")
        assert page.evaluate(SIDE_SCROLL) == 0, path
    shot(page, "records-one-word-name-phone")


def test_phone_match_and_replay_layout(records: dict[str, Any],
                                      open_page: Callable[..., Page]) -> None:
    match_id = records["ids"][3]  # the long names
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_page(viewport)
        page.goto(f"{records['base']}/matches/{match_id}")
        page.wait_for_selector(".score-table")
        assert page.title() == f"Match #{match_id} · Dingo · Dingo Online"
        assert page.get_attribute(".topbar a[aria-current]", "href") == "/history"
        shot(page, f"records-match-{size}")
        # All four players are in view: no sideways scroll of the page or of the table.
        assert page.evaluate(SIDE_SCROLL) == 0
        assert page.evaluate("[...document.querySelectorAll('.table-scroll')]"
                             ".every(e => e.scrollWidth <= e.clientWidth)")
        width = viewport["width"]
        heads = page.locator(".score-table .th-player").all()
        assert len(heads) == 4
        for head in heads:
            box = head.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate(WORDS_BROKEN, ".score-table .th-player__name") == []
        # Every name can be read whole: in its column, or in the legend above (phone).
        shown = page.evaluate(
            "[...document.querySelectorAll('.th-player__name, .score-legend__name')]"
            ".filter(e => e.getBoundingClientRect().width > 1).map(e => e.textContent)")
        assert sorted(shown) == sorted(MATCHES[3][1])
        assert page.evaluate(WORDS_BROKEN, ".score-legend__name") == []
        # Each shown name sits right beside its avatar (a wrapped one once sat a column away,
        # or on the line under it).
        gaps = page.evaluate(BESIDE_AVATAR)
        assert gaps and all(0 <= gap <= 10 for gap in gaps), gaps
        # Each bot says how strong it was, where that was kept.
        bots = page.locator(".score-table .badge--bot").all_text_contents()
        assert bots == ["Bot · hard", "Bot"], bots

        page.goto(f"{records['base']}/matches/{match_id}/games/1")
        page.wait_for_selector(".rseat__name")
        names = page.locator(".rseat__name").all_inner_texts()
        assert sorted(names) == sorted(MATCHES[3][1])
        assert sorted(page.locator(".badge--bot").all_text_contents()) == ["Bot", "Bot · hard"]
        assert page.evaluate(WORDS_BROKEN, ".rseat__name") == []
        assert page.evaluate(SIDE_SCROLL) == 0
        # Every name is shown whole (no ellipsis hiding part of it).
        assert page.evaluate("[...document.querySelectorAll('.rseat__name')]"
                             ".every(e => e.scrollWidth <= e.clientWidth + 1)")
        shot(page, f"records-replay-{size}")


#: For each name shown beside an avatar in the score table's heads or its legend: how far
#: (px) its box starts after the avatar's, if they share a line; null if they do not.
BESIDE_AVATAR = """() => [...document.querySelectorAll('.th-player__name, .score-legend__name')]
  .filter((e) => e.getBoundingClientRect().width > 1).map((name) => {
    const a = name.previousElementSibling.getBoundingClientRect(), n = name.getBoundingClientRect();
    return n.top < a.bottom && a.top < n.bottom ? Math.round(n.left - a.right) : null;
  })"""


def test_phone_history_rows(records: dict[str, Any], open_page: Callable[..., Page]) -> None:
    page = open_page(PHONE)
    page.goto(f"{records['base']}/history?player=alex")
    page.wait_for_selector("#results .match-row")
    assert page.evaluate(SIDE_SCROLL) == 0
    assert page.evaluate("[...document.querySelectorAll('.player__name')]"
                         ".every(e => e.scrollWidth <= e.clientWidth + 1)")
    shot(page, "records-history-long-names-phone")



# --- matches of every game ------------------------------------------------------------------

#: (game, seed, names): a match of each other game beside two of Dingo.
GAME_MATCHES = [("mate", 41, ("Ann", "Bea")), ("divide", 42, ("Cleo", "Dov")),
                ("bingo", 43, ("Eli", "Finn")), ("dingo", 44, ("Ann", "Bob", "Cleo", "Dov")),
                ("mate", 45, ("Gus", "Hal"))]
#: The one of GAME_MATCHES played by two people (in the others seat 1 is a bot).
TWO_PEOPLE = 4


async def _fill_games(url: str) -> list[int]:
    from recordkit import game_record
    from sqlalchemy import update

    from app.db.models import GameRecord
    from app.db.store import create_store

    store = create_store(url)
    try:
        ids = []
        for i, (game, seed, names) in enumerate(GAME_MATCHES):
            ended = DAY2 + timedelta(minutes=i)
            record = (play_match_record(seed, table_id=f"g-{i}", names=names, ended_at=ended)
                      if game == "dingo" else
                      game_record(game, seed, table_id=f"g-{i}", names=names, ended_at=ended,
                                  bots=(False, False) if i == TWO_PEOPLE else (False, True)))
            ids.append(await store.finish_match(record))
            if game == "divide":
                async with store.engine.begin() as db:
                    await db.execute(update(GameRecord).where(
                        GameRecord.match_id == ids[-1], GameRecord.number == 1).values(
                            result=_unsaid(record["games"][0]["result"])))
        return ids
    finally:
        await store.close()


def _unsaid(result: dict[str, Any]) -> dict[str, Any]:
    """A Divide result as stored before its results were said in words (the page falls back
    on the result's per-seat numbers): the first Divide game of GAME_MATCHES is kept so."""
    return {k: v for k, v in result.items() if k != "say"}


def _as_stored(game: str, seed: int, names: tuple[str, ...]) -> dict[str, Any]:
    """The record of one of GAME_MATCHES as the database holds it (``_fill_games``)."""
    from recordkit import game_record

    record = game_record(game, seed, names=names)
    if game == "divide":
        record["games"][0]["result"] = _unsaid(record["games"][0]["result"])
    return record


@pytest.fixture(scope="module")
def game_records(browser: Browser,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The app on a database holding GAME_MATCHES: its address and the match ids."""
    tmp = tmp_path_factory.mktemp("game-records-server")
    with app_server(tmp) as base:
        ids = in_thread(asyncio.run, _fill_games(f"sqlite+aiosqlite:///{tmp / 'dingo.db'}"))
        yield {"base": base, "ids": ids}


STEP_COUNT = "document.querySelector('#step-count').textContent"
#: What a match's standing counts, for one and for more, per game.
UNITS = {"mate": ("point", "points"), "divide": ("game won", "games won"),
         "bingo": ("game point", "game points")}


def _titles(page: Page) -> list[str]:
    return page.locator("#results .match-row .badge--game").all_inner_texts()


@pytest.mark.parametrize(("viewport", "size"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_history_says_which_game_and_filters_by_game(game_records: dict[str, Any],
                                                     open_page: Callable[..., Page],
                                                     viewport: dict[str, int], size: str) -> None:
    page = open_page(viewport)
    page.goto(f"{game_records['base']}/history")
    page.wait_for_selector("#results .match-row")
    assert _titles(page) == ["Mate", "Dingo", "Bingo", "Divide and Conquer", "Mate"]
    # Each row says what its numbers count: Mate points, Dingo and Divide games, Bingo game
    # points.
    assert page.locator(".match-row__unit").all_inner_texts() == [
        f"Counted in {unit}"
        for unit in ("points", "games won", "game points", "games won", "points")]
    assert page.evaluate(SIDE_SCROLL) == 0
    shot(page, f"records-games-history-{size}")
    options = page.locator("#game option").all_inner_texts()
    assert options == ["All games", "Bingo", "Dingo", "Divide and Conquer", "Mate"]
    page.select_option("#game", "mate")
    page.click("#search button[type=submit]")
    page.wait_for_function("location.search.includes('game=mate')")
    page.wait_for_function("document.querySelectorAll('#results .match-row').length === 2")
    assert _titles(page) == ["Mate", "Mate"]
    assert page.inner_text("#count") == "2 matches found"
    page.reload()
    page.wait_for_selector("#results .match-row")
    assert page.input_value("#game") == "mate" and _titles(page) == ["Mate", "Mate"]


@pytest.mark.parametrize(("viewport", "size"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_match_page_of_another_game(game_records: dict[str, Any],
                                    open_page: Callable[..., Page],
                                    viewport: dict[str, int], size: str) -> None:
    for index in (0, 1, 2):  # Mate, Divide and Conquer, Bingo
        game, seed, names = GAME_MATCHES[index]
        record = _as_stored(game, seed, names)
        page = open_page(viewport)
        page.goto(f"{game_records['base']}/matches/{game_records['ids'][index]}")
        page.wait_for_selector("#score-table")
        assert page.locator(".match-game .badge--game").inner_text() in (
            "Mate", "Divide and Conquer", "Bingo")
        title = page.inner_text(".winner-panel__title")
        winner = record["winner"]
        assert title == ("The match is a draw" if winner is None
                         else f"{names[winner]} won the match")
        assert page.inner_text("#match-rule") == f"Rule: {record['scoreboard']['rule']}"
        # Started and ended the same day (where this browser is): the date is said once.
        same_day = page.evaluate("([a, b]) => new Date(a).toDateString() === new Date(b)"
                                 ".toDateString()", [record["started_at"], record["ended_at"]])
        assert page.inner_text(".page-head .muted").count("2026") == (1 if same_day else 2)
        standing = record["scoreboard"]["standing"]
        one, other = UNITS[game]
        said = [f"{names[s]} {n} {one if n == 1 else other}" for s, n in enumerate(standing)]
        assert page.inner_text("#standing-line") == " · ".join(said)
        rows = page.locator("#score-table tbody tr").all()
        assert len(rows) == len(record["games"])
        for row, played in zip(rows, record["games"], strict=True):
            who = row.locator(".game-winner__name, .game-winner .muted").inner_text()
            assert who == ("draw" if played["winner"] is None else names[played["winner"]])
            say = (played["result"] or {}).get("say")
            if say:
                assert row.locator(".game-say").inner_text() == (
                    say.replace("{0}", names[0]).replace("{1}", names[1]))
            else:  # no words: the result's per-seat numbers (battles won)
                wins = played["result"]["wins"]
                assert row.locator(".game-say").inner_text() == (
                    f"wins: {names[0]} {wins[0]} · {names[1]} {wins[1]}")
            assert row.locator("a", has_text="Replay").get_attribute("href") == (
                f"/matches/{game_records['ids'][index]}/games/{played['number']}")
        assert page.evaluate(SIDE_SCROLL) == 0
        shot(page, f"records-games-match-{game}-{size}")


@pytest.mark.parametrize(("viewport", "size"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_replay_of_another_game_seen_from_each_seat(game_records: dict[str, Any],
                                                   open_page: Callable[..., Page],
                                                   viewport: dict[str, int], size: str) -> None:
    moves_seen = 0
    for index in (0, 1, 2):
        game, seed, names = GAME_MATCHES[index]
        record = _as_stored(game, seed, names)
        actions = record["games"][0]["actions"]
        page = open_page(viewport)
        page.goto(f"{game_records['base']}/matches/{game_records['ids'][index]}/games/1")
        page.wait_for_selector("#seen-from")
        page.wait_for_function("document.querySelector('#gboard').childElementCount > 0")
        assert page.inner_text("#replay-title").endswith(" · Game 1")
        assert page.locator("#seen-from button").all_inner_texts() == [*names, "Spectator"]
        assert page.get_attribute("#seen-from [data-seen='0']", "aria-pressed") == "true"
        assert page.inner_text("#step-count") == f"0 / {len(actions)}"
        assert page.locator("#steps li").count() == len(actions) + 1
        steps = page.locator("#steps .step-btn span:not(.step-btn__n)").all_inner_texts()
        if game == "divide":  # each second commitment is listed as the battle it brought on
            assert [t for t in steps if t.startswith("Battle ")] == [
                t for t in steps[2::2]], steps
            assert steps[2].startswith("Battle 1: "), steps
        assert sorted(page.locator(".rseat__name").all_inner_texts()) == sorted(names)
        # The tray shows the chosen seat's hand; moves are drawn but not playable.
        assert page.locator("#ghand .move:not([aria-disabled='true']):not([disabled])").count() == 0
        # (and no busy cursor over them: nothing is on its way)
        cursors = page.eval_on_selector_all(
            "#ghand .move", "els => els.map(e => getComputedStyle(e).cursor)")
        assert set(cursors) <= {"default"}
        moves_seen += len(cursors)
        shot(page, f"records-games-replay-{game}-{size}")

        page.click("#next")
        page.wait_for_function(f"{STEP_COUNT}.startsWith('1 /')")
        assert page.inner_text("#step-now .step-now__title") == f"Step 1: {names[actions[0][0]]}"
        # Who acts next, as a spectator is told it: names, never the seat's own instruction.
        replay = page.evaluate("u => fetch(u).then(r => r.json())", f"/api/matches/"
                               f"{game_records['ids'][index]}/games/1/replay")
        told = replay["steps"][0]["spectator"]["prompt"]
        for seat, name in enumerate(names):
            told = told.replace(f"{{{seat}}}", name)
        assert page.inner_text("#step-next") == told and "{" not in told
        assert not told.startswith(("You", "Choose")), told
        assert "step=1" in page.url and "seen=0" in page.url

        page.click("#seen-from [data-seen='spectator']")
        page.wait_for_function(
            "document.querySelector(\"#seen-from [data-seen='spectator']\")"
            ".getAttribute('aria-pressed') === 'true'")
        assert "seen=spectator" in page.url and page.locator("#ghand > *").count() == 0
        assert page.inner_text("#step-count").startswith("1 /")
        page.click("#seen-from [data-seen='1']")
        page.wait_for_function("location.search.includes('seen=1')")

        page.click("#last")
        page.wait_for_function(f"{STEP_COUNT} === '{len(actions)} / {len(actions)}'")
        say = (record["games"][0]["result"] or {}).get("say")
        if say:
            # Seen from seat 1 by someone who did not play it: names, never "you".
            assert page.inner_text("#game-say") == (
                say.replace("{0}", names[0]).replace("{1}", names[1]))
        assert page.evaluate(SIDE_SCROLL) == 0
        shot(page, f"records-games-replay-{game}-end-{size}")

        # A link to a step and a seat opens there.
        page.goto(f"{game_records['base']}/matches/{game_records['ids'][index]}/games/1"
                  "?step=2&seen=spectator")
        page.wait_for_selector("#seen-from")
        assert page.inner_text("#step-count").startswith("2 /")
        assert page.get_attribute("#seen-from [data-seen='spectator']", "aria-pressed") == "true"
    assert moves_seen > 0, "some seat had moves to grey"


def test_the_one_who_played_sees_the_record_from_its_seat(game_records: dict[str, Any],
                                                         open_page: Callable[..., Page]) -> None:
    """A browser that sat at the match's table (seat 1, by the name kept for that table)
    reads "You" for that seat on the match page, and the replay opens from that seat; with
    another name kept there, names only and seat 0 as for anyone."""
    game, _, names = GAME_MATCHES[TWO_PEOPLE]
    match_id = game_records["ids"][TWO_PEOPLE]
    page = open_page(DESKTOP)
    page.goto(f"{game_records['base']}/")
    record = page.evaluate(f"fetch('/api/matches/{match_id}').then(r => r.json())")
    for kept, seat in ((names[1], 1), ("Somebody else", None)):
        page.evaluate("([id, m]) => localStorage.setItem(`dingo.table.${id}`, JSON.stringify(m))",
                      [record["table_id"], {"name": kept, "seat": 1}])
        page.goto(f"{game_records['base']}/matches/{match_id}")
        page.wait_for_selector("#score-table")
        badges = page.locator(".players .badge--you")
        assert badges.count() == (seat is not None), kept
        if seat is not None:
            assert names[1] in badges.locator("xpath=..").inner_text()
            shot(page, "records-match-you")
        won = record["winner"]
        title = ("The match is a draw" if won is None
                 else f"{'You' if won == seat else names[won]} won the match")
        assert page.inner_text(".winner-panel__title") == title, kept
        page.goto(f"{game_records['base']}/matches/{match_id}/games/1")
        page.wait_for_selector("#seen-from")
        pressed = page.get_attribute(f"#seen-from [data-seen='{seat or 0}']", "aria-pressed")
        assert pressed == "true", (game, kept)
        # At the end, the result: "you" to the one who played the seat, names to anyone else.
        page.click("#last")
        page.wait_for_selector("#game-say")
        say = record["games"][0]["say"]
        if seat is not None:
            say = page.evaluate("async (text) => (await import('/static/js/words.js'))"
                                ".secondPerson(text, 1)", record["games"][0]["result"]["say"])
        assert page.inner_text("#game-say") == say.replace("{0}", names[0]), kept
        assert ("you" in page.inner_text("#game-say").lower().split()) == (seat is not None)

    # Divide and Conquer's board words too (Cleo played seat 0): "You were dealt".
    _, _, names = GAME_MATCHES[1]
    page.evaluate("m => localStorage.setItem('dingo.table.g-1', JSON.stringify(m))",
                  {"name": names[0], "seat": 0})
    page.goto(f"{game_records['base']}/matches/{game_records['ids'][1]}/games/1")
    page.wait_for_selector("#seen-from")
    page.click("#last")
    page.wait_for_selector("#dc-dealt")
    board = page.inner_text("#gboard")
    assert "You were dealt" in board and f"{names[0]} were" not in board, board
    assert f"{names[0]} win " not in board and f"{names[0]} have" not in board, board


def test_dingo_replay_among_other_games_is_as_before(game_records: dict[str, Any],
                                                    open_page: Callable[..., Page]) -> None:
    page = open_page(DESKTOP)
    page.goto(f"{game_records['base']}/matches/{game_records['ids'][3]}/games/1")
    page.wait_for_selector(".rseat__name")
    assert page.locator("#seen-from").count() == 0
    assert page.locator(".rseat").count() == 4
    assert page.inner_text("#replay-title").endswith("· Dingo · Game 1")
    page.goto(f"{game_records['base']}/matches/{game_records['ids'][3]}")
    page.wait_for_selector(".score-table .th-player")
    assert page.locator(".score-table .th-player").count() == 4


# -- seats that changed hands ----------------------------------------------------------------

def _second_move(record: dict[str, Any], seat: int) -> int:
    """How many steps of game 1 came before ``seat``'s second move (its player left then)."""
    actions = record["games"][0]["actions"]
    return [i for i, a in enumerate(actions)
            if (a["seat"] if isinstance(a, dict) else a[0]) == seat][1]


def _handed_over() -> list[dict[str, Any]]:
    """A Dingo and a Bingo match in which Bob left during game 1 and the bot Bruno played on."""
    from recordkit import dingo_record, game_record, hand_over

    dingo = dingo_record(21, games_to_win=2, table_id="left-d")
    bingo = game_record("bingo", 8, names=("Ann", "Bob"), bots=(False, False),
                        table_id="left-b")
    return [hand_over(r, 1, 1, _second_move(r, 1), "Bruno") for r in (dingo, bingo)]


@pytest.fixture(scope="module")
def handed_over(browser: Browser,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from app.db.store import create_store

    async def fill(url: str) -> list[int]:
        store = create_store(url)
        try:
            return [await store.finish_match(r) for r in _handed_over()]
        finally:
            await store.close()

    tmp = tmp_path_factory.mktemp("handed-over-server")
    with app_server(tmp) as base:
        ids = in_thread(asyncio.run, fill(f"sqlite+aiosqlite:///{tmp / 'dingo.db'}"))
        yield {"base": base, "ids": ids, "records": _handed_over()}


@pytest.mark.parametrize(("viewport", "size"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_a_player_who_left_is_named_for_what_they_played(handed_over: dict[str, Any],
                                                        open_page: Callable[..., Page],
                                                        viewport: dict[str, int],
                                                        size: str) -> None:
    base, (dingo_id, bingo_id) = handed_over["base"], handed_over["ids"]
    left = [_second_move(r, 1) for r in handed_over["records"]]
    page = open_page(viewport)
    page.goto(f"{base}/history?player=bob")
    page.wait_for_selector("#results .match-row")
    assert page.locator(".also-played").all_inner_texts() == ["Also played: Bob"] * 2
    for match_id, since in zip((dingo_id, bingo_id), left, strict=True):
        page.goto(f"{base}/matches/{match_id}")
        page.wait_for_selector("#seat-changes")
        assert page.locator("#seat-changes li").all_inner_texts() == [
            f"Game 1, seat 2 (Bruno at the end): Bob, then Bruno (bot) from step {since + 1}"]
        assert page.evaluate(SIDE_SCROLL) == 0
        shot(page, f"records-seat-changes-{match_id}-{size}")

    # Dingo's replay: Bob at the seat for his steps, the bot Bruno after.
    page.goto(f"{base}/matches/{dingo_id}/games/1?step={left[0]}")
    page.wait_for_selector(".rseat__name")
    seat = page.locator(".rseat", has=page.locator(".rseat__name", has_text="Bob"))
    assert seat.count() == 1 and seat.locator(".badge", has_text="Bot").count() == 0
    steps = page.locator("#steps .step-btn").all_inner_texts()
    assert "Bruno" not in " ".join(steps[:left[0] + 1])
    assert "Bob" not in " ".join(steps[left[0] + 1:])
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"{STEP_COUNT}.startsWith('{left[0] + 1} /')")
    bruno = page.locator(".rseat", has=page.locator(".rseat__name", has_text="Bruno"))
    assert bruno.locator(".badge", has_text="Bot").count() == 1
    assert page.locator(".rseat__name", has_text="Bob").count() == 0

    # Bingo's replay, opened by the browser Bob played in: from his seat, named both ways.
    page.evaluate("m => localStorage.setItem('dingo.table.left-b', JSON.stringify(m))",
                  {"name": "Bob", "seat": 1})
    page.goto(f"{base}/matches/{bingo_id}/games/1")
    page.wait_for_selector("#seen-from")
    assert page.get_attribute("#seen-from [data-seen='1']", "aria-pressed") == "true"
    assert page.inner_text("#seen-from [data-seen='1']") == "Bob / Bruno"
    steps = page.locator("#steps .step-btn").all_inner_texts()
    assert "Bob" in " ".join(steps[:left[1] + 1]) and "Bruno" not in " ".join(steps[:left[1] + 1])
    assert "Bob" not in " ".join(steps[left[1] + 1:])
    shot(page, f"records-seat-changes-replay-{size}")
