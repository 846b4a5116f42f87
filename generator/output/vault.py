"""The vault: a private copy of every log sessionsite reads, kept after Claude Code deletes the original.

Claude Code deletes a session's log some weeks after its last activity (`cleanupPeriodDays`). Every
`build`, `markdown` and `bundle` saves the logs it reads here, and so does `sessionsite save` (which a
Claude Code hook can run when a session ends); a build then reads the logs that are gone from the vault,
so that their sessions stay in the site.

Storage: one SQLite database (the standard library's), in WAL mode. A log is kept as its bytes, split at
line ends into chunks of about a megabyte, each compressed with zlib and stored once by its digest; a
version of a log is the list of its chunks. A log that grew (the usual case: Claude Code only appends)
gains chunks at the end of its version, and only its last, partly filled chunk is written again, so a
growing session never costs a full copy. A log that lost bytes compared with its version here (cut
short, rewritten, or another session's log under the same name) becomes a new version beside the old
one, sharing the chunks they have in common: nothing is ever written over. Changes are found by the
file's size and modification time, then confirmed by the digest of the part already kept, so a save with
nothing changed reads no log at all.

Each save is prepared (read, hashed, compressed) outside any lock and written in one transaction: a save
killed at any moment leaves the vault as the last finished transaction left it, two saves at once both
succeed (SQLite serialises the writes; the second checks again what the first wrote), and a full disk
rolls the transaction back and is reported in one line.

The vault holds raw logs, secrets included: its folder is the owner's alone (0700, files 0600), it is
never inside an output folder, and nothing in it is published.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shlex
import shutil
import sqlite3
import stat
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Sequence, TypeVar

from ..core.errors import SessionsiteError
from ..stages.discover import SessionFile, path_in_project, project_folder_of

DATABASE = "vault.sqlite3"
HOOK_LOG = "hook.log"
WORK = "work"
FORMAT = 1
T = TypeVar("T")
CHUNK = 1 << 20
"""Chunks are cut at the first line end after this many bytes (or at the end of the log)…"""
LONG_LINE_CHUNK = 2 * CHUNK
"""…or, in a line that goes on past this many, here."""
LEVEL = 4
"""On the public corpus: 24% of the logs' size at 80 MB/s per core (zlib's default, 6: 23% at 55 MB/s)."""
BATCH = 64 << 20
"""Bytes of logs read before a transaction writes them: bounds the memory of a first save."""
HELD = 16 << 20
"""Compressed bytes of one log held for its transaction, at most: past this, its chunks are written ahead
(content-addressed, they mean nothing until a version lists them, and a save killed meanwhile leaves them
for the next save of the log to find)."""
BUSY_SECONDS = 120
WAL_LIMIT = 8 << 20
"""The write-ahead log is cut back to this after a checkpoint (a first save would leave it at its peak)."""
SQLITE_FULL = 13
IN_FLIGHT = 8
"""Chunks being compressed at once, at most: bounds the memory a very large log takes."""
"""How long a save waits for another one to finish writing."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS logs (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL UNIQUE,        -- where the live log was (absolute, resolved)
    project_path TEXT NOT NULL,         -- its project folder
    project_dir TEXT NOT NULL,          -- that folder's name, as discover reads it
    relpath TEXT NOT NULL,              -- inside the project folder: <id>.jsonl, <id>/subagents/agent-<a>.jsonl
    session_id TEXT NOT NULL,           -- the session it belongs to (a subagent's: its parent's)
    agent_id TEXT NOT NULL,
    parent_session_id TEXT NOT NULL,
    live_size INTEGER NOT NULL,         -- the live file when it was last saved, to see changes without reading
    live_mtime_ns INTEGER NOT NULL,
    last_seen TEXT NOT NULL             -- UTC date a save last saw the live log
);
CREATE INDEX IF NOT EXISTS logs_session ON logs (session_id);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY,
    log_id INTEGER NOT NULL REFERENCES logs (id),
    number INTEGER NOT NULL,            -- 1, 2, ...: a new one when the live log lost bytes
    size INTEGER NOT NULL,
    sha1 TEXT NOT NULL,                 -- of the whole content, as the build manifest hashes inputs
    first_saved TEXT NOT NULL,
    last_saved TEXT NOT NULL,
    UNIQUE (log_id, number)
);
CREATE TABLE IF NOT EXISTS chunks (
    digest BLOB PRIMARY KEY,            -- BLAKE2b-128 of the raw bytes
    size INTEGER NOT NULL,              -- raw
    data BLOB NOT NULL                  -- zlib
);
CREATE TABLE IF NOT EXISTS version_chunks (
    version_id INTEGER NOT NULL REFERENCES versions (id),
    seq INTEGER NOT NULL,
    digest BLOB NOT NULL REFERENCES chunks (digest),
    PRIMARY KEY (version_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS version_chunks_digest ON version_chunks (digest);
"""


class VaultError(SessionsiteError):
    """The vault cannot be opened, written or read."""


def default_location() -> Path:
    """The platform's user-data folder: `$XDG_DATA_HOME/sessionsite/vault` (~/.local/share/... on Linux)."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "sessionsite" / "vault"


def today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _chunk_digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def _content_hasher() -> Any:
    from .manifest import new_content_hasher  # the build's input hash, so the two can be compared

    return new_content_hasher()


def _explain(error: BaseException, folder: Path) -> str:
    """One line for what went wrong with the vault's disk."""
    full = (isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)) or (
        isinstance(error, sqlite3.Error) and (getattr(error, "sqlite_errorcode", 0) == SQLITE_FULL
                                              or "disk is full" in str(error)))
    if full:
        return (f"cannot save to the vault {folder}: the disk is full (nothing it held before was lost; "
                "free some space and save again)")
    if isinstance(error, OSError):
        return f"cannot use the vault {folder}: {error.strerror or error}"
    return f"cannot use the vault {folder}: {error}"


# -- the database ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def _private_files() -> Iterator[None]:
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def _connect(database: Path, create: bool) -> sqlite3.Connection:
    if create:
        with _private_files():
            database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if stat.S_IMODE(database.parent.stat().st_mode) & 0o077:
                database.parent.chmod(0o700)
            connection = sqlite3.connect(database, timeout=BUSY_SECONDS, isolation_level=None)
    else:
        connection = sqlite3.connect(f"{database.as_uri()}?mode=rw", uri=True, timeout=BUSY_SECONDS,
                                     isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")  # a finished save survives a power cut too
        connection.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > FORMAT:
            raise VaultError(f"the vault {database.parent} was written by a newer sessionsite; upgrade to use it")
        if version < FORMAT:
            if not create:
                raise VaultError(f"{database.parent}: not a sessionsite vault")
            with _transaction(connection):
                for statement in SCHEMA.split(";"):
                    connection.execute(statement)
                connection.execute(f"PRAGMA user_version={FORMAT}")
            database.chmod(0o600)
    except BaseException:
        connection.close()
        raise
    return connection


@contextlib.contextmanager
def _transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    connection.execute("BEGIN IMMEDIATE")  # takes the write lock now: what is read next stays true
    try:
        yield connection
    except BaseException:
        if connection.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


@dataclass(frozen=True)
class _Current:
    """A log as the vault has it: its row and its latest version."""

    log_id: int
    live_size: int
    live_mtime_ns: int
    last_seen: str
    version_id: int
    number: int
    size: int
    sha1: str
    chunks: tuple[tuple[bytes, int], ...] = ()
    """The latest version's chunks (digest, raw size), read only when the log has to be read."""


_LATEST = """
SELECT logs.id, logs.live_size, logs.live_mtime_ns, logs.last_seen, versions.id, versions.number, versions.size,
       versions.sha1, logs.origin, logs.project_path, logs.project_dir, logs.relpath, logs.session_id, logs.agent_id,
       logs.parent_session_id
FROM logs JOIN versions ON versions.log_id = logs.id
WHERE versions.number = (SELECT MAX(number) FROM versions AS later WHERE later.log_id = logs.id)
"""


def _current_of(connection: sqlite3.Connection, origin: str | None = None) -> dict[str, _Current]:
    query, parameters = (_LATEST, ()) if origin is None else (_LATEST + " AND logs.origin = ?", (origin,))
    return {row[8]: _Current(*row[:8]) for row in connection.execute(query, parameters)}


def _with_chunks(connection: sqlite3.Connection, current: _Current | None) -> _Current | None:
    if current is None or current.chunks:
        return current
    chunks = tuple((bytes(digest), size) for digest, size in connection.execute(
        "SELECT version_chunks.digest, chunks.size FROM version_chunks JOIN chunks USING (digest) "
        "WHERE version_id = ? ORDER BY seq", (current.version_id,)))
    return replace(current, chunks=chunks)


def _chunk_data(connection: sqlite3.Connection, digest: bytes) -> bytes:
    row = connection.execute("SELECT data FROM chunks WHERE digest = ?", (digest,)).fetchone()
    if row is None:
        raise VaultError("the vault is damaged: a chunk of a kept log is missing")
    return zlib.decompress(row[0])


# -- saving ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where a log was: enough to find it again under an INPUT, to build it as it was, and to restore it."""

    origin: str
    project_path: str
    project_dir: str
    relpath: str
    session_id: str
    agent_id: str
    parent_session_id: str

    @classmethod
    def of(cls, session_file: SessionFile, origin: str) -> Place:
        """`origin`: the file's resolved path."""
        path = session_file.path
        # A 1.x agent log names its session only inside: `_write` reads it there.
        session_id = session_file.parent_session_id or ("" if session_file.agent_id else path.stem)
        return cls(origin, str(project_folder_of(session_file).resolve()), session_file.project_dir,
                   path_in_project(session_file), session_id, session_file.agent_id, session_file.parent_session_id)


@dataclass
class _Prepared:
    """One log read and compressed, ready to be written, against the state of the vault it was read from."""

    place: Place
    path: Path
    """The live log, as it was given."""
    live: tuple[int, int]
    """Its size and modification time before it was read."""
    kind: str
    """new, grown, version (lost bytes: kept beside the old one), touched (same bytes), unchanged."""
    base: tuple[int, int, str] | None
    """(version id, size, sha1) of the vault's latest version it was compared with."""
    size: int = 0
    sha1: str = ""
    keep: int = 0
    """Chunks of the base version it starts with."""
    chunks: list[tuple[bytes, int, bytes | None]] = field(default_factory=list)
    """New chunks after those: digest, raw size, compressed data (None: the vault holds it already)."""
    read: int = 0
    """Bytes read from the live log."""
    written_ahead: int = 0
    """Compressed bytes of its chunks written before its transaction (`HELD`)."""

    @property
    def stored(self) -> int:
        return self.written_ahead + sum(len(data) for _, _, data in self.chunks if data is not None)


@dataclass
class SaveReport:
    """What a save did."""

    new: int = 0
    """Logs the vault did not have."""
    grown: int = 0
    """Logs that grew since they were saved."""
    versions: int = 0
    """Logs that lost bytes, kept as a new version beside the old one."""
    unchanged: int = 0
    read_bytes: int = 0
    stored_bytes: int = 0
    hashes: dict[Path, tuple[int, int, str]] = field(default_factory=dict)
    """For each log read whole: its size and modification time before the read, and its content hash."""
    skipped: list[str] = field(default_factory=list)
    """Files that could not be read (gone or unreadable), with why."""

    @property
    def saved(self) -> int:
        return self.new + self.grown + self.versions

    def summary(self) -> str:
        parts = [f"{self.new} new", f"{self.grown} grown"]
        if self.versions:
            parts.append(f"{self.versions} changed (kept as new versions beside the old)")
        parts.append(f"{self.unchanged} unchanged")
        return ", ".join(parts)


class _Chunker:
    """Cuts a stream of bytes into chunks at line ends, compressing them on a few threads (zlib lets go of
    the interpreter while it works)."""

    def __init__(self, connection: sqlite3.Connection, pool: ThreadPoolExecutor):
        self.connection = connection
        self.pool = pool
        self.pending: bytearray = bytearray()
        self.out: list[Any] = []
        self.done = 0
        """Chunks at the start of `out` whose compression has finished."""
        self.held = 0
        """Compressed bytes of those chunks not yet written."""
        self.written_ahead = 0

    def feed(self, data: bytes) -> None:
        self.pending += data
        while len(self.pending) > CHUNK:
            # A line longer than a chunk is cut too, at LONG_LINE_CHUNK: held whole, a line of a gigabyte
            # took gigabytes.
            cut = self.pending.find(b"\n", CHUNK - 1, LONG_LINE_CHUNK)
            if cut < 0:
                if len(self.pending) < LONG_LINE_CHUNK:
                    return  # the line may end in the next block
                cut = LONG_LINE_CHUNK - 1
            self._emit(bytes(self.pending[:cut + 1]))
            del self.pending[:cut + 1]

    def finish(self) -> list[tuple[bytes, int, bytes | None]]:
        if self.pending:
            self._emit(bytes(self.pending))
            self.pending = bytearray()
        self._settle(0)
        return self.out

    def _emit(self, raw: bytes) -> None:
        digest = _chunk_digest(raw)
        known = self.connection.execute("SELECT 1 FROM chunks WHERE digest = ?", (digest,)).fetchone()
        self.out.append((digest, len(raw), None if known else self.pool.submit(zlib.compress, raw, LEVEL)))
        self._settle(IN_FLIGHT)

    def _settle(self, in_flight: int) -> None:
        while len(self.out) - self.done > in_flight:
            digest, size, data = self.out[self.done]
            self.out[self.done] = (digest, size, data.result() if data is not None else None)
            self.held += len(self.out[self.done][2] or b"")
            self.done += 1
        if self.held > HELD:
            self._write_ahead()

    def _write_ahead(self) -> None:
        """The finished chunks into the vault now (in the save's transaction if one is open), each then
        counted on as one the vault holds: `_write` reads the log again if one is gone by then."""
        ahead = [(digest, size, data) for digest, size, data in self.out[:self.done] if data is not None]
        with contextlib.nullcontext() if self.connection.in_transaction else _transaction(self.connection):
            self.connection.executemany("INSERT OR IGNORE INTO chunks (digest, size, data) VALUES (?, ?, ?)", ahead)
        self.out[:self.done] = [(digest, size, None) for digest, size, _ in self.out[:self.done]]
        self.written_ahead += self.held
        self.held = 0


def _read_blocks(handle: Any, limit: int | None = None) -> Iterator[bytes]:
    left = limit
    while left is None or left > 0:
        block = handle.read(CHUNK if left is None else min(CHUNK, left))
        if not block:
            return
        if left is not None:
            left -= len(block)
        yield block


def _prepare(connection: sqlite3.Connection, pool: ThreadPoolExecutor, place: Place, path: Path,
             live: tuple[int, int], current: _Current | None) -> _Prepared:
    """Read one log and compare it with the vault's latest version of it."""
    base = (current.version_id, current.size, current.sha1) if current else None
    if current is not None and live == (current.live_size, current.live_mtime_ns):
        return _Prepared(place, path, live, "unchanged", base)
    with path.open("rb") as handle:
        hasher = _content_hasher()
        read = 0
        if current is not None:
            for block in _read_blocks(handle, current.size):
                hasher.update(block)
                read += len(block)
            if read == current.size and hasher.hexdigest() == current.sha1:
                chunker = _Chunker(connection, pool)
                current = _with_chunks(connection, current)
                assert current is not None
                keep = len(current.chunks)
                if keep and current.chunks[-1][1] < CHUNK:  # the last chunk is not full: write it again, longer
                    keep -= 1
                    chunker.feed(_chunk_data(connection, current.chunks[-1][0]))
                grown = 0
                for block in _read_blocks(handle):
                    hasher.update(block)
                    chunker.feed(block)
                    grown += len(block)
                if not grown:
                    return _Prepared(place, path, live, "touched", base, current.size, current.sha1, read=read)
                return _Prepared(place, path, live, "grown", base, read + grown, hasher.hexdigest(), keep,
                                 chunker.finish(), read=read + grown, written_ahead=chunker.written_ahead)
            handle.seek(0)  # it lost bytes: a new version, sharing what it can with the old one
        hasher = _content_hasher()
        chunker = _Chunker(connection, pool)
        keep, size = 0, 0
        current = _with_chunks(connection, current)
        for digest, chunk_size in (current.chunks if current else ()):
            raw = handle.read(chunk_size)
            if len(raw) != chunk_size or _chunk_digest(raw) != digest:
                hasher.update(raw)
                chunker.feed(raw)
                size += len(raw)
                break
            hasher.update(raw)
            keep, size = keep + 1, size + chunk_size
        for block in _read_blocks(handle):
            hasher.update(block)
            chunker.feed(block)
            size += len(block)
    return _Prepared(place, path, live, "version" if current else "new", base, size, hasher.hexdigest(), keep,
                     chunker.finish(), read=read + size, written_ahead=chunker.written_ahead)


def first_value(path: Path, key: str, lines: int = 50) -> str:
    """The first string `key` holds in the first `lines` entries of a log (a 1.x agent log names its
    session only there, as `sessionId`), or ""."""
    try:
        with path.open("rb") as handle:
            # A line longer than a chunk is not read whole (a first line of a gigabyte): cut, it fails to parse.
            for line in iter(lambda: handle.readline(CHUNK), b""):
                lines -= 1
                if lines < 0:
                    break
                try:
                    value = json.loads(line).get(key)
                except (ValueError, AttributeError):
                    continue
                if isinstance(value, str) and value:
                    return value
    except OSError:
        pass
    return ""


def _write(connection: sqlite3.Connection, prepared: _Prepared, seen: str) -> None:
    """Put one prepared log in the vault (inside the save's transaction)."""
    place, now = prepared.place, _now()
    size_mtime = prepared.live
    if prepared.kind == "new":
        session_id = place.session_id or first_value(Path(place.origin), "sessionId", 20)
        log_id = connection.execute(
            "INSERT INTO logs (origin, project_path, project_dir, relpath, session_id, agent_id, parent_session_id,"
            " live_size, live_mtime_ns, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (place.origin, place.project_path, place.project_dir, place.relpath, session_id, place.agent_id,
             place.parent_session_id, *size_mtime, seen)).lastrowid
    else:
        assert prepared.base is not None
        log_id = connection.execute("SELECT log_id FROM versions WHERE id = ?", (prepared.base[0],)).fetchone()[0]
        connection.execute(
            "UPDATE logs SET project_path = ?, project_dir = ?, relpath = ?, agent_id = ?, parent_session_id = ?,"
            " live_size = ?, live_mtime_ns = ?, last_seen = ? WHERE id = ?",
            (place.project_path, place.project_dir, place.relpath, place.agent_id, place.parent_session_id,
             *size_mtime, seen, log_id))
    if prepared.kind in ("unchanged", "touched"):
        return
    for digest, size, data in prepared.chunks:
        if data is not None:
            connection.execute("INSERT OR IGNORE INTO chunks (digest, size, data) VALUES (?, ?, ?)", (digest, size, data))
        elif connection.execute("SELECT 1 FROM chunks WHERE digest = ?", (digest,)).fetchone() is None:
            raise _Stale()  # a chunk it counted on went away since: read the log again
    version_id: int | None  # sqlite3 types a new row's id as optional
    if prepared.kind == "grown":
        assert prepared.base is not None
        version_id = prepared.base[0]
        dropped = [bytes(row[0]) for row in connection.execute(
            "SELECT digest FROM version_chunks WHERE version_id = ? AND seq >= ?", (version_id, prepared.keep))]
        connection.execute("DELETE FROM version_chunks WHERE version_id = ? AND seq >= ?", (version_id, prepared.keep))
        connection.execute("UPDATE versions SET size = ?, sha1 = ?, last_saved = ? WHERE id = ?",
                           (prepared.size, prepared.sha1, now, version_id))
    else:
        number = connection.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE log_id = ?",
                                    (log_id,)).fetchone()[0]
        version_id = connection.execute(
            "INSERT INTO versions (log_id, number, size, sha1, first_saved, last_saved) VALUES (?, ?, ?, ?, ?, ?)",
            (log_id, number, prepared.size, prepared.sha1, now, now)).lastrowid
        assert version_id is not None  # the row an INSERT has just made
        if prepared.keep:
            assert prepared.base is not None
            connection.execute(
                "INSERT INTO version_chunks (version_id, seq, digest) SELECT ?, seq, digest FROM version_chunks"
                " WHERE version_id = ? AND seq < ?", (version_id, prepared.base[0], prepared.keep))
        dropped = []
    connection.executemany("INSERT INTO version_chunks (version_id, seq, digest) VALUES (?, ?, ?)",
                           [(version_id, prepared.keep + i, digest) for i, (digest, _, _) in enumerate(prepared.chunks)])
    for digest in dropped:  # a last chunk written again, longer: the shorter one goes unless shared
        connection.execute("DELETE FROM chunks WHERE digest = ? AND NOT EXISTS "
                           "(SELECT 1 FROM version_chunks WHERE digest = ?)", (digest, digest))


