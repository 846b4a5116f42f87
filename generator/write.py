"""Stage 7, write: put every output file in place, atomically.

The whole site is written into a fresh folder beside OUT and swapped in at the end, so a failed or
interrupted build leaves the previous site as it was. A folder that is not empty and was not written by
sessionsite is never replaced.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
from pathlib import Path
from typing import Mapping

from .errors import SessionsiteError, UsageProblem

MARKER = ".sessionsite"
MARKER_TEXT = b"This folder was written by sessionsite; the next build replaces it whole.\n"


class OutputFiles:
    """Output files by relative POSIX path. Refuses to hold the same path twice (as Pelican's writer
    does), which would mean two pages silently overwriting each other."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}

    def add(self, path: str, content: str | bytes) -> None:
        if path in self._files:
            raise SessionsiteError(f"internal error: two outputs want the path {path}")
        if path.startswith("/") or ".." in path.split("/"):
            raise SessionsiteError(f"internal error: output path escapes the output folder: {path}")
        self._files[path] = content.encode("utf-8") if isinstance(content, str) else content

    def add_shared(self, path: str, content: bytes) -> None:
        """A content-addressed file several documents may bring: the same bytes twice are one file."""
        if self._files.get(path) == content:
            return
        self.add(path, content)

    def add_all(self, files: Mapping[str, str | bytes]) -> None:
        for path, content in files.items():
            self.add(path, content)

    def __len__(self) -> int:
        return len(self._files)

    def items(self):
        return sorted(self._files.items())


def _check_replaceable(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise SessionsiteError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SessionsiteError(
            f"{out}: folder is not empty and was not written by sessionsite; choose another -o folder"
        )


def check_output_location(out: Path, inputs: tuple[Path, ...]) -> None:
    """A build never writes into its input: the output may not be, contain or sit inside an input folder,
    nor sit inside ~/.claude, where Claude Code keeps the logs."""
    out = out.resolve()
    claude = (Path.home() / ".claude").resolve()
    if out == claude or claude in out.parents:
        raise UsageProblem(f"{out}: the output folder may not be inside {claude}; choose another -o folder")
    for given in inputs:
        source = given.resolve()
        folder = source if source.is_dir() else source.parent
        if out == folder or folder in out.parents or out in source.parents:
            raise UsageProblem(f"{out}: the output folder may not be, hold or sit inside the input {given}")


def write_output(files: OutputFiles, out: Path) -> None:
    out = out.resolve()
    _check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        staging.chmod(0o755)  # mkdtemp makes it private; a site is meant to be read
        (staging / MARKER).write_bytes(MARKER_TEXT)
        for path, content in files.items():
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


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


def _exchange(first: Path, second: Path) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_current_directory, rename_exchange = -100, 2
    result = renameat2(at_current_directory, os.fsencode(first), at_current_directory, os.fsencode(second),
                       rename_exchange)
    return result == 0


def _remove_leftovers(out: Path) -> None:
    """Folders a killed build left beside the output (its staging area, or the previous site)."""
    for leftover in sorted(out.parent.glob(f".{out.name}.building-*")) + sorted(out.parent.glob(f".{out.name}.old-*")):
        if leftover.is_dir() and (leftover / MARKER).is_file():
            shutil.rmtree(leftover, ignore_errors=True)
