"""The build manifest: what the last build read and wrote, kept in the output for the next build.

For each input file it records its path, size, modification time and content hash, the summaries phase 1
made of it, and the output files phase 2 made from it, with a digest of everything those outputs depend
on. The next build then reads only the files that changed, renders only the files whose pages would
change, and takes every other output from the previous site as it is (hard links, so nothing is copied).
Outputs whose input is gone are simply not carried over.

The manifest is JSON, decoded into an explicit list of our own types: the output folder may come from
anywhere, so nothing in it is trusted to name code (no pickle).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import orjson

from ..core.places import user_cache_folder
from ..core.files import write_atomically
from ..core.entries import Diagnostic

if TYPE_CHECKING:
    from _hashlib import HASH

    from ..stages.discover import SessionFile

MANIFEST = ".sessionsite-manifest.json"
FORMAT = 1



@functools.cache
def _types() -> dict[str, type]:
    """The types a manifest may name (`__type`), by name: the model's, never a name looked up in the code.
    Loaded when a manifest's summaries are first decoded: a build that finds nothing changed decodes its
    problems (`Diagnostic`) alone."""
    from ..core.model import Commit, FileTouch, Interpreted, OutlineItem, Session, SubagentCall, Usage

    return {cls.__name__: cls for cls in (Session, Usage, OutlineItem, SubagentCall, Diagnostic, FileTouch, Commit,
                                          Interpreted)}


# -- encoding our frozen types as JSON --------------------------------------------------------------------


def _default(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        encoded = {"__type": type(value).__name__}
        for item in dataclasses.fields(value):
            encoded[item.name] = getattr(value, item.name)
        return encoded
    if isinstance(value, bytes):
        return {"__bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot keep {type(value).__name__} in the manifest")


def encode(value: Any) -> bytes:
    return orjson.dumps(value, default=_default, option=orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_SORT_KEYS)


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


@functools.cache
def _fields_of(cls: type) -> tuple[tuple[str, bool], ...]:
    """A class's fields, and which are tuples (asked once per class: a large manifest decodes thousands of
    these objects on every incremental build)."""
    return tuple((item.name, str(item.type).startswith("tuple")) for item in dataclasses.fields(cls))


def decode(value: Any) -> Any:
    """JSON back into our types; tuples come back as tuples (JSON keeps only lists)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__bytes" in value:
        return base64.b64decode(value["__bytes"])
    name = value.get("__type")
    if name is None:
        return {k: decode(v) for k, v in value.items()}
    cls = Diagnostic if name == "Diagnostic" else _types()[name]  # a KeyError: a damaged manifest, built afresh
    arguments = {}
    for field_name, is_tuple in _fields_of(cls):
        if field_name in value:
            decoded = decode(value[field_name])
            arguments[field_name] = _tuples(decoded) if is_tuple else decoded
    if name == "Interpreted":
        arguments["unknown"] = Counter(arguments.get("unknown", {}))
    return cls(**arguments)


