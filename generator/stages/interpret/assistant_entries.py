"""Assistant entries: what Claude wrote (text), its thinking (shown, signed only, or redacted by the API), an
API error Claude Code wrote in its place, and the tokens each reply used. Its tool calls are handled in
tool_calls. A damaged message (a string, or a string spread by character position) is read as best it can."""

from __future__ import annotations

import json
from typing import Any, Mapping

from ...core.model import AssistantText, Diagnostic, Entry, Notice, NoticeKind, Thinking, Unknown
from .dispatch import ASSISTANT_PART_HANDLERS, ENTRY_HANDLERS, handles
from .message_content import _text_of, holds_model_request
from .session_state import SessionState
from .stops import api_error_text, stop_reason_notice

# The model name of the messages Claude Code writes itself ("No response requested.", an API error): no
# model answered them, so they are in no list of models and no figures.
SYNTHETIC_MODEL = "<synthetic>"


class AssistantEntries(SessionState):
    """The handlers of assistant entries and of the text and thinking parts of their messages."""

    @handles(ENTRY_HANDLERS, "assistant")
    def _assistant(self, entry: Entry) -> None:
        data = entry.data
        message = data.get("message")
        if not isinstance(message, dict) or _spread_string(message):
            message = _message_object(message)
            if message is None:
                self._malformed(entry, "assistant entry whose message is not an object")
                return
            self.problems.append(Diagnostic(entry.file, entry.line, "assistant message is not an object (a string, "
                                            "or one spread into an object by character position): read as its text"))
        timestamp = self._time(data)
        model = named if isinstance(named := message.get("model"), str) and named != SYNTHETIC_MODEL else ""
        if self.summarising:
            self.metadata.note_model(model)
            if message.get("model") != SYNTHETIC_MODEL:
                self.usage.count(data, message)
        content = message.get("content")
        if data.get("isApiErrorMessage"):
            self.events.append(Notice(self._next_anchor(data.get("uuid")), timestamp, NoticeKind.API_ERROR,
                                      api_error_text(data, _text_of(content))))
            return
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            self._malformed(entry, "assistant message content is neither text nor a list of parts")
            return
        uuid = data.get("uuid", "")
        for index, part in enumerate(content):
            if not isinstance(part, dict):
                self.unknown["part:(not an object)"] += 1
                self.events.append(Unknown(self._next_anchor(None), timestamp, "part:(not an object)", part))
                continue
            part_id = f"{uuid}-{index}"
            part_type = part.get("type")
            handler = ASSISTANT_PART_HANDLERS.get(part_type) if isinstance(part_type, str) else None
            if handler is not None:
                handler(self, part, part_id, timestamp, model)
            else:
                name = f"part:{part.get('type')}"
                self.unknown[name] += 1
                if not holds_model_request(part):
                    self.events.append(Unknown(self._next_anchor(part_id), timestamp, name, part))
        stopped = stop_reason_notice(message) if message.get("model") != SYNTHETIC_MODEL else ""
        if stopped:
            self.events.append(Notice(self._next_anchor(f"{uuid}-stop" if uuid else None), timestamp, NoticeKind.STOPPED, stopped))

    @handles(ASSISTANT_PART_HANDLERS, "text")
    def _assistant_text(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        text = str(part.get("text", ""))
        if text.strip():
            self.events.append(AssistantText(self._next_anchor(part_id), timestamp, text, model))

    @handles(ASSISTANT_PART_HANDLERS, "thinking")
    def _thinking(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        text = str(part.get("thinking", ""))
        if text.strip():
            self.events.append(Thinking(self._next_anchor(part_id), timestamp, text))
        elif part.get("signature"):
            # Since 2.1.69 the default: Claude reasoned and the log keeps only the signature. An empty
            # Thinking says so where it happened.
            self.events.append(Thinking(self._next_anchor(part_id), timestamp, ""))

    @handles(ASSISTANT_PART_HANDLERS, "redacted_thinking")
    def _redacted_thinking(self, part: Mapping[str, Any], part_id: str, timestamp: str, model: str) -> None:
        self.events.append(Notice(self._next_anchor(part_id), timestamp, NoticeKind.REDACTED_THINKING,
                                  "Thinking (redacted by the API)"))


def _spread_string(message: Mapping[str, Any]) -> bool:
    """Whether an object holds a string spread by character position: {"0": "H", "1": "i"}, perhaps with keys
    of a message beside them (JavaScript's `{...text, model}` on a string)."""
    if "0" not in message:  # every reply's message: it has no key "0", and a spread string always has
        return False
    length = _spread_length(message)
    return length > 0 and all(isinstance(message[str(index)], str) and len(message[str(index)]) == 1
                              for index in range(length))


def _spread_length(message: Mapping[str, Any]) -> int:
    """How many of the object's keys are character positions, counted from 0 without a gap."""
    length = 0
    while str(length) in message:
        length += 1
    return length


def _unspread(message: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The spread string, and the object's other keys. JavaScript spreads a string by UTF-16 code unit: a
    character outside the Basic Multilingual Plane comes as two halves, put back together here."""
    length = _spread_length(message)
    characters = "".join(message[str(index)] for index in range(length))
    whole = characters.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return whole, {key: value for key, value in message.items() if key not in {str(i) for i in range(length)}}


def _message_object(message: Any) -> Mapping[str, Any] | None:
    """An assistant entry's message as an object. Damaged files hold it as a string, or as a string spread
    into an object keyed by character position ({"0": "H", "1": "i"}), perhaps with other keys of the message
    beside it: the string is the message's JSON when it reads as an object (the keys beside it added), else
    the reply's text. None when it is none of these."""
    beside: dict[str, Any] = {}
    if isinstance(message, dict):
        if not _spread_string(message):
            return message
        message, beside = _unspread(message)
    if not isinstance(message, str):
        return None
    try:
        parsed = json.loads(message) if message.lstrip().startswith("{") else None
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict) and "content" in parsed:
        return {**parsed, **{key: value for key, value in beside.items() if key not in parsed}}
    return {"role": "assistant", **beside, "content": [{"type": "text", "text": message}]}
