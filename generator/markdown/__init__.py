"""Stage 5, markdown: each session -> one GitHub-flavoured Markdown document with front matter.

This is the intermediate the HTML stage renders, and a product of its own that reads well on GitHub and
in any Markdown editor. Structure we add (message wrappers, folded tool calls) is HTML that GitHub
renders; transcript text goes through `escape.prose` or `escape.fence` so it stays text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from .. import urls
from ..model import (
    Archive,
    AssistantText,
    BashMode,
    Event,
    Image,
    Notice,
    Prompt,
    Session,
    SlashCommand,
    Thinking,
    ToolCall,
    Unknown,
    Unreadable,
)
from .escape import fence, html_text, prose
from ..text import strip_ansi
from .tools import ToolContext, json_block, render_tool

# Notices whose raw text is Claude Code's own bookkeeping, said for a reader instead.
NOTICE_WORDING = {"interrupt": "Interrupted by the user"}
IMAGE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


@dataclass(frozen=True, slots=True)
class MarkdownPage:
    """One session as Markdown, plus the files it refers to."""

    key: str
    """Session key."""
    path: str
    """Output path of the .md file, relative to the output root."""
    text: str
    """The document: front matter and body."""
    body: str
    """The body alone, for the HTML stage."""
    attachments: Mapping[str, bytes]
    """Files the document links to (pasted images), by output path."""


@dataclass(frozen=True, slots=True)
class MarkdownOptions:
    """Choices that change the intermediate."""

    show_hidden: bool = False
    """Render system noise (meta entries, reminders, bookkeeping) instead of leaving it out."""


def render_session(session: Session, archive: Archive, options: MarkdownOptions = MarkdownOptions()) -> MarkdownPage:
    path = urls.session_markdown(session.key)
    renderer = _Renderer(session, archive, path, options)
    body = renderer.body()
    text = front_matter(session, archive) + "\n" + body
    return MarkdownPage(session.key, path, text, body, renderer.attachments)


def front_matter(session: Session, archive: Archive) -> str:
    def link(key: str) -> str | None:
        return urls.relative(urls.session_markdown(session.key), urls.session_markdown(key)) if key else None

    fields: dict[str, Any] = {
        "id": session.session_id,
        "agent": session.agent_id or None,
        "title": session.title,
        "slug": session.slug or None,
        "project": session.project_dir,
        "cwd": session.cwd,
        "branch": session.git_branch or None,
        "models": list(session.models),
        "versions": list(session.versions),
        "started": session.started,
        "ended": session.ended,
        "previous": link(session.previous_key),
        "next": link(session.next_key),
        "parent": link(session.parent_key),
        "stats": {
            "prompts": session.prompt_count,
            "tool_calls": sum(1 for e in session.events if isinstance(e, ToolCall)),
            "input_tokens": session.usage.input_tokens,
            "output_tokens": session.usage.output_tokens,
            "cache_read_tokens": session.usage.cache_read_tokens,
        },
    }
    # JSON scalars are valid YAML, and json.dumps escapes anything that could end the block early.
    lines = ["---"]
    for name, value in fields.items():
        if value is None:
            continue
        if isinstance(value, dict):
            lines.append(f"{name}:")
            lines.extend(f"  {k}: {json.dumps(v, ensure_ascii=False)}" for k, v in value.items())
        else:
            lines.append(f"{name}: {json.dumps(value, ensure_ascii=False)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def time_of(timestamp: str) -> str:
    """`2026-10-01T10:32:05.123Z` -> `2026-10-01 10:32` (UTC, as written)."""
    if len(timestamp) >= 16 and timestamp[10] == "T":
        return f"{timestamp[:10]} {timestamp[11:16]}"
    return timestamp


class _Renderer:
    def __init__(self, session: Session, archive: Archive, path: str, options: MarkdownOptions):
        self.session = session
        self.archive = archive
        self.path = path
        self.options = options
        self.attachments: dict[str, bytes] = {}

    def link_to(self, key: str) -> str:
        return urls.relative(self.path, urls.session_markdown(key))

    def body(self) -> str:
        blocks = [f"# {prose(' '.join(self.session.title.split()))}"]
        if self.session.parent_key and self.session.parent_key in self.archive.sessions:
            parent = self.archive.sessions[self.session.parent_key]
            blocks.append(f"*Subagent of [{prose(' '.join(parent.title.split()))}]({self.link_to(parent.key)})*")
        blocks.extend(self._events())
        return "\n\n".join(blocks) + "\n"

    def _visible(self, event: Event) -> bool:
        return self.options.show_hidden or not getattr(event, "hidden", False)

    def _events(self) -> Iterator[str]:
        """Consecutive assistant events (text, thinking, tool calls) share one message block."""
        assistant_run: list[Event] = []
        for event in self.session.events:
            if not self._visible(event):
                continue
            if isinstance(event, (AssistantText, Thinking, ToolCall)):
                assistant_run.append(event)
                continue
            if assistant_run:
                yield self._assistant(assistant_run)
                assistant_run = []
            yield self._single(event)
        if assistant_run:
            yield self._assistant(assistant_run)

    def _assistant(self, run: list[Event]) -> str:
        first = run[0]
        model = next((e.model for e in run if isinstance(e, AssistantText) and e.model), "")
        parts = [
            # The wrapper gets its own id: the first event inside it keeps the anchor it is linked by.
            f'<div class="msg assistant" id="m{first.anchor[1:]}">',  # type: ignore[union-attr]
            _meta_line("Claude", first.timestamp, model),  # type: ignore[union-attr]
        ]
        for event in run:
            if isinstance(event, AssistantText):
                parts.append(prose(event.text))
            elif isinstance(event, Thinking):
                parts.append(f'<details class="thinking" id="{event.anchor}">\n<summary>Thinking</summary>\n\n'
                             f"{prose(event.text)}\n\n</details>")
            elif isinstance(event, ToolCall):
                parts.append(self._tool(event))
        parts.append("</div>")
        return "\n\n".join(parts)

    def _tool(self, call: ToolCall) -> str:
        subagent = self.archive.sessions.get(call.subagent) if call.subagent else None
        context = ToolContext(
            cwd=self.session.cwd,
            subagent_link=self.link_to(subagent.key) if subagent else "",
            subagent_title=subagent.title if subagent else "",
            attach=self.attach,
        )
        view = render_tool(call, context)
        if view.status:
            status = view.status
        elif call.result is None:
            status = "no result"
        else:
            status = "error" if call.result.is_error else "ok"
        status_class = {"ok": "ok", "error": "error"}.get(status, "other")
        classes = " ".join(("tool", *view.classes))
        summary = f'<span class="tool-name">{html_text(view.label)}</span>'
        if view.target:
            summary += f" <code>{html_text(view.target)}</code>"
        summary += f' <span class="status {status_class}">{html_text(status)}</span>'
        opened = " open" if view.open_by_default else ""
        body = "\n\n".join(view.body) if view.body else "*No input or output.*"
        images = self._images(call.result.images if call.result else (), call.anchor)
        if images:
            body += "\n\n" + images
        return f'<details class="{classes}" id="{call.anchor}"{opened}>\n<summary>{summary}</summary>\n\n{body}\n\n</details>'

    def attach(self, name: str, content: bytes) -> str:
        target = urls.attachment(self.session.key, name)
        self.attachments[target] = content
        return urls.relative(self.path, target)

    def _images(self, images: tuple[Image, ...], anchor: str) -> str:
        lines = []
        for number, image in enumerate(images, start=1):
            extension = IMAGE_EXTENSIONS.get(image.media_type)
            if image.data and extension:
                link = self.attach(f"{anchor}-{number}.{extension}", image.data)
                lines.append(f"![Image {number}]({link})")
            else:
                lines.append(f"*Image {number}: {prose(image.source or image.media_type or 'not embedded')}*")
        return "\n\n".join(lines)

    def _single(self, event: Event) -> str:
        hidden = " hidden-event" if getattr(event, "hidden", False) else ""
        if isinstance(event, Prompt):
            label = "You" + (f" · {event.label}" if event.label else "")
            parts = [f'<div class="msg user{hidden}" id="{event.anchor}">', _meta_line(label, event.timestamp)]
            if event.text.strip():
                parts.append(prose(event.text))
            images = self._images(event.images, event.anchor)
            if images:
                parts.append(images)
            parts.append("</div>")
            return "\n\n".join(parts)
        if isinstance(event, SlashCommand):
            line = f'<div class="command" id="{event.anchor}"><code>{html_text((event.name + " " + event.args).strip())}</code></div>'
            if event.output:
                line += (f'\n\n<details class="command-output">\n<summary>Output</summary>\n\n'
                         f"{fence(strip_ansi(event.output), 'text')}\n\n</details>")
            return line
        if isinstance(event, BashMode):
            output = "\n".join(part for part in (event.stdout, event.stderr) if part.strip())
            parts = [f'<div class="bash-mode" id="{event.anchor}">', _meta_line("You ran", event.timestamp),
                     fence(event.command, "bash")]
            if output.strip():
                parts.append(fence(strip_ansi(output), "text"))
            parts.append("</div>")
            return "\n\n".join(parts)
        if isinstance(event, Notice):
            if event.kind == "continuation":
                return (f'<details class="notice-block{hidden}" id="{event.anchor}">\n<summary>Continued from an '
                        f"earlier conversation (summary)</summary>\n\n{prose(event.text)}\n\n</details>")
            text = NOTICE_WORDING.get(event.kind) or " ".join(strip_ansi(event.text).split()) or event.kind
            return f'<div class="notice notice-{event.kind}{hidden}" id="{event.anchor}">{html_text(text)}</div>'
        if isinstance(event, Unknown):
            return (f'<details class="unknown" id="{event.anchor}">\n<summary>Unrecognised entry '
                    f"<code>{html_text(event.name)}</code></summary>\n\n{json_block(event.raw)}\n\n</details>")
        if isinstance(event, Unreadable):
            return (f'<details class="unreadable" id="{event.anchor}">\n<summary>Line {event.line} could not be '
                    f"read: {html_text(event.reason)}</summary>\n\n{fence(event.text, 'text')}\n\n</details>")
        raise TypeError(f"no Markdown for {type(event).__name__}")


def _meta_line(who: str, timestamp: str, model: str = "") -> str:
    parts = [f'<span class="who">{html_text(who)}</span>']
    if model:
        parts.append(f'<span class="model">{html_text(model)}</span>')
    if timestamp:
        parts.append(f'<time datetime="{html_text(timestamp)}">{html_text(time_of(timestamp))}</time>')
    return f'<p class="meta">{" ".join(parts)}</p>'
