"""The advice after a game, in Chromium: the server works it out by itself once the match is
stored; the match page counts each person's mistakes per game, the replay marks them and
says what was better, at desktop and phone size."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from matchdb import in_thread, play_match_record

from .browserkit import PHONE, app_server, shot

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

DESKTOP = {"width": 1280, "height": 900}
#: The players: Ann alone is a person (she played at random: she makes mistakes).
NAMES = ("Ann", "Bruno", "Cleo", "Dov")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


async def _fill(url: str) -> int:
    from app.db.store import create_store

    store = create_store(url)
    try:
        return await store.finish_match(play_match_record(
            77, table_id="room-advice", names=NAMES, bots=(False, True, True, True)))
    finally:
        await store.close()


@pytest.fixture(scope="module")
def advised(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server that works out advice (few deals: quick), and a match Ann played there, once
    its advice is ready."""
    tmp = tmp_path_factory.mktemp("advice-server")
    with app_server(tmp, ADVICE_DEALS="3") as base:
        match_id = in_thread(asyncio.run, _fill(f"sqlite+aiosqlite:///{tmp / 'dingo.db'}"))
        deadline = time.monotonic() + 120
        while (detail := _get(f"{base}/api/matches/{match_id}"))["games"][0]["advice"] != "ready":
            assert time.monotonic() < deadline, "the advice was never worked out"
            time.sleep(0.25)
        yield {"base": base, "id": match_id, "detail": detail}


def test_the_match_page_counts_each_persons_mistakes(advised: dict[str, Any],
                                                    open_page: Callable[..., Page]) -> None:
    mistakes = advised["detail"]["games"][0]["mistakes"]
    assert mistakes[1:] == [0, 0, 0]  # bots are not judged
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_page(viewport)
        page.goto(f"{advised['base']}/matches/{advised['id']}")
        page.wait_for_selector("#advice")
        line = page.inner_text('#advice li[data-game="1"]')
        assert line == f"Game 1: Ann {mistakes[0]} mistake{'' if mistakes[0] == 1 else 's'}"
        assert page.evaluate("document.documentElement.scrollWidth"
                             " - document.documentElement.clientWidth") == 0
        shot(page, f"advice-match-{size}")


def test_the_replay_marks_mistakes_and_says_what_was_better(
        advised: dict[str, Any], open_page: Callable[..., Page]) -> None:
    replay = _get(f"{advised['base']}/api/matches/{advised['id']}/games/1/replay")
    decisions = replay["advice"]["decisions"]
    wrong = [d for d in decisions if d["mistake"]]
    assert wrong, "a game played at random has a mistake"
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_page(viewport)
        page.goto(f"{advised['base']}/matches/{advised['id']}/games/1")
        page.wait_for_selector("#steps li")
        # The deal says how it was worked out and counts Ann's mistakes.
        assert f"Ann: {len(wrong)} mistake" in page.inner_text("#step-now")
        marked = [int(i) for i in page.eval_on_selector_all(
            "#steps li:has(.badge--mistake)", "els => els.map(e => e.dataset.index)")]
        assert marked == [d["index"] for d in wrong]
        page.click(f'#steps li[data-index="{wrong[0]["index"]}"] button')
        box = page.locator("#step-now .advice--mistake")
        text = box.inner_text()
        assert text.startswith("Mistake") and "Given what Ann knew" in text
        assert "With every card known" in text
        shot(page, f"advice-replay-{size}")
        # A person's good choice is not called a mistake; a bot's step has no advice.
        bot_step = next(s["index"] for s in replay["steps"] if s["action"]["seat"] != 0)
        page.click(f'#steps li[data-index="{bot_step}"] button')
        assert page.locator("#step-now .advice").count() == 0
