"""The HTML bundle: a writer over the markdown stage's typed blocks, like the site's pages.

Phase 2 hands each page's worth of a session's blocks to `HtmlSections` (a `pipeline.phase2.PartWriter`), which
renders them with the site's HTML writer (`html.render.render_blocks`) and appends the result to that
session's spool file. Its resolver points every link at this one document: another bundled session's
Markdown becomes that session's section, an anchor becomes its id here, a saved output, image or PDF
becomes a `data:` URI. Ids are given a per-session prefix, so that two sessions showing the same entry (a
side question's transcript holds its parent's entries) never share one. `compose_html` then puts the
bundle's template around the sessions, each as the site's `_session_main.html` with its transcript
streamed from the spool, so that no session is ever held whole.
"""

from __future__ import annotations

import base64
import hashlib
import posixpath
import re
import secrets
from collections import OrderedDict
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, Sequence
from urllib.parse import unquote, urlsplit

from markupsafe import Markup

from .. import __version__
from ..core import urls
from ..core.model import Archive, Session
from ..render.markdown import MarkdownPart
from ..render.html.pages import GENERATOR, PageBuilder, duration
from ..render.html.render import Resolver, pygments_css, render_blocks
from ..render.theme import Theme

MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".pdf": "application/pdf", ".txt": "text/plain;charset=utf-8"}
# Characters of data URIs kept for files linked again; past it, the least recently used go.
CACHED_DATA_URIS = 4 * 1024 * 1024
# Where a session's transcript goes in its rendered `_session_main.html`, and a session in the rendered
# bundle: comments, which no text in the templates can make (their values are escaped, so hold no `<`).
_CONTENT_MARK = "<!--sessionsite:content-->"
_SECTION_MARK = "<!--sessionsite:section:{}-->"


def section_id(key: str) -> str:
    """`<project>/<session>[/<agent>]` -> an id for that session's part of the bundle."""
    rest = key.partition("/")[2] or key
    return "session-" + re.sub(r"[^A-Za-z0-9_-]+", "-", rest).strip("-")


def role_of(session: Session) -> str:
    if session.is_subagent:
        return "subagent"
    if session.role:
        return session.role
    if session.continues_key:
        return "continued"
    return "session"


def span_of(sessions: Sequence[Session]) -> tuple[str, str]:
    starts = [s.started for s in sessions if s.started]
    ends = [s.ended for s in sessions if s.ended]
    return (min(starts) if starts else "", max(ends) if ends else "")


class HtmlSections:
    """The part writer: each page of blocks -> HTML whose links and ids are this document's, appended to
    its session's spool file (`spool_of`)."""

    def __init__(self, archive: Archive, keys: Sequence[str], root: Path, spool: Path):
        self.archive = archive
        self.keys = list(keys)
        self.number = {key: n for n, key in enumerate(self.keys, start=1)}
        self.owner = {urls.session_markdown(key): key for key in self.keys}
        self.root = root
        """The staging folder, where phase 2 wrote the files the Markdown links to."""
        self.spool = spool
        self.data_uris: OrderedDict[str, str] = OrderedDict()
        """The data URIs made last, as a file may be linked from several places (an image pasted again);
        at most `CACHED_DATA_URIS` characters of them, so that the bundle is never held whole."""
        self.cached = 0

    def spool_of(self, key: str) -> Path:
        return self.spool / f"{self.number[key]}.html"

    def anchor(self, key: str, fragment: str) -> str:
        """An id of session `key` as this document has it."""
        return f"s{self.number[key]}-{fragment}"

    def place(self, key: str, fragment: str = "") -> str:
        """A link to a place in a bundled session (its section, without a fragment)."""
        return "#" + (self.anchor(key, fragment) if fragment else section_id(key))

    def __call__(self, session: Session, part: MarkdownPart) -> None:
        if session.key not in self.number:
            return  # a session of the same file that the bundle does not hold
        files: list[str] = []
        # The placeholder carries a secret a transcript cannot guess, as the renderer's code placeholders do.
        placeholder = f"sessionsite-file-{secrets.token_hex(8)}-"
        body = render_blocks(part.blocks, self._resolver(session.key, part, placeholder, files),
                             lambda value: self.anchor(session.key, value))
        if files:
            body = re.sub(f'(href|src)="#{placeholder}(\\d+)"', lambda found: self._inlined(found, files), body)
        with self.spool_of(session.key).open("a", encoding="utf-8", newline="\n") as handle:
            handle.write(body)

    def _resolver(self, key: str, part: MarkdownPart, placeholder: str, files: list[str]) -> Resolver:
        folder = posixpath.dirname(part.path)

        def resolve(href: str) -> str | None:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                return href  # nh3 keeps only http, https and mailto
            if not parts.path:
                return self.place(key, parts.fragment) if parts.fragment else None
            path = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
            other = self.owner.get(path)
            if other is not None:
                return self.place(other, parts.fragment)
            if path in part.own_files and ".." not in path.split("/"):
                # data: URLs are not among the sanitiser's schemes (a transcript's own link must never be
                # one): the file goes in after sanitising, in place of a placeholder of ours.
                files.append(path)
                return f"#{placeholder}{len(files) - 1}"
            return None  # a session not in the bundle, a file of the user's project: shown as text

        return resolve

    def _inlined(self, found: re.Match[str], files: list[str]) -> str:
        attribute, path = found.group(1), files[int(found.group(2))]
        uri = self.data_uri(path)
        if uri is None:
            return f'{attribute}="#"'
        if attribute == "href" and not uri.startswith("data:image/"):
            # Browsers refuse to open a data: URL as a page, but download it.
            return f'href="{uri}" download="{posixpath.basename(path)}"'
        return f'{attribute}="{uri}"'

    def data_uri(self, path: str) -> str | None:
        if path in self.data_uris:
            self.data_uris.move_to_end(path)
            return self.data_uris[path]
        file = self.root / path
        if not file.is_file():
            return None
        media_type = MEDIA_TYPES.get(PurePosixPath(path).suffix.lower(), "application/octet-stream")
        uri = f"data:{media_type};base64,{base64.b64encode(file.read_bytes()).decode('ascii')}"
        self.data_uris[path] = uri
        self.cached += len(uri)
        while self.cached > CACHED_DATA_URIS:
            self.cached -= len(self.data_uris.popitem(last=False)[1])
        return uri

    def layout(self, builder: PageBuilder, session: Session) -> tuple[str, str]:
        """What the site's page shows around a session's transcript (its facts, figures, chain strip, the
        outline of its prompts), with every link made local: the parts before and after the transcript."""
        key = session.key
        pagination: dict[str, Any] = {"current": 1, "total": 1, "previous": None, "next": None, "pages": []}
        context = builder.session_context(session, urls.INDEX, pagination,
                                          lambda anchor, number: self.place(key, anchor))
        for name in ("related", "chain", "subagents"):
            value = context[name]
            for summary in (value.values() if isinstance(value, dict) else value):
                if summary is not None:
                    summary["url"] = self.place(summary["key"]) if summary["key"] in self.number else "#contents"
        page = builder.environment.get_template("_session_main.html").render(
            **context, markdown_url="", anchor_map="", content=Markup(_CONTENT_MARK))  # noqa: S704 - our marker
        before, _, after = page.partition(_CONTENT_MARK)
        return before, after


