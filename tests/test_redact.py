"""Secrets are redacted by default, everywhere they could be published; identifiers and hashes are not."""

from __future__ import annotations

import json
from collections import Counter
import re
from typing import Any

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.stages.redact import Redactor

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
    "discord-token": "MTAxNjY4NDc4NTQ2MzAzNzkxMA.GaBcDe.N0tAR3alD1sc0rdT0kenN0tAR3a",
    "telegram-token": "110201543:AAN0tAR3alT3l3gramT0kenN0tAR3alK3yZ",
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
    assert len(SECRETS["telegram-token"].split(":")[1]) == 35
    assert [len(part) for part in SECRETS["discord-token"].split(".")] == [26, 6, 27]


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


# -- classes of secrets the first rules missed (issue 15, point 15) ----------------------------------------

def _gone(redacted: str, *parts: str) -> bool:
    return "[REDACTED:" in redacted and not any(part in redacted for part in parts)


@pytest.mark.parametrize("line, secrets", [
    ("postgres://:p%40ss@db.internal:5432/app", ["p%40ss"]),
    ("REDIS_URL=redis://:S3cretRedis@cache:6379/0", ["S3cretRedis"]),
    ("mysql://u:p@ss:w0rd@h/db", ["p@ss", "w0rd"]),
    ("amqp://guest:gu&st!pa;s@rabbit:5672/", ["gu&st!pa;s"]),
    ('{"url": "mongodb://admin:Pa$$w0rd!1@mongo/x", "email": "a@b.c"}', ["Pa$$w0rd"]),
    ("DATABASE_URL=postgres%3A%2F%2Fledger%3AHunter2Hunter2%40db.internal%2Fledger", ["Hunter2Hunter2"]),
    ("next=postgres%3a%2f%2f%3Aonly-a-p%40ss%40db%2Fx", ["only-a-p"]),
])
def test_passwords_in_any_connection_url_are_redacted(line, secrets):
    redacted = Redactor().text(line)
    assert _gone(redacted, *secrets), redacted
    assert "[REDACTED:password-in-url]" in redacted


@pytest.mark.parametrize("line", [
    "https://example.com:8080/users/@alice",
    "git+ssh://git@github.com:org/repo.git",
    "postgres://app:${DB_PASSWORD}@db/app",
    "docker://registry:5000/img@sha256:3f786850e387",
    '{"a": "https://x.org", "b": "c@d.e"}',
])
def test_urls_without_a_password_stay(line):
    assert Redactor().text(line) == line


TOOL_INPUT_SECRETS = {
    "password": "correct horse battery staple",
    "api_key": "k3y-N0tAReal",
    "client_secret": "cl13nt-s3cr3t",
    "token": "tok-N0tAReal-42",
    "Authorization": "Bearer N0tARealBearer",
    "X-API-Key": "xapi-N0tAReal",
    "db_passwd": "abc",
}


def _entry(data):
    from generator.core.model import Entry
    return Entry("f.jsonl", 1, data)


def test_secret_named_keys_of_a_tool_input_are_redacted():
    call = tool_use("mcp__vault__login", {**{k: v for k, v in TOOL_INPUT_SECRETS.items() if k != "Authorization"},
                                          "headers": {"Authorization": TOOL_INPUT_SECRETS["Authorization"]},
                                          "token_type": "bearer", "max_tokens": 4096, "auth_mode": "oauth2",
                                          "password_hint": "the usual one"})
    redactor = Redactor()
    redacted = redactor.entry(_entry(assistant(call)))
    written = json.dumps(redacted.data)
    leaked = [v.removeprefix("Bearer ") for v in TOOL_INPUT_SECRETS.values() if v.removeprefix("Bearer ") in written]
    assert leaked == []
    given = redacted.data["message"]["content"][0]["input"]
    assert given["headers"]["Authorization"] == "Bearer [REDACTED:secret-assignment]"
    # Names that only mention a secret keep their values.
    assert (given["token_type"], given["max_tokens"], given["auth_mode"], given["password_hint"]) == (
        "bearer", 4096, "oauth2", "the usual one")


