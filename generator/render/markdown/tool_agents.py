"""How the calls between agents read: a subagent started (Task, Agent) and a message to another
agent of a team (SendMessage)."""

from __future__ import annotations

from typing import Any

from ...core.model import ToolCall
from .blocks import Block, Prose
from .escape import inline_code, literal, prose
from .tool_views import (ToolContext, ToolView, answer_sentence, first_line, json_block, label, output_block, renders,
                         result_text, text_of)


@renders("Task", "Agent")
def task(call: ToolCall, context: ToolContext) -> ToolView:
    description = text_of(call.input.get("description"))
    agent_type = text_of(call.input.get("subagent_type"))
    blocks: list[Block | str] = []
    if context.subagent_link:
        blocks.append(f"[Subagent transcript: {literal(context.subagent_title or description)}]({context.subagent_link})")
    prompt = text_of(call.input.get("prompt"))
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
    recipient = text_of(call.input.get("to") or call.input.get("recipient"))
    summary = text_of(call.input.get("summary"))
    message = call.input.get("message", call.input.get("content"))
    kind = text_of(call.input.get("type"))
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
    answer, delivered = answer_sentence(result_text(call))
    if answer:
        failed = not delivered or bool(call.result and call.result.is_error)
        blocks.extend([label("Error" if failed else "Output"), Prose(prose(answer))])
    else:
        blocks.extend(output_block(call, context))
    target = summary or first_line(message if isinstance(message, str) else request, 80)
    return ToolView(f"Message to {recipient}" if recipient else "Message", target, tuple(blocks))


_TEAM_REQUESTS = {"shutdown_request": "Asks the agent to shut down", "shutdown_response": "Answers a shutdown request",
                  "plan_approval_response": "Answers a plan sent for approval"}


def _team_request(message: Any) -> str:
    """A message that is a request between agents of a team ({"type": "shutdown_request", ...}), in words."""
    if not isinstance(message, dict) or text_of(message.get("type")) not in _TEAM_REQUESTS:
        return ""
    said = _TEAM_REQUESTS[text_of(message.get("type"))]
    if isinstance(message.get("approve"), bool):
        said += ": approved" if message["approve"] else ": declined"
    reason = text_of(message.get("reason")) or text_of(message.get("feedback"))
    return f"{said}. {reason}" if reason else f"{said}."
