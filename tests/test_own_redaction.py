"""The user's own redaction: --redact PATTERN and --redact-word WORD (and the config's redact and
redact_words), applied wherever the built-in rules are, and counted."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.core.model import Entry
from generator.stages.redact import OwnRuleError, OwnRules, Redactor, redact_project_dir

from helpers import assistant, at, chain, text, tool_result, tool_use, user, write_jsonl

HOST = "db7.acme-internal.net"
TICKET = "ACME-482913"


def own(*patterns: str, words: tuple[str, ...] = ()) -> Redactor:
    return Redactor(own=OwnRules(tuple(patterns), words))


def test_patterns_and_words_are_redacted_and_counted_by_kind():
    redactor = own(r"ACME-\d{6}", words=("acme-internal.net", "Falcon"))
    result = redactor.text(f"see {TICKET}, deploy to {HOST}; project FALCON and falcon")
    assert result == ("see [REDACTED:custom-pattern], deploy to db7.[REDACTED:custom-word]; "
                      "project [REDACTED:custom-word] and [REDACTED:custom-word]")
    assert redactor.counts == {"custom-pattern": 1, "custom-word": 3}


def test_the_longest_word_wins_where_two_overlap():
    assert own(words=("acme", "acme.corp")).text("at acme.corp and acme") == \
        "at [REDACTED:custom-word] and [REDACTED:custom-word]"


def test_every_string_of_an_entry_short_ones_and_keys_too_but_not_its_ids():
    redactor = own(words=("acme",))
    entry = Entry("x.jsonl", 1, {"uuid": "acme-0001", "type": "user", "cwd": "/srv/acme",
                                 "message": {"role": "user", "content": "acme"},
                                 "toolUseResult": {"acme": "ok"}})
    data = redactor.entry(entry).data
    assert data["uuid"] == "acme-0001"
    assert data["cwd"] == "/srv/[REDACTED:custom-word]"
    assert data["message"]["content"] == "[REDACTED:custom-word]"
    assert list(data["toolUseResult"]) == ["[REDACTED:custom-word]"]


def test_the_project_folder_name_loses_the_word_in_its_encoded_form():
    rules = OwnRules((), ("acme.internal",))
    assert redact_project_dir("-home-ada-src-acme-internal-portal", False, rules) == "-home-ada-src-redacted-portal"


@pytest.mark.parametrize("pattern, said", [("(", "is not a regular expression"), ("a*", "matches empty text"),
                                           ("", "matches empty text")])
def test_a_pattern_that_cannot_work_is_refused(pattern, said):
    with pytest.raises(OwnRuleError, match=said):
        OwnRules((pattern,)).check()


def test_built_site_holds_neither_and_the_report_counts_them(tmp_path):
    project = tmp_path / "projects" / "-home-ada-src-acme-portal"
    call = tool_use("Bash", {"command": f"psql -h {HOST} -c 'select 1'"})
    write_jsonl(project / "5b1f0c2e-0000-4000-8000-000000000001.jsonl", chain(
        user(f"Fix {TICKET} on {HOST}", cwd="/home/ada/src/acme-portal", timestamp=at(0)),
        assistant(call, cwd="/home/ada/src/acme-portal", timestamp=at(1)),
        tool_result(call["id"], f"connected to {HOST}", cwd="/home/ada/src/acme-portal", timestamp=at(2)),
        assistant(text(f"{TICKET} is fixed on ACME's host."), cwd="/home/ada/src/acme-portal", timestamp=at(3)),
    ))
    site, report = tmp_path / "site", tmp_path / "report.json"
    result = CliRunner().invoke(main, ["build", str(project.parent), "-o", str(site), "--report", str(report),
                                       "--redact", r"ACME-\d+", "--redact-word", "acme", "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    for path in site.rglob("*"):
        assert "acme" not in str(path.relative_to(site)).lower()
        if path.is_file():
            assert "acme" not in path.read_text(encoding="utf-8", errors="replace").lower(), path
    counts = json.loads(report.read_text(encoding="utf-8"))["redactions"]
    assert counts["custom-pattern"] == 2
    assert counts["custom-word"] >= 6


def test_changing_the_words_rebuilds_the_pages(tmp_path):
    project = tmp_path / "projects" / "-home-ada-src-x"
    write_jsonl(project / "5b1f0c2e-0000-4000-8000-000000000002.jsonl", chain(
        user("ask globex about it", timestamp=at(0)), assistant(text("asked"), timestamp=at(1))))
    site = tmp_path / "site"

    def build(*words: str) -> str:
        options = [part for word in words for part in ("--redact-word", word)]
        result = CliRunner().invoke(main, ["markdown", str(project.parent), "-o", str(site), *options, "--no-vault",
                                           "-j", "1"])
        assert result.exit_code == 0, result.output
        return "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.md"))

    assert "globex" in build()
    assert "globex" not in build("globex")
    assert "globex" in build()


def test_a_bad_pattern_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["build", str(tmp_path), "-o", str(tmp_path / "site"), "--redact", "[a-"])
    assert result.exit_code == 2
    assert "--redact: '[a-' is not a regular expression" in result.output
