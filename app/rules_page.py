"""The rules page (`/rules`): docs/rules.md turned into HTML once, by a small converter.

The converter knows only what docs/rules.md uses: `#` headings, paragraphs,
`-` and `1.` lists (nested by two spaces, continued by indented lines), and
inline `` `code` ``, ``**strong**`` and ``*emphasis*``. Every piece of text is
HTML-escaped first, so the page can hold no markup the file did not mean.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES_MD = ROOT / "docs" / "rules.md"
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


def markdown_to_html(source: str) -> str:
    """The subset of markdown described in the module doc, as HTML."""
    out: list[str] = []
    text: list[str] = []  # the raw text of the paragraph or list item being read
    paragraph = False
    lists: list[tuple[str, int]] = []  # open lists: tag and indent, innermost last

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
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if not line.strip():
            end_lists()
        elif heading:
            end_lists()
            level, title = len(heading.group(1)), heading.group(2).strip()
            out.append(f'<h{level} id="{_slug(title)}">{inline(title)}</h{level}>')
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
    return "\n".join(out)


@cache
def rules_page() -> str:
    """The whole `/rules` page: the template with the converted rules in it (made once)."""
    template = RULES_TEMPLATE.read_text(encoding="utf-8")
    return template.replace(SLOT, markdown_to_html(RULES_MD.read_text(encoding="utf-8")))
