"""Reading the content of a message: its text, the files in it (images, documents), the reminders Claude Code
injects into it, and whether it records a request to the model (never published)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ...core.model import Media

# What Claude Code sent the model (the whole system prompt, every tool's schema, memory files such as
# CLAUDE.md, the environment, git status) is never published, not even with --show-hidden: an entry or a
# part is held back when its fields look like a request (`holds_model_request`).
MODEL_REQUEST_FIELDS = frozenset({"system", "systemPrompt", "system_prompt", "systemPromptBlocks", "memoryFiles",
                                  "claudeMd", "userContext", "systemContext"})
REQUEST_SCAN_DEPTH = 8
REQUEST_SCAN_ITEMS = 200
# Written into the site as files; anything else (SVG can carry script) is shown as a reference only.
SAFE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"})

# Claude Code injects reminders as blocks of their own; a tag inside a line is the content's own text
# (a file that writes the tag, a log that quotes it) and is kept.
SYSTEM_REMINDER = re.compile(r"(?:^|(?<=\n))[ \t]*<system-reminder>.*?</system-reminder>[ \t]*(?:\n|$)", re.S)


def _text_of(content: Any) -> str:
    """Plain text of a message or tool-result content: a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif isinstance(part, str):
                pieces.append(part)
        return "\n".join(pieces)
    if content is None:
        return ""
    return str(content)



# `SYSTEM_REMINDER` from the start of the line its tag is on: tried only there, not at every position.
_REMINDER_FROM_LINE_START = re.compile(r"[ \t]*<system-reminder>.*?</system-reminder>[ \t]*(?:\n|$)", re.S)
_REMINDER_TAG = "<system-reminder>"


def strip_system_reminders(text: str) -> str:
    """The text without the reminder blocks `SYSTEM_REMINDER` matches. The pattern can start at any line
    start: each tag is found with `str.find`, and the pattern tried only from the start of its line when
    nothing but blanks comes before it there (a tool's output of a megabyte was scanned whole before)."""
    tag = text.find(_REMINDER_TAG)
    if tag < 0:
        return text
    pieces: list[str] = []
    kept_from = 0
    while tag >= 0:
        line_start = max(text.rfind("\n", kept_from, tag) + 1, kept_from)
        found = None
        if not text[line_start:tag].strip(" \t"):
            found = _REMINDER_FROM_LINE_START.match(text, line_start)
        if found is not None:
            pieces.append(text[kept_from:line_start])
            kept_from = found.end()
            tag = text.find(_REMINDER_TAG, kept_from)
        else:
            tag = text.find(_REMINDER_TAG, tag + 1)
    if not pieces:
        return text
    pieces.append(text[kept_from:])
    return "".join(pieces)


def _media(part: Mapping[str, Any], decode: bool = True) -> Media | None:
    """An image or a PDF in a message or a result. Without `decode`, an embedded file's bytes are left out:
    for a summary, which reads none (`summarize` reads only the text of a text file, `_document_text`'s)."""
    source = part.get("source")
    if isinstance(source, dict) and source.get("type") == "base64":
        media_type = str(source.get("media_type", ""))
        if not decode:
            return Media(media_type=media_type, data=b"")
        try:
            data = base64.b64decode(str(source.get("data", "")), validate=False)
        except (binascii.Error, ValueError):
            return Media(media_type=media_type, data=b"", source="(embedded file that could not be decoded)")
        if media_type not in SAFE_MEDIA_TYPES:
            return Media(media_type=media_type, data=b"", source=f"(embedded {media_type or 'file'}, not a type that is shown)")
        return Media(media_type=media_type, data=data)
    location = part.get("path") or part.get("url") or (source.get("url") if isinstance(source, dict) else "")
    if location:
        return Media(media_type="", data=b"", source=str(location))
    return None


def _document_text(part: Mapping[str, Any]) -> Media | None:
    """A text file attached to a prompt (2.1.97): its text as a `Media` of type `text/plain`, named by its
    title; None for a document that is not text (a PDF), which `_media` takes."""
    source = part.get("source")
    if not isinstance(source, dict):
        return None
    kind, media_type = source.get("type"), str(source.get("media_type") or "text/plain")
    found: str | None = None
    if kind == "text" and isinstance(source.get("data"), str):
        found = source["data"]
    elif kind == "content" and isinstance(source.get("content"), (str, list)):
        found = _text_of(source["content"])
    elif kind == "base64" and media_type.startswith("text/") and isinstance(source.get("data"), str):
        try:
            found = base64.b64decode(source["data"], validate=False).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    if found is None:
        return None
    title = part.get("title")
    return Media(media_type="text/plain", data=found.encode("utf-8", "replace"),
                 source=title.strip() if isinstance(title, str) else "")


@dataclass
class _UserParts:
    """What the parts of one user message add up to: its text and its images make one prompt."""

    texts: list[str] = field(default_factory=list)
    images: list[Media] = field(default_factory=list)


def holds_model_request(value: Any, depth: int = 0) -> bool:
    """True when `value` looks like a record of a request to the model: a system prompt, tool schemas or a
    system-role message anywhere in it (looked for a few levels down, in the first items of each list)."""
    if depth > REQUEST_SCAN_DEPTH:
        return False
    if isinstance(value, dict):
        for name, inner in value.items():
            if name in MODEL_REQUEST_FIELDS and inner:
                return True
            if (name == "tools" and isinstance(inner, list)
                    and any(isinstance(t, dict) and ("input_schema" in t or "inputSchema" in t) for t in inner)):
                return True
            if name == "role" and inner == "system":
                return True
            if isinstance(inner, (dict, list)) and holds_model_request(inner, depth + 1):
                return True
    elif isinstance(value, list):
        return any(isinstance(item, (dict, list)) and holds_model_request(item, depth + 1)
                   for item in value[:REQUEST_SCAN_ITEMS])
    return False
