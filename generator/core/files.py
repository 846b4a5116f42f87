"""Files written whole or not at all."""

from __future__ import annotations

import os
from io import BufferedWriter
import secrets
from pathlib import Path
from typing import Callable, TypeVar

from .errors import naming_errors

T = TypeVar("T")

MAX_NAME_BYTES = 255
PART_SUFFIX = ".part"
"""How a file being written ends: one a crash leaves behind is `.<name>.<pid>.<random>.part`, beside its target."""


def part_path(target: Path) -> Path:
    """Where `target` is written before it is renamed into place: the same folder (a rename across file
    systems is no rename), hidden, and named after the target and the writer, so that two writers, in two
    processes or two threads, never share one, and one a crash leaves is recognisable."""
    ending = f".{os.getpid()}.{secrets.token_hex(4)}{PART_SUFFIX}"
    # A file system takes names of at most 255 bytes: a long target's name is cut to leave room for the ending.
    name = os.fsdecode(os.fsencode(target.name)[:MAX_NAME_BYTES - 1 - len(ending)])
    return target.with_name(f".{name}{ending}")


def write_atomically(target: Path, fill: Callable[[BufferedWriter], T], mode: int = 0o666, *, sync: bool = True) -> T:
    """`target` either as it was or whole with what `fill` writes, whatever happens meanwhile (a kill, a
    full disk, another writer): `fill` writes a file beside it, which is synced to disk (when `sync`) and
    renamed over `target`. `mode` are the new file's permission bits, less the umask. An OSError names
    `target`; on any failure the file beside it is removed. Returns what `fill` returned."""
    target.parent.mkdir(parents=True, exist_ok=True)
    part = part_path(target)
    try:
        with naming_errors(target):
            # "x": a link or file planted at the temporary name is never written through.
            with open(part, "xb", opener=lambda path, flags: os.open(path, flags | os.O_CLOEXEC, mode)) as handle:
                result = fill(handle)
                handle.flush()
                if sync:
                    os.fsync(handle.fileno())
            os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)
    return result

