"""`sessionsite json`: the interpreted, redacted sessions as JSON documents, for people who analyse them.

The same pipeline as the site, with another writer at its end. The logs are found, saved to the vault and
read back from it as for `build` (`build.gather`); phase 1 (`pipeline.collect`) reads, redacts, interprets,
links and selects them; phase 2 reads each file again and streams each chosen session's events into its
document (`output.session_json.SessionJsonWriter`), one file per session, in worker processes. The
index (every session's head, the projects, the figures) is written last, from the summaries, with a copy
of the schema that describes them. Everything
goes into a staging folder swapped in whole, as the site does: a kill or a full disk leaves the previous
export as it was, and a second command writing the same folder stops at once.
"""

from __future__ import annotations

import logging
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from .core.errors import StrictModeError
from .core.model import Archive, Diagnostic
from .stages.discover import SessionFile, path_in_project
from .stages.interpret import interpret_stream
from .stages.redact import Redactor
from .output.manifest import NO_HASH_CACHE
from .output.session_json import INDEX, SCHEMA, SessionJsonWriter, document_path, index_document
from .output.write import (Staging)
from .config import BuildConfig, BuildReport, Progress
from .build import gather, write_output
from .pipeline.phase1 import collect, replayed_in_file, stream_entries
from .pipeline.plans import Redaction
from .workers import in_workers, stop_workers

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
    return write_output(config, progress, lambda folder_config, _: _export_folder(folder_config, progress))


def _export_folder(config: BuildConfig, progress: Progress | None) -> BuildReport:
    problems: list[Diagnostic] = []
    with ExitStack() as stack:
        files, saved, pruned = gather(config, NO_HASH_CACHE, stack, progress, problems)
        redactor = Redactor(secrets=config.redact, home=config.redact_paths, own=config.own_redaction)
        archive, report, _ = collect(config.inputs, progress, redactor, config.jobs, files=files,
                                     selection=config.selection)
        for diagnostic in report.diagnostics:
            log.warning("%s:%d: %s", diagnostic.file, diagnostic.line, diagnostic.message)
        report.diagnostics[:0] = problems
        if config.strict and report.diagnostics:
            raise StrictModeError(f"{len(report.diagnostics)} problem(s) in the input (--strict)")
        staging = Staging(config.output)
        try:
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
                for problem in exported.problems:
                    log.warning("%s:%d: %s", problem.file, problem.line, problem.message)
                report.diagnostics.extend(exported.problems)
            staging.write(INDEX, index_document(archive, config.repo_url, redacted=config.redact,
                                                home_redacted=config.redact_paths, show_hidden=config.show_hidden))
            report.pages += 1
            staging.write(SCHEMA.name, SCHEMA.read_bytes())  # the export describes itself, wherever it goes
            staging.commit()
        except BaseException:
            stop_workers()  # before their staging folder goes
            staging.discard()
            raise
    report.kept = sorted(f"{f.project_dir}/{path_in_project(f)}" for f in files if f.kept is not None)
    report.pruned, report.saved = pruned, saved
    log.info("wrote %s (%d sessions, %d JSON documents)", config.output, report.sessions, report.pages)
    return report


__all__ = ["FileExporter", "export"]
