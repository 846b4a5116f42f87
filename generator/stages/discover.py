"""Stage 1, discover: find session files in a stable order and pair subagent logs with their parent.

Claude Code lays logs out as `~/.claude/projects/<encoded-project-path>/<session-uuid>.jsonl`, with subagent
logs in `<session-uuid>/subagents/agent-*.jsonl` (2.x) or beside the session as `agent-*.jsonl` (1.x).
Codex CLI keeps them by day (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, `~/.codex/archived_sessions/`):
which agent wrote a file is told by its first record (`agents.writer_of`), and a Codex session belongs to
the project of the folder it ran in, beside that folder's Claude Code sessions.
An INPUT may be one file, one project folder, a folder of project folders, or a folder with Codex's
sessions somewhere below it.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import shlex
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Protocol

from ..core import urls
from ..core.errors import InputError
from ..core.entries import Diagnostic
from .agents import CLAUDE_CODE, CODEX, NOT_A_LOG, codex_folder, codex_session_folders, project_name, writer_of

AGENT_FILE = re.compile(r"^agent-(?P<agent>.+)\.jsonl$")


class KeptCopy(Protocol):
    """A log that is gone from where it was, as a store of kept logs holds it (`output.vault.KeptLog`:
    the vault is written after the stages, so it is named here by what the stages need of it)."""

    # Properties: a kept log is a frozen dataclass, which the stages only read.
    @property
    def size(self) -> int: ...
    @property
    def content_hash(self) -> str: ...
    @property
    def last_seen(self) -> str:
        """UTC date the live log was last seen."""
        ...

    def readable(self) -> Path:
        """A file with the log's bytes, for the reader."""
        ...


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
    name: str = ""
    """The name the site gives it, when not its file's stem: another file's stem differs from that only in
    case, and the two would share one output file on macOS or Windows (see `_distinct_session_names`)."""
    kept: KeptCopy | None = None
    """For a log that is gone from where it was (`path`) and is read from the vault instead."""
    agent: str = CLAUDE_CODE
    """The coding agent that wrote it (`agents.CLAUDE_CODE`, `agents.CODEX`), told by its first record."""

    @property
    def is_subagent(self) -> bool:
        return bool(self.agent_id)

    @property
    def stem(self) -> str:
        """Its name in the site: the file's stem, unless `name` replaces it."""
        return self.name or self.path.stem


def readable(session_file: SessionFile) -> Path:
    """The file to read for a session file: the live log, or the kept copy of one that is gone."""
    return session_file.path if session_file.kept is None else session_file.kept.readable()


