"""Each case in tests/fixtures/cases/*.md: a session's JSONL lines in, the Markdown document the build writes out.

A case file reads like markdown-it-py's fixtures: a title line, then three `.`-terminated sections, the first
opening with a `.` line:

    Bash: a command and its output
    .
    {"type": "assistant", "message": {"content": [...]}}
    {"type": "user", "message": {"content": [...]}, "toolUseResult": {...}}
    .
    ...the session's Markdown document...
    .

The document is shown from its `# title` on; its front matter too in the files named in FRONT_MATTER_SHOWN
(where the entries under test are the ones that set it: titles, summaries, models, counts).

So a case stays readable, each conversation line (user, assistant, system, attachment, progress) only needs the
fields it is about: the envelope fields every such line carries in a real file (`uuid`, `parentUuid` threading
each line to the one before, `sessionId`, `timestamp` one second after the previous line, `cwd`, `version`,
`gitBranch`, `userType`, `isSidechain`), and an assistant message's `id`, `model`, `usage` and the entry's
`requestId`, are filled in when the line leaves them out. A field the line gives is kept as given.

The case runs in memory, through the stages a build runs (read, interpret, link, then the Markdown stage), with
no site written. The expected Markdown is a reviewed golden: after a deliberate change of output, regenerate the
files with `SESSIONSITE_UPDATE_FIXTURES=1 pytest tests/test_fixture_cases.py` and read the diff before
committing it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from generator.render.markdown import MarkdownOptions, SessionDocument
from generator.render.markdown.tools import RENDERERS
from generator.stages.interpret import (ASSISTANT_PART_HANDLERS, ENTRY_HANDLERS, SYSTEM_HANDLERS,
                                       USER_PART_HANDLERS)

from helpers import build_archive, write_jsonl
from test_render_stages import MemoryOutput

CASES_DIR = Path(__file__).parent / "fixtures" / "cases"
UPDATE = os.environ.get("SESSIONSITE_UPDATE_FIXTURES") == "1"

SESSION_ID = "3f0c9a7e-1b2d-4c5e-8f6a-7b8c9d0e1f2a"
PROJECT_DIR = "-home-lin-src-harbor"
START = datetime(2026, 4, 7, 14, 0, 0, tzinfo=timezone.utc)
CONVERSATION_TYPES = {"user", "assistant", "system", "attachment", "progress"}
FRONT_MATTER_SHOWN = {"bookkeeping.md"}


@dataclass
class Case:
    file: Path
    line: int  # the title's line number, 1-based, so a failure names where to look
    title: str
    jsonl: str
    expected: str

    @property
    def id(self) -> str:
        return f"{self.file.stem}:{self.line}:{self.title}"


def read_cases(path: Path) -> list[Case]:
    lines = path.read_text(encoding="utf-8").split("\n")
    cases, index = [], 0
    while index < len(lines):
        if not lines[index].strip() or lines[index].startswith("<!--"):
            index += 1
            continue
        title_line = index
        if index + 1 >= len(lines) or lines[index + 1] != ".":
            raise ValueError(f"{path}:{index + 1}: a case's title must be followed by a '.' line")
        sections, index = [], index + 2
        for _ in range(2):
            start = index
            while index < len(lines) and lines[index] != ".":
                index += 1
            if index >= len(lines):
                raise ValueError(f"{path}:{title_line + 1}: case {lines[title_line]!r} has no closing '.' line")
            sections.append("\n".join(lines[start:index]))
            index += 1
        cases.append(Case(path, title_line + 1, lines[title_line], sections[0], sections[1]))
    return cases


def write_cases(path: Path, cases: list[Case], outputs: dict[int, str]) -> None:
    text = path.read_text(encoding="utf-8").split("\n")
    header = []
    for line in text:
        if line.startswith("<!--") or (header and not line.strip() and header[-1].startswith("<!--")):
            header.append(line)
            continue
        break
    chunks = ["\n".join(header).rstrip("\n") + "\n\n" if header else ""]
    for case in cases:
        if "." in outputs.get(case.line, "").split("\n"):
            raise ValueError(f"{path}:{case.line}: the output of {case.title!r} holds a line '.', which would end it")
        chunks.append(f"{case.title}\n.\n{case.jsonl}\n.\n{outputs.get(case.line, case.expected)}\n.\n\n")
    path.write_text("".join(chunks).rstrip("\n") + "\n", encoding="utf-8")


def completed(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each conversation line with the envelope fields it leaves out filled in, as Claude Code writes them."""
    previous: str | None = None
    for number, entry in enumerate(entries, 1):
        if entry.get("type") not in CONVERSATION_TYPES:
            continue
        filled: dict[str, Any] = {
            "parentUuid": previous, "isSidechain": False, "userType": "external", "cwd": "/home/lin/src/harbor",
            "sessionId": SESSION_ID, "version": "2.1.42", "gitBranch": "main",
            "uuid": f"00000000-0000-4000-8000-{number:012d}",
            "timestamp": (START + timedelta(seconds=number)).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        if entry["type"] == "assistant":
            filled["requestId"] = f"req_011Harbor{number:06d}"
            message = entry.setdefault("message", {})
            for key, value in {"model": "claude-opus-4-6", "id": f"msg_01Harbor{number:06d}", "type": "message",
                               "role": "assistant", "stop_reason": None, "stop_sequence": None,
                               "usage": {"input_tokens": 4, "output_tokens": 12, "cache_read_input_tokens": 9000,
                                         "cache_creation_input_tokens": 200}}.items():
                message.setdefault(key, value)
        elif entry["type"] == "user":
            entry.setdefault("message", {}).setdefault("role", "user")
        for key, value in filled.items():
            entry.setdefault(key, value)
        if not entry.get("isSidechain"):
            previous = entry["uuid"]
    return entries


def written_document(jsonl: str, folder: Path, front_matter: bool) -> str:
    entries = [json.loads(line) for line in jsonl.split("\n") if line.strip()]
    write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", completed(entries))
    archive = build_archive(folder)
    output = MemoryOutput()
    documents = []
    for session in archive.sessions.values():
        if session.agent_id:
            continue
        document = SessionDocument(session, archive, MarkdownOptions(), output, lambda part: None)
        for event in session.events:
            document(event)
        document.finish()
    for path, content in sorted(output.files.items()):
        if path.endswith(".md"):
            document_text = content.decode("utf-8")
            if not front_matter:
                assert document_text.startswith("---\n"), f"{path} opens with no front matter"
                document_text = document_text.split("\n---\n", 1)[1].lstrip("\n")
            documents.append(document_text)
    return "\n".join(documents).rstrip("\n")


CASE_FILES = sorted(CASES_DIR.glob("*.md"))
ALL_CASES = [case for path in CASE_FILES for case in read_cases(path)]


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_case(case: Case, tmp_path: Path) -> None:
    shown = written_document(case.jsonl, tmp_path, case.file.name in FRONT_MATTER_SHOWN)
    if UPDATE:
        pytest.skip("regenerated by test_regenerate_cases")
    assert shown == case.expected, f"{case.file}:{case.line}: {case.title}"


@pytest.mark.skipif(not UPDATE, reason="set SESSIONSITE_UPDATE_FIXTURES=1 to regenerate the expected Markdown")
@pytest.mark.parametrize("path", CASE_FILES, ids=[path.name for path in CASE_FILES])
def test_regenerate_cases(path: Path, tmp_path: Path) -> None:
    cases = read_cases(path)
    outputs = {}
    for number, case in enumerate(cases):
        outputs[case.line] = written_document(case.jsonl, tmp_path / str(number), path.name in FRONT_MATTER_SHOWN)
    write_cases(path, cases, outputs)


def test_every_case_file_has_cases() -> None:
    assert CASE_FILES, f"no case files in {CASES_DIR}"
    for path in CASE_FILES:
        assert read_cases(path), f"{path} holds no case"


def test_the_reader_keeps_a_case_apart_from_the_next(tmp_path: Path) -> None:
    path = tmp_path / "two.md"
    path.write_text("first\n.\n{\"a\": 1}\n.\nout one\n\nstill one\n.\n\nsecond\n.\n{}\n.\nout two\n.\n")
    first, second = read_cases(path)
    assert (first.title, first.jsonl, first.expected, first.line) == ("first", '{"a": 1}', "out one\n\nstill one", 1)
    assert (second.title, second.expected, second.line) == ("second", "out two", 10)


def test_the_reader_names_the_file_and_line_of_an_unclosed_case(tmp_path: Path) -> None:
    path = tmp_path / "broken.md"
    path.write_text("ok\n.\n{}\n.\nout\n.\n\nbroken\n.\n{}\n")
    with pytest.raises(ValueError, match=r"broken\.md:8: case 'broken' has no closing"):
        read_cases(path)


def _in_cases() -> tuple[set[str], set[str], set[str], set[str]]:
    """The tool names, entry types, system subtypes and message part types the cases hold."""
    tools, types, subtypes, parts = set(), set(), set(), set()
    for case in ALL_CASES:
        for line in case.jsonl.split("\n"):
            entry = json.loads(line) if line.strip() else {}
            types.add(entry.get("type", ""))
            if entry.get("type") == "system":
                subtypes.add(entry.get("subtype", ""))
            content = entry.get("message", {}).get("content")
            for part in content if isinstance(content, list) else ():
                parts.add(f"{entry['type']}:{part.get('type')}")
                if part.get("type") in {"tool_use", "server_tool_use"}:
                    tools.add(part["name"])
    return tools, types, subtypes, parts


def test_every_tool_renderer_entry_type_system_subtype_and_part_type_has_a_case() -> None:
    tools, types, subtypes, parts = _in_cases()
    assert sorted(set(RENDERERS) - tools) == []
    assert sorted(set(ENTRY_HANDLERS) - types) == []
    assert sorted(set(SYSTEM_HANDLERS) - subtypes) == []
    handled = {f"user:{name}" for name in USER_PART_HANDLERS} | {f"assistant:{name}" for name in ASSISTANT_PART_HANDLERS}
    assert sorted(handled - parts) == []
