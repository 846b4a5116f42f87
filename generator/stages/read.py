"""Stage 2, read: stream a JSONL file line by line into entries.

A line that cannot be read (broken JSON, a truncated last line, bad UTF-8, not a JSON object) becomes a
diagnostic with its file and line, and a `BrokenLine` that is shown in the page where it was, so that
nothing is silently dropped and everything around it still renders.

A line longer than `LINE_LIMIT` is not read whole, whatever it holds: parsing it would take several times
its size in memory (a gigabyte-long line, seven gigabytes). It becomes a `BrokenLine` holding its start,
and a way to read all of it again from the file a piece at a time (`LineInFile`), which phase 2 copies into
a text file beside the page.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re

import orjson
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Union

from ..core.model import BrokenLine, Diagnostic, Entry

ReadItem = Union[Entry, BrokenLine]


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Everything read from one file."""

    items: tuple[ReadItem, ...]
    """Entries and broken lines, in file order."""
    diagnostics: tuple[Diagnostic, ...]
    """One per problem found."""


# orjson is twice as fast as the json module, but its peak memory is larger (measured with tracemalloc: 14
# times the line's size for a line holding a pasted image, 21 times for one of many small objects; the json
# module 4 and 10 times, its text included). Past this, a line is read by the json module: the most a line
# takes to read stays what one at `LINE_LIMIT` takes through the json module (a 4 MB line through orjson,
# some 85 MB at most; a 16 MB one through json, up to 165 MB), and a pasted screenshot (1 to 3 MB in the
# scaled corpus) is read by orjson.
ORJSON_LINE_LIMIT = 4 << 20
# Reading a line takes about five times its size, rendering it as much again (measured: a 20 MB tool output
# peaks a build at 245 MB): past this, a line is shown in part and copied whole, never parsed. Pasted
# screenshots and tool outputs stay far below it.
LINE_LIMIT = 16 << 20
LINE_PREVIEW = 64 << 10
"""Bytes of an over-long line kept to show on its page."""
_PIECE = 1 << 20