@pytest.mark.parametrize("line, secret", [
    ("curl -H 'Authorization: Bearer N0tARealBearer42' https://api.example.com", "N0tARealBearer42"),
    ('curl -H "X-API-Key: xapi-N0tAReal" https://api.example.com', "xapi-N0tAReal"),
    ("requests.get(url, headers={'X-Auth-Token': 'tok-N0tAReal-42'})", "tok-N0tAReal-42"),
    ('{"headers": {"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}}', "dXNlcjpwYXNzd29yZA=="),
    ("Cookie: sessionid=N0tAReal42; csrftoken=Cs4fN0tReal", "N0tAReal42"),
    ("> Authorization: token 0123456789abcdef0123", "0123456789abcdef0123"),
])
def test_secrets_in_headers_are_redacted(line, secret):
    redacted = Redactor().text(line)
    assert _gone(redacted, secret), redacted


@pytest.mark.parametrize("line", [
    "Set the Authorization: header to your token.",
    'headers = {"Authorization": f"Bearer {token}"}',
    "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com",
    "apiKey: process.env.API_KEY,",
    "token: Optional[str] = None",
])
def test_code_that_handles_a_header_stays(line):
    assert Redactor().text(line) == line


@pytest.mark.parametrize("field", ["id", "data", "type", "version", "timestamp", "tool_use_id", "signature"])
def test_a_known_token_is_redacted_under_any_field_name(field):
    token = SECRETS["github-token"]
    entry = _entry(assistant(tool_use("mcp__kv__put", {field: token, "nested": [{field: f"x {token} y"}]}),
                             {"type": "thinking", "thinking": "hm", "signature": f"sig{token}"}))
    written = json.dumps(Redactor().entry(entry).data)
    assert token not in written and "[REDACTED:github-token]" in written


def test_a_known_token_in_an_id_is_redacted_and_the_call_still_gets_its_result(tmp_path):
    token = SECRETS["stripe-key"]
    project = tmp_path / "in" / PROJECT_DIR
    call = tool_use("Bash", {"command": "ls"}, tool_use_id=token)
    write_jsonl(project / "77777777-0000-4000-8000-000000000007.jsonl", chain(
        user("list it", uuid=SECRETS["aws-access-key"]), assistant(call), tool_result(token, "README.md")))
    out = tmp_path / "site"
    assert CliRunner().invoke(main, ["build", str(project), "-o", str(out)]).exit_code == 0
    written = _everything_written(out)
    assert token not in written and SECRETS["aws-access-key"] not in written
    assert token[8:] not in written and "README.md" in written


@pytest.mark.parametrize("numbered", [
    '    11→GOOGLE_KEY = "AIzaSyN0tAR3alK3y\n    12→SyN0tAR3alK3yN0tAR3alK"\n    13→DEBUG = True',
    '11\tkey = "sk-ant-api03-N0tAR3alK3yN0tAR3alK3y\n12\tN0tAR3alK3yN0tAR3alK3y"\n',
    '     1→token: ghp_N0tAR3alT0kenN0tAR\n     2→3alT0kenN0tAR3alT0\n',
])
def test_a_token_wrapped_over_two_numbered_lines_is_redacted_whole(numbered):
    redacted = Redactor().text(numbered)
    assert "[REDACTED:" in redacted
    second = numbered.split("\n")[1]
    continuation = re.split(r"→|\t", second, maxsplit=1)[1].rstrip('"')
    assert continuation not in redacted, redacted
    assert len(redacted.split("\n")) == len(numbered.split("\n"))  # the lines and their numbers stay


