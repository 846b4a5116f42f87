"""Bundles for pull requests: one piece of work as a single self-contained file, HTML or Markdown.

Where it sits: after the pipeline, not inside it. `bundle()` runs phase 1 (`phases.collect`) over the
project folders of the sessions it is given, to see what `link` sees (chains, continuations, subagents),
and picks the sessions that belong with them (`select_sessions`). It builds just those with the normal
pipeline (`phases.build_site`) into a staging folder that is never swapped in, and composes what that
wrote:

- HTML: each session page's `<main>` (every page of a long session), links between included pages
  turned into in-document anchors, ids kept unique across sessions, and the theme's CSS and JavaScript
  and every image, PDF and saved tool output inlined as `data:` URIs. Nothing else is referenced.
- Markdown: each session's `<session>.md` intermediate, links to files a pull request will not have
  turned into anchors or text, then shrunk step by step until it fits GitHub's 65,536-character limit
  for a description or comment (`shrink`), saying so at the top.

The HTML it composes is our own, already escaped and sanitised, whose text never holds a raw `<`; it is
taken apart with a tokenizer that respects quoted attributes (`_tokens`), never parsed loosely.
"""

from __future__ import annotations

import base64
import hashlib
import html
import logging
import posixpath
import re
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Iterator, Mapping, Sequence
from urllib.parse import unquote, urlsplit

from markupsafe import Markup

from . import __version__
from .core import urls
from .core.errors import InputError, UsageProblem
from .core.model import Archive, Session
from .stages.discover import default_input
from .stages.redact import OwnRules, Redactor
from .stages.selection import Selection
from .render.markdown import time_of
from .render.markdown.escape import block_parser, literal
from .render.html.pages import GENERATOR, PageBuilder, duration
from .render.html.render import pygments_css
from .render.theme import Theme
from .output.locks import BUNDLE_PREFIX, OutputLock, claim, release, remove_abandoned
from .output.manifest import Manifest
from .output.write import MARKER, MARKER_TEXT, Staging, check_output_location, check_vault_location
from .config import BuildConfig
from .workers import stop_workers

log = logging.getLogger("sessionsite")

GITHUB_LIMIT = 65_536
"""Characters GitHub takes in a pull request's description or a comment."""

FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}


@dataclass(frozen=True)
class BundleConfig:
    """What to bundle and how; the redaction and visibility options are the build's."""

    inputs: tuple[Path, ...]
    """Session files (.jsonl): each brings its whole piece of work."""
    output: Path
    """The file to write: .html or .md."""
    show_hidden: bool = False
    strict: bool = False
    redact: bool = True
    redact_paths: bool = False
    jobs: int = 1
    vault: Path | None = None
    """The vault the logs read are saved into (None: none)."""
    commits: str = ""
    """A range of commits (`main..HEAD`): bundle the sessions that made them instead of `inputs`' sessions;
    `inputs` are then the project folders to look in (default: the repository's, `commit_range`)."""
    repository: Path = Path(".")
    """Where `commits` is resolved: a folder in the git repository."""
    repo_url: str = ""
    """The repository's web address, for the commits' links (`BuildConfig.repo_url`)."""
    selection: Selection = Selection()
    """Which of the sessions the inputs bring to keep (as `build` chooses)."""
    own_redaction: OwnRules = OwnRules()
    """The user's own patterns and words to redact."""
    theme: Path | None = None
    """A theme folder overriding parts of the default theme, as for `build` (the HTML bundle's look)."""


@dataclass
class BundleReport:
    """What went into a bundle."""

    sessions: list[str] = field(default_factory=list)
    """Keys of the sessions included, in the order they appear."""
    size: int = 0
    """Bytes written (HTML) or characters as GitHub counts them (Markdown)."""
    shortened: str = ""
    """For Markdown, what was shortened to fit (empty when nothing was)."""
    diagnostics: int = 0
    saved: Any = None
    """What the vault's save did (a `vault.SaveReport`)."""


# -- which sessions belong together ----------------------------------------------------------------------


def project_folder_of(path: Path) -> Path:
    """The project folder a session file sits in: `<project>/<session>/subagents/agent-x.jsonl` is three
    levels down, everything else is right in it."""
    if path.parent.name == "subagents":
        return path.parent.parent.parent
    return path.parent


def select_sessions(archive: Archive, given: Sequence[str]) -> list[str]:
    """The sessions a reader of `given` needs, in reading order.

    - The whole chain of each (planning, implementation, further work) and the planning session whose
      plan it carried out: a reviewer asks why, and the answer is in the planning session.
    - The sessions it continues and those that continue it (resumed with --continue or --resume), and
      theirs in turn: a continuing session's page leaves out the entries it replays, which are shown only
      where they first happened, so without the earlier session the start of the conversation is lost,
      and a later resume is the same conversation carried on.
    - Every subagent transcript of every session included, their own subagents too.
    A subagent given on its own stands for the session that started it.

    Main sessions come in the order they started, each followed by its subagents."""
    sessions = archive.sessions
    wanted: set[str] = set()
    pending = []
    for key in given:
        while sessions[key].is_subagent and sessions[key].parent_key in sessions:
            key = sessions[key].parent_key
        pending.append(key)
    continued_by: dict[str, list[str]] = {}
    for key, session in sessions.items():
        if session.continues_key:
            continued_by.setdefault(session.continues_key, []).append(key)
    while pending:
        key = pending.pop()
        if key in wanted or key not in sessions:
            continue
        wanted.add(key)
        session = sessions[key]
        chain = archive.chains.get(session.chain_key)
        pending.extend(chain.session_keys if chain else ())
        pending.extend(k for k in (session.continues_key, session.plan_source_key) if k)
        pending.extend(continued_by.get(key, ()))

    ordered: list[str] = []

    def add_with_subagents(key: str) -> None:
        if key in ordered:
            return
        ordered.append(key)
        children = [sessions[k] for k in sessions[key].subagent_keys if k in sessions]
        for child in sorted(children, key=lambda s: (s.started, s.key)):
            add_with_subagents(child.key)

    for key in sorted(wanted, key=lambda k: (sessions[k].started, k)):
        add_with_subagents(key)
    return ordered


