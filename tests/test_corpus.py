"""The real corpus: every session file written by Claude Code in ../shared/corpus/public builds, and nothing
in it is lost: each prompt, reply, thinking block, continuation summary, tool call and tool result can be
found in the visible text of the pages made from that file.

What a file holds is read here independently of sessionsite (the helpers' reader) and compared with the
words a reader sees: the text of the built pages, lower-cased, punctuation dropped. The one thing borrowed
from sessionsite is *where* to look: which pages were made from which file (the source phase 1 records for
each session), so that text from a file is looked for in that file's own pages.

Left out by design, and so left out here too (each is shown with --show-hidden):
- isMeta entries: text Claude Code adds for the model (skill bodies, caveats, reminders);
- `<command-…>` and `<local-command-…>` tags and the local-command caveat: a slash command shows as the
  command line, not as the tags around it;
- `[Request interrupted by user…]`: shown as a notice in words of its own, "Interrupted by the user";
- `<system-reminder>` blocks Claude Code injects into prompts and tool results;
- the "Implement the following plan:" wrapper of a session started from an accepted plan: the plan card
  shows the plan (which must be there), not the preamble and the closing note around it;
- the boilerplate result of ExitPlanMode, AskUserQuestion, TodoWrite, TaskCreate and TaskUpdate ("User has
  approved your plan", "Todos have been modified successfully"…), which a page may say as a plan status,
  marked answers or a checklist: what they mean is checked instead (the plan, what the user said when
  rejecting it, the questions and answers, the todo items, the tasks);
- TaskList and TaskGet calls: Claude reading back its own task list tells the reader nothing new;
- what Claude Code writes to the model alone in a system message (a background task's ids, its temporary
  output file, a note to the model) and appended to a tool's result (an MCP tool's schema hint, the frame
  around a subagent's report, the agent's id and usage, "internal metadata" notices, a hook's command line).
Claude Code's instruction in place of a result the user rejected or interrupted ("STOP what you are
doing…") is shown folded, labelled as Claude Code's words to the model: it is checked.
Continuation summaries (isCompactSummary) are folded on the page, but there: they are checked.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from generator.core import urls
from generator.build import BuildConfig, build
from generator.render.markdown.tools import INLINE_OUTPUT_LIMIT

from conftest import PUBLIC_CORPUS, corpus_files, each_corpus_file
from helpers import build_archive, lines_shown, read_entries, read_numbered_entries

CORPUS = PUBLIC_CORPUS
ALL_FILES = corpus_files("*.jsonl", "chat.json")
AGENT_FILES = {p.stem[len("agent-"):]: p for p in ALL_FILES if p.name.startswith("agent-")}

# Without the corpus every test here skips, except in CI, where each fails (the fixture says why).
pytestmark = [pytest.mark.usefixtures("public_corpus"), pytest.mark.slow]

# -- hidden by design (see the module docstring) ----------------------------------------------------------
NOISE_PREFIXES = ("<command-", "<local-command-", "[Request interrupted by user", "Caveat: The messages below")
SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
# In a tool result, Claude Code's reminders start a line of their own. The same tag inside a line (a file
# that writes one, shown by Read with its line numbers; a JSON log quoting one) is the tool's own output.
INJECTED_REMINDER = re.compile(r"^[ \t]*<system-reminder>.*?</system-reminder>", re.S | re.M)
PLAN_PREAMBLE = "Implement the following plan:"
PLAN_CLOSING_NOTE = re.compile(r"\n\s*If you need specific details from before exiting plan mode\b.*\Z", re.S)
PLAN_TOOLS = frozenset({"ExitPlanMode", "exit_plan_mode"})
BOILERPLATE_RESULTS = frozenset({"AskUserQuestion", "TodoWrite", "TaskCreate", "TaskUpdate"})
QUIET_TOOLS = frozenset({"TaskList", "TaskGet"})
# The whole result of a call the user interrupted: shown as the interruption it is.
INTERRUPTED_FOR_TOOL = "[Request interrupted by user for tool use]"
# A rejected call's result ends with what the user said instead: that part is meaningful.
USER_SAID = "the user said:"

# -- not text ---------------------------------------------------------------------------------------------
# Terminal colours and cursor moves in tool output (CSI, OSC and two-byte escapes).
ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# The tag Claude Code wraps a refused call's message in: the page shows the message as an error.
TOOL_USE_ERROR_TAG = re.compile(r"</?tool_use_error>")
# A message Claude Code writes as the user, wrapped whole in a hyphenated tag (<task-notification>), and the
# tagged fields inside it; and the tags that must never reach a reader as tags.
SYSTEM_MESSAGE = re.compile(r"\A<([a-z][a-z0-9]*(?:-[a-z0-9]+)+)>(.*)</\1>(.*)\Z", re.S)
SYSTEM_MESSAGE_FIELD = re.compile(r"<([a-z][a-z0-9_-]*)>(.*?)</\1>", re.S)
# Its fields for the model alone: ids, where its output was kept, notes addressed to the model.
FOR_THE_MODEL_FIELD = re.compile(r"(?:\A|[-_])(?:id|ids|file|path|note|notes|hint|instructions?)\Z")
WRAPPER_TAG = re.compile(r"<(?:task-notification|bash-notification|command-name|command-message|command-args|"
                         r"local-command-[a-z]+|bash-(?:input|stdout|stderr)|system-reminder|tool-use-id|task-id|"
                         r"shell-id|output-file|user-prompt-submit-hook)>")
# `!` commands typed by the user: the tags around the command and its output.
BASH_MODE_TAG = re.compile(r"<(bash-[a-z]+)>(.*?)</\1>", re.S)
# What Claude Code appends to a subagent's report for the model (hidden by design, see the docstring): the
# agent's id with how to message it, and its usage.
NOTES_TO_THE_MODEL = re.compile(r"^agentId: \S+ \((?:internal ID|use SendMessage)[^\n]*$|<usage>.*?</usage>", re.M | re.S)
# Claude Code numbers the empty "line" after a file's last newline; a page may leave that out.
READ_EMPTY_LAST_LINES = re.compile(r"(?:\n *\d+(?:→|\t)[ \t]*)+\s*\Z")

# -- Markdown that draws rather than prints ---------------------------------------------------------------
# A fence's language, ordered-list numbers, task-list boxes, link targets and images (alt text is not
# visible text), link reference definitions, code-span backticks and emphasis asterisks (they matter when
# glued to a word: `x`を, Pre**Post**). Table pipes and rules and heading hashes are not words already.
MARKDOWN_LINK_TARGET = re.compile(r'\]\([^()\s]*(?:\s+"[^"]*")?\)|<(?:https?|mailto):[^>]*>')
MARKDOWN_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^((?:\s*>)*\s*(`{3,}|~{3,}))[^`]*$")
LIST_NUMBER = re.compile(r"^((?:\s*>)*\s*)(\d{1,9})[.)](?=\s|$)")
BULLET = re.compile(r"^(?:\s*>)*\s*[-*+](?:\s|$)")
TASK_BOX = re.compile(r"^((?:\s*>)*\s*[-*+]\s+)\[[ xX]\](?=\s)")
LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*\S+.*$")
NOT_PARAGRAPH = re.compile(r"^ {0,3}(?:#{1,6}(?:\s|$)|(?:[-*_][ \t]*){3,}$)")
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
LINK_GAP = "\x00"
WORD = re.compile(r"[^\W_]+")

# How much of a value shown in a one-line summary is compared: the summary may cut it with "…".
SUMMARY_PREFIX = 60
# Failure messages: snippets of at most this many characters, so many of each kind, so many in all.
SNIPPET = 120
SHOWN_PER_KIND = 2
SHOWN_AT_MOST = 12


def words(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def as_displayed(markdown: str) -> str:
    """Leave out what Markdown draws rather than prints: a fence's language, ordered-list numbers (where the
    line does start a list item: a number other than 1 cannot interrupt a paragraph), task-list boxes,
    link reference definitions, code-span backticks, emphasis asterisks."""
    lines = []
    open_fence = ""
    in_list, new_block = False, True
    for line in markdown.split("\n"):
        fence = FENCE.match(line)
        if fence and (not open_fence or fence.group(2).startswith(open_fence)):
            open_fence = "" if open_fence else fence.group(2)
            lines.append(fence.group(1))
            new_block = not open_fence
            continue
        if open_fence:
            lines.append(line)
            continue
        number = LIST_NUMBER.match(line)
        item = number is not None and (new_block or in_list or int(number.group(2)) == 1)
        if item:
            line = line[: number.start(2)] + line[number.end(2) + 1 :]  # type: ignore[union-attr]
        if item or BULLET.match(line):
            in_list = True
        elif line.strip() and new_block and not line.startswith((" ", "\t")):
            in_list = False
        # After a blank line, a heading or a rule, a line starts a block of its own.
        new_block = not line.strip() or NOT_PARAGRAPH.match(line) is not None
        line = TASK_BOX.sub(r"\1", line)
        lines.append("" if LINK_DEFINITION.match(line) else _without_inline_marks(line))
    return "\n".join(lines)


def _without_inline_marks(line: str) -> str:
    pieces, position = [], 0
    for span in CODE_SPAN.finditer(line):
        pieces += [line[position : span.start()].replace("*", ""), span.group(2)]
        position = span.end()
    pieces.append(line[position:].replace("*", ""))
    return "".join(pieces)


def displayed_markdown(text: str) -> list[str]:
    """Markdown source as the words a reader of the rendered page sees, in pieces: link targets and images
    are cut out, and the text on either side of one is looked for on its own, since a page may show a
    link's target (a path into the user's working tree) or not (a web address)."""
    return as_displayed(MARKDOWN_LINK_TARGET.sub(LINK_GAP, MARKDOWN_IMAGE.sub(LINK_GAP, text))).split(LINK_GAP)


def plan_inside_preamble(text: str) -> str | None:
    stripped = text.strip()
    if not stripped.startswith(PLAN_PREAMBLE):
        return None
    return PLAN_CLOSING_NOTE.sub("", stripped[len(PLAN_PREAMBLE):])


def said_in(entry: dict) -> list[str]:
    """Prompts and replies in one entry, as the user and the model wrote them (for a user's `!` command,
    the command and its output without the tags around them)."""
    if entry.get("type") not in ("user", "assistant") or entry.get("isMeta"):
        return []
    if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly") or entry.get("isApiErrorMessage"):
        return []  # checked as a continuation summary or an API error
    message = entry.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            text = SYSTEM_REMINDER.sub("", part["text"]).strip()
            if not text or text.startswith(NOISE_PREFIXES):
                continue
            if text.startswith(("<bash-input>", "<bash-stdout>", "<bash-stderr>")):
                texts += [ANSI_ESCAPE.sub("", inside) for _, inside in BASH_MODE_TAG.findall(text)]
                continue
            wrapped = SYSTEM_MESSAGE.match(text)
            if wrapped:  # Claude Code's own message: what its fields say, and what follows them
                # Its ids, temporary files and notes are for the model (shown with --show-hidden); the call
                # that started a background task is linked.
                texts += [value for name, value in SYSTEM_MESSAGE_FIELD.findall(wrapped.group(2))
                          if not FOR_THE_MODEL_FIELD.search(name)]
                texts += [rest for rest in (SYSTEM_MESSAGE_FIELD.sub("", wrapped.group(2)), wrapped.group(3))
                          if rest.strip()]
                continue
            plan = plan_inside_preamble(text) if entry.get("type") == "user" else None
            if plan is not None and plan.lstrip().startswith("#"):
                # A session that carries out a plan is named after the plan's heading: the heading is the
                # page's title, and the plan card goes on from there.
                heading, _, rest = plan.lstrip().partition("\n")
                texts += [heading, rest]
                continue
            texts.append(plan if plan is not None else text)
    return texts


# ---------------------------------------------------------------------------------------------------------
# What each file should show


@dataclass(frozen=True)
class Text:
    """One piece of text as it should read on the page, and its words."""

    source: str
    words: str

    @staticmethod
    def of(source: str) -> Text:
        return Text(source, words(source))


@dataclass(frozen=True)
class Expected:
    """Something a page must show. It is found when, for one of `forms`, every text of that form is."""

    line: int
    """Line of the corpus file (or position in a JSON array) it comes from."""
    what: str
    """What it is, e.g. "Bash result" or "thinking"."""
    forms: tuple[tuple[Text, ...], ...]
    full_output_ok: bool = False
    """A very long tool result may be found in its linked "Full output" file instead of the page."""
    also_in: tuple[Path, ...] = ()
    """Other corpus files whose pages may show it instead: a subagent's own file for what was streamed
    into its parent, the other files an entry was replayed in."""


def expect(line: int, what: str, source: str, *, markdown: bool = True, json_escaped: bool = False,
           full_output_ok: bool = False, alternatives: Iterable[tuple[str, ...]] = ()) -> list[Expected]:
    """Expect `source` on the page as written, or (markdown) as rendered Markdown reads, or (json_escaped)
    as shown inside a JSON block; or else all the texts of one of `alternatives`."""
    variants = [(source,)]
    if markdown:
        variants.append(tuple(displayed_markdown(source)))
    if json_escaped:
        variants.append((json.dumps(source, ensure_ascii=False)[1:-1],))
    variants.extend(alternatives)
    forms: list[tuple[Text, ...]] = []
    for variant in variants:
        form = tuple(text for text in map(Text.of, variant) if text.words)
        if form and form not in forms:
            forms.append(form)
    return [Expected(line, what, tuple(forms), full_output_ok)] if forms else []


def _string_leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if value.strip():
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _string_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _string_leaves(item)


def _first_line(value: str) -> str:
    return value.strip().split("\n", 1)[0]


def _shown_paths(path: str, cwds: tuple[str, ...]) -> list[str]:
    """A path as a summary shows it: relative to the session's folder when inside it, else in full. Which
    of the folders a file moved between is a session's is sessionsite's choice, so any of them will do."""
    shown = []
    for cwd in cwds:
        base = cwd.rstrip("/\\")
        separator = "\\" if "\\" in cwd else "/"
        shown.append(path[len(base) + 1:] if base and path.startswith(base + separator) else path)
    return list(dict.fromkeys(shown)) or [path]


# Tool names as generator/render/markdown/tools.py shows them, where they differ from the name itself (Task and
# Agent show `Task · <subagent_type>`, MCP tools `server · tool`).
LABELS = {"TodoWrite": "Todo list", "TaskCreate": "New task", "TaskUpdate": "Task update",
          "ExitPlanMode": "Plan", "exit_plan_mode": "Plan", "AskUserQuestion": "Question",
          "EnterPlanMode": "Plan mode", "KillShell": "Stop shell", "KillBash": "Stop shell", "TaskStop": "Stop task"}
# The input value a one-line summary shows after the name (other tools: their first string value).
TARGETS = {"Bash": "command", "PowerShell": "command", "Read": "file_path", "Write": "file_path",
           "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path", "Glob": "pattern",
           "Grep": "pattern", "LS": "path", "WebSearch": "query", "WebFetch": "url", "Task": "description",
           "Agent": "description", "TaskCreate": "subject", "ToolSearch": "query", "KillBash": "shell_id",
           "KillShell": "shell_id", "BashOutput": "bash_id", "TaskOutput": "task_id"}
PATH_TARGETS = frozenset({"file_path", "notebook_path", "path"})
# Input values shown in full in the folded body, by tool, and whether they are Markdown.
BODY_VALUES = {"Bash": {"command": False, "description": True}, "PowerShell": {"command": False, "description": True},
               "Write": {"content": False}, "NotebookEdit": {"new_source": False}, "WebFetch": {"prompt": True},
               "Task": {"prompt": True}, "Agent": {"prompt": True}, "TaskCreate": {"description": True},
               "Skill": {"args": True}}
# Tools with a renderer of their own, whose other inputs are options (limits, flags, offsets) rather than
# content. Edit and MultiEdit show their change as a diff, whose lines interleave old and new text, so those
# are not compared as one sequence here.
OWN_RENDERER = frozenset({"Bash", "PowerShell", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob",
                          "Grep", "LS", "WebSearch", "WebFetch", "Task", "Agent", "Skill", "TodoWrite",
                          "TaskCreate", "AskUserQuestion", "EnterPlanMode", *PLAN_TOOLS})


def _label(name: str, tool_input: dict) -> str:
    if name in ("Task", "Agent"):
        kind = tool_input.get("subagent_type")
        return f"{name} · {kind}" if isinstance(kind, str) and kind else name
    if name.startswith("mcp__"):
        _, server, tool = (name.split("__", 2) + ["", ""])[:3]
        return f"{server} · {tool}" if tool else name
    return LABELS.get(name, name)


def call_expectations(line: int, name: str, tool_input: dict, cwds: tuple[str, ...]) -> list[Expected]:
    """A tool call: its name as shown with the start of its main input value, and what it asked."""
    if name in QUIET_TOOLS:
        return []
    what = f"{name} call"
    label = _label(name, tool_input)
    key = TARGETS.get(name)
    if name == "Skill":
        target = tool_input.get("skill") or tool_input.get("command")
    elif name == "TaskUpdate":
        target = f"#{tool_input.get('taskId', '')}"
    elif key:
        target = tool_input.get(key) or (tool_input.get("notebook_path") if key == "file_path" else None)
    elif name in OWN_RENDERER:
        target = None
    else:
        target = next((v for v in tool_input.values() if isinstance(v, str) and v.strip()), None)
    found: list[Expected] = []
    if isinstance(target, str) and target.strip():
        shown = _shown_paths(target, cwds) if key in PATH_TARGETS else [target]
        summaries = [f"{label} {_first_line(value)[:SUMMARY_PREFIX]}" for value in shown]
        found += expect(line, what, summaries[0], markdown=False, alternatives=[(s,) for s in summaries[1:]])
    else:
        found += expect(line, what, label, markdown=False)
    for field, is_markdown in BODY_VALUES.get(name, {}).items():
        if isinstance(tool_input.get(field), str):
            found += expect(line, f"{name} {field}", tool_input[field], markdown=is_markdown)
    if name in PLAN_TOOLS and isinstance(tool_input.get("plan"), str):
        found += expect(line, "plan", tool_input["plan"])
    elif name == "TodoWrite":
        for todo in tool_input.get("todos") or []:
            if isinstance(todo, dict) and isinstance(todo.get("content"), str):
                # activeForm is the same item in the present tense, for the spinner: not content.
                found += expect(line, "todo item", " ".join(todo["content"].split()))
    elif name == "AskUserQuestion":
        for question in tool_input.get("questions") or []:
            if isinstance(question, dict):
                for text in _string_leaves(question):
                    found += expect(line, "question", text)
    elif name == "TaskUpdate":
        for text in _string_leaves({k: v for k, v in tool_input.items() if k not in ("taskId", "activeForm")}):
            found += expect(line, "TaskUpdate input", text)
    elif name not in OWN_RENDERER:
        # Other tools show their input as JSON: a value may read as written or JSON-escaped.
        for text in _string_leaves(tool_input):
            found += expect(line, f"{name} input", text, markdown=False, json_escaped=True)
    return found


def result_text(content: Any) -> str:
    """A tool result's content as text: its text parts; other parts (a loaded tool's reference) by their
    string values. Images and documents are not text."""
    if isinstance(content, str):
        return content
    pieces = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict) and part.get("type") == "text":
            pieces.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") not in ("image", "document"):
            pieces.extend(_string_leaves({k: v for k, v in part.items() if k != "type"}))
    return "\n".join(pieces)


def result_expectations(line: int, name: str, part: dict, structured: Any) -> list[Expected]:
    """A tool result: its text, or what it means where the text is boilerplate."""
    text = result_text(part.get("content"))
    text = TOOL_USE_ERROR_TAG.sub("", ANSI_ESCAPE.sub("", INJECTED_REMINDER.sub("", text)))
    if name == "Read":
        text = READ_EMPTY_LAST_LINES.sub("", text)
    text = NOTES_TO_THE_MODEL.sub("", text)
    text = text.strip()
    what = f"{name} result"
    if not text or name in QUIET_TOOLS or text == INTERRUPTED_FOR_TOOL:
        return []
    said = text.split(USER_SAID, 1)[1] if USER_SAID in text else None
    if name in PLAN_TOOLS:
        return expect(line, "plan feedback", said) if said else []
    if name in STOPPING_TOOLS and (sentence := _answer_sentence(text)):
        return expect(line, what, sentence)
    if name in BOILERPLATE_RESULTS:
        if said:
            return expect(line, f"{name} feedback", said)
        answers = structured.get("answers") if isinstance(structured, dict) else None
        if name == "AskUserQuestion" and isinstance(answers, dict):
            found = []
            for answer in answers.values():
                if isinstance(answer, str):
                    # Several options picked read "A, B": each may be marked on its own option.
                    pieces = tuple(p.strip() for p in answer.split(",") if p.strip())
                    found += expect(line, "answer", answer, alternatives=[pieces] if len(pieces) > 1 else ())
            return found
        if name == "AskUserQuestion" or part.get("is_error") is True:
            return expect(line, what, text)
        return []  # "Todos have been modified successfully…", "Task #1 created successfully: …"
    return expect(line, what, text, full_output_ok=len(text) > INLINE_OUTPUT_LIMIT)


STOPPING_TOOLS = frozenset({"KillShell", "KillBash", "TaskStop"})
"""Tools whose JSON answer (`{"success": true, "message": "Successfully killed shell: …"}`) is shown as its
message's first sentence."""


