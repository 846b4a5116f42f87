"""The Markdown bundle: a piece of work written for the reviewer of a pull request, inside GitHub's
65,536-character limit for a description or a comment.

A writer over the markdown stage's typed blocks. Phase 2 hands each page of blocks to `ReviewNotes` (a
`phases.PartWriter`), which keeps, per turn of the conversation, what a reviewer reads: the shell commands
the person ran (`!cmd`), the prompt, the plans, Claude's final reply, and a one-line summary of each tool
call (from the call's facts, not its HTML). Turns go to a spool file, one JSON line each, so that a session of any length is never held whole.

`compose_markdown` writes a summary at the top (sessions, dates, models, cost, commits made, files changed with their
number of edits), then each session's turns. When they do not fit, it gives up in reverse order of what
matters: tool calls first (from the middle of each turn, then all), then Claude's replies, plans and prompts
are shortened, in that order (`_ladder`); no reply is left out, and the session's last one, its outcome,
is kept longest. It says once, at the top, what was left out, with counts. The
budget goes on words: no wrappers per message, no times or anchors GitHub strips, no link to anything
this document does not hold, and the headings of plans and replies are demoted below the document's own.
Posted on GitHub it acts on nothing (`inert_on_github`): no mention, closing keyword or remote image.
"""

from __future__ import annotations

import bisect
import json
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from .. import __version__
from ..core.model import Archive, Commit, Session
from ..stages.commits import commit_url
from ..render.markdown import MarkdownPart, time_of
from ..render.markdown.blocks import Block, Code, Group, Prose, Structure, markdown_of
from ..render.markdown.escape import block_parser, fence, inline_code, literal
from ..render.stats import files_changed, money, totals
from ..render.html.figures import relative_to
from ..render.html.pages import GENERATOR
from .html import role_of, span_of

GITHUB_LIMIT = 65_536
"""Characters GitHub takes in a pull request's description or a comment."""
TARGET_CHARS = 100
"""A tool call's target (command, path, pattern) is shortened to this."""
FILES_LISTED = 40
"""Files changed named in the summary; the rest are counted."""
SHORTEST_TEXT = 80
"""No prompt, plan or reply is cut shorter than this."""
TEXT_FLOOR = 1000
"""Replies, then plans, then prompts are cut down to this, one kind after the other, before all three are
cut further together."""
FINAL_REPLY_CHARS = 3000
"""The session's final reply (its outcome) is cut to no less than this."""
SHELL_OUTPUT_CHARS = 1500
"""What a shell command the person ran (`!cmd`) printed is shown up to this."""


def github_length(text: str) -> int:
    """Characters as GitHub's limit counts them, erring long: UTF-16 code units (what a browser's text
    box counts), and each line break twice, since a form sends it as CR LF."""
    return len(text.encode("utf-16-le")) // 2 + text.count("\n")


# -- what a reviewer reads, kept from the blocks ---------------------------------------------------------


# Our own Markdown link to a file beside the page (an image, a PDF, the whole of a long prompt): a pull
# request does not have the file.
_FILE_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\([^()\s]*\)")


