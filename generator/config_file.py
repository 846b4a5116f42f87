"""The config file: `sessionsite.toml`, or the `[tool.sessionsite]` table of a `pyproject.toml`, found in
the current folder as MkDocs finds `mkdocs.yml` (or named with `--config-file`).

It gives the commands' options their defaults; an option given on the command line wins. Paths in it
are relative to the folder it is in, so `sessionsite build` run anywhere with `--config-file` builds the
same site. Every key is checked before anything runs: an unknown key, or a value of the wrong kind, is
one usage error naming the file, the key and what is expected.

    inputs = ["~/.claude/projects/-home-me-src-app"]
    output = "site"
    base_url = "https://me.github.io/app/"
    title = "App: how it was built"
    theme = "my-theme"
    redact = ["ACME-[0-9]{6}"]            # regular expressions
    redact_words = ["acme.internal"]      # words, in any case
    redact_paths = true

    [select]
    since = "30d"
    project = ["app"]
    exclude = ["*scratch*"]
    branch = ["main"]

    [gh-deploy]
    remote = "origin"
    branch = "gh-pages"
    message = "Sessions of the last month"
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from .core.errors import UsageProblem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 has no tomllib
    import tomli as tomllib

CONFIG_NAME = "sessionsite.toml"
PYPROJECT = "pyproject.toml"


@dataclass(frozen=True)
class Key:
    """One key of the config file: what it must hold, and the option of each command it is the default of."""

    expected: str
    """What a value must be, as the error says it."""
    check: Callable[[Any], bool]
    options: Mapping[str, str]
    """Command name -> the name of its parameter."""
    path: bool = False
    """Holds paths, relative to the config file's folder."""


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_texts(value: Any) -> bool:
    return isinstance(value, list) and all(_is_text(item) for item in value)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


_BUILDING = ("build", "markdown", "json", "bundle", "gh-deploy", "audit")


def _for(commands: tuple[str, ...], parameter: str) -> dict[str, str]:
    return {command: parameter for command in commands}


TEXTS = "a list of strings"
KEYS: dict[str, Key] = {
    "inputs": Key(f"{TEXTS} (session files or folders)", _is_texts, _for(("build", "markdown", "json", "gh-deploy",
                                                                          "audit"), "inputs"), path=True),
    "output": Key("a string: the folder to write", _is_text, _for(("build", "markdown", "gh-deploy"), "output"),
                  path=True),
    "base_url": Key("a string: the address the site is served from (https://you.github.io/repo/)", _is_text,
                    _for(("build", "gh-deploy"), "base_url")),
    "title": Key("a string: the site's title", _is_text, _for(("build", "gh-deploy"), "title")),
    "theme": Key("a string: a theme folder", _is_text, _for(("build", "gh-deploy"), "theme"), path=True),
    "redact": Key(f"{TEXTS} (regular expressions)", _is_texts, _for(_BUILDING, "redact_patterns")),
    "redact_words": Key(f"{TEXTS} (words)", _is_texts, _for(_BUILDING, "redact_words")),
    "redact_paths": Key("true or false", _is_bool, _for(_BUILDING, "redact_paths")),
}
SELECT_KEYS: dict[str, Key] = {
    "since": Key("a string: a date (2026-03-01) or a time back (30d, 2w)", _is_text, _for(_BUILDING, "since")),
    "until": Key("a string: a date (2026-03-31) or a time back (7d)", _is_text, _for(_BUILDING, "until")),
    "project": Key(f"{TEXTS} (project names, paths or patterns)", _is_texts, _for(_BUILDING, "projects")),
    "exclude": Key(f"{TEXTS} (project or session patterns)", _is_texts, _for(_BUILDING, "excludes")),
    "branch": Key(f"{TEXTS} (git branch names or patterns)", _is_texts, _for(_BUILDING, "branches")),
    "session": Key(f"{TEXTS} (session ids)", _is_texts, _for(_BUILDING, "session_ids")),
}
DEPLOY_KEYS: dict[str, Key] = {
    "remote": Key("a string: a git remote's name or URL", _is_text, {"gh-deploy": "remote"}),
    "branch": Key("a string: the branch to publish to", _is_text, {"gh-deploy": "deploy_branch"}),
    "message": Key("a string: the commit message", _is_text, {"gh-deploy": "message"}),
}
TABLES: dict[str, dict[str, Key]] = {"select": SELECT_KEYS, "gh-deploy": DEPLOY_KEYS}


