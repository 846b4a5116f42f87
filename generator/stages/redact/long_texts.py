"""Redacting a text too long to hold at once (a line too long to read whole) a window at a time, as the
whole would be redacted: a part of the `Redactor`."""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ...core.model import BrokenLine, Entry

if TYPE_CHECKING:
    from ..credentials.scan import Sighting

REDACTION_WINDOW = 1 << 20
"""A text too long to hold at once (a line too long to read whole) is redacted this many characters at a
time…"""
REDACTION_MARGIN = 64 << 10
"""…cut where the text this far either side of the cut redacts alike whole and in two."""
_JSON_BREAK = "\\\n"
"""A backslash and a line break, which no line of JSON holds: what `\\n` in one is read as while redacting."""


class LongTextRedaction:
    """The `Redactor`'s items and long texts, each redacted as `text` redacts a string."""

    _line = 0
    """The line of the entry (or unreadable line) being redacted, which `record` is told."""

    @contextmanager
    def _at(self, line: int) -> Iterator[None]:
        self._line = line
        try:
            yield
        finally:
            self._line = 0

    if TYPE_CHECKING:  # what it uses of the `Redactor`, which defines them
        counts: Counter[str]
        record: Callable[[str, str, int], None] | None

        @property
        def active(self) -> bool: ...

        def entry(self, entry: Entry) -> Entry: ...

        def text(self, value: str, tokens: bool = True, context: bool = True, home: bool = True, own: bool = True,
                 credential_file: bool = False, identifier: bool = False, seen: Sighting | None = None) -> str: ...

    def item(self, item: Entry | BrokenLine) -> Entry | BrokenLine:
        """An entry, or the text of an unreadable line, which is shown too (and all of a line too long to
        read whole, as it is copied)."""
        if not self.active:
            return item
        if isinstance(item, Entry):
            return self.entry(item)
        whole = item.whole
        with self._at(item.line):
            text = self.text(item.text)
        return replace(item, text=text,
                       whole=None if whole is None else lambda: self.text_in_pieces(whole(), json_text=True))

    def text_in_pieces(self, pieces: Iterable[str], json_text: bool = False) -> Iterator[str]:
        """A text too long to hold at once, redacted a window at a time, as `text` would redact it whole:
        a window ends where redacting the text around the cut in one go and in two parts comes out the
        same, so that no secret is cut in two. `json_text`: the text is a line of JSON, where a line
        break in a string is written `\\n`; the rules that go by line (`NAME=value` on a line of its
        own) see one there, as they do in the string read."""
        pending, held = "", ""
        for piece in pieces:
            if json_text:  # a backslash and a real line break, which a line of JSON cannot hold, stand for `\n`
                piece = held + piece
                held = "\\" if piece.endswith("\\") else ""
                piece = piece[:len(piece) - len(held)].replace("\\n", _JSON_BREAK)
            pending += piece
            while len(pending) >= REDACTION_WINDOW + REDACTION_MARGIN:
                cut = self._safe_cut(pending, REDACTION_WINDOW)
                if pending[cut - 1:cut + 1] == _JSON_BREAK:
                    cut -= 1
                yield self._text_of_json(pending[:cut]) if json_text else self.text(pending[:cut])
                pending = pending[cut:]
        pending += held
        if pending:
            yield self._text_of_json(pending) if json_text else self.text(pending)

    def _text_of_json(self, text: str) -> str:
        # A rule may take the backslash with the value before it: the break left alone is one still.
        return self.text(text).replace(_JSON_BREAK, "\\n").replace("\n", "\\n")

    def _safe_cut(self, text: str, near: int) -> int:
        """A place at or before `near` where no rule matches across: the first of a few tried, else `near`
        (only a match longer than the margin, which no secret is, spans them all)."""
        counts, record = self.counts, self.record
        self.counts, self.record = Counter(), None  # trying is not redacting
        try:
            for cut in range(near, near - REDACTION_MARGIN // 2, -REDACTION_MARGIN // 32):
                left, right = text[cut - REDACTION_MARGIN:cut], text[cut:cut + REDACTION_MARGIN]
                if self.text(left + right) == self.text(left) + self.text(right):
                    return cut
            return near
        finally:
            self.counts, self.record = counts, record
