"""The pages: session pages from their Markdown parts, the index and the project pages, laid out by the
theme's Jinja2 templates.

Templates get plain values (autoescaped) plus one piece of `Markup`: the session body, which is our own
rendered and sanitised HTML.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import quote, unquote, urlsplit

from markupsafe import Markup, escape

from ...core import urls
from ...core.model import Archive, Project, Session, Usage
from ...core.text import plain, shorten
from ...stages.agents import AGENT_NAMES, ASSISTANT_NAMES
from ...stages.commits import commit_url
from ..markdown import MarkdownPart, commit_stat, time_of
from ..stats import total_tokens, totals
from . import figures
from .render import Resolver, pygments_css, render_blocks, render_markdown
from ..theme import Theme

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


def session_facts(session: Session) -> dict[str, Any]:
    """The facts a session page lists: when, how long, what it ran and spent."""
    return {
        "started": session.started,
        "ended": session.ended,
        "duration": duration(session.started, session.ended),
        "prompts": session.prompt_count,
        "tasks": session.task_count,
        "tool_calls": session.tool_call_count,
        "models": session.models,
        "versions": session.versions,
        "agent_name": AGENT_NAMES.get(session.agent, session.agent),
        "assistant_name": ASSISTANT_NAMES.get(session.agent, "Claude"),
        "branch": session.git_branch,
        "cwd": session.cwd,
        "tokens_in": tokens_in(session.usage),
        "tokens_out": session.usage.output_tokens,
        "by_model": [(model, {"tokens_in": tokens_in(usage), "tokens_out": usage.output_tokens})
                     for model, usage in session.usage_by_model.items()],
        "active": duration_of(session.active_ms / 1000) if session.active_ms else "",
    }


def _linker(page: str) -> Callable[[str], str]:
    return lambda target: urls.relative(page, target)


def agents_named(sessions: Iterable[Session]) -> list[str]:
    """Which agents' sessions a project holds, each named once (the index names them when any is not Claude
    Code's)."""
    return [AGENT_NAMES.get(agent, agent) for agent in sorted({session.agent for session in sessions})]


