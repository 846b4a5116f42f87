"""What a build takes from the previous one, asked at the boundaries between the stages.

The previous build's manifest (`output.manifest`) says, for each input file, what it was, what phase 1
made of it and what phase 2 wrote from it. The phases ask it:

- phase 1, before reading a file: is its summary reusable (`planned`: the file is unchanged), and for a
  continuing session, is its summary without the replayed entries (`resummary`: the same entries left out);
- phase 2, before rendering a file: are its outputs unchanged (`outputs_kept`: the same `Digests.of_file`,
  everything its pages show), and, page by page as it renders, what is this page's body (`PageBodies`);
- after phase 2: is a project's index page unchanged (`index_page_kept`: the same `Digests.of_project`).

Each answer is yes only when the output would come out byte for byte the same; another version or other
settings answer no to all (`previous_build`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping

from ..core import urls
from ..core.model import Archive, Project
from ..output.manifest import HashCache, FileRecord, Manifest, decode, digest, path_key, text_digest, unchanged
from ..output.write import Staging
from ..render.html.pages import PageBuilder
from ..render.html.render import Resolver
from ..render.markdown import MarkdownPart
from ..render.markdown.blocks import themed_markdown_of
from ..stages.discover import SessionFile
from .plans import PlannedFile, Summarised


def previous_build(previous: Manifest, settings: str) -> Manifest:
    """The previous build's manifest if it was made with these settings; else nothing of the old site is kept."""
    return previous if previous.settings == settings else Manifest()


# -- phase 1: summaries -----------------------------------------------------------------------------------


def planned(session_file: SessionFile, previous: Manifest, hashes: HashCache) -> PlannedFile:
    """The file as phase 1 starts on it: with the previous build's summary when the file is unchanged since
    (`reused`), else with a record to fill as it is read."""
    old = previous.files.get(path_key(session_file))
    if old is not None and old.summary is not None and unchanged(old, session_file, hashes):
        return PlannedFile(session_file, replace(old, outputs=[]), summarised_from(old.summary, session_file),
                           reused=True)
    kept = session_file.kept
    size = kept.size if kept is not None else session_file.path.stat().st_size
    return PlannedFile(session_file, FileRecord(path_key(session_file), size, "", session_file.project_dir,
                                                kept=kept.last_seen if kept is not None else ""))


def note_read(plan: PlannedFile, result: Summarised, hashes: HashCache) -> None:
    """The file was read: its record holds the new summary, and the hash cache its content's hash."""
    plan.result = result
    plan.record = replace(plan.record, content_hash=result.content_hash, summary=summarised_to(result),
                          resummary=None, skip_digest="")
    if plan.source.kept is None:
        hashes.remember(plan.source.path, *result.read_as, result.content_hash)


def resummary(plan: PlannedFile, skip_digest: str) -> Summarised | None:
    """A continuing session's summary without the entries it replays, from the previous build, if the
    file is unchanged and the entries left out (by `skip_digest`) are the same."""
    if plan.reused and plan.record.resummary is not None and plan.record.skip_digest == skip_digest:
        return summarised_from(plan.record.resummary, plan.source)
    return None


def note_resummary(plan: PlannedFile, result: Summarised, skip_digest: str) -> None:
    plan.result = result
    plan.reused = False
    plan.record = replace(plan.record, resummary=summarised_to(result), skip_digest=skip_digest)


def summarised_to(result: Summarised) -> dict[str, Any]:
    """For the manifest, which is published with the site: without the input's path."""
    interpreted = result.interpreted
    interpreted = replace(interpreted, session=replace(interpreted.session, source=""),
                          sidechains=tuple(replace(side, source="") for side in interpreted.sidechains),
                          diagnostics=tuple(replace(d, file="") for d in interpreted.diagnostics))
    return {"interpreted": interpreted, "diagnostics": [replace(d, file="") for d in result.diagnostics],
            "content_hash": result.content_hash}


