"""GitHub's limit for a pull request's comment, how it counts characters, and the lengths the Markdown
bundle keeps each kind of content to."""

from __future__ import annotations

GITHUB_LIMIT = 65_536
"""Characters GitHub takes in a pull request's description or a comment."""
TARGET_CHARS = 100
"""A tool call's target (command, path, pattern) is shortened to this."""
FILES_LISTED = 40
"""Files changed named in the summary; the rest are counted."""
SHORTEST_TEXT = 80
"""No prompt, plan or reply is cut shorter than this."""
TEXT_FLOOR = 1000
"""Replies, then plans, then prompts are cut down to this, one kind after the other, before all three are
cut further together."""
FINAL_REPLY_CHARS = 3000
"""The session's final reply (its outcome) is cut to no less than this."""
SHELL_OUTPUT_CHARS = 1500
"""What a shell command the person ran (`!cmd`) printed is shown up to this."""


def github_length(text: str) -> int:
    """Characters as GitHub's limit counts them, erring long: UTF-16 code units (what a browser's text
    box counts), and each line break twice, since a form sends it as CR LF."""
    return len(text.encode("utf-16-le")) // 2 + text.count("\n")


def plural(count: int, word: str) -> str:
    """`1 prompt`, `3 prompts`, `2 final replies`: a count as the bundle says it."""
    many = word[:-1] + "ies" if word.endswith("y") else word + "s"
    return f"{count:,} {word if count == 1 else many}"
