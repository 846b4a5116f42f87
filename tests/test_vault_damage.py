"""A damaged vault loses only what is damaged.

Each test damages a real vault the way a disk or a careless hand does (bytes flipped inside a chunk, random
bytes over the file, a file cut short or not a database at all, metadata rows that lie) and checks what a
user sees: the build goes on and names each damaged log in one line, every intact session is in the site,
`doctor` says which sessions are damaged, and saving an intact copy repairs the vault. The expectations
come from the undamaged vault, read with sqlite3, zstandard, zlib and hashlib directly, never from the vault's code.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import sqlite3
import struct
import zlib
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner

from generator.cli import main
from generator.output.vault import DATABASE, Vault
from generator.stages.discover import find

from conftest import EXAMPLES
from test_vault import lines_of

BIG = "-home-x-big"
TIDE = "-home-ada-src-tidewatch"
VICTIM = "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90"
ZSTANDARD_FRAME = b"\x28\xb5\x2f\xfd"
FIRST, SECOND = "0b16b16a-0000-4000-8000-00000000000a", "0b16b16b-0000-4000-8000-00000000000b"


@pytest.fixture
def big_archive(archive: Path) -> Path:
    """The examples' logs, and two logs of a few chunks each that share their first chunks (the second is
    the first with other lines after its first 2 MB: a copy that went another way)."""
    copy = archive
    (copy / BIG).mkdir()
    first = lines_of(3 << 20, 11)
    (copy / BIG / f"{FIRST}.jsonl").write_bytes(first)
    cut = first.index(b"\n", 2 << 20) + 1
    (copy / BIG / f"{SECOND}.jsonl").write_bytes(first[:cut] + lines_of(1 << 20, 12))
    return copy


def build_cli(archive: Path, site: Path, vault_dir: Path):
    return CliRunner().invoke(main, ["build", str(archive), "-o", str(site), "--vault", str(vault_dir)])


def pages(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.glob("projects/*/*.html") if p.name[0] not in "_."
            and p.stem not in ("index", "files", "commits")}


def page_of(project_dir: str, stem: str) -> str:
    return f"projects/{project_dir.lstrip('-')}/{stem}.html"


def without(found: set[str], *stems: str) -> set[str]:
    """The pages but those of the sessions named (a long session has pages `<stem>~p2.html`, ...)."""
    return {page for page in found if Path(page).stem.split("~")[0] not in stems}


def remove_live_logs(archive: Path) -> None:
    for path in archive.rglob("*.jsonl"):
        path.unlink()


def chunk_checks_out(digest: bytes, size: int, data: object) -> bool:
    if not isinstance(data, bytes):
        return False
    try:
        raw = zstandard.ZstdDecompressor().decompress(data) if data[:4] == ZSTANDARD_FRAME else zlib.decompress(data)
    except (zlib.error, zstandard.ZstdError):
        return False
    return len(raw) == size and hashlib.blake2b(raw, digest_size=16).digest() == digest


def main_logs(database: Path) -> dict[str, tuple[str, str]]:
    """Each main session log the vault keeps (not a subagent's): origin -> (project folder name, stem)."""
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT origin, project_dir, relpath FROM logs WHERE agent_id = ''").fetchall()
    return {origin: (project_dir, Path(relpath).stem) for origin, project_dir, relpath in rows}


def chunks_of(database: Path) -> dict[str, list[bytes]]:
    """The chunks of each log's latest version, by origin."""
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT logs.origin, version_chunks.digest FROM logs JOIN versions ON versions.log_id = logs.id"
            " JOIN version_chunks ON version_chunks.version_id = versions.id"
            " WHERE versions.number = (SELECT MAX(number) FROM versions AS v WHERE v.log_id = logs.id)"
            " ORDER BY logs.origin, version_chunks.seq").fetchall()
    found: dict[str, list[bytes]] = {}
    for origin, digest in rows:
        found.setdefault(origin, []).append(bytes(digest))
    return found