@dataclass(frozen=True)
class Config:
    """A config file read and checked."""

    path: Path
    """The file."""
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)
    """By command, the defaults of its parameters (Click's `default_map`)."""


def find(folder: Path) -> Path | None:
    """`sessionsite.toml` in `folder`, else its `pyproject.toml` when that has a `[tool.sessionsite]` table."""
    own = folder / CONFIG_NAME
    if own.is_file():
        return own
    pyproject = folder / PYPROJECT
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None  # not ours to judge: it may be read by other tools, and says nothing about us
        if isinstance(data.get("tool"), dict) and "sessionsite" in data["tool"]:
            return pyproject
    return None


def load(path: Path) -> Config:
    """Read and check a config file; a problem is one `UsageProblem` naming the file and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageProblem(f"{path}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise UsageProblem(f"{path}: is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageProblem(f"{path}: is not valid TOML: {error}") from None
    prefix = ""
    if path.name == PYPROJECT:
        table = data.get("tool", {}).get("sessionsite") if isinstance(data.get("tool"), dict) else None
        if not isinstance(table, dict):
            raise UsageProblem(f"{path}: has no [tool.sessionsite] table")
        data, prefix = table, "tool.sessionsite."
    defaults: dict[str, dict[str, Any]] = {}
    folder = path.parent
    for name, value in data.items():
        if name in TABLES:
            if not isinstance(value, dict):
                raise UsageProblem(f"{path}: [{prefix}{name}] must be a table")
            for inner, inner_value in value.items():
                _add(defaults, path, f"{prefix}{name}.{inner}", TABLES[name], inner, inner_value, folder)
            continue
        _add(defaults, path, f"{prefix}{name}", KEYS, name, value, folder)
    return Config(path, defaults)


def _add(defaults: dict[str, dict[str, Any]], path: Path, shown: str, keys: Mapping[str, Key], name: str, value: Any,
         folder: Path) -> None:
    key = keys.get(name)
    if key is None:
        known = ", ".join(sorted([*keys, *(f"[{table}]" for table in TABLES if keys is KEYS)]))
        raise UsageProblem(f"{path}: unknown key {shown!r}; the keys are {known}")
    if isinstance(value, str) and key.expected.startswith(TEXTS):
        value = [value]  # one value where a list is expected: a list of one
    if not key.check(value):
        raise UsageProblem(f"{path}: {shown} must be {key.expected}, not {_shown(value)}")
    if key.path:
        value = [_place(path, shown, folder, item) for item in value] if isinstance(value, list) \
            else _place(path, shown, folder, value, must_exist=name == "theme")
    for command, parameter in key.options.items():
        defaults.setdefault(command, {})[parameter] = tuple(value) if isinstance(value, list) else value


def _place(path: Path, shown: str, folder: Path, value: str, must_exist: bool = True) -> Path:
    place = Path(value).expanduser()
    place = place if place.is_absolute() else folder / place
    if must_exist and not place.exists():
        raise UsageProblem(f"{path}: {shown}: {place} does not exist")
    return place


def _shown(value: Any) -> str:
    kind = {bool: "true/false", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)
    text = repr(value)
    return f"{kind} ({text[:60]}{'…' if len(text) > 60 else ''})"


__all__ = ["CONFIG_NAME", "Config", "find", "load"]
