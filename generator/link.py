"""Stage 4, link: sessions -> one connected archive.

Gathers the whole picture before any page is written: which project each session belongs to and that
project's real path, each session's best title (a summary may sit in another file), plan chains (sessions
sharing a slug), and which subagent transcript each Task/Agent call started.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from types import MappingProxyType
from typing import Iterable

from .interpret import PLAN_PREAMBLE, PLAN_STARTED_SESSION, Interpreted
from .model import Archive, Plan, Project, Session, ToolCall
from .text import plain, shorten

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
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

    sessions = {key: replace(s, title=_title(s, summaries)) for key, s in sessions.items()}
    sessions = _link_subagents(sessions)
    sessions = _link_chains(sessions)
    return Archive(projects=_projects(sessions), sessions=MappingProxyType(dict(sorted(sessions.items()))))


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
                    child = linked[target]
                    if description and not child.custom_title:
                        # The caller's short description names the run better than its long prompt.
                        linked[target] = replace(child, title=shorten(description))
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


def _link_chains(sessions: dict[str, Session]) -> dict[str, Session]:
    chains: dict[tuple[str, str], list[Session]] = defaultdict(list)
    for session in sessions.values():
        if session.slug and not session.is_subagent:
            chains[(session.project_dir, session.slug)].append(session)
    linked = dict(sessions)
    for members in chains.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda s: (s.started, s.key))
        for before, after in zip(members, members[1:]):
            linked[before.key] = replace(linked[before.key], next_key=after.key)
            linked[after.key] = replace(linked[after.key], previous_key=before.key)
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
