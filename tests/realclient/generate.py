"""Regenerate tests/fixtures/realclient/ from the real Claude Code CLI, offline.

    python tests/realclient/generate.py [--version X] [--scenario NAME]... [--cache DIR]

Installs `@anthropic-ai/claude-code@X` (default: PINNED_VERSION) with npm into a cache folder (once per
version), then runs each scenario of scenarios.py in a fresh home folder against the scripted API of
api_stub.py on 127.0.0.1, and writes the session logs Claude Code wrote (subagent files included) to
tests/fixtures/realclient/<scenario>/, with this machine's paths and names replaced by a fixed fake home
(/home/ada). Beside them, `sent.json` keeps a few distinctive lines of what Claude Code sent to the model (its
system prompt and tool schemas), which no page may show. Nothing but npm's install touches the network.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from api_stub import Reply, ScriptedAPI  # noqa: E402
from scenarios import SCENARIOS, Run, Scenario  # noqa: E402

sys.path.insert(0, str(HERE.parents[1]))
from generator import CLAUDE_CODE_NEWEST  # noqa: E402

PINNED_VERSION = CLAUDE_CODE_NEWEST
FIXTURES = HERE.parent / "fixtures" / "realclient"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sessionsite-realclient"
FAKE_HOME = "/home/ada"
FAKE_HOST = "ada-laptop"
FAKE_KERNEL = "Linux 6.8.0-generic"
RUN_TIMEOUT = 180
SCREEN_TIMEOUT = 60
API_KEY = "sk-ant-scripted-not-a-key"


def encoded(path: str) -> str:
    """Claude Code's folder name for a project: every character but a letter or digit becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def install(version: str, cache: Path) -> Path:
    """The `claude` executable of `version`, installed into `cache` with npm if it is not there yet."""
    prefix = cache / f"claude-code-{version}"
    executable = prefix / "node_modules" / ".bin" / "claude"
    if executable.exists() and _reported_version(executable) == version:
        return executable
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund",
                    "--", f"@anthropic-ai/claude-code@{version}"], check=True)
    if _reported_version(executable) != version:
        # Older packages fetch their native binary in a postinstall script that npm may not have run.
        installer = prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "install.cjs"
        subprocess.run(["node", str(installer)], cwd=installer.parent, check=True)
    found = _reported_version(executable)
    if found != version:
        sys.exit(f"{executable}: reports version {found!r}, not {version}")
    return executable


def _reported_version(executable: Path) -> str:
    if not executable.exists():
        return ""
    result = subprocess.run([str(executable), "--version"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "DISABLE_AUTOUPDATER": "1"})
    return result.stdout.split(" ", 1)[0].strip()


def environment(home: Path, api: ScriptedAPI, extra: dict[str, str]) -> dict[str, str]:
    variables = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "USER": "ada",
                 "LOGNAME": "ada", "LANG": "C.UTF-8", "TERM": "xterm-256color", "SHELL": "/bin/bash", "TZ": "UTC",
                 "ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": API_KEY,
                 "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
                 "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CLAUDE_CODE_MAX_RETRIES": "0",
                 "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
                 "GIT_COMMITTER_EMAIL": "ada@example.org", **extra}
    # An empty value in `extra` takes the variable out.
    return {name: value for name, value in variables.items() if value}


def run_scenario(scenario: Scenario, executable: Path, version: str, out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="realclient-") as work:
        home = Path(work).resolve() / "home"
        project = home / "tidewatch"
        project.mkdir(parents=True)
        for name, words in scenario.files.items():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            (project / name).write_text(words.replace("@PROJECT@", str(project)), encoding="utf-8")
        with ScriptedAPI(title=scenario.title) as api:
            env = environment(home, api, {name: value.replace("@PROJECT@", str(project))
                                          for name, value in scenario.env.items()})
            subprocess.run(["git", "init", "-q", "-b", "main", "--", str(project)], check=True, env=env)
            subprocess.run(["git", "-C", str(project), "add", "-A"], check=True, env=env)
            subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", "Start tidewatch"], check=True, env=env)
            for run in scenario.runs:
                api.queue(_placed(reply, project) for reply in run.replies)
                args = [_first_session(home) if arg == "@SESSION@" else arg.replace("@PROJECT@", str(project))
                        for arg in run.args]
                if run.screen:
                    said = run_on_screen(run, [str(executable), *args], project, home, env)
                else:
                    result = subprocess.run([str(executable), *args], cwd=project, env=env, input=run.stdin,
                                            capture_output=True, text=True, timeout=RUN_TIMEOUT)
                    said = f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
                print(f"  {scenario.name}: claude {' '.join(args[:2])[:60]!r} -> {said.splitlines()[0][:60]}",
                      file=sys.stderr)
                if api.pending:
                    sys.exit(f"{scenario.name}: {api.pending} scripted replies were never asked for;"
                             f" Claude Code said:\n{said}")
            sent = _distinctive_lines(api.received)
        scrub = _scrubber(home, executable)
        if out.exists():
            shutil.rmtree(out)
        projects = home / ".claude" / "projects"
        for source in sorted(projects.rglob("*")):
            if source.is_file():
                target = out / "projects" / scrub(str(source.relative_to(projects)))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(scrub(source.read_text(encoding="utf-8")), encoding="utf-8")
        (out / "sent.json").write_text(scrub(json.dumps({"version": version, **sent}, indent=1)) + "\n",
                                       encoding="utf-8")


