"""Stage 5, markdown: each session -> one GitHub-flavoured Markdown document with front matter.

The stage makes each page of a session as typed blocks (`blocks`), which the HTML stage renders with the
theme's markup around them, and writes them as the session's .md: plain GitHub-flavoured Markdown for
people, in an editor or on GitHub, holding none of the theme's HTML (`gfm` says how our own elements read
there; a folded tool call is a `<details>`, as GitHub folds). Transcript text goes through `escape.prose`,
`escape.fence` or `escape.literal`, so it stays text in both.

`SessionDocument` writes a session as its events stream by, in parts over the state they share
(`document_base`): the header (`header`, with `commits_made`), Claude's replies (`reply`) and the events
shown on their own (`single_events`); `front_matter` opens the .md, and `contract` says what the stage is
given and gives back.
"""

from __future__ import annotations

from typing import Callable

from ...core import urls
from ...core.model import Archive, Event, Prompt, Session, ToolCall
from ...stages.link import linked_event
from .blocks import Block, Fold, Group, markdown_of
from .commits_made import COMMITS_IN_HEADER, commit_stat, commits_list
from .contract import MarkdownOptions, MarkdownPart, Output
from .front_matter import front_matter
from .gfm import summary_text
from .header import HeaderWriter
from .markup import TranscriptMarkup, default_markup
from .reply import ReplyWriter, in_reply
from .single_events import SINGLE_EVENTS, SingleEventWriter, readable_words
from .times import time_of


LEFT_BRANCH_FOLD = "A branch the user left: they went back to before it and went on below"


class SessionDocument(HeaderWriter, ReplyWriter, SingleEventWriter):
    """Phase 2 for one session: its events arrive one at a time, as `interpret` streams them, and leave
    as Markdown. The .md file grows as they come; each time a page is full (`Session.page_starts`), its
    part goes to `on_part` (the HTML stage) and is let go. Files the session links to are written as soon
    as they appear, so a session of any length is rendered in the memory of one page."""

    def __init__(self, session: Session, archive: Archive, options: MarkdownOptions, output: Output,
                 on_part: Callable[[MarkdownPart], None] | None = None, markup: TranscriptMarkup | None = None):
        self.session = session
        self.markup = markup or default_markup()
        self.archive = archive
        self.options = options
        self.output = output
        self.on_part = on_part
        self.path = urls.session_markdown(session.key)
        self.own_files: set[str] = set()
        self.media_count = 0
        self.page_starts = set(session.page_starts[1:])
        self.total = max(1, len(session.page_starts))
        self.index = -1
        self.page = 1
        self.blocks: list[Block] = self.header()
        self.anchors: set[str] = set()
        self.assistant_run: list[Block] = []
        self.run_first: Event | None = None
        self.run_model = ""
        self.waiting_checklist: ToolCall | None = None
        self.branch_start: int | None = None
        """Where, in `blocks`, a branch the user left starts (while one is being written)."""
        self.branch_until = ""
        """The anchor of the notice where the conversation went on instead: the branch ends before it."""
        # Written with the first page's text: each append opens the file, and most sessions are one page.
        self.unwritten = front_matter(session, archive, options.repo_url) + "\n"

    def __call__(self, event: Event) -> None:
        self.index += 1
        if self.index in self.page_starts:
            self._end_page()
        self.anchors.add(event.anchor)
        self.anchors.add("m" + event.anchor[1:])
        event = linked_event(self.session, event)
        if not self._visible(event):
            return
        if self.branch_start is not None and event.anchor == self.branch_until:
            self._end_run()
            self._fold_branch()
            self.branch_start = None
        elif self.branch_start is None and isinstance(event, Prompt) and event.anchor in self.session.rewound:
            self._end_run()
            self.branch_start, self.branch_until = len(self.blocks), self.session.rewound[event.anchor]
        if in_reply(event):
            self._reply_event(event)
            return
        self._end_run()
        self.blocks.extend(self._single(event))

    def finish(self) -> None:
        self._end_page(last=True)

    def _fold_branch(self) -> None:
        """The blocks of a branch the user left, from `branch_start`, folded: read on demand, not in the way of
        the path the conversation took."""
        assert self.branch_start is not None
        inside = tuple(self.blocks[self.branch_start:])
        if inside:
            opening, closing = self.markup.event_wrapper("left-branch-fold", {"summary": LEFT_BRANCH_FOLD})
            self.blocks[self.branch_start:] = [Group("left-branch", opening, inside, closing,
                                                     fold=Fold(summary_text(LEFT_BRANCH_FOLD)))]

    def _end_page(self, last: bool = False) -> None:
        self._end_run()
        if self.branch_start is not None:  # a branch left across pages: each page folds its part
            self._fold_branch()
            self.branch_start = 0
        text = markdown_of(self.blocks) + "\n"
        self.output.append(self.path, self.unwritten + (text if last else text + "\n"))
        self.unwritten = ""
        if self.on_part is not None:
            self.on_part(MarkdownPart(self.page, self.total, text, frozenset(self.own_files), self.path,
                                      frozenset(self.anchors), tuple(self.blocks)))
        self.blocks = []
        self.anchors = set()
        self.page += 1

    def _visible(self, event: Event) -> bool:
        return self.options.show_hidden or not getattr(event, "hidden", False)


__all__ = ["COMMITS_IN_HEADER", "SINGLE_EVENTS", "MarkdownOptions", "MarkdownPart", "Output", "SessionDocument",
           "commit_stat", "commits_list", "front_matter", "readable_words", "time_of"]
