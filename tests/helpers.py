"""Small builders for Claude Code transcripts, shared by the phase-1 unit tests.

Entries are shaped like the ones Claude Code writes (see examples/ and ../shared/corpus/public): the same
envelope fields (`parentUuid`, `isSidechain`, `userType`, `cwd`, `sessionId`, `version`, `gitBranch`, `uuid`,
`timestamp`), `message` objects with `role`/`content`, assistant `usage` blocks and `requestId`, and
`toolUseResult` beside tool results. The text in them is invented.
"""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterable, TypeVar

from generator.pipeline.phase1 import collect, linked_events
from generator.pipeline.plans import Redaction
from generator.stages.discover import SessionFile
from generator.core.model import Interpreted
from generator.stages.interpret import interpret
from generator.core.model import Archive, Session
from generator.stages.read import read_file
from generator.stages.redact import Redactor

SESSION_ID = "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b"
OTHER_SESSION_ID = "9c8d7e6f-5a4b-4c3d-9e2f-1a0b9c8d7e6f"
CWD = "/home/ada/src/tidewatch"
PROJECT_DIR = "-home-ada-src-tidewatch"
VERSION = "2.1.39"
MODEL = "claude-opus-4-6"
START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=timezone.utc)

# A 1x1 transparent PNG, as a pasted screenshot would be embedded.
PNG_BYTES = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

_uuids = itertools.count(1)
_clock = itertools.count(0)
_ids = itertools.count(1)

E = TypeVar("E")


def new_uuid() -> str:
    return f"00000000-0000-4000-8000-{next(_uuids):012d}"


def at(seconds: float) -> str:
    """An ISO 8601 timestamp `seconds` after START, written the way Claude Code writes them."""
    moment = START + timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _next_time() -> str:
    return at(next(_clock))


def write_jsonl(path: Path, entries: Iterable[dict | str | bytes], *, final_newline: bool = True) -> Path:
    """Write one line per entry: dicts are dumped as JSON, str and bytes are written as they are (for broken
    lines). Parent folders are created."""
    lines = []
    for entry in entries:
        if isinstance(entry, bytes):
            lines.append(entry)
        elif isinstance(entry, str):
            lines.append(entry.encode("utf-8"))
        else:
            lines.append(json.dumps(entry, ensure_ascii=False).encode("utf-8"))
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------------------------------------------------
# Entries


def build_project(tmp_path: Path, files: dict[str, list]) -> Path:
    """Write each file under one project folder (names may hold subfolders) and build the site from it, with the
    default options; the site's folder."""
    from generator.build import BuildConfig, build

    project = tmp_path / "in" / PROJECT_DIR
    for name, entries in files.items():
        write_jsonl(project / name, entries)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    return out


def _envelope(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields every conversation entry carries; `fields` override or add to them (camelCase names as in
    the files, e.g. isMeta=True, slug="...", toolUseResult={...})."""
    entry: dict[str, Any] = {
        "parentUuid": fields.pop("parentUuid", None),
        "isSidechain": fields.pop("isSidechain", False),
        "userType": "external",
        "cwd": fields.pop("cwd", CWD),
        "sessionId": fields.pop("sessionId", SESSION_ID),
        "version": fields.pop("version", VERSION),
        "gitBranch": fields.pop("gitBranch", "main"),
        "type": kind,
    }
    entry["uuid"] = fields.pop("uuid", None) or new_uuid()
    entry["timestamp"] = fields.pop("timestamp", None) or _next_time()
    entry.update(fields)
    return entry


def user(content: str | list, **fields: Any) -> dict[str, Any]:
    """A `user` entry: a prompt (text or a list of parts), or anything Claude Code injects as the user."""
    fields["message"] = {"role": "user", "content": content}
    return _envelope("user", fields)


def assistant(*parts: dict, model: str = MODEL, message_id: str | None = None, request_id: str | None = None,
              usage: dict | None = None, **fields: Any) -> dict[str, Any]:
    """An `assistant` entry holding `parts` (one part per line is what streaming writes)."""
    number = next(_ids)
    fields["message"] = {
        "model": model,
        "id": message_id or f"msg_01TestMessage{number:06d}",
        "type": "message",
        "role": "assistant",
        "content": list(parts),
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage if usage is not None else usage_block(),
    }
    fields.setdefault("requestId", request_id or f"req_011TestRequest{number:06d}")
    return _envelope("assistant", fields)


def usage_block(input_tokens: int = 3, output_tokens: int = 9, cache_read: int = 14000,
                cache_creation: int = 300) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cache_creation},
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "EpcBCkYIBRgCKkB"}


def tool_use(name: str, tool_input: dict, tool_use_id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_use_id or f"toolu_01Test{next(_ids):08d}", "name": name,
            "input": tool_input}


def image(data: bytes = PNG_BYTES, media_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode()}}


def tool_result(tool_use_id: str, content: str | list, *, is_error: bool = False, structured: Any = None,
                **fields: Any) -> dict[str, Any]:
    """The `user` entry that carries a tool's result, with the structured `toolUseResult` beside it."""
    part = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content, "is_error": is_error}
    if structured is not None:
        fields["toolUseResult"] = structured
    return user([part], **fields)


