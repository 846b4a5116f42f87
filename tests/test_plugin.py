"""The Claude Code plugin: `.claude-plugin/marketplace.json` lists `plugins/sessionsite`, whose hooks save each
session to the vault when it ends and before it is compacted, and whose slash commands bundle, open and
publish sessions. Everything the plugin runs goes through `bin/sessionsite-run`, which finds the sessionsite
command or says clearly that it cannot.

Claude Code runs a hook's command with a shell and writes the hook input (session_id, transcript_path, cwd...)
on its standard input: that input is a stranger's, so the tests here run the hook commands exactly as Claude
Code does, with hostile input, and check that nothing of it is run and no file outside Claude Code's projects
folder is saved. The end-to-end tests use the real CLI (`claude plugin validate`, `claude plugin install`, a
`-p` session against the offline API stub of tests/realclient/).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.output.vault import HOOK_LOG, Vault
from conftest import pinned_claude_code

HERE = Path(__file__).parent
REPO = HERE.parent
sys.path.insert(0, str(HERE / "realclient"))

import generate  # noqa: E402
from api_stub import Reply, ScriptedAPI, text, tool  # noqa: E402

MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
PLUGIN = REPO / "plugins" / "sessionsite"
RUNNER = PLUGIN / "bin" / "sessionsite-run"
NOT_FOUND = "sessionsite plugin: cannot find the sessionsite command"
SESSION_ID = "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b"
PROJECT = "-home-ada-tidewatch"
SYSTEM_PATH = "/usr/bin:/bin"


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def hook_commands() -> dict[str, list[str]]:
    """Each event's hook commands, as hooks.json gives them to Claude Code."""
    hooks = read_json(PLUGIN / "hooks" / "hooks.json")["hooks"]
    return {event: [hook["command"] for group in groups for hook in group["hooks"]] for event, groups in hooks.items()}


def log_lines(words: str = "When is high water?", cwd: str = "/home/ada/tidewatch") -> str:
    base = {"sessionId": SESSION_ID, "cwd": cwd, "version": "2.1.332", "isSidechain": False,
            "userType": "external"}
    entries = [
        {**base, "type": "user", "uuid": "00000000-0000-4000-8000-000000000001", "parentUuid": None,
         "timestamp": "2026-11-20T10:00:00.000Z", "message": {"role": "user", "content": words}},
        {**base, "type": "assistant", "uuid": "00000000-0000-4000-8000-000000000002",
         "parentUuid": "00000000-0000-4000-8000-000000000001", "timestamp": "2026-11-20T10:00:02.000Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-5-5",
                     "content": [{"type": "text", "text": "At 06:12."}]}},
    ]
    return "".join(json.dumps(entry) + "\n" for entry in entries)


class Machine:
    """A home folder with Claude Code's folder in it, a vault, and a sessionsite command on a PATH of its own."""

    def __init__(self, root: Path, sessionsite_on_path: bool = True) -> None:
        self.root = root
        self.home = root / "home"
        self.claude = self.home / ".claude"
        self.projects = self.claude / "projects"
        self.projects.mkdir(parents=True)
        self.vault = root / "vault"
        self.bin = root / "bin"
        self.bin.mkdir()
        self.work = root / "work"  # the hook's current folder, where a command run by mistake would write
        self.work.mkdir()
        if sessionsite_on_path:
            write_sessionsite(self.bin / "sessionsite")

    def env(self, **extra: str) -> dict[str, str]:
        return {"PATH": f"{self.bin}:{SYSTEM_PATH}", "HOME": str(self.home), "CLAUDE_CONFIG_DIR": str(self.claude),
                "SESSIONSITE_VAULT": str(self.vault), "PYTHONPATH": str(REPO), "LANG": "C.UTF-8", **extra}

    def log(self, name: str, project: str = PROJECT, cwd: str = "/home/ada/tidewatch") -> Path:
        path = self.projects / project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(log_lines(cwd=cwd), encoding="utf-8")
        return path

    def run_hook(self, event: str, hook_input: str) -> None:
        """Each of the event's hook commands, run as Claude Code runs it: by a shell, with the plugin's
        folder in CLAUDE_PLUGIN_ROOT and the hook input on standard input. A hook must say nothing."""
        for command in hook_commands()[event]:
            result = subprocess.run(["/bin/sh", "-c", command], input=hook_input, capture_output=True, text=True,
                                    cwd=self.work, env=self.env(CLAUDE_PLUGIN_ROOT=str(PLUGIN)), timeout=120)
            assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), command

    def saved(self) -> set[str]:
        if not (self.vault / "vault.sqlite3").exists():
            return set()
        return {stored.name for stored in Vault(self.vault).stored()}

    def hook_log(self) -> str:
        path = self.vault / HOOK_LOG
        return path.read_text(encoding="utf-8") if path.exists() else ""


