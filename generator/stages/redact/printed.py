"""Which entries hold the output of a command that prints a secret (`credentials.commands`), in every way Claude
Code shows a command with its output:

- a tool call (`Bash`, a `PowerShell` or an MCP shell tool: any call with a `command`) and, in a later entry, its
  result (the `tool_result` that answers the call's id, with `toolUseResult.stdout`);
- a command run in the background: its call's result names the task (`backgroundTaskId`), and a later
  `BashOutput`/`TaskOutput` call asks for that task's output (`bash_id`, `shell_id`, `task_id`); a result that
  names its command itself (`BashOutput`'s `toolUseResult.command`);
- bash mode (`!` in the prompt): an entry with `<bash-input>command</bash-input>`, then one with
  `<bash-stdout>…</bash-stdout>`.

The redactor reads a file's entries in order, so the call is seen before its result; what is kept between
entries is a few ids.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..credentials.commands import printed_secret, printed_secrets
from ..credentials.scan import Found

_TASK_KEYS = ("bash_id", "shell_id", "task_id", "shellId", "taskId")
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_BASH_OUTPUT = re.compile(r"<bash-(?:stdout|stderr)>(.*?)</bash-(?:stdout|stderr)>", re.S)
_MOST_KEPT = 10_000


class PrintedCommands:
    """The calls (and background tasks) seen running a command that prints a secret, in one file."""

    __slots__ = ("calls", "tasks", "bash_mode", "current")

    def __init__(self) -> None:
        self.calls: dict[str, bool] = {}
        """Call id: whether its command prints the secret alone."""
        self.tasks: dict[str, bool] = {}
        """Background task id: the same."""
        self.bash_mode: bool | None = None
        """What the last `<bash-input>` prints (None: no secret)."""
        self.current: bool | None = None
        """While the redactor redacts an entry that holds such an output: whether the command prints the secret
        alone (None: the entry holds none)."""

    def spans(self, text: str) -> list[Found]:
        """The secrets in one string of the output the entry being redacted holds."""
        return [Found(start, end, "printed-secret") for start, end in output_spans(text, bool(self.current))]

    def output_of(self, data: Mapping[str, Any], calls: list[dict[str, Any]]) -> bool | None:
        """None when the entry holds no output of a command that prints a secret; else whether the command
        prints the secret alone (its output's first line is the secret)."""
        if not calls and "toolUseResult" not in data and data.get("type") != "user":
            return None  # most entries: a reply with no call in it
        found: bool | None = None
        for part in calls:
            kind = part.get("type")
            if kind == "tool_use":
                tool_input = part.get("input")
                if not isinstance(tool_input, dict):
                    continue
                command = tool_input.get("command")
                prints, alone = printed_secret(command) if isinstance(command, str) else (False, False)
                task = next((tool_input[key] for key in _TASK_KEYS if isinstance(tool_input.get(key), str)), None)
                if task is not None and task in self.tasks:
                    prints, alone = True, self.tasks[task]
                if prints:
                    self._keep(self.calls, str(part.get("id")), alone)
            elif kind == "tool_result" and self.calls:
                answered = self.calls.get(str(part.get("tool_use_id")))
                if answered is not None:
                    found = answered if found is None else found or answered
        result = data.get("toolUseResult")
        if isinstance(result, dict):
            command = result.get("command")
            if isinstance(command, str):
                prints, alone = printed_secret(command)
                if prints:
                    found = alone if found is None else found or alone
            task = result.get("backgroundTaskId") or result.get("shellId")
            if found is not None and isinstance(task, str):
                self._keep(self.tasks, task, found)
        if data.get("type") == "user":
            found = self._bash_mode(data, found)
        return found

    def _bash_mode(self, data: Mapping[str, Any], found: bool | None) -> bool | None:
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # bash mode's entries hold a string, or a text part
            content = next((part.get("text") for part in content if isinstance(part, dict)
                            and part.get("type") == "text"), None)
        text = content[:200] if isinstance(content, str) else ""
        if "<bash-input>" in text:
            command = _BASH_INPUT.search(content if isinstance(content, str) else "")
            prints, alone = printed_secret(command.group(1)) if command else (False, False)
            self.bash_mode = alone if prints else None
        elif "<bash-stdout>" in text or "<bash-stderr>" in text:
            if self.bash_mode is not None:
                found = self.bash_mode if found is None else found or self.bash_mode
            self.bash_mode = None
        return found

    @staticmethod
    def _keep(kept: dict[str, bool], key: str, alone: bool) -> None:
        if len(kept) > _MOST_KEPT:
            kept.clear()
        kept[key] = alone


def output_spans(text: str, alone: bool) -> list[tuple[int, int]]:
    """The secrets in one string of such an output (bash mode's tags taken off first)."""
    if "<bash-" not in text:
        return printed_secrets(text, alone)
    spans: list[tuple[int, int]] = []
    for found in _BASH_OUTPUT.finditer(text):
        offset = found.start(1)
        spans += [(offset + start, offset + end) for start, end in printed_secrets(found.group(1), alone)]
    return spans
