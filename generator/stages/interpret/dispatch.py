"""How an entry finds its handler. Interpretation is tables of small handlers, as markdown-it-py's rules are:
one handler per top-level entry type, per content part type and per system subtype, registered with
`handles` and looked up by name. A name with no handler is counted as unknown (the build report says so)
and shown as an `Unknown` event, never dropped.

`dispatch_entry` looks up an entry's type in `ENTRY_HANDLERS`; the handlers of `user`, `assistant` and
`system` entries look up their parts and subtypes in the other tables. The handlers themselves are
methods of the entry families' classes (user_entries, assistant_entries, tool_calls, system_entries,
attachments, bookkeeping), which builder.py mixes into one `_SessionBuilder`. To support a new entry type,
add one method to the family it belongs to under `@handles(ENTRY_HANDLERS, "<type>")`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ...core.model import Entry, Unknown
from ...core.registry import DuplicateRegistration
from .message_content import _UserParts, holds_model_request
from .session_state import SessionState

# Top-level fields Claude Code is known to write; anything else is counted as unknown in the report.
KNOWN_FIELDS = frozenset(
    {"type", "sessionId", "timestamp", "parentUuid", "isSidechain", "uuid", "userType", "cwd", "version",
     "gitBranch", "slug", "message", "requestId", "entrypoint", "toolUseID", "data", "parentToolUseID",
     "toolUseResult", "sourceToolAssistantUUID", "promptId", "agentId", "messageId", "snapshot",
     "isSnapshotUpdate", "permissionMode", "isMeta", "subtype", "attachment", "durationMs", "messageCount",
     "lastPrompt", "level", "leafUuid", "aiTitle", "thinkingMetadata", "hookCount", "hookInfos", "hookErrors",
     "preventedContinuation", "stopReason", "hasOutput", "content", "todos", "operation", "imagePasteIds",
     "error", "isApiErrorMessage", "apiErrorStatus", "sourceToolUseID", "logicalParentUuid",
     "compactMetadata", "isVisibleInTranscriptOnly", "isCompactSummary", "summary", "customTitle",
     "agentName", "planContent", "origin", "prNumber", "prUrl", "prRepository", "toolUseId", "mode",
     "isApiError", "retryInMs", "retryAttempt", "maxRetries", "cause", "fileHistorySnapshot",
     "files", "requestIds", "model", "costUSD", "durationApiMs", "isCompactBoundary", "uuidHistory",
     # Claude Code 2.1.1xx-2.1.3xx: who and what made a turn, how it was requested and answered, the text
     # an attachment gave the model. Known and harmless: none of them changes what a page shows.
     "promptSource", "turnOrigin", "turnPosition", "requestRef", "apiBlockIndex", "requestedModel", "effort",
     "perTurnEffort", "madeBy", "permissionDecision", "sandboxed", "attributionAgent", "attributionSkill",
     "errorDetails", "apiErrorType", "apiErrorIsTransient", "ownNote", "failedResponseHadNoToolCall",
     "promptCacheRequested", "thinkingDisplay",
     "thinkingDurationMs", "toolInputStreamMs", "sentAtMs", "rowSource", "rendered", "renderedRole",
     "renderedBesideToolResult", "microcompactMetadata", "turnCompanion",
     "queueSkipAttachments", "renderedInHumanTurn", "commandRun", "session_id", "serverClassifierRequest",
     "toolDenialKind", "toolDenialBeforeRun",
     # Who ended a call or a turn early (read by interpret.harness), and which message an interrupt stopped.
     "toolDenialAfterRun", "toolDenialFromHost", "interruptedMessageId", "mcpCallNotReadOnly",
     # Which MCP server and tool made a result; a call (StructuredOutput) that ends the turn.
     "attributionMcpServer", "attributionMcpTool", "toolEndsTurn"}
)
# The entry types whose fields are checked against KNOWN_FIELDS, with every type that has no handler; the
# fields of a known bookkeeping entry are its own business.
CONVERSATION_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
# Records of what Claude Code sent the model are entries of types starting `api-request`: never published.
REQUEST_RECORD_PREFIX = "api-request"

EntryHandler = Callable[[SessionState, Entry], None]
SystemHandler = Callable[[SessionState, Entry, str, str, str], None]
AssistantPartHandler = Callable[[SessionState, Mapping[str, Any], str, str, str], None]
UserPartHandler = Callable[[SessionState, Mapping[str, Any], Mapping[str, Any], str, _UserParts], None]
ENTRY_HANDLERS: dict[str, EntryHandler] = {}
"""By entry `type`: handler(builder, entry)."""
SYSTEM_HANDLERS: dict[str, SystemHandler] = {}
"""By system `subtype` ("" for none): handler(builder, entry, anchor, timestamp, text). A subtype with none
is counted as unknown and shown as a notice of its own name (`SystemEntries._system_notice`)."""
ASSISTANT_PART_HANDLERS: dict[str, AssistantPartHandler] = {}
"""By the `type` of a part of an assistant message: handler(builder, part, part_id, timestamp, model)."""
USER_PART_HANDLERS: dict[str, UserPartHandler] = {}
"""By the `type` of a part of a user message: handler(builder, entry data, part, timestamp, gathered)."""


def handles(table: dict[str, Any], *names: str) -> Callable[[Any], Any]:
    """Register the decorated handler in `table` under each of `names`. A name that already has a handler
    is refused, and none of `names` is registered: two families must never both claim an entry type."""
    def register(handler: Any) -> Any:
        taken = [name for index, name in enumerate(names) if name in table or name in names[:index]]
        if taken:
            raise DuplicateRegistration(f"two handlers for {taken[0]!r}: {_name_of(table.get(taken[0], handler))} and "
                                        f"{_name_of(handler)}")
        table.update(dict.fromkeys(names, handler))
        return handler
    return register


def dispatch_entry(builder: SessionState, entry: Entry) -> None:
    """Hand the entry to the handler of its type. Fields no one knows are counted; an entry of a type with
    no handler is counted and shown as an `Unknown` event, unless it records a request to the model."""
    data = entry.data
    kind = data.get("type")
    is_text = isinstance(kind, str)  # a broken log may have any JSON value there, a list among them
    handler = ENTRY_HANDLERS.get(kind) if isinstance(kind, str) else None
    if ((is_text and kind in CONVERSATION_TYPES) or not (handler is not None or _is_request_record(kind))) \
            and not KNOWN_FIELDS.issuperset(data):
        for name in data:
            if name not in KNOWN_FIELDS:
                builder.unknown[f"field:{name}"] += 1
    if handler is not None:
        handler(builder, entry)
        return
    name = f"type:{kind}" if isinstance(kind, str) else "type:(missing)"
    builder.unknown[name] += 1
    if _is_request_record(kind) or holds_model_request(data):
        return
    # A new type with no message is bookkeeping (counted above, shown only with --show-hidden); one
    # with a message may be conversation, and is shown.
    builder.events.append(Unknown(builder._next_anchor(data.get("uuid")), builder._time(data), name, dict(data),
                                  hidden="message" not in data))


def _name_of(handler: Any) -> str:
    return str(getattr(handler, "__qualname__", handler))


def _is_request_record(kind: Any) -> bool:
    return isinstance(kind, str) and kind.startswith(REQUEST_RECORD_PREFIX)
