"""Redaction by shape and context (stages/credentials): the same secret is found whatever a tool put before its
line, in every syntax a name and a value are written in, encoded, in a credential file, and on the public corpus
nothing but what was reviewed is taken.

The secrets here are invented. Each family is tested over its members, not by one example."""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.core.model import Entry
from generator.stages.credentials import prefilter as anchors_module
from generator.stages.credentials.names import is_secret_name
from generator.stages.credentials.scan import compiled, sight
from generator.stages.read import stream_file
from generator.stages.redact import Redactor

from helpers import PROJECT_DIR, assistant, chain, text, tool_result, tool_use, user, write_jsonl

PASSWORD = "Qm7xK9pL!w2vB8"
"""A password, as people make them: letters, digits and a symbol."""
GITHUB = "ghp_" + "N0tAR3alT0ken" * 2 + "N0tAR3alT0"


def gone(secret: str, redacted: str) -> bool:
    return secret not in redacted and "[REDACTED:" in redacted


# -- what a tool puts before a line ------------------------------------------------------------------------

DECORATIONS = {
    "read-tab": "     2\t{line}",
    "read-arrow": "     2\u2192{line}",
    "cat-n": "  2\t{line}",
    "grep-n": "12:{line}",
    "grep-with-path": "config/app/.env.production:12:{line}",
    "grep-context": "config/settings.cfg-13-{line}",
    "diff-added": "+{line}",
    "diff-removed": "-{line}",
    "diff-context": " {line}",
    "quoted": "> {line}",
    "json-escaped": 'printf "first\\n{line}\\nlast"',
    "markdown-list": "- {line}",
    "bare": "{line}",
}
LINES = ["API_TOKEN={v}", "DB_PASS={v}", "export DB_PASSWORD='{v}'", "password = {v}", "clientSecret: {v}",
         '"api_key": "{v}"', "aws_secret_access_key = {v}", "SESSION_SECRET={v}"]


@pytest.mark.parametrize("decoration", sorted(DECORATIONS))
@pytest.mark.parametrize("line", LINES)
def test_a_named_secret_is_found_whatever_a_tool_put_before_its_line(decoration, line):
    shown = DECORATIONS[decoration].format(line=line.format(v=PASSWORD))
    redacted = Redactor().text(f"before\n{shown}\nafter")
    assert gone(PASSWORD, redacted), redacted


# -- names, in every case style, and every syntax ------------------------------------------------------------

SECRET_NAMES = ["password", "PASSWORD", "db_password", "DB-PASSWORD", "dbPassword", "DbPassword", "db.password",
                "passwd", "DB_PASS", "pwd", "MYSQL_PWD", "passphrase", "secret", "client_secret", "clientSecret",
                "token", "authToken", "access-token", "REFRESH_TOKEN", "api_key", "apiKey", "API-KEY", "x-api-key",
                "accessKey", "private_key", "PrivateKey", "credentials", "auth", "_auth", "requirepass", "masterauth",
                "TS_AUTHKEY", "sessionid", "cookie", "connectionString", "signing_key", "encryptionKey",
                # the secret's form, not a quantity of it
                "SECRET_BYTES", "private_key_base64"]