def write_sessionsite(path: Path) -> Path:
    """A `sessionsite` command that runs this checkout's, as an installed one would."""
    path.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m generator \"$@\"\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def hook_input(transcript: str | object, **fields: object) -> str:
    return json.dumps({"session_id": SESSION_ID, "transcript_path": transcript, "cwd": "/home/ada/tidewatch",
                       "hook_event_name": "SessionEnd", "reason": "other", **fields})


# -- the manifests -------------------------------------------------------------------------------------------


def test_the_marketplace_lists_the_plugin_folder_and_names_agree():
    marketplace = read_json(MARKETPLACE)
    [entry] = marketplace["plugins"]
    folder = (MARKETPLACE.parent.parent / entry["source"]).resolve()
    assert folder == PLUGIN
    assert read_json(PLUGIN / ".claude-plugin" / "plugin.json")["name"] == entry["name"] == "sessionsite"


def test_the_hooks_save_on_session_end_and_before_compaction_and_read_nothing_but_the_plugin_folder():
    commands = hook_commands()
    assert set(commands) == {"SessionEnd", "PreCompact"}
    for event, found in commands.items():
        assert found, event
        for command in found:
            # The only value put into the shell's words is Claude Code's own plugin folder, quoted: the hook
            # input reaches sessionsite on standard input, never as a word.
            assert re.findall(r"\$\{?(\w+)", command) == ["CLAUDE_PLUGIN_ROOT"], command
            assert shlex.split(command) == ["${CLAUDE_PLUGIN_ROOT}/bin/sessionsite-run", "save", "--hook"], command


# -- the hook, with a stranger's input ------------------------------------------------------------------------


@pytest.mark.parametrize("event", ["SessionEnd", "PreCompact"])
def test_the_hook_saves_the_session_claude_code_names(tmp_path, event):
    machine = Machine(tmp_path)
    log = machine.log(f"{SESSION_ID}.jsonl")
    agent = machine.log(f"{SESSION_ID}/subagents/agent-a1b2c3.jsonl")
    machine.run_hook(event, hook_input(str(log), hook_event_name=event))
    assert machine.saved() == {f"{PROJECT}/{SESSION_ID}.jsonl",
                               f"{PROJECT}/{agent.relative_to(machine.projects / PROJECT).as_posix()}"}
    assert machine.hook_log() == ""


SHELL_WORDS = ["$(touch pwned-dollar)", "`touch pwned-tick`", "; touch pwned-semicolon", "| touch pwned-pipe",
               "&& touch pwned-and", "\ntouch pwned-newline\n", "'; touch pwned-quote; '", "\"; touch pwned-dq; \"",
               "${IFS}touch${IFS}pwned-ifs", "$HOME", "*", "-rf"]


@pytest.mark.parametrize("words", SHELL_WORDS)
@pytest.mark.parametrize("field", ["transcript_path", "session_id", "cwd", "hook_event_name", "reason"])
def test_shell_metacharacters_in_the_hook_input_run_nothing(tmp_path, field, words):
    """Each field of the hook input holds shell syntax; where it names the log, a log of that very name
    exists in the projects folder (Claude Code names files after ids and folders a stranger may choose).
    Nothing is run, and the log is saved under its own name."""
    machine = Machine(tmp_path)
    name = words.replace("/", "_").replace("\n", "_") + ".jsonl" if field == "transcript_path" else f"{SESSION_ID}.jsonl"
    log = machine.log(name)
    given = {"transcript_path": str(log), "session_id": SESSION_ID, "cwd": "/home/ada/tidewatch",
             "hook_event_name": "SessionEnd", "reason": "other"}
    if field != "transcript_path":
        given[field] = words
    machine.run_hook("SessionEnd", json.dumps(given))
    assert not [path for path in tmp_path.rglob("pwned*")], "the hook input was run by a shell"
    assert machine.saved() == {f"{PROJECT}/{name}"}


