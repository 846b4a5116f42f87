"""Secrets said in a sentence, in either order: a value that looks like a credential in the same sentence (or line)
as a secret word, whether the word comes before or after it and whatever stands between ("use Vq8!rT2mzK4w as the
admin password", "Vq8!rT2mzK4w is my token", "the staging credentials are ada / Vq8!rT2mzK4w", "pw for db1:
Vq8!rT2mzK4w", "пароль от базы — Vq8!rT2mzK4w").

A value is taken only if it is one by what it is (`net.machine_made`, `net.password_like`, or letters and digits
mixed inside it); a word, a name, a path, a number, a date, a hash or a version beside the secret word is not.
The rule runs only at the secret words the prefilter saw (`names.secret_word_positions`), in a window of the
sentence around each.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable

from .names import is_secret_name, words_of
from .words import names_a_secret_in_another_language, phrase_end, word_end, word_start
from .net import machine_made, password_like, shape_known

_REACH = 160
"""How far either side of the word a sentence is read, at most."""
_SENTENCE_END = re.compile(r"(?:[.!?。！？](?=\s)|\n|\\n|;\s|\|)")
_VALUE = re.compile(r"(?<![^\s\"'`“”‘’«»()\[\]{}<>,;|→])(?=[^\s\"'`“”‘’«»()\[\]{}<>,;|→]*?(?:[0-9!#%*@^&~+=]|[a-z][A-Z]))"
                    r"[^\s\"'`“”‘’«»()\[\]{}<>,;|→]{8,}")
"""A value of eight characters or more between blanks, quotes, brackets and separators, with a digit, a symbol or
a capital after a small letter in it (others are passed over in the regular expression, before any rule looks at
them: none of them could be taken)."""
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_]*\d{0,4}")
_STRIP = ".:!?…"
_LINE_LEAD = re.compile(r"(?:[^\s:]+:)?\d+[:-]")
_SYMBOL_INSIDE = re.compile(r"[!#%*@^&~+=]")
_NAME_PART = re.compile(r"[A-Z]|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*\d{0,3}|[A-Z]+\d{0,3}|\d+")


_PROSE_SECRET_WORDS = frozenset({
    "password", "passwords", "passwd", "passphrase", "passcode", "pwd", "pw", "token", "tokens", "secret", "secrets",
    "credential", "credentials", "creds", "apikey", "key", "keys", "seed", "mnemonic",
})
"""The last words of a name that says "secret" in prose too; `pass`, `auth`, `pin`, `sig`, `cookie` are words of
other meanings there (`Pass the cwd`, `pin the version`)."""


@functools.lru_cache(maxsize=4096)
def names_a_secret_column(name: str) -> bool:
    """A name (a table's header, the words of a sentence) that names the secret itself: a secret-like name whose
    last word is a secret noun (`Password`, `API token`, `contraseña`; not `Pass if…`, `Auth flow`)."""
    if not is_secret_name(name):
        return False
    words = words_of(name)
    return not words or not name.isascii() or words[-1] in _PROSE_SECRET_WORDS or words[-1].endswith(
        ("password", "passwd", "token", "secret", "key")) or names_a_secret_in_another_language(name)


def sentence_value(value: str) -> bool:
    """A value that is a credential by what it is, said beside a secret word."""
    if len(value) < 8 or len(value) > 200 or value.startswith(("[REDACTED", "REDACTED")) or shape_known(value):
        return False
    if machine_made(value) or password_like(value):
        return True
    if _SYMBOL_INSIDE.search(value[1:-1]) and len(value) >= 10 and not all(
            _NAME_PART.fullmatch(part) for part in re.split(r"[^A-Za-z0-9]+", value) if part) \
            and not any(mark in value for mark in ("::", "->", "=>", "(", "/", "$")):
        return True  # a symbol between parts that are no names (`Class#method` is one), as in a password
    if _IDENTIFIER.fullmatch(value) or not any(character.isdigit() for character in value):
        return False  # a word, a name with a number at its end (`OAuth2`, `sha256`)
    if all(part.isalpha() or part.isdigit() for part in re.split(r"[-_.:@+]", value) if part):
        return False  # words and numbers joined: a name, a version (`claude-opus-4-5-20251101`, `node-18.2`)
    letters = sum(character.isalpha() for character in value)
    # Letters and digits mixed inside it (`casa2026wifi`, `Vq8rT2mz`), not a word and a number side by side.
    runs = re.findall(r"[A-Za-z]+|\d+", value)
    return letters >= 3 and len(runs) >= 3 and not any(mark in value for mark in ("::", "->", "=>", "(", "/"))


def _sentence(text: str, position: int) -> tuple[int, int]:
    start = max(0, position - _REACH)
    for found in _SENTENCE_END.finditer(text, start, position):
        start = found.end()
    end_limit = min(len(text), position + _REACH)
    ending = _SENTENCE_END.search(text, position, end_limit)
    return start, ending.start() if ending else end_limit


def sentence_secrets(text: str, positions: Iterable[int]) -> list[tuple[int, int]]:
    """The spans of credential-looking values in the sentence of each secret word at `positions`."""
    spans: list[tuple[int, int]] = []
    done_until = -1
    for position in positions:
        if position < done_until:
            continue
        start, end = _sentence(text, position)
        values = list(_VALUE.finditer(text, start, end))
        if not values:  # nothing in the sentence could be a secret (most sentences): no name is read
            done_until = end
            continue
        word_ends = word_end(text, position)
        if word_ends == position:
            continue
        name_start = word_start(text, position)
        name = text[name_start:word_ends].strip("-.")
        phrase = phrase_end(text, position)
        if phrase is not None:
            name = text[position:phrase]
        elif text[word_ends:word_ends + 1] == " " and not is_secret_name(name):
            name = text[name_start:word_end(text, word_ends + 1)]  # a name of two words (`API key`, `access token`)
        if not names_a_secret_column(name) and not names_a_secret_column(text[position:word_ends].strip("-.")):
            continue
        for found in values:
            if found.start() <= position < found.end() or found.start() == name_start:
                continue  # the secret word itself
            value, value_start = found.group().rstrip(_STRIP + "\\"), found.start()
            if len(value) < 8 or value.isalpha() and (value.islower() or len(value) < 16) or value.isdigit():
                continue  # a word, a number: nothing here could be one (the cheap test first)
            lead = _LINE_LEAD.match(value)
            if lead is not None:  # grep's `12:` before a line's first word
                value, value_start = value[lead.end():], value_start + lead.end()
            if "=" in value.rstrip("=") or value.endswith(":"):
                continue  # an assignment: the rules by name read it
            if sentence_value(value):
                spans.append((value_start, value_start + len(value)))
        done_until = end
    return spans
