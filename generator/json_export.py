"""`sessionsite json`: the interpreted, redacted sessions as JSON documents, for people who analyse them.

The same pipeline as the site, with another writer at its end, run as one `job.Job`. The logs are found,
saved to the vault and read back from it as for `build` (`build.gather`); phase 1 (`pipeline.phase1.collect`) reads,
redacts, interprets, links and selects them; phase 2 reads each file again and streams each chosen
session's events into its document (`output.session_json.SessionJsonWriter`), one file per session, in
worker processes. The index (every session's head, the projects, the figures) is written last, from the
summaries, with a copy of the schema that describes them. Everything goes into a staging folder swapped in
whole, as the site does: a kill or a full disk leaves the previous export as it was, and a second command
writing the same folder stops at once."""

from __future__ import annotations

import logging
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from .core.model import Archive, Diagnostic
from .stages.discover import SessionFile, path_in_project
from .stages.interpret import interpret_stream
from .stages.redact import Redactor
from .output.manifest import NO_HASH_CACHE
from .output.session_json import INDEX, SCHEMA, SessionJsonWriter, document_path, index_document
from .config import BuildConfig, BuildReport, Progress
from .job import Job, report_problems
from .build import gather, write_output
from .pipeline.phase1 import collect, replayed_in_file, stream_entries
from .pipeline.plans import Redaction
from .workers import in_workers

log = logging.getLogger("sessionsite")


@dataclass(frozen=True)
class Exported:
    """Phase 2's result for one input file."""

    documents: int
    redactions: Counter[str]
    problems: tuple[Diagnostic, ...]


class FileExporter:
    """Phase 2 for one file: read it again and stream each of its chosen sessions into its document."""

    def __init__(self, archive: Archive, root: Path, config: BuildConfig):
        self.archive = archive
        self.root = root
        self.config = config
        self.redaction = Redaction(config.redact, config.redact_paths, config.own_redaction)
        self.keys_by_source: dict[str, list[str]] = {}
        for key, session in archive.sessions.items():
            self.keys_by_source.setdefault(session.source, []).append(key)

    def __call__(self, session_file: SessionFile) -> Exported:
        keys = self.keys_by_source.get(str(session_file.path), [])
        if not keys:
            return Exported(0, Counter(), ())
        problems: list[Diagnostic] = []
        writers = {key: SessionJsonWriter(self.archive.sessions[key], self.archive, self.root / document_path(key),
                                          show_hidden=self.config.show_hidden, repo_url=self.config.repo_url,
                                          problems=problems)
                   for key in keys}
        redactor = self.redaction.redactor()
        try:
            interpret_stream(session_file, stream_entries(session_file, redactor, []),
                             skip=replayed_in_file(self.archive.sessions, keys), sink_for=writers.get,
                             summarise=False)
        finally:
            for writer in writers.values():
                writer.close()
        if session_file.kept is not None:  # read from the vault: named by the log's own place
            problems = [replace(p, file=str(session_file.path)) for p in problems]
        return Exported(len(writers), redactor.counts, tuple(problems))


def export(config: BuildConfig, progress: Progress | None = None) -> BuildReport:
    """Write the JSON export of the sessions under `config.inputs` into `config.output` (a folder, replaced
    whole, or a .zip of it). The report's `pages` counts the documents written, the index included."""
    return write_output(config, progress, lambda job, folder_config, _: _export_folder(job, folder_config, progress))


def _export_folder(job: Job, config: BuildConfig, progress: Progress | None) -> BuildReport:
    problems: list[Diagnostic] = []
    with ExitStack() as stack:
        files, saving, pruned = gather(job, config, NO_HASH_CACHE, stack, progress, problems)
        job.check(problems)  # before reading, as the build does
        redactor = Redactor(secrets=config.redact, home=config.redact_paths, own=config.own_redaction)
        archive, report, _ = collect(config.inputs, progress, redactor, config.jobs, files=files,
                                     selection=config.selection)
        report_problems(report.diagnostics)
        report.diagnostics[:0] = problems
        job.check(report.diagnostics)
        with job.staging(config.output) as staging:
            exporter = FileExporter(archive, staging.root, config)
            to_write = sorted((f for f in files if str(f.path) in exporter.keys_by_source),
                              key=lambda f: (-(f.kept.size if f.kept is not None else f.path.stat().st_size),
                                             str(f.path)))
            if len(to_write) > 1 and config.jobs > 1 and config.redact:
                exporter.redaction.redactor().text("warm up: API_KEY=0123456789")  # once, before the fork
            results = in_workers(exporter, to_write, config.jobs)
            if progress is not None:
                results = progress(results, len(to_write), "Writing JSON")
            for exported in results:
                report.pages += exported.documents
                report.redactions.update(exported.redactions)
                report_problems(exported.problems)
                report.diagnostics.extend(exported.problems)
            staging.write(INDEX, index_document(archive, config.repo_url, redacted=config.redact,
                                                home_redacted=config.redact_paths, show_hidden=config.show_hidden))
            report.pages += 1
            staging.write(SCHEMA.name, SCHEMA.read_bytes())  # the export describes itself, wherever it goes
    report.kept = sorted(f"{f.project_dir}/{path_in_project(f)}" for f in files if f.kept is not None)
    report.pruned, report.saved = pruned, saving.outcome()[0]
    log.info("wrote %s (%d sessions, %d JSON documents)", config.output, report.sessions, report.pages)
    return report


__all__ = ["FileExporter", "export"]
