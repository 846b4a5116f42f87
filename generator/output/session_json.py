"""The JSON export's format: each session as one JSON document, written as its events stream past, and an
index of every session exported.

A writer over the interpreted, redacted sessions, as the pages are: phase 2 hands each session's events, in
order, to its `SessionJsonWriter`, which writes the document's head (what phase 1 knows: title, project,
branch, figures, commits, links to other sessions) and then one event a line, so that a session of any size
is written in the memory of one event. `json_schema/export.schema.json` describes both documents; its
`schema_version` is `SCHEMA_VERSION`, which changes whenever a field changes meaning or goes away.

Transcript text is hostile: a value JSON cannot hold as it is (a lone surrogate, a NaN, an integer past 64
bits) is written the way a reader's JSON parser takes it (U+FFFD, null, the number's digits), and an event
that still cannot be written becomes an `unwritable` event naming why, with one diagnostic naming the file.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

import orjson

from .. import __version__
from ..core import urls
from ..core.model import (Archive, AssistantText, BashMode, Commit, Diagnostic, Event, EventBase, Media, Notice, Plan,
                          Prompt, Session, SlashCommand, Thinking, ToolCall, ToolResult, Unknown, Unreadable, Usage,
                          as_unknown)
from ..stages.commits import commit_url
from ..stages.link import linked_event
from ..render.stats import Totals, total_tokens, totals

SCHEMA_VERSION = 1
"""Of both documents; raised whenever a field is renamed, removed or changes meaning (a field added is not)."""
SCHEMA = Path(__file__).with_name("json_schema") / "export.schema.json"
INDEX = "index.json"
GENERATOR = {"name": "sessionsite", "version": __version__}
TEXT_DOCUMENT = "text/plain"
"""A text file attached to a prompt: its text is exported (an image's or a PDF's bytes are not)."""


# -- values JSON can hold ----------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """orjson's fallback for the model's read-only mappings (tool inputs, structured results)."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""In a Python string every surrogate is a lone one: a pair that JSON escaped is read as the one character."""


