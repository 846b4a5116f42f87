"""Stage 5, markdown: each session -> one GitHub-flavoured Markdown document with front matter.

This is the intermediate the HTML stage renders, and a product of its own that reads well on GitHub and
in any Markdown editor. Structure we add (message wrappers, folded tool calls) is HTML that GitHub
renders; transcript text goes through `escape.prose` or `escape.fence` so it stays text.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from .. import urls
from ..interpret import PLAN_STARTED_SESSION
from ..model import (
    Archive,
    AssistantText,
    BashMode,
    Event,
    Media,
    Notice,
    Plan,
    Prompt,
    Session,
    SlashCommand,
    Thinking,
    ToolCall,
    Unknown,
    Unreadable,
)
from .escape import fence, html_text, inline_code, literal, prose
from ..text import strip_ansi
from .tools import ToolContext, json_block, render_tool

# Notices whose raw text is Claude Code's own bookkeeping, said for a reader instead.
NOTICE_WORDING = {"interrupt": "Interrupted by the user"}
MEDIA_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
                    "application/pdf": "pdf"}
PLAN_CONTENT_HOW = PLAN_STARTED_SESSION
CHECKLIST_TOOLS = frozenset({"TaskCreate", "TaskUpdate", "TodoWrite"})


@dataclass(frozen=True, slots=True)
class MarkdownPage:
    """One session as Markdown, plus the files it refers to."""

    key: str
    """Session key."""
    path: str
    """Output path of the .md file, relative to the output root."""
    text: str
    """The document: front matter and body."""
    parts: tuple[str, ...]
    """The body, split where the session's HTML pages break (`Session.page_starts`); the first part
    carries the title and the session's context."""
    attachments: Mapping[str, bytes]
    """Files that belong to this document alone (full tool outputs), by output path."""
    media: Mapping[str, bytes]
    """Images and PDFs it shows, by output path; named by content, so other documents may share them."""


@dataclass(frozen=True, slots=True)
class MarkdownOptions:
    """Choices that change the intermediate."""

    show_hidden: bool = False
    """Render system noise (meta entries, reminders, bookkeeping) instead of leaving it out."""


