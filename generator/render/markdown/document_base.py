"""What the parts of `SessionDocument` share: the state of the session being written, links to other
sessions, the files written beside the page (long texts, media), and the lines and blocks every part writes
(a message's meta line, a plan)."""

from __future__ import annotations

import hashlib
from typing import Callable, Iterable

from ...core import urls
from ...core.model import Archive, Event, Media, Plan, Session, ToolCall
from ...core.text import plain
from .gfm import facts, link, meta_line
from .blocks import Block, Group, Prose, Structure
from .contract import MarkdownOptions, MarkdownPart, Output
from .escape import html_text, inline_code, literal, prose, typed
from .markup import TranscriptMarkup
from .times import time_of
from .tools import INLINE_OUTPUT_LIMIT, previewed

MEDIA_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
                    "application/pdf": "pdf"}


class DocumentBase:
    """The state one session's document keeps while its events stream through (set by `SessionDocument`),
    and the writing its parts share."""

    session: Session
    archive: Archive
    options: MarkdownOptions
    output: Output
    on_part: Callable[[MarkdownPart], None] | None
    markup: TranscriptMarkup
    path: str
    """Output path of the session's .md file."""
    unwritten: str
    """The start of the .md not written yet (its front matter, until the first page is)."""
    own_files: set[str]
    media_count: int
    page_starts: set[int]
    total: int
    index: int
    page: int
    blocks: list[Block]
    """The current page's blocks."""
    anchors: set[str]
    assistant_run: list[Block]
    """Claude's reply being gathered: consecutive assistant events share one message block."""
    run_first: Event | None
    run_model: str
    waiting_checklist: ToolCall | None

    def link_to(self, key: str) -> str:
        return urls.relative(self.path, urls.session_markdown(key))

    def _link(self, target: Session, anchor: str = "", text: str = "") -> str:
        """A link to another session's Markdown (the HTML stage points it at the page), as HTML so that it
        can sit inside our own structural elements."""
        href = self.link_to(target.key) + anchor
        return f'<a href="{html_text(href)}">{html_text(text or " ".join(target.title.split()))}</a>'

    def _markdown_link(self, target: Session, anchor: str = "", text: str = "") -> str:
        """`_link` as the .md writes it: a Markdown link to the other session's .md."""
        return link(text or target.title, self.link_to(target.key) + anchor)

    def attach(self, name: str, content: bytes) -> str:
        target = urls.attachment(self.session.key, name)
        self.output.write(target, content)
        self.own_files.add(target)
        return urls.relative(self.path, target)

    def attach_pieces(self, name: str, pieces: Iterable[str]) -> tuple[str, int]:
        """A file beside the page written as its text comes: the link to it, and its size in bytes."""
        target = urls.attachment(self.session.key, name)
        self.output.append(target, b"")
        self.own_files.add(target)
        size = 0
        for piece in pieces:
            data = piece.encode("utf-8", "replace")
            self.output.append(target, data)
            size += len(data)
        return urls.relative(self.path, target), size

    def _media(self, files: tuple[Media, ...]) -> str:
        """Embedded images and PDFs become files named by their content (a file pasted twice is stored
        once); a file referred to by path or URL is shown as that reference, never read or fetched."""
        lines = []
        for media in files:
            # Numbered through the session, as Claude Code's "[Image #2]" in a prompt counts them.
            self.media_count += 1
            number = self.media_count
            extension = MEDIA_EXTENSIONS.get(media.media_type)
            kind = "PDF" if media.media_type == "application/pdf" else "Image"
            if media.data and extension:
                target = urls.media(hashlib.sha256(media.data).hexdigest()[:20] + "." + extension)
                self.output.write_shared(target, media.data)
                self.own_files.add(target)
                link = urls.relative(self.path, target)
                if kind == "PDF":
                    lines.append(f"[PDF document ({len(media.data) / 1024:,.0f} KB)]({link})")
                else:
                    lines.append(f"![Image {number}]({link})")
            else:
                where = inline_code(media.source) if media.source and not media.source.startswith("(") else (
                    literal(media.source or "not embedded"))
                lines.append(f"*{kind} {number}, not embedded: {where}*")
        return "\n\n".join(lines)

    def _shown_in_part(self, text: str, render: Callable[[str], list[Block]], name: str, whole: str) -> list[Block]:
        """Text over `INLINE_OUTPUT_LIMIT`: its start on the page, and all of it in a linked text file, as a
        long tool output is: no page gets heavy, nothing is cut."""
        if len(text) <= INLINE_OUTPUT_LIMIT:
            return render(text)
        preview, note = previewed(text, self.attach, name, whole)
        return [*render(preview), note]

    def _meta_line(self, who: str, timestamp: str, model: str = "", anchor: str = "") -> Structure:
        time = time_of(timestamp) if timestamp else ""
        return Structure(self.markup.event("meta", {"timestamp": timestamp, "time": time, "anchor": anchor},
                                           who=who, model=model), "meta", meta_line(who, time, model))

    def _plan(self, plan: Plan) -> list[Block]:
        status_class = {"approved": "ok", "rejected": "error"}.get(plan.status, "other")
        head = self.markup.event("plan-head", {"how": plan.how}, status=str(plan.status), status_class=status_class)
        body = _without_title(plan.text, self.session.title)
        parts: list[Block] = [Structure(head, "plan-head", facts("**Plan**", literal(plan.status), literal(plan.how))),
                              Prose(prose(body)) if body.strip() else Prose("*The plan is empty.*", "sessionsite")]
        if plan.feedback:
            quoted = "\n".join(("> " + line) if line else ">" for line in typed(plan.feedback).split("\n"))
            parts.extend([Structure(self.markup.event("user-said", {}), "label", "**The user said**"),
                          Prose(quoted, "person")])
        opening, closing = self.markup.event_wrapper("plan", {"anchor": plan.anchor},
                                                     status=str(plan.status))
        return [Group("plan", opening, tuple(parts), closing, plan.anchor, (("status", plan.status), ("how", plan.how)))]


def _without_title(plan_text: str, page_title: str) -> str:
    """A plan without its heading when that heading is the page's title already (a session named after
    the plan it carries out): the title is not shown twice."""
    text = plan_text.lstrip("\n")
    first, _, rest = text.partition("\n")
    if first.startswith("#") and " ".join(plain(first).split()) == " ".join(plain(page_title).split()):
        return rest
    return plan_text
