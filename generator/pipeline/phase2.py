"""Phase 2: read → redact → interpret → markdown → html and search → write, a file at a time.

Each file is read again and its sessions rendered as their events stream past, pages written as they
fill (`FileRenderer`), on worker processes: memory is a constant plus phase 1's summaries plus one page
per worker. A file whose outputs would come out the same is not rendered: they are taken from the previous
site, as are the bodies of pages that would come out the same and unchanged index pages (`incremental`).
`build_site` runs both phases, then writes the index pages, the search index and the manifest.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import replace
from typing import Callable, Iterable

from .. import __version__
from ..config import BuildConfig, BuildReport, Progress
from ..core import urls
from ..core.errors import SessionsiteError, StrictModeError
from ..core.model import Archive, Diagnostic, Session
from ..output.manifest import (MANIFEST, NO_HASH_CACHE, FileRecord, HashCache, Manifest, digest_of_files, path_key,
                               site_files)
from ..output.write import Staging
from ..render.html.anchors import find_anchor_page
from ..render.html.pages import PageBuilder, render_indexes, sitemaps
from ..render.html.render import (COMMON_LANGUAGES, Resolver, markdown_parser, render_blocks, render_markdown,
                                  warm_up_highlighting)
from ..render.markdown import MarkdownOptions, MarkdownPart, SessionDocument
from ..render.markdown.markup import TranscriptMarkup, default_markup
from ..render.markdown.tool_views import language_for
from ..render.search import FileSearchRecorder, write_index
from ..render.theme import Theme
from ..stages.discover import SessionFile
from ..stages.interpret import interpret_stream
from ..workers import in_workers
from . import incremental
from .phase1 import collect, replayed_in_file, stream_entries, unreadable_kept_copies
from .plans import PlannedFile, Redaction, Rendered, largest_files_first, largest_first

log = logging.getLogger("sessionsite")

WARM_UP = "warm up: API_KEY=0123456789 sk-ant-0123456789"
"""A text every family of redaction rules looks at: redacting it loads them all."""


def build_site(staging: Staging, config: BuildConfig, progress: Progress | None,
               files: list[SessionFile], theme: Theme | None, settings: str, previous: Manifest,
               hashes: HashCache = NO_HASH_CACHE) -> BuildReport:
    """Phases 1 and 2 into the staging folder, then the index pages and the manifest."""
    redaction = Redaction(config.redact, config.redact_paths, config.own_redaction)
    previous = incremental.previous_build(previous, settings)
    if config.jobs > 1 and redaction.secrets:
        redaction.redactor().text(WARM_UP)  # the rules loaded here, not in each of phase 1's workers
    started = time.perf_counter()
    archive, report, plans = collect(config.inputs, progress, redaction.redactor(), config.jobs, staging, previous,
                                     files, hashes, config.selection)
    log.info("phase 1: %d of %d files read, %d sessions linked, in %.1f s", sum(1 for p in plans if not p.reused),
             len(plans), len(archive.sessions), time.perf_counter() - started)
    for diagnostic in report.diagnostics:
        log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
    if config.strict and report.diagnostics:
        raise StrictModeError(f"{len(report.diagnostics)} problem(s) in the input (--strict)")

    renderer = FileRenderer(archive, staging, MarkdownOptions(show_hidden=config.show_hidden, repo_url=config.repo_url),
                            theme, redaction, config.base_url, config.title)
    digests = incremental.Digests(archive, renderer.builder, settings)
    to_render = [plan for plan in plans if not _kept_from_previous(plan, previous, digests, staging, report)]
    started = time.perf_counter()
    if len(to_render) > 1 and config.jobs > 1:
        renderer.prepare([plan.source for plan in to_render])  # before the workers are forked: they inherit it
    to_render = largest_first(to_render)
    rendered_files = in_workers(lambda p: renderer(p.source, previous.files.get(p.record.path)), to_render,
                                config.jobs)
    if progress is not None:
        rendered_files = progress(rendered_files, len(to_render), "Writing pages")
    for plan, rendered in zip(to_render, rendered_files, strict=False):  # not strict: as phase 1's reading
        report.redactions.update(rendered.redactions)
        plan.record = replace(plan.record, outputs=sorted({*plan.record.outputs, *rendered.outputs}),
                              redactions=dict(rendered.redactions), pages=rendered.pages,
                              page_bodies=dict(rendered.page_bodies))
    rendered_now = {id(plan) for plan in to_render}  # by identity: comparing whole records is slow, and n²
    for plan in plans:
        if id(plan) not in rendered_now:
            report.redactions.update(plan.record.redactions)
    report.pages = sum(plan.record.pages for plan in plans)
    log.info("phase 2: %d of %d files rendered in %.1f s (the rest kept from the previous site)", len(to_render),
             len(plans), time.perf_counter() - started)

    index_pages: dict[str, str] = {}
    if renderer.builder is not None and theme is not None:
        index_pages = _write_indexes(archive, renderer.builder, theme, digests, previous, staging, report)
        _write_search_index(staging)
        # GitHub Pages would otherwise run the site through Jekyll, which hides files and folders whose
        # names start with an underscore or a dot.
        staging.write(urls.NO_JEKYLL, b"")
        if config.base_url:
            for path, content in sitemaps(config.base_url, staging.root).items():
                staging.write(path, content)
    _write_manifest(staging, settings, report, plans, index_pages)
    return report


def render_parts(archive: Archive, files: list[SessionFile], staging: Staging, options: MarkdownOptions,
                 redaction: Redaction, part_writer: PartWriter, jobs: int = 1,
                 theme: Theme | None = None) -> Counter[str]:
    """Phase 2 for a writer of its own (the bundle): each session of `files` goes to `part_writer` a page
    of typed blocks at a time, as it streams; the files its Markdown links to (saved outputs, media) go
    into `staging`. No page, index or manifest is written. Returns the redactions made."""
    renderer = FileRenderer(archive, staging, options, None, redaction, part_writer=part_writer, markup_theme=theme)
    if len(files) > 1:
        renderer.prepare(files)
    redactions: Counter[str] = Counter()
    for rendered in in_workers(renderer, largest_files_first(files), jobs):
        redactions.update(rendered.redactions)
    return redactions


PartWriter = Callable[[Session, MarkdownPart], None]
"""Takes each page's worth of a session's typed blocks as phase 2 makes them, in place of the site's pages:
the bundle's writers (`render_parts`)."""