def _answer_sentence(text: str) -> str:
    try:
        answer = json.loads(text)
    except ValueError:
        return ""
    said = answer.get("message") if isinstance(answer, dict) else None
    return re.split(r"(?<=[.!?])\s", said.strip(), maxsplit=1)[0] if isinstance(said, str) else ""


def _message_text(entry: dict) -> str:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return (content if isinstance(content, str) else result_text(content)).strip()


@lru_cache(maxsize=1)
def files_of_uuid() -> dict[str, tuple[Path, ...]]:
    """The files each entry uuid is written in, for entries written in more than one: a resumed session or
    a side question replays earlier entries, and a page may show them in one place only."""
    found: dict[str, list[Path]] = {}
    for path in ALL_FILES:
        for entry in read_entries(path):
            if isinstance(entry.get("uuid"), str) and path not in found.setdefault(entry["uuid"], []):
                found[entry["uuid"]].append(path)
    return {uuid: tuple(paths) for uuid, paths in found.items() if len(paths) > 1}


KINDS = ("said", "thinking", "call", "result", "summary")


@cache
def expectations(path: Path) -> dict[str, list[Expected]]:
    """Everything one corpus file should show, by kind: said (prompts, replies, API errors), thinking,
    call, result, summary. A subagent's messages streamed into its parent as agent_progress entries count
    too: they may be in this file's pages or in those of the subagent's own file, when the corpus has it."""
    numbered = read_numbered_entries(path)
    cwds = tuple(dict.fromkeys(e["cwd"] for _, e in numbered if isinstance(e.get("cwd"), str) and e["cwd"]))
    found: dict[str, list[Expected]] = {kind: [] for kind in KINDS}
    calls: dict[str, tuple[str, dict]] = {}
    for line, entry in numbered:
        progress = entry.get("data") if entry.get("type") == "progress" else None
        if isinstance(progress, dict) and progress.get("type") == "agent_progress":
            if not isinstance(progress.get("message"), dict):
                continue
            entry, prefix = progress["message"], "subagent "
            also = (AGENT_FILES[progress["agentId"]],) if progress.get("agentId") in AGENT_FILES else ()
        else:
            prefix = ""
            also = tuple(p for p in files_of_uuid().get(str(entry.get("uuid")), ()) if p != path)
        for kind, items in _read_entry(calls, line, entry, cwds).items():
            found[kind] += [replace(e, what=prefix + e.what, also_in=also) for e in items]
    return found


