"""The vault's commands: `save` (also Claude Code's hook), `restore`, `hook install|uninstall`, `doctor`.

`save` is run by a hook at the end of every session: it loads the vault and nothing of the build."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.text import byte_size
from ..stages.discover import default_input
from .options import inputs_or_default, vault_folder
from .running import configure_logging, errors, progress


def save_logs(inputs: tuple[Path, ...], vault_dir: Path | None, hook: bool, verbose: bool, quiet: bool) -> None:
    """Save the logs under `inputs` into the vault; as the hook, the session named on stdin, silently."""
    from ..output.vault import Vault

    vault = Vault(vault_folder(vault_dir))
    if hook:
        from ..claude import hook_save

        hook_save(vault, sys.stdin.read() if not sys.stdin.isatty() else "")
        return
    configure_logging(verbose, quiet)
    from ..stages.discover import find

    with errors(verbose):
        report = vault.save(find(list(inputs_or_default(inputs))), None if quiet else progress)
    for skipped in report.skipped:
        click.echo(f"not saved: {skipped}", err=True)
    if not quiet:
        click.echo(f"{report.summary()} -> {vault.folder} ({byte_size(vault.size_on_disk())})", err=True)


def restore_session(session_id: str, output: Path | None, number: int | None, list_only: bool,
                    vault_dir: Path | None, verbose: bool) -> None:
    """Write a session the vault keeps back where Claude Code looks for it (or list its versions); exit 1
    when a copy is damaged."""
    from ..output.vault import Vault, restore

    configure_logging(verbose)
    with errors(verbose):
        result = restore(Vault(vault_folder(vault_dir)), session_id, output, default_input(), number, list_only)
    for line in result.lines:
        click.echo(line, err=not list_only)
    if result.damaged:
        for line in result.damaged:
            click.echo(f"{'damaged' if list_only else 'Error: not restored'}: {line} (see `sessionsite doctor`)",
                       err=True)
        sys.exit(1)


def install_hook(settings_file: Path | None, vault_dir: Path | None) -> None:
    from ..claude import hook_command, hook_program, install, settings_path

    path = settings_file or settings_path()
    program = hook_program()
    with errors(False):
        change = install(path, hook_command(vault_dir, program))
    if change.changed:
        backup = f" (the previous file is kept as {change.backup})" if change.backup else ""
        click.echo(f"added the {' and '.join(change.events)} hook to {path}{backup}", err=True)
    else:
        click.echo(f"the hooks are already in {path}", err=True)
    warning = program.warning()
    if warning:
        click.echo(f"warning: {warning}", err=True)


def uninstall_hook(settings_file: Path | None) -> None:
    from ..claude import settings_path, uninstall

    path = settings_file or settings_path()
    with errors(False):
        change = uninstall(path)
    if change.changed:
        click.echo(f"removed the {' and '.join(change.events)} hook from {path} (the previous file is kept as "
                   f"{change.backup})", err=True)
    else:
        click.echo(f"no sessionsite hook in {path}", err=True)


def check_up(settings_file: Path | None, vault_dir: Path | None) -> None:
    """Print the doctor's findings; exit 1 when something needs doing."""
    from ..claude import doctor, settings_path
    from ..output.vault import Vault

    with errors(False):
        checkup = doctor(Vault(vault_folder(vault_dir)), settings_file or settings_path())
    for line in checkup.lines:
        click.echo(line)
    if checkup.problems:
        sys.exit(1)
