"""The safety net as an attacker (or bad luck) sees it: `hook install` writes a command that keeps working
when the clone it was run from moves, or says loudly that it will not; it edits a symlinked settings file
through the link and leaves a read-only one alone; `doctor` runs the hook's command and reports it
failing instead of only finding it in the settings."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.claude import install, is_ours, trial_run
from generator.cli import main
from generator.output.vault import HOOK_LOG


def command_of(*words: str | Path, vault: Path) -> str:
    """A hook command as `hook install` writes it."""
    return shlex.join([*map(str, words), "save", "--hook", "--vault", str(vault)])


def hooks_in(settings: Path) -> list[str]:
    data = json.loads(settings.read_text(encoding="utf-8"))
    return [hook["command"] for event in ("SessionEnd", "PreCompact") for group in data["hooks"][event]
            for hook in group["hooks"] if is_ours(hook["command"])]


def program(path: Path, interpreter: str = "/usr/bin/python3", body: str = "") -> Path:
    """An executable `sessionsite` script whose first line names `interpreter`, as a console script does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{interpreter}\n{body}", encoding="utf-8")
    path.chmod(0o755)
    return path


def clone_with_a_venv(root: Path) -> Path:
    """A git checkout with the virtualenv the README installs into: .venv/bin/sessionsite inside it."""
    (root / ".git").mkdir(parents=True)
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    return program(root / ".venv" / "bin" / "sessionsite", str(root / ".venv" / "bin" / "python"))


# -- which sessionsite the hook runs -------------------------------------------------------------------------


def test_a_sessionsite_on_path_outside_any_checkout_is_preferred_to_the_clone_being_run(tmp_path, monkeypatch):
    in_clone = clone_with_a_venv(tmp_path / "src" / "sessionsite")
    stays = program(tmp_path / "tools" / "bin" / "sessionsite")
    monkeypatch.setattr(sys, "argv", [str(in_clone), "hook", "install"])
    monkeypatch.setenv("PATH", os.pathsep.join([str(in_clone.parent), str(stays.parent)]))
    settings = tmp_path / "settings.json"
    result = CliRunner().invoke(main, ["hook", "install", "--settings", str(settings)])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output
    assert {command.split()[0] for command in hooks_in(settings)} == {str(stays)}


@pytest.mark.parametrize("layout", ["venv-in-clone", "link-into-clone", "interpreter-in-clone"])
def test_only_a_sessionsite_inside_a_checkout_installs_with_a_warning_naming_it(tmp_path, monkeypatch, layout):
    clone = tmp_path / "src" / "sessionsite"
    in_clone = clone_with_a_venv(clone)
    elsewhere = tmp_path / "bin" / "sessionsite"
    elsewhere.parent.mkdir()
    if layout == "link-into-clone":
        elsewhere.symlink_to(in_clone)
    elif layout == "interpreter-in-clone":
        program(elsewhere, str(clone / ".venv" / "bin" / "python"))
    shown = in_clone if layout == "venv-in-clone" else elsewhere
    monkeypatch.setattr(sys, "argv", ["/usr/lib/python3/pytest"])
    monkeypatch.setenv("PATH", str(shown.parent))
    settings = tmp_path / "settings.json"
    result = CliRunner().invoke(main, ["hook", "install", "--settings", str(settings)])
    assert result.exit_code == 0, result.output
    assert {command.split()[0] for command in hooks_in(settings)} == {str(shown)}
    warning = " ".join(result.output.split())
    assert f"warning: the hook runs {shown}, which is inside the git checkout {clone}" in warning
    assert f"pipx install {clone}" in warning and f"uv tool install {clone}" in warning


