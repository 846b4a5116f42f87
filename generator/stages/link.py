"""Stage 4, link: sessions -> one connected archive.

Gathers the whole picture, from the sessions' summaries, before any page is written: which project each
session belongs to and that project's real path; which session a resumed one continues (its replayed
entries are shown only where they first happened); each session's best title (a summary may sit in
another file); which subagent transcript each Task/Agent call started; plan chains (sessions sharing a
slug: planning, implementation, further work), and which planning session's plan an implementation
carried out. Phase 2 applies what it learnt about single events with `linked_event`.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import replace
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from ..core.model import Archive, Chain, Event, Interpreted, Plan, PlanStatus, Project, Session, SubagentCall, ToolCall
from ..core.paths import decoded_project_folder
from ..core.text import plain, shorten
from .summarize import PLAN_PREAMBLE, text_digest, uuid_digest

# Agents Claude Code runs for itself, named by the prefix of their agent id.
INTERNAL_AGENTS = {
    "acompact": "Context compaction (internal agent)",
    "aprompt_suggestion": "Prompt suggestion (internal agent)",
    "aside_question": "Side question (internal agent)",
}


def decode_project_dir(dir_name: str) -> str:
    """Best guess at a path from Claude Code's lossy folder name, used only when no session has a cwd."""
    return decoded_project_folder(dir_name)


def link(interpreted: Iterable[Interpreted], continues: Mapping[str, str] | None = None) -> Archive:
    """`continues` is what `find_continuations` found; the continuing sessions must have been summarised
    again without the entries they replay (see `build.collect`)."""
    sessions: dict[str, Session] = {}
    summaries: dict[bytes, str] = {}
    for item in interpreted:
        # Summary-only files are pointers: they get no page, but their summaries title other sessions.
        for leaf, summary in item.session.leaf_summaries.items():
            summaries.setdefault(uuid_digest(leaf), summary)
        if not item.has_conversation:
            continue
        sessions[item.session.key] = item.session
        for side in item.sidechains:
            if side.from_progress:
                sessions.setdefault(side.key, side)  # the agent's own file, when there is one, is complete
            else:
                sessions[side.key] = side

    forks: dict[str, list[str]] = defaultdict(list)
    for key, earlier in (continues or {}).items():
        if key in sessions and earlier in sessions:
            forked = is_fork(sessions[key], sessions[earlier])
            sessions[key] = replace(sessions[key], continues_key=earlier, replayed=sessions[key].skipped_entries,
                                    forked=forked)
            if forked:
                forks[earlier].append(key)
    for earlier, keys in forks.items():
        sessions[earlier] = replace(sessions[earlier], fork_keys=tuple(sorted(keys)))
    latest_summary = _latest_summaries(sessions, summaries)
    sessions = {key: replace(s, title=_title(s, latest_summary.get(key, ""))) for key, s in sessions.items()}
    sessions = _link_subagents(sessions)
    sessions, chains = _link_chains(sessions)
    return Archive(projects=_projects(sessions), sessions=MappingProxyType(dict(sorted(sessions.items()))),
                   chains=MappingProxyType(dict(sorted(chains.items()))))


def is_fork(session: Session, earlier: Session) -> bool:
    """Whether `session`, which replays `earlier`'s entries, is a fork of it. `--resume` goes on in the same
    file (since 2.1.x); `--fork-session` writes a new one with a copy of the history, the name included (the
    name is copied before any entry, so a session that was renamed later is told apart)."""
    return bool(session.custom_title) and session.custom_title == earlier.custom_title


FORK_SUFFIX = " (fork)"


def _digests(session: Session) -> Iterator[bytes]:
    data = session.uuid_digests
    return (data[i:i + 8] for i in range(0, len(data), 8))


def _latest_summaries(sessions: Mapping[str, Session], summaries: Mapping[bytes, str]) -> dict[str, str]:
    """Each resume summarises the conversation up to some entry: the furthest one covers the most."""
    found: dict[str, str] = {}
    if not summaries:
        return found
    for key, session in sessions.items():
        latest = ""
        for digest in _digests(session):
            latest = summaries.get(digest, latest)
        if latest:
            found[key] = latest
    return found


# Entries of a session compared with every other session to find the one it continues: a resumed session
# replays the earlier conversation first.
HEAD_ENTRIES = 32


