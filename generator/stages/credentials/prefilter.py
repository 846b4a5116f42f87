"""Many literals found in one pass over a text: the prefilter every family of rules starts from.

Aho-Corasick (pyahocorasick, a C automaton) finds every occurrence of hundreds of literals in one scan, at
the cost of one; a regular expression alternation of them tries each literal at each position, which made
the scan for secret-like names alone cost more than all the rest of a build. Where pyahocorasick cannot be
installed (it has no wheel for Intel Macs on Python 3.12 and later, and builds from source there), the same
answers come from an alternation, slower.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

try:
    import ahocorasick
except ImportError:  # pragma: no cover - exercised by test_credentials' fallback test
    ahocorasick = None


class Anchors:
    """A fixed set of literals, and where they occur in a text."""

    def __init__(self, literals: Iterable[str], automaton: bool = True) -> None:
        self.literals = tuple(sorted(set(literals), key=lambda literal: (-len(literal), literal)))
        self._automaton: Any = None
        self._pattern: re.Pattern[str] | None = None
        self._prefixes: dict[str, list[str]] = {}
        if automaton and ahocorasick is not None and self.literals:
            self._automaton = ahocorasick.Automaton()
            for literal in self.literals:
                self._automaton.add_word(literal, (len(literal), literal))
            self._automaton.make_automaton()
        elif self.literals:
            # A look-ahead consumes nothing, so literals that overlap are all found; at one place, the longest
            # is matched, and the shorter ones that start there are its prefixes.
            self._pattern = re.compile("(?=(" + "|".join(map(re.escape, self.literals)) + "))")
            self._prefixes = {literal: [shorter for shorter in self.literals if literal.startswith(shorter)]
                              for literal in self.literals}

    def any_in(self, text: str) -> bool:
        if self._automaton is not None:
            return next(self._automaton.iter(text), None) is not None
        return self._pattern is not None and self._pattern.search(text) is not None

    def found(self, text: str) -> set[str]:
        """The literals that occur in `text`."""
        if self._automaton is not None:
            return {literal for _, (_, literal) in self._automaton.iter(text)}
        return {literal for _, literal in self.occurrences(text)}

    def occurrences(self, text: str) -> list[tuple[int, str]]:
        """Each place a literal starts, with the literal."""
        if self._automaton is not None:
            return sorted({(end - length + 1, literal) for end, (length, literal) in self._automaton.iter(text)})
        if self._pattern is None:
            return []
        return sorted({(found.start(), literal) for found in self._pattern.finditer(text)
                       for literal in self._prefixes[found.group(1)]})

    def positions(self, text: str) -> list[int]:
        """Where the literals start, in no order, a place perhaps more than once (cheaper than `starts`)."""
        if self._automaton is not None:
            return [end - length + 1 for end, (length, _) in self._automaton.iter(text)]
        return [found.start() for found in self._pattern.finditer(text)] if self._pattern is not None else []

    def starts(self, text: str) -> list[int]:
        """Where the literals start, in order (each place once)."""
        if self._automaton is not None:
            return sorted({end - length + 1 for end, (length, _) in self._automaton.iter(text)})
        return sorted({start for start, _ in self.occurrences(text)})
