"""Pages for people: unknown addresses, the rules page, and `dingo simulate --help`."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from matchdb import SQLITE, migrated_database, play_match_record

from app import games
from app.cli import main as cli_main
from app.config import Settings
from app.db.store import create_store
from app.main import create_app
from app.rules_page import inline, markdown_to_html, rules_file


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    with migrated_database(SQLITE, tmp_path, None) as url:
        store = create_store(url)
        try:  # match 1, one game
            assert await store.finish_match(play_match_record(7)) == 1
        finally:
            await store.close()
        app: FastAPI = create_app(Settings(database_url=url))
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
                yield c


@pytest.mark.parametrize("path", [
    "/nope", "/matches/abc", "/matches/1/games/x", "/t/", "/history/more", "/rules/x",
    "/a/b/c?x=1", "/%E0", "/t/no-such-table",
    "/matches/2", "/matches/0", "/matches/99999999999", "/matches/1/games/2",
    "/matches/2/games/1", "/matches/1/games/0",
])
async def test_unknown_pages_are_404_pages_for_people(client: httpx.AsyncClient,
                                                      path: str) -> None:
    r = await client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert 'href="/"' in r.text and 'href="/history"' in r.text
    assert "/static/js/missing.js" in r.text


@pytest.mark.parametrize("path", ["/api/nope", "/api/", "/api/matches/1/nope",
                                  "/api/tables/no-such-table"])
async def test_unknown_api_paths_stay_json(client: httpx.AsyncClient, path: str) -> None:
    r = await client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/json"
    assert "detail" in r.json()


async def test_known_pages_still_answer(client: httpx.AsyncClient) -> None:
    for path in ("/", "/history", "/matches/1", "/matches/1/games/1", "/rules"):
        r = await client.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
    assert (await client.get("/api/matches")).status_code == 200
    assert (await client.post("/nope")).status_code in (404, 405)


@pytest.mark.parametrize("path", ["/matches", "/matches/"])
async def test_the_matches_address_cut_back_leads_to_the_history(client: httpx.AsyncClient,
                                                                 path: str) -> None:
    r = await client.get(path)
    assert r.status_code == 308 and r.headers["location"] == "/history"


async def test_the_rules_page_renders_docs_rules_md(client: httpx.AsyncClient) -> None:
    r = await client.get("/rules")
    assert r.status_code == 200
    page = r.text
    source = rules_file("dingo").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.*)$", source, re.M)
    assert len(headings) > 5
    for heading in headings:
        assert f">{inline(heading)}</h2>" in page
    assert "<strong>Aces may never be discarded.</strong>" in page
    assert "<code>AD</code>" in page and "<em>penalty</em>" in page
    body = page[page.index('<article'):page.index("</article>")]
    assert "**" not in body and "`" not in body and "<!-- rules -->" not in page
    assert body.count("<li>") == len(re.findall(r"^ *(?:-|\d+\.) ", source, re.M))
    assert 'href="/history"' in page and 'href="/"' in page


async def test_every_game_has_its_rules_page(client: httpx.AsyncClient) -> None:
    for name in games.names():
        page = (await client.get(f"/rules/{name}")).text
        source = rules_file(name).read_text(encoding="utf-8")
        assert f"<title>Rules of {games.get(name).title} ·" in page
        for heading in re.findall(r"^## (.*)$", source, re.M):
            assert f">{inline(heading)}</h2>" in page
        tables = len(re.findall(r"^\|[- :|]+\|$", source, re.M))  # one rule row per table
        assert page.count("<table>") == tables
        assert page.count('class="rules-games"') == 1
        assert f'href="/rules/{name}" aria-current' in page
        # Every code span and strong text closed where it was opened (Mate's examples wrap
        # lines of numbered moves, "  4. AH-7H", which once split a code span in two).
        body = page[page.index("<article"):page.index("</article>")]
        assert "`" not in body and "**" not in body, name
    missing = await client.get("/rules/chess")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")


def test_the_converter_makes_tables() -> None:
    html = markdown_to_html("| a | b <i> |\n|---|:-:|\n| `1` | **2** |\n\nafter")
    assert html == ('<div class="table-wrap"><table><thead><tr><th>a</th><th>b &lt;i&gt;</th>'
                    "</tr></thead><tbody><tr><td><code>1</code></td><td><strong>2</strong>"
                    "</td></tr></tbody></table></div>\n<p>after</p>")


def test_the_converter_escapes_html_and_nests_lists() -> None:
    html = markdown_to_html(
        "# A <b>title</b>\n\nText with <script>alert(1)</script> & `<i>` and **bold**\n"
        "goes on.\n\n- one *em*\n  continued\n  - inner\n- two\n1. first\n2. second\n")
    assert "<script>" not in html and "&lt;script&gt;" in html and "&amp;" in html
    assert '<h1 id="a-b-title-b">A &lt;b&gt;title&lt;/b&gt;</h1>' in html
    assert "<code>&lt;i&gt;</code>" in html and "<strong>bold</strong>" in html
    assert "<p>Text with" in html and "<strong>bold</strong> goes on.</p>" in html
    assert ("<ul>\n<li>\none <em>em</em> continued\n<ul>\n<li>\ninner\n</li></ul>\n</li>\n"
            "<li>\ntwo\n</li></ul>\n<ol>\n<li>\nfirst\n</li>\n<li>\nsecond\n</li></ol>") in html
    # A wrapped line that starts with a number other than 1 goes on the text; a next item
    # of a numbered list open at its indent does not.
    moves = markdown_to_html("- moves `1. a 2. b\n  3. c` end\n- next\n\n1. one\n2. two\n")
    assert moves == ("<ul>\n<li>\nmoves <code>1. a 2. b 3. c</code> end\n</li>\n<li>\nnext\n"
                     "</li></ul>\n<ol>\n<li>\none\n</li>\n<li>\ntwo\n</li></ol>")
    # Strong spans lines and code; a star inside code stays a star.
    assert inline("**a `b*c` d** 2*3*4") == "<strong>a <code>b*c</code> d</strong> 2*3*4"


def test_simulate_help_names_the_dingo_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["simulate", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: dingo simulate ")
    assert "python -m" not in out
