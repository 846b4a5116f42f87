"""The one place that decides where every output file goes and how pages link to each other.

Every link is relative, so one build works from file://, from a GitHub Pages project subpath, and inside
an unzipped archive. Paths here are POSIX paths relative to the output root.
"""

from __future__ import annotations

import functools
import hashlib
import re

INDEX = "index.html"
NO_JEKYLL = ".nojekyll"
ASSETS = "assets"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]|^\.")
# Names the site itself uses inside a project folder, which a session file may not take.
_RESERVED = frozenset({"index", "files", "commits"})


# File systems take names of at most 255 bytes; a name made here gets a suffix of its own (`~p12.html`,
# `.anchors.js`) and, while it is written, a temporary one (`.<name>.<pid>.<8 hex>.part`, `core.files.write_atomically`).
MAX_NAME = 200


def _safe(component: str) -> str:
    """A file name from a name in the input, one-to-one: letters, digits, `_ - .` stay, anything else
    (a slash, `..`, a space, a non-ASCII letter) becomes `~` and its UTF-8 bytes in hex. So no name can
    leave the output folder, and two different names never share a file. A name longer than `MAX_NAME`
    (forty Cyrillic letters are 240 characters escaped) keeps its start and ends in `~~` and a hash of the
    whole name (`~~` cannot come out of the escaping, so it meets no other name)."""
    encoded = _UNSAFE.sub(lambda m: "".join(f"~{byte:02x}" for byte in m.group().encode("utf-8")), component)
    if len(encoded) > MAX_NAME:
        start = re.sub(r"~[0-9a-f]?$", "", encoded[: MAX_NAME - 18])  # not half an escape
        encoded = f"{start}~~{hashlib.sha1(component.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return encoded or "~"


# The home folder as --redact-paths writes it in a project's name (`-home-ada-src-app` -> `~-src-app`): a `~`
# standing alone between the name's `-`s.
_HOME_PLACEHOLDER = re.compile(r"(?:^|(?<=-))~(?=-|$)")


def project_folder(dir_name: str) -> str:
    """`-home-ada-src-app` -> projects/home-ada-src-app (discover keeps two folders from sharing one).

    The home folder's placeholder stays `~` (`~-src-app`, not `~7e-src-app`): `_safe` writes a `~` only
    before two hex digits, a second `~` or a letter, never before a `-` or at the end, so no other name
    takes its address. The name `-` (Claude Code's for `/`) is `~2f`, the escaped `/` it stands for, since
    the empty name's `~` would be the home folder's."""
    name = dir_name.removeprefix("-")
    if not name:
        return f"projects/{_safe('/')}"
    pieces = _HOME_PLACEHOLDER.split(name)
    if len(pieces) == 1:
        return f"projects/{_safe(name)}"
    joined = "~".join(_safe(piece) if piece else "" for piece in pieces)
    if len(joined) > MAX_NAME:
        return f"projects/{_safe(name)}"
    return f"projects/{joined}"


def project_page(dir_name: str) -> str:
    return f"{project_folder(dir_name)}/index.html"


def project_files(dir_name: str) -> str:
    """A project's "Files touched" page."""
    return f"{project_folder(dir_name)}/files.html"


def project_commits(dir_name: str) -> str:
    """A project's commits page: every commit its sessions made."""
    return f"{project_folder(dir_name)}/commits.html"


def session_page(key: str, extension: str = "html") -> str:
    """`<project>/<stem>[/<agent>]` -> projects/<project>/<stem>[/<agent>].<extension>"""
    project, _, rest = key.partition("/")
    parts = [_safe(p) for p in rest.split("/")] if rest else ["~session"]
    if parts[0] in _RESERVED:
        parts[0] = "~" + parts[0]  # `~` followed by no hex digits: _safe never makes that
    return f"{project_folder(project)}/{'/'.join(parts)}.{extension}"


def session_part(key: str, page: int) -> str:
    """Page `page` (1-based) of a long session: the first keeps the session's own name, later ones add
    their number (`<session>~p2.html`; `~p` cannot come out of _safe, so no session name collides)."""
    first = session_page(key)
    return first if page <= 1 else f"{first[: -len('.html')]}~p{page}.html"


def part_number(path: str) -> int:
    """The page number `session_part` put in a page's path or address (1 for a session's first page)."""
    base, found, number = path.removesuffix(".html").rpartition("~p")
    return int(number) if found and number.isdigit() else 1


def anchor_map(key: str) -> str:
    """Which page of a long session shows which anchor, as a script the first page can load."""
    return session_page(key, "anchors.js")


def session_markdown(key: str) -> str:
    return session_page(key, "md")


def attachment(key: str, name: str) -> str:
    """Files that belong to one session page (full tool outputs), in a folder beside it."""
    return f"{session_page(key, 'files')}/{_safe(name)}"


MEDIA_FOLDER = "media/"


def media(name: str) -> str:
    """Pasted images and documents, named by their content and shared by every page that shows them."""
    return MEDIA_FOLDER + _safe(name)


def asset(name: str) -> str:
    return f"{ASSETS}/{name}"


@functools.lru_cache(maxsize=4096)
def relative(from_page: str, to_path: str) -> str:
    """Link from the page at `from_page` to `to_path`, both relative to the output root. (Worked out on
    the names: posixpath.relpath asks the operating system for the current folder on every call, and
    a build makes hundreds of thousands of links.)"""
    here = [part for part in from_page.split("/")[:-1] if part not in ("", ".")]
    there = [part for part in to_path.split("/") if part not in ("", ".")]
    shared = 0
    while shared < len(here) and shared < len(there) and here[shared] == there[shared]:
        shared += 1
    return "/".join([".."] * (len(here) - shared) + there[shared:]) or "."


def search_name(key: str) -> str:
    """An input file's name among the search files: short, stable, and made only of safe characters."""
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


SEARCH_FOLDER = "search"
SEARCH_INDEX = f"{SEARCH_FOLDER}/index.js"
SEARCH_WORDS_FOLDER = f"{SEARCH_FOLDER}/words"


def search_documents(name: str) -> str:
    return f"{SEARCH_FOLDER}/docs/{name}.js"


def search_words(name: str) -> str:
    return f"{SEARCH_WORDS_FOLDER}/{name}.txt.gz"


def search_terms(number: int) -> str:
    return f"{SEARCH_FOLDER}/terms/{number}.js"