def claude_folder() -> Path:
    """Where Claude Code keeps its settings and logs: `~/.claude`, or `$CLAUDE_CONFIG_DIR` as Claude Code
    reads it."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def default_input() -> Path:
    return claude_folder() / "projects"


def default_inputs() -> list[Path]:
    """Every agent's folder of sessions that exists: Claude Code's projects, Codex CLI's sessions and archived
    sessions."""
    claude = default_input()
    return [*([claude] if claude.is_dir() else []), *codex_session_folders()]


def discover(inputs: list[Path], problems: list[Diagnostic] | None = None) -> list[SessionFile]:
    """Every session file under the inputs, sorted, each once. What cannot be read (a folder without
    permission, a symbolic link to nothing or to itself, a named pipe) is left out, with one diagnostic
    each in `problems`."""
    problems = [] if problems is None else problems
    return arrange(find(inputs, problems), problems)


def find(inputs: list[Path], problems: list[Diagnostic] | None = None) -> list[SessionFile]:
    """Every session file under the inputs, each once, as found (with its own folder's name); what cannot
    be read is a diagnostic in `problems`."""
    problems = [] if problems is None else problems
    found: dict[Path, SessionFile] = {}
    for given in inputs:
        if not given.exists():
            raise InputError(f"{given}: no such file or folder")
        for session_file in _discover_one(given, problems):
            found.setdefault(session_file.path.resolve(), session_file)
    return list(found.values())


def arrange(files: Iterable[SessionFile], problems: list[Diagnostic] | None = None) -> list[SessionFile]:
    """Files found (and logs kept by the vault) in a stable order, no two project folders or session files
    sharing a name (as macOS and Windows compare names)."""
    problems = [] if problems is None else problems
    files = _distinct_session_names(_distinct_project_names(list(files), problems), problems)
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


def _distinct_project_names(files: list[SessionFile], problems: list[Diagnostic]) -> list[SessionFile]:
    """Two different folders with the same name (say `0/` in two checkpoint trees) must not merge into one
    project: the later ones get their parent folder's name in front. Names that differ only in case are
    the same name to macOS and Windows, and reported (the site does not show the name it gives)."""
    resolved: dict[Path, Path] = {}  # a project's files share its folder: resolved once (a stat per part of its path)

    def folder_of(session_file: SessionFile) -> Path:
        folder = project_folder_of(session_file)
        if folder not in resolved:
            resolved[folder] = folder.resolve()
        return resolved[folder]

    folders_by_name: dict[str, list[Path]] = {}
    for session_file in files:
        if session_file.agent != CLAUDE_CODE:
            continue  # named by the folder it ran in, which its project shares with Claude Code's sessions there
        folder = folder_of(session_file)
        # Compared as output folders: `-home-x` and `home-x` would land in the same one, and so would
        # `-home-X` and `-home-x` on a file system that ignores case (macOS, Windows).
        names = folders_by_name.setdefault(_folded(session_file.project_dir), [])
        if folder not in names:
            names.append(folder)
    used = set(folders_by_name)
    unique_names: dict[Path, str] = {}
    for output_folder in sorted(folders_by_name):
        first, *others = sorted(folders_by_name[output_folder])
        for folder in others:
            depth = 2
            candidate = "-".join(folder.parts[-depth:])
            while _folded(candidate) in used and depth < len(folder.parts):
                depth += 1
                candidate = "-".join(folder.parts[-depth:])
            number = 2
            while _folded(candidate) in used:  # the whole path is taken too: count
                candidate, number = f"{folder.name}-{number}", number + 1
            used.add(_folded(candidate))
            if urls.project_folder(folder.name) != urls.project_folder(first.name):
                problems.append(Diagnostic(str(folder), 0, f"its name differs only in case from {first.name}, which "
                                           f"macOS and Windows take for the same name: named {candidate} in the site"))
            unique_names[folder] = candidate
    return [
        replace(f, project_dir=unique_names[folder])
        if f.agent == CLAUDE_CODE and (folder := folder_of(f)) in unique_names else f
        for f in files
    ]


def _folded(project_dir: str) -> str:
    """A project's output folder as a file system that ignores case sees it (output names are ASCII)."""
    return urls.project_folder(project_dir).lower()


def _distinct_session_names(files: list[SessionFile], problems: list[Diagnostic]) -> list[SessionFile]:
    """Session names that differ only in case (`ABC.jsonl` and `abc.jsonl`, or two `<session>/` folders of
    subagent logs) would share one output file once the site is unzipped on macOS or Windows: in sorted
    order the first keeps its name and the others get a number (`abc-2`)."""
    groups: dict[tuple[str, str], set[str]] = {}  # (project, parent session or "") -> names in it
    for f in files:
        groups.setdefault((f.project_dir, ""), set()).add(f.parent_session_id or f.path.stem)
        if f.parent_session_id:
            groups.setdefault((f.project_dir, f.parent_session_id), set()).add(f.path.stem)
    renamed: dict[tuple[str, str, str], str] = {}
    for (project, parent), names in groups.items():
        taken: set[str] = set()  # output pages, as file systems that ignore case see them
        for name in sorted(names):
            candidate, number = name, 2
            while urls.session_page(f"{project}/{candidate}").lower() in taken:
                candidate, number = f"{name}-{number}", number + 1
            taken.add(urls.session_page(f"{project}/{candidate}").lower())
            if candidate != name:
                renamed[(project, parent, name)] = candidate
    if not renamed:
        return files
    distinct = []
    reported: set[tuple[str, str, str]] = set()  # one diagnostic for each name: a session and its folder share one
    for f in files:
        parent = renamed.get((f.project_dir, "", f.parent_session_id), f.parent_session_id) if f.parent_session_id else ""
        name = renamed.get((f.project_dir, f.parent_session_id, f.path.stem), "")
        distinct.append(replace(f, parent_session_id=parent, name=name))
        if name:
            key, place, new_name = (f.project_dir, f.parent_session_id, f.path.stem), f.path, name
        elif parent != f.parent_session_id:
            key, place, new_name = (f.project_dir, "", f.parent_session_id), f.path.parent.parent, parent
        else:
            continue
        if key not in reported:
            reported.add(key)
            problems.append(Diagnostic(str(place), 0, "its name differs only in case from another's, which macOS "
                                       f"and Windows take for the same name: named {new_name} in the site"))
    return distinct


def _discover_one(given: Path, problems: list[Diagnostic]) -> list[SessionFile]:
    if given.is_file():
        return _single_file(given, problems)
    if not given.is_dir():
        _is_readable_file(given, problems)  # says what it is
        return []
    # A project folder holds session files (or only `<session>/subagents/` folders); anything else is a
    # folder of project folders, or of folders that hold Codex's sessions further down (by year, month, day).
    # What its scan found wrong counts only if it is a project folder.
    own_problems: list[Diagnostic] = []
    files, is_project = _project_files(given, own_problems)
    if is_project:
        problems.extend(own_problems)
        return files
    files = []
    for child in _folder_listing(given, problems):
        if _is_folder(child):
            child_problems: list[Diagnostic] = []
            found, child_is_project = _project_files(child, child_problems)
            problems.extend(child_problems)
            unreadable = any(problem.file == str(child) for problem in child_problems)  # said once is enough
            if child_is_project or unreadable:
                files.extend(found)
            else:
                files.extend(_codex_files_under(child, problems))
    return files


CODEX_DEPTH = 4
"""How far below a folder that is no project folder Codex's sessions are looked for: `sessions/YYYY/MM/DD/`."""


def _codex_files_under(folder: Path, problems: list[Diagnostic], depth: int = 1) -> list[SessionFile]:
    """The logs Codex wrote in the folders below `folder` (Codex keeps them by year, month and day)."""
    files: list[SessionFile] = []
    for child in _folder_listing(folder, problems):
        if child.name in NOT_LOOKED_INTO:
            continue
        if fnmatch.fnmatchcase(child.name, "*.jsonl"):
            if _is_readable_file(child, problems):
                writer = writer_of(child)
                if writer.agent == CODEX:
                    files.append(SessionFile(child, project_name(writer.cwd), agent=CODEX))
        elif depth < CODEX_DEPTH and _is_folder(child):
            files.extend(_codex_files_under(child, problems, depth + 1))
    return files


NOT_A_LOG_REASON = "its first line is no record of Claude Code or Codex CLI"
LOG_SUFFIXES = (".jsonl", ".json")
"""What a log's name ends with. A file named on the command line with another ending is read only if its
first line is a log's."""


def _single_file(path: Path, problems: list[Diagnostic]) -> list[SessionFile]:
    """A file named on the command line: a session, a subagent log, or a JSON array export (.json); a file
    that is no log (a README) is skipped, saying so."""
    writer = writer_of(path) if path.suffix != ".json" else None
    if writer is not None and writer.agent == CODEX:
        return [SessionFile(path, project_name(writer.cwd), agent=CODEX)]
    if writer is NOT_A_LOG and path.suffix not in LOG_SUFFIXES:
        problems.append(Diagnostic(str(path), 0, f"not a session log ({NOT_A_LOG_REASON}): skipped"))
        return []
    match = AGENT_FILE.match(path.name)
    if not match:
        return [SessionFile(path=path, project_dir=path.parent.name)]
    if path.parent.name == "subagents":
        session_dir = path.parent.parent
        return [SessionFile(path, session_dir.parent.name, match["agent"], session_dir.name)]
    return [SessionFile(path, path.parent.name, match["agent"])]


def _project_files(folder: Path, problems: list[Diagnostic]) -> tuple[list[SessionFile], bool]:
    """The session files of a project folder (`*.jsonl`, and `<session>/subagents/agent-*.jsonl`), and
    whether it is one: it is when any file is named so, readable or not."""
    files: list[SessionFile] = []
    is_project = False
    listing = _folder_listing(folder, problems)
    for path in listing:
        if fnmatch.fnmatchcase(path.name, "*.jsonl"):
            if not _is_readable_file(path, problems):
                is_project = True
                continue
            match = AGENT_FILE.match(path.name)
            writer = writer_of(path) if not match else None
            if writer is NOT_A_LOG:  # another program's JSON lines (Codex's history.jsonl, a data set)
                problems.append(Diagnostic(str(path), 0, f"not a session log ({NOT_A_LOG_REASON}): skipped"))
                continue
            is_project = True
            if writer is not None and writer.agent == CODEX:  # archived_sessions/, or a day's folder
                files.append(SessionFile(path, project_name(writer.cwd), agent=CODEX))
            else:
                files.append(SessionFile(path, folder.name, match["agent"] if match else ""))
    for session_dir in listing:
        subagents = session_dir / "subagents"
        if not _is_folder(session_dir) or session_dir.name.endswith(".jsonl"):
            continue
        try:
            if not subagents.is_dir():
                continue
        except OSError as error:  # a session folder that cannot be looked into
            problems.append(Diagnostic(str(session_dir), 0, f"cannot read this folder ({error.strerror}): "
                                                            "its subagent logs, if any, are left out"))
            continue
        for path in _folder_listing(subagents, problems):
            match = AGENT_FILE.match(path.name)
            if match:
                is_project = True
                if _is_readable_file(path, problems):
                    files.append(SessionFile(path, folder.name, match["agent"], session_dir.name))
    return files, is_project


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # not even its kind can be known; reading it would say why
        return True


def _folder_listing(folder: Path, problems: list[Diagnostic]) -> list[Path]:
    """What a folder holds, sorted by name; a folder that cannot be read is one diagnostic (a glob would
    pass over it in silence)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(folder / entry.name for entry in entries)
    except OSError as error:
        problems.append(Diagnostic(str(folder), 0, f"cannot read this folder ({error.strerror}): "
                                                   "the sessions in it, if any, are left out"))
        return []


def _is_readable_file(path: Path, problems: list[Diagnostic]) -> bool:
    """A regular file, or a diagnostic saying what it is instead (reading a named pipe would wait for a
    writer forever)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        links: dict[int | None, str] = {errno.ENOENT: "a symbolic link to a file that does not exist",
                                        errno.ELOOP: "a symbolic link that leads back to itself"}
        reason = links.get(error.errno) or error.strerror or str(error)
        problems.append(Diagnostic(str(path), 0, f"cannot be read: {reason}; left out"))
        return False
    if stat.S_ISREG(mode):
        return True
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "not a regular file")
    problems.append(Diagnostic(str(path), 0, f"cannot be read: {kind}, not a file; left out"))
    return False


