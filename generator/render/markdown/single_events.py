"""The events shown on their own, outside Claude's reply: prompts (with their attached documents and
media), plans a session started with, slash commands, shell commands the person ran, notices, and entries
sessionsite does not know or could not read. Each kind's writer is registered in `SINGLE_EVENTS`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ...core.model import (BashMode, Event, EventBase, Media, Notice, NoticeKind, Plan, Prompt, SlashCommand, Unknown,
                           Unreadable, as_unknown)
from ...core.registry import Registry
from ...core.text import strip_ansi
from ...stages.agents import AGENT_NAMES
from .gfm import emphasis, facts, link, summary_text
from .blocks import Block, Code, Fold, Group, Prose, Structure, typed_blocks
from .document_base import DocumentBase
from .escape import inline_code, literal, prose
from .pasted import looks_pasted
from .times import time_of
from .tools import INLINE_OUTPUT_LIMIT, json_block

# Notices whose raw text is Claude Code's own bookkeeping, said for a reader instead.
NOTICE_WORDING: dict[str, str] = {NoticeKind.INTERRUPT: "Interrupted by the user"}
RELATED_WORDING: dict[str, str] = {NoticeKind.REWIND: "the branch left, above"}
"""What a notice's link to the event it is about says, by kind (otherwise: the call that started it)."""
RELATED_DEFAULT = "the call that started it"
LEFT_BRANCH = "A branch the user left: they went back to before this prompt later, and went on"
TEXT_DOCUMENT = "text/plain"
"""The media type of a text file attached to a prompt, which `interpret` keeps as its text."""

SINGLE_EVENTS: Registry[type, Callable[[Any, Any], list[Block]]] = Registry("Markdown writers of events")
"""By the type of an event shown on its own (not part of Claude's reply): its blocks, from
`SessionDocument`'s method registered for it."""


@SINGLE_EVENTS.fallback
def _as_unknown_entry(document: SingleEventWriter, event: EventBase) -> list[Block]:
    """An event of a kind no writer was registered for: shown as an unknown entry is."""
    return SINGLE_EVENTS.lookup(Unknown)(document, as_unknown(event))


class SingleEventWriter(DocumentBase):
    """The part of `SessionDocument` that writes the events shown on their own."""

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
            went_on = self.session.rewound.get(event.anchor)
            if went_on:
                parts.append(Structure(self.markup.event("left-branch", {"text": LEFT_BRANCH, "went_on": went_on}),
                                       "label", facts(emphasis(LEFT_BRANCH), link("here", "#" + went_on))))
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
                              closing, event.anchor, (("command", command),), Fold(summary_text("Output"))))
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
                          fold=Fold(summary_text("Continued from an earlier conversation (summary)")))]
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
            fold = Fold(summary_text("A message part of a kind new to sessionsite:", event.name[len("part:"):]),
                        open=True)
            return [Group("unknown", opening, body, closing, event.anchor, fold=fold)]
        opening, closing = self.markup.event_wrapper("unknown", {"anchor": event.anchor, "name": event.name},
                                                     part=False)
        return [Group("unknown", opening, (json_block(event.raw),), closing, event.anchor,
                      fold=Fold(summary_text("Unrecognised entry", event.name)))]

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
        fold = Fold(summary_text(f"Line {event.line} could not be read: {event.reason}"))
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
        return Structure(html, "meta", facts("**Task** from the calling agent", markdown_call, literal(time)))

    def _notice(self, notice: Notice, text: str, hidden: str) -> Structure:
        """A one-line notice, or a message Claude Code wrote into the conversation (a background task
        ended): what it says, its facts, and a link to the call it is about."""
        # The outcome first: it is what a reader looks for.
        shown = notice.details + (notice.harness if self.options.show_hidden else ())
        details = sorted(shown, key=lambda item: item[0] != "status")
        shown_facts = [(name.replace("-", " ").capitalize(), " ".join(value.split())) for name, value in details]
        system_message = bool(notice.details or notice.related)
        related_words = RELATED_WORDING.get(notice.kind, RELATED_DEFAULT)
        system_message = system_message and notice.kind != NoticeKind.REWIND
        html = self.markup.element(self.markup.rule("events", f"notice-{notice.kind}", "notice"), notice=notice,
                                   kind=notice.kind, anchor=notice.anchor, hidden=hidden, text=text, facts=shown_facts,
                                   related=notice.related, related_words=related_words, system_message=system_message,
                                   agent=AGENT_NAMES.get(self.session.agent, "Claude Code"))
        agent = AGENT_NAMES.get(self.session.agent, "Claude Code")
        markdown = facts(f"**{agent}**" if system_message else "", emphasis(text),
                         *(f"{literal(name)} {inline_code(value)}".rstrip() for name, value in shown_facts),
                         link(related_words, "#" + notice.related) if notice.related else "")
        return Structure(html, "notice", markdown)


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
