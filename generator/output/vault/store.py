"""The vault's database: its schema, opening it, and reading what it holds back with every byte checked.

A log is kept as its bytes, split at line ends into chunks of about a megabyte, each compressed with
Zstandard (a vault of format 1 holds zlib chunks, still read) and stored once by its digest; a version of a log is the list of its chunks. Nothing read from the file
is trusted: a chunk is checked against its digest and size when it is read, and a row against the types
and ranges the schema means, so that damage (a failing disk, a hand with sqlite3) costs only the logs it
touches, each named (`Damaged`), and never the rest.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import reprlib
import sqlite3
import stat
import sys
import threading
import zlib
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, Mapping

import zstandard

from ...core.errors import SessionsiteError
from ...core.places import data_home
from ...stages.agents import codex_session_id

DATABASE = "vault.sqlite3"
HOOK_LOG = "hook.log"
WORK = "work"
FORMAT = 2
"""What the vault's database holds: 1, chunks compressed with zlib; 2, with Zstandard, and the zlib chunks a vault
of format 1 held (a vault of format 1 is taken on as it is: its chunks are read as they are)."""
READABLE_FORMATS = (1, 2)
CHUNK = 1 << 20
"""Chunks are cut at the first line end after this many bytes (or at the end of the log)."""
DIGEST_SIZE = 16
LEVEL = 3
"""Zstandard's level. On real logs (the scaled corpus): 25% of their size at about 570 MB/s per core, where zlib
(level 4) gave 30% at 75 MB/s, and compressing them was a tenth of a first build's time."""
BATCH = 64 << 20
"""Bytes of logs read before a transaction writes them: bounds the memory of a first save."""
BUSY_SECONDS = 120.0
"""How long a save waits for another one to finish writing."""
WAL_LIMIT = 8 << 20
"""The write-ahead log is cut back to this after a checkpoint (a first save would leave it at its peak)."""
SQLITE_FULL = 13
LONG_LINE_CHUNK = 2 * CHUNK
"""A line that goes on past this many bytes is cut here too."""
HELD = 16 << 20
"""Compressed bytes of one log held for its transaction, at most: past this, its chunks are written ahead."""
IN_FLIGHT = 8
"""Chunks being compressed at once, at most: bounds the memory a very large log takes."""

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
    data BLOB NOT NULL                  -- a Zstandard frame (zlib in format 1)
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


class Damaged(VaultError):
    """What the vault holds of one log is damaged: a chunk that is missing or does not match its digest, or
    a row that does not hold what the schema means. Only that log is lost (every version using the chunk)."""

    def __init__(self, reason: str):
        super().__init__(f"the vault's copy of this log is damaged ({reason})")
        self.reason = reason


def default_location(platform: str = sys.platform, environ: Mapping[str, str] = os.environ,
                     home: Path | None = None) -> Path:
    """`sessionsite/vault` in the platform's user-data folder (`core.places.data_home`). On macOS and
    Windows, a vault already kept where every platform kept it before (`~/.local/share`) stays in use:
    a vault may hold the only copy of a log, and a new one elsewhere would leave it unread."""
    found = data_home(platform, environ, home) / "sessionsite" / "vault"
    former = (home or Path.home()) / ".local" / "share" / "sessionsite" / "vault"
    if platform in ("darwin", "win32") and not environ.get("XDG_DATA_HOME") and not found.exists() and former.is_dir():
        return former
    return found


def today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def chunk_digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=DIGEST_SIZE).digest()


def content_hasher() -> Any:
    from ..manifest import new_content_hasher  # the build's input hash, so the two can be compared

    return new_content_hasher()


def in_folder(error: OSError, folder: Path) -> bool:
    """Whether an OSError is about the vault: it names a file in it, or none."""
    return error.filename is None or Path(os.path.abspath(os.fsdecode(error.filename))).is_relative_to(folder)


