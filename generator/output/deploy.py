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
import re
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

SEALED_RECORD = ".sessionsite-sealed.json"
"""An encrypted archive's record for its next build (`sealed_site.SEALED_RECORD`, named here so that a plain deploy
does not load the cryptography)."""
# The build's bookkeeping, which a published site does not need (a zip leaves them out too).
LEFT_OUT = (MARKER, MANIFEST, SEALED_RECORD)
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
    on top of the branch as the remote has it (or as it is here), and push it to `remote`. The local branch
    moves only once the push is done: a push the remote refuses leaves every ref here as it was."""
    refused = _refused_files(site)
    if refused:
        shown = ", ".join(refused[:3]) + (f" and {len(refused) - 3} more" if len(refused) > 3 else "")
        raise DeployError(f"{site}: holds files that are never published ({shown}); nothing was committed")
    top = check_repository(repository)
    check_branch(repository, branch)
    check_remote(repository, remote, must_exist=push)
    git_dir = _git(repository, "rev-parse", "--absolute-git-dir").strip()
    ref = f"refs/heads/{branch}"
    current = _git(repository, "symbolic-ref", "-q", "HEAD", check=False)
    if current is not None and current.strip() == ref:
        raise UsageProblem(f"{top}: {branch} is the branch checked out here; switch to another before deploying "
                           "(the deploy replaces its files)")
    # What the branch is here: the ref is moved from this value only, or made only if it still does not exist.
    local = (_git(repository, "rev-parse", "--verify", "-q", "--end-of-options", ref, check=False) or "").strip()
    parent = None
    if push:
        fetched = _git(repository, *NO_COMMAND_TRANSPORTS, "fetch", "--quiet", "--no-tags", "--end-of-options",
                       remote, ref, check=False)
        if fetched is not None:
            parent = _git(repository, "rev-parse", "--verify", "-q", "FETCH_HEAD^{commit}").strip()
        else:  # the remote has no such branch yet, or cannot be reached (the push will say which)
            _git(repository, *NO_COMMAND_TRANSPORTS, "ls-remote", "--exit-code", "--end-of-options", remote,
                 what=f"cannot reach the remote {remote!r}", check=True, allow_codes=(2,))
    if parent is None and local:
        parent = _git(repository, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}").strip()

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
    commit = _git(repository, "commit-tree", *(("-p", parent) if parent else ()), "-m", text, "--end-of-options",
                  tree, what="git could not make the commit (is user.name and user.email set?)").strip()
    if push:
        # The commit itself is pushed, not the local branch: until the remote has taken it, nothing here moves.
        _git(repository, *NO_COMMAND_TRANSPORTS, "push", "--quiet", "--end-of-options", remote, f"{commit}:{ref}",
             what=f"git push to {remote} failed")
    # An empty old value: the branch must still not exist (another deploy, or the user, did not make it meanwhile).
    _git(repository, "update-ref", "-m", "sessionsite gh-deploy", "--end-of-options", ref, commit, local,
         what=(f"pushed to {remote}, but " if push else "") + f"{branch} here was left as it is")
    return Deployed(commit, len(files), push)


# git runs a command for these transports (ext::) or talks over the descriptors named (fd::): never wanted for a
# remote given on the command line or in a config file, whatever the user's git config allows.
NO_COMMAND_TRANSPORTS = ("-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never")
# Names git gives a meaning of its own wherever a revision is read (HEAD, FETCH_HEAD, ORIG_HEAD, MERGE_HEAD, …).
_SPECIAL_NAME = re.compile(r"(?:[A-Z_]+_)?HEAD")
# scp-like syntax, `[user@]host:path`: git reads it so when a colon comes before any slash.
_SCP_LIKE = re.compile(r"[^/:]+:")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
# `<transport>::<address>`: git hands the address to git-remote-<transport>, or to its own ext and fd.
_TRANSPORT = re.compile(r"([A-Za-z0-9][A-Za-z0-9+.-]*)::")


def check_branch(repository: Path, branch: str, origin: str = "--remote-branch") -> None:
    """`branch` is a plain branch name, read as nothing else: not an option, not HEAD or another name git
    gives a meaning (`@`, `FETCH_HEAD`), not a full ref (`refs/heads/x` would make refs/heads/refs/heads/x).
    `origin` is how the error names the value: an option, or the config file and its key."""
    def refuse(why: str) -> UsageProblem:
        return UsageProblem(f"{origin} {branch!r}: {why}; give a branch name such as gh-pages")

    if not branch or branch.startswith("-"):
        raise refuse("not a branch name" if not branch else "a branch name never starts with -")
    if branch.startswith("refs/") or branch == "@":
        raise refuse("a branch's short name is wanted, not a ref" if branch != "@" else "@ means HEAD to git")
    if any(_SPECIAL_NAME.fullmatch(part) for part in branch.split("/")):
        raise refuse("HEAD and the names like it mean something else to git")
    # check-ref-format reads no option after --branch (a name starting with - is refused above, and by it).
    checked = _git(repository, "check-ref-format", "--branch", branch, check=False)
    if checked is None or checked.strip() != branch:  # it prints what @{-1} and the like stand for
        raise refuse("not a valid branch name")


def check_remote(repository: Path, remote: str, origin: str = "--remote", must_exist: bool = True) -> None:
    """`remote` is nothing git could read as an option or as a transport that runs a command (ext::, fd::);
    with `must_exist` (it is about to be used), the name of a remote configured in the repository, or a URL
    or a folder."""
    def refuse(why: str) -> UsageProblem:
        return UsageProblem(f"{origin} {remote!r}: {why}; give a configured remote's name or a URL")

    if not remote or remote.startswith("-"):
        raise refuse("empty" if not remote else "it starts with -, so git would read it as an option")
    if any(ord(character) < 32 or ord(character) == 127 for character in remote):
        raise refuse("it holds a control character")
    named = _TRANSPORT.match(remote)
    transport = named[1].lower() if named else None
    if transport in ("ext", "fd"):
        raise refuse(f"the {transport}:: transport runs a command or reads a file descriptor")
    url = _URL.match(remote)
    host = remote[url.end():] if url else remote if _SCP_LIKE.match(remote) else ""
    if host.split("@", 1)[-1].startswith("-"):
        raise refuse("its host starts with -, which ssh would read as an option")
    if not must_exist or remote in _git(repository, "remote").split():
        return
    if transport or url or _SCP_LIKE.match(remote) or remote.startswith(("/", "./", "../")) \
            or (Path(repository) / remote).is_dir():
        return
    raise refuse("no remote of that name is configured, and it is not a URL")


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
                              check=False, stdin=subprocess.DEVNULL if stdin is None else None)
    except FileNotFoundError:
        raise DeployError("git is not installed (gh-deploy runs it)") from None
    if done.returncode == 0 or done.returncode in allow_codes:
        return done.stdout
    if not check:
        return None
    said = done.stderr.strip().splitlines()
    reason = said[-1].removeprefix("fatal: ").removeprefix("error: ") if said else f"exit code {done.returncode}"
    raise DeployError(f"{what or 'git ' + arguments[0] + ' failed'}: {reason}")


__all__ = ["DEFAULT_MESSAGE", "Deployed", "DeployError", "check_branch", "check_remote", "check_repository", "deploy"]
