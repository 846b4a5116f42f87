"""Anchor maps: which page of a long session shows which anchor.

For permalinks typed or shared by hand, `<session>.html#anchor` when the anchor is on a later page: the
first page loads the map (a script, so that it loads from file:// too) only when its own page lacks the
anchor. Phase 1 writes a session's map as its anchors go by, so that a long session's map is never held
whole; phase 2 asks it which page shows an anchor that another session links to. Both ends are here: the
map is a JSON object, one `"anchor":"page"` member per line, which `find_anchor_page` finds without
reading the whole file and decodes as JSON.
"""

from __future__ import annotations

import json
import mmap
from pathlib import Path
from typing import Any

from ...core import urls

PREFIX = "window.sessionsiteAnchorPages = {"
SUFFIX = "};\n"
_DECODER = json.JSONDecoder()
# A member's value is a page's file name, quoted: far shorter than this.
_LONGEST_VALUE = 4 * urls.MAX_NAME


def _page_url(key: str, page: int) -> str:
    """Page `page`'s address as the first page links to it (the two sit in one folder)."""
    return urls.relative(urls.session_part(key, 1), urls.session_part(key, page))


class AnchorMapWriter:
    """One session's map, written as its anchors go by; a session of one page gets none."""

    def __init__(self, path: Path, key: str):
        self.path = path
        self.key = key
        self.handle: Any = None
        self.page_urls: dict[int, str] = {}

    def add(self, anchor: str, page: int) -> None:
        if page <= 1 or not anchor:
            return
        if self.handle is None:
            self.handle = self.path.open("w", encoding="utf-8")
            self.handle.write(PREFIX)
        else:
            self.handle.write(",")
        if page not in self.page_urls:
            self.page_urls[page] = json.dumps(_page_url(self.key, page))
        self.handle.write(f"{json.dumps(anchor)}:{self.page_urls[page]}")

    def close(self) -> bool:
        """True when there is a map (the session has anchors past its first page)."""
        if self.handle is None:
            return False
        self.handle.write(SUFFIX)
        self.handle.close()
        return True


def find_anchor_page(script_path: Path, anchor: str) -> int:
    """The page a map gives an anchor, found in the file without reading it into memory; 1 when the map
    does not name it (it is on the first page) or there is no map."""
    member = json.dumps(anchor).encode("utf-8") + b":"
    try:
        with script_path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            # A member starts after the object's opening brace or after a comma; a key's text may also
            # end another key (`"b":` inside `"ab":`), which is preceded by neither.
            for opening in (PREFIX.encode("utf-8") + member, b"," + member):
                found = mapped.find(opening)
                if found != -1:
                    start = found + len(opening)
                    value = mapped[start: start + _LONGEST_VALUE].decode("utf-8", "replace")
                    break
            else:
                return 1
    except (OSError, ValueError):  # no map (or an empty file, which mmap refuses)
        return 1
    url, _ = _DECODER.raw_decode(value)
    return urls.part_number(url)