def _read_entry(calls: dict[str, tuple[str, dict]], line: int, entry: dict,
                cwds: tuple[str, ...]) -> dict[str, list[Expected]]:
    found: dict[str, list[Expected]] = {kind: [] for kind in KINDS}
    message = entry.get("message")
    if entry.get("type") not in ("user", "assistant") or entry.get("isMeta") or not isinstance(message, dict):
        return found
    if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly"):
        found["summary"] += expect(line, "continuation summary", _message_text(entry))
        return found
    if entry.get("isApiErrorMessage"):
        found["said"] += expect(line, "API error", _message_text(entry), markdown=False)
        return found
    for text in said_in(entry):
        # A very long prompt (a pasted log) shows its start, and the whole in a linked text file.
        found["said"] += expect(line, "prompt" if entry["type"] == "user" else "reply", text,
                                full_output_ok=entry["type"] == "user")
    content = message.get("content")
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if entry["type"] == "assistant" and part.get("type") == "thinking":
            thought = part.get("thinking")
            if isinstance(thought, str) and thought.strip():
                found["thinking"] += expect(line, "thinking", thought)
        elif entry["type"] == "assistant" and part.get("type") == "tool_use":
            name = str(part.get("name", ""))
            tool_input = part["input"] if isinstance(part.get("input"), dict) else {"input": part.get("input")}
            calls[str(part.get("id", ""))] = (name, tool_input)
            found["call"] += call_expectations(line, name, tool_input, cwds)
        elif entry["type"] == "user" and part.get("type") == "tool_result":
            name, tool_input = calls.get(str(part.get("tool_use_id", "")), ("(unknown tool)", {}))
            structured = entry.get("toolUseResult")
            found["result"] += result_expectations(line, name, part, structured)
            plan = structured.get("plan") if isinstance(structured, dict) else None
            if name in PLAN_TOOLS and not isinstance(tool_input.get("plan"), str) and isinstance(plan, str):
                found["call"] += expect(line, "plan", plan)  # newer versions put the plan in the result
    return found


