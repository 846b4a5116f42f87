"""`sessionsite bundle`: one file for a pull request, and the line that says what went into it."""

from __future__ import annotations

import logging

import click

from .options import Options, bundle_config_from
from .review import how_to_review, review_before_publishing
from .running import configure_logging, errors, say_redactions, say_vault, stopped_by_signals


def bundle_and_say(options: Options) -> None:
    """Write the bundle the options ask for, then say what it holds (unless --quiet)."""
    from ..bundle import bundle

    output, verbose, quiet = options.output, options.verbose, options.quiet
    assert output is not None
    configure_logging(verbose, quiet)
    config = bundle_config_from(options)
    with stopped_by_signals(), errors(verbose, output):
        report = bundle(config, review=review_before_publishing(options.yes, how_to_review(options)))
    if report.too_large:
        logging.getLogger("sessionsite").warning("%s", report.too_large)
    if quiet:
        return
    count = len(report.sessions) - report.subagent_runs
    size = f"{report.size:,} characters" if output.suffix.lower() in (".md", ".markdown") else f"{report.size:,} bytes"
    shortened = f", shortened to fit: {report.shortened}" if report.shortened else ""
    of_branch = f" of branch {report.branch}" if report.branch else ""
    runs = report.subagent_runs
    subagents = f" and {runs} subagent run{'s' if runs != 1 else ''}" if runs else ""
    click.echo(f"{count} session{'s' if count != 1 else ''}{subagents}{of_branch} ({size}{shortened}) -> {output}",
               err=True)
    say_redactions(report.redactions, config.redact)
    if config.key is not None:
        from .encryption import LIMITS, say_link

        click.echo(LIMITS, err=True)
        zipped = output.suffix.lower() == ".zip"
        say_link(config.key, output.with_suffix(".html").name if zipped else output.resolve().as_uri(), options,
                 zipped=zipped)
    say_vault(config.vault, report.saved)