def _careful(value: Any) -> Any:
    """`value` with what JSON cannot hold replaced as a reader's parser would take it: each lone surrogate
    becomes one U+FFFD, a NaN or an infinity null (as JavaScript's JSON.stringify writes them); an integer of
    any size stays a number."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {_careful(str(k)): _careful(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_careful(v) for v in value]
    raise ValueError(f"not a JSON value: {type(value).__name__}")


def dumps(value: Any) -> bytes:
    """One JSON value, UTF-8, on one line. orjson takes the usual value; what it refuses (lone surrogates,
    integers past 64 bits, nesting past 255 levels) takes the careful path. Raises ValueError (or
    RecursionError) when even that cannot write it."""
    try:
        return orjson.dumps(value, default=_plain)
    except orjson.JSONEncodeError:
        pass
    text = json.dumps(_careful(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-8")


# -- the session's head: what phase 1 knows -----------------------------------------------------------------


def _tokens(usage: Usage) -> dict[str, int]:
    return {"input": usage.input_tokens, "output": usage.output_tokens, "cache_read": usage.cache_read_tokens,
            "cache_creation": usage.cache_creation_tokens, "cache_creation_1h": usage.cache_creation_1h_tokens,
            "total": total_tokens(usage)}


def _moment(timestamp: str) -> datetime:
    parsed = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    # Claude Code writes UTC; a time without an offset is read as UTC too, as the page reads it.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _milliseconds_between(started: str, ended: str) -> int | None:
    try:
        return max(0, round((_moment(ended) - _moment(started)).total_seconds() * 1000))
    except (ValueError, OverflowError):
        return None  # a time Claude Code did not write, or none: no duration rather than a wrong one


def figures(found: Totals, session: Session | None = None) -> dict[str, Any]:
    """The figures the pages print, as numbers: prompts, tool calls by tool, errors, tokens and the
    estimated cost by model (the page's "Estimated cost" is `cost_usd` rounded to cents)."""
    models = [{"model": f.model, "tokens": _tokens(f.usage), "cost_usd": f.cost,
               "cost_source": None if f.cost is None else "reported" if f.reported else "price-table"}
              for f in found.models]
    result: dict[str, Any] = {
        "prompts": found.prompts,
        "tool_calls": found.tool_calls,
        "tools": [{"name": name, "calls": calls, "errors": found.tool_errors.get(name, 0)}
                  for name, calls in sorted(found.tool_counts.items(), key=lambda item: (-item[1], item[0]))],
        "tool_errors": found.tool_error_count,
        "api_errors": found.api_errors,
        "active_ms": found.active_ms,
        "tokens": _tokens(found.usage),
        "models": models,
        "cost_usd": found.cost if any(f.cost is not None for f in found.models) else None,
        "unpriced_models": found.unpriced,
        "tokens_by_day": dict(sorted(found.tokens_by_day.items())),
    }
    if session is not None:
        result["duration_ms"] = _milliseconds_between(session.started, session.ended)
        result["replayed_events"] = session.replayed
    return result


def _commit(commit: Commit, repo_url: str) -> dict[str, Any]:
    return {"sha": commit.sha, "branch": commit.branch or None, "subject": commit.subject,
            "time": commit.timestamp or None, "url": commit_url(repo_url or commit.forge, commit.sha) or None,
            "files_changed": commit.files_changed if commit.files_changed >= 0 else None,
            "insertions": commit.insertions, "deletions": commit.deletions, "root": commit.root,
            "amend": commit.amend, "call": commit.anchor}


def document_path(key: str) -> str:
    """Where a session's document goes in the export: the page's path with .json (`urls.session_page`)."""
    return urls.session_page(key, "json")


def session_head(session: Session, archive: Archive, repo_url: str = "") -> dict[str, Any]:
    """Everything about a session but its events: the `session` of its document and its line in the index."""
    sessions = archive.sessions
    project = next((p for p in archive.projects if p.dir_name == session.project_dir), None)
    chain = archive.chains.get(session.chain_key)

    def known(key: str) -> str | None:
        return key if key and key in sessions else None

    return {
        "key": session.key,
        "file": document_path(session.key),
        "id": session.session_id,
        "agent_id": session.agent_id or None,
        "written_by": session.agent,
        "is_subagent": session.is_subagent,
        "title": session.title,
        "custom_title": session.custom_title or None,
        "slug": session.slug or None,
        "project": {"folder": session.project_dir, "path": project.path if project else session.cwd},
        "cwd": session.cwd,
        "branch": session.git_branch or None,
        "models": list(session.models),
        "versions": list(session.versions),
        "started": session.started or None,
        "ended": session.ended or None,
        "first_prompt": session.first_prompt or None,
        "parent": ({"key": session.parent_key, "call": session.parent_anchor or None}
                   if known(session.parent_key) else None),
        "subagents": [key for key in session.subagent_keys if key in sessions],
        "chain": ({"key": chain.key, "role": session.role or None, "sessions": list(chain.session_keys),
                   "previous": known(session.previous_key), "next": known(session.next_key)} if chain else None),
        "continues": known(session.continues_key),
        "plan_source": known(session.plan_source_key),
        "kept_by_vault_since": archive.kept.get(session.key) or None,
        "figures": figures(totals([session]), session),
        "commits": [_commit(commit, repo_url) for commit in session.commits],
        "files_touched": [{"path": touch.path, "changes": touch.changes} for touch in session.files_touched],
        "files_left_out": session.files_left_out,
    }


# -- events ------------------------------------------------------------------------------------------------


def _media(files: Iterable[Media]) -> list[dict[str, Any]]:
    found = []
    for media in files:
        item: dict[str, Any] = {"media_type": media.media_type, "bytes": len(media.data),
                                "sha256": hashlib.sha256(media.data).hexdigest() if media.data else None,
                                "source": media.source or None}
        if media.media_type == TEXT_DOCUMENT:
            item["text"] = media.data.decode("utf-8", "replace")
        found.append(item)
    return found


def _result(result: ToolResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"time": result.timestamp or None, "text": result.text, "is_error": result.is_error,
            "structured": result.structured, "media": _media(result.images),
            "ending": str(result.ending) or None, "feedback": result.feedback or None,
            "instruction": result.instruction or None, "harness": result.harness or None}


def event_json(event: EventBase) -> dict[str, Any]:
    """One event as its document holds it (without the long line an `Unreadable` may have: `stream_event`)."""
    hidden = bool(getattr(event, "hidden", False))
    if isinstance(event, Prompt):
        found: dict[str, Any] = {"type": "prompt", "id": event.anchor, "time": event.timestamp or None,
                                 "text": event.text, "by_agent": event.by_agent,
                                 "label": str(event.label) or None, "media": _media(event.images)}
    elif isinstance(event, AssistantText):
        found = {"type": "reply", "id": event.anchor, "time": event.timestamp or None, "text": event.text,
                 "model": event.model or None}
    elif isinstance(event, Thinking):
        found = {"type": "thinking", "id": event.anchor, "time": event.timestamp or None, "text": event.text}
    elif isinstance(event, ToolCall):
        found = {"type": "tool_call", "id": event.anchor, "time": event.timestamp or None,
                 "tool_use_id": event.tool_use_id, "name": event.name, "input": event.input,
                 "result": _result(event.result), "subagent": event.subagent or None,
                 "tasks": [{"id": t.id, "subject": t.subject, "status": t.status} for t in event.tasks]}
    elif isinstance(event, Plan):
        found = {"type": "plan", "id": event.anchor, "time": event.timestamp or None, "text": event.text,
                 "status": str(event.status), "decision": event.decision.value, "how": event.how or None,
                 "feedback": event.feedback or None, "tool": event.tool or None}
    elif isinstance(event, SlashCommand):
        found = {"type": "slash_command", "id": event.anchor, "time": event.timestamp or None, "name": event.name,
                 "args": event.args, "output": event.output or None}
    elif isinstance(event, BashMode):
        found = {"type": "shell_command", "id": event.anchor, "time": event.timestamp or None,
                 "command": event.command, "stdout": event.stdout, "stderr": event.stderr}
    elif isinstance(event, Notice):
        found = {"type": "notice", "id": event.anchor, "time": event.timestamp or None, "kind": str(event.kind),
                 "text": event.text, "milliseconds": event.milliseconds or None,
                 "details": dict(event.details), "related": event.related or None, "mode": str(event.mode) or None,
                 "harness": dict(event.harness)}
    elif isinstance(event, Unknown):
        found = {"type": "unknown", "id": event.anchor, "time": event.timestamp or None, "name": event.name,
                 "raw": event.raw}
    elif isinstance(event, Unreadable):
        found = {"type": "unreadable", "id": event.anchor, "line": event.line, "reason": event.reason,
                 "text": event.text}
    else:  # a kind this export has no form for: as an unknown event, with all its fields
        return event_json(as_unknown(event))
    if hidden:
        found["hidden"] = True
    return found


def _long_line(event: Unreadable) -> Iterator[bytes]:
    """A line too long to read whole, written a piece at a time as the string it is: never held whole."""
    head = dumps({"type": "unreadable", "id": event.anchor, "line": event.line, "reason": event.reason})
    yield head[:-1] + b',"text":"'
    assert event.whole is not None
    for piece in event.whole():
        yield dumps(piece)[1:-1]
    yield b'"}'


# -- a session's document, as its events come ------------------------------------------------------------


class SessionJsonWriter:
    """One session's document: its head at once, then each event as phase 2 interprets it, one a line,
    into `path` (a file of the staging folder, which the export swaps in whole)."""

    def __init__(self, session: Session, archive: Archive, path: Path, *, show_hidden: bool = False,
                 repo_url: str = "", problems: list[Diagnostic] | None = None):
        self.session = session
        self.show_hidden = show_hidden
        self.problems = problems if problems is not None else []
        self.events = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self.handle: IO[bytes] = path.open("xb")  # exclusive: two sessions never share a document
        head = dumps({"kind": "session", "schema_version": SCHEMA_VERSION, "generator": GENERATOR,
                      "session": session_head(session, archive, repo_url)})
        self.handle.write(head[:-1] + b',"events":[')

    def __call__(self, event: Event) -> None:
        event = linked_event(self.session, event)
        if getattr(event, "hidden", False) and not self.show_hidden:
            return  # as the page leaves it out
        self.handle.write(b"\n" if self.events == 0 else b",\n")
        self.events += 1
        if isinstance(event, Unreadable) and event.whole is not None:
            for piece in _long_line(event):
                self.handle.write(piece)
            return
        try:
            self.handle.write(dumps(event_json(event)))
        except (ValueError, RecursionError) as error:
            reason = f"cannot be written as JSON ({error})"
            self.problems.append(Diagnostic(self.session.source, 0, f"event {event.anchor} of session "
                                                                    f"{self.session.key}: {reason}; exported as "
                                                                    "an `unwritable` event"))
            self.handle.write(dumps({"type": "unwritable", "id": event.anchor, "reason": reason}))

    def close(self) -> None:
        self.handle.write(b"\n]}\n")
        self.handle.close()


def index_document(archive: Archive, repo_url: str = "", *, redacted: bool = True, home_redacted: bool = False,
                   show_hidden: bool = False) -> bytes:
    """The index: every session's head (no events), the projects, and the figures over all of them."""
    sessions = sorted(archive.sessions.values(), key=lambda s: (s.started, s.key))
    listed = [s for s in sessions if s.is_listed]
    return dumps({
        "kind": "index",
        "schema_version": SCHEMA_VERSION,
        "generator": GENERATOR,
        "options": {"redacted": redacted, "home_directories_redacted": home_redacted, "show_hidden": show_hidden},
        "counts": {"sessions": len(listed), "subagent_runs": len(sessions) - len(listed)},
        "figures": figures(totals(sessions)),
        "projects": [{"folder": p.dir_name, "path": p.path, "last_activity": p.last_activity or None,
                      "sessions": list(p.session_keys)} for p in archive.projects],
        "sessions": [session_head(s, archive, repo_url) for s in sessions],
    }) + b"\n"


__all__ = ["INDEX", "SCHEMA", "SCHEMA_VERSION", "SessionJsonWriter", "document_path", "dumps", "event_json",
           "figures", "index_document", "session_head"]
