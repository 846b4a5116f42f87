"""The Markdown bundle: a piece of work written for the reviewer of a pull request, inside GitHub's
65,536-character limit for a description or a comment (`limits`).

A writer over the markdown stage's typed blocks. Phase 2 hands each page of blocks to `ReviewNotes` (a
`pipeline.phase2.PartWriter`, in `review_notes`), which keeps, per turn of the conversation, what a reviewer reads:
the shell commands the person ran (`!cmd`), the prompt, the plans, Claude's final reply, and a one-line
summary of each tool call (from the call's facts, not its HTML). Turns go to a spool file, one JSON line
each, so that a session of any length is never held whole.

`compose_markdown` writes a summary at the top (`review_summary`: sessions, dates, models, cost, commits
made, files changed with their number of edits), then each session's turns (`review_turns`). When they do
not fit, it gives up in reverse order of what matters: tool calls first (from the middle of each turn, then
all), then Claude's replies, plans and prompts are shortened, in that order (`shortening`); no reply is left
out, and the session's last one, its outcome, is kept longest. It says once, at the top, what was left out,
with counts. The budget goes on words: no wrappers per message, no times or anchors GitHub strips, no link
to anything this document does not hold, and the headings of plans and replies are demoted below the
document's own (`excerpts`). Posted on GitHub it acts on nothing (`inert`): no mention, closing keyword or
remote image.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from .. import __version__
from ..core.model import Archive, Session
from ..render.html.pages import GENERATOR
from .excerpts import cut, demoted
from .inert import inert_on_github
from .limits import GITHUB_LIMIT, github_length
from .review_notes import ReviewNotes, turns
from .review_summary import heading, summary
from .review_turns import render_turn, shell_length
from .shortening import Caps, LeftOut, Sizes, first_fitting, shortening_ladder


class _Body:
    """The sessions' text, given up as soon as it passes `limit`."""

    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[str] = []
        self.length = 0

    def add(self, text: str) -> bool:
        cost = github_length(text) + 4
        if self.length + cost > self.limit:
            return False
        self.parts.append(text)
        self.length += cost
        return True

    def text(self) -> str:
        return "\n\n".join(self.parts)


def compose_markdown(archive: Archive, keys: Sequence[str], spools: ReviewNotes, html_name: str,
                     branch: str = "") -> tuple[str, str]:
    """The Markdown bundle, and what was left out to fit ("" when nothing)."""
    sessions = [archive.sessions[key] for key in keys]
    main_sessions = [s for s in sessions if not s.is_subagent]
    head = inert_on_github(summary(archive, sessions, branch))
    headings = {s.key: inert_on_github(heading(n, s)) for n, s in enumerate(main_sessions, start=1)}

    sizes = Sizes(fixed=github_length(head) + sum(github_length(h) + 8 for h in headings.values()) + 700)
    counts = {"tool call": 0, "final reply": 0, "plan": 0, "prompt": 0}
    final_turns: dict[str, int] = {}
    """By session, the number of its turn that holds its last reply (its outcome)."""
    for session in main_sessions:
        last_reply, reply_at = -1, -1
        for number, turn in enumerate(turns(spools.spool_of(session.key))):
            sizes.prompts.append(github_length(turn["prompt"]) + shell_length(turn.get("shell", ())))
            sizes.plans.extend(github_length(plan["text"]) for plan in turn["plans"])
            sizes.replies.append(github_length(turn["reply"]))
            sizes.tool_counts.append(len(turn["tools"]))
            sizes.tool_chars.append(sum(len(tool[0]) + len(tool[1]) + 12 for tool in turn["tools"]))
            counts["tool call"] += len(turn["tools"])
            counts["final reply"] += bool(turn["reply"])
            counts["plan"] += len(turn["plans"])
            counts["prompt"] += bool(turn["prompt"])
            if turn["reply"]:
                last_reply, reply_at = number, len(sizes.replies) - 1
        if last_reply >= 0:
            final_turns[session.key] = last_reply
            sizes.final_replies.append(sizes.replies[reply_at])
            sizes.replies[reply_at] = 0

    def rendering(caps: Caps) -> tuple[LeftOut, _Body] | None:
        left, body = LeftOut(), _Body(GITHUB_LIMIT - github_length(head) - 700)
        done = _render_sessions(main_sessions, headings, spools, caps, left, body, final_turns)
        return (left, body) if done else None

    ladder = shortening_ladder(sizes)
    budget = GITHUB_LIMIT - 400
    step = first_fitting(len(ladder), lambda n: sizes.cost(ladder[n]) <= budget)
    done = None
    # The estimate may err either way: tighter until a rendering fits, then looser while one does.
    jump = 1
    while step < len(ladder):
        done = rendering(ladder[step])
        if done is not None or step == len(ladder) - 1:
            break
        step, jump = min(step + jump, len(ladder) - 1), jump * 2
    if done is not None:
        for looser in range(step - 1, max(-1, step - 9), -1):
            more = rendering(ladder[looser])
            if more is None:
                break
            done = more
        left, body = done
    else:
        # The last resort, for work whose prompts alone pass the limit: turns from the middle of the
        # sessions are left out, each session's first turns and its last one kept.
        left = LeftOut()
        body = _Body(GITHUB_LIMIT - github_length(head) - 700)
        # Plans are kept here, cut short as everything else (the ladder's last step leaves them out).
        shortest = ladder[-2] if len(ladder) > 1 else ladder[-1]
        _render_sessions(main_sessions, headings, spools, shortest, left, body, final_turns, keep_going=True)
    note = left.sentence(counts)
    text = head
    if note:
        text += (f"\n\n> **Shortened to fit GitHub's 65,536-character limit:** {note}. Everything is in the HTML "
                 f"bundle, made by the same command with `-o {html_name}`.")
    text += "\n\n" + body.text() + f"\n\n---\n\n*Made with {GENERATOR} {__version__}.*\n"
    return text, note