# -- the bundle ------------------------------------------------------------------------------------------


def bundle(config: BundleConfig) -> BundleReport:
    """Write one self-contained file for the pieces of work the inputs belong to."""
    from .phases import collect, build_site  # the pipeline, loaded when there is work

    kind = FORMATS.get(config.output.suffix.lower())
    if kind is None:
        raise UsageProblem(f"{config.output}: the bundle is written as .html or .md; name the file so")
    if config.output.is_dir():
        raise UsageProblem(f"{config.output}: is a folder; -o names the file to write")
    hashes: list[str] = []
    if config.commits:
        from .commit_range import commits_in_range, project_folders, repository_root

        hashes = commits_in_range(config.commits, config.repository)
        inputs = []
        folders = sorted(config.inputs) or project_folders(repository_root(config.repository), default_input())
    else:
        inputs = [_check_input(path) for path in config.inputs]
        if not inputs:
            raise UsageProblem("give the session file(s) to bundle (.jsonl)")
        folders = sorted({project_folder_of(path) for path in inputs})
    # What a bundle reads is the project folders of its sessions: the rule every command that writes follows.
    check_output_location(config.output, tuple(folders))
    saved = None
    if config.vault is not None:
        from .stages.discover import find
        from .output.vault import Vault

        check_vault_location(config.output, config.vault)
        saved = Vault(config.vault).save(find(folders))
    redactor = Redactor(secrets=config.redact, home=config.redact_paths, own=config.own_redaction)
    archive, _, plans = collect(folders, redactor=redactor, jobs=config.jobs)

    given: list[str] = []
    if config.commits:
        from .commit_range import sessions_that_made

        given = sessions_that_made(archive.sessions, hashes)
        if not given:
            raise InputError(f"no session in {', '.join(map(str, folders))} made a commit of {config.commits}")
    for path in inputs:
        keys = [key for key, s in archive.sessions.items() if Path(s.source).resolve() == path]
        if not keys:
            raise InputError(f"{path}: no conversation in this file (only metadata, or no readable line)")
        given.extend(keys)
    selected = select_sessions(archive, given)
    sources = {Path(archive.sessions[key].source).resolve() for key in selected}
    # Summary-only files hold no conversation, but their summaries title the sessions they point at.
    sources.update(plan.source.path.resolve() for plan in plans
                   if plan.result is not None and not plan.result.interpreted.has_conversation)
    files = sorted(sources)
    log.info("bundling %d session(s) from %d file(s)", len(selected), len(files))

    theme = Theme.load(config.theme)
    with OutputLock(config.output), tempfile.TemporaryDirectory(prefix=BUNDLE_PREFIX) as temporary:
        remove_abandoned(config.output)
        claim(Path(temporary))
        (Path(temporary) / MARKER).write_bytes(MARKER_TEXT)
        site = Path(temporary) / "site"
        build_config = BuildConfig(inputs=tuple(files), output=site, show_hidden=config.show_hidden,
                                   markdown_only=kind == "markdown", strict=config.strict, redact=config.redact,
                                   redact_paths=config.redact_paths, jobs=config.jobs, repo_url=config.repo_url,
                                   selection=config.selection, own_redaction=config.own_redaction)
        from .config import discover_files

        staging = Staging(site)
        try:
            build_report = build_site(staging, build_config, None, discover_files(files, config.redact_paths, own=config.own_redaction),
                                      None if kind == "markdown" else theme, "bundle", Manifest())
            root = staging.root
            present = [key for key in selected if (root / urls.session_markdown(key)).is_file()]
            if kind == "html":
                # Written as it is composed, a page at a time: a bundle is as large as its sessions.
                size = _write_file(config.output, compose_html(archive, present, root, theme))
                shortened = ""
            else:
                text, shortened = compose_markdown(archive, present, root, config.output)
                size = github_length(text)
                _write_file(config.output, [text])
        finally:
            stop_workers()  # before their staging folder goes
            staging.discard()
            release(Path(temporary))
    return BundleReport(sessions=present, size=size, shortened=shortened,
                        diagnostics=len(build_report.diagnostics), saved=saved)


def _check_input(path: Path) -> Path:
    if path.is_dir():
        raise UsageProblem(f"{path}: is a folder; give the session file (.jsonl) whose work to bundle")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if path.suffix.lower() not in (".jsonl", ".json"):
        raise InputError(f"{path}: not a Claude Code session log (.jsonl)")
    return path.resolve()


def _write_file(path: Path, parts: Iterable[str]) -> int:
    """Written beside the target as the parts come, and renamed into place: a failed write leaves the old
    file whole. Returns the bytes written."""
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.part")
    size = 0
    try:
        with temporary.open("w", encoding="utf-8", newline="\n") as handle:
            for part in parts:
                handle.write(part)
                size += len(part.encode("utf-8"))
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)
    return size


