"""The front matter at the top of a session's .md: its facts as YAML (written as JSON, which YAML reads)."""

from __future__ import annotations

import json
from typing import Any

from ...core import urls
from ...stages.agents import CLAUDE_CODE
from ...core.model import Archive, Commit, Session
from ...stages.commits import commit_url


def front_matter(session: Session, archive: Archive, repo_url: str = "") -> str:
    def link(key: str) -> str | None:
        return urls.relative(urls.session_markdown(session.key), urls.session_markdown(key)) if key else None

    fields: dict[str, Any] = {
        "id": session.session_id,
        "agent": session.agent_id or None,
        "written_by": session.agent if session.agent != CLAUDE_CODE else None,
        "title": session.title,
        "slug": session.slug or None,
        "project": session.project_dir,
        "cwd": session.cwd,
        "branch": session.git_branch or None,
        "models": list(session.models),
        "versions": list(session.versions),
        "started": session.started,
        "ended": session.ended,
        "previous": link(session.previous_key),
        "next": link(session.next_key),
        "parent": link(session.parent_key),
        "commits": [_commit_facts(commit, repo_url) for commit in session.commits] or None,
        "stats": {
            "prompts": session.prompt_count,
            "tool_calls": session.tool_call_count,
            "input_tokens": session.usage.input_tokens,
            "output_tokens": session.usage.output_tokens,
            "cache_read_tokens": session.usage.cache_read_tokens,
        },
    }
    # JSON scalars are valid YAML, and json.dumps escapes anything that could end the block early.
    lines = ["---"]
    for name, value in fields.items():
        if value is None:
            continue
        if isinstance(value, dict):
            lines.append(f"{name}:")
            lines.extend(f"  {k}: {_yaml_scalar(v)}" for k, v in value.items())
        else:
            lines.append(f"{name}: {_yaml_scalar(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _yaml_scalar(value: Any) -> str:
    """A value as JSON, which YAML reads too. A renderer that does not know front matter shows it as
    Markdown, so a `<` or an image's `![` in it is written as the escape YAML reads back as that character:
    no title makes an element or an image there."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace("![", "\\u0021[")


def _commit_facts(commit: Commit, repo_url: str) -> dict[str, Any]:
    facts: dict[str, Any] = {"sha": commit.sha, "branch": commit.branch, "subject": commit.subject,
                             "time": commit.timestamp}
    url = commit_url(repo_url or commit.forge, commit.sha)
    if url:
        facts["url"] = url
    return facts
