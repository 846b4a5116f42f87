"""The two phases of a build, for the files that changed since the last one.

Phase 1 reads every file once and keeps a small summary of each session: indexes, chains and subagent
links need the whole picture before a page is written, but not the transcripts. Phase 2 reads each file
again and renders its sessions as their events stream past, writing pages as they fill. Both phases
spread files over worker processes. Memory is a constant plus the summaries plus one page per worker,
whatever the size of the archive or of its largest session. Files unchanged since the previous build are
neither read nor rendered: their summaries come from the manifest and their pages from the previous site.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Iterator, Mapping

from . import __version__
from .core import urls
from .core.errors import InputError, SessionsiteError, StrictModeError
from .core.model import Archive, BrokenLine, Diagnostic, Entry, Event, Interpreted, Project, Session
from .stages.discover import SessionFile, readable
from .stages.interpret import interpret_stream, without_repeated_result
from .stages.link import find_continuations, link, linked_event
from .stages.read import stream_file, stream_file_in_batches
from .stages.redact import OwnRules, Redactor
from .stages.selection import Selection
from .render.markdown import MarkdownOptions, MarkdownPart, SessionDocument
from .render.markdown.blocks import themed_markdown_of
from .render.markdown.markup import TranscriptMarkup, default_markup
from .render.html.anchors import AnchorMapWriter, find_anchor_page
from .render.html.pages import PageBuilder, render_indexes, sitemaps
from .render.html.render import Resolver, markdown_parser, render_blocks, render_markdown
from .render.theme import Theme
from .render.search import FileSearchRecorder, write_index
from .output.manifest import (MANIFEST, NO_HASH_CACHE, FileRecord, HashCache, Manifest, decode, digest, digest_of_files,
                              new_content_hasher, path_key, site_files, unchanged)
from .output.write import Staging
from .config import BuildConfig, BuildReport, Progress, discover_files
from .workers import in_workers

log = logging.getLogger("sessionsite")


# -- phase 1 ----------------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Redaction:
    secrets: bool = True
    home: bool = False
    own: OwnRules = OwnRules()

    def redactor(self) -> Redactor:
        return Redactor(secrets=self.secrets, home=self.home, own=self.own)


def stream_entries(session_file: SessionFile, redactor: Redactor, diagnostics: list[Diagnostic]
                   ) -> Iterator[Entry | BrokenLine]:
    for batch in stream_file_in_batches(readable(session_file), diagnostics):
        yield from redactor.items([without_repeated_result(item) for item in batch])


def summarise(session_file: SessionFile, redaction: Redaction, skip: Collection[bytes] = frozenset(),
              anchor_folder: Path | None = None) -> Summarised:
    """Read and interpret one file, keeping only its sessions' summaries (and writing the anchor maps of
    its long sessions into `anchor_folder`). The entries are not redacted here: what the summaries keep
    is, and phase 2 redacts every entry it renders."""
    redactor = redaction.redactor()
    diagnostics: list[Diagnostic] = []
    hasher = new_content_hasher()
    path = readable(session_file)
    stat = path.stat()
    writers: dict[str, AnchorMapWriter] = {}

    def anchors_for(key: str) -> Callable[[str, int], None] | None:
        if anchor_folder is None:
            return None
        name = digest(key, str(session_file.path), os.getpid())
        writers[key] = AnchorMapWriter(anchor_folder / f".anchors-{name}.part", key)
        return writers[key].add

    items = (without_repeated_result(item) for item in stream_file(path, diagnostics, hasher))
    result = interpret_stream(session_file, items, skip=skip, anchors_for=anchors_for)
    anchor_maps = {key: str(writer.path) for key, writer in writers.items() if writer.close()}
    redacted = redactor.interpreted(result)
    diagnostics = [*diagnostics, *redacted.diagnostics]
    if path != session_file.path:  # read from the vault: problems are named by the log's own place
        diagnostics = [replace(d, file=str(session_file.path)) for d in diagnostics]
    return Summarised(redacted, tuple(diagnostics), hasher.hexdigest(), read_as=(stat.st_size, stat.st_mtime_ns),
                      anchor_maps=anchor_maps)


def replayed_entries(sessions: Mapping[str, Any], key: str) -> frozenset[bytes]:
    """Entries of a continuing session that the sessions it continues hold (and show): the digests of their
    uuids, and of their uuids with their times (an entry is a replay when both match)."""
    digests: set[bytes] = set()
    seen = {key}
    earlier = sessions[key].continues_key
    while earlier and earlier in sessions and earlier not in seen:
        seen.add(earlier)
        for data in (sessions[earlier].uuid_digests, sessions[earlier].replay_digests):
            digests.update(data[i:i + 8] for i in range(0, len(data), 8))
        earlier = sessions[earlier].continues_key
    return frozenset(digests)


def replayed_in_file(sessions: Mapping[str, Any], keys: Iterable[str]) -> frozenset[bytes]:
    """What a file's sessions leave out: the entries its continuing session (there is at most one, the
    main session) replays."""
    return next((replayed_entries(sessions, key) for key in keys if sessions[key].continues_key), frozenset())


def linked_events(archive: Archive, session_file: SessionFile, redaction: Redaction) -> dict[str, list[Event]]:
    """The events of the sessions a file holds, as phase 2 renders them (replays left out, links made),
    all at once: for tests and small uses."""
    keys = [key for key, session in archive.sessions.items() if session.source == str(session_file.path)]
    skip = replayed_in_file(archive.sessions, keys)
    events: dict[str, list[Event]] = {key: [] for key in keys}
    interpret_stream(session_file, stream_entries(session_file, redaction.redactor(), []), skip=skip,
                     sink_for=lambda key: events[key].append if key in events else None)
    return {key: [linked_event(archive.sessions[key], e) for e in found] for key, found in events.items()}


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


def collect(inputs: Iterable[Path], progress: Progress | None = None,
            redactor: Redactor | None = None, jobs: int = 1, staging: Staging | None = None,
            previous: Manifest | None = None, files: list[SessionFile] | None = None,
            hashes: HashCache = NO_HASH_CACHE, selection: Selection = Selection()
            ) -> tuple[Archive, BuildReport, list[PlannedFile]]:
    """Phase 1: discover, read, interpret and link every session, keeping summaries only. Files the
    previous build saw unchanged (`previous`) are not read again. With a `selection`, the archive holds
    only the sessions chosen, linked again among themselves; every file is still planned (a file with
    none of them is recorded in the manifest, so its summary is not read again, and has no page)."""
    inputs = list(inputs)
    redactor = redactor or Redactor()
    redaction = Redaction(secrets=redactor.secrets, home=redactor.home, own=redactor.own)
    files = files if files is not None else discover_files(inputs, redactor.home, own=redactor.own)
    previous = previous or Manifest()
    plans = []
    for session_file in files:
        old = previous.files.get(path_key(session_file))
        if old is not None and old.summary is not None and unchanged(old, session_file, hashes):
            plans.append(PlannedFile(session_file, replace(old, outputs=[]),
                                     _summarised_from(old.summary, session_file), reused=True))
        else:
            kept = session_file.kept
            size = kept.size if kept is not None else session_file.path.stat().st_size
            plans.append(PlannedFile(session_file, FileRecord(path_key(session_file), size, "", session_file.project_dir,
                                                              kept=kept.last_seen if kept is not None else "")))
    unreadable = _unreadable_kept_copies([plan for plan in plans if not plan.reused])
    plans = [plan for plan in plans if id(plan) not in unreadable]
    to_read = _largest_first([plan for plan in plans if not plan.reused])
    anchor_folder = staging.root if staging is not None else None
    results = in_workers(lambda p: summarise(p.source, redaction, anchor_folder=anchor_folder), to_read, jobs)
    # Not strict: checking would resume the workers' generator past its last result, which moves the moment
    # its pool is shut down (workers.py).
    for plan, result in zip(to_read, progress(results, len(to_read), "Reading sessions") if progress else results,
                            strict=False):
        plan.result = result
        plan.record = replace(plan.record, content_hash=result.content_hash, summary=_summarised_to(result),
                              resummary=None, skip_digest="")
        if plan.source.kept is None:
            hashes.remember(plan.source.path, *result.read_as, result.content_hash)
    originals = [plan.result for plan in plans]

    # A continuing session is summarised again without the entries it replays, earliest first, since the
    # entries a session replays are those of the whole line of sessions before it.
    continues = find_continuations(r.interpreted for r in originals if r is not None)
    if continues:
        index_of = {plan.result.interpreted.session.key: i for i, plan in enumerate(plans) if plan.result}
        sessions = {plan.result.interpreted.session.key: plan.result.interpreted.session
                    for plan in plans if plan.result}
        for key in sorted(continues, key=lambda k: (sessions[k].ended, k)):
            sessions[key] = replace(sessions[key], continues_key=continues[key])
            plan = plans[index_of[key]]
            skip = replayed_entries(sessions, key)
            skip_digest = digest(sorted(skip))
            if plan.reused and plan.record.resummary is not None and plan.record.skip_digest == skip_digest:
                plan.result = _summarised_from(plan.record.resummary, plan.source)
            else:
                _discard_anchor_maps(plan.result)
                plan.result = summarise(plan.source, redaction, skip, anchor_folder)
                plan.reused = False
                plan.record = replace(plan.record, resummary=_summarised_to(plan.result), skip_digest=skip_digest)
            sessions[key] = replace(plan.result.interpreted.session, continues_key=continues[key])

    archive = link((plan.result.interpreted for plan in plans if plan.result), continues)
    shown = plans
    if selection:
        from .stages.discover import project_folder_of

        chosen = selection.chosen(archive, {str(p.source.path): project_folder_of(p.source).name for p in plans})
        if not chosen:
            folder_names = {str(p.source.path): project_folder_of(p.source).name for p in plans}
            hints = "".join(f"; {hint}" for hint in selection.why_none(archive, folder_names))
            raise InputError(f"no session of the {sum(1 for s in archive.sessions.values() if s.is_listed)} found "
                             f"is selected by {selection.describe()}{hints}")
        sources = {archive.sessions[key].source for key in chosen}
        # Files with no conversation stay: their summaries title the sessions they point at.
        shown = [plan for plan in plans if plan.result is not None and (
            str(plan.source.path) in sources or not plan.result.interpreted.has_conversation)]
        continues = {key: earlier for key, earlier in continues.items() if key in chosen and earlier in chosen}
        archive = link((_only(plan.result.interpreted, chosen) for plan in shown if plan.result), continues)
        log.info("selected %d of the sessions found (%s)", sum(1 for s in archive.sessions.values() if s.is_listed),
                 selection.describe())
    report = BuildReport()
    report.diagnostics.extend(Diagnostic(str(plan.source.path), 0, f"{problem}: left out of the site (see "
                                                                    "`sessionsite doctor`)")
                              for plan, problem in unreadable.values())
    for plan in shown:
        assert plan.result is not None
        report.diagnostics.extend(plan.result.diagnostics)
        report.unknown.update(plan.result.interpreted.unknown)
        if not plan.result.interpreted.has_conversation:
            log.info("%s: no conversation in it (metadata only); no page", plan.source.path)
    kept_since = {str(plan.source.path): plan.source.kept.last_seen for plan in plans if plan.source.kept}
    if kept_since:
        archive = replace(archive, kept={key: kept_since[session.source] for key, session in archive.sessions.items()
                                         if session.source in kept_since})
    if staging is not None:
        _write_anchor_maps(plans, archive, staging)
    report.sessions = sum(1 for session in archive.sessions.values() if session.is_listed)
    report.subagent_runs = len(archive.sessions) - report.sessions
    for session in archive.sessions.values():
        report.events.update(session.event_counts)
    return archive, report, plans


def _unreadable_kept_copies(plans: Iterable[PlannedFile]) -> dict[int, tuple[PlannedFile, str]]:
    """The logs read back from the vault, written out before the workers read them: those whose copy there
    is damaged, by id, each with what is wrong (the build leaves them out and goes on with the rest)."""
    def problem(plan: PlannedFile) -> str:
        try:
            if plan.source.kept is not None:
                plan.source.kept.readable()
        except InputError as error:
            return str(error)
        return ""

    kept = [plan for plan in plans if plan.source.kept is not None]
    if not kept:
        return {}
    # On threads: decompressing and hashing let go of the interpreter, and each copy opens its own connection.
    with ThreadPoolExecutor(max_workers=min(len(kept), os.cpu_count() or 1)) as pool:
        problems = list(pool.map(problem, kept))
    return {id(plan): (plan, found) for plan, found in zip(kept, problems, strict=True) if found}


def _only(interpreted: Interpreted, chosen: set[str]) -> Interpreted:
    """A file's summaries without the subagent runs (from its progress entries) that are not chosen."""
    sidechains = tuple(side for side in interpreted.sidechains if side.key in chosen)
    return interpreted if len(sidechains) == len(interpreted.sidechains) else replace(interpreted, sidechains=sidechains)