def section_id(key: str) -> str:
    """`<project>/<session>[/<agent>]` -> an id for that session's part of the bundle."""
    rest = key.partition("/")[2] or key
    return "session-" + re.sub(r"[^A-Za-z0-9_-]+", "-", rest).strip("-")


def _role(archive: Archive, session: Session) -> str:
    if session.is_subagent:
        return "subagent"
    if session.role:
        return session.role
    if session.continues_key:
        return "continued"
    return "session"


def _span(sessions: Sequence[Session]) -> tuple[str, str]:
    starts = [s.started for s in sessions if s.started]
    ends = [s.ended for s in sessions if s.ended]
    return (min(starts) if starts else "", max(ends) if ends else "")


# -- HTML ------------------------------------------------------------------------------------------------

# A tag of our own HTML: a name, then attributes whose values are quoted (or bare), then `>`. Text never
# holds a raw `<` (it is escaped), so each `<` starts a tag or a comment.
_TAG = re.compile(
    r"""<(?:!--.*?-->|(/?)([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*/?>)""",
    re.S,
)
_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})
MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".pdf": "application/pdf", ".txt": "text/plain;charset=utf-8"}


@dataclass
class _Tag:
    closing: bool
    name: str
    attributes: list[tuple[str, str | None]]
    raw: str


def _tokens(markup: str) -> Iterator[str | _Tag]:
    """Text (as it is, entities and all) and tags, in order."""
    position = 0
    while True:
        start = markup.find("<", position)
        if start == -1:
            if position < len(markup):
                yield markup[position:]
            return
        if start > position:
            yield markup[position:start]
        found = _TAG.match(markup, start)
        if found is None:
            yield "&lt;"  # not a tag of ours: shown as the character it is
            position = start + 1
            continue
        position = found.end()
        if found.group(2) is None:
            continue  # a comment
        attributes = [
            (m.group(1).lower(), html.unescape(next((g for g in m.groups()[1:] if g is not None), "")) if
             any(g is not None for g in m.groups()[1:]) else None)
            for m in _ATTRIBUTE.finditer(found.group(3) or "")
        ]
        yield _Tag(bool(found.group(1)), found.group(2).lower(), attributes, found.group(0))


def _start_tag(name: str, attributes: list[tuple[str, str | None]]) -> str:
    parts = [name] + [key if value is None else f'{key}="{html.escape(value, quote=True)}"'
                      for key, value in attributes]
    return "<" + " ".join(parts) + ">"


def main_content(page: str) -> str:
    """What a page shows inside `<main>`: its first `<main` tag is in our template's chrome, whose
    attribute values never hold a raw `<`, and its last `</main>` is the template's own."""
    start = page.find("<main")
    end = page.rfind("</main>")
    if start == -1 or end == -1:
        raise AssertionError("a session page without <main>")
    return page[page.index(">", start) + 1:end]


def _has_class(tag: _Tag, name: str) -> bool:
    return any(key == "class" and value and name in value.split() for key, value in tag.attributes)


# Parts of a session page that lead out of the bundle: the pages of a long session (all are here, one
# after the other) and the link to the session's Markdown file.
def _left_out(tag: _Tag) -> bool:
    return (tag.name == "nav" and _has_class(tag, "pagination")) or (tag.name == "p" and _has_class(tag, "side-links"))