class FileRenderer:
    """Phase 2 for one file: read it again and render the sessions it holds as their events stream."""

    def __init__(self, archive: Archive, staging: Staging, options: MarkdownOptions, theme: Theme | None,
                 redaction: Redaction, base_url: str = "", title: str = "", part_writer: PartWriter | None = None,
                 markup_theme: Theme | None = None):
        self.archive = archive
        self.staging = staging
        self.options = options
        self.redaction = redaction
        self.part_writer = part_writer
        self.builder = PageBuilder(archive, theme, __version__, self.anchor_page, base_url, title,
                                   options.repo_url) if theme else None
        # The markup around transcript parts is the theme's too, in the .md as on the page (and in a bundle).
        markup_from = theme or markup_theme
        self.markup = TranscriptMarkup(markup_from) if markup_from else default_markup()
        self.keys_by_source: dict[str, list[str]] = {}
        for key, session in archive.sessions.items():
            self.keys_by_source.setdefault(session.source, []).append(key)

    def prepare(self, files: Iterable[SessionFile] = ()) -> None:
        """What every file needs, made once here rather than once in each worker process (workers are
        forked from this one): the redaction rules, the Markdown parser and what highlighting and linking
        make on first use, the compiled page templates. With the `files` to render, the lexers of the
        files their sessions changed too: their edits are shown highlighted."""
        if self.redaction.secrets:
            self.redaction.redactor().text(WARM_UP)
        markdown_parser()
        warm_up_highlighting(self._languages_changed(files))
        language_for("x.py")  # the table of Pygments' file name patterns
        if self.builder is not None:
            self.builder.environment.get_template("session.html")

    def _languages_changed(self, files: Iterable[SessionFile]) -> list[str]:
        return languages_to_warm([touched.path for key in self.keys_by_source.get(str(session_file.path), ())
                                  for touched in self.archive.sessions[key].files_touched] for session_file in files)

    def anchor_page(self, key: str, anchor: str) -> int:
        return find_anchor_page(self.staging.root / urls.anchor_map(key), anchor)

    def __call__(self, session_file: SessionFile, previous: FileRecord | None = None) -> Rendered:
        """Render the file's sessions; `previous`: the file's record in the last build's manifest, whose
        page bodies are reused where they would come out the same."""
        keys = self.keys_by_source.get(str(session_file.path), [])
        if not keys:
            return Rendered(0, Counter(), ())
        output = _Recording(self.staging)
        bodies = incremental.PageBodies(self.staging.out, previous.page_bodies if previous is not None else {})
        search = None
        if self.builder is not None:
            project = next((p.path for p in self.archive.projects
                            if p.dir_name == self.archive.sessions[keys[0]].project_dir), "")
            search = FileSearchRecorder(urls.search_name(path_key(session_file)), output, project)
        pages = _PageWriter(self.archive, self.builder, bodies, search, output)

        def part_writer(key: str) -> Callable[[MarkdownPart], None] | None:
            session = self.archive.sessions[key]
            if self.part_writer is not None:
                writer = self.part_writer
                return lambda part: writer(session, part)
            return (lambda part: pages.write(session, part)) if self.builder else None

        # read → redact → interpret → markdown (→ html and search, and write, as each page fills)
        redactor = self.redaction.redactor()
        entries = stream_entries(session_file, redactor, [])
        documents = {key: SessionDocument(self.archive.sessions[key], self.archive, self.options, output,
                                          part_writer(key), self.markup)
                     for key in keys}
        interpret_stream(session_file, entries, skip=replayed_in_file(self.archive.sessions, keys),
                         sink_for=documents.get, summarise=False)
        for document in documents.values():
            document.finish()
        if search is not None:
            search.finish()
        if bodies.reused:
            log.debug("%s: %d page bodies rendered, %d kept from the last build", session_file.path,
                      bodies.rendered, bodies.reused)
        return Rendered(pages.written if self.builder else len(documents), redactor.counts, tuple(output.paths),
                        bodies.made)


