"""What the hook runs when a session ends or is compacted: the session Claude Code names saved into the
vault, with its subagents' logs, provided each is a log inside Claude Code's projects folder."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..core.errors import SessionsiteError
from ..stages.discover import AGENT_FILE, SessionFile, default_input
from ..output.vault import Vault, log_hook_failure


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
