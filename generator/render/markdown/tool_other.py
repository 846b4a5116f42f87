"""How the other calls read: tool search, plan mode, worktrees, the web, questions to the user,
skills, and the fallback for every tool no renderer is registered for (MCP tools among them)."""

from __future__ import annotations

import re

from ...core.model import ToolCall
from .blocks import Block, Code, Prose
from .escape import literal, one_line, prose
from .tool_views import (RENDERERS, ToolContext, ToolView, first_line, json_block, label, output_block, renders,
                         result_text, text_of)


@renders("ToolSearch")
def tool_search(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("ToolSearch", text_of(call.input.get("query")), output_block(call, context))


@renders("EnterPlanMode")
def enter_plan_mode(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("Plan mode", "Claude switches to planning", output_block(call, context), classes=("plan-mode",))


@renders("EnterWorktree", "ExitWorktree")
def worktree(call: ToolCall, context: ToolContext) -> ToolView:
    if call.name == "EnterWorktree":
        target = text_of(call.input.get("name")) or text_of(call.input.get("path"))
        return ToolView("Enter worktree", target, output_block(call, context))
    action = text_of(call.input.get("action"))
    target = action + (", discarding changes" if call.input.get("discard_changes") is True else "")
    return ToolView("Leave worktree", target, output_block(call, context))


@renders("WebSearch", "web_search")
def web_search(call: ToolCall, context: ToolContext) -> ToolView:
    """Claude Code's tool, or the search the API runs itself (`server_tool_use` named `web_search`)."""
    return ToolView(call.name, text_of(call.input.get("query")), output_block(call, context))


@renders("WebFetch", "web_fetch")
def web_fetch(call: ToolCall, context: ToolContext) -> ToolView:
    prompt = text_of(call.input.get("prompt"))
    blocks: list[Block | str] = [label("Prompt"), Prose(prose(prompt))] if prompt else []
    text = result_text(call)
    if text.strip():
        blocks.append(Prose(prose(text)) if not (call.result and call.result.is_error) else Code(text, "text", kind="output"))
    return ToolView(call.name, text_of(call.input.get("url")), tuple(blocks))


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
        asked = text_of(question.get("question"))
        answer = answers.get(asked, "")
        picked = {part.strip() for part in answer.split(",")} | {answer.strip()}
        header = text_of(question.get("header"))
        blocks.append(Prose(f"**{literal(asked)}**" + (f" *({literal(header)})*" if header else "")))
        lines = []
        options = question.get("options")
        for option in options if isinstance(options, list) else []:
            if not isinstance(option, dict):
                continue
            name = text_of(option.get("label"))
            description = text_of(option.get("description"))
            chosen = name.strip() in picked
            text = f"**{literal(name)}** ✓" if chosen else literal(name)
            lines.append(f"- {text}" + (f" — {one_line(description)}" if description else ""))
        if lines:
            blocks.append(Prose("\n".join(lines)))
        known = {text_of(o.get("label")).strip() for o in (options if isinstance(options, list) else [])
                 if isinstance(o, dict)}
        if answer and not picked & known:
            blocks.append(Prose(f"Answer: **{literal(answer)}**"))  # typed in, not one of the options
        elif not answer and call.result is not None and not call.result.is_error:
            blocks.append("*No answer recorded for this question.*")
    if call.result is None or call.result.is_error or not answers:
        blocks.extend(output_block(call, context))
    count = len(questions)
    answered = sum(1 for q in questions if answers.get(text_of(q.get("question"))))
    target = f"{count} question{'s' if count != 1 else ''}" + (f", {answered} answered" if call.result else "")
    return ToolView("Question", target, tuple(blocks), open_by_default=True, classes=("question",))


@renders("Skill")
def skill(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("Skill", text_of(call.input.get("skill")) or text_of(call.input.get("command")), output_block(call, context))


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
    return ToolView(name, first_line(first_value, 80), tuple(blocks))
