"""Bundles for pull requests: one piece of work as a single file, HTML (or a zip of it) or Markdown.

Where it sits: after the pipeline's phases, as one more writer over the markdown stage's typed blocks.
`bundle()` runs phase 1 (`pipeline.phase1.collect`) over the project folders of the sessions it is given, to see
what `link` sees (chains, continuations, subagents), and picks the sessions that belong with them
(`select_sessions`). With no session given, it takes those of the current git branch in the repository it
runs in (`branch_sessions`). Phase 2 (`pipeline.phase2.render_parts`) then streams just those sessions' blocks, a
page at a time, to the writer of the format asked for:

- HTML (`bundle.html`): the site's HTML writer and session template, every link made local, the theme's
  CSS and script and every image, PDF and saved output inline. `.zip`: that page, alone in a zip.
- Markdown (`bundle.markdown`): written for a reviewer, inside GitHub's limit for a comment.

Nothing reads back what a writer wrote to find its structure: the blocks have it. Like the build, a bundle
runs as one `job.Job`: where it may write, one writer at a time, the vault save, --strict, and a work folder
beside the file, so that a kill or a full disk leaves the previous file whole.
"""

from __future__ import annotations

import logging
import subprocess
import zipfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterable, Sequence

from ..core.errors import InputError, UsageProblem
from ..core.files import write_atomically
from ..core.paths import encoded_project_folder, is_inside
from ..core.model import Archive, Diagnostic
from ..stages.agents import codex_session_folders
from ..stages.discover import SessionFile, default_input
from ..stages.redact import OwnRules, Redactor
from ..stages.selection import Ties, belonging_with
from ..render.markdown import MarkdownOptions
from ..render.theme import Theme
from ..config import ReadOptions
from ..job import Job, report_problems
from .html import HtmlSections, bundle_script_hash, compose_html, page_builder, section_id
from .markdown import GITHUB_LIMIT, ReviewNotes, compose_markdown, github_length

if TYPE_CHECKING:
    from ..output.encrypt import SiteKey
    from ..output.write import Staging
    from ..pipeline.plans import PlannedFile
    from ..pipeline.phase2 import PartWriter

log = logging.getLogger("sessionsite")

FORMATS = {".html": "html", ".htm": "html", ".zip": "zip", ".md": "markdown", ".markdown": "markdown"}
ATTACHMENT_LIMIT = 25 * 1000 * 1000
"""Bytes GitHub takes in a file attached to a pull request comment (25 MB)."""
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""The time stamped on the file inside a zip: the earliest a zip holds, so that the zip is the same bytes
from the same sessions."""


@dataclass(frozen=True)
class BundleConfig(ReadOptions):
    """What to bundle and how: the options every command that reads logs takes (`ReadOptions`: the
    inputs are session files, none for the current branch's sessions; the output is the file to write,
    .html, .zip or .md), and the bundle's own."""

    branch: str = ""
    """With no inputs: the branch whose sessions to bundle ("": the repository's current branch)."""
    repository: Path | None = None
    """With no inputs: a folder of the git repository whose sessions to bundle (None: the current folder)."""
    projects: Path | None = None
    """With no inputs: where Claude Code keeps its project folders (None: ~/.claude/projects)."""
    commits: str = ""
    """A range of commits (`main..HEAD`): bundle the sessions that made them instead of `inputs`' sessions;
    `inputs` are then the project folders to look in (default: the repository's, `commit_range`)."""


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
    pending = []
    for key in given:
        while sessions[key].is_subagent and sessions[key].parent_key in sessions:
            key = sessions[key].parent_key
        pending.append(key)
    wanted = belonging_with(archive, pending, Ties.SUBAGENTS | Ties.CONTINUED | Ties.WORK)

    ordered: list[str] = []

    def add_with_subagents(key: str) -> None:
        if key in ordered:
            return
        ordered.append(key)
        children = [sessions[k] for k in sessions[key].subagent_keys if k in sessions]
        for child in sorted(children, key=lambda s: (s.started, s.key)):
            add_with_subagents(child.key)

    started_here = [key for key in wanted if not (sessions[key].is_subagent and sessions[key].parent_key in wanted)]
    for key in sorted(started_here, key=lambda k: (sessions[k].started, k)):
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
    return encoded_project_folder(path)


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
    # Codex CLI keeps its sessions by day: its folders are read, and the branch and folder choose.
    return BranchWork(top, branch, folders + tuple(codex_session_folders()))


