"""What the pipeline knows of each input file as the phases pass it along: phase 1's summaries of it
(`Summarised`), what the manifest will say of it (`PlannedFile.record`), phase 2's outputs (`Rendered`),
and the redaction settings both phases apply."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..core.model import Diagnostic, Interpreted
from ..output.manifest import FileRecord
from ..stages.discover import SessionFile
from ..stages.redact import OwnRules, Redactor


@dataclass(frozen=True)
class Redaction:
    secrets: bool = True
    home: bool = False
    own: OwnRules = OwnRules()

    def redactor(self) -> Redactor:
        return Redactor(secrets=self.secrets, home=self.home, own=self.own)


@dataclass(frozen=True)
class Summarised:
    """Phase 1's result for one file."""

    interpreted: Interpreted
    """Its sessions' summaries (no events)."""
    diagnostics: tuple[Diagnostic, ...]
    content_hash: str
    """Of the file's bytes as they were read."""
    read_as: tuple[int, int] = (0, 0)
    """The file's size and modification time just before it was read."""
    anchor_maps: Mapping[str, str] = field(default_factory=dict)
    """For its sessions of more than one page, by key: the anchor map written for it, in the staging
    folder, to be put in place if the session is this file's to show."""


@dataclass
class PlannedFile:
    """An input file, and what phase 1 made of it (read now, or taken from the previous build)."""

    source: SessionFile
    record: FileRecord
    """What the manifest will say of it."""
    result: Summarised | None = None
    """Its summaries (for a continuing session: summarised again without the replayed entries)."""
    reused: bool = False
    """Unchanged since the previous build, whose summaries it has."""


@dataclass(frozen=True)
class Rendered:
    """Phase 2's result for one file."""

    pages: int
    """HTML pages written (Markdown documents, for a Markdown-only build)."""
    redactions: Counter[str]
    outputs: tuple[str, ...]
    """Every file written for it."""
    page_bodies: Mapping[str, list[Any]] = field(default_factory=dict)
    """How each page's body was made, by page path (`FileRecord.page_bodies`)."""


def largest_first(plans: list[PlannedFile]) -> list[PlannedFile]:
    """Work handed out largest file first, so that no worker is left with a big file at the end while
    the others wait. Results are matched to their files, so the order changes nothing in the output."""
    return sorted(plans, key=lambda plan: (-plan.record.size, plan.record.path))


def largest_files_first(files: list[SessionFile]) -> list[SessionFile]:
    return sorted(files, key=lambda f: (-(f.kept.size if f.kept is not None else f.path.stat().st_size), str(f.path)))
