"""The Python API: `build(config) -> BuildReport` runs the pipeline.

A build first asks the manifest the last build left in the output whether anything changed (inputs,
settings, theme, the generator's code, the site's files); if nothing did, the site is left as it is,
and nothing but that check is loaded. Otherwise `phases` reads and renders what changed.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from . import __version__
from .discover import SessionFile, arrange, find, path_in_project
from .errors import InputError, StrictModeError
from .html.theme import Theme
from .manifest import MANIFEST, HashCache, Manifest, decode, load, path_key, settings_digest, site_digest, unchanged
from .model import Diagnostic
from .redact import OwnRules, redact_project_dir
from .selection import Selection
from .locks import OutputLock, claim, release, remove_abandoned
from .workers import stop_workers
from .write import (MARKER, MARKER_TEXT, Staging, check_output_location, check_vault_location, check_zip_target,
                    is_sessionsite_output, write_zip)

log = logging.getLogger("sessionsite")
Progress = Callable[[Iterable[Any], int, str], Iterator[Any]]
"""Shows work going by: given the results as they come, how many there will be, and a label."""


@dataclass(frozen=True)
class BuildConfig:
    """What to build and how."""

    inputs: tuple[Path, ...]
    """Session files, project folders or folders of project folders."""
    output: Path
    """Folder to write (replaced whole, atomically)."""
    theme: Path | None = None
    """A theme folder overriding parts of the default theme."""
    show_hidden: bool = False
    """Show system noise for auditing."""
    markdown_only: bool = False
    """Write only the Markdown intermediates (and the files they link to)."""
    strict: bool = False
    """Fail when there are diagnostics."""
    redact: bool = True
    """Replace secrets (keys, tokens, passwords) with visible markers."""
    redact_paths: bool = False
    """Replace home directories with ~."""
    jobs: int = 1
    """Worker processes; 1 does everything in this process."""
    base_url: str = ""
    """Where the site will be published (ending in /): pages get canonical links, and a sitemap is written."""
    vault: Path | None = None
    """The vault every log read is saved into, and the logs that are gone are read from (None: none)."""
    prune: bool = False
    """Leave out the sessions whose log is gone (the vault still keeps them)."""
    title: str = ""
    """The site's title (empty: the default one)."""
    selection: Selection = Selection()
    """Which sessions to publish (with their chains and subagents); empty, all."""
    own_redaction: OwnRules = OwnRules()
    """The user's own patterns and words to redact, on top of the built-in rules."""


@dataclass
class BuildReport:
    """What a build did: the JSON written by --report."""

    sessions: int = 0
    """Sessions as the index and the project pages count them (`Session.is_listed`)."""
    subagent_runs: int = 0
    """The subagent runs those sessions started, each with a page of its own."""
    pages: int = 0
    events: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)
    search_index_bytes: int = 0
    """The search index's files, against `site_bytes`, the whole site's."""
    site_bytes: int = 0
    kept: list[str] = field(default_factory=list)
    """Logs read from the vault because they are gone from where they were (`<project>/<path in it>`)."""
    pruned: list[str] = field(default_factory=list)
    """Logs that are gone and were left out (--prune)."""
    saved: Any = None
    """What the vault's save did (a `vault.SaveReport`); not in the JSON, which does not depend on it."""

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "sessions": self.sessions,
            "subagent_runs": self.subagent_runs,
            "pages": self.pages,
            "events": dict(sorted(self.events.items())),
            "unknown": dict(sorted(self.unknown.items())),
            "redactions": dict(sorted(self.redactions.items())),
            "search_index_bytes": self.search_index_bytes,
            "site_bytes": self.site_bytes,
            "kept": self.kept,
            "pruned": self.pruned,
            "diagnostics": [
                {"file": d.file, "line": d.line, "message": d.message} for d in self.diagnostics
            ],
        }
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> BuildReport:
        data = json.loads(text)
        return cls(sessions=data["sessions"], subagent_runs=data.get("subagent_runs", 0), pages=data["pages"], events=Counter(data["events"]),
                   unknown=Counter(data["unknown"]), redactions=Counter(data["redactions"]),
                   search_index_bytes=data.get("search_index_bytes", 0), site_bytes=data.get("site_bytes", 0),
                   kept=data.get("kept", []), pruned=data.get("pruned", []),
                   diagnostics=[Diagnostic(d["file"], d["line"], d["message"]) for d in data["diagnostics"]])


def build(config: BuildConfig, progress: Progress | None = None) -> BuildReport:
    """Build the site, reading and rendering only what changed since the build that wrote the output
    (its manifest says); when nothing did, the site is left as it is. An output named `*.zip` gets the
    site as a zip instead (built whole each time, in a folder beside it that is then removed).

    One build at a time writes an output: a second one stops at once (`locks.OutputLock`). Every build
    first removes what builds that died left behind, for any output (`locks.remove_abandoned`)."""
    check_output_location(config.output, config.inputs)
    if config.vault is not None:
        check_vault_location(config.output, config.vault)
    if is_zip(config.output):
        check_zip_target(config.output)
    with OutputLock(config.output):
        remove_abandoned(config.output)
        if not is_zip(config.output):
            return _build_folder(config, progress, config.output)
        config.output.resolve().parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{config.output.name}.site-", dir=config.output.resolve().parent))
        claim(work)
        try:
            (work / MARKER).write_bytes(MARKER_TEXT)
            site = work / config.output.stem
            report = _build_folder(replace(config, output=site), progress, config.output)
            write_zip(site, config.output, top_folder=config.output.stem, leave_out=frozenset({MARKER, MANIFEST}),
                      progress=progress)
        finally:
            shutil.rmtree(work, ignore_errors=True)
            release(work)
    return report