class ReviewNotes:
    """The part writer: each session's turns, one JSON line each, in its spool file (`spool_of`)."""

    def __init__(self, keys: Sequence[str], spool: Path):
        self.number = {key: n for n, key in enumerate(keys, start=1)}
        self.spool = spool
        self.turns: dict[str, dict[str, Any]] = {}
        """The turn each session is in, until the next prompt (or the session's end) closes it."""

    def spool_of(self, key: str) -> Path:
        return self.spool / f"{self.number[key]}.jsonl"

    def __call__(self, session: Session, part: MarkdownPart) -> None:
        key = session.key
        if key not in self.number or session.is_subagent:
            return  # subagents are counted in the summary, and are in the HTML bundle
        with self.spool_of(key).open("a", encoding="utf-8", newline="\n") as spool:
            for block in part.blocks:
                if isinstance(block, Group) and block.kind == "prompt":
                    shell = self._shell_only(key)
                    self._close(key, spool)
                    self.turns[key] = _turn(prompt=_prompt_text(block), time=block.fact("time"))
                    self.turns[key]["shell"] = shell
                elif isinstance(block, Group) and block.kind == "message":
                    self._reply(self.turns.setdefault(key, _turn()), block)
                elif isinstance(block, Group) and block.kind == "plan":
                    self.turns.setdefault(key, _turn())["plans"].append(_plan(block))
                elif isinstance(block, Group) and block.kind == "bash-mode":
                    # What the person ran in the shell (`!cmd`) goes with the prompt after it, which often
                    # speaks of its output: it opens a turn of its own, which that prompt joins.
                    turn = self.turns.get(key)
                    if turn is None or turn["prompt"] or turn["tools"] or turn["plans"] or turn["reply"]:
                        self._close(key, spool)
                        turn = self.turns[key] = _turn(time=block.fact("time"))
                    turn["shell"].append(_shell(block))
            if part.number == part.total:
                self._close(key, spool)

    def _shell_only(self, key: str) -> list[list[str]]:
        """The shell commands of an open turn that holds nothing else, taken out of it (the prompt coming
        joins them)."""
        turn = self.turns.get(key)
        if turn is None or not turn["shell"] or turn["prompt"] or turn["tools"] or turn["plans"] or turn["reply"]:
            return []
        del self.turns[key]
        return list(turn["shell"])

    def _close(self, key: str, spool: Any) -> None:
        turn = self.turns.pop(key, None)
        if turn is not None:
            spool.write(json.dumps(turn, ensure_ascii=False, sort_keys=True) + "\n")

    @staticmethod
    def _reply(turn: dict[str, Any], message: Group) -> None:
        for block in message.children:
            if isinstance(block, Prose) and block.by == "claude":
                # Claude's final reply of the turn is its last text; the ones before it led to tool calls.
                turn["reply"], turn["reply_whole"] = _capped(block.text)
            elif isinstance(block, Prose) and block.by == "sessionsite" and turn.get("reply"):
                turn["reply_whole"] = False  # the note that links the whole of a long reply
            elif isinstance(block, Group) and block.kind == "tool":
                target = " ".join(block.fact("target").split())
                turn["tools"].append([block.fact("label") or "Tool", target[:TARGET_CHARS + 1], block.fact("status")])
            elif isinstance(block, Group) and block.kind == "plan":
                turn["plans"].append(_plan(block))


def _turn(prompt: str = "", time: str = "") -> dict[str, Any]:
    return {"prompt": prompt, "time": time, "tools": [], "plans": [], "reply": "", "reply_whole": True, "shell": []}


def _shell(bash_mode: Group) -> list[str]:
    """A shell command the person ran (`!cmd`), and its output: [command, output]."""
    codes = [block for block in bash_mode.children if isinstance(block, Code)]
    command = next((code.code for code in codes if code.kind == "command"), "")
    output = "\n".join(code.code for code in codes if code.kind == "output")
    return [_capped(command)[0], _capped(output)[0]]


def _capped(text: str) -> tuple[str, bool]:
    """No text longer than the whole document is kept: it could not go in whole anyway."""
    return (text, True) if len(text) <= GITHUB_LIMIT else (text[:GITHUB_LIMIT], False)


def _prompt_text(prompt: Group) -> str:
    parts: list[Block] = []
    for block in prompt.children:
        if isinstance(block, Structure):
            continue  # the meta line: who and when, said by the bundle its own way
        if isinstance(block, Prose) and block.by == "sessionsite":
            block = Prose(_FILE_LINK.sub(lambda m: f"*{m.group(2)} (in the HTML bundle)*", block.text), block.by)
        parts.append(block)
    return _capped(markdown_of(parts))[0]