def run_on_screen(run: Run, command: list[str], project: Path, home: Path, env: dict[str, str]) -> str:
    """An interactive run under tmux: each step waits for its words on the screen, then types. Claude Code's
    first-run questions (onboarding, trusting the folder, using the API key) are answered in its settings."""
    settings = home / ".claude.json"
    known = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
    known.update({"hasCompletedOnboarding": True, "theme": "dark",
                  "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []}})
    known.setdefault("projects", {}).setdefault(str(project), {}).update({"hasTrustDialogAccepted": True})
    settings.write_text(json.dumps(known), encoding="utf-8")
    session = f"realclient-{os.getpid()}"
    tmux = ["tmux", "-L", session]
    subprocess.run([*tmux, "new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(project),
                    "env", "-i", *(f"{name}={value}" for name, value in env.items()), *command], check=True)

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout

    try:
        for step in run.screen:
            deadline = time.monotonic() + SCREEN_TIMEOUT
            while step.wait_for and step.wait_for not in screen():
                if time.monotonic() > deadline:
                    sys.exit(f"waited {SCREEN_TIMEOUT} s for {step.wait_for!r}; the screen shows:\n{screen()}")
                time.sleep(0.3)
            time.sleep(0.5)  # the screen shows a prompt a moment before it takes keys
            if step.text:
                subprocess.run([*tmux, "send-keys", "-t", session, "-l", "--", step.text], check=True)
                time.sleep(0.3)
            for key in step.keys:
                subprocess.run([*tmux, "send-keys", "-t", session, key], check=True)
                time.sleep(0.3)
        time.sleep(1)
        return "interactive\n" + screen()
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def _placed(reply: Reply, project: Path) -> Reply:
    """The reply with @PROJECT@ (the project folder, unknown until the run) filled in."""
    blocks = json.loads(json.dumps(reply.blocks).replace("@PROJECT@", str(project)))
    return Reply(tuple(blocks), reply.status, reply.to, reply.usage)


def _first_session(home: Path) -> str:
    logs = sorted((home / ".claude" / "projects").glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)
    return logs[0].stem


def _distinctive_lines(received: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Lines of the system prompt and of the tool descriptions and schemas Claude Code sent: long enough
    that finding one on a page can only mean the request leaked."""
    system: set[str] = set()
    tools: set[str] = set()
    for body in received:
        blocks = body.get("system")
        for block in blocks if isinstance(blocks, list) else [{"text": blocks or ""}]:
            system.update(line.strip() for line in str(block.get("text", "")).splitlines()
                          if (len(line.strip()) >= 60 or line.startswith("You are ")) and "billing-header" not in line)
        for schema in body.get("tools") or []:
            description = str(schema.get("description", ""))
            tools.update(line.strip() for line in description.splitlines() if len(line.strip()) >= 60)
            properties = (schema.get("input_schema") or {}).get("properties") or {}
            tools.update(str(p.get("description", "")) for p in properties.values()
                         if isinstance(p, dict) and len(str(p.get("description", ""))) >= 60)
    # Claude Code's opening words ("You are Claude Code, ...") always, then a sample of the rest.
    identity = sorted(line for line in system if line.startswith("You are "))
    return {"system_prompt": identity + sorted(system - set(identity))[:40], "tool_schemas": sorted(tools)[:40]}


def _scrubber(home: Path, executable: Path) -> Any:
    replacements = [(str(home), FAKE_HOME), (encoded(str(home)), encoded(FAKE_HOME)),
                    (str(executable.parent.parent.parent), FAKE_HOME + "/.cache/claude-code")]
    # Claude Code keeps background output under /tmp/claude-<uid>.
    replacements.append((f"/tmp/claude-{os.getuid()}/", "/tmp/claude-1000/"))
    host = socket.gethostname()
    words = [(re.compile(rf"\b{re.escape(host)}\b"), FAKE_HOST)] if len(host) >= 4 else []
    # The kernel's release names the machine's build (the environment Claude Code records).
    words.append((re.compile(r"\bLinux \d+\.\d+\.\d+[-.\w]*"), FAKE_KERNEL))

    def scrub(words_in: str) -> str:
        for old, new in replacements:
            words_in = words_in.replace(old, new)
        for pattern, new in words:
            words_in = pattern.sub(new, words_in)
        return words_in
    return scrub


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default=PINNED_VERSION, help=f"Claude Code version (default {PINNED_VERSION})")
    parser.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"npm install folder (default {DEFAULT_CACHE})")
    parser.add_argument("--output", type=Path, default=FIXTURES, help=f"fixtures folder (default {FIXTURES})")
    options = parser.parse_args()
    executable = install(options.version, options.cache)
    chosen = [s for s in SCENARIOS if not options.scenario or s.name in options.scenario]
    for scenario in chosen:
        run_scenario(scenario, executable, options.version, options.output / scenario.name)
    print(f"{len(chosen)} scenarios from Claude Code {options.version} -> {options.output}")


if __name__ == "__main__":
    main()
