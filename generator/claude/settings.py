"""Claude Code's settings.json as `hook install` and `hook uninstall` change it: our hooks added or taken
out beside the hooks already there, the file written whole (a backup kept, a link written through)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import SessionsiteError
from ..core.paths import program_name
from ..stages.discover import claude_folder
from ..core.files import write_atomically


EVENTS = ("SessionEnd", "PreCompact")
BACKUP_SUFFIX = ".sessionsite-backup"


def settings_path() -> Path:
    return claude_folder() / "settings.json"


def is_ours(command: Any) -> bool:
    """A hook command `hook install` wrote (whichever sessionsite, wherever its vault)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if "save" not in words or "--hook" not in words:
        return False
    return runs_sessionsite(words)


def runs_sessionsite(words: list[str]) -> bool:
    """Whether a command's words start sessionsite: by its path on either platform (`sessionsite.exe` on
    Windows), through uvx (`uvx sessionsite`, which `hook install` writes when sessionsite ran from uvx), or
    as Python's `-m generator`."""
    if not words:
        return False
    name = program_name(words[0])
    return name == "sessionsite" or (name == "uvx" and words[1:2] == ["sessionsite"]) or words[1:3] == ["-m", "generator"]


def load_settings(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise SessionsiteError(f"{path}: cannot read it ({error.strerror or error})") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as error:
        raise SessionsiteError(f"{path}: not valid JSON ({error}); fix it before installing hooks") from None
    if not isinstance(data, dict):
        raise SessionsiteError(f"{path}: expected a JSON object; fix it before installing hooks")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise SessionsiteError(f"{path}: its \"hooks\" is not an object of lists; fix it before installing hooks")
    return data


def _write_settings(path: Path, data: dict[str, Any]) -> Path | None:
    """Written beside the file and renamed over it (a crash leaves the old or the new one, whole), after
    the old one is copied to `settings.json.sessionsite-backup`. Returns the backup. A symlink (dotfiles)
    is written through: the link stays, its target gets the new text. A read-only file is left alone."""
    target = Path(os.path.realpath(path))
    shown = f"{path} (a link to {target})" if path.is_symlink() else str(path)
    backup = None
    mode = 0o600
    try:
        info = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise SessionsiteError(f"{shown}: cannot read it ({error.strerror or error})") from None
    if info is not None:
        # The rename would replace a read-only file regardless (it needs only the folder): ask the mode first.
        if not info.st_mode & stat.S_IWUSR or not os.access(target, os.W_OK):
            raise SessionsiteError(f"{shown}: the file is read-only (mode {info.st_mode & 0o777:o}), so it was left "
                                   "unchanged; make it writable (chmod u+w), or edit its hooks by hand")
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        try:
            shutil.copy2(target, backup)
        except OSError as error:
            raise SessionsiteError(f"{backup}: cannot keep the previous settings there ({error.strerror or error}); "
                                   f"{path} was left unchanged") from None
        mode = info.st_mode & 0o777
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_atomically(target, lambda handle: handle.write(text.encode("utf-8")), mode)
    return backup


@dataclass
class HookChange:
    changed: bool
    backup: Path | None = None
    events: list[str] = field(default_factory=list)


def install(path: Path, command: str) -> HookChange:
    """Add the hooks (or bring ours up to date), keeping every other hook as it is. Idempotent."""
    data = load_settings(path)
    hooks = data.setdefault("hooks", {})
    changed = []
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        ours = [(group, hook) for group in groups if isinstance(group, dict)
                for hook in _list_or_none(group.get("hooks"))
                if isinstance(hook, dict) and is_ours(hook.get("command"))]
        if len(ours) == 1 and ours[0][1] == {"type": "command", "command": command}:
            continue
        _remove_ours(hooks, event)
        hooks.setdefault(event, []).append({"hooks": [{"type": "command", "command": command}]})
        changed.append(event)
    if not changed:
        return HookChange(False)
    return HookChange(True, _write_settings(path, data), changed)


def uninstall(path: Path) -> HookChange:
    """Take out the hooks `install` added, and nothing else."""
    if not path.exists():
        return HookChange(False)
    data = load_settings(path)
    hooks = data.get("hooks", {})
    changed = [event for event in list(hooks) if _remove_ours(hooks, event)]
    if not changed:
        return HookChange(False)
    if not hooks:
        del data["hooks"]
    return HookChange(True, _write_settings(path, data), changed)


def _list_or_none(value: object) -> list[Any]:
    """`value` if it is a list, else an empty one: the settings file is edited by hand too."""
    return value if isinstance(value, list) else []


def _remove_ours(hooks: dict[str, Any], event: str) -> bool:
    groups = hooks.get(event, [])
    removed = False
    kept_groups = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list):
            remaining = [hook for hook in inner if not (isinstance(hook, dict) and is_ours(hook.get("command")))]
            if len(remaining) != len(inner):
                removed = True
                if not remaining:
                    continue
                group = {**group, "hooks": remaining}
        kept_groups.append(group)
    if kept_groups:
        hooks[event] = kept_groups
    else:
        hooks.pop(event, None)
    return removed


def installed_events(path: Path) -> list[str]:
    try:
        hooks = load_settings(path).get("hooks", {})
    except SessionsiteError:
        return []
    return [event for event in EVENTS
            if any(isinstance(group, dict) and isinstance(group.get("hooks"), list)
                   and any(isinstance(h, dict) and is_ours(h.get("command")) for h in group["hooks"])
                   for group in hooks.get(event, []))]


def our_commands(path: Path) -> list[str]:
    """The distinct commands of the hooks `install` added, in the order of EVENTS."""
    try:
        hooks = load_settings(path).get("hooks", {})
    except SessionsiteError:
        return []
    found: dict[str, None] = {}
    for event in EVENTS:
        for group in _list_or_none(hooks.get(event)):
            for hook in _list_or_none(group.get("hooks") if isinstance(group, dict) else None):
                if isinstance(hook, dict) and is_ours(hook.get("command")):
                    found[hook["command"]] = None
    return list(found)