def test_a_token_cut_inside_its_prefix_by_a_numbered_line_is_redacted_whole():
    # `sk-a` alone is no token's prefix any more (words hold `sk-`), but a file read may cut a key there.
    numbered = '11\tkey = "sk-a\n12\tnt-api03-N0tAR3alK3yN0tAR3alK3yN0tAR3alK3y"\n'
    redacted = Redactor().text(numbered)
    assert "[REDACTED:anthropic-key]" in redacted and "N0tAR3al" not in redacted


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_is_found_among_words_that_hold_a_short_prefix(kind):
    # Only the rules of the kinds whose needle a text holds run on it: a key among `task-` and `_test_`
    # words (which hold `sk-` and `_test_`) is still found, and the words are left as they are.
    words = "run task-list and risk-free my_test_case for desk-top, then "
    redactor = Redactor()
    assert redactor.text(words + SECRETS[kind] + " done") == words + f"[REDACTED:{kind}] done"
    assert redactor.counts == Counter({kind: 1})


@pytest.mark.parametrize("line", ["export GPG_PASSPHRASE=Tr0ub4dor3xyz", 'signing: {passphrase: "Tr0ub4dor3xyz"}'])
def test_a_passphrase_is_a_secret_too(line):
    # The rules by context run only on text that holds a word a secret's name holds: "passphrase" was
    # missing from those words, so a passphrase was kept though its name says what it is.
    assert "Tr0ub4dor3xyz" not in Redactor().text(line)


def test_the_line_after_a_whole_token_stays():
    numbered = f"     1→API_KEY={SECRETS['anthropic-key']}\n     2→DEBUG=true\n     3→LOG=info"
    assert Redactor().text(numbered) == "     1→API_KEY=[REDACTED:anthropic-key]\n     2→DEBUG=true\n     3→LOG=info"


@pytest.mark.parametrize("url", [
    "https://hooks.slack.com/workflows/T01234567/A01234567/123456789012345678/N0tAR3alW3bh00kS3cr3t",
    "https://hooks.slack.com/triggers/T01234567/1234567890123/N0tAR3alTr1gg3rS3cr3t",
    "https://hooks.slack.com/services/T01234567/B01234567/N0tAR3alW3bh00kS3cr3t",
])
def test_slack_webhooks_of_every_kind_are_redacted(url):
    redacted = Redactor().text(f"post to {url} now")
    assert redacted == "post to [REDACTED:slack-webhook] now"


# -- redaction field by field: every untrusted string of the model passes the redactor -------------------------

def _filled(cls, secret: str):
    """An instance of a model dataclass with the secret in every string, mapping key and tuple it has."""
    import dataclasses
    import typing

    def value(hint):
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint is str:
            return f"see {secret} here"
        if dataclasses.is_dataclass(hint):
            return _filled(hint, secret)
        if origin in (tuple,) and args:
            return tuple(value(a) for a in args if a is not Ellipsis)
        if origin is not None and "Mapping" in str(origin):
            return {value(args[0]): value(args[1])}
        if hint is int:
            return 1
        if hint is bytes:
            return b""
        if hint is bool:
            return False
        return None

    hints = typing.get_type_hints(cls)
    return cls(**{f.name: value(hints[f.name]) for f in dataclasses.fields(cls) if f.name != "events"})


def _strings_of(value, rule=None) -> list[tuple[Any, str]]:
    """Every string in a model value, with the rule its field's metadata gives for where it sits."""
    import dataclasses

    from generator.core.redaction import redaction_rule

    if isinstance(value, str):
        return [(rule, value)]
    if dataclasses.is_dataclass(value):
        return [s for f in dataclasses.fields(value)
                for s in _strings_of(getattr(value, f.name), redaction_rule(f))]
    if isinstance(value, (tuple, list)):
        return [s for item in value for s in _strings_of(item, rule)]
    if isinstance(value, dict):
        keys, values = rule if isinstance(rule, tuple) else (rule, rule)
        return [s for k, v in value.items() for s in [(keys, k), *_strings_of(v, values)]]
    return []


def test_a_session_summary_full_of_secrets_keeps_none_of_them():
    from generator.core.model import Session
    from generator.stages.redact import OURS

    session = _filled(Session, SECRETS["github-token"])
    assert sum(SECRETS["github-token"] in text for _, text in _strings_of(session)) > 30
    redacted = Redactor().session(session)
    assert [rule for rule, text in _strings_of(redacted) if SECRETS["github-token"] in text and rule != OURS] == []
    # Names in the statistics are among them: the Tools table, the index's chart and the manifest show them.
    assert "[REDACTED:github-token]" in "".join(redacted.tool_counts) + "".join(redacted.tool_errors)