def _largest_first(plans: list[PlannedFile]) -> list[PlannedFile]:
    """Work handed out largest file first, so that no worker is left with a big file at the end while
    the others wait. Results are matched to their files, so the order changes nothing in the output."""
    return sorted(plans, key=lambda plan: (-plan.record.size, plan.record.path))


def _summarised_to(result: Summarised) -> dict[str, Any]:
    """For the manifest, which is published with the site: without the input's path."""
    interpreted = result.interpreted
    interpreted = replace(interpreted, session=replace(interpreted.session, source=""),
                          sidechains=tuple(replace(side, source="") for side in interpreted.sidechains),
                          diagnostics=tuple(replace(d, file="") for d in interpreted.diagnostics))
    return {"interpreted": interpreted, "diagnostics": [replace(d, file="") for d in result.diagnostics],
            "content_hash": result.content_hash}


def _summarised_from(data: Mapping[str, Any], session_file: SessionFile) -> Summarised:
    data = decode(data)  # as the manifest holds it
    source = str(session_file.path)
    interpreted = data["interpreted"]
    interpreted = replace(interpreted, session=replace(interpreted.session, source=source),
                          sidechains=tuple(replace(side, source=source) for side in interpreted.sidechains),
                          diagnostics=tuple(replace(d, file=source) for d in interpreted.diagnostics))
    return Summarised(interpreted, tuple(replace(d, file=source) for d in data["diagnostics"]),
                      data["content_hash"])


