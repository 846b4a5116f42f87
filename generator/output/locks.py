"""Builds that share a machine, and builds that die: who owns an output, and what a dead build left.

- One build at a time per output. `OutputLock` holds an exclusive `flock` on `.<output>.lock`, beside the
  output, for the whole command: the site, its manifest, and the input-hash cache kept for that output
  (one per output) are only written under it. A second build into the same output does not wait: it
  stops at once (exit 2) with one line naming the build that holds the lock.
- Every folder a build makes beside an output (its staging folder, a zip's work folder, a bundle's) is
  claimed (`claim`): an exclusive `flock` on the folder itself, held until the build removes it, and the
  folder listed in this process's register of running builds, in the cache folder
  (`$XDG_CACHE_HOME/sessionsite/running/`), itself held the same way.
- The kernel drops a process's locks when it dies, however it dies (SIGKILL, power cut). So a folder or a
  register whose lock can be taken has no live owner: `remove_abandoned`, run at the start of every
  command that writes, removes the folders listed by every register no process holds (whatever output they
  were made for) and this output's own leftovers whose lock is free. A locked folder is never touched.

`fcntl.flock` rather than a library (filelock): it is the one call needed, in the standard library, and its
lock goes with the process. Forked worker processes share their parent's locks, which is right: while a
worker lives, the staging folder it writes into is in use. Where there is no `fcntl` (Windows), nothing
is locked.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import sys
from pathlib import Path

# fcntl is there everywhere but on Windows (asked of sys.platform, which type checkers follow).
if sys.platform != "win32":
    import fcntl

from ..core.errors import UsageProblem

log = logging.getLogger("sessionsite")

MARKER = ".sessionsite"
"""The file that marks a folder as written by sessionsite (a site, or a folder a build made)."""
LEFTOVER_KINDS = (".building-", ".old-", ".site-")
"""What the folders a build makes beside its output `out` are called: `.<out>.building-…` (staging),
`.<out>.old-…` (the previous site, while it is swapped out) and `.<out>.site-…` (a zip's work folder)."""
BUNDLE_PREFIX = "sessionsite-bundle-"


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class OutputLock:
    """`with OutputLock(out):` the one build writing `out` (a folder, a zip or a bundle file)."""

    def __init__(self, out: Path):
        self.out = out.resolve()
        self.path = self.out.parent / f".{self.out.name}.lock"
        self.fd: int | None = None

    def __enter__(self) -> OutputLock:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            if not _try_lock(fd):
                holder = os.read(fd, 64).decode("ascii", "replace").strip()
                os.close(fd)
                held_by = f" (process {holder})" if holder.isdigit() else ""
                raise UsageProblem(f"{self.out}: another sessionsite command is writing it{held_by}; "
                                   "wait for it to end, or choose another -o")
            # The build that held it may have removed the file between our open and our lock: then ours is a
            # lock on a file nobody else will open. Take the one at the path instead.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except BaseException:  # a full disk: let go, or the next build in this process finds it held
            self.path.unlink(missing_ok=True)
            os.close(fd)
            raise
        self.fd = fd
        _register.owner = os.getpid()
        _register.lock_files.add(self.path)
        _register.update()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.fd is None:
            return
        self.path.unlink(missing_ok=True)  # still held: whoever opened it already finds it gone and retries
        os.close(self.fd)
        self.fd = None
        _register.lock_files.discard(self.path)
        _register.update()


# -- folders a build makes, and the register of running builds --------------------------------------------


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sessionsite"


class _Register:
    """This process's claimed folders and output locks, and the file in the cache folder that lists them."""

    def __init__(self) -> None:
        self.folders: dict[Path, int] = {}
        self.lock_files: set[Path] = set()
        self.fd: int | None = None
        self.path: Path | None = None
        self.owner = 0

    def update(self) -> None:
        if self.owner != os.getpid():  # a forked worker inherited the parent's: not its to change
            return
        try:
            listed = sorted(map(str, [*self.folders, *self.lock_files]))
            if listed and self.fd is None:
                self._create()
            if self.fd is not None and listed:
                data = json.dumps(listed).encode("utf-8")
                os.ftruncate(self.fd, 0)
                os.pwrite(self.fd, data, 0)
            elif self.fd is not None:
                assert self.path is not None
                self.path.unlink(missing_ok=True)
                os.close(self.fd)
                self.fd = self.path = None
        except OSError as error:  # a read-only cache: leftovers are then only found beside their own output
            log.debug("register of running builds: %s", error)

    def _create(self) -> None:
        folder = _cache_root() / "running"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{os.getpid()}-{secrets.token_hex(4)}"
        temporary = folder / f".{name}.part"
        fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        _try_lock(fd)  # new: nobody else has it
        # Listed under its final name only once locked, so that no other build takes it for a dead one's.
        os.replace(temporary, folder / f"{name}.json")
        self.fd, self.path = fd, folder / f"{name}.json"


_register = _Register()


def claim(folder: Path) -> None:
    """Hold `folder` (just made by this build) until `release`, and list it in the register."""
    folder = folder.resolve()
    fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECTORY", 0))
    _try_lock(fd)
    _register.owner = os.getpid()
    _register.folders[folder] = fd
    _register.update()


def release(folder: Path) -> None:
    """`folder` is removed (or was swapped in as the site): no longer this build's to clean up."""
    fd = _register.folders.pop(folder.resolve(), None)
    if fd is not None:
        os.close(fd)
        _register.update()


def remove_abandoned(out: Path | None = None) -> None:
    """Remove what builds that are no longer running left behind: the folders listed by every register no
    live process holds, and the leftovers beside `out` whose lock is free."""
    registers = _cache_root() / "running"
    try:
        listed = sorted(registers.glob("*.json")) if sys.platform != "win32" else []
    except OSError:
        listed = []
    for path in listed:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not _try_lock(fd):
                continue  # a running build's (our own too: its lock is on another open file)
            try:
                folders = [Path(name) for name in json.loads(os.pread(fd, 1 << 20, 0) or b"[]")]
            except ValueError:
                folders = []  # cut short when its build died; its folders are found beside their outputs
            for folder in folders:
                if folder.name.endswith(".lock"):
                    _remove_lock_file_if_abandoned(folder)
                else:
                    _remove_if_abandoned(folder, listed=True)
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
    if out is not None:
        out = out.resolve()
        for kind in LEFTOVER_KINDS:
            for leftover in sorted(out.parent.glob(f".{out.name}{kind}*")):
                _remove_if_abandoned(leftover, listed=False)


def _remove_lock_file_if_abandoned(path: Path) -> None:
    """An output's lock file its dead build left: removed unless a build holds it (another build's now)."""
    if not path.name.startswith(".") or path.is_symlink() or not path.is_file():
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if _try_lock(fd) and os.path.samestat(os.fstat(fd), os.stat(path)):
            path.unlink(missing_ok=True)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_if_abandoned(folder: Path, listed: bool) -> None:
    """Only a folder named as a build names them, that is a folder (not a link), that sessionsite wrote (its
    marker, or listed in a dead build's register: removing it may have taken the marker first), and that
    no live process holds."""
    name = folder.name
    ours = (name.startswith(".") and any(kind in name for kind in LEFTOVER_KINDS)) or name.startswith(BUNDLE_PREFIX)
    if not ours or folder.is_symlink() or not folder.is_dir() or folder in _register.folders:
        return
    if not listed and not (folder / MARKER).is_file():
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        if _try_lock(fd):
            log.info("removing %s, left by a build that is no longer running", folder)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)


__all__ = ["MARKER", "OutputLock", "claim", "release", "remove_abandoned"]
