"""Where sessionsite keeps things of its own on the user's machine, outside any site it writes."""

from __future__ import annotations

import os
import stat
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping

from .errors import SessionsiteError


def cache_home(platform: str = sys.platform, environ: Mapping[str, str] = os.environ, home: Path | None = None) -> Path:
    """The platform's folder for caches (what is kept there can always be made again): `$XDG_CACHE_HOME`
    where it is set, on any platform (whoever sets it means it), else `~/Library/Caches` on macOS,
    `%LOCALAPPDATA%` on Windows and `~/.cache` elsewhere."""
    home = home or Path.home()
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"])
    if platform == "darwin":
        return home / "Library" / "Caches"
    if platform == "win32":
        return Path(environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    return home / ".cache"


def data_home(platform: str = sys.platform, environ: Mapping[str, str] = os.environ, home: Path | None = None) -> Path:
    """The platform's folder for a user's data (what cannot be made again: the vault): `$XDG_DATA_HOME`
    where it is set, on any platform, else `~/Library/Application Support` on macOS, `%LOCALAPPDATA%` on
    Windows (not the roaming `%APPDATA%`, which a domain copies at every sign-in: a vault is large) and
    `~/.local/share` elsewhere."""
    home = home or Path.home()
    if environ.get("XDG_DATA_HOME"):
        return Path(environ["XDG_DATA_HOME"])
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32":
        return Path(environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    return home / ".local" / "share"


def user_cache_folder() -> Path:
    """sessionsite's own part of the platform's folder for caches."""
    return cache_home() / "sessionsite"


def private_cache_folder(*parts: str) -> Path:
    """A folder in sessionsite's cache folder, made if missing, that only the user can enter: it and the
    cache folder itself (0700). What is kept there is the user's alone: a site `serve` built, unredacted
    with --no-redact, the paths of the logs read."""
    folder = _private_folder(user_cache_folder())
    for part in parts:
        folder = _private_folder(folder / part)
    return folder


def _private_folder(folder: Path) -> Path:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if os.name != "posix":
            return folder  # the user's profile folders are private already
        status = folder.stat()
        if status.st_uid != os.getuid():
            raise SessionsiteError(f"{folder}: belongs to another user, who could read or change what sessionsite "
                                   "keeps there; remove it, or set XDG_CACHE_HOME to a folder of yours")
        if stat.S_IMODE(status.st_mode) & 0o077:
            folder.chmod(0o700)
    except OSError as error:
        raise SessionsiteError(f"{folder}: cannot make it private to you ({error.strerror or error})") from None
    return folder


@contextmanager
def private_files() -> Iterator[None]:
    """Files and folders made meanwhile, by this process and the worker processes it starts, are the
    user's alone (umask 077). Process-wide: for a command whose other threads make no files."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)
