"""The Python API: `build(config) -> BuildReport` runs the pipeline.

Phase 1 reads every file once and keeps a small summary of each session: indexes, chains and subagent
links need the whole picture before a page is written, but not the transcripts. Phase 2 reads each file
again and renders its sessions as their events stream past, writing pages as they fill. Both phases
spread files over worker processes. Memory is a constant plus the summaries plus one page per worker,
whatever the size of the archive or of its largest session.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Iterator, Mapping, Sequence, TypeVar

from . import __version__, urls
from .discover import SessionFile, discover
from .errors import InputError, StrictModeError
from .html import PageBuilder, anchor_map_script, read_anchor_map, render_indexes
from .html.theme import Theme
from .interpret import Interpreted, interpret_stream
from .link import find_continuations, link, linked_event
from .markdown import MarkdownOptions, MarkdownPart, SessionDocument
from .model import Archive, Diagnostic, Event
from .read import stream_file
from .redact import Redactor
from .write import Staging, check_output_location

log = logging.getLogger("sessionsite")
T = TypeVar("T")
R = TypeVar("R")


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
    """Worker processes; 1 does everything in this process."""


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


# -- running work in worker processes ---------------------------------------------------------------------

_FORKED_TASK: Callable[[Any], Any] | None = None


def _run_forked(item: Any) -> Any:
    assert _FORKED_TASK is not None
    return _FORKED_TASK(item)


def in_workers(task: Callable[[T], R], items: Sequence[T], jobs: int) -> Iterator[R]:
    """`map(task, items)`, over forked worker processes when jobs > 1. Workers inherit the task and what
    it refers to (the archive's summaries) instead of receiving a copy; results come back in order, so the
    output does not depend on the number of jobs."""
    if jobs <= 1 or len(items) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(task, items)
        return
    global _FORKED_TASK
    _FORKED_TASK = task
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(jobs, len(items)), mp_context=context) as pool:
            yield from pool.map(_run_forked, items, chunksize=max(1, len(items) // (jobs * 16)))
    finally:
        _FORKED_TASK = None


# -- phase 1 ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summarised:
    """Phase 1's result for one file."""

    interpreted: Interpreted
    """Its sessions' summaries (no events)."""
    diagnostics: tuple[Diagnostic, ...]
    redactions: Counter[str]
    anchor_pages: Mapping[str, Mapping[str, int]]
    """For its sessions of more than one page: the page of each anchor past the first."""


@dataclass(frozen=True)
class Redaction:
    secrets: bool = True
    home: bool = False

    def redactor(self) -> Redactor:
        return Redactor(secrets=self.secrets, home=self.home)


def stream_entries(session_file: SessionFile, redactor: Redactor, diagnostics: list[Diagnostic]) -> Iterator:
    for item in stream_file(session_file.path, diagnostics):
        yield redactor.item(item)


def summarise(session_file: SessionFile, redaction: Redaction, skip: Collection[bytes] = frozenset()) -> Summarised:
    """Read, redact and interpret one file, keeping only its sessions' summaries."""
    redactor = redaction.redactor()
    diagnostics: list[Diagnostic] = []
    result = interpret_stream(session_file, stream_entries(session_file, redactor, diagnostics), skip=skip)
    return Summarised(replace(result, anchor_pages={}), tuple(diagnostics), redactor.counts, result.anchor_pages)


def replayed_entries(sessions: Mapping[str, Any], key: str) -> frozenset[bytes]:
    """Entries of a continuing session that the sessions it continues hold (and show)."""
    digests: set[bytes] = set()
    seen = {key}
    earlier = sessions[key].continues_key
    while earlier and earlier in sessions and earlier not in seen:
        seen.add(earlier)
        data = sessions[earlier].uuid_digests
        digests.update(data[i:i + 8] for i in range(0, len(data), 8))
        earlier = sessions[earlier].continues_key
    return frozenset(digests)


def linked_events(archive: Archive, session_file: SessionFile, redaction: Redaction) -> dict[str, list[Event]]:
    """The events of the sessions a file holds, as phase 2 renders them (replays left out, links made),
    all at once: for tests and small uses."""
    keys = [key for key, session in archive.sessions.items() if session.source == str(session_file.path)]
    skip = next((replayed_entries(archive.sessions, k) for k in keys if archive.sessions[k].continues_key),
                frozenset())
    events: dict[str, list[Event]] = {key: [] for key in keys}
    interpret_stream(session_file, stream_entries(session_file, redaction.redactor(), []), skip=skip,
                     sink_for=lambda key: events[key].append if key in events else None)
    return {key: [linked_event(archive.sessions[key], e) for e in found] for key, found in events.items()}


def collect(inputs: Iterable[Path], progress: Callable[[Iterable[T]], Iterator[T]] | None = None,
            redactor: Redactor | None = None, jobs: int = 1,
            staging: Staging | None = None) -> tuple[Archive, BuildReport, list[SessionFile]]:
    """Phase 1: discover, read, redact, interpret and link every session, keeping summaries only."""
    inputs = list(inputs)
    files = discover(inputs)
    if not files:
        raise InputError("no Claude Code session files (*.jsonl) found in " + ", ".join(map(str, inputs)))
    redactor = redactor or Redactor()
    redaction = Redaction(secrets=redactor.secrets, home=redactor.home)
    files = [replace(f, project_dir=redactor.project_dir(f.project_dir)) for f in files]
    report = BuildReport()
    results: list[Summarised] = []
    iterate: Callable[[Iterable[Summarised]], Iterator[Summarised]] = progress or iter  # type: ignore[assignment]
    for result in iterate(in_workers(lambda f: summarise(f, redaction), files, jobs)):
        results.append(result)

    # A continuing session is summarised again without the entries it replays, earliest first, since the
    # entries a session replays are those of the whole line of sessions before it.
    continues = find_continuations(r.interpreted for r in results)
    if continues:
        index_of = {r.interpreted.session.key: i for i, r in enumerate(results)}
        sessions = {r.interpreted.session.key: r.interpreted.session for r in results}
        for key in sorted(continues, key=lambda k: (sessions[k].ended, k)):
            sessions[key] = replace(sessions[key], continues_key=continues[key])
            i = index_of[key]
            results[i] = summarise(files[i], redaction, replayed_entries(sessions, key))
            sessions[key] = replace(results[i].interpreted.session, continues_key=continues[key])

    for result in results:
        report.diagnostics.extend(result.diagnostics)
        report.unknown.update(result.interpreted.unknown)
        report.redactions.update(result.redactions)
        if not result.interpreted.has_conversation:
            log.info("%s: no conversation in it (metadata only); no page", result.interpreted.session.source)
    archive = link((r.interpreted for r in results), continues)
    if staging is not None:
        _write_anchor_maps(results, archive, staging)
    report.sessions = len(archive.sessions)
    for session in archive.sessions.values():
        report.events.update(session.event_counts)
    return archive, report, files


def _write_anchor_maps(results: list[Summarised], archive: Archive, staging: Staging) -> None:
    """Each long session's anchor map goes to the site now, as the file its pages load to follow a
    permalink to a later page; phase 2 reads it back to resolve links, so no process keeps every map."""
    for result in results:
        for key, pages in result.anchor_pages.items():
            session = archive.sessions.get(key)
            # An agent's transcript may come both from its own file and from its parent's progress entries.
            if session is not None and session.source == result.interpreted.session.source:
                staging.write(urls.anchor_map(key), anchor_map_script(key, pages))


# -- phase 2 ----------------------------------------------------------------------------------------------


class FileRenderer:
    """Phase 2 for one file: read it again and render the sessions it holds as their events stream."""

    def __init__(self, archive: Archive, staging: Staging, options: MarkdownOptions, theme: Theme | None,
                 redaction: Redaction):
        self.archive = archive
        self.staging = staging
        self.options = options
        self.redaction = redaction
        self.builder = PageBuilder(archive, theme, __version__, self.anchor_pages_of) if theme else None
        self.keys_by_source: dict[str, list[str]] = {}
        for key, session in archive.sessions.items():
            self.keys_by_source.setdefault(session.source, []).append(key)

    def anchor_pages_of(self, key: str) -> dict[str, int]:
        script = self.staging.read_text(urls.anchor_map(key))
        return read_anchor_map(script) if script else {}

    def __call__(self, session_file: SessionFile) -> int:
        keys = self.keys_by_source.get(str(session_file.path), [])
        if not keys:
            return 0
        pages_written = 0

        def write_page(key: str) -> Callable[[MarkdownPart], None]:
            def on_part(part: MarkdownPart) -> None:
                nonlocal pages_written
                assert self.builder is not None
                path, page = self.builder.session_page(self.archive.sessions[key], part)
                self.staging.write(path, page)
                pages_written += 1
            return on_part

        documents = {
            key: SessionDocument(self.archive.sessions[key], self.archive, self.options, self.staging,
                                 write_page(key) if self.builder else None)
            for key in keys
        }
        skip: frozenset[bytes] = frozenset()
        for key in keys:
            if self.archive.sessions[key].continues_key:
                skip = replayed_entries(self.archive.sessions, key)
        redactor = self.redaction.redactor()
        interpret_stream(session_file, stream_entries(session_file, redactor, []), skip=skip,
                         sink_for=documents.get)
        for document in documents.values():
            document.finish()
        return pages_written if self.builder else len(documents)


def build(config: BuildConfig, progress: Callable[[Iterable[T]], Iterator[T]] | None = None) -> BuildReport:
    check_output_location(config.output, config.inputs)
    staging = Staging(config.output)
    try:
        report = _build_into(staging, config, progress)
        staging.commit()
    except BaseException:
        staging.discard()
        raise
    log.info("wrote %s (%d sessions, %d pages)", config.output, report.sessions, report.pages)
    return report


def _build_into(staging: Staging, config: BuildConfig, progress: Callable[[Iterable[T]], Iterator[T]] | None) -> BuildReport:
    redactor = Redactor(secrets=config.redact, home=config.redact_paths)
    archive, report, files = collect(config.inputs, progress, redactor, config.jobs,
                                     None if config.markdown_only else staging)
    for diagnostic in report.diagnostics:
        log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
    if config.strict and report.diagnostics:
        raise StrictModeError(f"{len(report.diagnostics)} problem(s) in the input (--strict)")

    theme = None if config.markdown_only else Theme.load(config.theme)
    renderer = FileRenderer(archive, staging, MarkdownOptions(show_hidden=config.show_hidden), theme,
                            Redaction(config.redact, config.redact_paths))
    report.pages = sum(in_workers(renderer, files, config.jobs))
    if renderer.builder is not None and theme is not None:
        indexes = render_indexes(archive, renderer.builder, theme)
        for path, page in indexes.pages.items():
            staging.write(path, page)
            report.pages += 1
        for path, content in indexes.assets.items():
            staging.write(path, content)
    return report


__all__ = ["BuildConfig", "BuildReport", "FileRenderer", "build", "collect", "in_workers", "summarise"]
