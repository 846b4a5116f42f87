"""Phase 1: read → interpret → redact → link → select, keeping a small summary of each session.

Indexes, chains and subagent links need the whole picture before a page is written, but not the
transcripts: each file is read once, on worker processes, and only its sessions' summaries are kept,
redacted as they are kept (`summarise`). Files unchanged since the previous build are not read: their
summaries come from its manifest (`incremental`).
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Iterator, Mapping

from ..config import BuildReport, Progress, discover_files
from ..core import urls
from ..core.errors import InputError, SessionsiteError
from ..core.model import Archive, BrokenLine, Diagnostic, Entry, Event, Interpreted
from ..output.manifest import NO_HASH_CACHE, HashCache, Manifest, digest, new_content_hasher
from ..output.write import Staging
from ..render.html.anchors import AnchorMapWriter
from ..stages.agents import CLAUDE_CODE
from ..stages.discover import SessionFile, project_folder_of, readable
from ..stages.interpret import interpret_stream, without_repeated_result
from ..stages.link import find_continuations, link, linked_event
from ..stages.read import stream_file, stream_file_in_batches
from ..stages.redact import Redactor
from ..stages.selection import Selection
from ..workers import in_workers
from . import incremental
from .plans import PlannedFile, Redaction, Summarised, largest_first

log = logging.getLogger("sessionsite")


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
    plans = [incremental.planned(session_file, previous or Manifest(), hashes) for session_file in files]
    unreadable = unreadable_kept_copies([plan for plan in plans if not plan.reused])
    plans = [plan for plan in plans if id(plan) not in unreadable]

    # read → interpret → redact, one file per worker, for the files not unchanged since the previous build
    to_read = largest_first([plan for plan in plans if not plan.reused])
    anchor_folder = staging.root if staging is not None else None
    results = in_workers(lambda p: summarise(p.source, redaction, anchor_folder=anchor_folder), to_read, jobs)
    # Not strict: checking would resume the workers' generator past its last result, which moves the moment
    # its pool is shut down (workers.py).
    for plan, result in zip(to_read, progress(results, len(to_read), "Reading sessions") if progress else results,
                            strict=False):
        incremental.note_read(plan, result, hashes)

    # link
    continues = find_continuations(plan.result.interpreted for plan in plans if plan.result is not None)
    if continues:
        _summarise_continuing_sessions(plans, continues, redaction, anchor_folder)
    archive = link((plan.result.interpreted for plan in plans if plan.result), continues)

    # select
    shown = plans
    if selection:
        archive, shown = _select(archive, plans, continues, selection)

    report = _report(archive, shown, unreadable.values())
    kept_since = {str(plan.source.path): plan.source.kept.last_seen for plan in plans if plan.source.kept}
    if kept_since:
        archive = replace(archive, kept={key: kept_since[session.source] for key, session in archive.sessions.items()
                                         if session.source in kept_since})
    if staging is not None:
        _write_anchor_maps(plans, archive, staging)
    return archive, report, plans


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


def stream_entries(session_file: SessionFile, redactor: Redactor, diagnostics: list[Diagnostic]
                   ) -> Iterator[Entry | BrokenLine]:
    """A file's entries, redacted, as phase 2 interprets them."""
    for batch in stream_file_in_batches(readable(session_file), diagnostics):
        yield from redactor.items([without_repeated_result(item) for item in batch])


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


def unreadable_kept_copies(plans: Iterable[PlannedFile]) -> dict[int, tuple[PlannedFile, str]]:
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


def _summarise_continuing_sessions(plans: list[PlannedFile], continues: Mapping[str, str], redaction: Redaction,
                                   anchor_folder: Path | None) -> None:
    """A continuing session is summarised again without the entries it replays, earliest first, since the
    entries a session replays are those of the whole line of sessions before it."""
    index_of = {plan.result.interpreted.session.key: i for i, plan in enumerate(plans) if plan.result}
    sessions = {plan.result.interpreted.session.key: plan.result.interpreted.session for plan in plans if plan.result}
    for key in sorted(continues, key=lambda k: (sessions[k].ended, k)):
        sessions[key] = replace(sessions[key], continues_key=continues[key])
        plan = plans[index_of[key]]
        skip = replayed_entries(sessions, key)
        skip_digest = digest(sorted(skip))
        reusable = incremental.resummary(plan, skip_digest)
        if reusable is not None:
            plan.result = reusable
        else:
            _discard_anchor_maps(plan.result)
            incremental.note_resummary(plan, summarise(plan.source, redaction, skip, anchor_folder), skip_digest)
        assert plan.result is not None
        sessions[key] = replace(plan.result.interpreted.session, continues_key=continues[key])


def _select(archive: Archive, plans: list[PlannedFile], continues: Mapping[str, str], selection: Selection
            ) -> tuple[Archive, list[PlannedFile]]:
    """The archive of the sessions chosen, linked again among themselves, and the files that show them."""
    # (An agent that keeps its logs by day names no project by its folder: its sessions by their own.)
    folder_names = {str(p.source.path): project_folder_of(p.source).name for p in plans if p.source.agent == CLAUDE_CODE}
    chosen = selection.chosen(archive, folder_names)
    if not chosen:
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
    return archive, shown


def _report(archive: Archive, shown: list[PlannedFile], unreadable: Iterable[tuple[PlannedFile, str]]
            ) -> BuildReport:
    report = BuildReport()
    report.diagnostics.extend(Diagnostic(str(plan.source.path), 0, f"{problem}: left out of the site (see "
                                                                    "`sessionsite doctor`)")
                              for plan, problem in unreadable)
    for plan in shown:
        assert plan.result is not None
        report.diagnostics.extend(plan.result.diagnostics)
        report.unknown.update(plan.result.interpreted.unknown)
        if not plan.result.interpreted.has_conversation:
            log.info("%s: no conversation in it (metadata only); no page", plan.source.path)
    report.sessions = sum(1 for session in archive.sessions.values() if session.is_listed)
    report.subagent_runs = len(archive.sessions) - report.sessions
    for session in archive.sessions.values():
        report.events.update(session.event_counts)
    return report


def _only(interpreted: Interpreted, chosen: set[str]) -> Interpreted:
    """A file's summaries without the subagent runs (from its progress entries) that are not chosen."""
    sidechains = tuple(side for side in interpreted.sidechains if side.key in chosen)
    return interpreted if len(sidechains) == len(interpreted.sidechains) else replace(interpreted, sidechains=sidechains)


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