def in_repository(cwd: str, top: str) -> bool:
    return is_inside(cwd, top)


def branch_sessions(archive: Archive, work: BranchWork) -> list[str]:
    """Main sessions run in the repository (its top level or a folder inside it) on the branch."""
    return [key for key, session in sorted(archive.sessions.items())
            if not session.is_subagent and session.git_branch == work.branch and in_repository(session.cwd, work.repository)]


# -- the bundle ------------------------------------------------------------------------------------------


def bundle(config: BundleConfig, review: Callable[[BundleConfig, list[SessionFile]], OwnRules] | None = None
           ) -> BundleReport:
    """Write one file for the pieces of work the inputs belong to (or the current branch's). `review`: run on
    the files bundled before anything is written; it gives the own rules to bundle with."""
    from ..pipeline.phase2 import render_parts  # the pipeline, loaded when there is work
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
    with Job(config.output, folders, config.vault, config.strict) as job:
        saved = None
        problems: list[Diagnostic] = []
        if job.vault is not None:
            from ..stages.discover import find

            saved, not_saved = job.save(find(folders))
            if not_saved is not None:  # a vault that cannot be used is a problem: the bundle reads the live logs
                problems.append(Diagnostic(str(job.vault.database), 0, f"{not_saved}; nothing saved to the vault"))
        report_problems(problems)
        job.check(problems)
        archive, plans, selected, files = _chosen(config, folders, inputs, hashes, work)
        if review is not None:
            own = review(config, files)
            if own != config.own_redaction:  # a value decided "redact" now: the summaries are made again without it
                config = replace(config, own_redaction=own)
                archive, plans, selected, files = _chosen(config, folders, inputs, hashes, work)
        sources = {archive.sessions[key].source for key in selected}
        log.info("bundling %d session(s) from %d file(s)", len(selected), len(files))
        # The problems of the files bundled: the others of their project folders were read only to link.
        found = [d for plan in plans if str(plan.source.path) in sources and plan.result
                 for d in plan.result.diagnostics]
        report_problems(found)
        problems += found
        job.check(problems)

        theme = Theme.load(config.theme)
        with job.work_folder() as folder, job.staging(folder / "site", keep=False) as staging:
            spool = folder / "spool"
            spool.mkdir()
            options = MarkdownOptions(show_hidden=config.show_hidden, repo_url=config.repo_url)
            redaction = Redaction(config.redact, config.redact_paths, config.own_redaction)

            def render(writer: PartWriter) -> Counter[str]:
                """Phase 2 over the files bundled, each session's parts to `writer`; the redactions made."""
                return render_parts(archive, files, staging, options, redaction, writer, config.jobs, theme)

            if kind == "markdown":
                written = _write_review_notes(config.output, archive, selected, spool, render,
                                              work.branch if work else "")
            else:
                written = _write_html(config.output, kind, archive, selected, staging, spool, render, theme,
                                      config.key)
    present = written.present
    return BundleReport(sessions=present, subagent_runs=sum(archive.sessions[key].is_subagent for key in present),
                        size=written.size, shortened=written.shortened, diagnostics=len(problems),
                        redactions=dict(written.redactions),
                        saved=saved, too_large=_too_large(config.output, kind, written.size),
                        branch=work.branch if work else "")


