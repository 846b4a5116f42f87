"""The typed blocks a session page is made of, and the Markdown writer over them.

The markdown stage knows what each part of a session is; it says so with a block instead of a string:

- `Prose`: Markdown text, already made safe by `escape` (Claude's Markdown, what a person typed, a label
  or note of ours). Only this kind needs a Markdown parser to become HTML.
- `Code`: text shown preformatted as it is: code with its language, a diff, a tool's output, a pasted log.
  It becomes a fence in Markdown and goes straight to the highlighter in HTML.
- `Structure`: one of our own HTML elements (a meta line, a notice, a label). Transcript text inside
  it is escaped with `html_text`.
- `Group`: blocks inside one of our elements (a message, a folded tool call with its summary facts, a
  plan, a thinking block), between its opening and closing tags.

The Markdown writer (`markdown_of`) puts them one after the other with a blank line between, which is
the Markdown the stage has always written; the HTML stage has its writer in `html.render.render_blocks`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Union

from .escape import fence, typed_pieces


@dataclass(frozen=True, slots=True)
class Prose:
    """Markdown to be parsed as Markdown."""

    text: str
    by: str = "claude"
    """Who wrote it: "claude" (its Markdown), "person" (typed, line breaks kept) or "sessionsite"."""
    unshown: str = ""
    """For our note under the start of a long text (a tool output, a prompt, a reply): the text past that
    start, which only the linked file shows. Not written by the Markdown or HTML writers; the search index
    holds it, so that a long text is found by any of its words."""

    @property
    def markdown(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Code:
    """Preformatted text: never parsed as Markdown."""

    code: str
    language: str = ""
    attributes: str = ""
    """Info-string attributes after the language (`startline=12`)."""
    kind: str = "code"
    """What it is: "code", "diff", "command" (run in a shell), "output" (of a tool or command), "pasted" (a
    log or code in a prompt)."""

    @property
    def markdown(self) -> str:
        return fence(self.code, self.language, self.attributes)


@dataclass(frozen=True, slots=True)
class Structure:
    """Our own HTML: a whole element (a meta line, a notice, a label) or the tags that open or close a
    group of blocks. Never holds a blank line (that would end the HTML block in Markdown)."""

    html: str
    kind: str = ""
    """What it opens, closes or is ("message", "tool", "plan", "notice", "label", "meta"...)."""

    @property
    def markdown(self) -> str:
        return self.html


@dataclass(frozen=True, slots=True)
class Group:
    """Blocks inside one of our elements: a message, a folded tool call, a plan, a thinking block, a
    notice with a body. The opening and closing tags are HTML of ours (no blank line in them); the facts
    say what the element shows in its head, as plain text, for writers that lay it out their own way."""

    kind: str
    """"message", "prompt", "tool", "thinking", "plan", "notice", "command-output", "bash-mode"..."""
    opening: str
    children: tuple["Block", ...]
    closing: str
    anchor: str = ""
    facts: tuple[tuple[str, str], ...] = ()
    """For a tool call: ("label", "Bash"), ("target", the command), ("status", "ok"); for a plan, its status."""

    @property
    def markdown(self) -> str:
        return markdown_of((Structure(self.opening, self.kind), *self.children, Structure(self.closing, self.kind)))

    def fact(self, name: str) -> str:
        return next((value for key, value in self.facts if key == name), "")


Block = Union[Prose, Code, Structure, Group]


def leaves(blocks: Iterable[Block]) -> Iterator[Prose | Code | Structure]:
    """The blocks in reading order, each group as its opening tags, its blocks and its closing tags."""
    for block in blocks:
        if isinstance(block, Group):
            yield Structure(block.opening, block.kind)
            yield from leaves(block.children)
            yield Structure(block.closing, block.kind)
        else:
            yield block


def blocks_of(items: Iterable[Block | str]) -> list[Block]:
    """Blocks, with any bare string read as Markdown prose of ours (renderers may still return those)."""
    return [Prose(item, "sessionsite") if isinstance(item, str) else item for item in items]


def markdown_of(blocks: Iterable[Block]) -> str:
    """The Markdown writer: blocks one after the other, a blank line between."""
    return "\n\n".join(block.markdown for block in blocks)


def typed_blocks(text: str) -> list[Block]:
    """What a person typed (`escape.typed`), with the fences they wrote as code blocks."""
    return [Prose(piece, "person") if isinstance(piece, str) else Code(*piece) for piece in typed_pieces(text)]