def find_continuations(interpreted: Iterable[Interpreted]) -> dict[str, str]:
    """A resumed or continued session replays the entries of the one it continues (same uuids), or names
    its last entry in a summary's leafUuid. Returns, by key, the session each one continues: the one that
    first held most of its opening entries. Only those opening entries are indexed, so memory stays small
    however many entries the archive has."""
    main = sorted((item.session for item in interpreted if item.has_conversation and not item.session.is_subagent),
                  key=lambda s: (s.ended, s.key))
    wanted: dict[tuple[str, bytes], list[str]] = defaultdict(list)
    for session in main:
        head = list(itertools.islice(_digests(session), HEAD_ENTRIES))
        head.extend(uuid_digest(leaf) for leaf in session.leaf_summaries)
        for digest in dict.fromkeys(head):
            wanted[(session.project_dir, digest)].append(session.key)
    # Earlier sessions first: an entry belongs to the first session that has it.
    owner: dict[tuple[str, bytes], str] = {}
    for session in main:
        for digest in _digests(session):
            probe = (session.project_dir, digest)
            if probe in wanted and probe not in owner:
                owner[probe] = session.key
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for probe, keys in wanted.items():
        first = owner.get(probe)
        for key in keys:
            if first and first != key:
                votes[key][first] += 1
    return {key: min(counted, key=lambda k: (-counted[k], k)) for key, counted in votes.items()}


def _title(session: Session, latest_summary: str) -> str:
    if session.custom_title:
        return session.custom_title + (FORK_SUFFIX if session.forked else "")
    if latest_summary:
        return latest_summary
    if session.title:  # ai-title, set by interpret
        return session.title
    internal = next((name for prefix, name in INTERNAL_AGENTS.items() if session.agent_id.startswith(prefix)), "")
    if internal:
        return internal
    started_by = session.started_plan_text
    if not started_by and session.first_prompt.startswith(PLAN_PREAMBLE):
        started_by = session.first_prompt[len(PLAN_PREAMBLE):]
    if started_by.strip():
        # An implementation session opens with its plan: the plan's first line says what the session is.
        return shorten(plain(started_by.strip().split("\n", 1)[0]).strip() or plain(started_by))
    if session.first_prompt:
        return shorten(plain(session.first_prompt))
    if session.is_subagent:
        return f"Subagent {session.agent_id}"
    if session.first_action.strip():
        return shorten(plain(session.first_action))
    return "Untitled session"


def _link_subagents(sessions: dict[str, Session]) -> dict[str, Session]:
    """Point each Task/Agent call at the transcript of the run it started, and each parent at its
    subagents."""
    by_parent: dict[str, list[Session]] = defaultdict(list)
    main_by_session_id = {
        (s.project_dir, s.session_id): s.key for s in sessions.values() if not s.is_subagent
    }
    linked: dict[str, Session] = {}
    for key, session in sessions.items():
        if session.is_subagent and not session.parent_key:
            # `<project>/<parent>/agent-x` says its parent; flat 1.x agent files only name it in sessionId.
            candidates = [key.rsplit("/", 1)[0], main_by_session_id.get((session.project_dir, session.session_id))]
            parent_key = next((c for c in candidates if c in sessions and not sessions[c].is_subagent), "")
            session = replace(session, parent_key=parent_key)
        if session.parent_key:
            by_parent[session.parent_key].append(session)
        linked[key] = session

    for parent_key, children in by_parent.items():
        parent = linked.get(parent_key)
        if parent is None:
            continue
        by_agent = {child.agent_id: child.key for child in children}
        # A call whose result names no agent (a 1.x inline run, or a run the user stopped, whose result is
        # the refusal) is matched by its prompt, among the runs no call names.
        named = {by_agent[call.agent_id] for call in parent.subagent_calls if call.agent_id in by_agent}
        unnamed_runs = [child for child in children if child.key not in named]
        targets: dict[str, str] = {}
        for call in parent.subagent_calls:
            target = _subagent_for(call, by_agent, unnamed_runs)
            if target:
                unnamed_runs = [run for run in unnamed_runs if run.key != target]
                targets[call.anchor] = target
                child = replace(linked[target], parent_anchor=call.anchor, parent_anchor_page=call.page)
                if call.description and not child.custom_title:
                    # The caller's short description names the run better than its long prompt.
                    child = replace(child, title=shorten(call.description))
                linked[target] = child
        # The agents a SendMessage may name: by the name their call gave them, and by their id.
        for call in parent.subagent_calls:
            if call.name and call.anchor in targets:
                targets.setdefault(RECIPIENT + call.name, targets[call.anchor])
        for child in children:
            if child.agent_id:
                targets.setdefault(RECIPIENT + child.agent_id, child.key)
        children_keys = tuple(sorted(c.key for c in children))
        linked[parent_key] = replace(parent, call_subagents=targets, subagent_keys=children_keys)
    return linked


def _subagent_for(call: SubagentCall, by_agent: dict[str, str], unnamed_runs: list[Session]) -> str:
    if call.agent_id and call.agent_id in by_agent:
        return by_agent[call.agent_id]
    if call.prompt_digest != EMPTY_DIGEST:
        for run in unnamed_runs:
            if text_digest(run.first_prompt.strip()) == call.prompt_digest:
                return run.key
    return ""


