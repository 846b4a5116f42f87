"""Which coding agent wrote a log, told by its content: each agent's adapter reads its own format into the one
event model (`interpret`), and discover asks this module which adapter a file needs, and, for an agent whose
files are not laid out by project (Codex CLI keeps them by day), which folder the session ran in.

Telling costs one line: the file's first record, read at most `FIRST_RECORD_LIMIT` bytes of it (Codex's
first record holds its whole system prompt; what is needed comes before it).

Claude Code: `~/.claude/projects/<encoded project path>/<session>.jsonl`; every record is a JSON object whose
`type` is its kind (user, assistant, summary, ...). Codex CLI: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`
and `~/.codex/archived_sessions/`; since mid-2025 every record is `{"timestamp", "type", "payload"}` with
type session_meta, turn_context, response_item, event_msg or compacted (and more in newer versions); before
that, the first line was the session's own metadata (`id`, `timestamp`, `instructions`, `git`) with no type,
and the rest bare response items.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import orjson

CLAUDE_CODE = "claude-code"
CODEX = "codex"
AGENT_NAMES = {CLAUDE_CODE: "Claude Code", CODEX: "Codex CLI"}
"""Each agent read, by the name a session is labelled with, and the name a reader sees."""
ASSISTANT_NAMES = {CLAUDE_CODE: "Claude", CODEX: "Codex"}
"""Who speaks in each agent's replies."""

FIRST_RECORD_LIMIT = 64 << 10
"""Bytes of a file's first line read to tell who wrote it."""

CODEX_RECORD_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
"""The kinds of record every Codex CLI version since mid-2025 writes (`RolloutItem` in codex-rs/protocol)."""
CODEX_ITEM_TYPES = frozenset({"message", "reasoning", "function_call", "function_call_output", "local_shell_call",
                              "custom_tool_call", "custom_tool_call_output", "web_search_call"})
"""The response items a Codex rollout of early 2025 wrote bare, one a line, after its metadata line."""

# A record's kind where it can be seen in the start of a line too long to read whole: a key of the top-level
# object (inside a JSON string its quotes would be escaped, `\"type\"`, and not match).
_CODEX_TYPE_IN_PREFIX = re.compile(rb'^\{\s*(?:"(?:timestamp|ordinal)"\s*:\s*(?:"[^"\\]*"|\d+)\s*,\s*)*'
                                   rb'"type"\s*:\s*"(session_meta|turn_context|response_item|event_msg|compacted)"')
_CWD_IN_PREFIX = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')
CODEX_ROLLOUT_NAME = re.compile(r"^rollout-(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})T[\d-]+-"
                                r"(?P<id>[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\.jsonl$")
"""How Codex CLI names a rollout: the day and time it started, then the session's id."""


@dataclass(frozen=True, slots=True)
class Writer:
    """Who wrote a log, as its first record tells."""

    agent: str
    """`CLAUDE_CODE` or `CODEX`; "" for a file that is no session log."""
    cwd: str = ""
    """For an agent whose files are kept by day (Codex), the folder the session ran in, when its first record
    says: the project it belongs to."""


NOT_A_LOG = Writer("")


def codex_record(data: Mapping[str, Any]) -> bool:
    """Whether a JSON object is a record of a Codex rollout (either generation), not a Claude Code entry."""
    kind = data.get("type")
    if not isinstance(kind, (str, type(None))):
        return False  # a damaged entry (a list, a number for its type): Claude Code's reader says what is wrong
    if kind in CODEX_RECORD_TYPES and "payload" in data:
        return True
    # Early 2025: the metadata line (no type), then bare response items, which Claude Code never writes at
    # the top of a line (its entries are user, assistant, system, ...).
    if kind is None:
        return "id" in data and "timestamp" in data and ("instructions" in data or "git" in data)
    return kind in CODEX_ITEM_TYPES or data.get("record_type") == "state"