@dataclass(frozen=True, slots=True)
class LineInFile:
    """Where a line too long to read whole is in its file: called, it gives the line's text again, a
    piece of about a megabyte at a time, decoded as the file is (bad bytes as U+FFFD)."""

    path: str
    start: int
    """Byte offset of the line (after a byte-order mark)."""
    size: int
    """Its bytes, without the line ending."""
    codec: str
    identity: tuple[int, int]
    """The file's device and inode when it was read: a file replaced since is not taken for it."""

    def __call__(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder(self.codec)(errors="replace")
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 - closed below, also when the reader stops early
        except OSError as error:
            yield f"\n[sessionsite: {self.path} could not be opened again to copy this line: {error.strerror or error}]\n"
            return
        with handle:
            info = os.fstat(handle.fileno())
            if (info.st_dev, info.st_ino) != self.identity:
                yield f"\n[sessionsite: {self.path} was replaced since it was read: this line is not copied]\n"
                return
            handle.seek(self.start)
            left = self.size
            while left > 0:
                block = handle.read(min(_PIECE, left))
                if not block:
                    yield decoder.decode(b"", final=True)
                    yield f"\n[sessionsite: {self.path} is shorter than when it was read: the line ends here]\n"
                    return
                left -= len(block)
                yield decoder.decode(block)
            yield decoder.decode(b"", final=True)


@dataclass(frozen=True, slots=True)
class _LongLine:
    """What the line splitter hands on for a line over `LINE_LIMIT`: its start and where all of it is."""

    preview: bytes
    whole: LineInFile
    ended: bool
    """Whether a line ending closed it (else the file ended in it)."""


def read_file(path: Path) -> ReadResult:
    """A whole file at once: for tests and small uses. The build streams (`stream_file`)."""
    diagnostics: list[Diagnostic] = []
    items = tuple(stream_file(path, diagnostics))
    return ReadResult(items, tuple(diagnostics))


def stream_file(path: Path, diagnostics: list[Diagnostic], hasher: Any = None) -> Iterator[ReadItem]:
    """Entries and broken lines one at a time, so that a file of any size is read in the memory of its
    longest line. Problems are appended to `diagnostics` as they are found; `hasher` (a hashlib object),
    if given, sees every byte read."""
    for item, _ in _items_and_sizes(path, diagnostics, hasher):
        yield item


BATCH_LINES = 256
BATCH_BYTES = 2 << 20


def stream_file_in_batches(path: Path, diagnostics: list[Diagnostic], hasher: Any = None) -> Iterator[list[ReadItem]]:
    """As `stream_file`, a few hundred lines at a time (at most `BATCH_LINES`, and no more once they hold
    `BATCH_BYTES`: a batch is at most that and one line): the next stage runs over a batch while its code and
    tables are still in the processor's caches (measured on the scaled corpus: redaction's part of a cold build
    a sixth smaller than with entries handed on one at a time, and the build's other stages a little faster)."""
    batch: list[ReadItem] = []
    size = 0
    for item, item_size in _items_and_sizes(path, diagnostics, hasher):
        batch.append(item)
        size += item_size
        if len(batch) >= BATCH_LINES or size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _items_and_sizes(path: Path, diagnostics: list[Diagnostic], hasher: Any) -> Iterator[tuple[ReadItem, int]]:
    """Each item read, with the bytes of its line it was read from (0 for a JSON array's items)."""
    if path.suffix == ".json":
        too_long = _json_array_too_long(path, hasher, diagnostics)
        if too_long is not None:
            yield too_long, 0
            return
        result = _read_json_array(path, hasher)
        diagnostics.extend(result.diagnostics)
        for array_item in result.items:
            yield array_item, 0
        return
    name = str(path)
    try:
        handle = path.open("rb")
    except OSError as error:
        diagnostics.append(Diagnostic(name, 0, f"cannot open: {error.strerror or error}"))
        return
    with handle:
        encoding = _utf16_encoding(handle.peek(6)[:6])
        if encoding:
            diagnostics.append(Diagnostic(name, 0, "written in UTF-16, not UTF-8 as Claude Code writes: read as "
                                                   "UTF-16"))
            for number, raw in enumerate(_utf16_lines(handle, hasher, encoding, name), start=1):
                yield from _items_of_line(name, number, raw, diagnostics)
            return
        # A UTF-8 log, as Claude Code writes them: its lines split here, and the usual line (a JSON object that
        # orjson reads) made an entry without the generators and checks of the careful path (`_read_line`).
        lines = _ByteLines(handle, hasher)
        readline, loads, decode_error = lines.readline, orjson.loads, orjson.JSONDecodeError
        offset = number = 0
        while raw := readline(LINE_LIMIT + 1):
            number += 1
            size = len(raw)
            if size > LINE_LIMIT and not raw.endswith((b"\n", b"\r")):
                long_line, size = _rest_of_long_line(lines, raw, offset, "utf-8", _identity_of(handle), name, 1)
                offset += size
                yield from _items_of_line(name, number, long_line, diagnostics)
                continue
            offset += size
            if size <= ORJSON_LINE_LIMIT and not (number == 1 and raw.startswith(b"\xef\xbb\xbf")):
                try:
                    data = loads(raw)
                except decode_error:
                    data = None
                if type(data) is dict:
                    if data:  # `{}` holds nothing to show: padding, as a blank line is
                        yield Entry(name, number, data), size
                    continue
            yield from _items_of_line(name, number, raw, diagnostics)


def _items_of_line(name: str, number: int, raw: bytes | _LongLine, diagnostics: list[Diagnostic]
                   ) -> Iterator[tuple[ReadItem, int]]:
    """What one line holds, read with care (each problem said), with the bytes it was read from."""
    if isinstance(raw, _LongLine):
        yield _long_line(name, number, raw, diagnostics), len(raw.preview)
        return
    for item, problem in _read_line(name, number, raw):
        if problem is not None:
            diagnostics.append(problem)
        if item is not None:
            yield item, len(raw)


def _identity_of(handle: io.BufferedReader) -> tuple[int, int]:
    """The device and inode of an open file: a file replaced since it was read is not taken for it."""
    info = os.fstat(handle.fileno())
    return info.st_dev, info.st_ino


def _utf16_lines(handle: io.BufferedReader, hasher: Any, utf16: str, path: str) -> Iterator[bytes | _LongLine]:
    """The lines of a file written in UTF-16 (`utf16` names its codec), decoded as such and handed on in
    UTF-8, each with its ending (`\n`, `\r\n` or a lone `\r`, as `_ByteLines` ends them). A line over
    `LINE_LIMIT` is read past a piece at a time, and handed on as a `_LongLine`."""
    identity = _identity_of(handle)
    buffered = io.BufferedReader(_Hashing(handle, hasher), 1 << 16)
    # An odd last byte or a lone surrogate shows as U+FFFD; the reader then reports the line.
    start = handle.peek(2)[:2]
    big_endian = utf16 == "utf-16-be" or start == b"\xfe\xff"
    codec = "utf-16-be" if big_endian else "utf-16-le"
    offset = 2 if utf16 == "utf-16" else 0  # the byte-order mark, which the codec drops
    wide = io.TextIOWrapper(buffered, encoding=utf16, errors="replace", newline="")
    while line := wide.readline(LINE_LIMIT // 2 + 1):
        if len(line) > LINE_LIMIT // 2 and not line.endswith(("\n", "\r")):
            long_line, size = _rest_of_long_line(wide, line, offset, codec, identity, path, 2)
            offset += size
            yield long_line
            continue
        offset += len(line.encode(codec, "surrogatepass"))
        yield line.encode("utf-8", "replace")


class _ByteLines:
    """A file's lines as bytes, each with its ending (`\n`, `\r\n` or a lone `\r`), read in pieces of at
    most `limit` bytes as `io.TextIOWrapper(newline="").readline(limit)` reads them, without decoding: a
    UTF-8 line is handed on as the bytes it is. A raw `\r` cannot be inside a JSON line, since JSON strings
    escape it; some editors and old Mac tools end lines with it alone, which a split on `\n` would read as
    one line, so a line is cut at a lone `\r` when one is there. The file is read a block at a time (each
    block also goes to `hasher`, when there is one), and lines are cut out of the block."""

    BLOCK = 1 << 18

    def __init__(self, handle: Any, hasher: Any = None, block: int = BLOCK):
        self.handle = handle
        self.hasher = hasher
        self.block = block
        self.buffer = b""
        self.position = 0
        """Where the next line starts in `buffer`."""

    def readline(self, limit: int) -> bytes:
        buffer, start = self.buffer, self.position
        end = buffer.find(b"\n", start, start + limit)
        if end >= 0:
            end += 1
        elif len(buffer) - start >= limit:
            end = start + limit
        if end >= 0:
            self.position = end
            line = buffer[start:end]
            in_buffer = end - start
        else:
            line, in_buffer = self._across_blocks(buffer[start:], limit)
        if b"\r" not in line:
            return line
        cut = line.find(b"\r")
        if cut == len(line) - 1 or line[cut + 1:cut + 2] == b"\n":
            # `\r\n` ends the line (the `\n` ended it); a `\r` last ends the piece, as a text reader ends
            # it (a `\n` after it, past `limit`, is a piece of its own).
            return line
        rest = len(line) - cut - 1
        if rest <= in_buffer:
            self.position -= rest
        else:  # the lone `\r` was in an earlier block: what follows it is read again
            self.buffer, self.position = line[cut + 1:] + self.buffer[self.position:], 0
        return line[:cut + 1]

    def _across_blocks(self, start: bytes, limit: int) -> tuple[bytes, int]:
        """A line (or a piece of `limit` bytes) that starts with `start`, the rest of the buffer, and goes on
        in the next blocks; with how many of its bytes are in the last block read, which is then the buffer."""
        pieces, size = [start], len(start)
        while True:
            block = self.handle.read(self.block)
            if not block:
                self.buffer, self.position = b"", 0
                return b"".join(pieces), 0
            if self.hasher is not None:
                self.hasher.update(block)
            end = block.find(b"\n", 0, limit - size)
            if end >= 0:
                taken = end + 1
            elif size + len(block) >= limit:
                taken = limit - size
            else:
                pieces.append(block)
                size += len(block)
                continue
            pieces.append(block[:taken])
            self.buffer, self.position = block, taken
            return b"".join(pieces), taken


def _rest_of_long_line(text: io.TextIOWrapper | _ByteLines, start: str | bytes, offset: int, codec: str,
                       identity: tuple[int, int], path: str, width: int) -> tuple[_LongLine, int]:
    """Reads past the rest of a line whose first `start` characters (bytes, of a UTF-8 file) are read, a
    piece at a time; returns it as a `_LongLine` and the bytes it took in the file. `width`: bytes per
    character (1 for bytes, 2 for UTF-16, where a pair of surrogates is decoded as one character)."""
    def size_of(piece: str | bytes) -> int:
        return len(piece) if isinstance(piece, bytes) else len(piece.encode(codec, "surrogatepass"))

    def stripped(piece: str | bytes) -> str | bytes:
        return piece.rstrip(b"\r\n") if isinstance(piece, bytes) else piece.rstrip("\r\n")

    preview = start[:LINE_PREVIEW // width]
    preview_bytes = preview if isinstance(preview, bytes) else preview.encode("utf-8", "replace")
    skip = 3 if offset == 0 and preview_bytes.startswith(b"\xef\xbb\xbf") else 0  # a UTF-8 byte-order mark
    size, ending = size_of(start), 0
    while piece := text.readline(_PIECE):
        size += size_of(piece)
        if piece.endswith(b"\n") or piece.endswith(b"\r") if isinstance(piece, bytes) else piece.endswith(("\n", "\r")):
            ending = size_of(piece) - size_of(stripped(piece))
            break
    whole = LineInFile(path, offset + skip, size - ending - skip, codec, identity)
    return _LongLine(preview_bytes[skip:], whole, ended=ending > 0), size


def _utf16_encoding(start: bytes) -> str:
    """The codec of a file written in UTF-16 (by a Windows editor or PowerShell's `>`), from its first six
    bytes: a JSON object's brace and the character after it, each beside its NUL, perhaps after a
    byte-order mark; else "". Fewer bytes are not enough: FF FE or NUL `{` can be the start of a damaged
    line of a UTF-8 log, which is then reported, not read away as UTF-16."""
    def ascii_pair(pair: bytes, big_endian: bool) -> bool:
        char, nul = (pair[1:2], pair[0:1]) if big_endian else (pair[0:1], pair[1:2])
        return len(pair) == 2 and nul == b"\x00" and char not in (b"", b"\x00")

    for mark, codec, big_endian in ((b"\xff\xfe", "utf-16", False), (b"\xfe\xff", "utf-16", True),
                                    (b"", "utf-16-le", False), (b"", "utf-16-be", True)):
        body = start[len(mark):]
        brace = b"\x00{" if big_endian else b"{\x00"
        if start.startswith(mark) and body[:2] == brace and ascii_pair(body[2:4], big_endian):
            return codec  # a mark says which order, and is dropped
    return ""


class _Hashing(io.RawIOBase):
    """A file whose bytes, as they are read, also go to `hasher` (when there is one)."""

    def __init__(self, handle: io.BufferedReader, hasher: Any):
        self.handle = handle
        self.hasher = hasher

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self.handle.readinto(buffer)
        if count and self.hasher is not None:
            self.hasher.update(memoryview(buffer)[:count])
        return count


def _long_line(name: str, number: int, line: _LongLine, diagnostics: list[Diagnostic]) -> BrokenLine:
    size = line.whole.size
    ending = "" if line.ended else ", and the file ends in it (a write cut off, or one still going on)"
    reason = (f"a line of {size / (1 << 20):,.1f} MB, longer than the {LINE_LIMIT >> 20} MB read whole{ending}: "
              f"not read; its start is shown, and all of it is in a text file beside the page")
    diagnostics.append(Diagnostic(name, number, reason))
    preview = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(line.preview)  # a cut character waits
    return BrokenLine(name, number, preview, reason, whole=line.whole)


def _read_line(name: str, number: int, raw: bytes) -> Iterator[tuple[ReadItem | None, Diagnostic | None]]:
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # a byte-order mark some editors add when a log is saved again
    if len(raw) <= ORJSON_LINE_LIMIT:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # the careful path below says what is wrong, in the words of Python's own parser
        else:
            # orjson refuses lone surrogates, NaN and integers past 64 bits: what it returns needs no repair.
            if isinstance(data, dict):
                if data:  # `{}` holds nothing to show: padding, as a blank line is
                    yield Entry(name, number, data), None
                return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        text = raw.decode("utf-8", errors="replace")
        yield None, Diagnostic(name, number, f"invalid UTF-8 at byte {error.start}; undecodable bytes shown as \ufffd")
    if len(raw) > ORJSON_LINE_LIMIT:
        # A long line that reads as an object (a pasted image: megabytes of base64) is not first copied
        # without its blanks.
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None  # the careful path below says what is wrong
        if isinstance(data, dict):
            if _LONE_SURROGATE.search(text):
                data = _without_lone_surrogates(data)
            if data:
                yield Entry(name, number, data), None
            return
    stripped = text.strip()
    if not stripped:
        return
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":
            yield from _several_on_one_line(name, number, stripped, raw, error)
            return
        # Only the last line of a file can lack its newline: a write that was cut off.
        where = f"{error.msg} (column {error.colno})"
        reason = f"truncated last line: {where}" if not raw.endswith((b"\n", b"\r")) else f"not valid JSON: {where}"
        yield BrokenLine(name, number, stripped, reason), Diagnostic(name, number, reason)
        return
    except RecursionError:
        reason = "JSON nested too deeply to read"
        yield BrokenLine(name, number, stripped, reason), Diagnostic(name, number, reason)
        return
    except ValueError as error:  # valid syntax Python will not hold, such as an integer of 5,000 digits
        reason = f"not readable as JSON: {error}"
        yield BrokenLine(name, number, stripped[:2000], reason), Diagnostic(name, number, reason)
        return
    if _LONE_SURROGATE.search(stripped):
        data = _without_lone_surrogates(data)
    if not isinstance(data, dict):
        reason = f"expected a JSON object, found {_json_kind(data)}"
        yield BrokenLine(name, number, stripped, reason), Diagnostic(name, number, reason)
        return
    if data:
        yield Entry(name, number, data), None


def _several_on_one_line(name: str, number: int, text: str, raw: bytes,
                         first_error: json.JSONDecodeError) -> Iterator[tuple[ReadItem | None, Diagnostic | None]]:
    """A line holding entries one after the other with no newline between them (two writes that raced,
    seen in real files): each entry is read, and what cannot be is shown as the rest of the line. Only a
    line that fails to parse whole comes here, so the usual line pays nothing for it."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    position, rest_reason = 0, ""
    while position < len(text):
        try:
            value, end = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError, ValueError) as error:
            rest_reason = str(getattr(error, "msg", error))
            break
        if not isinstance(value, dict):
            rest_reason = f"expected a JSON object, found {_json_kind(value)}"
            break
        found.append(value)
        position = end
        while position < len(text) and text[position] in " \t":
            position += 1
        if position < len(text) and text[position] != "{":
            # Not another entry after this one: the line is damaged, not two writes run together.
            found = []
            break
    if not found:
        where = f"{first_error.msg} (column {first_error.colno})"
        reason = f"truncated last line: {where}" if not raw.endswith((b"\n", b"\r")) else f"not valid JSON: {where}"
        yield BrokenLine(name, number, text, reason), Diagnostic(name, number, reason)
        return
    yield None, Diagnostic(name, number, f"{len(found) + (1 if rest_reason else 0)} JSON values on one line, with no "
                                         f"line break between them: each read on its own")
    lone_surrogates = _LONE_SURROGATE.search(text) is not None
    for value in found:
        data = _without_lone_surrogates(value) if lone_surrogates else value
        if data:
            assert isinstance(data, dict)
            yield Entry(name, number, data), None
    if rest_reason:
        rest = text[position:]
        cut_off = not raw.endswith((b"\n", b"\r"))
        reason = (f"truncated last line: {rest_reason}" if cut_off else f"not valid JSON: {rest_reason}") + \
            f" (the part of the line after its first {len(found)} entr{'y' if len(found) == 1 else 'ies'})"
        yield BrokenLine(name, number, rest, reason), Diagnostic(name, number, reason)


# JSON may escape half of a UTF-16 pair (`\ud83d` alone: a string cut inside an emoji); Python keeps it as
# a lone surrogate, which no UTF-8 output can hold.
_LONE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _without_lone_surrogates(value: object) -> object:
    """`value` with each lone half of a UTF-16 pair as U+FFFD. A string spread into an object by UTF-16 code
    unit ({"0": "\\ud83c", "1": "\\udf0a"}, JavaScript's `{...text}`) has its halves paired first: one
    character per position, the character whole."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, dict):
        length = 0
        while isinstance(value.get(str(length)), str) and len(value[str(length)]) == 1:
            length += 1
        if length:
            whole = str(_without_lone_surrogates("".join(value[str(index)] for index in range(length))))
            rest = {key: item for key, item in value.items() if key not in {str(i) for i in range(length)}}
            value = {**{str(index): character for index, character in enumerate(whole)}, **rest}
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    return value


def _json_kind(value: object) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), "null"
    )


def _json_array_too_long(path: Path, hasher: Any, diagnostics: list[Diagnostic]) -> BrokenLine | None:
    """A JSON array file over `LINE_LIMIT` is one line too long to read whole: shown in part, copied whole."""
    try:
        handle = path.open("rb")
    except OSError:
        return None  # said by the reader of the array
    with handle:
        info = os.fstat(handle.fileno())
        if info.st_size <= LINE_LIMIT:
            return None
        preview, size = b"", 0
        while block := handle.read(_PIECE):
            preview = preview or block[:LINE_PREVIEW]
            size += len(block)
            if hasher is not None:
                hasher.update(block)
    skip = 3 if preview.startswith(b"\xef\xbb\xbf") else 0
    whole = LineInFile(str(path), skip, size - skip, "utf-8", (info.st_dev, info.st_ino))
    return _long_line(str(path), 1, _LongLine(preview[skip:], whole, ended=True), diagnostics)


def _read_json_array(path: Path, hasher: Any = None) -> ReadResult:
    """Some logging hooks save a session as one JSON array of the same entries (`logs/chat.json`).
    Element numbers stand in for line numbers."""
    name = str(path)
    diagnostics: list[Diagnostic] = []
    try:
        raw = path.read_bytes()
        if hasher is not None:
            hasher.update(raw)
    except OSError as error:
        return ReadResult((), (Diagnostic(name, 0, f"cannot open: {error.strerror or error}"),))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        text = raw.decode("utf-8", errors="replace")
        diagnostics.append(Diagnostic(name, 0, f"invalid UTF-8 at byte {error.start}; undecodable bytes shown as \ufffd"))
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        return ReadResult((), (*diagnostics, Diagnostic(name, 0, f"not a readable JSON array of entries: {error}")))
    if not isinstance(data, list):
        return ReadResult((), (*diagnostics, Diagnostic(name, 0, f"expected a JSON array of entries, found {_json_kind(data)}")))
    items: list[ReadItem] = []
    for number, element in enumerate(data, start=1):
        if isinstance(element, dict):
            items.append(Entry(name, number, element))
        else:
            reason = f"element {number}: expected a JSON object, found {_json_kind(element)}"
            items.append(BrokenLine(name, number, json.dumps(element)[:2000], reason))
            diagnostics.append(Diagnostic(name, number, reason))
    return ReadResult(tuple(items), tuple(diagnostics))
