"""Bundles for pull requests: one piece of work as a single file, HTML (or a zip of it) or Markdown.

Where it sits: after the pipeline's phases, as one more writer over the markdown stage's typed blocks.
`bundle()` runs phase 1 (`phases.collect`) over the project folders of the sessions it is given, to see
what `link` sees (chains, continuations, subagents), and picks the sessions that belong with them
(`select_sessions`). With no session given, it takes those of the current git branch in the repository it
runs in (`branch_sessions`). Phase 2 (`phases.render_parts`) then streams just those sessions' blocks, a
page at a time, to the writer of the format asked for:

- HTML (`bundle.html`): the site's HTML writer and session template, every link made local, the theme's
  CSS and script and every image, PDF and saved output inline. `.zip`: that page, alone in a zip.
- Markdown (`bundle.markdown`): written for a reviewer, inside GitHub's limit for a comment.

Nothing reads back what a writer wrote to find its structure: the blocks have it.
"""

from __future__ import annotations

import logging
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Sequence

from ..core.errors import InputError, StrictModeError, UsageProblem
from ..core.files import write_atomically
from ..core.model import Archive
from ..stages.discover import default_input
from ..stages.redact import OwnRules, Redactor
from ..stages.selection import Selection
from ..render.markdown import MarkdownOptions
from ..render.theme import Theme
from ..output.locks import BUNDLE_PREFIX, MARKER, OutputLock, claim, release, remove_abandoned
from ..output.write import MARKER_TEXT, Staging, check_output_location, check_vault_location
from ..workers import stop_workers
from .html import HtmlSections, compose_html, page_builder, section_id
from .markdown import GITHUB_LIMIT, ReviewNotes, compose_markdown, github_length

log = logging.getLogger("sessionsite")

FORMATS = {".html": "html", ".htm": "html", ".zip": "zip", ".md": "markdown", ".markdown": "markdown"}
ATTACHMENT_LIMIT = 25 * 1000 * 1000
"""Bytes GitHub takes in a file attached to a pull request comment (25 MB)."""
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""The time stamped on the file inside a zip: the earliest a zip holds, so that the zip is the same bytes
from the same sessions."""


@dataclass(frozen=True)
class BundleConfig:
    """What to bundle and how; the redaction and visibility options are the build's."""

    inputs: tuple[Path, ...]
    """Session files (.jsonl): each brings its whole piece of work. None: the current branch's sessions."""
    output: Path
    """The file to write: .html, .zip or .md."""
    show_hidden: bool = False
    strict: bool = False
    redact: bool = True
    redact_paths: bool = False
    jobs: int = 1
    vault: Path | None = None
    """The vault the logs read are saved into (None: none)."""
    branch: str = ""
    """With no inputs: the branch whose sessions to bundle ("": the repository's current branch)."""
    repository: Path | None = None
    """With no inputs: a folder of the git repository whose sessions to bundle (None: the current folder)."""
    projects: Path | None = None
    """With no inputs: where Claude Code keeps its project folders (None: ~/.claude/projects)."""
    commits: str = ""
    """A range of commits (`main..HEAD`): bundle the sessions that made them instead of `inputs`' sessions;
    `inputs` are then the project folders to look in (default: the repository's, `commit_range`)."""
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
    """Keys of the sessions included, in the order they appear (subagent runs among them)."""
    subagent_runs: int = 0
    """How many of `sessions` are subagent runs."""
    size: int = 0
    """Bytes written (HTML, zip) or characters as GitHub counts them (Markdown)."""
    shortened: str = ""
    """For Markdown, what was left out to fit (empty when nothing was)."""
    diagnostics: int = 0
    saved: Any = None
    """What the vault's save did (a `vault.SaveReport`)."""
    too_large: str = ""
    """Why GitHub would refuse the file as an attachment, and what to do ("" when it takes it)."""
    branch: str = ""
    """The branch whose sessions were bundled (with no inputs)."""
    redactions: dict[str, int] = field(default_factory=dict)
    """Redactions made in the sessions bundled, by kind."""


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


# -- the current branch's sessions ----------------------------------------------------------------------


