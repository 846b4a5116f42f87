"""Codex CLI's tool calls in the one model's terms: a shell command (`exec_command`, `shell`, `shell_command`,
`local_shell_call`, `container.exec`) is a `Bash` call with its command line, a plan update (`update_plan`) a
`TodoWrite` checklist, an `apply_patch` a call whose input names each file it adds, changes, moves or deletes
with the lines of its diff, an MCP tool `mcp__<server>__<tool>`; and a tool's output is its text, with the
exit code Codex wrote in front of it (or, in 2025, in a JSON envelope around it) taken out as a fact.
Pure functions over the JSON Codex wrote: the session builder (`codex_rollout`) calls them."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any, Mapping

SHELL_TOOLS = frozenset({"exec_command", "shell", "shell_command", "container.exec", "local_shell", "unified_exec"})
"""Codex's names for running a command, across its versions."""
PATCH_TOOL = "apply_patch"
PLAN_TOOL = "update_plan"
# Codex's own tools, which an MCP tool's `<server>__<tool>` name can never be mistaken for.
OWN_TOOLS = SHELL_TOOLS | {PATCH_TOOL, PLAN_TOOL, "write_stdin", "view_image", "web_search", "tool_search",
                           "request_user_input", "list_mcp_resources", "list_mcp_resource_templates",
                           "read_mcp_resource", "get_goal", "create_goal", "update_goal", "spawn_agent",
                           "send_input", "wait", "close_agent", "multi_agent_v1"}
# `bash -lc '<script>'` and the like: the script is what the model wrote.
_SHELL_WRAPPERS = frozenset({"bash", "/bin/bash", "/usr/bin/bash", "sh", "/bin/sh", "zsh", "/bin/zsh", "/usr/bin/zsh"})
_POWERSHELL = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})

# What Codex writes in front of a command's output (0.3x and later): facts about the run, then "Output:".
_OUTPUT_HEADER = re.compile(r"^(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|"
                            r"Original token count|Exit code|Total output lines)\b.*$")
_EXIT_CODE = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d{1,6})\s*$", re.M)
# What Codex answers the model when the person says no, or when the call could not run at all.
_REFUSED = re.compile(r"^(?:exec command rejected|patch rejected|rejected by user|aborted by user|"
                      r"the user (?:denied|declined|rejected))", re.I)
_FAILED = re.compile(r"^(?:unsupported call|unsupported custom tool call|failed to parse function arguments|"
                     r"apply_patch verification failed|error:|execution error:)", re.I)


def command_line(argv: Any) -> str:
    """A command given as a list of words, as a line a person would type: the script of `bash -lc SCRIPT`, or
    the words joined and quoted for a shell."""
    if isinstance(argv, str):
        return argv
    if not isinstance(argv, list) or not all(isinstance(word, str) for word in argv):
        return json.dumps(argv, ensure_ascii=False) if argv is not None else ""
    if len(argv) == 3 and argv[0] in _SHELL_WRAPPERS and argv[1] in ("-lc", "-c", "-l -c"):
        return str(argv[2])
    if len(argv) >= 2 and argv[0].lower() in _POWERSHELL and argv[-2].lower() in ("-command", "-c"):
        return str(argv[-1])
    return shlex.join(argv)


def arguments_of(raw: Any) -> dict[str, Any]:
    """A function call's arguments: Codex keeps them as the JSON text the model wrote; anything that is not a
    JSON object is kept whole under `input`."""
    if isinstance(raw, dict):
        return dict(raw)
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"input": raw}
        return dict(parsed) if isinstance(parsed, dict) else {"input": parsed}
    return {"input": raw}


def call_of(name: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool name and input a Codex call is shown under. The input keeps every argument the model gave
    (for search and redaction); the names the one model's renderers read are added."""
    tool_input = dict(arguments)
    if name in SHELL_TOOLS:
        command = arguments.get("cmd", arguments.get("command", arguments.get("input", "")))
        line = command_line(command)
        tool_input["command"] = line
        justification = arguments.get("justification")
        if isinstance(justification, str) and justification.strip():
            tool_input["description"] = justification
        shell = arguments.get("shell")
        words = command if isinstance(command, list) else []
        powershell = (isinstance(shell, str) and shell.lower().rsplit("/", 1)[-1] in _POWERSHELL) or \
            bool(words and isinstance(words[0], str) and words[0].lower() in _POWERSHELL)
        return ("PowerShell" if powershell else "Bash"), tool_input
    if name == PLAN_TOOL:
        plan = arguments.get("plan")
        tool_input["todos"] = [{"content": str(step.get("step", "")), "status": str(step.get("status", ""))}
                               for step in (plan if isinstance(plan, list) else []) if isinstance(step, dict)]
        return "TodoWrite", tool_input
    if name == PATCH_TOOL:
        text = arguments.get("input", arguments.get("patch", ""))
        return PATCH_TOOL, patch_input(text if isinstance(text, str) else json.dumps(text))
    if "__" in name and name not in OWN_TOOLS and not name.startswith("mcp__"):
        return f"mcp__{name}", tool_input  # 2025's `<server>__<tool>`
    return name, tool_input


_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.*)$")
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.*)$")
_PATCH_KIND = {"Add": "add", "Update": "update", "Delete": "delete"}


