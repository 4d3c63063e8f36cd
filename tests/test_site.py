"""The browser client as served: which version of it (in every ``welcome``), and pages and
files a browser revalidates before each use, so a page open across a deploy gets the new
code when it reloads (the reload itself: tests/browser/test_browser_offline.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tablekit import live_server

from app.site import STATIC_DIR, client_build


def build_of(root: Path) -> str:
    client_build.cache_clear()
    try:
        return client_build(root)
    finally:
        client_build.cache_clear()


def test_the_build_changes_with_any_file_of_the_client_and_only_then(tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "table.js").write_text("export const a = 1;\n")
    (tmp_path / "table.html").write_text("<!doctype html>\n")
    first = build_of(tmp_path)
    assert len(first) == 16 and first == build_of(tmp_path)
    (tmp_path / "js" / "table.js").write_text("export const a = 2;\n")
    edited = build_of(tmp_path)
    assert edited != first
    (tmp_path / "js" / "table.js").rename(tmp_path / "js" / "frame.js")
    assert build_of(tmp_path) != edited  # the same bytes under another name
    (tmp_path / "js" / "frame.js").rename(tmp_path / "js" / "table.js")
    assert build_of(tmp_path) == edited
    (tmp_path / "js" / "new.js").write_text("")
    assert build_of(tmp_path) != edited


async def test_every_welcome_says_which_client_the_server_serves(tmp_path: Path) -> None:
    async for live in live_server(tmp_path, real_store=True):
        table_id, host = await live.create()
        first = await live.player(table_id, host)
        watcher = await live.player(table_id)
        for player in (first, watcher):
            welcome = next(f for f in player.frames if f["type"] == "welcome")
            assert welcome["build"] == client_build() == build_of(STATIC_DIR)


@pytest.mark.parametrize("path", [
    "/", "/history", "/rules", "/rules/mate", "/static/js/table.js", "/static/css/base.css",
    "/static/js/games/dingo/index.js", "/no-such-page", "/matches/99999"])
async def test_pages_and_client_files_are_revalidated_before_each_use(
        tmp_path: Path, path: str) -> None:
    async for live in live_server(tmp_path):
        r = await live.http.get(path)
        assert r.status_code == (404 if path in ("/no-such-page", "/matches/99999") else 200), path
        assert r.headers["cache-control"] == "no-cache"
        if path.startswith("/static/"):
            again = await live.http.get(path, headers={"if-none-match": r.headers["etag"]})
            assert again.status_code == 304  # unchanged: nothing sent again


async def test_a_table_page_is_revalidated_too_and_says_its_build(tmp_path: Path) -> None:
    async for live in live_server(tmp_path):
        table_id, _ = await live.create()
        for path in (f"/t/{table_id}", "/t/no-such-table"):
            r = await live.http.get(path)
            assert r.headers["cache-control"] == "no-cache", path
        page = (await live.http.get(f"/t/{table_id}")).text
        assert f'<meta name="dingo-build" content="{client_build()}">' in page