def writer_of(path: Path) -> Writer:
    """Who wrote the file at `path`, by its first non-blank line: Codex, Claude Code (any other JSON object),
    or nobody (a file whose first line is no JSON object: a Markdown file, a picture). A file that cannot
    be opened is taken for Claude Code's, so that reading it says why."""
    try:
        with open(path, "rb") as handle:
            line = b""
            while line.strip() in _PADDING:
                line = handle.readline(FIRST_RECORD_LIMIT)
                if not line:
                    return Writer(CLAUDE_CODE)  # empty: nothing to show, as an empty log
    except OSError:
        return Writer(CLAUDE_CODE)
    return writer_of_line(line)


_PADDING = (b"", b"{}")
"""Lines the reader passes over as holding nothing (`read`), which tell nothing of who wrote a file."""
CLAUDE_CODE_FIELDS = ("type", "uuid", "sessionId", "parentUuid", "leafUuid", "message")
"""Fields of which every Claude Code entry has one (most have all): a JSON object with none of them is another
program's record (Codex's `history.jsonl` of prompts, a data set), not a log."""


def writer_of_line(line: bytes) -> Writer:
    """Who wrote a log whose first non-blank line (or its first `FIRST_RECORD_LIMIT` bytes) is `line`."""
    stripped = line.lstrip(b"\xef\xbb\xbf \t\r\n")
    try:
        data = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        data = None
    if type(data) is dict:
        if codex_record(data):
            return Writer(CODEX, _codex_cwd(data))
        return Writer(CLAUDE_CODE) if any(name in data for name in CLAUDE_CODE_FIELDS) else NOT_A_LOG
    if data is not None:
        return NOT_A_LOG  # JSON, but not an object: no log of any agent
    if _CODEX_TYPE_IN_PREFIX.match(stripped):
        found = _CWD_IN_PREFIX.search(stripped)
        cwd = ""
        if found:
            try:
                cwd = json.loads(found.group(1))
            except ValueError:
                cwd = ""
        return Writer(CODEX, cwd if isinstance(cwd, str) else "")
    if stripped.startswith(b"{") or stripped.startswith((b"\xff\xfe", b"\xfe\xff")) or len(line) >= FIRST_RECORD_LIMIT:
        return Writer(CLAUDE_CODE)  # an object cut short, UTF-16, a huge line: the reader says what it is
    return NOT_A_LOG


def _codex_cwd(data: Mapping[str, Any]) -> str:
    payload = data.get("payload")
    source = payload if isinstance(payload, dict) else data
    cwd = source.get("cwd")
    return cwd if isinstance(cwd, str) else ""


def project_name(cwd: str) -> str:
    """The project folder Claude Code would keep a session of `cwd` in (every character but a letter or a digit
    made `-`): a Codex session of a folder then joins the Claude Code sessions of the same folder."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd) if cwd else "codex"


def codex_folder() -> Path:
    """Where Codex CLI keeps its settings and sessions: `~/.codex`, or `$CODEX_HOME` as Codex reads it."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def codex_session_folders() -> list[Path]:
    """Codex CLI's folders of sessions that exist: `sessions/` and `archived_sessions/`."""
    home = codex_folder()
    return [folder for folder in (home / "sessions", home / "archived_sessions") if folder.is_dir()]


def codex_session_id(name: str) -> str:
    """The session id in a Codex rollout's file name (`rollout-<time>-<id>.jsonl`); "" for another name."""
    found = CODEX_ROLLOUT_NAME.match(name)
    return found["id"] if found else ""


def codex_place(name: str) -> Path | None:
    """Where Codex CLI keeps the rollout named `name`: `sessions/YYYY/MM/DD/` under its folder (None for a name
    that is not a rollout's)."""
    found = CODEX_ROLLOUT_NAME.match(name)
    if found is None:
        return None
    return codex_folder() / "sessions" / found["year"] / found["month"] / found["day"] / name
