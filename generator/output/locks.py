"""Builds that share a machine, and builds that die: who owns an output, and what a dead build left.

- One build at a time per output. `OutputLock` holds an exclusive lock on `.<output>.lock`, beside the
  output, for the whole command: the site, its manifest, and the input-hash cache kept for that output
  (one per output) are only written under it. A second build into the same output does not wait: it
  stops at once (exit 2) with one line naming the build that holds the lock.
- Every folder a build makes beside an output (its staging folder, a zip's work folder, a bundle's) is
  claimed (`claim`): an exclusive lock on a file beside it (`<folder>.lock`), held until the build removes
  the folder, and the folder listed in this process's register of running builds, in the cache folder
  (`running/` in the platform's cache folder, `core.places.cache_home`: a `.lock` file held the same way, and the `.list` beside it).
- The system drops a process's locks when it dies, however it dies (SIGKILL, power cut). So a folder or a
  register whose lock can be taken has no live owner: `remove_abandoned`, run at the start of every
  command that writes, removes the folders listed by every register no process holds (whatever output they
  were made for) and this output's own leftovers whose lock is free. A locked folder is never touched.

The locks are filelock's, on descriptors we open: `flock` on Linux and macOS, `LockFileEx` on Windows.
Forked worker processes share their parent's locks, which is right: while a worker lives, the staging
folder it writes into is in use. What Windows does otherwise is kept to three rules, which hold on every
platform so that the one code path is tested everywhere: a lock is on a file, never on a folder (Windows
opens no folder as a file, and renames none with a file open inside, as the swap of a staging folder
does); what is locked is never read by another process (a Windows lock keeps others from reading its
bytes), so a register's list is a file of its own; and a file is removed only once closed (Windows
removes no file that is open).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
from pathlib import Path

from filelock import lock_descriptor

from ..core.errors import UsageProblem
from ..core.places import user_cache_folder

log = logging.getLogger("sessionsite")

MARKER = ".sessionsite"
"""The file that marks a folder as written by sessionsite (a site, or a folder a build made)."""
LEFTOVER_KINDS = (".building-", ".old-", ".site-")
"""What the folders a build makes beside its output `out` are called: `.<out>.building-…` (staging),
`.<out>.old-…` (the previous site, while it is swapped out) and `.<out>.site-…` (a zip's work folder)."""
BUNDLE_PREFIX = "sessionsite-bundle-"
LOCK_SUFFIX = ".lock"
LIST_SUFFIX = ".list"
"""A register's list of folders. Not `.json`: sessionsite 0.1's registers were `.json` files locked
themselves, and a 0.1 build running beside this one would take an unlocked `.json` list for a dead
build's and remove the folders of a live one."""
HOLDER_WIDTH = 24
"""The holder's process number is written padded to this width, so that it replaces the last one's
whole without truncating a file that is locked."""


def _open_lock_file(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0), 0o644)


def _try_lock(fd: int) -> bool:
    """An exclusive lock on the open file `fd`, now or never; held until `fd` is closed."""
    return lock_descriptor(fd, blocking=False)


def _remove_closed(path: Path) -> None:
    """`path` removed, after its descriptor was closed. Where another process opened it meanwhile, Windows
    refuses: then it stays, for that process (or the next build) to use or remove."""
    try:
        path.unlink(missing_ok=True)
    except PermissionError:
        pass