DEEPEST_PROJECT_FOLDER = 6
"""How far below an INPUT that holds no session files a project folder is looked for, to say where logs are."""
MOST_FOLDERS_LOOKED_INTO = 20_000
"""Of a home folder, say: the search stops there, so that an error is not a long wait."""
NOT_LOOKED_INTO = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"})
"""A repository's history, installed packages: their test data is nobody's archive of sessions."""
MOST_FOLDERS_NAMED = 5


def nothing_found(inputs: Iterable[Path]) -> str:
    """The error of INPUTs that hold no session file where they are read, saying where logs lie further down
    under them, if any do (a backup of ~/.claude in a repository, a home folder): as a command line that reads
    the folders holding their project folders, quoted for a shell, no character of a name written raw."""
    inputs = list(inputs)
    message = "no session logs of Claude Code or Codex CLI (*.jsonl) found in " + ", ".join(map(str, inputs))
    deeper = sorted({folder for given in inputs if _is_folder(given) for folder in _folders_of_projects_under(given)})
    if not deeper:
        return (f"{message}; Claude Code keeps its logs in {default_input()}, Codex CLI in "
                f"{codex_session_folders_named()}")
    named = " ".join(_quoted(folder) for folder in deeper[:MOST_FOLDERS_NAMED])
    rest = (f": the first {MOST_FOLDERS_NAMED} of {len(deeper)} folders holding them "
            f"({len(deeper) - MOST_FOLDERS_NAMED} more not shown)" if len(deeper) > MOST_FOLDERS_NAMED else "")
    return f"{message}, but some lie further down; sessionsite build {named} -o SITE reads them{rest}"


