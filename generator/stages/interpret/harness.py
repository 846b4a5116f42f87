"""Claude Code's words to the model, told apart from what happened. When a call does not run (the user pressed
Escape, answered No, a permission setting or a hook refused it), Claude Code writes an instruction to the model
in place of its result ("The user doesn't want to proceed… STOP what you are doing…"), and the entry says who
ended it (`toolDenialKind`, `permissionDecision`). To results that did run it appends notes for the model: ids,
temporary paths, a schema hint, the frame around a subagent's report. Each is read here into what a reader is
told (`Ending`, the user's feedback, the result as the tool gave it) and what is kept only for the model's side
(`ToolResult.instruction`, folded on the page, and `ToolResult.harness`, shown with --show-hidden).

The sentences are Claude Code's own (its CLI's strings, 2.1.x); a version that words them otherwise is read
from `toolDenialKind` still, and its text is shown as it is."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from ...core.model import Ending

# Claude Code's instructions in place of a result, by how the call ended.
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file).")
REJECTED_STOP = " STOP what you are doing and wait for the user to tell you how to proceed."
REJECTED_SAID = " To tell you how to proceed, the user said:\n"
INTERRUPTED = ("The user doesn't want to take this action right now. STOP what you are doing and wait for the user "
               "to tell you how to proceed.")
INTERRUPTED_FOR_TOOL = "[Request interrupted by user for tool use]"
REJECTED_SHORT = "The user doesn't want to proceed with this tool use."
# A call Claude Code's permission settings refused: what it would have needed is said in the sentence.
NOT_GRANTED = re.compile(r"\AClaude requested permissions to .{1,2000}?, but you haven't granted it yet\.", re.S)
# A hook that blocked the call: "PreToolUse:Bash hook error: [its command]: what it printed".
HOOK_BLOCKED = re.compile(r"\A(?P<event>[A-Za-z]+)(?::(?P<matcher>[^\s:]+))? hook error: \[(?P<command>.*?)\]: "
                          r"(?P<said>.*)\Z", re.S)
DENIAL_KINDS: Mapping[str, Ending] = {"interrupted": Ending.INTERRUPTED, "cancelled": Ending.CANCELLED,
                                      "automode-blocked": Ending.REFUSED}


@dataclass(frozen=True, slots=True)
class Reading:
    """A result's text read apart: what a reader is told, and what was only for the model."""

    text: str
    """What the tool gave (or, for a refusal, the reason Claude Code gave), to show."""
    ending: Ending = Ending.NONE
    feedback: str = ""
    """What the user typed when rejecting the call."""
    instruction: str = ""
    """Claude Code's instruction to the model in place of a result."""
    harness: str = ""
    """Notes to the model appended to the result."""


