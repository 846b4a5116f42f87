"""How a command runs: its logging, errors as one line, signals as Ctrl-C, progress bars, and the summary
it prints of what a build (or another writer over the same pipeline) did."""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

import click

from ..core.errors import UsageProblem, is_about, output_error
from ..core.text import byte_size

if TYPE_CHECKING:  # the build is loaded by the commands that build: `save`, run by a hook, stays light
    from ..build import Review
    from ..config import BuildConfig, BuildReport
    from ..output.vault import SaveReport

T = TypeVar("T")


def configure_logging(verbose: bool, quiet: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    logger = logging.getLogger("sessionsite")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.ERROR if quiet else logging.INFO if verbose else logging.WARNING)
    logger.propagate = False


def progress(items: Iterable[T], length: int, label: str) -> Iterator[T]:
    """A progress bar on a terminal, for work long enough to want one; results pass through as they come."""
    if not sys.stderr.isatty() or length < 20:
        yield from items
        return
    with click.progressbar(items, length=length, label=label, file=sys.stderr) as bar:
        yield from bar


@contextmanager
def errors(verbose: bool, output: Path | None = None) -> Iterator[None]:
    """Errors as one line; with the `output` the command writes, an error in writing it names it."""
    try:
        yield
    except click.ClickException:
        raise
    except OSError as error:  # a file that could not be read or written: say which, and why
        if verbose:
            raise
        if output is not None and is_about(output, error):
            raise output_error(output, error) from error
        raise click.ClickException(os_error_line(error)) from error
    except Exception as error:  # the one place that turns a crash into one line; --verbose shows it all
        if verbose:
            raise
        raise click.ClickException(f"internal error: {error!r} (run with --verbose for the traceback)") from error


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGTERM (a CI runner cancelling, `kill`) and SIGHUP (the terminal closed) stop a command the way
    Ctrl-C does, by an exception, so that its clean-up runs: worker processes stopped, staging and work
    folders removed, nothing swapped in. It then exits with 128 + the signal's number, as a shell reports
    a process killed by it. A second signal during the clean-up is ignored."""
    wanted = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return

    def stop(signal_number: int, frame: FrameType | None) -> None:
        for number in wanted:
            signal.signal(number, signal.SIG_IGN)
        raise SystemExit(128 + signal_number)

    previous = {number: signal.signal(number, stop) for number in wanted}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def os_error_line(error: OSError) -> str:
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename is None:
        return f"{reason} (run with --verbose for the traceback)"
    where = os.fsdecode(error.filename)
    if error.filename2 is not None:
        where += f" -> {os.fsdecode(error.filename2)}"
    return f"{where}: {reason}"


def check_report_file(report_file: Path | None) -> None:
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


def run(config: BuildConfig, report_file: Path | None, verbose: bool, quiet: bool = False,
         writer: Callable[..., BuildReport] | None = None, unit: str = "page", review: Review | None = None
         ) -> BuildReport:
    """Run `writer` (the build, or another writer over the same pipeline), then say what it did; `unit`
    names what the report's `pages` counts; `review`: the build's review before publishing."""
    from ..build import build

    configure_logging(verbose, quiet)
    check_report_file(report_file)
    with stopped_by_signals():
        with errors(verbose, config.output):
            shown = None if quiet else progress
            report = (writer or build)(config, progress=shown) if review is None else build(config, shown, review)
        if report_file is not None:
            with errors(verbose, report_file):
                report_file.write_text(report.to_json(), encoding="utf-8")
    if quiet:
        return report
    problems = f", {len(report.diagnostics)} input problem(s) reported above" if report.diagnostics else ""
    sessions = f"{report.sessions} session{'s' if report.sessions != 1 else ''}"
    if report.subagent_runs:
        sessions += f" (+ {report.subagent_runs} subagent run{'s' if report.subagent_runs != 1 else ''})"
    pages = f"{report.pages} {unit}{'s' if report.pages != 1 else ''}"
    click.echo(f"{sessions}, {pages} -> {config.output}{problems}", err=True)
    if report.sessions and report.search_index_bytes:
        click.echo(f"search index {byte_size(report.search_index_bytes)}, "
                   f"{report.search_index_bytes / max(1, report.site_bytes):.0%} of the site's {byte_size(report.site_bytes)}",
                   err=True)
    if report.sessions:
        say_redactions(report.redactions, config.redact)
    say_vault(config.vault, report.saved, report.kept, report.pruned)
    return report


def say_redactions(counts: Mapping[str, int], redacted: bool) -> None:
    """How many secrets were taken out, and where to look for what may be left."""
    if not redacted:
        click.echo("nothing was redacted (--no-redact): keep this output to yourself", err=True)
        return
    total = sum(counts.values())
    if total:
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])))
        click.echo(f"redacted {total} secret{'s' if total != 1 else ''} ({kinds}); `sessionsite audit` lists each, "
                   "and what may still be private", err=True)
    else:
        click.echo("no secret found to redact; `sessionsite audit` lists what may still be private", err=True)


def say_vault(vault: Path | None, saved: SaveReport | None, kept: Sequence[str] = (),
               pruned: Sequence[str] = ()) -> None:
    """Where the vault keeps the logs, raw (once per build: a user may not know it does), and what it did
    when that is worth a line (what it saved, with --verbose)."""
    if vault is not None and saved is not None:  # None: the vault could not be used, and a warning said so
        click.echo(vault_line(vault), err=True)
    if saved is not None and saved.saved:
        logging.getLogger("sessionsite").info("saved to the vault %s: %s", vault, saved.summary())
    for skipped in saved.skipped if saved is not None else ():
        click.echo(f"not saved: {skipped}", err=True)
    if kept:
        one = len(kept) == 1
        click.echo(f"{len(kept)} log{'' if one else 's'} {'is' if one else 'are'} gone from where "
                   f"{'it was' if one else 'they were'}: read from the vault ({'its' if one else 'their'} pages say so; "
                   "--prune leaves them out)", err=True)
    if pruned:
        click.echo(f"--prune left out {len(pruned)} log{'s' if len(pruned) != 1 else ''} that "
                   f"{'are' if len(pruned) != 1 else 'is'} gone (the vault still keeps them):", err=True)
        for name in pruned:
            click.echo(f"  {name}", err=True)


def vault_line(vault: Path) -> str:
    return f"vault: a copy of each log read, secrets included, is kept in {vault} (--no-vault turns this off)"