def _plan(plan: Group) -> dict[str, Any]:
    body = [b for b in plan.children if isinstance(b, Prose) and b.by == "claude"]
    said = [b for b in plan.children if isinstance(b, Prose) and b.by == "person"]
    return {"status": plan.fact("status"), "text": _capped(markdown_of(body))[0],
            "feedback": _capped(markdown_of(said))[0]}


# -- Markdown of our own, demoted and cut --------------------------------------------------------------

_ATX = re.compile(r"^((?:[ \t]*>)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?[ \t]{0,3})(#{1,6})(?=[ \t]|$)")
DEMOTED_TO = 4
"""Headings inside a reply or plan start at this level: below the document's title (#), its sessions (##)."""


def demoted(text: str) -> str:
    """Transcript Markdown whose headings sit below the document's own: its highest heading becomes a
    `####` and the others keep their places under it (a setext heading becomes an ATX one)."""
    if "#" not in text and "==" not in text and "--" not in text:
        return text
    headings = [token for token in block_parser().parse(text) if token.type == "heading_open" and token.map]
    if not headings:
        return text
    shift = max(0, DEMOTED_TO - min(int(token.tag[1]) for token in headings))
    lines: list[str | None] = list(text.split("\n"))
    for token in headings:
        level = min(6, int(token.tag[1]) + shift)
        first, end = token.map  # type: ignore[misc]
        if token.markup.startswith("#"):
            lines[first] = _ATX.sub(r"\g<1>" + "#" * level, lines[first] or "", count=1)
        elif end - first >= 2 and token.level == 0:
            title = " ".join((line or "").strip() for line in lines[first:end - 1])
            lines[first:end] = ["#" * level + " " + title] + [None] * (end - first - 1)
    return "\n".join(line for line in lines if line is not None)


_SHORTENED = " *…(shortened)*"


