"""Reading the vault back: the logs it keeps (rows checked), the ones a build reads because they are gone
from where they were, each version's bytes (every chunk checked), and the check `doctor` runs over it all.

A log whose rows or chunks are damaged is named, never a reason to stop: a build leaves it out with one
line, `restore` refuses it and restores the rest, `doctor` lists it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import InputError
from ...core.files import write_atomically
from ...stages.agents import codex_session_id
from ...stages.discover import CODEX_DEPTH, SessionFile, project_folder_of
from .save import Place
from .store import (WORK, Current, Damaged, VaultError, VaultFiles, chunk_data, chunks_of, connect, explain,
                    latest_rows, place_problem, printable, private_files, version_problem, write_version)


class DamagedCopy(Damaged, InputError):
    """A kept log the build cannot read back: bad input for that log alone (`stages.discover.KeptCopy`)."""


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
        """The log's bytes in a file; `DamagedCopy` when the vault's copy is damaged or cannot be read."""
        target = Path(self.work) / str(self.version_id) / self.name
        if target.exists():
            return target
        with private_files():
            target.parent.mkdir(parents=True, exist_ok=True)
        try:
            connection = connect(Path(self.database), create=False)
            try:
                with private_files():
                    write_atomically(target, lambda handle: write_version(
                        connection, self.version_id, self.size, self.content_hash, handle), sync=False)
            finally:
                connection.close()
        except (VaultError, sqlite3.Error) as error:  # a Damaged chunk or row, or a vault gone bad since
            reason = error.reason if isinstance(error, Damaged) else f"it cannot be read: {error}"
            raise DamagedCopy(reason) from error
        return target


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


@dataclass(frozen=True)
class Unusable:
    """A log the vault holds rows of that cannot be right: it can be neither built nor restored."""

    name: str
    """As much of where it was as its rows still say."""
    origin: str
    """"" when its row does not say."""
    project_path: str
    session_id: str
    reason: str

    @property
    def shown_origin(self) -> str:
        """Its origin, fit for a message."""
        return printable(self.origin)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def listing(connection: sqlite3.Connection) -> tuple[list[Stored], list[Unusable]]:
    """Every log the vault holds with its latest version, in a stable order, and those whose rows are
    damaged."""
    stored, unusable = [], []
    for row in latest_rows(connection):
        current = Current(*row[:8])
        problem = place_problem(*row[8:15]) or current.problem()
        origin, project_path, project_dir, relpath, session_id = (_text(value) for value in row[8:13])
        if problem:
            name = printable(f"{project_dir}/{relpath}" if project_dir and relpath else origin or f"log {row[0]!r}")
            unusable.append(Unusable(name, origin, project_path, session_id, f"its record holds {problem}"))
            continue
        stored.append(Stored(Place(*row[8:15]), last_seen=current.last_seen, version_id=current.version_id,
                             number=current.number, size=current.size, sha1=current.sha1,
                             live=(current.live_size, current.live_mtime_ns)))
    return stored, unusable


def under(origin: str, project_path: str, roots: Sequence[Path], project_folders: set[str]) -> bool:
    """Whether discover would have found the log under one of the INPUTs, had it still been there: the
    INPUT was the log itself, its project folder, or the folder of project folders holding that."""
    rollout = bool(codex_session_id(Path(origin).name))
    for root in roots:
        text = str(root)
        if origin == text or project_path == text:
            return True
        if project_path and str(Path(project_path).parent) == text and text not in project_folders:
            return True
        # A Codex rollout: discover looks for them by day, some levels below a folder that holds them.
        if rollout and Path(origin).is_relative_to(root) and len(Path(origin).relative_to(root).parts) <= CODEX_DEPTH + 2:
            return True
    return False


@dataclass(frozen=True)
class Version:
    number: int
    size: int
    sha1: str
    first_saved: str
    last_saved: str


@dataclass
class DamagedLog:
    """What `check` found wrong with one log."""

    name: str
    session_id: str
    reason: str
    versions: list[int] = field(default_factory=list)
    """The numbers of its versions that are damaged (empty: its own row is)."""

    def describe(self) -> str:
        numbers = ", ".join(str(n) for n in self.versions)
        which = f" (version{'s' if len(self.versions) > 1 else ''} {numbers})" if self.versions else ""
        return f"session {self.session_id or '?'}: {self.name}{which}: {self.reason}"


class VaultReader(VaultFiles):
    """The vault, read."""

    def stored(self) -> list[Stored]:
        """Every log the vault holds whole rows of, with its latest version, in a stable order."""
        return self.listing()[0]

    def listing(self) -> tuple[list[Stored], list[Unusable]]:
        if not self.exists():
            return [], []
        with self.connect(create=False) as connection:
            return listing(connection)

    def gone_under(self, inputs: Sequence[Path], live: Sequence[SessionFile]) -> tuple[list[Stored], list[Unusable]]:
        """The logs that were found under the INPUTs once and are not there now, and those of the logs
        under them whose rows are damaged."""
        live_origins = {str(f.path.resolve()) for f in live}
        everything, unusable = self.listing()
        gone = [s for s in everything if s.place.origin not in live_origins]
        if not gone and not unusable:
            return [], []
        roots = [Path(given).resolve() for given in inputs]
        project_folders = {str(project_folder_of(f).resolve()) for f in live}
        project_folders.update(s.place.project_path for s in everything)
        return ([s for s in gone if under(s.place.origin, s.place.project_path, roots, project_folders)],
                [u for u in unusable if u.origin not in live_origins
                 and under(u.origin, u.project_path, roots, project_folders)])

    @contextlib.contextmanager
    def work_folder(self) -> Iterator[Path]:
        """A private folder for the logs a build reads back, removed when the build ends (and, if a build was
        killed, by the next one)."""
        root = self.folder / WORK
        with private_files():
            try:
                root.mkdir(parents=True, exist_ok=True)
                for leftover in root.iterdir():
                    pid = leftover.name.partition("-")[0]
                    if pid.isdigit() and not _alive(int(pid)):
                        shutil.rmtree(leftover, ignore_errors=True)
                folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root))
            except OSError as error:
                raise VaultError(explain(error, self.folder)) from error
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def versions_of(self, session_id: str) -> list[tuple[Stored, list[Version]]]:
        """The logs of one session (its own and its subagents'), each with all its versions, as far as their
        rows are whole (`damaged_of` names the others). A unique beginning of the session id (eight
        characters or more) will do."""
        if not self.exists():
            return []
        with self.connect(create=False) as connection:
            ids = self._session_ids(connection, session_id)
            if not ids:
                return []
            result = []
            stored = {s.place.origin: s for s in listing(connection)[0]}
            for (origin,) in connection.execute("SELECT origin FROM logs WHERE session_id = ? ORDER BY origin", ids):
                if origin not in stored:
                    continue
                versions = connection.execute(
                    "SELECT versions.number, versions.size, versions.sha1, versions.first_saved, versions.last_saved"
                    " FROM versions JOIN logs ON logs.id = versions.log_id WHERE logs.origin = ? ORDER BY number",
                    (origin,)).fetchall()
                result.append((stored[origin], [Version(*v) for v in versions if not version_problem(*v[:3])]))
            return result

    def damaged_of(self, session_id: str) -> list[Unusable]:
        """The logs of one session whose rows are damaged."""
        if not self.exists():
            return []
        with self.connect(create=False) as connection:
            ids = self._session_ids(connection, session_id)
            return [u for u in listing(connection)[1] if u.session_id in ids]

    @staticmethod
    def _session_ids(connection: sqlite3.Connection, session_id: str) -> list[str]:
        found = connection.execute("SELECT DISTINCT session_id FROM logs WHERE session_id = ? OR "
                                   "(session_id LIKE ? ESCAPE '\\' AND length(?) >= 8)",
                                   (session_id, _like_prefix(session_id), session_id)).fetchall()
        ids = sorted({row[0] for row in found if isinstance(row[0], str)})
        if len(ids) > 1:
            raise VaultError(f"{session_id!r} starts {len(ids)} session ids in the vault: "
                             + ", ".join(ids[:5]) + ("…" if len(ids) > 5 else ""))
        return ids

    def write_out(self, origin: str, number: int | None, target: Path) -> int:
        """One version of a log (the latest unless `number` says) written to `target`, atomically;
        `Damaged` (and nothing written) when the vault's copy is damaged."""
        with self.connect(create=False) as connection:
            row = connection.execute(
                "SELECT versions.id, versions.number, versions.size, versions.sha1 FROM versions"
                " JOIN logs ON logs.id = versions.log_id WHERE logs.origin = ? AND (versions.number = ? OR ? IS NULL)"
                " ORDER BY versions.number DESC LIMIT 1", (origin, number, number)).fetchone()
            if row is None:
                raise VaultError(f"the vault has no version {number} of {origin}")
            problem = version_problem(*row[1:])
            if problem:
                raise Damaged(f"its record holds {problem}")
            return write_atomically(target, lambda handle: write_version(connection, row[0], row[2], row[3], handle),
                                    0o600)

    def file_problems(self, most: int = 5) -> list[str]:
        """What SQLite's own check finds wrong with the file (pages, indexes), at most `most` lines: damage
        below the rows, which `check` meets only where a row or chunk it reads is hit."""
        if not self.exists():
            return []
        with self.connect(create=False) as connection:
            found = [str(row[0]) for row in connection.execute(f"PRAGMA quick_check({int(most)})")]
        if found == ["ok"]:
            return []
        return [" ".join(line for line in text.splitlines() if not line.startswith("***")) for text in found]

    def check(self) -> list[DamagedLog]:
        """Every chunk and row the vault holds, checked: the logs that are damaged, each with why and which
        of its versions. A chunk or row that SQLite itself cannot read counts as damaged, not as a failure."""
        if not self.exists():
            return []
        with self.connect(create=False) as connection:
            stored, unusable = listing(connection)
            found = [DamagedLog(u.name, printable(u.session_id), u.reason) for u in unusable]
            names = {s.version_id: s for s in stored}
            logs = {row[0]: row[1:] for row in connection.execute(
                "SELECT id, project_dir, relpath, session_id FROM logs").fetchall()}
            bad_chunks: dict[bytes, str] = {}
            for (digest,) in connection.execute("SELECT DISTINCT digest FROM version_chunks").fetchall():
                if not isinstance(digest, bytes):
                    continue  # a version pointing at it is damaged: its own check says so
                try:
                    chunk_data(connection, digest)
                except Damaged as error:
                    bad_chunks[digest] = error.reason
                except sqlite3.DatabaseError as error:
                    bad_chunks[digest] = f"a chunk cannot be read: {error}"
            by_log: dict[int, DamagedLog] = {}
            for version_id, log_id, number, size in connection.execute(
                    "SELECT id, log_id, number, size FROM versions ORDER BY log_id, number").fetchall():
                reason = ""
                try:
                    chunks = chunks_of(connection, version_id)
                    reason = next((bad_chunks[d] for d, _ in chunks if d in bad_chunks), "")
                    if not reason and sum(s for _, s in chunks) != size:
                        reason = "its chunks do not add up to its size"
                except Damaged as error:
                    reason = error.reason
                except sqlite3.DatabaseError as error:
                    reason = f"its chunks cannot be read: {error}"
                if not reason or log_id not in logs:
                    continue
                if log_id not in by_log:
                    kept = names.get(version_id)
                    project_dir, relpath, session_id = (_text(value) for value in logs[log_id])
                    name = kept.name if kept else printable(f"{project_dir}/{relpath}")
                    by_log[log_id] = DamagedLog(name, printable(session_id), reason)
                by_log[log_id].versions.append(number)
            listed = {d.name for d in found}
            found += [d for d in by_log.values() if d.name not in listed]
            return sorted(found, key=lambda d: (d.session_id, d.name))


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
