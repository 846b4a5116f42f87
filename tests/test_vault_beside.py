"""The vault's save runs beside the build, in a forked process of its own: what a user must still be able to
count on. Every log read is kept, even when the build fails; a save that dies is one warning and the site is
whole; Ctrl-C leaves no process behind and no half-made save; --strict still saves first."""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.core.errors import SessionsiteError, StrictModeError
from generator.output.vault import Vault, VaultError
from generator.workers import BackgroundDied, InBackground, can_work_in_background


BUILD_PROCESS = os.getpid()
original_save = Vault.save


@pytest.fixture(autouse=True)
def forking_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests that ran before in this process may have left threads (a test server): forking beside them is
    this file's business, which a user's build never does (`can_work_in_background`)."""
    import generator.workers

    monkeypatch.setattr(generator.workers, "can_work_in_background", lambda: True)


def _logs_under(root: Path) -> set[str]:
    return {str(path.resolve()) for path in root.rglob("*.jsonl")}


def _kept(vault_folder: Path) -> set[str]:
    return {stored.place.origin for stored in Vault(vault_folder).stored()}


def _save_that(monkeypatch: pytest.MonkeyPatch, act) -> None:
    """Vault.save, doing `act(pid)` first in whichever process saves (the fork inherits the patch)."""
    original = Vault.save

    def save(self, files, progress=None):
        act(os.getpid())
        return original(self, files, progress)

    monkeypatch.setattr(Vault, "save", save)


def _hang_noting_the_pid_in(saver: Path):
    """A save that, beside the build, writes its process's id into `saver` and then hangs."""
    def hang(pid: int) -> None:
        if pid != BUILD_PROCESS:
            saver.write_text(str(pid))
            time.sleep(120)

    return hang


def test_the_save_runs_in_a_process_of_its_own_and_keeps_every_log(archive, vault_dir, tmp_path, monkeypatch):
    savers = tmp_path / "savers"
    _save_that(monkeypatch, lambda pid: savers.open("a").write(f"{pid}\n"))
    report = build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir, jobs=2))
    assert [int(pid) for pid in savers.read_text().split()] != [os.getpid()]
    assert report.saved is not None and report.saved.new == len(_logs_under(archive))
    assert _kept(vault_dir) == _logs_under(archive)
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_save_killed_beside_the_build_is_one_warning_and_the_site_is_whole(archive, vault_dir, tmp_path,
                                                                                monkeypatch):
    def die(pid: int) -> None:
        if pid != BUILD_PROCESS:
            os.kill(pid, signal.SIGKILL)

    _save_that(monkeypatch, die)
    report = build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir))
    warnings = [d for d in report.diagnostics if "nothing saved to the vault this time" in d.message]
    assert len(warnings) == 1, report.diagnostics
    assert warnings[0].file == str(vault_dir / "vault.sqlite3") and "killed by signal 9" in warnings[0].message
    assert report.saved is None
    assert (tmp_path / "site" / "projects").is_dir() and report.sessions > 0
    assert _kept(vault_dir) == set()  # the killed save committed nothing
    monkeypatch.setattr(Vault, "save", original_save)
    build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir))
    assert _kept(vault_dir) == _logs_under(archive)


def test_a_build_that_fails_still_keeps_every_log_it_read(archive, vault_dir, tmp_path, monkeypatch):
    import generator.pipeline.phase2 as phase2

    def fail(*arguments, **keywords):
        raise SessionsiteError("the build failed after reading")

    monkeypatch.setattr(phase2, "build_site", fail)
    with pytest.raises(SessionsiteError, match="failed after reading"):
        build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir))
    assert _kept(vault_dir) == _logs_under(archive)


def test_ctrl_c_stops_the_save_and_leaves_no_process_behind(archive, vault_dir, tmp_path, monkeypatch):
    import generator.pipeline.phase2 as phase2

    saver = tmp_path / "saver"
    def interrupted(*arguments, **keywords):
        deadline = time.monotonic() + 60
        while not saver.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        raise KeyboardInterrupt

    _save_that(monkeypatch, _hang_noting_the_pid_in(saver))
    monkeypatch.setattr(phase2, "build_site", interrupted)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir))
    assert time.monotonic() - started < 60  # not waiting for the hanging save
    with pytest.raises(ProcessLookupError):  # stopped and reaped
        os.kill(int(saver.read_text()), 0)
    assert _kept(vault_dir) == set()
    assert not (tmp_path / "site").exists()


