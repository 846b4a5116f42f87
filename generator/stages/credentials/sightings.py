"""The prefilter's catalogue, and what one pass of it over a text (or over all of an entry's strings) sees:
which families of rules the text may need, and where (`Sighting`).

The catalogue holds the token rules' anchors and the base64 spellings of the longer ones, the secret-like
names' stems, the fixed forms' anchors, a Kubernetes Secret's marks, a credential file's marks, the anchorless
token rules' looks, and the shapes the rules by context look for line by line.
"""

from __future__ import annotations

import base64
import functools
import re
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate
from operator import add
from typing import Any, Sequence

from .commands import TRANSCRIPT_ANCHORS
from .files import CREDENTIAL_FILE_MARKS
from .forms import KUBERNETES_SECRET_MARKS
from .names import NAME_STEMS
from .prefilter import Prefilter
from .words import foreign_occurrences
from .providers import TOKEN_RULES, TokenRule
from .schemas import RULES, SEED_MARKS, TERRAFORM_MARKS


@dataclass(frozen=True, slots=True)
class Found:
    start: int
    end: int
    kind: str


# The shapes the rules by context look for, line by line (each is a pattern of the prefilter, and a bit of
# `Sighting.shapes`): a key's body line, a `.env` line, a `.pgpass` line's fields, a
# percent-escape, and a numbered line break with a token's characters on both sides (a token a file read
# cut in two).
# The patterns see the prefilter's ASCII view, where any other character is `?` (Read's `→` too).
KEY_BODY, DOTENV, GREP_PLACE, PGPASS, PERCENT, WRAPPED = 1, 2, 4, 8, 16, 32
_SHAPES = (
    # A run of a key's body lines (`key_body_spans`) has a first line, which ends in 56 base64 characters or
    # more and a line break (what the lines are split at, `\\n` in JSON too): cheaper to find than a line's start.
    (KEY_BODY, r"[A-Za-z0-9+/]{56}={0,2}[ \t\r]*(?:\n|\\n)"),
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
    lengths: tuple[int, ...] = ()
    """For each of the prefilter's indexes: how far before the end of what was seen its place is (a literal's
    length; a pattern's is where its last character is)."""
    identifier_lengths: tuple[int, ...] = ()


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
    words = sorted({*NAME_STEMS, *(anchor for rule in RULES for anchor in rule.anchors), *KUBERNETES_SECRET_MARKS,
                    *SEED_MARKS, *TERRAFORM_MARKS, *TRANSCRIPT_ANCHORS})
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
                     prefilter, tuple(meanings), token_prefilter, identifier_prefilter, tuple(identifier_meanings),
                     _lengths(meanings), _lengths(identifier_meanings))


def _lengths(meanings: list[tuple[int, str | int]]) -> tuple[int, ...]:
    return tuple(len(what) if isinstance(what, str) else 1 for _, what in meanings)


def sightings_of(texts: Sequence[str], identifiers: bool = False, marked: set[int] | None = None) -> dict[int, Sighting]:
    """What the prefilter sees in each of `texts`, by the text's index (only those in which it sees anything),
    from one pass over them all. `identifiers`: the texts are ids, in which only the token rules' part of the
    prefilter is looked for. `marked`: given, it gets the index of every text in which a credential file's
    mark occurs (in any case), in grep's place or not."""
    catalogue = compiled()
    seen: dict[int, Sighting] = {}
    single = len(texts) == 1
    prefilter, meanings = (catalogue.identifier_prefilter, catalogue.identifier_meanings) if identifiers else \
        (catalogue.prefilter, catalogue.meanings)
    joined = texts[0] if single else "\n".join(texts)
    hits = prefilter.scan(joined)
    foreign = [] if identifiers or joined.isascii() else foreign_occurrences(joined)
    if not hits and not foreign:
        return seen
    # Where each text ends in the texts joined by line breaks (where the line break after it is): the texts'
    # lengths added up, in C.
    ends = [len(texts[0])] if single else list(map(add, accumulate(map(len, texts)), range(len(texts))))
    lengths = catalogue.identifier_lengths if identifiers else catalogue.lengths
    for index, end in hits:
        meaning, what = meanings[index]
        start = end - lengths[index]
        owner = 0 if single else bisect_left(ends, start)
        text_start = ends[owner] - len(texts[owner])
        if meaning == _FILE_MARK:
            if marked is not None:
                marked.add(owner)
            # A line break ends the text and no match of this: the text alone answers as the texts joined.
            if _AFTER_FILE_MARK.match(texts[owner], end - text_start) is None:
                continue  # a credential file's mark, not in grep's place
        sighting = seen.get(owner)
        if sighting is None:
            sighting = seen[owner] = Sighting()
        start -= text_start
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
    for start, word in foreign:  # a secret word of another language, in a script the prefilter does not read
        owner = 0 if single else bisect_left(ends, start)
        sighting = seen.get(owner)
        if sighting is None:
            sighting = seen[owner] = Sighting()
        sighting.words.append((start - (ends[owner] - len(texts[owner])), word))
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
