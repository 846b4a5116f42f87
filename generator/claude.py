"""Claude Code's side of the vault: the hook that saves a session when it ends, its settings, and `doctor`.

Claude Code runs the commands of its hooks with a JSON object on standard input that names the session
(`session_id`) and its log (`transcript_path`). `hook install` adds a `SessionEnd` hook (a session is
saved when it ends) and a `PreCompact` one (a long session is saved before it is compacted) to
`settings.json`, beside the hooks already there; `hook uninstall` takes out only those.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core.errors import SessionsiteError
from .core.text import byte_size
from .stages.discover import AGENT_FILE, SessionFile, claude_folder, default_input, find
from .output.vault import HOOK_LOG, Vault, VaultError, log_hook_failure, write_atomically

EVENTS = ("SessionEnd", "PreCompact")
DEFAULT_CLEANUP_DAYS = 30
"""Claude Code deletes a log this many days after its last activity unless `cleanupPeriodDays` says."""
BACKUP_SUFFIX = ".sessionsite-backup"


def settings_path() -> Path:
    return claude_folder() / "settings.json"


# -- the hook ------------------------------------------------------------------------------------------------


def hook_command(vault: Path | None) -> str:
    """The command the hook runs: this very sessionsite, by its full path (Claude Code's PATH may not
    have it), saving into the vault given at install time, if one was."""
    program = Path(sys.argv[0])
    if program.name == "sessionsite" and program.is_file():
        words = [str(program.absolute())]
    elif found := shutil.which("sessionsite"):
        words = [found]
    else:
        words = [sys.executable, "-m", "generator"]
    words += ["save", "--hook"]
    if vault is not None:
        words += ["--vault", str(vault.expanduser().absolute())]
    return shlex.join(words)


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
    return Path(words[0]).name == "sessionsite" or words[1:3] == ["-m", "generator"]


def _load_settings(path: Path) -> dict[str, Any]:
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
    the old one is copied to `settings.json.sessionsite-backup`. Returns the backup."""
    backup = None
    mode = 0o600
    if path.exists():
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        shutil.copy2(path, backup)
        mode = path.stat().st_mode & 0o777
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_atomically(path, lambda handle: handle.write(text.encode("utf-8")), mode)
    return backup


@dataclass
class HookChange:
    changed: bool
    backup: Path | None = None
    events: list[str] = field(default_factory=list)


def install(path: Path, command: str) -> HookChange:
    """Add the hooks (or bring ours up to date), keeping every other hook as it is. Idempotent."""
    data = _load_settings(path)
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
    data = _load_settings(path)
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
        hooks = _load_settings(path).get("hooks", {})
    except SessionsiteError:
        return []
    return [event for event in EVENTS
            if any(isinstance(group, dict) and isinstance(group.get("hooks"), list)
                   and any(isinstance(h, dict) and is_ours(h.get("command")) for h in group["hooks"])
                   for group in hooks.get(event, []))]


def session_files_of(transcript: Path) -> list[SessionFile]:
    """A session's log and its subagents' (`<session>/subagents/agent-*.jsonl`, and 1.x's `agent-*.jsonl`
    beside it, which name their session only inside: the vault's change check skips those it has)."""
    folder = transcript.parent
    files = [SessionFile(transcript, folder.name)]
    for path in sorted((folder / transcript.stem / "subagents").glob("agent-*.jsonl")):
        match = AGENT_FILE.match(path.name)
        assert match
        files.append(SessionFile(path, folder.name, match["agent"], transcript.stem))
    for path in sorted(folder.glob("agent-*.jsonl")):
        match = AGENT_FILE.match(path.name)
        assert match
        files.append(SessionFile(path, folder.name, match["agent"]))
    return files


def hook_save(vault: Vault, text: str) -> None:
    """What the hook runs: save the session Claude Code names on standard input. Never raises: a hook
    must not show an error in Claude Code, so a failure goes to the vault's hook.log."""
    started = time.monotonic()
    try:
        data = json.loads(text)
        transcript = Path(os.path.expanduser(data["transcript_path"]))
        if not transcript.is_file():
            return  # a session that wrote nothing: nothing to save
        report = vault.save(session_files_of(transcript))
        if report.skipped:
            log_hook_failure(vault.folder, f"{data.get('hook_event_name', 'hook')}: could not read "
                             + "; ".join(report.skipped))
    except BaseException as error:  # noqa: BLE001 - whatever it is, Claude Code must not see it
        message = str(error) if isinstance(error, SessionsiteError) else repr(error)
        log_hook_failure(vault.folder, f"save failed after {time.monotonic() - started:.1f} s: {message}"
                         f" (input: {text[:300]!r})")


# -- doctor --------------------------------------------------------------------------------------------------


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
        value = _load_settings(settings).get("cleanupPeriodDays")
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
    events = installed_events(settings)
    if set(events) == set(EVENTS):
        checkup.ok(f"the hook saves each session when it ends and before it is compacted ({settings})")
    else:
        checkup.warn("the hook is not installed: run `sessionsite hook install` so that each session is saved "
                     "when it ends")
    failures = _hook_failures(vault.folder / HOOK_LOG)
    if failures:
        checkup.warn(f"{len(failures)} hook save(s) failed; the last: {failures[-1]} (see {vault.folder / HOOK_LOG})")
    return checkup


def _hook_failures(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


__all__ = ["doctor", "hook_command", "hook_save", "install", "is_ours", "settings_path", "uninstall"]