def read_result(text: str, entry: Mapping[str, Any], is_error: bool, tool: str) -> Reading:
    """`text` (a result's, tags and reminders already taken out), whether it is an error, its entry's fields
    and the name of the call it answers ("" when not known yet), read apart. Claude Code says how a call ended
    in the entry (`toolDenialKind`, 2.1.3xx); without that (older logs), only an error result whose text is
    one of Claude Code's own sentences is read as an ending: a command's output that quotes one is output."""
    kind = entry.get("toolDenialKind")
    decision = entry.get("permissionDecision")
    source = decision.get("source") if isinstance(decision, dict) else None
    stripped = text.strip()
    said_by_claude_code = is_error or kind is not None
    if said_by_claude_code and stripped.startswith(REJECTED_SHORT) and (
            kind is not None or stripped in (REJECTED_SHORT, REJECTED, REJECTED + REJECTED_STOP)
            or stripped.startswith(REJECTED + REJECTED_SAID.rstrip("\n"))):
        said = stripped.split(REJECTED_SAID.strip(), 1)
        feedback = said[1].strip() if len(said) == 2 else ""
        instruction = stripped if not feedback else said[0] + REJECTED_SAID.strip()
        # Escape while the call ran is written as a rejection; one at the permission prompt (Escape or No)
        # is marked as before the run (2.1.3xx; older logs say neither).
        while_running = kind == "user-rejected" and entry.get("toolDenialBeforeRun") is not True and not feedback
        return Reading("", Ending.INTERRUPTED if while_running else Ending.REJECTED, feedback, instruction)
    if kind == "interrupted" or (said_by_claude_code and stripped in (INTERRUPTED, INTERRUPTED_FOR_TOOL)):
        return Reading("", Ending.INTERRUPTED, instruction=stripped)
    if kind == "cancelled":
        return Reading(text, Ending.CANCELLED)
    hook = HOOK_BLOCKED.match(stripped) if said_by_claude_code else None
    if source == "hook" or (kind in ("permission-rule", None) and hook is not None):
        if hook is not None:
            return Reading(hook["said"].strip(), Ending.BLOCKED,
                           harness=f"{hook['event']}{':' + hook['matcher'] if hook['matcher'] else ''} hook: "
                                   f"{hook['command']}")
        if kind is not None:
            return Reading(text, Ending.BLOCKED)
    if isinstance(kind, str) and kind in DENIAL_KINDS:
        return Reading(text, DENIAL_KINDS[kind])
    not_granted = said_by_claude_code and NOT_GRANTED.match(stripped) is not None
    if kind in ("user-rejected", "permission-rule") or not_granted:
        # Answered by Claude Code's settings (`source` config), not by a person at a prompt.
        by_person = source == "user" or (kind == "user-rejected" and source is None and not not_granted)
        return Reading(text, Ending.REJECTED if by_person else Ending.REFUSED)
    shown, notes = without_notes_to_model(text, is_error, tool)
    return Reading(shown, harness=notes)


# Notes Claude Code appends to a result for the model. Each is a paragraph or a line of its own.
SCHEMA_HINT = re.compile(r"\n*This tool's input schema was not in your prompt when you called it\..*\Z", re.S)
INTERNAL_METADATA = re.compile(r" ?\(This tool result is internal metadata\b[^)]*\)")
NOTE_LINES = re.compile(
    r"^(?:agentId: \S+ \((?:internal ID|use SendMessage)[^\n]*"
    r"|output_file: /\S+"
    r"|Do NOT Read or tail this file\b[^\n]*"
    r"|<usage>.*?</usage>"
    r"|\s*<tools-used-before-summary>.*?</tools-used-before-summary>)\n?", re.M | re.S)
HAND_BACK = re.compile(r"^\[Subagent hand-back\][^\n]*\n", re.M)
REPORT_INDENT = "  "
AGENT_TOOLS = frozenset({"Agent", "Task"})
NOTE_MARKERS = ("input schema", "internal metadata", "agentId: ", "output_file: ", "Do NOT Read", "<usage>",
                "tools-used-before", "[Subagent hand-back]")


def without_notes_to_model(text: str, is_error: bool, tool: str) -> tuple[str, str]:
    """`text` without the notes Claude Code added for the model, and those notes: the schema hint after an
    error, and the frame, ids and usage around an agent's report or launch. Only where Claude Code writes them:
    a file a tool read, or a command's output, that quotes one is shown whole. Looked for by their words
    first: almost no result holds any."""
    agent = tool in AGENT_TOOLS
    if not (is_error or agent) or not any(marker in text for marker in NOTE_MARKERS):
        return text, ""
    notes: list[str] = []

    def note(found: re.Match[str]) -> str:
        notes.append(found.group(0).strip())
        return ""

    if is_error:
        text = SCHEMA_HINT.sub(note, text)
    if not agent:
        return text.strip("\n"), "\n\n".join(notes)
    frame = HAND_BACK.search(text)
    if frame is not None:
        # The report follows the frame, every line indented by two spaces; a line at column zero ends it.
        report: list[str] = []
        rest = text[frame.end():].split("\n")
        while rest and (rest[0].startswith(REPORT_INDENT) or not rest[0].strip()):
            report.append(rest.pop(0)[len(REPORT_INDENT):])
        before = text[:frame.start()]
        notes.append(before.strip())
        notes.append(frame.group(0).strip())
        text = "\n".join(report).strip("\n") + ("\n" + "\n".join(rest) if rest else "")
    text = INTERNAL_METADATA.sub(note, text)
    text = NOTE_LINES.sub(note, text)
    return text.strip("\n"), "\n\n".join(n for n in notes if n)