class _HtmlComposer:
    def __init__(self, archive: Archive, keys: Sequence[str], root: Path):
        self.archive = archive
        self.keys = keys
        self.root = root
        self.pages: dict[str, list[str]] = {}
        for key in keys:
            paths, number = [], 1
            while (root / urls.session_part(key, number)).is_file():
                paths.append(urls.session_part(key, number))
                number += 1
            self.pages[key] = paths
        self.owner = {path: key for key, paths in self.pages.items() for path in paths}
        self.owner.update({urls.session_markdown(key): key for key in keys})
        self.ids = self._unique_ids()
        self.data_uris: OrderedDict[str, str] = OrderedDict()
        """The data URIs made last, as a file may be linked from several places (an image pasted again);
        at most `CACHED_DATA_URIS` characters of them, so that the bundle is never held whole."""
        self.cached = 0

    def _unique_ids(self) -> dict[tuple[str, str], str]:
        """Anchors come from entry uuids, so they rarely meet; when two sessions do share one (or one
        meets an id of the bundle's own), the later session's is prefixed with its section id."""
        taken = {"main", "contents", "top", *map(section_id, self.keys)}
        renamed: dict[tuple[str, str], str] = {}
        for key in self.keys:
            mine = set()
            for path in self.pages[key]:
                for token in _tokens(main_content((self.root / path).read_text(encoding="utf-8"))):
                    if isinstance(token, _Tag) and not token.closing:
                        mine.update(value for name, value in token.attributes if name == "id" and value)
            for anchor in sorted(mine):
                if anchor in taken:
                    renamed[(key, anchor)] = f"{section_id(key)}--{anchor}"
            taken.update(renamed.get((key, anchor), anchor) for anchor in mine)
        return renamed

    def anchor(self, key: str, fragment: str) -> str:
        return self.ids.get((key, fragment), fragment)

    def data_uri(self, path: str) -> str | None:
        if path in self.data_uris:
            self.data_uris.move_to_end(path)
            return self.data_uris[path]
        file = self.root / path
        if not file.is_file() or ".." in path.split("/"):
            return None
        media_type = MEDIA_TYPES.get(PurePosixPath(path).suffix.lower(), "application/octet-stream")
        uri = f"data:{media_type};base64,{base64.b64encode(file.read_bytes()).decode('ascii')}"
        self.data_uris[path] = uri
        self.cached += len(uri)
        while self.cached > CACHED_DATA_URIS:
            self.cached -= len(self.data_uris.popitem(last=False)[1])
        return uri

    def rewrite_url(self, key: str, page: str, value: str) -> tuple[str | None, str]:
        """Where a link of an included page leads in the bundle: (the new value, or None when it leads
        out of the bundle; the file name to download it as, for an inlined file)."""
        parts = urlsplit(value)
        if parts.scheme or parts.netloc:
            return value, ""  # http(s) and mailto, as the sanitiser left them
        if not parts.path:
            return ("#" + self.anchor(key, parts.fragment), "") if parts.fragment else (None, "")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
        owner = self.owner.get(target)
        if owner is not None:
            return "#" + (self.anchor(owner, parts.fragment) if parts.fragment else section_id(owner)), ""
        if target.startswith(urls.MEDIA_FOLDER) or target.startswith(urls.session_page(key, "files") + "/"):
            return self.data_uri(target), posixpath.basename(target)
        return None, ""

    def section(self, key: str) -> Iterator[str]:
        """A session's part of the bundle, a page at a time."""
        for page in self.pages[key]:
            content = main_content((self.root / page).read_text(encoding="utf-8"))
            yield self._rewrite(key, page, content)

    def _rewrite(self, key: str, page: str, content: str) -> str:
        out: list[str] = []
        skipping: list[str] = []  # the element being left out, as a stack of its open tags
        unwrapped = False
        for token in _tokens(content):
            if skipping:
                if isinstance(token, _Tag) and token.name == skipping[0] and token.name not in _VOID:
                    if token.closing:
                        skipping.pop()
                    else:
                        skipping.append(token.name)
                continue
            if not isinstance(token, _Tag):
                out.append(token)
                continue
            if token.closing:
                if token.name == "a" and unwrapped:
                    out.append("</span>")
                    unwrapped = False
                else:
                    out.append(token.raw)
                continue
            if _left_out(token):
                if token.name not in _VOID:
                    skipping.append(token.name)
                continue
            out.append(self._rewrite_tag(key, page, token))
            if token.name == "a" and out[-1].startswith("<span"):
                unwrapped = True
        return "".join(out)

    def _rewrite_tag(self, key: str, page: str, tag: _Tag) -> str:
        names = {name for name, _ in tag.attributes}
        if not names & {"id", "href", "src", "data-anchor-map"}:
            return tag.raw
        attributes: list[tuple[str, str | None]] = []
        download = ""
        gone = False
        for name, value in tag.attributes:
            if name == "data-anchor-map":
                continue  # every page of the session is here: no map to look a permalink up in
            if name == "id" and value:
                value = self.anchor(key, value)
            elif name in ("href", "src") and value is not None:
                value, download = self.rewrite_url(key, page, value)
                if value is None:
                    gone = True
                    continue
            attributes.append((name, value))
        if tag.name == "a" and gone:
            # A link out of the bundle (a session not in it, the project page): its text stays, as text.
            return _start_tag("span", [(n, v) for n, v in attributes if n in ("id", "class", "title")])
        if tag.name == "a" and download and not any(v and v.startswith("data:image/") for n, v in attributes
                                                    if n == "href"):
            # Browsers refuse to open a data: URL as a page, but download it.
            attributes.append(("download", download))
        return _start_tag(tag.name, attributes)


def compose_html(archive: Archive, keys: Sequence[str], root: Path, theme: Theme) -> Iterator[str]:
    """The bundle, in parts: the template's around each session's pages, which come one at a time (the
    template is rendered with a marker where each session goes)."""
    composer = _HtmlComposer(archive, keys, root)
    sessions = [archive.sessions[key] for key in keys]
    main_sessions = [s for s in sessions if not s.is_subagent]
    started, ended = _span(sessions)
    projects = []
    for project in archive.projects:
        if any(s.project_dir == project.dir_name for s in sessions):
            projects.append(project.path)
    entries = {
        session.key: {
            "id": section_id(session.key),
            "title": session.title,
            "role": _role(archive, session),
            "started": session.started,
            "prompts": session.prompt_count,
            "children": [],
        }
        for session in sessions
    }
    contents = []  # a tree: each subagent under the session that started it
    for session in sessions:
        parent = entries.get(session.parent_key) if session.is_subagent else None
        (parent["children"] if parent else contents).append(entries[session.key])
    static = theme.static_files()
    style = _inline_safe(static["style.css"].read_text(encoding="utf-8") + "\n" + pygments_css())
    script = _inline_safe(static["app.js"].read_text(encoding="utf-8")) if "app.js" in static else ""
    # The site's own environment, with the filters its templates (and their macros) use.
    environment = PageBuilder(archive, theme, __version__, lambda key, anchor: 1).environment
    page = environment.get_template("bundle.html").render(
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
        sections=[{"id": section_id(key), "html": Markup(_SECTION_MARK.format(number))}
                  for number, key in enumerate(keys)],
        style=Markup(style),
        # A theme's extra stylesheet (`{{ stylesheet("extra.css") }}` in its layout.html), inline: one file.
        stylesheet=lambda name: Markup(f"<style>\n{_inline_safe(static[name].read_text(encoding='utf-8'))}\n</style>"),
        script=Markup(script),
        script_hash=_csp_hash(script),
    )
    for number, key in enumerate(keys):
        before, page = page.split(_SECTION_MARK.format(number), 1)
        yield before
        yield from composer.section(key)
    yield page