class PageBuilder:
    def __init__(self, archive: Archive, theme: Theme, version: str, anchor_page: Callable[[str, str], int],
                 base_url: str = "", title: str = "", repo_url: str = ""):
        self.archive = archive
        self.base_url = base_url
        self.title = title
        """The site's title (--title), or nothing for the default."""
        self.repo_url = repo_url
        self.environment = theme.environment()
        # A build reads each template once: asking the file system whether it changed, each time a page
        # asks for it, was a stat per template per page.
        self.environment.auto_reload = False
        self.environment.filters["when"] = time_of
        self.environment.filters["thousands"] = lambda n: f"{n:,}"
        self.environment.filters["compact"] = figures.compact
        self.version = version
        self.theme = theme
        self.links = ArchiveLinks(archive, anchor_page)
        self._sessions_by_project: dict[str, list[Session]] | None = None

    def _render(self, template: str, page: str, **context: Any) -> str:
        link = _linker(page)
        return self.environment.get_template(template).render(
            link=link,
            asset=lambda name: link(urls.asset(name)),
            # A theme's extra stylesheet, as `{{ stylesheet("extra.css") }}`: linked here, inline in a bundle.
            stylesheet=lambda name: Markup('<link rel="stylesheet" href="{}">').format(link(urls.asset(name))),
            home=link(urls.INDEX),
            generator=GENERATOR,
            version=self.version,
            canonical=canonical_url(self.base_url, page),
            site_title=self.title,
            **context,
        )

    def session_summary(self, session: Session, page: str) -> dict[str, Any]:
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
            "agent": session.agent,
            "agent_name": AGENT_NAMES.get(session.agent, session.agent),
            "branch": session.git_branch,
            "role": session.role,
            "plan_status": session.first_plan_status,
            "plan_how": session.first_plan_how,
            "kept": self.archive.kept.get(session.key, ""),
        }

    def related_summary(self, session: Session, page: str) -> dict[str, Any]:
        """What a session page shows of another session (its chain, parent, subagents, the session it
        continues): not when it ended, so that a reply added to one session leaves the pages of the
        others as they are (phase 2 renders them again only when this changes)."""
        summary = self.session_summary(session, page)
        del summary["ended"], summary["duration"]
        return summary

    def index(self) -> str:
        page = urls.INDEX
        projects = []
        for project in self.archive.projects:
            # The same figures as the project's own page: one definition of each, subagent runs included.
            found = totals(self._project_sessions(project))
            projects.append({
                "path": project.path,
                "dir_name": project.dir_name,
                "url": urls.relative(page, urls.project_page(project.dir_name)),
                "sessions": found.sessions,
                "subagent_runs": found.subagent_runs,
                "prompts": found.prompts,
                "tokens": total_tokens(found.usage),
                "last_activity": project.last_activity,
                "files_url": urls.relative(page, urls.project_files(project.dir_name)),
                "commits_url": urls.relative(page, urls.project_commits(project.dir_name)),
                "commits": sum(len(s.commits) for s in self._project_sessions(project)),
                "agents": agents_named(self._project_sessions(project)),
            })
        total = sum(len(p.session_keys) for p in self.archive.projects)
        # The archive's figures count subagent runs too: their tokens were spent like any others.
        overview = figures.overview(self.archive.sessions.values(), "archive")
        return self._render("index.html", page, projects=projects, session_total=total, overview=overview)

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
        overview = figures.overview(self._project_sessions(project), "project")
        # Which agents' sessions the project holds, each named once: a reader can pick one when there are two.
        agents = sorted({(s["agent"], s["agent_name"]) for s in sessions})
        return self._render("project.html", page, project=project, sessions=sessions, groups=groups, agents=agents,
                            overview=overview, files_url=urls.relative(page, urls.project_files(project.dir_name)),
                            commits_url=urls.relative(page, urls.project_commits(project.dir_name)),
                            commit_total=sum(len(s.commits) for s in self._project_sessions(project)))

    def project_page_sessions(self, project: Project) -> list[str]:
        """The sessions a project's pages show anything of: its own, the subagent runs they started and
        the members of their chains."""
        keys = {session.key for session in self._project_sessions(project)}
        for key in list(keys):
            chain = self.archive.chains.get(self.archive.sessions[key].chain_key)
            keys.update(k for k in (chain.session_keys if chain else ()) if k in self.archive.sessions)
        return sorted(keys)

    def _project_sessions(self, project: Project) -> list[Session]:
        """The project's sessions and the subagent runs they started."""
        if self._sessions_by_project is None:
            self._sessions_by_project = {}
            for session in self.archive.sessions.values():
                self._sessions_by_project.setdefault(session.project_dir, []).append(session)
        return self._sessions_by_project.get(project.dir_name, [])

    def files(self, project: Project) -> str:
        """The project's Files touched page: each file its sessions changed, with the sessions and the
        calls that changed it."""
        page = urls.project_files(project.dir_name)
        sessions = self.archive.sessions

        def place_url(key: str, anchor: str, number: int) -> str:
            return urls.relative(page, urls.session_part(key, number)) + "#" + anchor

        files = figures.files_page(self._project_sessions(project), project.path,
                                   lambda key: urls.relative(page, urls.session_page(key)), place_url,
                                   lambda key: sessions[key].title or key.rsplit("/", 1)[-1])
        return self._render("files.html", page, project=project, files=files,
                            project_url=urls.relative(page, urls.project_page(project.dir_name)))

    def commits(self, project: Project) -> str:
        """The project's commits page: every commit its sessions (and their subagent runs) made, newest
        first, each linking to the forge, to the session and to the call that made it."""
        page = urls.project_commits(project.dir_name)
        made = [(commit, session) for session in self._project_sessions(project) for commit in session.commits]
        made.sort(key=lambda pair: (pair[0].timestamp, pair[1].key, pair[0].anchor, pair[0].sha), reverse=True)
        commits = [{
            "sha": commit.sha,
            "url": commit_url(self.repo_url or commit.forge, commit.sha),
            "subject": commit.subject,
            "call_url": urls.relative(page, urls.session_part(session.key, commit.page)) + "#" + commit.anchor,
            "branch": commit.branch,
            "time": commit.timestamp,
            "stat": commit_stat(commit),
            "root": commit.root,
            "amend": commit.amend,
            "session": {"title": session.title or session.key.rsplit("/", 1)[-1],
                        "url": urls.relative(page, urls.session_page(session.key)),
                        "is_subagent": session.is_subagent},
        } for commit, session in made]
        return self._render("commits.html", page, project=project, commits=commits,
                            forge_links=any(commit["url"] for commit in commits),
                            project_url=urls.relative(page, urls.project_page(project.dir_name)))

    def session_page(self, session: Session, part: MarkdownPart,
                     render: Callable[[str, Resolver], str] | None = None) -> tuple[str, str]:
        """One page of a session (a long session has several, each with links to the others): its path
        and its HTML. `render` makes the page's body of its Markdown (phase 2 may reuse the last build's)."""
        number, total = part.number, part.total
        path = urls.session_part(session.key, number)
        resolve = self.links.resolver(session, part, path)
        pagination = {
            "current": number,
            "total": total,
            "previous": urls.relative(path, urls.session_part(session.key, number - 1)) if number > 1 else None,
            "next": urls.relative(path, urls.session_part(session.key, number + 1)) if number < total else None,
            "pages": [urls.relative(path, urls.session_part(session.key, n)) for n in range(1, total + 1)],
        }
        anchor_map = urls.relative(path, urls.anchor_map(session.key)) if total > 1 else ""
        return path, self._session_page(session, part, path, resolve, pagination, anchor_map, render)

    def _session_page(self, session: Session, part: MarkdownPart, page: str, resolve: Resolver,
                      pagination: dict[str, Any], anchor_map: str,
                      render: Callable[[str, Resolver], str] | None = None) -> str:
        project = next(p for p in self.archive.projects if p.dir_name == session.project_dir)

        def place_url(anchor: str, number: int) -> str:
            target = urls.session_part(session.key, number)
            return ("" if target == page else urls.relative(page, target)) + "#" + anchor

        context = self.session_context(session, page, pagination, place_url)
        return self._render(
            "session.html",
            page,
            **context,
            project={"path": project.path, "url": urls.relative(page, urls.project_page(project.dir_name))},
            anchor_map=anchor_map,
            markdown_url=urls.relative(page, part.path),
            content=Markup(render(part.text, resolve) if render is not None else  # noqa: S704 - the HTML writer's, sanitised by nh3
                           render_blocks(part.blocks, resolve) if part.blocks else render_markdown(part.text, resolve)),
        )

    def session_context(self, session: Session, page: str, pagination: dict[str, Any],
                        place_url: Callable[[str, int], str]) -> dict[str, Any]:
        """What `_session_main.html` shows of a session beside its transcript, for one of its pages (the
        bundle passes a single page that holds them all). URLs are relative to `page`; `place_url(anchor,
        page number)` says where a place in the session is."""
        project = next(p for p in self.archive.projects if p.dir_name == session.project_dir)
        sessions = self.archive.sessions
        related = {
            name: self.related_summary(sessions[key], page) if key in sessions else None
            for name, key in (("previous", session.previous_key), ("next", session.next_key),
                              ("parent", session.parent_key), ("continues", session.continues_key))
        }
        chain = self.archive.chains.get(session.chain_key)
        chain_strip = [
            {**self.related_summary(sessions[key], page), "current": key == session.key}
            for key in (chain.session_keys if chain else ()) if key in sessions
        ]
        # A long session's page lists its own prompts and the subagents its calls started: listing the
        # whole session's on every page made the pages of a long session grow with its square.
        number, total = pagination["current"], pagination["total"]
        subagents = [self.related_summary(sessions[key], page) for key in session.subagent_keys
                     if key in sessions and (total == 1 or max(1, sessions[key].parent_anchor_page) == number)]
        outline = [
            {"url": place_url(item.anchor, number), "text": item.text, "time": item.timestamp, "number": index}
            for index, item in enumerate(session.outline, start=1) if total == 1 or item.page == number
        ]
        forks = [self.related_summary(sessions[key], page) for key in session.fork_keys if key in sessions]
        return {
            "session": session,
            "forks": forks,
            "facts": session_facts(session),
            "figures": figures.session_figures(session, place_url, project.path),
            "related": related,
            "chain": chain_strip,
            "subagents": subagents,
            "subagent_total": len(session.subagent_keys),
            "outline": outline,
            "prompt_total": len(session.outline),
            "pagination": pagination,
            "kept": self.archive.kept.get(session.key, ""),
        }