def patch_input(patch: str) -> dict[str, Any]:
    """An apply_patch call's input: the patch as written, and each file it names with what happens to it and
    the lines of its diff (`+`, `-`, ` ` and `@@` lines as in a unified diff; an added file's lines all `+`)."""
    changes: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in patch.splitlines():
        found = _PATCH_FILE.match(line)
        if found:
            current = {"path": found.group(2).strip(), "kind": _PATCH_KIND[found.group(1)], "diff": []}
            changes.append(current)
            continue
        if current is None or line in ("*** Begin Patch", "*** End Patch", "*** End of File"):
            continue
        moved = _PATCH_MOVE.match(line)
        if moved:
            current["move_to"] = moved.group(1).strip()
        elif line.startswith("@@"):
            current["diff"].append(line)
        elif line[:1] in ("+", "-", " "):
            current["diff"].append(line)
        elif line == "":
            current["diff"].append(" ")
        else:  # not a line of a patch: kept as it was, as context
            current["diff"].append(" " + line)
    for change in changes:
        change["diff"] = "\n".join(change["diff"])
    return {"patch": patch, "files": [change["path"] for change in changes], "changes": changes}


def output_of(raw: Any) -> tuple[str, dict[str, Any], list[Mapping[str, Any]]]:
    """A tool's output as Codex wrote it: its text (without the facts Codex put in front of it), those facts
    (`exit_code`, `wall_time`, ...), and the images it holds (content items, as the model saw them)."""
    facts: dict[str, Any] = {}
    images: list[Mapping[str, Any]] = []
    if isinstance(raw, dict):  # {"content": ..., "success": ...} (FunctionCallOutputPayload)
        if raw.get("success") is False:
            facts["success"] = False
        raw = raw.get("content", raw.get("output", ""))
    if isinstance(raw, list):  # content items: text, images
        pieces = []
        for item in raw:
            if isinstance(item, dict) and item.get("type") in ("input_image", "output_image", "image"):
                images.append(item)
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                pieces.append(item["text"])
            else:
                pieces.append(json.dumps(item, ensure_ascii=False, sort_keys=True))
        raw = "\n".join(pieces)
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, sort_keys=True)
    if text.startswith("{") and '"metadata"' in text:  # 2025: {"output": ..., "metadata": {"exit_code": ...}}
        try:
            envelope = json.loads(text)
        except ValueError:
            envelope = None
        if isinstance(envelope, dict) and isinstance(envelope.get("output"), str) and isinstance(envelope.get("metadata"), dict):
            text = envelope["output"]
            facts.update((key, value) for key, value in envelope["metadata"].items() if isinstance(value, (int, float, str)))
    lines = text.split("\n")
    header = 0
    while header < len(lines) and _OUTPUT_HEADER.match(lines[header]):
        header += 1
    # The facts end at "Output:", or at the first line that is none (a refusal: "aborted by user").
    if header and header < len(lines):
        for found in _EXIT_CODE.finditer("\n".join(lines[:header])):
            facts["exit_code"] = int(found.group(1))
        facts["header"] = "\n".join(lines[:header])
        text = "\n".join(lines[header + 1:] if lines[header] == "Output:" else lines[header:])
    return text, facts, images


def is_failure(text: str, facts: Mapping[str, Any]) -> tuple[bool, str]:
    """Whether an output says the call failed, and how: `denied` (the person said no), `failed`, or ""."""
    stripped = text.lstrip()
    if _REFUSED.match(stripped):
        return True, "denied"
    exit_code = facts.get("exit_code")
    if (isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code != 0) or facts.get("success") is False:
        return True, "failed"
    if _FAILED.match(stripped):
        return True, "failed"
    return False, ""
