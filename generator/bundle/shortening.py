"""How far the Markdown bundle shortens what it holds to fit GitHub's limit: the caps of one rendering,
what it left out, the sizes it is estimated from, and the ladder of caps tried, in the order of giving up."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from .limits import FINAL_REPLY_CHARS, SHORTEST_TEXT, TEXT_FLOOR, plural


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
            return f"all {plural(total, word)}" if count == total and total > 1 else (
                plural(count, word) if count == total else f"{count:,} of {plural(total, word)}")

        parts = []
        for count, word in ((self.tools, "tool call"), (self.replies, "final reply"), (self.plans, "plan")):
            if count:
                parts.append(of(count, word) + " left out")
        for count, word in ((self.replies_cut, "final reply"), (self.plans_cut, "plan"), (self.prompts_cut, "prompt")):
            if count:
                parts.append(of(count, word) + " shortened")
        if self.turns:
            parts.append(f"{plural(self.turns, 'turn')} from the middle of the sessions left out")
        return "; ".join(parts)



@dataclass
class Sizes:
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



def shortening_ladder(sizes: Sizes) -> list[Caps]:
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


def first_fitting(count: int, fits: Any) -> int:
    """The first n in [0, count) with fits(n) (false, then true from some n on), or count."""
    low, high = 0, count
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    return low

