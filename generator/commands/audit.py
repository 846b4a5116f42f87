"""`sessionsite audit`: what to look at before publishing, listed."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

import click

from .options import Options, files_to_read, inputs_or_default, own_rules_of, selection_of
from .running import configure_logging, errors, stopped_by_signals


def audit_and_list(options: Options, site: Path | None, everything: bool) -> None:
    """Audit the sessions the options choose, print what to review, and exit 1 with --strict when there is
    anything."""
    from ..audit import audit, lines
    from ..pipeline.plans import Redaction

    configure_logging(options.verbose)
    selection = selection_of(options)
    redaction = Redaction(secrets=True, home=options.redact_paths, own=own_rules_of(options))
    with stopped_by_signals(), errors(options.verbose), ExitStack() as stack:
        inputs = inputs_or_default(options.inputs)
        files = files_to_read(list(inputs), options, redaction.own, stack)  # as a build reads them
        report = audit(inputs, redaction, selection, site, options.jobs, files=files)
    click.echo(f"{report.sessions} session{'s' if report.sessions != 1 else ''} audited")
    for line in lines(report, everything):
        click.echo(line)
    if options.strict and report.anything:
        sys.exit(1)
