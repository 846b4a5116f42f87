"""Saving logs into the vault: each new log whole, a grown one by what it gained, one that lost bytes as a
new version beside the old.

A log that grew (the usual case: Claude Code only appends) gains chunks at the end of its version, and only
its last, partly filled chunk is written again, so a growing session never costs a full copy. A log that
lost bytes compared with its version here (cut short, rewritten, or another session's log under the same
name) becomes a new version beside the old one, sharing the chunks they have in common: nothing is ever
written over. Changes are found by the file's size and modification time, then confirmed by the digest of
the part already kept, so a save with nothing changed reads no log at all.

Each save is prepared (read, hashed, compressed) outside any lock and written in one transaction: a save
killed at any moment leaves the vault as the last finished transaction left it, two saves at once both
succeed (SQLite serialises the writes; the second checks again what the first wrote), and a full disk
rolls the transaction back and is reported in one line.

Saving repairs: a chunk the save would share with what the vault holds is checked first, and when the
vault's copy of it is damaged, the intact bytes just read are written in its place (in the same
transaction). A log saved again with the same bytes (copied back, touched) has its chunks checked too.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import sqlite3
import stat
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from ...stages.agents import CODEX, codex_session_id
from ...stages.discover import SessionFile, path_in_project, project_folder_of
from .store import (BATCH, CHUNK, HELD, IN_FLIGHT, LONG_LINE_CHUNK, Current, VaultFiles, chunk_digest, compress_chunk,
                    chunk_is_sound, chunk_problem, content_hasher, current_of, damaged_origins, now, today, transaction, with_chunks)


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
        # A 1.x agent log names its session only inside: `write` reads it there.
        session_id = session_file.parent_session_id or ("" if session_file.agent_id else path.stem)
        if session_file.agent == CODEX:  # named by the time it started, then its id
            session_id = codex_session_id(path.name) or path.stem
        return cls(origin, str(project_folder_of(session_file).resolve()), session_file.project_dir,
                   path_in_project(session_file), session_id, session_file.agent_id, session_file.parent_session_id)


Chunk = tuple[bytes, int, "bytes | None"]
"""A chunk to write: digest, raw size, compressed data (None: the vault holds it already, whole)."""


@dataclass
class Prepared:
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
    chunks: list[Chunk] = field(default_factory=list)
    """New chunks after those."""
    read: int = 0
    """Bytes read from the live log."""
    repairs: list[tuple[bytes, int, bytes]] = field(default_factory=list)
    """Chunks of the base version it shares whose copy in the vault is damaged: the intact ones, compressed."""
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
    repaired: int = 0
    """Damaged chunks written again from an intact copy."""
    read_bytes: int = 0
    stored_bytes: int = 0
    hashes: dict[Path, tuple[int, int, str]] = field(default_factory=dict)
    """For each log read whole: its size and modification time before the read, and its content hash."""
    skipped: list[str] = field(default_factory=list)
    """Files that could not be read (gone or unreadable), or whose rows in the vault are damaged, with why."""

    @property
    def saved(self) -> int:
        return self.new + self.grown + self.versions

    def summary(self) -> str:
        parts = [f"{self.new} new", f"{self.grown} grown"]
        if self.versions:
            parts.append(f"{self.versions} changed (kept as new versions beside the old)")
        parts.append(f"{self.unchanged} unchanged")
        if self.repaired:
            parts.append(f"{self.repaired} damaged chunk{'s' if self.repaired != 1 else ''} repaired")
        return ", ".join(parts)


class Chunker:
    """Cuts a stream of bytes into chunks at line ends, digesting and compressing them on a few threads
    (hashlib and Zstandard let go of the interpreter while they work). A chunk the vault holds whole is not
    written again; one it holds damaged is, over the damaged copy."""

    def __init__(self, connection: sqlite3.Connection, pool: ThreadPoolExecutor):
        self.connection = connection
        self.pool = pool
        self.pending = b""
        self.out: list[Any] = []
        self.done = 0
        """Chunks at the start of `out` whose compression has finished."""
        self.held = 0
        """Compressed bytes of those chunks not yet written."""
        self.written_ahead = 0

    def feed(self, data: bytes) -> None:
        # Chunks are cut out of what is pending by offsets: each byte is copied once into the pending bytes
        # and once into its chunk (a bytearray cut from the front copied it three times).
        pending = self.pending + data if self.pending else data
        start = 0
        while len(pending) - start > CHUNK:
            # A line longer than a chunk is cut too, at LONG_LINE_CHUNK: held whole, a line of a gigabyte
            # took gigabytes.
            cut = pending.find(b"\n", start + CHUNK - 1, start + LONG_LINE_CHUNK)
            if cut < 0:
                if len(pending) - start < LONG_LINE_CHUNK:
                    break  # the line may end in the next block
                cut = start + LONG_LINE_CHUNK - 1
            self._emit(pending[start:cut + 1])
            start = cut + 1
        self.pending = pending[start:] if start else pending

    def finish(self) -> list[Chunk]:
        if self.pending:
            self._emit(self.pending)
            self.pending = b""
        self._settle(0)
        return self.out

    def _emit(self, raw: bytes) -> None:
        self.out.append(self.pool.submit(_digested_and_packed, raw))
        self._settle(IN_FLIGHT)

    def _settle(self, in_flight: int) -> None:
        while len(self.out) - self.done > in_flight:
            digest, size, data = self.out[self.done].result()
            packed = None if chunk_is_sound(self.connection, digest) else data
            self.out[self.done] = (digest, size, packed)
            self.held += len(packed or b"")
            self.done += 1
        if self.held > HELD:
            self._write_ahead()

    def _write_ahead(self) -> None:
        """The finished chunks into the vault now (in the save's transaction if one is open), each then
        counted on as one the vault holds: content-addressed, they mean nothing until a version lists them,
        and a save killed meanwhile leaves them for the next save of the log to find."""
        ahead = [(digest, size, data) for digest, size, data in self.out[:self.done] if data is not None]
        with contextlib.nullcontext() if self.connection.in_transaction else transaction(self.connection):
            for digest, size, data in ahead:
                put_chunk(self.connection, digest, size, data)
        self.out[:self.done] = [(digest, size, None) for digest, size, _ in self.out[:self.done]]
        self.written_ahead += self.held
        self.held = 0


def _digested_and_packed(raw: bytes) -> Chunk:
    return chunk_digest(raw), len(raw), compress_chunk(raw)


def _read_blocks(handle: Any, limit: int | None = None) -> Iterator[bytes]:
    left = limit
    while left is None or left > 0:
        block = handle.read(CHUNK if left is None else min(CHUNK, left))
        if not block:
            return
        if left is not None:
            left -= len(block)
        yield block


def _repairs(connection: sqlite3.Connection, handle: BinaryIO, chunks: Iterable[tuple[bytes, int]],
             start: int = 0) -> list[tuple[bytes, int, bytes]]:
    """The chunks (laid end to end in `handle` from `start`) whose copy in the vault is damaged, read from
    the live log: only those whose bytes there match their digest."""
    found = []
    offset = start
    for digest, size in chunks:
        if not chunk_is_sound(connection, digest):
            handle.seek(offset)
            raw = handle.read(size)
            if len(raw) == size and chunk_digest(raw) == digest:
                found.append((digest, size, compress_chunk(raw)))
        offset += size
    return found


def prepare(connection: sqlite3.Connection, pool: ThreadPoolExecutor, place: Place, path: Path,
            live: tuple[int, int], current: Current | None) -> Prepared:
    """Read one log and compare it with the vault's latest version of it."""
    base = (current.version_id, current.size, current.sha1) if current else None
    if current is not None and live == (current.live_size, current.live_mtime_ns):
        return Prepared(place, path, live, "unchanged", base)
    with path.open("rb") as handle:
        hasher = content_hasher()
        read = 0
        if current is not None:
            for block in _read_blocks(handle, current.size):
                hasher.update(block)
                read += len(block)
            same = read == current.size and hasher.hexdigest() == current.sha1
            # Chunks that do not add up to the version's size cannot be grown: a new version is made instead.
            checked = with_chunks(connection, current) if same else None
            if checked is not None:
                chunker = Chunker(connection, pool)
                keep = len(checked.chunks)
                if keep and checked.chunks[-1][1] < CHUNK:  # the last chunk is not full: write it again, longer
                    keep -= 1
                    last = checked.chunks[-1][1]
                    handle.seek(current.size - last)  # the same bytes as the vault's, read from the log itself
                    chunker.feed(handle.read(last))
                grown = 0
                for block in _read_blocks(handle):
                    hasher.update(block)
                    chunker.feed(block)
                    grown += len(block)
                if not grown:
                    return Prepared(place, path, live, "touched", base, current.size, current.sha1, read=read,
                                    repairs=_repairs(connection, handle, checked.chunks))
                return Prepared(place, path, live, "grown", base, read + grown, hasher.hexdigest(), keep,
                                chunker.finish(), read=read + grown, written_ahead=chunker.written_ahead)
            handle.seek(0)  # it lost bytes: a new version, sharing what it can with the old one
        hasher = content_hasher()
        chunker = Chunker(connection, pool)
        keep, size = 0, 0
        old = with_chunks(connection, current) if current is not None else None
        repairs = []
        for digest, chunk_size in (old.chunks if old else ()):
            raw = handle.read(chunk_size)
            hasher.update(raw)
            size += len(raw)
            if len(raw) != chunk_size or chunk_digest(raw) != digest:
                chunker.feed(raw)
                break
            keep += 1
            if not chunk_is_sound(connection, digest):
                repairs.append((digest, chunk_size, compress_chunk(raw)))
        for block in _read_blocks(handle):
            hasher.update(block)
            chunker.feed(block)
            size += len(block)
    return Prepared(place, path, live, "version" if current else "new", base, size, hasher.hexdigest(), keep,
                    chunker.finish(), read=read + size, repairs=repairs, written_ahead=chunker.written_ahead)


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
KEPT_FREED = 256 << 20
"""Memory a process that saves may keep once freed, in glibc's allocator (`keep_freed_blocks`)."""


def keep_freed_blocks() -> None:
    """In a process that only saves (`Job.save_beside`): blocks of a megabyte read, chunked and compressed
    one after the other are kept once freed, where glibc gives each back to the system and faults the next one
    in page by page (a first save of 94 MB: 33,000 page faults and 0.2 s of system time, 8,600 and 0.1 s like
    this). The process ends with its save, and its memory with it. Elsewhere than glibc, nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, 64 << 20)
    mallopt(M_TRIM_THRESHOLD, KEPT_FREED)


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


def put_chunk(connection: sqlite3.Connection, digest: bytes, size: int, data: bytes) -> bool:
    """Store a chunk (inside a transaction). One the vault holds whole is left as it is; one it holds
    damaged is written over. Returns whether it was a repair."""
    row = connection.execute("SELECT size, data FROM chunks WHERE digest = ?", (digest,)).fetchone()
    if row is None:
        connection.execute("INSERT INTO chunks (digest, size, data) VALUES (?, ?, ?)", (digest, size, data))
        return False
    if not chunk_problem(digest, *row)[0]:
        return False
    connection.execute("UPDATE chunks SET size = ?, data = ? WHERE digest = ?", (size, data, digest))
    return True


def write(connection: sqlite3.Connection, prepared: Prepared, seen: str) -> int:
    """Put one prepared log in the vault (inside the save's transaction). Returns the chunks it repaired."""
    place, saved_at = prepared.place, now()
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
    repaired = sum(put_chunk(connection, *repair) for repair in prepared.repairs)
    if prepared.kind in ("unchanged", "touched"):
        return repaired
    for digest, size, data in prepared.chunks:
        if data is not None:
            repaired += put_chunk(connection, digest, size, data)
        elif connection.execute("SELECT 1 FROM chunks WHERE digest = ?", (digest,)).fetchone() is None:
            raise Stale()  # a chunk it counted on went away since: read the log again
    version_id: int | None  # sqlite3 types a new row's id as optional
    if prepared.kind == "grown":
        assert prepared.base is not None
        version_id = prepared.base[0]
        dropped = [bytes(row[0]) for row in connection.execute(
            "SELECT digest FROM version_chunks WHERE version_id = ? AND seq >= ?", (version_id, prepared.keep))]
        connection.execute("DELETE FROM version_chunks WHERE version_id = ? AND seq >= ?", (version_id, prepared.keep))
        connection.execute("UPDATE versions SET size = ?, sha1 = ?, last_saved = ? WHERE id = ?",
                           (prepared.size, prepared.sha1, saved_at, version_id))
    else:
        number = connection.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE log_id = ?",
                                    (log_id,)).fetchone()[0]
        version_id = connection.execute(
            "INSERT INTO versions (log_id, number, size, sha1, first_saved, last_saved) VALUES (?, ?, ?, ?, ?, ?)",
            (log_id, number, prepared.size, prepared.sha1, saved_at, saved_at)).lastrowid
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
    return repaired


class Stale(Exception):
    """The vault changed under a prepared log (another save wrote it): prepare it again."""


def save_logs(vault: VaultFiles, files: Iterable[SessionFile],
              progress: Callable[[Iterable[Any], int, str], Iterator[Any]] | None = None) -> SaveReport:
    """Save every log that is new or changed since it was last saved. Logs are read and compressed
    before the write lock is taken, in batches of BATCH bytes, each written in one transaction. A log
    whose rows in the vault are damaged is left as it is (and said so in `skipped`)."""
    report = SaveReport()
    seen = today()
    with vault.connect() as connection, ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        known = current_of(connection)
        damaged = damaged_origins(connection)
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
            if origin in damaged:
                report.skipped.append(f"{session_file.path}: the vault's record of this log is damaged; it is left "
                                      "as it is (see `sessionsite doctor`)")
                continue
            live = (info.st_size, info.st_mtime_ns)
            current = known.get(origin)
            if current is not None and live == (current.live_size, current.live_mtime_ns):
                report.unchanged += 1
                if current.last_seen == seen:
                    continue  # else saved again, only to note it was seen today
            work.append((Place.of(session_file, origin), session_file.path, live))
        batch: list[Prepared] = []
        batch_bytes = 0
        items = progress(work, len(work), "Saving to the vault") if progress and work else work
        for place, path, live in items:
            prepared = _prepare_or_skip(connection, pool, place, path, live, known.get(place.origin), report)
            if prepared is None:
                continue
            batch.append(prepared)
            batch_bytes += prepared.read
            if batch_bytes >= BATCH:
                commit(connection, pool, batch, seen, report)
                batch, batch_bytes = [], 0
        if batch:
            commit(connection, pool, batch, seen, report)
        if report.saved or report.repaired:  # what was written moves into the database file, and the log file shrinks
            connection.execute("PRAGMA busy_timeout=1000")  # not at any price: a reader may hold it back
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return report


def _prepare_or_skip(connection: sqlite3.Connection, pool: ThreadPoolExecutor, place: Place, path: Path,
                     live: tuple[int, int], current: Current | None, report: SaveReport) -> Prepared | None:
    try:
        return prepare(connection, pool, place, path, live, current)
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise
        report.skipped.append(f"{path}: {error.strerror or error}")
        return None


def commit(connection: sqlite3.Connection, pool: ThreadPoolExecutor, batch: list[Prepared], seen: str,
           report: SaveReport) -> None:
    """Write a batch of prepared logs in one transaction, each checked again against the vault as it is
    now (another save may have written it since it was read)."""
    with transaction(connection):
        for index, prepared in enumerate(batch):
            current = current_of(connection, prepared.place.origin).get(prepared.place.origin)
            base = (current.version_id, current.size, current.sha1) if current else None
            try:
                if base != prepared.base:
                    raise Stale()
                report.repaired += write(connection, prepared, seen)
            except Stale:  # another save wrote this log since it was read: read it again, under the lock
                again = _prepare_or_skip(connection, pool, prepared.place, prepared.path, prepared.live, current,
                                         report)
                if again is None:
                    continue
                prepared = batch[index] = again
                report.repaired += write(connection, prepared, seen)
            _count(prepared, report)
    for prepared in batch:
        if prepared.kind in ("new", "grown", "version", "touched") and prepared.read == prepared.size:
            report.hashes[prepared.path] = (*prepared.live, prepared.sha1)


def _count(prepared: Prepared, report: SaveReport) -> None:
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
