"""What the real Codex CLI is asked to do, offline: each scenario is a few `codex exec` runs in a fresh CODEX_HOME,
each run a prompt and the replies the scripted Responses API gives it (`responses_stub.Reply`), one per request
Codex makes. Together they make Codex write every kind of record its rollouts hold: messages, reasoning
summaries, shell commands that pass and fail, patches that add, change and delete files, a plan, a web search,
a tool search and an MCP tool's call, a pasted image, a git commit, a resumed session and a compacted one; and,
on its interactive screen under tmux (`Screen`), commands the person approves and refuses, and an interrupt."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from responses_stub import Reply, call, patch, reason, say, web_search


@dataclass(frozen=True)
class Run:
    prompt: str
    replies: tuple[Reply, ...]
    resume: bool = False
    """`codex exec resume --last`: the run continues the scenario's last session."""
    image: str = ""
    """A file of the work folder attached to the prompt (`-i`)."""


@dataclass(frozen=True)
class Screen:
    """An interactive session under tmux: the replies its requests get, and the person's steps, each
    ("type", words) typed and sent, ("wait", words) until the screen shows them, ("key", a tmux key name)
    pressed, or ("sleep", seconds)."""

    replies: tuple[Reply, ...]
    steps: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Scenario:
    name: str
    runs: tuple[Run, ...]
    config: str = ""
    """More lines for config.toml (`{here}` is this folder, `{python}` the Python running the generator)."""
    files: dict[str, str] = field(default_factory=dict)
    """Files of the work folder before the first run."""
    git: bool = False
    """The work folder is a git repository (its branch is in the session's metadata)."""
    setup: Callable[..., None] | None = None
    screen: Screen | None = None
    """Run on Codex's interactive screen instead of `codex exec` (then `runs` is empty)."""


APP = "def tide(hour):\n    return 'low'\n"

SHELL_AND_PATCH = Scenario(
    "shell_and_patch",
    files={"tides.py": APP, "old_notes.txt": "to be removed\n"},
    git=True,
    runs=(Run("Make tide() say high after noon, add a README, drop old_notes.txt, run the check and commit.", (
        Reply.of(reason("Reading the module first.", "Then I will patch it."),
                 call("exec_command", cmd="cat tides.py", workdir="{work}")),
        Reply.of(call("exec_command", cmd="python3 -c 'import sys; print(\"not yet\"); sys.exit(3)'", workdir="{work}")),
        Reply.of(patch("*** Begin Patch\n*** Update File: tides.py\n@@ def tide(hour):\n-    return 'low'\n"
                       "+    return 'high' if hour >= 12 else 'low'\n*** Add File: README.md\n+# Tides\n+\n"
                       "+`tide(hour)` says whether the tide is high.\n*** Delete File: old_notes.txt\n*** End Patch\n")),
        Reply.of(call("exec_command", cmd="python3 -c 'import tides; print(tides.tide(13))'", workdir="{work}")),
        Reply.of(call("exec_command", cmd="git add -A && git commit -m 'Tide is high after noon'",
                      workdir="{work}")),
        Reply.of(say("Done: `tide()` now says **high** after noon, the README explains it, and the change is committed.")),
    )),),
)

PLAN_SEARCH_IMAGE = Scenario(
    "plan_search_image",
    runs=(Run("Here is the tide chart. When is high tide in Brest today?", (
        Reply.of(call("update_plan", explanation="Two steps", plan=[
            {"step": "Read the chart", "status": "completed"}, {"step": "Check online", "status": "in_progress"}])),
        Reply.of(reason("The chart is small; a search confirms it."), web_search("Brest high tide today"),
                 say("High tide in Brest is at **06:12** and **18:40** today.")),
    ), image="chart.png"),),
)

MCP = Scenario(
    "mcp",
    config='[mcp_servers.notes]\ncommand = "{python}"\nargs = ["{here}/mcp_notes.py"]\n',
    runs=(Run("Look up the ferry time in my notes.", (
        Reply.of({"type": "tool_search_call", "execution": "client", "status": "completed",
                  "arguments": {"query": "notes lookup"}}),
        Reply.of({**call("lookup", topic="ferry"), "namespace": "mcp__notes"}),
        Reply.of({**call("lookup", topic="weather"), "namespace": "mcp__notes"}),
        Reply.of(say("The Ouessant ferry leaves at 09:30; your notes say nothing about the weather.")),
    )),),
)

RESUME = Scenario(
    "resume",
    runs=(
        Run("What does `uname -s` say here?", (
            Reply.of(call("exec_command", cmd="uname -s", workdir="{work}")),
            Reply.of(say("It says Linux.")),
        )),
        Run("And the date, in UTC?", (
            Reply.of(call("exec_command", cmd="date -u +%Y", workdir="{work}")),
            Reply.of(say("It prints the year, in UTC.")),
        ), resume=True),
    ),
)

COMPACTION = Scenario(
    "compaction",
    config="model_auto_compact_token_limit = 5000\n",
    runs=(
        Run("Summarise the tide table in one line.", (
            Reply.of(say("The tide is high twice a day, about twelve and a half hours apart.")),
        )),
        Run("And the ferry?", (
            Reply.of(say("Summary: the user asked about tides and the ferry; tides are twice daily.")),
            Reply.of(say("The ferry leaves at 09:30.")),
        ), resume=True),
    ),
)

APPROVALS_AND_INTERRUPT = Scenario(
    "approvals_and_interrupt",
    # The screen offers a newer model once; a migration seen is noted so (Codex's own record of it).
    config='approval_policy = "on-request"\n\n[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n',
    runs=(),
    screen=Screen(
        replies=(
            Reply.of(call("exec_command", cmd="rm -rf build", workdir="{work}", sandbox_permissions="require_escalated",
                          justification="Remove the old build")),
            Reply.of(say("The build folder is gone.")),
            Reply.of(call("exec_command", cmd="rm -rf .cache", workdir="{work}", sandbox_permissions="require_escalated",
                          justification="Remove the cache")),
            Reply.of(say("One, two, three..."), delay=25),
        ),
        steps=(("type", "Clean the build folder"), ("wait", "$ rm -rf build"), ("key", "y"),
               ("wait", "build folder is gone"),
               ("type", "Now remove the cache too"), ("wait", "$ rm -rf .cache"), ("key", "Escape"),
               ("wait", "interrupted"),
               ("type", "Count slowly"), ("sleep", "4"), ("key", "Escape"), ("sleep", "3"),
               ("type", "/quit"), ("sleep", "3")),
    ),
)

SCENARIOS: tuple[Scenario, ...] = (SHELL_AND_PATCH, PLAN_SEARCH_IMAGE, MCP, RESUME, COMPACTION, APPROVALS_AND_INTERRUPT)
