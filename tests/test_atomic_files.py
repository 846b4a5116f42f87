"""`write_atomically`: a file is there as it was or whole with the new bytes, whatever happens meanwhile."""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from generator.core import files
from generator.core.files import write_atomically

OLD = b"the old file, whole\n" * 100


def leftovers(folder: Path, target: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path != target)


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "kept.json"
    path.write_bytes(OLD)
    return path


def test_writes_the_file_whole_and_leaves_nothing_beside_it(target):
    assert write_atomically(target, lambda handle: handle.write(b"new")) == 3
    assert target.read_bytes() == b"new"
    assert leftovers(target.parent, target) == []


def test_makes_the_folder(tmp_path):
    target = tmp_path / "a" / "b" / "new.txt"
    write_atomically(target, lambda handle: handle.write(b"x"))
    assert target.read_bytes() == b"x"


def test_a_failure_midway_leaves_the_old_file_and_no_temporary_file(target):
    def half_then_fail(handle):
        handle.write(b"half of the new")
        raise RuntimeError("the writer failed")

    with pytest.raises(RuntimeError, match="the writer failed"):
        write_atomically(target, half_then_fail)
    assert target.read_bytes() == OLD
    assert leftovers(target.parent, target) == []


def test_a_failed_rename_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "a folder"
    (target / "inside").mkdir(parents=True)
    with pytest.raises(OSError):
        write_atomically(target, lambda handle: handle.write(b"new"))
    assert leftovers(tmp_path, target) == []
    assert (target / "inside").is_dir()


def test_a_full_disk_names_the_file_and_leaves_the_old_one(target, monkeypatch):
    def full_disk(handle):
        handle.write(b"some")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as a write fails: no file named

    with pytest.raises(OSError) as raised:
        write_atomically(target, full_disk)
    assert raised.value.errno == errno.ENOSPC
    assert raised.value.filename == os.fspath(target)
    assert str(target) in str(raised.value)
    assert target.read_bytes() == OLD
    assert leftovers(target.parent, target) == []


def test_a_full_disk_on_the_sync_names_the_file(target, monkeypatch):
    def fsync_on_a_full_disk(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync_on_a_full_disk)
    with pytest.raises(OSError) as raised:
        write_atomically(target, lambda handle: handle.write(b"new"))
    assert raised.value.filename == os.fspath(target)
    assert target.read_bytes() == OLD
    assert leftovers(target.parent, target) == []


def test_syncs_only_when_asked(target, monkeypatch):
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    write_atomically(target, lambda handle: handle.write(b"synced"))
    assert len(synced) == 1
    write_atomically(target, lambda handle: handle.write(b"not synced"), sync=False)
    assert len(synced) == 1
    assert target.read_bytes() == b"not synced"


@pytest.mark.parametrize("mode", [0o600, 0o644, 0o640])
def test_mode_bits(tmp_path, mode):
    target = tmp_path / "private"
    previous = os.umask(0o022)
    try:
        write_atomically(target, lambda handle: handle.write(b"x"), mode)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(target.stat().st_mode) == mode & ~0o022


def test_two_writers_at_once_leave_one_whole_file(target):
    both_writing = threading.Barrier(2)
    contents = {name: name.encode() * 50_000 for name in ("first", "second")}
    failures: list[BaseException] = []

    def writer(name: str) -> None:
        def fill(handle):
            handle.write(contents[name][:1000])
            both_writing.wait(timeout=10)  # both temporary files exist at this moment
            handle.write(contents[name][1000:])
        try:
            write_atomically(target, fill)
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=writer, args=(name,)) for name in contents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert target.read_bytes() in contents.values()
    assert leftovers(target.parent, target) == []


def test_never_writes_through_a_file_planted_at_its_temporary_name(target, tmp_path, monkeypatch):
    """One who can guess the temporary name and put a link there gets no write through it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"not to be touched")
    monkeypatch.setattr(files.secrets, "token_hex", lambda size: "guessed")
    planted = files.part_path(target)
    planted.symlink_to(elsewhere)
    with pytest.raises(FileExistsError):
        write_atomically(target, lambda handle: handle.write(b"new"))
    assert elsewhere.read_bytes() == b"not to be touched"
    assert target.read_bytes() == OLD


KILLED_MIDWAY = """
import os, signal, sys
from pathlib import Path
from generator.core.files import write_atomically

def half_then_killed(handle):
    handle.write(b"half of the new file")
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)

write_atomically(Path(sys.argv[1]), half_then_killed)
"""


def test_a_kill_midway_leaves_the_old_file_and_a_recognisable_temporary_file(target):
    killed = subprocess.run([sys.executable, "-c", KILLED_MIDWAY, str(target)], check=False,
                            cwd=Path(__file__).resolve().parent.parent)
    assert killed.returncode == -signal.SIGKILL
    assert target.read_bytes() == OLD
    [left] = leftovers(target.parent, target)  # a kill allows no clean-up: what it leaves says what it is
    assert re.fullmatch(rf"\.{re.escape(target.name)}\.\d+\.[0-9a-f]+\.part", left), left


@pytest.mark.parametrize("name", ["a" * 255, "я" * 127 + "a", "é" * 100 + ".json"])
def test_a_target_whose_name_is_as_long_as_a_file_system_allows(tmp_path, name):
    target = tmp_path / name
    target.write_bytes(OLD)
    write_atomically(target, lambda handle: handle.write(b"new"))
    assert target.read_bytes() == b"new"
    assert leftovers(tmp_path, target) == []
