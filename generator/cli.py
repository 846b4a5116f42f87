"""The `sessionsite` command: a thin Click layer over `build.build()`."""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, TypeVar
from urllib.parse import urlsplit

import click

from . import __version__
from .build import BuildConfig, BuildReport, build
from .discover import default_input
from .errors import InputError, UsageProblem

T = TypeVar("T")
EXAMPLE_COMMAND = "sessionsite build examples -o demo"


def _configure_logging(verbose: bool, quiet: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    logger = logging.getLogger("sessionsite")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.ERROR if quiet else logging.INFO if verbose else logging.WARNING)
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
    except OSError as error:  # a file that could not be read or written: say which, and why
        if verbose:
            raise
        raise click.ClickException(_os_error_line(error)) from error
    except Exception as error:  # the one place that turns a crash into one line; --verbose shows it all
        if verbose:
            raise
        raise click.ClickException(f"internal error: {error!r} (run with --verbose for the traceback)") from error


@contextmanager
def _stopped_by_signals():
    """SIGTERM (a CI runner cancelling, `kill`) and SIGHUP (the terminal closed) stop a command the way
    Ctrl-C does, by an exception, so that its clean-up runs: worker processes stopped, staging and work
    folders removed, nothing swapped in. It then exits with 128 + the signal's number, as a shell reports
    a process killed by it. A second signal during the clean-up is ignored."""
    wanted = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return

    def stop(signal_number: int, frame) -> None:
        for number in wanted:
            signal.signal(number, signal.SIG_IGN)
        raise SystemExit(128 + signal_number)

    previous = {number: signal.signal(number, stop) for number in wanted}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _os_error_line(error: OSError) -> str:
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename is None:
        return f"{reason} (run with --verbose for the traceback)"
    where = os.fsdecode(error.filename)
    if error.filename2 is not None:
        where += f" -> {os.fsdecode(error.filename2)}"
    return f"{where}: {reason}"


def _check_report_file(report_file: Path | None) -> None:
    """Before the build: a report that cannot be written would fail only after the site was replaced."""
    if report_file is None:
        return
    folder = report_file.parent
    problem = ""
    if not folder.is_dir():
        problem = f"no folder {folder}"
    elif report_file.is_dir():
        problem = "it is a folder"
    elif report_file.exists() and not os.access(report_file, os.W_OK):
        problem = "the file is read-only"
    else:
        try:
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as error:
            problem = f"cannot write in {folder}: {error.strerror or error}"
    if problem:
        raise UsageProblem(f"--report {report_file}: {problem}; choose another report file")


def _run(config: BuildConfig, report_file: Path | None, verbose: bool, quiet: bool = False) -> BuildReport:
    _configure_logging(verbose, quiet)
    _check_report_file(report_file)
    with _stopped_by_signals(), _errors(verbose):
        report = build(config, progress=None if quiet else _progress)
        if report_file is not None:
            report_file.write_text(report.to_json(), encoding="utf-8")
    if quiet:
        return report
    problems = f", {len(report.diagnostics)} input problem(s) reported above" if report.diagnostics else ""
    sessions = f"{report.sessions} session{'s' if report.sessions != 1 else ''}"
    if report.subagent_runs:
        sessions += f" (+ {report.subagent_runs} subagent run{'s' if report.subagent_runs != 1 else ''})"
    pages = f"{report.pages} page{'s' if report.pages != 1 else ''}"
    click.echo(f"{sessions}, {pages} -> {config.output}{problems}", err=True)
    if report.sessions and report.search_index_bytes:
        click.echo(f"search index {_size(report.search_index_bytes)}, "
                   f"{report.search_index_bytes / max(1, report.site_bytes):.0%} of the site's {_size(report.site_bytes)}",
                   err=True)
    return report


def _size(count: int) -> str:
    for limit, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if count >= limit:
            return f"{count / limit:.1f} {unit}"
    return f"{count} bytes"


common_options = [
    click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]..."),
    click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
                 help="Folder to write (replaced whole, and only if empty or written by sessionsite), "
                      "or a file ending in .zip to get the site as a zip."),
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
    click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors: no progress bars, warnings or summary."),
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


def _base_url(context: click.Context, parameter: click.Parameter, value: str | None) -> str:
    if not value:
        return ""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise click.BadParameter(f"{value!r}: give the address the site will be served from, such as "
                                 "https://you.github.io/repo/")
    return value if value.endswith("/") else value + "/"