class _Stale(Exception):
    """The vault changed under a prepared log (another save wrote it): prepare it again."""


# -- reading back ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeptLog:
    """A log that is gone from where it was, as the vault keeps it; `readable()` writes it out (once per
    build, into the build's private work folder) for the reader."""

    database: str
    version_id: int
    size: int
    content_hash: str
    last_seen: str
    """UTC date a save last saw the live log: it was deleted on or after that day."""
    work: str
    name: str

    def readable(self) -> Path:
        target = Path(self.work) / str(self.version_id) / self.name
        if target.exists():
            return target
        with _private_files():
            target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f".{self.name}.{os.getpid()}.part")
        connection = _connect(Path(self.database), create=False)
        try:
            with _private_files(), part.open("wb") as handle:
                _write_version(connection, self.version_id, self.content_hash, handle)
        finally:
            connection.close()
        os.replace(part, target)
        return target


def _write_version(connection: sqlite3.Connection, version_id: int, sha1: str, handle: Any) -> int:
    """A version's bytes into `handle`, checked against its content hash. One read transaction: a save
    growing the same log meanwhile cannot take a chunk from under it."""
    hasher = _content_hasher()
    written = 0
    connection.execute("BEGIN")
    try:
        for (digest,) in connection.execute(
                "SELECT digest FROM version_chunks WHERE version_id = ? ORDER BY seq", (version_id,)).fetchall():
            raw = _chunk_data(connection, bytes(digest))
            hasher.update(raw)
            handle.write(raw)
            written += len(raw)
    finally:
        connection.execute("COMMIT")
    if hasher.hexdigest() != sha1:
        raise VaultError("the vault is damaged: a kept log does not match its digest")
    return written