def test_names_in_the_statistics_are_redacted_in_every_output(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    token = SECRETS["github-token"]
    calls = [tool_use(f"mcp__{token}__query", {"q": "x"}), tool_use(f"mcp__gh__{SECRETS['slack-token']}", {})]
    write_jsonl(project / "77777777-0000-4000-8000-000000000007.jsonl", chain(
        user("go"), assistant(calls[0]), tool_result(calls[0]["id"], "boom", is_error=True),
        assistant(calls[1]), tool_result(calls[1]["id"], "ok")))
    out = tmp_path / "site"
    assert CliRunner().invoke(main, ["build", str(project), "-o", str(out)]).exit_code == 0
    written = _everything_written(out)
    assert token not in written and SECRETS["slack-token"] not in written
    assert "mcp__[REDACTED:github-token]__query" in written


def _raw_entries() -> list[dict]:
    """Entries of every shape the examples hold (all of Claude Code's entry types and content parts)."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[1] / "examples"
    entries = []
    for path in sorted(examples.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entries.append(json.loads(line))
            except ValueError:
                pass  # the examples' broken lines, on purpose
    return [entry for entry in entries if isinstance(entry, dict)]


def _seeded(value, secret: str):
    """The entry with the secret added to every string and every mapping key (but the bytes of a file)."""
    if isinstance(value, str):
        return f"{value} {secret}"
    if isinstance(value, list):
        return [_seeded(v, secret) for v in value]
    if isinstance(value, dict):
        media = value.get("type") == "base64"
        return {f"{k}{secret}": (v if media and k == "data" else _seeded(v, secret)) for k, v in value.items()}
    return value


def test_every_string_and_key_of_a_raw_entry_passes_the_redactor():
    """The raw structure is enumerated: a field the redactor skipped would keep the token."""
    from generator.core.model import Entry

    entries = _raw_entries()
    assert len(entries) > 50
    token = SECRETS["anthropic-key"]
    redactor = Redactor()
    for number, data in enumerate(entries):
        seeded = _seeded(data, token)
        redacted = redactor.item(Entry("f.jsonl", number, seeded))
        assert token not in json.dumps(redacted.data), json.dumps(data)[:200]


def _new_class_session(project):
    """One session holding a secret of each class the first rules missed."""
    read = tool_use("Read", {"file_path": "/srv/app/.env"})
    login = tool_use("mcp__vault__login", {"password": "correct horse battery staple",
                                           "headers": {"X-API-Key": "xapi-N0tAReal"}})
    curl = tool_use("Bash", {"command": "curl -H 'Authorization: Bearer N0tARealBearer42' https://api.example.com"})
    return write_jsonl(project / "77777777-0000-4000-8000-000000000008.jsonl", chain(
        user("connect with postgres://:p%40ssN0tReal@db:5432/app and redis://:S3cretRedis@cache:6379 and "
             "postgres%3A%2F%2Fledger%3AHunter2Hunter2%40db and "
             "https://hooks.slack.com/workflows/T01234567/A01234567/123456789012345678/N0tAR3alW3bh00kS3cr3t"),
        assistant(read), tool_result(read["id"], '    11→GOOGLE_KEY = "AIzaSyN0tAR3alK3y\n    12→SyN0tAR3alK3yN0tAR3alK"'),
        assistant(login), tool_result(login["id"], "logged in"),
        assistant(curl), tool_result(curl["id"], "{}"),
        assistant(tool_use(f"mcp__{SECRETS['gitlab-token']}__ping", {"id": SECRETS["stripe-key"]})),
    ))


NEW_CLASS_SECRETS = ["p%40ssN0tReal", "S3cretRedis", "Hunter2Hunter2", "N0tAR3alW3bh00kS3cr3t", "SyN0tAR3alK3yN0tAR3alK",
                     "correct horse battery staple", "xapi-N0tAReal", "N0tARealBearer42", SECRETS["gitlab-token"],
                     SECRETS["stripe-key"]]


@pytest.mark.parametrize("output", ["site", "site.zip", "bundle.html", "bundle.md"])
def test_no_secret_of_the_new_classes_reaches_any_output(tmp_path, output):
    import zipfile

    from generator.bundle import BundleConfig, bundle

    project = tmp_path / "in" / PROJECT_DIR
    path = _new_class_session(project)
    out = tmp_path / output
    if output.startswith("bundle"):
        bundle(BundleConfig(inputs=(path,), output=out, jobs=1))
        written = out.read_text(encoding="utf-8")
    else:
        assert CliRunner().invoke(main, ["build", str(project), "-o", str(out)]).exit_code == 0
        if output.endswith(".zip"):
            with zipfile.ZipFile(out) as archive:
                written = "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
        else:
            written = _everything_written(out)
    assert [s for s in NEW_CLASS_SECRETS if s in written] == []
    assert "[REDACTED:" in written


# -- --redact-paths and over-redaction (issue 15, point 16) ------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("ls ~/.claude/projects/-home-alice-src/", "ls ~/.claude/projects/~-src/"),
    ("cat /private/tmp/claude-501/-Users-alice-src-app/tasks/b1.output",
     "cat /private/tmp/claude-501/~-src-app/tasks/b1.output"),
    ("the folder -private-tmp-claude-501--Users-alice-src-app", "the folder -private-tmp-claude-501-~-src-app"),
    ("C--Users-alice--claude/abc.jsonl", "~--claude/abc.jsonl"),
    ("cd /home/alice && ls -home-alice.", "cd ~ && ls ~."),
])
def test_redact_paths_takes_user_names_out_of_encoded_folders(line, expected):
    assert Redactor(home=True).text(line) == expected


@pytest.mark.parametrize("line", ["cp --home-dir /opt x", "a stay-at-home-parent", "see docs/-Userspace-x"])
def test_redact_paths_leaves_words_that_only_look_like_a_home(line):
    assert Redactor(home=True).text(line) == line


def test_a_user_name_with_a_dot_goes_whole(monkeypatch):
    # The user building: their home is known.
    monkeypatch.setenv("HOME", "/Users/alice.smith")
    assert Redactor(home=True).text("in -Users-alice-smith-src-app now") == "in ~-src-app now"
    from generator.stages.redact import redact_project_dir
    assert redact_project_dir("-Users-alice-smith-src-app", True) == "~-src-app"
    # Another user's, named by the session's working directory.
    entry = _entry(user("see /tmp/claude-1/-home-bob-jones-x/out", cwd="/home/bob.jones/x"))
    assert "bob" not in json.dumps(Redactor(home=True).entry(entry).data)


def test_redact_paths_leaves_no_user_name_in_any_output_or_file_name(tmp_path):
    base = tmp_path / "in"
    for folder in ("-Users-alice-src-app", "-private-tmp-claude-501--Users-alice-src-tool", "C--Users-alice--claude"):
        write_jsonl(base / folder / "77777777-0000-4000-8000-000000000007.jsonl", chain(
            user("read /private/tmp/claude-501/-Users-alice-src-app/tasks/b1.output and "
                 "~/.claude/projects/-Users-alice-src-app/x.jsonl", cwd="/Users/alice/src/app"),
            assistant(text("Done: /Users/alice/src/app is clean."))))
    out = tmp_path / "site"
    assert CliRunner().invoke(main, ["build", str(base), "-o", str(out), "--redact-paths"]).exit_code == 0
    assert [p for p in out.rglob("*") if "alice" in p.name] == []
    assert "alice" not in _everything_written(out)
    # The home folder's placeholder reads as itself in the address, not as an escape (`~7e`).
    assert {p.name for p in (out / "projects").iterdir()} == {
        "~--claude", "~-src-app", "private-tmp-claude-501-~-src-tool"}
    assert "~7e" not in _everything_written(out)


@pytest.mark.parametrize("line", [
    """TOKEN=$(echo "$x" | sed 's/"\\(.*\\)"/\\1/')""",
    """TOKEN=$(sed -n 's/^TOKEN="\\(.*\\)"$/\\1/p' .env)""",
    """PASS=$(grep "PASSWORD:" "$COMPOSE_FILE" | sed 's/.*PASSWORD: "\\(.*\\)"/\\1/')""",
    """SECRET=$(jq -r '.secret' creds.json)""",
    """password: "[^"]+" # matched by the linter""",
    """API_KEY="${API_KEY:-}" """,
])
def test_code_that_handles_a_secret_variable_stays(line):
    assert Redactor().text(line) == line


