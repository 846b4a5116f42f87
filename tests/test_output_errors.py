"""A build that cannot write its output (a full disk, a quota, a read-only filesystem, no permission) says so
in one line naming the output, exits 1 without a traceback, and leaves the previous site as it was.

The disk is filled by replacing `open` (and `os.write`) for the folder the output is in: a file opens, and
its first write fails, as on a full disk, with an OSError that names no file."""

from __future__ import annotations

import builtins
import errno
import io
import logging
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.build import BuildConfig
from generator.cli import main
from generator.serve import LiveSite, live_config
from helpers import PROJECT_DIR, SESSION_ID, assistant, chain, text, user, write_jsonl

REAL_OPEN = builtins.open
REAL_OS_WRITE = os.write


class FullDisk:
    """A file whose writes fail as `error_number` says, as a file on a full disk does."""

    def __init__(self, real: io.IOBase, error_number: int):
        self._real, self._error_number = real, error_number

    def write(self, data: object) -> int:
        raise OSError(self._error_number, os.strerror(self._error_number))

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    def __enter__(self) -> FullDisk:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._real.close()


def fill_the_disk(monkeypatch, under: Path, error_number: int, which=lambda path: True, at_open: bool = False,
                  fd_writes: bool = False) -> None:
    """Writes to files under `under` (those `which` picks) fail: at their first write, or (`at_open`) when
    they are opened, naming the file, as EACCES and EROFS come."""
    under = under.resolve()

    def open_for_a_full_disk(file, mode="r", *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)) and any(flag in mode for flag in "wax+"):
            path = Path(os.fsdecode(file)).resolve()
            if path.is_relative_to(under) and which(path):
                if at_open:
                    raise OSError(error_number, os.strerror(error_number), os.fsdecode(file))
                return FullDisk(REAL_OPEN(file, mode, *args, **kwargs), error_number)
        return REAL_OPEN(file, mode, *args, **kwargs)

    def write_to_a_full_disk(fd: int, data: bytes) -> int:
        raise OSError(error_number, os.strerror(error_number))

    monkeypatch.setattr(builtins, "open", open_for_a_full_disk)
    monkeypatch.setattr(io, "open", open_for_a_full_disk)
    if fd_writes:
        monkeypatch.setattr(os, "write", write_to_a_full_disk)


@pytest.fixture
def logs(tmp_path) -> Path:
    folder = tmp_path / "logs"
    write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", chain(
        user("how high is the tide at noon?", sessionId=SESSION_ID),
        assistant(text("About 2.1 m at the harbour gauge."), sessionId=SESSION_ID),
    ))
    return folder


def build(logs: Path, out: Path, *options: str):
    return CliRunner().invoke(main, ["build", str(logs), "-o", str(out), "--no-vault", *options])


def site_files(out: Path) -> dict[str, bytes]:
    return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}


def assert_one_line_naming(result, out: Path, error_number: int) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert str(out) in lines[0] and os.strerror(error_number) in lines[0], lines[0]


WHERE = {
    "every file and lock": dict(fd_writes=True),
    "pages": dict(which=lambda path: path.suffix == ".html"),
    "the search index": dict(which=lambda path: "search" in path.parts),
    "the manifest, written last": dict(which=lambda path: path.name == ".sessionsite-manifest.json"),
}


ANOTHER_SESSION = "0e9a3c55-1b2d-4c4e-9f60-7a8b9c0d1e2f"


def another_session(logs: Path) -> None:
    write_jsonl(logs / PROJECT_DIR / f"{ANOTHER_SESSION}.jsonl", chain(
        user("and at midnight?", sessionId=ANOTHER_SESSION),
        assistant(text("About 1.4 m."), sessionId=ANOTHER_SESSION),
    ))


def output_bytes(out: Path) -> dict[str, bytes]:
    return site_files(out) if out.is_dir() else {out.name: out.read_bytes()}