def cut(text: str, limit: int) -> str:
    """Markdown kept to about `limit` characters: whole blocks while they fit, then the start of a
    paragraph (at a word) or of a code block (whole lines, the fence closed). Never a block left open."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    size = 0
    for token in block_parser().parse(text):
        if token.level != 0 or token.nesting == -1 or not token.map:
            continue
        block = "\n".join(lines[token.map[0]:token.map[1]]).rstrip("\n")
        if size + len(block) + 2 <= limit:
            kept.append(block)
            size += len(block) + 2
            continue
        room = limit - size
        if room >= 80 and token.type == "fence":
            kept.append(_cut_fence(block, room))
        elif room >= 80 and token.type == "paragraph_open":
            words = block[:room]
            kept.append((words[: words.rfind(" ")] if " " in words[room // 2:] else words).rstrip(" \\"))
        break
    return ("\n\n".join(kept) + _SHORTENED) if kept else _SHORTENED.strip()


def _cut_fence(block: str, room: int) -> str:
    lines = block.split("\n")
    opening, closing = lines[0], lines[-1]
    body = lines[1:-1] if len(lines) > 2 and closing.strip().startswith(opening.strip()[:3]) else lines[1:]
    kept, size = [], len(opening) + len(closing) + 2
    for line in body:
        if size + len(line) + 1 > room:
            break
        kept.append(line)
        size += len(line) + 1
    fence_marker = re.match(r"\s*(`{3,}|~{3,})", opening)
    return "\n".join([opening, *kept, fence_marker.group(1) if fence_marker else "```"])


def quoted(text: str) -> str:
    return "\n".join(("> " + line) if line else ">" for line in text.split("\n"))


# -- nothing for GitHub to act on ---------------------------------------------------------------------------

INERT = "\u200b"
"""A zero-width space: shown as nothing, it stands between `@` and a name, or inside a closing keyword, so
that GitHub sees neither a mention nor a keyword (Dependabot and Renovate write mentions so too)."""
# After a letter or digit an @ is an email address's, which GitHub leaves alone; after anything else it may
# mention, even after markup that parts it from a word before it (`a**@user**`).
_MENTION = re.compile(r"(?<![A-Za-z0-9])@(?=[A-Za-z0-9])")
# GitHub's closing keywords, followed (after a colon, spaces, an escape or emphasis) by an issue reference
# (markup may stand between a keyword and the letters around it, so `_` is no part of a word here):
# #1, GH-1, owner/repo#1 or an issue's URL, perhaps backslash-escaped as our Markdown writes typed text. The
# reference may sit in a part that is left as written (a URL).
_CLOSING = re.compile(r"(?<![A-Za-z0-9])(?=(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?![A-Za-z0-9])(?:[\s:*_~\\>(\[]|&nbsp;|&#160;)*"
                      r"(?:\\?#|GH-\d|[\w.\\-]+/[\w.\\-]+\\?#|https?://))[A-Za-z]", re.IGNORECASE)
_MAY_CLOSE = re.compile(r"clos|fix|resolv", re.IGNORECASE)
_MAY_ACT = re.compile(r"@[A-Za-z0-9]|!\[|<|clos|fix|resolv", re.IGNORECASE)
_IMAGE = re.compile(r"!(?=\[)")
# Raw HTML that loads what it names: transcript text never holds any (its `<` is escaped), ours neither.
_LOADING_TAG = re.compile(r"<(?=/?(?:img|picture|source|video|audio|svg|image|iframe|object|embed|link|style|input)\b)",
                          re.IGNORECASE)
# What GitHub leaves alone, and so do we: a backslash escape of a backtick, `!` or backslash (an escaped `@` or
# `#` is shown as one, and acted on), an autolink, a link's destination and a bare URL (GitHub links them; a
# mention inside a link is none).
_AS_WRITTEN = re.compile(
    r"\\[\\`!]"
    r"|<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*>|<[^\s<>@]+@[^\s<>]+>"
    r"|\]\(\s*(?:<[^<>\n]*>|[^\s()]*)"
    r"|^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+"
    r"|(?:https?|ftp)://[^\s<]*|www\.[^\s<]*",
    re.MULTILINE,
)


def inert_on_github(markdown: str) -> str:
    """The Markdown as GitHub shows it, acting on nothing: no `@user` or `@org/team` notifies anyone, no
    closing keyword before an issue reference (`Fixes #1`) closes the issue on merge, and no image is fetched
    (through GitHub's image proxy, on every view) from a host a transcript named: its `!` is escaped, and it is
    a link. Code blocks and code spans are left as written (GitHub acts on nothing in them), as are URLs."""
    if not _MAY_ACT.search(markdown):
        return markdown
    lines = markdown.split("\n")
    in_code = [False] * len(lines)
    paragraph_of: dict[int, int] = {}
    for token in block_parser().parse(markdown):
        if token.map is None:
            continue
        start, end = token.map
        if token.type in ("fence", "code_block"):
            for number in range(start, min(end, len(lines))):
                in_code[number] = True
        elif token.type == "inline":
            for number in range(start, min(end, len(lines))):
                paragraph_of.setdefault(number, start)
    out: list[str] = []
    number = 0
    while number < len(lines):
        if in_code[number]:
            out.append(lines[number])
            number += 1
            continue
        # A code span lies within one paragraph: the paragraph's lines are read together, any other line alone.
        last = number
        while (number in paragraph_of and last + 1 < len(lines) and not in_code[last + 1]
               and paragraph_of.get(last + 1) == paragraph_of[number]):
            last += 1
        out.append(_inert_text("\n".join(lines[number:last + 1])))
        number = last + 1
    return "\n".join(out)


def _inert_text(text: str) -> str:
    """`inert_on_github` of a paragraph's text, outside its code spans and what `_AS_WRITTEN` names."""
    edits: dict[int, str] = {}
    for found in _MENTION.finditer(text):
        edits[found.end()] = INERT
    if _MAY_CLOSE.search(text):
        for found in _CLOSING.finditer(text):
            edits[found.start() + 1] = INERT
    for found in _IMAGE.finditer(text):
        edits[found.start()] = "\\"
    for found in _LOADING_TAG.finditer(text):
        edits[found.start()] = "&lt;"
    if not edits:
        return text
    as_written = _merged([found.span() for found in _AS_WRITTEN.finditer(text)])
    kept = _merged(as_written + _code_spans(text, as_written))
    starts = [start for start, _ in kept]
    out: list[str] = []
    previous = 0
    for at in sorted(edits):
        # An edit goes in where GitHub reads text: not inside code or what is kept as written. A zero-width
        # space goes after the character it follows, so that character is the one looked at.
        looked_at = at - 1 if edits[at] == INERT else at
        span = bisect.bisect_right(starts, looked_at) - 1
        if span >= 0 and kept[span][1] > looked_at:
            continue
        out.append(text[previous:at])
        out.append(edits[at])
        previous = at + (1 if edits[at] == "&lt;" else 0)
    out.append(text[previous:])
    return "".join(out)


_BACKTICKS_OR_ESCAPE = re.compile(r"\\.|`+", re.DOTALL)


def _code_spans(text: str, as_written: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where code spans are, as CommonMark finds them: a run of backticks opens one that the next run of
    the same length closes; a run with no such closer is backticks, and the next run is looked at."""
    starts = [start for start, _ in as_written]

    def inside_as_written(at: int) -> bool:
        span = bisect.bisect_right(starts, at) - 1
        return span >= 0 and as_written[span][1] > at

    runs = [found.span() for found in _BACKTICKS_OR_ESCAPE.finditer(text)
            if found.group()[0] == "`" and not inside_as_written(found.start())]
    closer: list[int | None] = [None] * len(runs)
    next_of_length: dict[int, int] = {}
    for number in range(len(runs) - 1, -1, -1):
        length = runs[number][1] - runs[number][0]
        closer[number] = next_of_length.get(length)
        next_of_length[length] = number
    spans = []
    number = 0
    while number < len(runs):
        closing = closer[number]
        if closing is None:
            number += 1
            continue
        spans.append((runs[number][0], runs[closing][1]))
        number = closing + 1
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans sorted, overlapping ones made one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


# -- the document ------------------------------------------------------------------------------------------


@dataclass
class Caps:
    """How far each kind of content is shortened; None: not at all."""

    tools: int | None = None
    """Tool calls listed per turn, the first and the last ones (0: none)."""
    replies: int | None = None
    """Characters kept of each turn's final reply (the session's last one keeps `FINAL_REPLY_CHARS` at least)."""
    plans: int | None = None
    """Characters kept of each plan (0: none)."""
    prompts: int | None = None


@dataclass
class LeftOut:
    """What a rendering left out or shortened, to say once at the top."""

    tools: int = 0
    replies_cut: int = 0
    replies: int = 0
    plans_cut: int = 0
    plans: int = 0
    prompts_cut: int = 0
    turns: int = 0
    """Whole turns left out from the middle of a session, its last turn kept (the last resort)."""

    def sentence(self, totals: dict[str, int]) -> str:
        """What was left out, in one sentence ("" for nothing); `totals`: how many tool calls, replies,
        plans and prompts there are."""
        def of(count: int, word: str) -> str:
            total = totals[word]
            return f"all {_plural(total, word)}" if count == total and total > 1 else (
                _plural(count, word) if count == total else f"{count:,} of {_plural(total, word)}")

        parts = []
        for count, word in ((self.tools, "tool call"), (self.replies, "final reply"), (self.plans, "plan")):
            if count:
                parts.append(of(count, word) + " left out")
        for count, word in ((self.replies_cut, "final reply"), (self.plans_cut, "plan"), (self.prompts_cut, "prompt")):
            if count:
                parts.append(of(count, word) + " shortened")
        if self.turns:
            parts.append(f"{_plural(self.turns, 'turn')} from the middle of the sessions left out")
        return "; ".join(parts)


def _plural(count: int, word: str) -> str:
    plural = word[:-1] + "ies" if word.endswith("y") else word + "s"
    return f"{count:,} {word if count == 1 else plural}"


@dataclass
class _Sizes:
    """Lengths of what the sessions hold, read once, to choose how far to shorten."""

    prompts: array[int] = field(default_factory=lambda: array("q"))
    plans: array[int] = field(default_factory=lambda: array("q"))
    replies: array[int] = field(default_factory=lambda: array("q"))
    final_replies: array[int] = field(default_factory=lambda: array("q"))
    """Of each session's last turn with a reply: kept longer (`FINAL_REPLY_CHARS`)."""
    tool_counts: array[int] = field(default_factory=lambda: array("q"))
    tool_chars: array[int] = field(default_factory=lambda: array("q"))
    fixed: int = 0
    """What every rendering has: headings, labels."""

    def cost(self, caps: Caps) -> int:
        def capped(lengths: array[int], cap: int | None, overhead: int) -> int:
            return sum(0 if cap == 0 else (n if cap is None else min(n, cap)) + overhead for n in lengths if n)

        tools = 0
        if caps.tools != 0:
            for count, chars in zip(self.tool_counts, self.tool_chars, strict=True):
                if count:
                    shown = count if caps.tools is None else min(count, caps.tools)
                    tools += 70 + chars * shown // count + (30 if shown < count else 0)
        final = None if caps.replies is None else max(caps.replies, FINAL_REPLY_CHARS)
        return (self.fixed + tools + capped(self.replies, caps.replies, 40) + capped(self.final_replies, final, 40)
                + capped(self.plans, caps.plans, 40) + capped(self.prompts, caps.prompts, 40))


def _turns(path: Path) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as spool:
        for line in spool:
            yield json.loads(line)


def _render_turn(number: int, turn: dict[str, Any], caps: Caps, left: LeftOut, shown_plans: dict[str, str],
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
            summary = _plural(len(calls), "tool call") + (f", {_plural(errors, 'error')}" if errors else "")
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
            text += _SHORTENED
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
    return f"{ran}\n\n{fence(shown, 'text')}" + (_SHORTENED if len(shown) < len(output) else "")


def _shell_length(shell: Sequence[Sequence[str]]) -> int:
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
    head = inert_on_github(_summary(archive, sessions, branch))
    headings = {s.key: inert_on_github(_heading(n, s)) for n, s in enumerate(main_sessions, start=1)}

    sizes = _Sizes(fixed=github_length(head) + sum(github_length(h) + 8 for h in headings.values()) + 700)
    counts = {"tool call": 0, "final reply": 0, "plan": 0, "prompt": 0}
    final_turns: dict[str, int] = {}
    """By session, the number of its turn that holds its last reply (its outcome)."""
    for session in main_sessions:
        last_reply, reply_at = -1, -1
        for number, turn in enumerate(_turns(spools.spool_of(session.key))):
            sizes.prompts.append(github_length(turn["prompt"]) + _shell_length(turn.get("shell", ())))
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

    ladder = _ladder(sizes)
    budget = GITHUB_LIMIT - 400
    step = _first(len(ladder), lambda n: sizes.cost(ladder[n]) <= budget)
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
        _render_sessions(main_sessions, headings, spools, ladder[-1], left, body, final_turns, keep_going=True)
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
    turns that do not fit are left out (and counted), but not its last: room is kept for the last turn of
    each session."""
    shown_plans: dict[str, str] = {}
    reserved: dict[str, int] = {}
    last_turns: dict[str, int] = {}
    if keep_going:
        for position, session in enumerate(sessions, start=1):
            count, prompts, last = _last_turn(spools.spool_of(session.key))
            if last is not None:
                last_turns[session.key] = count - 1
                text = _render_turn(prompts, last, caps, LeftOut(), {}, f"session {position}",
                                    final=count - 1 == final_turns.get(session.key))
                reserved[session.key] = github_length(inert_on_github(text)) + 4
        body.limit -= sum(reserved.values())
    for position, session in enumerate(sessions, start=1):
        if not body.add(headings[session.key]) and not keep_going:
            return False
        prompts = 0
        full = False
        for number, turn in enumerate(_turns(spools.spool_of(session.key))):
            prompts += bool(turn["prompt"])
            is_last = number == last_turns.get(session.key)
            if full and not is_last:
                left.turns += 1
                continue
            text = inert_on_github(_render_turn(prompts, turn, caps, left, shown_plans, f"session {position}",
                                                final=number == final_turns.get(session.key)))
            if is_last:
                body.limit += reserved[session.key]  # its room, kept above
            if text and not body.add(text):
                if not keep_going:
                    return False
                full = True
                left.turns += 1
    return True


def _last_turn(spool: Path) -> tuple[int, int, dict[str, Any] | None]:
    """How many turns a session's spool holds, how many prompts, and its last turn (read a line at a time)."""
    count, prompts, last = 0, 0, None
    for last in _turns(spool):
        count += 1
        prompts += bool(last["prompt"])
    return count, prompts, last


def _ladder(sizes: _Sizes) -> list[Caps]:
    """Every shortening tried, from none to the most, in the order of giving up: tool calls from the middle
    of each turn, then all of them; then replies, plans and prompts cut in turn down to `TEXT_FLOOR`; then
    all three together down to `SHORTEST_TEXT`; then plans left out. No reply is left out: each turn's
    last one says where it ended, and the session's last one, its outcome, keeps `FINAL_REPLY_CHARS`."""
    longest = {name: max(lengths, default=0) for name, lengths in (
        ("replies", sizes.replies), ("plans", sizes.plans), ("prompts", sizes.prompts))}
    ladder = [Caps()]
    ladder += [Caps(tools=shown) for shown in range(max(sizes.tool_counts, default=0) - 1, -1, -1)]
    caps = ladder[-1]
    for name in ("replies", "plans", "prompts"):
        for value in _down(longest[name], TEXT_FLOOR):
            caps = _with(caps, name, value)
            ladder.append(caps)
    for value in _down(TEXT_FLOOR, SHORTEST_TEXT):
        caps = Caps(0, *(None if longest[name] <= value else value for name in ("replies", "plans", "prompts")))
        ladder.append(caps)
    ladder.append(_with(caps, "plans", 0))
    return ladder


def _down(start: int, floor: int) -> list[int]:
    """Lengths from under `start` down to `floor`, a fifth less each time."""
    values = []
    value = start * 4 // 5
    while value > floor:
        values.append(value)
        value = value * 4 // 5
    return values + ([floor] if start > floor else [])


def _with(caps: Caps, name: str, value: int | None) -> Caps:
    changed = Caps(caps.tools, caps.replies, caps.plans, caps.prompts)
    setattr(changed, name, value)
    return changed


def _first(count: int, fits: Any) -> int:
    """The first n in [0, count) with fits(n) (false, then true from some n on), or count."""
    low, high = 0, count
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _heading(number: int, session: Session) -> str:
    role = role_of(session)
    label = f"{role.capitalize()}: " if role != "session" else ""
    facts = [time_of(session.started) + " UTC" if session.started else "",
             _plural(session.prompt_count, "prompt") if session.prompt_count else "",
             f"plan {session.first_plan_status}" if session.first_plan_status else "",
             f"branch {inline_code(session.git_branch)}" if session.git_branch else ""]
    line = " · ".join(fact for fact in facts if fact)
    return f"---\n\n## {number}. {literal(label + session.title)}" + (f"\n\n*{line}*" if line else "")


def _summary(archive: Archive, sessions: Sequence[Session], branch: str) -> str:
    main_sessions = [s for s in sessions if not s.is_subagent]
    subagents = len(sessions) - len(main_sessions)
    title = (main_sessions or list(sessions))[0].title
    lead = f"Claude Code session{'s' if len(main_sessions) != 1 else ''}"
    lines = [f"# {literal(lead + (f' on {branch}' if branch else '') + ': ' + title)}", ""]
    started, ended = span_of(sessions)
    roles = [role_of(s) for s in main_sessions]
    kinds = ", ".join(r for r in roles if r != "session") if any(r != "session" for r in roles) else ""
    first = _plural(len(main_sessions), "session") + (f" ({literal(kinds)})" if kinds else "")
    if subagents:
        first += f" and {_plural(subagents, 'subagent run')}"
    when = ""
    if started:
        when = f"{time_of(started)} to {time_of(ended)} UTC" if ended and ended != started else f"{time_of(started)} UTC"
    projects = [p.path for p in archive.projects if any(s.project_dir == p.dir_name for s in sessions)]
    facts = [f"- **Sessions:** {first}" + (f", {when}" if when else "")]
    if projects:
        facts.append("- **Project:** " + ", ".join(inline_code(p) for p in projects))
    found = totals(sessions)
    models = sorted({model for s in sessions for model in s.models})
    if models:
        facts.append("- **Models:** " + ", ".join(inline_code(m) for m in models))
    # The session pages count each session's own calls and cost; its subagents' are on theirs. Where
    # subagent runs add to the figures, how much of each is theirs.
    calls = sum(s.tool_call_count for s in sessions)
    own_calls = sum(s.tool_call_count for s in main_sessions)
    runs = "the subagent run" if subagents == 1 else f"the {subagents:,} subagent runs"
    in_sessions = "the session" if len(main_sessions) == 1 else "the sessions"
    split = subagents and main_sessions
    work = [_plural(sum(s.prompt_count for s in main_sessions), "prompt"),
            _plural(calls, "tool call") + (f" ({own_calls:,} in {in_sessions}, {calls - own_calls:,} in {runs})"
                                           if split and calls != own_calls else "")]
    if any(f.cost is not None for f in found.models):
        own_cost = totals(main_sessions).cost
        work.append(f"estimated cost {money(found.cost)}" + (
            f" ({money(own_cost)} in {in_sessions}, {money(found.cost - own_cost)} in {runs})"
            if split and money(found.cost) != money(own_cost) else ""))
    facts.append("- **Work:** " + ", ".join(work))
    lines += facts
    changed = files_changed(sessions)
    if changed:
        edits = sum(f.changes for f in changed)
        root = projects[0] if len(projects) == 1 else ""
        items = [f"- {inline_code(relative_to(f.path, root))}: {_plural(f.changes, 'edit')}" for f in changed[:FILES_LISTED]]
        if len(changed) > FILES_LISTED:
            items.append(f"- *… and {len(changed) - FILES_LISTED:,} more files*")
        lines += ["", f"<details><summary>{_plural(len(changed), 'file')} changed, {_plural(edits, 'edit')}</summary>",
                  "", *items, "", "</details>"]
    commits = sorted((commit for s in sessions for commit in s.commits), key=lambda commit: commit.timestamp)
    if commits:
        items = [f"- {_commit_hash(commit)} {literal(commit.subject)}" for commit in commits[:FILES_LISTED]]
        if len(commits) > FILES_LISTED:
            items.append(f"- *… and {len(commits) - FILES_LISTED:,} more commits*")
        lines += ["", f"<details><summary>{_plural(len(commits), 'commit')} made</summary>", "", *items, "",
                  "</details>"]
    return "\n".join(lines)


def _commit_hash(commit: Commit) -> str:
    """The short hash, linked to the forge when the session's own push named it (GitHub links a bare hash in
    a comment to the pull request's repository only)."""
    url = commit_url(commit.forge, commit.sha)
    return f"[{inline_code(commit.sha)}]({url})" if url else inline_code(commit.sha)


__all__ = ["GITHUB_LIMIT", "ReviewNotes", "compose_markdown", "cut", "demoted", "github_length", "inert_on_github"]
