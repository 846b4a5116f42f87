"""Home folders in text and in Claude Code's encoded folder names (`--redact-paths`)."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

_HOME = re.compile(r"(?:/home/|/Users/)[^/\s\"'\\:]+|[A-Za-z]:\\\\?Users\\\\?[^\\\s\"':]+")
# Claude Code names a project's folder after its path, every character but letters and digits a `-`:
# `-home-alice-src`, `-Users-alice-src`, `C--Users-alice-src`, and its temporary folders after that
# (`/private/tmp/claude-501/-Users-alice-src/…`). The user name is the part after home or Users, at the
# start of a name or after another `-` (`…-501--Users-alice-…`), never inside a word (`stay-at-home-x`)
# or an option (`--home-dir`). A name with a dot or a dash in it is known whole only from the home
# folder of the user building, or of a session's working directory (`Redactor.learn_home`).
HOME_PATH = _HOME
"""A home folder in a path (/home/ada, /Users/ada, C:\\Users\\ada)."""
_ENCODED_HOME_START = r"(?:(?<![A-Za-z0-9_.-])|(?<=[A-Za-z0-9]-))"
_ENCODED_HOME = _ENCODED_HOME_START + r"(?:[A-Za-z]-)?-(?:home|Users)-\w+"
HOME_FOLDER = re.compile(r"(?:/home/|/Users/)[^/]+|[A-Za-z]:\\Users\\[^\\]+")


def encoded_form(home: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", home)


@functools.lru_cache(maxsize=64)
def encoded_homes(known: frozenset[str]) -> re.Pattern[str]:
    """The pattern for encoded home folders: those known whole (the longest first), then any."""
    exact = sorted(map(encoded_form, known), key=len, reverse=True)
    alternatives = [_ENCODED_HOME_START + re.escape(name) + r"(?![A-Za-z0-9])" for name in exact]
    return re.compile("|".join([*alternatives, _ENCODED_HOME]))


def local_home() -> frozenset[str]:
    home = str(Path.home())
    return frozenset({home}) if HOME_FOLDER.fullmatch(home) else frozenset()


def holds_home(text: str) -> bool:
    return "-home-" in text or "-Users-" in text or _HOME.search(text) is not None



class HomeLearning:
    """The `Redactor`'s knowledge of the home folders the sessions' working directories name."""

    if TYPE_CHECKING:  # what it uses of the `Redactor`, which defines them
        home: bool
        homes: frozenset[str]
        _cwd: str

    def learn_home(self, path: Any) -> None:
        """Know the home folder a working directory is in (`/Users/ada.lovelace/src` -> its user name,
        which its encoded form `-Users-ada-lovelace-src` spells ambiguously)."""
        if self.home and isinstance(path, str) and path != self._cwd:
            self._cwd = path
            found = HOME_FOLDER.match(path)
            if found is not None and found.group() not in self.homes:
                self.homes = self.homes | {found.group()}