def test_a_home_folder_kept_in_git_is_not_a_checkout_that_moves(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    stays = program(home / ".local" / "bin" / "sessionsite")
    monkeypatch.setattr(sys, "argv", [str(stays)])
    monkeypatch.setenv("PATH", str(stays.parent))
    settings = tmp_path / "settings.json"
    result = CliRunner().invoke(main, ["hook", "install", "--settings", str(settings)])
    assert result.exit_code == 0 and "warning" not in result.output, result.output
    assert {command.split()[0] for command in hooks_in(settings)} == {str(stays)}


# -- the settings file ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["absolute", "relative", "chain", "dangling"])
def test_a_symlinked_settings_file_is_edited_through_the_link(tmp_path, link):
    dotfiles = tmp_path / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    target = dotfiles / "settings.json"
    if link != "dangling":
        target.write_text(json.dumps({"model": "opus"}), encoding="utf-8")
    claude_folder = tmp_path / "home" / ".claude"
    claude_folder.mkdir(parents=True)
    settings = claude_folder / "settings.json"
    if link == "relative":
        settings.symlink_to(os.path.relpath(target, claude_folder))
    elif link == "chain":
        middle = tmp_path / "dotfiles" / "current.json"
        middle.symlink_to(target)
        settings.symlink_to(middle)
    else:
        settings.symlink_to(target)
    pointed = os.readlink(settings)
    runner = CliRunner()
    result = runner.invoke(main, ["hook", "install", "--settings", str(settings), "--vault", str(tmp_path / "v")])
    assert result.exit_code == 0, result.output
    assert settings.is_symlink() and os.readlink(settings) == pointed
    assert target.is_file() and not target.is_symlink()
    assert len(hooks_in(target)) == 2
    if link != "dangling":
        assert json.loads(target.read_text(encoding="utf-8"))["model"] == "opus"
    assert runner.invoke(main, ["hook", "uninstall", "--settings", str(settings)]).exit_code == 0
    assert settings.is_symlink() and os.readlink(settings) == pointed
    assert "hooks" not in json.loads(target.read_text(encoding="utf-8"))
    left = [path.name for folder in (dotfiles, claude_folder, tmp_path / "dotfiles") for path in folder.iterdir()
            if path.name.endswith(".part")]
    assert left == []


@pytest.mark.parametrize("through_a_link", [False, True])
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_read_only_settings_file_is_refused_and_left_as_it_is(tmp_path, through_a_link, command):
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    theirs = {"model": "opus", "hooks": {}}
    if command == "uninstall":  # hooks there to take out
        install(target, command_of("/opt/sessionsite/bin/sessionsite", vault=tmp_path / "v"))
        theirs = json.loads(target.read_text(encoding="utf-8"))
    else:
        target.write_text(json.dumps(theirs), encoding="utf-8")
    target.chmod(0o444)
    before = target.read_bytes()
    settings = target
    if through_a_link:
        settings = tmp_path / "settings.json"
        settings.symlink_to(target)
    result = CliRunner().invoke(main, ["hook", command, "--settings", str(settings)])
    assert result.exit_code == 1, result.output
    assert str(settings) in result.output and "read-only" in result.output
    assert target.read_bytes() == before and stat.S_IMODE(target.stat().st_mode) == 0o444
    assert settings.is_symlink() == through_a_link
    assert not list(tmp_path.rglob("*.part")) and not list(tmp_path.rglob("*.sessionsite-backup"))


# -- doctor runs the hook's command --------------------------------------------------------------------------


def doctor(tmp_path: Path, command: str):
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"cleanupPeriodDays": 365}), encoding="utf-8")
    install(settings, command)
    return CliRunner().invoke(main, ["doctor", "--settings", str(settings), "--vault", str(tmp_path / "vault")])


def hook_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(("ok    the hook", "warn  the hook"))]


def test_doctor_reports_a_hook_whose_program_does_not_exist(tmp_path):
    missing = tmp_path / "moved-clone" / ".venv" / "bin" / "sessionsite"
    result = doctor(tmp_path, command_of(missing, vault=tmp_path / "vault"))
    assert result.exit_code == 1, result.output
    lines = hook_lines(result.output)
    assert lines[0].startswith("warn") and f"{missing} does not exist" in lines[0]
    assert not [line for line in lines if line.startswith("ok")]


@pytest.mark.parametrize("case", ["fails", "not-executable", "hangs"])
def test_doctor_reports_a_hook_command_that_fails(tmp_path, monkeypatch, case):
    body = {"fails": "import sys\nprint('no module named generator', file=sys.stderr)\nsys.exit(3)\n",
            "not-executable": "", "hangs": "import time\ntime.sleep(600)\n"}[case]
    script = program(tmp_path / "bin" / "sessionsite", sys.executable, body)
    if case == "not-executable":
        script.chmod(0o644)
    monkeypatch.setattr(trial_run, "HOOK_TRIAL_SECONDS", 1.0)
    result = doctor(tmp_path, command_of(script, vault=tmp_path / "vault"))
    assert result.exit_code == 1, result.output
    line = hook_lines(result.output)[0]
    assert line.startswith("warn") and "cannot save sessions" in line
    assert {"fails": "exits with code 3 (no module named generator)", "not-executable": "cannot be run",
            "hangs": "was stopped"}[case] in line