# ---------------------------------------------------------------------------------------------------------
# The built site, once per module

# Elements inside a line of text: no space between them, so a word split over several (a highlighted token,
# a code span glued to a word) reads whole. Every other element, and a line number in code, stands apart.
INLINE_TAGS = frozenset({"a", "abbr", "b", "code", "del", "em", "i", "kbd", "mark", "q", "s", "small", "span",
                         "strong", "sub", "sup", "time", "u"})


UNSEEN_TAGS = frozenset({"script", "style", "template"})
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                       "track", "wbr"})


class _VisibleText(HTMLParser):
    """The text a reader sees, as one stream (the standard library's tokenizer: a parse tree of every
    corpus page, as BeautifulSoup made, was most of this module's time)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.unseen_depth = 0
        self.open_inline: list[tuple[str, bool]] = []
        """Inline elements open, and whether each stands apart (a line number)."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in UNSEEN_TAGS:
            self.unseen_depth += 1
        elif tag in INLINE_TAGS:
            apart = "linenos" in (dict(attrs).get("class") or "").split()
            self.open_inline.append((tag, apart))
            if apart:
                self.parts.append(" ")
        else:
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in UNSEEN_TAGS and tag not in INLINE_TAGS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in UNSEEN_TAGS:
            self.unseen_depth = max(0, self.unseen_depth - 1)
        elif tag in INLINE_TAGS:
            for position in range(len(self.open_inline) - 1, -1, -1):
                if self.open_inline[position][0] == tag:
                    if self.open_inline[position][1]:
                        self.parts.append(" ")
                    del self.open_inline[position:]
                    break
        elif tag not in VOID_TAGS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.unseen_depth:
            self.parts.append(data)


