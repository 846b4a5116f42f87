"""Transcript Markdown made to sit inside the bundle's own: its headings demoted below the document's,
and cut short at a block (never one left open), saying so."""

from __future__ import annotations

import re

from ..render.markdown.escape import block_parser

_ATX = re.compile(r"^((?:[ \t]*>)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?[ \t]{0,3})(#{1,6})(?=[ \t]|$)")
DEMOTED_TO = 4
"""Headings inside a reply or plan start at this level: below the document's title (#), its sessions (##)."""


def demoted(text: str) -> str:
    """Transcript Markdown whose headings sit below the document's own: its highest heading becomes a
    `####` and the others keep their places under it (a setext heading becomes an ATX one)."""
    if "#" not in text and "==" not in text and "--" not in text:
        return text
    headings = [token for token in block_parser().parse(text) if token.type == "heading_open" and token.map]
    if not headings:
        return text
    shift = max(0, DEMOTED_TO - min(int(token.tag[1]) for token in headings))
    lines: list[str | None] = list(text.split("\n"))
    for token in headings:
        level = min(6, int(token.tag[1]) + shift)
        first, end = token.map  # type: ignore[misc]
        if token.markup.startswith("#"):
            lines[first] = _ATX.sub(r"\g<1>" + "#" * level, lines[first] or "", count=1)
        elif end - first >= 2 and token.level == 0:
            title = " ".join((line or "").strip() for line in lines[first:end - 1])
            lines[first:end] = ["#" * level + " " + title] + [None] * (end - first - 1)
    return "\n".join(line for line in lines if line is not None)



SHORTENED = " *…(shortened)*"


def cut(text: str, limit: int) -> str:
    """Markdown kept to about `limit` characters: whole blocks while they fit, then the start of a
    paragraph (at a word) or of a code block (whole lines, the fence closed). Never a block left open."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    size = 0
    for token in block_parser().parse(text):
        if token.level != 0 or token.nesting == -1 or not token.map:
            continue
        block = "\n".join(lines[token.map[0]:token.map[1]]).rstrip("\n")
        if size + len(block) + 2 <= limit:
            kept.append(block)
            size += len(block) + 2
            continue
        room = limit - size
        if room >= 80 and token.type == "fence":
            kept.append(_cut_fence(block, room))
        elif room >= 80 and token.type == "paragraph_open":
            words = block[:room]
            kept.append((words[: words.rfind(" ")] if " " in words[room // 2:] else words).rstrip(" \\"))
        break
    return ("\n\n".join(kept) + SHORTENED) if kept else SHORTENED.strip()


def _cut_fence(block: str, room: int) -> str:
    lines = block.split("\n")
    opening, closing = lines[0], lines[-1]
    body = lines[1:-1] if len(lines) > 2 and closing.strip().startswith(opening.strip()[:3]) else lines[1:]
    kept, size = [], len(opening) + len(closing) + 2
    for line in body:
        if size + len(line) + 1 > room:
            break
        kept.append(line)
        size += len(line) + 1
    fence_marker = re.match(r"\s*(`{3,}|~{3,})", opening)
    return "\n".join([opening, *kept, fence_marker.group(1) if fence_marker else "```"])


def quoted(text: str) -> str:
    return "\n".join(("> " + line) if line else ">" for line in text.split("\n"))
