"""Regenerate tests/fixtures/codex/ from the real Codex CLI, offline.

    python tests/realclient_codex/generate.py [--version X] [--scenario NAME]... [--cache DIR]

Installs `@openai/codex@X` (default: PINNED_VERSION) with npm into a cache folder (once per version), then runs
each scenario of codex_scenarios.py with `codex exec` in a fresh CODEX_HOME whose config.toml names a custom model
provider (`wire_api = "responses"`) served by the scripted Responses API of responses_stub.py on 127.0.0.1, and
writes the rollouts Codex wrote to tests/fixtures/codex/<scenario>/, with this machine's paths replaced by a fixed
fake home (/home/ada). Beside them, `sent.json` keeps a few distinctive lines of what Codex sent the model (its
system prompt), which no page may show. Nothing but npm's install touches the network.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from responses_stub import Reply, ScriptedResponses  # noqa: E402
from codex_scenarios import SCENARIOS, Run, Scenario  # noqa: E402

PINNED_VERSION = "0.171.0"
MODEL = "gpt-5.5"
"""A model this version knows (its bundled catalogue): with another, it offers fewer tools."""
FIXTURES = HERE.parent / "fixtures" / "codex"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sessionsite-realclient"
FAKE_HOME = "/home/ada"
RUN_TIMEOUT = 180
SCREEN_TIMEOUT = 60
API_KEY = "sk-scripted-not-a-key"


def install(version: str, cache: Path) -> Path:
    """The `codex` executable of `version`, installed into `cache` with npm if it is not there yet."""
    prefix = cache / f"codex-{version}"
    executable = prefix / "node_modules" / ".bin" / "codex"
    if not (executable.exists() and reported_version(executable) == version):
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund",
                        "--", f"@openai/codex@{version}"], check=True)
    found = reported_version(executable)
    if found != version:
        sys.exit(f"{executable}: reports version {found!r}, not {version}")
    return executable


def reported_version(executable: Path) -> str:
    if not executable.exists():
        return ""
    result = subprocess.run([str(executable), "--version"], capture_output=True, text=True, timeout=60)
    return result.stdout.strip().rsplit(" ", 1)[-1]


def config(api: ScriptedResponses, scenario: Scenario, work: Path) -> str:
    extra = scenario.config.replace("{here}", str(HERE)).replace("{python}", sys.executable)
    return (f'model = "{MODEL}"\nmodel_provider = "scripted"\n{extra}\n'
            f'[projects."{work}"]\ntrust_level = "trusted"\n\n'
            f'[model_providers.scripted]\nname = "Scripted"\nbase_url = "{api.url}"\nwire_api = "responses"\n'
            'env_key = "SCRIPTED_API_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n')


def run_screen(executable: Path, scenario: Scenario, work: Path, env: dict[str, str]) -> None:
    """Codex's interactive screen under tmux (`--no-daemon`: no app server left behind), driven by the
    scenario's steps; a dialog offering another model is answered "use the existing one"."""
    assert scenario.screen is not None
    session = f"codex-{scenario.name}-{os.getpid()}"
    variables = [f"{name}={value}" for name, value in {**env, "TERM": "xterm-256color"}.items()]
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(work),
                    "env", *variables, str(executable), "--no-daemon"], check=True)

    def screen() -> str:
        shown = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True)
        return shown.stdout

    def press(*keys: str, literal: bool = False) -> None:
        subprocess.run(["tmux", "send-keys", "-t", session, *(["-l"] if literal else []), *keys], check=True)
        time.sleep(1.5)

    def wait_for(words: str, seconds: float = SCREEN_TIMEOUT) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            shown = screen()
            if "Use existing model" in shown:
                press("2")
                press("Enter")
            if words in shown:
                return
            time.sleep(0.5)
        sys.exit(f"{scenario.name}: the screen never showed {words!r}:\n{screen()}")

    try:
        wait_for("Ask Codex")
        for action, value in scenario.screen.steps:
            if action == "type":
                press(value, literal=True)
                press("Enter")
            elif action == "wait":
                wait_for(value)
            elif action == "key":
                press(value)
            else:
                time.sleep(float(value))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def environment(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
            "USER": "ada", "LOGNAME": "ada", "LANG": "C.UTF-8", "TZ": "UTC", "SHELL": "/bin/bash",
            "SCRIPTED_API_KEY": API_KEY, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org",
            "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def chart_png(width: int = 96, height: int = 48) -> bytes:
    """A small picture of a tide curve: a pasted image of a size a page shows."""
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            curve = int(height / 2 + (height / 3) * math.sin(x / width * 4 * 3.14159))
            row += bytes((20, 90, 200) if abs(y - curve) <= 1 else (235, 242, 250))
        rows.append(b"\x00" + bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))


