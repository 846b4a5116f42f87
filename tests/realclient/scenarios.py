"""The scripted sessions tests/realclient/generate.py runs through the real Claude Code CLI.

A scenario is a project folder's starting files and a list of CLI runs; each run is the arguments Claude Code
gets (a prompt in `-p` mode, `--continue`, ...) and the replies the stub API gives, turn by turn, in order. All
content is invented. tests/test_realclient.py reads these to know what each page must show: the prompts, the
replies and the tool calls.

A reply may name what it cannot know when written: `@PROJECT@` (the project folder, filled in by generate.py),
`@PLAN_FILE@`, `@TASK_ID@` and `@CRON_ID@` (the plan file, the background command's and the scheduled prompt's
ids Claude Code has just given the model, filled in by the stub: api_stub.LEARNT_FROM_REQUEST).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from api_stub import Reply, text, thinking, tool, web_search

ALL_TOOLS = ("Bash,Read,Write,Edit,Glob,Grep,TodoWrite,Agent,NotebookEdit,WebFetch,Skill,SlashCommand,"
             "ExitPlanMode,EnterPlanMode,ToolSearch,CronCreate,CronDelete,CronList,Monitor,TaskStop,SendMessage,"
             "EnterWorktree,ExitWorktree,TaskCreate,TaskUpdate,TaskList,TaskGet")


@dataclass(frozen=True)
class Step:
    """On an interactive run's screen: wait until `wait_for` shows, then type `text` (literally), then
    press `keys` (tmux key names)."""

    wait_for: str = ""
    text: str = ""
    keys: tuple[str, ...] = ()


def say(words: str, wait_for: str = "") -> Step:
    return Step(wait_for, words, ("Enter",))


@dataclass(frozen=True)
class Run:
    """One invocation of `claude`: its arguments after the binary, and what the model says during it."""

    args: tuple[str, ...]
    replies: tuple[Reply, ...] = ()
    stdin: str = ""
    screen: tuple[Step, ...] = ()
    """When set, the run is interactive (under tmux): these steps are played on its screen."""

    @property
    def prompt(self) -> str:
        return self.args[self.args.index("-p") + 1] if "-p" in self.args else ""


@dataclass(frozen=True)
class Scenario:
    name: str
    about: str
    runs: tuple[Run, ...]
    files: dict[str, str] = field(default_factory=dict)
    """Project files written before the first run (relative path -> text)."""
    shown_prompts: tuple[str, ...] = ()
    """Words the page must show as the user's (defaults to each run's -p prompt)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables for Claude Code beyond generate.py's (an empty value takes one out)."""
    title: str = "Tide table session"
    """The name the model gives the session when Claude Code asks for one (interactive runs only)."""

    def replies_text(self) -> list[str]:
        return [block["text"] for run in self.runs for reply in run.replies for block in reply.blocks
                if block.get("type") == "text"]

    def tool_calls(self) -> list[dict[str, Any]]:
        return [block for run in self.runs for reply in run.replies for block in reply.blocks
                if block.get("type") == "tool_use"]

    def prompts(self) -> list[str]:
        return list(self.shown_prompts) or [run.prompt for run in self.runs if run.prompt]


def prompt(words: str, *replies: Reply, extra: tuple[str, ...] = ()) -> Run:
    return Run(("-p", words, "--allowedTools", ALL_TOOLS, *extra), tuple(replies))


# A 1x1 PNG: the smallest image Claude Code takes as an image.
PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

TIDEWATCH = {
    "README.md": "# tidewatch\n\nPredicts the tide at Penzance from harmonic constants.\n",
    "tides.py": ("def height(hour):\n    \"\"\"Tide height in metres at `hour`.\"\"\"\n"
                 "    return 2.4 + 1.9 * cos_hour(hour)\n"),
    "NOTES.txt": "high water 06:12\nlow water 12:25\n",
}