@main.command("build")
@_with_common
@click.option("--theme", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Theme folder whose templates/ and static/ override the default theme's.")
@click.option("--base-url", callback=_base_url, metavar="URL",
              help="Where the site will be published (e.g. https://you.github.io/repo/): pages get canonical "
                   "links, and a sitemap.xml is written.")
def build_command(inputs, output, report_file, show_hidden, strict, no_redact, redact_paths, jobs, verbose,
                  quiet, theme, base_url) -> None:
    """Build the HTML archive (with its Markdown intermediates) into OUTPUT.

    Example:

        sessionsite build ~/.claude/projects/-home-me-src-app -o site --report report.json
    """
    config = BuildConfig(inputs=_inputs(inputs), output=output, theme=theme, show_hidden=show_hidden,
                         strict=strict, jobs=jobs, redact=not no_redact, redact_paths=redact_paths,
                         base_url=base_url)
    _run(config, report_file, verbose, quiet)


@main.command("markdown")
@_with_common
def markdown_command(inputs, output, report_file, show_hidden, strict, no_redact, redact_paths, jobs,
                     verbose, quiet) -> None:
    """Write only the Markdown intermediates: one .md per session, GitHub-flavoured, with front matter.

    Example:

        sessionsite markdown ~/.claude/projects/-home-me-src-app/1f0c….jsonl -o notes
    """
    config = BuildConfig(inputs=_inputs(inputs), output=output, show_hidden=show_hidden, strict=strict,
                         markdown_only=True, jobs=jobs, redact=not no_redact, redact_paths=redact_paths)
    _run(config, report_file, verbose, quiet)


@main.command("serve")
@click.argument("site", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-p", "--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
def serve_command(site: Path, port: int) -> None:
    """Preview a built site on http://127.0.0.1:PORT/ (only this machine can reach it). Ctrl-C stops.

    Example:

        sessionsite serve site
    """
    from .serve import serve

    try:
        server = serve(site, port)
    except OSError as error:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port} ({error.strerror}); "
                                   "choose another with --port, or --port 0 for any free one") from None
    with server:
        click.echo(f"Serving {site} at {server.url} (Ctrl-C to stop)", err=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            click.echo("stopped", err=True)


@main.command("bundle")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path),
                metavar="SESSION.jsonl...")
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="File to write: FILE.html (self-contained page) or FILE.md (GitHub-flavoured, fits a PR).")
@click.option("--show-hidden", is_flag=True, help="Also show system noise (meta entries, reminders, bookkeeping).")
@click.option("--strict", is_flag=True, help="Fail (exit 1) if any input line could not be read.")
@click.option("--no-redact", "no_redact", is_flag=True,
              help="Keep secrets (API keys, tokens, passwords) instead of replacing them with [REDACTED:…].")
@click.option("--redact-paths", is_flag=True, help="Also replace home directories (/home/you, /Users/you) with ~.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="the number of CPUs", help="Processes reading and rendering in parallel.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors.")
def bundle_command(inputs, output, show_hidden, strict, no_redact, redact_paths, jobs, verbose, quiet) -> None:
    """Write one self-contained file to attach to a pull request: the whole piece of work each SESSION
    belongs to (its plan chain, the sessions it continues or that continue it, every subagent transcript).

    FILE.html has its CSS, script and images inline and needs no other file. FILE.md is GitHub-flavoured
    Markdown with folded tool calls, shortened (and saying so) to fit GitHub's 65,536-character limit.

    Example:

        sessionsite bundle ~/.claude/projects/-home-me-src-app/1f0c….jsonl -o pr-notes.html
    """
    from .bundle import BundleConfig, bundle

    _configure_logging(verbose, quiet)
    config = BundleConfig(inputs=tuple(inputs), output=output, show_hidden=show_hidden, strict=strict,
                          redact=not no_redact, redact_paths=redact_paths, jobs=jobs)
    with _stopped_by_signals(), _errors(verbose):
        report = bundle(config)
    if not quiet:
        count = len(report.sessions)
        size = f"{report.size:,} characters" if report.shortened or output.suffix.lower() in (".md", ".markdown") \
            else f"{report.size:,} bytes"
        shortened = f", shortened to fit: {report.shortened}" if report.shortened else ""
        click.echo(f"{count} session{'s' if count != 1 else ''} ({size}{shortened}) -> {output}", err=True)