@pytest.mark.parametrize("line, secret", [
    ('DB_PASSWORD="p@ss\\\\w0rd"', "p@ss"),
    ("export GITHUB_TOKEN=abc123def456", "abc123def456"),
    ("password: 'hunter2hunter2'", "hunter2hunter2"),
])
def test_env_style_assignments_are_still_redacted(line, secret):
    assert _gone(Redactor().text(line), secret)


@pytest.mark.parametrize("kind", ["aws-access-key", "google-api-key"])
def test_a_token_inside_a_long_base64_signature_is_found(kind):
    """Long base64 is looked at only for the formats its letters can spell (see _BASE64_LOOKS)."""
    signature = "EpcBCkYIBRgCKkB" * 20 + SECRETS[kind] + "/+" + "Qx9" * 50
    entry = _entry(assistant({"type": "thinking", "thinking": "hm", "signature": signature}))
    assert SECRETS[kind] not in json.dumps(Redactor().entry(entry).data)


def test_phase_1_results_are_redacted_whole():
    """Redactor.interpreted redacts each part of phase 1's result that reaches an output (the summaries,
    the names counted as unknown, the diagnostics): a new part must be added there, and here."""
    import dataclasses

    from generator.core.model import Interpreted
    from generator.core.model import Diagnostic, Session

    assert {f.name for f in dataclasses.fields(Interpreted)} == {
        "session", "diagnostics", "unknown", "has_conversation", "sidechains"}
    token = SECRETS["github-token"]
    result = Interpreted(session=_filled(Session, token), diagnostics=(Diagnostic("f", 1, f"bad {token}"),),
                         unknown=Counter({f"field:{token}": 2, "type:x": 1}), has_conversation=True,
                         sidechains=(_filled(Session, token),))
    redacted = Redactor().interpreted(result)
    assert token not in repr(redacted.unknown) + repr(redacted.diagnostics)
    assert redacted.session.title == redacted.sidechains[0].title == "see [REDACTED:github-token] here"


