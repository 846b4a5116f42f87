"""Small text helpers shared by several stages."""

from __future__ import annotations

import re

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and two-byte escapes.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    return ANSI_ESCAPE.sub("", text)


def shorten(text: str, limit: int = 80) -> str:
    """The text on one line, at most `limit` characters, cut at a word boundary. A word is never cut in
    two: what is shortened is redacted after, and a key cut short no longer has the shape its rule knows."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    cut = cut[: cut.rindex(" ")] if " " in cut else ""
    return cut.rstrip(" ,.;:") + "…"


def head(text: str, limit: int) -> str:
    """At most the first `limit` characters of `text`, ending at a white space when it has to be cut (for
    the same reason as `shorten`)."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(" "), cut.rfind("\n"), cut.rfind("\t"))
    return cut[:end] if end > 0 else ""


_MARKDOWN_MARKERS = re.compile(r"^\s{0,3}#{1,6}\s+|`+|\*\*", re.M)


def plain(text: str) -> str:
    """Markdown source read as plain words, for titles and one-line snippets: no heading hashes, code
    backticks or bold markers. Double underscores stay: in what people type to Claude they are names
    (`__init__`, `__FILE__`, `__dirname`) far more often than bold."""
    return _MARKDOWN_MARKERS.sub("", text)


def byte_size(count: int) -> str:
    """A number of bytes as people read it: 812 bytes, 4.2 KB, 1.3 MB, 2.0 GB."""
    for limit, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if count >= limit:
            return f"{count / limit:.1f} {unit}"
    return f"{count} bytes"


def for_terminal(text: str) -> str:
    """Text from a transcript made safe to print on a terminal: every control character (escape sequences
    that move the cursor, retitle the window, clear the screen or write a hyperlink), and every invisible
    character that reorders or hides text (bidirectional overrides, zero-width ones), shown as its escape
    (`\\x1b`, `\\u202e`) instead of acted on."""
    return _UNPRINTABLE.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
                          "\u3164\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]")
