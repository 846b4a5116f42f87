"""Tables and records: a column whose header is a secret word has its cells redacted.

The header is found where the prefilter saw a secret word; its line says the table's kind:

- cells between `|` (Markdown; psql's ` id | password` over `----+----`; mysql's between `+----+` borders; sqlite's
  `id|password`);
- comma- or tab-separated values with a header line (CSV, TSV);
- an aligned text table: a header of words two blanks or more apart, and rows whose cells start under them
  (`kubectl`, `docker`, sqlite's `.mode column`, most CLIs' listings).

The rows are the lines that follow, while they keep the table's shape (a border or a separator line is passed
over), whatever a tool put before each (Read's `   12→`, grep's `file:12:`). A cell is taken when it could be a
secret (`assignments.plausible_secret`): an empty cell, a placeholder, a word, a type or a reference is left.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from .assignments import plausible_secret
from .sentences import names_a_secret_column, sentence_value
from .words import word_end, word_start

_LONGEST_TABLE = 2000
"""Rows read under one header, at most."""

_DECORATION = re.compile(r"[ \t]*\d+(?:→|\t)|[^\s:|,]+:\d+[:-]|\d+[:-](?=[\S ])|[+\-> ](?=[ |+-])|\+(?=\w)")
"""What a tool puts before a line of a file: Read's and `cat -n`'s numbers, grep's `file:12:`, a diff's mark."""
_SEPARATOR_LINE = re.compile(r"[ \t]*[|+]?[ \t]*:?-{2,}:?[ \t]*(?:[|+][ \t]*:?-{2,}:?[ \t]*)*[|+]?[ \t]*")
_RULE_LINE = re.compile(r"[ \t]*(?:-{2,}[ \t]+)+-{2,}[ \t]*|[ \t]*=+[ \t]*")
_ALIGNED_GAP = re.compile(r"\S(?:[ \t]{2,}|\t)(?=\S)")


def _split(line: str, delimiter: str) -> list[tuple[int, int]]:
    """The cells of a row, as (start, end) in the line, each stripped of its blanks (a pipe table's outer pipes are
    borders, not cells)."""
    cells: list[tuple[int, int]] = []
    start = 0
    stripped = line.rstrip()
    if delimiter == "|" and stripped.lstrip().startswith("|"):
        start = line.index("|") + 1
    end_of_line = len(stripped)
    if delimiter == "|" and stripped.endswith("|"):
        end_of_line -= 1
    while start <= end_of_line:
        end = line.find(delimiter, start, end_of_line)
        if end < 0:
            end = end_of_line
        left, right = start, end
        while left < right and line[left] in " \t":
            left += 1
        while right > left and line[right - 1] in " \t":
            right -= 1
        cells.append((left, right))
        start = end + 1
    return cells


def _aligned_columns(line: str) -> list[tuple[int, int]]:
    """The header cells of an aligned table: runs of text two blanks or more apart."""
    cells, start = [], len(line) - len(line.lstrip())
    for gap in _ALIGNED_GAP.finditer(line):
        cells.append((start, gap.start() + 1))
        start = gap.end()
    cells.append((start, len(line.rstrip())))
    return cells


def _kind(header: str) -> str | None:
    if header.count("|") >= 1 and not header.strip().startswith("|") or header.count("|") >= 2:
        return "|"
    if "\t" in header.strip():
        return "\t"
    if header.count(",") >= 1 and "  " not in header.strip() and ", " not in header:
        return ","
    if _ALIGNED_GAP.search(header.strip()):
        return "aligned"
    return None


def _content(line: str) -> int:
    """Where a line's own text starts, after what a tool put before it."""
    decoration = _DECORATION.match(line)
    return decoration.end() if decoration else 0


def table_secrets(text: str, positions: Iterable[int]) -> list[tuple[int, int]]:
    """The spans of the cells under a secret-named header, for each header at `positions` (secret words)."""
    spans: list[tuple[int, int]] = []
    done_until = -1
    escaped = "\\n" in text
    for position in positions:
        if position < done_until or not _stands_alone_in_a_cell(text, position):
            continue
        offset, line_end = _line_around(text, position, escaped)
        done_until = line_end
        line = text[offset:line_end]
        skip = _content(line)
        header = line[skip:]
        kind = _kind(header)
        if kind is None:
            continue
        columns = _aligned_columns(header) if kind == "aligned" else _split(header, kind)
        if len(columns) < 2:
            continue
        above = text[_line_around(text, offset - 1, escaped)[0]:offset].rstrip("\n").removesuffix("\\n") if offset else ""
        below_end = _line_around(text, line_end + 1, escaped)[1] if line_end < len(text) else line_end
        below = text[line_end:below_end].lstrip("\n").removeprefix("\\n")
        if not _a_header(header, columns, kind, above[skip:], below[skip:]):
            continue
        secret_columns = [number for number, (start, end) in enumerate(columns)
                          if names_a_secret_column(header[start:end].strip("`*_ "))]
        if not secret_columns:
            continue
        rows = 0
        for row_offset, row in _lines_after(text, line_end):
            row_skip = _content(row) if skip else 0  # rows are decorated as their header is
            content = row[row_skip:]
            if _SEPARATOR_LINE.fullmatch(content) or _RULE_LINE.fullmatch(content):
                continue
            if not content.strip() or rows >= _LONGEST_TABLE:
                break
            if kind == "aligned":
                if not _aligned_under(content, columns):
                    break
                cells = _aligned_columns(content)
                if len(cells) != len(columns):
                    cells = _row_under(content, columns)
            else:
                if kind not in content:
                    break
                cells = _split(content, kind)
                if len(cells) != len(columns):
                    break
            rows += 1
            done_until = row_offset + len(row)
            for number in secret_columns:
                start, end = cells[number]
                value = content[start:end]
                if value and not value.startswith("[REDACTED") and value.count(" ") < 2 and (
                        plausible_secret(value.strip("`"), False, False) or sentence_value(value.strip("`"))):
                    spans.append((row_offset + row_skip + start, row_offset + row_skip + end))
    return spans