def _chosen(config: BundleConfig, folders: Sequence[Path], inputs: Sequence[Path], hashes: list[str],
            work: BranchWork | None) -> tuple[Archive, list[PlannedFile], list[str], list[SessionFile]]:
    """Phase 1 over the project folders: the archive, the files planned, the sessions bundled and their files."""
    from ..pipeline.phase1 import collect

    redactor = Redactor(secrets=config.redact, home=config.redact_paths, own=config.own_redaction)
    archive, _, plans = collect(folders, redactor=redactor, jobs=config.jobs, selection=config.selection)
    given = _given_sessions(config, archive, folders, inputs, hashes, work)
    selected = select_sessions(archive, given)
    sources = {archive.sessions[key].source for key in selected}
    return archive, plans, selected, [plan.source for plan in plans if str(plan.source.path) in sources]


# -- the writers: each takes the parts of the sessions bundled, and writes the file --------------------------


@dataclass
class _Written:
    present: list[str]
    """The sessions in the file, in its order (a session with nothing to show is left out)."""
    size: int
    redactions: Counter[str]
    shortened: str = ""


def _write_review_notes(output: Path, archive: Archive, selected: list[str], spool: Path,
                        render: Callable[[PartWriter], Counter[str]], branch: str) -> _Written:
    """The Markdown for a reviewer, shortened to fit a comment; its size is in characters as GitHub counts."""
    notes = ReviewNotes(selected, spool)
    redactions = render(notes)
    present = [key for key in selected if notes.spool_of(key).is_file() or archive.sessions[key].is_subagent]
    text, shortened = compose_markdown(archive, present, notes, output.with_suffix(".zip").name, branch)
    _write_file(output, [text])
    return _Written(present, github_length(text), redactions, shortened)


def _write_html(output: Path, kind: str, archive: Archive, selected: list[str], staging: Staging, spool: Path,
                render: Callable[[PartWriter], Counter[str]], theme: Theme, key: SiteKey | None = None) -> _Written:
    """The self-contained page (`kind` "html"), or a zip holding it alone ("zip"); its size in bytes."""
    sections = HtmlSections(archive, selected, staging.root, spool)
    redactions = render(sections)
    sections.keys = [key for key in selected if sections.spool_of(key).is_file()]
    # Written as it is composed, a session at a time: a bundle is as large as its sessions.
    parts: Iterable[str] = compose_html(sections, page_builder(archive, theme), theme)
    if key is not None:  # sealed whole: a bundle is at most an attachment's size
        from ..output.sealed_site import seal_bundle

        page = "".join(parts).encode("utf-8")
        parts = [seal_bundle(page, key, theme, bundle_script_hash(theme)).decode("utf-8")]
    if kind == "zip":
        size = _write_zip(output, output.with_suffix(".html").name, parts)
    else:
        size = _write_file(output, parts)
    return _Written(sections.keys, size, redactions)


def _given_sessions(config: BundleConfig, archive: Archive, folders: Sequence[Path], inputs: Sequence[Path],
                    hashes: Sequence[str], work: BranchWork | None) -> list[str]:
    """The sessions the user asked for: those that made the commits, the branch's, or the files'."""
    if config.commits:
        from ..commit_range import sessions_that_made

        given = sessions_that_made(archive.sessions, list(hashes))
        if not given:
            raise InputError(f"no session in {', '.join(map(str, folders))} made a commit of {config.commits}")
        return given
    if work is not None:
        given = branch_sessions(archive, work)
        if not given:
            raise InputError(f"no session of {work.repository} on branch {work.branch!r} (looked in "
                             f"{', '.join(str(f) for f in folders)}); name another with --branch")
        return given
    given = []
    for path in inputs:
        keys = [key for key, s in archive.sessions.items() if Path(s.source).resolve() == path]
        if not keys:
            raise InputError(f"{path}: no conversation in this file (only metadata, or no readable line)")
        given.extend(keys)
    return given


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
