"""How each tool call reads in Markdown: a registry of renderers by tool name, with a generic fallback.

A renderer gets the call (with its result) and returns a `ToolView`: the one-line summary target and the
Markdown blocks of the folded body. Adding support for a tool means adding one function here, decorated
with `@renders("Name")`. The same output feeds the Markdown export and, through markdown-it, the HTML.
"""

from __future__ import annotations

import difflib
from fnmatch import fnmatchcase
import json
import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from pygments.lexers import find_lexer_class
from pygments.lexers._mapping import LEXERS

from ...core.model import TaskItem, ToolCall
from ...core.registry import Registry
from ...core.text import strip_ansi
from .blocks import Block, Code, Prose, Structure
from .escape import html_text, inline_code, literal, one_line, prose

# Past this many characters a tool output is previewed, and linked in full as a text file.
INLINE_OUTPUT_LIMIT = 50_000
READ_LINE = re.compile(r"^ *(\d+)(?:→|\t)(.*)$")


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a renderer may need beyond the call itself."""

    cwd: str
    """The session's working directory, to show paths relative to it."""
    subagent_link: str = ""
    """Relative link to the subagent transcript this call started, if any."""
    subagent_title: str = ""
    """Title of that transcript."""
    attach: Callable[[str, bytes], str] | None = None
    """Stores a file beside the page and returns the relative link to it."""


@dataclass(frozen=True, slots=True)
class ToolView:
    """A rendered tool call."""

    label: str
    """Tool name as shown, e.g. Bash or attio · search-records."""
    target: str = ""
    """What it acted on: a path, a command, a pattern (plain text)."""
    body: tuple[Block | str, ...] = ()
    """The blocks of the folded part (a bare string is Markdown prose of ours; transcript text is a `Prose`
    of Claude's, which the search index holds)."""
    status: str = ""
    """Overrides the ok/error status when set."""
    open_by_default: bool = False
    """Shown unfolded (questions)."""
    quiet: bool = False
    """Left out of the page unless hidden things are shown (Claude re-reading its own state)."""
    classes: tuple[str, ...] = field(default=())
    """Extra CSS classes for the block."""
    target_is_path: bool = False
    """The target is a file or folder the call read or changed (the search index marks it as a path)."""


Renderer = Callable[[ToolCall, ToolContext], ToolView]
RENDERERS: Registry[str, Renderer] = Registry("renderers of tool calls")


def renders(*names: str) -> Callable[[Renderer], Renderer]:
    """Register the decorated renderer for the tools `names`; a name already taken stops the import."""
    return RENDERERS.register(*names)


def render_tool(call: ToolCall, context: ToolContext) -> ToolView:
    return RENDERERS.lookup(call.name)(call, context)


# -- helpers -------------------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def _language_for_suffix(name: str) -> str:
    """Pygments' choice for a file name (as `find_lexer_class_for_filename` makes it), among its own
    lexers only: the site does not depend on the plugin lexers installed beside it, and loading those can
    import whole programs (IPython's took 1.6 s). The name is looked up in Pygments' table of lexers,
    importing lexer modules only when several lexers claim it (to compare their priorities): an
    incremental build of one session no longer spends a second importing them."""
    matches = [(lexer_name, aliases, pattern) for _, lexer_name, aliases, patterns, _ in LEXERS.values()
               for pattern in patterns if fnmatchcase(name, pattern)]
    if len(matches) > 1:
        def rating(match: tuple[str, tuple[str, ...], str]) -> tuple[float, str]:
            lexer = find_lexer_class(match[0])
            assert lexer is not None  # the name is from Pygments' own table
            return lexer.priority + (0.5 if "*" not in match[2] else 0), lexer.__name__
        matches.sort(key=rating)
    return matches[-1][1][0] if matches and matches[-1][1] else ""


def language_for(path: str) -> str:
    base = posixpath.basename(path.replace("\\", "/"))
    suffix = base[base.rfind(".") :] if "." in base else base
    return _language_for_suffix("x" + suffix if suffix.startswith(".") else suffix)


