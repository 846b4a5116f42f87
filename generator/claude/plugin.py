"""The sessionsite plugin for Claude Code, as `claude plugin install` put it in place, and a trial run of
its hook."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import SessionsiteError
from .settings import load_settings
from .trial_run import trial


PLUGIN_NAME = "sessionsite"
PLUGIN_RUNNER = ("bin", "sessionsite-run")
"""The program in the plugin's folder that its hooks and slash commands run: it finds sessionsite."""


@dataclass(frozen=True)
class InstalledPlugin:
    """A sessionsite plugin `claude plugin install` put in place."""

    key: str
    """Its id, `sessionsite@<marketplace>`."""
    folder: Path
    """Where Claude Code reads it from: its installed copy, or, for a marketplace added from a folder, that
    folder's plugin."""
    enabled: bool


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _local_marketplace_folder(claude: Path, marketplace: str) -> Path | None:
    """For a marketplace added from a folder (`claude plugin marketplace add /path/to/clone`), that folder:
    Claude Code reads the marketplace's plugins from it, not from their installed copies."""
    known = _read_json(claude / "plugins" / "known_marketplaces.json")
    entry = known.get(marketplace) if isinstance(known, dict) else None
    source = entry.get("source") if isinstance(entry, dict) else None
    if not isinstance(source, dict) or source.get("source") != "directory":
        return None
    folder = source.get("path")
    return Path(folder) if isinstance(folder, str) and os.path.isabs(folder) else None


def _plugin_in_marketplace(folder: Path) -> Path:
    """Where the marketplace in `folder` keeps the sessionsite plugin (its entry's relative `source`); the
    folder itself when its marketplace.json is gone or names none, which the trial then reports."""
    listing = _read_json(folder / ".claude-plugin" / "marketplace.json")
    entries = listing.get("plugins") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        source = entry.get("source") if isinstance(entry, dict) else None
        if isinstance(source, str) and entry.get("name") == PLUGIN_NAME:
            return folder / source
    return folder


def installed_plugins(claude: Path, settings: Path) -> list[InstalledPlugin]:
    """The sessionsite plugins `plugins/installed_plugins.json` in Claude Code's folder lists, each with the
    folder Claude Code reads it from, and whether the settings leave them enabled. A file it cannot read,
    or of a shape it does not know, lists none."""
    data = _read_json(claude / "plugins" / "installed_plugins.json")
    plugins = data.get("plugins") if isinstance(data, dict) else None
    try:
        enabled = load_settings(settings).get("enabledPlugins")
    except SessionsiteError:
        enabled = None
    found = []
    for key, installs in plugins.items() if isinstance(plugins, dict) else ():
        if not isinstance(key, str) or key.split("@", 1)[0] != PLUGIN_NAME:
            continue
        local = _local_marketplace_folder(claude, key.partition("@")[2])
        for install in installs if isinstance(installs, list) else [installs]:
            folder = install.get("installPath") if isinstance(install, dict) else None
            if isinstance(folder, str) and os.path.isabs(folder):
                found.append(InstalledPlugin(key, _plugin_in_marketplace(local) if local else Path(folder),
                                             not isinstance(enabled, dict) or enabled.get(key) is not False))
    return found


def try_plugin(plugin: InstalledPlugin, timeout: float | None = None) -> str | None:
    """Run the plugin's hook as Claude Code does when a session ends (its program, with CLAUDE_PLUGIN_ROOT
    set and this environment's PATH), on a session that wrote nothing: None when it finds sessionsite and
    works, else what went wrong."""
    runner = plugin.folder.joinpath(*PLUGIN_RUNNER)
    if not runner.is_file():
        return (f"{runner} is missing: if the marketplace's folder moved, add it again from where it is now "
                f"(`claude plugin marketplace add FOLDER`), else reinstall the plugin (`claude plugin install "
                f"{plugin.key}`)")
    return trial([str(runner), "save", "--hook"], timeout, {**os.environ, "CLAUDE_PLUGIN_ROOT": str(plugin.folder)})