# Where a session goes in the rendered template: a comment, which no text in the template can make (its
# values are escaped, so hold no `<`).
_SECTION_MARK = "<!--sessionsite:section:{}-->"
# Characters of data URIs kept for files linked again; past it, the least recently used go.
CACHED_DATA_URIS = 4 * 1024 * 1024


def _depth(archive: Archive, session: Session) -> int:
    depth, seen = 0, {session.key}
    while session.parent_key in archive.sessions and session.parent_key not in seen:
        seen.add(session.parent_key)
        session = archive.sessions[session.parent_key]
        depth += 1
    return depth


def _inline_safe(text: str) -> str:
    """CSS or JavaScript for inside a `<style>` or `<script>` element, which `</` could end early; `<\\/`
    means the same in a JavaScript string and in CSS."""
    return re.sub(r"</", r"<\\/", text)


def _csp_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


# -- Markdown --------------------------------------------------------------------------------------------


def github_length(text: str) -> int:
    """Characters as GitHub's limit counts them, erring long: UTF-16 code units (what a browser's text
    box counts), and each line break twice, since a form sends it as CR LF."""
    return len(text.encode("utf-16-le")) // 2 + text.count("\n")


_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_MD_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^()\s]+)\)")
_HTML_LINK = re.compile(r'<a href="([^"]*)">(.*?)</a>')


def _session_blocks(root: Path, path: str, owner: Mapping[str, str]) -> Iterator[list["_Node"]]:
    """A session's Markdown as blocks, a run of turns at a time (links made local), so that no session is
    held whole; the runs split between turns, where the blocks of the whole would split too."""
    first = True
    for text in _turn_runs(root / path):
        if first:
            text = _FRONT_MATTER.sub("", text, count=1).lstrip("\n")
            if text.startswith("# "):
                text = text.split("\n", 1)[1] if "\n" in text else ""  # the bundle writes its own heading
            first = False
        yield parse_blocks(_local_links(text, path, owner, root))


# A fence's opening and closing lines (CommonMark: up to three spaces in; no backtick after backticks).
_FENCE_OPENING = re.compile(r" {0,3}(`{3,}(?=[^`]*$)|~{3,})")
_TURN_START = '<div class="msg user'


def _turn_runs(path: Path, size: int = 1 << 20) -> Iterator[str]:
    """The text of a session's Markdown in pieces of about `size` characters, each cut before a prompt
    that starts a line after a blank one outside any fence: a block of our own at the top level, which
    transcript text (escaped, or in fences) cannot make."""
    lines: list[str] = []
    length, fence, after_blank = 0, "", True
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if fence:
                closing = line.strip()
                if line[: len(line) - len(line.lstrip(" "))].count(" ") <= 3 and closing and set(closing) == {
                        fence[0]} and len(closing) >= len(fence):
                    fence = ""
            else:
                if length >= size and after_blank and line.startswith(_TURN_START):
                    yield "".join(lines)
                    lines, length = [], 0
                opening = _FENCE_OPENING.match(line.rstrip("\n"))
                if opening:
                    fence = opening.group(1)
            after_blank = not line.strip()
            lines.append(line)
            length += len(line)
    if lines:
        yield "".join(lines)


class _LevelDocument:
    """The bundle shrunk to one level, put together as the sessions' blocks go by; it stops (and holds
    nothing) as soon as it is past GitHub's limit."""

    def __init__(self, level: "Level", header: str):
        self.level = level
        self.parts = [header]
        self.length = github_length(header)
        self.fits = True

    def add(self, text: str) -> None:
        if not self.fits:
            return
        self.parts.append(text)
        self.length += github_length(text)
        trailing = len(text) - len(text.rstrip("\n"))  # the document's last line breaks are trimmed
        if text.strip("\n") and self.length - 2 * trailing > GITHUB_LIMIT:
            self.fits, self.parts = False, []

    def text(self) -> str | None:
        if not self.fits:
            return None
        document = "".join(self.parts).rstrip("\n") + "\n"
        return document if github_length(document) <= GITHUB_LIMIT else None


class _CutDocument:
    """The last resort, for a piece of work whose prompts alone pass the limit: whole top-level blocks are
    kept while they fit, then the rest is named as left out."""

    def __init__(self, head: str):
        self.head = head
        self.ending = "\n---\n\n*The rest is left out to fit; it is in the HTML bundle.*\n"
        self.budget = GITHUB_LIMIT - github_length(head) - github_length(self.ending) - 16
        self.parts: list[str] = []
        self.full = False

    def add(self, piece: str) -> None:
        cost = github_length(piece) + 2
        if self.full or cost > self.budget:
            self.full = True
            return
        self.parts.append(piece)
        self.budget -= cost

    def text(self) -> str:
        return self.head + "\n" + "\n\n".join(self.parts) + self.ending