def display_path(path: str, cwd: str) -> str:
    if cwd and path.startswith(cwd.rstrip("/\\") + ("\\" if "\\" in cwd else "/")):
        return path[len(cwd.rstrip("/\\")) + 1 :]
    return path


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def result_text(call: ToolCall) -> str:
    return strip_ansi(call.result.text) if call.result else ""


def output_block(call: ToolCall, context: ToolContext, language: str = "text") -> tuple[Block | str, ...]:
    """The result as a fenced block, or nothing when it is empty. A very long output shows its start,
    and the whole of it goes to a text file beside the page, linked: no page gets heavy, nothing is cut."""
    text = result_text(call)
    if not text.strip():
        return ()
    heading = label("Error") if call.result and call.result.is_error else label("Output")
    if len(text) <= INLINE_OUTPUT_LIMIT or context.attach is None:
        return (heading, Code(text, language, kind="output"))
    preview, note = previewed(text, context.attach, f"{call.anchor}-output.txt", "Full output")
    return (heading, Code(preview, language, kind="output"), note)


def previewed(text: str, attach: Callable[[str, bytes], str], name: str, link_text: str) -> tuple[str, Prose]:
    """Text over `INLINE_OUTPUT_LIMIT` (a tool output, a pasted prompt, a reply): its start, cut at a line,
    and a note linking to all of it, written to a text file beside the page (the note carries the rest, for
    the search index). No page gets heavy, nothing is cut."""
    preview = text[:INLINE_OUTPUT_LIMIT].rsplit("\n", 1)[0]
    link = attach(name, text.encode("utf-8"))
    hidden_lines = text.count("\n") - preview.count("\n")
    size = len(text.encode("utf-8")) / 1024
    note = f"[{link_text}]({link}) ({size:,.0f} KB; {hidden_lines:,} more lines than shown here)"
    return preview, Prose(note, "sessionsite", unshown=text[len(preview):])


def label(text: str) -> Structure:
    """A section label inside a tool call (Output, Error, Prompt…): marked on the page so the theme can tell
    it from prose, in bold in the .md."""
    return Structure(f'<p class="label">{html_text(text)}</p>', "label", f"**{literal(text)}**")


def json_block(value: Any) -> Code:
    return Code(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str), "json")


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


# -- renderers -----------------------------------------------------------------------------------------


@renders("Bash", "PowerShell")
def bash(call: ToolCall, context: ToolContext) -> ToolView:
    command = _text(call.input.get("command"))
    description = _text(call.input.get("description"))
    blocks: list[Block | str] = []
    if description:
        blocks.append(Prose(f"*{literal(description)}*"))
    blocks.append(Code(command, "powershell" if call.name == "PowerShell" else "bash", kind="command"))
    blocks.extend(output_block(call, context))
    structured = call.result.structured if call.result else None
    status = "interrupted" if isinstance(structured, dict) and structured.get("interrupted") else ""
    return ToolView(call.name, _first_line(command), tuple(blocks), status=status)


@renders("Read")
def read(call: ToolCall, context: ToolContext) -> ToolView:
    path = _text(call.input.get("file_path"))
    text = result_text(call)
    if call.result is None or call.result.is_error or not text:
        return ToolView("Read", display_path(path, context.cwd), output_block(call, context), target_is_path=True)
    numbered = [READ_LINE.match(line) for line in text.rstrip("\n").split("\n")]
    if not (numbered and all(numbered)):
        return ToolView("Read", display_path(path, context.cwd), (Code(text, language_for(path)),), target_is_path=True)
    # One fence per run of consecutive numbers, so that each line keeps its own number.
    runs: list[list[re.Match[str]]] = []
    for match in numbered:
        assert match is not None
        if runs and int(match.group(1)) == int(runs[-1][-1].group(1)) + 1:
            runs[-1].append(match)
        else:
            runs.append([match])
    body = tuple(
        Code("\n".join(m.group(2) for m in run), language_for(path), f"startline={run[0].group(1)}")
        for run in runs
    )
    return ToolView("Read", display_path(path, context.cwd), body, target_is_path=True)


