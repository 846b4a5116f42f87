"""What a build is asked to do (`BuildConfig`), what it reports (`BuildReport`), and the files it reads.

Shared by `build` (which decides whether there is work) and `pipeline` (which does it), so that neither
imports the other.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Protocol, TypeVar

from .core.errors import InputError
from .core.entries import Diagnostic
from .stages.discover import SessionFile, arrange, find, nothing_found
from .stages.redact import OwnRules, redact_project_dir
from .stages.selection import Selection

if TYPE_CHECKING:  # cryptography is loaded only by an encrypted output
    from .output.encrypt import SiteKey

T = TypeVar("T")


class Progress(Protocol):
    """Shows work going by: given the results as they come, how many there will be, and a label; it
    passes the results on as they come."""

    def __call__(self, items: Iterable[T], length: int, label: str, /) -> Iterator[T]: ...


@dataclass(frozen=True)
class ReadOptions:
    """What every command that reads logs and writes an output is given (the build, the exports, the
    bundle): which logs, how they are redacted and shown, and where the vault is. Each command's config
    adds its own."""

    inputs: tuple[Path, ...]
    """What to read: session files, project folders or folders of project folders (a bundle: its session
    files, or none for the current branch's sessions)."""
    output: Path
    """What to write: a folder (replaced whole, atomically), a zip, or a bundle's one file."""
    show_hidden: bool = field(default=False, kw_only=True)
    """Show system noise for auditing."""
    strict: bool = field(default=False, kw_only=True)
    """Fail when there are diagnostics."""
    redact: bool = field(default=True, kw_only=True)
    """Replace secrets (keys, tokens, passwords) with visible markers."""
    redact_paths: bool = field(default=False, kw_only=True)
    """Replace home directories with ~."""
    jobs: int = field(default=1, kw_only=True)
    """Worker processes; 1 does everything in this process."""
    vault: Path | None = field(default=None, kw_only=True)
    """The vault every log read is saved into, and the logs that are gone are read from (None: none)."""
    repo_url: str = field(default="", kw_only=True)
    """The repository's web address: every commit's SHA links to `<repo_url>/commit/<sha>` (otherwise to the
    remote the session's own `git push` output named, when it did)."""
    selection: Selection = field(default=Selection(), kw_only=True)
    """Which sessions to publish (with their chains and subagents); empty, all."""
    own_redaction: OwnRules = field(default=OwnRules(), kw_only=True)
    """The user's own patterns and words to redact, on top of the built-in rules."""
    theme: Path | None = field(default=None, kw_only=True)
    """A theme folder overriding parts of the default theme."""
    key: SiteKey | None = field(default=None, kw_only=True, repr=False)
    """Encrypt the output with this key (`output.encrypt`); None: not encrypted."""


@dataclass(frozen=True)
class BuildConfig(ReadOptions):
    """What to build and how."""

    markdown_only: bool = False
    """Write only the Markdown intermediates (and the files they link to)."""
    base_url: str = ""
    """Where the site will be published (ending in /): pages get canonical links, and a sitemap is written."""
    prune: bool = False
    """Leave out the sessions whose log is gone (the vault still keeps them)."""
    title: str = ""
    """The site's title (empty: the default one)."""


@dataclass
class BuildReport:
    """What a build did: the JSON written by --report."""

    sessions: int = 0
    """Sessions as the index and the project pages count them (`Session.is_listed`)."""
    subagent_runs: int = 0
    """The subagent runs those sessions started, each with a page of its own."""
    pages: int = 0
    events: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)
    search_index_bytes: int = 0
    """The search index's files, against `site_bytes`, the whole site's."""
    site_bytes: int = 0
    kept: list[str] = field(default_factory=list)
    """Logs read from the vault because they are gone from where they were (`<project>/<path in it>`)."""
    pruned: list[str] = field(default_factory=list)
    """Logs that are gone and were left out (--prune)."""
    saved: Any = None
    """What the vault's save did (a `vault.SaveReport`); not in the JSON, which does not depend on it."""

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "sessions": self.sessions,
            "subagent_runs": self.subagent_runs,
            "pages": self.pages,
            "events": dict(sorted(self.events.items())),
            "unknown": dict(sorted(self.unknown.items())),
            "redactions": dict(sorted(self.redactions.items())),
            "search_index_bytes": self.search_index_bytes,
            "site_bytes": self.site_bytes,
            "kept": self.kept,
            "pruned": self.pruned,
            "diagnostics": [
                {"file": d.file, "line": d.line, "message": d.message} for d in self.diagnostics
            ],
        }
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> BuildReport:
        data = json.loads(text)
        return cls(sessions=data["sessions"], subagent_runs=data.get("subagent_runs", 0), pages=data["pages"], events=Counter(data["events"]),
                   unknown=Counter(data["unknown"]), redactions=Counter(data["redactions"]),
                   search_index_bytes=data.get("search_index_bytes", 0), site_bytes=data.get("site_bytes", 0),
                   kept=data.get("kept", []), pruned=data.get("pruned", []),
                   diagnostics=[Diagnostic(d["file"], d["line"], d["message"]) for d in data["diagnostics"]])


def discover_files(inputs: list[Path], redact_paths: bool, problems: list[Diagnostic] | None = None,
                   own: OwnRules | None = None) -> list[SessionFile]:
    return arranged(find(inputs, problems), inputs, redact_paths, problems, own)


def arranged(files: list[SessionFile], inputs: Iterable[Path], redact_paths: bool,
             problems: list[Diagnostic] | None = None, own: OwnRules | None = None) -> list[SessionFile]:
    files = arrange(files, problems)
    if not files:
        raise InputError(nothing_found(inputs))
    return [replace(f, project_dir=redact_project_dir(f.project_dir, redact_paths, own)) for f in files]
