"""What `read` makes of a log file's lines: entries, lines that could not be read, and diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Something wrong with the input, pinned to where it was found."""

    file: str
    """Path of the input file, as given or discovered."""
    line: int
    """1-based line number in that file (0 when the problem is the whole file)."""
    message: str
    """One sentence for a person."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One JSONL line that parsed as a JSON object."""

    file: str
    """Path of the file it came from."""
    line: int
    """1-based line number."""
    data: Mapping[str, Any]
    """The parsed object, as written by Claude Code."""


WholeLine = Callable[[], Iterator[str]]
"""A line's text, a piece at a time: for a line too long to hold in memory at once."""


@dataclass(frozen=True, slots=True)
class BrokenLine:
    """A line that could not be read as an entry. Kept so that nothing is silently dropped."""

    file: str
    """Path of the file it came from."""
    line: int
    """1-based line number."""
    text: str
    """The line as far as it could be decoded."""
    reason: str
    """Why it could not be read."""
    whole: WholeLine | None = None
    """For a line too long to be read whole: all of it, read again, of which `text` is the start."""