def _patch_lines(structured: Any) -> list[str]:
    if not isinstance(structured, dict) or not isinstance(structured.get("structuredPatch"), list):
        return []
    lines: list[str] = []
    for hunk in structured["structuredPatch"]:
        if not isinstance(hunk, dict) or not isinstance(hunk.get("lines"), list):
            continue
        lines.append(
            f"@@ -{hunk.get('oldStart', 0)},{hunk.get('oldLines', 0)} "
            f"+{hunk.get('newStart', 0)},{hunk.get('newLines', 0)} @@"
        )
        lines.extend(str(line) for line in hunk["lines"])
    return lines


def _replacement_diff(old: str, new: str) -> list[str]:
    return [
        line.rstrip("\n")
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
        if not line.startswith(("---", "+++"))
    ]


def _diff_view(call: ToolCall, context: ToolContext, edits: list[tuple[str, str]]) -> ToolView:
    path = _text(call.input.get("file_path")) or _text(call.input.get("notebook_path"))
    structured = call.result.structured if call.result else None
    lines = _patch_lines(structured)
    if not lines:
        for old, new in edits:
            lines.extend(_replacement_diff(old, new))
    blocks: list[Block | str] = [Code(strip_ansi("\n".join(lines)), "diff", kind="diff")] if lines else []
    blocks.extend(output_block(call, context))
    return ToolView(call.name, display_path(path, context.cwd), tuple(blocks), target_is_path=True)


@renders("Edit")
def edit(call: ToolCall, context: ToolContext) -> ToolView:
    return _diff_view(call, context, [(_text(call.input.get("old_string")), _text(call.input.get("new_string")))])


@renders("MultiEdit")
def multi_edit(call: ToolCall, context: ToolContext) -> ToolView:
    edits = call.input.get("edits")
    pairs = [
        (_text(e.get("old_string")), _text(e.get("new_string")))
        for e in (edits if isinstance(edits, list) else [])
        if isinstance(e, dict)
    ]
    return _diff_view(call, context, pairs)


@renders("Write")
def write(call: ToolCall, context: ToolContext) -> ToolView:
    path = _text(call.input.get("file_path"))
    blocks: list[Block | str] = [Code(_text(call.input.get("content")), language_for(path))]
    blocks.extend(output_block(call, context))
    return ToolView("Write", display_path(path, context.cwd), tuple(blocks), target_is_path=True)


@renders("NotebookEdit")
def notebook_edit(call: ToolCall, context: ToolContext) -> ToolView:
    path = _text(call.input.get("notebook_path"))
    mode = _text(call.input.get("edit_mode")) or "replace"
    cell = _text(call.input.get("cell_id"))
    language = "markdown" if call.input.get("cell_type") == "markdown" else "python"
    blocks = [f"{mode} cell {inline_code(cell)}" if cell else mode,
              Code(_text(call.input.get("new_source")), language), *output_block(call, context)]
    return ToolView("NotebookEdit", display_path(path, context.cwd), tuple(blocks), target_is_path=True)


@renders("Glob")
def glob(call: ToolCall, context: ToolContext) -> ToolView:
    pattern = _text(call.input.get("pattern"))
    where = _text(call.input.get("path"))
    target = pattern + (f" in {display_path(where, context.cwd)}" if where else "")
    return ToolView("Glob", target, output_block(call, context))


@renders("Grep")
def grep(call: ToolCall, context: ToolContext) -> ToolView:
    pattern = _text(call.input.get("pattern"))
    where = _text(call.input.get("path")) or _text(call.input.get("glob"))
    target = pattern + (f" in {display_path(where, context.cwd)}" if where else "")
    return ToolView("Grep", target, output_block(call, context))