# A stdio MCP server (JSON-RPC lines on stdin and stdout) with one tool: high water at a port it knows, an
# error (isError) for one it does not.
TIDE_MCP_SERVER = """import json, sys
HIGH = {"Penzance": "06:12"}
for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "tide", "version": "1.0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "high_water", "description": "High water time at a port",
                             "inputSchema": {"type": "object", "properties": {"port": {"type": "string"}},
                                             "required": ["port"]}}]}
    elif method == "tools/call":
        port = request["params"]["arguments"].get("port", "")
        known = port in HIGH
        result = {"content": [{"type": "text", "text": f"High water at {port}: {HIGH[port]}" if known
                               else f"No tide table for {port}"}], "isError": not known}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)
"""

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "tools",
        "every common tool: Bash, Read, Write, Edit, Glob, Grep, TodoWrite",
        (prompt(
            "Tidy the tidewatch project: list it, read tides.py, fix cos_hour and note the change",
            Reply.of(thinking("Plan the tidy-up first, then look around."),
                     text("I'll keep a short list of the steps."),
                     tool("TodoWrite", todos=[
                         {"content": "Look at the project", "status": "in_progress", "activeForm": "Looking"},
                         {"content": "Fix cos_hour in tides.py", "status": "pending", "activeForm": "Fixing"}])),
            Reply.of(tool("Bash", command="ls -1", description="List the project's files")),
            Reply.of(tool("Glob", pattern="**/*.py")),
            Reply.of(tool("Grep", pattern="cos_hour", output_mode="content", **{"-n": True})),
            Reply.of(tool("Read", file_path="@PROJECT@/tides.py")),
            Reply.of(text("cos_hour is never defined; the tide follows a cosine of the hour angle."),
                     tool("Edit", file_path="@PROJECT@/tides.py", old_string="cos_hour(hour)",
                          new_string="math.cos(2 * math.pi * hour / 12.42)")),
            Reply.of(tool("Write", file_path="@PROJECT@/CHANGES.md",
                          content="# Changes\n\n- height() uses the M2 period of 12.42 hours.\n")),
            Reply.of(text("Fixed: height() now uses the M2 tidal period, and CHANGES.md says so.")),
        ),),
        files=TIDEWATCH,
    ),
    Scenario(
        "subagent",
        "an Agent call: a subagent with a transcript of its own, run in the foreground",
        (prompt(
            "Ask a helper to count the Python files",
            Reply.of(text("I'll hand the count to a helper."),
                     tool("Agent", subagent_type="general-purpose", description="Count Python files",
                          prompt="Count the .py files in this project and report the number.",
                          run_in_background=False)),
            Reply.of(tool("Glob", pattern="**/*.py"), to="Count the .py files"),
            Reply.of(text("There is 1 Python file: tides.py."), to="Count the .py files"),
            Reply.of(text("The helper found one Python file, tides.py.")),
        ),),
        files=TIDEWATCH,
    ),
    Scenario(
        "background-agent",
        "an Agent call in the background: its result comes back later as a task notification",
        (prompt(
            "In the background, have a helper check the README's port name",
            Reply.of(text("A helper will check it while we carry on."),
                     tool("Agent", subagent_type="general-purpose", description="Check the port",
                          prompt="Read README.md and say which port it names.")),
            Reply.of(tool("Read", file_path="@PROJECT@/README.md"), to="say which port it names"),
            Reply.of(text("The README names **Penzance**."), to="say which port it names"),
            Reply.of(text("The helper is on it; I'll report when it finishes.")),
            Reply.of(text("The helper reports that the README names Penzance.")),
        ),),
        files=TIDEWATCH,
    ),
    Scenario(
        "api-error",
        "the API fails (529 overloaded, then 500): Claude Code reports the error",
        (prompt("Summarise NOTES.txt", Reply.failing(529)),
         prompt("Try again: summarise NOTES.txt", Reply.failing(500), extra=("--continue",)),
         prompt("Once more, please", Reply.of(text("High water is at 06:12 and low water at 12:25.")),
                extra=("--continue",))),
        files=TIDEWATCH,
    ),
    Scenario(
        "stops",
        "turns stopped by a limit: the account's rate limit (429), the model's output-token limit (a reply cut "
        "off), a refusal by the model, the user's --max-turns and --max-budget-usd",
        (prompt("Summarise NOTES.txt", Reply.failing(429)),
         prompt("Write out the whole tide table", Reply.stopping("max_tokens", text("High water: 06:12, 18:40.")),
                extra=("--continue",)),
         prompt("Tell me something you must refuse", Reply.stopping("refusal"), extra=("--continue",)),
         prompt("Read tides.py and NOTES.txt", Reply.of(tool("Read", file_path="@PROJECT@/tides.py")),
                extra=("--continue", "--max-turns", "1")),
         prompt("Read README.md", Reply.costing({"input_tokens": 2_000_000, "output_tokens": 10,
                                                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
                                                tool("Read", file_path="@PROJECT@/README.md")),
                extra=("--continue", "--max-budget-usd", "0.5"))),
        files=TIDEWATCH,
    ),
    Scenario(
        "continue-resume",
        "one session carried on with --continue, then --resume by id, then renamed with /rename",
        (prompt("What does tides.py compute?",
                Reply.of(text("It computes the tide height in metres for a given hour."))),
         prompt("And what units is the hour in?",
                Reply.of(text("Hours since midnight, as a float.")), extra=("--continue",)),
         prompt("Thanks, one last question: which port?",
                Reply.of(text("Penzance, according to the README.")), extra=("--resume", "@SESSION@")),
         Run(("-p", "/rename Tide questions", "--continue"))),
        files=TIDEWATCH,
        shown_prompts=("What does tides.py compute?", "And what units is the hour in?",
                       "Thanks, one last question: which port?"),
    ),
    Scenario(
        "slash-command",
        "a custom slash command with arguments",
        (prompt("/tide-at 06:00 Penzance",
                Reply.of(text("At 06:00 in Penzance the tide is close to high water."))),),
        files={**TIDEWATCH, ".claude/commands/tide-at.md":
               "---\ndescription: Predict the tide\n---\nPredict the tide at $ARGUMENTS using tides.py.\n"},
        shown_prompts=("tide-at", "06:00 Penzance"),
    ),
    Scenario(
        "hooks",
        "hooks that print: a UserPromptSubmit hook adds context, a PostToolUse hook reports",
        (prompt("Run the tide check",
                Reply.of(tool("Bash", command="echo tide ok", description="Check the tide")),
                Reply.of(text("The tide check passed."))),),
        files={**TIDEWATCH, ".claude/settings.json": (
            '{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": '
            '"echo Tide tables were last refreshed on Monday"}]}],'
            ' "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": '
            '"echo Harbour log updated >&2; exit 0"}]}]}}')},
    ),
    Scenario(
        "compact",
        "/compact in the middle of a session",
        (prompt("Read NOTES.txt and tell me the high water time",
                Reply.of(tool("Read", file_path="@PROJECT@/NOTES.txt")),
                Reply.of(text("High water is at 06:12."))),
         Run(("-p", "/compact", "--continue")),
         prompt("And low water?", Reply.of(text("Low water is at 12:25.")), extra=("--continue",))),
        files=TIDEWATCH,
        shown_prompts=("Read NOTES.txt and tell me the high water time", "And low water?"),
    ),
    Scenario(
        "attached-file",
        "a file mentioned with @ in the prompt, and a text document attached to a prompt (stream-json input)",
        (prompt("When is high water? See @NOTES.txt",
                Reply.of(text("High water is at 06:12, according to NOTES.txt."))),
         Run(("-p", "--continue", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"),
             (Reply.of(text("The attached harbour notes say the pilot boards at the Gurnard buoy.")),),
             stdin=json.dumps({"type": "user", "message": {"role": "user", "content": [
                 {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                 "data": "Pilot boards at the Gurnard buoy."},
                  "title": "harbour-notes.txt"},
                 {"type": "text", "text": "What do the attached harbour notes say?"}]}}) + "\n")),
        files=TIDEWATCH,
        shown_prompts=("When is high water? See @NOTES.txt", "What do the attached harbour notes say?"),
    ),
    Scenario(
        "deferred-tools",
        "tools loaded on demand with ToolSearch: a scheduled prompt, a monitor, a worktree, a task list",
        (prompt(
            "Set up a reminder to check the tide tables every morning, and try the fix in a worktree",
            Reply.of(tool("ToolSearch", query="select:CronCreate,CronList,CronDelete,Monitor,EnterWorktree,"
                                              "ExitWorktree,TaskCreate,TaskUpdate,TaskList,TaskGet",
                          max_results=10)),
            Reply.of(tool("TaskCreate", subject="Schedule the morning check",
                          description="A cron prompt that checks the tide tables")),
            Reply.of(tool("CronCreate", cron="0 7 * * *", prompt="Check the tide tables for today",
                          recurring=True)),
            Reply.of(tool("CronList")),
            Reply.of(tool("CronDelete", id="@CRON_ID@")),
            Reply.of(tool("TaskUpdate", taskId="1", status="completed")),
            Reply.of(tool("TaskList")),
            Reply.of(tool("TaskGet", taskId="1")),
            Reply.of(tool("Monitor", description="Watch the tide log", command="echo rising; echo falling",
                          timeout_ms=5000)),
            Reply.of(tool("EnterWorktree", **{"name": "tide-fix"})),
            Reply.of(tool("ExitWorktree", action="remove", discard_changes=True)),
            Reply.of(text("The morning check was scheduled, tried and cancelled, and the worktree is cleaned up.")),
        ),),
        files=TIDEWATCH,
    ),
    Scenario(
        "plan-mode",
        "interactive plan mode: a plan rejected, the change asked for in words, the revised plan approved",
        (Run(("--permission-mode", "plan"), (
            Reply.of(text("Here is my plan."),
                     tool("ExitPlanMode", plan="# Fix the tide formula\n\n1. Define cos_hour\n2. Add a test\n")),
            Reply.of(text("Revised: no helper, math.cos directly."),
                     tool("ExitPlanMode", plan="# Fix the tide formula\n\n1. Use math.cos in height()\n")),
            Reply.of(text("Plan approved. I'll make the change now.")),
        ), screen=(
            say("Plan the cos_hour fix", wait_for="plan mode on"),
            Step("Exit plan mode?", keys=("Down", "Enter")),
            say("Use math.cos directly, not a helper", wait_for="Rejected"),
            Step("Exit plan mode?", keys=("Enter",)),
            Step("I'll make the change now."),
        )),),
        files=TIDEWATCH,
        shown_prompts=("Plan the cos_hour fix", "Use math.cos directly, not a helper"),
    ),
    Scenario(
        "agent-team",
        "agent teams: a named background agent, then a SendMessage to it by name while it works",
        (prompt(
            "Start a tide reader, then tell it which port to check",
            Reply.of(tool("ToolSearch", query="select:SendMessage", max_results=1)),
            Reply.of(text("I'll start a tide reader and brief it by message."),
                     tool("Agent", subagent_type="general-purpose", name="tide-reader",
                          description="Read the tide tables",
                          prompt="You are the tide reader. Wait for a message naming the port, then report "
                                 "its high water from NOTES.txt.",
                          run_in_background=True)),
            # The reader waits a moment, so that the message finds it still working.
            Reply.of(tool("Bash", command="sleep 4", description="Wait for the port"), to="You are the tide reader"),
            Reply.of(tool("SendMessage", to="tide-reader", summary="Port to check",
                          message="Check **Penzance** first.\n\n- read NOTES.txt\n- report high water")),
            Reply.of(text("The tide reader has its port; I'll pass on its report.")),
            Reply.of(tool("Read", file_path="@PROJECT@/NOTES.txt"), to="You are the tide reader"),
            Reply.of(text("## Penzance\n\nFrom NOTES.txt:\n\n- high water at 06:12\n- low water at 12:25"),
                     to="You are the tide reader"),
            Reply.of(text("The tide reader reports high water at Penzance at 06:12.")),
        ),),
        files=TIDEWATCH,
        env={"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"},
    ),
    Scenario(
        "ai-title",
        "an interactive session that Claude Code names itself: it asks the model for a title (ai-title)",
        (Run((), (Reply.of(text("It computes the tide height in metres for a given hour.")),), screen=(
            say("What does tides.py compute?", wait_for="auto mode on"),
            Step("for a given hour."),
        )),),
        files=TIDEWATCH,
        shown_prompts=("What does tides.py compute?",),
        # Claude Code asks for a title only when it may send requests beyond the conversation.
        env={"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": ""},
        title="Tide height formula",
    ),
    Scenario(
        "more-tools",
        "the other kinds of tool: a notebook edit, a skill, a command in the background and its notification, "
        "another one stopped with TaskStop, "
        "a web search the API runs itself, and reasoning kept only as its signature",
        (prompt(
            "Update the tide notebook, use the tide-table skill, log the tide in the background and look up "
            "the tables online",
            Reply.of(thinking(""), text("First the notebook."),
                     tool("Read", file_path="@PROJECT@/tides.ipynb")),
            Reply.of(tool("NotebookEdit", notebook_path="@PROJECT@/tides.ipynb", cell_id="c1",
                          new_source="print(height(6.2))", edit_mode="replace")),
            Reply.of(tool("Skill", skill="tide-table", args="Penzance")),
            Reply.of(tool("Bash", command="sleep 1; echo tide logged", description="Log the tide",
                          run_in_background=True)),
            Reply.of(tool("Bash", command="sleep 600", description="Watch the harbour", run_in_background=True)),
            Reply.of(tool("TaskStop", task_id="@TASK_ID@")),
            Reply.of(*web_search("Penzance tide tables", ("Penzance tide times", "https://tides.example.org/penzance")),
                     text("Tide tables for Penzance are at tides.example.org.")),
            Reply.of(text("The tide log finished: tide logged.")),
        ),),
        files={**TIDEWATCH, "tides.ipynb": json.dumps({
            "cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": ["print(height(6))"]}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
               ".claude/skills/tide-table/SKILL.md": (
                   "---\nname: tide-table\ndescription: Print a tide table for a port\n---\n"
                   "Print the day's high and low water for the port named in the arguments.\n")},
    ),
    Scenario(
        "pasted-image",
        "a prompt with an image pasted into it (stream-json input, as the SDK and IDEs send it)",
        (Run(("-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"),
             (Reply.of(text("The chart shows one tide gauge reading.")),),
             stdin=json.dumps({"type": "user", "message": {"role": "user", "content": [
                 {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PIXEL_PNG}},
                 {"type": "text", "text": "What does this tide chart show?"}]}}) + "\n"),),
        files=TIDEWATCH,
        shown_prompts=("What does this tide chart show?",),
    ),
    Scenario(
        "plan-edited",
        "interactive plan mode: the user edits the plan in their editor (ctrl+g), then approves it",
        (Run(("--permission-mode", "plan"), (
            Reply.of(tool("Write", file_path="@PLAN_FILE@",
                          content="# Fix the tide formula\n\n1. Define cos_hour\n2. Add a test\n")),
            Reply.of(text("Here is my plan."), tool("ExitPlanMode")),
            Reply.of(text("Approved with your edit. I'll make the change now.")),
        ), screen=(
            say("Plan the cos_hour fix", wait_for="plan mode on"),
            Step("ctrl+g to edit", keys=("C-g",)),
            Step("doctest for Penzance", keys=("Enter",)),
            Step("I'll make the change now."),
        )),),
        files={**TIDEWATCH, ".editor.sh": "sed -i 's/Add a test/Add a doctest for Penzance/' \"$1\"\n"},
        shown_prompts=("Plan the cos_hour fix",),
        env={"EDITOR": "sh @PROJECT@/.editor.sh", "VISUAL": "sh @PROJECT@/.editor.sh"},
    ),
    Scenario(
        "ask-user",
        "interactive: Claude asks the user a question with choices (AskUserQuestion), and the user picks one",
        (Run(("--permission-mode", "acceptEdits", "--allowedTools", ALL_TOOLS), (
            Reply.of(text("One thing first."), tool("AskUserQuestion", questions=[{
                "question": "Which port should the tide table cover?", "header": "Port",
                "options": [{"label": "Penzance", "description": "The harbour in the README"},
                            {"label": "Newlyn", "description": "The tide gauge next door"}],
                "multiSelect": False}])),
            Reply.of(text("Penzance it is; the table will cover it.")),
        ), screen=(
            say("Make a tide table", wait_for="accept edits"),
            Step("Which port should the tide table cover?", keys=("Enter",)),
            Step("the table will cover it."),
        )),),
        files=TIDEWATCH,
        shown_prompts=("Make a tide table",),
    ),
    Scenario(
        "refusals",
        "calls Claude Code refuses: a Write and a Bash without permission (-p grants none), a Bash a PreToolUse hook "
        "blocks, and a stdio MCP server's tool answering once and failing once",
        (Run(("-p", "Note the high water time in HIGH.txt, check the gauge, and ask the tide server",
              "--allowedTools", "Read,mcp__tide", "--mcp-config", "@PROJECT@/mcp.json", "--strict-mcp-config"), (
            Reply.of(tool("Write", file_path="@PROJECT@/HIGH.txt", content="high water 06:12\n")),
            Reply.of(tool("Bash", command="cat /var/log/gauge.log", description="Read the gauge log")),
            Reply.of(tool("mcp__tide__high_water", port="Penzance")),
            Reply.of(tool("mcp__tide__high_water", port="Atlantis")),
            Reply.of(text("I could not write HIGH.txt or read the gauge without permission; the tide server says "
                          "high water at Penzance is 06:12 and knows no Atlantis.")),
        )),
         Run(("-p", "Run the gauge check", "--allowedTools", "Bash", "--continue"), (
             Reply.of(tool("Bash", command="rm -rf gauge-cache", description="Clear the gauge cache")),
             Reply.of(text("The hook blocked clearing the gauge cache, so I left it.")),
         ))),
        files={**TIDEWATCH, "mcp.json": json.dumps({"mcpServers": {"tide": {
            "type": "stdio", "command": "python3", "args": ["@PROJECT@/tide_mcp.py"]}}}),
               "tide_mcp.py": TIDE_MCP_SERVER,
               ".claude/settings.json": json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
                   "type": "command",
                   "command": "grep -q 'rm -rf' && { echo 'Harbour rule: nothing is deleted' >&2; exit 2; }; exit 0"}]}]}})},
        shown_prompts=("Note the high water time in HIGH.txt, check the gauge, and ask the tide server",
                       "Run the gauge check"),
    ),
    Scenario(
        "project-agent",
        "a project subagent defined in .claude/agents/, and tasks carried across turns (--continue)",
        (prompt("Have the tide checker look at NOTES.txt, and start a task list",
                Reply.of(tool("ToolSearch", query="select:TaskCreate,TaskUpdate,TaskList", max_results=3)),
                Reply.of(tool("TaskCreate", subject="Check NOTES.txt", description="Have the tide checker read it")),
                Reply.of(tool("Agent", subagent_type="tide-checker", description="Check the notes",
                              prompt="Read NOTES.txt and say whether high water comes before low water.")),
                Reply.of(tool("Read", file_path="@PROJECT@/NOTES.txt"), to="high water comes before low water"),
                Reply.of(text("Yes: high water at 06:12 comes before low water at 12:25."),
                         to="high water comes before low water"),
                Reply.of(text("The tide checker confirms high water comes first.")),
                ),
         prompt("Mark the task done",
                Reply.of(tool("ToolSearch", query="select:TaskUpdate,TaskList", max_results=2)),
                Reply.of(tool("TaskUpdate", taskId="1", status="completed")),
                Reply.of(tool("TaskList")),
                Reply.of(text("The task is done.")), extra=("--continue",))),
        files={**TIDEWATCH, ".claude/agents/tide-checker.md": (
            "---\nname: tide-checker\ndescription: Checks tide notes for mistakes\ntools: Read, Glob\n---\n"
            "You check tide notes. Read the file you are given and answer in one sentence.\n")},
    ),
    Scenario(
        "fork",
        "a named session resumed with --fork-session: a second session with a copy of the history",
        (prompt("What does tides.py compute?",
                Reply.of(text("It computes the tide height in metres for a given hour."))),
         Run(("-p", "/rename Tide questions", "--continue")),
         prompt("And in feet?", Reply.of(text("Multiply by 3.28: about 7.9 feet at high water.")),
                extra=("--resume", "@SESSION@", "--fork-session"))),
        files=TIDEWATCH,
        shown_prompts=("What does tides.py compute?", "And in feet?"),
    ),
    Scenario(
        "structured-output",
        "-p with --json-schema: Claude answers through the StructuredOutput tool",
        (Run(("-p", "When is high water?", "--output-format", "json", "--json-schema",
              json.dumps({"type": "object", "properties": {"high_water": {"type": "string"}},
                          "required": ["high_water"]})), (
            Reply.of(text("High water is at 06:12."), tool("StructuredOutput", high_water="06:12")),
        )),),
        files=TIDEWATCH,
    ),
    Scenario(
        "escape",
        "interactive: Escape during a long command, bash mode (!), a write refused at the permission prompt, "
        "then the user says what to do instead",
        (Run(("--permission-mode", "default", "--allowedTools", "Bash(python3:*),Read"), (
            Reply.of(text("I'll wait for the gauge first."),
                     tool("Bash", command="python3 -c 'import time; time.sleep(45)'", description="Wait for the gauge")),
            Reply.of(text("The notes say high water is at 06:12.")),
            Reply.of(tool("Bash", command="touch HIGH.txt", description="Make the high water file")),
            Reply.of(text("Understood: nothing written. High water is at 06:12, as NOTES.txt says.")),
        ), screen=(
            say("Wait for the gauge, then note high water", wait_for="for shortcuts"),
            Step("esc to interrupt", keys=("Escape",)),
            say("!cat NOTES.txt", wait_for="Interrupted"),
            Step("The notes say high water"),
            say("Note high water in HIGH.txt"),
            Step("Do you want to proceed?", keys=("Escape",)),
            say("Don't write files, just tell me", wait_for="Did not run"),
            Step("as NOTES.txt says."),
        )),),
        files=TIDEWATCH,
        shown_prompts=("Wait for the gauge, then note high water", "Note high water in HIGH.txt",
                       "Don't write files, just tell me"),
    ),
    Scenario(
        "rewind",
        "interactive: the user rewinds to before their second prompt (Escape twice) and asks it otherwise",
        (Run(("--permission-mode", "default"), (
            Reply.of(text("About 3.1 m at noon.")),
            Reply.of(text("About 14 ft at 6pm.")),
            Reply.of(text("About 4.2 m at 6pm.")),
        ), screen=(
            say("Tide at noon?", wait_for="for shortcuts"),
            say("And at 6pm in feet?", wait_for="About 3.1 m at noon."),
            Step("About 14 ft at 6pm.", keys=("Escape", "Escape")),
            Step("Enter to continue", keys=("Up", "Enter")),
            Step("Restore conversation", keys=("Enter",)),
            # The prompt comes back in the box to edit: " in feet?" is taken off, and it is sent again.
            Step("manual mode on", keys=("BSpace",) * len(" in feet?") + ("Enter",)),
            Step("About 4.2 m at 6pm."),
        )),),
        files=TIDEWATCH,
        shown_prompts=("Tide at noon?", "And at 6pm in feet?", "And at 6pm"),
    ),
)