def explain(error: BaseException, folder: Path) -> str:
    """One line for what went wrong with the vault's disk or file."""
    full = (isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)) or (
        isinstance(error, sqlite3.Error) and (getattr(error, "sqlite_errorcode", 0) == SQLITE_FULL
                                              or "disk is full" in str(error)))
    if full:
        return (f"cannot save to the vault {folder}: the disk is full (nothing it held before was lost; "
                "free some space and save again)")
    if isinstance(error, VaultError):
        return str(error)
    if isinstance(error, OSError):
        return f"cannot use the vault {folder}: {error.strerror or error}"
    return f"cannot use the vault {folder}: {error}"


@contextlib.contextmanager
def private_files() -> Iterator[None]:
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def connect(database: Path, create: bool) -> sqlite3.Connection:
    if create:
        with private_files():
            database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if stat.S_IMODE(database.parent.stat().st_mode) & 0o077:
                database.parent.chmod(0o700)
            connection = sqlite3.connect(database, timeout=BUSY_SECONDS, isolation_level=None)
    else:
        connection = sqlite3.connect(f"{database.as_uri()}?mode=rw", uri=True, timeout=BUSY_SECONDS,
                                     isolation_level=None)
    connection.text_factory = _text_or_bytes
    try:
        # Checked before anything is changed, the journal mode included: a file that is not a vault is
        # left exactly as it is.
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > FORMAT:
            raise VaultError(f"the vault {database.parent} was written by a newer sessionsite; upgrade to use it")
        if version in READABLE_FORMATS:
            _check_schema(connection, database)
        elif not create or connection.execute("SELECT 1 FROM sqlite_master").fetchone() is not None:
            raise VaultError(f"cannot use the vault {database.parent}: {database.name} is not a sessionsite vault")
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")  # a finished save survives a power cut too
        connection.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
        if version < FORMAT:
            with transaction(connection):
                for statement in SCHEMA.split(";"):
                    connection.execute(statement)
                connection.execute(f"PRAGMA user_version={FORMAT}")
            database.chmod(0o600)
    except BaseException:
        connection.close()
        raise
    return connection


COLUMNS = {table: re.findall(r"^    ([a-z_]+) [A-Z]", body, re.MULTILINE)
           for table, body in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\n\)", SCHEMA, re.DOTALL)}


def _check_schema(connection: sqlite3.Connection, database: Path) -> None:
    """`VaultError` when a table or column the vault reads is not there (another program's database)."""
    for table, columns in COLUMNS.items():
        found = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        missing = [column for column in columns if column not in found]
        if missing:
            raise VaultError(f"cannot use the vault {database.parent}: {database.name} is not a sessionsite vault "
                             f"(its table {table} lacks {', '.join(missing)})")


def _text_or_bytes(data: bytes) -> str | bytes:
    """A text value as text; one damaged into bytes that are not UTF-8 stays bytes, which no row check
    takes for text (SQLite's own decoding would fail the whole query)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


@contextlib.contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    connection.execute("BEGIN IMMEDIATE")  # takes the write lock now: what is read next stays true
    try:
        yield connection
    except BaseException:
        if connection.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


class VaultFiles:
    """The vault's folder and database file. Each use opens the database and closes it again (a build forks
    workers, which must not share a connection)."""

    def __init__(self, folder: Path):
        self.folder = folder.expanduser().absolute()
        self.database = self.folder / DATABASE

    def exists(self) -> bool:
        return self.database.is_file()

    @contextlib.contextmanager
    def connect(self, create: bool = True) -> Iterator[sqlite3.Connection]:
        """The database, open; what goes wrong with it (a disk error, a file that is not a database, a
        lock held too long) is a `VaultError` naming the vault."""
        try:
            connection = connect(self.database, create)
        except (OSError, sqlite3.Error) as error:
            raise VaultError(explain(error, self.folder)) from error
        try:
            yield connection
        except (OSError, sqlite3.Error) as error:
            if isinstance(error, OSError) and not in_folder(error, self.folder):
                raise  # a file restored elsewhere, on another disk perhaps: its own error names it
            raise VaultError(explain(error, self.folder)) from error
        finally:
            connection.close()

    def size_on_disk(self) -> int:
        return sum(path.stat().st_size for path in self.folder.glob(DATABASE + "*") if path.is_file())


# -- rows, checked -------------------------------------------------------------------------------------------


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _text(value: object) -> bool:
    return isinstance(value, str)


def _shown(value: object) -> str:
    """A value read from a damaged row, cut short for a message (a damaged text may be any length)."""
    return reprlib.repr(value)


def printable(text: str, most: int = 300) -> str:
    """Text read from a row, fit for one line of a message: what is not printable (a line end in a damaged
    name) becomes `?`, and a damaged name of any length is cut short."""
    shown = "".join(c if c.isprintable() else "?" for c in text[:most])
    return shown + ("…" if len(text) > most else "")


SHA1 = re.compile(r"[0-9a-f]{40}")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
"""No path or id a save takes holds one (Claude Code names its folders and logs without): a line end in a
name is damage, and would otherwise break a message's one line."""
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def version_problem(number: object, size: object, sha1: object) -> str:
    """Why a version row cannot be what it says, or ""."""
    if not _count(number) or number == 0:
        return f"version number {_shown(number)}"
    if not _count(size):
        return f"size {_shown(size)}"
    if not (_text(sha1) and SHA1.fullmatch(str(sha1))):
        return f"content digest {_shown(sha1)}"
    return ""


