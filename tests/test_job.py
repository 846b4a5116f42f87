"""Every command that writes an output (build, markdown, json, bundle) runs as one job: the same checks of where
it writes, one writer at a time, a vault save, --strict, and nothing of the previous output lost when it stops.

Each behaviour is tested on every writer, through the command line a user runs, so that a writer that goes its
own way fails here.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.output.locks import OutputLock
from generator.output.vault import Vault

from conftest import EXAMPLES
from helpers import assistant, chain, text, user, write_jsonl

REPO = Path(__file__).resolve().parents[1]
TIDEWATCH = "-home-ada-src-tidewatch"
SESSION = "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90"

# Each writer: the command, and the output it is given (a folder or a file, under the test's folder).
WRITERS = {
    "build": ("build", "site"),
    "build-zip": ("build", "site.zip"),
    "markdown": ("markdown", "notes"),
    "json": ("json", "export"),
    "bundle-html": ("bundle", "pr.html"),
    "bundle-zip": ("bundle", "pr.zip"),
    "bundle-md": ("bundle", "pr.md"),
}


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """A folder of project folders: a copy of the examples' logs."""
    copy = tmp_path / "projects"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("*.md"))
    return copy


def arguments(writer: str, projects: Path, output: Path, *more: str) -> list[str]:
    """A command line for `writer`: a bundle is given a session file, the others the project folder."""
    command, _ = WRITERS[writer]
    source = projects / TIDEWATCH / f"{SESSION}.jsonl" if command == "bundle" else projects / TIDEWATCH
    return [command, str(source), "-o", str(output), "-j", "1", *more]


def snapshot(path: Path) -> dict[str, bytes]:
    """A file's bytes, or a folder's files' bytes, by name."""
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def beside(output: Path) -> list[str]:
    """What the folder the output sits in holds, but for the output itself."""
    return sorted(p.name for p in output.parent.iterdir() if p.name != output.name)


def written(writer: str, projects: Path, tmp_path: Path, *more: str) -> Path:
    output = tmp_path / "out" / WRITERS[writer][1]
    output.parent.mkdir(parents=True, exist_ok=True)
    result = CliRunner().invoke(main, arguments(writer, projects, output, "--no-vault", *more))
    assert result.exit_code == 0, result.output
    return output


# -- one writer at a time -------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_a_second_command_writing_the_same_output_stops_and_changes_nothing(writer, projects, tmp_path):
    output = written(writer, projects, tmp_path)
    before = snapshot(output)
    with OutputLock(output):  # another command is writing it
        result = CliRunner().invoke(main, arguments(writer, projects, output, "--no-vault"))
    assert result.exit_code != 0
    assert f"{output.resolve()}: another sessionsite command is writing it" in result.stderr
    assert "Traceback" not in result.output
    assert snapshot(output) == before
    assert beside(output) == []