def checklist(items: list[TaskItem]) -> str:
    """A GitHub task list; the item in progress is in bold."""
    lines = []
    for item in items:
        mark = "x" if item.status == "completed" else " "
        text = one_line(item.subject) or "(no subject)"
        lines.append(f"- [{mark}] {'**' + text + '**' if item.status == 'in_progress' else text}")
    return "\n".join(lines)


def _progress(items: list[TaskItem]) -> str:
    return f"{sum(1 for item in items if item.status == 'completed')}/{len(items)} done"


@renders("TodoWrite")
def todo_write(call: ToolCall, context: ToolContext) -> ToolView:
    todos = call.input.get("todos")
    items = [
        TaskItem(str(number), _text(t.get("content")), _text(t.get("status")))
        for number, t in enumerate(todos if isinstance(todos, list) else [], start=1)
        if isinstance(t, dict)
    ]
    blocks: list[Block | str] = [checklist(items)] if items else []
    if call.result and call.result.is_error:  # refused (a version without the tool): say why
        blocks.extend(output_block(call, context))
    return ToolView("Todo list", _progress(items), tuple(blocks), classes=("todo", "checklist"))


@renders("TaskCreate", "TaskUpdate")
def task_change(call: ToolCall, context: ToolContext) -> ToolView:
    """Each change shows the whole task list as it then stood (tracked by interpret)."""
    if call.name == "TaskCreate":
        target = _text(call.input.get("subject"))
    else:
        task_id = _text(call.input.get("taskId"))
        subject = next((t.subject for t in call.tasks if t.id == task_id), "")
        change = _text(call.input.get("status")) or "updated"
        target = f"#{task_id} {subject} → {change}".replace("  ", " ")
    blocks: list[Block | str] = [checklist(list(call.tasks))] if call.tasks else []
    description = _text(call.input.get("description"))
    if description.strip():
        blocks.extend([label("Description"), Prose(prose(description))])
    if call.result and call.result.is_error:
        blocks.extend(output_block(call, context))
    label_text = "New task" if call.name == "TaskCreate" else "Task update"
    return ToolView(label_text, target, tuple(blocks), classes=("todo", "checklist"))


@renders("TaskList", "TaskGet")
def task_lookup(call: ToolCall, context: ToolContext) -> ToolView:
    """Claude reading back its own task list: nothing new for the reader (shown with --show-hidden)."""
    task_id = _text(call.input.get("taskId"))
    return ToolView(call.name, f"#{task_id}" if task_id else "", output_block(call, context), quiet=True)


@renders("TaskOutput", "BashOutput")
def background_output(call: ToolCall, context: ToolContext) -> ToolView:
    """Reading what a background shell or task has printed so far."""
    task_id = _text(call.input.get("task_id")) or _text(call.input.get("bash_id")) or _text(call.input.get("shell_id"))
    structured = call.result.structured if call.result and isinstance(call.result.structured, dict) else {}
    command = _text(structured.get("command"))
    blocks: list[Block | str] = [Code(command, "bash", kind="command")] if command else []
    blocks.extend(output_block(call, context))
    status = _text(structured.get("status"))
    return ToolView(call.name, task_id + (f" ({status})" if status else ""), tuple(blocks))


@renders("KillShell", "KillBash")
def kill_shell(call: ToolCall, context: ToolContext) -> ToolView:
    shell = _text(call.input.get("shell_id")) or _text(call.input.get("bash_id"))
    return ToolView(call.name, shell, output_block(call, context))


