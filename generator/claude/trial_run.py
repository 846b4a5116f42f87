"""A hook's command run as Claude Code runs it when a session ends, on a session that wrote nothing: whether
it works, and if not, why."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import tempfile
from pathlib import Path

from ..core.paths import program_name

HOOK_TRIAL_SECONDS = 30.0
"""How long `doctor` lets the hook's command run on a session that wrote nothing: it imports and returns."""


def try_hook(command: str, timeout: float | None = None) -> str | None:
    """Run a hook's command as Claude Code does when a session ends, on a session that wrote no log (so
    `save --hook` saves nothing and logs nothing): None when it works, else what went wrong. It is run
    without a shell, as the words `install` wrote, and only when it is a command `is_ours` that starts
    sessionsite or Python."""
    words = shlex.split(command)
    program = os.path.expanduser(words[0])
    name = program_name(program)
    if not (name == "sessionsite" or (name == "uvx" and words[1:2] == ["sessionsite"])
            or name.startswith(("python", "pypy"))):
        # `is_ours` takes any program before `-m generator`: only Python is run with it.
        return f"{program} is neither sessionsite nor Python, so it was not run"
    return trial([program, *words[1:]], timeout)


def trial(words: list[str], timeout: float | None = None, env: dict[str, str] | None = None) -> str | None:
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
                if hasattr(os, "killpg"):
                    os.killpg(process.pid, signal.SIGKILL)
                else:  # Windows: no process groups of this kind
                    process.kill()
                process.communicate()
                return f"it ran for over {limit:g} s on a session that wrote nothing, and was stopped"
    if process.returncode != 0:
        lines = [line for line in said.decode("utf-8", "replace").splitlines() if line.strip()]
        return f"it exits with code {process.returncode}" + (f" ({lines[-1].strip()[:300]})" if lines else "")
    return None
