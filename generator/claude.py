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
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core.errors import SessionsiteError
from .core.text import byte_size
from .stages.discover import AGENT_FILE, SessionFile, claude_folder, default_input, find
from .core.files import write_atomically
from .output.vault import HOOK_LOG, Vault, VaultError, log_hook_failure

EVENTS = ("SessionEnd", "PreCompact")
DEFAULT_CLEANUP_DAYS = 30
"""Claude Code deletes a log this many days after its last activity unless `cleanupPeriodDays` says."""
BACKUP_SUFFIX = ".sessionsite-backup"


def settings_path() -> Path:
    return claude_folder() / "settings.json"


# -- the hook ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HookProgram:
    """How the hook starts sessionsite, and whether that will keep working."""

    words: tuple[str, ...]
    """A sessionsite by its full path (Claude Code's PATH may not have it), or Python with `-m generator`."""
    checkout: Path | None = None
    """The git checkout it lives in (its virtualenv, or its code), which may move or be deleted; None when
    it lives outside any."""

    def warning(self) -> str | None:
        if self.checkout is None:
            return None
        return (f"the hook runs {self.words[0]}, which is inside the git checkout {self.checkout}: if that folder "
                "moves, or its virtualenv is removed, the hook stops saving sessions (`sessionsite doctor` says "
                f"so). Install sessionsite where it stays, with `pipx install {self.checkout}` or "
                f"`uv tool install {self.checkout}`, then run `sessionsite hook install` again")


def hook_program() -> HookProgram:
    """The sessionsite the hook should run: the first of this very one and those on PATH that lives outside
    every git checkout (pipx's, uv tool's, a system one); when there is none, this one, saying where it is."""
    candidates = []
    running = Path(sys.argv[0])
    if running.name == "sessionsite" and running.is_file():
        candidates.append(running.absolute())
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        found = shutil.which("sessionsite", path=folder) if folder else None
        if found and Path(found).absolute() not in candidates:
            candidates.append(Path(found).absolute())
    placed = [(program, _checkout_of_program(program)) for program in candidates]
    for program, checkout in placed:
        if checkout is None:
            return HookProgram((str(program),))
    if placed:
        return HookProgram((str(placed[0][0]),), placed[0][1])
    python = Path(sys.executable).absolute()
    return HookProgram((str(python), "-m", "generator"),
                       _checkout_of(python) or _checkout_of(Path(__file__).resolve().parent))


def hook_command(vault: Path | None, program: HookProgram | None = None) -> str:
    """The command the hook runs: `program` (by default, `hook_program()`) saving into the vault given at
    install time, if one was."""
    words = list((program or hook_program()).words) + ["save", "--hook"]
    if vault is not None:
        words += ["--vault", str(vault.expanduser().absolute())]
    return shlex.join(words)


def _checkout_of_program(program: Path) -> Path | None:
    """The git checkout `program`, the file it links to, or the Python its first line names lives in; for
    this Python's own programs, the one sessionsite's code is in too (an editable install)."""
    places = [program, program.resolve()]
    interpreter = _interpreter_of(program)
    if interpreter is not None:
        places += [interpreter, interpreter.resolve()]
        if interpreter.resolve() == Path(sys.executable).resolve():
            places.append(Path(__file__).resolve().parent)
    return next((checkout for place in places if (checkout := _checkout_of(place)) is not None), None)