MOST_LEXERS_WARMED = 12
"""Lexers made before the workers fork, past the common ones: the logs choose the languages, and one naming
files of every language Pygments knows would otherwise have the build make them all."""


def languages_to_warm(paths_by_file: Iterable[Iterable[str]]) -> list[str]:
    """The languages, past the common ones, of files changed in more than one of the files to render (given as
    the paths each one's sessions changed), most files first, at most `MOST_LEXERS_WARMED`: a lexer made before
    the fork is made once, where each process that renders one of those files would make its own; a language
    of one file is made in one process anyway."""
    files_with: Counter[str] = Counter()
    for paths in paths_by_file:
        files_with.update({language_for(path) for path in paths} - {"", *COMMON_LANGUAGES})
    shared = sorted((language for language, count in files_with.items() if count > 1),
                    key=lambda language: (-files_with[language], language))
    return shared[:MOST_LEXERS_WARMED]


class _PageWriter:
    """A session's page, from its part: its body rendered (or the previous build's), the page around it,
    its words for the search index, the file written (or the previous build's kept)."""

    def __init__(self, archive: Archive, builder: PageBuilder | None, bodies: incremental.PageBodies,
                 search: FileSearchRecorder | None, output: _Recording):
        self.archive = archive
        self.builder = builder
        self.bodies = bodies
        self.search = search
        self.output = output
        self.written = 0

    def write(self, session: Session, part: MarkdownPart) -> None:
        assert self.builder is not None
        path = urls.session_part(session.key, part.number)
        render, made = self.bodies.render_for(path, part, self.builder.links.answered_by_the_page, _page_body)
        page_path, page = self.builder.session_page(session, part, render)
        if self.search is not None:  # the index is a writer over the page's blocks, as the page is
            self.search.add_page(session.title, path, part.blocks, first=part.number == 1, started=session.started)
        if made(page) is not None:
            self.output.keep(page_path)  # the very page the last build wrote: its file stays as it is
        else:
            self.output.write(page_path, page)
        self.written += 1