def _outside_cases(machine: Machine) -> dict[str, tuple[str, set[str]]]:
    """Hook inputs that name a file outside Claude Code's projects folder, with what may be saved."""
    elsewhere = machine.root / "elsewhere"
    elsewhere.mkdir()
    stray = elsewhere / "notes.jsonl"
    stray.write_text(log_lines("a log that is not Claude Code's"), encoding="utf-8")
    ssh = machine.home / ".ssh"
    ssh.mkdir()
    key = ssh / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n", encoding="utf-8")
    settings = machine.claude / "settings.json"
    settings.write_text('{"env": {"ANTHROPIC_API_KEY": "sk-ant-api03-not-a-real-key"}}', encoding="utf-8")
    (machine.projects / PROJECT).mkdir()
    linked = machine.projects / PROJECT / "linked.jsonl"
    linked.symlink_to(stray)
    real = machine.log(f"{SESSION_ID}.jsonl")
    (real.parent / SESSION_ID / "subagents").mkdir(parents=True)
    (real.parent / SESSION_ID / "subagents" / "agent-b0b0b0.jsonl").symlink_to(key)
    own = {f"{PROJECT}/{SESSION_ID}.jsonl"}
    return {
        "a log elsewhere": (str(stray), set()),
        "a private key": (str(key), set()),
        "Claude Code's settings": (str(settings), set()),
        "the way up out of the projects folder": (f"{machine.projects}/{PROJECT}/../../../../elsewhere/notes.jsonl", set()),
        "a link in the projects folder to a log elsewhere": (str(linked), set()),
        "a relative path": ("../elsewhere/notes.jsonl", set()),
        "a home-relative path": ("~/.ssh/id_ed25519", set()),
        "the projects folder itself": (str(machine.projects), set()),
        "a subagent's log that links to a private key": (str(real), own),
    }


CASES = ["a log elsewhere", "a private key", "Claude Code's settings", "the way up out of the projects folder",
         "a link in the projects folder to a log elsewhere", "a relative path", "a home-relative path",
         "the projects folder itself", "a subagent's log that links to a private key"]


@pytest.mark.parametrize("case", CASES)
def test_a_file_outside_claude_code_s_projects_folder_is_not_saved(tmp_path, case):
    machine = Machine(tmp_path)
    cases = _outside_cases(machine)
    assert set(cases) == set(CASES)
    transcript, allowed = cases[case]
    machine.run_hook("SessionEnd", hook_input(transcript))
    assert machine.saved() == allowed
    saved_bytes = b"".join((machine.vault / name).read_bytes() for name in os.listdir(machine.vault)
                           if (machine.vault / name).is_file()) if machine.vault.exists() else b""
    assert b"PRIVATE KEY" not in saved_bytes and b"not Claude Code's" not in saved_bytes
    if case != "the projects folder itself":  # a folder is not a log: there is nothing to refuse
        assert "not saved" in machine.hook_log() and "outside" in machine.hook_log(), machine.hook_log()


@pytest.mark.parametrize("transcript", [42, None, ["a"], {"path": "x"}, "", "\x00", "x" * 100_000])
def test_a_transcript_path_that_is_no_path_saves_nothing_and_says_nothing(tmp_path, transcript):
    machine = Machine(tmp_path)
    machine.log(f"{SESSION_ID}.jsonl")
    machine.run_hook("PreCompact", hook_input(transcript))
    assert machine.saved() == set()


# -- finding sessionsite --------------------------------------------------------------------------------------


def test_the_runner_says_clearly_when_it_cannot_find_sessionsite(tmp_path):
    machine = Machine(tmp_path, sessionsite_on_path=False)
    result = subprocess.run([str(RUNNER), "bundle", "-o", "x.md"], capture_output=True, text=True,
                            env=machine.env(), cwd=machine.work, timeout=60)
    assert result.returncode == 127
    assert NOT_FOUND in result.stderr and "pipx install" in result.stderr and "SESSIONSITE" in result.stderr
    assert "sessionsite doctor" in result.stderr
    wrong = subprocess.run([str(RUNNER), "--version"], capture_output=True, text=True, timeout=60,
                           env=machine.env(SESSIONSITE=str(tmp_path / "no-such-program")), cwd=machine.work)
    assert wrong.returncode == 127 and f"SESSIONSITE is set to {tmp_path / 'no-such-program'}" in wrong.stderr


def test_a_hook_that_cannot_find_sessionsite_fails_saying_why_and_saves_nothing(tmp_path):
    machine = Machine(tmp_path, sessionsite_on_path=False)
    log = machine.log(f"{SESSION_ID}.jsonl")
    [command] = hook_commands()["SessionEnd"]
    result = subprocess.run(["/bin/sh", "-c", command], input=hook_input(str(log)), capture_output=True, text=True,
                            cwd=machine.work, env=machine.env(CLAUDE_PLUGIN_ROOT=str(PLUGIN)), timeout=60)
    assert result.returncode == 127 and NOT_FOUND in result.stderr
    assert machine.saved() == set()


