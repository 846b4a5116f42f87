"""The Python API: `build(config) -> BuildReport` runs the pipeline.

Phase 1 reads and links every session before phase 2 writes a single page, because indexes, chains and
subagent links need the whole picture.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

from . import __version__
from .discover import SessionFile, discover
from .errors import InputError, StrictModeError
from .html import PageBuilder, render_indexes
from .html.theme import Theme
from .interpret import Interpreted, interpret
from .link import link
from .markdown import MarkdownOptions, MarkdownPage, render_session
from .model import Archive, Diagnostic
from .read import read_file
from .redact import Redactor
from .write import OutputFiles, check_output_location, write_output

log = logging.getLogger("sessionsite")
T = TypeVar("T")

EVENT_KINDS = {
    "Prompt": "prompt", "AssistantText": "assistant_text", "Thinking": "thinking", "ToolCall": "tool_call",
    "SlashCommand": "slash_command", "BashMode": "bash_mode", "Notice": "notice", "Unknown": "unknown",
    "Unreadable": "unreadable", "Plan": "plan",
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
    redact: bool = True
    """Replace secrets (keys, tokens, passwords) with visible markers."""
    redact_paths: bool = False
    """Replace home directories with ~."""
    jobs: int = 1
    """Worker processes for phase 2 (rendering); 1 renders in this process."""


@dataclass
class BuildReport:
    """What a build did: the JSON written by --report."""

    sessions: int = 0
    pages: int = 0
    events: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "sessions": self.sessions,
            "pages": self.pages,
            "events": dict(sorted(self.events.items())),
            "unknown": dict(sorted(self.unknown.items())),
            "redactions": dict(sorted(self.redactions.items())),
            "diagnostics": [
                {"file": d.file, "line": d.line, "message": d.message} for d in self.diagnostics
            ],
        }
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def collect(inputs: Iterable[Path], progress: Callable[[Iterable[T]], Iterator[T]] | None = None,
            redactor: Redactor | None = None) -> tuple[Archive, BuildReport]:
    """Phase 1: discover, read, redact, interpret and link every session."""
    files = discover(list(inputs))
    if not files:
        raise InputError("no Claude Code session files (*.jsonl) found in " + ", ".join(map(str, inputs)))
    redactor = redactor or Redactor()
    report = BuildReport()
    interpreted: list[Interpreted] = []
    iterate: Callable[[Iterable[SessionFile]], Iterator[SessionFile]] = progress or iter  # type: ignore[assignment]
    for session_file in iterate(files):
        session_file = replace(session_file, project_dir=redactor.project_dir(session_file.project_dir))
        result = interpret(session_file, redactor.read_result(read_file(session_file.path)))
        interpreted.append(result)
        report.diagnostics.extend(result.diagnostics)
        report.unknown.update(result.unknown)
        if not result.has_conversation:
            log.info("%s: no conversation in it (metadata only); no page", session_file.path)
    archive = link(interpreted)
    report.redactions = redactor.counts
    report.sessions = len(archive.sessions)
    for session in archive.sessions.values():
        report.events.update(EVENT_KINDS[type(event).__name__] for event in session.events)
    return archive, report


class SessionRenderer:
    """Phase 2 for one session: its Markdown, then its page. Holds everything phase 1 produced, so that
    worker processes forked from the build can render any session by key."""

    def __init__(self, archive: Archive, options: MarkdownOptions, builder: PageBuilder | None):
        self.archive = archive
        self.options = options
        self.builder = builder

    def __call__(self, key: str) -> tuple[MarkdownPage, dict[str, str]]:
        session = self.archive.sessions[key]
        markdown = render_session(session, self.archive, self.options)
        pages = self.builder.session(session, markdown) if self.builder else {}
        return markdown, pages


_FORKED_RENDERER: SessionRenderer | None = None


def _render_in_worker(key: str) -> tuple[MarkdownPage, dict[str, str]]:
    assert _FORKED_RENDERER is not None
    return _FORKED_RENDERER(key)


def render_sessions(renderer: SessionRenderer, jobs: int) -> Iterator[tuple[MarkdownPage, dict[str, str]]]:
    """Each session's Markdown and page, in key order. With jobs > 1, sessions are spread over forked
    worker processes (they inherit phase 1's model instead of receiving a copy); the results come back in
    the same order, so the output does not depend on the number of jobs."""
    keys = list(renderer.archive.sessions)
    if jobs <= 1 or len(keys) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(renderer, keys)
        return
    global _FORKED_RENDERER
    _FORKED_RENDERER = renderer
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(jobs, len(keys)), mp_context=context) as pool:
            yield from pool.map(_render_in_worker, keys, chunksize=max(1, len(keys) // (jobs * 8)))
    finally:
        _FORKED_RENDERER = None


def render_files(archive: Archive, theme: Theme | None, options: MarkdownOptions, jobs: int) -> tuple[OutputFiles, int]:
    """Phase 2: every output file, and how many pages there are (Markdown documents without a theme)."""
    builder = PageBuilder(archive, theme, __version__) if theme else None
    files = OutputFiles()
    pages_written = 0
    for markdown, pages in render_sessions(SessionRenderer(archive, options, builder), jobs):
        files.add(markdown.path, markdown.text)
        files.add_all(markdown.attachments)
        for path, content in markdown.media.items():
            files.add_shared(path, content)
        files.add_all(pages)
        pages_written += sum(1 for path in pages if path.endswith(".html"))
    if builder is None or theme is None:
        return files, len(archive.sessions)
    indexes = render_indexes(archive, builder, theme)
    files.add_all(indexes.pages)
    files.add_all(indexes.assets)
    return files, pages_written + len(indexes.pages)


def build(config: BuildConfig, progress: Callable[[Iterable[T]], Iterator[T]] | None = None) -> BuildReport:
    check_output_location(config.output, config.inputs)
    archive, report = collect(config.inputs, progress, Redactor(secrets=config.redact, home=config.redact_paths))
    for diagnostic in report.diagnostics:
        log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
    if config.strict and report.diagnostics:
        raise StrictModeError(f"{len(report.diagnostics)} problem(s) in the input (--strict)")

    theme = None if config.markdown_only else Theme.load(config.theme)
    files, report.pages = render_files(archive, theme, MarkdownOptions(show_hidden=config.show_hidden), config.jobs)
    write_output(files, config.output)
    log.info("wrote %d files to %s (%d sessions)", len(files), config.output, report.sessions)
    return report


__all__ = ["BuildConfig", "BuildReport", "SessionRenderer", "build", "collect", "render_files", "render_sessions"]
