"""How a time reads on the pages and in the .md."""

from __future__ import annotations


def time_of(timestamp: str) -> str:
    """`2026-10-01T10:32:05.123Z` -> `2026-10-01 10:32` (UTC, as written)."""
    if len(timestamp) >= 16 and timestamp[10] == "T":
        return f"{timestamp[:10]} {timestamp[11:16]}"
    return timestamp
