"""One prefilter pass over a text (or over all of an entry's strings) for every family of rules, then each rule
run only where the pass saw what it needs (`Sighting`).

- Tokens of known formats (`providers`), their base64 encodings (a `.dockerconfigjson`, a `Basic` header
  of a token): the rules whose anchors were seen run, each only around its anchors.
- Secrets by context: fixed forms (`forms`), values given to secret-like names (`assignments`), the data of a
  Kubernetes Secret, and in a credential file (`files`) every value that looks random (`entropy`).

Each finder returns the spans to take out, with their kind; `redact` replaces them and counts.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate
from operator import add
from urllib.parse import unquote
from typing import Any, Callable, Iterable, Sequence

from .assignments import assigned_secrets
from .entropy import looks_random
from .files import CREDENTIAL_FILE_MARKS, names_credential_file
from .forms import FORM_RULES, KUBERNETES_SECRET_MARKS, form_matches, kubernetes_secret_values, lines_with_offsets
from .prefilter import Prefilter
from .names import NAME_STEMS
from .providers import TOKEN_RULES, TokenRule


@dataclass(frozen=True, slots=True)
class Found:
    start: int
    end: int
    kind: str


# The shapes the rules by context look for, line by line (each is a pattern of the prefilter, and a bit of
# `Sighting.shapes`): a key's body line, a `.env` line, a `.pgpass` line's fields, a
# percent-escape, and a numbered line break with a token's characters on both sides (a token a file read
# cut in two).
# The patterns see the prefilter's ASCII view, where any other character is `?`: Read's `→`, and a blank other
# than ASCII (that the rules' `\s` takes), are a `?` there.
KEY_BODY, DOTENV, GREP_PLACE, PGPASS, PERCENT, WRAPPED = 1, 2, 4, 8, 16, 32
_BLANK = r"[\t\x0b\x0c\r\x1c-\x1f ?]"
"""A blank other than a line break, as the ASCII view shows it."""
_SHAPES = (
    (KEY_BODY, rf"^(?:{_BLANK}*\d+[?\t]|[^\s:]*[:-]\d+[:-]|\d+[:-]|[+> ])?{_BLANK}*[A-Za-z0-9+/]{{56}}"),
    (DOTENV, r"^(?:[ \t]*\d+[?\t]|[^\s:]+:\d+:|[+ ])?[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]{2,}=\S"),
    (PGPASS, r"(?:localhost|\.[^\s:'\"]+|\*):(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:"),  # a host has a dot (not a time's hour)
    (PERCENT, r"%[0-9A-Fa-f]{2}"),
    (WRAPPED, r"[A-Za-z0-9_\-+/=.]\n[ \t]*\d+[?\t][A-Za-z0-9_\-+/=.]"),
)
CONTEXT_SHAPES = KEY_BODY | DOTENV | GREP_PLACE | PGPASS | PERCENT
"""The shapes a rule by context looks for (a wrapped line is the token rules'). grep's place in a file named as
a credential file (`config/.env:3:`) is not a pattern of the prefilter (one costs a third of its scan): a
credential file's mark is one of its literals, and where one is followed by the rest of a grep's place the
shape is seen."""
_AFTER_FILE_MARK = re.compile(r"[^\s:]*[:-]\d+[:-]")


class _RulesCompiledWhenUsed:
    """The token rules, each with its pattern compiled the first time the rule runs: compiling them all costs
    a fifth of a second in every process, and most never run."""

    def __init__(self, rules: tuple[TokenRule, ...]) -> None:
        self._rules = rules
        self._compiled: list[tuple[TokenRule, re.Pattern[str]] | None] = [None] * len(rules)
        self._from_anchor: list[bool | None] = [None] * len(rules)

    def __getitem__(self, index: int) -> tuple[TokenRule, re.Pattern[str]]:
        found = self._compiled[index]
        if found is None:
            rule = self._rules[index]
            found = self._compiled[index] = (rule, re.compile(rule.pattern, rule.flags))
        return found

    def starts_at_its_anchor(self, index: int) -> bool:
        """Whether each of the rule's matches starts with one of its anchors: its pattern opens with a group
        (the token's lead) each of whose spellings starts with an anchor. Such a rule is tried at its anchors'
        places only; another (a Mailchimp key's hex digits come before its `-us`) in a window around them."""
        known = self._from_anchor[index]
        if known is None:
            rule = self._rules[index]
            lead = _leading_group(rule.pattern)
            spellings = _spellings(lead) if lead is not None and not rule.flags else None
            known = self._from_anchor[index] = bool(rule.anchors) and spellings is not None and all(
                spelling.startswith(rule.anchors) for spelling in spellings)
        return known


def _leading_group(pattern: str) -> str | None:
    """The pattern's first group, `(?:…)`, when the pattern opens with one."""
    if not pattern.startswith("(?:"):
        return None
    depth, escaped, in_class = 0, False, False
    for position, character in enumerate(pattern):
        if escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif in_class:
            in_class = character != "]"
        elif character == "[":
            in_class = True
        elif character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                return pattern[3:position]
    return None


def _spellings(pattern: str, most: int = 64) -> list[str] | None:
    """Every text `pattern` matches, when it is a few literals (alternatives, groups, small classes of single
    characters); None otherwise."""
    from re import _parser  # type: ignore[attr-defined]

    def expand(items: Any) -> list[str] | None:
        texts = [""]
        for operation, value in items:
            name = str(operation)
            if name == "LITERAL":
                choices = [chr(value)]
            elif name == "IN" and all(str(kind) == "LITERAL" for kind, _ in value):
                choices = [chr(character) for _, character in value]
            elif name == "SUBPATTERN":
                found = expand(value[-1])
                if found is None:
                    return None
                choices = found
            elif name == "BRANCH":
                choices = []
                for branch in value[1]:
                    found = expand(branch)
                    if found is None:
                        return None
                    choices += found
            else:
                return None
            texts = [text + choice for text in texts for choice in choices]
            if len(texts) > most:
                return None
        return texts

    try:
        return expand(_parser.parse(pattern))
    except re.error:
        return None


@dataclass(frozen=True)
class _Compiled:
    rules: _RulesCompiledWhenUsed
    rules_by_anchor: dict[str, tuple[int, ...]]
    prefilter: Prefilter
    """In one pass: the token rules' anchors, the base64 spellings of the longer ones (every anchor of four
    characters or more as base64 would spell it, at each of its three alignments), the secret-like names'
    stems, the fixed forms' anchors and a Kubernetes Secret's marks (in any case), the anchorless rules' looks,
    and the shapes."""
    meanings: tuple[tuple[int, str | int], ...]
    """For each of the prefilter's indexes: what was seen (`_ANCHOR`, `_SPELLING`, `_WORD` with the literal;
    `_LOOK`; `_SHAPE` with its bit)."""
    token_prefilter: Prefilter
    """The token rules' part of the prefilter alone (anchors, their base64 spellings, the looks): whether a
    text may hold a token at all, asked of ids and of text put together again, answered at the first hit."""
    identifier_prefilter: Prefilter
    """What identifiers are looked at with (only the token rules apply to them): the token rules' part, and a
    wrapped line; about three times as fast as the whole."""
    identifier_meanings: tuple[tuple[int, str | int], ...]


_ANCHOR, _SPELLING, _WORD, _LOOK, _SHAPE, _FILE_MARK = range(6)


class Sighting:
    """What the prefilter saw in one text: which rules it may need, and where. (A plain class: one is made for
    each string with a hit, and a dataclass's default factories cost a tenth of redaction's walk.)"""

    __slots__ = ("anchors", "spellings", "looks", "words", "shapes", "pgpass", "dotenv_lines")

    def __init__(self) -> None:
        self.anchors: list[tuple[int, str]] = []
        """The token rules' anchors: where each starts, and the literal."""
        self.spellings: list[int] = []
        """Where a token anchor's base64 spelling starts."""
        self.looks: list[tuple[int, int]] = []
        """The anchorless token rules whose looks matched: the rule's index, and where the look ended."""
        self.words: list[tuple[int, str]] = []
        """The secret-like names' stems, the forms' anchors, a Kubernetes Secret's marks: where, and the literal
        (in lower case)."""
        self.shapes = 0
        """The shapes seen (`KEY_BODY` …), together."""
        self.pgpass: list[int] = []
        """Where a `.pgpass` line's fields end."""
        self.dotenv_lines = 0
        """How many `.env` lines were seen (each line has one place such a line ends): a text with two or more
        has a `.env` file's shape (`files.looks_like_dotenv`)."""

    @property
    def tokens(self) -> bool:
        return bool(self.anchors or self.spellings or self.looks)

    @property
    def context(self) -> bool:
        return bool(self.words or self.shapes & CONTEXT_SHAPES)


def _base64_spellings(anchor: str) -> list[str]:
    """The base64 characters that only `anchor`'s bytes decide, for each alignment of it in the data."""
    data = anchor.encode()
    spellings = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data + b"\0\0").decode()
        first = -(-8 * shift // 6)
        last = 8 * (shift + len(data)) // 6
        spelling = encoded[first:last]
        if len(spelling) >= 4:
            spellings.append(spelling)
    return spellings


@functools.cache
def compiled() -> _Compiled:
    by_anchor: dict[str, list[int]] = {}
    for index, rule in enumerate(TOKEN_RULES):
        for anchor in rule.anchors:
            by_anchor.setdefault(anchor, []).append(index)
    looks = [(index, rule.look) for index, rule in enumerate(TOKEN_RULES) if not rule.anchors]
    anchors = sorted(by_anchor)
    spellings = sorted({spelling for anchor in anchors if len(anchor) >= 4 for spelling in _base64_spellings(anchor)})
    words = sorted({*NAME_STEMS, *(anchor for rule in FORM_RULES for anchor in rule.anchors), *KUBERNETES_SECRET_MARKS})
    meanings: list[tuple[int, str | int]] = [(_ANCHOR, anchor) for anchor in anchors]
    meanings += [(_SPELLING, spelling) for spelling in spellings]
    meanings += [(_WORD, word) for word in words]
    meanings += [(_FILE_MARK, mark) for mark in CREDENTIAL_FILE_MARKS]
    meanings += [(_LOOK, index) for index, _ in looks]
    meanings += [(_SHAPE, bit) for bit, _ in _SHAPES]
    prefilter = Prefilter([*anchors, *spellings], [*words, *CREDENTIAL_FILE_MARKS],
                          [*(look for _, look in looks), *(shape for _, shape in _SHAPES)])
    token_prefilter = Prefilter([*anchors, *spellings], (), [look for _, look in looks])
    identifier_prefilter = Prefilter([*anchors, *spellings], (), [*(look for _, look in looks), dict(_SHAPES)[WRAPPED]])
    identifier_meanings: list[tuple[int, str | int]] = [(_ANCHOR, anchor) for anchor in anchors]
    identifier_meanings += [(_SPELLING, spelling) for spelling in spellings]
    identifier_meanings += [(_LOOK, index) for index, _ in looks] + [(_SHAPE, WRAPPED)]
    return _Compiled(_RulesCompiledWhenUsed(TOKEN_RULES), {anchor: tuple(rules) for anchor, rules in by_anchor.items()},
                     prefilter, tuple(meanings), token_prefilter, identifier_prefilter, tuple(identifier_meanings))


def sightings_of(texts: Sequence[str], identifiers: bool = False) -> dict[int, Sighting]:
    """What the prefilter sees in each of `texts`, by the text's index (only those in which it sees anything),
    from one pass over them all. `identifiers`: the texts are ids, in which only the token rules' part of the
    prefilter is looked for."""
    catalogue = compiled()
    seen: dict[int, Sighting] = {}
    single = len(texts) == 1
    whole = texts[0] if single else "\n".join(texts)
    prefilter, meanings = (catalogue.identifier_prefilter, catalogue.identifier_meanings) if identifiers else \
        (catalogue.prefilter, catalogue.meanings)
    hits = prefilter.scan(whole)
    if not hits:
        return seen
    # Where each text ends in `whole` (where the line break after it is): the texts' lengths added up, in C.
    ends = [len(whole)] if single else list(map(add, accumulate(map(len, texts)), range(len(texts))))
    for index, end in hits:
        meaning, what = meanings[index]
        if meaning == _FILE_MARK and _AFTER_FILE_MARK.match(whole, end) is None:
            continue  # a credential file's mark, not in grep's place
        start = end - len(what) if isinstance(what, str) else end - 1
        owner = 0 if single else bisect_left(ends, start)
        sighting = seen.get(owner)
        if sighting is None:
            sighting = seen[owner] = Sighting()
        start -= ends[owner] - len(texts[owner])
        if meaning == _ANCHOR:
            sighting.anchors.append((start, what))  # type: ignore[arg-type]
        elif meaning == _WORD:
            sighting.words.append((start, what))  # type: ignore[arg-type]
        elif meaning == _SHAPE:
            sighting.shapes |= what  # type: ignore[operator]
            if what == PGPASS:
                sighting.pgpass.append(start + 1)
            elif what == DOTENV:
                sighting.dotenv_lines += 1
        elif meaning == _SPELLING:
            sighting.spellings.append(start)
        elif meaning == _FILE_MARK:
            sighting.shapes |= GREP_PLACE
        else:
            sighting.looks.append((what, start + 1))  # type: ignore[arg-type]
    for sighting in seen.values():
        if len(sighting.anchors) > 1:
            sighting.anchors = sorted(set(sighting.anchors))
        if len(sighting.words) > 1:
            sighting.words = sorted(set(sighting.words))
        if len(sighting.spellings) > 1:
            sighting.spellings = sorted(set(sighting.spellings))
    return seen


NOTHING_SEEN = Sighting()
"""What a text in which the prefilter saw nothing holds (shared: never changed)."""


def sight(text: str) -> Sighting:
    """What the prefilter sees in `text`."""
    return sightings_of([text]).get(0, NOTHING_SEEN)


def may_hold_token(text: str) -> bool:
    """Whether any token rule (or a token's base64) could match in `text`."""
    return compiled().token_prefilter.any_in(text)


def _non_overlapping(found: Iterable[Found]) -> list[Found]:
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


def _matches(pattern: re.Pattern[str], text: str, starts: list[int] | None) -> list[re.Match[str]]:
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
        if catalogue.rules.starts_at_its_anchor(index):
            matches = [match for start in starts if (match := pattern.match(text, start)) is not None]
        else:
            matches = _matches(pattern, text, starts)
        for match in matches:
            start, end = match.span(group)
            if start == end or any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            found.append(Found(start, end, rule.kind))
    return _non_overlapping(found)


def scan_tokens(text: str, embedded: bool = False, seen: Sighting | None = None) -> list[Found]:
    """Tokens of known formats and their base64, from what the prefilter saw (`seen`, or one pass now).
    `embedded`: inside longer runs of token characters too (a name)."""
    if seen is None:
        seen = sight(text)
    if not seen.tokens:
        return []
    spans = embedded_token_spans(text, seen) if embedded else token_spans(text, seen)
    if seen.spellings:
        spans = _non_overlapping([*spans, *encoded_token_spans(text, seen.spellings)])
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
                found.append(Found(start, start + end, rule.kind))
                break
    return _non_overlapping(found)


_TRAILING_BOUNDARY = re.compile(r"\(\?!\[[^\]]*\]\)$")


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



def form_spans(text: str, words: list[tuple[int, str]] | None = None) -> list[Found]:
    """The fixed forms (`forms.FORM_RULES`) whose anchors the text holds (in any case), each tried only around
    its anchors' places (`words`: where the prefilter saw the words, when the caller has looked)."""
    if words is None:
        words = sight(text).words
    places: dict[int, list[int]] = {}
    kubernetes_secret = False
    for start, word in words:
        for index in _FORMS_BY_ANCHOR.get(word, ()):
            places.setdefault(index, []).append(start)
        kubernetes_secret = kubernetes_secret or word in KUBERNETES_SECRET_MARKS
    found: list[Found] = []
    for index, starts in sorted(places.items()):
        rule = FORM_RULES[index]
        if rule.at_anchor:
            matches = [match for start in sorted(set(starts)) if (match := rule.pattern.match(text, start)) is not None]
        else:
            matches = _matches(rule.pattern, text, sorted(starts))
        found += [Found(start, end, rule.kind) for start, end in form_matches(rule, text, matches)]
    if kubernetes_secret:
        found += [Found(start, end, "kubernetes-secret") for start, end in kubernetes_secret_values(text)]
    return _non_overlapping(found)


def _forms_by_anchor() -> dict[str, list[int]]:
    by_anchor: dict[str, list[int]] = {}
    for index, rule in enumerate(FORM_RULES):
        for anchor in rule.anchors:
            by_anchor.setdefault(anchor, []).append(index)
    return by_anchor


_FORMS_BY_ANCHOR = _forms_by_anchor()


_ANY_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[\"']?[ \t]*[=:][ \t]*[\"']?"
    r"(?P<value>[A-Za-z0-9+/=_\-.~]{16,})")


_DIGEST_NAME = re.compile(r"(?i)(?:.*@)?(?:sha\d*|sha3-\d+|md5|h\d|blake\w*|crc\d*|xxh\w*|integrity|digest|checksum|"
                          r"hash|etag|commit|rev|revision|sum)")
"""Names of digests and checksums: what they are given is a hash (`sha256:…`, go.sum's `h1:…`)."""
_RANDOM_RUN = re.compile(r"(?<![A-Za-z0-9+/_])[A-Za-z0-9+/_]{32,}={0,2}(?![A-Za-z0-9+/=_])")
"""A run of base64 on its own: a key's body line, whatever a tool put before it (grep's `file-3-`)."""
_PGPASS_LINE = re.compile(r"(?m)(?:^|\t|→|[\s'\"])[^\s'\"]*?(?:localhost|[^\s:'\"]*\.[^\s:'\"]+|\*):(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:"
                          r"(?P<value>[^\s\"'\\]+)(?=$|['\"\s])")


def random_runs(text: str, shortest: int = 32) -> list[Found]:
    """Every run of base64 on its own, `shortest` characters or more, that looks random (a key's line; a
    command's argument), but a path or a data URI's content (`data:…;base64,…`)."""
    return [Found(*match.span(), "high-entropy") for match in _RANDOM_RUN.finditer(text)
            if len(match.group()) >= shortest and not text.endswith("base64,", 0, match.start())
            and looks_random(match.group())]


def random_value_spans(text: str, nameless: bool) -> list[Found]:
    """In a credential file: every value that looks random, whatever its name (`STRIPE=…`, `[default]
    key = …`), and every long run that does on its own (a key's body lines, a value on a line of its own),
    and the password field of a `.pgpass` line."""
    found = [Found(*match.span("value"), "high-entropy") for match in _ANY_ASSIGNMENT.finditer(text)
             if not _DIGEST_NAME.fullmatch(match.group("name"))
             and looks_random(match.group("value"), hex_counts=nameless) and not match.group("value").startswith("REDACTED")]
    if nameless:
        found += random_runs(text)
    return found


def pgpass_spans(text: str, places: Iterable[int] | None = None) -> list[Found]:
    """The password field of a `.pgpass` line (`host:port:database:user:password`), wherever it stands
    (`places`: where the prefilter saw a line's fields; only their lines are read)."""
    if places is None:
        matches: Iterable[re.Match[str]] = _PGPASS_LINE.finditer(text)
    else:
        # The host and the password around the fields are runs without a space: a short window of the line.
        windows: list[list[int]] = []
        for place in sorted(places):
            reach = max(0, place - _PGPASS_REACH)
            start, end = max(text.rfind("\n", reach, place) + 1, reach), _line_end(text, place, place + _PGPASS_REACH)
            if windows and start <= windows[-1][1]:  # places on one line share its window
                windows[-1][1] = max(windows[-1][1], end)
            else:
                windows.append([start, end])
        matches = (match for start, end in windows for match in _PGPASS_LINE.finditer(text, start, end))
    return [Found(*match.span("value"), "secret-assignment") for match in matches
            if not match.group("value").startswith("[REDACTED")]


_PGPASS_REACH = 512


def _line_end(text: str, place: int, most: int) -> int:
    """Where the line `place` is in ends, or `most`, whichever comes first (a line may be a megabyte long)."""
    end = text.find("\n", place, most)
    return min(len(text), most) if end < 0 else end


_PERCENT_HEX = re.compile(r"%[0-9A-Fa-f]{2}")
_SEGMENT_END = frozenset(" \t\r\n/?&#=\"'<>\\")


def _segments_with_escapes(text: str) -> list[tuple[int, int]]:
    """The URL segments (between `/`, `?`, `&`, `#`, `=` and white space) that hold a percent-escape."""
    segments: list[tuple[int, int]] = []
    for escape in _PERCENT_HEX.finditer(text):
        if segments and escape.start() < segments[-1][1]:
            continue
        start, end = escape.start(), escape.end()
        while start > 0 and text[start - 1] not in _SEGMENT_END:
            start -= 1
        while end < len(text) and text[end] not in _SEGMENT_END:
            end += 1
        segments.append((start, end))
    return segments


def percent_encoded_spans(text: str) -> list[Found]:
    """A path segment or query value that holds a secret once its percent-escapes are decoded (a webhook's
    URL passed in another URL, a connection string in a query): the whole encoded segment goes."""
    found: list[Found] = []
    for start, end in _segments_with_escapes(text):
        segment = text[start:end]
        decoded = unquote(segment)
        if len(decoded) < 8 or decoded == segment:
            continue
        kinds = [item.kind for item in token_spans(decoded)] if may_hold_token(decoded) else []
        if not kinds:
            kinds = [item.kind for item in context_spans(decoded, False)]
        if kinds:
            found.append(Found(start, end, kinds[0]))
    return found


_KEY_BODY_LINE = re.compile(r"(?:[ \t]*\d+(?:→|\t)|[^\s:]*[:-]\d+[:-]|\d+[:-]|[+> ])?[ \t]*"
                            r"(?P<body>[A-Za-z0-9+/]{56,80}={0,2})[ \t]*")
_KEY_BODY_TAIL = re.compile(r"(?:[ \t]*\d+(?:→|\t)|[^\s:]*[:-]\d+[:-]|\d+[:-]|[+> ])?[ \t]*"
                            r"(?P<body>[A-Za-z0-9+/]{4,80}={0,2})[ \t]*")


def key_body_spans(text: str) -> list[Found]:
    """Two or more lines of random base64 of a key's width (64 for PEM, 70 for OpenSSH, 76 for MIME), with
    the short line that may end them: the body of a private key shown without its header (a grep, a pasted
    part, a quoted one), whatever a tool put before each line."""
    found: list[Found] = []
    run: list[tuple[int, int]] = []
    for offset, line in lines_with_offsets(text):
        body = _KEY_BODY_LINE.fullmatch(line)
        if body is not None and looks_random(body.group("body"), paths=False):
            run.append((offset + body.start("body"), offset + body.end("body")))
            continue
        if len(run) >= 2:
            tail = _KEY_BODY_TAIL.fullmatch(line)
            if tail is not None and tail.group("body").endswith("="):
                run.append((offset + tail.start("body"), offset + tail.end("body")))
            found += [Found(start, end, "private-key") for start, end in run]
        run = []
    if len(run) >= 2:
        found += [Found(start, end, "private-key") for start, end in run]
    return found


def context_spans(text: str, credential_file: bool, named_file: bool = False,
                  seen: Sighting | None = None) -> list[Found]:
    """Secrets found by their context, from what the prefilter saw (`seen`, or one pass now).
    `credential_file`: the text has the shape of a credential file or is one; `named_file`: it is a file known
    as one by its name, where a random run on its own is a secret too (a key's body lines)."""
    if seen is None:
        seen = sight(text)
    found = form_spans(text, seen.words) if seen.words else []
    if seen.shapes & KEY_BODY and len(text) > 112:
        found += key_body_spans(text)
    if seen.shapes & PERCENT:
        found += percent_encoded_spans(text)
    stems = [start for start, word in seen.words if word in _STEMS]
    if stems:
        found += [Found(start, end, "secret-assignment") for start, end in assigned_secrets(text, named_file, stems)]
    if credential_file or named_file:
        found += random_value_spans(text, nameless=named_file)
    if seen.pgpass:
        found += pgpass_spans(text, seen.pgpass)
    return _non_overlapping(found)


_STEMS = frozenset(NAME_STEMS)


_GREP_PLACE = re.compile(r"(?m)^(?P<path>[^\s:]+?)[:-]\d+[:-]")
_GREP_MARK = re.compile(r"[:-]\d+[:-]")


def shows_credential_file(text: str) -> bool:
    """grep's lines of a file that `files` knows as one (`config/.env:3:…`, `certs/server.pem-4-…`)."""
    if _GREP_MARK.search(text) is None:
        return False
    checked: set[str] = set()
    for place in _GREP_PLACE.finditer(text):
        path = place.group("path")
        if path not in checked:
            if names_credential_file(path):
                return True
            checked.add(path)
            if len(checked) > 20:
                break
    return False


def replace_spans(text: str, spans: list[Found], replacement: Callable[[Found, str], str]) -> str:
    if not spans:
        return text
    pieces, position = [], 0
    for item in spans:
        pieces += [text[position:item.start], replacement(item, text[item.start:item.end])]
        position = item.end
    pieces.append(text[position:])
    return "".join(pieces)
