"""The rules pages: `/rules` (Dingo, docs/rules.md) and `/rules/{game}` (each hosted game's
page, docs/rules-<game>.md), turned into HTML once each, by a small converter.

The converter knows only what those files use: `#` headings, paragraphs, `-` and `1.`
lists (nested by two spaces, continued by indented lines), `|` tables (the second row
is the header's rule), and inline `` `code` ``, ``**strong**`` and ``*emphasis*``.
Every piece of text is HTML-escaped first, so a page can hold no markup the file did
not mean.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULES_TEMPLATE = ROOT / "static" / "rules.html"
#: Where the template takes the converted rules.
SLOT = "<!-- rules -->"

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^( *)([-*]|\d+\.)\s+(.*)$")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")


_CODE = re.compile(r"`([^`]+)`")


def inline(text: str) -> str:
    """Markdown text (a paragraph, an item) as escaped HTML with code, strong and emphasis."""
    codes: list[str] = []

    def keep(found: re.Match[str]) -> str:
        codes.append(f"<code>{html.escape(found.group(1), quote=False)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    text = _CODE.sub(keep, text.replace("\x00", ""))
    escaped = html.escape(text, quote=False)
    escaped = _STRONG.sub(r"<strong>\1</strong>", escaped)
    escaped = _EM.sub(r"<em>\1</em>", escaped)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], escaped)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")


def _continues(item: re.Match[str], text: list[str], lists: list[tuple[str, int]]) -> bool:
    """Whether a line that looks like a numbered item goes on the text being read instead:
    as in CommonMark, only a list's first number (or a next item of a numbered list open at
    that indent) starts one, so a wrapped line of moves ("  4. AH-7H 5. QH`") does not."""
    marker = item.group(2)
    return (bool(text) and marker[0].isdigit() and marker != "1."
            and ("ol", len(item.group(1))) not in lists)


def markdown_to_html(source: str) -> str:
    """The subset of markdown described in the module doc, as HTML."""
    out: list[str] = []
    text: list[str] = []  # the raw text of the paragraph or list item being read
    paragraph = False
    lists: list[tuple[str, int]] = []  # open lists: tag and indent, innermost last
    rows: list[list[str]] = []  # the table being read

    def end_table() -> None:
        if not rows:
            return
        head, body = rows[0], [r for r in rows[1:] if not all(set(c) <= set("-: ") for c in r)]
        cells = "".join(f"<th>{inline(c)}</th>" for c in head)
        out.append(f'<div class="table-wrap"><table><thead><tr>{cells}'
                   + "</tr></thead><tbody>" + "".join(
                       "<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>"
                       for r in body) + "</tbody></table></div>")
        rows.clear()

    def end_text() -> None:
        nonlocal paragraph
        if text:
            words = inline(" ".join(text))
            out.append(f"<p>{words}</p>" if paragraph else words)
            text.clear()
        paragraph = False

    def end_lists(deeper_than: int = -1) -> None:
        end_text()
        while lists and lists[-1][1] > deeper_than:
            out.append(f"</li></{lists.pop()[0]}>")

    for line in source.splitlines():
        if line.startswith("|"):
            end_lists()
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        end_table()
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if not line.strip():
            end_lists()
        elif heading:
            end_lists()
            level, title = len(heading.group(1)), heading.group(2).strip()
            out.append(f'<h{level} id="{_slug(title)}">{inline(title)}</h{level}>')
        elif item and _continues(item, text, lists):
            text.append(line.strip())
        elif item:
            if paragraph:
                end_text()
            indent, tag = len(item.group(1)), "ol" if item.group(2)[0].isdigit() else "ul"
            end_lists(deeper_than=indent)
            if lists and lists[-1][1] == indent and lists[-1][0] != tag:
                end_lists(deeper_than=indent - 1)
            if lists and lists[-1][1] == indent:
                out.append("</li>")
            else:
                out.append(f"<{tag}>")
                lists.append((tag, indent))
            out.append("<li>")
            text.append(item.group(3).strip())
        elif lists and line.startswith(" "):
            text.append(line.strip())  # the current item goes on
        else:
            if lists:
                end_lists()
            paragraph = True
            text.append(line.strip())
    end_lists()
    end_table()
    return "\n".join(out)


def rules_file(game: str) -> Path:
    """Where a game's rules page is (``docs/rules.md`` is Dingo's)."""
    return DOCS / ("rules.md" if game == "dingo" else f"rules-{game}.md")


@cache
def rules_page(game: str = "dingo") -> str:
    """A game's whole rules page: the template with the converted rules in it, and links to
    the other games' pages (made once per game)."""
    from app import games  # the registry: every hosted game has a page

    current = ' aria-current="page"'
    links = " · ".join(
        f'<a href="/rules/{name}"{current if name == game else ""}>'
        f"{html.escape(games.get(name).title)}</a>"
        for name in sorted(games.names(), key=lambda n: (n != "dingo", n)))
    title = html.escape(games.get(game).title)
    template = RULES_TEMPLATE.read_text(encoding="utf-8")
    return (template.replace("<title>Rules ·", f"<title>Rules of {title} ·")
            .replace(SLOT, f'<nav class="rules-games" aria-label="Rules of each game">{links}'
                           "</nav>\n"
                           + markdown_to_html(rules_file(game).read_text(encoding="utf-8"))))
