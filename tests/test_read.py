"""Stage 2, read: every line of a session file becomes an entry or, when it cannot be read, a diagnostic
pinned to its file and line (and a BrokenLine shown where it was); nothing around a bad line is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.core.model import BrokenLine, Entry
from generator.stages.read import read_file
from helpers import assistant, snapshot, text, tool_result, user, write_jsonl


def entries_of(result) -> list[Entry]:
    return [item for item in result.items if isinstance(item, Entry)]


def broken_of(result) -> list[BrokenLine]:
    return [item for item in result.items if isinstance(item, BrokenLine)]


def good_entries() -> list[dict]:
    return [
        user("why does `extremes` skip the last low water?"),
        assistant(text("The window is half-open, so an event exactly at the end is left out.")),
        user("make it inclusive"),
        assistant(text("Done: the end bound is now inclusive.")),
    ]


def test_good_lines_become_entries_numbered_from_one(tmp_path: Path) -> None:
    entries = [snapshot(), *good_entries()]
    path = write_jsonl(tmp_path / "s.jsonl", entries)

    result = read_file(path)

    assert result.diagnostics == ()
    assert [(e.file, e.line, dict(e.data)) for e in result.items] == [
        (str(path), number, entry) for number, entry in enumerate(entries, start=1)
    ]


def test_broken_json_in_the_middle_of_a_file(tmp_path: Path) -> None:
    first, second, third, fourth = good_entries()
    broken = '{"type":"user","message":{"role":"user","content":"half a line'
    path = write_jsonl(tmp_path / "s.jsonl", [first, second, broken, third, fourth])

    result = read_file(path)

    assert [(e.line, dict(e.data)) for e in entries_of(result)] == [
        (1, first), (2, second), (4, third), (5, fourth)
    ]
    (bad,) = broken_of(result)
    assert (bad.file, bad.line, bad.text) == (str(path), 3, broken)
    assert bad.reason
    assert [(d.file, d.line) for d in result.diagnostics] == [(str(path), 3)]
    assert result.items.index(bad) == 2, "the broken line stays where it was, between its neighbours"


def test_a_truncated_last_line_without_newline(tmp_path: Path) -> None:
    entries = good_entries()
    cut_off = json.dumps(user("a prompt that was being written when the machine lost power"))[:57]
    path = write_jsonl(tmp_path / "s.jsonl", [*entries, cut_off], final_newline=False)

    result = read_file(path)

    assert [dict(e.data) for e in entries_of(result)] == entries
    (bad,) = broken_of(result)
    last_line = len(entries) + 1
    assert (bad.line, bad.text) == (last_line, cut_off)
    assert "truncated" in bad.reason.lower(), "a cut-off write is told apart from a corrupt line"
    (diagnostic,) = result.diagnostics
    assert (diagnostic.file, diagnostic.line) == (str(path), last_line)
    assert "truncated" in diagnostic.message.lower()


def test_a_complete_last_line_without_newline_is_fine(tmp_path: Path) -> None:
    entries = good_entries()
    path = write_jsonl(tmp_path / "s.jsonl", entries, final_newline=False)

    result = read_file(path)

    assert result.diagnostics == ()
    assert [dict(e.data) for e in result.items] == entries


def test_a_broken_line_in_the_middle_is_not_called_truncated(tmp_path: Path) -> None:
    first, second, *_ = good_entries()
    path = write_jsonl(tmp_path / "s.jsonl", [first, '{"type": "assistant", "message": ', second])

    (bad,) = broken_of(read_file(path))

    assert "truncated" not in bad.reason.lower()


def test_bad_utf8_bytes_are_reported_and_the_line_is_still_read(tmp_path: Path) -> None:
    first, second, third, _ = good_entries()
    # A Latin-1 "é" (0xE9) where UTF-8 was expected, inside the prompt's text.
    latin1 = json.dumps(user("résumé the failing test"), ensure_ascii=False).encode("latin-1")
    path = write_jsonl(tmp_path / "s.jsonl", [first, second, latin1, third])

    result = read_file(path)

    assert [(d.file, d.line) for d in result.diagnostics] == [(str(path), 3)]
    lines = [e.line for e in entries_of(result)]
    assert lines == [1, 2, 3, 4], "the entry with a bad byte is kept, and so is everything around it"
    content = entries_of(result)[2].data["message"]["content"]
    assert content == "r\ufffdsum\ufffd the failing test", "undecodable bytes become U+FFFD, the rest is kept"


def test_bad_utf8_in_a_line_that_is_also_broken_gives_a_broken_line(tmp_path: Path) -> None:
    first, second, *_ = good_entries()
    path = write_jsonl(tmp_path / "s.jsonl", [first, b'{"type": "user", "message": "caf\xe9', second])

    result = read_file(path)

    (bad,) = broken_of(result)
    assert bad.line == 2
    assert bad.text.startswith('{"type": "user"') and "\ufffd" in bad.text
    assert {d.line for d in result.diagnostics} == {2}
    assert [e.line for e in entries_of(result)] == [1, 3]


@pytest.mark.parametrize(
    "line, kind",
    [('["user", "assistant"]', "array"), ('"just a string"', "string"), ("42", "number"), ("3.5", "number")],
)
def test_a_json_value_that_is_not_an_object(tmp_path: Path, line: str, kind: str) -> None:
    first, second, *_ = good_entries()
    path = write_jsonl(tmp_path / "s.jsonl", [first, line, second])

    result = read_file(path)

    assert [e.line for e in entries_of(result)] == [1, 3]
    (bad,) = broken_of(result)
    assert (bad.file, bad.line, bad.text) == (str(path), 2, line)
    assert kind in bad.reason
    (diagnostic,) = result.diagnostics
    assert (diagnostic.file, diagnostic.line) == (str(path), 2)
    assert kind in diagnostic.message


def test_blank_lines_are_skipped_without_shifting_line_numbers(tmp_path: Path) -> None:
    """Blank lines hold nothing that could be lost, so they are padding, not problems; the lines after them
    keep their real numbers so that diagnostics point at the right place."""
    first, second, third, _ = good_entries()
    path = write_jsonl(tmp_path / "s.jsonl", ["", first, "   ", "\t", second, "", third, "", ""])

    result = read_file(path)

    assert [(e.line, dict(e.data)) for e in result.items] == [(2, first), (5, second), (7, third)]
    assert result.diagnostics == ()


def test_windows_line_endings(tmp_path: Path) -> None:
    entries = good_entries()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(json.dumps(e).encode() + b"\r\n" for e in entries))

    result = read_file(path)

    assert result.diagnostics == ()
    assert [dict(e.data) for e in result.items] == entries


def test_old_mac_line_endings_are_lines_with_their_own_numbers(tmp_path: Path) -> None:
    """A file saved with CR alone (`\\r`) between lines, or with a mix of endings, is read line by line,
    and a problem in it is reported at its own line."""
    first, second, third, fourth = good_entries()
    path = tmp_path / "s.jsonl"
    lines = [json.dumps(first).encode(), json.dumps(second).encode(), b'{"type": "user", "message": {',
             json.dumps(third).encode(), json.dumps(fourth).encode()]
    path.write_bytes(lines[0] + b"\r" + lines[1] + b"\r\n" + lines[2] + b"\r" + lines[3] + b"\n" + lines[4] + b"\r")

    result = read_file(path)

    assert [(e.line, dict(e.data)) for e in entries_of(result)] == [(1, first), (2, second), (4, third), (5, fourth)]
    assert [(d.file, d.line) for d in result.diagnostics] == [(str(path), 3)]
    assert "truncated" not in result.diagnostics[0].message, "a line ended by CR is complete"


def test_content_hash_sees_every_byte_of_a_file_with_cr_endings(tmp_path: Path) -> None:
    import hashlib

    from generator.stages.read import stream_file

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\r".join(json.dumps(e).encode() for e in good_entries()) + b"\r\n\r")
    hasher = hashlib.sha1()

    list(stream_file(path, [], hasher))

    assert hasher.hexdigest() == hashlib.sha1(path.read_bytes()).hexdigest()


def test_every_kind_of_problem_in_one_file(tmp_path: Path) -> None:
    """The report lists each bad line once, by number, and every good line is read."""
    call = assistant(text("Running the tests."))
    result_entry = tool_result("toolu_01Abc", "14 passed in 0.70s")
    lines: list = [
        user("run the tests"),                      # 1
        "",                                         # 2 blank
        '{"type": "assistant", "message": {',       # 3 broken JSON
        call,                                       # 4
        b'{"type": "user", "note": "\xff\xfe"}',    # 5 bad UTF-8 (the entry itself parses)
        "[1, 2, 3]",                                # 6 an array
        '"stray text"',                             # 7 a string
        "1234",                                     # 8 a number
        result_entry,                               # 9
        '{"type": "user", "message": {"role": "u',  # 10 truncated last line
    ]
    path = write_jsonl(tmp_path / "s.jsonl", lines, final_newline=False)

    result = read_file(path)

    assert sorted(d.line for d in result.diagnostics) == [3, 5, 6, 7, 8, 10]
    assert all(d.file == str(path) and d.message for d in result.diagnostics)
    assert [b.line for b in broken_of(result)] == [3, 6, 7, 8, 10]
    assert [e.line for e in entries_of(result)] == [1, 4, 5, 9]
    assert dict(entries_of(result)[1].data) == call and dict(entries_of(result)[3].data) == result_entry
    assert [item.line for item in result.items] == sorted(item.line for item in result.items), "file order"


def test_a_json_array_file_is_read_element_by_element(tmp_path: Path) -> None:
    """Logging hooks save a session as one JSON array of entries (`logs/chat.json`)."""
    entries = [{"type": "summary", "summary": "Station list cleanup", "leafUuid": "00000000-0000-4000-8000-0"},
               *good_entries()]
    path = tmp_path / "logs" / "chat.json"
    path.parent.mkdir()
    path.write_text(json.dumps(entries, indent=2), encoding="utf-8")

    result = read_file(path)

    assert result.diagnostics == ()
    assert [(e.file, e.line, dict(e.data)) for e in result.items] == [
        (str(path), number, entry) for number, entry in enumerate(entries, start=1)
    ]


def test_a_json_array_with_an_element_that_is_not_an_object(tmp_path: Path) -> None:
    first, second, *_ = good_entries()
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([first, "oops", second]), encoding="utf-8")

    result = read_file(path)

    assert [(e.line, dict(e.data)) for e in entries_of(result)] == [(1, first), (3, second)]
    (bad,) = broken_of(result)
    assert bad.line == 2 and "oops" in bad.text
    assert [(d.file, d.line) for d in result.diagnostics] == [(str(path), 2)]


@pytest.mark.parametrize("content", ['{"type": "user"}', "[1, 2", ""])
def test_a_json_file_that_is_not_an_array_of_entries(tmp_path: Path, content: str) -> None:
    path = tmp_path / "chat.json"
    path.write_text(content, encoding="utf-8")

    result = read_file(path)

    assert result.items == ()
    (diagnostic,) = result.diagnostics
    assert diagnostic.file == str(path) and diagnostic.line == 0 and diagnostic.message


def test_an_unreadable_file_is_one_diagnostic_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"

    result = read_file(path)

    assert result.items == ()
    (diagnostic,) = result.diagnostics
    assert (diagnostic.file, diagnostic.line) == (str(path), 0)
    assert diagnostic.message


def test_bad_utf8_in_a_json_array_file_is_reported(tmp_path: Path) -> None:
    first, second, *_ = good_entries()
    path = tmp_path / "chat.json"
    path.write_bytes(json.dumps([first, user("résumé"), second], ensure_ascii=False).encode("latin-1"))

    result = read_file(path)

    assert len(entries_of(result)) == 3, "the entries are still read"
    assert [d.file for d in result.diagnostics] == [str(path)]


def test_a_byte_order_mark_before_the_first_line_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"type": "user", "uuid": "u1"}\n{"type": "user", "uuid": "u2"}\n')
    result = read_file(path)
    assert [item.data["uuid"] for item in result.items] == ["u1", "u2"]
    assert result.diagnostics == ()


def test_lines_end_where_a_text_reader_ends_them_whatever_the_mix_of_endings_and_piece_size():
    """The byte splitter against Python's own newline handling (a latin-1 text reader hands back each byte as
    one character), on every file of up to seven bytes of `a`, CR and LF, read in pieces of one to five, from
    blocks of one byte and up."""
    import io
    import itertools

    from generator.stages.read import _ByteLines

    for length in range(8):
        for letters in itertools.product(b"a\r\n", repeat=length):
            data = bytes(letters)
            for limit in range(1, 6):
                expected_reader = io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding="latin-1", newline="")
                expected = list(iter(lambda reader=expected_reader, size=limit: reader.readline(size), ""))
                for block in (1, 2, 3, 7, _ByteLines.BLOCK):  # a line, or its lone CR, across blocks read
                    ours = _ByteLines(io.BufferedReader(io.BytesIO(data)), block=block)
                    got = list(iter(lambda reader=ours, size=limit: reader.readline(size), b""))
                    assert [piece.decode("latin-1") for piece in got] == expected, (data, limit, block)


def test_batches_hold_every_item_in_order_and_stay_small(tmp_path: Path) -> None:
    """The build reads a file a batch at a time: the batches together are what reading one line at a time
    gives, with its problems, and a batch never grows past its bounds (many short lines; lines of half a
    megabyte; a broken line among them)."""
    from generator.stages.read import BATCH_BYTES, BATCH_LINES, stream_file, stream_file_in_batches
    big = "x" * (BATCH_BYTES // 2)
    lines = [json.dumps(user(f"short {n}")) for n in range(BATCH_LINES * 2 + 5)]
    lines[7] = '{"broken'
    lines += [json.dumps(user(big + str(n))) for n in range(5)]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    one_by_one: list = []
    whole = list(stream_file(path, one_by_one))
    in_batches: list = []
    batches = list(stream_file_in_batches(path, in_batches))
    assert [item for batch in batches for item in batch] == whole
    assert in_batches == one_by_one and len(one_by_one) == 1
    assert all(len(batch) <= BATCH_LINES for batch in batches)
    large = [batch for batch in batches if any(isinstance(i, Entry) and big in str(i.data) for i in batch)]
    assert all(sum(isinstance(i, Entry) and big in str(i.data) for i in batch) <= 2 for batch in large)


def test_lines_past_the_orjson_limit_read_as_the_short_ones_do(tmp_path: Path, monkeypatch) -> None:
    """Lines longer than orjson is given are read by the json module: with blanks around them (JSON's and
    others), a lone surrogate escaped, a backslash-u that is not one, a value that is not an object, a line
    cut off, each as the same line is read when short."""
    from generator.stages import read
    lines = [
        b' \t{"type": "user", "text": "' + b"x" * 300 + b'"}  ',
        b'\xc2\xa0{"type": "user", "text": "after a no-break space"}\xc2\xa0',
        b'{"type": "user", "text": "cut in an emoji \\ud83d, then ' + b"y" * 300 + b'"}',
        b'{"type": "user", "text": "a path C:\\\\users\\\\ada\\\\ud83d is no escape"}',
        b'{"type": "user", "t": NaN}',
        b'["an", "array"]',
        b"{}",
        b"   ",
        b'{"type": "user"} {"type": "assistant"}',
        b'{"type": "user", "text": "cut',
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines))
    short = read_file(path)
    monkeypatch.setattr(read, "ORJSON_LINE_LIMIT", 10)  # every line past it
    long = read_file(path)
    assert [(type(item).__name__, item.line, getattr(item, "data", getattr(item, "reason", None))) for item in long.items] \
        == [(type(item).__name__, item.line, getattr(item, "data", getattr(item, "reason", None))) for item in short.items]
    assert long.diagnostics == short.diagnostics
    texts = [item.data.get("text") for item in short.items if isinstance(item, Entry)]
    cut = next(text for text in texts if text and text.startswith("cut in an emoji"))
    assert "\ufffd" in cut and cut.encode("utf-8")  # no lone surrogate left to fail the page's encoding
    assert "a path C:\\users\\ada\\ud83d is no escape" in texts
    assert [item.line for item in short.items] == [1, 2, 3, 4, 5, 6, 9, 9, 10]
    assert [problem.line for problem in short.diagnostics] == [6, 9, 10]
