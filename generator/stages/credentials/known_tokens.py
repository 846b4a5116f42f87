"""Tokens of known formats (`providers`) and their base64 encodings (a `.dockerconfigjson`, a `Basic` header
of a token), from what the prefilter saw: the rules whose anchors were seen run, each only around its
anchors."""

from __future__ import annotations

import base64
import binascii
import functools
import re
from typing import Iterable

from .sightings import Found, Sighting, compiled, sight


def non_overlapping(found: Iterable[Found]) -> list[Found]:
    kept: list[Found] = []
    for item in sorted(found, key=lambda f: (f.start, -f.end)):
        if not kept or item.start >= kept[-1].end:
            kept.append(item)
    return kept


_LEAD = 128
"""How far before its anchor (or the end of its look) a token may start (a Mailchimp key's 32 hex digits come
before its `-us`)…"""
_REACH = 1024
"""…and how far after it may end: a rule is tried only in that window around each anchor it has in a text; a
match that touches the window's edge is looked for again in the whole text."""


def matches_near(pattern: re.Pattern[str], text: str, starts: list[int] | None) -> list[re.Match[str]]:
    """`pattern`'s matches in `text`, found near the places `starts` (its anchors' places, in order; None:
    anywhere). Places close together share one window."""
    if starts is None or len(text) <= _LEAD + _REACH:
        return list(pattern.finditer(text))
    windows: list[list[int]] = []
    for start in starts:
        low, high = max(0, start - _LEAD), min(len(text), start + _REACH)
        if windows and low <= windows[-1][1]:
            windows[-1][1] = high
        else:
            windows.append([low, high])
    found: list[re.Match[str]] = []
    for low, high in windows:
        for match in pattern.finditer(text, low, high):
            if (match.end() == high and high < len(text)) or (match.start() == low and low > 0):
                return list(pattern.finditer(text))  # it may go on past the window, or start before it
            found.append(match)
    return found


def token_spans(text: str, seen: Sighting | None = None) -> list[Found]:
    """Tokens of known formats; where two rules match the same text, the earlier rule names it. `seen`: what
    the prefilter saw in the text, when the caller has looked already."""
    catalogue = compiled()
    if seen is None:
        seen = sight(text)
    places: dict[int, list[int]] = {}
    for start, anchor in seen.anchors:
        for index in catalogue.rules_by_anchor.get(anchor, ()):
            places.setdefault(index, []).append(start)
    for index, end in seen.looks:
        places.setdefault(index, []).append(end)
    found: list[Found] = []
    taken: list[tuple[int, int]] = []
    for index in sorted(places):
        rule, pattern = catalogue.rules[index]
        group = "secret" if "secret" in pattern.groupindex else 0
        starts = sorted(set(places[index]))
        spans: list[tuple[int, int]] = []
        if catalogue.rules.starts_at_its_anchor(index):
            for start in starts:
                match = pattern.match(text, start)
                if match is not None:
                    spans.append(match.span(group))
                elif not group and _deliberate_prefixes(rule.anchors) and (end := _overlong_end(pattern, text, start)):
                    spans.append((start, end))
        else:
            spans = [match.span(group) for match in matches_near(pattern, text, starts)]
            if not group and _deliberate_prefixes(rule.anchors):
                spans += [(start, end) for start in starts if not any(low <= start < high for low, high in spans)
                          and (end := _overlong_end(pattern, text, start))]
        for start, end in spans:
            if start == end or any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            found.append(Found(start, end, rule.kind))
    return non_overlapping(found)


def scan_tokens(text: str, embedded: bool = False, seen: Sighting | None = None) -> list[Found]:
    """Tokens of known formats and their base64, from what the prefilter saw (`seen`, or one pass now).
    `embedded`: inside longer runs of token characters too (a name)."""
    if seen is None:
        seen = sight(text)
    if not seen.tokens:
        return []
    spans = embedded_token_spans(text, seen) if embedded else token_spans(text, seen)
    if seen.spellings:
        spans = non_overlapping([*spans, *encoded_token_spans(text, seen.spellings)])
    return spans


_LONGEST_EMBEDDED = 256


def embedded_token_spans(text: str, seen: Sighting | None = None) -> list[Found]:
    """Tokens inside a longer run of token characters, which the rules' boundaries keep them from matching
    in prose: in an id, a signature, a tool's name (`mcp__<token>__search`). Each anchor's place is tried as
    the token's start, with the longest run after it that a rule takes whole. `seen`: what the prefilter saw
    in `text`, when the caller has looked."""
    catalogue = compiled()
    if seen is None:
        seen = sight(text)
    found = token_spans(text, seen)
    for start, anchor in seen.anchors:
        if any(item.start <= start < item.end for item in found):
            continue
        if len(anchor) < 4 and len(text) > 200:
            continue  # in a long run of random characters (a signature) a short anchor stands by chance
        for index in catalogue.rules_by_anchor[anchor]:
            rule, pattern = catalogue.rules[index]
            window = text[start:start + _LONGEST_EMBEDDED]
            end = _longest_whole(pattern, window, len(anchor))
            if end:
                if _deliberate_prefixes(rule.anchors):
                    # Letters and digits going on are the token going on past its format's length; a
                    # separator (`mcp__<token>__search`) is where it ends.
                    going_on = _LETTERS_AND_DIGITS.match(text, start + end)
                    end = going_on.end() - start if going_on is not None else end
                found.append(Found(start, start + end, rule.kind))
                break
    return non_overlapping(found)