def summarised_from(data: Mapping[str, Any], session_file: SessionFile) -> Summarised:
    data = decode(data)  # as the manifest holds it
    source = str(session_file.path)
    interpreted = data["interpreted"]
    interpreted = replace(interpreted, session=replace(interpreted.session, source=source),
                          sidechains=tuple(replace(side, source=source) for side in interpreted.sidechains),
                          diagnostics=tuple(replace(d, file=source) for d in interpreted.diagnostics))
    return Summarised(interpreted, tuple(replace(d, file=source) for d in data["diagnostics"]),
                      data["content_hash"])


# -- phase 2: whole files, and index pages ----------------------------------------------------------------


class Digests:
    """What a file's pages, and a project's pages, are made from, as digests: equal digests, equal pages."""

    def __init__(self, archive: Archive, builder: PageBuilder | None, settings: str):
        self.archive = archive
        self.builder = builder
        self.settings = settings
        self.keys_by_source: dict[str, list[str]] = {}
        for key, session in archive.sessions.items():
            self.keys_by_source.setdefault(session.source, []).append(key)
        self._summary_digests: dict[str, str] = {}
        self._shown_digests: dict[str, str] = {}

    def of_file(self, session_file: SessionFile, record: FileRecord) -> str:
        """Everything the file's outputs depend on: its content, and the summaries of its sessions and of
        every session their pages show (chain, parent, subagents, the session continued, the project)."""
        sessions = self.archive.sessions
        context: list[Any] = [self.settings, record.content_hash, record.skip_digest]
        for key in self.keys_by_source.get(str(session_file.path), []):
            session = sessions[key]
            chain = self.archive.chains.get(session.chain_key)
            related = sorted({*(chain.session_keys if chain else ()), session.parent_key, session.continues_key,
                              session.plan_source_key, session.previous_key, session.next_key,
                              *session.subagent_keys, *session.fork_keys} - {"", key})
            project = next((p.path for p in self.archive.projects if p.dir_name == session.project_dir), "")
            context.append([self._summary_digest(key), project, list(chain.session_keys if chain else ()),
                            [[k, self._shown_digest(k)] for k in related if k in sessions],
                            self.archive.kept.get(key, "")])
        return digest(*context)

    def of_project(self, project: Project) -> str:
        """Everything a project's pages are made from: the project, and the summaries of the sessions they
        show. A reply added to one session renders its project's pages again, not the other projects'."""
        assert self.builder is not None
        keys = self.builder.project_page_sessions(project)
        return digest(self.settings, project, [[key, self._summary_digest(key), self.archive.kept.get(key, "")]
                                               for key in keys])

    def _shown_digest(self, key: str) -> str:
        """What the pages of other sessions show of a session: its line in their chain strip or list of
        subagents, its title and first prompt in their Markdown, the page its call is on. Not its end
        or its figures: a reply added to a session does not render its chain or its subagents again."""
        if key not in self._shown_digests:
            session = self.archive.sessions[key]
            shown = self.builder.related_summary(session, urls.INDEX) if self.builder else None
            self._shown_digests[key] = digest(shown, session.title, session.first_prompt, session.parent_anchor,
                                              session.parent_anchor_page, session.page_starts)
        return self._shown_digests[key]

    def _summary_digest(self, key: str) -> str:
        # Once per session: a long session's summary is large, and every subagent's pages show it.
        if key not in self._summary_digests:
            # Without the input's path: the manifest, and so the site, must not depend on where it is.
            self._summary_digests[key] = digest(replace(self.archive.sessions[key], source=""))
        return self._summary_digests[key]


def outputs_kept(plan: PlannedFile, old: FileRecord | None, render_digest: str, staging: Staging) -> bool:
    """Whether the file's outputs are the previous build's (the same `render_digest`): then they are
    taken into the staging folder, all of them, and its record says so."""
    if old is None or old.render_digest != render_digest:
        return False
    return _take_outputs(plan, old, render_digest, staging)


def previous_outputs_kept(plan: PlannedFile, old: FileRecord | None, staging: Staging) -> bool:
    """For a file that cannot be rendered now: whether the previous build's outputs of it are taken as
    they are (its record keeps their digest, so that the next build renders it again)."""
    return old is not None and _take_outputs(plan, old, old.render_digest, staging)