def is_zip(output: Path) -> bool:
    return output.suffix.lower() == ".zip"


def _build_folder(config: BuildConfig, progress: Progress | None, remembered_as: Path) -> BuildReport:
    hashes = HashCache.for_output(remembered_as)
    # Files and folders that cannot be read are left out, each reported once, before anything is built.
    problems: list[Diagnostic] = []
    with ExitStack() as stack:
        try:
            files, saved, pruned = gather(config, hashes, stack, progress, problems)
        finally:
            for problem in problems:
                log.warning("%s:%d: %s", problem.file, problem.line, problem.message)
        if config.strict and problems:
            raise StrictModeError(f"{len(problems)} problem(s) in the input (--strict)")
        report = _build_files(config, progress, files, hashes, problems)
    report.kept = sorted(f"{f.project_dir}/{path_in_project(f)}" for f in files if f.kept is not None)
    report.pruned, report.saved = pruned, saved
    return report


def gather(config: BuildConfig, hashes: HashCache, stack: ExitStack, progress: Progress | None = None,
           problems: list[Diagnostic] | None = None) -> tuple[list[SessionFile], Any, list[str]]:
    """The build's input files: the logs under the INPUTs, saved into the vault, and the logs the vault
    keeps that were under them once and are gone (read back, until `stack` closes, from a private folder).
    With them, what the save did, and the logs that are gone and were left out (--prune). What cannot be
    read goes to `problems`."""
    live = find(list(config.inputs), problems)
    if config.vault is None:
        return arranged(live, config.inputs, config.redact_paths, problems, config.own_redaction), None, []
    from .vault import Vault  # loaded only when there is a vault

    vault = Vault(config.vault)
    saved = vault.save(live, progress)
    for path, (size, mtime_ns, content_hash) in saved.hashes.items():
        hashes.remember(path, size, mtime_ns, content_hash)  # read once, for both
    gone = vault.gone_under(config.inputs, live)
    if config.prune:
        pruned = sorted(f"{redact_project_dir(g.place.project_dir, config.redact_paths, config.own_redaction)}/{g.place.relpath}"
                        for g in gone)
        return arranged(live, config.inputs, config.redact_paths, problems, config.own_redaction), saved, pruned
    work = stack.enter_context(vault.work_folder()) if gone else None
    kept = [g.session_file(vault.database, work) for g in gone if work is not None]
    return arranged(live + kept, config.inputs, config.redact_paths, problems, config.own_redaction), saved, []


def _build_files(config: BuildConfig, progress: Progress | None, files: list[SessionFile],
                 hashes: HashCache, problems: list[Diagnostic]) -> BuildReport:
    theme = None if config.markdown_only else Theme.load(config.theme)
    settings = settings_digest(__version__, [config.redact, config.redact_paths, config.show_hidden,
                                             config.markdown_only, config.strict, config.base_url, config.title,
                                             config.selection.settings(), list(config.own_redaction.patterns),
                                             list(config.own_redaction.words)],
                               theme.dirs if theme else ())
    previous = load(config.output) if is_sessionsite_output(config.output) else Manifest()
    if (previous.settings == settings and previous.report and _nothing_changed(previous, files, hashes)
            and site_digest(config.output.resolve()) == previous.site):
        hashes.save()
        log.info("%s is up to date", config.output)
        report = BuildReport.from_json(previous.report)
        report.diagnostics.extend(problems)
        for session_file in files:  # the manifest keeps problems without the path, which it does not name
            for diagnostic in decode(previous.files[path_key(session_file)].summary["diagnostics"]):
                diagnostic = replace(diagnostic, file=str(session_file.path))
                report.diagnostics.append(diagnostic)
                log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
        return report

    from .phases import build_site  # the whole pipeline, loaded only when there is work to do

    staging = Staging(config.output)
    try:
        report = build_site(staging, config, progress, files, theme, settings, previous, hashes)
        report.diagnostics[:0] = problems
        staging.commit()
        hashes.save()
    except BaseException:
        stop_workers()  # before their staging folder goes
        staging.discard()
        raise
    log.info("wrote %s (%d sessions, %d pages)", config.output, report.sessions, report.pages)
    return report


def _nothing_changed(previous: Manifest, files: list[SessionFile], hashes: HashCache) -> bool:
    if set(previous.files) != {path_key(f) for f in files}:
        return False
    return all(unchanged(previous.files[path_key(f)], f, hashes) for f in files)


def discover_files(inputs: list[Path], redact_paths: bool, problems: list[Diagnostic] | None = None,
                   own: OwnRules | None = None) -> list[SessionFile]:
    return arranged(find(inputs, problems), inputs, redact_paths, problems, own)


def arranged(files: list[SessionFile], inputs: Iterable[Path], redact_paths: bool,
             problems: list[Diagnostic] | None = None, own: OwnRules | None = None) -> list[SessionFile]:
    files = arrange(files, problems)
    if not files:
        raise InputError("no Claude Code session files (*.jsonl) found in " + ", ".join(map(str, inputs)))
    return [replace(f, project_dir=redact_project_dir(f.project_dir, redact_paths, own)) for f in files]


__all__ = ["BuildConfig", "BuildReport", "build", "discover_files"]
