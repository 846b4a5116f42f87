"""How commands and the work run in the background read: Bash and PowerShell, their output read
later, shells and tasks stopped, monitors, workflows, scheduled prompts and wake-ups."""

from __future__ import annotations

from ...core.model import ToolCall
from .blocks import Block, Code, Prose
from .escape import inline_code, literal, prose
from .tool_views import (ToolContext, ToolView, answer_sentence, first_line, json_block, label, output_block, renders,
                         result_text, text_of)


@renders("Bash", "PowerShell")
def bash(call: ToolCall, context: ToolContext) -> ToolView:
    command = text_of(call.input.get("command"))
    description = text_of(call.input.get("description"))
    blocks: list[Block | str] = []
    if description:
        blocks.append(Prose(f"*{literal(description)}*"))
    blocks.append(Code(command, "powershell" if call.name == "PowerShell" else "bash", kind="command"))
    blocks.extend(output_block(call, context))
    structured = call.result.structured if call.result else None
    return ToolView(call.name, first_line(command), tuple(blocks), status=_command_status(structured))


def _command_status(structured: object) -> str:
    """Interrupted, refused by the person, or the exit code a failed command gave, when its result says."""
    if not isinstance(structured, dict):
        return ""
    if structured.get("interrupted"):
        return "interrupted"
    if structured.get("status") == "denied":
        return "denied"
    exit_code = structured.get("exit_code")
    return f"exit {exit_code}" if type(exit_code) is int and exit_code != 0 else ""


@renders("TaskOutput", "BashOutput")
def background_output(call: ToolCall, context: ToolContext) -> ToolView:
    """Reading what a background shell or task has printed so far."""
    task_id = text_of(call.input.get("task_id")) or text_of(call.input.get("bash_id")) or text_of(call.input.get("shell_id"))
    structured = call.result.structured if call.result and isinstance(call.result.structured, dict) else {}
    command = text_of(structured.get("command"))
    blocks: list[Block | str] = [Code(command, "bash", kind="command")] if command else []
    blocks.extend(output_block(call, context))
    status = text_of(structured.get("status"))
    return ToolView(call.name, task_id + (f" ({status})" if status else ""), tuple(blocks))


@renders("KillShell", "KillBash")
def kill_shell(call: ToolCall, context: ToolContext) -> ToolView:
    return _stopping("Stop shell", text_of(call.input.get("shell_id")) or text_of(call.input.get("bash_id")), call,
                     context)


@renders("TaskStop")
def task_stop(call: ToolCall, context: ToolContext) -> ToolView:
    return _stopping("Stop task", text_of(call.input.get("task_id")) or text_of(call.input.get("shell_id")), call,
                     context)


def _stopping(title: str, stopped_id: str, call: ToolCall, context: ToolContext) -> ToolView:
    """A shell or a task stopped: Claude Code's JSON answer read as its sentence, other output as it is."""
    answer, stopped = answer_sentence(result_text(call))
    if answer:
        failed = not stopped or bool(call.result and call.result.is_error)
        return ToolView(title, stopped_id, (label("Error" if failed else "Output"), Prose(prose(answer))))
    return ToolView(title, stopped_id, output_block(call, context))


@renders("Monitor")
def monitor(call: ToolCall, context: ToolContext) -> ToolView:
    """A command (or a websocket) watched in the background, each line it prints a notification."""
    command = text_of(call.input.get("command"))
    socket = call.input.get("ws")
    url = text_of(socket.get("url")) if isinstance(socket, dict) else ""
    blocks: list[Block | str] = [Code(command, "bash", kind="command")] if command else []
    if url:
        blocks.append(Prose(f"Watching {inline_code(url)}", "sessionsite"))
    blocks.extend(output_block(call, context))
    return ToolView("Monitor", first_line(text_of(call.input.get("description")) or command or url), tuple(blocks))


@renders("Workflow")
def workflow(call: ToolCall, context: ToolContext) -> ToolView:
    """A scripted multi-step workflow, given inline or by path."""
    name = (text_of(call.input.get("title")) or text_of(call.input.get("name")) or text_of(call.input.get("scriptPath"))
            or text_of(call.input.get("resumeFromRunId")))
    blocks: list[Block | str] = []
    description = text_of(call.input.get("description"))
    if description.strip():
        blocks.append(Prose(prose(description)))
    script = text_of(call.input.get("script"))
    if script.strip():
        blocks.extend([label("Script"), Code(script, "javascript")])
    arguments = call.input.get("args")
    if isinstance(arguments, dict) and arguments:
        blocks.extend([label("Arguments"), json_block(arguments)])
    blocks.extend(output_block(call, context))
    return ToolView("Workflow", first_line(name or description), tuple(blocks))


@renders("CronCreate")
def cron_create(call: ToolCall, context: ToolContext) -> ToolView:
    """A prompt scheduled to run again on a cron schedule (once, unless recurring)."""
    schedule = text_of(call.input.get("cron"))
    recurring = call.input.get("recurring")
    target = schedule + (" (recurring)" if recurring is True else " (once)" if recurring is False else "")
    prompt = text_of(call.input.get("prompt"))
    blocks: list[Block | str] = [label("Prompt"), Prose(prose(prompt))] if prompt.strip() else []
    blocks.extend(output_block(call, context))
    return ToolView("Scheduled prompt", target, tuple(blocks))


@renders("CronDelete", "CronList")
def cron_other(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView(call.name, text_of(call.input.get("id")), output_block(call, context))


@renders("ScheduleWakeup")
def schedule_wakeup(call: ToolCall, context: ToolContext) -> ToolView:
    delay = call.input.get("delaySeconds")
    when = f"in {delay:,} s" if isinstance(delay, int) and not isinstance(delay, bool) else ""
    reason = text_of(call.input.get("reason"))
    target = "stop" if call.input.get("stop") is True else ", ".join(part for part in (when, reason) if part)
    prompt = text_of(call.input.get("prompt"))
    blocks: list[Block | str] = [label("Prompt"), Prose(prose(prompt))] if prompt.strip() else []
    blocks.extend(output_block(call, context))
    return ToolView("Wake-up", first_line(target), tuple(blocks))