EMPTY_DIGEST = text_digest("")


def _link_chains(sessions: dict[str, Session]) -> tuple[dict[str, Session], dict[str, Chain]]:
    """Sessions of one project sharing a slug are one piece of work: "accept and clear context" starts a
    new session with the same slug, and later sessions may carry it on. An implementation session also
    names its planning session, in the text of its first message."""
    linked = dict(sessions)
    for key, session in sessions.items():
        source = _plan_source(session, sessions)
        if source:
            linked[key] = replace(session, plan_source_key=source)
            linked[source] = _mark_plan_accepted(linked[source], session)
    groups: dict[tuple[str, str], list[Session]] = defaultdict(list)
    for session in linked.values():
        if session.slug and not session.is_subagent:
            groups[(session.project_dir, session.slug)].append(session)
    chains: dict[str, Chain] = {}
    for (project, slug), members in groups.items():
        if len(members) < 2:
            continue
        members.sort(key=lambda s: (s.started, s.key))
        chain = Chain(key=f"{project}/{slug}", slug=slug, session_keys=tuple(s.key for s in members))
        chains[chain.key] = chain
        for index, member in enumerate(members):
            linked[member.key] = replace(
                linked[member.key],
                chain_key=chain.key,
                role=member.role_hint or "further work",
                previous_key=members[index - 1].key if index > 0 else "",
                next_key=members[index + 1].key if index + 1 < len(members) else "",
            )
    return linked, chains


def _mark_plan_accepted(planning: Session, implementation: Session) -> Session:
    """In the new format the planning session ends on its ExitPlanMode with no answer: the answer is the
    implementation session, which starts from that very plan."""
    for anchor, digest in reversed(planning.pending_plans):
        if digest == implementation.started_plan_digest:
            marked = replace(planning, accepted_plan_anchor=anchor)
            if planning.pending_plans[0][0] == anchor and planning.first_plan_status == "pending":
                marked = replace(marked, first_plan_status="approved", first_plan_how=PLAN_CARRIED_OUT)
            return marked
    return planning


PLAN_CARRIED_OUT = "accepted with a fresh context: carried out in the next session"


# In `Session.call_subagents`, beside the calls' anchors (which start with `e-`): the agents a message may
# be sent to, by this prefix and their name or id.
RECIPIENT = "to:"
MESSAGE_TOOLS = frozenset({"SendMessage"})


def linked_event(session: Session, event: Event) -> Event:
    """An event as phase 2 shows it, with what `link` learnt about it: the transcript a Task call
    started, a plan carried out in the next session."""
    if isinstance(event, ToolCall) and event.anchor in session.call_subagents:
        return replace(event, subagent=session.call_subagents[event.anchor])
    if isinstance(event, ToolCall) and event.name in MESSAGE_TOOLS:
        recipient = event.input.get("to") or event.input.get("recipient")
        if isinstance(recipient, str) and recipient:
            # `name@team` names a teammate of a team by its name.
            key = session.call_subagents.get(RECIPIENT + recipient) or session.call_subagents.get(
                RECIPIENT + recipient.split("@", 1)[0])
            if key:
                return replace(event, subagent=key)
    if isinstance(event, Plan) and event.anchor == session.accepted_plan_anchor:
        return replace(event, status=PlanStatus.APPROVED, how=PLAN_CARRIED_OUT)
    return event


def _plan_source(session: Session, sessions: dict[str, Session]) -> str:
    if not session.started_plan_digest or not session.plan_source_id:
        return ""
    source = f"{session.project_dir}/{session.plan_source_id}"
    return source if source in sessions and source != session.key else ""


def _projects(sessions: dict[str, Session]) -> tuple[Project, ...]:
    grouped: dict[str, list[Session]] = defaultdict(list)
    for session in sessions.values():
        grouped[session.project_dir].append(session)
    projects = []
    for dir_name, members in grouped.items():
        # Subagent transcripts are reached from their parent; orphans are listed with the sessions.
        main = [s for s in members if s.is_listed]
        cwds = Counter(s.cwd for s in main if s.cwd)
        # The most common cwd; ties go to the shortest, since sessions may cd into subfolders.
        path = min(cwds.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0] if cwds else decode_project_dir(
            dir_name
        )
        main.sort(key=lambda s: (s.started, s.key), reverse=True)
        projects.append(
            Project(
                dir_name=dir_name,
                path=path,
                session_keys=tuple(s.key for s in main),
                last_activity=max((s.ended for s in members), default=""),
            )
        )
    projects.sort(key=lambda p: (p.last_activity, p.dir_name), reverse=True)
    return tuple(projects)