def _discard_anchor_maps(result: Summarised | None) -> None:
    for path in (result.anchor_maps.values() if result else ()):
        Path(path).unlink(missing_ok=True)


def _write_anchor_maps(plans: list[PlannedFile], archive: Archive, staging: Staging) -> None:
    """Each long session's anchor map, written by phase 1 beside the site, goes in place: it is the file
    a page loads to follow a permalink to a later page, and phase 2 looks anchors up in it. A file read
    again brings its maps; an unchanged one, the previous site's."""
    for plan in plans:
        assert plan.result is not None
        source = plan.result.interpreted.session.source
        for session in (plan.result.interpreted.session, *plan.result.interpreted.sidechains):
            found = archive.sessions.get(session.key)
            written = plan.result.anchor_maps.get(session.key)
            # An agent's transcript may come both from its own file and from its parent's progress entries.
            if found is None or found.source != source or len(found.page_starts) <= 1:
                if written:
                    Path(written).unlink(missing_ok=True)
                continue
            path = urls.anchor_map(session.key)
            if written:
                staging.adopt(Path(written), path)
            elif not plan.reused or not staging.take_from_previous(path):
                raise SessionsiteError(f"internal error: no anchor map for {path}")
            plan.record.outputs.append(path)


# -- phase 2 ----------------------------------------------------------------------------------------------


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


