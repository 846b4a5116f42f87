"""`sessionsite serve`: a built site as it is, or logs built into a cache folder and watched."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.errors import InputError
from .options import Options, build_config_from, inputs_or_default
from .running import configure_logging, errors, stopped_by_signals, vault_line

if TYPE_CHECKING:
    from ..serve import Generation


def serve_site_or_logs(options: Options, port: int) -> None:
    """Serve a site (a folder or a .zip) as it is; serve logs built into a cache folder, rebuilt as they grow."""
    from ..serve import LiveSite, is_site, live_config, unzipped

    verbose = options.verbose
    configure_logging(verbose)
    given = inputs_or_default(options.inputs)
    with errors(verbose), stopped_by_signals():
        if len(given) == 1 and given[0].is_file() and given[0].suffix.lower() == ".zip":
            with unzipped(given[0]) as site:
                serve_until_stopped(site, port, given[0])
            return
        if len(given) == 1 and given[0].is_dir() and is_site(given[0]):
            serve_until_stopped(given[0], port, given[0])
            return
        from ..stages.discover import find

        if not find(list(given)):
            raise InputError(f"{', '.join(map(str, given))}: neither a site (no index.html) nor Claude Code logs "
                             "(no .jsonl session files)")
        config = live_config(build_config_from(replace(options, inputs=given), output=Path()))
        live = LiveSite(config)
        click.echo(f"Building {', '.join(map(str, given))} into {config.output}", err=True)
        live.build_once()
        if config.vault is not None and live.saved is not None:
            click.echo(vault_line(config.vault), err=True)
        watcher = threading.Thread(target=live.watch, name="sessionsite-watch", daemon=True)
        watcher.start()
        try:
            serve_until_stopped(config.output, port, given[0] if len(given) == 1 else config.output,
                                 live.generation, watching=True)
        finally:
            live.stop()
            watcher.join()  # a rebuild under way finishes (or is cleaned up) before the command ends


def serve_until_stopped(site: Path, port: int, shown_as: Path, generation: Generation | None = None,
                         watching: bool = False) -> None:
    from ..serve import serve

    try:
        server = serve(site, port, generation)
    except OSError as error:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port} ({error.strerror}); "
                                   "choose another with --port, or --port 0 for any free one") from None
    with server:
        what = "Watching and serving" if watching else "Serving"
        click.echo(f"{what} {shown_as} at {server.url} (Ctrl-C to stop)", err=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            click.echo("stopped", err=True)