def compose_html(sections: HtmlSections, builder: PageBuilder, theme: Theme) -> Iterator[str]:
    """The bundle, in parts: the template's around each session, whose transcript is read back from its
    spool file a piece at a time (the template is rendered with a marker where each session goes)."""
    archive, keys = sections.archive, sections.keys
    sessions = [archive.sessions[key] for key in keys]
    main_sessions = [s for s in sessions if not s.is_subagent]
    started, ended = span_of(sessions)
    projects = [project.path for project in archive.projects if any(s.project_dir == project.dir_name for s in sessions)]
    entries: dict[str, dict[str, Any]] = {
        session.key: {"id": section_id(session.key), "title": session.title, "role": role_of(session),
                      "started": session.started, "prompts": session.prompt_count, "children": []}
        for session in sessions
    }
    contents: list[dict[str, Any]] = []  # a tree: each subagent under the session that started it
    for session in sessions:
        parent = entries.get(session.parent_key) if session.is_subagent else None
        (parent["children"] if parent else contents).append(entries[session.key])
    static = theme.static_files()
    style = _inline_safe(static["style.css"].read_text(encoding="utf-8") + "\n" + pygments_css(*theme.code_colours()))
    script = _inline_safe(static["app.js"].read_text(encoding="utf-8")) if "app.js" in static else ""
    page = builder.environment.get_template("bundle.html").render(
        generator=GENERATOR,
        version=__version__,
        title=main_sessions[0].title if main_sessions else sessions[0].title,
        projects=projects,
        started=started,
        ended=ended,
        duration=duration(started, ended),
        main_count=len(main_sessions),
        subagent_count=len(sessions) - len(main_sessions),
        contents=contents,
        sections=[{"id": section_id(key), "html": Markup(_SECTION_MARK.format(number))}  # noqa: S704 - our marker
                  for number, key in enumerate(keys)],
        style=Markup(style),  # noqa: S704 - the theme's own CSS, made safe to inline
        # A theme's extra stylesheet (`{{ stylesheet("extra.css") }}` in its layout.html), inline: one file.
        stylesheet=lambda name: Markup(f"<style>\n{_inline_safe(static[name].read_text(encoding='utf-8'))}\n</style>"),  # noqa: S704 - as style
        script=Markup(script),  # noqa: S704 - the theme's own script, made safe to inline
        script_hash=_csp_hash(script),
    )
    for number, key in enumerate(keys):
        before_section, page = page.split(_SECTION_MARK.format(number), 1)
        yield before_section
        before, after = sections.layout(builder, archive.sessions[key])
        yield before
        with sections.spool_of(key).open(encoding="utf-8") as spool:
            while piece := spool.read(1 << 20):
                yield piece
        yield after
    yield page


def bundle_script_hash(theme: Theme) -> str:
    """The CSP hash of the script the bundle's page carries inline (what `compose_html` allows)."""
    static = theme.static_files()
    return _csp_hash(_inline_safe(static["app.js"].read_text(encoding="utf-8")) if "app.js" in static else "")


def page_builder(archive: Archive, theme: Theme) -> PageBuilder:
    """The site's own template environment, with the filters its templates (and their macros) use."""
    return PageBuilder(archive, theme, __version__, lambda key, anchor: 1)


def _inline_safe(text: str) -> str:
    """CSS or JavaScript for inside a `<style>` or `<script>` element, which `</` could end early; `<\\/`
    means the same in a JavaScript string and in CSS."""
    return re.sub(r"</", r"<\\/", text)


def _csp_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


__all__ = ["HtmlSections", "bundle_script_hash", "compose_html", "page_builder", "role_of", "section_id", "span_of"]
