"""Stage 4, link: sessions -> one connected archive.

Gathers the whole picture before any page is written: which project each session belongs to and that
project's real path; which session a resumed one continues (and which of its entries are replays, shown
only where they first happened); each session's best title (a summary may sit in another file); which
subagent transcript each Task/Agent call started; plan chains (sessions sharing a slug: planning,
implementation, further work); and where a long session's pages break, so that any page can link to
any anchor on any other.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace
from types import MappingProxyType
from typing import Iterable

from .interpret import PLAN_PREAMBLE, PLAN_STARTED_SESSION, Interpreted, active_milliseconds
from .model import Archive, Chain, Event, Notice, Plan, Project, Prompt, Session, ToolCall, Unknown
from .text import plain, shorten

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
# "…read the full transcript at: /home/me/.claude/projects/-home-me-app/<session id>.jsonl"
TRANSCRIPT_PATH = re.compile(r"transcript at:\s*\S*?([^/\\\s]+)\.jsonl")
# Agents Claude Code runs for itself, named by the prefix of their agent id.
INTERNAL_AGENTS = {
    "acompact": "Context compaction (internal agent)",
    "aprompt_suggestion": "Prompt suggestion (internal agent)",
    "aside_question": "Side question (internal agent)",
}


def decode_project_dir(dir_name: str) -> str:
    """Best guess at a path from Claude Code's lossy folder name, used only when no session has a cwd."""
    return dir_name.replace("-", "/") if dir_name.startswith("-") else dir_name


def link(interpreted: Iterable[Interpreted]) -> Archive:
    sessions: dict[str, Session] = {}
    summaries: dict[str, str] = {}
    for item in interpreted:
        # Summary-only files are pointers: they get no page, but their summaries title other sessions.
        for leaf, summary in item.session.leaf_summaries.items():
            summaries.setdefault(leaf, summary)
        if not item.has_conversation:
            continue
        sessions[item.session.key] = item.session
        for side in item.sidechains:
            if side.from_progress:
                sessions.setdefault(side.key, side)  # the agent's own file, when there is one, is complete
            else:
                sessions[side.key] = side

    sessions = _link_continuations(sessions)
    sessions = {key: replace(s, title=_title(s, summaries)) for key, s in sessions.items()}
    sessions = _link_subagents(sessions)
    sessions, chains = _link_chains(sessions)
    sessions = {key: replace(s, page_starts=paginate(s.events)) for key, s in sessions.items()}
    return Archive(projects=_projects(sessions), sessions=MappingProxyType(dict(sorted(sessions.items()))),
                   chains=MappingProxyType(dict(sorted(chains.items()))))


def _title(session: Session, summaries: dict[str, str]) -> str:
    if session.custom_title:
        return session.custom_title
    if summaries:
        # Each resume summarises the conversation up to some entry: the furthest one covers the most.
        position = {uuid: index for index, uuid in enumerate(session.uuids)}
        here = [(position[leaf], text) for leaf, text in summaries.items() if leaf in position]
        if here:
            return max(here)[1]
    if session.title:  # ai-title, set by interpret
        return session.title
    internal = next((name for prefix, name in INTERNAL_AGENTS.items() if session.agent_id.startswith(prefix)), "")
    if internal:
        return internal
    started_by = next((e.text for e in session.events if isinstance(e, Plan) and e.how == PLAN_STARTED_SESSION), "")
    if not started_by and session.first_prompt.startswith(PLAN_PREAMBLE):
        started_by = session.first_prompt[len(PLAN_PREAMBLE):]
    if started_by.strip():
        # An implementation session opens with its plan: the plan's first line says what the session is.
        return shorten(plain(started_by.strip().split("\n", 1)[0]).strip() or plain(started_by))
    if session.first_prompt:
        return shorten(plain(session.first_prompt))
    if session.is_subagent:
        return f"Subagent {session.agent_id}"
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
            parent = next((c for c in candidates if c in sessions and not sessions[c].is_subagent), "")
            session = replace(session, parent_key=parent)
        if session.parent_key:
            by_parent[session.parent_key].append(session)
        linked[key] = session

    for parent_key, children in by_parent.items():
        parent = linked.get(parent_key)
        if parent is None:
            continue
        by_agent = {child.agent_id: child.key for child in children}
        inline_runs = [child for child in children if child.agent_id.startswith("sidechain-")]
        events = []
        for event in parent.events:
            if isinstance(event, ToolCall) and event.name in SUBAGENT_TOOLS:
                target = _subagent_for(event, by_agent, inline_runs)
                if target:
                    event = replace(event, subagent=target)
                    description = str(event.input.get("description", "")).strip()
                    child = replace(linked[target], parent_anchor=event.anchor)
                    if description and not child.custom_title:
                        # The caller's short description names the run better than its long prompt.
                        child = replace(child, title=shorten(description))
                    linked[target] = child
            events.append(event)
        children_keys = tuple(sorted(c.key for c in children))
        linked[parent_key] = replace(parent, events=tuple(events), subagent_keys=children_keys)
    return linked


def _subagent_for(call: ToolCall, by_agent: dict[str, str], inline_runs: list[Session]) -> str:
    structured = call.result.structured if call.result else None
    if isinstance(structured, dict) and isinstance(structured.get("agentId"), str):
        found = by_agent.get(structured["agentId"])
        if found:
            return found
    prompt = str(call.input.get("prompt", "")).strip()
    for run in inline_runs:
        if prompt and run.first_prompt.strip() == prompt:
            return run.key
    return ""


