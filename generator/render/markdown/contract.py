"""What the markdown stage is given and gives back: its options, where it writes files (`Output`), and
each page of a session it hands on to the writers over it (`MarkdownPart`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .blocks import Block


class Output(Protocol):
    """Where phase 2 puts files: the staging folder of `write`."""

    def write(self, path: str, content: bytes) -> None:
        """A file that belongs to one session; refused if another output already took the path."""

    def write_shared(self, path: str, content: bytes) -> None:
        """A file named by its content, which several sessions may bring."""

    def append(self, path: str, text: str | bytes) -> None:
        """Text added to the end of a file this session writes piece by piece."""


@dataclass(frozen=True, slots=True)
class MarkdownPart:
    """One page's worth of a session's Markdown, as the HTML stage needs it."""

    number: int
    """1-based page number."""
    total: int
    """How many pages the session has."""
    text: str
    """The Markdown of this page as the .md holds it (`markdown_of(blocks)`, plain Markdown); the first carries
    the title and the session's context."""
    own_files: frozenset[str]
    """Output paths of the files this session's Markdown links to (full tool outputs, media)."""
    path: str
    """Output path of the session's .md file."""
    anchors: frozenset[str] = frozenset()
    """The anchors on this page (links to them stay on it)."""
    blocks: tuple[Block, ...] = ()
    """The page as typed blocks, for the writers of other outputs (the HTML stage, which puts the theme's
    markup around them: `blocks.themed_markdown_of`)."""


@dataclass(frozen=True, slots=True)
class MarkdownOptions:
    """Choices that change the intermediate."""

    show_hidden: bool = False
    """Render system noise (meta entries, reminders, bookkeeping) instead of leaving it out."""
    repo_url: str = ""
    """The repository's web address (`--repo-url`): every commit's SHA links there, whatever remote the
    session's pushes named."""
