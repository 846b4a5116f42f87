"""One error tree, rooted at click.ClickException so the CLI prints one clear line and exits 1."""

from __future__ import annotations

import errno
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import click


class SessionsiteError(click.ClickException):
    """Anything that stops a build."""

    exit_code = 1


class UsageProblem(SessionsiteError):
    """Options that cannot work together, such as an output folder inside the input: a usage error."""

    exit_code = 2


class InputError(SessionsiteError):
    """An INPUT that cannot be used: missing, unreadable, or holding no sessions."""


class ThemeError(SessionsiteError):
    """A theme folder that is missing or lacks a template."""


class StrictModeError(SessionsiteError):
    """--strict was given and the build produced diagnostics."""


class OutputError(SessionsiteError):
    """An output that could not be written: a full disk, a quota, a read-only filesystem, no permission."""


# Errors after which trying again can work once the user has made room.
_NO_ROOM = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, name))


def output_error(output: Path, error: OSError) -> OutputError:
    """One line naming the output a command was writing, the file in it when known, and why: an OSError of
    a write names no file (a full disk fails `write`, not `open`), and a file in the working folder beside
    the output (`.NAME.building-…`, `.NAME.site-…`) means nothing to the user, who asked for NAME."""
    reason = error.strerror or str(error) or type(error).__name__
    file = _file_of(output, error)
    shown = f" {file}" if file else ""
    advice = "; free some space and run it again" if error.errno in _NO_ROOM else ""
    return OutputError(f"{output.absolute()}: cannot write{shown}: {reason}{advice}")


def is_about(output: Path, error: OSError) -> bool:
    """Whether an OSError raised while `output` was being made is about writing it: it names no file (the
    stages read through handlers that name theirs), or names the output, a file in it or beside it."""
    return _file_of(output, error) is not None


_WORKING_FOLDER = re.compile(r"\.(?P<name>.+)\.(?:building|site|old)-[^./]*")
"""A folder a command writes NAME in, beside it, before it takes NAME's place (output/write.py, build.py)."""


def _file_of(output: Path, error: OSError) -> str | None:
    """The file an error names, as the user knows it: "" for none or the output itself, the path in the
    output for a file in it or in a working folder for it (`.site.zip.site-…/.site.building-…/x.html` is
    site/x.html in site.zip), the whole path for another file beside it of the command's (a lock); None
    for a file that is not the output's."""
    if error.filename is None:
        return ""
    written = Path(os.path.abspath(os.fsdecode(error.filename)))
    output = output.absolute()
    if not written.is_relative_to(output.parent) or written == output.parent:
        return None
    parts = written.relative_to(output.parent).parts
    as_known = [found["name"] if (found := _WORKING_FOLDER.fullmatch(part)) else part for part in parts]
    if as_known[0] == output.name:
        return "/".join(as_known[1:])
    return str(written) if parts[0].startswith(f".{output.name}.") else None


@contextmanager
def naming_errors(target: Path) -> Iterator[None]:
    """An OSError while writing `target` names it, as one from opening it does: a full disk fails a
    write, which names no file, and the user is then told only "No space left on device"."""
    try:
        yield
    except OSError as error:
        if error.filename is None:
            error.filename = os.fspath(target)
        raise