class ArchiveLinks:
    """Where a link in a session's Markdown leads in the built site. Knows every session's Markdown path
    and, through `anchor_page(key, anchor)`, which page of a long session shows an anchor."""

    def __init__(self, archive: Archive, anchor_page: Callable[[str, str], int]):
        self.archive = archive
        self.anchor_page = anchor_page
        self.key_of_markdown = {urls.session_markdown(key): key for key in archive.sessions}

    def page_of(self, key: str, anchor: str) -> int:
        session = self.archive.sessions[key]
        if len(session.page_starts) <= 1 or not anchor:
            return 1
        return min(self.anchor_page(key, anchor), len(session.page_starts))

    @staticmethod
    def answered_by_the_page(href: str, part: MarkdownPart) -> bool:
        """Whether `resolver` answers `href` from the href and the page's anchors alone (a link out of
        the site, or to an anchor on the page): phase 2 notes only the other links of a page, to know
        whether the page's body of the last build can stand (their answers are the same)."""
        parts = urlsplit(href)
        return bool(parts.scheme or parts.netloc) or not parts.path and (not parts.fragment
                                                                         or parts.fragment in part.anchors)

    def resolver(self, session: Session, part: MarkdownPart, page: str) -> Resolver:
        folder = posixpath.dirname(part.path)

        def resolve(href: str) -> str | None:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                return href  # nh3 keeps only http, https and mailto
            if not parts.path:  # an anchor in this session, perhaps on another of its pages
                if not parts.fragment:
                    return None
                if parts.fragment in part.anchors:  # on this very page, as permalinks are
                    return "#" + parts.fragment
                target = urls.session_part(session.key, self.page_of(session.key, parts.fragment))
                return (urls.relative(page, target) if target != page else "") + "#" + parts.fragment
            path = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
            key = self.key_of_markdown.get(path)
            if key is not None:
                if session.parent_key == key and parts.fragment == session.parent_anchor:
                    number = session.parent_anchor_page  # known from link: no need to look in the parent's map
                else:
                    number = self.page_of(key, parts.fragment) if parts.fragment else 1
                link = urls.relative(page, urls.session_part(key, number))
                return link + (f"#{parts.fragment}" if parts.fragment else "")
            if path in part.own_files:
                return urls.relative(page, path)
            return None

        return resolve


