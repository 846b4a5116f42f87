"""The sessionsite a hook runs, by its full path, and whether it lives where it stays (not in a git
checkout that may move or be deleted)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from ..core.paths import program_name


@dataclass(frozen=True)
class HookProgram:
    """How the hook starts sessionsite, and whether that will keep working."""

    words: tuple[str, ...]
    """A sessionsite by its full path (Claude Code's PATH may not have it), or Python with `-m generator`."""
    checkout: Path | None = None
    """The git checkout it lives in (its virtualenv, or its code), which may move or be deleted; None when
    it lives outside any."""

    def warning(self) -> str | None:
        if program_name(self.words[0]) == "uvx":
            return ("the hook runs sessionsite through uvx, as you did: uvx keeps it in uv's cache, and fetches it "
                    "again (over the network) when that cache is cleaned. `uv tool install sessionsite`, then "
                    "`sessionsite hook install` again, puts it where it stays")
        if self.checkout is None:
            return None
        return (f"the hook runs {self.words[0]}, which is inside the git checkout {self.checkout}: if that folder "
                "moves, or its virtualenv is removed, the hook stops saving sessions (`sessionsite doctor` says "
                f"so). Install sessionsite where it stays, with `pipx install {self.checkout}` or "
                f"`uv tool install {self.checkout}`, then run `sessionsite hook install` again")


def hook_program() -> HookProgram:
    """The sessionsite the hook should run: the first of this very one and those on PATH that lives outside
    every git checkout and every cache (pipx's, uv tool's, a system one); when this one runs from uv's
    cache (`uvx sessionsite`) and there is none, uvx again, by its full path; else this one, saying where
    it is."""
    candidates = []
    running = Path(sys.argv[0])
    if program_name(running.name) == "sessionsite" and running.is_file():
        candidates.append(running.absolute())
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        found = shutil.which("sessionsite", path=folder) if folder else None
        if found and Path(found).absolute() not in candidates:
            candidates.append(Path(found).absolute())
    cached = [program for program in candidates if in_a_cache(program)]
    placed = [(program, _checkout_of_program(program)) for program in candidates if program not in cached]
    for program, checkout in placed:
        if checkout is None:
            return HookProgram((str(program),))
    uvx = shutil.which("uvx")
    if cached and uvx and Path(uvx).is_absolute():
        return HookProgram((str(Path(uvx).absolute()), "sessionsite"))
    if placed:
        return HookProgram((str(placed[0][0]),), placed[0][1])
    python = Path(sys.executable).absolute()
    return HookProgram((str(python), "-m", "generator"),
                       _checkout_of(python) or _checkout_of(Path(__file__).resolve().parents[1]))


def hook_command(vault: Path | None, program: HookProgram | None = None) -> str:
    """The command the hook runs: `program` (by default, `hook_program()`) saving into the vault given at
    install time, if one was."""
    words = list((program or hook_program()).words) + ["save", "--hook"]
    if vault is not None:
        words += ["--vault", str(vault.expanduser().absolute())]
    return shlex.join(words)


def in_a_cache(program: Path) -> bool:
    """Whether `program` lives in a cache folder, which may be emptied at any time: one marked as such
    (the Cache Directory Tagging Specification's CACHEDIR.TAG, which uv and pip write), as `uvx` keeps the
    sessionsite it runs."""
    return any((folder / "CACHEDIR.TAG").is_file() for folder in program.absolute().parents)


def _checkout_of_program(program: Path) -> Path | None:
    """The git checkout `program`, the file it links to, or the Python its first line names lives in; for
    this Python's own programs, the one sessionsite's code is in too (an editable install)."""
    places = [program, program.resolve()]
    interpreter = _interpreter_of(program)
    if interpreter is not None:
        places += [interpreter, interpreter.resolve()]
        if interpreter.resolve() == Path(sys.executable).resolve():
            places.append(Path(__file__).resolve().parents[1])
    return next((checkout for place in places if (checkout := _checkout_of(place)) is not None), None)


def _interpreter_of(program: Path) -> Path | None:
    """The interpreter a script's `#!` line names (a console script names its virtualenv's Python)."""
    try:
        with program.open("rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    return Path(words[0]) if words and words[0].startswith("/") else None


def _checkout_of(place: Path) -> Path | None:
    """The top of the git checkout `place` is in, if any. The home folder is not one even with a .git in
    it: that is how many keep their dotfiles, and what lives under it does not move with a clone."""
    home = Path.home().absolute()
    for folder in place.absolute().parents:
        if folder == home or folder == Path(folder.anchor):
            continue
        if (folder / ".git").exists():
            return folder
    return None
