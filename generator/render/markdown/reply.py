"""Claude's reply: its consecutive texts, thinking, plans and tool calls gathered into one message block."""

from __future__ import annotations

from ...core.model import AssistantText, Event, Notice, NoticeKind, Plan, PlanDecision, Thinking, ToolCall
from ...stages.agents import ASSISTANT_NAMES
from .gfm import summary, summary_text
from .blocks import Block, Fold, Group, Prose, Structure, blocks_of
from .document_base import DocumentBase
from .endings import ending_blocks, status_of, to_model_blocks
from .escape import prose
from .tools import ToolContext, render_tool

CHECKLIST_TOOLS = frozenset({"TaskCreate", "TaskUpdate", "TodoWrite"})


class ReplyWriter(DocumentBase):
    """The part of `SessionDocument` that writes Claude's replies."""

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
        elif isinstance(event, Notice):  # thinking the API redacted (`in_reply`)
            self._add_to_run(Structure(self.markup.event("thinking-redacted", {"anchor": event.anchor}), "thinking",
                                       "*Thought here (its thinking was redacted by the API)*"))
        elif isinstance(event, Thinking):
            opening, closing = self.markup.event_wrapper("thinking", {"anchor": event.anchor})
            self._add_to_run(Group("thinking", opening, (Prose(prose(event.text)),), closing, event.anchor,
                                   fold=Fold(summary_text("Thinking"))))
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
        if first is not None and self.assistant_run:  # a run with nothing shown (calls of --show-hidden) has none
            # The wrapper gets its own id: the first event inside it keeps the anchor it is linked by.
            wrapper_id = f"m{first.anchor[1:]}"
            timestamp = getattr(first, "timestamp", "")
            who = ASSISTANT_NAMES.get(self.session.agent, "Claude")
            opening, closing = self.markup.event_wrapper("message", {"anchor": wrapper_id}, who=who,
                                                         model=self.run_model)
            self.blocks.append(Group(
                "message", opening,
                (self._meta_line(who, timestamp, self.run_model, anchor=wrapper_id), *self.assistant_run),
                closing, wrapper_id, (("who", who), ("time", timestamp), ("model", self.run_model)),
            ))
        self.assistant_run = []
        self.run_first = None
        self.run_model = ""

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
        elif status_of(call):
            status = status_of(call)
        elif call.result is None:
            status = "no result"
        else:
            status = "error" if call.result.is_error else "ok"
        body: list[Block] = [*ending_blocks(call, self.markup),
                             *(blocks_of(view.body) if view.body else [Prose("*No input or output.*", "sessionsite")])]
        # A call that did not run is open: who stopped it is the story, as Claude Code's screen shows it.
        opened = view.open_by_default or open_checklist or bool(status_of(call))
        body += to_model_blocks(call, self.markup, self.options.show_hidden)
        media = self._media(call.result.images if call.result else ())
        if media:
            body.append(Prose(media, "sessionsite"))
        # A call shown only by --show-hidden is marked (`hidden`), so that the page's filter can hide it again.
        opening, closing = self.markup.stamp_wrapper(
            self.markup.rule("tools", call.name, "_default"), {"anchor": call.anchor, "target": view.target},
            {"call": call}, label=view.label, status=status,
            status_class={"ok": "ok", "error": "error"}.get(status, "other"), classes=" ".join(("tool", *view.classes)),
            open=opened, hidden=view.quiet)
        return [Group("tool", opening, tuple(body), closing, call.anchor,
                      (("label", view.label), ("target", view.target), ("status", status),
                       ("target-is", "path" if view.target_is_path else "")),
                      Fold(summary(view.label, view.target, status), opened, call.anchor))]

    def _reply_text(self, reply: AssistantText) -> list[Block]:
        """Claude's text, as Markdown; a very long one shows its start and links the whole."""
        if not reply.text:
            return []  # adds nothing, not even the blank line around it
        return self._shown_in_part(reply.text, lambda text: [Prose(prose(text))], f"{reply.anchor}-reply.txt",
                                   "The whole reply")


def in_reply(event: Event) -> bool:
    """Part of Claude's reply block. Plans Claude proposed sit in its reply; a plan the session was
    started with (`planContent`) stands on its own at the top; thinking the API redacted is Claude's, as the
    thinking whose text was not kept."""
    if isinstance(event, Plan):
        return event.decision != PlanDecision.STARTED_SESSION
    if isinstance(event, Notice):
        return event.kind == NoticeKind.REDACTED_THINKING
    return isinstance(event, (AssistantText, Thinking, ToolCall))