@pytest.mark.parametrize("place", ["SESSIONSITE", "PATH", "~/.local/bin", "PIPX_BIN_DIR", "UV_TOOL_BIN_DIR"])
def test_the_runner_finds_sessionsite_where_installers_put_it(tmp_path, place):
    machine = Machine(tmp_path, sessionsite_on_path=False)
    folder = {"~/.local/bin": machine.home / ".local" / "bin", "PATH": machine.bin}.get(place, tmp_path / "tools")
    folder.mkdir(parents=True, exist_ok=True)
    program = write_sessionsite(folder / "sessionsite")
    extra = {"SESSIONSITE": str(program)} if place == "SESSIONSITE" else \
        {place: str(folder)} if place.endswith("_DIR") else {}
    result = subprocess.run([str(RUNNER), "--version"], capture_output=True, text=True, env=machine.env(**extra),
                            cwd=machine.work, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("sessionsite, version")


def test_the_runner_passes_each_argument_through_as_one_word(tmp_path):
    machine = Machine(tmp_path, sessionsite_on_path=False)
    echo = machine.bin / "sessionsite"
    echo.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n", encoding="utf-8")
    echo.chmod(0o755)
    words = ["--project", *SHELL_WORDS, "", "two words", "--", "-o"]
    result = subprocess.run([str(RUNNER), *words], capture_output=True, text=True, env=machine.env(), cwd=machine.work,
                            timeout=60)
    assert json.loads(result.stdout) == words
    assert not list(tmp_path.rglob("pwned*"))


@pytest.mark.parametrize("path", [":{bin}", ".:{bin}", "{bin}::", "./:{bin}"])
def test_the_runner_never_runs_a_sessionsite_of_the_current_folder(tmp_path, path):
    """A PATH with an empty or relative entry would find a `sessionsite` file of the repository the session
    is in (its current folder): only a full path is taken."""
    machine = Machine(tmp_path, sessionsite_on_path=False)
    planted = machine.work / "sessionsite"
    planted.write_text("#!/bin/sh\ntouch pwned-planted\n", encoding="utf-8")
    planted.chmod(0o755)
    for extra in ({"PATH": path.format(bin=machine.bin)}, {"SESSIONSITE": "sessionsite"},
                  {"SESSIONSITE": "./sessionsite"}):
        result = subprocess.run([str(RUNNER), "--version"], capture_output=True, text=True, cwd=machine.work,
                                env={**machine.env(), **extra}, timeout=60)
        assert result.returncode == 127 and NOT_FOUND in result.stderr, extra
    assert not list(tmp_path.rglob("pwned*"))


# -- doctor ---------------------------------------------------------------------------------------------------


def install_plugin_as_claude_code_does(machine: Machine, enabled: object = True) -> Path:
    """The plugin's folder copied where `claude plugin install` puts it, listed and enabled as it lists it."""
    folder = machine.claude / "plugins" / "cache" / "sessionsite" / "sessionsite" / "0.1.0"
    shutil.copytree(PLUGIN, folder)
    (machine.claude / "plugins" / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {
        "sessionsite@sessionsite": [{"scope": "user", "installPath": str(folder), "version": "0.1.0"}]}}),
        encoding="utf-8")
    (machine.claude / "settings.json").write_text(json.dumps({"enabledPlugins": {"sessionsite@sessionsite": enabled}}),
                                                  encoding="utf-8")
    return folder


def doctor(machine: Machine, monkeypatch) -> tuple[int, str]:
    for name, value in machine.env().items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(main, ["doctor"])
    return result.exit_code, result.output


def test_doctor_says_when_the_plugin_cannot_find_sessionsite(tmp_path, monkeypatch):
    machine = Machine(tmp_path, sessionsite_on_path=False)
    folder = install_plugin_as_claude_code_does(machine)
    code, said = doctor(machine, monkeypatch)
    assert code == 1
    [line] = [line for line in said.splitlines() if "plugin sessionsite@sessionsite" in line]
    assert line.startswith("warn") and "cannot save sessions" in line and NOT_FOUND in line, said
    assert str(folder) in said
    assert "hook is not installed" not in said  # the plugin is what to fix, not a missing settings hook


