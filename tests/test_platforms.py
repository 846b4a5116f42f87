"""What differs between Linux, macOS and Windows, tested here by giving the code the other platform's inputs
(docs/develop.md lists each place): logs written on Windows (drive-letter paths, CRLF), Claude Code's
folder names for them, each platform's default folders, private folders where chmod means nothing, locks
where a folder cannot be opened nor an open file removed, and builds where processes cannot fork."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path, PureWindowsPath

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.bundle import BranchWork, in_repository
from generator.cli import main
from generator.core import paths, places
from generator.output import locks
from generator.output.vault.store import default_location

from conftest import EXAMPLES, REPO, corpus_files

LEDGER = EXAMPLES / "-Users-grace-work-ledger-api"
WINDOWS_PROJECT = "D--work-ledger-api"
"""Claude Code's folder for D:\\work\\ledger-api."""


# -- paths of either platform, and Claude Code's folder names for them -------------------------------------


@pytest.mark.parametrize("path, folder", [
    ("/home/ada/src/app", "-home-ada-src-app"),
    ("/Users/ada/work/ledger-api", "-Users-ada-work-ledger-api"),
    ("C:\\Users\\ada\\proj", "C--Users-ada-proj"),
    ("D:\\work\\app", "D--work-app"),
    ("c:\\Users\\eduar\\.claude", "c--Users-eduar--claude"),
    ("X:\\03 ACG\\Custom_Addons", "X--03-ACG-Custom-Addons"),
    ("\\\\server\\share\\app", "--server-share-app"),
])
def test_claude_code_s_folder_name_for_a_path_of_either_platform(path, folder):
    assert paths.encoded_project_folder(path) == folder
    # Decoded, it is a path of the same platform that Claude Code names the same folder.
    decoded = paths.decoded_project_folder(folder)
    assert paths.encoded_project_folder(decoded) == folder
    assert paths.is_windows_path(decoded) == (paths.is_windows_path(path) and not path.startswith("\\\\"))


@pytest.mark.parametrize("folder, path", [
    ("C--Users-ada-proj", "C:\\Users\\ada\\proj"),
    ("D--work-app", "D:\\work\\app"),
    ("-home-ada-app", "/home/ada/app"),
    ("notes", "notes"),  # a folder someone named: taken as it is
])
def test_the_project_path_recovered_from_a_folder_name(folder, path):
    assert paths.decoded_project_folder(folder) == path


@pytest.mark.parametrize("path, last", [
    ("D:\\work\\ledger-api", "ledger-api"), ("D:\\work\\ledger-api\\", "ledger-api"), ("d:/work/app", "app"),
    ("C:\\Users\\eduar\\.claude", ".claude"), ("/home/ada/app/", "app"), ("/", ""), ("C:\\", ""),
])
def test_the_last_name_of_a_path_of_either_platform(path, last):
    assert paths.last_part(path) == last


@pytest.mark.parametrize("cwd, top, inside", [
    ("D:\\work\\app", "D:/work/app", True),  # git's spelling of a Windows checkout, and Claude Code's
    ("D:\\work\\app\\src", "D:/work/app", True),
    ("d:\\Work\\App\\src", "D:/work/app", True),  # case-blind, as Windows is
    ("D:\\work\\apple", "D:/work/app", False),
    ("E:\\work\\app", "D:/work/app", False),
    ("/home/ada/app/src", "/home/ada/app", True),
    ("/home/ada/App", "/home/ada/app", False),  # case matters on Linux
    ("/home/ada/apple", "/home/ada/app", False),
    ("/work/app", "D:/work/app", False),
])
def test_a_session_s_folder_is_in_the_repository_whatever_the_spelling(cwd, top, inside):
    assert in_repository(cwd, top) is inside
    work = BranchWork(top, "main", ())
    assert (in_repository(cwd, work.repository)) is inside


def test_a_changed_file_is_shown_relative_to_a_windows_project():
    assert paths.relative_to("D:\\work\\app\\src\\x.py", "d:\\work\\app") == "src\\x.py"
    assert paths.relative_to("D:/work/app/src/x.py", "D:\\work\\app") == "src/x.py"
    assert paths.relative_to("D:\\work\\apple\\x.py", "D:\\work\\app") == "D:\\work\\apple\\x.py"
    assert paths.relative_to("/x/y", "/") == "/x/y"


# -- logs written on Windows ---------------------------------------------------------------------------------