def place_problem(origin: object, project_path: object, project_dir: object, relpath: object, session_id: object,
                  agent_id: object, parent_session_id: object) -> str:
    """Why a log's place cannot be what it says, or ""."""
    values = (origin, project_path, project_dir, relpath, session_id, agent_id, parent_session_id)
    if any(isinstance(value, str) and CONTROL.search(value) for value in values):
        return "a name with a control character in it"
    if not (_text(origin) and os.path.isabs(str(origin))):
        return f"origin {_shown(origin)}"
    if not (_text(project_path) and os.path.isabs(str(project_path))):
        return f"project folder {_shown(project_path)}"
    if not (_text(project_dir) and project_dir not in ("", ".", "..") and "/" not in str(project_dir)):
        return f"project folder name {_shown(project_dir)}"
    relative = PurePosixPath(str(relpath))
    if not _text(relpath) or relative.is_absolute() or ".." in relative.parts:
        return f"{_shown(relpath)} is not a place in a project folder"
    if not all(_text(value) for value in (session_id, agent_id, parent_session_id)):
        return "a session id that is not text"
    # The place is said twice (its path in the project folder, and the ids a save took from the same file
    # name): they must agree.
    if parent_session_id:
        expected = f"{parent_session_id}/subagents/agent-{agent_id}.jsonl"
    else:
        expected = f"agent-{agent_id}.jsonl" if agent_id else f"{session_id}{relative.suffix}"
    # A Codex rollout is named by when it started, then its session's id.
    rollout_of_its_session = not (agent_id or parent_session_id) and codex_session_id(str(relpath)) == session_id != ""
    if (relpath != expected and not rollout_of_its_session) or (parent_session_id and session_id != parent_session_id):
        return f"{_shown(relpath)}, which is not the place its ids say"
    return ""


@dataclass(frozen=True)
class Current:
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

    def problem(self) -> str:
        """Why the rows cannot be what they say, or ""."""
        # As read: the types are what the rows hold, whatever the fields say.
        log_id, version_id, live_size, live_mtime_ns, last_seen = (
            self.log_id, self.version_id, self.live_size, self.live_mtime_ns, self.last_seen)
        values: tuple[object, ...] = (log_id, version_id, live_size, live_mtime_ns, last_seen)
        if values[1] is None:
            return "no version"
        if not (_count(values[0]) and _count(values[1])):
            return "row ids"
        if not (isinstance(values[2], int) and isinstance(values[3], int)):
            return "the live file's size and time"
        if not (isinstance(values[4], str) and DAY.fullmatch(values[4])):
            return f"last seen {_shown(values[4])}"
        return version_problem(self.number, self.size, self.sha1)


_LOGS = ("SELECT id, live_size, live_mtime_ns, last_seen, origin, project_path, project_dir, relpath, session_id,"
         " agent_id, parent_session_id FROM logs NOT INDEXED")