def test_doctor_says_the_plugin_saves_sessions_when_it_finds_sessionsite(tmp_path, monkeypatch):
    machine = Machine(tmp_path)
    install_plugin_as_claude_code_does(machine)
    code, said = doctor(machine, monkeypatch)
    assert "ok    the sessionsite plugin sessionsite@sessionsite saves each session when it ends" in said, said
    assert "hook is not installed" not in said and "cannot save sessions" not in said
    assert machine.saved() == set() and machine.hook_log() == ""  # the trial saved nothing


def test_doctor_with_the_plugin_disabled_still_asks_for_a_hook(tmp_path, monkeypatch):
    machine = Machine(tmp_path, sessionsite_on_path=False)
    install_plugin_as_claude_code_does(machine, enabled=False)
    code, said = doctor(machine, monkeypatch)
    assert code == 1
    assert "sessionsite@sessionsite is installed but disabled" in said and "hook is not installed" in said
    assert "cannot save sessions" not in said


@pytest.mark.parametrize("listing", ["", "{", "[]", '{"plugins": []}', '{"plugins": {"sessionsite@x": 3}}',
                                     '{"plugins": {"sessionsite@x": [{"installPath": 7}]}}',
                                     '{"plugins": {"sessionsite@x": [{"installPath": "relative/folder"}]}}',
                                     '{"plugins": {"other@x": [{"installPath": "/bin"}]}}'])
def test_doctor_takes_a_plugin_list_it_cannot_use_for_no_plugin(tmp_path, monkeypatch, listing):
    machine = Machine(tmp_path)
    (machine.claude / "plugins").mkdir()
    (machine.claude / "plugins" / "installed_plugins.json").write_text(listing, encoding="utf-8")
    code, said = doctor(machine, monkeypatch)
    assert code == 1 and "hook is not installed" in said and "plugin sessionsite@" not in said, said


def test_doctor_reports_a_plugin_folder_without_its_runner(tmp_path, monkeypatch):
    machine = Machine(tmp_path)
    folder = install_plugin_as_claude_code_does(machine)
    (folder / "bin" / "sessionsite-run").unlink()
    code, said = doctor(machine, monkeypatch)
    assert code == 1 and f"{folder / 'bin' / 'sessionsite-run'} is missing" in said


# -- the real Claude Code CLI ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def claude(tmp_path_factory) -> Path:
    """The pinned Claude Code, installed from the npm cache .ci/run fills (no network), as
    tests/test_realclient.py installs it."""
    return pinned_claude_code(tmp_path_factory)