def test_with_strict_the_save_comes_first_and_its_failure_stops_the_build(archive, vault_dir, tmp_path, monkeypatch):
    savers: list[int] = []

    def refuse(pid: int) -> None:
        savers.append(pid)
        raise VaultError(f"cannot save to the vault {vault_dir}: refused for the test")

    _save_that(monkeypatch, refuse)
    with pytest.raises(StrictModeError):
        build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir, strict=True))
    assert savers == [os.getpid()]
    assert not (tmp_path / "site").exists()


def test_a_save_that_fails_beside_the_build_is_reported_once(archive, vault_dir, tmp_path, monkeypatch):
    def refuse(pid: int) -> None:
        raise VaultError(f"cannot save to the vault {vault_dir}: refused for the test")

    _save_that(monkeypatch, refuse)
    report = build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir))
    messages = [d.message for d in report.diagnostics if "vault" in d.message]
    assert messages == [f"cannot save to the vault {vault_dir}: refused for the test; nothing saved to the vault this time"]
    assert report.sessions > 0 and (tmp_path / "site" / "index.html").is_file()


class Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("not this one")


def _raise_unpicklable() -> None:
    raise Unpicklable("a lock inside")


def test_in_background_gives_back_the_result_what_was_raised_and_a_death():
    assert InBackground(lambda: {"pid": os.getpid()}).result()["pid"] != os.getpid()
    with pytest.raises(VaultError, match="full"):
        InBackground(lambda: (_ for _ in ()).throw(VaultError("the disk is full"))).result()
    with pytest.raises(RuntimeError, match="a lock inside"):
        InBackground(_raise_unpicklable).result()
    with pytest.raises(BackgroundDied, match="killed by signal 9"):
        InBackground(lambda: os.kill(os.getpid(), signal.SIGKILL)).result()
    assert pickle.loads(pickle.dumps(VaultError("x"))).args == ("x",)



def test_no_fork_beside_another_thread():
    """A thread's locks would be copied held into the child: a process running threads (`serve`) saves first."""
    import threading

    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert can_work_in_background() is False
    finally:
        release.set()
        thread.join()


def test_ctrl_c_while_the_build_waits_for_its_save_stops_the_save(archive, vault_dir, tmp_path, monkeypatch):
    import threading

    import generator.build

    saver = tmp_path / "saver"
    waiting = threading.Event()
    wait_for_the_save = generator.build._saved_at_the_end

    def waits(*arguments, **keywords):
        waiting.set()
        return wait_for_the_save(*arguments, **keywords)

    def press_ctrl_c() -> None:
        if waiting.wait(60):
            time.sleep(0.3)  # inside the wait for the save's answer
            os.kill(BUILD_PROCESS, signal.SIGINT)

    _save_that(monkeypatch, _hang_noting_the_pid_in(saver))
    monkeypatch.setattr(generator.build, "_saved_at_the_end", waits)
    # Ctrl-C as at a terminal: a test run started in the background (`.ci/run &`) has SIGINT ignored.
    ignored_or_not = signal.signal(signal.SIGINT, signal.default_int_handler)
    presser = threading.Thread(target=press_ctrl_c)
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=vault_dir))
    finally:
        waiting.set()
        presser.join()
        signal.signal(signal.SIGINT, ignored_or_not)
    with pytest.raises(ProcessLookupError):
        os.kill(int(saver.read_text()), 0)
    assert _kept(vault_dir) == set()


FAULTS_OF_BLOCKS = """
import resource, sys
from concurrent.futures import ThreadPoolExecutor
from generator.output.vault.save import keep_freed_blocks
if sys.argv[1] == "kept":
    keep_freed_blocks()

def chunk(number):  # as a save's threads make them: a megabyte and more, filled, then freed
    block = b"x" * ((1 << 20) + number * 4096)
    return len(block[1:])

before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
with ThreadPoolExecutor(2) as pool:
    list(pool.map(chunk, range(200)))
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_a_saving_process_keeps_its_freed_blocks_instead_of_faulting_them_in_again():
    import subprocess

    def faults(mode: str) -> int:
        return int(subprocess.run([sys.executable, "-c", FAULTS_OF_BLOCKS, mode], capture_output=True, text=True,
                                  check=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}).stdout)

    plain, kept = faults("plain"), faults("kept")
    assert plain > 200 * 200  # each block faulted in page by page (256 pages a megabyte)
    assert kept < plain / 10, (plain, kept)