def visible_words(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return words("".join(parser.parts))


@dataclass(frozen=True)
class Pages:
    """The pages made from one corpus file."""

    names: tuple[str, ...]
    """Their paths in the site."""
    visible: str
    """Their visible text, as words."""
    full_outputs: tuple[str, ...]
    """The "Full output" text files beside them, as words."""


@pytest.fixture(scope="module")
def built(public_corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus") / "site"
    # Fidelity is checked with redaction off: it replaces the secrets in these logs on purpose.
    report = build(BuildConfig(inputs=tuple(ALL_FILES), output=out, redact=False))
    page_words = {page.relative_to(out).as_posix(): visible_words(page.read_text(encoding="utf-8"))
                  for page in sorted(out.rglob("*.html"))}
    return out, report, page_words


@pytest.fixture(scope="module")
def corpus_site(built):
    out, report, page_words = built
    return out, report, " ".join(page_words.values())


@pytest.fixture(scope="module")
def pages_of(built) -> dict[Path, Pages]:
    """Each corpus file's pages: its session's, and those of subagent runs read from inside it."""
    out, _, page_words = built
    names: dict[Path, list[str]] = {}
    for session in build_archive(*ALL_FILES).sessions.values():
        parts = [urls.session_page(session.key)]
        # A long session is split into several pages: <session>.html, <session>-2.html…
        while hasattr(urls, "session_part") and urls.session_part(session.key, len(parts) + 1) in page_words:
            parts.append(urls.session_part(session.key, len(parts) + 1))
        names.setdefault(Path(session.source).resolve(), []).extend(parts)
    found = {}
    for path, pages in names.items():
        outputs = []
        for page in pages:
            folder = out / (page[: -len(".html")] + ".files")  # where a page's own files go
            outputs += [words(f.read_text(encoding="utf-8", errors="replace"))
                        for f in (sorted(folder.glob("*.txt")) if folder.is_dir() else [])]
        found[path] = Pages(tuple(pages), " ".join(page_words.get(p, "") for p in pages), tuple(outputs))
    return found


# ---------------------------------------------------------------------------------------------------------
# Checking, and saying what is missing


def _places(expected: Expected, pages: Pages, pages_of: dict[Path, Pages]) -> list[str]:
    """Where it may be: the file's pages (and their Full output files), or those of `also_in`."""
    places = [pages, *(pages_of[p.resolve()] for p in expected.also_in if p.resolve() in pages_of)]
    return [text for where in places
            for text in (where.visible, *(where.full_outputs if expected.full_output_ok else ()))]


def _is_found(expected: Expected, places: list[str]) -> bool:
    return any(all(any(text.words in place for place in places) for text in form) for form in expected.forms)


def _found_prefix(text: Text, places: list[str]) -> tuple[int, str]:
    """How many of the text's first words are found in one place, in order, and that place."""
    sequence = text.words.split(" ")
    low, high, where = 0, len(sequence), ""
    while low < high:
        middle = (low + high + 1) // 2
        prefix = " ".join(sequence[:middle])
        place = next((p for p in places if prefix in p), None)
        if place is None:
            high = middle - 1
        else:
            low, where = middle, place
    return low, where


def _cut(text: str, limit: int = SNIPPET) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _snippet(expected: Expected, places: list[str], pages: Pages, page_words: dict[str, str]) -> str:
    """Where the closest form of the text stops being found, quoted from there, with what the page reads
    at that point when that is telling, and any other page the text is on."""
    best, best_count, best_place = None, -1, ""
    for form in expected.forms:
        for text in form:
            if not any(text.words in place for place in places):
                count, place = _found_prefix(text, places)
                if count > best_count:
                    best, best_count, best_place = text, count, place
    assert best is not None
    total = len(best.words.split(" "))
    spans = [m.span() for m in WORD.finditer(best.source)]
    start = spans[best_count - 1][1] if 0 < best_count <= len(spans) else 0  # just after the last word found
    quoted = _cut(best.source[start:])
    if best_count == 0:
        said = f"not found at all: «{quoted}»"
    else:
        said = f"found up to word {best_count} of {total}, then: «{quoted}»"
        if best_count >= 3:
            prefix = " ".join(best.words.split(" ")[:best_count])
            after = best_place[best_place.index(prefix) + len(prefix):]
            said += f"; the page goes on: «{_cut(after, 80) or '(end)'}»"
    elsewhere = [name for name, visible in page_words.items() if name not in pages.names and best.words in visible]
    return said + (f" (it is on {', '.join(elsewhere[:2])})" if elsewhere else "")


def check(path: Path, kind: str, description: str, pages_of: dict[Path, Pages], built) -> None:
    """Fail, naming the file, with how many are missing of what kind and the first of each kind."""
    expected = expectations(path)[kind]
    if not expected:
        pytest.skip(f"no {description} in this file")
    pages = pages_of.get(path.resolve(), Pages((), "", ()))
    missing = [(e, places) for e in expected if not _is_found(e, places := _places(e, pages, pages_of))]
    if not missing:
        return
    _, _, page_words = built
    kinds = Counter(e.what for e, _ in missing)
    where = ", ".join(pages.names) or "no pages were made from it"
    head = f"{path.relative_to(CORPUS)}: {len(missing)} of {len(expected)} {description} are not in its pages"
    lines = [f"{head} ({where})",
             "  missing: " + ", ".join(f"{what} ×{count}" for what, count in kinds.most_common())]
    position = "entry" if path.suffix == ".json" else "line"
    shown: Counter[str] = Counter()
    for e, places in missing:
        if shown[e.what] >= SHOWN_PER_KIND or sum(shown.values()) >= SHOWN_AT_MOST:
            continue
        shown[e.what] += 1
        lines.append(f"  {position} {e.line}, {e.what}: {_snippet(e, places, pages, page_words)}")
    pytest.fail("\n".join(lines), pytrace=False)


# ---------------------------------------------------------------------------------------------------------
# The tests


def test_the_whole_corpus_builds_without_unknowns_or_diagnostics(corpus_site):
    out, report, _ = corpus_site
    assert report.sessions + report.subagent_runs >= 34  # one page each for 34 files, and the runs inside them
    assert (out / "index.html").is_file()
    assert report.unknown == {}, f"fell through to the generic fallback: {dict(report.unknown)}"
    assert report.diagnostics == []


EACH_FILE = each_corpus_file(ALL_FILES)


@EACH_FILE
def test_every_prompt_and_reply_is_in_the_pages(pages_of, built, path):
    """What the user and Claude said, `!` commands and their output, API errors."""
    check(path, "said", "prompts and replies", pages_of, built)


@EACH_FILE
def test_every_thinking_block_is_in_the_pages(pages_of, built, path):
    check(path, "thinking", "thinking blocks", pages_of, built)


@EACH_FILE
def test_every_continuation_summary_is_in_the_pages(pages_of, built, path):
    check(path, "summary", "continuation summaries", pages_of, built)


@EACH_FILE
def test_every_tool_call_is_in_the_pages(pages_of, built, path):
    """Each call's name as shown with the start of its main input, and what it asked: a command, a file
    written, a prompt, a plan, questions, todo items, tasks, other tools' input values."""
    check(path, "call", "tool call checks", pages_of, built)


@EACH_FILE
def test_every_tool_result_is_in_the_pages(pages_of, built, path):
    """Each result's text (a very long one may be in its linked Full output file instead), or for plans,
    questions and task lists what it meant: the answers, what the user said when rejecting."""
    check(path, "result", "tool results", pages_of, built)


# ---------------------------------------------------------------------------------------------------------
# Shown as it happened (issue 14)


@pytest.fixture(scope="module")
def soups(built) -> dict[str, BeautifulSoup]:
    out, _, page_words = built
    return {name: BeautifulSoup((out / name).read_text(encoding="utf-8"), "html.parser") for name in page_words}


def test_no_wrapper_tag_reaches_a_reader_outside_code_and_tool_output(soups):
    """Claude Code's tags (<task-notification>, <command-name>, <system-reminder>…) are its own markup:
    a prompt, a notice, a title or an outline never shows them. Tool output and code may quote them."""
    found = []
    for name, soup in soups.items():
        for match in WRAPPER_TAG.finditer(text_outside(soup, "details.tool, pre, code, .unknown, .unreadable, script")):
            found.append(f"{name}: {match.group()}")
    assert found == []


def text_outside(soup: BeautifulSoup, css: str) -> str:
    """The page's text (get_text()) without what is inside the elements `css` finds, leaving the shared
    parsed page as it is."""
    # Everything under the left-out elements, gathered once, rather than the parents of every string of the
    # page walked up to the root.
    left_out = {id(node) for tag in soup.select(css) for node in tag.descendants}
    return "".join(string for string in soup.strings if id(string) not in left_out)


def test_no_unknown_tool_card_where_the_call_is_in_the_file(soups, pages_of):
    wrong = []
    for path, pages in pages_of.items():
        call_ids = {part.get("id") for entry in read_entries(path)
                    for part in ((entry.get("message") or {}).get("content") or [])
                    if isinstance(entry.get("message"), dict) and isinstance(part, dict) and part.get("type") == "tool_use"}
        for name in pages.names:
            for card in soups[name].select("details.tool"):
                if card.select_one(".tool-name").get_text() == "(unknown tool)":
                    tool_use_id = card["id"].removeprefix("e-")
                    if tool_use_id in call_ids:
                        wrong.append(f"{name}: {tool_use_id}")
    assert wrong == []


def test_no_page_has_two_elements_with_one_id(soups):
    repeated = {name: [i for i, n in Counter(t["id"] for t in soup.find_all(id=True)).items() if n > 1]
                for name, soup in soups.items()}
    assert {name: ids for name, ids in repeated.items() if ids} == {}


def _typed_prompts(path: Path) -> Iterator[tuple[str, str]]:
    """The prompts of a file a person typed over several lines, by anchor: not Claude Code's own messages,
    not a subagent's task, and without fenced code (which is shown as a code block)."""
    if path.name.startswith("agent-") or path.suffix == ".json":
        return
    for entry in read_entries(path):
        message = entry.get("message")
        if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isSidechain") or not isinstance(message, dict):
            continue
        if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly") or entry.get("planContent"):
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "\n\n".join(part["text"] for part in content if isinstance(part, dict)
                                  and part.get("type") == "text" and isinstance(part.get("text"), str))
        if not isinstance(content, str):
            continue
        text = SYSTEM_REMINDER.sub("", content).strip("\n")
        if "\n" not in text.strip() or text.lstrip().startswith(("<", "[Request", PLAN_PREAMBLE, "Caveat:")) or "```" in text:
            continue
        yield "e-" + re.sub(r"[^A-Za-z0-9_-]", "", str(entry.get("uuid")))[:40], text


def test_every_multi_line_prompt_keeps_its_lines(soups, pages_of):
    """A prompt is shown as it was typed: the same lines, in the same order (code spans show without their
    backticks, and spaces may be non-breaking). A pasted log is shown preformatted, line for line; a very
    long prompt shows its first lines, and links the whole."""
    def same(line: str) -> str:
        return " ".join(line.replace("`", "").split())

    checked, wrong = 0, []
    for path in ALL_FILES:
        pages = pages_of.get(path.resolve())
        for anchor, text in _typed_prompts(path):
            element = next((soups[n].find(id=anchor) for n in (pages.names if pages else ()) if soups[n].find(id=anchor)), None)
            if element is None:
                continue  # a replayed prompt, shown in the session it was first written in
            checked += 1
            element = BeautifulSoup(str(element), "html.parser").find(id=anchor)
            whole = next((a for a in element.find_all("a") if a.get_text() == "The whole prompt"), None)
            if whole is not None:
                whole.parent.decompose()
            pasted = element.find("pre", recursive=False)
            shown = pasted.get_text().rstrip("\n").split("\n") if pasted else lines_shown(element)
            typed = text.replace("\r\n", "\n").split("\n")
            if whole is not None:
                typed = typed[:len(shown)]
            if [same(line) for line in shown] != [same(line) for line in typed]:
                wrong.append(f"{path.relative_to(CORPUS)} {anchor}: {len(typed)} lines typed, {len(shown)} shown")
    assert checked and wrong == []