def digest(*parts: Any) -> str:
    """A digest of values as the manifest encodes them: equal when what they describe is equal."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        hasher.update(encode(part))
        hasher.update(b"\0")
    return hasher.hexdigest()


def text_digest(*texts: str) -> str:
    """A digest of texts (a page's source, its body), each behind its length: SHA-1 of their UTF-8, as a change
    detector. A build digests each page's text two or three times, tens of megabytes: `digest`, which encodes its
    values as JSON first and then takes BLAKE2b, took three times as long."""
    hasher = hashlib.sha1()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        hasher.update(b"%d:" % len(data))
        hasher.update(data)
    return hasher.hexdigest()


# -- the manifest ---------------------------------------------------------------------------------------


def path_key(session_file: "SessionFile") -> str:
    """Input files are known by where they sit in the archive (project, parent session, name), not by
    their path: the manifest is published with the site, paths name the user's home folder, and a build
    must not depend on where its input is."""
    return digest(session_file.project_dir, session_file.parent_session_id, session_file.path.name)[:24]


@dataclass
class FileRecord:
    """One input file, as the last build saw it."""

    path: str
    """Its `path_key`."""
    size: int
    content_hash: str
    project_dir: str
    summary: Any = None
    """Phase 1's result (`pipeline.plans.Summarised` as a dict of its parts), as the manifest holds it: `decode`
    it to use it (only files that are used are decoded)."""
    resummary: Any = None
    """For a session that continues another: its summary without the replayed entries (encoded too)."""
    skip_digest: str = ""
    """Digest of the replayed entries that `resummary` left out."""
    render_digest: str = ""
    """Digest of everything the file's pages depend on."""
    outputs: list[str] = field(default_factory=list)
    """Output files made from it, relative to the output folder."""
    pages: int = 0
    """Pages among them."""
    redactions: dict[str, int] = field(default_factory=dict)
    """Redactions made in them, by kind."""
    page_bodies: dict[str, list[Any]] = field(default_factory=dict)
    """Of each of its pages, by path: what its body was made of and where it sits in the page
    (`pipeline.incremental.PageBodies`), so that the next build can keep the bodies that would come out the same."""
    kept: str = ""
    """For a log read from the vault because it is gone: the day the vault last saw it (the pages say so)."""


@dataclass
class Manifest:
    settings: str = ""
    """Digest of the generator version and of every setting that changes the output."""
    report: str = ""
    """The build report, as JSON."""
    files: dict[str, FileRecord] = field(default_factory=dict)
    site: str = ""
    """`site_digest` of the output as the build left it."""
    index_pages: dict[str, str] = field(default_factory=dict)
    """Of each project's pages (its session list, its files touched), by path: the digest of what it was
    made from, so that the next build keeps the pages of projects in which nothing changed."""

    def to_bytes(self) -> bytes:
        return encode({
            "format": FORMAT,
            "settings": self.settings,
            "report": self.report,
            "site": self.site,
            "index_pages": self.index_pages,
            "files": [{item.name: getattr(record, item.name) for item in dataclasses.fields(record)}
                      for _, record in sorted(self.files.items())],
        })


def load(out: Path) -> Manifest:
    """The manifest of the site at `out`, or an empty one (no site, an older format, or damaged)."""
    try:
        data = orjson.loads((out / MANIFEST).read_bytes())  # written by orjson (`encode`): a third of the time of json
        if data.get("format") != FORMAT:
            return Manifest()
        files = {}
        for raw in data["files"]:
            record = FileRecord(**{name: raw[name] for name in FileRecord.__dataclass_fields__ if name in raw})
            if not all(map(_is_page_body_record, record.page_bodies.values())):
                return Manifest()
            files[record.path] = record
        index_pages = data.get("index_pages", {})
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in index_pages.items()):
            return Manifest()
        return Manifest(settings=data["settings"], report=data["report"], files=files, site=data["site"],
                        index_pages=index_pages)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return Manifest()


def _is_page_body_record(value: Any) -> bool:
    """[digest of Markdown and anchors, links asked about, digest of their answers, digest of the body,
    characters before it, characters after it] (`pipeline.incremental.PageBodies`)."""
    return (isinstance(value, list) and len(value) == 6 and isinstance(value[1], list)
            and all(isinstance(href, str) for href in value[1])
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value[4:]))


def site_digest(root: Path) -> str:
    """Every file of a site by name and size (the manifest aside): a site someone changed by hand is
    built again rather than left as it is."""
    return digest_of_files(site_files(root))


def digest_of_files(files: list[tuple[str, int]]) -> str:
    return digest(sorted(files))


def site_files(root: Path) -> list[tuple[str, int]]:
    """Every file of a site (the manifest aside), by path and size."""
    found = []
    # Each folder with its path inside the site (as os.path.relpath gives it, which costs more than the walk).
    folders: list[tuple[str, str]] = [(str(root), "")]
    while folders:
        folder, inside = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                name = os.path.join(inside, entry.name) if inside else entry.name
                if entry.is_dir(follow_symlinks=False):
                    folders.append((entry.path, name))
                elif entry.name != MANIFEST or inside:
                    found.append((name, entry.stat(follow_symlinks=False).st_size))
    return found