@pytest.mark.parametrize("error_number", [errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO])
@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name", ["site", "site.zip"])
def test_a_full_disk_names_the_output_and_keeps_the_previous_one(monkeypatch, tmp_path, logs, where, error_number,
                                                                   name):
    out = tmp_path / "sites" / name
    assert build(logs, out, "-j", "1").exit_code == 0
    before = output_bytes(out)
    another_session(logs)
    fill_the_disk(monkeypatch, out.parent, error_number, **WHERE[where])
    result = build(logs, out, "-j", "1")
    monkeypatch.undo()
    assert_one_line_naming(result, out, error_number)
    assert output_bytes(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == [name]  # no working folder or lock left behind
    assert build(logs, out, "-j", "1").exit_code == 0  # and once there is room, the next build works


@pytest.mark.parametrize("error_number", [errno.EACCES, errno.EROFS, errno.EPERM])
def test_a_file_that_cannot_be_made_names_the_output(monkeypatch, tmp_path, logs, error_number):
    out = tmp_path / "sites" / "site"
    fill_the_disk(monkeypatch, out.parent, error_number, which=lambda path: path.suffix == ".html", at_open=True)
    result = build(logs, out, "-j", "1")
    monkeypatch.undo()
    assert_one_line_naming(result, out, error_number)
    assert not out.exists()


def test_a_full_disk_in_a_worker_process_names_the_output(monkeypatch, tmp_path, logs):
    out = tmp_path / "sites" / "site"
    another_session(logs)
    fill_the_disk(monkeypatch, out.parent, errno.ENOSPC, which=lambda path: path.suffix == ".html")
    result = build(logs, out, "-j", "2")
    monkeypatch.undo()
    assert_one_line_naming(result, out, errno.ENOSPC)


def test_a_full_disk_writing_a_zip_names_the_zip(monkeypatch, tmp_path, logs):
    out = tmp_path / "sites" / "site.zip"
    fill_the_disk(monkeypatch, out.parent, errno.ENOSPC, which=lambda path: path.name.startswith(".site.zip.") and path.name.endswith(".part"))
    result = build(logs, out, "-j", "1")
    monkeypatch.undo()
    assert_one_line_naming(result, out, errno.ENOSPC)
    assert not out.exists()


@pytest.mark.parametrize("command", ["markdown", "bundle"])
def test_the_other_commands_that_write_name_their_output(monkeypatch, tmp_path, logs, command):
    out = tmp_path / "sites" / ("notes" if command == "markdown" else "pr.html")
    fill_the_disk(monkeypatch, out.parent, errno.ENOSPC)
    result = CliRunner().invoke(main, [command, str(logs / PROJECT_DIR / f"{SESSION_ID}.jsonl"), "-o", str(out),
                                       "--no-vault", "-j", "1"])
    monkeypatch.undo()
    assert_one_line_naming(result, out, errno.ENOSPC)


@pytest.mark.parametrize("where", ["every file and lock", "pages"])
def test_a_full_disk_during_a_live_rebuild_is_one_line_and_the_next_rebuild_works(monkeypatch, tmp_path, logs,
                                                                                  caplog, where):
    logger = logging.getLogger("sessionsite")  # the CLI's tests leave it not propagating: caplog listens here
    logger.addHandler(caplog.handler)
    try:
        rebuild_on_a_full_disk(monkeypatch, logs, caplog, where)
    finally:
        logger.removeHandler(caplog.handler)


def rebuild_on_a_full_disk(monkeypatch, logs, caplog, where):
    live = LiveSite(live_config(BuildConfig(inputs=(logs,), output=Path(), vault=None, jobs=1)))
    live.build_once()
    site = live.config.output
    before = site_files(site)
    another_session(logs)
    fill_the_disk(monkeypatch, site.parent, errno.ENOSPC, **WHERE[where])
    with caplog.at_level(logging.ERROR, logger="sessionsite"):
        assert not live.rebuild()
    monkeypatch.undo()
    [message] = [record.getMessage() for record in caplog.records]
    assert str(site) in message and os.strerror(errno.ENOSPC) in message, message
    assert site_files(site) == before
    assert live.rebuild()  # no lock left held by the failed one
    assert any(ANOTHER_SESSION in name for name in site_files(site))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="finds a file's path by its descriptor in /proc")
def test_restore_and_the_hook_settings_on_a_full_disk_name_the_file(monkeypatch, tmp_path, logs):
    vault = tmp_path / "vault"
    assert CliRunner().invoke(main, ["save", str(logs), "--vault", str(vault)]).exit_code == 0
    restored = tmp_path / "restored"
    settings = tmp_path / "claude" / "settings.json"
    settings.parent.mkdir()
    fill_the_disk(monkeypatch, tmp_path, errno.ENOSPC, which=lambda path: not path.is_relative_to(vault))
    real_fdopen = os.fdopen

    def fdopen_for_a_full_disk(fd, mode="r", *args, **kwargs):  # how write_atomically opens what it writes
        opened = real_fdopen(fd, mode, *args, **kwargs)
        where = Path(os.readlink(f"/proc/self/fd/{fd}"))
        return FullDisk(opened, errno.ENOSPC) if "w" in mode and not where.is_relative_to(vault) else opened

    monkeypatch.setattr(os, "fdopen", fdopen_for_a_full_disk)
    results = {
        restored: CliRunner().invoke(main, ["restore", SESSION_ID, "-o", str(restored), "--vault", str(vault)]),
        settings: CliRunner().invoke(main, ["hook", "install", "--settings", str(settings), "--vault", str(vault)]),
    }
    monkeypatch.undo()
    for written, result in results.items():
        assert_one_line_naming(result, written, errno.ENOSPC)
    assert not any(restored.rglob("*.jsonl")) and not settings.exists()
