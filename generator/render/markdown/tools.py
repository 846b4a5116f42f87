"""How each tool call reads in Markdown: a registry of renderers by tool name, with a generic fallback.

A renderer gets the call (with its result) and returns a `ToolView`: the one-line summary target and the
Markdown blocks of the folded body. Adding support for a tool means adding one function, decorated with
`@renders("Name")`, to the module of its kind: `tool_files`, `tool_commands`, `tool_checklists`,
`tool_agents` or `tool_other` (which holds the fallback); what they share is in `tool_views`. Importing this
module registers them all. The same output feeds the Markdown export and, through markdown-it, the HTML.
"""

from __future__ import annotations

from ...core.model import ToolCall
# Importing the renderers' modules registers them; their names are this module's, as they always were.
from .tool_agents import send_message, task
from .tool_checklists import checklist, task_change, task_lookup, todo_write
from .tool_commands import (background_output, bash, cron_create, cron_other, kill_shell, monitor, schedule_wakeup,
                            task_stop, workflow)
from .tool_files import edit, glob, grep, list_directory, multi_edit, notebook_edit, read, write, READ_LINE
from .tool_other import (ask_user_question, enter_plan_mode, generic, skill, tool_search, web_fetch, web_search,
                         worktree, ANSWER_IN_TEXT)
from .tool_views import (INLINE_OUTPUT_LIMIT, RENDERERS, Renderer, ToolContext, ToolView, display_path, json_block,
                         label, language_for, output_block, previewed, renders, result_text)


def render_tool(call: ToolCall, context: ToolContext) -> ToolView:
    return RENDERERS.lookup(call.name)(call, context)


__all__ = ["ANSWER_IN_TEXT", "INLINE_OUTPUT_LIMIT", "READ_LINE", "RENDERERS", "Renderer", "ToolContext", "ToolView",
           "ask_user_question", "background_output", "bash", "checklist", "cron_create", "cron_other", "display_path",
           "edit", "enter_plan_mode", "generic", "glob", "grep", "json_block", "kill_shell", "label", "language_for",
           "list_directory", "monitor", "multi_edit", "notebook_edit", "output_block", "previewed", "read",
           "render_tool", "renders", "result_text", "schedule_wakeup", "send_message", "skill", "task", "task_change",
           "task_lookup", "task_stop", "todo_write", "tool_search", "web_fetch", "web_search", "workflow", "worktree",
           "write"]
