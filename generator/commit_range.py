"""`sessionsite bundle --commits A..B`: the sessions that made the commits of a range, run in the repository.

git resolves the range (`git rev-list`), so anything git takes works: `main..HEAD`, `origin/main..feature`,
`v1.2...v1.3`. A session made a commit when the commit's full hash starts with the short one its `git
commit` printed (`Session.commits`). The sessions are looked for in the repository's project folders under
~/.claude/projects (Claude Code names a project folder after its working directory, every character but a
letter or digit made `-`), or in the folders given.
"""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path
from typing import Iterable, Mapping

from .core.errors import InputError, UsageProblem
from .core.paths import encoded_project_folder
from .core.model import Session
from .stages.agents import codex_session_folders

log = logging.getLogger("sessionsite")

# The shortest hash git prints in a commit's summary line.
SHORTEST_SHA = 7


def _git(repository: Path, *arguments: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(repository), *arguments], capture_output=True, text=True,
                              check=False)
    except FileNotFoundError:
        raise UsageProblem("--commits needs git, which is not installed (or not on PATH)") from None
    if done.returncode != 0:
        reason = next((line for line in done.stderr.splitlines() if line.strip()), f"exit code {done.returncode}")
        raise UsageProblem(f"git {arguments[0]} in {repository}: {reason.strip()}")
    return done.stdout


def commits_in_range(revision_range: str, repository: Path) -> list[str]:
    """The full hashes of the commits in `revision_range` (`A..B` or `A...B`), newest first."""
    if ".." not in revision_range or revision_range.startswith("-") or any(c.isspace() for c in revision_range):
        raise UsageProblem(f"--commits {revision_range!r}: give a range of commits, such as main..HEAD")
    # --end-of-options: a range is never read as an option, whatever it holds.
    hashes = _git(repository, "rev-list", "--end-of-options", revision_range).split()
    if not hashes:
        raise UsageProblem(f"--commits {revision_range}: no commits in that range")
    return hashes


def repository_root(folder: Path) -> Path:
    """The top folder of the git repository `folder` is in."""
    return Path(_git(folder, "rev-parse", "--show-toplevel").strip())


def encoded_project_name(path: Path) -> str:
    """Claude Code's folder name for a working directory: `/home/me/src/app` -> `-home-me-src-app`."""
    return encoded_project_folder(str(path))


def project_folders(repository: Path, projects: Path) -> list[Path]:
    """The project folders of a repository's sessions: its own, and those of sessions run in a folder
    inside it (`-home-me-src-app-docs`; a sibling such as `app-old` is read too, and matches no commit);
    and Codex CLI's folders of sessions, which it keeps by day, not by project (the commits choose)."""
    name = encoded_project_name(repository.resolve())
    codex = codex_session_folders()
    if not projects.is_dir() and not codex:
        raise InputError(f"no project folders in {projects}: give the folder of the repository's sessions")
    found = sorted(p for p in projects.iterdir() if p.is_dir() and (p.name == name or p.name.startswith(name + "-"))
                   ) if projects.is_dir() else []
    if not found and not codex:
        raise InputError(f"no sessions of {repository} in {projects} (looked for {name}); "
                         "give the folder of the repository's sessions")
    return found + codex


def sessions_that_made(sessions: Mapping[str, Session], hashes: Iterable[str]) -> list[str]:
    """Keys of the sessions (and subagent runs) whose `git commit` calls made any of these commits. Says
    which commits no session made."""
    by_prefix: dict[str, list[str]] = {}
    for full in hashes:
        by_prefix.setdefault(full[:SHORTEST_SHA].lower(), []).append(full.lower())
    made: dict[str, None] = {}
    found: set[str] = set()
    for key, session in sessions.items():
        for commit in session.commits:
            matches = [full for full in by_prefix.get(commit.sha[:SHORTEST_SHA], ()) if full.startswith(commit.sha)]
            if matches:
                made[key] = None
                found.update(matches)
    missing = sum(len(fulls) for fulls in by_prefix.values()) - len(found)
    if missing:
        log.warning("%d of the range's commits were made by no session found (made by hand, or the session "
                    "is not in the folders read)", missing)
    return list(made)
