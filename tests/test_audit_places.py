"""`sessionsite audit` places each redaction and each value to review at the line of the log that held it, in
files longer than one read batch (entries are redacted a batch at a time), however the file is read: a session's
log, a subagent's, a log the vault reads back once it is gone, on one process or two."""

from __future__ import annotations

import hashlib
import string
from contextlib import ExitStack
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.audit import audit, high_entropy_values
from generator.cli import main
from generator.commands.options import Options, files_to_read
from generator.pipeline.plans import Redaction
from generator.stages.redact import OwnRules
from generator.stages.read import BATCH_LINES

from helpers import assistant, at, chain, text, user, write_jsonl

SESSION = "5b1f0c2e-0000-4000-8000-0000000a11e5"
ENTRIES = BATCH_LINES * 2 + 90  # three batches
ALPHABET = string.ascii_letters + string.digits


def made_up(seed: str, length: int) -> str:
    """A value of `length` base-62 characters, different for each seed, both cases and digits in it."""
    number = int.from_bytes(hashlib.sha256(seed.encode()).digest() * 2, "big")
    chars = []
    while len(chars) < length:
        number, rest = divmod(number, 62)
        chars.append(ALPHABET[rest])
    return "Aa9" + "".join(chars[3:])


# Line -> the value on it: tokens of a known format (redacted) and random-looking values (to review), in
# every batch, at its start, middle and end.
TOKENS = {line: "ghp_" + made_up(f"token{line}", 36) for line in (2, 130, BATCH_LINES, BATCH_LINES + 1, 400, ENTRIES)}
RANDOMS = {line: made_up(f"random{line}", 32) for line in (5, BATCH_LINES - 1, BATCH_LINES + 2, 480, ENTRIES - 1)}


def session_entries(session: str) -> list[dict]:
    entries = []
    for line in range(1, ENTRIES + 1):
        words = f"step {line}"
        if line in TOKENS:
            words += f": push with {TOKENS[line]}"
        if line in RANDOMS:
            words += f": the cache key is {RANDOMS[line]}"
        make = user if line % 2 else assistant
        body = words if make is user else text(words)
        entries.append(make(body, sessionId=session, cwd="/srv/app", timestamp=at(line)))
    return chain(*entries)


def test_the_values_are_what_the_rules_see():
    assert all(list(high_entropy_values(f"the cache key is {value}")) == [value] for value in RANDOMS.values())


def check(inputs: Path, file: Path, jobs: int, vault: Path | None = None) -> None:
    """The audit, as the command runs it (the vault's copies of logs that are gone read too), names each
    value at the line that held it, and nowhere else."""
    with ExitStack() as stack:
        files = files_to_read([inputs], Options(vault_dir=vault, no_vault=vault is None), OwnRules(), stack)
        report = audit([inputs], Redaction(), jobs=jobs, files=files)
        redacted = sorted(place.line for finding in report.redacted.values() for place in finding.places
                          if place.file == str(file))
        to_review = {value: [place.line for place in finding.places if place.file == str(file)]
                     for (kind, value), finding in report.to_review.items() if kind == "high-entropy"}
    assert redacted == sorted(TOKENS)
    assert to_review == {value: [line] for line, value in RANDOMS.items()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "-srv-app"
    write_jsonl(folder / f"{SESSION}.jsonl", session_entries(SESSION))
    return folder


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_session_log(project, jobs):
    check(project, project / f"{SESSION}.jsonl", jobs)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_subagent_log(project, jobs):
    agent = project / SESSION / "subagents" / "agent-a1b2c3d.jsonl"
    entries = session_entries(SESSION)
    for entry in entries:
        entry["isSidechain"] = True
        entry["agentId"] = "a1b2c3d"
    write_jsonl(agent, entries)
    (project / f"{SESSION}.jsonl").unlink()
    write_jsonl(project / f"{SESSION}.jsonl", chain(user("Start", sessionId=SESSION, cwd="/srv/app", timestamp=at(0))))
    check(project, agent, jobs)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_log_the_vault_reads_back(project, tmp_path, jobs):
    vault = tmp_path / "vault"
    log = project / f"{SESSION}.jsonl"
    assert CliRunner().invoke(main, ["save", str(project), "--vault", str(vault)]).exit_code == 0
    log.unlink()
    write_jsonl(project / "5b1f0c2e-0000-4000-8000-00000000c1ea.jsonl",  # the project folder is still there
                chain(user("Rename the helper", sessionId="5b1f0c2e-0000-4000-8000-00000000c1ea", cwd="/srv/app",
                           timestamp=at(0))))
    check(project, log, jobs, vault)
