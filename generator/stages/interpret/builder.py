"""The session builder and the stream it is fed from. `interpret_stream` reads a file's entries as they
come, routes each to the session it belongs to (the main one, or a subagent run written inline), and feeds
it to that session's `_SessionBuilder`: the session's state (session_state) with the handlers of every
entry family mixed in (user_entries, assistant_entries, tool_calls, system_entries, attachments,
bookkeeping). Each entry is checked (a uuid seen before, a time that is not one) and handed to the
handler of its type (dispatch)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Callable, Collection, Iterable

from ...core.model import BrokenLine, Diagnostic, Entry, Event, Interpreted, Unreadable
from ..discover import SessionFile
from ..read import ReadResult
from ..duplicates import DuplicateEntries, Seen
from .assistant_entries import AssistantEntries
from .attachments import AttachmentEntries
from ..agents import CLAUDE_CODE, CODEX, codex_record
from .bookkeeping import BookkeepingEntries
from .codex_rollout import CodexSession
from .dispatch import dispatch_entry
from .session_state import EventSink, _plausible_time
from .system_entries import SystemEntries
from .tool_calls import ToolCalls
from .user_entries import UserEntries


# Whose uuid an entry shares, as its diagnostic says.
_SHARED_UUID = {Seen.UUID_IN_THIS_FILE: "an earlier entry of this file",
                Seen.UUID_IN_CONTINUED_SESSION: "an entry of the session this one continues"}
# What `DuplicateEntries.see` says of each entry, held here: a member looked up on its enum costs a Python call.
_NEW, _IN_THIS_FILE, _IN_CONTINUED_SESSION = Seen.NEW, Seen.IN_THIS_FILE, Seen.IN_CONTINUED_SESSION


def interpret(source: SessionFile, read: ReadResult) -> Interpreted:
    """A whole file at once, events included: for tests and small uses. The build streams instead
    (`interpret_stream`), so that no session is ever held whole."""
    collected: dict[str, list[Event]] = {}
    result = interpret_stream(source, read.items, sink_for=lambda key: collected.setdefault(key, []).append)
    return replace(
        result,
        diagnostics=(*read.diagnostics, *result.diagnostics),
        session=replace(result.session, events=tuple(collected.get(result.session.key, ()))),
        sidechains=tuple(replace(side, events=tuple(collected.get(side.key, ()))) for side in result.sidechains),
    )


def interpret_stream(source: SessionFile, items: Iterable[Entry | BrokenLine], *,
                     skip: Collection[bytes] = frozenset(),
                     sink_for: Callable[[str], EventSink | None] | None = None,
                     anchors_for: Callable[[str], Callable[[str, int], None] | None] | None = None,
                     summarise: bool = True) -> Interpreted:
    """Interpret entries as they stream from the reader. Each session the file holds (the main one, and
    subagent runs written inline) passes its events, in order, to `sink_for(key)` when that returns a
    sink, and is summarised on the way (`summarize.Summary`). Only a handful of events are held at a time:
    a tool call until its result comes, a plan until it is known whether it was carried out.

    `skip` holds digests of entry uuids that belong to the session this one continues: those entries are
    shown there, and left out here. `anchors_for(key)` may return a function to be told the page of each
    anchor past a session's first page. Without `summarise`, the sessions are not summarised (phase 2, which
    has their summaries: rebuilt, a long session's outline was held twice): what is returned then names
    the sessions and says nothing of what is in them, and a run for which `sink_for` gives no sink is not
    interpreted at all. Without a sink, a session's events are made only as far as its summary reads
    them (`SessionState.whole_events`)."""
    items = iter(items)
    # Which agent's adapter reads the file: as discover told it, or (a log read back from the vault) as its
    # first entry tells.
    first: list[Entry | BrokenLine] = []
    for item in items:
        first.append(item)
        if isinstance(item, Entry):
            break
    codex = source.agent == CODEX or (source.agent == CLAUDE_CODE and source.kept is not None and bool(first)
                                      and isinstance(first[-1], Entry) and codex_record(first[-1].data))
    router: _SessionRouter | _CodexRouter = (_CodexRouter if codex else _SessionRouter)(
        source, skip, sink_for or (lambda key: None), anchors_for or (lambda key: None), summarise)
    for item in first:
        router.feed(item)
    for item in items:
        router.feed(item)
    return router.finish()


class _CodexRouter:
    """A Codex rollout holds one session (a subagent's is a file of its own)."""

    def __init__(self, source: SessionFile, skip: Collection[bytes], sink_for: Callable[[str], EventSink | None],
                 anchors_for: Callable[[str], Callable[[str, int], None] | None], summarise: bool = True):
        self.problems: list[Diagnostic] = []
        self.main = CodexSession(source, problems=self.problems)
        self.main.start(sink_for(self.main.key), summarising=summarise)
        self.main.summary.on_later_page = anchors_for(self.main.key)
        self.feed = self.main.feed

    def finish(self) -> Interpreted:
        return Interpreted(session=self.main.build(), diagnostics=tuple(self.problems), unknown=Counter(self.main.unknown),
                           has_conversation=self.main.has_conversation, sidechains=())


class _SessionRouter:
    """Routes each entry to the session it belongs to. In 1.x main files, subagent messages sit inline
    with `isSidechain: true`, each run starting with a sidechain entry whose parentUuid is null; parallel
    Task runs interleave, so parentUuid is followed to keep each run whole. 2.x streams a subagent's
    messages into the parent as agent_progress entries, rebuilt as a run of their own."""

    def __init__(self, source: SessionFile, skip: Collection[bytes], sink_for: Callable[[str], EventSink | None],
                 anchors_for: Callable[[str], Callable[[str, int], None] | None], summarise: bool = True):
        self.source = source
        self.in_subagent_file = source.is_subagent
        self.summarise = summarise
        self.skip = skip
        self.sink_for = sink_for
        self.anchors_for = anchors_for
        self.problems: list[Diagnostic] = []
        self.main = self._builder()
        self.main.progress_sink = self._progress
        self.runs: list[_SessionBuilder] = []
        self.run_of_uuid: dict[str, int] = {}
        self.progress_runs: dict[str, _SessionBuilder] = {}

    def _builder(self, agent_id: str = "", run_name: str = "") -> _SessionBuilder:
        builder = _SessionBuilder(self.source, agent_id=agent_id, run_name=run_name,
                                  duplicates=DuplicateEntries(continued=self.skip), problems=self.problems)
        builder.start(self.sink_for(builder.key), summarising=self.summarise)
        builder.summary.on_later_page = self.anchors_for(builder.key)
        return builder

    def feed(self, item: Entry | BrokenLine) -> None:
        if not isinstance(item, Entry):
            self.main.feed(item)
            return
        if self.in_subagent_file or item.data.get("isSidechain") is not True:
            self.main._entry(item)  # `feed`, for an entry
            return
        parent = item.data.get("parentUuid")
        run = self.run_of_uuid.get(parent) if isinstance(parent, str) else None
        if run is None:
            if parent is None or not self.runs:
                number = len(self.runs) + 1
                self.runs.append(self._builder(f"sidechain-{number}", f"sidechain-{number}"))
            run = len(self.runs) - 1
        builder = self.runs[run]
        if builder.wanted:
            builder.feed(item)
        if isinstance(item.data.get("uuid"), str):
            self.run_of_uuid[item.data["uuid"]] = run

    def _progress(self, agent_id: str) -> Callable[[Entry], None] | None:
        builder = self.progress_runs.get(agent_id)
        if builder is None:
            builder = self.progress_runs[agent_id] = self._builder(agent_id, f"agent-{agent_id}")
        return builder.feed if builder.wanted else None

    def finish(self) -> Interpreted:
        main = self.main.build()
        sidechains = [run.build(parent_key=main.key) for run in self.runs]
        # Rebuilt from agent_progress; `link` prefers the agent's own file when there is one.
        sidechains.extend(replace(run.build(parent_key=main.key), from_progress=True)
                          for _, run in sorted(self.progress_runs.items()))
        unknown = Counter(self.main.unknown)
        builders = (self.main, *self.runs, *(run for _, run in sorted(self.progress_runs.items())))
        for run in builders[1:]:
            unknown.update(run.unknown)
        return Interpreted(
            session=main,
            diagnostics=tuple(self.problems),
            unknown=unknown,
            has_conversation=self.main.has_conversation or bool(sidechains),
            sidechains=tuple(sidechains),
        )

class _SessionBuilder(UserEntries, AssistantEntries, ToolCalls, SystemEntries, AttachmentEntries,
                      BookkeepingEntries):
    """A session's state with the handlers of every entry family, fed one entry (or broken line) at a time."""

    def feed(self, item: Entry | BrokenLine) -> None:
        if isinstance(item, BrokenLine):
            self.events.append(Unreadable(anchor=f"line-{item.line}", line=item.line, text=item.text, reason=item.reason,
                                          whole=item.whole))
        else:
            self._entry(item)

    def _entry(self, entry: Entry) -> None:
        data = entry.data
        uuid = data.get("uuid")
        if isinstance(uuid, str):
            seen = self.duplicates.see(uuid, data.get("timestamp"))
            if seen is _IN_CONTINUED_SESSION:
                self._remember_replayed_calls(data)
                return
            if seen is _IN_THIS_FILE:
                return
            if seen is not _NEW and seen in _SHARED_UUID:  # (an enum member's hash is a Python call)
                # Another entry has its uuid: both are kept, and each has an anchor of its own.
                self.problems.append(Diagnostic(entry.file, entry.line, f"uuid {uuid[:40]!r} is also the uuid of "
                                                f"{_SHARED_UUID[seen]}: both are shown"))
                data = {**data, "uuid": f"{re.sub(r'[^A-Za-z0-9_-]', '', uuid)[:24]}-line{entry.line}"}
                entry = Entry(entry.file, entry.line, data)
        if "timestamp" in data and not _plausible_time(data["timestamp"]):
            self.problems.append(Diagnostic(entry.file, entry.line, f"timestamp {str(data['timestamp'])[:40]!r} is not a time"
                                            " in 2023-2099: shown without it, left out of charts and durations"))
            data = {name: value for name, value in data.items() if name != "timestamp"}
            entry = Entry(entry.file, entry.line, data)
        if self.summarising:
            self.metadata.note(data)
            if not self.agent_id and isinstance(data.get("agentId"), str) and data.get("isSidechain") is True:
                self.agent_id = data["agentId"]
        dispatch_entry(self, entry)