def _render_sessions(sessions: Sequence[Session], headings: dict[str, str], spools: ReviewNotes, caps: Caps,
                     left: LeftOut, body: _Body, final_turns: dict[str, int], keep_going: bool = False) -> bool:
    """Every session's turns into `body`; False as soon as one does not fit. With `keep_going`, a session's
    turns that do not fit are left out (and counted), but not those that say what the work was and how it
    ended: room is kept first for each session's first prompt, its plans, its final reply and its last turn."""
    shown_plans: dict[str, str] = {}
    reserved: dict[tuple[str, int], int] = {}
    if keep_going:
        for position, session in enumerate(sessions, start=1):
            for number, prompts, turn in _kept_turns(spools.spool_of(session.key), final_turns.get(session.key)):
                text = render_turn(prompts, turn, caps, LeftOut(), {}, f"session {position}",
                                   final=number == final_turns.get(session.key))
                reserved[(session.key, number)] = github_length(inert_on_github(text)) + 4
        body.limit -= sum(reserved.values())
    for position, session in enumerate(sessions, start=1):
        if not body.add(headings[session.key]) and not keep_going:
            return False
        prompts = 0
        for number, turn in enumerate(turns(spools.spool_of(session.key))):
            prompts += bool(turn["prompt"])
            kept = reserved.get((session.key, number))
            if kept is not None:
                body.limit += kept  # its room, kept above
            text = inert_on_github(render_turn(prompts, turn, caps, left, shown_plans, f"session {position}",
                                               final=number == final_turns.get(session.key)))
            if text and not body.add(text):
                if not keep_going:
                    return False
                left.turns += 1
    return True


def _kept_turns(spool: Path, final_turn: int | None) -> list[tuple[int, int, dict[str, Any]]]:
    """The turns a shortened session keeps whatever else is left out, with each one's number and how many
    prompts came up to it: its first turn with a prompt, the turns with its plans, the one with its final
    reply, and its last (read a line at a time)."""
    kept: list[tuple[int, int, dict[str, Any]]] = []
    prompts, first_prompt, last = 0, None, None
    for number, turn in enumerate(turns(spool)):
        prompts += bool(turn["prompt"])
        wanted = ((first_prompt is None and bool(turn["prompt"])) or bool(turn["plans"]) or number == final_turn)
        if first_prompt is None and turn["prompt"]:
            first_prompt = number
        if wanted:
            kept.append((number, prompts, turn))
        last = (number, prompts, turn)
    if last is not None and (not kept or kept[-1][0] != last[0]):
        kept.append(last)
    return kept


__all__ = ["GITHUB_LIMIT", "ReviewNotes", "compose_markdown", "cut", "demoted", "github_length", "inert_on_github"]
