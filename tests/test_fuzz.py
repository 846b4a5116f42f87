"""Property-based fuzzing (hypothesis) of the stages that take untrusted input.

- read: arbitrary bytes (binary garbage, invalid UTF-8 such as an encoded lone surrogate, NUL bytes,
  CR-only line endings, long and truncated lines, empty files) never raise; every diagnostic names the
  file and a 1-based line that exists; valid lines around bad ones are all read, in order. One plain
  (non-hypothesis) test reads a single 50 MB line with bounded memory.
- interpret, and the whole build: realistic entries of every kind with any field, top-level or nested,
  replaced by a value of the wrong type (or removed) never make `interpret()` or `build()` raise.
- the command line on empty files, folders with no sessions and files of only broken lines.

The seven crashes found while writing this file are fixed; each keeps a regression test in the section
"Known crashes" at the end, and the property tests range over those inputs too.
"""

from __future__ import annotations

import gc
import itertools
import json
import math
import re
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.build import BuildConfig, build
from generator.cli import main
from generator.stages.discover import SessionFile
from generator.stages.interpret import interpret
from generator.stages.link import link
from generator.core.model import BrokenLine, Entry
from generator.stages.read import LINE_LIMIT, ReadResult, read_file

import helpers
from helpers import (
    CWD,
    PROJECT_DIR,
    SESSION_ID,
    ai_title,
    assistant,
    at,
    chain,
    custom_title,
    image,
    sidechain_run,
    snapshot,
    system,
    text,
    thinking,
    tool_result,
    tool_use,
    user,
    write_jsonl,
)

# No example database: failures print their example, and the regression tests below keep the ones found.
# (Hypothesis still keeps a small cache in .hypothesis/ under the working folder.)
FAST = settings(database=None, deadline=None, max_examples=200,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(database=None, deadline=None, max_examples=40,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# =========================================================================================================
# read: arbitrary bytes


def line_count(data: bytes) -> int:
    """Lines as the reader counts them: ended by LF, CRLF or a lone CR; a last line without an ending is
    still a line."""
    if not data:
        return 0
    return len(re.findall(rb"\r\n|\r|\n", data)) + (0 if data.endswith((b"\n", b"\r")) else 1)


def utf16_codec(data: bytes) -> str:
    """A file the reader takes for UTF-16: `{` and the character after it, each beside its NUL, perhaps after
    a byte-order mark (two bytes alone can be a damaged line of a UTF-8 log)."""
    for mark, codec, pattern in ((b"\xff\xfe", "utf-16", rb"\{\x00[^\x00]\x00"), (b"\xfe\xff", "utf-16", rb"\x00\{\x00[^\x00]"),
                                 (b"", "utf-16-le", rb"\{\x00[^\x00]\x00"), (b"", "utf-16-be", rb"\x00\{\x00[^\x00]")):
        if data.startswith(mark) and re.match(pattern, data[len(mark):len(mark) + 4]):
            return codec
    return ""


def check_read_invariants(path: Path, data: bytes, result: ReadResult) -> None:
    """What must hold for any input: right file, 1-based line numbers that exist, file order, and every
    broken line reported."""
    utf16 = utf16_codec(data)
    # A file written in UTF-16 is read as such (and said so once, for the whole file: line 0).
    lines = line_count(data.decode(utf16, errors="replace").encode("utf-8") if utf16 else data)
    name = str(path)
    for diagnostic in result.diagnostics:
        assert diagnostic.file == name
        assert (0 if utf16 else 1) <= diagnostic.line <= lines, (diagnostic, lines)
        assert isinstance(diagnostic.message, str) and diagnostic.message.strip()
        assert "\n" not in diagnostic.message, "a diagnostic is one line"
    numbers = [item.line for item in result.items]
    assert numbers == sorted(numbers), "in file order"
    broken = [item.line for item in result.items if isinstance(item, BrokenLine)]
    assert len(broken) == len(set(broken)), "at most one broken piece per line"
    for number in set(numbers):
        on_line = [item for item in result.items if item.line == number]
        # Several items on one line: entries written with no newline between them, each read, and what
        # follows the last one that could be read, if anything.
        assert len(on_line) == 1 or all(isinstance(item, Entry) for item in on_line[:-1])
    for item in result.items:
        assert item.file == name
        assert 1 <= item.line <= lines
        if isinstance(item, Entry):
            assert isinstance(item.data, dict)
        else:
            assert isinstance(item, BrokenLine) and item.reason
    diagnosed = {d.line for d in result.diagnostics}
    assert {b.line for b in result.items if isinstance(b, BrokenLine)} <= diagnosed


def read_bytes_as(tmp: Path, data: bytes, name: str = "s.jsonl") -> tuple[Path, ReadResult]:
    path = tmp / name
    path.write_bytes(data)
    return path, read_file(path)


# Pieces that make hostile files: NUL, invalid UTF-8 (an encoded lone surrogate, overlong forms, stray
# continuation bytes, a cut multi-byte character), CR-only and CRLF endings, and JSON fragments.
NASTY_FRAGMENTS = [
    b"\x00", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\xaf", b"\xe0\x80\xaf", b"\x80", b"\xbf", b"\xff\xfe",
    b"\xe2\x82", b"\xf0\x9f\x98", b"\r", b"\r\n", b"\n", b"\n\n", b" ", b"\t", b"\x0b\x0c", b"\xc2\x85",
    b"\xe2\x80\xa8", b"{", b"}", b"[", b"]", b'"', b"\\", b'\\u', b'\\ud800', b'"\\ud800"', b":", b",",
    b"null", b"true", b"NaN", b"-Infinity", b"1e999", b"-0", b'{"type":"user"}', b'{"a":', b"[1,2",
    b'{"type":"user","message":{"role":"user","content":"hi"}}', b"\xef\xbb\xbf",
]
nasty_bytes = st.lists(st.one_of(st.sampled_from(NASTY_FRAGMENTS), st.binary(max_size=40)), max_size=40).map(b"".join)


@pytest.mark.slow
@FAST
@given(data=st.one_of(st.binary(max_size=3000), nasty_bytes))
@example(data=b"")
@example(data=b"\x00\x00\x00\n\x00")
@example(data=b'{"a": "\xed\xa0\x80"}\n')
@example(data=b'{"type": "user"}\r{"type": "user"}\r{"type": "user"}\r')
@example(data=b"\n\n\n")
@example(data=b"\xef\xbb\xbf{}\n")
def test_reader_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    # Runs of more than 4,300 digits are a known crash (see the xfail tests); 3,000 bytes cannot hold one.
    with tempfile.TemporaryDirectory() as folder:
        path, result = read_bytes_as(Path(folder), data)
        check_read_invariants(path, data, result)


@pytest.mark.slow
@FAST
@given(data=st.one_of(st.binary(max_size=2000), nasty_bytes,
                      st.lists(st.one_of(st.sampled_from(NASTY_FRAGMENTS), st.binary(max_size=20)),
                               max_size=20).map(lambda parts: b"[" + b",".join(parts) + b"]")))
def test_json_array_reader_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    """The `.json` (array export) reader: problems are pinned to the file (line 0) or to an element."""
    with tempfile.TemporaryDirectory() as folder:
        path, result = read_bytes_as(Path(folder), data, "chat.json")
        for diagnostic in result.diagnostics:
            assert diagnostic.file == str(path) and diagnostic.message
            assert 0 <= diagnostic.line <= max(len(result.items), 0)
        assert [item.line for item in result.items] == list(range(1, len(result.items) + 1))


# JSON values that round-trip exactly (no NaN, which is never equal to itself).
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30))
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