def render_session(session: Session, archive: Archive, options: MarkdownOptions = MarkdownOptions()) -> MarkdownPage:
    path = urls.session_markdown(session.key)
    renderer = _Renderer(session, archive, path, options)
    parts = renderer.parts()
    body = "\n".join(parts)
    text = front_matter(session, archive) + "\n" + body
    return MarkdownPage(session.key, path, text, parts, renderer.attachments, renderer.media)


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
        self.media: dict[str, bytes] = {}
        self.media_count = 0

    def link_to(self, key: str) -> str:
        return urls.relative(self.path, urls.session_markdown(key))

    def header(self) -> str:
        session, sessions = self.session, self.archive.sessions
        blocks = [f"# {literal(session.title)}"]
        if session.parent_key in sessions:
            parent = sessions[session.parent_key]
            anchor = f"#{session.parent_anchor}" if session.parent_anchor else ""
            blocks.append(f'<p class="context-line">Subagent run started from {self._link(parent, anchor, "this call")} '
                          f"in {self._link(parent)}.</p>")
        if session.continues_key in sessions:
            earlier = sessions[session.continues_key]
            shown = f" ({session.replayed} earlier entries are shown there)" if session.replayed else ""
            blocks.append(f'<p class="context-line">Continues {self._link(earlier)}{html_text(shown)}.</p>')
        if session.plan_source_key in sessions or session.role == "implementation" and session.previous_key:
            planning = sessions[session.plan_source_key or session.previous_key]
            if planning.first_prompt:
                quoted = "\n".join(("> " + line) if line else ">" for line in prose(planning.first_prompt).split("\n"))
                blocks.append(f'<p class="label">The original ask, in the planning session {self._link(planning)}</p>'
                              f"\n\n{quoted}")
        return "\n\n".join(blocks) + "\n"

    def parts(self) -> tuple[str, ...]:
        events = self.session.events
        starts = [s for s in self.session.page_starts if 0 <= s < len(events)] or [0]
        if starts[0] != 0:
            starts.insert(0, 0)
        bounds = list(zip(starts, starts[1:] + [len(events)]))
        parts = []
        for number, (start, end) in enumerate(bounds):
            blocks = [self.header()] if number == 0 else []
            blocks.extend(self._events(events[start:end]))
            parts.append("\n\n".join(blocks) + "\n")
        return tuple(parts)

    def _link(self, target: Session, anchor: str = "", text: str = "") -> str:
        """A link to another session's Markdown (the HTML stage points it at the page), as HTML so that it
        can sit inside our own structural elements."""
        href = self.link_to(target.key) + anchor
        return f'<a href="{html_text(href)}">{html_text(text or " ".join(target.title.split()))}</a>'

    def _visible(self, event: Event) -> bool:
        return self.options.show_hidden or not getattr(event, "hidden", False)

    def _events(self, events: tuple[Event, ...]) -> Iterator[str]:
        """Consecutive assistant events (text, thinking, tool calls) share one message block."""
        assistant_run: list[Event] = []
        for event in events:
            if not self._visible(event):
                continue
            if _in_reply(event):
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
            _meta_line("Claude", first.timestamp, model, anchor=f"m{first.anchor[1:]}"),  # type: ignore[union-attr]
        ]
        checklists = [i for i, e in enumerate(run) if isinstance(e, ToolCall) and e.name in CHECKLIST_TOOLS]
        for index, event in enumerate(run):
            if isinstance(event, AssistantText):
                parts.append(prose(event.text))
            elif isinstance(event, Thinking):
                parts.append(f'<details class="thinking" id="{event.anchor}">\n<summary>Thinking</summary>\n\n'
                             f"{prose(event.text)}\n\n</details>")
            elif isinstance(event, Plan):
                parts.append(self._plan(event))
            elif isinstance(event, ToolCall):
                # Of several task-list changes in a row, the list after the last one is shown open.
                is_last_change = index in checklists and (index + 1 not in checklists)
                tool = self._tool(event, open_checklist=is_last_change)
                if tool:
                    parts.append(tool)
        parts.append("</div>")
        return "\n\n".join(parts)

    def _plan(self, plan: Plan) -> str:
        status_class = {"approved": "ok", "rejected": "error"}.get(plan.status, "other")
        head = (f'<p class="plan-head"><span class="plan-label">Plan</span> '
                f'<span class="status {status_class}">{html_text(plan.status)}</span>'
                + (f' <span class="plan-how">{html_text(plan.how)}</span>' if plan.how else "") + "</p>")
        parts = [f'<div class="plan plan-{html_text(plan.status)}" id="{plan.anchor}">', head,
                 prose(plan.text) if plan.text.strip() else "*The plan is empty.*"]
        if plan.feedback:
            quoted = "\n".join(("> " + line) if line else ">" for line in prose(plan.feedback).split("\n"))
            parts.extend(['<p class="label">The user said</p>', quoted])
        parts.append("</div>")
        return "\n\n".join(parts)

    def _tool(self, call: ToolCall, open_checklist: bool = False) -> str:
        subagent = self.archive.sessions.get(call.subagent) if call.subagent else None
        context = ToolContext(
            cwd=self.session.cwd,
            subagent_link=self.link_to(subagent.key) if subagent else "",
            subagent_title=subagent.title if subagent else "",
            attach=self.attach,
        )
        view = render_tool(call, context)
        if view.quiet and not self.options.show_hidden:
            return ""
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
        summary += f' <span class="status {status_class}">{html_text(status)}</span>' + permalink(call.anchor)
        opened = " open" if view.open_by_default or open_checklist else ""
        body = "\n\n".join(view.body) if view.body else "*No input or output.*"
        media = self._media(call.result.images if call.result else ())
        if media:
            body += "\n\n" + media
        return f'<details class="{classes}" id="{call.anchor}"{opened}>\n<summary>{summary}</summary>\n\n{body}\n\n</details>'

    def attach(self, name: str, content: bytes) -> str:
        target = urls.attachment(self.session.key, name)
        self.attachments[target] = content
        return urls.relative(self.path, target)

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
                self.media[target] = media.data
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

    def _single(self, event: Event) -> str:
        hidden = " hidden-event" if getattr(event, "hidden", False) else ""
        if isinstance(event, Prompt):
            label = "You" + (f" · {event.label}" if event.label else "")
            parts = [f'<div class="msg user{hidden}" id="{event.anchor}">', _meta_line(label, event.timestamp, anchor=event.anchor)]
            if event.text.strip():
                parts.append(prose(event.text))
            media = self._media(event.images)
            if media:
                parts.append(media)
            parts.append("</div>")
            return "\n\n".join(parts)
        if isinstance(event, Plan):
            return self._plan(event)
        if isinstance(event, SlashCommand):
            line = f'<div class="command" id="{event.anchor}"><code>{html_text((event.name + " " + event.args).strip())}</code></div>'
            if event.output:
                line += (f'\n\n<details class="command-output">\n<summary>Output</summary>\n\n'
                         f"{fence(strip_ansi(event.output), 'text')}\n\n</details>")
            return line
        if isinstance(event, BashMode):
            output = "\n".join(part for part in (event.stdout, event.stderr) if part.strip())
            parts = [f'<div class="bash-mode" id="{event.anchor}">', _meta_line("You ran", event.timestamp, anchor=event.anchor),
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


def _in_reply(event: Event) -> bool:
    """Part of Claude's reply block. Plans Claude proposed sit in its reply; a plan the session was
    started with (`planContent`) stands on its own at the top."""
    if isinstance(event, Plan):
        return event.how != PLAN_CONTENT_HOW
    return isinstance(event, (AssistantText, Thinking, ToolCall))


def permalink(anchor: str) -> str:
    """A small link to this very message; anchors come from entry uuids, so they survive rebuilds."""
    return f'<a class="permalink" href="#{html_text(anchor)}" title="Link to this" aria-label="Link to this">#</a>'


def _meta_line(who: str, timestamp: str, model: str = "", anchor: str = "") -> str:
    parts = [f'<span class="who">{html_text(who)}</span>']
    if model:
        parts.append(f'<span class="model">{html_text(model)}</span>')
    if timestamp:
        parts.append(f'<time datetime="{html_text(timestamp)}">{html_text(time_of(timestamp))}</time>')
    if anchor:
        parts.append(permalink(anchor))
    return f'<p class="meta">{" ".join(parts)}</p>'
