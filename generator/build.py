"""The Python API: `build(config) -> BuildReport` runs the pipeline.

Phase 1 reads and links every session before phase 2 writes a single page, because indexes, chains and
subagent links need the whole picture.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

from . import __version__, urls
from .discover import SessionFile, discover
from .errors import InputError, StrictModeError
from .html import render_site
from .html.theme import Theme
from .interpret import Interpreted, interpret
from .link import link
from .markdown import MarkdownOptions, MarkdownPage, render_session
from .model import Archive, Diagnostic
from .read import read_file
from .write import OutputFiles, write_output

log = logging.getLogger("sessionsite")
T = TypeVar("T")

EVENT_KINDS = {
    "Prompt": "prompt", "AssistantText": "assistant_text", "Thinking": "thinking", "ToolCall": "tool_call",
    "SlashCommand": "slash_command", "BashMode": "bash_mode", "Notice": "notice", "Unknown": "unknown",
    "Unreadable": "unreadable",
}


@dataclass(frozen=True)
class BuildConfig:
    """What to build and how."""

    inputs: tuple[Path, ...]
    """Session files, project folders or folders of project folders."""
    output: Path
    """Folder to write (replaced whole, atomically)."""
    theme: Path | None = None
    """A theme folder overriding parts of the default theme."""
    show_hidden: bool = False
    """Show system noise for auditing."""
    markdown_only: bool = False
    """Write only the Markdown intermediates (and the files they link to)."""
    strict: bool = False
    """Fail when there are diagnostics."""


@dataclass
class BuildReport:
    """What a build did: the JSON written by --report."""

    sessions: int = 0
    pages: int = 0
    events: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "sessions": self.sessions,
            "pages": self.pages,
            "events": dict(sorted(self.events.items())),
            "unknown": dict(sorted(self.unknown.items())),
            "diagnostics": [
                {"file": d.file, "line": d.line, "message": d.message} for d in self.diagnostics
            ],
        }
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def collect(inputs: Iterable[Path], progress: Callable[[Iterable[T]], Iterator[T]] | None = None,
            ) -> tuple[Archive, BuildReport]:
    """Phase 1: discover, read, interpret and link every session."""
    files = discover(list(inputs))
    if not files:
        raise InputError("no Claude Code session files (*.jsonl) found in " + ", ".join(map(str, inputs)))
    report = BuildReport()
    interpreted: list[Interpreted] = []
    iterate: Callable[[Iterable[SessionFile]], Iterator[SessionFile]] = progress or iter  # type: ignore[assignment]
    for session_file in iterate(files):
        result = interpret(session_file, read_file(session_file.path))
        interpreted.append(result)
        report.diagnostics.extend(result.diagnostics)
        report.unknown.update(result.unknown)
        if not result.has_conversation:
            log.info("%s: no conversation in it (metadata only); no page", session_file.path)
    archive = link(interpreted)
    report.sessions = len(archive.sessions)
    for session in archive.sessions.values():
        report.events.update(EVENT_KINDS[type(event).__name__] for event in session.events)
    return archive, report


def render_markdown_pages(archive: Archive, options: MarkdownOptions) -> dict[str, MarkdownPage]:
    return {key: render_session(session, archive, options) for key, session in archive.sessions.items()}


def build(config: BuildConfig, progress: Callable[[Iterable[T]], Iterator[T]] | None = None) -> BuildReport:
    archive, report = collect(config.inputs, progress)
    for diagnostic in report.diagnostics:
        log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
    if config.strict and report.diagnostics:
        raise StrictModeError(f"{len(report.diagnostics)} problem(s) in the input (--strict)")

    markdown_pages = render_markdown_pages(archive, MarkdownOptions(show_hidden=config.show_hidden))
    files = OutputFiles()
    for page in markdown_pages.values():
        files.add(page.path, page.text)
        files.add_all(page.attachments)
    if not config.markdown_only:
        theme = Theme.load(config.theme)
        site = render_site(archive, markdown_pages, theme, __version__)
        files.add_all(site.pages)
        files.add_all(site.assets)
        report.pages = len(site.pages)
    else:
        report.pages = len(markdown_pages)
    write_output(files, config.output)
    log.info("wrote %d files to %s (%d sessions)", len(files), config.output, report.sessions)
    return report


__all__ = ["BuildConfig", "BuildReport", "build", "collect", "urls"]