_LINE_BREAK = re.compile(r"\r?\n|\\n")
_CELL_BEFORE = re.compile(r"(?:^|[|\t,\n>]|\\n|  )[ \t`*_]*(?:[A-Za-z]+[ _\-])?\Z")
_CELL_AFTER = re.compile(r"[`*_]*(?:[ _\-][A-Za-z]+)?[ \t`*_]*(?:$|[|\t,\r\n]|\\n|  )")


def _stands_alone_in_a_cell(text: str, position: int) -> bool:
    """Whether the secret word at `position` is a cell of its own, as a header's column name is (the cheap test
    before any line is read): a delimiter, a line's start or two blanks before it, and after it."""
    start, end = word_start(text, position, 40), word_end(text, position)
    return _CELL_BEFORE.search(text, max(0, start - 24), start) is not None and \
        _CELL_AFTER.match(text, end, min(len(text), end + 24)) is not None


_LONGEST_LINE = 2048
"""A line longer than this is no table's header: it is read this far either side of the word, at most."""


def _line_around(text: str, position: int, escaped_breaks: bool = True) -> tuple[int, int]:
    """Where the line that holds `position` starts and ends (a line break is `\\n` in JSON too, where
    `escaped_breaks`), at most `_LONGEST_LINE` characters either side."""
    position = max(0, min(position, len(text)))
    low, high = max(0, position - _LONGEST_LINE), min(len(text), position + _LONGEST_LINE)
    line_break = text.rfind("\n", low, position)
    escaped = text.rfind("\\n", max(low, line_break), position) if escaped_breaks else -1
    start = max(line_break + 1 if line_break >= 0 else low, escaped + 2 if escaped >= 0 else low)
    line_end = text.find("\n", position, high)
    escaped_end = text.find("\\n", position, line_end if line_end >= 0 else high) if escaped_breaks else -1
    ends = [found for found in (line_end, escaped_end) if found >= 0]
    end = min(ends) if ends else high
    return start, (end - 1 if end > start and text[end - 1] == "\r" else end)


def _lines_after(text: str, end: int) -> Iterator[tuple[int, str]]:
    """The lines after the one that ends at `end`: (offset, line), one at a time."""
    found = _LINE_BREAK.match(text, end)
    while found is not None:
        start = found.end()
        following = _LINE_BREAK.search(text, start)
        stop = following.start() if following else len(text)
        yield start, text[start:stop]
        found = following


_COLUMN_NAME = re.compile(r"[`*_]*[\w][\w .\-()#/]{0,40}[`*_]*")
_SINGLE_NAME = re.compile(r"[\w][\w.\-#]{0,40}")


def _a_header(header: str, columns: list[tuple[int, int]], kind: str, above: str, below: str) -> bool:
    """Whether a line is a table's header: a Markdown or psql header has its separator line under it, a mysql one its
    border above it; one without (sqlite's, CSV, TSV, an aligned listing) is column names alone."""
    names = [header[start:end] for start, end in columns]
    if kind == "|" and (_SEPARATOR_LINE.fullmatch(below) or _SEPARATOR_LINE.fullmatch(above) and "+" in above):
        return all(_COLUMN_NAME.fullmatch(name) for name in names if name)
    return all(_SINGLE_NAME.fullmatch(name) for name in names)


def _aligned_under(row: str, columns: list[tuple[int, int]]) -> bool:
    """Whether a row's cells start under the header's columns (a blank before each, text at its start), or it has
    as many cells two blanks apart as the header has columns (a long value pushes the cells after it right)."""
    if all(start < len(row) and row[start] not in " \t" and row[start - 1] in " \t" for start, _ in columns[1:]):
        return True
    return len(_aligned_columns(row)) == len(columns)


def _row_under(row: str, columns: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """An aligned table's row, cut where the header's columns start: a cell is the word that starts under its
    column (it may run past the next column's start, as a long value does); the last column's runs to the end."""
    cells = []
    for number, (start, _) in enumerate(columns):
        left = min(start, len(row))
        while left < len(row) and row[left] in " \t":
            left += 1
        right = len(row.rstrip()) if number + 1 == len(columns) else left
        while right < len(row) and row[right] not in " \t":
            right += 1
        cells.append((left, max(left, right)))
    return cells