@pytest.mark.parametrize("writer", ["bundle-html", "bundle-md", "build"])
def test_two_commands_at_once_leave_one_whole_output(writer, projects, tmp_path):
    """Two real processes race for the same output: each either writes it whole or says another is
    writing it; what is left is what one of them wrote, byte for byte."""
    output = tmp_path / "out" / WRITERS[writer][1]
    output.parent.mkdir()
    command = [sys.executable, "-m", "generator", *arguments(writer, projects, output, "--no-vault", "-q")]
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    racers = [subprocess.Popen(command, env=environment, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(racer.wait(timeout=300), racer.stderr.read() if racer.stderr else "") for racer in racers]
    for racer in racers:
        if racer.stderr:
            racer.stderr.close()
    assert any(code == 0 for code, _ in results), results
    for code, stderr in results:
        assert code == 0 or "another sessionsite command is writing it" in stderr, stderr
    alone = written(writer, projects, tmp_path / "alone")
    assert snapshot(output) == snapshot(alone)
    assert [name for name in beside(output) if not name.endswith(".lock")] == []


# -- stopped half way ------------------------------------------------------------------------------------------


def _limit_file_size() -> None:
    # A file written past 4 kB: a full disk (EFBIG) to a process that ignores SIGXFSZ, as Python does; a kill
    # at that moment to one that does not.
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


KILLED_BY_SIGXFSZ = ("import signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "
                     "from generator.cli import main; sys.argv[0] = 'sessionsite'; main()")


@pytest.mark.parametrize("stopped", ["killed", "disk-full"])
@pytest.mark.parametrize("writer", WRITERS)
def test_a_command_stopped_while_writing_leaves_the_previous_output_whole(writer, stopped, projects, tmp_path):
    output = written(writer, projects, tmp_path, "--redact-paths")
    before = snapshot(output)
    program = ["-c", KILLED_BY_SIGXFSZ] if stopped == "killed" else ["-m", "generator"]
    result = subprocess.run([sys.executable, *program, *arguments(writer, projects, output, "--no-vault")],
                            env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                            preexec_fn=_limit_file_size, timeout=300)
    if stopped == "killed":
        assert result.returncode == -signal.SIGXFSZ, result.stderr
    else:  # one line, naming the output the user gave (not a working file of the command's)
        assert result.returncode == 1, result.stderr
        error = result.stderr.strip().splitlines()[-1]
        assert error.startswith(f"Error: {output}: cannot write") and "File too large" in error, error
    assert snapshot(output) == before
    again = CliRunner().invoke(main, arguments(writer, projects, output, "--no-vault"))
    assert again.exit_code == 0, again.output
    assert snapshot(output) != before  # without --redact-paths, now
    assert snapshot(output) == snapshot(written(writer, projects, tmp_path / "fresh"))
    assert beside(output) == []  # what it left, removed


# -- --strict ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_strict_fails_every_writer_alike_and_writes_nothing(writer, tmp_path):
    projects = tmp_path / "projects"
    session = write_jsonl(projects / TIDEWATCH / f"{SESSION}.jsonl",
                          [*chain(user("hello"), assistant(text("hi"))), '{"type": "user", "message": '])
    output = tmp_path / "out" / WRITERS[writer][1]
    output.parent.mkdir()
    result = CliRunner().invoke(main, arguments(writer, projects, output, "--no-vault", "--strict"))
    assert result.exit_code == 1, result.output
    assert f"WARNING: {session}:3: " in result.stderr
    assert result.stderr.strip().endswith("Error: 1 problem(s) in the input (--strict)")
    assert "Traceback" not in result.output
    assert not output.exists() and beside(output) == []
    loose = CliRunner().invoke(main, arguments(writer, projects, output, "--no-vault"))
    assert loose.exit_code == 0 and f"{session}:3: " in loose.stderr


# -- the vault ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_every_writer_saves_the_logs_of_the_project_it_reads(writer, projects, tmp_path):
    vault = tmp_path / "vault"
    output = tmp_path / "out" / WRITERS[writer][1]
    result = CliRunner().invoke(main, arguments(writer, projects, output, "--vault", str(vault)))
    assert result.exit_code == 0, result.output
    expected = {f"{TIDEWATCH}/{p.relative_to(projects / TIDEWATCH).as_posix()}"
                for p in (projects / TIDEWATCH).rglob("*.jsonl")}
    assert {log.name for log in Vault(vault).stored()} == expected
    assert f"vault: a copy of each log read, secrets included, is kept in {vault}" in result.stderr


@pytest.mark.parametrize("writer", WRITERS)
def test_no_writer_writes_inside_the_vault_or_what_it_reads(writer, projects, tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    for output, said in ((vault / WRITERS[writer][1], "inside the vault"),
                         (projects / TIDEWATCH / WRITERS[writer][1], "inside the input")):
        result = CliRunner().invoke(main, arguments(writer, projects, output, "--vault", str(vault)))
        assert result.exit_code == 2, result.output
        assert said in result.stderr and str(output.resolve()) in result.stderr
        assert not output.exists()
    assert not any(vault.iterdir())


@pytest.mark.parametrize("writer", WRITERS)
def test_an_unusable_vault_is_one_warning_and_the_output_is_written(writer, projects, tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vault.sqlite3").write_bytes(b"not a database, " * 64)
    output = tmp_path / "out" / WRITERS[writer][1]
    result = CliRunner().invoke(main, arguments(writer, projects, output, "--vault", str(vault)))
    assert result.exit_code == 0, result.output
    assert output.exists()
    assert sum(str(vault / "vault.sqlite3") in line for line in result.stderr.splitlines()) == 1


@pytest.mark.parametrize("writer", WRITERS)
def test_strict_stops_on_an_unusable_vault_in_every_writer(writer, projects, tmp_path):
    """A vault that cannot be used is a problem like an unreadable line: --strict stops on it, whatever
    writes, and writes nothing."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vault.sqlite3").write_bytes(b"not a database, " * 64)
    output = tmp_path / "out" / WRITERS[writer][1]
    output.parent.mkdir()
    result = CliRunner().invoke(main, arguments(writer, projects, output, "--vault", str(vault), "--strict"))
    assert result.exit_code == 1, result.output
    assert f"WARNING: {vault / 'vault.sqlite3'}:0: " in result.stderr
    assert result.stderr.strip().endswith("Error: 1 problem(s) in the input (--strict)")
    assert not output.exists() and beside(output) == []


def test_a_job_collects_cycles_less_often_while_it_runs_and_leaves_the_collector_as_it_found_it(tmp_path):
    """A build makes millions of short-lived objects: a job raises the collector's first threshold while it
    runs, and puts back the caller's (a program that builds with sessionsite, `serve`'s many rebuilds) when it
    ends, also when it fails."""
    import gc

    from generator.core.errors import UsageProblem
    from generator.job import FEWER_COLLECTIONS, Job

    (tmp_path / "logs").mkdir()
    before = gc.get_threshold()
    try:
        gc.set_threshold(900, 11, 12)
        with Job(tmp_path / "site", [tmp_path / "logs"]):
            assert gc.get_threshold() == (FEWER_COLLECTIONS, 11, 12)
        assert gc.get_threshold() == (900, 11, 12)
        with pytest.raises(RuntimeError), Job(tmp_path / "site", [tmp_path / "logs"]):
            raise RuntimeError("a build that fails")
        assert gc.get_threshold() == (900, 11, 12)
        with pytest.raises(UsageProblem), Job(tmp_path / "logs" / "site", [tmp_path / "logs"]):
            pass  # refused before it starts: its output is inside what it reads
        assert gc.get_threshold() == (900, 11, 12)
    finally:
        gc.set_threshold(*before)
