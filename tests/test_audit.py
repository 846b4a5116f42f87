"""`sessionsite audit`: each redaction made, with the secret masked, and what looks private but was not
redacted, grouped, counted and linked to the built site; --strict exits 1 when there is anything."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.audit import masked, private_looking
from generator.cli import main

from helpers import assistant, at, chain, text, tool_result, tool_use, user, write_jsonl

TOKEN = "ghp_" + "Q7mZ2xR9kV4bN8cT1wY6pL3sD5fH0jA2gE7u"
RANDOM = "Zx8kQ2mN7vB4pL9sR3tW6yH1jF5gD0aC"  # no known format, no telling name
SESSION = "5b1f0c2e-0000-4000-8000-00000000a0d1"
CLEAN = "5b1f0c2e-0000-4000-8000-00000000c1ea"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "-srv-app"
    call = tool_use("Bash", {"command": "curl -s https://grafana.ops.example-corp.net/api/health && "
                                        "psql postgres://app@db3.example-corp.net/app && git fetch git@git.corp.lan:x"})
    write_jsonl(folder / f"{SESSION}.jsonl", chain(
        user(f"Push with {TOKEN} and mail ada@ops-mail.net about 203.0.113.9", sessionId=SESSION, cwd="/srv/app",
             timestamp=at(0)),
        assistant(call, sessionId=SESSION, cwd="/srv/app", timestamp=at(1)),
        tool_result(call["id"], f"ok from build7.corp.internal (10.1.2.3), cache key {RANDOM}",
                    sessionId=SESSION, cwd="/srv/app", timestamp=at(2)),
        assistant(text("Logs are in /home/ada/app.log; released v1.2.3.4 and 127.0.0.1 is fine."),
                  sessionId=SESSION, cwd="/srv/app", timestamp=at(3)),
    ))
    return folder


def section(out: str, kind: str) -> str:
    """The lines of one kind's group: from its heading to the next heading."""
    found = re.search(rf"^  {re.escape(kind)}:.*?(?=^  \S|\Z)", out, re.MULTILINE | re.DOTALL)
    assert found, kind
    return found.group()


def audit(*arguments: str):
    return CliRunner().invoke(main, ["audit", *arguments, "-j", "1"])


def test_lists_redactions_masked_and_what_was_not_redacted(project):
    result = audit(str(project))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "github-token: 1 place, 1 different" in out
    assert f"ghp_•••• ({len(TOKEN)} characters)" in out
    for kind, value in [("e-mail", "ada@ops-mail.net"), ("ip-address", "203.0.113.9"), ("ip-address", "10.1.2.3"),
                        ("web-host", "grafana.ops.example-corp.net"), ("host-name", "build7.corp.internal"),
                        ("host-name", "db3.example-corp.net"), ("host-name", "git.corp.lan"),
                        ("home-folder", "/home/ada")]:
        assert value in section(out, kind), (kind, value)
    assert "high-entropy: 1 place" in out
    assert f"{str(project / SESSION)}.jsonl:1" in out  # the prompt's line
    # Never a secret whole, nor more of it than its first characters; no version or loopback address.
    assert TOKEN[4:10] not in out and RANDOM[4:10] not in out
    assert "1.2.3.4" not in out and "127.0.0.1" not in out


def test_strict_exits_1_when_there_is_anything_and_0_when_not(project, tmp_path):
    assert audit(str(project), "--strict").exit_code == 1
    clean = tmp_path / "clean" / "-srv-app"
    write_jsonl(clean / f"{CLEAN}.jsonl", chain(
        user("Rename the helper", sessionId=CLEAN, cwd="/srv/app", timestamp=at(0)),
        assistant(text("Renamed."), sessionId=CLEAN, cwd="/srv/app", timestamp=at(1))))
    result = audit(str(clean), "--strict")
    assert result.exit_code == 0, result.output
    assert "Redacted: 0 places" in result.output and "Not redacted: look at these: 0 places" in result.output


def test_places_link_into_the_built_site(project, tmp_path):
    site = tmp_path / "site"
    assert CliRunner().invoke(main, ["build", str(project), "-o", str(site), "--no-vault", "-j", "1"]).exit_code == 0
    result = audit(str(project), "--site", str(site))
    assert result.exit_code == 0, result.output
    links = re.findall(r"(\S+\.html)#(e-[\w-]+)", result.output)
    assert links
    for page, anchor in links:
        assert f'id="{anchor}"' in Path(page).read_text(encoding="utf-8")


def test_own_rules_and_the_selection_apply(project):
    result = audit(str(project), "--redact-word", "example-corp", "--redact-paths", "--since", "2026-03-01")
    assert result.exit_code == 0, result.output
    assert "custom-word: 1 place" in result.output
    assert "home-directory: 1 place" in result.output
    assert "example-corp" not in result.output and "/home/ada" not in result.output
    nothing = audit(str(project), "--since", "2030-01-01")
    assert nothing.exit_code == 1 and "no session" in nothing.output


@pytest.mark.parametrize("secret", ["hunter2!", TOKEN, "x" * 200])
def test_masking_shows_at_most_four_characters_and_a_fifth_of_a_short_one(secret):
    shown = masked(secret)
    kept = shown.split("•", 1)[0]
    assert len(kept) <= min(4, len(secret) // 5)
    assert secret.startswith(kept) and f"({len(secret)} characters)" in shown


def test_paths_names_and_ids_are_not_taken_for_random_strings():
    quiet = ("/Users/grace/work/ledger-api/migrations/004_idempotency_keys claude-sonnet-4-5-20250929 "
             "toolu_01hmsBXKU8C3nZ6HeRcxLSfj 3f2c9a1e4b5d6c7e8f9a0b1c2d3e4f5a6b7c8d9e test_every_command_has_help")
    assert [kind for kind, _, _ in private_looking(quiet) if kind == "high-entropy"] == []


def test_file_names_and_camel_case_names_are_not_hosts_or_keys():
    quiet = "edit .claude/settings.local.json and apod.nasa.gov/apod/image/2604/n4038_n4039_antennaeSelbyColombari"
    assert [(kind, value) for kind, value, _ in private_looking(quiet) if kind != "web-host"] == []
