"""Many literals and a few patterns found in one pass over a text: the prefilter every family of rules starts
from.

Hyperscan (Intel's multi-pattern matcher, a compiled automaton run with SIMD) finds every occurrence of
hundreds of literals and patterns in one scan at several hundred megabytes a second; a Python alternation of
them tries each at each position, and a Python loop over an Aho-Corasick automaton's hits still costs tens of
nanoseconds a character. Where hyperscan cannot be installed (no wheel for the platform) the same answers
come from regular expressions, slower: `tests/test_credentials.py` checks that the two agree.

Both engines scan the text's ASCII view (`ascii_view`): each character that is not ASCII is seen as `?`, so
that a position in the bytes hyperscan scans is the position in the text. The literals are ASCII; a pattern is
written for the view (Read's `→` is a `?` there).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

from ...core.errors import SessionsiteError
from ...core.files import write_atomically
from ...core.places import private_cache_folder

hyperscan: Any
try:
    import hyperscan
except ImportError:  # pragma: no cover - exercised by test_credentials' fallback test
    hyperscan = None


def ascii_view(text: str) -> str:
    """`text` with every character that is not ASCII (a lone surrogate too) replaced by `?`: as long as the text,
    character for character."""
    return text if text.isascii() else text.encode("ascii", "replace").decode("ascii")


class Prefilter:
    """Fixed literals (case-sensitive, or ASCII-caseless) and patterns (multi-line), and where each occurs in a
    text: `scan` gives (index, end) for every occurrence, the index counting the literals, then the caseless
    literals, then the patterns, in the order given; `end` is where the occurrence ends (a literal's start is
    its end less its length). A pattern's occurrences are reported at every place one can end."""

    def __init__(self, literals: Sequence[str], caseless: Sequence[str] = (), patterns: Sequence[str] = (),
                 compiled_engine: bool = True) -> None:
        self.literals = (*literals, *caseless)
        self.patterns = tuple(patterns)
        self._given = (tuple(literals), tuple(caseless), self.patterns)
        if not all(literal.isascii() and literal for literal in self.literals):
            raise ValueError("the prefilter's literals are ASCII, and not empty")
        self._database: Any = None
        self._fallback: list[tuple[re.Pattern[str], bool, dict[str, list[tuple[int, int]]]]] = []
        self._patterns: list[tuple[int, re.Pattern[str]]] = []
        if compiled_engine and hyperscan is not None and (self.literals or self.patterns):
            expressions = [re.escape(literal).encode() for literal in self.literals]
            expressions += [pattern.encode() for pattern in self.patterns]
            flags = [0] * len(literals) + [hyperscan.HS_FLAG_CASELESS] * len(caseless)
            flags += [hyperscan.HS_FLAG_MULTILINE] * len(self.patterns)
            self._database = _database(expressions, flags)
            # The scan releases the GIL and the database holds one scratch space: one thread at a time.
            self._lock = threading.Lock()
            return
        # A look-ahead consumes nothing, so literals that overlap are all found; at one place the longest is
        # matched, and the shorter ones that start there are its prefixes.
        for first, group, options in ((0, literals, 0), (len(literals), caseless, re.IGNORECASE | re.ASCII)):
            if not group:
                continue
            alternation = re.compile("(?=(" + "|".join(map(re.escape, _longest_first(group))) + "))", options)
            folded = [literal.lower() if options else literal for literal in group]
            prefixes = {literal: [(first + index, len(shorter)) for index, shorter in enumerate(folded)
                                  if literal.startswith(shorter)] for literal in folded}
            self._fallback.append((alternation, bool(options), prefixes))
        self._patterns = [(len(self.literals) + index, re.compile(pattern, re.MULTILINE))
                          for index, pattern in enumerate(self.patterns)]

    @property
    def compiled(self) -> bool:
        """Whether hyperscan does the scan."""
        return self._database is not None

    def by_regular_expressions(self) -> Prefilter:
        """The same prefilter, made of regular expressions (as where hyperscan cannot be installed)."""
        return Prefilter(*self._given, compiled_engine=False)

    def scan(self, text: str) -> list[tuple[int, int]]:
        if self._database is not None:
            return self._scan_compiled(text)
        text = ascii_view(text)
        found: list[tuple[int, int]] = []
        for alternation, folds, prefixes in self._fallback:
            for match in alternation.finditer(text):
                start, longest = match.start(), match.group(1)
                found += [(index, start + length) for index, length in prefixes[longest.lower() if folds else longest]]
        for index, pattern in self._patterns:
            position = 0
            while (occurrence := pattern.search(text, position)) is not None:
                found.append((index, occurrence.end()))
                position = occurrence.start() + 1
        return found

    def any_in(self, text: str) -> bool:
        """Whether anything occurs in `text` (the scan stops at the first occurrence)."""
        if self._database is None:
            return bool(self.scan(text))

        def stop(index: int, start: int, end: int, flags: int, context: Any) -> bool:
            return True

        try:
            with self._lock:
                self._database.scan(text.encode("ascii", "replace"), match_event_handler=stop)
        except hyperscan.ScanTerminated:
            return True
        return False

    def _scan_compiled(self, text: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        append = found.append

        def seen(index: int, start: int, end: int, flags: int, context: Any) -> None:
            append((index, end))

        data = text.encode("ascii", "replace")  # the ASCII view: a byte for each character
        with self._lock:
            self._database.scan(data, match_event_handler=seen)
        return found


def _database(expressions: list[bytes], flags: list[int]) -> Any:
    """The hyperscan database of `expressions`, compiled once and then kept in the user's private cache folder:
    compiling it costs about a tenth of a second in every process a build starts. A kept database is used
    only if its bytes are the ones written (a digest heads them) and hyperscan takes them; otherwise, or
    where nothing can be kept, it is compiled again."""
    recipe = repr((getattr(hyperscan, "__version__", ""), expressions, flags)).encode()
    path: Path | None = None
    try:
        path = private_cache_folder("prefilter") / f"{hashlib.sha256(recipe).hexdigest()[:40]}.hs"
        kept = path.read_bytes()
        digest, body = kept[:32], kept[32:]
        if hashlib.sha256(body).digest() == digest:
            database = hyperscan.loadb(body, hyperscan.HS_MODE_BLOCK)
            database.scratch = hyperscan.Scratch(database)
            return database
    except (OSError, SessionsiteError, hyperscan.error):
        pass  # nothing kept yet, a damaged or foreign copy, a cache folder that is not the user's alone
    database = hyperscan.Database()
    database.compile(expressions=expressions, ids=list(range(len(expressions))), flags=flags)
    if path is not None:
        body = hyperscan.dumpb(database)
        kept = hashlib.sha256(body).digest() + body
        with contextlib.suppress(OSError):  # nothing kept: the next process compiles it again
            write_atomically(path, lambda handle: handle.write(kept), sync=False)
    return database


def _longest_first(literals: Iterable[str]) -> list[str]:
    return sorted(set(literals), key=lambda literal: (-len(literal), literal))


class Anchors:
    """A fixed set of literals, and where they occur in a text."""

    def __init__(self, literals: Iterable[str], caseless: bool = False, compiled_engine: bool = True) -> None:
        self.literals = tuple(_longest_first(literals))
        self._prefilter = Prefilter((), self.literals, (), compiled_engine) if caseless else \
            Prefilter(self.literals, (), (), compiled_engine)

    def any_in(self, text: str) -> bool:
        return self._prefilter.any_in(text)

    def occurrences(self, text: str) -> list[tuple[int, str]]:
        """Each place a literal starts, with the literal (as the list gives it, whatever the text's case)."""
        literals = self.literals
        return sorted({(end - len(literals[index]), literals[index]) for index, end in self._prefilter.scan(text)})

    def found(self, text: str) -> set[str]:
        """The literals that occur in `text`."""
        literals = self.literals
        return {literals[index] for index, _ in self._prefilter.scan(text)}

    def starts(self, text: str) -> list[int]:
        """Where the literals start, in order (each place once)."""
        literals = self.literals
        return sorted({end - len(literals[index]) for index, end in self._prefilter.scan(text)})
