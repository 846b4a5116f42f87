"""Stage 5, markdown: each session -> one GitHub-flavoured Markdown document with front matter.

The stage makes each page of a session as typed blocks (`blocks`), which the HTML stage renders with the
theme's markup around them, and writes them as the session's .md: plain GitHub-flavoured Markdown for
people, in an editor or on GitHub, holding none of the theme's HTML (`gfm` says how our own elements read
there; a folded tool call is a `<details>`, as GitHub folds). Transcript text goes through `escape.prose`,
`escape.fence` or `escape.literal`, so it stays text in both.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Protocol

from ...core import urls
from ...core.registry import Registry
from ...stages.commits import commit_url
from ...core.model import (
    NoticeKind,
    PlanDecision,
    Archive,
    AssistantText,
    BashMode,
    Commit,
    Event,
    EventBase,
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
    as_unknown,
)
from ...core.text import plain, strip_ansi
from ...stages.link import linked_event
from . import gfm
from .blocks import Block, Code, Fold, Group, Prose, Structure, blocks_of, markdown_of, typed_blocks
from .escape import html_text, inline_code, literal, prose, typed
from .markup import TranscriptMarkup, default_markup
from .pasted import looks_pasted
from .tools import INLINE_OUTPUT_LIMIT, ToolContext, json_block, previewed, render_tool

# Notices whose raw text is Claude Code's own bookkeeping, said for a reader instead.
NOTICE_WORDING: dict[str, str] = {NoticeKind.INTERRUPT: "Interrupted by the user"}
MEDIA_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
                    "application/pdf": "pdf"}
TEXT_DOCUMENT = "text/plain"
"""The media type of a text file attached to a prompt, which `interpret` keeps as its text."""
CHECKLIST_TOOLS = frozenset({"TaskCreate", "TaskUpdate", "TodoWrite"})


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


def front_matter(session: Session, archive: Archive, repo_url: str = "") -> str:
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
        "commits": [_commit_facts(commit, repo_url) for commit in session.commits] or None,
        "stats": {
            "prompts": session.prompt_count,
            "tool_calls": session.tool_call_count,
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
            lines.extend(f"  {k}: {_yaml_scalar(v)}" for k, v in value.items())
        else:
            lines.append(f"{name}: {_yaml_scalar(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _yaml_scalar(value: Any) -> str:
    """A value as JSON, which YAML reads too. A renderer that does not know front matter shows it as
    Markdown, so a `<` or an image's `![` in it is written as the escape YAML reads back as that character:
    no title makes an element or an image there."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace("![", "\\u0021[")


def _commit_facts(commit: Commit, repo_url: str) -> dict[str, Any]:
    facts: dict[str, Any] = {"sha": commit.sha, "branch": commit.branch, "subject": commit.subject,
                             "time": commit.timestamp}
    url = commit_url(repo_url or commit.forge, commit.sha)
    if url:
        facts["url"] = url
    return facts


# The session's header lists this many commits; all of them are on the project's commits page.
COMMITS_IN_HEADER = 20


def commit_stat(commit: Commit) -> str:
    """`3 files +10 −2`, from git's stat line; "" when git printed none."""
    if commit.files_changed < 0:
        return ""
    # As git prints it: a count of zero lines added or removed is left out.
    parts = [f"{commit.files_changed} file{'s' if commit.files_changed != 1 else ''}"]
    parts += [f"+{commit.insertions}"] if commit.insertions else []
    parts += [f"\u2212{commit.deletions}"] if commit.deletions else []
    return " ".join(parts)


def commits_list(session: Session, repo_url: str, markup: TranscriptMarkup) -> Structure | None:
    """The commits a session made, as one block (the page's HTML in one piece, so that Markdown keeps it
    whole; a list in the .md): each SHA links to the forge when its address is known, each subject to the
    call that made the commit."""
    if not session.commits:
        return None
    shown = session.commits[:COMMITS_IN_HEADER]
    urls_of = [commit_url(repo_url or commit.forge, commit.sha) for commit in shown]
    labels_of = [[label for label in ("root commit" if commit.root else "", "amended" if commit.amend else "",
                                      commit_stat(commit)) if label] for commit in shown]
    commits = [{"url": url, "sha": commit.sha, "anchor": commit.anchor, "subject": commit.subject,
                "branch": commit.branch, "time": time_of(commit.timestamp), "labels": labels}
               for commit, url, labels in zip(shown, urls_of, labels_of, strict=True)]
    count, more = len(session.commits), len(session.commits) - COMMITS_IN_HEADER
    items = []
    for commit, url, labels in zip(shown, urls_of, labels_of, strict=True):
        sha = inline_code(commit.sha)
        subject = commit.subject or "(no subject)"
        items.append("- " + " ".join((
            f"[{sha}]({gfm.destination(url)})" if url else sha,
            gfm.link(subject, "#" + commit.anchor) if commit.anchor else literal(subject),
            gfm.facts(inline_code(commit.branch), literal(time_of(commit.timestamp)), *map(literal, labels)))))
    if more > 0:
        items.append(f"- and {more} more (the project's commits page lists them all)")
    text = gfm.bold(f"{count} commit{'s' if count != 1 else ''} made in this session") + "\n\n" + "\n".join(items)
    return Structure(markup.element(markup.template("events/commits-made.html"), commits=commits, count=count,
                                    more=more), "commits", text)


def time_of(timestamp: str) -> str:
    """`2026-10-01T10:32:05.123Z` -> `2026-10-01 10:32` (UTC, as written)."""
    if len(timestamp) >= 16 and timestamp[10] == "T":
        return f"{timestamp[:10]} {timestamp[11:16]}"
    return timestamp


SINGLE_EVENTS: Registry[type, Callable[[Any, Any], list[Block]]] = Registry("Markdown writers of events")
"""By the type of an event shown on its own (not part of Claude's reply): its blocks, from
`SessionDocument`'s method registered for it."""


@SINGLE_EVENTS.fallback
def _as_unknown_entry(document: SessionDocument, event: EventBase) -> list[Block]:
    """An event of a kind no writer was registered for: shown as an unknown entry is."""
    return SINGLE_EVENTS.lookup(Unknown)(document, as_unknown(event))


class SessionDocument:
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
        self.output.append(self.path, front_matter(session, archive, options.repo_url) + "\n")

    def __call__(self, event: Event) -> None:
        self.index += 1
        if self.index in self.page_starts:
            self._end_page()
        self.anchors.add(event.anchor)
        self.anchors.add("m" + event.anchor[1:])
        event = linked_event(self.session, event)
        if not self._visible(event):
            return
        if _in_reply(event):
            self._reply_event(event)
            return
        self._end_run()
        self.blocks.extend(self._single(event))

    def finish(self) -> None:
        self._end_page(last=True)

    def _end_page(self, last: bool = False) -> None:
        self._end_run()
        text = markdown_of(self.blocks) + "\n"
        self.output.append(self.path, text if last else text + "\n")
        if self.on_part is not None:
            self.on_part(MarkdownPart(self.page, self.total, text, frozenset(self.own_files), self.path,
                                      frozenset(self.anchors), tuple(self.blocks)))
        self.blocks = []
        self.anchors = set()
        self.page += 1

    def link_to(self, key: str) -> str:
        return urls.relative(self.path, urls.session_markdown(key))

    def header(self) -> list[Block]:
        session, sessions = self.session, self.archive.sessions
        blocks: list[Block] = [Prose(f"# {literal(session.title)}", "sessionsite")]
        if session.parent_key in sessions:
            parent = sessions[session.parent_key]
            anchor = f"#{session.parent_anchor}" if session.parent_anchor else ""
            links = {"call": self._link(parent, anchor, "this call"), "parent": self._link(parent)}
            text = (f"Subagent run started from {self._markdown_link(parent, anchor, 'this call')} in "
                    f"{self._markdown_link(parent)}.")
            blocks.append(Structure(self._header_element("events/context-line.html", links, kind="subagent"), "context",
                                    text))
        if session.continues_key in sessions:
            earlier = sessions[session.continues_key]
            replayed = f" ({session.replayed} earlier entries are shown there)" if session.replayed else ""
            blocks.append(Structure(self._header_element("events/context-line.html", {"earlier": self._link(earlier)},
                                                         kind="continues", replayed=session.replayed), "context",
                                    f"Continues {self._markdown_link(earlier)}{replayed}."))
        if session.plan_source_key in sessions or session.role == "implementation" and session.previous_key:
            planning = sessions[session.plan_source_key or session.previous_key]
            if planning.first_prompt:
                quoted = "\n".join(("> " + line) if line else ">" for line in typed(planning.first_prompt).split("\n"))
                blocks.append(Structure(self._header_element("events/original-ask.html",
                                                             {"planning": self._link(planning)}), "label",
                                        f"**The original ask, in the planning session {self._markdown_link(planning)}**"))
                blocks.append(Prose(quoted, "person"))
        commits = commits_list(session, self.options.repo_url, self.markup)
        if commits is not None:
            blocks.append(commits)
        # The header ends in a line break of its own: a wider gap before the first message, as always.
        last = blocks[-1]
        assert isinstance(last, (Prose, Structure))  # a header holds nothing else
        blocks[-1] = (Prose(last.text + "\n", last.by) if isinstance(last, Prose)
                      else Structure(last.html + "\n", last.kind, last.text + "\n" if last.text else ""))
        return blocks

    def _header_element(self, template: str, links: dict[str, str], **context: Any) -> str:
        """One of the lines at the top of a session (once a page: rendered whole); `links`: ours (`_link`)."""
        import markupsafe

        ours = {name: markupsafe.Markup(link) for name, link in links.items()}  # noqa: S704 - made by _link, escaped
        return self.markup.element(self.markup.template(template), **context, **ours)

    def _link(self, target: Session, anchor: str = "", text: str = "") -> str:
        """A link to another session's Markdown (the HTML stage points it at the page), as HTML so that it
        can sit inside our own structural elements."""
        href = self.link_to(target.key) + anchor
        return f'<a href="{html_text(href)}">{html_text(text or " ".join(target.title.split()))}</a>'

    def _markdown_link(self, target: Session, anchor: str = "", text: str = "") -> str:
        """`_link` as the .md writes it: a Markdown link to the other session's .md."""
        return gfm.link(text or target.title, self.link_to(target.key) + anchor)

    def _visible(self, event: Event) -> bool:
        return self.options.show_hidden or not getattr(event, "hidden", False)

    def _reply_event(self, event: Event) -> None:
        """Consecutive assistant events (text, thinking, tool calls) share one message block. Of several
        task-list changes in a row, the list after the last one is shown open: a change waits for the
        next event to know."""
        if self.run_first is None:
            self.run_first = event
        if isinstance(event, AssistantText) and event.model and not self.run_model:
            self.run_model = event.model
        is_checklist = isinstance(event, ToolCall) and event.name in CHECKLIST_TOOLS
        if self.waiting_checklist is not None:
            self._add_to_run(*self._tool(self.waiting_checklist, open_checklist=not is_checklist))
            self.waiting_checklist = None
        if is_checklist:
            assert isinstance(event, ToolCall)
            self.waiting_checklist = event
            return
        if isinstance(event, AssistantText):
            self._add_to_run(*self._reply_text(event))
        elif isinstance(event, Thinking) and not event.text.strip():
            self._add_to_run(Structure(self.markup.event("thinking-not-kept", {"anchor": event.anchor}), "thinking",
                                       "*Thought here (the text of its thinking was not kept)*"))
        elif isinstance(event, Thinking):
            opening, closing = self.markup.event_wrapper("thinking", {"anchor": event.anchor})
            self._add_to_run(Group("thinking", opening, (Prose(prose(event.text)),), closing, event.anchor,
                                   fold=Fold(gfm.summary_text("Thinking"))))
        elif isinstance(event, Plan):
            self._add_to_run(*self._plan(event))
        elif isinstance(event, ToolCall):
            self._add_to_run(*self._tool(event))

    def _add_to_run(self, *blocks: Block) -> None:
        self.assistant_run.extend(blocks)

    def _end_run(self) -> None:
        if self.waiting_checklist is not None:
            self._add_to_run(*self._tool(self.waiting_checklist, open_checklist=True))
            self.waiting_checklist = None
        first = self.run_first
        if first is None:
            return
        # The wrapper gets its own id: the first event inside it keeps the anchor it is linked by.
        wrapper_id = f"m{first.anchor[1:]}"
        timestamp = getattr(first, "timestamp", "")
        opening, closing = self.markup.event_wrapper("message", {"anchor": wrapper_id}, who="Claude",
                                                     model=self.run_model)
        self.blocks.append(Group(
            "message", opening,
            (self._meta_line("Claude", timestamp, self.run_model, anchor=wrapper_id), *self.assistant_run),
            closing, wrapper_id, (("who", "Claude"), ("time", timestamp), ("model", self.run_model)),
        ))
        self.assistant_run = []
        self.run_first = None
        self.run_model = ""

    def _plan(self, plan: Plan) -> list[Block]:
        status_class = {"approved": "ok", "rejected": "error"}.get(plan.status, "other")
        head = self.markup.event("plan-head", {"how": plan.how}, status=str(plan.status), status_class=status_class)
        body = _without_title(plan.text, self.session.title)
        parts: list[Block] = [Structure(head, "plan-head", gfm.facts("**Plan**", literal(plan.status), literal(plan.how))),
                              Prose(prose(body)) if body.strip() else Prose("*The plan is empty.*", "sessionsite")]
        if plan.feedback:
            quoted = "\n".join(("> " + line) if line else ">" for line in typed(plan.feedback).split("\n"))
            parts.extend([Structure(self.markup.event("user-said", {}), "label", "**The user said**"),
                          Prose(quoted, "person")])
        opening, closing = self.markup.event_wrapper("plan", {"anchor": plan.anchor},
                                                     status=str(plan.status))
        return [Group("plan", opening, tuple(parts), closing, plan.anchor, (("status", plan.status), ("how", plan.how)))]

    def _tool(self, call: ToolCall, open_checklist: bool = False) -> list[Block]:
        subagent = self.archive.sessions.get(call.subagent) if call.subagent else None
        context = ToolContext(
            cwd=self.session.cwd,
            subagent_link=self.link_to(subagent.key) if subagent else "",
            subagent_title=subagent.title if subagent else "",
            attach=self.attach,
        )
        view = render_tool(call, context)
        if view.quiet and not self.options.show_hidden:
            return []
        if view.status:
            status = view.status
        elif call.result is None:
            status = "no result"
        else:
            status = "error" if call.result.is_error else "ok"
        body = blocks_of(view.body) if view.body else [Prose("*No input or output.*", "sessionsite")]
        media = self._media(call.result.images if call.result else ())
        if media:
            body.append(Prose(media, "sessionsite"))
        # A call shown only by --show-hidden is marked (`hidden`), so that the page's filter can hide it again.
        opening, closing = self.markup.stamp_wrapper(
            self.markup.rule("tools", call.name, "_default"), {"anchor": call.anchor, "target": view.target},
            {"call": call}, label=view.label, status=status,
            status_class={"ok": "ok", "error": "error"}.get(status, "other"), classes=" ".join(("tool", *view.classes)),
            open=view.open_by_default or open_checklist, hidden=view.quiet)
        return [Group("tool", opening, tuple(body), closing, call.anchor,
                      (("label", view.label), ("target", view.target), ("status", status),
                       ("target-is", "path" if view.target_is_path else "")),
                      Fold(gfm.summary(view.label, view.target, status), view.open_by_default or open_checklist,
                           call.anchor))]

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

    def _single(self, event: Event) -> list[Block]:
        return SINGLE_EVENTS.lookup(type(event))(self, event)

    @SINGLE_EVENTS.register(Prompt)
    def _prompt_event(self, event: Prompt) -> list[Block]:
        hidden = " hidden-event" if getattr(event, "hidden", False) else ""
        parts: list[Block]
        opening, closing = self.markup.event_wrapper("prompt", {"anchor": event.anchor}, task=event.by_agent,
                                                     hidden=bool(hidden))
        if event.by_agent:
            label = "Task"
            parts = [self._task_line(event)]
        else:
            label = "You" + (f" · {event.label}" if event.label else "")
            parts = [self._meta_line(label, event.timestamp, anchor=event.anchor)]
        if event.text.strip():
            parts.extend(self._prompt_text(event))
        documents = [media for media in event.images if media.media_type == TEXT_DOCUMENT]
        for number, document in enumerate(documents, start=1):
            parts.extend(self._document(event, document, number))
        media = self._media(tuple(media for media in event.images if media.media_type != TEXT_DOCUMENT))
        if media:
            parts.append(Prose(media, "sessionsite"))
        return [Group("prompt", opening, tuple(parts), closing, event.anchor,
                      (("who", label), ("time", event.timestamp)))]

    @SINGLE_EVENTS.register(Plan)
    def _plan_event(self, event: Plan) -> list[Block]:
        return self._plan(event)

    @SINGLE_EVENTS.register(SlashCommand)
    def _slash_command_event(self, event: SlashCommand) -> list[Block]:
        command = (event.name + " " + event.args).strip()
        line: list[Block] = [Structure(self.markup.event("command", {"anchor": event.anchor, "command": command}),
                                       "command", inline_code(command))]
        if event.output:
            # The anchor is the command's, just above: the output has no id of its own.
            opening, closing = self.markup.event_wrapper("command-output", {})
            line.append(Group("command-output", opening, (Code(strip_ansi(event.output), "text", kind="output"),),
                              closing, event.anchor, (("command", command),), Fold(gfm.summary_text("Output"))))
        return line

    @SINGLE_EVENTS.register(BashMode)
    def _bash_mode_event(self, event: BashMode) -> list[Block]:
        output = "\n".join(part for part in (event.stdout, event.stderr) if part.strip())
        parts: list[Block] = [self._meta_line("You ran", event.timestamp, anchor=event.anchor),
                              Code(event.command, "bash", kind="command")]
        if output.strip():
            parts.append(Code(strip_ansi(output), "text", kind="output"))
        opening, closing = self.markup.event_wrapper("bash-mode", {"anchor": event.anchor})
        return [Group("bash-mode", opening, tuple(parts), closing, event.anchor,
                      (("who", "You ran"), ("time", event.timestamp)))]

    @SINGLE_EVENTS.register(Notice)
    def _notice_event(self, event: Notice) -> list[Block]:
        hidden = " hidden-event" if getattr(event, "hidden", False) else ""
        if event.kind == NoticeKind.CONTINUATION:
            opening, closing = self.markup.event_wrapper("continuation", {"anchor": event.anchor},
                                                         hidden=bool(hidden))
            return [Group("notice", opening, (Prose(prose(event.text)),), closing, event.anchor,
                          fold=Fold(gfm.summary_text("Continued from an earlier conversation (summary)")))]
        text = NOTICE_WORDING.get(event.kind) or " ".join(strip_ansi(event.text).split()) or event.kind
        report = next((value for name, value in event.details if name == "result" and value.strip()), "")
        if report:
            # A background task's final report is Markdown Claude wrote: shown as such, under the notice.
            notice = replace(event, details=tuple(item for item in event.details if item[0] != "result"))
            opening, closing = self.markup.event_wrapper("notice-result", {}, hidden=bool(hidden))
            return [Group("notice", opening, (self._notice(notice, text, hidden),
                                              *self._shown_in_part(report, lambda shown: [Prose(prose(shown))],
                                                                   f"{event.anchor}-result.txt", "The whole result")),
                          closing, event.anchor)]
        return [self._notice(event, text, hidden)]

    @SINGLE_EVENTS.register(Unknown)
    def _unknown_event(self, event: Unknown) -> list[Block]:
        if event.name.startswith("part:"):
            # A part of a message is conversation: its words come first, its JSON after.
            opening, closing = self.markup.event_wrapper("unknown", {"anchor": event.anchor,
                                                                     "name": event.name[len("part:"):]}, part=True)
            words = readable_words(event.raw)
            body: tuple[Block, ...] = ((Prose(prose(words)),) if words else ()) + (json_block(event.raw),)
            fold = Fold(gfm.summary_text("A message part of a kind new to sessionsite:", event.name[len("part:"):]),
                        open=True)
            return [Group("unknown", opening, body, closing, event.anchor, fold=fold)]
        opening, closing = self.markup.event_wrapper("unknown", {"anchor": event.anchor, "name": event.name},
                                                     part=False)
        return [Group("unknown", opening, (json_block(event.raw),), closing, event.anchor,
                      fold=Fold(gfm.summary_text("Unrecognised entry", event.name)))]

    @SINGLE_EVENTS.register(Unreadable)
    def _unreadable_event(self, event: Unreadable) -> list[Block]:
        shown, note = event.text, []
        if event.whole is not None:  # too long to read whole: copied a piece at a time
            shown = shown[:INLINE_OUTPUT_LIMIT]
            link, size = self.attach_pieces(f"{event.anchor}.txt", event.whole())
            note = [Prose(f"[The whole line]({link}) ({size / (1 << 20):,.1f} MB; its first {len(shown):,} "
                          f"characters are shown here)", "sessionsite")]
        elif len(shown) > INLINE_OUTPUT_LIMIT:  # a broken line of any size: its start, and the whole in a file
            whole = event.text.encode("utf-8")
            shown = shown[:INLINE_OUTPUT_LIMIT]
            note = [Prose(f"[The whole line]({self.attach(f'{event.anchor}.txt', whole)}) ({len(whole) / 1024:,.0f} KB; "
                          f"its first {INLINE_OUTPUT_LIMIT:,} characters are shown here)", "sessionsite")]
        opening, closing = self.markup.event_wrapper("unreadable", {"anchor": event.anchor, "line": str(event.line),
                                                                    "reason": event.reason})
        fold = Fold(gfm.summary_text(f"Line {event.line} could not be read: {event.reason}"))
        return [Group("unreadable", opening, (Code(shown, "text", kind="output"), *note), closing, event.anchor,
                      fold=fold)]



    def _prompt_text(self, prompt: Prompt) -> list[Block]:
        """A person's prompt reads as typed; an agent's task is Markdown, as Claude wrote it. A prompt that
        is a pasted log or code by its shape is shown preformatted, as a tool output is. A very long one
        shows its start, and the whole of it goes to a text file beside the page."""
        pasted = not prompt.by_agent and looks_pasted(prompt.text)

        def render(text: str) -> list[Block]:
            if pasted:
                return [Code(text.strip("\n"), "text", kind="pasted")]
            return [Prose(prose(text))] if prompt.by_agent else typed_blocks(text)

        return self._shown_in_part(prompt.text, render, f"{prompt.anchor}-prompt.txt", "The whole prompt")

    def _document(self, prompt: Prompt, document: Media, number: int) -> list[Block]:
        """A text file attached to the prompt, shown as it is under a label naming it; a long one shows its
        start and links the whole."""
        label = Structure(self.markup.event("document-label", {"name": document.source}), "label",
                          f"**Attached document:** {inline_code(document.source)}" if document.source.strip()
                          else "**Attached document**")
        text = document.data.decode("utf-8", "replace")
        return [label, *self._shown_in_part(text, lambda shown: [Code(shown.strip("\n"), "text", kind="pasted")],
                                            f"{prompt.anchor}-document-{number}.txt", "The whole document")]

    def _reply_text(self, reply: AssistantText) -> list[Block]:
        """Claude's text, as Markdown; a very long one shows its start and links the whole."""
        if not reply.text:
            return []  # adds nothing, not even the blank line around it
        return self._shown_in_part(reply.text, lambda text: [Prose(prose(text))], f"{reply.anchor}-reply.txt",
                                   "The whole reply")

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
                                           who=who, model=model), "meta", gfm.meta_line(who, time, model))

    def _task_line(self, prompt: Prompt) -> Structure:
        """The meta line of a subagent's task: who wrote it (the agent of the calling session), with a link
        to the call that started the run."""
        parent = self.archive.sessions.get(self.session.parent_key)
        call = markdown_call = ""
        if parent is not None:
            anchor = f"#{self.session.parent_anchor}" if self.session.parent_anchor else ""
            call = self._link(parent, anchor, "its call" if anchor else "the calling session")
            markdown_call = self._markdown_link(parent, anchor, "its call" if anchor else "the calling session")
        import markupsafe

        time = time_of(prompt.timestamp) if prompt.timestamp else ""
        # Once a subagent run: rendered whole, the link (ours, escaped) given as markup.
        html = self.markup.element(self.markup.template("events/task-meta.html"), call=markupsafe.Markup(call),  # noqa: S704
                                   timestamp=prompt.timestamp, time=time, anchor=prompt.anchor)
        return Structure(html, "meta", gfm.facts("**Task** from the calling agent", markdown_call, literal(time)))

    def _notice(self, notice: Notice, text: str, hidden: str) -> Structure:
        """A one-line notice, or a message Claude Code wrote into the conversation (a background task
        ended): what it says, its facts, and a link to the call it is about."""
        # The outcome first: it is what a reader looks for.
        details = sorted(notice.details, key=lambda item: item[0] != "status")
        facts = [(name.replace("-", " ").capitalize(), " ".join(value.split())) for name, value in details]
        system_message = bool(notice.details or notice.related)
        html = self.markup.element(self.markup.rule("events", f"notice-{notice.kind}", "notice"), notice=notice,
                                   kind=notice.kind, anchor=notice.anchor, hidden=hidden, text=text, facts=facts,
                                   related=notice.related, system_message=system_message)
        markdown = gfm.facts("**Claude Code**" if system_message else "", gfm.emphasis(text),
                             *(f"{literal(name)} {inline_code(value)}".rstrip() for name, value in facts),
                             gfm.link("the call that started it", "#" + notice.related) if notice.related else "")
        return Structure(html, "notice", markdown)


