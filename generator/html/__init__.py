"""Stage 6, html: Markdown documents -> pages laid out by the theme's Jinja2 templates.

Templates get plain values (autoescaped) plus one piece of `Markup`: the session body, which is our own
rendered and sanitised HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping

from markupsafe import Markup

from .. import urls
from ..markdown import MarkdownPage, time_of
from ..model import Archive, Project, Prompt, Session, ToolCall, Usage
from ..text import plain, shorten
from .render import pygments_css, render_markdown
from .theme import Theme

GENERATOR = "sessionsite"


@dataclass(frozen=True, slots=True)
class HtmlOutput:
    """Pages and assets to write, by output path."""

    pages: Mapping[str, str]
    """HTML text by path."""
    assets: Mapping[str, bytes]
    """Static files by path."""


def _parse_time(timestamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def tokens_in(usage: Usage) -> int:
    """Everything the model read: fresh input and the prompt cache, read or written."""
    return usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens


def duration(started: str, ended: str) -> str:
    begin, end = _parse_time(started), _parse_time(ended)
    if not begin or not end:
        return ""
    return duration_of((end - begin).total_seconds())


def duration_of(total_seconds: float) -> str:
    seconds = int(total_seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours < 48 else f"{hours // 24} days"


def _linker(page: str) -> Callable[[str], str]:
    return lambda target: urls.relative(page, target)


class PageBuilder:
    def __init__(self, archive: Archive, theme: Theme, version: str):
        self.archive = archive
        self.environment = theme.environment()
        self.environment.filters["when"] = time_of
        self.environment.filters["thousands"] = lambda n: f"{n:,}"
        self.version = version
        self.theme = theme

    def _render(self, template: str, page: str, **context: Any) -> str:
        link = _linker(page)
        return self.environment.get_template(template).render(
            link=link,
            asset=lambda name: link(urls.asset(name)),
            home=link(urls.INDEX),
            generator=GENERATOR,
            version=self.version,
            **context,
        )

    def session_summary(self, session: Session, page: str) -> dict[str, Any]:
        return {
            "title": session.title,
            "url": urls.relative(page, urls.session_page(session.key)),
            "started": session.started,
            "ended": session.ended,
            "duration": duration(session.started, session.ended),
            "prompts": session.prompt_count,
            "first_prompt": shorten(plain(session.first_prompt), 240),
            "is_subagent": session.is_subagent,
            "agent_id": session.agent_id,
        }

    def index(self) -> str:
        page = urls.INDEX
        projects = [
            {
                "path": project.path,
                "dir_name": project.dir_name,
                "url": urls.relative(page, urls.project_page(project.dir_name)),
                "sessions": len(project.session_keys),
                "last_activity": project.last_activity,
            }
            for project in self.archive.projects
        ]
        total = sum(len(p.session_keys) for p in self.archive.projects)
        return self._render("index.html", page, projects=projects, session_total=total)

    def project(self, project: Project) -> str:
        page = urls.project_page(project.dir_name)
        sessions = [self.session_summary(self.archive.sessions[key], page) for key in project.session_keys]
        return self._render("project.html", page, project=project, sessions=sessions)

    def session(self, session: Session, markdown: MarkdownPage) -> str:
        page = urls.session_page(session.key)
        project = next(p for p in self.archive.projects if p.dir_name == session.project_dir)
        related = {
            name: self.session_summary(self.archive.sessions[key], page) if key in self.archive.sessions else None
            for name, key in (("previous", session.previous_key), ("next", session.next_key),
                              ("parent", session.parent_key))
        }
        subagents = [self.session_summary(self.archive.sessions[key], page) for key in session.subagent_keys
                     if key in self.archive.sessions]
        outline = [
            {"anchor": event.anchor, "text": shorten(plain(event.text), 70), "time": event.timestamp}
            for event in session.events
            if isinstance(event, Prompt) and not event.hidden and event.text.strip()
        ]
        facts = {
            "started": session.started,
            "duration": duration(session.started, session.ended),
            "prompts": session.prompt_count,
            "tool_calls": sum(1 for e in session.events if isinstance(e, ToolCall)),
            "models": session.models,
            "versions": session.versions,
            "branch": session.git_branch,
            "cwd": session.cwd,
            "tokens_in": tokens_in(session.usage),
            "tokens_out": session.usage.output_tokens,
            "by_model": [(model, {"tokens_in": tokens_in(usage), "tokens_out": usage.output_tokens})
                         for model, usage in session.usage_by_model.items()],
            "active": duration_of(session.active_ms / 1000) if session.active_ms else "",
        }
        return self._render(
            "session.html",
            page,
            session=session,
            facts=facts,
            project={"path": project.path, "url": urls.relative(page, urls.project_page(project.dir_name))},
            related=related,
            subagents=subagents,
            outline=outline,
            markdown_url=urls.relative(page, markdown.path),
            content=Markup(render_markdown(markdown.body)),
        )


def render_indexes(archive: Archive, builder: PageBuilder, theme: Theme) -> HtmlOutput:
    """The index and project pages, and the theme's assets: everything but the session pages."""
    pages: dict[str, str] = {urls.INDEX: builder.index()}
    for project in archive.projects:
        pages[urls.project_page(project.dir_name)] = builder.project(project)
    assets = {urls.asset(name): path.read_bytes() for name, path in theme.static_files().items()}
    assets[urls.asset("pygments.css")] = pygments_css().encode("utf-8")
    return HtmlOutput(pages=pages, assets=assets)