class _Recording:
    """The staging folder, noting every path one file's sessions write."""

    def __init__(self, staging: Staging):
        self.staging = staging
        self.paths: dict[str, None] = {}

    def write(self, path: str, content: str | bytes) -> None:
        self.staging.write(path, content)
        self.paths[path] = None

    def write_shared(self, path: str, content: bytes) -> None:
        self.staging.write_shared(path, content)
        self.paths[path] = None

    def append(self, path: str, text: str | bytes) -> None:
        self.staging.append(path, text)
        self.paths[path] = None

    def keep(self, path: str) -> None:
        """The previous site's file at `path`, found to be what would be written."""
        if not self.staging.take_from_previous(path):
            raise SessionsiteError(f"internal error: {path} is gone from the previous site")
        self.paths[path] = None


class PageBodies:
    """A page's body (its transcript, rendered from Markdown: most of a build's time) is taken from the
    page the last build wrote when it would come out the same: the same Markdown and page anchors, and
    the same answers to the links the page asked about. So a session that grew renders only its pages
    whose content changed (the last one, most often); the others get new surroundings (the session's
    figures) around the body they had. For each page the manifest keeps a digest of its Markdown and
    anchors, the links it asked about and a digest of their answers, a digest of the body, and where the
    body sits in the page (characters before and after it); the body read back is checked against its
    digest, so a page changed by hand is simply rendered again."""

    def __init__(self, previous_site: Path, previous: Mapping[str, list[Any]]):
        self.previous_site = previous_site
        self.previous = previous
        self.made: dict[str, list[Any]] = {}
        self.rendered = 0
        self.reused = 0

    def render_for(self, path: str, part: MarkdownPart, answered_by_the_page: Callable[[str, MarkdownPart], bool]
                   ) -> tuple[Callable[[str, Resolver], str], Callable[[str], str | None]]:
        """The body renderer for the page at `path`, and a function that, given the whole page, notes
        how its body was made and returns the previous page's text when the page is the same."""
        # The page's own source (the theme's markup, which a theme's template may fill from any field of a call),
        # not the .md's plain text: everything the body is made of.
        source_digest = digest(themed_markdown_of(part.blocks), sorted(part.anchors))
        old = self.previous.get(path)
        found: dict[str, Any] = {}

        def render(text: str, resolve: Resolver) -> str:
            if old is not None and old[0] == source_digest:
                asked = old[1]
                previous_body = self._previous_body(path, old) if digest([resolve(h) for h in asked]) == old[2] else None
                if previous_body is not None:
                    found.update(body=previous_body, asked=asked, answers=old[2])
                    self.reused += 1
                    return previous_body[0]
            asked_now: dict[str, None] = {}

            def noting(href: str) -> str | None:
                if not answered_by_the_page(href, part):
                    asked_now[href] = None
                return resolve(href)

            # The blocks are the page's Markdown (`themed_markdown_of(part.blocks)`): code goes straight to
            # the highlighter, prose through markdown-it.
            body = render_blocks(part.blocks, noting) if part.blocks else render_markdown(text, noting)
            self.rendered += 1
            asked = list(asked_now)
            found.update(body=(body, None), asked=asked, answers=digest([resolve(h) for h in asked]))
            return body

        def made(page: str) -> str | None:
            body, previous_page = found["body"]
            start = page.find(body)
            if body and start >= 0 and start == page.rfind(body):
                self.made[path] = [source_digest, found["asked"], found["answers"], digest(body), start,
                                   len(page) - start - len(body)]
            return previous_page if previous_page == page else None

        return render, made

    def _previous_body(self, path: str, old: list[Any]) -> tuple[str, str] | None:
        try:
            page = (self.previous_site / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        before, after = old[4], old[5]
        body = page[before:len(page) - after]
        if before + after > len(page) or digest(body) != old[3]:
            return None
        return body, page


PartWriter = Callable[[Session, MarkdownPart], None]
"""Takes each page's worth of a session's typed blocks as phase 2 makes them, in place of the site's pages:
the bundle's writers (`render_parts`)."""


class FileRenderer:
    """Phase 2 for one file: read it again and render the sessions it holds as their events stream."""

    def __init__(self, archive: Archive, staging: Staging, options: MarkdownOptions, theme: Theme | None,
                 redaction: Redaction, base_url: str = "", title: str = "", part_writer: PartWriter | None = None,
                 markup_theme: Theme | None = None):
        self.archive = archive
        self.staging = staging
        self.options = options
        self.redaction = redaction
        self.part_writer = part_writer
        self.builder = PageBuilder(archive, theme, __version__, self.anchor_page, base_url, title,
                                   options.repo_url) if theme else None
        # The markup around transcript parts is the theme's too, in the .md as on the page (and in a bundle).
        markup_from = theme or markup_theme
        self.markup = TranscriptMarkup(markup_from) if markup_from else default_markup()
        self.keys_by_source: dict[str, list[str]] = {}
        for key, session in archive.sessions.items():
            self.keys_by_source.setdefault(session.source, []).append(key)
        self._summary_digests: dict[str, str] = {}
        self._shown_digests: dict[str, str] = {}

    def prepare(self) -> None:
        """What every file needs, made once here rather than once in each worker process (workers are
        forked from this one): the redaction rules, the Markdown parser, the compiled page templates."""
        if self.redaction.secrets:
            self.redaction.redactor().text("warm up: API_KEY=0123456789 sk-ant-0123456789")
        markdown_parser()
        if self.builder is not None:
            self.builder.environment.get_template("session.html")

    def anchor_page(self, key: str, anchor: str) -> int:
        return find_anchor_page(self.staging.root / urls.anchor_map(key), anchor)

    def render_digest(self, session_file: SessionFile, record: FileRecord, settings: str) -> str:
        """Everything the file's outputs depend on: its content, and the summaries of its sessions and of
        every session their pages show (chain, parent, subagents, the session continued, the project)."""
        sessions = self.archive.sessions
        context: list[Any] = [settings, record.content_hash, record.skip_digest]
        for key in self.keys_by_source.get(str(session_file.path), []):
            session = sessions[key]
            chain = self.archive.chains.get(session.chain_key)
            related = sorted({*(chain.session_keys if chain else ()), session.parent_key, session.continues_key,
                              session.plan_source_key, session.previous_key, session.next_key,
                              *session.subagent_keys} - {"", key})
            project = next((p.path for p in self.archive.projects if p.dir_name == session.project_dir), "")
            context.append([self._summary_digest(key), project, list(chain.session_keys if chain else ()),
                            [[k, self._shown_digest(k)] for k in related if k in sessions],
                            self.archive.kept.get(key, "")])
        return digest(*context)

    def project_digest(self, project: Project, settings: str) -> str:
        """Everything a project's pages are made from: the project, and the summaries of the sessions they
        show. A reply added to one session renders its project's pages again, not the other projects'."""
        assert self.builder is not None
        keys = self.builder.project_page_sessions(project)
        return digest(settings, project, [[key, self._summary_digest(key), self.archive.kept.get(key, "")]
                                          for key in keys])

    def _shown_digest(self, key: str) -> str:
        """What the pages of other sessions show of a session: its line in their chain strip or list of
        subagents, its title and first prompt in their Markdown, the page its call is on. Not its end
        or its figures: a reply added to a session does not render its chain or its subagents again."""
        if key not in self._shown_digests:
            session = self.archive.sessions[key]
            shown = self.builder.related_summary(session, urls.INDEX) if self.builder else None
            self._shown_digests[key] = digest(shown, session.title, session.first_prompt, session.parent_anchor,
                                              session.parent_anchor_page, session.page_starts)
        return self._shown_digests[key]

    def _summary_digest(self, key: str) -> str:
        # Once per session: a long session's summary is large, and every subagent's pages show it.
        if key not in self._summary_digests:
            # Without the input's path: the manifest, and so the site, must not depend on where it is.
            self._summary_digests[key] = digest(replace(self.archive.sessions[key], source=""))
        return self._summary_digests[key]

    def __call__(self, session_file: SessionFile, previous: FileRecord | None = None) -> Rendered:
        """Render the file's sessions; `previous`: the file's record in the last build's manifest, whose
        page bodies are reused where they would come out the same."""
        keys = self.keys_by_source.get(str(session_file.path), [])
        if not keys:
            return Rendered(0, Counter(), ())
        output = _Recording(self.staging)
        pages_written = 0
        bodies = PageBodies(self.staging.out, previous.page_bodies if previous is not None else {})
        project = next((p.path for p in self.archive.projects
                        if p.dir_name == self.archive.sessions[keys[0]].project_dir), "")
        search = FileSearchRecorder(urls.search_name(path_key(session_file)), output, project) if self.builder else None

        def write_page(key: str) -> Callable[[MarkdownPart], None]:
            def on_part(part: MarkdownPart) -> None:
                nonlocal pages_written
                assert self.builder is not None
                session = self.archive.sessions[key]
                render, made = bodies.render_for(urls.session_part(session.key, part.number), part,
                                                 self.builder.links.answered_by_the_page)
                path, page = self.builder.session_page(session, part, render)
                if search is not None:  # the index is a writer over the page's blocks, as the page is
                    search.add_page(session.title, urls.session_part(session.key, part.number), part.blocks,
                                    first=part.number == 1, started=session.started)
                if made(page) is not None:
                    output.keep(path)  # the very page the last build wrote: its file stays as it is
                else:
                    output.write(path, page)
                pages_written += 1
            return on_part

        def part_writer(key: str) -> Callable[[MarkdownPart], None] | None:
            if self.part_writer is not None:
                session, writer = self.archive.sessions[key], self.part_writer
                return lambda part: writer(session, part)
            return write_page(key) if self.builder else None

        documents = {
            key: SessionDocument(self.archive.sessions[key], self.archive, self.options, output, part_writer(key),
                                 self.markup)
            for key in keys
        }
        skip = replayed_in_file(self.archive.sessions, keys)
        redactor = self.redaction.redactor()
        interpret_stream(session_file, stream_entries(session_file, redactor, []), skip=skip,
                         sink_for=documents.get, summarise=False)
        for document in documents.values():
            document.finish()
        if search is not None:
            search.finish()
        if bodies.reused:
            log.debug("%s: %d page bodies rendered, %d kept from the last build", session_file.path,
                      bodies.rendered, bodies.reused)
        return Rendered(pages_written if self.builder else len(documents), redactor.counts, tuple(output.paths),
                        bodies.made)


def render_parts(archive: Archive, files: list[SessionFile], staging: Staging, options: MarkdownOptions,
                 redaction: Redaction, part_writer: PartWriter, jobs: int = 1,
                 theme: Theme | None = None) -> Counter[str]:
    """Phase 2 for a writer of its own (the bundle): each session of `files` goes to `part_writer` a page
    of typed blocks at a time, as it streams; the files its Markdown links to (saved outputs, media) go
    into `staging`. No page, index or manifest is written. Returns the redactions made."""
    renderer = FileRenderer(archive, staging, options, None, redaction, part_writer=part_writer, markup_theme=theme)
    if len(files) > 1:
        renderer.prepare()
    redactions: Counter[str] = Counter()
    for rendered in in_workers(renderer, _largest_first_files(files), jobs):
        redactions.update(rendered.redactions)
    return redactions


def _largest_first_files(files: list[SessionFile]) -> list[SessionFile]:
    return sorted(files, key=lambda f: (-(f.kept.size if f.kept is not None else f.path.stat().st_size), str(f.path)))


def _carry_over(staging: Staging, paths: list[str]) -> bool:
    """All of a file's outputs from the previous site, or none (it is then rendered again)."""
    taken: list[str] = []
    for path in paths:
        if not staging.take_from_previous(path):
            for done in taken:
                if not done.startswith(urls.MEDIA_FOLDER):  # shared: another file may have brought it
                    staging.remove(done)
            return False
        taken.append(path)
    return True


def build_site(staging: Staging, config: BuildConfig, progress: Progress | None,
               files: list[SessionFile], theme: Theme | None, settings: str, previous: Manifest,
               hashes: HashCache = NO_HASH_CACHE) -> BuildReport:
    """Phases 1 and 2 into the staging folder, then the index pages and the manifest."""
    redactor = Redactor(secrets=config.redact, home=config.redact_paths, own=config.own_redaction)
    if previous.settings != settings:
        previous = Manifest()  # another version or other settings: nothing of the old site is kept
    started = time.perf_counter()
    archive, report, plans = collect(config.inputs, progress, redactor, config.jobs, staging, previous, files, hashes,
                                     config.selection)
    read_again = sum(1 for plan in plans if not plan.reused)
    log.info("phase 1: %d of %d files read, %d sessions linked, in %.1f s", read_again, len(plans),
             len(archive.sessions), time.perf_counter() - started)
    for diagnostic in report.diagnostics:
        log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
    if config.strict and report.diagnostics:
        raise StrictModeError(f"{len(report.diagnostics)} problem(s) in the input (--strict)")

    renderer = FileRenderer(archive, staging, MarkdownOptions(show_hidden=config.show_hidden, repo_url=config.repo_url),
                            theme, Redaction(config.redact, config.redact_paths, config.own_redaction),
                            config.base_url, config.title)
    to_render = []
    for plan in plans:
        old = previous.files.get(plan.record.path)  # keyed by path_key
        render_digest = renderer.render_digest(plan.source, plan.record, settings)
        if old is not None and old.render_digest == render_digest and _carry_over(
                staging, [path for path in old.outputs if path not in plan.record.outputs]):
            plan.record = replace(plan.record, render_digest=render_digest,
                                  outputs=sorted({*plan.record.outputs, *old.outputs}))
            continue
        damaged = _unreadable_kept_copies([plan]).get(id(plan))
        if damaged is not None:
            # Summarised by an earlier build, and its copy in the vault damaged since: the pages that
            # build made stay, and the next build tries again (the manifest keeps the old digest).
            carried = old is not None and _carry_over(staging, [p for p in old.outputs if p not in plan.record.outputs])
            message = f"{damaged[1]}: {'its pages are kept from the last build' if carried else 'it has no page'}"
            log.warning("%s:0: %s", plan.source.path, message)
            report.diagnostics.append(Diagnostic(str(plan.source.path), 0, message))
            if carried and old is not None:
                plan.record = replace(plan.record, render_digest=old.render_digest,
                                      outputs=sorted({*plan.record.outputs, *old.outputs}))
            continue
        plan.record = replace(plan.record, render_digest=render_digest)
        to_render.append(plan)
    started = time.perf_counter()
    if len(to_render) > 1 and config.jobs > 1:
        renderer.prepare()  # before the workers are forked: they inherit it (one file renders in this process)
    to_render = _largest_first(to_render)
    rendered_files = in_workers(lambda p: renderer(p.source, previous.files.get(p.record.path)), to_render,
                                config.jobs)
    if progress is not None:
        rendered_files = progress(rendered_files, len(to_render), "Writing pages")
    for plan, rendered in zip(to_render, rendered_files, strict=False):  # not strict: as when reading, above
        report.redactions.update(rendered.redactions)
        plan.record = replace(plan.record, outputs=sorted({*plan.record.outputs, *rendered.outputs}),
                              redactions=dict(rendered.redactions), pages=rendered.pages,
                              page_bodies=dict(rendered.page_bodies))
    for plan in plans:
        if plan not in to_render:
            report.redactions.update(plan.record.redactions)
    report.pages = sum(plan.record.pages for plan in plans)
    log.info("phase 2: %d of %d files rendered in %.1f s (the rest kept from the previous site)", len(to_render),
             len(plans), time.perf_counter() - started)
    index_pages: dict[str, str] = {}
    if renderer.builder is not None and theme is not None:
        for project in archive.projects:
            made_from = renderer.project_digest(project, settings)
            index_pages[urls.project_page(project.dir_name)] = made_from
            index_pages[urls.project_files(project.dir_name)] = made_from
            index_pages[urls.project_commits(project.dir_name)] = made_from

        def kept(path: str) -> bool:
            if previous.index_pages.get(path) == index_pages[path] and staging.take_from_previous(path):
                report.pages += 1
                return True
            return False

        indexes = render_indexes(archive, renderer.builder, theme, kept)
        for path, page in indexes.pages.items():
            staging.write(path, page)
            report.pages += 1
        for path, content in indexes.assets.items():
            staging.write(path, content)
        started = time.perf_counter()
        index = write_index(staging.root, staging.write)
        log.info("search: %d documents, %d term lines, merged in %.1f s", index.documents, index.term_lines,
                 time.perf_counter() - started)
        # GitHub Pages would otherwise run the site through Jekyll, which hides files and folders whose
        # names start with an underscore or a dot.
        staging.write(urls.NO_JEKYLL, b"")
        if config.base_url:
            for path, content in sitemaps(config.base_url, staging.root).items():
                staging.write(path, content)
    published = site_files(staging.root)
    report.site_bytes = sum(size for _, size in published)
    report.search_index_bytes = sum(size for path, size in published if path.startswith(urls.SEARCH_FOLDER + "/"))
    # The manifest is published with the site: its report leaves out the problems, which name input
    # paths (each file's record keeps its own, without the path).
    staging.write(MANIFEST, Manifest(settings, replace(report, diagnostics=[]).to_json(),
                                     {plan.record.path: plan.record for plan in plans},
                                     digest_of_files(published), index_pages).to_bytes())
    return report


__all__ = ["FileRenderer", "PartWriter", "build_site", "collect", "in_workers", "linked_events", "render_parts",
           "summarise"]