def windows_copy(target: Path, line_end: bytes) -> Path:
    """The ledger-api example as Claude Code on Windows writes it: the project in D:\\work\\ledger-api (its
    folder D--work-ledger-api), every path in it a Windows one, lines ended by `line_end`."""
    folder = target / WINDOWS_PROJECT
    folder.mkdir(parents=True)
    for log in sorted(LEDGER.glob("*.jsonl")):
        lines = []
        for line in log.read_text(encoding="utf-8").splitlines():
            # Each path under the project, separators and all (in JSON, a backslash is written twice).
            lines.append(re.sub(r"/Users/grace/work/ledger-api[^\s\"'`:\\]*",
                                lambda found: "D:" + found.group().removeprefix("/Users/grace").replace("/", "\\\\"),
                                line))
        (folder / log.name).write_bytes(line_end.join(line.encode("utf-8") for line in lines) + line_end)
    return target


def built(logs: Path, out: Path) -> dict[str, bytes]:
    result = CliRunner().invoke(main, ["build", str(logs), "-o", str(out), "--no-vault", "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*"))
            if path.is_file() and path.name != ".sessionsite-manifest.json"}


def test_a_windows_log_with_crlf_builds_the_same_pages_as_with_lf(tmp_path):
    with_lf = built(windows_copy(tmp_path / "lf", b"\n"), tmp_path / "site-lf")
    with_crlf = built(windows_copy(tmp_path / "crlf", b"\r\n"), tmp_path / "site-crlf")
    assert with_lf.keys() == with_crlf.keys()
    assert [name for name in with_lf if with_lf[name] != with_crlf[name]] == []