@renders("LS")
def list_directory(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("LS", display_path(_text(call.input.get("path")), context.cwd), output_block(call, context),
                    target_is_path=True)


@renders("ToolSearch")
def tool_search(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("ToolSearch", _text(call.input.get("query")), output_block(call, context))


@renders("EnterPlanMode")
def enter_plan_mode(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("Plan mode", "Claude switches to planning", output_block(call, context), classes=("plan-mode",))


@renders("Task", "Agent")
def task(call: ToolCall, context: ToolContext) -> ToolView:
    description = _text(call.input.get("description"))
    agent_type = _text(call.input.get("subagent_type"))
    blocks: list[Block | str] = []
    if context.subagent_link:
        blocks.append(f"[Subagent transcript: {literal(context.subagent_title or description)}]({context.subagent_link})")
    prompt = _text(call.input.get("prompt"))
    if prompt:
        blocks.extend([label("Prompt"), Prose(prose(prompt))])
    text = result_text(call)
    structured = call.result.structured if call.result else None
    if isinstance(structured, dict) and structured.get("status") == "async_launched":
        # The result is Claude Code's instructions to the model about a background agent, not its answer.
        blocks.append("*Started in the background: its result comes back later, as a notification.*")
    elif text.strip():
        blocks.extend([label("Result"), Prose(prose(text))])
    name = f"{call.name} · {agent_type}" if agent_type else call.name
    return ToolView(name, description, tuple(blocks), classes=("subagent",))


@renders("SendMessage")
def send_message(call: ToolCall, context: ToolContext) -> ToolView:
    """A message to another agent of a team (2.1.32): who it went to, its summary, and the message as the
    Markdown Claude wrote. Some versions name the fields `recipient` and `content`, and add a `type`."""
    recipient = _text(call.input.get("to") or call.input.get("recipient"))
    summary = _text(call.input.get("summary"))
    message = call.input.get("message", call.input.get("content"))
    kind = _text(call.input.get("type"))
    blocks: list[Block | str] = []
    if context.subagent_link:
        blocks.append(f"To [{literal(context.subagent_title or recipient)}]({context.subagent_link})"
                      + (f" ({inline_code(recipient)})" if recipient and recipient != context.subagent_title else ""))
    elif recipient:
        blocks.append(f"To {'every agent of the team' if recipient == '*' else inline_code(recipient)}")
    if kind and kind != "message":
        blocks.append(f"Kind: {inline_code(kind)}")
    request = _team_request(message)
    if isinstance(message, str) and message.strip():
        blocks.extend([label("Message"), Prose(prose(message))])
    elif request:
        blocks.append(Prose(prose(request)))
    elif message not in (None, ""):
        blocks.extend([label("Message"), json_block(message)])
    answer, delivered = _answer_sentence(result_text(call))
    if answer:
        failed = not delivered or bool(call.result and call.result.is_error)
        blocks.extend([label("Error" if failed else "Output"), Prose(prose(answer))])
    else:
        blocks.extend(output_block(call, context))
    target = summary or _first_line(message if isinstance(message, str) else request, 80)
    return ToolView(f"Message to {recipient}" if recipient else "Message", target, tuple(blocks))


_TEAM_REQUESTS = {"shutdown_request": "Asks the agent to shut down", "shutdown_response": "Answers a shutdown request",
                  "plan_approval_response": "Answers a plan sent for approval"}


def _team_request(message: Any) -> str:
    """A message that is a request between agents of a team ({"type": "shutdown_request", ...}), in words."""
    if not isinstance(message, dict) or _text(message.get("type")) not in _TEAM_REQUESTS:
        return ""
    said = _TEAM_REQUESTS[_text(message.get("type"))]
    if isinstance(message.get("approve"), bool):
        said += ": approved" if message["approve"] else ": declined"
    reason = _text(message.get("reason")) or _text(message.get("feedback"))
    return f"{said}. {reason}" if reason else f"{said}."


def _answer_sentence(result: str) -> tuple[str, bool]:
    """Claude Code's JSON answer to a SendMessage or a TaskStop, `{"success": true, "message": "Message
    queued ..."}`: the first sentence of its message (the rest tells the model what to do next), and whether
    it did what was asked."""
    try:
        answer = json.loads(result)
    except ValueError:
        return "", False
    said = answer.get("message") if isinstance(answer, dict) else None
    if not isinstance(said, str) or not said.strip():
        return "", False
    return re.split(r"(?<=[.!?])\s", said.strip(), maxsplit=1)[0], answer.get("success") is not False


@renders("TaskStop")
def task_stop(call: ToolCall, context: ToolContext) -> ToolView:
    task_id = _text(call.input.get("task_id")) or _text(call.input.get("shell_id"))
    answer, stopped = _answer_sentence(result_text(call))
    if answer:
        failed = not stopped or bool(call.result and call.result.is_error)
        return ToolView("Stop task", task_id, (label("Error" if failed else "Output"), Prose(prose(answer))))
    return ToolView("Stop task", task_id, output_block(call, context))


@renders("Monitor")
def monitor(call: ToolCall, context: ToolContext) -> ToolView:
    """A command (or a websocket) watched in the background, each line it prints a notification."""
    command = _text(call.input.get("command"))
    socket = call.input.get("ws")
    url = _text(socket.get("url")) if isinstance(socket, dict) else ""
    blocks: list[Block | str] = [Code(command, "bash", kind="command")] if command else []
    if url:
        blocks.append(Prose(f"Watching {inline_code(url)}", "sessionsite"))
    blocks.extend(output_block(call, context))
    return ToolView("Monitor", _first_line(_text(call.input.get("description")) or command or url), tuple(blocks))


@renders("Workflow")
def workflow(call: ToolCall, context: ToolContext) -> ToolView:
    """A scripted multi-step workflow, given inline or by path."""
    name = (_text(call.input.get("title")) or _text(call.input.get("name")) or _text(call.input.get("scriptPath"))
            or _text(call.input.get("resumeFromRunId")))
    blocks: list[Block | str] = []
    description = _text(call.input.get("description"))
    if description.strip():
        blocks.append(Prose(prose(description)))
    script = _text(call.input.get("script"))
    if script.strip():
        blocks.extend([label("Script"), Code(script, "javascript")])
    arguments = call.input.get("args")
    if isinstance(arguments, dict) and arguments:
        blocks.extend([label("Arguments"), json_block(arguments)])
    blocks.extend(output_block(call, context))
    return ToolView("Workflow", _first_line(name or description), tuple(blocks))


@renders("CronCreate")
def cron_create(call: ToolCall, context: ToolContext) -> ToolView:
    """A prompt scheduled to run again on a cron schedule (once, unless recurring)."""
    schedule = _text(call.input.get("cron"))
    recurring = call.input.get("recurring")
    target = schedule + (" (recurring)" if recurring is True else " (once)" if recurring is False else "")
    prompt = _text(call.input.get("prompt"))
    blocks: list[Block | str] = [label("Prompt"), Prose(prose(prompt))] if prompt.strip() else []
    blocks.extend(output_block(call, context))
    return ToolView("Scheduled prompt", target, tuple(blocks))


@renders("CronDelete", "CronList")
def cron_other(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView(call.name, _text(call.input.get("id")), output_block(call, context))


@renders("ScheduleWakeup")
def schedule_wakeup(call: ToolCall, context: ToolContext) -> ToolView:
    delay = call.input.get("delaySeconds")
    when = f"in {delay:,} s" if isinstance(delay, int) and not isinstance(delay, bool) else ""
    reason = _text(call.input.get("reason"))
    target = "stop" if call.input.get("stop") is True else ", ".join(part for part in (when, reason) if part)
    prompt = _text(call.input.get("prompt"))
    blocks: list[Block | str] = [label("Prompt"), Prose(prose(prompt))] if prompt.strip() else []
    blocks.extend(output_block(call, context))
    return ToolView("Wake-up", _first_line(target), tuple(blocks))


@renders("EnterWorktree", "ExitWorktree")
def worktree(call: ToolCall, context: ToolContext) -> ToolView:
    if call.name == "EnterWorktree":
        target = _text(call.input.get("name")) or _text(call.input.get("path"))
        return ToolView("Enter worktree", target, output_block(call, context))
    action = _text(call.input.get("action"))
    target = action + (", discarding changes" if call.input.get("discard_changes") is True else "")
    return ToolView("Leave worktree", target, output_block(call, context))


@renders("WebSearch", "web_search")
def web_search(call: ToolCall, context: ToolContext) -> ToolView:
    """Claude Code's tool, or the search the API runs itself (`server_tool_use` named `web_search`)."""
    return ToolView(call.name, _text(call.input.get("query")), output_block(call, context))


@renders("WebFetch", "web_fetch")
def web_fetch(call: ToolCall, context: ToolContext) -> ToolView:
    prompt = _text(call.input.get("prompt"))
    blocks: list[Block | str] = [label("Prompt"), Prose(prose(prompt))] if prompt else []
    text = result_text(call)
    if text.strip():
        blocks.append(Prose(prose(text)) if not (call.result and call.result.is_error) else Code(text, "text", kind="output"))
    return ToolView(call.name, _text(call.input.get("url")), tuple(blocks))


ANSWER_IN_TEXT = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"')


def _answers(call: ToolCall) -> dict[str, str]:
    """The answers picked, by question: from the structured result, else from the result's text
    (`User has answered your questions: "Q"="A", …`)."""
    structured = call.result.structured if call.result else None
    if isinstance(structured, dict) and isinstance(structured.get("answers"), dict):
        return {str(q): str(a) for q, a in structured["answers"].items()}
    return {q: a for q, a in ANSWER_IN_TEXT.findall(result_text(call))}


@renders("AskUserQuestion")
def ask_user_question(call: ToolCall, context: ToolContext) -> ToolView:
    questions = [q for q in (call.input.get("questions") or []) if isinstance(q, dict)] if isinstance(
        call.input.get("questions"), list) else []
    answers = _answers(call)
    blocks: list[Block | str] = []
    for question in questions:
        asked = _text(question.get("question"))
        answer = answers.get(asked, "")
        picked = {part.strip() for part in answer.split(",")} | {answer.strip()}
        header = _text(question.get("header"))
        blocks.append(Prose(f"**{literal(asked)}**" + (f" *({literal(header)})*" if header else "")))
        lines = []
        options = question.get("options")
        for option in options if isinstance(options, list) else []:
            if not isinstance(option, dict):
                continue
            name = _text(option.get("label"))
            description = _text(option.get("description"))
            chosen = name.strip() in picked
            text = f"**{literal(name)}** ✓" if chosen else literal(name)
            lines.append(f"- {text}" + (f" — {one_line(description)}" if description else ""))
        if lines:
            blocks.append(Prose("\n".join(lines)))
        known = {_text(o.get("label")).strip() for o in (options if isinstance(options, list) else [])
                 if isinstance(o, dict)}
        if answer and not picked & known:
            blocks.append(Prose(f"Answer: **{literal(answer)}**"))  # typed in, not one of the options
        elif not answer and call.result is not None and not call.result.is_error:
            blocks.append("*No answer recorded for this question.*")
    if call.result is None or call.result.is_error or not answers:
        blocks.extend(output_block(call, context))
    count = len(questions)
    answered = sum(1 for q in questions if answers.get(_text(q.get("question"))))
    target = f"{count} question{'s' if count != 1 else ''}" + (f", {answered} answered" if call.result else "")
    return ToolView("Question", target, tuple(blocks), open_by_default=True, classes=("question",))


@renders("Skill")
def skill(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("Skill", _text(call.input.get("skill")) or _text(call.input.get("command")), output_block(call, context))


@RENDERERS.fallback
def generic(call: ToolCall, context: ToolContext) -> ToolView:
    name = call.name
    if call.name.startswith("mcp__"):
        _, server, tool = (call.name.split("__", 2) + ["", ""])[:3]
        name = f"{server} · {tool}" if tool else call.name
    blocks: list[Block | str] = []
    if call.input:
        blocks.append(json_block(dict(call.input)))
    blocks.extend(output_block(call, context))
    first_value = next((v for v in call.input.values() if isinstance(v, str) and v.strip()), "")
    return ToolView(name, _first_line(first_value, 80), tuple(blocks))
