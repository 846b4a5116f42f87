"""Markdown that, posted on GitHub, acts on nothing: no mention, closing keyword or remote image."""

from __future__ import annotations

import bisect
import re

from ..render.markdown.escape import block_parser

INERT = "\u200b"
"""A zero-width space: shown as nothing, it stands between `@` and a name, or inside a closing keyword, so
that GitHub sees neither a mention nor a keyword (Dependabot and Renovate write mentions so too)."""
# After a letter or digit an @ is an email address's, which GitHub leaves alone; after anything else it may
# mention, even after markup that parts it from a word before it (`a**@user**`).
_MENTION = re.compile(r"(?<![A-Za-z0-9])@(?=[A-Za-z0-9])")
# GitHub's closing keywords, followed (after a colon, spaces, an escape or emphasis) by an issue reference
# (markup may stand between a keyword and the letters around it, so `_` is no part of a word here):
# #1, GH-1, owner/repo#1 or an issue's URL, perhaps backslash-escaped as our Markdown writes typed text. The
# reference may sit in a part that is left as written (a URL).
_CLOSING = re.compile(r"(?<![A-Za-z0-9])(?=(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?![A-Za-z0-9])(?:[\s:*_~\\>(\[]|&nbsp;|&#160;)*"
                      r"(?:\\?#|GH-\d|[\w.\\-]+/[\w.\\-]+\\?#|https?://))[A-Za-z]", re.IGNORECASE)
_MAY_CLOSE = re.compile(r"clos|fix|resolv", re.IGNORECASE)
_MAY_ACT = re.compile(r"@[A-Za-z0-9]|!\[|<|clos|fix|resolv", re.IGNORECASE)
_IMAGE = re.compile(r"!(?=\[)")
# Raw HTML that loads what it names: transcript text never holds any (its `<` is escaped), ours neither.
_LOADING_TAG = re.compile(r"<(?=/?(?:img|picture|source|video|audio|svg|image|iframe|object|embed|link|style|input)\b)",
                          re.IGNORECASE)
# What GitHub leaves alone, and so do we: a backslash escape of a backtick, `!` or backslash (an escaped `@` or
# `#` is shown as one, and acted on), an autolink, a link's destination and a bare URL (GitHub links them; a
# mention inside a link is none).
_AS_WRITTEN = re.compile(
    r"\\[\\`!]"
    r"|<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*>|<[^\s<>@]+@[^\s<>]+>"
    r"|\]\(\s*(?:<[^<>\n]*>|[^\s()]*)"
    r"|^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+"
    r"|(?:https?|ftp)://[^\s<]*|www\.[^\s<]*",
    re.MULTILINE,
)


def inert_on_github(markdown: str) -> str:
    """The Markdown as GitHub shows it, acting on nothing: no `@user` or `@org/team` notifies anyone, no
    closing keyword before an issue reference (`Fixes #1`) closes the issue on merge, and no image is fetched
    (through GitHub's image proxy, on every view) from a host a transcript named: its `!` is escaped, and it is
    a link. Code blocks and code spans are left as written (GitHub acts on nothing in them), as are URLs."""
    if not _MAY_ACT.search(markdown):
        return markdown
    lines = markdown.split("\n")
    in_code = [False] * len(lines)
    paragraph_of: dict[int, int] = {}
    for token in block_parser().parse(markdown):
        if token.map is None:
            continue
        start, end = token.map
        if token.type in ("fence", "code_block"):
            for number in range(start, min(end, len(lines))):
                in_code[number] = True
        elif token.type == "inline":
            for number in range(start, min(end, len(lines))):
                paragraph_of.setdefault(number, start)
    out: list[str] = []
    number = 0
    while number < len(lines):
        if in_code[number]:
            out.append(lines[number])
            number += 1
            continue
        # A code span lies within one paragraph: the paragraph's lines are read together, any other line alone.
        last = number
        while (number in paragraph_of and last + 1 < len(lines) and not in_code[last + 1]
               and paragraph_of.get(last + 1) == paragraph_of[number]):
            last += 1
        out.append(_inert_text("\n".join(lines[number:last + 1])))
        number = last + 1
    return "\n".join(out)


def _inert_text(text: str) -> str:
    """`inert_on_github` of a paragraph's text, outside its code spans and what `_AS_WRITTEN` names."""
    edits: dict[int, str] = {}
    for found in _MENTION.finditer(text):
        edits[found.end()] = INERT
    if _MAY_CLOSE.search(text):
        for found in _CLOSING.finditer(text):
            edits[found.start() + 1] = INERT
    for found in _IMAGE.finditer(text):
        edits[found.start()] = "\\"
    for found in _LOADING_TAG.finditer(text):
        edits[found.start()] = "&lt;"
    if not edits:
        return text
    as_written = _merged([found.span() for found in _AS_WRITTEN.finditer(text)])
    kept = _merged(as_written + _code_spans(text, as_written))
    starts = [start for start, _ in kept]
    out: list[str] = []
    previous = 0
    for at in sorted(edits):
        # An edit goes in where GitHub reads text: not inside code or what is kept as written. A zero-width
        # space goes after the character it follows, so that character is the one looked at.
        looked_at = at - 1 if edits[at] == INERT else at
        span = bisect.bisect_right(starts, looked_at) - 1
        if span >= 0 and kept[span][1] > looked_at:
            continue
        out.append(text[previous:at])
        out.append(edits[at])
        previous = at + (1 if edits[at] == "&lt;" else 0)
    out.append(text[previous:])
    return "".join(out)


_BACKTICKS_OR_ESCAPE = re.compile(r"\\.|`+", re.DOTALL)


def _code_spans(text: str, as_written: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where code spans are, as CommonMark finds them: a run of backticks opens one that the next run of
    the same length closes; a run with no such closer is backticks, and the next run is looked at."""
    starts = [start for start, _ in as_written]

    def inside_as_written(at: int) -> bool:
        span = bisect.bisect_right(starts, at) - 1
        return span >= 0 and as_written[span][1] > at

    runs = [found.span() for found in _BACKTICKS_OR_ESCAPE.finditer(text)
            if found.group()[0] == "`" and not inside_as_written(found.start())]
    closer: list[int | None] = [None] * len(runs)
    next_of_length: dict[int, int] = {}
    for number in range(len(runs) - 1, -1, -1):
        length = runs[number][1] - runs[number][0]
        closer[number] = next_of_length.get(length)
        next_of_length[length] = number
    spans = []
    number = 0
    while number < len(runs):
        closing = closer[number]
        if closing is None:
            number += 1
            continue
        spans.append((runs[number][0], runs[closing][1]))
        number = closing + 1
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans sorted, overlapping ones made one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
