"""How Claude's task list reads: TodoWrite, TaskCreate and TaskUpdate as the list they leave,
TaskList and TaskGet (re-reading it) only with --show-hidden."""

from __future__ import annotations

from ...core.model import TaskItem, ToolCall
from ...stages.summarize import QUIET_TOOLS
from .blocks import Block, Prose
from .escape import one_line, prose
from .tool_views import ToolContext, ToolView, label, output_block, renders, text_of


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
        TaskItem(str(number), text_of(t.get("content")), text_of(t.get("status")))
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
        target = text_of(call.input.get("subject"))
    else:
        task_id = text_of(call.input.get("taskId"))
        subject = next((t.subject for t in call.tasks if t.id == task_id), "")
        change = text_of(call.input.get("status")) or "updated"
        target = f"#{task_id} {subject} → {change}".replace("  ", " ")
    blocks: list[Block | str] = [checklist(list(call.tasks))] if call.tasks else []
    description = text_of(call.input.get("description"))
    if description.strip():
        blocks.extend([label("Description"), Prose(prose(description))])
    if call.result and call.result.is_error:
        blocks.extend(output_block(call, context))
    label_text = "New task" if call.name == "TaskCreate" else "Task update"
    return ToolView(label_text, target, tuple(blocks), classes=("todo", "checklist"))


@renders(*sorted(QUIET_TOOLS))
def task_lookup(call: ToolCall, context: ToolContext) -> ToolView:
    """Claude reading back its own task list: nothing new for the reader (shown with --show-hidden)."""
    task_id = text_of(call.input.get("taskId"))
    return ToolView(call.name, f"#{task_id}" if task_id else "", output_block(call, context), quiet=True)
