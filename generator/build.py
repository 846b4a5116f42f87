"""The Python API: `build(config) -> BuildReport` runs the pipeline.

A build first asks the manifest the last build left in the output whether anything changed (inputs,
settings, theme, the generator's code, the site's files); if nothing did, the site is left as it is,
and nothing but that check is loaded. Otherwise the pipeline (`pipeline.phase2.build_site`) reads and
renders what changed.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from . import __version__
from .core.entries import Diagnostic
from .stages.discover import SessionFile, find, path_in_project
from .stages.redact import OwnRules, redact_project_dir
from .render.theme import Theme
from .output.locks import MARKER
from .output.manifest import MANIFEST, HashCache, Manifest, decode, load, path_key, settings_digest, site_digest, unchanged
from .output.write import is_sessionsite_output, write_zip
from .config import BuildConfig, BuildReport, Progress, arranged, discover_files
from .job import Job, VaultSave, is_zip, report_problems

if TYPE_CHECKING:
    from .output.vault import SaveReport

log = logging.getLogger("sessionsite")


Review = Callable[[BuildConfig, "list[SessionFile]"], OwnRules]
"""What a build that publishes asks once it knows its files: the user's own rules to build with, the values
a person decided to redact among them (or it raises, and nothing is built: `commands.review`)."""


def build(config: BuildConfig, progress: Progress | None = None, review: Review | None = None) -> BuildReport:
    """Build the site, reading and rendering only what changed since the build that wrote the output
    (its manifest says); when nothing did, the site is left as it is. An output named `*.zip` gets the
    site as a zip instead (built whole each time, in a folder beside it that is then removed).

    One build at a time writes an output: a second one stops at once (`job.Job`). Every build first
    removes what builds that died left behind, for any output. `review`: run before anything is written."""
    if config.key is not None:
        from .output.sealed_site import SEALED_RECORD

        return write_output(config, progress, lambda job, folder_config, remembered_as: _build_sealed(
            job, folder_config, progress, remembered_as, review), leave_out=frozenset({MARKER, SEALED_RECORD}))
    return write_output(config, progress, lambda job, folder_config, remembered_as: _build_folder(
        job, folder_config, progress, remembered_as, review), leave_out=frozenset({MARKER, MANIFEST}))


def write_output(config: BuildConfig, progress: Progress | None,
                 write_folder: Callable[[Job, BuildConfig, Path], BuildReport],
                 leave_out: frozenset[str] = frozenset()) -> BuildReport:
    """A whole output written as one `Job`; an output named `*.zip` is made as a folder beside it, zipped
    (less `leave_out`) and removed. `write_folder(job, config, remembered_as)` writes the folder
    `config.output`; `remembered_as` is the output the user named."""
    with Job(config.output, config.inputs, config.vault, config.strict) as job:
        if not is_zip(config.output):
            return write_folder(job, config, config.output)
        with job.work_folder() as work:
            folder = work / config.output.stem
            report = write_folder(job, replace(config, output=folder), config.output)
            write_zip(folder, config.output, top_folder=config.output.stem, leave_out=leave_out, progress=progress)
        return report


def _build_folder(job: Job, config: BuildConfig, progress: Progress | None, remembered_as: Path,
                  review: Review | None = None) -> BuildReport:
    hashes = HashCache.for_output(remembered_as)
    # Files and folders that cannot be read are left out, each reported once, before anything is built.
    problems: list[Diagnostic] = []
    with ExitStack() as stack:
        # With --strict, a save that fails stops the build before it starts, as any other problem does.
        files, saving, pruned = gather(job, config, hashes, stack, progress, problems, beside=not config.strict)
        job.check(problems)
        if review is not None:
            config = replace(config, own_redaction=review(config, files))
        report = _build_files(job, config, progress, files, hashes, problems, saving)
    report.kept = sorted(f"{f.project_dir}/{path_in_project(f)}" for f in files if f.kept is not None)
    report.pruned, report.saved = pruned, saving.outcome()[0]
    return report


def _build_sealed(job: Job, config: BuildConfig, progress: Progress | None, remembered_as: Path,
                  review: Review | None = None) -> BuildReport:
    """An encrypted archive (`output.sealed_site`): the site built as always into a private folder kept for the
    next build, then sealed into the output, the files the previous archive holds unchanged kept as they are."""
    from .output.sealed_site import SealedRecord, load_record, plain_folder, seal_site, up_to_date

    assert config.key is not None
    plain = plain_folder(remembered_as)
    report = _build_folder(job, replace(config, output=plain, key=None), progress, remembered_as, review)
    previous = load_record(config.output) if is_sessionsite_output(config.output) else SealedRecord()
    theme = Theme.load(config.theme)
    if up_to_date(plain, config.output, config.key, theme, previous):
        log.info("%s (encrypted) is up to date", config.output)
        return report
    with job.staging(config.output) as staging:
        sealed = seal_site(plain, staging, config.key, theme, previous)
    log.info("encrypted %d files, kept %d unchanged, in %.2f s", sealed.sealed, sealed.kept, sealed.seconds)
    return report


def gather(job: Job, config: BuildConfig, hashes: HashCache, stack: ExitStack, progress: Progress | None = None,
           problems: list[Diagnostic] | None = None, beside: bool = False
           ) -> tuple[list[SessionFile], VaultSave, list[str]]:
    """The build's input files: the logs under the INPUTs, saved into the vault, and the logs the vault
    keeps that were under them once and are gone (read back, until `stack` closes, from a private folder).
    With them, the save, and the logs that are gone and were left out (--prune). What cannot be read goes to
    `problems`, each also logged once as a warning (whether or not gathering finishes). `beside`: the save
    goes on while the caller builds (`Job.save_beside`), until `stack` closes or the caller asks
    `saved_now`, which then reports its problem."""
    problems = [] if problems is None else problems
    try:
        return _gather(job, config, hashes, stack, progress, problems, beside)
    finally:
        report_problems(problems)


def _gather(job: Job, config: BuildConfig, hashes: HashCache, stack: ExitStack, progress: Progress | None,
            problems: list[Diagnostic], beside: bool) -> tuple[list[SessionFile], VaultSave, list[str]]:
    live = find(list(config.inputs), problems)
    vault = job.vault
    if vault is None:
        return arranged(live, config.inputs, config.redact_paths, problems, config.own_redaction), VaultSave(), []
    from .output.vault import VaultError  # loaded only when there is a vault

    # A vault that cannot be used (not a database, cut short, locked, another schema) is one warning: the
    # build goes on with what it can read, the live logs at least. What is gone is asked before the save
    # starts: the save adds no log that is gone, and a save beside the build may be creating the vault.
    try:
        gone, damaged = vault.gone_under(config.inputs, live)
    except VaultError as error:
        problems.append(Diagnostic(str(vault.database), 0, f"{error}; built from the live logs alone, "
                                                           "nothing saved to the vault or read from it"))
        return arranged(live, config.inputs, config.redact_paths, problems, config.own_redaction), VaultSave(), []
    # A save with nothing to read (every log as the last build saw it) costs less than a process to run it in.
    if beside and not all(hashes.as_last_seen(f.path) for f in live):
        saving = stack.enter_context(job.save_beside(live, progress))
    else:
        saving = VaultSave(job.save(live, progress), database=vault.database)
        saved_now(saving, hashes, problems)
    problems.extend(Diagnostic(u.shown_origin or str(vault.database), 0, f"the vault's copy of {u.name} is damaged "
                               f"({u.reason}): left out (see `sessionsite doctor`)") for u in damaged)
    if config.prune:
        pruned = sorted(f"{redact_project_dir(g.place.project_dir, config.redact_paths, config.own_redaction)}/{g.place.relpath}"
                        for g in gone)
        return arranged(live, config.inputs, config.redact_paths, problems, config.own_redaction), saving, pruned
    work = stack.enter_context(vault.work_folder()) if gone else None
    kept = [g.session_file(vault.database, work) for g in gone if work is not None]
    return arranged(live + kept, config.inputs, config.redact_paths, problems, config.own_redaction), saving, []


def saved_now(saving: VaultSave, hashes: HashCache, problems: list[Diagnostic]) -> SaveReport | None:
    """What the save did (waiting for it to end): a save that could not be made is a problem; the hashes of
    the logs it read whole are remembered for the next build."""
    saved, not_saved = saving.outcome()
    if not_saved is not None:
        problem = Diagnostic(str(saving.database), 0, f"{not_saved}; nothing saved to the vault this time")
        if problem not in problems:
            problems.append(problem)
    for path, (size, mtime_ns, content_hash) in (saved.hashes.items() if saved else ()):
        hashes.remember(path, size, mtime_ns, content_hash)
    return saved


def _build_files(job: Job, config: BuildConfig, progress: Progress | None, files: list[SessionFile],
                 hashes: HashCache, problems: list[Diagnostic], saving: VaultSave) -> BuildReport:
    theme = None if config.markdown_only else Theme.load(config.theme)
    reviewed = config.own_redaction.reviewed
    settings = settings_digest(__version__, [config.redact, config.redact_paths, config.show_hidden,
                                             config.markdown_only, config.strict, config.base_url, config.repo_url,
                                             config.title, config.selection.settings(),
                                             list(config.own_redaction.patterns), list(config.own_redaction.words),
                                             sorted(reviewed.digests) if reviewed else []],
                               theme.dirs if theme else (), hashes)
    previous = load(config.output) if is_sessionsite_output(config.output) else Manifest()
    if (previous.settings == settings and previous.report and _nothing_changed(previous, files, hashes)
            and site_digest(config.output.resolve()) == previous.site):
        _saved_at_the_end(saving, hashes, problems)
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

    from .pipeline.phase2 import build_site  # the whole pipeline, loaded only when there is work to do
    from .render.html.render import markdown_it_quiet

    with job.staging(config.output) as staging, markdown_it_quiet():
        report = build_site(staging, config, progress, files, theme, settings, previous, hashes)
        report.diagnostics[:0] = problems
        _saved_at_the_end(saving, hashes, report.diagnostics)
    hashes.save()
    log.info("wrote %s (%d sessions, %d pages)", config.output, report.sessions, report.pages)
    return report


def _saved_at_the_end(saving: VaultSave, hashes: HashCache, problems: list[Diagnostic]) -> None:
    """A save beside the build, waited for: its problem, if it had one, is reported now."""
    found = len(problems)
    saved_now(saving, hashes, problems)
    report_problems(problems[found:])


def _nothing_changed(previous: Manifest, files: list[SessionFile], hashes: HashCache) -> bool:
    if set(previous.files) != {path_key(f) for f in files}:
        return False
    return all(unchanged(previous.files[path_key(f)], f, hashes) for f in files)


__all__ = ["BuildConfig", "BuildReport", "build", "discover_files"]
