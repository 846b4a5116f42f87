"""One turn of a session as the Markdown bundle writes it, within the caps of a rendering."""

from __future__ import annotations

from typing import Any, Sequence

from ..render.markdown import time_of
from ..render.markdown.escape import fence, inline_code, literal
from .excerpts import SHORTENED, cut, demoted, quoted
from .limits import FINAL_REPLY_CHARS, SHELL_OUTPUT_CHARS, SHORTEST_TEXT, TARGET_CHARS, github_length, plural
from .shortening import Caps, LeftOut


def render_turn(number: int, turn: dict[str, Any], caps: Caps, left: LeftOut, shown_plans: dict[str, str],
                where: str, final: bool = False) -> str:
    """One turn: the shell commands the person ran before the prompt, the prompt (`number`), the plans, the
    tool calls folded, Claude's final reply. A plan the session was started with comes first; one Claude
    proposed, after the calls that led to it. A plan shown before (the implementation session starts with
    the plan its planning session proposed) is named, not repeated. `where`: the session, as a later
    mention of its plans names it. `final`: the turn holds the session's last reply, its outcome."""
    shell = [_shell_markdown(command, output, caps) for command, output in turn.get("shell", ())]
    prompt = []
    when = f" · {time_of(turn['time'])[11:]}" if turn["time"] else ""
    if turn["prompt"]:
        text = turn["prompt"]
        if caps.prompts is not None and len(text) > caps.prompts:
            text = cut(text, caps.prompts)
            left.prompts_cut += 1
        prompt = [f"**Prompt {number}**{when}", quoted(text)]
    tools = []
    if turn["tools"]:
        calls = turn["tools"]
        shown = len(calls) if caps.tools is None else min(len(calls), caps.tools)
        left.tools += len(calls) - shown
        if shown:
            errors = sum(1 for call in calls if call[2] == "error")
            # The middle goes first: the first calls say how the work began, the last ones how it ended.
            first, last = (shown + 1) // 2, shown // 2
            lines = [_tool_line(*call) for call in calls[:first]]
            if shown < len(calls):
                lines.append(f"- *… {len(calls) - shown:,} more*")
            lines += [_tool_line(*call) for call in calls[len(calls) - last:] if last]
            summary = plural(len(calls), "tool call") + (f", {plural(errors, 'error')}" if errors else "")
            tools = [f"<details><summary>{summary}</summary>\n\n" + "\n".join(lines) + "\n\n</details>"]
    plans = []
    for plan in turn["plans"]:
        status = f"**Plan** · {literal(plan['status'] or 'proposed')}"
        forms = _plan_forms(plan["text"])
        shown_in = next((shown_plans[form] for form in forms if form in shown_plans), "")
        if shown_in:
            plans.append(f"{status}: the plan shown in {shown_in} above.")
        elif caps.plans == 0:
            left.plans += 1
        else:
            text = demoted(plan["text"]) or "*The plan is empty.*"
            if caps.plans is not None and len(text) > caps.plans:
                text = cut(text, caps.plans)
                left.plans_cut += 1
            plans += [status, text]
            shown_plans.update((form, where) for form in forms)
        if plan["feedback"]:
            plans += ["**The user said**", plan["feedback"]]
    reply = []
    if turn["reply"]:
        limit = None if caps.replies is None else max(caps.replies, FINAL_REPLY_CHARS if final else SHORTEST_TEXT)
        text = demoted(turn["reply"])
        if limit is not None and len(text) > limit:
            text = cut(text, limit)
            left.replies_cut += 1
        elif not turn["reply_whole"]:
            text += SHORTENED
        reply = ["**Claude**", text]
    ordered = [*prompt, *tools, *plans] if prompt else [*plans, *tools]
    return "\n\n".join([*shell, *ordered, *reply])


def _shell_markdown(command: str, output: str, caps: Caps) -> str:
    """A shell command the person ran, and the start of what it printed."""
    if "\n" in command.strip() or len(command) > TARGET_CHARS * 2:
        ran = "**You ran**\n\n" + fence(command.strip("\n"), "bash")
    else:
        ran = f"**You ran** {inline_code(command.strip())}"
    if not output.strip():
        return ran
    limit = min(SHELL_OUTPUT_CHARS, caps.prompts or SHELL_OUTPUT_CHARS)
    shown = output if len(output) <= limit else output[:limit].rpartition("\n")[0] or output[:limit]
    return f"{ran}\n\n{fence(shown, 'text')}" + (SHORTENED if len(shown) < len(output) else "")


def shell_length(shell: Sequence[Sequence[str]]) -> int:
    return sum(github_length(command) + min(github_length(output), SHELL_OUTPUT_CHARS) + 40 for command, output in shell)


def _plan_forms(text: str) -> tuple[str, ...]:
    """A plan as a session may show it: whole, or without its first heading (a session named after the
    plan it carries out leaves out the heading that is its title)."""
    body = text.lstrip("\n")
    forms = [" ".join(body.split())]
    if body.startswith("#"):
        forms.append(" ".join(body.partition("\n")[2].split()))
    return tuple(forms)


def _tool_line(label: str, target: str, status: str) -> str:
    line = f"- **{literal(label)}**"
    if target:
        line += " " + inline_code(target if len(target) <= TARGET_CHARS else target[:TARGET_CHARS - 1] + "…")
    if status and status != "ok":
        line += f" · {literal(status)}"
    return line

