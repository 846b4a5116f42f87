"""Paths as Claude Code writes them into logs and names folders after them, from any platform: a log
written on Windows (`D:\\work\\app`, `\\\\server\\share\\app`) reads the same on Linux and macOS, and the
other way round. Nothing here asks the platform sessionsite runs on: the path says what it is."""

from __future__ import annotations

import ntpath
import posixpath
import re

_WINDOWS = re.compile(r"^(?:[A-Za-z]:(?:[\\/]|$)|\\\\[^\\]+\\)")
_ENCODED_DRIVE = re.compile(r"^([A-Za-z])--(.*)$")


def is_windows_path(path: str) -> bool:
    """`C:\\Users\\ada`, `c:/work` or `\\\\server\\share\\x`: a path written on Windows."""
    return _WINDOWS.match(path) is not None


def encoded_project_folder(path: str) -> str:
    """Claude Code's name for the project folder of a working directory: every character but an ASCII
    letter or digit becomes `-` (`/home/ada/app` -> `-home-ada-app`, `C:\\Users\\ada\\app` ->
    `C--Users-ada-app`). Lossy: the sessions' own cwd says which path it was."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def decoded_project_folder(name: str) -> str:
    """A best guess at the path a project folder is named after, for when no session says its cwd:
    `-home-ada-app` -> `/home/ada/app`, `C--Users-ada-app` -> `C:\\Users\\ada\\app`. A `-` that stood for a
    `-`, a `.` or a space is guessed a folder separator."""
    drive = _ENCODED_DRIVE.match(name)
    if drive:
        return f"{drive.group(1)}:\\" + drive.group(2).replace("-", "\\")
    return name.replace("-", "/") if name.startswith("-") else name


def last_part(path: str) -> str:
    """The last name of a path, of either platform's (`D:\\work\\app\\` -> `app`); "" for a root."""
    if is_windows_path(path):
        return ntpath.basename(path.rstrip("\\/"))
    return posixpath.basename(path.rstrip("/"))


def program_name(path: str) -> str:
    """The name a program is known by, from its path on either platform: `C:\\...\\sessionsite.exe` and
    `/home/ada/.local/bin/sessionsite` are both `sessionsite`."""
    name = last_part(path) if is_windows_path(path) or "\\" in path else posixpath.basename(path)
    return name[:-4] if name.lower().endswith(".exe") else name


def _comparable(path: str) -> tuple[str, str]:
    """A path and its separator, in a form two spellings of one path share: on Windows, `/` is `\\` and
    case does not matter (`d:/Work/App` is `D:\\work\\app`)."""
    if is_windows_path(path):
        return ntpath.normcase(path).rstrip("\\"), "\\"
    return path.rstrip("/") or "/", "/"


def is_inside(path: str, top: str) -> bool:
    """Whether `path` is the folder `top` or inside it, both of one platform's spelling (git names a
    Windows checkout `D:/work/app`, Claude Code's cwd `D:\\work\\app`: one folder)."""
    path_form, separator = _comparable(path)
    top_form, top_separator = _comparable(top)
    if separator != top_separator:
        return False
    return path_form == top_form or path_form.startswith(top_form.rstrip(separator) + separator)


def relative_to(path: str, root: str) -> str:
    """`path` relative to the folder `root` when inside it (in `path`'s own spelling), else `path`."""
    stripped = root.rstrip("/\\")
    if not stripped or not is_inside(path, root) or _comparable(path)[0] == _comparable(root)[0]:
        return path
    return path[len(stripped) + 1:]


__all__ = ["decoded_project_folder", "encoded_project_folder", "is_inside", "is_windows_path", "last_part",
           "program_name", "relative_to"]