def unchanged(record: FileRecord | None, session_file: "SessionFile", hashes: HashCache) -> bool:
    """Same size and same content. Modification times are not kept in the manifest: it is part of the
    site, and two builds of the same input write the same bytes (`HashCache` keeps them elsewhere)."""
    if record is None or record.project_dir != session_file.project_dir:
        return False
    kept = session_file.kept
    if record.kept != (kept.last_seen if kept is not None else ""):
        return False
    if kept is not None:  # the vault knows its size and hash: nothing is read back to compare
        return record.size == kept.size and record.content_hash == kept.content_hash
    try:
        if session_file.path.stat().st_size != record.size:
            return False
        return hashes.content_hash(session_file.path) == record.content_hash
    except OSError:
        return False


def new_content_hasher() -> HASH:
    """SHA-1, as a change detector (not for security): three times faster here than BLAKE2b, which
    matters when a rebuild hashes every input to see whether anything changed."""
    return hashlib.sha1()


def file_hash(path: Path) -> str:
    hasher = new_content_hasher()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


class HashCache:
    """Content hashes of input files by path, size and modification time, kept between builds in the
    user's cache folder (not in the site, which stays free of paths and times): a rebuild hashes only
    the files that were touched since."""

    def __init__(self, path: Path | None):
        self.path = path
        self.known: dict[str, list[Any]] = {}
        self.changed = False
        if path is not None:
            try:
                loaded = json.loads(path.read_bytes())
                self.known = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                pass

    @classmethod
    def for_output(cls, out: Path) -> HashCache:
        return cls(user_cache_folder() / f"hashes-{digest(str(out.resolve()))[:24]}.json")

    def content_hash(self, path: Path) -> str:
        stat = path.stat()
        name = os.path.abspath(path)
        found = self.known.get(name)
        if isinstance(found, list) and found[:2] == [stat.st_size, stat.st_mtime_ns]:
            return str(found[2])
        hashed = file_hash(path)
        self.remember(path, stat.st_size, stat.st_mtime_ns, hashed)
        return hashed

    def as_last_seen(self, path: Path) -> bool:
        """Whether the file has the size and modification time it had when it was last hashed here."""
        found = self.known.get(os.path.abspath(path))
        try:
            stat = path.stat()
        except OSError:
            return False
        return isinstance(found, list) and found[:2] == [stat.st_size, stat.st_mtime_ns]

    def remember(self, path: Path, size: int, mtime_ns: int, content_hash: str) -> None:
        """`size` and `mtime_ns` as they were before the bytes were read: a file written to while it was
        read then looks changed to the next build, never the other way round."""
        if self.path is None:
            return
        self.known[os.path.abspath(path)] = [size, mtime_ns, content_hash]
        self.changed = True

    def save(self) -> None:
        if self.path is None or not self.changed:
            return
        try:
            known = json.dumps(self.known).encode("utf-8")
            write_atomically(self.path, lambda handle: handle.write(known), sync=False)
        except OSError:
            pass  # a read-only home: the next rebuild hashes every input again, that is all


NO_HASH_CACHE = HashCache(None)


def settings_digest(version: str, settings: Iterable[Any], theme_folders: Iterable[Path],
                    hashes: HashCache = NO_HASH_CACHE) -> str:
    """The generator's version and code, the settings, and the theme's files: any change renders
    everything. (The code, so that a changed renderer is never mistaken for an up-to-date site, even
    between releases.)

    Each file is named by its place inside the package or the theme, and the package's own `themes/` is
    left to the theme's part: a wheel holds the default theme inside generator/, a checkout beside it,
    and both must write the same manifest for the same site."""
    package = Path(__file__).resolve().parents[1]  # generator/, from generator/output/
    # Through the build's hash cache: a file whose size and time are those it had is not read again.
    content_hash = hashes.content_hash if hashes.path is not None else file_hash
    code = [(path.relative_to(package).as_posix(), content_hash(path)) for path in _files_under(package)
            if path.relative_to(package).parts[0] != "themes"]
    themes = [[(path.relative_to(folder).as_posix(), content_hash(path)) for path in _files_under(folder)]
              for folder in theme_folders]
    return digest(version, list(settings), code, themes)


def _files_under(folder: Path) -> list[Path]:
    """The files a package or a theme is made of, sorted: not Python's byte-code caches."""
    return sorted(path for path in folder.rglob("*") if path.is_file() and "__pycache__" not in path.parts
                  and path.suffix not in (".pyc", ".pyo"))