def canonical_url(base_url: str, page: str) -> str:
    """The page's address where the site is published; a folder's index.html is the folder itself."""
    if not base_url:
        return ""
    return base_url + quote(page.removesuffix(urls.INDEX) if page.endswith("/" + urls.INDEX) or page == urls.INDEX else page)


def short_model(model: str) -> str:
    """`claude-opus-4-6-20260101` -> `opus-4-6`: enough to tell models apart in a list."""
    name = model.removeprefix("claude-")
    return re.sub(r"-\d{8}$", "", name)


def render_indexes(archive: Archive, builder: PageBuilder, theme: Theme,
                   kept: Callable[[str], bool] = lambda path: False) -> HtmlOutput:
    """The index and project pages, and the theme's assets: everything but the session pages. A project
    page for which `kept(path)` says the last build's page stays is not rendered (and not in the result)."""
    pages: dict[str, str] = {urls.INDEX: builder.index()}
    for project in archive.projects:
        for path, render in ((urls.project_page(project.dir_name), builder.project),
                             (urls.project_files(project.dir_name), builder.files),
                             (urls.project_commits(project.dir_name), builder.commits)):
            if not kept(path):
                pages[path] = render(project)
    assets = {urls.asset(name): path.read_bytes() for name, path in theme.static_files().items()}
    assets[urls.asset("pygments.css")] = pygments_css(*theme.code_colours()).encode("utf-8")
    return HtmlOutput(pages=pages, assets=assets)


SITEMAP = "sitemap.xml"
SITEMAP_LIMIT = 50_000
"""URLs one sitemap file may list (sitemaps.org); a bigger site gets a sitemap index."""


def sitemaps(base_url: str, root: Path) -> dict[str, bytes]:
    """`sitemap.xml` listing every page of the site at `root` by its canonical address (split, with an
    index, past 50,000 pages)."""
    pages = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.html"))
    addresses = [canonical_url(base_url, page) for page in pages]

    def document(tag: str, item: str, locations: list[str]) -> bytes:
        entries = "".join(f"<{item}><loc>{escape(location)}</loc></{item}>\n" for location in locations)
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n<{tag} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                f"{entries}</{tag}>\n").encode("utf-8")

    if len(addresses) <= SITEMAP_LIMIT:
        return {SITEMAP: document("urlset", "url", addresses)}
    files = {}
    for number, start in enumerate(range(0, len(addresses), SITEMAP_LIMIT), start=1):
        files[f"sitemap-{number}.xml"] = document("urlset", "url", addresses[start:start + SITEMAP_LIMIT])
    files[SITEMAP] = document("sitemapindex", "sitemap", [base_url + name for name in files])
    return files
