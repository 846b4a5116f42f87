"""The `sessionsite` command line: Click's groups, commands and options; the work is in `commands/`."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Callable, TypeVar
from urllib.parse import urlsplit

import click

from . import CLAUDE_CODE_VERSIONS, __version__
from .commands.options import Options, build_config_from
from .commands.running import run

T = TypeVar("T")
Command = TypeVar("Command", bound=Callable[..., Any])


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
                           "[default: sessionsite/vault in the platform's data folder: $XDG_DATA_HOME or "
                           "~/.local/share, ~/Library/Application Support, %LOCALAPPDATA%].")
no_vault_option = click.option("--no-vault", is_flag=True,
                               help="Neither save the logs read into the vault nor read the logs it keeps.")


def _load_config(context: click.Context, parameter: click.Parameter, value: Path | None) -> Path | None:
    """Eager: the config file's values become the defaults of the command's other options (Click's
    `default_map`), which the command line overrides."""
    from .config_file import find, load

    path = value or find(Path.cwd())
    if path is None:
        return None
    config = load(path)
    name = context.info_name or ""
    context.default_map = {**config.defaults.get(name, {}), **(context.default_map or {})}
    context.meta["sessionsite.config"] = path
    logging.getLogger("sessionsite").debug("config: %s", path)
    return path


config_option = click.option(
    "--config-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), is_eager=True,
    callback=_load_config, expose_value=False,
    help="The config file [default: sessionsite.toml, or pyproject.toml's [tool.sessionsite], in the current folder].")

selection_options = [
    click.option("--since", metavar="WHEN", help="Only sessions active since WHEN: a date (2026-03-01, UTC), a time "
                                                 "(2026-03-01T14:00Z), or a time back (7d, 2w, 3m, 1y)."),
    click.option("--until", metavar="WHEN", help="Only sessions active before the end of WHEN (a date: the whole day)."),
    click.option("--project", "projects", multiple=True, metavar="PATTERN",
                 help="Only this project: its name, path or folder, or a pattern (*app*). Repeatable."),
    click.option("--exclude", "excludes", multiple=True, metavar="PATTERN",
                 help="Never publish these projects or sessions (a pattern, a session id or its start, a slug). "
                      "Repeatable."),
    click.option("--branch", "branches", multiple=True, metavar="NAME",
                 help="Only sessions on this git branch (a name or a pattern). Repeatable."),
    click.option("--session", "session_ids", multiple=True, metavar="ID",
                 help="Only this session (its id, or the start of it). Repeatable."),
]

own_redaction_options = [
    click.option("--redact", "redact_patterns", multiple=True, metavar="PATTERN",
                 help="Also redact what this regular expression matches ([REDACTED:custom-pattern]). Repeatable."),
    click.option("--redact-word", "redact_words", multiple=True, metavar="WORD",
                 help="Also redact this word, in any case (a host name, a client's name). Repeatable."),
]


yes_option = click.option(
    "--yes", is_flag=True, help="Publish the values that look like secrets and nobody reviewed as they are (said "
                                "loudly; nothing is decided: `sessionsite review` decides).")


encryption_options = [
    click.option("--encrypt", is_flag=True,
                 help="Encrypt everything (pages, search index, Markdown, file names) with a new random key, or "
                      "--key-file's, or a passphrase's; print the link that opens it (the key in its #fragment, "
                      "never sent to a server). The pages unlock in the browser (docs/security.md)."),
    click.option("--key-file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
                 help="With --encrypt: the key is kept in FILE (made, readable by you alone, when it does not "
                      "exist): later builds keep the same key, link and unchanged files."),
    click.option("--passphrase-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE",
                 help="With --encrypt: derive the key from the passphrase on FILE's first line (PBKDF2-SHA256, "
                      "600,000 rounds, salted); readers type it to unlock."),
    click.option("--passphrase", is_flag=True, help="With --encrypt: ask for the passphrase in the terminal."),
]


def _with_encryption(function: Command) -> Command:
    for option in reversed(encryption_options):
        function = option(function)
    return function


def _with_choice(function: Command) -> Command:
    """The options every command that publishes shares: the config file, the selection, the own redaction."""
    for option in reversed([config_option, *selection_options, *own_redaction_options]):
        function = option(function)
    return function


def _with_common(function: Command) -> Command:
    for option in reversed([*common_options, vault_option, no_vault_option]):
        function = option(function)
    return _with_choice(function)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessionsite",
                      message=f"%(prog)s, version %(version)s (reads Claude Code {CLAUDE_CODE_VERSIONS})")
def main() -> None:
    """Turn Claude Code session logs (and Codex CLI's) into a static website.

    INPUT is a session .jsonl file, a project folder, or a folder of project folders (or of Codex CLI's
    sessions); with none, ~/.claude/projects and Codex CLI's ~/.codex/sessions and archived_sessions
    ($CODEX_HOME) are read.

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


def _repo_url(context: click.Context, parameter: click.Parameter, value: str | None) -> str:
    if not value:
        return ""
    from .stages.commits import repository_url

    address = repository_url(value)
    if not address:
        raise click.BadParameter(f"{value!r}: give the repository's web address, such as https://github.com/owner/repo")
    return address


repo_url_option = click.option(
    "--repo-url", callback=_repo_url, metavar="URL",
    help="The repository's web address (e.g. https://github.com/owner/repo): each commit's SHA links to "
         "URL/commit/SHA [default: the remote the session's own git push output names].")


@main.command("build")
@_with_common
@click.option("--theme", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Theme folder whose templates/ and static/ override the default theme's.")
@click.option("--base-url", callback=_base_url, metavar="URL",
              help="Where the site will be published (e.g. https://you.github.io/repo/): pages get canonical "
                   "links, and a sitemap.xml is written.")
@repo_url_option
@click.option("--title", help="The site's title, on its home page and in every page's title [default: sessionsite].")
@yes_option
@_with_encryption
def build_command(**values: Any) -> None:
    """Build the HTML archive (with its Markdown intermediates) into OUTPUT. With --strict, as for
    gh-deploy: nothing is built while a value that looks like a secret waits for review.

    Example:

        sessionsite build ~/.claude/projects/-home-me-src-app -o site --report report.json
    """
    options = Options(**values)
    review = None
    if options.strict:
        from .commands.review import how_to_review, review_before_publishing

        review = review_before_publishing(options.yes, how_to_review(options))
    config = build_config_from(options)
    run(config, options.report_file, options.verbose, options.quiet, review=review)
    if config.key is not None:
        from .commands.encryption import LIMITS, say_link, site_address

        if not options.quiet:
            click.echo(LIMITS, err=True)
        say_link(config.key, site_address(config.output, config.base_url), options,
                 zipped=config.output.suffix.lower() == ".zip")


@main.command("markdown")
@_with_common
@repo_url_option
def markdown_command(**values: Any) -> None:
    """Write only the Markdown intermediates: one .md per session, GitHub-flavoured, with front matter.

    Example:

        sessionsite markdown ~/.claude/projects/-home-me-src-app/1f0c….jsonl -o notes
    """
    options = Options(**values)
    run(build_config_from(options, markdown_only=True), options.report_file, options.verbose, options.quiet)


@main.command("json")
@_with_common
@repo_url_option
def json_command(**values: Any) -> None:
    """Write the sessions as JSON, for analysis: one document per session (its prompts, replies, tool
    calls with their results, plans, subagents, commits and figures), and index.json listing them all.
    Redacted as the site is. The format is described by a JSON Schema (docs/json-export.md).

    Example:

        sessionsite json ~/.claude/projects --since 30d -o sessions-json
    """
    from .json_export import export

    options = Options(**values)
    run(build_config_from(options, markdown_only=True), options.report_file, options.verbose, options.quiet,
         writer=export, unit="JSON document")


@main.command("serve")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]...")
@click.option("-p", "--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--show-hidden", is_flag=True, help="Logs: also show system noise (meta entries, reminders, bookkeeping).")
@click.option("--no-redact", "no_redact", is_flag=True,
              help="Logs: keep secrets (API keys, tokens, passwords) instead of replacing them with [REDACTED:…].")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="the number of CPUs", help="Logs: processes rendering pages in parallel.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@vault_option
@no_vault_option
def serve_command(port: int, **values: Any) -> None:
    """Show a site on http://127.0.0.1:PORT/ (only this machine can reach it). Ctrl-C stops.

    INPUT is a built site (a folder or a .zip), or logs (as for build; with none, ~/.claude/projects).
    Logs are built into a cache folder and watched: open pages show new messages and sessions as
    they are written.

    Example:

        sessionsite serve ~/.claude/projects/-home-me-src-app
    """
    from .commands.serve import serve_site_or_logs

    serve_site_or_logs(Options(**values), port)


@main.command("bundle")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[SESSION.jsonl]...")
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="File to write: FILE.html (self-contained page), FILE.zip (that page, zipped) or FILE.md "
                   "(GitHub-flavoured, for a reviewer, fits a PR comment).")
