"""The one place that decides where every output file goes and how pages link to each other.

Every link is relative, so one build works from file://, from a GitHub Pages project subpath, and inside
an unzipped archive. Paths here are POSIX paths relative to the output root.
"""

from __future__ import annotations

import posixpath
import re

INDEX = "index.html"
ASSETS = "assets"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(component: str) -> str:
    cleaned = _UNSAFE.sub("_", component).strip("._-")
    return cleaned or "_"


def project_folder(dir_name: str) -> str:
    return f"projects/{_safe(dir_name)}"


def project_page(dir_name: str) -> str:
    return f"{project_folder(dir_name)}/index.html"


def session_page(key: str, extension: str = "html") -> str:
    """`<project>/<stem>[/<agent>]` -> projects/<project>/<stem>[/<agent>].<extension>"""
    project, _, rest = key.partition("/")
    parts = [_safe(p) for p in rest.split("/")] if rest else ["session"]
    return f"{project_folder(project)}/{'/'.join(parts)}.{extension}"


def session_part(key: str, page: int) -> str:
    """Page `page` (1-based) of a long session: the first keeps the session's own name, later ones add
    their number (`<session>-2.html`)."""
    first = session_page(key)
    return first if page <= 1 else f"{first[: -len('.html')]}-{page}.html"


def anchor_map(key: str) -> str:
    """Which page of a long session shows which anchor, as a script the first page can load."""
    return session_page(key, "anchors.js")


def session_markdown(key: str) -> str:
    return session_page(key, "md")


def attachment(key: str, name: str) -> str:
    """Files that belong to one session page (pasted images), in a folder beside it."""
    return f"{session_page(key, 'files')}/{_safe(name)}"


def media(name: str) -> str:
    """Pasted images and documents, named by their content and shared by every page that shows them."""
    return f"media/{_safe(name)}"


def asset(name: str) -> str:
    return f"{ASSETS}/{name}"


def relative(from_page: str, to_path: str) -> str:
    """Link from the page at `from_page` to `to_path`, both relative to the output root."""
    return posixpath.relpath(to_path, posixpath.dirname(from_page) or ".")
