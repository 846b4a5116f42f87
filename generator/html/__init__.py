"""Stage 6, html: Markdown documents -> pages laid out by the theme's Jinja2 templates.

Templates get plain values (autoescaped) plus one piece of `Markup`: the session body, which is our own
rendered and sanitised HTML.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Mapping
from urllib.parse import unquote, urlsplit

from markupsafe import Markup

from .. import urls
from ..markdown import MarkdownPage, time_of
from ..model import Archive, Plan, Project, Prompt, Session, ToolCall, Usage
from ..text import plain, shorten
from .render import Resolver, pygments_css, render_markdown
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
        parsed = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    # Claude Code writes UTC; a timestamp without an offset is read as UTC too, so the two can be compared.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


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
        self.environment.filters["compact"] = compact_number
        self.version = version
        self.theme = theme
        self.links = ArchiveLinks(archive)
        self._plans: dict[str, Plan | None] = {}

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

    def _first_plan(self, session: Session) -> Plan | None:
        # Asked for on every page that lists this session (chain strips): look through its events once.
        if session.key not in self._plans:
            self._plans[session.key] = next((e for e in session.events if isinstance(e, Plan)), None)
        return self._plans[session.key]

    def session_summary(self, session: Session, page: str) -> dict[str, Any]:
        plan = self._first_plan(session)
        return {
            "key": session.key,
            "title": session.title,
            "url": urls.relative(page, urls.session_page(session.key)),
            "started": session.started,
            "ended": session.ended,
            "duration": duration(session.started, session.ended),
            "prompts": session.prompt_count,
            "first_prompt": shorten(plain(session.first_prompt), 240),
            "is_subagent": session.is_subagent,
            "agent_id": session.agent_id,
            "models": [short_model(m) for m in session.models],
            "branch": session.git_branch,
            "role": session.role,
            "plan_status": plan.status if plan else "",
            "plan_how": plan.how if plan else "",
        }

    def index(self) -> str:
        page = urls.INDEX
        projects = []
        for project in self.archive.projects:
            sessions = [self.archive.sessions[key] for key in project.session_keys]
            projects.append({
                "path": project.path,
                "dir_name": project.dir_name,
                "url": urls.relative(page, urls.project_page(project.dir_name)),
                "sessions": len(project.session_keys),
                "prompts": sum(s.prompt_count for s in sessions),
                "tokens": sum(tokens_in(s.usage) + s.usage.output_tokens for s in sessions),
                "last_activity": project.last_activity,
            })
        total = sum(len(p.session_keys) for p in self.archive.projects)
        return self._render("index.html", page, projects=projects, session_total=total)

    def project(self, project: Project) -> str:
        """Sessions newest first; the sessions of one chain stay together, at the place of its newest."""
        page = urls.project_page(project.dir_name)
        groups: list[dict[str, Any]] = []
        seen_chains: set[str] = set()
        for key in project.session_keys:
            session = self.archive.sessions[key]
            chain = self.archive.chains.get(session.chain_key)
            if chain is None:
                groups.append({"chain": None, "sessions": [self.session_summary(session, page)]})
            elif chain.key not in seen_chains:
                seen_chains.add(chain.key)
                members = [self.session_summary(self.archive.sessions[k], page) for k in chain.session_keys
                           if k in self.archive.sessions]
                groups.append({"chain": {"slug": chain.slug, "length": len(members)}, "sessions": members})
        sessions = [s for group in groups for s in group["sessions"]]
        return self._render("project.html", page, project=project, sessions=sessions, groups=groups)

    def session(self, session: Session, markdown: MarkdownPage) -> dict[str, str]:
        """The session's pages: one, or several for a long session, each with links to the others."""
        total = len(markdown.parts)
        pages = {}
        for number, part in enumerate(markdown.parts, start=1):
            path = urls.session_part(session.key, number)
            resolve = self.links.resolver(session, markdown, path)
            pagination = {
                "current": number,
                "total": total,
                "previous": urls.relative(path, urls.session_part(session.key, number - 1)) if number > 1 else None,
                "next": urls.relative(path, urls.session_part(session.key, number + 1)) if number < total else None,
                "pages": [urls.relative(path, urls.session_part(session.key, n)) for n in range(1, total + 1)],
            }
            anchor_map = urls.relative(path, urls.anchor_map(session.key)) if total > 1 else ""
            pages[path] = self._session_page(session, markdown, path, part, resolve, pagination, anchor_map)
        if total > 1:
            pages[urls.anchor_map(session.key)] = self.links.anchor_map_script(session.key)
        return pages

    def _session_page(self, session: Session, markdown: MarkdownPage, page: str, part: str, resolve: Resolver,
                      pagination: dict[str, Any], anchor_map: str) -> str:
        project = next(p for p in self.archive.projects if p.dir_name == session.project_dir)
        sessions = self.archive.sessions
        related = {
            name: self.session_summary(sessions[key], page) if key in sessions else None
            for name, key in (("previous", session.previous_key), ("next", session.next_key),
                              ("parent", session.parent_key), ("continues", session.continues_key))
        }
        chain = self.archive.chains.get(session.chain_key)
        chain_strip = [
            {**self.session_summary(sessions[key], page), "current": key == session.key}
            for key in (chain.session_keys if chain else ()) if key in sessions
        ]
        subagents = [self.session_summary(sessions[key], page) for key in session.subagent_keys if key in sessions]
        outline = [
            {"url": resolve("#" + event.anchor), "text": shorten(plain(event.text), 70), "time": event.timestamp}
            for event in session.events
            if isinstance(event, Prompt) and not event.hidden and event.text.strip()
        ]
        facts = {
            "started": session.started,
            "ended": session.ended,
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
            chain=chain_strip,
            subagents=subagents,
            outline=outline,
            pagination=pagination,
            anchor_map=anchor_map,
            markdown_url=urls.relative(page, markdown.path),
            content=Markup(render_markdown(part, resolve)),
        )