def _page_body(part: MarkdownPart, text: str, resolve: Resolver) -> str:
    # The blocks are the page's Markdown (`themed_markdown_of(part.blocks)`): code goes straight to the
    # highlighter, prose through markdown-it.
    return render_blocks(part.blocks, resolve) if part.blocks else render_markdown(text, resolve)


class _Recording:
    """The staging folder, noting every path one file's sessions write."""

    def __init__(self, staging: Staging):
        self.staging = staging
        self.paths: dict[str, None] = {}

    def write(self, path: str, content: str | bytes) -> None:
        self.staging.write(path, content)
        self.paths[path] = None

    def write_shared(self, path: str, content: bytes) -> None:
        self.staging.write_shared(path, content)
        self.paths[path] = None

    def append(self, path: str, text: str | bytes) -> None:
        self.staging.append(path, text)
        self.paths[path] = None

    def keep(self, path: str) -> None:
        """The previous site's file at `path`, found to be what would be written."""
        if not self.staging.take_from_previous(path):
            raise SessionsiteError(f"internal error: {path} is gone from the previous site")
        self.paths[path] = None


def _kept_from_previous(plan: PlannedFile, previous: Manifest, digests: incremental.Digests, staging: Staging,
                        report: BuildReport) -> bool:
    """Whether the file's outputs are the previous build's, or it cannot be rendered now (its copy in the
    vault was damaged since an earlier build summarised it: that build's pages stay, and the next build
    tries again). Else the file is to be rendered, and its record holds the digest of what it is made from."""
    old = previous.files.get(plan.record.path)  # keyed by path_key
    render_digest = digests.of_file(plan.source, plan.record)
    if incremental.outputs_kept(plan, old, render_digest, staging):
        return True
    damaged = unreadable_kept_copies([plan]).get(id(plan))
    if damaged is None:
        plan.record = replace(plan.record, render_digest=render_digest)
        return False
    carried = incremental.previous_outputs_kept(plan, old, staging)
    message = f"{damaged[1]}: {'its pages are kept from the last build' if carried else 'it has no page'}"
    log.warning("%s:0: %s", plan.source.path, message)
    report.diagnostics.append(Diagnostic(str(plan.source.path), 0, message))
    return True


def _write_indexes(archive: Archive, builder: PageBuilder, theme: Theme, digests: incremental.Digests,
                   previous: Manifest, staging: Staging, report: BuildReport) -> dict[str, str]:
    """The site's index pages, those of projects in which nothing changed kept from the previous site; what
    each project's pages are made from, by path, for the manifest."""
    index_pages: dict[str, str] = {}
    for project in archive.projects:
        made_from = digests.of_project(project)
        for path in (urls.project_page(project.dir_name), urls.project_files(project.dir_name),
                     urls.project_commits(project.dir_name)):
            index_pages[path] = made_from

    def kept(path: str) -> bool:
        if incremental.index_page_kept(previous, path, index_pages[path], staging):
            report.pages += 1
            return True
        return False

    indexes = render_indexes(archive, builder, theme, kept)
    for path, page in indexes.pages.items():
        staging.write(path, page)
        report.pages += 1
    for path, content in indexes.assets.items():
        staging.write(path, content)
    return index_pages


def _write_search_index(staging: Staging) -> None:
    started = time.perf_counter()
    index = write_index(staging.root, staging.write)
    log.info("search: %d documents, %d term lines, merged in %.1f s", index.documents, index.term_lines,
             time.perf_counter() - started)


def _write_manifest(staging: Staging, settings: str, report: BuildReport, plans: list[PlannedFile],
                    index_pages: dict[str, str]) -> None:
    published = site_files(staging.root)
    report.site_bytes = sum(size for _, size in published)
    report.search_index_bytes = sum(size for path, size in published if path.startswith(urls.SEARCH_FOLDER + "/"))
    # The manifest is published with the site: its report leaves out the problems, which name input
    # paths (each file's record keeps its own, without the path).
    staging.write(MANIFEST, Manifest(settings, replace(report, diagnostics=[]).to_json(),
                                     {plan.record.path: plan.record for plan in plans},
                                     digest_of_files(published), index_pages).to_bytes())