_VERSIONS = "SELECT id, log_id, number, size, sha1 FROM versions NOT INDEXED"


def latest_rows(connection: sqlite3.Connection, origin: str | None = None) -> list[tuple[Any, ...]]:
    """Each log's row with its latest version: (log id, live size, live mtime, last seen, version id, number,
    size, sha1, origin, project path, project folder name, relpath, session id, agent id, parent session
    id), in the order of origins. Read from the tables themselves, not their indexes (which hold copies of
    the values, damaged or not apart from them); a log whose versions are missing or unnumbered has None
    for its version's values."""
    if origin is None:
        logs = connection.execute(_LOGS).fetchall()
        versions = connection.execute(_VERSIONS).fetchall()
    else:
        logs = connection.execute(_LOGS.replace(" NOT INDEXED", "") + " WHERE origin = ?", (origin,)).fetchall()
        versions = connection.execute(_VERSIONS.replace(" NOT INDEXED", "") + " WHERE log_id IN (SELECT id FROM logs"
                                      " WHERE origin = ?)", (origin,)).fetchall()
    by_log: dict[object, list[tuple[Any, ...]]] = {}
    for version in versions:
        by_log.setdefault(version[1], []).append(version)
    rows = []
    for log in logs:
        found = by_log.get(log[0], [])
        latest: tuple[Any, ...] = (None, None, None, None)
        if found and all(_count(v[2]) for v in found):
            newest = max(found, key=lambda v: v[2])
            latest = (newest[0], newest[2], newest[3], newest[4])
        rows.append((*log[:4], *latest, *log[4:]))
    return sorted(rows, key=lambda row: str(row[8]))


def current_of(connection: sqlite3.Connection, origin: str | None = None) -> dict[str, Current]:
    """The latest version of each log (of the one at `origin`), by origin, rows checked: a log whose rows
    are damaged is left out, and a save leaves it as it is (`damaged_origins`)."""
    found = {}
    for row in latest_rows(connection, origin):
        current = Current(*row[:8])
        if _text(row[8]) and not current.problem():
            found[row[8]] = current
    return found


def damaged_origins(connection: sqlite3.Connection) -> set[str]:
    """Logs whose rows the vault holds but cannot use (a save does not touch them)."""
    usable = set(current_of(connection))
    return {origin for (origin,) in connection.execute("SELECT origin FROM logs") if origin not in usable}


def chunks_of(connection: sqlite3.Connection, version_id: int) -> tuple[tuple[bytes, int], ...]:
    """A version's chunks (digest, raw size) in order, as its rows say: `Damaged` when they cannot be right
    (a gap in the sequence, a digest that is not one, a chunk that is missing or has no size)."""
    rows = connection.execute(
        "SELECT version_chunks.seq, version_chunks.digest, chunks.size FROM version_chunks"
        " LEFT JOIN chunks ON chunks.digest = version_chunks.digest WHERE version_id = ? ORDER BY seq",
        (version_id,)).fetchall()
    chunks = []
    for expected, (seq, digest, size) in enumerate(rows):
        if seq != expected:
            raise Damaged("its chunks are out of sequence")
        if not isinstance(digest, bytes) or len(digest) != DIGEST_SIZE:
            raise Damaged(f"chunk {seq} has no digest")
        if size is None:
            raise Damaged(f"chunk {seq} is missing")
        if not _count(size):
            raise Damaged(f"chunk {seq} has the size {_shown(size)}")
        chunks.append((digest, size))
    return tuple(chunks)


def with_chunks(connection: sqlite3.Connection, current: Current) -> Current | None:
    """`current` with its chunks, or None when they cannot be right (they add up to another size)."""
    if current.chunks:
        return current
    try:
        chunks = chunks_of(connection, current.version_id)
    except Damaged:
        return None
    if sum(size for _, size in chunks) != current.size:
        return None
    return replace(current, chunks=chunks)


_ZSTANDARD_FRAME = b"\x28\xb5\x2f\xfd"
"""How a Zstandard frame starts. A zlib stream never does: its first two bytes, read as a number, are a multiple of 31."""
_compressors = threading.local()