@dataclass(frozen=True)
class Stored:
    """One log the vault holds, with its latest version."""

    place: Place
    last_seen: str
    version_id: int
    number: int
    size: int
    sha1: str
    live: tuple[int, int]

    def session_file(self, database: Path, work: Path) -> SessionFile:
        """As discover would have found it where it was, read from the vault."""
        kept = KeptLog(str(database), self.version_id, self.size, self.sha1, self.last_seen, str(work),
                       Path(self.place.origin).name)
        return SessionFile(Path(self.place.origin), self.place.project_dir, self.place.agent_id,
                           self.place.parent_session_id, kept=kept)

    @property
    def name(self) -> str:
        return f"{self.place.project_dir}/{self.place.relpath}"


def under(stored: Stored, roots: Sequence[Path], project_folders: set[str]) -> bool:
    """Whether discover would have found the log under one of the INPUTs, had it still been there: the
    INPUT was the log itself, its project folder, or the folder of project folders holding that."""
    for root in roots:
        text = str(root)
        if stored.place.origin == text or stored.place.project_path == text:
            return True
        if str(Path(stored.place.project_path).parent) == text and text not in project_folders:
            return True
    return False


# -- the vault ---------------------------------------------------------------------------------------------


class Vault:
    """The vault in `folder`. Each method opens the database, does its work and closes it again (a build
    forks workers, which must not share a connection)."""

    def __init__(self, folder: Path):
        self.folder = folder.expanduser().absolute()
        self.database = self.folder / DATABASE

    def exists(self) -> bool:
        return self.database.is_file()

    @contextlib.contextmanager
    def _open(self, create: bool = True) -> Iterator[sqlite3.Connection]:
        try:
            connection = _connect(self.database, create)
        except (OSError, sqlite3.Error) as error:
            raise VaultError(_explain(error, self.folder)) from error
        try:
            yield connection
        except (OSError, sqlite3.Error) as error:
            raise VaultError(_explain(error, self.folder)) from error
        finally:
            connection.close()

    def save(self, files: Iterable[SessionFile],
             progress: Callable[[Iterable[Any], int, str], Iterator[Any]] | None = None) -> SaveReport:
        """Save every log that is new or changed since it was last saved. Logs are read and compressed
        before the write lock is taken, in batches of BATCH bytes, each written in one transaction."""
        report = SaveReport()
        seen = today()
        with self._open() as connection, ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            known = _current_of(connection)
            work: list[tuple[Place, Path, tuple[int, int]]] = []
            for session_file in files:
                try:
                    info = session_file.path.stat()
                    origin = str(session_file.path.resolve())
                except OSError as error:
                    report.skipped.append(f"{session_file.path}: {error.strerror or error}")
                    continue
                if not stat.S_ISREG(info.st_mode):
                    report.skipped.append(f"{session_file.path}: not a regular file")
                    continue
                live = (info.st_size, info.st_mtime_ns)
                current = known.get(origin)
                if current is not None and live == (current.live_size, current.live_mtime_ns):
                    report.unchanged += 1
                    if current.last_seen == seen:
                        continue  # else saved again, only to note it was seen today
                work.append((Place.of(session_file, origin), session_file.path, live))
            batch: list[_Prepared] = []
            batch_bytes = 0
            items = progress(work, len(work), "Saving to the vault") if progress and work else work
            for place, path, live in items:
                prepared = self._prepare(connection, pool, place, path, live, known.get(place.origin), report)
                if prepared is None:
                    continue
                batch.append(prepared)
                batch_bytes += prepared.read
                if batch_bytes >= BATCH:
                    self._commit(connection, pool, batch, seen, report)
                    batch, batch_bytes = [], 0
            if batch:
                self._commit(connection, pool, batch, seen, report)
            if report.saved:  # what was written moves into the database file, and the log file shrinks
                connection.execute("PRAGMA busy_timeout=1000")  # not at any price: a reader may hold it back
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return report

    def _prepare(self, connection: sqlite3.Connection, pool: ThreadPoolExecutor, place: Place, path: Path,
                 live: tuple[int, int], current: _Current | None, report: SaveReport) -> _Prepared | None:
        try:
            return _prepare(connection, pool, place, path, live, current)
        except OSError as error:
            if error.errno in (errno.ENOSPC, errno.EDQUOT):
                raise
            report.skipped.append(f"{path}: {error.strerror or error}")
            return None

    def _commit(self, connection: sqlite3.Connection, pool: ThreadPoolExecutor, batch: list[_Prepared], seen: str,
                report: SaveReport) -> None:
        with _transaction(connection):
            for index, prepared in enumerate(batch):
                current = _current_of(connection, prepared.place.origin).get(prepared.place.origin)
                base = (current.version_id, current.size, current.sha1) if current else None
                try:
                    if base != prepared.base:
                        raise _Stale()
                    _write(connection, prepared, seen)
                except _Stale:  # another save wrote this log since it was read: read it again, under the lock
                    again = self._prepare(connection, pool, prepared.place, prepared.path, prepared.live, current,
                                          report)
                    if again is None:
                        continue
                    prepared = batch[index] = again
                    _write(connection, prepared, seen)
                self._count(prepared, report)
        for prepared in batch:
            if prepared.kind in ("new", "grown", "version", "touched") and prepared.read == prepared.size:
                report.hashes[prepared.path] = (*prepared.live, prepared.sha1)

    @staticmethod
    def _count(prepared: _Prepared, report: SaveReport) -> None:
        if prepared.kind == "new":
            report.new += 1
        elif prepared.kind == "grown":
            report.grown += 1
        elif prepared.kind == "version":
            report.versions += 1
        elif prepared.kind == "touched":
            report.unchanged += 1
        report.read_bytes += prepared.read
        report.stored_bytes += prepared.stored

    def stored(self) -> list[Stored]:
        """Every log the vault holds, with its latest version, in a stable order."""
        if not self.exists():
            return []
        with self._open(create=False) as connection:
            rows = connection.execute(_LATEST + " ORDER BY logs.origin").fetchall()
        return [Stored(Place(*row[8:15]), last_seen=row[3], version_id=row[4], number=row[5], size=row[6], sha1=row[7],
                       live=(row[1], row[2])) for row in rows]

    def gone_under(self, inputs: Sequence[Path], live: Sequence[SessionFile]) -> list[Stored]:
        """The logs that were found under the INPUTs once and are not there now."""
        live_origins = {str(f.path.resolve()) for f in live}
        everything = self.stored()
        gone = [s for s in everything if s.place.origin not in live_origins]
        if not gone:
            return []
        roots = [Path(given).resolve() for given in inputs]
        project_folders = {str(project_folder_of(f).resolve()) for f in live}
        project_folders.update(s.place.project_path for s in everything)
        return [s for s in gone if under(s, roots, project_folders)]

    @contextlib.contextmanager
    def work_folder(self) -> Iterator[Path]:
        """A private folder for the logs a build reads back, removed when the build ends (and, if a build was
        killed, by the next one)."""
        root = self.folder / WORK
        with _private_files():
            try:
                root.mkdir(parents=True, exist_ok=True)
                for leftover in root.iterdir():
                    pid = leftover.name.partition("-")[0]
                    if pid.isdigit() and not _alive(int(pid)):
                        shutil.rmtree(leftover, ignore_errors=True)
                folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root))
            except OSError as error:
                raise VaultError(_explain(error, self.folder)) from error
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    # -- restore ------------------------------------------------------------------------------------------

    def versions_of(self, session_id: str) -> list[tuple[Stored, list[Version]]]:
        """The logs of one session (its own and its subagents'), each with all its versions. A unique
        beginning of the session id (eight characters or more) will do."""
        if not self.exists():
            return []
        with self._open(create=False) as connection:
            found = connection.execute("SELECT DISTINCT session_id FROM logs WHERE session_id = ? OR "
                                       "(session_id LIKE ? ESCAPE '\\' AND length(?) >= 8)",
                                       (session_id, _like_prefix(session_id), session_id)).fetchall()
            ids = sorted({row[0] for row in found})
            if len(ids) > 1:
                raise VaultError(f"{session_id!r} starts {len(ids)} session ids in the vault: "
                                 + ", ".join(ids[:5]) + ("…" if len(ids) > 5 else ""))
            if not ids:
                return []
            result = []
            stored = {s.place.origin: s for s in self.stored()}
            for (origin,) in connection.execute("SELECT origin FROM logs WHERE session_id = ? ORDER BY origin", ids):
                versions = connection.execute(
                    "SELECT versions.number, versions.size, versions.sha1, versions.first_saved, versions.last_saved"
                    " FROM versions JOIN logs ON logs.id = versions.log_id WHERE logs.origin = ? ORDER BY number",
                    (origin,)).fetchall()
                result.append((stored[origin], [Version(*v) for v in versions]))
            return result

    def write_out(self, origin: str, number: int | None, target: Path) -> int:
        """One version of a log (the latest unless `number` says) written to `target`, atomically."""
        with self._open(create=False) as connection:
            row = connection.execute(
                "SELECT versions.id, versions.sha1 FROM versions JOIN logs ON logs.id = versions.log_id"
                " WHERE logs.origin = ? AND (versions.number = ? OR ? IS NULL) ORDER BY versions.number DESC LIMIT 1",
                (origin, number, number)).fetchone()
            if row is None:
                raise VaultError(f"the vault has no version {number} of {origin}")
            return write_atomically(target, lambda handle: _write_version(connection, row[0], row[1], handle))

    def size_on_disk(self) -> int:
        return sum(path.stat().st_size for path in self.folder.glob(DATABASE + "*") if path.is_file())