NOT_SECRET_NAMES = ["token_type", "password_hint", "secret_name", "PASSWORD_FILE", "max_tokens", "input_tokens",
                    "is_password", "show_password", "author", "authority", "bypass", "compass", "tokenizer", "keyboard",
                    "key", "monkey", "sessionId", "session", "api_key_env", "apiKeySource", "authMethod",
                    "passenger", "next_page_token", "passed",
                    # quantities in a unit
                    "TOKEN_TTL_SECONDS", "SESSION_COOKIE_AGE", "token_lifetime_ms", "authRetries",
                    "PASSWORD_RESET_TIMEOUT_DAYS", "secret_rotation_interval_hours", "max_token_bytes"]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_names_in_any_case_style(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", NOT_SECRET_NAMES)
def test_names_about_a_secret_or_merely_like_one_are_not(name):
    assert not is_secret_name(name)


SYNTAXES = {
    "env": "DB_PASSWORD={v}",
    "env-quoted": 'DB_PASSWORD="{v}"',
    "export": "export DB_PASSWORD={v}",
    "ini-spaces": "[default]\naws_secret_access_key = {v}",
    "yaml": "database:\n  password: {v}",
    "yaml-quoted": "database:\n  password: '{v}'",
    "toml": 'token = "{v}"',
    "json": '{{"password": "{v}"}}',
    "json-escaped-in-output": '{{\\"password\\": \\"{v}\\"}}',
    "properties": "spring.datasource.password={v}",
    "xml-attribute": '<datasource user="app" password="{v}"/>',
    "xml-key-value": '<add key="ApiKey" value="{v}"/>',
    "xml-element": "<password>{v}</password>",
    "python": 'PASSWORD = "{v}"',
    "javascript": "const apiKey = '{v}';",
    "go": 'token := "{v}"',
    "php-define": "define('DB_PASSWORD', '{v}');",
    "call-pair": 'headers.set("Authorization", "Bearer {v}")',
    "flag-space": "deploy --password {v} --host db",
    "flag-equals": "deploy --token={v}",
    "header-bearer": "Authorization: Bearer {v}",
    "header-custom": "X-Api-Key: {v}",
    "cookie": "Cookie: theme=dark; sessionid={v}",
    "query": "https://api.example.com/v1?user=ada&api_key={v}&format=json",
    "jdbc": "jdbc:postgresql://db/ledger?user=app&password={v}&ssl=true",
    "odbc": "Driver={{ODBC Driver 18}};Server=db;Uid=app;Pwd={v};Encrypt=yes",
    "ado": "Server=tcp:db,1433;Database=ledger;User ID=app;Password={v};",
    "url-userinfo": "postgres://app:{v}@db.internal:5432/ledger",
    "redis-url": "redis://:{v}@cache:6379/0",
    "amqp-url": "amqp://app:{v}@rabbit:5672/",
    "netrc": "machine api.example.com\n  login ada\n  password {v}",
    "mysql-p": "mysql -u root -p{v} ledger",
    "curl-u": "curl -u ada:{v} https://api.example.com",
    "sshpass": "sshpass -p {v} ssh deploy@host",
    "redis-cli": "redis-cli -h cache -a {v} ping",
    "docker-login": "docker login -u ada -p {v} registry.example.com",
    "password-stdin": "echo {v} | docker login -u ada --password-stdin registry.example.com",
    "openssl": "openssl pkcs12 -export -passout pass:{v} -out a.p12",
    "pgpass": "db.internal:5432:ledger:app:{v}",
    "prose": "the db password is {v}, log in and check",
}


@pytest.mark.parametrize("line", ["TOKEN_TTL_SECONDS=3600", "export SESSION_COOKIE_AGE=1209600",
                                  "token_lifetime_ms: 60000", '{"authRetries": 3}',
                                  "PASSWORD_RESET_TIMEOUT_DAYS = 3"])
def test_a_quantity_in_a_unit_under_a_secret_like_name_is_shown(line):
    """A setting that measures a token's life or counts attempts holds a number, not the token."""
    assert Redactor().text(line) == line
    # while the secret beside it is still taken
    assert gone(PASSWORD, Redactor().text(f"{line}\nTOKEN_SECRET={PASSWORD}"))


@pytest.mark.parametrize("syntax", sorted(SYNTAXES))
def test_a_value_given_to_a_secret_is_found_in_every_syntax(syntax):
    redacted = Redactor().text(SYNTAXES[syntax].format(v=PASSWORD))
    assert gone(PASSWORD, redacted), redacted


LEFT_ALONE = ["DB_PASSWORD=changeme", "DB_PASSWORD=${DB_PASSWORD}", "API_KEY=<your-key>", "password: ***",
              "token: xxxx", "API_KEY = os.environ['API_KEY']", "const token = process.env.GITHUB_TOKEN;",
              "def login(user: str, password: str) -> Session:", "token = get_token()", "password: hashedPassword",
              "token_type: bearer", "max_tokens: 4096", "password = self.password", "TOKEN=$GITHUB_TOKEN",
              "the password is stored in the vault", "if password == '': return", "STORAGE_KEY = 'todos'",
              "lib/phoenix/token.ex:135: Phoenix.Token.sign/4", "DB_PASSWORD_FILE=/run/secrets/db_password",
              "TOKEN_URL=https://auth.example.com/oauth/token", "git: 'credential-manager-core' is not a git command",
              "python@sha256:4b9b4e1d3f0cbb8b8f1e2c0f1d1b6a9e8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f",
              "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=",
              "3f786850e387550fdab836ed7e6dc881de23001b", "6f1e2d3c-4b5a-4987-8c6d-5e4f3a2b1c0d"]


@pytest.mark.parametrize("line", LEFT_ALONE)
def test_placeholders_references_code_and_digests_are_left_alone(line):
    # Each alone, and all of them together in one .env-shaped text.
    assert Redactor().text(line) == line
    together = "\n".join(LEFT_ALONE)
    assert line in Redactor().text(together)


# -- encoded and embedded ------------------------------------------------------------------------------------

def _b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


@pytest.mark.parametrize("case", ["kubernetes-secret", "kubeconfig", "npmrc", "docker-config", "token-in-base64",
                                  "basic-header"])
def test_encoded_secrets_are_found(case):
    secret = _b64(PASSWORD + "x")
    texts = {
        "kubernetes-secret": ((f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  username: YWRh\n"
                               f"  db-pass: {secret}\ntype: Opaque\n"), secret),
        "kubeconfig": (f"users:\n- name: ada\n  user:\n    client-key-data: {secret}\n", secret),
        "npmrc": (f"registry=https://registry.example.com/\n_auth={secret}\nalways-auth=true", secret),
        "docker-config": (json.dumps({"auths": {"registry.example.com": {"auth": secret}}}), secret),
        "token-in-base64": (f"the value is {_b64('ada:' + GITHUB)} in the file", _b64("ada:" + GITHUB)),
        "basic-header": (f"Authorization: Basic {secret}", secret),
    }
    shown, hidden = texts[case]
    assert gone(hidden, Redactor().text(shown))


_RANDOM = random.Random(26)
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(
    "".join(_RANDOM.choice(string.ascii_letters + string.digits + "+/") for _ in range(64)) for _ in range(5)
) + "\nAbCd==\n-----END RSA PRIVATE KEY-----"
KEY_LINES = PEM.splitlines()


@pytest.mark.parametrize("shape", ["whole", "read-numbered", "json-escaped", "cut-off", "body-only-grep",
                                   "body-only-grep-n", "body-only-pasted"])
def test_a_private_key_goes_whole_however_it_is_shown(shape):
    shown = {
        "whole": PEM,
        "read-numbered": "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(KEY_LINES, start=1)),
        "json-escaped": json.dumps({"private_key": PEM, "x": 1}),
        "cut-off": "\n".join(KEY_LINES[:4]),
        "body-only-grep": "\n".join(f"deploy/key.pem-{n}-{line}" for n, line in enumerate(KEY_LINES[1:5], start=2)),
        "body-only-grep-n": "\n".join(f"{n}-{line}" for n, line in enumerate(KEY_LINES[1:5], start=2)),
        "body-only-pasted": "This is the key:\n\n" + "\n".join(KEY_LINES[1:6]) + "\n\nwhy is it refused?",
    }[shape]
    redacted = Redactor().text(shown)
    assert not any(line in redacted for line in KEY_LINES[1:5]), redacted


def test_a_private_key_whose_lines_are_items_of_a_patch_goes_whole():
    patch = {"structuredPatch": [{"lines": ["-changeme", *("+" + line for line in KEY_LINES)]}]}
    redacted = json.dumps(Redactor().value(patch))
    assert not any(line in redacted for line in KEY_LINES[1:6])


# -- credential files ----------------------------------------------------------------------------------------

RANDOM_VALUE = "k7Gq2LmPz9Xw4RtY8vBn3CsD"


@pytest.mark.parametrize("path", [".env", "config/.env.production", "/home/ada/.aws/credentials", "deploy/app.ini",
                                  "/home/ada/.npmrc", "secrets.yaml", "terraform.tfvars"])
def test_in_a_credential_file_a_random_value_goes_whatever_its_name(tmp_path, path):
    project = tmp_path / PROJECT_DIR
    read = tool_use("Read", {"file_path": f"/home/ada/src/tidewatch/{path}"})
    write_jsonl(project / "77777777-0000-4000-8000-000000000001.jsonl", chain(
        user("show me the settings"), assistant(read),
        tool_result(read["id"], f"     1\tSTRIPE={RANDOM_VALUE}\n     2\tREGION=eu-west-1")))
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", str(project), "-o", str(out)])
    assert result.exit_code == 0, result.output
    pages = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    assert RANDOM_VALUE not in pages and "eu-west-1" in pages


def test_an_id_of_a_wrong_type_does_not_stop_redaction():
    """A result whose call id is not a string (damaged, or hostile) is redacted like any other."""
    entry = tool_result("toolu_01", f"API_TOKEN={PASSWORD}")
    entry["message"]["content"][0]["tool_use_id"] = ["toolu_01"]
    redacted = json.dumps(Redactor().entry(Entry("f", 1, entry)).data)
    assert PASSWORD not in redacted


def test_outside_a_credential_file_a_random_value_needs_a_name():
    assert Redactor().text(f"STRIPE={RANDOM_VALUE}") == f"STRIPE={RANDOM_VALUE}"


# -- one pass for every anchor ---------------------------------------------------------------------------------

def _sightings(prefilter: anchors_module.Prefilter, text: str) -> tuple[set[tuple[int, int]], set[int]]:
    """Each literal's occurrences (index and end), and which patterns were seen."""
    hits = prefilter.scan(text)
    literal_count = len(prefilter.literals)
    return ({hit for hit in hits if hit[0] < literal_count}, {index for index, _ in hits if index >= literal_count})


@pytest.mark.slow
def test_the_regular_expression_fallback_sees_what_hyperscan_sees(public_corpus):
    """Where hyperscan cannot be installed the prefilter is made of regular expressions: the same literals at
    the same places, the same patterns seen, on secrets, their look-alikes, text in other scripts and real logs."""
    fast = compiled().prefilter
    assert fast.compiled  # hyperscan has wheels for every platform CI and users run
    slow = fast.by_regular_expressions()
    assert not slow.compiled
    texts = [f"use {GITHUB} and sk-ant-api03-x", "nothing here", "xoxb-1-2 AKIA glpat- " * 3, GITHUB[:6],
             "Ünïcödé → PASSWORD=hunter2hunter2 ✓ ghp_ and 🔑 Token: abc", "     3→AWS_SECRET_ACCESS_KEY=x\n4\tb",
             "config/.ENV:3:DB_PASSWORD=x\nsrc/a.py-12-b", "host:5432:db:user:pw\n%41%3A", "\ud800 lone " + GITHUB,
             base64.b64encode(f"user:{GITHUB}".encode()).decode(), "A" * 60 + "\n" + "b" * 60]
    for path in sorted(public_corpus.rglob("*.jsonl"))[:3]:
        for item in list(stream_file(path, []))[:150]:
            texts.append(json.dumps(getattr(item, "data", None), ensure_ascii=False))
    assert len(texts) > 100
    tokens_only = compiled().token_prefilter
    tokens_only_slow = tokens_only.by_regular_expressions()
    for_ids = compiled().identifier_prefilter
    for_ids_slow = for_ids.by_regular_expressions()
    for sample in texts:
        assert _sightings(fast, sample) == _sightings(slow, sample), sample[:200]
        assert fast.any_in(sample) == slow.any_in(sample) == bool(fast.scan(sample)), sample[:200]
        # The token rules' own prefilter, which stops at its first hit, sees a token where the whole one does.
        assert tokens_only.any_in(sample) == tokens_only_slow.any_in(sample) == sight(sample).tokens
        assert _sightings(for_ids, sample) == _sightings(for_ids_slow, sample), sample[:200]


# -- what the commands say -------------------------------------------------------------------------------------

def _session_with_a_secret(tmp_path: Path) -> Path:
    project = tmp_path / "in" / PROJECT_DIR
    write_jsonl(project / "77777777-0000-4000-8000-000000000002.jsonl", chain(
        user(f"deploy with {GITHUB}"), assistant(text("Done."))))
    return project


def test_build_says_how_many_secrets_it_redacted_and_points_at_audit(tmp_path):
    project = _session_with_a_secret(tmp_path)
    result = CliRunner().invoke(main, ["build", str(project), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "redacted 1 secret (github-token 1); `sessionsite audit` lists each" in result.output
    plain = CliRunner().invoke(main, ["build", str(project), "-o", str(tmp_path / "raw"), "--no-redact"])
    assert "nothing was redacted (--no-redact)" in plain.output


def test_bundle_says_how_many_secrets_it_redacted(tmp_path):
    project = _session_with_a_secret(tmp_path)
    session = next(project.glob("*.jsonl"))
    result = CliRunner().invoke(main, ["bundle", str(session), "-o", str(tmp_path / "b.html")])
    assert result.exit_code == 0, result.output
    assert "redacted 1 secret (github-token 1)" in result.output


# -- the public corpus: every redaction reviewed -------------------------------------------------------------

REVIEWED = {
    # A Windows VM's password, typed by the user into a setup script and its prompts (8fd119a6…, its aside agent).
    ("secret-assignment", "West11berg"),
    ("secret-assignment", "West11berg1!"),
    # The same script's default password (`WIN_PASS="admin"`), worth hiding as a password that is in use.
    ("secret-assignment", "admin"),
    # A Phoenix app's CSRF tokens, in the HTML of its pages fetched during the session (`<meta name="csrf-token"
    # content="…">`): a session's anti-forgery secret, found by the token word beside a random value.
    ("secret-in-sentence", "cDtdeCh0FUciKjcaAmBLLTQ5PFY6dkwCALj6YDM0XrVoCY3Lp_MbN48M"),
    ("secret-in-sentence", "BQMQLxceY31fJEMBFBR-PCAEFixfLjdga7ThaSQE1E50Rb0dR3ue5vuR"),
    ("secret-in-sentence", "JikZCSUbBxJKMxQ9MxIVOF1XBxA4czNeGQnHvZ_H9GbTuqLWozjWR5f0"),
    ("secret-in-sentence", "bAprQBVSIFVdeSovLHEFPAccLBAiETc45G-qFdS05-HhtG_RdQBXgZNs"),
}


@pytest.mark.slow
def test_on_the_public_corpus_every_redaction_is_a_reviewed_one(public_corpus):
    made: Counter[tuple[str, str]] = Counter()
    redactor = Redactor(record=lambda kind, secret, line: made.update([(kind, secret)]))
    for path in sorted(public_corpus.rglob("*.jsonl")):
        for item in stream_file(path, []):
            if isinstance(item, Entry):
                redactor.entry(item)
    found = {(kind, secret[:70] if secret.startswith("test-only") else secret) for kind, secret in made}
    assert found == REVIEWED


def test_no_token_of_a_known_format_can_stand_in_a_uuid():
    """Ids that are uuids are passed over without a look (`redactor.identifier`): every token rule's anchor has a
    character no uuid has, and no anchorless rule matches in uuids, random or made of its own characters."""
    import uuid
    from generator.stages.credentials.providers import TOKEN_RULES
    from generator.stages.redact.redactor import identifier
    uuid_characters = set("0123456789abcdef-")
    generator = random.Random(7)
    samples = [str(uuid.UUID(int=generator.getrandbits(128))) for _ in range(3000)]
    samples += ["-".join(["a" * 8, "b" * 4, "c" * 4, "d" * 4, "e" * 12]), "12345678-1234-1234-1234-123456789012"]
    for rule in TOKEN_RULES:
        pattern = re.compile(rule.pattern, rule.flags)
        placed = []
        for anchor in rule.anchors:
            if set(anchor) - uuid_characters:
                continue  # a uuid cannot hold this anchor, nor a match
            # An anchor a uuid can spell (`fc-`): a uuid with it at every place its dashes allow.
            for place in range(37 - len(anchor)):
                shape = samples[place]
                candidate = shape[:place] + anchor + shape[place + len(anchor):]
                if all((candidate[i] == "-") == (i in (8, 13, 18, 23)) for i in range(36)):
                    placed.append(candidate)
        assert not any(pattern.search(sample) for sample in [*samples, *placed]), rule.kind
    assert identifier("toolu_" + GITHUB) != "toolu_" + GITHUB  # an id that is not a uuid is still searched


# -- the prefilter's compiled database, kept between runs -----------------------------------------------------

_PREFILTER_SAMPLE = (["ghp_", "AKIA"], ["password", "token"], [r"^[A-Z][A-Z0-9_]{2,}=\S"])
_PREFILTER_TEXT = "x ghp_abc AKIA Password=1\nAPI_KEY=v token"


def _kept_databases() -> list[Path]:
    import os
    return sorted((Path(os.environ["XDG_CACHE_HOME"]) / "sessionsite" / "prefilter").glob("*.hs"))


def test_a_kept_prefilter_database_answers_as_a_fresh_one(monkeypatch):
    fresh = sorted(anchors_module.Prefilter(*_PREFILTER_SAMPLE).scan(_PREFILTER_TEXT))
    kept = _kept_databases()
    assert kept  # written by the first
    monkeypatch.setattr(anchors_module.hyperscan, "Database",
                        lambda *args, **kwargs: pytest.fail("compiled again although a copy was kept"))
    assert sorted(anchors_module.Prefilter(*_PREFILTER_SAMPLE).scan(_PREFILTER_TEXT)) == fresh
    assert fresh and {index for index, _ in fresh} == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("damage", ["a byte changed", "cut short", "empty", "another database, its digest right"])
def test_a_damaged_or_foreign_kept_database_is_compiled_again(damage):
    """A kept copy that is not what was written (a bit flipped on disk, a write cut short, another pattern set's
    database put in its place with a digest to match) is never used: redaction would miss what it should see."""
    import hashlib
    expected = sorted(anchors_module.Prefilter(*_PREFILTER_SAMPLE).scan(_PREFILTER_TEXT))
    for path in _kept_databases():
        data = bytearray(path.read_bytes())
        if damage == "a byte changed":
            data[len(data) // 2] ^= 0xFF
        elif damage == "cut short":
            data = data[: len(data) // 2]
        elif damage == "empty":
            data = bytearray()
        else:
            other = anchors_module.hyperscan.Database()
            other.compile(expressions=[b"nothing-to-see"], ids=[0], flags=[0])
            body = anchors_module.hyperscan.dumpb(other)
            data = bytearray(hashlib.sha256(body).digest() + body)
        path.write_bytes(bytes(data))
    seen = sorted(anchors_module.Prefilter(*_PREFILTER_SAMPLE).scan(_PREFILTER_TEXT))
    if damage == "another database, its digest right":
        # Its digest is right: only the cache folder being the user's alone keeps such a copy out (see below).
        assert seen != expected or not _kept_databases()
    else:
        assert seen == expected


def test_a_cache_folder_that_is_not_the_users_alone_keeps_nothing(monkeypatch):
    import os
    real_uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)  # the folder now belongs to "another user"
    before = [path.read_bytes() for path in _kept_databases()]
    literals = (["only-here-" + str(real_uid)], [], [])
    assert anchors_module.Prefilter(*literals).scan("x only-here-%d" % real_uid) == [(0, 2 + len(literals[0][0]))]
    assert [path.read_bytes() for path in _kept_databases()] == before


def test_a_form_tried_only_at_its_anchors_has_every_match_start_at_one(tmp_path, public_corpus):
    """A fixed form marked `at_anchor` is tried only where the prefilter saw one of its anchors: that is sound
    only if each of its matches starts with an anchor (in any case). Checked on every string of the planted
    credentials, the public corpus and texts written to tempt each rule (spaces before `=`, upper case, an
    anchor inside a longer word)."""
    from planted_secrets import write_corpus

    from generator.stages.credentials.forms import FORM_RULES

    rules = [rule for rule in FORM_RULES if rule.at_anchor]
    assert len(rules) >= 3
    texts = ['<add KEY="Password" VALUE="hunter2hunter2"/>', '<add key = "Password" value="hunter2hunter2"/>',
             'x-name="token" content="abcdefgh1234"', "postgres://ada:s3cr3t@db/x", "HTTPS://ADA:S3CR3T@DB/X",
             "machine api.example.com login ada password s3cr3tpw", "mymachine a login b password c"]
    corpus = write_corpus(tmp_path)
    def strings(value: object) -> list[str]:
        if isinstance(value, dict):
            return [*value, *(text for child in value.values() for text in strings(child))]
        if isinstance(value, list):
            return [text for child in value for text in strings(child)]
        return [value] if isinstance(value, str) else []

    for path in [*corpus.session_files, *sorted(public_corpus.rglob("*.jsonl"))]:
        texts += [text for item in stream_file(path, []) for text in strings(getattr(item, "data", None))]
    found = 0
    for rule in rules:
        for sample in texts:
            for match in rule.pattern.finditer(sample):
                found += 1
                assert sample[match.start():].lower().startswith(rule.anchors), (rule.kind, match.group())
    assert found > 50


@pytest.mark.parametrize("separator", ["\n", "\r\n", "  \n", "\\n"])
@pytest.mark.parametrize("prefix", ["", "    12→", "     7\t", "config/key.txt-3-", "+", "> "])
def test_a_key_body_without_its_header_is_found_whatever_ends_its_lines(prefix, separator):
    """The prefilter flags a key's body lines by the first line's end (56 base64 characters, blanks, a line
    break, or `\\n` in JSON): every way a tool shows them still reaches the rule."""
    rng = random.Random(f"{prefix}|{separator}")
    lines = ["".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(64)) for _ in range(3)]
    shown = "Here is the file:" + separator + separator.join(prefix + line for line in lines)
    redacted = Redactor().text(shown)
    assert all(line[8:40] not in redacted for line in lines), redacted
    assert redacted.count("[REDACTED:private-key]") == 3
