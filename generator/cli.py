"""The `sessionsite` command: a thin Click layer over `build.build()`."""

from __future__ import annotations

import logging
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, TypeVar

import click

from . import __version__
from .build import BuildConfig, BuildReport, build
from .discover import default_input
from .errors import InputError

T = TypeVar("T")
EXAMPLE_COMMAND = "sessionsite build examples -o demo"


def _configure_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    logger = logging.getLogger("sessionsite")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO if verbose else logging.WARNING)
    logger.propagate = False


def _inputs(given: tuple[Path, ...]) -> tuple[Path, ...]:
    if given:
        return given
    default = default_input()
    if not default.is_dir():
        raise InputError(f"no INPUT given and {default} does not exist; to try it on the examples: {EXAMPLE_COMMAND}")
    return (default,)


def _progress(items: Iterable[T], length: int, label: str) -> Iterator[T]:
    """A progress bar on a terminal, for work long enough to want one; results pass through as they come."""
    if not sys.stderr.isatty() or length < 20:
        yield from items
        return
    with click.progressbar(items, length=length, label=label, file=sys.stderr) as bar:
        yield from bar


@contextmanager
def _errors(verbose: bool):
    try:
        yield
    except click.ClickException:
        raise
    except Exception as error:  # the one place that turns a crash into one line; --verbose shows it all
        if verbose:
            raise
        raise click.ClickException(f"internal error: {error!r} (run with --verbose for the traceback)") from error


def _run(config: BuildConfig, report_file: Path | None, verbose: bool) -> BuildReport:
    _configure_logging(verbose)
    with _errors(verbose):
        report = build(config, progress=_progress)
    if report_file is not None:
        report_file.write_text(report.to_json(), encoding="utf-8")
    problems = f", {len(report.diagnostics)} input problem(s) reported above" if report.diagnostics else ""
    sessions = f"{report.sessions} session{'s' if report.sessions != 1 else ''}"
    pages = f"{report.pages} page{'s' if report.pages != 1 else ''}"
    click.echo(f"{sessions}, {pages} -> {config.output}{problems}", err=True)
    return report


common_options = [
    click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]..."),
    click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path),
                 help="Folder to write. It is replaced whole, and only if empty or written by sessionsite."),
    click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
                 help="Write a JSON build report (sessions, pages, events, unknown names, diagnostics)."),
    click.option("--show-hidden", is_flag=True, help="Also show system noise (meta entries, reminders, bookkeeping)."),
    click.option("--strict", is_flag=True, help="Fail (exit 1) if any input line could not be read."),
    click.option("--no-redact", "no_redact", is_flag=True,
                 help="Keep secrets (API keys, tokens, passwords) instead of replacing them with [REDACTED:…]."),
    click.option("--redact-paths", is_flag=True, help="Also replace home directories (/home/you, /Users/you) with ~."),
    click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
                 show_default="the number of CPUs", help="Processes rendering pages in parallel."),
    click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks."),
]


def _with_common(function):
    for option in reversed(common_options):
        function = option(function)
    return function


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessionsite")
def main() -> None:
    """Turn Claude Code session logs into a static website.

    INPUT is a session .jsonl file, a project folder, or a folder of project folders; with none,
    ~/.claude/projects is read.

    Example:

        sessionsite build ~/.claude/projects -o site
    """


@main.command("build")
@_with_common
@click.option("--theme", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Theme folder whose templates/ and static/ override the default theme's.")
def build_command(inputs, output, report_file, show_hidden, strict, no_redact, redact_paths, jobs, verbose,
                  theme) -> None:
    """Build the HTML archive (with its Markdown intermediates) into OUTPUT.

    Example:

        sessionsite build ~/.claude/projects/-home-me-src-app -o site --report report.json
    """
    config = BuildConfig(inputs=_inputs(inputs), output=output, theme=theme, show_hidden=show_hidden,
                         strict=strict, jobs=jobs, redact=not no_redact, redact_paths=redact_paths)
    _run(config, report_file, verbose)


@main.command("markdown")
@_with_common
def markdown_command(inputs, output, report_file, show_hidden, strict, no_redact, redact_paths, jobs,
                     verbose) -> None:
    """Write only the Markdown intermediates: one .md per session, GitHub-flavoured, with front matter.

    Example:

        sessionsite markdown ~/.claude/projects/-home-me-src-app/1f0c….jsonl -o notes
    """
    config = BuildConfig(inputs=_inputs(inputs), output=output, show_hidden=show_hidden, strict=strict,
                         markdown_only=True, jobs=jobs, redact=not no_redact, redact_paths=redact_paths)
    _run(config, report_file, verbose)