def compose_markdown(archive: Archive, keys: Sequence[str], root: Path, output: Path) -> tuple[str, str]:
    """The Markdown bundle, shrunk until GitHub takes it; and what was shortened ("" when nothing). Each
    session is read once, a run of turns at a time, and shrunk to every level as it goes: what is held
    is one run's blocks and the documents that still fit, whatever the length of the sessions."""
    sessions = [archive.sessions[key] for key in keys]
    owner = {urls.session_markdown(key): key for key in keys}
    html_name = output.with_suffix(".html").name
    documents = [_LevelDocument(level, _markdown_header(archive, sessions, level.note, html_name))
                 for level in LEVELS]
    last = LEVELS[-1]
    cut = _CutDocument(_markdown_header(archive, sessions, last.note + "; the sessions' later parts are left out",
                                        html_name))
    for session in sessions:
        heading = _heading(archive, session)
        whole = [d for d in documents if not (session.is_subagent and not d.level.subagents)]
        opening_only = [d for d in documents if d not in whole]
        for document in documents:
            document.add("\n---\n\n" + heading + "\n")
        cut.add("---\n\n" + heading)
        first_prompt: _Node | None = None
        started: set[int] = set()
        for nodes in _session_blocks(root, urls.session_markdown(session.key), owner):
            if first_prompt is None:
                first_prompt = next((node for node in nodes if node.kind == "prompt"), None)
            for number, document in enumerate(whole):
                if document.fits:
                    text = render_blocks(_shrink(nodes, document.level))
                    if text:
                        document.add(("\n\n" if number in started else "") + text)
                        started.add(number)
            if not session.is_subagent and not cut.full:
                for node in _shrink(nodes, last):
                    cut.add(render_blocks([node]))
            if not any(d.fits for d in whole) and cut.full and (first_prompt is not None or not opening_only):
                break  # nothing more of this session can go in
        for document in opening_only:
            # A subagent's transcript at the levels that leave them out: its opening prompt only.
            kept = _shrink([first_prompt] if first_prompt else [], Level("", prompt_chars=document.level.prompt_chars or 600))
            kept.append(_Node("*The rest of this subagent's transcript is left out to fit.*"))
            document.add(render_blocks(kept))
    for level, document in zip(LEVELS, documents):
        text = document.text()
        if text is not None:
            return text, level.note
    return cut.text(), last.note


def _heading(archive: Archive, session: Session) -> str:
    role = _role(archive, session)
    when = time_of(session.started)
    label = f"{role.capitalize()}: " if role != "session" else ""
    meta = " · ".join(part for part in (when, f"{session.prompt_count} prompt{'s' if session.prompt_count != 1 else ''}"
                                        if session.prompt_count else "") if part)
    anchor = f'<a id="{section_id(session.key)}"></a>'
    level = "###" if session.is_subagent else "##"
    return f"{anchor}\n\n{level} {literal(label + session.title)}\n\n" + (f"*{literal(meta)}*\n" if meta else "")


def _code_lines(text: str) -> set[int]:
    lines: set[int] = set()
    for token in block_parser().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return lines


def _local_links(text: str, path: str, owner: Mapping[str, str], root: Path) -> str:
    """Links a pull request cannot follow (another session's .md, media, saved outputs) become anchors
    in this document when it holds their target, and text otherwise. Code is left as it is."""
    folder = posixpath.dirname(path)

    def target_of(href: str) -> tuple[bool, str | None]:
        """(whether the link leads to a file of the site, the anchor it becomes here)."""
        parts = urlsplit(html.unescape(href))
        if parts.scheme or parts.netloc or not parts.path:
            return False, None
        target = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
        if target in owner:
            return True, "#" + (parts.fragment or section_id(owner[target]))
        is_site_file = target.endswith(".md") and target.startswith("projects/") or (root / target).is_file()
        return is_site_file, None

    def markdown_link(found: re.Match) -> str:
        image, label, href = found.groups()
        internal, anchor = target_of(href)
        if not internal:
            return found.group(0)
        if anchor and not image:
            return f"[{label}]({anchor})"
        return f"*{label} (in the HTML bundle)*" if image or label.startswith("PDF") else label

    def html_link(found: re.Match) -> str:
        internal, anchor = target_of(found.group(1))
        if not internal:
            return found.group(0)
        return f'<a href="{html.escape(anchor)}">{found.group(2)}</a>' if anchor else found.group(2)

    code = _code_lines(text)
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if number not in code and ("](" in line or "<a href=" in line):
            lines[number] = _HTML_LINK.sub(html_link, _MD_LINK.sub(markdown_link, line))
    return "\n".join(lines)


# The Markdown as a tree of our own blocks: `<details>` and `<div>` we wrote enclose other blocks.


@dataclass
class _Node:
    text: str
    """A leaf's text, or a container's opening block."""
    kind: str = "leaf"
    """leaf, fence, note (one the bundle adds), or the container's kind: tool, thinking, details,
    assistant, prompt, plan, div."""
    children: list["_Node"] = field(default_factory=list)
    close: str = ""
    """A container's closing block."""
    depth: int = 1
    """How many of our elements its opening block opens (a tool call: its `div.tool-call` and `details`)."""

    @property
    def is_container(self) -> bool:
        return self.kind not in ("leaf", "fence", "note")


_STRUCTURE = re.compile(r"<(/?)(details|div)\b[^>]*>")