@click.option("--show-hidden", is_flag=True, help="Also show system noise (meta entries, reminders, bookkeeping).")
@click.option("--strict", is_flag=True, help="Fail (exit 1) if any input line could not be read.")
@click.option("--no-redact", "no_redact", is_flag=True,
              help="Keep secrets (API keys, tokens, passwords) instead of replacing them with [REDACTED:…].")
@click.option("--redact-paths", is_flag=True, help="Also replace home directories (/home/you, /Users/you) with ~.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="the number of CPUs", help="Processes reading and rendering in parallel.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors.")
@click.option("--commits", "commit_range", metavar="A..B",
              help="Bundle the sessions that made the commits of this range (resolved by git in the current "
                   "folder's repository) instead of SESSIONs; then give project folders to look in, or none "
                   "for the repository's under ~/.claude/projects.")
@repo_url_option
@vault_option
@no_vault_option
@_with_choice
@click.option("--theme", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Theme folder whose templates/ and static/ override the default theme's (the HTML bundle's look).")
@yes_option
@_with_encryption
def bundle_command(**values: Any) -> None:
    """Write one file to attach to a pull request: the whole piece of work each SESSION belongs to (its
    plan chain, the sessions it continues or that continue it, every subagent transcript).

    With no SESSION, run in a git repository: the sessions Claude Code ran in that repository on the
    current branch (or --branch NAME), with their chains and subagents.

    FILE.html has its CSS, script and images inline and needs no other file; FILE.zip holds that page
    alone (GitHub Enterprise Server takes .zip attachments, not .html). FILE.md is written for a
    reviewer: a summary, then the prompts, plans and Claude's final replies, with tool calls folded, shortened
    (saying what was left out) to fit GitHub's 65,536-character limit for a comment.

    Nothing is written while a value that looks like a secret waits for review: at a terminal each is
    asked about (see `sessionsite review`), elsewhere the command stops and says so.

    Example:

        sessionsite bundle -o pr.md && gh pr comment --body-file pr.md

        sessionsite bundle --commits main..HEAD -o pr-notes.md

        sessionsite bundle ~/.claude/projects/-home-me-src-app/1f0c….jsonl -o pr-notes.html
    """
    from .commands.bundle import bundle_and_say

    bundle_and_say(Options(**values))


@main.command("gh-deploy")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]...")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Build into this folder, kept for the next deploy to build only what changed "
                   "[default: a temporary folder].")
