"""How a tool call ended when it did not run (`ToolResult.ending`), said in a reader's words, as Claude Code's
own screen says it ("Interrupted", "Rejected write to …", "User rejected …"); the feedback the user typed; and
what Claude Code wrote to the model about the call, folded and labelled as the model's, never as the story."""

from __future__ import annotations

from ...core.model import Ending, ToolCall
from .blocks import Block, Code, Fold, Group, Prose, Structure
from .escape import literal, typed
from .gfm import summary_text
from .markup import TranscriptMarkup

ENDING_STATUS: dict[str, str] = {Ending.INTERRUPTED: "interrupted", Ending.REJECTED: "rejected",
                                 Ending.REFUSED: "refused", Ending.BLOCKED: "blocked by a hook",
                                 Ending.CANCELLED: "cancelled"}
"""The status a card's head shows, in place of "error"."""

ENDING_SENTENCE: dict[str, str] = {
    Ending.INTERRUPTED: "Interrupted by the user (Escape): Claude stopped and waited to be told what to do instead.",
    Ending.REJECTED: "Rejected by the user at Claude Code's permission prompt (No, or Escape): the call did not run.",
    Ending.REFUSED: "Refused by Claude Code: its permission settings (or auto mode) do not allow this call, so it did "
                    "not run.",
    Ending.BLOCKED: "Blocked by a hook in the user's settings: the call did not run.",
    Ending.CANCELLED: "Cancelled by Claude Code before it ran.",
}
"""Who ended the call, and what became of it."""

TO_MODEL_LABEL = "Claude Code's words to the model"
HARNESS_LABEL = "Claude Code's notes to the model (hidden)"


def status_of(call: ToolCall) -> str:
    """The card's status word for a call that did not run, or "" for one that did."""
    return ENDING_STATUS.get(call.result.ending, "") if call.result is not None else ""


def ending_blocks(call: ToolCall, markup: TranscriptMarkup) -> list[Block]:
    """What opens the card of a call that did not run: who ended it, and what the user said."""
    result = call.result
    if result is None or not result.ending:
        return []
    sentence = ENDING_SENTENCE[result.ending]
    blocks: list[Block] = [Structure(markup.event("ending", {"text": sentence}, ending=str(result.ending)), "ending",
                                     f"*{literal(sentence)}*")]
    if result.feedback:
        quoted = "\n".join(("> " + line) if line else ">" for line in typed(result.feedback).split("\n"))
        blocks += [Structure(markup.event("user-said", {}), "label", "**The user said**"), Prose(quoted, "person")]
    return blocks


def to_model_blocks(call: ToolCall, markup: TranscriptMarkup, show_hidden: bool) -> list[Block]:
    """Claude Code's instruction to the model in place of the result, folded; its notes (ids, temporary paths,
    hints), only with --show-hidden."""
    result = call.result
    if result is None:
        return []
    blocks: list[Block] = []
    for words, label, hidden in ((result.instruction, TO_MODEL_LABEL, False), (result.harness, HARNESS_LABEL, True)):
        if not words.strip() or (hidden and not show_hidden):
            continue
        opening, closing = markup.event_wrapper("to-model", {"label": label}, hidden=" hidden-event" if hidden else "")
        blocks.append(Group("to-model", opening, (Code(words, "text", kind="output"),), closing, call.anchor,
                            (("label", label),), Fold(summary_text(label))))
    return blocks
