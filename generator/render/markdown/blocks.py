"""The typed blocks a session page is made of, and the two writers over them.

The markdown stage knows what each part of a session is; it says so with a block instead of a string:

- `Prose`: Markdown text, already made safe by `escape` (Claude's Markdown, what a person typed, a label
  or note of ours). Only this kind needs a Markdown parser to become HTML.
- `Code`: text shown preformatted as it is: code with its language, a diff, a tool's output, a pasted log.
  It becomes a fence in Markdown and goes straight to the highlighter in HTML.
- `Structure`: one of our own elements (a meta line, a notice, a label), twice: as the theme's HTML for the
  page, and as plain Markdown for the .md. Transcript text inside it is escaped for each (`html_text`,
  `literal`).
- `Group`: blocks inside one of our elements (a message, a folded tool call with its summary facts, a
  plan, a thinking block): the theme's opening and closing tags for the page, and for the .md the fold
  (`Fold`, a `<details>` as GitHub renders it) it sits in, if any.

Two writers read them. `markdown_of` writes the .md people read: GitHub-flavoured Markdown with no HTML but
the folds (no `<div>`, no class, no permalink). `themed_markdown_of` writes the same blocks with the theme's
HTML around and between them: what the page shows, as one Markdown text (the HTML stage's own writer,
`html.render.render_blocks`, reads the blocks themselves and shows the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Union

from .escape import fence, html_text, typed_pieces


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
    """One of our own elements (a meta line, a notice, a label), or the theme's tags that open or close a
    group of blocks."""

    html: str
    """The theme's HTML, for the page. Never holds a blank line (that would end the HTML block in Markdown)."""
    kind: str = ""
    """What it opens, closes or is ("message", "tool", "plan", "notice", "label", "meta"...)."""
    text: str = ""
    """The same element in the .md: Markdown of ours, transcript text in it escaped (`escape.literal`,
    `inline_code`); "" where the .md shows nothing (a group's tags, a permalink)."""

    @property
    def markdown(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Fold:
    """A group folded in the .md as the page folds it: a `<details>`, which GitHub renders, around the
    group's blocks. Its summary is HTML of ours: text escaped with `html_text`, with `<b>` and `<code>`."""

    summary: str
    open: bool = False
    anchor: str = ""
    """The id a link to this place in the .md finds (a tool call's, which commits and notices link to)."""

    @property
    def opening(self) -> str:
        anchor = f' id="{html_text(self.anchor)}"' if self.anchor else ""
        return f"<details{anchor}{' open' if self.open else ''}>\n<summary>{self.summary}</summary>"

    closing = "</details>"


@dataclass(frozen=True, slots=True)
class Group:
    """Blocks inside one of our elements: a message, a folded tool call, a plan, a thinking block, a
    notice with a body. The opening and closing tags are the theme's HTML (no blank line in them); the facts
    say what the element shows in its head, as plain text, for writers that lay it out their own way."""

    kind: str
    """"message", "prompt", "tool", "thinking", "plan", "notice", "command-output", "bash-mode"..."""
    opening: str
    children: tuple["Block", ...]
    closing: str
    anchor: str = ""
    facts: tuple[tuple[str, str], ...] = ()
    """For a tool call: ("label", "Bash"), ("target", the command), ("status", "ok"); for a plan, its status."""
    fold: Fold | None = None
    """How the .md folds it; None: its blocks stand in the .md as they are (a message, a prompt, a plan)."""

    @property
    def markdown(self) -> str:
        inside = markdown_of(self.children)
        if self.fold is None:
            return inside
        return f"{self.fold.opening}\n\n{inside}\n\n{self.fold.closing}" if inside else (
            f"{self.fold.opening}\n\n{self.fold.closing}")

    def fact(self, name: str) -> str:
        return next((value for key, value in self.facts if key == name), "")


Block = Union[Prose, Code, Structure, Group]


def leaves(blocks: Iterable[Block]) -> Iterator[Prose | Code | Structure]:
    """The blocks in reading order, each group as its opening tags, its blocks and its closing tags (the
    theme's: the page's structure)."""
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
    """The .md's writer: blocks one after the other, a blank line between; plain Markdown, folds aside."""
    return "\n\n".join(text for block in blocks if (text := block.markdown))


def themed_markdown_of(blocks: Iterable[Block]) -> str:
    """The page as one Markdown text: the blocks with the theme's HTML around and between them, a blank
    line between each. Rendered with markdown-it (`html.render.render_markdown`) it reads as the page."""
    return "\n\n".join(_themed_pieces(blocks))


def _themed_pieces(blocks: Iterable[Block]) -> Iterator[str]:
    """What `themed_markdown_of` joins: each leaf's text, a group's tags as they are (no Structure made for
    each: a page has thousands)."""
    for block in blocks:
        if isinstance(block, Group):
            yield block.opening
            yield from _themed_pieces(block.children)
            yield block.closing
        elif isinstance(block, Structure):
            yield block.html
        else:
            yield block.markdown


def typed_blocks(text: str) -> list[Block]:
    """What a person typed (`escape.typed`), with the fences they wrote as code blocks."""
    return [Prose(piece, "person") if isinstance(piece, str) else Code(*piece) for piece in typed_pieces(text)]