def run_claude(claude: Path, args: list[str], home: Path, cwd: Path, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess[str]:
    environment = env or {"PATH": SYSTEM_PATH, "HOME": str(home), "LANG": "C.UTF-8", "DISABLE_AUTOUPDATER": "1",
                          "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    return subprocess.run([str(claude), *args], capture_output=True, text=True, cwd=cwd, env=environment,
                          timeout=generate.RUN_TIMEOUT)


@pytest.mark.slow
@pytest.mark.parametrize("target", [REPO, PLUGIN], ids=["marketplace", "plugin"])
def test_claude_plugin_validate_passes_strictly(claude, tmp_path, target):
    result = run_claude(claude, ["plugin", "validate", "--strict", "--json", "--", str(target)], tmp_path, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["success"] is True and report["strict"] is True
    assert (report["manifest"]["errors"], report["manifest"]["warnings"]) == ([], []), report["manifest"]
    if target == PLUGIN:
        provided = report["provides"]
        assert sorted(provided["commands"]) == ["sessionsite:bundle", "sessionsite:open", "sessionsite:publish"]
        assert {hook["event"] for hook in provided["hooks"]} == {"SessionEnd", "PreCompact"}
        assert provided["bin"] == ["sessionsite-run"]


def every_text(value: object) -> list[str]:
    """Every string inside a request body."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [words for item in value.values() for words in every_text(item)]
    if isinstance(value, list):
        return [words for item in value for words in every_text(item)]
    return []


class InstalledMachine(Machine):
    """A Machine whose Claude Code (its own HOME) has the plugin installed from this repository's
    marketplace, as a user installs it, non-interactively."""

    def __init__(self, root: Path, claude: Path) -> None:
        super().__init__(root)
        self.executable = claude
        self.claude = self.home / ".claude"
        self.project = self.home / "tidewatch"
        self.project.mkdir()
        for args in (["plugin", "marketplace", "add", "--", str(REPO)],
                     ["plugin", "install", "--", "sessionsite@sessionsite"]):
            result = run_claude(claude, args, self.home, self.project)
            assert result.returncode == 0, f"claude {' '.join(args)}: {result.stdout}{result.stderr}"
        listing = read_json(self.claude / "plugins" / "installed_plugins.json")
        [install] = listing["plugins"]["sessionsite@sessionsite"]
        self.plugin = Path(install["installPath"])
        self.session_id = str(uuid.uuid4())

    def claude_env(self, api: ScriptedAPI, path: str) -> dict[str, str]:
        return generate.environment(self.home, api, {"PATH": path, "SESSIONSITE_VAULT": str(self.vault),
                                                     "PYTHONPATH": str(REPO)})

    def session(self, args: list[str], replies: list[Reply], path: str) -> list[dict]:
        with ScriptedAPI() as api:
            api.queue(replies)
            result = run_claude(self.executable, [*args, "--allowedTools", "Bash"], self.home, self.project,
                                self.claude_env(api, path))
            assert result.returncode == 0, result.stdout + result.stderr
            assert not api.pending, f"Claude Code asked for fewer replies than scripted: {result.stdout}"
            return api.received


@pytest.mark.slow
def test_the_installed_plugin_saves_a_real_session_to_the_vault(claude, tmp_path, monkeypatch):
    machine = InstalledMachine(tmp_path, claude)
    assert machine.saved() == set()
    machine.session(["-p", "When is high water at Penzance?", "--session-id", machine.session_id],
                    [Reply.of(text("At 06:12, and again at 18:31."))], f"{machine.bin}:{SYSTEM_PATH}")
    project = generate.encoded(str(machine.project))
    assert f"{project}/{machine.session_id}.jsonl" in machine.saved()
    assert machine.hook_log() == ""
    restored = tmp_path / "restored"
    result = subprocess.run([str(machine.bin / "sessionsite"), "restore", machine.session_id, "-o", str(restored),
                             "--vault", str(machine.vault)], capture_output=True, text=True, env=machine.env(),
                            timeout=60)
    assert result.returncode == 0, result.stderr
    words = (restored / f"{machine.session_id}.jsonl").read_text(encoding="utf-8")
    assert "When is high water at Penzance?" in words and "At 06:12, and again at 18:31." in words
    # doctor finds the plugin Claude Code installed, and sees that it finds sessionsite.
    for name, value in machine.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    said = CliRunner().invoke(main, ["doctor"]).output
    assert "ok    the sessionsite plugin sessionsite@sessionsite saves each session" in said, said


@pytest.mark.slow
def test_a_real_session_with_no_sessionsite_to_find_saves_nothing_and_doctor_says_why(claude, tmp_path, monkeypatch):
    machine = InstalledMachine(tmp_path, claude)
    (machine.bin / "sessionsite").unlink()
    machine.session(["-p", "When is low water?", "--session-id", machine.session_id],
                    [Reply.of(text("At 12:20."))], f"{machine.bin}:{SYSTEM_PATH}")
    assert (machine.claude / "projects" / generate.encoded(str(machine.project))
            / f"{machine.session_id}.jsonl").is_file()
    assert machine.saved() == set()
    for name, value in machine.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 1
    assert "warn  the sessionsite plugin sessionsite@sessionsite cannot save sessions" in result.output
    assert NOT_FOUND in result.output
    # doctor names the folder Claude Code reads the plugin from, as `claude plugin list` does.
    listed = run_claude(machine.executable, ["plugin", "list"], machine.home, machine.project)
    read_from = re.search(r"Read from: (.+)", listed.stdout)
    assert read_from, listed.stdout
    assert f"the plugin's folder: {read_from[1].strip()}\n" in result.output, result.output


def fenced_command(name: str) -> list[str]:
    """The commands a slash command's instructions give, in its fenced blocks."""
    body = (PLUGIN / "commands" / f"{name}.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```\n(.*?)```", body, re.S)]


@pytest.mark.slow
def test_slash_bundle_writes_this_session_for_the_pull_request(claude, tmp_path):
    """/sessionsite:bundle, in a session resumed from a first prompt: Claude Code hands the model the
    command's instructions with the plugin's folder and the session's id filled in, and the command they
    give, run by the Bash tool as the model would run it, bundles the whole session."""
    machine = InstalledMachine(tmp_path, claude)
    path = f"{machine.bin}:{SYSTEM_PATH}"
    machine.session(["-p", "When is high water at Newlyn?", "--session-id", machine.session_id],
                    [Reply.of(text("At 06:09."))], path)
    # What the instructions say is known only once Claude Code has filled them in (the plugin's folder is
    # its marketplace's for a local one, the install's copy for one from GitHub): a first run reads them.
    received = machine.session(["-p", "/sessionsite:bundle", "--resume", machine.session_id],
                               [Reply.of(text("Which file?"))], path)
    told = "\n".join(words for body in received for words in every_text(body.get("messages", [])))
    [template] = fenced_command("bundle")
    pattern = (re.escape(template).replace(re.escape("${CLAUDE_PLUGIN_ROOT}"), "(?P<root>/[^\"]+)")
               .replace(re.escape("${CLAUDE_SESSION_ID}"), re.escape(machine.session_id)))
    given = re.search(pattern, told)
    assert given, f"Claude Code did not fill in the plugin's folder and the session: {template}"
    root = Path(given["root"])
    assert root in (machine.plugin, PLUGIN) and (root / "bin" / "sessionsite-run").is_file()
    output = machine.project / "pr notes.html"
    command = given[0].replace("FILE", shlex.quote(str(output)))
    received = machine.session(["-p", "/sessionsite:bundle", "--resume", machine.session_id],
                               [Reply.of(tool("Bash", command=command, description="Bundle this session")),
                                Reply.of(text("Bundled."))], path)
    bundle = output.read_text(encoding="utf-8")
    assert "When is high water at Newlyn?" in bundle and "At 06:09." in bundle
    results = [words for body in received for words in every_text(body.get("messages", [])) if str(output) in words]
    assert any(re.search(r"^1 session \([0-9,]+ bytes\) -> ", words, re.M) for words in results), results


@pytest.mark.parametrize("name", ["bundle", "open", "publish"])
def test_every_slash_command_runs_sessionsite_through_the_runner_and_says_when_it_is_missing(name):
    commands = fenced_command(name)
    assert commands
    for command in commands:
        assert command.startswith('"${CLAUDE_PLUGIN_ROOT}/bin/sessionsite-run" '), command
    assert NOT_FOUND in (PLUGIN / "commands" / f"{name}.md").read_text(encoding="utf-8")


def test_publish_audits_then_asks_before_it_deploys_and_claude_never_runs_it_unasked():
    body = (PLUGIN / "commands" / "publish.md").read_text(encoding="utf-8")
    front = body.split("---")[1]
    assert re.search(r"^disable-model-invocation: true$", front, re.M)
    audit, deploy = fenced_command("publish")
    assert " audit " in audit and " gh-deploy " in deploy
    assert body.index(audit) < body.index("AskUserQuestion") < body.index(deploy)


def test_doctor_checks_the_folder_claude_code_reads_a_local_marketplace_s_plugin_from(tmp_path, monkeypatch):
    """A marketplace added from a clone is read from the clone: when the clone moves, the plugin no longer
    loads, though its installed copy is still there."""
    machine = Machine(tmp_path)
    install_plugin_as_claude_code_does(machine)
    clone = tmp_path / "clone"
    shutil.copytree(REPO / ".claude-plugin", clone / ".claude-plugin")
    shutil.copytree(PLUGIN, clone / "plugins" / "sessionsite")
    (machine.claude / "plugins" / "known_marketplaces.json").write_text(json.dumps({"sessionsite": {
        "source": {"source": "directory", "path": str(clone)}, "installLocation": str(clone)}}), encoding="utf-8")
    code, said = doctor(machine, monkeypatch)
    assert "ok    the sessionsite plugin sessionsite@sessionsite saves each session" in said, said
    clone.rename(tmp_path / "moved")
    code, said = doctor(machine, monkeypatch)
    assert code == 1
    assert f"{clone / 'plugins' / 'sessionsite' / 'bin' / 'sessionsite-run'} is missing" not in said
    assert f"{clone / 'bin' / 'sessionsite-run'} is missing: if the marketplace's folder moved" in said, said


@pytest.mark.slow
def test_when_the_clone_added_as_marketplace_moves_claude_code_and_doctor_both_see_it(claude, tmp_path, monkeypatch):
    machine = Machine(tmp_path)
    clone = tmp_path / "clone"
    shutil.copytree(REPO / ".claude-plugin", clone / ".claude-plugin")
    shutil.copytree(PLUGIN, clone / "plugins" / "sessionsite")
    added = run_claude(claude, ["plugin", "install", "sessionsite", "--marketplace", str(clone)], machine.home,
                       machine.work)
    assert added.returncode == 0, added.stdout + added.stderr
    for name, value in machine.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert "ok    the sessionsite plugin sessionsite@sessionsite saves" in CliRunner().invoke(main, ["doctor"]).output
    clone.rename(tmp_path / "moved")
    listed = run_claude(claude, ["plugin", "list"], machine.home, machine.work)
    assert "failed to load" in listed.stdout, listed.stdout
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 1
    assert "warn  the sessionsite plugin sessionsite@sessionsite cannot save sessions" in result.output
    assert "if the marketplace's folder moved, add it again" in result.output, result.output


# -- what the other commands' instructions run ----------------------------------------------------------------


def filled(template: str, **words: str) -> str:
    command = template.replace("${CLAUDE_PLUGIN_ROOT}", str(PLUGIN))
    for placeholder, value in words.items():
        command = command.replace(placeholder, value)
    return command


def test_slash_open_s_command_serves_the_sessions_at_the_address_it_tells_claude_to_wait_for(tmp_path):
    import select
    import signal
    import urllib.request

    machine = Machine(tmp_path)
    machine.log(f"{SESSION_ID}.jsonl")
    [template] = fenced_command("open")
    body = (PLUGIN / "commands" / "open.md").read_text(encoding="utf-8")
    assert "`Watching and serving ... at http://127.0.0.1:PORT/`" in body
    process = subprocess.Popen(["/bin/bash", "-c", filled(template)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, cwd=machine.work, env=machine.env(), start_new_session=True)
    try:
        said = ""
        address = None
        while address is None:
            ready, _, _ = select.select([process.stdout], [], [], 120)
            assert ready, f"no address in 120 s; it said: {said}"
            line = process.stdout.readline()
            assert line, f"it stopped: {said}"
            said += line
            address = re.search(r"^Watching and serving .* at (http://127\.0\.0\.1:\d+/) ", line)
        with urllib.request.urlopen(address[1], timeout=30) as response:
            home_page = response.read().decode("utf-8")
        assert "tidewatch" in home_page  # the project of the log, listed on the home page
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.communicate(timeout=60)


def test_slash_publish_s_commands_audit_then_deploy_the_sessions_chosen(tmp_path):
    machine = Machine(tmp_path)
    machine.log(f"{SESSION_ID}.jsonl")
    machine.log("7c0ffee0-3a4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl", project="-home-ada-ledger", cwd="/home/ada/ledger")
    git = ["git", "-C", str(machine.work)]
    env = {**machine.env(), "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.org"}
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "Start"]):
        subprocess.run([*git, *args], check=True, env=env)
    audit, deploy = fenced_command("publish")
    selection = "--project tidewatch"
    audited = subprocess.run(["/bin/bash", "-c", filled(audit, SELECTION=selection)], capture_output=True, text=True,
                             cwd=machine.work, env=env, timeout=120)
    assert audited.returncode == 0, audited.stderr
    assert audited.stdout.startswith("1 session audited"), audited.stdout
    # The confirmed deploy, kept here: --no-push, as there is no remote to push to.
    deployed = subprocess.run(["/bin/bash", "-c", filled(deploy, SELECTION=selection) + " --no-push"],
                              capture_output=True, text=True, cwd=machine.work, env=env, timeout=300)
    assert deployed.returncode == 0, deployed.stderr
    assert "committed" in deployed.stderr and "gh-pages" in deployed.stderr
    files = subprocess.run([*git, "ls-tree", "-r", "--name-only", "gh-pages"], capture_output=True, text=True,
                           check=True).stdout.split()
    assert "index.html" in files
    assert any("tidewatch" in name for name in files) and not any("ledger" in name for name in files), files