def test_a_windows_log_names_its_project_by_its_drive_letter_path(tmp_path):
    site = tmp_path / "site"
    built(windows_copy(tmp_path / "logs", b"\r\n"), site)
    project = site / "projects" / WINDOWS_PROJECT
    index = BeautifulSoup((project / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert "D:\\work\\ledger-api" in index.get_text()
    # The files a session changed, as the project knows them: relative to its folder.
    files = BeautifulSoup((project / "files.html").read_text(encoding="utf-8"), "html.parser").get_text()
    assert "src\\routes\\payments.ts" in files and "D:\\work\\ledger-api\\src" not in files
    # The same choice of sessions by the project's name as on any platform.
    chosen = CliRunner().invoke(main, ["build", str(tmp_path / "logs"), "-o", str(tmp_path / "chosen"), "--no-vault",
                                       "-j", "1", "-q", "--project", "ledger-api"])
    assert chosen.exit_code == 0, chosen.output
    assert (tmp_path / "chosen" / "projects" / WINDOWS_PROJECT / "index.html").is_file()


@pytest.mark.parametrize("path", corpus_files("C--Users-*/*.jsonl")[:1] or [None], ids=lambda p: "windows-corpus-log")
def test_a_real_windows_log_of_the_corpus_builds_under_its_windows_path(public_corpus, path, tmp_path):
    logs = tmp_path / "logs" / path.parent.name
    logs.mkdir(parents=True)
    shutil.copy(path, logs)
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", str(logs.parent), "-o", str(site), "--no-vault", "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    index = BeautifulSoup((site / "projects" / path.parent.name / "index.html").read_text(encoding="utf-8"),
                          "html.parser").get_text()
    assert "C:\\Users\\" in index


# -- each platform's folders -----------------------------------------------------------------------------------


HOME = Path("/home/ada")


@pytest.mark.parametrize("platform, environ, cache, data", [
    ("linux", {}, "/home/ada/.cache", "/home/ada/.local/share"),
    ("linux", {"XDG_CACHE_HOME": "/tmp/c", "XDG_DATA_HOME": "/tmp/d"}, "/tmp/c", "/tmp/d"),
    ("darwin", {}, "/home/ada/Library/Caches", "/home/ada/Library/Application Support"),
    ("darwin", {"XDG_DATA_HOME": "/tmp/d"}, "/home/ada/Library/Caches", "/tmp/d"),
    ("win32", {"LOCALAPPDATA": "C:\\Users\\ada\\AppData\\Local"}, "C:\\Users\\ada\\AppData\\Local",
     "C:\\Users\\ada\\AppData\\Local"),
])
def test_the_cache_and_data_folders_of_each_platform(platform, environ, cache, data):
    assert str(places.cache_home(platform, environ, HOME)) == cache
    assert str(places.data_home(platform, environ, HOME)) == data


def test_the_vault_of_each_platform_and_one_kept_where_it_was_stays_in_use(tmp_path):
    home = tmp_path / "home"
    mac = default_location("darwin", {}, home)
    assert mac == home / "Library" / "Application Support" / "sessionsite" / "vault"
    windows = default_location("win32", {"LOCALAPPDATA": "C:\\Users\\ada\\AppData\\Local"}, home)
    assert str(PureWindowsPath(windows)) == "C:\\Users\\ada\\AppData\\Local\\sessionsite\\vault"
    # A vault made before in ~/.local/share (every platform's default then) is not left behind.
    former = home / ".local" / "share" / "sessionsite" / "vault"
    former.mkdir(parents=True)
    assert default_location("darwin", {}, home) == former
    assert default_location("linux", {}, home) == former
    mac.mkdir(parents=True)  # once one is in the platform's folder, that one is used
    assert default_location("darwin", {}, home) == mac


def test_a_private_folder_on_windows_asks_for_no_owner_nor_mode(tmp_path, monkeypatch):
    """Windows has no getuid, and chmod sets only the read-only bit: a user's profile folders are private
    already, so nothing is asked or changed."""
    monkeypatch.setattr(places.os, "name", "nt")
    monkeypatch.delattr(places.os, "getuid")
    folder = places._private_folder(tmp_path / "cache" / "sessionsite")
    assert folder.is_dir()


# -- locks: what Windows allows ----------------------------------------------------------------------------------

WINDOWS_RULES = textwrap.dedent("""
    # Windows' rules for files, on this machine: a folder cannot be opened as a file, and an open file
    # cannot be removed.
    import os, sys
    from pathlib import Path
    open_paths = {}
    real_open, real_close, real_unlink = os.open, os.close, Path.unlink
    def windows_open(path, flags, mode=0o777, *, dir_fd=None):
        if os.path.isdir(path):
            raise PermissionError(13, "Permission denied", str(path))
        fd = real_open(path, flags, mode)
        open_paths[fd] = os.path.realpath(path)
        return fd
    def windows_close(fd):
        open_paths.pop(fd, None)
        real_close(fd)
    def windows_unlink(self, missing_ok=False):
        if os.path.realpath(self) in open_paths.values():
            raise PermissionError(13, "The process cannot access the file: it is open", str(self))
        real_unlink(self, missing_ok=missing_ok)
    import shutil
    import generator.output.locks
    os.open, os.close, Path.unlink = windows_open, windows_close, windows_unlink
    shutil._use_fd_functions = False  # as on Windows: rmtree walks names, opening no folder
""")

HOLD = WINDOWS_RULES + textwrap.dedent("""
    from generator.output.locks import OutputLock, claim
    out = Path(sys.argv[1])
    lock = OutputLock(out).__enter__()
    staging = out.parent / f".{out.name}.building-dead"
    staging.mkdir()
    (staging / ".sessionsite").write_text("x")
    claim(staging)
    print("held", flush=True)
    sys.stdin.read()
""")


def run_with_windows_rules(script: str, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)


def test_locks_hold_and_what_a_dead_build_left_is_removed_under_windows_rules(tmp_path, monkeypatch):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "site"
    holder = run_with_windows_rules(HOLD, str(out), env=env)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held", holder.stderr
        staging = tmp_path / ".site.building-dead"
        # While it lives: a second build into the output stops, and its staging folder is left alone.
        second = subprocess.run([sys.executable, "-c", WINDOWS_RULES + textwrap.dedent("""
            from generator.output.locks import OutputLock, remove_abandoned
            from generator.core.errors import UsageProblem
            remove_abandoned(Path(sys.argv[1]).with_name("other"))
            try:
                OutputLock(Path(sys.argv[1])).__enter__()
            except UsageProblem as problem:
                print(problem)
        """), str(out)], capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
        assert "another sessionsite command is writing it" in second.stdout, second.stderr
        assert staging.is_dir()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    # Dead (however it died): the next build of any output removes its folder and its lock files.
    cleaner = subprocess.run([sys.executable, "-c", WINDOWS_RULES + textwrap.dedent("""
        from generator.output.locks import OutputLock, remove_abandoned
        remove_abandoned(Path(sys.argv[1]).with_name("other"))
        with OutputLock(Path(sys.argv[1])):
            print("taken")
    """), str(out)], capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    assert cleaner.stdout.strip() == "taken", cleaner.stderr
    assert sorted(path.name for path in tmp_path.iterdir() if path.name != "cache") == []
    assert list((tmp_path / "cache" / "sessionsite" / "running").iterdir()) == []


def test_a_locked_file_s_holder_unreadable_as_on_windows_still_gives_one_clear_line(tmp_path, monkeypatch):
    """On Windows a locked file's bytes cannot be read by another process: the second build still stops
    with its one line, only without the holder's process number."""
    out = tmp_path / "site"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with locks.OutputLock(out):
        def refuse(fd: int, size: int) -> bytes:
            raise PermissionError(33, "The process cannot access the file because another process has locked a portion of the file")
        monkeypatch.setattr(locks.os, "read", refuse)
        with pytest.raises(locks.UsageProblem, match=r"another sessionsite command is writing it; wait"):
            locks.OutputLock(out).__enter__()


# -- processes that cannot fork ------------------------------------------------------------------------------


def test_where_processes_cannot_fork_a_build_writes_the_same_site(tmp_path, monkeypatch):
    """Windows has no fork: the workers and the save beside the build are not started, the build runs in its
    own process, and the site is the same as one written by forked workers."""
    import multiprocessing

    from generator import workers

    forked = built_with_jobs(tmp_path / "forked", jobs=2)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])  # as on Windows
    monkeypatch.setattr(workers, "can_work_in_background", lambda: False)
    assert not workers._forks(2, 10)
    alone = built_with_jobs(tmp_path / "alone", jobs=2)
    assert forked == alone


def built_with_jobs(out: Path, jobs: int) -> dict[str, bytes]:
    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(out), "--vault", str(out.with_name(out.name + "-vault")),
                                       "-j", str(jobs), "-q"])
    assert result.exit_code == 0, result.output
    return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}


