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
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence, TypeVar
from urllib.parse import urlsplit

import click

from . import __version__
if TYPE_CHECKING:  # the build is loaded by the commands that build: `save`, run by a hook, stays light
    from .config import BuildConfig, BuildReport
    from .output.vault import SaveReport
from .core.errors import InputError, UsageProblem
from .core.text import byte_size
from .stages.discover import default_input

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
    from .build import build

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
        click.echo(f"search index {byte_size(report.search_index_bytes)}, "
                   f"{report.search_index_bytes / max(1, report.site_bytes):.0%} of the site's {byte_size(report.site_bytes)}",
                   err=True)
    _say_vault(config.vault, report.saved, report.kept, report.pruned)
    return report


def _say_vault(vault: Path | None, saved: SaveReport | None, kept: Sequence[str] = (),
               pruned: Sequence[str] = ()) -> None:
    """What the vault did, when it did anything worth a line (what it saved, with --verbose)."""
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
    click.option("--prune", is_flag=True,
                 help="Leave out the sessions whose log is gone (deleted by Claude Code); the vault keeps them."),
]

vault_option = click.option(
    "--vault", "vault_dir", type=click.Path(file_okay=False, path_type=Path), envvar="SESSIONSITE_VAULT",
    show_envvar=True, help="The vault: where every log read is saved, and logs that are gone are read from "
                           "[default: $XDG_DATA_HOME/sessionsite/vault].")
no_vault_option = click.option("--no-vault", is_flag=True,
                               help="Neither save the logs read into the vault nor read the logs it keeps.")


def _vault(vault_dir: Path | None, no_vault: bool = False) -> Path | None:
    if no_vault:
        return None
    from .output.vault import default_location

    return vault_dir or default_location()


def _with_common(function):
    for option in reversed([*common_options, vault_option, no_vault_option]):
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
                  quiet, prune, vault_dir, no_vault, theme, base_url) -> None:
    """Build the HTML archive (with its Markdown intermediates) into OUTPUT.

    Example:

        sessionsite build ~/.claude/projects/-home-me-src-app -o site --report report.json
    """
    from .config import BuildConfig

    config = BuildConfig(inputs=_inputs(inputs), output=output, theme=theme, show_hidden=show_hidden,
                         strict=strict, jobs=jobs, redact=not no_redact, redact_paths=redact_paths,
                         base_url=base_url, vault=_vault(vault_dir, no_vault), prune=prune)
    _run(config, report_file, verbose, quiet)


@main.command("markdown")
@_with_common
def markdown_command(inputs, output, report_file, show_hidden, strict, no_redact, redact_paths, jobs,
                     verbose, quiet, prune, vault_dir, no_vault) -> None:
    """Write only the Markdown intermediates: one .md per session, GitHub-flavoured, with front matter.

    Example:

        sessionsite markdown ~/.claude/projects/-home-me-src-app/1f0c….jsonl -o notes
    """
    from .config import BuildConfig

    config = BuildConfig(inputs=_inputs(inputs), output=output, show_hidden=show_hidden, strict=strict,
                         markdown_only=True, jobs=jobs, redact=not no_redact, redact_paths=redact_paths,
                         vault=_vault(vault_dir, no_vault), prune=prune)
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
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[SESSION.jsonl]...")
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="File to write: FILE.html (self-contained page), FILE.zip (that page, zipped) or FILE.md "
                   "(GitHub-flavoured, for a reviewer, fits a PR comment).")
@click.option("--branch", default="", metavar="NAME",
              help="With no SESSION: bundle this branch's sessions instead of the current branch's.")
@click.option("--show-hidden", is_flag=True, help="Also show system noise (meta entries, reminders, bookkeeping).")
@click.option("--strict", is_flag=True, help="Fail (exit 1) if any input line could not be read.")
@click.option("--no-redact", "no_redact", is_flag=True,
              help="Keep secrets (API keys, tokens, passwords) instead of replacing them with [REDACTED:…].")
@click.option("--redact-paths", is_flag=True, help="Also replace home directories (/home/you, /Users/you) with ~.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="the number of CPUs", help="Processes reading and rendering in parallel.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors.")
@vault_option
@no_vault_option
def bundle_command(inputs, output, branch, show_hidden, strict, no_redact, redact_paths, jobs, verbose, quiet,
                   vault_dir, no_vault) -> None:
    """Write one file to attach to a pull request: the whole piece of work each SESSION belongs to (its
    plan chain, the sessions it continues or that continue it, every subagent transcript).

    With no SESSION, run in a git repository: the sessions Claude Code ran in that repository on the
    current branch (or --branch NAME), with their chains and subagents.

    FILE.html has its CSS, script and images inline and needs no other file; FILE.zip holds that page
    alone (GitHub Enterprise Server takes .zip attachments, not .html). FILE.md is written for a
    reviewer: a summary, then the prompts, plans and Claude's final replies, with tool calls folded, shortened
    (saying what was left out) to fit GitHub's 65,536-character limit for a comment.

    Example:

        sessionsite bundle -o pr.md && gh pr comment --body-file pr.md
    """
    from .bundle import BundleConfig, bundle

    _configure_logging(verbose, quiet)
    config = BundleConfig(inputs=tuple(inputs), output=output, show_hidden=show_hidden, strict=strict,
                          redact=not no_redact, redact_paths=redact_paths, jobs=jobs, vault=_vault(vault_dir, no_vault),
                          branch=branch)
    with _stopped_by_signals(), _errors(verbose):
        report = bundle(config)
    if report.too_large:
        logging.getLogger("sessionsite").warning("%s", report.too_large)
    if not quiet:
        count = len(report.sessions)
        size = f"{report.size:,} characters" if output.suffix.lower() in (".md", ".markdown") \
            else f"{report.size:,} bytes"
        shortened = f", shortened to fit: {report.shortened}" if report.shortened else ""
        of_branch = f" of branch {report.branch}" if report.branch else ""
        click.echo(f"{count} session{'s' if count != 1 else ''}{of_branch} ({size}{shortened}) -> {output}", err=True)
        _say_vault(config.vault, report.saved)


# -- the vault -----------------------------------------------------------------------------------------------


@main.command("save")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]...")
@vault_option
@click.option("--hook", is_flag=True,
              help="Run as Claude Code's hook: save the session named by the hook input on stdin. Never fails "
                   "visibly: problems go to hook.log in the vault.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors.")