def test_redacting_a_batch_of_entries_redacts_each_as_alone(tmp_path, public_corpus):
    """The build redacts a few dozen entries at a time, with one prefilter pass over all their strings: every
    entry comes out as it does redacted on its own, with the same counts and the same record, on the planted
    credentials (every provider, file format and way of showing them) and on the public corpus's logs."""
    from planted_secrets import write_corpus

    from generator.stages.interpret import without_repeated_result
    from generator.stages.read import stream_file, stream_file_in_batches

    corpus = write_corpus(tmp_path)
    files = [*corpus.session_files, *sorted(public_corpus.rglob("*.jsonl"))]
    alone_taken: list = []
    together_taken: list = []
    alone = Redactor(home=True, record=lambda kind, text, line: alone_taken.append((kind, text, line)))
    together = Redactor(home=True, record=lambda kind, text, line: together_taken.append((kind, text, line)))
    changed = 0
    for path in files:
        one_by_one = [alone.item(without_repeated_result(item)) for item in stream_file(path, [])]
        batched = [item for batch in stream_file_in_batches(path, [])
                   for item in together.items([without_repeated_result(i) for i in batch])]
        assert batched == one_by_one, path
        changed += sum(a != without_repeated_result(b) for a, b in zip(one_by_one, stream_file(path, []), strict=True))
    assert together.counts == alone.counts and together_taken == alone_taken
    assert len(alone_taken) > 300 and changed > 300
