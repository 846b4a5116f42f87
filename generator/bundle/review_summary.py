"""The top of the Markdown bundle: what the work was (sessions, dates, models, cost, files changed with
their number of edits, commits made), and each session's heading."""

from __future__ import annotations

from typing import Sequence

from ..core.model import Archive, Commit, Session
from ..render.html.figures import relative_to
from ..render.markdown import time_of
from ..render.markdown.escape import inline_code, literal
from ..render.stats import files_changed, money, totals
from ..stages.commits import commit_url
from .html import role_of, span_of
from .limits import FILES_LISTED, plural


def heading(number: int, session: Session) -> str:
    role = role_of(session)
    label = f"{role.capitalize()}: " if role != "session" else ""
    facts = [time_of(session.started) + " UTC" if session.started else "",
             plural(session.prompt_count, "prompt") if session.prompt_count else "",
             f"plan {session.first_plan_status}" if session.first_plan_status else "",
             f"branch {inline_code(session.git_branch)}" if session.git_branch else ""]
    line = " · ".join(fact for fact in facts if fact)
    return f"---\n\n## {number}. {literal(label + session.title)}" + (f"\n\n*{line}*" if line else "")


def summary(archive: Archive, sessions: Sequence[Session], branch: str) -> str:
    main_sessions = [s for s in sessions if not s.is_subagent]
    subagents = len(sessions) - len(main_sessions)
    title = (main_sessions or list(sessions))[0].title
    lead = f"Claude Code session{'s' if len(main_sessions) != 1 else ''}"
    lines = [f"# {literal(lead + (f' on {branch}' if branch else '') + ': ' + title)}", ""]
    started, ended = span_of(sessions)
    roles = [role_of(s) for s in main_sessions]
    kinds = ", ".join(r for r in roles if r != "session") if any(r != "session" for r in roles) else ""
    first = plural(len(main_sessions), "session") + (f" ({literal(kinds)})" if kinds else "")
    if subagents:
        first += f" and {plural(subagents, 'subagent run')}"
    when = ""
    if started:
        when = f"{time_of(started)} to {time_of(ended)} UTC" if ended and ended != started else f"{time_of(started)} UTC"
    projects = [p.path for p in archive.projects if any(s.project_dir == p.dir_name for s in sessions)]
    facts = [f"- **Sessions:** {first}" + (f", {when}" if when else "")]
    if projects:
        facts.append("- **Project:** " + ", ".join(inline_code(p) for p in projects))
    found = totals(sessions)
    models = sorted({model for s in sessions for model in s.models})
    if models:
        facts.append("- **Models:** " + ", ".join(inline_code(m) for m in models))
    # The session pages count each session's own calls and cost; its subagents' are on theirs. Where
    # subagent runs add to the figures, how much of each is theirs.
    calls = sum(s.tool_call_count for s in sessions)
    own_calls = sum(s.tool_call_count for s in main_sessions)
    runs = "the subagent run" if subagents == 1 else f"the {subagents:,} subagent runs"
    in_sessions = "the session" if len(main_sessions) == 1 else "the sessions"
    split = subagents and main_sessions
    work = [plural(sum(s.prompt_count for s in main_sessions), "prompt"),
            plural(calls, "tool call") + (f" ({own_calls:,} in {in_sessions}, {calls - own_calls:,} in {runs})"
                                           if split and calls != own_calls else "")]
    if any(f.cost is not None for f in found.models):
        own_cost = totals(main_sessions).cost
        work.append(f"estimated cost {money(found.cost)}" + (
            f" ({money(own_cost)} in {in_sessions}, {money(found.cost - own_cost)} in {runs})"
            if split and money(found.cost) != money(own_cost) else ""))
    facts.append("- **Work:** " + ", ".join(work))
    lines += facts
    changed = files_changed(sessions)
    if changed:
        edits = sum(f.changes for f in changed)
        root = projects[0] if len(projects) == 1 else ""
        items = [f"- {inline_code(relative_to(f.path, root))}: {plural(f.changes, 'edit')}" for f in changed[:FILES_LISTED]]
        if len(changed) > FILES_LISTED:
            items.append(f"- *… and {len(changed) - FILES_LISTED:,} more files*")
        lines += ["", f"<details><summary>{plural(len(changed), 'file')} changed, {plural(edits, 'edit')}</summary>",
                  "", *items, "", "</details>"]
    commits = sorted((commit for s in sessions for commit in s.commits), key=lambda commit: commit.timestamp)
    if commits:
        items = [f"- {_commit_hash(commit)} {literal(commit.subject)}" for commit in commits[:FILES_LISTED]]
        if len(commits) > FILES_LISTED:
            items.append(f"- *… and {len(commits) - FILES_LISTED:,} more commits*")
        lines += ["", f"<details><summary>{plural(len(commits), 'commit')} made</summary>", "", *items, "",
                  "</details>"]
    return "\n".join(lines)


def _commit_hash(commit: Commit) -> str:
    """The short hash, linked to the forge when the session's own push named it (GitHub links a bare hash in
    a comment to the pull request's repository only)."""
    url = commit_url(commit.forge, commit.sha)
    return f"[{inline_code(commit.sha)}]({url})" if url else inline_code(commit.sha)

