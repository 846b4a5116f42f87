"""`sessionsite doctor`: what stands between the user's sessions and losing them (the vault, Claude Code's
cleanup period, logs not yet saved, the plugin and the hook)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import SessionsiteError
from ..core.text import byte_size
from ..stages.discover import claude_folder, default_input, find
from ..output.vault import HOOK_LOG, Vault, VaultError
from .plugin import installed_plugins, try_plugin
from .settings import EVENTS, installed_events, load_settings, our_commands
from .trial_run import try_hook


DEFAULT_CLEANUP_DAYS = 30
"""Claude Code deletes a log this many days after its last activity unless `cleanupPeriodDays` says."""


@dataclass
class Checkup:
    lines: list[str] = field(default_factory=list)
    problems: int = 0

    def ok(self, text: str) -> None:
        self.lines.append(f"ok    {text}")

    def warn(self, text: str) -> None:
        self.lines.append(f"warn  {text}")
        self.problems += 1

    def note(self, text: str) -> None:
        self.lines.append(f"      {text}")


def cleanup_days(settings: Path) -> tuple[int | None, str]:
    """`cleanupPeriodDays` from Claude Code's settings, and how to say it."""
    try:
        value = load_settings(settings).get("cleanupPeriodDays")
    except SessionsiteError as error:
        return None, str(error)
    if value is None:
        return DEFAULT_CLEANUP_DAYS, (f"cleanupPeriodDays is not set in {settings}: Claude Code deletes a log "
                                      f"{DEFAULT_CLEANUP_DAYS} days after its last activity")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        if value == 0:
            return 0, f"cleanupPeriodDays is 0 in {settings}: Claude Code may keep no log past the session"
        return value, (f"cleanupPeriodDays is {value} in {settings}: Claude Code deletes a log {value} days after "
                       "its last activity")
    return None, f"cleanupPeriodDays is {value!r} in {settings}, which is not a number of days"


def doctor(vault: Vault, settings: Path, projects: Path | None = None) -> Checkup:
    """What stands between the user's sessions and losing them."""
    checkup = Checkup()
    projects = projects or default_input()
    stored, damaged, below = [], [], []
    try:
        stored = vault.stored()
        damaged = vault.check()
        below = vault.file_problems()
    except VaultError as error:  # not a database, cut short, locked, another schema
        checkup.warn(f"{error} ({vault.database}): it cannot be read; move it aside to start a new vault (a "
                     "build still reads the live logs)")
    else:
        if stored:
            gone = sum(1 for s in stored if not Path(s.place.origin).exists())
            checkup.ok(f"vault {vault.folder}: {len(stored)} logs, {byte_size(vault.size_on_disk())}"
                       + (f"; {gone} of them gone from where they were (kept only here)" if gone else "")
                       + ("" if damaged or below else "; every chunk checks out against its digest"))
        elif not damaged:
            checkup.warn(f"vault {vault.folder} is empty: run `sessionsite save` (or a build) to fill it")
    if below:
        checkup.warn(f"SQLite finds the file of the vault damaged ({vault.database}): {below[0]}"
                     + (f" (and {len(below) - 1} more)" if len(below) > 1 else "") + "; what it keeps can still be "
                     "read where the damage is not (`sqlite3 vault.sqlite3 .recover` can copy it out)")
    if damaged:
        one = len(damaged) == 1
        checkup.warn(f"{len(damaged)} log{'' if one else 's'} in the vault {vault.folder} {'is' if one else 'are'} "
                     f"damaged: {'it' if one else 'they'} can be neither built nor restored from it. To repair a "
                     "log, save an intact copy of it: copy it back where it was (or touch the live log, if it is "
                     "still there) and run `sessionsite save`")
        for found in damaged[:20]:
            checkup.note(found.describe())
        if len(damaged) > 20:
            checkup.note(f"… and {len(damaged) - 20} more")
    days, said = cleanup_days(settings)
    (checkup.ok if days is None or days >= DEFAULT_CLEANUP_DAYS else checkup.warn)(said)
    if projects.is_dir():
        known = {s.place.origin: s.live for s in stored}
        unsaved, changed, soon = [], [], []
        now = time.time()
        for session_file in find([projects]):
            try:
                info = session_file.path.stat()
            except OSError:
                continue
            origin = str(session_file.path.resolve())
            if origin not in known:
                unsaved.append(session_file)
            elif known[origin] != (info.st_size, info.st_mtime_ns):
                changed.append(session_file)
            else:
                continue
            if days is not None and now - info.st_mtime > max(0, days - 5) * 86400:
                soon.append(session_file)
        if unsaved or changed:
            checkup.warn(f"{len(unsaved)} logs in {projects} are not in the vault, and {len(changed)} changed since "
                         "they were saved: run `sessionsite save`")
            for session_file in (unsaved + changed)[:10]:
                checkup.note(str(session_file.path))
            if len(unsaved) + len(changed) > 10:
                checkup.note(f"… and {len(unsaved) + len(changed) - 10} more")
            if soon and days is not None:
                checkup.warn(f"{len(soon)} of them are due for deletion by Claude Code within 5 days "
                             f"(last active over {max(0, days - 5)} days ago)")
        else:
            checkup.ok(f"every log in {projects} is in the vault")
    else:
        checkup.note(f"{projects} does not exist: no Claude Code logs on this machine")
    plugins = installed_plugins(claude_folder(), settings)
    plugin_saves = False
    for plugin in plugins:
        if not plugin.enabled:
            checkup.note(f"the sessionsite plugin {plugin.key} is installed but disabled in {settings}")
            continue
        failure = try_plugin(plugin)
        if failure:
            checkup.warn(f"the sessionsite plugin {plugin.key} cannot save sessions, and its slash commands cannot "
                         f"run: {failure}")
            checkup.note(f"the plugin's folder: {plugin.folder}")
        else:
            plugin_saves = True
            checkup.ok(f"the sessionsite plugin {plugin.key} saves each session when it ends and before it is "
                       "compacted; its command finds sessionsite")
    events = installed_events(settings)
    if plugin_saves and events:
        checkup.note(f"the hook in {settings} saves each session too; one is enough: `sessionsite hook uninstall` "
                     "takes it out")
    if set(events) == set(EVENTS):
        broken = [(command, failure) for command in our_commands(settings) if (failure := try_hook(command))]
        for command, failure in broken:
            checkup.warn(f"the hook in {settings} cannot save sessions: {failure}. Run `sessionsite hook install` "
                         "again, from a sessionsite installed where it stays (pipx, `uv tool install`)")
            checkup.note(f"its command: {command}")
        if not broken:
            checkup.ok(f"the hook saves each session when it ends and before it is compacted ({settings}); "
                       "its command runs")
    elif not plugins or not any(plugin.enabled for plugin in plugins):
        checkup.warn("the hook is not installed: run `sessionsite hook install` (or install the Claude Code "
                     "plugin) so that each session is saved when it ends")
    failures = _hook_failures(vault.folder / HOOK_LOG)
    if failures:
        checkup.warn(f"{len(failures)} hook save(s) failed; the last: {failures[-1]} (see {vault.folder / HOOK_LOG})")
    return checkup


def _hook_failures(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