@click.option("--remote", default="origin", show_default=True, help="The git remote to push to (a name or a URL).")
@click.option("--remote-branch", "deploy_branch", default="gh-pages", show_default=True, metavar="BRANCH",
              help="The branch that holds the published site.")
@click.option("-m", "--message", default=None, metavar="TEXT",
              help="The commit message; {sha} is the current commit, {version} sessionsite's "
                   "[default: Deployed {sha} with sessionsite {version}].")
@click.option("--no-push", is_flag=True, help="Commit to the branch here, and do not push it.")
@click.option("--theme", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Theme folder whose templates/ and static/ override the default theme's.")
@click.option("--base-url", callback=_base_url, metavar="URL",
              help="Where the site is served from (https://you.github.io/repo/): canonical links and a sitemap.")
@click.option("--title", help="The site's title [default: sessionsite].")
@click.option("--redact-paths", is_flag=True, help="Also replace home directories (/home/you, /Users/you) with ~.")
@click.option("--show-hidden", is_flag=True, help="Also show system noise (meta entries, reminders, bookkeeping).")
@click.option("--strict", is_flag=True, help="Fail (exit 1), and publish nothing, if any input line could not be read.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="the number of CPUs", help="Processes rendering pages in parallel.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors.")
@yes_option
@vault_option
@no_vault_option
@_with_choice
@_with_encryption
def gh_deploy_command(remote: str, deploy_branch: str, message: str | None, no_push: bool, **values: Any) -> None:
    """Build the site (redacted) and commit it, and nothing else, to the gh-pages branch of the git
    repository of the current folder, then push it: GitHub Pages serves it from there. Your working tree,
    index and current branch are not touched, and no session log is ever committed. Nothing is published
    while a value that looks like a secret waits for review (see `sessionsite review`).

    Example:

        sessionsite gh-deploy ~/.claude/projects/-home-me-src-app --since 30d
    """
    from .commands.deploy import build_and_deploy

    build_and_deploy(Options(**values), remote, deploy_branch, message, push=not no_push)


@main.command("audit")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]...")
@click.option("--site", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The site built from these sessions: each place is also a link into it (page#anchor).")
@click.option("--redact-paths", is_flag=True, help="As the build will: replace home directories with ~.")
@click.option("--strict", is_flag=True, help="Exit 1 when there is anything to review (redacted, or not).")
@click.option("--all", "everything", is_flag=True, help="List every value of each kind, not the 30 most frequent.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="the number of CPUs", help="Processes reading in parallel.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@vault_option
@no_vault_option
@_with_choice
def audit_command(site: Path | None, everything: bool, **values: Any) -> None:
    """Before publishing, list what to look at: each redaction made (its kind, session and line, the
    secret masked), and what looks private but was not redacted (e-mail addresses, IP addresses, host
    names, home folders, long random-looking strings), grouped and counted. Takes the same selection and
    redaction options as build; no secret is ever printed whole.

    Example:

        sessionsite audit ~/.claude/projects/-home-me-src-app --since 30d --site site
    """
    from .commands.audit import audit_and_list

    audit_and_list(Options(**values), site, everything)


@main.command("review")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]...")
@click.option("--list", "list_only", is_flag=True, help="List the decisions kept (no value is kept: its digest, "
                                                        "kind, length and where it was first seen); review nothing.")
@click.option("--forget", multiple=True, metavar="ID", help="Forget a decision (ID: the start of its digest, as "
                                                            "--list shows it); the value is asked about again. "
                                                            "Repeatable.")
@click.option("--decide", multiple=True, metavar="ID=redact|keep", help="Change a decision. Repeatable.")
@click.option("--again", is_flag=True, help="Also put the values decided already, to change their decisions.")
@click.option("--redact-paths", is_flag=True, help="As the build will: replace home directories with ~.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="the number of CPUs", help="Processes reading in parallel.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@vault_option
@no_vault_option
@_with_choice
def review_command(list_only: bool, forget: tuple[str, ...], decide: tuple[str, ...], again: bool,
                   **values: Any) -> None:
    """Decide, for each value that looks like a secret no rule knows (long, random-looking), whether to
    redact it in everything published or keep it: one key a value (r, k, s to skip, q to quit), shown
    masked, counted, in its context. Decisions are kept by a keyed digest (never the value), so a value
    is asked about once; gh-deploy, bundle and build --strict publish nothing while one waits.

    Example:

        sessionsite review ~/.claude/projects/-home-me-src-app --since 30d

        sessionsite review --list
    """
    from .commands.review import change_decisions, listing, review_sessions
    from .commands.running import errors
    from .output.decisions import DecisionStore

    options = Options(**values)
    if list_only or forget or decide:
        with errors(options.verbose):
            if forget or decide:
                change_decisions(forget, decide)
            if list_only:
                store = DecisionStore()
                for line in listing(store.load()[1] if store.path.exists() else {}):
                    click.echo(line)
        return
    review_sessions(options, again)


# -- the vault -----------------------------------------------------------------------------------------------


@main.command("save")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[INPUT]...")
@vault_option
@click.option("--hook", is_flag=True,
              help="Run as Claude Code's hook: save the session named by the hook input on stdin. Never fails "
                   "visibly: problems go to hook.log in the vault.")
@click.option("-v", "--verbose", is_flag=True, help="Say more, and show tracebacks.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing but errors.")
def save_command(inputs: tuple[Path, ...], vault_dir: Path | None, hook: bool, verbose: bool, quiet: bool) -> None:
    """Save session logs into the vault, and nothing else: each new log whole, a grown one by what it
    gained, one that lost entries as a new version beside the old. INPUT as for build.

    Example:

        sessionsite save ~/.claude/projects
    """
    from .commands.vault import save_logs

    save_logs(inputs, vault_dir, hook, verbose, quiet)


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
def restore_command(session_id: str, output: Path | None, number: int | None, list_only: bool,
                    vault_dir: Path | None, verbose: bool) -> None:
    """Write a session the vault keeps (and its subagents' logs) back as Claude Code wrote it, byte for
    byte, so that `claude --resume` finds it. Never overwrites a log that is there.

    Example:

        sessionsite restore 5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90
    """
    from .commands.vault import restore_session

    restore_session(session_id, output, number, list_only, vault_dir, verbose)


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
def hook_install_command(settings_file: Path | None, vault_dir: Path | None) -> None:
    """Add the hooks to Claude Code's settings, beside the hooks already there (a backup of the file is
    kept; a symlinked file is edited through the link; a read-only one is left alone). The hook runs a
    sessionsite that lives outside any git checkout when there is one (pipx's, uv tool's), and says so
    when it can only run one inside a clone, which stops working if the clone moves. Running it again
    changes nothing.

    Example:

        sessionsite hook install
    """
    from .commands.vault import install_hook

    install_hook(settings_file, vault_dir)


@hook_group.command("uninstall")
@settings_option
def hook_uninstall_command(settings_file: Path | None) -> None:
    """Take the hooks `hook install` added out of Claude Code's settings, and nothing else.

    Example:

        sessionsite hook uninstall
    """
    from .commands.vault import uninstall_hook

    uninstall_hook(settings_file)


@main.command("doctor")
@settings_option
@vault_option
def doctor_command(settings_file: Path | None, vault_dir: Path | None) -> None:
    """Check that your sessions are safe: whether the vault is missing logs that are only in
    ~/.claude/projects, what cleanupPeriodDays is set to, and whether the hook (or the Claude Code plugin)
    is installed and its command runs and finds sessionsite (it is run on a session that wrote nothing, so
    it saves nothing). Exits 1 when something needs doing.

    Example:

        sessionsite doctor
    """
    from .commands.vault import check_up

    check_up(settings_file, vault_dir)