def system(subtype: str, content: str | None = None, **fields: Any) -> dict[str, Any]:
    if content is not None:
        fields["content"] = content
    fields.setdefault("isMeta", False)
    fields.setdefault("level", "info")
    return _envelope("system", {"subtype": subtype, **fields})


def summary(value: str, leaf_uuid: str) -> dict[str, Any]:
    return {"type": "summary", "summary": value, "leafUuid": leaf_uuid}


def custom_title(value: str, session_id: str = SESSION_ID) -> dict[str, Any]:
    return {"type": "custom-title", "customTitle": value, "sessionId": session_id}


def ai_title(value: str, session_id: str = SESSION_ID) -> dict[str, Any]:
    return {"type": "ai-title", "aiTitle": value, "sessionId": session_id}


def snapshot() -> dict[str, Any]:
    message_id = new_uuid()
    return {"type": "file-history-snapshot", "messageId": message_id,
            "snapshot": {"messageId": message_id, "trackedFileBackups": {}, "timestamp": _next_time()},
            "isSnapshotUpdate": False}


def chain(*entries: dict) -> list[dict]:
    """Thread main-conversation entries the way Claude Code does: each one's parentUuid is the previous
    uuid. Entries without a uuid (summaries, titles, snapshots) and sidechain entries are left alone."""
    previous = None
    for entry in entries:
        if "uuid" not in entry or entry.get("isSidechain"):
            continue
        if previous is not None and entry.get("parentUuid") is None:
            entry["parentUuid"] = previous
        previous = entry["uuid"]
    return list(entries)


def sidechain_run(*entries: dict, agent_id: str = "") -> list[dict]:
    """An inline 1.x subagent run: `isSidechain: true` entries, the first with a null parentUuid and each
    later one pointing at the one before."""
    previous = None
    for entry in entries:
        entry["isSidechain"] = True
        entry["parentUuid"] = previous
        if agent_id:
            entry["agentId"] = agent_id
        previous = entry["uuid"]
    return list(entries)


# ---------------------------------------------------------------------------------------------------------
# Running the stages


def interpret_path(path: Path, project_dir: str | None = None, agent_id: str = "",
                   parent_session_id: str = "") -> Interpreted:
    source = SessionFile(path, project_dir or path.parent.name, agent_id, parent_session_id)
    return interpret(source, read_file(path))


def interpret_entries(tmp_path: Path, entries: Iterable[dict | str | bytes],
                      name: str = f"{SESSION_ID}.jsonl") -> Interpreted:
    """Write the entries as a session file in a project folder and interpret it."""
    path = write_jsonl(tmp_path / PROJECT_DIR / name, entries)
    return interpret_path(path)