def test_doctor_says_one_of_the_plugin_and_the_settings_hook_is_enough(tmp_path, monkeypatch):
    machine = Machine(tmp_path)
    install_plugin_as_claude_code_does(machine)
    settings = machine.claude / "settings.json"
    data = read_json(settings)
    command = shlex.join([str(machine.bin / "sessionsite"), "save", "--hook"])
    data["hooks"] = {event: [{"hooks": [{"type": "command", "command": command}]}]
                     for event in ("SessionEnd", "PreCompact")}
    settings.write_text(json.dumps(data), encoding="utf-8")
    code, said = doctor(machine, monkeypatch)
    assert "ok    the sessionsite plugin sessionsite@sessionsite saves each session" in said
    assert f"the hook in {settings} saves each session too; one is enough: `sessionsite hook uninstall`" in said


def test_the_runner_runs_sessionsite_through_uvx_when_none_is_installed(tmp_path):
    machine = Machine(tmp_path, sessionsite_on_path=False)
    uvx = machine.bin / "uvx"
    uvx.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n", encoding="utf-8")
    uvx.chmod(0o755)
    result = subprocess.run([str(RUNNER), "save", "--hook"], capture_output=True, text=True, env=machine.env(),
                            cwd=machine.work, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["sessionsite", "save", "--hook"]
