"""Tokens a file wrapped over two lines, as a file read shows them (Read's `    12→`, `cat -n`'s `    12<tab>`
before each line): the rules see the two parts joined."""

from __future__ import annotations

import re
from typing import Callable

from ..credentials.scan import may_hold_token, token_spans

# A line of a file read: Read's `    12→` or `cat -n`'s `    12<tab>`, after the line break.
LINE_NUMBER = re.compile(r"\n[ \t]*\d+(?:→|\t)")
_TOKEN_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+/=.]*")
_LONGEST_LINE_PART = 400
"""How far back a wrapped token's first part is looked for."""


def _wrapped_token_breaks(value: str) -> list[tuple[int, int]]:
    """The numbered line breaks (as a file read shows them) with token characters on both sides: where a
    token a file wrapped over two lines may go on."""
    breaks = []
    for number in LINE_NUMBER.finditer(value):
        end, head_start = number.start(), number.end()
        if end > 0 and value[end - 1] in _TOKEN_CHARACTERS and head_start < len(value) and (
                value[head_start] in _TOKEN_CHARACTERS):
            breaks.append((end, head_start))
    return breaks


def unwrap(value: str, whole: Callable[[str, str], str]) -> str:
    """A token a file wrapped over two lines, as a file read shows them (each line after its number):
    the rules see the two parts joined. The part on the second line counts as the token's when, joined,
    the token takes all of it, or when the first part alone is not a whole token (a line that follows a
    whole token is its own)."""
    pieces, position = [], 0
    for end, head_start in _wrapped_token_breaks(value):
        reach = max(0, end - _LONGEST_LINE_PART)
        start, line_start = end, max(value.rfind("\n", reach, end) + 1, reach)
        while start > line_start and value[start - 1] in _TOKEN_CHARACTERS:
            start -= 1
        if start < position:
            continue
        run = _TOKEN_RUN.match(value, head_start)
        assert run is not None  # it matches the empty string too
        tail, head = value[start:end], value[head_start:run.end()]
        joined = tail + head
        if not may_hold_token(joined):
            continue
        across = next((found for found in token_spans(joined) if found.start < len(tail) < found.end), None)
        if across is None:
            continue
        if across.end < len(joined) and any(found.end == len(tail) for found in token_spans(tail)):
            continue
        pieces += [value[position:start + across.start], whole(across.kind, joined[across.start:across.end]),
                   value[end:head_start]]
        position = head_start + across.end - len(tail)
    return "".join(pieces) + value[position:] if pieces else value
