"""Stage 7, write: put every output file in place, atomically.

The whole site is written, as it is made, into a fresh folder beside OUT and swapped in at the end, so a failed or
interrupted build leaves the previous site as it was. A folder that is not empty and was not written by
sessionsite is never replaced.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator

from ..core.errors import SessionsiteError, UsageProblem, naming_errors
from ..core.files import write_atomically
from .locks import MARKER, claim, release, remove_abandoned

MARKER_TEXT = b"This folder was written by sessionsite; the next build replaces it whole.\n"


class Staging:
    """The folder the new site is written into, beside OUT, and swapped in whole at the end (`commit`).
    Files go to disk as soon as they are made, from this process or from worker processes, so that no
    stage holds the site in memory. A path written twice is refused (as Pelican's writer does): it
    would mean two pages silently overwriting each other."""

    def __init__(self, out: Path):
        self.out = out.resolve()
        _check_replaceable(self.out)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        remove_abandoned(self.out)
        self.root = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.building-", dir=self.out.parent))
        claim(self.root)  # held while this build lives: no other build takes it for a dead one's leftover
        self.root.chmod(0o755)  # mkdtemp makes it private; a site is meant to be read
        with naming_errors(self.root / MARKER):
            (self.root / MARKER).write_bytes(MARKER_TEXT)
        self._appending: set[str] = set()
        self._folders_made: set[Path] = set()

    def _target(self, path: str) -> Path:
        if path.startswith("/") or ".." in path.split("/") or not path:
            raise SessionsiteError(f"internal error: output path escapes the output folder: {path}")
        target = self.root / path
        if target.parent not in self._folders_made:  # a site has thousands of files in a few folders
            target.parent.mkdir(parents=True, exist_ok=True)
            self._folders_made.add(target.parent)
        return target

    def write(self, path: str, content: str | bytes) -> None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        target = self._target(path)
        try:
            with naming_errors(target), target.open("xb") as handle:  # exclusive: even across worker processes
                handle.write(data)
        except FileExistsError:
            raise SessionsiteError(f"internal error: two outputs want the path {path}") from None

    def write_shared(self, path: str, content: bytes) -> None:
        """A content-addressed file several sessions may bring: written once, atomically, so that two
        workers writing it at the same moment leave one whole file."""
        target = self._target(path)
        if target.exists():
            return
        write_atomically(target, lambda handle: handle.write(content), sync=False)

    def append(self, path: str, text: str | bytes) -> None:
        """A file one session writes piece by piece (its Markdown, its search word list)."""
        mode = "ab" if path in self._appending else "xb"
        target = self._target(path)
        try:
            with naming_errors(target), target.open(mode) as handle:
                handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        except FileExistsError:
            raise SessionsiteError(f"internal error: two outputs want the path {path}") from None
        self._appending.add(path)

    def adopt(self, temporary: Path, path: str) -> None:
        """A file made beside the site (in the staging folder, by a worker) put in place at `path`."""
        target = self._target(path)
        if target.exists():
            raise SessionsiteError(f"internal error: two outputs want the path {path}")
        os.replace(temporary, target)

    def take_from_previous(self, path: str) -> bool:
        """A file of the site being replaced, kept as it is (a hard link: nothing is copied, and the
        previous site stays whole until the swap). False when the previous site lacks it."""
        target = self._target(path)
        if target.exists():
            return True  # a content-addressed file another session brought already
        try:
            os.link(self.out / path, target)
        except FileNotFoundError:
            return False
        except OSError:  # a filesystem without hard links
            try:
                with naming_errors(target):
                    shutil.copy2(self.out / path, target)
            except FileNotFoundError:
                return False
        return True

    def remove(self, path: str) -> None:
        (self.root / path).unlink(missing_ok=True)

    def commit(self) -> None:
        _swap_in(self.root, self.out)
        release(self.root)

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        release(self.root)


def is_sessionsite_output(out: Path) -> bool:
    return (out / MARKER).is_file()


def _check_replaceable(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise SessionsiteError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SessionsiteError(
            f"{out}: folder is not empty and was not written by sessionsite; choose another -o folder"
        )


def check_output_location(out: Path, inputs: tuple[Path, ...]) -> None:
    """The one rule for every command that writes (build, markdown, bundle): it never writes into what it
    reads. The output (a folder or a file) may not be, contain or sit inside an input folder (the folder
    of an input file counts), nor sit inside ~/.claude, where Claude Code keeps the logs."""
    out = out.resolve()
    claude = (Path.home() / ".claude").resolve()
    if out == claude or claude in out.parents:
        raise UsageProblem(f"{out}: the output may not be inside {claude}; choose another -o")
    for given in inputs:
        source = given.resolve()
        folder = source if source.is_dir() else source.parent
        if out == folder or folder in out.parents or out in source.parents:
            raise UsageProblem(f"{out}: the output may not be, hold or sit inside the input {given}; "
                               "choose another -o")


def check_vault_location(out: Path, vault: Path) -> None:
    """The vault holds raw logs, secrets included: it is never published, so it may not sit inside an
    output (which is replaced whole, and published), nor hold one."""
    out, vault = out.resolve(), vault.expanduser().resolve()
    if out == vault or vault in out.parents or out in vault.parents:
        raise UsageProblem(f"{out}: the output may not be, hold or sit inside the vault {vault}; "
                           "choose another -o folder or another --vault")


def _swap_in(staging: Path, out: Path) -> None:
    """Replace `out` with `staging` so that, killed at any moment, the build leaves either the old site
    or the new one at `out`, whole. Linux swaps the two folders in one step (renameat2 with
    RENAME_EXCHANGE); elsewhere two renames leave a moment with no site at `out`, but the old one stays
    beside it until the new one is in place."""
    if not out.exists():
        os.replace(staging, out)
        return
    if _exchange(staging, out):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the previous site
        return
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    os.replace(out, old)
    os.replace(staging, out)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(first: Path, second: Path, platform: str = sys.platform) -> bool:
    """The two folders swapped in one step, where Linux can (renameat2); False elsewhere, having done nothing
    (macOS and Windows: Windows loads no C library by no name at all)."""
    if not platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_current_directory, rename_exchange = -100, 2
    result: int = renameat2(at_current_directory, os.fsencode(first), at_current_directory, os.fsencode(second),
                       rename_exchange)
    return result == 0


ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every entry's time: the earliest a zip can hold, so that the same site always zips to the same bytes."""
NOT_ZIPPED = frozenset({MARKER})
"""Files that only matter to a site folder sessionsite may replace."""


def write_zip(site: Path, zip_path: Path, top_folder: str, leave_out: frozenset[str] = NOT_ZIPPED,
              progress: Callable[[Iterable[str], int, str], Iterator[str]] | None = None) -> None:
    """The site folder as a zip whose bytes depend only on the site's files: entries sorted, fixed times
    and permissions, one compression level. Everything sits in `top_folder`, so unzipping makes one
    folder. Written beside `zip_path` and moved into place, so a failed build leaves the old zip."""
    files = sorted(path.relative_to(site).as_posix() for path in site.rglob("*")
                   if path.is_file() and path.relative_to(site).as_posix() not in leave_out)
    zip_path = zip_path.resolve()
    zip_path.parent.mkdir(parents=True, exist_ok=True)

    def fill(handle: BinaryIO) -> None:
        with zipfile.ZipFile(handle, "w") as archive:
            for name in progress(files, len(files), "Zipping") if progress else files:
                entry = zipfile.ZipInfo(f"{top_folder}/{name}", date_time=ZIP_TIME)
                entry.create_system = 3  # Unix, so that the permission bits below are read
                entry.external_attr = (stat.S_IFREG | 0o644) << 16
                entry.compress_type = zipfile.ZIP_DEFLATED
                with (site / name).open("rb") as source, archive.open(entry, "w") as target:
                    shutil.copyfileobj(source, target, 1 << 20)

    write_atomically(zip_path, fill, sync=False)


def check_zip_target(zip_path: Path) -> None:
    if zip_path.exists() and not zip_path.is_file():
        raise UsageProblem(f"{zip_path}: exists and is not a file; choose another -o name ending in .zip")
