"""Secrets found by what the text means (issue 40, 2–4): a secret word in any of the languages developers write
in, a sentence that gives a value beside a secret word in either order, a table column headed by a secret word.
And the look-alikes of each family: the words in prose with no value, schemas, docs tables, test names. The
secrets are invented."""

from __future__ import annotations

import re

import pytest

from generator.stages.credentials import words
from generator.stages.credentials.names import is_secret_name
from generator.stages.redact import Redactor

VALUE = "Vq8rT2mzK4wpLx"
SYMBOLS = "hunter2!x9"


def redact(text: str) -> str:
    return Redactor().text(text)


ALL_WORDS = sorted(words.FOREIGN_WORDS)


def test_twenty_languages_and_their_scripts():
    assert len(words.SECRET_WORDS_BY_LANGUAGE) >= 20
    scripts = {"Cyrillic": "пароль", "Han": "密码", "Kana": "パスワード", "Hangul": "비밀번호", "Arabic": "كلمة المرور",
               "Hebrew": "סיסמה", "Devanagari": "पासवर्ड", "Latin with marks": "contraseña"}
    assert set(scripts.values()) <= words.FOREIGN_WORDS


@pytest.mark.parametrize("word", ALL_WORDS)
def test_each_word_names_a_secret(word):
    name = re.sub(r"[ ']", "_", word)
    assert is_secret_name(name), name
    for spelling in (f"{name}={VALUE}", f"{word}: {VALUE}", f'"{name}": "{VALUE}"', f"{word.upper()}: {VALUE}",
                     f"   12→{word.capitalize()}: {VALUE}"):
        assert VALUE not in redact(spelling), spelling


@pytest.mark.parametrize("word", ALL_WORDS)
def test_each_word_gives_a_secret_in_a_sentence(word):
    for sentence in (f"{word.capitalize()} — {VALUE} (staging).", f"Use {SYMBOLS} ({word}) for staging."):
        assert VALUE not in redact(sentence) and SYMBOLS not in redact(sentence), sentence


@pytest.mark.parametrize("word", ["contraseña", "passwort", "пароль", "密码", "パスワード", "hasło", "şifre"])
def test_a_word_in_prose_with_no_value_is_left(word):
    prose = f"Forgot the {word}? Reset it in settings (v2.3.1, commit 9fceb02d0ae5)."
    assert redact(prose) == prose


def test_the_scan_of_words_not_in_ascii_agrees_with_its_regular_expression():
    text = "x" * 50 + " Пароль: a, 密码：b, ПАРОЛЬ c, contraseña d →" + "→ пароля"
    found = words._ForeignScan().occurrences(text)
    assert [word for _, word in found] == ["пароль", "密码", "пароль", "contraseña", "пароля"]
    assert [text[at:at + 2].lower() for at, _ in found] == ["па", "密码", "па", "co", "па"]


SENTENCES = [
    f"use {VALUE} as the admin password",
    f"{VALUE} is my token",
    f"the staging credentials are ada / {VALUE}",
    f"pw for db1: {VALUE}",
    f"My GitHub token, {VALUE}, expires Friday.",
    f"Password for the router is {SYMBOLS} - don't share it",
    f"I set the secret to `{VALUE}` in the dashboard",
    f"{SYMBOLS} — that's the wifi password",
]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_value_in_the_sentence_of_a_secret_word_in_either_order(sentence):
    out = redact(sentence)
    assert VALUE not in out and SYMBOLS not in out, out


QUIET_SENTENCES = [
    "The token count for claude-opus-4-5-20251101 is 3k.",
    "Hash the password with sha256 and bcrypt12 before storing it.",
    "Fixed the password reset in commit a8f3e2b9c1d0.",
    "OAuth2 tokens are stored in Redis v7.2 under token:<id>.",
    "The password field is validated by validatePassword2 in src/auth/validate.ts.",
    "Token expires at 2026-03-02T09:00:00Z, refresh it 5m before.",
    "    --- PASS: TestParseLogLevel/warning_alias (0.00s)",
    "--- FAIL: TestPasswordHash/empty_input (0.01s)",
    "PASS src/auth/password.test.ts (3.2 s)",
    "tests/test_auth.py::test_password_reset PASSED",
    "test auth::tests::token_roundtrip ... ok",
    "password: string",
    "token: Optional[str] = None",
    "--password PASSWORD   the password to log in with",
    'password = request.form["password"]',
    'password = getpass.getpass("Password: ")',
    "api_key = os.environ['API_KEY']",
    "hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
    "claudeCodeFirstTokenDate: 2026-03-02T09:00:00.000Z",
    "Auth: src/lib/auth.ts handles the login",
    "token_ttl_seconds: 3600",
]


@pytest.mark.parametrize("sentence", QUIET_SENTENCES)
def test_code_schemas_help_and_test_runners_keep_their_words(sentence):
    assert redact(sentence) == sentence


TABLES = {
    "markdown": f"| user | password | host |\n|------|----------|------|\n| ada | {VALUE} | db1 |\n| bob | {SYMBOLS} | db2 |\n",
    "psql": (f" id | username | api_token\n----+----------+-----------\n  1 | ada      | {VALUE}\n"
             f"  2 | bob      | {SYMBOLS}\n(2 rows)\n"),
    "mysql": (f"+----+------+----------------+\n| id | user | password       |\n+----+------+----------------+\n"
              f"|  1 | ada  | {VALUE} |\n|  2 | bob  | {SYMBOLS}      |\n+----+------+----------------+\n"),
    "sqlite": f"id|user|password\n1|ada|{VALUE}\n2|bob|{SYMBOLS}\n",
    "csv": f"id,user,password,host\n1,ada,{VALUE},db1\n2,bob,{SYMBOLS},db2\n",
    "tsv": f"id\tuser\tsecret\n1\tada\t{VALUE}\n2\tbob\t{SYMBOLS}\n",
    "aligned": f"NAME     TOKEN              AGE\nada      {VALUE}     5d\nbob      {SYMBOLS}         12d\n",
    "read-numbered": f"     1→| user | password |\n     2→|---|---|\n     3→| ada | {VALUE} |\n     4→| bob | {SYMBOLS} |\n",
    "another-language": f"| usuario | contraseña |\n|---|---|\n| ada | {VALUE} |\n| bob | {SYMBOLS} |\n",
}


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_a_column_headed_by_a_secret_word_loses_its_cells(kind):
    out = redact(TABLES[kind])
    assert VALUE not in out and SYMBOLS not in out, out
    assert "ada" in out


QUIET_TABLES = [
    "| Field | Type | Description |\n|---|---|---|\n| password | string | The user's password |\n| token | string | required |\n",
    "| Secret | Used by |\n|---|---|\n| DB_PASSWORD | api |\n| STRIPE_KEY | billing |\n",
    "| model | input tokens | output tokens |\n|---|---|---|\n| opus | 12345 | 678 |\n",
    "NAME        TYPE     DATA   AGE\ndb-secret   Opaque   2      5d\n",
    "| Token | Meaning |\n|---|---|\n| ghp_ | a GitHub personal access token |\n",
]


@pytest.mark.parametrize("table", QUIET_TABLES)
def test_tables_that_describe_secrets_are_left(table):
    assert redact(table) == table