def _not_an_object(junk: bytes) -> bool:
    """A junk line that cannot be read as a JSON object: blank, or not ending in `}` once decoded and
    stripped as the reader does, and not starting with a whole object followed by the start of another
    (entries written with no newline between them, which are read)."""
    stripped = junk.decode("utf-8", errors="replace").strip()
    try:
        # As line 1 is read: without a byte-order mark.
        _, end = json.JSONDecoder().raw_decode(stripped.removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        end = -1
    rest = stripped.removeprefix("\ufeff")[end:] if end > 0 else ""
    return not stripped.endswith("}") and not rest.lstrip(" \t").startswith("{")


junk_lines = st.one_of(
    st.binary(max_size=200),
    st.lists(st.sampled_from(NASTY_FRAGMENTS), min_size=1, max_size=8).map(b"".join),
    st.text(max_size=100).map(str.encode),
    json_values.map(lambda v: json.dumps(v).encode()),  # valid JSON that is not an object
    json_objects.map(lambda v: json.dumps(v).encode()[:-1]),  # an object missing its last brace
).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")).filter(_not_an_object)

mixed_lines = st.lists(
    st.one_of(
        json_objects.map(lambda obj: ("ok", obj)),
        junk_lines.map(lambda junk: ("junk", junk)),
    ),
    max_size=15,
)


@pytest.mark.slow
@FAST
@given(lines=mixed_lines, newline=st.sampled_from([b"\n", b"\r\n", b"\r"]), final_newline=st.booleans(),
       ensure_ascii=st.booleans())
def test_valid_lines_around_junk_are_all_read_in_order(lines, newline, final_newline, ensure_ascii) -> None:
    encoded = []
    for kind, value in lines:
        if kind == "ok":
            encoded.append(json.dumps(value, ensure_ascii=ensure_ascii).encode("utf-8"))
        else:
            encoded.append(value)
    data = newline.join(encoded) + (newline if final_newline and encoded else b"")
    with tempfile.TemporaryDirectory() as folder:
        path, result = read_bytes_as(Path(folder), data)
        check_read_invariants(path, data, result)
        # An empty object holds nothing to show: it is padding, as a blank line is.
        expected = [(number, value) for number, (kind, value) in enumerate(lines, start=1) if kind == "ok" and value]
        entries = [(item.line, item.data) for item in result.items if isinstance(item, Entry)]
        # JSON objects compare equal after a round trip (floats included, NaN excluded above).
        assert entries == expected
        junk_numbers = {
            number for number, (kind, value) in enumerate(lines, start=1)
            # A byte-order mark before line 1 is ignored: it is not a broken line.
            if kind == "junk" and (value.removeprefix(b"\xef\xbb\xbf") if number == 1 else value).decode(
                "utf-8", errors="replace").strip()
        }
        assert {b.line for b in result.items if isinstance(b, BrokenLine)} == junk_numbers
        assert {d.line for d in result.diagnostics} == junk_numbers, "good lines get no diagnostic"


@pytest.mark.slow
@settings(FAST, max_examples=15)
@given(lines=st.lists(st.tuples(st.booleans(), st.one_of(
           st.sampled_from([8_191, 8_192, 8_193, 65_536, 1_048_576, 3_000_000]), st.integers(0, 3_000_000))),
           min_size=1, max_size=4),
       filler=st.sampled_from([b"x", rb"\n", rb"\u00e9", "é".encode(), rb"\\"]))
def test_long_lines_among_short_ones(lines, filler) -> None:
    """Lines of up to a few MB, whole or missing their closing brace, between short good lines."""
    short = json.dumps(user("between the long ones")).encode()
    encoded = [short]
    for valid, length in lines:
        body = b'{"type": "user", "message": {"role": "user", "content": "' + filler * (length // len(filler))
        encoded.extend([body + (b'"}}' if valid else b""), short])
    data = b"\n".join(encoded) + b"\n"
    with tempfile.TemporaryDirectory() as folder:
        path, result = read_bytes_as(Path(folder), data)
        check_read_invariants(path, data, result)
        assert [i.line for i in result.items if isinstance(i, Entry)] == [
            n for n in range(1, len(encoded) + 1) if n % 2 or lines[n // 2 - 1][0]
        ]
        assert [d.line for d in result.diagnostics] == [
            n for n in range(2, len(encoded) + 1, 2) if not lines[n // 2 - 1][0]
        ]


@pytest.mark.slow
@settings(FAST, max_examples=100)
@given(objects=st.lists(json_objects, min_size=1, max_size=6), cut=st.floats(min_value=0, max_value=1))
def test_a_file_cut_off_anywhere(objects, cut) -> None:
    """A write interrupted at any byte: every complete line before the cut is read; the cut line is an
    entry (if what is left still parses) or reported as truncated."""
    lines = [json.dumps(obj, ensure_ascii=False).encode("utf-8", errors="surrogatepass") for obj in objects]
    whole = b"\n".join(lines) + b"\n"
    data = whole[: int(len(whole) * cut)]
    with tempfile.TemporaryDirectory() as folder:
        path, result = read_bytes_as(Path(folder), data)
        check_read_invariants(path, data, result)
        complete = data.count(b"\n")
        entries = [item for item in result.items if isinstance(item, Entry)]
        # An empty object holds nothing to show: it is padding, as a blank line is.
        assert [(e.line, e.data) for e in entries if e.line <= complete] == [
            (number, obj) for number, obj in enumerate(objects[:complete], start=1) if obj]
        broken = [item for item in result.items if isinstance(item, BrokenLine)]
        assert all(b.line == complete + 1 for b in broken), "only the cut-off last line can be broken"
        for b in broken:
            assert "truncated" in b.reason


def test_an_empty_file_gives_nothing(tmp_path: Path) -> None:
    _, result = read_bytes_as(tmp_path, b"")
    assert result == ReadResult((), ())


def test_cr_only_line_endings_are_lines(tmp_path: Path) -> None:
    """Old Mac line endings: a lone CR ends a line, as LF and CRLF do."""
    lines = [json.dumps(user(f"prompt {n}")).encode() for n in range(3)]
    data = b"\r".join(lines) + b"\r"
    path, result = read_bytes_as(tmp_path, data)
    check_read_invariants(path, data, result)
    assert [(type(i).__name__, i.line) for i in result.items] == [("Entry", 1), ("Entry", 2), ("Entry", 3)]
    assert result.diagnostics == ()


def test_nul_bytes_and_lone_surrogates(tmp_path: Path) -> None:
    good = json.dumps(user("fine")).encode()
    lines = [
        good,                                                   # 1
        b"\x00" * 10,                                           # 2 NUL only
        b'{"type": "user", "x": "a\x00b"}',                     # 3 NUL inside a string: not valid JSON
        good,                                                   # 4
        b'{"type": "user", "x": "\xed\xa0\x80"}',               # 5 a lone surrogate encoded as UTF-8
        b'{"type": "user", "x": "\\ud800"}',                    # 6 an escaped lone surrogate: valid JSON
        good,                                                   # 7
    ]
    data = b"\n".join(lines) + b"\n"
    path, result = read_bytes_as(tmp_path, data)
    check_read_invariants(path, data, result)
    assert [i.line for i in result.items if isinstance(i, Entry)] == [1, 4, 5, 6, 7]
    assert [i.line for i in result.items if isinstance(i, BrokenLine)] == [2, 3]
    assert sorted({d.line for d in result.diagnostics}) == [2, 3, 5]
    surrogate = next(i for i in result.items if i.line == 5)
    assert surrogate.data["x"] == "\ufffd\ufffd\ufffd"


BIG_LINE = LINE_LIMIT - 1024 * 1024


@pytest.mark.slow
@pytest.mark.parametrize("complete", [True, False], ids=["valid", "truncated"])
def test_one_line_just_under_the_limit_is_read_with_bounded_memory(tmp_path: Path, complete: bool) -> None:
    """One line just under the limit of a line read whole (a huge pasted log) is read as one entry, or as
    one truncated-line diagnostic, without the reader keeping more than a few copies of it. (Longer lines:
    tests/test_memory.py.)"""
    path = tmp_path / "big.jsonl"
    head = b'{"type": "user", "message": {"role": "user", "content": "'
    tail = b'"}}\n'
    with path.open("wb") as handle:
        handle.write(head)
        chunk = b"tide " * (1024 * 1024 // 5)
        for _ in range(BIG_LINE // len(chunk)):
            handle.write(chunk)
        handle.write(tail if complete else b"and the pow")
    size = path.stat().st_size
    assert size >= BIG_LINE
    gc.collect()
    tracemalloc.start()
    try:
        started = time.perf_counter()
        result = read_file(path)
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if complete:
        assert result.diagnostics == ()
        (entry,) = result.items
        assert isinstance(entry, Entry) and entry.line == 1
        assert len(entry.data["message"]["content"]) == size - len(head) - len(tail)
    else:
        (broken,) = result.items
        (diagnostic,) = result.diagnostics
        assert isinstance(broken, BrokenLine) and broken.line == diagnostic.line == 1
        assert "truncated" in diagnostic.message
    print(f"peak {peak / size:.2f}x the line's size, {elapsed:.1f} s")
    assert peak < 6 * size, f"peak {peak / size:.1f}x the line's size"
    assert elapsed < 60


# =========================================================================================================
# interpret and build: realistic entries with wrong types anywhere

TASK_ID = "toolu_01TaskExplore0000000001"
AGENT_ID = "a1b2c3d4e5f6a7b8c"


def realistic_session() -> list[dict]:
    """One main session file with every kind of entry Claude Code writes, and a tool call for each
    renderer that reads structured fields."""
    ids = {name: f"toolu_01{name}{'0' * (20 - len(name))}" for name in (
        "Bash", "Read", "Edit", "MultiEdit", "Write", "TodoWrite", "TaskCreate", "TaskUpdate", "Ask",
        "Plan", "Mcp", "Fetch", "BashOutput", "Grep", "Glob", "Notebook", "Skill")}
    ids["Task"] = TASK_ID
    path = f"{CWD}/src/tidewatch/extremes.py"
    question = {"question": "Make the end bound inclusive?", "header": "Bound", "multiSelect": False,
                "options": [{"label": "Yes", "description": "Include the end"},
                            {"label": "No", "description": "Keep it half-open"}]}
    progress_message = {"type": "user", "message": {"role": "user", "content": [text("Find the window code.")]},
                        "uuid": "00000000-0000-4000-8000-00000000f001", "timestamp": at(500)}
    progress_reply = {"type": "assistant", "uuid": "00000000-0000-4000-8000-00000000f002", "timestamp": at(501),
                      "message": {"role": "assistant", "model": "claude-haiku-4-5", "id": "msg_progress",
                                  "content": [text("It is in extremes.py.")],
                                  "usage": {"input_tokens": 1, "output_tokens": 2}}}
    main = chain(
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": SESSION_ID},
        user("<command-name>/model</command-name>\n<command-message>model</command-message>\n"
             "<command-args>opus</command-args>"),
        user("<local-command-stdout>Set model to opus</local-command-stdout>"),
        user("why does `extremes` skip the last low water?\n<system-reminder>be brief</system-reminder>",
             permissionMode="plan", promptId="p-1"),
        user([text("and this screenshot"), image()]),
        assistant(thinking("The window is half-open, so the end is excluded.")),
        assistant(text("Let me run the tests first."), usage={"input_tokens": 3, "output_tokens": 40}),
        assistant(tool_use("Bash", {"command": "pytest -q", "description": "Run the tests", "timeout": 120000},
                           ids["Bash"])),
        tool_result(ids["Bash"], "14 passed in 0.70s",
                    structured={"stdout": "14 passed in 0.70s", "stderr": "", "interrupted": False,
                                "isImage": False}),
        assistant(tool_use("Read", {"file_path": path, "offset": 1, "limit": 3}, ids["Read"])),
        tool_result(ids["Read"], "     1\tdef extremes(start, end):\n     2\t    return [t for t in x if t < end]\n",
                    structured={"type": "text", "file": {"filePath": path, "content": "def extremes(start, end):",
                                                         "numLines": 2, "startLine": 1, "totalLines": 40}}),
        assistant(tool_use("Edit", {"file_path": path, "old_string": "t < end", "new_string": "t <= end",
                                    "replace_all": False}, ids["Edit"])),
        tool_result(ids["Edit"], "The file has been updated.",
                    structured={"filePath": path, "oldString": "t < end", "newString": "t <= end",
                                "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1,
                                                     "lines": ["-    return [t for t in x if t < end]",
                                                               "+    return [t for t in x if t <= end]"]}],
                                "userModified": False, "replaceAll": False}),
        assistant(tool_use("MultiEdit", {"file_path": path, "edits": [{"old_string": "a", "new_string": "b"},
                                                                       {"old_string": "c", "new_string": "d"}]},
                           ids["MultiEdit"])),
        tool_result(ids["MultiEdit"], "Applied 2 edits", structured={"filePath": path, "edits": []}),
        assistant(tool_use("Write", {"file_path": f"{CWD}/NOTES.md", "content": "# Notes\n"}, ids["Write"])),
        tool_result(ids["Write"], "File created", structured={"type": "create", "filePath": f"{CWD}/NOTES.md"}),
        assistant(tool_use("NotebookEdit", {"notebook_path": f"{CWD}/a.ipynb", "cell_id": "c1", "new_source": "1",
                                            "cell_type": "code", "edit_mode": "replace"}, ids["Notebook"])),
        tool_result(ids["Notebook"], "Updated cell c1"),
        assistant(tool_use("Grep", {"pattern": "def extremes", "path": f"{CWD}/src", "output_mode": "content"},
                           ids["Grep"])),
        tool_result(ids["Grep"], "src/tidewatch/extremes.py:1:def extremes(start, end):",
                    structured={"mode": "content", "numFiles": 1, "filenames": [], "numLines": 1}),
        assistant(tool_use("Glob", {"pattern": "**/*.py"}, ids["Glob"])),
        tool_result(ids["Glob"], "src/tidewatch/extremes.py",
                    structured={"filenames": [path], "durationMs": 12, "numFiles": 1, "truncated": False}),
        assistant(tool_use("TodoWrite", {"todos": [
            {"content": "Fix the window", "status": "in_progress", "activeForm": "Fixing the window"},
            {"content": "Add a test", "status": "pending", "activeForm": "Adding a test"}]}, ids["TodoWrite"])),
        tool_result(ids["TodoWrite"], "Todos have been modified successfully",
                    structured={"oldTodos": [], "newTodos": [{"content": "Fix the window", "status": "in_progress"}]}),
        assistant(tool_use("TaskCreate", {"subject": "Fix the window", "description": "Make the end inclusive",
                                          "activeForm": "Fixing"}, ids["TaskCreate"])),
        tool_result(ids["TaskCreate"], "Task #1 created successfully: Fix the window",
                    structured={"task": {"id": "1", "subject": "Fix the window"}}),
        assistant(tool_use("TaskUpdate", {"taskId": "1", "status": "completed"}, ids["TaskUpdate"])),
        tool_result(ids["TaskUpdate"], "Updated task #1 status",
                    structured={"success": True, "taskId": "1", "updatedFields": ["status"]}),
        assistant(tool_use("AskUserQuestion", {"questions": [question]}, ids["Ask"])),
        tool_result(ids["Ask"], 'User has answered your questions: "Make the end bound inclusive?"="Yes".',
                    structured={"questions": [question], "answers": {"Make the end bound inclusive?": "Yes"}}),
        assistant(tool_use("Task", {"description": "Explore the window code", "prompt": "Find the window code.",
                                    "subagent_type": "Explore"}, TASK_ID)),
        {"type": "progress", "parentUuid": None, "isSidechain": False, "sessionId": SESSION_ID, "cwd": CWD,
         "version": "2.1.39", "gitBranch": "main", "uuid": "00000000-0000-4000-8000-00000000f101",
         "timestamp": at(502), "toolUseID": "agent_msg_1", "parentToolUseID": TASK_ID,
         "data": {"type": "agent_progress", "agentId": "fedcba9876543210", "prompt": "Find the window code.",
                  "message": progress_message}},
        {"type": "progress", "parentUuid": None, "isSidechain": False, "sessionId": SESSION_ID,
         "uuid": "00000000-0000-4000-8000-00000000f102", "timestamp": at(503), "parentToolUseID": TASK_ID,
         "data": {"type": "agent_progress", "agentId": "fedcba9876543210", "message": progress_reply}},
        {"type": "progress", "uuid": "00000000-0000-4000-8000-00000000f103", "timestamp": at(504),
         "data": {"type": "bash_progress", "output": "", "fullOutput": "", "elapsedTimeSeconds": 2,
                  "totalLines": 0}, "toolUseID": "bash-progress-0", "parentToolUseID": ids["Bash"]},
        tool_result(TASK_ID, [text("It is in extremes.py, line 2.")],
                    structured={"status": "completed", "agentId": AGENT_ID, "prompt": "Find the window code.",
                                "content": [text("It is in extremes.py, line 2.")], "totalDurationMs": 4000,
                                "totalTokens": 900, "usage": {"input_tokens": 5}}),
        assistant(tool_use("BashOutput", {"bash_id": "shell_1"}, ids["BashOutput"])),
        tool_result(ids["BashOutput"], "<stdout>done</stdout>",
                    structured={"shellId": "shell_1", "command": "sleep 1", "status": "completed",
                                "exitCode": 0, "stdout": "done", "stderr": ""}),
        assistant(tool_use("mcp__attio__search-records", {"query": "tide", "limit": 5}, ids["Mcp"])),
        tool_result(ids["Mcp"], [text('[{"id": 1}]'), {"type": "tool_reference", "tool_name": "x"}]),
        assistant(tool_use("WebFetch", {"url": "https://example.org/tides", "prompt": "Summarise"}, ids["Fetch"])),
        tool_result(ids["Fetch"], "Tides are caused by the moon.",
                    structured={"bytes": 1200, "code": 200, "codeText": "OK", "result": "Tides.", "durationMs": 3}),
        assistant(tool_use("Skill", {"skill": "changelog"}, ids["Skill"])),
        tool_result(ids["Skill"], "Launching skill: changelog",
                    structured={"success": True, "commandName": "changelog", "allowedTools": ["Read"]}),
        assistant(tool_use("ExitPlanMode", {"plan": "1. Make the end inclusive\n2. Add a test"}, ids["Plan"])),
        tool_result(ids["Plan"], "User has approved your plan. You can now start coding.",
                    structured={"plan": "1. Make the end inclusive", "isAgent": False}),
        assistant(tool_use("Bash", {"command": "rm -rf /"}, "toolu_01Orphaned000000000001")),
        tool_result("toolu_01NoSuchCall0000000001", "<tool_use_error>No such call</tool_use_error>", is_error=True),
        assistant(text("API Error: 529 overloaded"), isApiErrorMessage=True, model="<synthetic>"),
        assistant({"type": "redacted_thinking", "data": "abc"}, {"type": "server_tool_use", "id": "s1"}),
        system("compact_boundary", "Conversation compacted", compactMetadata={"trigger": "auto", "preTokens": 167412},
               logicalParentUuid="00000000-0000-4000-8000-000000000001"),
        user("This session is being continued from a previous conversation.", isCompactSummary=True,
             isVisibleInTranscriptOnly=True),
        system("turn_duration", durationMs=61148, messageCount=14, isMeta=False),
        system("stop_hook_summary", hookCount=1, hookInfos=[{"command": "make lint"}], hookErrors=[],
               preventedContinuation=False, stopReason="", hasOutput=False),
        system("local_command", "<command-name>/cost</command-name>\n<command-args></command-args>"),
        system("local_command", "<local-command-stdout>Total cost: $0.12</local-command-stdout>"),
        system("", "PostToolUse:Edit [make fmt] completed"),
        system("api_error", "Retrying", retryInMs=500, retryAttempt=1, maxRetries=10, cause={"code": "ECONNRESET"}),
        user("<local-command-caveat>Caveat: the messages below were generated by the user</local-command-caveat>",
             isMeta=True),
        user("<bash-input>ls src</bash-input>"),
        user("<bash-stdout>tidewatch</bash-stdout><bash-stderr></bash-stderr>"),
        user("[Request interrupted by user]"),
        user([{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}},
              {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}},
              text("and the tide tables")]),
        user("Implement the following plan:\n\n1. Make the end inclusive", planContent="1. Make the end inclusive"),
        {"type": "summary", "summary": "Inclusive end bound for extremes",
         "leafUuid": "00000000-0000-4000-8000-000000000001"},
        custom_title("tide-window"),
        ai_title("Tide window fix"),
        {"type": "queue-operation", "operation": "enqueue", "timestamp": at(900), "sessionId": SESSION_ID,
         "content": "skip the locale detective work"},
        {"type": "queue-operation", "operation": "remove", "timestamp": at(901), "sessionId": SESSION_ID,
         "content": "skip the locale detective work"},
        {"type": "attachment", "uuid": "00000000-0000-4000-8000-00000000f201", "timestamp": at(902),
         "attachment": {"type": "edited_text_file", "filename": f"{CWD}/README.md", "snippet": "12\t## Usage"}},
        {"type": "pr-link", "prNumber": 42, "prUrl": "https://github.com/ada/tidewatch/pull/42",
         "prRepository": "ada/tidewatch", "sessionId": SESSION_ID, "timestamp": at(903)},
        {"type": "last-prompt", "lastPrompt": "make it inclusive", "sessionId": SESSION_ID},
        snapshot(),
        {"type": "hologram", "uuid": "00000000-0000-4000-8000-00000000f301", "payload": {"x": 1}},
        *sidechain_run(user("Look for the window code (inline run)."), assistant(text("Found it inline.")),
                       agent_id="a9inline"),
    )
    for entry in main:
        if "uuid" in entry:
            entry.setdefault("slug", "quiet-harbor-tides")
    return main


def realistic_agent() -> list[dict]:
    """The subagent's own file, `<session>/subagents/agent-<id>.jsonl`."""
    read_id = "toolu_01AgentRead000000000001"
    return [
        user("Find the window code.", isSidechain=True, agentId=AGENT_ID),
        assistant(tool_use("Read", {"file_path": f"{CWD}/src/tidewatch/extremes.py"}, read_id), isSidechain=True,
                  agentId=AGENT_ID),
        tool_result(read_id, "     1\tdef extremes():", isSidechain=True, agentId=AGENT_ID,
                    structured={"type": "text", "file": {"filePath": "x", "numLines": 1}}),
        assistant(text("It is in extremes.py, line 2."), isSidechain=True, agentId=AGENT_ID),
    ]


def _base_files() -> dict[str, list[dict]]:
    """Built with counters of their own, so that the base is the same whatever ran before, and the
    uuids and timestamps other test modules get from helpers do not depend on this module being loaded.
    Through JSON, as a file would give them: no Python object is shared between two places."""
    saved = helpers._uuids, helpers._clock, helpers._ids
    helpers._uuids, helpers._clock, helpers._ids = itertools.count(90_001), itertools.count(0), itertools.count(90_001)
    try:
        return json.loads(json.dumps({"main": realistic_session(), "agent": realistic_agent()}))
    finally:
        helpers._uuids, helpers._clock, helpers._ids = saved


BASE_FILES = _base_files()

# Values of the wrong type for any field: nothing, numbers of every kind (huge, negative, NaN, infinite),
# booleans, strings that look like something, and lists and objects of those.
# Timestamps in other shapes than Claude Code's `2026-03-02T09:00:00.000Z`.
TIMESTAMPS = ["2026-03-02", "2026-03-02T09:00:00", "2026-03-02 09:00", "2026-03-02T09:00:00+14:00",
              "9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z", "2026-13-45T99:99:99Z", "20260302T090000Z"]
ODD_STRINGS = [
    "", " ", "\n", "0", "-1", "null", "true", "[]", "{}", "text", "tool_use", "user", "assistant", "\ud800",
    "x" * 3000, "<system-reminder>r</system-reminder>", "<command-name>", "<bash-input>", "<local-command-stdout>",
    "[Request interrupted by user", *TIMESTAMPS, "../../etc/passwd", "/", "\\", "a/../..", "<script>x</script>",
    "```", "\x00", "\x1b[31m", "é", "🌊",
]
LARGEST_READABLE_INT = int("9" * 4300)  # json.loads refuses more digits (see bug 1)
ODD_NUMBERS = [0, -1, 1, 2**31, 2**63, -(2**63), 10**30, 10**300, -(10**300), 10**4000, LARGEST_READABLE_INT,
               math.nan, math.inf, -math.inf, -0.0, 1e308, 5e-324, 0.5]
wrong_scalars = st.one_of(
    st.none(), st.booleans(), st.sampled_from(ODD_NUMBERS), st.integers(), st.floats(),
    st.sampled_from(ODD_STRINGS), st.text(max_size=12),
)
FIELD_NAMES = ["type", "text", "content", "id", "name", "input", "message", "source", "data", "thinking",
               "tool_use_id", "is_error", "agentId", "structuredPatch", "lines", "answers", "options", "todos"]
wrong_values = st.recursive(
    wrong_scalars,
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=6)), children, max_size=3),
    max_leaves=6,
)


