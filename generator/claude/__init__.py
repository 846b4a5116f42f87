"""Claude Code's side of the vault: the hook that saves a session when it ends, its settings, and `doctor`.

Claude Code runs the commands of its hooks with a JSON object on standard input that names the session
(`session_id`) and its log (`transcript_path`). `hook install` adds a `SessionEnd` hook (a session is
saved when it ends) and a `PreCompact` one (a long session is saved before it is compacted) to
`settings.json`, beside the hooks already there; `hook uninstall` takes out only those.

The parts: `settings` (settings.json and our hooks in it), `hook_program` (the sessionsite a hook runs),
`hook_save` (what it does), `trial_run` (a hook's command tried as Claude Code runs it), `plugin` (the Claude
Code plugin, which saves sessions as the hook does) and `doctor`.
"""

from __future__ import annotations

from .doctor import DEFAULT_CLEANUP_DAYS, Checkup, cleanup_days, doctor
from .hook_program import HookProgram, hook_command, hook_program
from .hook_save import hook_save, session_files_of
from .plugin import PLUGIN_NAME, PLUGIN_RUNNER, InstalledPlugin, installed_plugins, try_plugin
from .settings import (BACKUP_SUFFIX, EVENTS, HookChange, install, installed_events, is_ours, our_commands,
                       settings_path, uninstall)
from .trial_run import HOOK_TRIAL_SECONDS, try_hook

__all__ = ["BACKUP_SUFFIX", "DEFAULT_CLEANUP_DAYS", "EVENTS", "HOOK_TRIAL_SECONDS", "PLUGIN_NAME", "PLUGIN_RUNNER",
           "Checkup", "HookChange", "HookProgram", "InstalledPlugin", "cleanup_days", "doctor", "hook_command",
           "hook_program", "hook_save", "install", "installed_events", "installed_plugins", "is_ours", "our_commands",
           "session_files_of", "settings_path", "try_hook", "try_plugin", "uninstall"]