@dataclass(frozen=True)
class Version:
    number: int
    size: int
    sha1: str
    first_saved: str
    last_saved: str


@dataclass
class Restored:
    lines: list[str] = field(default_factory=list)


def restore(vault: Vault, session_id: str, output: Path | None, projects: Path, number: int | None = None,
            list_only: bool = False) -> Restored:
    """Write a session's logs back where they were in their project folder (under `projects`, or under
    `output`), byte for byte. A log already there is left as it is when it is the same, and stops the
    restore when it is not: nothing live is ever overwritten."""
    from .manifest import file_hash

    logs = vault.versions_of(session_id)
    if not logs:
        raise VaultError(f"the vault {vault.folder} keeps no session {session_id}")
    by_folder: dict[str, list[tuple[Stored, list[Version]]]] = {}
    for stored, versions in logs:
        by_folder.setdefault(stored.place.project_path, []).append((stored, versions))
    # The same session saved from two places (an archive moved, a copy): the one seen last.
    folder = max(by_folder, key=lambda f: (max(s.last_seen for s, _ in by_folder[f]), f))
    chosen = sorted(by_folder[folder], key=lambda item: (item[0].place.agent_id != "", item[0].place.relpath))
    main = chosen[0][0]
    result = Restored()
    if list_only:
        for stored, versions in chosen:
            result.lines.append(f"{stored.name} (last seen {stored.last_seen}"
                                + (", gone from where it was" if not Path(stored.place.origin).exists() else "") + ")")
            for version in versions:
                result.lines.append(f"  version {version.number}: {version.size:,} bytes, saved {version.first_saved}"
                                    + (f" to {version.last_saved}" if version.last_saved != version.first_saved else ""))
        return result
    target_folder = (output if output is not None else projects / main.place.project_dir).expanduser().absolute()
    plan: list[tuple[Stored, Version, Path]] = []
    for stored, versions in chosen:
        relative = Path(stored.place.relpath)
        if relative.is_absolute() or ".." in relative.parts:
            raise VaultError(f"the vault is damaged: {stored.place.relpath!r} is not a place in a project folder")
        wanted = number if number is not None and stored is main else versions[-1].number
        found = next((v for v in versions if v.number == wanted), None)
        if found is None:
            raise VaultError(f"the vault keeps versions 1 to {versions[-1].number} of {stored.name}, not {wanted}")
        plan.append((stored, found, target_folder / stored.place.relpath))
    in_the_way = [target for _, version, target in plan
                  if (target.exists() or target.is_symlink()) and not (target.is_file() and file_hash(target) == version.sha1)]
    if in_the_way:
        raise VaultError(f"{in_the_way[0]}: a different log is there already; it is left as it is (restore "
                         f"elsewhere with -o DIR)" + (f", and {len(in_the_way) - 1} more" if len(in_the_way) > 1 else ""))
    written = same = 0
    for stored, version, target in plan:
        if target.exists():
            same += 1
            continue
        written += vault.write_out(stored.place.origin, version.number, target)
    restored = len(plan) - same
    result.lines.append(f"restored {main.place.session_id}: {restored} log{'s' if restored != 1 else ''} "
                        f"({written:,} bytes) into {target_folder}"
                        + (f"; {same} already there, the same" if same else ""))
    others = sum(len(versions) - 1 for _, versions in chosen)
    if others and number is None:
        result.lines.append(f"the vault keeps {others} older version(s) too: see `sessionsite restore "
                            f"{main.place.session_id} --list`")
    if len(by_folder) > 1:
        result.lines.append("also kept from: " + ", ".join(sorted(set(by_folder) - {folder})))
    cwd = first_value(target_folder / main.place.relpath, "cwd")
    if output is None and main.place.relpath.endswith(".jsonl"):
        where = f"cd {shlex.quote(cwd)} && " if cwd else ""
        result.lines.append(f"resume it with: {where}claude --resume {main.place.session_id}")
    return result


def write_atomically(target: Path, fill: Callable[[BinaryIO], T], mode: int = 0o600) -> T:
    """A file that is either there whole or not at all: `fill` writes it beside `target`, and it is synced
    to disk and renamed over `target`. Returns what `fill` returned."""
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        with os.fdopen(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "wb") as handle:
            result = fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)
    return result


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def log_hook_failure(folder: Path, message: str) -> None:
    """A hook never shows an error in Claude Code: what went wrong goes to `hook.log` in the vault."""
    with contextlib.suppress(OSError), _private_files():
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / HOOK_LOG
        if path.exists() and path.stat().st_size > 256 << 10:
            os.replace(path, path.with_name(HOOK_LOG + ".1"))
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"{_now()} {message}\n")


__all__ = ["KeptLog", "SaveReport", "Stored", "Vault", "VaultError", "default_location", "restore"]