def _take_outputs(plan: PlannedFile, old: FileRecord, render_digest: str, staging: Staging) -> bool:
    if not carry_over(staging, [path for path in old.outputs if path not in plan.record.outputs]):
        return False
    plan.record = replace(plan.record, render_digest=render_digest,
                          outputs=sorted({*plan.record.outputs, *old.outputs}))
    return True


def carry_over(staging: Staging, paths: list[str]) -> bool:
    """All of a file's outputs from the previous site, or none (it is then rendered again)."""
    taken: list[str] = []
    for path in paths:
        if not staging.take_from_previous(path):
            for done in taken:
                if not done.startswith(urls.MEDIA_FOLDER):  # shared: another file may have brought it
                    staging.remove(done)
            return False
        taken.append(path)
    return True


def index_page_kept(previous: Manifest, path: str, made_from: str, staging: Staging) -> bool:
    """Whether an index page is made from what the previous build's was: then that page is taken as it is."""
    return previous.index_pages.get(path) == made_from and staging.take_from_previous(path)


# -- phase 2: page by page ---------------------------------------------------------------------------------


PageBodyRenderer = Callable[[MarkdownPart, str, Resolver], str]
"""Renders a page's body from its part (and the part's Markdown text), resolving links with the resolver."""


class PageBodies:
    """A page's body (its transcript, rendered from Markdown: most of a build's time) is taken from the
    page the last build wrote when it would come out the same: the same Markdown and page anchors, and
    the same answers to the links the page asked about. So a session that grew renders only its pages
    whose content changed (the last one, most often); the others get new surroundings (the session's
    figures) around the body they had. For each page the manifest keeps a digest of its Markdown and
    anchors, the links it asked about and a digest of their answers, a digest of the body, and where the
    body sits in the page (characters before and after it); the body read back is checked against its
    digest, so a page changed by hand is simply rendered again."""

    def __init__(self, previous_site: Path, previous: Mapping[str, list[Any]]):
        self.previous_site = previous_site
        self.previous = previous
        self.made: dict[str, list[Any]] = {}
        self.rendered = 0
        self.reused = 0

    def render_for(self, path: str, part: MarkdownPart, answered_by_the_page: Callable[[str, MarkdownPart], bool],
                   render_body: PageBodyRenderer
                   ) -> tuple[Callable[[str, Resolver], str], Callable[[str], str | None]]:
        """The body renderer for the page at `path` (`render_body`, unless the previous page's body is
        the same), and a function that, given the whole page, notes how its body was made and returns
        the previous page's text when the page is the same."""
        # The page's own source (the theme's markup, which a theme's template may fill from any field of a call),
        # not the .md's plain text: everything the body is made of.
        source_digest = text_digest(themed_markdown_of(part.blocks), *sorted(part.anchors))
        old = self.previous.get(path)
        found: dict[str, Any] = {}

        def render(text: str, resolve: Resolver) -> str:
            if old is not None and old[0] == source_digest:
                asked = old[1]
                previous_body = self._previous_body(path, old) if digest([resolve(h) for h in asked]) == old[2] else None
                if previous_body is not None:
                    found.update(body=previous_body, asked=asked, answers=old[2])
                    self.reused += 1
                    return previous_body[0]
            asked_now: dict[str, None] = {}

            def noting(href: str) -> str | None:
                if not answered_by_the_page(href, part):
                    asked_now[href] = None
                return resolve(href)

            body = render_body(part, text, noting)
            self.rendered += 1
            asked = list(asked_now)
            found.update(body=(body, None), asked=asked, answers=digest([resolve(h) for h in asked]))
            return body

        def made(page: str) -> str | None:
            body, previous_page = found["body"]
            start = page.find(body)
            # Found once only: searched for again past its start (never far: the body is most of the page).
            if body and start >= 0 and page.find(body, start + 1) < 0:
                self.made[path] = [source_digest, found["asked"], found["answers"], text_digest(body), start,
                                   len(page) - start - len(body)]
            return previous_page if previous_page == page else None

        return render, made

    def _previous_body(self, path: str, old: list[Any]) -> tuple[str, str] | None:
        try:
            page = (self.previous_site / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        before, after = old[4], old[5]
        body = page[before:len(page) - after]
        if before + after > len(page) or text_digest(body) != old[3]:
            return None
        return body, page