def test_doctor_says_ok_for_a_hook_that_runs_and_the_trial_saves_nothing(tmp_path):
    vault = tmp_path / "vault"
    working = command_of(sys.executable, "-m", "generator", vault=vault)
    result = doctor(tmp_path, working)
    lines = hook_lines(result.output)
    assert lines and lines[0].startswith("ok") and "its command runs" in lines[0], result.output
    assert not [line for line in lines if line.startswith("warn")]
    assert not (vault / HOOK_LOG).exists() and not vault.exists()  # the trial saved and logged nothing


def test_doctor_runs_no_program_but_sessionsite_or_python_from_a_settings_file(tmp_path):
    marker = tmp_path / "ran"
    other = program(tmp_path / "bin" / "notify", "/bin/sh", f"touch {marker}\n")
    result = doctor(tmp_path, command_of(other, "-m", "generator", vault=tmp_path / "vault"))
    assert not marker.exists()
    assert result.exit_code == 1
    line = hook_lines(result.output)[0]
    assert line.startswith("warn") and f"{other} is neither sessionsite nor Python, so it was not run" in line


# -- installed by pipx, by uv tool, or run by uvx ----------------------------------------------------------------


def uv_cache_run(root: Path) -> Path:
    """Where `uvx sessionsite` runs sessionsite from: an environment in uv's cache (marked CACHEDIR.TAG)."""
    root.mkdir(parents=True)
    (root / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n", encoding="utf-8")
    return program(root / "archive-v0" / "Xb2c9" / "bin" / "sessionsite", str(root / "archive-v0" / "Xb2c9" / "bin" / "python"))


def test_a_sessionsite_run_by_uvx_installs_a_hook_that_runs_uvx_again(tmp_path, monkeypatch):
    """uvx's sessionsite lives in uv's cache, which `uv cache clean` (or its pruning) empties: the hook runs
    uvx by its full path instead, which brings sessionsite back, and says how to install one that stays."""
    ephemeral = uv_cache_run(tmp_path / "cache" / "uv")
    uvx = program(tmp_path / "bin" / "uvx", "/bin/sh")
    monkeypatch.setattr(sys, "argv", [str(ephemeral), "hook", "install"])
    monkeypatch.setenv("PATH", os.pathsep.join([str(ephemeral.parent), str(uvx.parent)]))
    settings = tmp_path / "settings.json"
    result = CliRunner().invoke(main, ["hook", "install", "--settings", str(settings)])
    assert result.exit_code == 0, result.output
    assert "uv tool install sessionsite" in result.output
    commands = hooks_in(settings)
    assert commands and all(shlex.split(command)[:4] == [str(uvx), "sessionsite", "save", "--hook"] for command in commands)


def test_an_installed_sessionsite_is_preferred_to_uvx_s(tmp_path, monkeypatch):
    ephemeral = uv_cache_run(tmp_path / "cache" / "uv")
    uvx = program(tmp_path / "bin" / "uvx", "/bin/sh")
    stays = program(tmp_path / "home" / ".local" / "bin" / "sessionsite")
    monkeypatch.setattr(sys, "argv", [str(ephemeral), "hook", "install"])
    monkeypatch.setenv("PATH", os.pathsep.join([str(ephemeral.parent), str(uvx.parent), str(stays.parent)]))
    settings = tmp_path / "settings.json"
    result = CliRunner().invoke(main, ["hook", "install", "--settings", str(settings)])
    assert result.exit_code == 0 and "warning" not in result.output, result.output
    assert {shlex.split(command)[0] for command in hooks_in(settings)} == {str(stays)}


@pytest.mark.parametrize("command, ours", [
    ("'C:\\Users\\ada\\.local\\bin\\sessionsite.exe' save --hook", True),  # as shlex.join writes it on Windows
    ("/home/ada/.local/bin/uvx sessionsite save --hook", True),
    ("/home/ada/.local/bin/uvx other-tool save --hook", False),
    ("'C:\\Users\\ada\\bin\\not-sessionsite.exe' save --hook", False),
])
def test_hook_commands_of_every_platform_and_installer_are_known_as_ours(command, ours):
    assert is_ours(command) is ours


def test_doctor_runs_uvx_only_to_start_sessionsite(tmp_path):
    said = trial_run.try_hook(shlex.join([str(tmp_path / "uvx"), "other-tool", "save", "--hook"]))
    assert said is not None and "neither sessionsite nor Python" in said