def flip_inside_blob(database: Path, digest: bytes) -> None:
    """Flip 16 bytes in the middle of one chunk's stored data, in the file itself (as a failing disk would):
    the slice is found in the file by its bytes, so the test knows exactly which chunk it hit."""
    with sqlite3.connect(database) as connection:
        data = connection.execute("SELECT data FROM chunks WHERE digest = ?", (digest,)).fetchone()[0]
    middle = len(data) // 2
    needle = data[middle:middle + 64]
    content = bytearray(database.read_bytes())
    at = content.find(needle)
    assert at > 0 and content.find(needle, at + 1) < 0
    for offset in range(at + 24, at + 40):
        content[offset] ^= 0xFF
    database.write_bytes(bytes(content))


def shared_chunk(database: Path) -> bytes:
    by_origin = chunks_of(database)
    first, second = (o for o in by_origin if o.endswith((f"{FIRST}.jsonl", f"{SECOND}.jsonl")))
    common = [d for d in by_origin[first] if d in by_origin[second]]
    assert common and all(common[0] not in chunks for o, chunks in by_origin.items() if o not in (first, second))
    return common[0]


def damaged_lines(output: str) -> list[str]:
    """The lines that say a log is damaged (pytest's folders, named after the tests, say it too)."""
    return [line for line in output.splitlines() if "damaged" in re.sub(r"/\S*pytest-of-\S*", "", line)]


def warnings_naming(output: str, name: str) -> list[str]:
    return [line for line in damaged_lines(output) if name in line]


# -- (a) a chunk flipped ---------------------------------------------------------------------------------------


def test_a_damaged_chunk_costs_only_the_logs_that_use_it(big_archive, vault_dir, tmp_path):
    archive = big_archive
    intact_site = tmp_path / "intact"
    assert build_cli(archive, intact_site, vault_dir).exit_code == 0
    database = vault_dir / DATABASE
    expected = pages(intact_site)
    assert page_of(BIG, FIRST) in expected and page_of(BIG, SECOND) in expected and len(expected) >= 12
    flip_inside_blob(database, shared_chunk(database))
    remove_live_logs(archive)

    result = build_cli(archive, tmp_path / "site", vault_dir)
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output and "Traceback" not in result.output
    assert len(warnings_naming(result.output, f"{FIRST}.jsonl")) == 1, result.output
    assert len(warnings_naming(result.output, f"{SECOND}.jsonl")) == 1, result.output
    assert len(damaged_lines(result.output)) == 2, result.output
    assert pages(tmp_path / "site") == without(expected, FIRST, SECOND)

    # Restore: the intact sessions come back whole, the damaged ones are refused in one line.
    out = tmp_path / "restored"
    runner = CliRunner()
    good = runner.invoke(main, ["restore", "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90", "-o", str(out / "good"),
                                "--vault", str(vault_dir)])
    assert good.exit_code == 0, good.output
    assert (out / "good" / "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90.jsonl").read_bytes() == (
        EXAMPLES / "-home-ada-src-tidewatch" / "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90.jsonl").read_bytes()
    bad = runner.invoke(main, ["restore", FIRST, "-o", str(out / "bad"), "--vault", str(vault_dir)])
    assert bad.exit_code == 1 and "damaged" in bad.output and f"{FIRST}.jsonl" in bad.output, bad.output
    assert "internal error" not in bad.output
    assert not list((out / "bad").rglob("*")) if (out / "bad").exists() else True


def test_doctor_checks_every_chunk_and_names_the_damaged_sessions(big_archive, vault_dir, tmp_path, monkeypatch):
    archive = big_archive
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    Vault(vault_dir).save(find([archive]))
    database = vault_dir / DATABASE
    runner = CliRunner()
    healthy = runner.invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert not damaged_lines(healthy.output) and "every chunk" in healthy.output, healthy.output
    flip_inside_blob(database, shared_chunk(database))
    with sqlite3.connect(database) as connection:  # what SQLite sees: nothing wrong
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    result = runner.invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert result.exit_code == 1, result.output
    assert "internal error" not in result.output
    damaged = damaged_lines(result.output)
    assert damaged and "2 logs" in damaged[0], result.output
    assert FIRST in result.output and SECOND in result.output
    assert "5c12bdb1" not in result.output