def test_a_command_sets_its_signal_handlers_where_there_is_no_sighup(monkeypatch):
    """Windows has SIGTERM and no SIGHUP: a command still stops on SIGTERM the way Ctrl-C stops it."""
    from generator.commands.running import stopped_by_signals

    monkeypatch.delattr(signal, "SIGHUP")
    with pytest.raises(SystemExit) as stopped, stopped_by_signals():
        os.kill(os.getpid(), signal.SIGTERM)
    assert stopped.value.code == 128 + signal.SIGTERM


def test_where_folders_cannot_be_swapped_in_one_step_a_rebuild_replaces_the_site_whole(tmp_path, monkeypatch):
    """renameat2 is Linux's: on macOS and Windows the new site goes in by two renames, the old one beside
    until the new one is in place, and nothing of either is left over."""
    from generator.output import write

    assert write._exchange(tmp_path / "a", tmp_path / "b", platform="win32") is False
    assert write._exchange(tmp_path / "a", tmp_path / "b", platform="darwin") is False
    first = built(LEDGER.parent / LEDGER.name, tmp_path / "site")
    monkeypatch.setattr(write, "_exchange", lambda first, second: False)
    (tmp_path / "site" / "stale.txt").write_text("from before", encoding="utf-8")
    again = built(EXAMPLES, tmp_path / "site")
    assert "stale.txt" not in again and "projects/home-ada-src-tidewatch/index.html" in again
    assert "projects/home-ada-src-tidewatch/index.html" not in first
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site"]


def test_a_build_of_the_previous_version_running_beside_takes_nothing_of_this_one_s_for_dead(tmp_path, monkeypatch):
    """sessionsite 0.1 took every `running/*.json` it could lock for a dead build's register and removed the
    folders it lists: a register of this version has no such file, whatever it holds."""
    import fcntl

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # A register of its own: the process's may already be open in another test's cache folder.
    monkeypatch.setattr(locks, "_register", locks._Register())
    out = tmp_path / "site"
    staging = tmp_path / ".site.building-live"
    staging.mkdir()
    with locks.OutputLock(out):
        locks.claim(staging)
        try:
            running = tmp_path / "cache" / "sessionsite" / "running"
            assert sorted(path.suffix for path in running.iterdir()) == [".list", ".lock"]
            for path in running.glob("*.json"):  # what 0.1 did with each
                with path.open("rb") as opened:
                    with pytest.raises(BlockingIOError):
                        fcntl.flock(opened, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            locks.release(staging)
    assert not list(running.iterdir())
