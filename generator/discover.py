"""Stage 1, discover: find session files in a stable order and pair subagent logs with their parent.

Claude Code lays logs out as `~/.claude/projects/<encoded-project-path>/<session-uuid>.jsonl`, with subagent
logs in `<session-uuid>/subagents/agent-*.jsonl` (2.x) or beside the session as `agent-*.jsonl` (1.x).
An INPUT may be one file, one project folder, or a folder of project folders.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from . import urls
from .errors import InputError

if TYPE_CHECKING:
    from .vault import KeptLog

AGENT_FILE = re.compile(r"^agent-(?P<agent>.+)\.jsonl$")


@dataclass(frozen=True, slots=True)
class SessionFile:
    """A session log found on disk."""

    path: Path
    """Where it is."""
    project_dir: str
    """Name of the project folder it belongs to (the encoded path, e.g. -home-ada-src-app)."""
    agent_id: str = ""
    """For a subagent log, the agent id from its file name."""
    parent_session_id: str = ""
    """For a subagent log in `<session>/subagents/`, the parent's session id; flat 1.x agent logs name
    their parent only inside the file, so this stays empty and `link` resolves it."""
    kept: "KeptLog | None" = None
    """For a log that is gone from where it was (`path`) and is read from the vault instead."""

    @property
    def is_subagent(self) -> bool:
        return bool(self.agent_id)


def claude_folder() -> Path:
    """Where Claude Code keeps its settings and logs: `~/.claude`, or `$CLAUDE_CONFIG_DIR` as Claude Code
    reads it."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def default_input() -> Path:
    return claude_folder() / "projects"


def discover(inputs: list[Path]) -> list[SessionFile]:
    """Every session file under the inputs, sorted, each once."""
    return arrange(find(inputs))


def find(inputs: list[Path]) -> list[SessionFile]:
    """Every session file under the inputs, each once, as found (with its own folder's name)."""
    found: dict[Path, SessionFile] = {}
    for given in inputs:
        if not given.exists():
            raise InputError(f"{given}: no such file or folder")
        for session_file in _discover_one(given):
            found.setdefault(session_file.path.resolve(), session_file)
    return list(found.values())


def arrange(files: Iterable[SessionFile]) -> list[SessionFile]:
    """Files found (and logs kept by the vault) in a stable order, no two project folders sharing a name."""
    files = _distinct_project_names(list(files))
    return sorted(files, key=lambda f: (f.project_dir, f.parent_session_id, f.agent_id, str(f.path)))


def project_folder_of(session_file: SessionFile) -> Path:
    """The project folder a session file sits in (for a log kept by the vault: the one it sat in)."""
    if session_file.parent_session_id:
        return session_file.path.parent.parent.parent
    return session_file.path.parent


def path_in_project(session_file: SessionFile) -> str:
    """Where a session file sits in its project folder: `<session>.jsonl`, `agent-<id>.jsonl` or
    `<session>/subagents/agent-<id>.jsonl`."""
    if session_file.parent_session_id:
        return f"{session_file.parent_session_id}/subagents/{session_file.path.name}"
    return session_file.path.name


def _distinct_project_names(files: list[SessionFile]) -> list[SessionFile]:
    """Two different folders with the same name (say `0/` in two checkpoint trees) must not merge into one
    project: the later ones get their parent folder's name in front."""
    folders_by_name: dict[str, list[Path]] = {}
    for session_file in files:
        folder = project_folder_of(session_file).resolve()
        # Compared as output folders: `-home-x` and `home-x` would land in the same one.
        names = folders_by_name.setdefault(urls.project_folder(session_file.project_dir), [])
        if folder not in names:
            names.append(folder)
    used = set(folders_by_name)
    unique_names: dict[Path, str] = {}
    for output_folder in sorted(folders_by_name):
        for folder in sorted(folders_by_name[output_folder])[1:]:
            depth = 2
            candidate = "-".join(folder.parts[-depth:])
            while urls.project_folder(candidate) in used and depth < len(folder.parts):
                depth += 1
                candidate = "-".join(folder.parts[-depth:])
            number = 2
            while urls.project_folder(candidate) in used:  # the whole path is taken too: count
                candidate, number = f"{folder.name}-{number}", number + 1
            used.add(urls.project_folder(candidate))
            unique_names[folder] = candidate
    return [
        replace(f, project_dir=unique_names[folder]) if (folder := project_folder_of(f).resolve()) in unique_names else f
        for f in files
    ]


def _discover_one(given: Path) -> list[SessionFile]:
    if given.is_file():
        return [_single_file(given)]
    if _is_project_folder(given):
        return _project_files(given)
    files: list[SessionFile] = []
    for child in sorted(given.iterdir()):
        if child.is_dir() and _is_project_folder(child):
            files.extend(_project_files(child))
    return files


def _single_file(path: Path) -> SessionFile:
    """A file named on the command line: a session, a subagent log, or a JSON array export (.json)."""
    match = AGENT_FILE.match(path.name)
    if not match:
        return SessionFile(path=path, project_dir=path.parent.name)
    if path.parent.name == "subagents":
        session_dir = path.parent.parent
        return SessionFile(path, session_dir.parent.name, match["agent"], session_dir.name)
    return SessionFile(path, path.parent.name, match["agent"])


def _is_project_folder(folder: Path) -> bool:
    return any(folder.glob("*.jsonl")) or any(folder.glob("*/subagents/agent-*.jsonl"))


def _project_files(folder: Path) -> list[SessionFile]:
    files: list[SessionFile] = []
    for path in sorted(folder.glob("*.jsonl")):
        match = AGENT_FILE.match(path.name)
        files.append(SessionFile(path, folder.name, match["agent"] if match else ""))
    for path in sorted(folder.glob("*/subagents/agent-*.jsonl")):
        match = AGENT_FILE.match(path.name)
        assert match  # the glob guarantees the shape
        files.append(SessionFile(path, folder.name, match["agent"], path.parent.parent.name))
    return files