def _container_kind(opening: str) -> str:
    head = opening.split(">", 1)[0]
    for marker, kind in (('<div class="tool-call', "tool"), ('<details class="tool', "tool"),
                         ('<details class="thinking', "thinking"),
                         ("<details", "details"), ('<div class="msg assistant', "assistant"),
                         ('<div class="msg user', "prompt"), ('<div class="plan', "plan")):
        if head.startswith(marker):
            return kind
    return "div"


def parse_blocks(text: str) -> list[_Node]:
    """Top-level blocks, nested inside the containers our HTML blocks open and close. Transcript text
    cannot add to the structure: `prose` escapes its `<`, and code is in fences. Should the structure
    not add up anyway, the blocks stay flat (shrinking then works on leaves only)."""
    lines = text.split("\n")
    root: list[_Node] = []
    stack: list[_Node] = []
    flat: list[_Node] = []
    broken = False
    for token in block_parser().parse(text):
        if token.level != 0 or not token.map or token.nesting == -1:
            continue
        block = "\n".join(lines[token.map[0]:token.map[1]]).strip("\n")
        node = _Node(block, "fence" if token.type in ("fence", "code_block") else "leaf")
        flat.append(_Node(block, node.kind))
        if broken:
            continue
        siblings = stack[-1].children if stack else root
        if token.type != "html_block":
            siblings.append(node)
            continue
        tags = _STRUCTURE.findall(block)
        opens = sum(1 for closing, _ in tags if not closing)
        closes = len(tags) - opens
        if opens == closes:
            siblings.append(node)
        elif opens > 0 and closes == 0:
            container = _Node(block, _container_kind(block), depth=opens)
            siblings.append(container)
            stack.append(container)
        elif opens == 0:
            # One block may close several containers (`</details>` then `</div>`): the outermost keeps
            # it, the ones inside close with it.
            popped = []
            while closes > 0 and stack:
                popped.append(stack.pop())
                closes -= popped[-1].depth
            if closes != 0 or not popped:
                broken = True
                continue
            for inner in popped[:-1]:
                inner.close = ""
            popped[-1].close = block
        else:
            broken = True
    if broken or stack:
        return flat
    return root


def render_blocks(nodes: Sequence[_Node]) -> str:
    parts = []
    for node in nodes:
        if node.is_container:
            inner = [node.text, *([render_blocks(node.children)] if node.children else [])]
            if node.close:  # empty for a container closed by its parent's closing block
                inner.append(node.close)
            parts.append("\n\n".join(inner))
        else:
            parts.append(node.text)
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Level:
    """One step of shrinking; each goes further than the one before."""

    note: str
    """What the reader is told at the top ("" for none)."""
    fence_lines: int = 0
    """Lines kept of each code block inside a fold (0: all)."""
    fence_chars: int = 0
    tools: str = "full"
    """Tool calls: "full", "list" (one line each, without input or output) or "count" (how many)."""
    reply_chars: int = 0
    """Characters kept of each of Claude's replies, tool calls aside (0: all)."""
    replies: bool = True
    """Keep Claude's replies at all (plans always stay)."""
    subagents: bool = True
    """Keep subagent transcripts beyond their opening prompt."""
    prompt_chars: int = 0
    """Characters kept of each prompt (0: all)."""


_OUTPUTS = "tool outputs shortened"
_SHORT_REPLIES = "tool calls left out (counted) and Claude's replies shortened"
_PROMPTS = "only the prompts and plans kept: Claude's replies, tool calls and subagent transcripts are left out"
LEVELS = (
    Level(""),
    Level(_OUTPUTS, fence_lines=60, fence_chars=4000),
    Level(_OUTPUTS, fence_lines=20, fence_chars=1500),
    Level(_OUTPUTS, fence_lines=8, fence_chars=600),
    Level("tool calls listed one line each, without their input and output", tools="list"),
    Level("tool calls left out (counted)", tools="count"),
    Level(_SHORT_REPLIES, tools="count", reply_chars=1500),
    Level(_SHORT_REPLIES, tools="count", reply_chars=400, subagents=False),
    Level(_PROMPTS, tools="count", replies=False, subagents=False),
    Level(_PROMPTS + "; long prompts shortened", tools="count", replies=False, subagents=False, prompt_chars=1000),
    Level(_PROMPTS + "; long prompts shortened", tools="count", replies=False, subagents=False, prompt_chars=300),
)


def _shorten_fence(block: str, keep_lines: int, keep_chars: int) -> str:
    lines = block.split("\n")
    if len(lines) < 3:
        return block
    opening, body, closing = lines[0], lines[1:-1], lines[-1]
    fence_marker = opening.lstrip()[:3]
    if not closing.strip().startswith(fence_marker):  # a fence the document leaves open
        body, closing = lines[1:], ""
    kept, size = [], 0
    for line in body[:keep_lines]:
        if size + len(line) > keep_chars:
            kept.append(line[: max(0, keep_chars - size)])
            break
        kept.append(line)
        size += len(line) + 1
    if kept == body:
        return block
    left = len(body) - len(kept)
    kept.append(f"[… {left:,} more line{'s' if left != 1 else ''} in the full transcript]")
    return "\n".join([opening, *kept, *([closing] if closing else [])])


def _cut(text: str, limit: int) -> str:
    """Prose cut at a word boundary; a cut block of code stays a closed block of code."""
    if len(text) <= limit:
        return text
    if text.lstrip().startswith(("```", "~~~")):
        return _shorten_fence(text, 10**9, limit)
    cut = text[:limit]
    cut = cut[: cut.rfind(" ")] if " " in cut[limit // 2:] else cut
    return cut.rstrip() + " … *(shortened)*"


_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.S)
_PERMALINK = re.compile(r'<a class="permalink"[^>]*>#</a>')
_SPAN = re.compile(r"</?span[^>]*>")