def _interpreter_of(program: Path) -> Path | None:
    """The interpreter a script's `#!` line names (a console script names its virtualenv's Python)."""
    try:
        with program.open("rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    return Path(words[0]) if words and words[0].startswith("/") else None


def _checkout_of(place: Path) -> Path | None:
    """The top of the git checkout `place` is in, if any. The home folder is not one even with a .git in
    it: that is how many keep their dotfiles, and what lives under it does not move with a clone."""
    home = Path.home().absolute()
    for folder in place.absolute().parents:
        if folder == home or folder == Path(folder.anchor):
            continue
        if (folder / ".git").exists():
            return folder
    return None


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


def our_commands(path: Path) -> list[str]:
    """The distinct commands of the hooks `install` added, in the order of EVENTS."""
    try:
        hooks = _load_settings(path).get("hooks", {})
    except SessionsiteError:
        return []
    found: dict[str, None] = {}
    for event in EVENTS:
        for group in _list_or_none(hooks.get(event)):
            for hook in _list_or_none(group.get("hooks") if isinstance(group, dict) else None):
                if isinstance(hook, dict) and is_ours(hook.get("command")):
                    found[hook["command"]] = None
    return list(found)


HOOK_TRIAL_SECONDS = 30.0
"""How long `doctor` lets the hook's command run on a session that wrote nothing: it imports and returns."""


def try_hook(command: str, timeout: float | None = None) -> str | None:
    """Run a hook's command as Claude Code does when a session ends, on a session that wrote no log (so
    `save --hook` saves nothing and logs nothing): None when it works, else what went wrong. It is run
    without a shell, as the words `install` wrote, and only when it is a command `is_ours` that starts
    sessionsite or Python."""
    words = shlex.split(command)
    program = os.path.expanduser(words[0])
    if Path(program).name != "sessionsite" and not Path(program).name.startswith(("python", "pypy")):
        # `is_ours` takes any program before `-m generator`: only Python is run with it.
        return f"{program} is neither sessionsite nor Python, so it was not run"
    return _trial([program, *words[1:]], timeout)


def _trial(words: list[str], timeout: float | None = None, env: dict[str, str] | None = None) -> str | None:
    """Run `words` (no shell) as a hook on a session that wrote no log: None when it exits 0, else why not."""
    program = words[0]
    with tempfile.TemporaryDirectory(prefix="sessionsite-doctor-") as folder:
        given = json.dumps({"session_id": "sessionsite-doctor", "transcript_path": str(Path(folder, "none.jsonl")),
                            "cwd": folder, "hook_event_name": "SessionEnd", "reason": "other"})
        try:
            process = subprocess.Popen(words, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       cwd=folder, start_new_session=True, env=env)
        except FileNotFoundError:
            return f"{program} does not exist"
        except PermissionError:
            return f"{program} cannot be run (it is not executable)"
        except OSError as error:
            return f"{program} cannot be run ({error.strerror or error})"
        with process:
            limit = HOOK_TRIAL_SECONDS if timeout is None else timeout
            try:
                _, said = process.communicate(given.encode("utf-8"), timeout=limit)
            except subprocess.TimeoutExpired:
                # The whole group: a wrapper script's child would otherwise keep the pipes open.
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                return f"it ran for over {limit:g} s on a session that wrote nothing, and was stopped"
    if process.returncode != 0:
        lines = [line for line in said.decode("utf-8", "replace").splitlines() if line.strip()]
        return f"it exits with code {process.returncode}" + (f" ({lines[-1].strip()[:300]})" if lines else "")
    return None


# -- the plugin ----------------------------------------------------------------------------------------------

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
        enabled = _load_settings(settings).get("enabledPlugins")
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
    return _trial([str(runner), "save", "--hook"], timeout, {**os.environ, "CLAUDE_PLUGIN_ROOT": str(plugin.folder)})


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


def _outside_projects(files: list[SessionFile], projects: Path) -> list[Path]:
    """The files that are not, once every link is followed, logs inside Claude Code's projects folder: the
    hook input is a stranger's, and what it names must not carry a private key or another program's file
    into the vault (and from there into a build)."""
    root = projects.resolve()
    outside = []
    for session_file in files:
        real = session_file.path.resolve()
        if real.suffix != ".jsonl" or root not in real.parents or real.parent == root:
            outside.append(session_file.path)
    return outside


def hook_save(vault: Vault, text: str) -> None:
    """What the hook runs: save the session Claude Code names on standard input (its log, and its
    subagents'), provided each is a log inside Claude Code's projects folder. Never raises: a hook must not
    show an error in Claude Code, so a failure or a refusal goes to the vault's hook.log."""
    started = time.monotonic()
    try:
        data = json.loads(text)
        transcript = Path(os.path.expanduser(data["transcript_path"]))
        if not transcript.is_file():
            return  # a session that wrote nothing: nothing to save
        files = session_files_of(transcript)
        outside = _outside_projects(files, default_input())
        if outside:
            log_hook_failure(vault.folder, f"{data.get('hook_event_name', 'hook')}: not saved, as "
                             f"{'they are' if len(outside) > 1 else 'it is'} outside Claude Code's projects folder "
                             f"{default_input()}: " + "; ".join(map(str, outside)))
        files = [session_file for session_file in files if session_file.path not in outside]
        if not files:
            return
        report = vault.save(files)
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


__all__ = ["HookProgram", "InstalledPlugin", "doctor", "hook_command", "hook_program", "hook_save", "install",
           "installed_plugins", "is_ours", "our_commands", "settings_path", "try_hook", "try_plugin", "uninstall"]