def paths_of(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every place in a JSON value: object members and list items, at any depth (not the root)."""
    if prefix:
        yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths_of(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths_of(child, (*prefix, index))


class Removed:
    """Marks a field that a change removes."""

    def __repr__(self) -> str:
        return "REMOVE"


REMOVE = Removed()
Change = tuple[str, int, tuple, Any]
"""(file, entry index, path inside the entry, new value or REMOVE)"""


def json_copy(value: Any) -> Any:
    """A copy of parsed JSON, as reading the file again would give it: new objects and arrays, the same
    immutable strings, numbers, booleans and nulls. copy.deepcopy gives the same for such a value (it has
    nothing shared to keep shared), several times slower: it was most of the time of the fuzzing here."""
    if isinstance(value, dict):
        return {key: json_copy(child) for key, child in value.items()}
    if isinstance(value, list):
        return [json_copy(child) for child in value]
    assert value is None or isinstance(value, (str, int, float)), type(value)  # bool is an int
    return value


def apply_changes(changes: list[Change]) -> dict[str, list[dict]]:
    files = json_copy(BASE_FILES)
    for name, index, path, value in changes:
        place = files[name][index]
        *parents, last = path
        try:
            for step in parents:
                place = place[step]
            if value is REMOVE:
                del place[last]
            else:
                place[last] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change took the place away (happens while hypothesis shrinks)
    return files


@st.composite
def wrong_type_changes(draw, max_changes: int = 4) -> list[Change]:
    """1 to `max_changes` fields of the realistic files (anywhere, at any depth) given a value of the
    wrong type, or removed. Drawn as a list of changes, so that a failing example prints short."""
    changes: list[Change] = []
    for _ in range(draw(st.integers(1, max_changes))):
        files = apply_changes(changes)
        name = draw(st.sampled_from(["main", "main", "main", "agent"]))
        index = draw(st.integers(0, len(files[name]) - 1))
        paths = list(paths_of(files[name][index]))
        if paths:
            value = draw(st.one_of(wrong_values, st.just(REMOVE), st.sampled_from(ODD_STRINGS)))
            changes.append((name, index, draw(st.sampled_from(paths)), value))
    return changes


def interpret_files(files: dict[str, list[dict]]) -> list:
    folder = Path("/nonexistent") / PROJECT_DIR
    main_file = SessionFile(folder / f"{SESSION_ID}.jsonl", PROJECT_DIR)
    agent_file = SessionFile(folder / SESSION_ID / "subagents" / f"agent-{AGENT_ID}.jsonl", PROJECT_DIR,
                             AGENT_ID, SESSION_ID)
    results = []
    for source, entries in ((main_file, files["main"]), (agent_file, files["agent"])):
        items = tuple(Entry(str(source.path), number, entry) for number, entry in enumerate(entries, start=1))
        results.append(interpret(source, ReadResult(items, ())))
    return results


def write_files(folder: Path, files: dict[str, list[dict]]) -> Path:
    """The session as it would be on disk. JSON is written ASCII-escaped, so a lone surrogate is the
    escape `\\ud800` a JSON writer would produce."""
    project = folder / PROJECT_DIR
    write_jsonl(project / f"{SESSION_ID}.jsonl", [json.dumps(entry) for entry in files["main"]])
    write_jsonl(project / SESSION_ID / "subagents" / f"agent-{AGENT_ID}.jsonl",
                [json.dumps(entry) for entry in files["agent"]])
    return project


def test_the_realistic_session_builds_and_covers_every_entry_kind(tmp_path: Path) -> None:
    """The base the fuzzing mutates is itself sound and reaches the code it is meant to reach."""
    main_result, agent_result = interpret_files(BASE_FILES)
    kinds = {type(event).__name__ for event in main_result.session.events}
    assert {"Prompt", "AssistantText", "Thinking", "ToolCall", "Plan", "Notice", "SlashCommand", "BashMode",
            "Unknown"} <= kinds
    assert main_result.sidechains and agent_result.has_conversation
    report = build(BuildConfig(inputs=(write_files(tmp_path, BASE_FILES),), output=tmp_path / "site"))
    assert report.sessions + report.subagent_runs >= 3 and report.diagnostics == []
    assert (tmp_path / "site" / "index.html").is_file()


@pytest.mark.slow
@settings(FAST, max_examples=500)
@given(changes=wrong_type_changes())
def test_interpret_never_raises_on_wrong_types(changes: list[Change]) -> None:
    files = apply_changes(changes)
    results = interpret_files(files)
    link(results)


@pytest.mark.slow
@settings(SLOW, max_examples=60)
@given(changes=wrong_type_changes(max_changes=6))
def test_build_never_raises_on_wrong_types(changes: list[Change]) -> None:
    files = apply_changes(changes)
    with tempfile.TemporaryDirectory() as folder:
        project = write_files(Path(folder), files)
        build(BuildConfig(inputs=(project,), output=Path(folder) / "site"))
        build(BuildConfig(inputs=(project,), output=Path(folder) / "md", markdown_only=True, show_hidden=True))


# =========================================================================================================
# the command line: empty files, empty folders, files of broken lines


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.mark.parametrize("command, pages", [("build", 1), ("markdown", 0)])
def test_cli_an_empty_jsonl_file(runner: CliRunner, tmp_path: Path, command: str, pages: int) -> None:
    """An empty session file is not an error: exit 0 and the usual one-line summary, `0 sessions, ...`
    (the build writes an index with no sessions in it)."""
    empty = tmp_path / PROJECT_DIR / f"{SESSION_ID}.jsonl"
    empty.parent.mkdir()
    empty.write_bytes(b"")
    out = tmp_path / "out"
    result = runner.invoke(main, [command, str(empty), "-o", str(out)])
    assert result.exit_code == 0, result.output
    summary, *rest = result.output.strip().splitlines()
    assert summary == f"0 sessions, {pages} page{'s' if pages != 1 else ''} -> {out}"
    assert all(line.startswith("vault: ") for line in rest)  # where the vault keeps the log, said once
    assert (out / "index.html").is_file() == (command == "build")


def test_cli_a_folder_with_no_sessions(runner: CliRunner, tmp_path: Path) -> None:
    folder = tmp_path / "nothing-here"
    (folder / "-home-ada-src-empty").mkdir(parents=True)
    (folder / "notes.txt").write_text("not a session", encoding="utf-8")
    result = runner.invoke(main, ["build", str(folder), "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    message = result.output.strip()
    assert "\n" not in message, "one line"
    assert "no session logs of Claude Code or Codex CLI" in message and str(folder) in message
    assert not (tmp_path / "out").exists()


def test_cli_a_file_of_only_broken_lines_names_each_line(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / PROJECT_DIR / f"{SESSION_ID}.jsonl"
    lines = [b'{"type": "user", "message": ', b"\xff\xfe\x00", b"[1, 2, 3]", b'"text"', b"", b"NaN",
             b'{"type": "assistant"']
    write_jsonl(path, lines, final_newline=False)
    report_file = tmp_path / "report.json"
    result = runner.invoke(main, ["build", str(path), "-o", str(tmp_path / "out"), "--report", str(report_file)])
    assert result.exit_code == 0, result.output
    broken = [1, 2, 3, 4, 6, 7]  # line 5 is blank: nothing to report
    for number in broken:
        assert f"{path}:{number}: " in result.output
    assert f"{path}:7: truncated last line" in result.output
    report = json.loads(report_file.read_text(encoding="utf-8"))
    assert sorted({d["line"] for d in report["diagnostics"]}) == broken
    assert all(d["file"] == str(path) and d["message"] for d in report["diagnostics"])
    strict = runner.invoke(main, ["build", str(path), "-o", str(tmp_path / "strict"), "--strict"])
    assert strict.exit_code == 1 and "--strict" in strict.output


# =========================================================================================================
# Known crashes, now fixed: one regression test each.


SURROGATE = re.compile("[\ud800-\udfff]")


def _session_file(folder: Path, lines: list[str | bytes]) -> Path:
    return write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", [user("what time is high water?"), *lines])


def test_known_crash_a_number_of_more_than_4300_digits(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [json.dumps(user("before")), b'{"n": 1' + b"0" * 4300 + b"}",
                                              json.dumps(user("after"))])
    result = read_file(path)
    assert [item.line for item in result.items if isinstance(item, Entry)] == [1, 3]
    assert [d.line for d in result.diagnostics] == [2]


@pytest.mark.parametrize("kind", ["[]", "{}", '["user"]', '{"name": "user"}'])
def test_known_crash_an_entry_type_that_is_an_array_or_object(tmp_path: Path, kind: str) -> None:
    path = _session_file(tmp_path, ['{"type": %s, "uuid": "u-1"}' % kind])
    result = interpret(SessionFile(path, PROJECT_DIR), read_file(path))
    assert any(event.__class__.__name__ == "Unknown" for event in result.session.events)


@pytest.mark.parametrize("duration", ["NaN", "Infinity", "-Infinity", "1" + "0" * 400])
def test_known_crash_a_turn_duration_that_is_not_a_finite_number(tmp_path: Path, duration: str) -> None:
    path = _session_file(tmp_path, ['{"type": "system", "subtype": "turn_duration", "durationMs": %s}' % duration])
    result = interpret(SessionFile(path, PROJECT_DIR), read_file(path))
    assert result.session.active_ms >= 0


@pytest.mark.parametrize("markdown_only", [False, True], ids=["html", "markdown"])
def test_known_crash_a_lone_surrogate_in_a_prompt(tmp_path: Path, markdown_only: bool) -> None:
    line = '{"type": "user", "message": {"role": "user", "content": "the tide \\ud83c is out"}}'
    _session_file(tmp_path, [line])
    build(BuildConfig(inputs=(tmp_path / PROJECT_DIR,), output=tmp_path / "site", markdown_only=markdown_only))


@pytest.mark.parametrize("first, last", [("2026-03-02T09:00:00", "2026-03-02T10:00:00.000Z"),
                                         ("2026-03-02T09:00:00.000Z", "2026-03-02T10:00:00")],
                         ids=["naive-first", "aware-first"])
def test_known_crash_timestamps_with_and_without_an_offset(tmp_path: Path, first: str, last: str) -> None:
    write_jsonl(tmp_path / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                [user("when is high water?", timestamp=first), assistant(text("At 14:02."), timestamp=last)])
    build(BuildConfig(inputs=(tmp_path / PROJECT_DIR,), output=tmp_path / "site"))


@pytest.mark.parametrize("tokens", ["1" + "0" * 320, "9" * 4300], ids=["1e320", "4300-nines"])
def test_known_crash_a_token_count_past_the_float_range(tmp_path: Path, tokens: str) -> None:
    line = ('{"type": "assistant", "uuid": "u-1", "message": {"role": "assistant", "id": "m1", "content": '
            '[{"type": "text", "text": "High water at 14:02."}], "usage": {"input_tokens": %s}}}' % tokens)
    _session_file(tmp_path, [line])
    build(BuildConfig(inputs=(tmp_path / PROJECT_DIR,), output=tmp_path / "site"))


@pytest.mark.parametrize("options", ["1", "true", "NaN", "2.5"])
def test_known_crash_ask_user_question_options_that_are_a_number(tmp_path: Path, options: str) -> None:
    call = ('{"type": "assistant", "uuid": "u-1", "message": {"role": "assistant", "id": "m1", "content": '
            '[{"type": "tool_use", "id": "toolu_1", "name": "AskUserQuestion", "input": {"questions": '
            '[{"question": "Inclusive?", "options": %s}]}}]}}' % options)
    _session_file(tmp_path, [call])
    build(BuildConfig(inputs=(tmp_path / PROJECT_DIR,), output=tmp_path / "site", markdown_only=True))