def _git(folder: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise UsageProblem("git is not installed: give the session file(s) to bundle") from None
    return done.stdout.strip() if done.returncode == 0 else ""


def encoded_project(path: str) -> str:
    """A project folder's name as Claude Code makes it from the path: every other character than a
    letter, a digit or `-` becomes `-` (so the name is lossy: the sessions' own cwd says which it is)."""
    return "".join(c if c.isascii() and (c.isalnum() or c == "-") else "-" for c in path)


@dataclass(frozen=True)
class BranchWork:
    repository: str
    """The repository's top level."""
    branch: str
    folders: tuple[Path, ...]
    """The project folders of sessions run in the repository (or a folder inside it)."""


def branch_work(repository: Path | None, branch: str, projects: Path | None) -> BranchWork:
    """Where to look for the sessions of a branch of the git repository around `repository`."""
    folder = (repository or Path.cwd()).resolve()
    top = _git(folder, "rev-parse", "--show-toplevel")
    if not top:
        raise UsageProblem(f"{folder}: not inside a git repository; run `sessionsite bundle -o FILE` in your "
                           "project's repository, or give the session file(s) to bundle")
    if not branch:
        branch = _git(folder, "symbolic-ref", "--quiet", "--short", "HEAD")
        if not branch:
            raise UsageProblem(f"{top}: no branch is checked out (a detached HEAD); name one with --branch")
    projects = projects or default_input()
    prefix = encoded_project(top)
    folders = tuple(sorted(p for p in (projects.iterdir() if projects.is_dir() else ())
                           if p.is_dir() and (p.name == prefix or p.name.startswith(prefix + "-"))))
    return BranchWork(top, branch, folders)


def in_repository(cwd: str, top: str) -> bool:
    return cwd == top or cwd.startswith(top.rstrip("/") + "/")


def branch_sessions(archive: Archive, work: BranchWork) -> list[str]:
    """Main sessions run in the repository (its top level or a folder inside it) on the branch."""
    return [key for key, session in sorted(archive.sessions.items())
            if not session.is_subagent and session.git_branch == work.branch and in_repository(session.cwd, work.repository)]


# -- the bundle ------------------------------------------------------------------------------------------


def bundle(config: BundleConfig) -> BundleReport:
    """Write one file for the pieces of work the inputs belong to (or the current branch's)."""
    from ..pipeline.phase1 import collect  # the pipeline, loaded when there is work
    from ..pipeline.phase2 import render_parts
    from ..pipeline.plans import Redaction

    kind = FORMATS.get(config.output.suffix.lower())
    if kind is None:
        raise UsageProblem(f"{config.output}: the bundle is written as .html, .zip or .md; name the file so")
    if config.output.is_dir():
        raise UsageProblem(f"{config.output}: is a folder; -o names the file to write")
    work = None
    hashes: list[str] = []
    if config.commits:
        from ..commit_range import commits_in_range, project_folders, repository_root

        repository = config.repository or Path.cwd()
        hashes = commits_in_range(config.commits, repository)
        inputs: list[Path] = []
        folders = sorted(config.inputs) or project_folders(repository_root(repository), config.projects or default_input())
    elif config.inputs:
        inputs = [_check_input(path) for path in config.inputs]
        if config.branch:
            raise UsageProblem("--branch picks the sessions of a branch: give it without session files")
        folders = sorted({project_folder_of(path) for path in inputs})
    else:
        inputs = []
        work = branch_work(config.repository, config.branch, config.projects)
        folders = list(work.folders)
        if not folders:
            raise InputError(f"no session of {work.repository} in {config.projects or default_input()} "
                             "(Claude Code keeps a project's sessions in a folder named after its path)")
    # What a bundle reads is the project folders of its sessions: the rule every command that writes follows.
    check_output_location(config.output, tuple(folders))
    saved = None
    if config.vault is not None:
        from ..stages.discover import find
        from ..output.vault import Vault, VaultError

        check_vault_location(config.output, config.vault)
        vault = Vault(config.vault)
        try:
            saved = vault.save(find(folders))
        except VaultError as error:  # a vault that cannot be used is one warning: the bundle reads the live logs
            log.warning("%s:0: %s; nothing saved to the vault", vault.database, error)
    redactor = Redactor(secrets=config.redact, home=config.redact_paths, own=config.own_redaction)
    archive, _, plans = collect(folders, redactor=redactor, jobs=config.jobs, selection=config.selection)

    if config.commits:
        from ..commit_range import sessions_that_made

        given = sessions_that_made(archive.sessions, hashes)
        if not given:
            raise InputError(f"no session in {', '.join(map(str, folders))} made a commit of {config.commits}")
    elif work is not None:
        given = branch_sessions(archive, work)
        if not given:
            raise InputError(f"no session of {work.repository} on branch {work.branch!r} (looked in "
                             f"{', '.join(str(f) for f in folders)}); name another with --branch")
    else:
        given = []
        for path in inputs:
            keys = [key for key, s in archive.sessions.items() if Path(s.source).resolve() == path]
            if not keys:
                raise InputError(f"{path}: no conversation in this file (only metadata, or no readable line)")
            given.extend(keys)
    selected = select_sessions(archive, given)
    sources = {archive.sessions[key].source for key in selected}
    files = [plan.source for plan in plans if str(plan.source.path) in sources]
    log.info("bundling %d session(s) from %d file(s)", len(selected), len(files))
    # The problems of the files bundled: the others of their project folders were read only to link.
    problems = [d for plan in plans if str(plan.source.path) in sources and plan.result for d in plan.result.diagnostics]
    for diagnostic in problems:
        log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
    if config.strict and problems:
        raise StrictModeError(f"{len(problems)} problem(s) in the input (--strict)")

    theme = Theme.load(config.theme)
    with OutputLock(config.output), tempfile.TemporaryDirectory(prefix=BUNDLE_PREFIX) as temporary:
        remove_abandoned(config.output)
        claim(Path(temporary))
        (Path(temporary) / MARKER).write_bytes(MARKER_TEXT)
        spool = Path(temporary) / "spool"
        spool.mkdir()
        staging = Staging(Path(temporary) / "site")
        try:
            options = MarkdownOptions(show_hidden=config.show_hidden, repo_url=config.repo_url)
            redaction = Redaction(config.redact, config.redact_paths, config.own_redaction)
            writer: HtmlSections | ReviewNotes
            if kind == "markdown":
                writer = ReviewNotes(selected, spool)
            else:
                writer = HtmlSections(archive, selected, staging.root, spool)
            redactions = render_parts(archive, files, staging, options, redaction, writer, config.jobs, theme)
            present = [key for key in selected if writer.spool_of(key).is_file() or archive.sessions[key].is_subagent
                       and kind == "markdown"]
            shortened = ""
            if kind == "markdown":
                html_name = config.output.with_suffix(".zip").name
                text, shortened = compose_markdown(archive, present, writer, html_name,  # type: ignore[arg-type]
                                                   work.branch if work else "")
                _write_file(config.output, [text])
                size = github_length(text)
            else:
                assert isinstance(writer, HtmlSections)
                writer.keys = present
                # Written as it is composed, a session at a time: a bundle is as large as its sessions.
                parts = compose_html(writer, page_builder(archive, theme), theme)
                if kind == "zip":
                    size = _write_zip(config.output, config.output.with_suffix(".html").name, parts)
                else:
                    size = _write_file(config.output, parts)
        finally:
            stop_workers()  # before their staging folder goes
            staging.discard()
            release(Path(temporary))
    return BundleReport(sessions=present, subagent_runs=sum(archive.sessions[key].is_subagent for key in present),
                        size=size, shortened=shortened, diagnostics=len(problems),
                        redactions=dict(redactions),
                        saved=saved, too_large=_too_large(config.output, kind, size),
                        branch=work.branch if work else "")


def _too_large(output: Path, kind: str, size: int) -> str:
    if kind == "markdown" or size <= ATTACHMENT_LIMIT:
        return ""
    megabytes = f"{size / 1e6:,.1f} MB"
    if kind == "zip":
        return (f"{output} is {megabytes}, over GitHub's 25 MB limit for an attachment; bundle fewer sessions "
                "(one session file at a time), or share it another way")
    return (f"{output} is {megabytes}, over GitHub's 25 MB limit for an attachment; "
            f"write a zip instead (-o {output.with_suffix('.zip').name}), which compresses it")


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
    def fill(handle: BinaryIO) -> int:
        size = 0
        for part in parts:
            size += handle.write(part.encode("utf-8"))
        return size

    return write_atomically(path.resolve(), fill, sync=False)


def _write_zip(path: Path, name: str, parts: Iterable[str]) -> int:
    """A zip holding one file, `name`, written as the parts come (deflated as it goes, never held whole)
    and renamed into place. The same parts make the same bytes. Returns the zip's size."""
    path = path.resolve()

    def fill(handle: BinaryIO) -> None:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with archive.open(info, "w", force_zip64=True) as member:
                for part in parts:
                    member.write(part.encode("utf-8"))

    write_atomically(path, fill, sync=False)
    return path.stat().st_size


__all__ = ["ATTACHMENT_LIMIT", "BundleConfig", "BundleReport", "GITHUB_LIMIT", "branch_sessions", "bundle",
           "github_length", "section_id", "select_sessions"]