def save_command(inputs, vault_dir, hook, verbose, quiet) -> None:
    """Save session logs into the vault, and nothing else: each new log whole, a grown one by what it
    gained, one that lost entries as a new version beside the old. INPUT as for build.

    Example:

        sessionsite save ~/.claude/projects
    """
    from .output.vault import Vault

    vault = Vault(_vault(vault_dir))
    if hook:
        from .claude import hook_save

        hook_save(vault, sys.stdin.read() if not sys.stdin.isatty() else "")
        return
    _configure_logging(verbose, quiet)
    from .stages.discover import find

    with _errors(verbose):
        report = vault.save(find(list(_inputs(inputs))), None if quiet else _progress)
    for skipped in report.skipped:
        click.echo(f"not saved: {skipped}", err=True)
    if not quiet:
        click.echo(f"{report.summary()} -> {vault.folder} ({byte_size(vault.size_on_disk())})", err=True)


@main.command("restore")
@click.argument("session_id")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write the logs into [default: the session's project folder under ~/.claude/projects].")
@click.option("--version", "number", type=click.IntRange(min=1),
              help="Which version of the session's log, when the vault keeps several (see --list) "
                   "[default: the latest].")
@click.option("--list", "list_only", is_flag=True, help="List the logs and versions the vault keeps; write nothing.")
@vault_option
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks.")
def restore_command(session_id, output, number, list_only, vault_dir, verbose) -> None:
    """Write a session the vault keeps (and its subagents' logs) back as Claude Code wrote it, byte for
    byte, so that `claude --resume` finds it. Never overwrites a log that is there.

    Example:

        sessionsite restore 5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90
    """
    from .output.vault import Vault, restore

    _configure_logging(verbose)
    with _errors(verbose):
        result = restore(Vault(_vault(vault_dir)), session_id, output, default_input(), number, list_only)
    for line in result.lines:
        click.echo(line, err=not list_only)


@main.group("hook")
def hook_group() -> None:
    """Save every session when it ends: a Claude Code hook (SessionEnd, and PreCompact so that a long
    session is saved before it is compacted) running `sessionsite save --hook`.

    Example:

        sessionsite hook install
    """


settings_option = click.option(
    "--settings", "settings_file", type=click.Path(dir_okay=False, path_type=Path),
    help="Claude Code's settings file [default: ~/.claude/settings.json, or in $CLAUDE_CONFIG_DIR].")


@hook_group.command("install")
@settings_option
@vault_option
def hook_install_command(settings_file, vault_dir) -> None:
    """Add the hooks to Claude Code's settings, beside the hooks already there (a backup of the file is
    kept). Running it again changes nothing.

    Example:

        sessionsite hook install
    """
    from .claude import hook_command, install, settings_path

    path = settings_file or settings_path()
    with _errors(False):
        change = install(path, hook_command(vault_dir))
    if change.changed:
        backup = f" (the previous file is kept as {change.backup})" if change.backup else ""
        click.echo(f"added the {' and '.join(change.events)} hook to {path}{backup}", err=True)
    else:
        click.echo(f"the hooks are already in {path}", err=True)


@hook_group.command("uninstall")
@settings_option
def hook_uninstall_command(settings_file) -> None:
    """Take the hooks `hook install` added out of Claude Code's settings, and nothing else.

    Example:

        sessionsite hook uninstall
    """
    from .claude import settings_path, uninstall

    path = settings_file or settings_path()
    with _errors(False):
        change = uninstall(path)
    if change.changed:
        click.echo(f"removed the {' and '.join(change.events)} hook from {path} (the previous file is kept as "
                   f"{change.backup})", err=True)
    else:
        click.echo(f"no sessionsite hook in {path}", err=True)


@main.command("doctor")
@settings_option
@vault_option
def doctor_command(settings_file, vault_dir) -> None:
    """Check that your sessions are safe: whether the vault is missing logs that are only in
    ~/.claude/projects, what cleanupPeriodDays is set to, and whether the hook is installed. Exits 1 when
    something needs doing.

    Example:

        sessionsite doctor
    """
    from .claude import doctor, settings_path
    from .output.vault import Vault

    with _errors(False):
        checkup = doctor(Vault(_vault(vault_dir)), settings_file or settings_path())
    for line in checkup.lines:
        click.echo(line)
    if checkup.problems:
        sys.exit(1)