def with_work_folder(reply: Reply, work: Path) -> Reply:
    items = json.loads(json.dumps(reply.items).replace("{work}", str(work)))
    return Reply(tuple(items), reply.status, reply.delay)


def run_scenario(executable: Path, scenario: Scenario, root: Path) -> tuple[list[Path], list[dict[str, Any]], Path]:
    home = root / "home" / "ada"
    work = home / "tidewatch"  # the folder of the Claude Code fixtures (tests/fixtures/realclient): one project
    (home / ".codex").mkdir(parents=True)
    work.mkdir(parents=True)
    for name, text in scenario.files.items():
        (work / name).write_text(text, encoding="utf-8")
    env = environment(home)
    if scenario.git:
        for command in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "Start"]):
            subprocess.run(command, cwd=work, env=env, check=True)
    with ScriptedResponses(model=MODEL) as api:
        (home / ".codex" / "config.toml").write_text(config(api, scenario, work), encoding="utf-8")
        if scenario.screen is not None:
            api.queue(with_work_folder(reply, work) for reply in scenario.screen.replies)
            run_screen(executable, scenario, work, env)
        for run in scenario.runs:
            api.queue(with_work_folder(reply, work) for reply in run.replies)
            command = [str(executable), "exec", "--skip-git-repo-check", "--json",
                       "--dangerously-bypass-approvals-and-sandbox"]
            if run.resume:
                command += ["resume", "--last"]
            command += ["--", run.prompt] if not run.image else [run.prompt, "-i", str(_image(work, run))]
            result = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                                    stdin=subprocess.DEVNULL)
            if result.returncode != 0:
                sys.exit(f"{scenario.name}: codex exited {result.returncode}\n{result.stdout}\n{result.stderr}")
            if api.pending:
                sys.exit(f"{scenario.name}: {api.pending} scripted replies were never asked for\n{result.stdout}")
        received = list(api.received)
    logs = sorted((home / ".codex").glob("sessions/**/rollout-*.jsonl")) + sorted(
        (home / ".codex").glob("archived_sessions/rollout-*.jsonl"))
    return logs, received, home


def _image(work: Path, run: Run) -> Path:
    path = work / run.image
    path.write_bytes(chart_png())
    return path


def distinctive_lines(received: list[dict[str, Any]]) -> list[str]:
    """A few long lines of the instructions Codex sent the model, to check no page shows them."""
    lines: list[str] = []
    for request in received[:1]:
        body = request.get("body", {})
        instructions = body.get("instructions")
        texts = [instructions] if isinstance(instructions, str) else []
        for item in body.get("input", []):
            if isinstance(item, dict) and item.get("role") == "developer":
                texts.extend(part.get("text", "") for part in item.get("content", []) if isinstance(part, dict))
        for text in texts:
            lines.extend(line.strip() for line in text.splitlines() if len(line.strip()) > 60)
    return sorted(set(lines))[:12]


def write_fixture(scenario: Scenario, logs: list[Path], received: list[dict[str, Any]], home: Path) -> Path:
    target = FIXTURES / scenario.name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for log in logs:
        relative = log.relative_to(home / ".codex")
        out = target / relative
        out.parent.mkdir(parents=True, exist_ok=True)
        text = log.read_text(encoding="utf-8").replace(str(home), FAKE_HOME)
        out.write_text(text, encoding="utf-8")
    sent = [line.replace(str(home), FAKE_HOME) for line in distinctive_lines(received)]
    (target / "sent.json").write_text(json.dumps(sent, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default=PINNED_VERSION)
    parser.add_argument("--scenario", action="append", default=[])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--executable", type=Path, help="a codex already installed (skips npm)")
    arguments = parser.parse_args()
    executable = arguments.executable or install(arguments.version, arguments.cache)
    chosen = [s for s in SCENARIOS if not arguments.scenario or s.name in arguments.scenario]
    for scenario in chosen:
        with tempfile.TemporaryDirectory(prefix="codex-realclient-") as folder:
            logs, received, home = run_scenario(executable, scenario, Path(folder))
            if not logs:
                sys.exit(f"{scenario.name}: Codex wrote no rollout")
            target = write_fixture(scenario, logs, received, home)
            print(f"{scenario.name}: {len(logs)} rollout(s) -> {target}")


if __name__ == "__main__":
    main()
