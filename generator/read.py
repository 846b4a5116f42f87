"""Stage 2, read: stream a JSONL file line by line into entries.

A line that cannot be read (broken JSON, a truncated last line, bad UTF-8, not a JSON object) becomes a
diagnostic with its file and line, and a `BrokenLine` that is shown in the page where it was, so that
nothing is silently dropped and everything around it still renders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Union

from .model import BrokenLine, Diagnostic, Entry

ReadItem = Union[Entry, BrokenLine]


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Everything read from one file."""

    items: tuple[ReadItem, ...]
    """Entries and broken lines, in file order."""
    diagnostics: tuple[Diagnostic, ...]
    """One per problem found."""


def read_file(path: Path) -> ReadResult:
    items: list[ReadItem] = []
    diagnostics: list[Diagnostic] = []
    name = str(path)
    try:
        handle = path.open("rb")
    except OSError as error:
        return ReadResult((), (Diagnostic(name, 0, f"cannot open: {error.strerror or error}"),))
    with handle:
        for number, raw in enumerate(handle, start=1):
            for item, problem in _read_line(name, number, raw):
                if item is not None:
                    items.append(item)
                if problem is not None:
                    diagnostics.append(problem)
    return ReadResult(tuple(items), tuple(diagnostics))


def _read_line(name: str, number: int, raw: bytes) -> Iterator[tuple[ReadItem | None, Diagnostic | None]]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        text = raw.decode("utf-8", errors="replace")
        yield None, Diagnostic(name, number, f"invalid UTF-8 at byte {error.start}; undecodable bytes shown as \ufffd")
    stripped = text.strip()
    if not stripped:
        return
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as error:
        truncated = not raw.endswith(b"\n")
        reason = "truncated line (the file ends mid-entry)" if truncated and error.pos >= len(stripped) - 1 else (
            f"not valid JSON: {error.msg} at column {error.colno}"
        )
        yield BrokenLine(name, number, stripped, reason), Diagnostic(name, number, reason)
        return
    except RecursionError:
        reason = "JSON nested too deeply to read"
        yield BrokenLine(name, number, stripped, reason), Diagnostic(name, number, reason)
        return
    if not isinstance(data, dict):
        reason = f"expected a JSON object, found {_json_kind(data)}"
        yield BrokenLine(name, number, stripped, reason), Diagnostic(name, number, reason)
        return
    yield Entry(name, number, data), None


def _json_kind(value: object) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), "null"
    )