# A page holds about this many characters of transcript. Markup, highlighting and the page around it
# make the HTML about 3 to 3.5 times larger (measured on examples/), so pages stay near 600 KB.
PAGE_BUDGET = 180_000
# Past the inline limit a tool output moves to a text file, so it costs a page only its preview.
OUTPUT_PREVIEW = 50_000


def _weight(event: Event) -> int:
    if isinstance(event, ToolCall):
        result = len(event.result.text) if event.result else 0
        return 200 + sum(len(str(v)) for v in event.input.values()) + min(result, OUTPUT_PREVIEW)
    if isinstance(event, Unknown):
        return 200 + len(str(event.raw))
    return 200 + len(getattr(event, "text", "") or "")


def paginate(events: tuple[Event, ...], budget: int = PAGE_BUDGET) -> tuple[int, ...]:
    """Where each page starts. Pages break between turns (before a prompt); a single turn that is far
    too long for one page also breaks between the events of Claude's reply."""
    starts = [0]
    size = 0
    for index, event in enumerate(events):
        weight = _weight(event)
        turn_starts = isinstance(event, Prompt) and not event.hidden
        if index > starts[-1] and (size >= budget and turn_starts or size + weight > 3 * budget // 2):
            starts.append(index)
            size = 0
        size += weight
    return tuple(starts)


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
                role=_role(member),
                previous_key=members[index - 1].key if index > 0 else "",
                next_key=members[index + 1].key if index + 1 < len(members) else "",
            )
    return linked, chains


def _mark_plan_accepted(planning: Session, implementation: Session) -> Session:
    """In the new format the planning session ends on its ExitPlanMode with no answer: the answer is the
    implementation session, which starts from that very plan."""
    started_from = next((e.text for e in implementation.events
                         if isinstance(e, Plan) and e.how == PLAN_STARTED_SESSION), "")
    wanted = " ".join(started_from.split())
    events = list(planning.events)
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, Plan) and event.status == "pending" and " ".join(event.text.split()) == wanted:
            events[index] = replace(event, status="approved", how="accepted with a fresh context: carried out "
                                    "in the next session")
            return replace(planning, events=tuple(events))
    return planning


def _plan_source(session: Session, sessions: dict[str, Session]) -> str:
    if not any(isinstance(e, Plan) and e.how == PLAN_STARTED_SESSION for e in session.events):
        return ""
    for event in session.events:
        if isinstance(event, Prompt) and event.label == "plan preamble":
            found = TRANSCRIPT_PATH.search(event.text)
            if found:
                source = f"{session.project_dir}/{found.group(1)}"
                if source in sessions and source != session.key:
                    return source
    return ""


def _role(session: Session) -> str:
    if any(isinstance(e, Plan) and e.how == PLAN_STARTED_SESSION for e in session.events):
        return "implementation"
    if any(isinstance(e, Plan) for e in session.events) or any(
        isinstance(e, Notice) and e.kind == "permission-mode" and e.text.startswith("Plan mode")
        for e in session.events
    ):
        return "planning"
    return "further work"


def _link_continuations(sessions: dict[str, Session]) -> dict[str, Session]:
    """A resumed or continued session replays the entries of the one it continues (same uuids), or names
    its last entry in a summary's leafUuid. It links back to it, and the replayed entries are shown only
    where they first happened."""
    linked = dict(sessions)
    main = [s for s in sessions.values() if not s.is_subagent]
    owner_of_uuid: dict[tuple[str, str], str] = {}
    # Earlier sessions first: an entry belongs to the first session that has it.
    for session in sorted(main, key=lambda s: (s.ended, s.key)):
        for uuid in session.uuids:
            owner_of_uuid.setdefault((session.project_dir, uuid), session.key)
    for session in sorted(main, key=lambda s: (s.ended, s.key)):
        owners = Counter(
            owner for uuid in session.uuids
            if (owner := owner_of_uuid.get((session.project_dir, uuid))) and owner != session.key
        )
        for leaf in session.leaf_summaries:
            owner = owner_of_uuid.get((session.project_dir, leaf))
            if owner and owner != session.key:
                owners[owner] += 1
        if not owners:
            continue
        continues = min(owners, key=lambda k: (-owners[k], k))
        shown_there = {event.anchor for event in sessions[continues].events}
        kept = tuple(e for e in session.events if e.anchor not in shown_there)  # type: ignore[union-attr]
        # What describes this session is what happened in it: its own entries, prompts and start.
        own_uuids = tuple(u for u in session.uuids if owner_of_uuid.get((session.project_dir, u)) == session.key)
        prompts = [e for e in kept if isinstance(e, Prompt) and not e.hidden]
        started = min((e.timestamp for e in kept if getattr(e, "timestamp", "")), default=session.started)
        linked[session.key] = replace(
            session, continues_key=continues, events=kept, replayed=len(session.events) - len(kept),
            uuids=own_uuids, prompt_count=len(prompts), first_prompt=prompts[0].text if prompts else "",
            started=started, active_ms=active_milliseconds(kept),
        )
    return linked


def _projects(sessions: dict[str, Session]) -> tuple[Project, ...]:
    grouped: dict[str, list[Session]] = defaultdict(list)
    for session in sessions.values():
        grouped[session.project_dir].append(session)
    projects = []
    for dir_name, members in grouped.items():
        # Subagent transcripts are reached from their parent; orphans are listed with the sessions.
        main = [s for s in members if not s.is_subagent or not s.parent_key]
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
