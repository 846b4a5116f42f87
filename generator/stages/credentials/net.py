"""The last net: every value that looks machine-made or password-like, whatever stands beside it.

Redaction takes what a rule knows to be a secret (a format, a name, a command, a table's header); what is left
and still looks like a key or a password is a finding for a person to review (`sessionsite audit`). The net has
to see a 16-character password that no word announces, and stay quiet on what a session is full of:
identifiers (`TestParseLogLevel`, `base64Encode`, `x86_64`), paths and file names, words, hashes and digests
(hex of a digest's length, `sha256-…`, go.sum's `h1:…`), uuids and ulids, versions, dates and times, numbers
and sizes, CSS and command-line flags, URLs, e-mail addresses and ids of Claude Code's own.

A value is machine-made when it mixes letters and digits (and cases) in short runs, as a random draw does and a
name never does: `a8Kd93jfL2mQ0pZx` breaks into runs of one or two characters, `TestParseLogLevel2` into words.
It is password-like when it has a letter, a digit and a symbol inside it, as people are told to make them
(`Tr0ub4dor&3x`), but is not code (`a+b*2`, `$HOME`, `--port=8080`).
"""

from __future__ import annotations

import re
from typing import Iterator

from .entropy import entropy

SHORTEST = 8
"""A shorter value is a word, a code or a number as often as it is a secret: the net asks a person about none."""
LONGEST = 400

_CANDIDATE = re.compile(r"(?<![\w+/=.~!@#$%^&*?\-])[\w+/=.~!@#$%^&*?\-]{8,}")
"""A run of the characters keys and passwords are made of (no quote, bracket, comma, colon, semicolon or blank:
what a run is split at is what stands between values)."""
_TRAILING = ".!?"
"""What ends a sentence, taken off a run's end before it is judged (a password may end in `!`: one with a digit
and a symbol inside it is judged with it, `password_like`)."""

_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z\d]+")
"""The runs a value breaks into: a word (capitalised or not), an acronym, a number, symbols."""
_HEX = re.compile(r"[0-9a-fA-F]+")
_WORDLIKE = re.compile(r"[A-Z]?[a-z]*[aeiouy][a-z]*", re.IGNORECASE)
"""A run of letters that reads as a word: it has a vowel (a draw's runs of four are often `Xksb`, `Fnjm`)."""
_CAPITALS = re.compile(r"[A-Z]{2,}")
_LONG_CAPITALS = re.compile(r"[a-z][A-Z]{5,}[a-z]")
"""Five capitals or more between small letters: a draw's (an acronym in a name is shorter, `getHTTPSUrl`)."""
_LONE_SMALL = re.compile(r"(?<=[A-Z])[a-z](?=[A-Z])")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ULID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
_DIGEST_PREFIX = re.compile(r"(?i)^(?:sha\d*|sha3-\d+|md5|blake2[bs]?|h\d|sha\d+-)[:\-=]")
_IDS = re.compile(r"^(?:toolu_|msg_|req_|srvtoolu_|call_|agent_msg_|agent-|resp_|run_|file_|batch_|chatcmpl-)")
_VERSION = re.compile(r"(?i)v?\d+(?:[._-]\d+)+(?:[-+._]?[a-z]+\.?\d*)*")
_DATE_OR_TIME = re.compile(r"\d{4}-?\d{2}-?\d{2}(?:[T_ -]?\d{2}[:\-]?\d{2}(?:[:\-]?\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?.*"
                           r"|\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[.,]\d+)?")
_NUMBER_WITH_UNIT = re.compile(r"(?i)[-+~]?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?[a-z%µ]{0,6}")
_FILE_NAME = re.compile(r"(?i).+\.(?:[a-z][a-z0-9]{0,5})$")
_FLAG = re.compile(r"--?[A-Za-z]")
_SYMBOL = re.compile(r"[!@#$%^&*?~+=]")
_VARIABLE = re.compile(r"\$[A-Za-z_{(]")
_DECORATED = re.compile(r"^\*+|\*+$|&#\d{2,4}$|&(?:amp|lt|gt|quot|apos|nbsp)$")
"""Markdown's emphasis around a run, an HTML entity's tail after it (`**name**`, `value&#34`)."""
_NAMED_SHAPES = re.compile(r"[0-9a-f]{8,}@v\d+|\w+@if\d+|\d+x\d+(?:[@+]\d+)*(?:\+\d+)*|0x[0-9a-fA-F]+|"
                           r"[a-z]{2,4}-?[0-9a-f]{8,}")