# -- (e) repair ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["written back in place", "saved from another folder", "touched"])
def test_saving_an_intact_copy_repairs_the_vault(big_archive, vault_dir, tmp_path, monkeypatch, how):
    archive = big_archive
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    original = {name: (archive / BIG / f"{name}.jsonl").read_bytes() for name in (FIRST, SECOND)}
    Vault(vault_dir).save(find([archive]))
    database = vault_dir / DATABASE
    digest = shared_chunk(database)
    with sqlite3.connect(database) as connection:
        others = connection.execute("SELECT digest, size, data FROM chunks WHERE digest != ?", (digest,)).fetchall()
    flip_inside_blob(database, digest)
    runner = CliRunner()
    assert runner.invoke(main, ["doctor", "--vault", str(vault_dir)]).exit_code == 1
    live = archive / BIG / f"{FIRST}.jsonl"
    if how == "written back in place":
        live.unlink()
        live.write_bytes(original[FIRST])
        saved = runner.invoke(main, ["save", str(archive), "--vault", str(vault_dir)])
    elif how == "touched":
        stat = live.stat()
        os.utime(live, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        saved = runner.invoke(main, ["save", str(archive), "--vault", str(vault_dir)])
    else:
        elsewhere = tmp_path / "backup" / BIG
        elsewhere.mkdir(parents=True)
        (elsewhere / f"{FIRST}.jsonl").write_bytes(original[FIRST])
        saved = runner.invoke(main, ["save", str(elsewhere), "--vault", str(vault_dir)])
    assert saved.exit_code == 0, saved.output
    doctor = runner.invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert not damaged_lines(doctor.output), doctor.output
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        after = {bytes(d): (s, bytes(data)) for d, s, data in connection.execute("SELECT digest, size, data FROM chunks")}
    # What was good is as it was, byte for byte; the damaged chunk checks out again.
    assert all(after[bytes(d)] == (s, bytes(data)) for d, s, data in others)
    assert chunk_checks_out(digest, *after[digest])
    remove_live_logs(archive)
    for name in (FIRST, SECOND):
        restored = runner.invoke(main, ["restore", name, "-o", str(tmp_path / "out" / name), "--vault", str(vault_dir)])
        assert restored.exit_code == 0, restored.output
        assert (tmp_path / "out" / name / f"{name}.jsonl").read_bytes() == original[name]


# -- (b) random damage -----------------------------------------------------------------------------------------


def intact_logs(pristine: Path, damaged: Path) -> set[str]:
    """The logs whose rows and chunks in the damaged file are exactly those of the pristine one, each
    looked up on its own (so one damaged page of a table does not hide the rest)."""
    with sqlite3.connect(pristine) as connection:
        logs = connection.execute("SELECT * FROM logs").fetchall()
        versions = {row[1]: row for row in connection.execute(
            "SELECT * FROM versions AS v WHERE number = (SELECT MAX(number) FROM versions WHERE log_id = v.log_id)")}
        links = {}
        for version in versions.values():
            links[version[0]] = connection.execute(
                "SELECT version_id, seq, digest FROM version_chunks WHERE version_id = ? ORDER BY seq",
                (version[0],)).fetchall()
        sizes = dict(connection.execute("SELECT digest, size FROM chunks").fetchall())
    intact = set()
    try:
        connection = sqlite3.connect(f"{damaged.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return intact
    with connection:
        for log in logs:
            try:
                version = versions[log[0]]
                if connection.execute("SELECT * FROM logs WHERE id = ?", (log[0],)).fetchall() != [log]:
                    continue
                if connection.execute("SELECT * FROM versions WHERE log_id = ? ORDER BY number DESC LIMIT 1",
                                      (log[0],)).fetchall() != [version]:
                    continue
                if connection.execute("SELECT version_id, seq, digest FROM version_chunks WHERE version_id = ?"
                                      " ORDER BY seq", (version[0],)).fetchall() != links[version[0]]:
                    continue
                if all(chunk_checks_out(digest, sizes[digest], *[row[0] for row in connection.execute(
                        "SELECT data FROM chunks WHERE digest = ? AND size = ?", (digest, sizes[digest]))] or [None])
                       for _, _, digest in links[version[0]]):
                    intact.add(log[1])
            except (sqlite3.Error, UnicodeDecodeError):  # a row whose text was damaged into bytes that are not UTF-8
                continue
    return intact


def rows_intact(pristine: Path, damaged: Path) -> set[str]:
    """The origins of the logs whose row in the damaged file is exactly the pristine one."""
    with sqlite3.connect(pristine) as connection:
        logs = connection.execute("SELECT * FROM logs").fetchall()
    try:
        with sqlite3.connect(f"{damaged.as_uri()}?mode=ro", uri=True) as connection:
            connection.text_factory = bytes
            found = set()
            for log in logs:
                try:
                    row = connection.execute("SELECT * FROM logs WHERE id = ?", (log[0],)).fetchone()
                except (sqlite3.Error, UnicodeDecodeError):  # a column's name damaged into bytes that are not UTF-8
                    continue
                if row == tuple(v.encode() if isinstance(v, str) else v for v in log):
                    found.add(log[1])
            return found
    except sqlite3.Error:
        return set()


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "count"), [(1, 200), (2, 200), (3, 200), (4, 200), (5, 200), (6, 20), (7, 2000)])
def test_random_damage_never_stops_the_build_and_keeps_every_intact_session(archive, vault_dir, tmp_path, seed,
                                                                            count):
    assert build_cli(archive, tmp_path / "intact", vault_dir).exit_code == 0
    database = vault_dir / DATABASE
    pristine = tmp_path / "pristine.sqlite3"
    shutil.copyfile(database, pristine)
    sessions = main_logs(pristine)
    content = bytearray(database.read_bytes())
    generator = random.Random(seed)
    for _ in range(count):
        content[generator.randrange(len(content))] = generator.randrange(256)
    database.write_bytes(bytes(content))
    remove_live_logs(archive)
    result = build_cli(archive, tmp_path / "site", vault_dir)
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output
    intact = intact_logs(pristine, database)
    built = pages(tmp_path / "site") if result.exit_code == 0 else set()
    missing = {origin for origin in intact if origin in sessions and page_of(*sessions[origin]) not in built}
    assert not missing, result.output
    # Every log whose own row is whole and that is not in the site is named, one line each (or the whole vault
    # is, when it cannot be read). A row damaged into other text that still looks right names what it says.
    for origin in sessions.keys() & rows_intact(pristine, database):
        if page_of(*sessions[origin]) not in built:
            assert warnings_naming(result.output, Path(origin).name) or str(database) in result.output, result.output
    assert intact or str(database) in result.output or damaged_lines(result.output)
    # What the build found damaged, doctor finds too (and says so without an internal error).
    doctor = CliRunner().invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert doctor.exit_code == 1 and "internal error" not in doctor.output, doctor.output
    if damaged_lines(result.output) or str(database) in result.output:
        assert damaged_lines(doctor.output) or str(database) in doctor.output, doctor.output


