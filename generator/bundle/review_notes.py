"""What a reviewer reads, kept from the markdown stage's blocks: `ReviewNotes` (a `pipeline.phase2.PartWriter`)
keeps, per turn of the conversation, the shell commands the person ran (`!cmd`), the prompt, the plans,
Claude's final reply, and a one-line summary of each tool call (from the call's facts, not its HTML). Turns
go to a spool file, one JSON line each (`turns` reads them back), so that a session of any length is never
held whole."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..core.model import Session
from ..render.markdown import MarkdownPart
from ..render.markdown.blocks import Block, Code, Group, Prose, Structure, markdown_of
from .limits import GITHUB_LIMIT, TARGET_CHARS

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


def turns(path: Path) -> Iterator[dict[str, Any]]:
    """The turns a session's spool file holds, in order (none when it has no file: no turn was kept)."""
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as spool:
        for line in spool:
            yield json.loads(line)