def _samefile(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


class OutputLock:
    """`with OutputLock(out):` the one build writing `out` (a folder, a zip or a bundle file)."""

    def __init__(self, out: Path):
        self.out = out.resolve()
        self.path = self.out.parent / f".{self.out.name}{LOCK_SUFFIX}"
        self.fd: int | None = None

    def __enter__(self) -> OutputLock:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = _open_lock_file(self.path)
            if not _try_lock(fd):
                try:
                    holder = os.read(fd, HOLDER_WIDTH).decode("ascii", "replace").strip()
                except OSError:  # Windows: a locked file's bytes are its holder's
                    holder = ""
                os.close(fd)
                held_by = f" (process {holder})" if holder.isdigit() else ""
                raise UsageProblem(f"{self.out}: another sessionsite command is writing it{held_by}; "
                                   "wait for it to end, or choose another -o")
            # The build that held it may have removed the file between our open and our lock: then ours is a
            # lock on a file nobody else will open. Take the one at the path instead.
            if _samefile(fd, self.path):
                break
            os.close(fd)
        try:
            os.write(fd, f"{os.getpid()}\n".ljust(HOLDER_WIDTH).encode("ascii"))
        except BaseException:  # a full disk: let go, or the next build in this process finds it held
            os.close(fd)
            _remove_closed(self.path)
            raise
        self.fd = fd
        _register.owner = os.getpid()
        _register.lock_files.add(self.path)
        _register.update()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.fd is None:
            return
        os.close(self.fd)
        # Whoever opens it now and locks it finds it gone (or, where Windows kept it, theirs): either is right.
        _remove_closed(self.path)
        self.fd = None
        _register.lock_files.discard(self.path)
        _register.update()


# -- folders a build makes, and the register of running builds --------------------------------------------


def _cache_root() -> Path:
    return user_cache_folder()


class _Register:
    """This process's claimed folders and output locks, and the files in the cache folder that list them:
    `<pid>-<random>.lock`, held while this process lives, and `<pid>-<random>.list`, the list."""

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
            if self.fd is not None and self.path is not None and listed:
                listing = self.path.with_suffix(LIST_SUFFIX)
                part = listing.with_name(f".{listing.name}.part")
                part.write_text(json.dumps(listed), encoding="utf-8")
                os.replace(part, listing)
            elif self.fd is not None and self.path is not None:
                self.path.with_suffix(LIST_SUFFIX).unlink(missing_ok=True)
                os.close(self.fd)
                _remove_closed(self.path)
                self.fd = self.path = None
        except OSError as error:  # a read-only cache: leftovers are then only found beside their own output
            log.debug("register of running builds: %s", error)

    def _create(self) -> None:
        folder = _cache_root() / "running"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{os.getpid()}-{secrets.token_hex(4)}{LOCK_SUFFIX}"
        fd = _open_lock_file(path)
        _try_lock(fd)  # new: nobody else has it
        self.fd, self.path = fd, path


_register = _Register()


def claim(folder: Path) -> None:
    """Hold `folder` (just made by this build) until `release`, and list it in the register."""
    folder = folder.resolve()
    fd = _open_lock_file(_lock_file_of(folder))
    _try_lock(fd)  # the folder is new, named at random: nobody else has it
    _register.owner = os.getpid()
    _register.folders[folder] = fd
    _register.update()


def release(folder: Path) -> None:
    """`folder` is removed (or was swapped in as the site): no longer this build's to clean up."""
    folder = folder.resolve()
    fd = _register.folders.pop(folder, None)
    if fd is not None:
        os.close(fd)
        _remove_closed(_lock_file_of(folder))
        _register.update()


def _lock_file_of(folder: Path) -> Path:
    return folder.with_name(folder.name + LOCK_SUFFIX)


def remove_abandoned(out: Path | None = None) -> None:
    """Remove what builds that are no longer running left behind: the folders listed by every register no
    live process holds, and the leftovers beside `out` whose lock is free."""
    registers = _cache_root() / "running"
    try:
        listed = sorted(registers.glob(f"*{LOCK_SUFFIX}"))
    except OSError:
        listed = []
    for path in listed:
        if path == _register.path:
            continue
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            if not _try_lock(fd):
                continue  # a running build's
            listing = path.with_suffix(LIST_SUFFIX)
            try:
                folders = [Path(name) for name in json.loads(listing.read_bytes() or b"[]")]
            except (OSError, ValueError):
                folders = []  # none yet, or cut short when its build died: its folders are found beside their outputs
            for folder in folders:
                if folder.name.endswith(LOCK_SUFFIX):
                    _remove_lock_file_if_abandoned(folder)
                else:
                    _remove_if_abandoned(folder, listed=True)
            listing.unlink(missing_ok=True)
        finally:
            os.close(fd)
        _remove_closed(path)
    if out is not None:
        out = out.resolve()
        for kind in LEFTOVER_KINDS:
            for leftover in sorted(out.parent.glob(f".{out.name}{kind}*")):
                if leftover.name.endswith(LOCK_SUFFIX):
                    if not leftover.with_name(leftover.name[:-len(LOCK_SUFFIX)]).exists():
                        _remove_lock_file_if_abandoned(leftover)  # its folder is gone: a build died removing it
                else:
                    _remove_if_abandoned(leftover, listed=False)


def _remove_lock_file_if_abandoned(path: Path) -> None:
    """A lock file its dead build left: removed unless a build holds it (another build's now)."""
    if not path.name.startswith(".") or path.is_symlink() or not path.is_file():
        return
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        free = _try_lock(fd) and _samefile(fd, path)
    except OSError:
        free = False
    finally:
        os.close(fd)
    if free:
        _remove_closed(path)


def _remove_if_abandoned(folder: Path, listed: bool) -> None:
    """Only a folder named as a build names them, that is a folder (not a link), that sessionsite wrote (its
    marker, or listed in a dead build's register: removing it may have taken the marker first), and that
    no live process holds (its lock file, beside it, is free or gone)."""
    name = folder.name
    ours = (name.startswith(".") and any(kind in name for kind in LEFTOVER_KINDS)) or name.startswith(BUNDLE_PREFIX)
    if not ours or folder.is_symlink() or not folder.is_dir() or folder in _register.folders:
        return
    if not listed and not (folder / MARKER).is_file():
        return
    lock_file = _lock_file_of(folder)
    try:
        fd = _open_lock_file(lock_file)
    except OSError:
        return
    try:
        free = _try_lock(fd) and _samefile(fd, lock_file)
        if free:
            log.info("removing %s, left by a build that is no longer running", folder)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)
    if free:
        _remove_closed(lock_file)


__all__ = ["MARKER", "OutputLock", "claim", "release", "remove_abandoned"]