class ArchiveLinks:
    """Where a link in a session's Markdown leads in the built site. Knows every session's Markdown path
    and which page of a long session shows which anchor."""

    def __init__(self, archive: Archive):
        self.archive = archive
        self.key_of_markdown = {urls.session_markdown(key): key for key in archive.sessions}
        self._pages_by_anchor: dict[str, dict[str, int]] = {}

    def page_of(self, key: str, anchor: str) -> int:
        if key not in self._pages_by_anchor:
            session = self.archive.sessions[key]
            pages: dict[str, int] = {}
            page = 0
            for index, event in enumerate(session.events):
                if index in session.page_starts:
                    page += 1
                anchor_of_event = getattr(event, "anchor", "")
                pages[anchor_of_event] = max(page, 1)
                pages["m" + anchor_of_event[1:]] = max(page, 1)  # the reply block wrapping it
            self._pages_by_anchor[key] = pages
        return self._pages_by_anchor[key].get(anchor, 1)

    def anchor_map_script(self, key: str) -> str:
        """For permalinks typed or shared by hand: `<session>.html#anchor` when the anchor is on a later
        page. The first page loads this only when its own page lacks the anchor."""
        self.page_of(key, "")
        first = urls.session_part(key, 1)
        pages = {anchor: urls.relative(first, urls.session_part(key, number))
                 for anchor, number in sorted(self._pages_by_anchor[key].items()) if anchor and number > 1}
        return "window.sessionsiteAnchorPages = " + json.dumps(pages, sort_keys=True, separators=(",", ":")) + ";\n"

    def resolver(self, session: Session, markdown: MarkdownPage, page: str) -> Resolver:
        own_files = set(markdown.attachments) | set(markdown.media)
        folder = posixpath.dirname(markdown.path)

        def resolve(href: str) -> str | None:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                return href  # nh3 keeps only http, https and mailto
            if not parts.path:  # an anchor in this session, perhaps on another of its pages
                if not parts.fragment:
                    return None
                target = urls.session_part(session.key, self.page_of(session.key, parts.fragment))
                return (urls.relative(page, target) if target != page else "") + "#" + parts.fragment
            path = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
            key = self.key_of_markdown.get(path)
            if key is not None:
                number = self.page_of(key, parts.fragment) if parts.fragment else 1
                link = urls.relative(page, urls.session_part(key, number))
                return link + (f"#{parts.fragment}" if parts.fragment else "")
            if path in own_files:
                return urls.relative(page, path)
            return None

        return resolve


def compact_number(number: int) -> str:
    """12_345_678 -> 12.3M: big token counts at a glance."""
    for limit, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if number >= limit:
            return f"{number / limit:.1f}".rstrip("0").rstrip(".") + suffix
    return str(number)


def short_model(model: str) -> str:
    """`claude-opus-4-6-20260101` -> `opus-4-6`: enough to tell models apart in a list."""
    name = model.removeprefix("claude-")
    return re.sub(r"-\d{8}$", "", name)


def render_indexes(archive: Archive, builder: PageBuilder, theme: Theme) -> HtmlOutput:
    """The index and project pages, and the theme's assets: everything but the session pages."""
    pages: dict[str, str] = {urls.INDEX: builder.index()}
    for project in archive.projects:
        pages[urls.project_page(project.dir_name)] = builder.project(project)
    assets = {urls.asset(name): path.read_bytes() for name, path in theme.static_files().items()}
    assets[urls.asset("pygments.css")] = pygments_css().encode("utf-8")
    return HtmlOutput(pages=pages, assets=assets)