def codex_session_folders_named() -> str:
    home = codex_folder()
    return f"{home / 'sessions'} and {home / 'archived_sessions'}"


def _folders_of_projects_under(given: Path) -> set[Path]:
    """The folders below `given` whose project folders (at most `DEEPEST_PROJECT_FOLDER` levels down) hold logs."""
    found: set[Path] = set()
    looked_into = 0
    for top, folders, files in os.walk(given):  # symbolic links to folders are not followed
        looked_into += 1
        if looked_into > MOST_FOLDERS_LOOKED_INTO:
            break
        here = Path(top)
        # Down to two levels below the deepest project folder: its `<session>/subagents/`.
        goes_deeper = len(here.relative_to(given).parts) < DEEPEST_PROJECT_FOLDER + 2
        folders[:] = sorted(name for name in folders if name not in NOT_LOOKED_INTO) if goes_deeper else []
        if not any(fnmatch.fnmatchcase(name, "*.jsonl") for name in files):
            continue
        project = here.parent.parent if here.name == "subagents" else here
        # A project folder that is the INPUT, or one of its own, was read: its files could not be.
        depth = len(project.relative_to(given).parts)
        if 2 <= depth <= DEEPEST_PROJECT_FOLDER:
            found.add(project.parent)
    return found


def _quoted(folder: Path) -> str:
    shown = "".join(character if character.isprintable() else "?" for character in str(folder))
    return shlex.quote(shown)