# -- (c, d) a vault that cannot be read at all ----------------------------------------------------------------


def truncated(database: Path) -> None:
    database.write_bytes(database.read_bytes()[: database.stat().st_size // 3])


def not_sqlite(database: Path) -> None:
    database.write_bytes(b"these are not the bytes of a database\n" * 200)


def wrong_schema(database: Path) -> None:
    database.unlink()
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE logs (id INTEGER PRIMARY KEY, something TEXT)")
        connection.execute("PRAGMA user_version=1")


def newer(database: Path) -> None:
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA user_version=99")


@pytest.mark.parametrize("damage", [truncated, not_sqlite, wrong_schema, newer])
def test_an_unreadable_vault_is_a_warning_and_the_build_goes_on_from_the_live_logs(archive, vault_dir, tmp_path,
                                                                                   damage):
    assert build_cli(archive, tmp_path / "first", vault_dir).exit_code == 0
    database = vault_dir / DATABASE
    damage(database)
    left = database.read_bytes()
    (archive / "-home-ada-src-tidewatch" / "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90.jsonl").unlink()
    result = build_cli(archive, tmp_path / "site", vault_dir)
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    named = [line for line in result.output.splitlines() if str(vault_dir) in line]
    assert len(named) == 1 and "warning" in named[0].lower(), result.output
    assert pages(tmp_path / "site") == without(pages(tmp_path / "first"), "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90")
    assert database.read_bytes() == left  # left as it was, for the owner to look at
    doctor = CliRunner().invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert doctor.exit_code == 1 and str(vault_dir) in doctor.output and "internal error" not in doctor.output


def test_a_bundle_with_an_unreadable_vault_says_so_and_is_written(archive, vault_dir, tmp_path):
    assert build_cli(archive, tmp_path / "first", vault_dir).exit_code == 0
    not_sqlite(vault_dir / DATABASE)
    result = CliRunner().invoke(main, ["bundle", str(archive / TIDE / f"{VICTIM}.jsonl"), "-o", str(tmp_path / "pr.md"),
                                       "--vault", str(vault_dir)])
    assert result.exit_code == 0, result.output
    named = [line for line in result.output.splitlines() if str(vault_dir) in line]
    assert len(named) == 1 and "not a database" in named[0], result.output
    assert (tmp_path / "pr.md").is_file()


def test_a_vault_locked_forever_is_a_warning(archive, vault_dir, tmp_path, monkeypatch):
    import generator.output.vault.store as vault_module

    assert build_cli(archive, tmp_path / "first", vault_dir).exit_code == 0
    with (archive / TIDE / f"{VICTIM}.jsonl").open("ab") as handle:  # a save that has something to write
        handle.write(lines_of(2000, 5))
    monkeypatch.setattr(vault_module, "BUSY_SECONDS", 0.5)
    holder = sqlite3.connect(vault_dir / DATABASE, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        result = build_cli(archive, tmp_path / "site", vault_dir)
    finally:
        holder.close()
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    named = [line for line in result.output.splitlines() if str(vault_dir) in line]
    assert len(named) == 1 and "locked" in named[0], result.output
    assert pages(tmp_path / "site") == pages(tmp_path / "first")


# -- damaged metadata ------------------------------------------------------------------------------------------


def _victim_version(connection: sqlite3.Connection) -> tuple[int, int]:
    return connection.execute("SELECT logs.id, versions.id FROM logs JOIN versions ON versions.log_id = logs.id"
                              " WHERE logs.relpath = ?", (f"{VICTIM}.jsonl",)).fetchone()


def chunk_gone(connection: sqlite3.Connection) -> None:
    _, version = _victim_version(connection)
    connection.execute("DELETE FROM chunks WHERE digest IN (SELECT digest FROM version_chunks WHERE version_id = ?)",
                       (version,))


def negative_version_size(connection: sqlite3.Connection) -> None:
    _, version = _victim_version(connection)
    connection.execute("UPDATE versions SET size = -5 WHERE id = ?", (version,))


def negative_chunk_size(connection: sqlite3.Connection) -> None:
    _, version = _victim_version(connection)
    connection.execute("UPDATE chunks SET size = -1 WHERE digest IN "
                       "(SELECT digest FROM version_chunks WHERE version_id = ?)", (version,))


def text_digest(connection: sqlite3.Connection) -> None:
    _, version = _victim_version(connection)
    connection.execute("UPDATE version_chunks SET digest = 'not a digest' WHERE version_id = ?", (version,))


def text_data(connection: sqlite3.Connection) -> None:
    _, version = _victim_version(connection)
    connection.execute("UPDATE chunks SET data = 'text, not zlib' WHERE digest IN "
                       "(SELECT digest FROM version_chunks WHERE version_id = ?)", (version,))


def chunk_claiming_a_petabyte(connection: sqlite3.Connection) -> None:
    """A Zstandard frame whose header says it holds 2**50 bytes, then one raw block of five: unpacking it as it
    says would ask for a petabyte."""
    _, version = _victim_version(connection)
    header = ZSTANDARD_FRAME + bytes([0b1110_0000]) + struct.pack("<Q", 1 << 50)  # single segment, 8-byte size
    frame = header + ((5 << 3) | 1).to_bytes(3, "little") + b"hello"  # the last block, raw, 5 bytes
    connection.execute("UPDATE chunks SET data = ? WHERE digest IN (SELECT digest FROM version_chunks WHERE "
                       "version_id = ?)", (frame, version))


def chunk_that_unpacks_to_a_gigabyte(connection: sqlite3.Connection) -> None:
    """A zlib stream of a gigabyte of zeros (a megabyte stored): a chunk is never more than a few megabytes."""
    _, version = _victim_version(connection)
    packer = zlib.compressobj(9)
    zeros = bytes(16 << 20)
    bomb = b"".join(packer.compress(zeros) for _ in range(64)) + packer.flush()
    connection.execute("UPDATE chunks SET data = ? WHERE digest IN (SELECT digest FROM version_chunks WHERE "
                       "version_id = ?)", (bomb, version))


def number_as_text(connection: sqlite3.Connection) -> None:
    log, _ = _victim_version(connection)
    connection.execute("UPDATE versions SET number = 'one' WHERE log_id = ?", (log,))


def sha1_as_blob(connection: sqlite3.Connection) -> None:
    log, _ = _victim_version(connection)
    connection.execute("UPDATE versions SET sha1 = x'00ff' WHERE log_id = ?", (log,))


def relpath_escapes(connection: sqlite3.Connection) -> None:
    log, _ = _victim_version(connection)
    connection.execute("UPDATE logs SET relpath = '../../etc/x.jsonl' WHERE id = ?", (log,))


def project_dir_as_number(connection: sqlite3.Connection) -> None:
    log, _ = _victim_version(connection)
    connection.execute("UPDATE logs SET project_dir = 42, last_seen = x'01' WHERE id = ?", (log,))


def line_end_in_origin(connection: sqlite3.Connection) -> None:
    log, _ = _victim_version(connection)
    connection.execute("UPDATE logs SET origin = origin || char(10) || 'WARNING: forged line' WHERE id = ?", (log,))


def no_version(connection: sqlite3.Connection) -> None:
    log, _ = _victim_version(connection)
    connection.execute("UPDATE versions SET log_id = 99999 WHERE log_id = ?", (log,))


@pytest.mark.slow
@pytest.mark.parametrize("damage", [chunk_gone, negative_version_size, negative_chunk_size, text_digest, text_data,
                                    chunk_claiming_a_petabyte, chunk_that_unpacks_to_a_gigabyte, number_as_text, sha1_as_blob, relpath_escapes, project_dir_as_number,
                                    line_end_in_origin])
def test_damaged_metadata_costs_only_its_session(archive, vault_dir, tmp_path, damage):
    assert build_cli(archive, tmp_path / "intact", vault_dir).exit_code == 0
    with sqlite3.connect(vault_dir / DATABASE) as connection:
        connection.execute("PRAGMA foreign_keys=OFF")
        damage(connection)
    remove_live_logs(archive)
    result = build_cli(archive, tmp_path / "site", vault_dir)
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output and "Traceback" not in result.output
    damaged = damaged_lines(result.output)
    assert len(damaged) == 1 and VICTIM in damaged[0], result.output
    if damage in (chunk_claiming_a_petabyte, chunk_that_unpacks_to_a_gigabyte):
        assert "does not decompress" in damaged[0], damaged  # refused as it is, never unpacked whole
    assert not any(line.startswith("WARNING: forged") for line in result.output.splitlines())
    assert pages(tmp_path / "site") == without(pages(tmp_path / "intact"), VICTIM)
    restore = CliRunner().invoke(main, ["restore", VICTIM, "-o", str(tmp_path / "out"), "--vault", str(vault_dir)])
    assert restore.exit_code == 1 and "internal error" not in restore.output, restore.output
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").rglob("*.jsonl"))
    doctor = CliRunner().invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert doctor.exit_code == 1 and VICTIM in doctor.output and "internal error" not in doctor.output, doctor.output
    assert "\nWARNING: forged" not in doctor.output


def test_a_damaged_row_leaves_its_live_log_unsaved_and_built(archive, vault_dir, tmp_path):
    """While the live log is there, its damaged row is left as it is (nothing in the vault is written over),
    the save says so, and the build reads the live log."""
    assert build_cli(archive, tmp_path / "intact", vault_dir).exit_code == 0
    with sqlite3.connect(vault_dir / DATABASE) as connection:
        sha1_as_blob(connection)
    with (archive / TIDE / f"{VICTIM}.jsonl").open("ab") as handle:
        handle.write(lines_of(2000, 8))
    before = (vault_dir / DATABASE).read_bytes()
    result = build_cli(archive, tmp_path / "site", vault_dir)
    assert result.exit_code == 0 and "internal error" not in result.output, result.output
    unsaved = [line for line in result.output.splitlines() if "not saved" in line]
    assert len(unsaved) == 1 and VICTIM in unsaved[0] and "damaged" in unsaved[0], result.output
    assert pages(tmp_path / "site") == pages(tmp_path / "intact")
    with sqlite3.connect(vault_dir / DATABASE) as connection:
        assert connection.execute("SELECT sha1 FROM versions JOIN logs ON logs.id = versions.log_id"
                                  " WHERE logs.relpath = ?", (f"{VICTIM}.jsonl",)).fetchone()[0] == b"\x00\xff"
    assert (vault_dir / DATABASE).read_bytes() == before  # nothing else to save: the file is as it was


def test_a_log_without_any_version_is_left_out_with_its_name(archive, vault_dir, tmp_path):
    """A logs row whose versions went away cannot be built: it is named, and the rest is built."""
    assert build_cli(archive, tmp_path / "intact", vault_dir).exit_code == 0
    with sqlite3.connect(vault_dir / DATABASE) as connection:
        no_version(connection)
    remove_live_logs(archive)
    result = build_cli(archive, tmp_path / "site", vault_dir)
    assert result.exit_code == 0 and "internal error" not in result.output, result.output
    damaged = damaged_lines(result.output)
    assert len(damaged) == 1 and VICTIM in damaged[0] and "no version" in damaged[0], result.output
    assert pages(tmp_path / "site") == without(pages(tmp_path / "intact"), VICTIM)


def test_a_log_damaged_after_it_was_built_keeps_the_pages_the_last_build_made(archive, vault_dir, tmp_path):
    """A later build that has to render the damaged log's page again (its subagent's first prompt changed)
    cannot read it: the page the last build made from the intact copy stays, said so in one line, and the
    next build tries again."""
    parent = "057ab0db-f705-4249-82fd-8293d16bc8eb"
    subagent = archive / TIDE / parent / "subagents" / "agent-a36e531.jsonl"
    site = tmp_path / "site"
    assert build_cli(archive, site, vault_dir).exit_code == 0
    (archive / TIDE / f"{parent}.jsonl").unlink()
    assert build_cli(archive, site, vault_dir).exit_code == 0
    page = site / page_of(TIDE, parent)
    before = page.read_bytes()
    database = vault_dir / DATABASE
    flip_inside_blob(database, chunks_of(database)[str((archive / TIDE / f"{parent}.jsonl").resolve())][0])
    said = b"look at how"
    for attempt in ("first", "second"):
        saying = f"look ({attempt} time) at how".encode()
        subagent.write_bytes(subagent.read_bytes().replace(said, saying, 1))
        said = saying
        result = build_cli(archive, site, vault_dir)
        assert result.exit_code == 0 and "internal error" not in result.output, result.output
        damaged = damaged_lines(result.output)
        assert len(damaged) == 1 and parent in damaged[0] and "kept from the last build" in damaged[0], result.output
        assert page.read_bytes() == before