def compress_chunk(raw: bytes) -> bytes:
    """A chunk's bytes compressed as the vault keeps them. Called on a save's threads: a compressor each."""
    compressor = getattr(_compressors, "zstandard", None)
    if compressor is None:
        compressor = _compressors.zstandard = zstandard.ZstdCompressor(level=LEVEL)
    result: bytes = compressor.compress(raw)
    return result


def decompress_chunk(data: bytes, size: int) -> bytes:
    """A chunk's bytes back, Zstandard or zlib, given the size its row says it has: `ValueError` when they cannot
    be. No more than that size (and one byte) is ever unpacked, whatever a damaged chunk says of itself (a frame
    claiming a petabyte, a zlib stream of a gigabyte of zeros). The row's size is the bound, not the largest
    chunk saves now make: a vault of format 1 holds chunks of a whole long line, of any length."""
    if data.startswith(_ZSTANDARD_FRAME):
        try:
            content = zstandard.frame_content_size(data)
        except zstandard.ZstdError as error:
            raise ValueError(str(error)) from error
        if content != size:
            raise ValueError("a chunk that says it holds another size than its row")
        try:
            raw: bytes = zstandard.ZstdDecompressor().decompress(data)
        except zstandard.ZstdError as error:
            raise ValueError(str(error)) from error
        return raw
    unpacker = zlib.decompressobj()
    try:
        raw = unpacker.decompress(data, size + 1)
    except zlib.error as error:
        raise ValueError(str(error)) from error
    if not unpacker.eof:
        raise ValueError("a chunk cut short, or longer than its row says")
    return raw


def chunk_problem(digest: bytes, size: object, data: object) -> tuple[str, bytes]:
    """Why a stored chunk is not the bytes its digest names (or ""), and the bytes when it is."""
    if not isinstance(data, bytes):
        return "a chunk's data is not data", b""
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return "a chunk does not match its digest", b""
    try:
        raw = decompress_chunk(data, size)
    except ValueError:
        return "a chunk does not decompress", b""
    if len(raw) != size or chunk_digest(raw) != digest:
        return "a chunk does not match its digest", b""
    return "", raw


def chunk_data(connection: sqlite3.Connection, digest: bytes) -> bytes:
    """A chunk's bytes, checked against its digest and size: `Damaged` when they are not those."""
    row = connection.execute("SELECT size, data FROM chunks WHERE digest = ?", (digest,)).fetchone()
    if row is None:
        raise Damaged("a chunk is missing")
    problem, raw = chunk_problem(digest, *row)
    if problem:
        raise Damaged(problem)
    return raw


def chunk_is_sound(connection: sqlite3.Connection, digest: bytes) -> bool:
    """Whether the vault holds the chunk, whole."""
    try:
        chunk_data(connection, digest)
    except Damaged:
        return False
    return True


def write_version(connection: sqlite3.Connection, version_id: int, size: int, sha1: str, handle: Any) -> int:
    """A version's bytes into `handle`, every chunk checked, and the whole against its size and content
    hash: `Damaged` when any of it is not what was saved. One read transaction: a save growing the same
    log meanwhile cannot take a chunk from under it."""
    hasher = content_hasher()
    written = 0
    connection.execute("BEGIN")
    try:
        for digest, _ in chunks_of(connection, version_id):
            raw = chunk_data(connection, digest)
            hasher.update(raw)
            handle.write(raw)
            written += len(raw)
    finally:
        connection.execute("COMMIT")
    if written != size or hasher.hexdigest() != sha1:
        raise Damaged("its bytes do not match its digest")
    return written


def log_hook_failure(folder: Path, message: str) -> None:
    """A hook never shows an error in Claude Code: what went wrong goes to `hook.log` in the vault."""
    with contextlib.suppress(OSError), private_files():
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / HOOK_LOG
        if path.exists() and path.stat().st_size > 256 << 10:
            os.replace(path, path.with_name(HOOK_LOG + ".1"))
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"{now()} {message}\n")