def _tool_line(tool: _Node) -> str:
    """A tool call's summary (name, target, status) as one list item: our own escaped HTML, less the
    permalink and the spans that style it."""
    found = _SUMMARY.search(tool.text)
    summary = _SPAN.sub("", _PERMALINK.sub("", found.group(1))).strip() if found else "Tool call"
    return "- " + " ".join(summary.split())


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'s' if count != 1 else ''}"


def _shrink(nodes: Sequence[_Node], level: Level, inside: str = "") -> list[_Node]:
    result: list[_Node] = []
    tools: list[_Node] = []  # a run of tool calls, shown together when they are not shown whole

    def end_tools() -> None:
        if not tools:
            return
        if level.tools == "list":
            items = "\n".join(_tool_line(tool) for tool in tools)
            result.append(_Node(f"<details>\n<summary>{_plural(len(tools), 'tool call')}</summary>\n\n{items}\n\n"
                                "</details>", "note"))
        elif level.replies:
            result.append(_Node(f"*{_plural(len(tools), 'tool call')} left out to fit.*", "note"))
        tools.clear()

    for node in nodes:
        if node.kind == "tool" and level.tools != "full":
            tools.append(node)
            continue
        if node.kind == "thinking" and level.tools != "full":
            continue
        end_tools()
        if not node.is_container:
            if node.kind == "fence" and inside and level.fence_lines:
                result.append(_Node(_shorten_fence(node.text, level.fence_lines, level.fence_chars), node.kind))
            elif inside in ("tool", "details", "thinking") and level.fence_chars and len(node.text) > level.fence_chars:
                result.append(_Node(_cut(node.text, level.fence_chars), node.kind))
            elif inside == "prompt" and level.prompt_chars and not node.text.startswith('<p class="meta"'):
                result.append(_Node(_cut(node.text, level.prompt_chars), node.kind))
            else:
                result.append(node)
            continue
        if node.kind == "assistant" and (not level.replies or level.reply_chars):
            reply = _reply(node.children, level)
            if reply is not None:
                result.append(_Node(node.text, node.kind, reply, node.close))
            continue
        result.append(_Node(node.text, node.kind, _shrink(node.children, level, node.kind if node.kind != "div"
                                                          else inside), node.close))
    end_tools()
    return result


def _reply(children: Sequence[_Node], level: Level) -> list[_Node] | None:
    """Claude's reply: its meta line and plans stay; its text is cut to `reply_chars`, or left out (and
    with it the whole reply, when it holds no plan)."""
    kept: list[_Node] = []
    budget = level.reply_chars if level.replies else 0
    cut = False
    for child in _shrink(children, level, "assistant"):
        if child.text.startswith('<p class="meta"') or child.kind == "plan":
            kept.append(child)
        elif not level.replies:
            continue
        elif child.is_container or child.kind == "note":
            kept.append(child)  # folds and the notes about left-out tool calls
        elif budget > 0:
            text = _cut(child.text, budget)
            budget -= len(text)
            kept.append(_Node(text, child.kind))
            cut = cut or text != child.text
        else:
            cut = True
    if not level.replies:
        return kept if any(child.kind == "plan" for child in kept) else None
    if cut:
        kept.append(_Node("*Reply shortened to fit.*"))
    return kept


def _markdown_header(archive: Archive, sessions: Sequence[Session], note: str, html_name: str) -> str:
    main_sessions = [s for s in sessions if not s.is_subagent]
    title = (main_sessions or list(sessions))[0].title
    started, ended = _span(sessions)
    projects = [p.path for p in archive.projects if any(s.project_dir == p.dir_name for s in sessions)]
    lines = [f"# {literal('Claude Code session' + ('s' if len(main_sessions) > 1 else '') + ': ' + title)}", ""]
    if note:
        lines += [f"> **Shortened to fit GitHub's 65,536-character limit:** {literal(note)}. The full transcript "
                  f"is in the HTML bundle made from the same sessions, `{html_name}` "
                  f"(`sessionsite bundle <session>.jsonl -o {html_name}`).", ""]
    facts = [f"Project {', '.join('`' + p.replace('`', '') + '`' for p in projects)}"]
    if started:
        facts.append(f"{time_of(started)} to {time_of(ended)} UTC" if ended and ended != started else time_of(started))
    subagents = len(sessions) - len(main_sessions)
    facts.append(f"{len(main_sessions)} session{'s' if len(main_sessions) != 1 else ''}"
                 + (f" and {subagents} subagent transcript{'s' if subagents != 1 else ''}" if subagents else ""))
    lines += [" · ".join(facts) + f". Made with {GENERATOR} {__version__}.", ""]
    if len(sessions) > 1:
        lines.append("**Contents**")
        lines.append("")
        for session in sessions:
            indent = "  " * _depth(archive, session)
            role = _role(archive, session)
            label = literal((f"{role.capitalize()}: " if role != "session" else "") + session.title)
            lines.append(f"{indent}- [{label}](#{section_id(session.key)}) {literal(time_of(session.started))}")
        lines.append("")
    return "\n".join(lines)


__all__ = ["BundleConfig", "BundleReport", "GITHUB_LIMIT", "bundle", "github_length", "select_sessions"]