def build_archive(*inputs: Path) -> Archive:
    """Phase 1 as the build runs it (discover, read, interpret, link), with each session's events as
    phase 2 streams them to the renderer: replays left out, Task calls linked, plans marked."""
    archive, _, plans = collect(list(inputs), redactor=Redactor(secrets=False))
    sessions = dict(archive.sessions)
    for plan in plans:
        for key, events in linked_events(archive, plan.source, Redaction(secrets=False)).items():
            sessions[key] = replace(sessions[key], events=tuple(events))
    return replace(archive, sessions=sessions)


def events_of(session: Session, kind: type[E]) -> list[E]:
    return [event for event in session.events if isinstance(event, kind)]


def session_by_source(archive: Archive, path: Path) -> Session:
    """The session read from `path` (not the inline sidechain runs split off from it)."""
    def same(source: str) -> bool:
        return Path(source).resolve() == path.resolve()

    matches = [s for s in archive.sessions.values()
               if same(s.source) and not (s.parent_key in archive.sessions
                                          and same(archive.sessions[s.parent_key].source))]
    assert len(matches) == 1, f"expected one session from {path}, found {len(matches)}"
    return matches[0]


def read_entries(path: Path) -> list[dict]:
    """The JSON-object entries of a session file (JSONL, or a JSON array), skipping what does not parse:
    the independent reading the tests compare sessionsite's output against."""
    if path.suffix == ".json":
        return [e for e in json.loads(path.read_text(encoding="utf-8")) if isinstance(e, dict)]
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def read_numbered_entries(path: Path) -> list[tuple[int, dict]]:
    """Like `read_entries`, with where each entry is: its line number in a JSONL file, or its 1-based
    position in a JSON array, so a test can say which entry it means."""
    if path.suffix == ".json":
        values = json.loads(path.read_text(encoding="utf-8"))
        return [(number, e) for number, e in enumerate(values, start=1) if isinstance(e, dict)]
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append((number, value))
    return found


def lines_shown(element) -> list[str]:
    """A message's text as a reader sees its lines: a <br> or the end of a paragraph ends a line; the meta
    line and paragraphs with no text (a pasted image) are not lines of the message."""
    line_end = "\u2028"
    for br in element.find_all("br"):
        br.replace_with(line_end)
    paragraphs = [p.get_text().replace(line_end + "\n", line_end).replace("\n", " ")
                  for p in element.find_all("p", recursive=False)
                  if "meta" not in (p.get("class") or []) and p.get_text().strip()]
    return line_end.join(paragraphs).replace("\u00a0", " ").split(line_end)


class _StartTags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        # As BeautifulSoup keeps them: the last of repeated attributes, "" for one without a value.
        self.tags.append((tag, {name: value or "" for name, value in attrs}))


def start_tags(html: str) -> list[tuple[str, dict[str, str]]]:
    """Every element of the page, as its name and attributes, in document order: what a BeautifulSoup
    tree's find_all(True) gives of them (but for the multi-valued ones, class and rel, kept as one string),
    from the standard library's tokenizer alone, several times faster."""
    parser = _StartTags()
    parser.feed(html)
    parser.close()
    return parser.tags


def element_ids(html: str) -> list[str]:
    """The id of every element of the page that has one, in document order (find_all(id=True))."""
    return [attributes["id"] for _, attributes in start_tags(html) if "id" in attributes]


def git(folder: Path, *arguments: str) -> str:
    """Run git in `folder`; its output."""
    return subprocess.run(["git", *arguments], cwd=folder, check=True, capture_output=True, text=True).stdout


def github_clone(tmp_path: Path, monkeypatch: Any) -> Path:
    """A clone of a bare "GitHub" repository (`tmp_path/github.git`), on main with one commit pushed, as the
    current folder; commits are Ada's."""
    for name, value in {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
                        "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}.items():
        monkeypatch.setenv(name, value)
    remote = tmp_path / "github.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(remote), str(work)], check=True, capture_output=True)
    git(work, "checkout", "-q", "-b", "main")
    (work / "README.md").write_text("# app\n", encoding="utf-8")
    git(work, "add", "README.md")
    git(work, "commit", "-q", "-m", "first")
    git(work, "push", "-q", "origin", "main")
    monkeypatch.chdir(work)
    return work
