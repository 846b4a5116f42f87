"""After write: `sessionsite gh-deploy` commits a built site, and only it, to a branch (gh-pages) and
pushes it, as `mkdocs gh-deploy` does.

Done with git itself rather than ghp-import (which MkDocs uses): ghp-import runs git in the process's
current folder with no way to name the repository, reports a failed import only as a line on stdout, and
builds on the local copy of the remote branch without fetching it. Here the commit is made from a
temporary index (`GIT_INDEX_FILE`) whose work tree is the built site, on top of the remote branch as it
is now (fetched first): the user's working tree, index, current branch and HEAD are never touched, and
the branch's tree is exactly the site's files. A file that is not part of a site (a session log) is
refused before anything is committed.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, overload

from .. import __version__
from ..core import urls
from ..core.errors import SessionsiteError, UsageProblem
from .manifest import MANIFEST
from .locks import MARKER

# The build's bookkeeping, which a published site does not need (a zip leaves them out too).
LEFT_OUT = (MARKER, MANIFEST)
# Never published, whatever a site folder holds: session logs and what a vault keeps.
REFUSED = ("*.jsonl", "*.jsonl.*", "*.sqlite", "*.sqlite3", "*.db")
DEFAULT_MESSAGE = "Deployed {sha} with sessionsite {version}"


class DeployError(SessionsiteError):
    """git refused, or the site or the repository cannot be published."""


@dataclass(frozen=True)
class Deployed:
    """What a deploy did."""

    commit: str
    """The new commit on the branch."""
    files: int
    """Files in it."""
    pushed: bool


def deploy(site: Path, repository: Path, remote: str = "origin", branch: str = "gh-pages",
           message: str = DEFAULT_MESSAGE, push: bool = True) -> Deployed:
    """Commit the site folder as the whole tree of `branch` in the repository at (or above) `repository`,
    on top of the branch as the remote has it (or as it is here), and push it to `remote`."""
    refused = _refused_files(site)
    if refused:
        shown = ", ".join(refused[:3]) + (f" and {len(refused) - 3} more" if len(refused) > 3 else "")
        raise DeployError(f"{site}: holds files that are never published ({shown}); nothing was committed")
    top = check_repository(repository)
    git_dir = _git(repository, "rev-parse", "--absolute-git-dir").strip()
    ref = f"refs/heads/{branch}"
    if _git(repository, "check-ref-format", ref, check=False) is None:
        raise UsageProblem(f"--remote-branch {branch!r}: not a valid branch name")
    current = _git(repository, "symbolic-ref", "-q", "HEAD", check=False)
    if current is not None and current.strip() == ref:
        raise UsageProblem(f"{top}: {branch} is the branch checked out here; switch to another before deploying "
                           "(the deploy replaces its files)")
    parent = None
    if push:
        fetched = _git(repository, "fetch", "--quiet", "--no-tags", remote, ref, check=False)
        if fetched is not None:
            parent = _git(repository, "rev-parse", "--verify", "-q", "FETCH_HEAD^{commit}").strip()
        else:  # the remote has no such branch yet, or cannot be reached (the push will say which)
            _git(repository, "ls-remote", "--exit-code", remote, what=f"cannot reach the remote {remote!r}",
                 check=True, allow_codes=(2,))
    if parent is None:
        parent = (_git(repository, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False) or "").strip() or None

    sha = (_git(repository, "rev-parse", "--short", "HEAD", check=False) or "").strip()
    text = message.replace("{sha}", sha or "a folder").replace("{version}", __version__)
    with tempfile.TemporaryDirectory(prefix="sessionsite-deploy-") as temporary:
        environment = {**os.environ, "GIT_INDEX_FILE": str(Path(temporary) / "index"), "GIT_DIR": git_dir,
                       "GIT_WORK_TREE": str(site.resolve())}
        _git(site, "add", "--all", "--force", "--", ".", *(f":(exclude,top){name}" for name in LEFT_OUT),
             env=environment)
        if not (site / urls.NO_JEKYLL).exists():
            # GitHub Pages would run the site through Jekyll, which hides names starting with _ or a dot.
            empty = _git(site, "hash-object", "-w", "--stdin", env=environment, stdin="").strip()
            _git(site, "update-index", "--add", "--cacheinfo", f"100644,{empty},{urls.NO_JEKYLL}", env=environment)
        listed = _git(site, "ls-files", "-z", env=environment).split("\0")
        files = [name for name in listed if name]
        if any(_is_refused(name) for name in files):  # checked on the disk already; the index is what counts
            raise DeployError(f"{site}: a session log was about to be committed; nothing was committed")
        tree = _git(site, "write-tree", env=environment).strip()
    commit = _git(repository, "commit-tree", tree, *(("-p", parent) if parent else ()), "-m", text,
                  what="git could not make the commit (is user.name and user.email set?)").strip()
    _git(repository, "update-ref", "-m", "sessionsite gh-deploy", ref, commit)
    if push:
        _git(repository, "push", "--quiet", remote, f"{ref}:{ref}", what=f"git push to {remote} failed")
    return Deployed(commit, len(files), push)


def check_repository(folder: Path) -> str:
    """The top of the git repository `folder` is in (checked before a build, so as not to build in vain)."""
    return _git(folder, "rev-parse", "--show-toplevel", what=f"{folder} is not in a git repository").strip()


def _refused_files(site: Path) -> list[str]:
    found = []
    for folder, _, names in os.walk(site):
        for name in names:
            if _is_refused(name):
                found.append(str(Path(folder, name).relative_to(site)))
    return sorted(found)


def _is_refused(name: str) -> bool:
    base = name.rsplit("/", 1)[-1].lower()
    return any(fnmatch.fnmatchcase(base, pattern) for pattern in REFUSED)


@overload
def _git(folder: Path, *arguments: str, what: str = "", check: Literal[True] = True, env: dict[str, str] | None = None,
         stdin: str | None = None, allow_codes: tuple[int, ...] = ()) -> str: ...
@overload
def _git(folder: Path, *arguments: str, what: str = "", check: Literal[False], env: dict[str, str] | None = None,
         stdin: str | None = None, allow_codes: tuple[int, ...] = ()) -> str | None: ...
def _git(folder: Path, *arguments: str, what: str = "", check: bool = True, env: dict[str, str] | None = None,
         stdin: str | None = None, allow_codes: tuple[int, ...] = ()) -> str | None:
    """git's output; with `check`, a failure is a `DeployError` saying `what` and git's own words;
    without, None."""
    try:
        done = subprocess.run(["git", *arguments], cwd=folder, env=env, input=stdin, capture_output=True, text=True,
                              check=False)
    except FileNotFoundError:
        raise DeployError("git is not installed (gh-deploy runs it)") from None
    if done.returncode == 0 or done.returncode in allow_codes:
        return done.stdout
    if not check:
        return None
    said = done.stderr.strip().splitlines()
    reason = said[-1].removeprefix("fatal: ").removeprefix("error: ") if said else f"exit code {done.returncode}"
    raise DeployError(f"{what or 'git ' + arguments[0] + ' failed'}: {reason}")


__all__ = ["DEFAULT_MESSAGE", "Deployed", "DeployError", "check_repository", "deploy"]
