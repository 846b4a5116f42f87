"""Secrets are redacted by default, everywhere they could be published; identifiers and hashes are not."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.redact import Redactor

from helpers import PNG_BYTES, PROJECT_DIR, assistant, chain, image, text, tool_result, tool_use, user, write_jsonl

# Invented credentials in the real formats (none of them is live).
SECRETS = {
    "aws-access-key": "AKIAQX4NOTREALKEY7QZ",
    "github-token": "ghp_" + "N0tAR3alT0ken" * 2 + "N0tAR3alT0", 
    "gitlab-token": "glpat-N0tAR3alT0kenN0tAR3al",
    "anthropic-key": "sk-ant-api03-N0tAR3alK3yN0tAR3alK3yN0tAR3alK3y",
    "openai-key": "sk-proj-N0tAR3alK3yN0tAR3alK3yN0tAR3al",
    "slack-token": "xoxb-2048-N0tAR3alT0ken",
    "stripe-key": "sk_live_N0tAR3alK3yN0tAR3alK3y1",
    "google-api-key": "AIza" + "SyN0tAR3alK3y" * 2 + "N0tAR3alK",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub3QtcmVhbCJ9.c2lnbmF0dXJlLW5vdC1yZWFs",
}
CONTEXT_SECRETS = {
    "password-in-url": ("postgres://ledger:Hunter2Hunter2@db.internal:5432/ledger", "Hunter2Hunter2"),
    "secret-assignment": ("DB_PASSWORD=Tr0ub4dor&3", "Tr0ub4dor&3"),
    "aws-secret-key": ("aws secret: wJalrXUtnFEMI/K7MDENG/bPxRfiNOTREALKEY12 (from the console)",
                       "wJalrXUtnFEMI/K7MDENG/bPxRfiNOTREALKEY12"),
}
PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nN0tARealKey\n-----END OPENSSH PRIVATE KEY-----"
KEEP = [
    "3f786850e387550fdab836ed7e6dc881de23001b",  # a git SHA
    "6f1e2d3c-4b5a-4987-8c6d-5e4f3a2b1c0d",  # a uuid
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # a sha256
    "API_KEY = os.environ['API_KEY']",  # code that reads a secret is not one
    "max_tokens: 4096",
]


def test_the_sample_secrets_have_their_formats_lengths():
    assert len(SECRETS["github-token"]) == 4 + 36 and len(SECRETS["google-api-key"]) == 4 + 35


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_token_formats_are_replaced_with_a_marker(kind):
    redactor = Redactor()
    assert redactor.text(f"use {SECRETS[kind]} now") == f"use [REDACTED:{kind}] now"
    assert redactor.counts == {kind: 1}


@pytest.mark.parametrize("kind", sorted(CONTEXT_SECRETS))
def test_secrets_known_by_their_context_are_replaced(kind):
    line, secret = CONTEXT_SECRETS[kind]
    redacted = Redactor().text(line)
    assert secret not in redacted and f"[REDACTED:{kind}]" in redacted


def test_a_private_key_block_goes_whole():
    assert Redactor().text(f"key:\n{PRIVATE_KEY}\ndone") == "key:\n[REDACTED:private-key]\ndone"


@pytest.mark.parametrize("value", KEEP)
def test_identifiers_hashes_and_code_stay(value):
    assert Redactor().text(value) == value


def _secret_session(project):
    every = "\n".join(SECRETS.values()) + "\n" + "\n".join(line for line, _ in CONTEXT_SECRETS.values())
    call = tool_use("Bash", {"command": f"curl -H 'Authorization: Bearer {SECRETS['github-token']}' https://api.example.com"})
    return write_jsonl(project / "77777777-0000-4000-8000-000000000007.jsonl", chain(
        user([text(f"my .env is:\n{every}"), image()], cwd="/home/ada/src/tidewatch"),
        assistant(text(f"Found {SECRETS['anthropic-key']} in the file."), call),
        tool_result(call["id"], f"{PRIVATE_KEY}\n{SECRETS['aws-access-key']}"),
    ) + ['{"broken line with ' + SECRETS["stripe-key"]])


def _everything_written(out) -> str:
    """Every file of the site as text (the build manifest included), but the pasted images and PDFs."""
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in out.rglob("*") if p.is_file()
                     and "media" not in p.relative_to(out).parts)


def test_no_secret_reaches_any_output_and_the_report_counts_them(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    _secret_session(project)
    out, report_file = tmp_path / "site", tmp_path / "report.json"
    result = CliRunner().invoke(main, ["build", str(project), "-o", str(out), "--report", str(report_file)])
    assert result.exit_code == 0, result.output
    written = _everything_written(out)
    leaked = [s for s in [*SECRETS.values(), *(s for _, s in CONTEXT_SECRETS.values()), "N0tARealKey"] if s in written]
    assert leaked == []
    assert "[REDACTED:github-token]" in written and "[REDACTED:private-key]" in written
    redactions = json.loads(report_file.read_text(encoding="utf-8"))["redactions"]
    assert set(SECRETS) | set(CONTEXT_SECRETS) | {"private-key"} <= set(redactions)
    # The pasted image's bytes are not text, and were left alone.
    assert PNG_BYTES in [p.read_bytes() for p in (out / "media").iterdir()]


def test_no_redact_keeps_them(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    _secret_session(project)
    out = tmp_path / "site"
    assert CliRunner().invoke(main, ["build", str(project), "-o", str(out), "--no-redact"]).exit_code == 0
    assert SECRETS["github-token"] in _everything_written(out)


def test_redact_paths_replaces_the_home_directory(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    _secret_session(project)
    out = tmp_path / "site"
    assert CliRunner().invoke(main, ["build", str(project), "-o", str(out), "--redact-paths"]).exit_code == 0
    written = _everything_written(out)
    assert "/home/ada" not in written and "~/src/tidewatch" in written
    assert not any("ada" in p.name for p in (out / "projects").iterdir())