"""Values of a known shape: Claude Code's backups (`<hex>@v2`), network links (`veth1@if2`), a screen's
geometry (`1920x1080@60`, `800x600+0+0`), an address (`0x7ffd…`), a prefixed hex id (`br-92c0a232fdd1`)."""
_CODE_MARKS = ("::", "->", "=>", "==", "!=", "&&", "||", "++", "+=", "-=", "*=", "/=", "${", "$(", "..", "__")


def _runs(value: str) -> list[str]:
    return _RUN.findall(value)


def _mixes_letters_and_digits_in_short_runs(core: str) -> bool:
    """A random draw from letters and digits: both cases and digits, broken into short runs (a name is words)."""
    has_digit = any(character.isdigit() for character in core)
    has_lower = any(character.islower() for character in core)
    has_upper = any(character.isupper() for character in core)
    classes = has_digit + has_lower + has_upper
    if classes < 2:
        return False
    if not has_digit:
        # Letters alone: a name's humps are a capital and small letters (`TestParseLogLevel`, `HTTPServer`), and
        # its words have vowels; a draw's are not (runs of capitals, a small letter alone between two) and have few.
        vowels = sum(character in "aeiouAEIOU" for character in core) / len(core)
        irregular = irregular_humps(core)
        return (irregular >= max(3, len(core) // 10) or irregular >= 2 and vowels < 0.25
                or irregular >= 1 and vowels < 0.35 and _LONG_CAPITALS.search(core) is not None) and entropy(core) >= 3.3
    runs = [run for run in _runs(core) if run[0].isalnum()]
    if not runs:
        return False
    letters = [run for run in runs if run[0].isalpha()]
    average = sum(map(len, runs)) / len(runs)
    if classes == 2 and not has_upper:  # lower case and digits: a hex-like id or a draw (`k3j9x2m8q0…`)
        return len(core) >= 16 and len(runs) >= 6 and average <= 2.6 and entropy(core) >= 3.3
    if classes == 2 and not has_lower:  # upper case and digits: a code (`AKIA…` keys are known formats)
        return len(core) >= 16 and len(runs) >= 6 and average <= 2.6 and entropy(core) >= 3.2
    # Letters in words (`Level`, `Parse`) mark a name; a draw's letter runs are one or two long.
    worded = sum(1 for run in letters if len(run) >= 4 and _WORDLIKE.fullmatch(run))
    return average <= (3.0 if len(core) >= 16 else 2.6) and len(runs) >= 5 and worded <= len(letters) // 4 \
        and entropy(core) >= 3.0


def shape_known(value: str) -> bool:
    """A value whose shape says what it is, and that it is no secret."""
    if _HEX.fullmatch(value.replace("-", "")) or _UUID.search(value) or _ULID.fullmatch(value):
        return True  # hashes, digests, commit SHAs, uuids, ulids
    if _DIGEST_PREFIX.match(value) or _IDS.match(value) or _NAMED_SHAPES.fullmatch(value):
        return True
    if _VERSION.fullmatch(value) or _DATE_OR_TIME.fullmatch(value) or _NUMBER_WITH_UNIT.fullmatch(value):
        return True
    if value.startswith(("/", "./", "../", "~/", "http", "www.", "data:", "#", "@", "$", "%")):
        return True  # paths, URLs, anchors and colours, decorators and scoped packages, variables, format codes
    if value.count("/") >= 2 and not value.endswith("="):
        return True  # a path (base64 has its slashes and its padding)
    if "@" in value and "." in value.rsplit("@", 1)[-1]:
        return True  # an e-mail address
    if _FLAG.match(value) or value.startswith("-"):
        return True
    return _FILE_NAME.fullmatch(value) is not None and not _SYMBOL.search(value) and "." in value[1:]


def irregular_humps(value: str) -> int:
    """Runs of capitals, and small letters alone between two capitals: a draw's, which a name's humps are not."""
    return len(_CAPITALS.findall(value)) + len(_LONE_SMALL.findall(value))


def password_like(value: str) -> bool:
    """A value people make as a password: a letter, a digit and a symbol, the symbol not at an end only (`#2`,
    `item!`), and nothing that makes it code or prose."""
    inner = value[1:-1]
    if not (_SYMBOL.search(inner) and any(c.isalpha() for c in value)):
        return False
    if not any(c.isdigit() for c in value) and irregular_humps(value) < 2:
        return False  # without a digit, only letters whose case goes as a draw's does (`bWlaKZDaZXuI!Typ`)
    if any(mark in value for mark in _CODE_MARKS) or value.count(".") > 1 or "/" in value or _VARIABLE.search(value):
        return False
    if "=" in value.rstrip("="):
        return False  # `key=value2`: an assignment (its value is judged on its own)
    if value[0] in "$@%#" or value.endswith("%"):
        return False
    # Both cases, or two kinds of symbol: a password; names joined by one symbol (`bridge@enp1s0`) are not.
    symbols = set(_SYMBOL.findall(value))
    return len(symbols) >= 2 or any(c.isupper() for c in value) and any(c.islower() for c in value)


def machine_made(value: str) -> bool:
    """A value that looks like a key or a password no rule named: see the module's description."""
    if not SHORTEST <= len(value) <= LONGEST or shape_known(value):
        return False
    if password_like(value):
        return True
    core = value.strip("=")
    if _SYMBOL.search(core.rstrip("=")) and not set(core) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"):
        return False
    if len(core) >= 16 and "_" not in core and "-" not in core and "." not in core:
        # One unbroken run: judged whole.
        return _mixes_letters_and_digits_in_short_runs(core)
    # Parts joined by `-`, `_`, `.` are names (`claude-sonnet-4-5-20250929`, `e2e_test_v2`) unless one part is a
    # draw of its own (`sk_live_…`, `ghs_…` are known formats; a tool's own key is `prefix_<draw>`).
    parts = [part for part in re.split(r"[-_.]", core) if part]
    longest = max(parts, key=len) if parts else ""
    return len(longest) >= 12 and _mixes_letters_and_digits_in_short_runs(longest)


def candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Every value in `text` that looks machine-made or password-like: (value, start, end). A value a marker
    replaced (`[REDACTED:…]`) is none."""
    for found in _CANDIDATE.finditer(text):
        value, start, end = found.group(), found.start(), found.end()
        decoration = _DECORATED.search(value)
        while decoration is not None and value:
            if decoration.start() == 0:
                value, start = value[decoration.end():], start + decoration.end()
            else:
                value, end = value[:decoration.start()], end - (len(value) - decoration.start())
            decoration = _DECORATED.search(value)
        while value and value[-1] in _TRAILING and not password_like(value):
            value, end = value[:-1], end - 1
        if "=" in value.rstrip("=") and not password_like(value):
            name, _, assigned = value.partition("=")
            start += len(name) + 1
            value = assigned
        if value.startswith("REDACTED") or "REDACTED" in text[max(0, start - 10):start]:
            continue
        if machine_made(value):
            yield value, start, start + len(value)


_WORDS_RUN = re.compile(r"(?:\b[a-z]{3,8}\b[ ,]+){2,}\b[a-z]{3,8}\b")


def cut_short_of_secrets(excerpt: str) -> str:
    """An excerpt cut from a longer text (a prompt's line in a session's outline), ended before the first value
    that looks like a credential: what would have said it is one (the word after it, the rest of a seed phrase)
    may be in the part cut off, where the redactor, which reads the excerpt alone, cannot see it."""
    if not excerpt.endswith("…"):
        return excerpt
    cut = len(excerpt)
    for _, start, _ in candidates(excerpt):
        cut = start
        break
    from .schemas import bip39_words  # a seed phrase cut short: three of its words or more, up to the cut

    listed = bip39_words()
    for run in _WORDS_RUN.finditer(excerpt, 0, cut):
        words = re.findall(r"[a-z]+", run.group())
        if run.end() >= len(excerpt) - 2 and all(word in listed for word in words):
            cut = min(cut, run.start())
            break
    return excerpt if cut == len(excerpt) else excerpt[:cut].rstrip(" ,.;:") + "…"