_TRAILING_BOUNDARY = re.compile(r"\(\?!(\[[^\]]*\])\)$")
"""A pattern's last check, that its token is not followed by another of its characters: `(?![A-Za-z0-9_-])`."""


def _deliberate_prefixes(anchors: tuple[str, ...]) -> bool:
    """Whether every one of a rule's anchors is a prefix a provider chose to mark its tokens (`ghp_`, `glpat-`,
    `sk-ant-`, `xoxb-`): four characters or more holding a separator. Only past such a prefix is a run longer
    than the format a token still; a bare `4b1d` or `AKIA` also starts some longer hex digest or identifier."""
    return bool(anchors) and all(len(anchor) >= 4 and not anchor.isalnum() for anchor in anchors)


def _overlong_end(pattern: re.Pattern[str], text: str, start: int) -> int:
    """Where a token that runs on past its format's length ends (0: there is none at `start`): the rule
    matches at `start` but for its end, and the run of the token's characters goes on. Providers lengthen
    their tokens (GitHub says its may grow to 255 characters), and a longer token is still that provider's
    secret: it is taken whole, with what follows the length the format knows."""
    open_ended = _without_end_boundary(pattern)
    if open_ended is None:
        return 0
    match = open_ended.match(text, start)
    if match is None:
        return 0
    run = _run_of_token_characters(pattern).match(text, match.end())
    return run.end() if run is not None else 0


@functools.cache
def _run_of_token_characters(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """One or more of the characters a rule's end boundary says its token is made of."""
    boundary = _TRAILING_BOUNDARY.search(pattern.pattern)
    assert boundary is not None  # asked only of patterns `_without_end_boundary` could open
    return re.compile(boundary.group(1) + "+", pattern.flags)


@functools.cache
def _without_end_boundary(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """A rule's pattern without the check that its token ends where a run of token characters does (None: the
    pattern ends otherwise)."""
    boundary = _TRAILING_BOUNDARY.search(pattern.pattern)
    return None if boundary is None else re.compile(pattern.pattern[:boundary.start()], pattern.flags)


def _longest_whole(pattern: re.Pattern[str], window: str, shortest: int) -> int:
    """The length of the longest start of `window` that `pattern` matches whole (0: none). Where the pattern
    ends in its token's boundary, the same pattern without it says in one match where a token can end (its
    greedy runs take the longest); else each length is tried, longest first."""
    open_ended = _without_end_boundary(pattern)
    if open_ended is not None:
        candidate = open_ended.match(window)
        if candidate is None:
            return 0  # no start of the window can be a whole match: each would be a match of this
        if candidate.end() > shortest and pattern.fullmatch(window, 0, candidate.end()):
            return candidate.end()
    return next((length for length in range(len(window), shortest, -1) if pattern.fullmatch(window, 0, length)), 0)


_LETTERS_AND_DIGITS = re.compile(r"[A-Za-z0-9]+")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]+={0,2}")


def encoded_token_spans(text: str, hits: Iterable[int]) -> list[Found]:
    """base64 runs that decode to text holding a token of a known format (`"auth": "<base64 of user:ghp_…>"`);
    `hits`: where the tokens' base64 spellings are (`scan_tokens` finds them with the anchors)."""
    found: list[Found] = []
    for hit in hits:
        if found and hit < found[-1].end:
            continue
        start = hit
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "+/_-"):
            start -= 1
        run = _BASE64_RUN.match(text, start)
        if run is None:
            continue
        decoded = _decoded(run.group())
        if decoded:
            tokens = token_spans(decoded)
            if tokens:
                found.append(Found(run.start(), run.end(), f"{tokens[0].kind}-base64"))
    return found


def _decoded(run: str) -> str:
    body = run.rstrip("=")
    for alphabet in (None, b"-_"):
        for skip in range(4):  # a run cut out of a longer one may start at any of four places
            part = body[skip:]
            part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part
            try:
                raw = base64.b64decode(part + "=" * (-len(part) % 4), altchars=alphabet, validate=True)
            except (binascii.Error, ValueError):
                continue
            text = raw.decode("latin-1")
            if sight(text).anchors:
                return text
    return ""
