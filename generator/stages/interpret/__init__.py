"""Stage 3, interpret: raw entries -> a frozen Session of typed events.

Claude Code writes one JSONL line per content block of a streamed reply, puts tool results in `user`
entries, and mixes bookkeeping (snapshots, hook progress, queue operations) in with the conversation.
This stage sorts all of that into events, pairs each tool call with its result, and counts what it does
not know so that the build report can say so. Anything unknown becomes an `Unknown` event: shown, never
dropped. Each entry type, message part and system subtype has a handler of its own, registered in the
tables of `dispatch`; what is remembered across entries lives in the collaborators of `tracking`.

The modules, in the order an entry meets them:

    builder            `interpret_stream`: each entry routed to its session's builder, checked, dispatched
    dispatch           the handler tables, `handles`, and the look-up of an entry's handler by its type
    user_entries       prompts, slash commands, bash mode, Claude Code's messages as the user's, permission modes
    assistant_entries  Claude's text and thinking, API errors, token usage
    tool_calls         tool calls and their results, paired wherever and in whatever order they are written
    system_entries     system lines by subtype: compactions, turn durations, hooks, informational lines
    attachments        files sent with a prompt, messages from other agents, hook output
    bookkeeping        titles, cost, pull requests, progress, and the records never shown
    session_state      what a builder holds, the queue its events wait in, and `build()` into a Session
    message_content    text, images and documents of a message; reminders; records of requests to the model

Each family module holds one class of handlers over `SessionState`; builder.py mixes them all into one
`_SessionBuilder`.
"""

from __future__ import annotations

from .builder import interpret, interpret_stream
from .dispatch import (ASSISTANT_PART_HANDLERS, CONVERSATION_TYPES, ENTRY_HANDLERS, KNOWN_FIELDS, SYSTEM_HANDLERS,
                       USER_PART_HANDLERS, handles)
from .message_content import holds_model_request, strip_system_reminders
from .session_state import EventSink, _anchor
from .tool_calls import SERVER_TOOL_RESULTS, STRUCTURED_RESULT_KEYS, without_repeated_result

__all__ = [
    "ASSISTANT_PART_HANDLERS",
    "CONVERSATION_TYPES",
    "ENTRY_HANDLERS",
    "KNOWN_FIELDS",
    "SERVER_TOOL_RESULTS",
    "STRUCTURED_RESULT_KEYS",
    "SYSTEM_HANDLERS",
    "USER_PART_HANDLERS",
    "EventSink",
    "_anchor",
    "handles",
    "holds_model_request",
    "interpret",
    "interpret_stream",
    "strip_system_reminders",
    "without_repeated_result",
]