def _without_title(plan_text: str, page_title: str) -> str:
    """A plan without its heading when that heading is the page's title already (a session named after
    the plan it carries out): the title is not shown twice."""
    text = plan_text.lstrip("\n")
    first, _, rest = text.partition("\n")
    if first.startswith("#") and " ".join(plain(first).split()) == " ".join(plain(page_title).split()):
        return rest
    return plan_text


READABLE_KEYS = ("title", "text", "content", "summary", "thinking", "message")


def readable_words(value: Any, depth: int = 0) -> str:
    """The text a content part of a new kind carries for a person: its strings under the usual names
    (a few levels down, in order), not its ids or types."""
    if depth > 3:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n\n".join(words for item in value[:50] if (words := readable_words(item, depth + 1)))
    if isinstance(value, dict):
        # The usual names' strings, then whatever the other lists and objects hold (never a bare id).
        named = [value[key] for key in READABLE_KEYS if key in value]
        nested = [inner for key, inner in value.items() if key not in READABLE_KEYS and isinstance(inner, (list, dict))]
        return "\n\n".join(words for inner in named + nested if (words := readable_words(inner, depth + 1)))
    return ""


def _in_reply(event: Event) -> bool:
    """Part of Claude's reply block. Plans Claude proposed sit in its reply; a plan the session was
    started with (`planContent`) stands on its own at the top."""
    if isinstance(event, Plan):
        return event.decision != PlanDecision.STARTED_SESSION
    return isinstance(event, (AssistantText, Thinking, ToolCall))


