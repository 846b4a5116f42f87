"""Between read and interpret: take secrets (and, if asked, the home directory) out of every entry, so
that no later stage and no output (pages, Markdown, search index, manifest, saved outputs) can carry them.

Transcripts hold whatever passed through a terminal: keys read from `.env` files, tokens in `curl`
commands. The patterns for well-known token formats come from detect-secrets' plugins (maintained by
Yelp, used in pre-commit hooks); rules of our own cover what they miss (Anthropic and newer OpenAI keys,
Google API keys, Slack webhooks, whole private-key blocks, values assigned to variables, JSON keys and
HTTP headers named like secrets, passwords in connection URLs). Each redaction leaves a visible marker,
`[REDACTED:<kind>]`, and is counted in the build report.

Every string of an entry passes here, mapping keys included. Identifiers (uuids, message and tool ids),
timestamps, types and thinking signatures are searched only for tokens of a known format (a key is a key
whatever field it sits in; the rules that go by context would find "secrets" in ids); the bytes of an
embedded image or document are not searched at all: they are not text, and changing them would break the
file. A session's summary, which phase 1 makes from entries not yet redacted, is redacted by its schema
(`SCHEMA`): every field of the model says how.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import re
from collections import Counter
from pathlib import Path
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, TypeVar

from ..core.places import user_cache_folder
from ..core.model import (BrokenLine, Commit, Diagnostic, Entry, FileTouch, OutlineItem, Session, SubagentCall, Usage)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

DataclassT = TypeVar("DataclassT", bound="DataclassInstance")

# Fields that hold identifiers or encoded data: only tokens of a known format are looked for in them.
UNTOUCHED_FIELDS = frozenset({
    "uuid", "parentUuid", "leafUuid", "logicalParentUuid", "sessionId", "requestId", "messageId", "promptId",
    "agentId", "id", "tool_use_id", "toolUseID", "parentToolUseID", "sourceToolUseID", "sourceToolAssistantUUID",
    "signature", "timestamp", "type", "data", "media_type", "version",
})

# detect-secrets' plugins, by module and class, and the kind of secret each finds (the whole match).
_DETECT_SECRETS = [
    ("aws-access-key", "aws", "AWSKeyDetector"), ("azure-storage-key", "azure_storage_key", "AzureStorageKeyDetector"),
    ("discord-token", "discord", "DiscordBotTokenDetector"), ("github-token", "github_token", "GitHubTokenDetector"),
    ("gitlab-token", "gitlab_token", "GitLabTokenDetector"), ("jwt", "jwt", "JwtTokenDetector"),
    ("npm-token", "npm", "NpmDetector"), ("openai-key", "openai", "OpenAIDetector"),
    ("pypi-token", "pypi_token", "PypiTokenDetector"), ("sendgrid-key", "sendgrid", "SendGridDetector"),
    ("slack-token", "slack", "SlackDetector"), ("square-secret", "square_oauth", "SquareOAuthDetector"),
    ("stripe-key", "stripe", "StripeDetector"), ("telegram-token", "telegram_token", "TelegramBotTokenDetector"),
]
# AWS's second pattern captures the secret in a group: it is applied as a group rule ("aws-secret-key").
_SKIPPED_PLUGIN_PATTERNS = {("AWSKeyDetector", 1)}
_OWN_RULES = [
    # Before detect-secrets' JWT pattern, which stops short of the signature.
    ("jwt", r"eyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+"),
    ("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"),
    ("github-token", r"github_pat_[A-Za-z0-9_]{22,}"),
    ("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
    ("stripe-key", r"(?:sk|rk|pk)_(?:live|test)_[0-9a-zA-Z]{16,}"),
    ("slack-token", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    # Incoming webhooks (/services/, which detect-secrets knows too), workflow webhooks and triggers.
    ("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_\-]+(?:/[A-Za-z0-9_\-]+)+"),
    ("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)"),
]
# A name that says it holds a secret: *TOKEN*, *SECRET*, *PASSWORD* (with any prefix or suffix part), or a
# qualified *_KEY (api_key, access_key…), or an HTTP header that carries one (Authorization, Cookie). A bare
# `key` is too common (React keys, dict keys) to mean one.
_SECRET_NAME = re.compile(
    r"(?i)(?:[A-Za-z0-9]+[_.\-])*"
    r"(?:(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PWD|CREDENTIALS?|AUTH|AUTHORIZATION|COOKIE)(?:[_\-][A-Za-z0-9]+)*"
    r"|(?:[A-Za-z0-9]+[_\-])*(?:API|SECRET|ACCESS|PRIVATE|SIGNING|ENCRYPTION|MASTER|CLIENT|APP|LICENSE)[_\-]?KEY(?:[_\-]ID)?)"
)
# …but not one that only says something about the secret: token_type, auth_mode, password_hint, *_FILE.
_ABOUT_A_SECRET = re.compile(
    r"(?i)[_.\-](?:type|mode|method|provider|strategy|policy|kind|format|name|url|uri|endpoint|host|file|path|dir|"
    r"hint|length|len|count|size|expires?|expiry|expiration|ttl|timeout|prefix|scopes?|enabled|required|version|"
    r"field|var|env|usage|limit|budget|id|ids)s?$"
)


@functools.lru_cache(maxsize=8192)
def is_secret_name(name: str) -> bool:
    """A variable, key or header named like a secret (names repeat: the answer is kept)."""
    return len(name) < 100 and _SECRET_NAME.fullmatch(name) is not None and _ABOUT_A_SECRET.search(name) is None


# The name a value is given to: the identifier before the `:` or `=`, perhaps quoted (JSON)…
_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
NAME_BEFORE = -1


def name_before(text: str, end: int, longest: int = 200) -> str:
    """The identifier that ends just before `end`, perhaps quoted and followed by spaces or tabs (or by a
    line break right before `end`), at most `longest` characters back; "" when there is none. Read
    backwards: a pattern searched over the window tried every start in it, and was a fifth of redaction."""
    start = max(0, end - longest)
    if end > start and text[end - 1] == "\n":
        end -= 1
    while end > start and text[end - 1] in " \t":
        end -= 1
    if end > start and text[end - 1] in "\"'":
        end -= 1
    name_end = end
    while end > start and text[end - 1] in _NAME_CHARACTERS:
        end -= 1
    return text[end:name_end]
# …or all that stands on its line before the separator (`export NAME=`, `NAME:`)…
_NAME_ON_LINE = re.compile(r"[ \t]*(?:export[ \t]+)?([A-Za-z0-9_.\-]+)")
NAME_ON_LINE = -2
# A password in a URL runs to the last `@` of the authority, which ends at `/`, `?`, `#` or a space (or a
# quote or bracket around the URL): `mysql://u:p@ss:w0rd@h/db`, `redis://:pw@h` (no user name).
_URL_PASSWORD = r"://[^:/?#@\s\"'<>\\]*:([^/?#\s\"'<>\\]+)@"
# The same, URL-encoded (`postgres%3A%2F%2Fuser%3Apass%40host`, a connection string in a query).
_ENCODED_URL_PASSWORD = (r"(?i)%3A%2F%2F(?:(?!%3A|%40|%2F)[^\s/?#&\"'<>\\])*%3A((?:(?!%2F|%3F|%23)[^\s/?#&\"'<>\\])+)%40")
# What a name that says it holds a secret (`_SECRET_NAME`) holds, lower-cased: a rule that checks the name
# cannot match in text with none of these (most text with a URL in it, which the URL rules are for).
_SECRET_NAME_WORDS = (
    "token", "secret", "passw", "passphrase", "pwd", "credential", "auth", "_key", "-key", "apikey", "accesskey",
    "privatekey", "signingkey", "encryptionkey", "masterkey", "clientkey", "appkey", "licensekey", "cookie",
)
# Every context rule needs one of those, a URL, or "aws".
_CONTEXT_WORDS = (*_SECRET_NAME_WORDS, "://", "%3a%2f%2f", "aws")


def _names_a_secret(lower: str) -> bool:
    return any(word in lower for word in _SECRET_NAME_WORDS)


# Secrets found by context: (kind, pattern, groups that may hold the secret, group holding the name, or
# NAME_BEFORE for the identifier before the match, or None when there is no name to check, marks).
_GROUP_RULES: list[tuple[str, str | re.Pattern[str], tuple[int, ...], int | None,
                         tuple[str | Callable[[str], bool], ...]]] = [
    # (kind, pattern, groups, name, marks): a line without all of the marks (a string, or a test of the
    # lower-cased text) cannot hold a match.
    ("password-in-url", _URL_PASSWORD, (1,), None, ("://", "@")),
    ("password-in-url", _ENCODED_URL_PASSWORD, (1,), None, ("%3a%2f%2f", "%40")),
    # NAME=value at the start of a line: .env files and shell exports (`$VAR` references are not secrets).
    # Like the rules below, it starts at the separator, which re finds fast, and checks the name after.
    ("secret-assignment", r"=(?:\"([^\"\n$]{3,})\"|'([^'\n$]{3,})'|([^\s\"'$=][^\s]{2,}))", (1, 2, 3), NAME_ON_LINE,
     ("=", _names_a_secret)),
    # A quoted literal given to a secret-named key: JSON, YAML, code. Identifiers and calls are left alone.
    # The match starts at the `:` or `=`, which re finds fast; the name is the identifier before it.
    ("secret-assignment", r"[:=][ \t]*(?:\"([^\"\s$]{6,})\"|'([^'\s$]{6,})')", (1, 2), NAME_BEFORE, (_names_a_secret,)),
    # YAML `password: value` on a line of its own, when the value looks like a secret (has a digit or a symbol).
    ("secret-assignment", r"(?m):[ \t]+((?=[^\s]*[0-9!@#%^&*+/=_-])[^\s\"'$]{6,})[ \t]*$", (1,), NAME_ON_LINE, (":", _names_a_secret)),
    # An HTTP header that carries a credential (Authorization, Cookie, X-…-Key/Token/Auth/Secret), quoted
    # or not, after its scheme (Bearer, Basic, token…); a cookie header's every pair. The value has a digit
    # or a symbol: words and `$VAR`s are not secrets. Unlike the rules above it starts at the name: a
    # start at every `:` of a JSON text cost nine times as much.
    ("secret-header", (r"(?i)(?<![A-Za-z0-9_-])((?:proxy-)?authorization|(?:set-)?cookie|"
                       r"x-[a-z0-9-]*(?:key|token|auth|secret)[a-z0-9-]*)[\"']?[ \t]*:[ \t]*[\"']?"
                       r"(?:(?:bearer|basic|token|bot|digest|negotiate|apikey)[ \t]+)?"
                       r"((?=[^\s'\"\\]{0,200}[0-9+/=_.~-])[^\s'\"\\$]{6,}(?:;[ \t]*[^\s'\"\\;$]+)*)"), (2,), 1,
     (":", lambda lower: "authorization" in lower or "cookie" in lower or ("x-" in lower and (
         "-key" in lower or "-token" in lower or "-auth" in lower or "-secret" in lower)))),
    ("aws-secret-key", (r"(?i)aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?['\"=:\s]([0-9a-zA-Z/+]{40})"
                        r"(?![0-9a-zA-Z/+])"), (1,), None, ("aws",)),
]
# Values of secret-named variables that are plainly not secrets: words, placeholders, references.
_NOT_A_SECRET = re.compile(
    r"(?i)^(?:true|false|null|none|undefined|\*+|x+|\.\.\.|<[^>]*>|changeme|example|your[_-].*|redacted.*|\[redacted.*"
    r"|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|\{[A-Za-z_]*\}|%\([A-Za-z_]+\)s)$"
)
# …and code that merely handles a secret: a sed or grep pattern (`\(.*\)`, `\1`, `[^"]*`), a command
# substitution, an environment lookup.
_CODE = re.compile(r"\\[()0-9{}|.]|[.\]][*+?]|\[\^|\$[({]|(?:process\.env|os\.environ|getenv|import\.meta\.env)\b")
# An HTTP authorisation scheme kept before the credential it introduces.
_AUTH_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|negotiate|apikey)[ \t]+(?=\S)")

_HOME = re.compile(r"(?:/home/|/Users/)[^/\s\"'\\:]+|[A-Za-z]:\\\\?Users\\\\?[^\\\s\"':]+")
# Claude Code names a project's folder after its path, every character but letters and digits a `-`:
# `-home-alice-src`, `-Users-alice-src`, `C--Users-alice-src`, and its temporary folders after that
# (`/private/tmp/claude-501/-Users-alice-src/…`). The user name is the part after home or Users, at the
# start of a name or after another `-` (`…-501--Users-alice-…`), never inside a word (`stay-at-home-x`)
# or an option (`--home-dir`). A name with a dot or a dash in it is known whole only from the home
# folder of the user building, or of a session's working directory (`Redactor.learn_home`).
HOME_PATH = _HOME
"""A home folder in a path (/home/ada, /Users/ada, C:\\Users\\ada)."""
_ENCODED_HOME_START = r"(?:(?<![A-Za-z0-9_.-])|(?<=[A-Za-z0-9]-))"
_ENCODED_HOME = _ENCODED_HOME_START + r"(?:[A-Za-z]-)?-(?:home|Users)-\w+"
_HOME_FOLDER = re.compile(r"(?:/home/|/Users/)[^/]+|[A-Za-z]:\\Users\\[^\\]+")


def _encoded(home: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", home)


@functools.lru_cache(maxsize=64)
def _encoded_homes(known: frozenset[str]) -> re.Pattern[str]:
    """The pattern for encoded home folders: those known whole (the longest first), then any."""
    exact = sorted(map(_encoded, known), key=len, reverse=True)
    alternatives = [_ENCODED_HOME_START + re.escape(name) + r"(?![A-Za-z0-9])" for name in exact]
    return re.compile("|".join([*alternatives, _ENCODED_HOME]))


def _local_home() -> frozenset[str]:
    home = str(Path.home())
    return frozenset({home}) if _HOME_FOLDER.fullmatch(home) else frozenset()


def _holds_home(text: str) -> bool:
    return "-home-" in text or "-Users-" in text or _HOME.search(text) is not None


# What every match of a kind's whole-match rules holds (the look that leads to it): a rule runs only on
# text that holds its kind's needle. A long text with one token's prefix in it went through all thirty
# rules, and those that start on no literal (Telegram's, Discord's, Stripe's) scan it slowly.
_KIND_NEEDLES = {
    "jwt": "eyJ", "anthropic-key": "sk-ant-", "openai-key": r"sk-(?:proj|svcacct|admin)-|T3BlbkFJ",
    "github-token": r"github_pat_|gh[pousr]_", "google-api-key": "AIza", "stripe-key": r"k_(?:live|test)_",
    "slack-token": r"xox|hooks\.slack", "slack-webhook": r"hooks\.slack", "private-key": "PRIVATE KEY",
    "aws-access-key": "A3T|ABIA|ACCA|AKIA|ASIA", "azure-storage-key": "AccountKey=",
    "discord-token": r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}", "gitlab-token": r"gl[a-z]+-|GR1348941",
    "npm-token": "_authToken", "pypi-token": "pypi-", "sendgrid-key": r"SG\.", "square-secret": "sq0csp-",
    "telegram-token": ":AA",
}


@functools.cache
def _whole_match_rules() -> list[tuple[str, re.Pattern[str]]]:
    """Compiled on first use: a build that finds its site up to date needs none."""
    # Our rules first: where two rules match the same text, the first one names it.
    rules = [(kind, re.compile(pattern)) for kind, pattern in _OWN_RULES]
    rules += [(kind, re.compile(pattern, flags)) for kind, pattern, flags in _detect_secrets_patterns()]
    return rules


def _detect_secrets_patterns() -> list[tuple[str, str, int]]:
    """detect-secrets' patterns (kind, pattern, flags), as its installed version has them. Importing it
    takes 65 ms (it brings requests and more along), a tenth of a build after one reply was added: what it
    gave is kept in the user's cache folder, keyed by its plugins' files, and read back instead. A cache
    that cannot be read or written is no cache."""
    key = _detect_secrets_key()
    cache = user_cache_folder() / f"detect-secrets-patterns-{key}.json" if key else None
    if cache is not None:
        try:
            kept = json.loads(cache.read_text(encoding="utf-8"))
            if isinstance(kept, list) and all(isinstance(kind, str) and isinstance(pattern, str) and isinstance(flags, int)
                                              for kind, pattern, flags in kept):
                return [(kind, pattern, flags) for kind, pattern, flags in kept]
        except (OSError, ValueError, TypeError):  # none yet, or damaged: made again below
            pass
    patterns = []
    for kind, module, name in _DETECT_SECRETS:
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
        for number, pattern in enumerate(plugin().denylist):
            if (name, number) not in _SKIPPED_PLUGIN_PATTERNS:
                patterns.append((kind, pattern.pattern, pattern.flags))
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Whole or not at all: another build may be reading it.
            partial = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
            partial.write_text(json.dumps(patterns), encoding="utf-8")
            os.replace(partial, cache)
        except OSError:  # a read-only home, a full disk
            pass
    return patterns


def _detect_secrets_key() -> str:
    """The installed detect-secrets' plugin files, by path, size and time, without importing it ("" when
    it cannot be found that way: no cache then)."""
    try:
        spec = importlib.util.find_spec("detect_secrets")
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.submodule_search_locations:
        return ""
    plugins = Path(next(iter(spec.submodule_search_locations))) / "plugins"
    try:
        facts = [(module, (plugins / f"{module}.py").stat()) for _, module, _ in _DETECT_SECRETS]
    except OSError:
        return ""
    described = repr([str(plugins), _DETECT_SECRETS, sorted(_SKIPPED_PLUGIN_PATTERNS),
                      [(module, stat.st_size, stat.st_mtime_ns) for module, stat in facts]])
    return hashlib.sha256(described.encode()).hexdigest()[:20]


_NEEDLES = {kind: re.compile(needle) for kind, needle in _KIND_NEEDLES.items()}


def _apply_whole_match_rules(text: str, replacement: Callable[[str], Any]) -> str:
    """Each rule whose kind's needle is in the text, in order. A needle is looked for once: a rule's
    markers hold none, so what was not there before a replacement is not there after it."""
    present: dict[str, bool] = {}
    for kind, pattern in _whole_match_rules():
        found = present.get(kind)
        if found is None:
            found = present[kind] = _NEEDLES[kind].search(text) is not None  # a kind with no needle fails here
        if found:
            text = pattern.sub(replacement(kind), text)
    return text


# One pattern at a time: each starts on a literal, which re finds fast; one big alternation was 15x slower.
_GROUPS = [(kind, re.compile(pattern), groups, name, marks) for kind, pattern, groups, name, marks in _GROUP_RULES]
# Cheap first looks: most text holds none of these, and then the full patterns need not run. Every token
# the whole-match rules find starts with one of these; a pattern of its own for each group of prefixes
# (each led by a literal, which re finds fast) scans tool output several times faster than one
# alternation or a substring test per prefix.
_TOKEN_LOOK_PATTERNS = (
    r"A(?:KIA|SIA|BIA|CCA|3T|Iza|ccountKey=)", r"gh(?:[pousr]_|ithub_pat_)", r"gl(?:pat|dt|ft|soat|rt|cbt)-",
    # Not a bare `sk-` or `_test_`: words hold those (`task-`, `risk-`, `run_test_x`), and each such text went
    # through every rule. Every rule's `sk-` token is one of these (detect-secrets' OpenAI pattern ends in
    # T3BlbkFJ), and Stripe's keys start sk_, rk_ or pk_ (looked for from the `k_`, which re finds fast).
    "GR1348941", r"sk-(?:ant|proj|svcacct|admin)-", "T3BlbkFJ", "xox", r"hooks\.slack", r"k_(?:live|test)_",
    "eyJ", "PRIVATE KEY", r"SG\.", "sq0csp-", "pypi-", "_authToken",
    # Telegram bot tokens (`<bot id>:AA…`) and Discord tokens (`<id>.<6>.<27>`) start with no literal of
    # their own: the part that does is looked for.
    ":AA", r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}",
)
_TOKEN_LOOKS = tuple(map(re.compile, _TOKEN_LOOK_PATTERNS))
# For short strings (ids, names) one alternation is faster than many patterns.
_TOKEN_LOOK = re.compile("|".join(_TOKEN_LOOK_PATTERNS))
# Long base64 (thinking signatures) can hold only the tokens made of its letters: every other format has a
# `-`, `_`, `.`, `:` or a space in it.
_BASE64 = re.compile(r"[A-Za-z0-9+/=]+")
_BASE64_LOOKS = (_TOKEN_LOOKS[0], re.compile("GR1348941"))  # the A… family (AWS, Google, Azure), GitLab runners

# A line of a file read: Read's `    12→` or `cat -n`'s `    12<tab>`, after the line break.
_LINE_NUMBER = re.compile(r"\n[ \t]*\d+(?:→|\t)")
# A token's prefix whose run of token characters reaches the end of a numbered line: where a token may
# go on on the next line. (The engine finds these; most prefixes, in the middle of a line, cost nothing.)
# The short prefixes are looked for here too: a token may be wrapped inside its prefix (`sk-a` / `nt-api03…`).
_WRAP_LOOKS = tuple(re.compile(f"(?:{look})[A-Za-z0-9_\\-+/=.]*(?=\\n[ \\t]*\\d+(?:→|\\t))")
                    for look in (*_TOKEN_LOOK_PATTERNS, "sk-", r"_(?:live|test)_"))
_SHORT_WRAP_LOOKS = _WRAP_LOOKS[len(_TOKEN_LOOK_PATTERNS):]
"""The two short prefixes' wrap looks, which no token look covers."""
_TOKEN_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+/=.]*")
# How far back a wrapped token's first part is looked for.
_LONGEST_LINE_PART = 400


def _holds_token_prefix(text: str) -> bool:
    if len(text) < 200:
        return _TOKEN_LOOK.search(text) is not None
    return any(look.search(text) for look in _TOKEN_LOOKS)


def _may_hold_token(text: str) -> bool:
    """A token's prefix, or on a numbered line (a file read) the start of a token the line cuts inside the
    short prefix the looks no longer take alone (`sk-a` / `nt-api03…`)."""
    if _holds_token_prefix(text):
        return True
    return ("sk-" in text or "_live_" in text or "_test_" in text) and any(look.search(text) for look in _SHORT_WRAP_LOOKS)


def _holds_any(text: str, needles: tuple[str, ...]) -> bool:
    return any(needle in text for needle in needles)


def _has_marks(lower: str, marks: tuple[str | Callable[[str], bool], ...]) -> bool:
    return all(mark in lower if isinstance(mark, str) else mark(lower) for mark in marks)


# Nothing shorter can hold a secret any rule finds (`PWD=abc` is the shortest); most strings in an entry
# are names and ids this short, and skipping them is a good part of redaction's speed.
SHORTEST_SECRET = 7
REDACTION_WINDOW = 1 << 20
"""A text too long to hold at once (a line too long to read whole) is redacted this many characters at a
time…"""
REDACTION_MARGIN = 64 << 10
"""…cut where the text this far either side of the cut redacts alike whole and in two."""
_JSON_BREAK = "\\\n"


_SECRET_KEY, _TOKEN_KEY, _HOME_KEY = 1, 2, 4


_KEY_FLAGS: dict[str, int] = {}


def _key_flags(name: str) -> int:
    """What a mapping key may need (keys repeat from entry to entry: the answer is kept, in a dict, which
    is faster than lru_cache): its value is a secret by its name, it holds a token's prefix, it holds a
    home folder."""
    flags = _KEY_FLAGS.get(name)
    if flags is None:
        flags = ((_SECRET_KEY if is_secret_name(name) else 0)
                 | (_TOKEN_KEY if len(name) >= SHORTEST_SECRET and _TOKEN_LOOK.search(name) else 0)
                 | (_HOME_KEY if _holds_home(name) else 0))
        if len(_KEY_FLAGS) > 50_000:  # keys that are data (paths, ids) must not grow it without end
            _KEY_FLAGS.clear()
        _KEY_FLAGS[name] = flags
    return flags


class _Look:
    """What one walk over an entry found: its strings, by what may be looked for in them."""

    __slots__ = ("texts", "ids", "encoded", "keys")

    def __init__(self) -> None:
        self.texts: list[str] = []
        """Strings that any rule may apply to."""
        self.ids: list[str] = []
        """Identifiers: only known token formats are looked for in them."""
        self.encoded: list[str] = []
        """Long base64 identifiers (signatures), in which few formats can be."""
        self.keys = 0
        """What the mapping keys need (`_key_flags`, together)."""

    def walk(self, value: Any, key: str) -> None:
        # The hot loop of redaction: every item of every entry passes here, most of them only once.
        if isinstance(value, dict):
            media = value.get("type") == "base64"
            flags_of = _KEY_FLAGS.get
            for name, child in value.items():
                flags = flags_of(name)
                if flags is None:
                    flags = _key_flags(name)
                if type(child) is str:
                    if len(child) >= SHORTEST_SECRET and not (media and name == "data"):
                        if name not in UNTOUCHED_FIELDS:
                            self.texts.append(child)
                        elif len(child) > 200 and _BASE64.fullmatch(child):
                            self.encoded.append(child)
                        else:
                            self.ids.append(child)
                    if flags and not child:
                        flags &= ~_SECRET_KEY
                elif isinstance(child, (dict, list)):
                    flags &= ~_SECRET_KEY
                    self.walk(child, name)
                else:
                    flags &= ~_SECRET_KEY
                self.keys |= flags
        elif isinstance(value, list):
            for child in value:
                if type(child) is str:
                    if len(child) >= SHORTEST_SECRET:
                        (self.ids if key in UNTOUCHED_FIELDS else self.texts).append(child)
                elif isinstance(child, (dict, list)):
                    self.walk(child, key)
        elif isinstance(value, str) and len(value) >= SHORTEST_SECRET:
            (self.ids if key in UNTOUCHED_FIELDS else self.texts).append(value)


def redact_project_dir(dir_name: str, home: bool, own: OwnRules | None = None) -> str:
    """`-home-ada-src-app` -> `~-src-app` (with --redact-paths): the folder name spells out the home
    directory too, and so do the names of Claude Code's temporary folders
    (`-private-tmp-claude-501--Users-ada-src` -> `-private-tmp-claude-501-~-src`). The user's own rules
    apply to it too (`-home-ada-src-acme-portal` -> `-home-ada-src-redacted-portal`): a folder name
    becomes a path in the site. Claude Code's encoding made every character of the path that is not a
    letter or a digit a `-`, so a word is looked for in that form as well."""
    if home:
        dir_name = _encoded_homes(_local_home()).sub("~", dir_name)
    for _, pattern in own.compiled() if own else ():
        dir_name = pattern.sub(lambda m: "redacted" if m.group() else "", dir_name)
    for word in own.words if own else ():
        dir_name = re.sub(re.escape(_encoded(word)), "redacted", dir_name, flags=re.IGNORECASE)
    return dir_name


@dataclass(frozen=True)
class OwnRules:
    """The user's own redaction, on top of the built-in rules: regular expressions (`--redact`, the config's
    `redact`) whose every match is a secret, and words (`redact_words`: host names, a client's name, a
    code name) found as they are, in any case."""

    patterns: tuple[str, ...] = ()
    words: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.patterns or self.words)

    def compiled(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        return _compile_own_rules(self.patterns, self.words)

    def check(self) -> None:
        """Raises `OwnRuleError` naming the first pattern that cannot be used, and why."""
        self.compiled()


class OwnRuleError(ValueError):
    """A pattern of the user's that is not a regular expression, or that matches empty text."""


@functools.lru_cache(maxsize=16)
def _compile_own_rules(patterns: tuple[str, ...], words: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    rules = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise OwnRuleError(f"{pattern!r} is not a regular expression: {error}") from None
        if compiled.fullmatch("") is not None:
            raise OwnRuleError(f"{pattern!r} matches empty text, so it would redact nothing but mark every place")
        rules.append(("custom-pattern", compiled))
    cleaned = [word.strip() for word in words]
    if any(not word for word in cleaned):
        raise OwnRuleError("an empty word in redact_words would redact nothing")
    if cleaned:
        # The longest first: a word inside another (`acme`, `acme.corp`) does not cut the longer one in two.
        alternatives = "|".join(re.escape(word) for word in sorted(set(cleaned), key=lambda w: (-len(w), w)))
        rules.append(("custom-word", re.compile(f"(?i:{alternatives})")))
    return tuple(rules)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def identifier(text: str) -> str:
    """An identifier with any token of a known format in it replaced by its marker (not counted). Anchors
    are made from ids: made from this, an id that holds a key cannot carry it into a link, and the anchor
    is the same whether the id was redacted before (phase 2) or not (phase 1's outline)."""
    if len(text) < SHORTEST_SECRET or _TOKEN_LOOK.search(text) is None:
        return text
    return _apply_whole_match_rules(text, marker)


# -- the schema of a session's summary --------------------------------------------------------------------

TEXT = "text"
"""Untrusted text from the transcript: every string in it, mapping keys included, is redacted."""
IDENTIFIER = "identifier"
"""An identifier or a time from the transcript: only tokens of a known format are looked for (the rules by
context would find secrets in ids; an id must keep its shape)."""
OURS = "ours"
"""Made by sessionsite (numbers, digests, anchors made by `identifier`, words of its own), or a name from
the file system (the project folder, which discovery redacts with --redact-paths, and file names), or the
input's path, which no output holds."""

# For each model class a session summary holds, how each of its fields is redacted; a mapping's rule may
# be a pair (its keys', its values'). Nested dataclasses follow their own entry. A field added to the model
# and not named here fails the build and the tests (test_redact.py).
SCHEMA: dict[type, dict[str, Any]] = {
    Session: {
        "key": OURS, "session_id": IDENTIFIER, "source": OURS, "project_dir": OURS, "cwd": TEXT, "title": TEXT,
        "slug": TEXT, "git_branch": TEXT, "models": TEXT, "versions": TEXT, "started": IDENTIFIER,
        "ended": IDENTIFIER, "events": OURS, "prompt_count": OURS, "first_prompt": TEXT, "first_action": TEXT, "usage": OURS,
        "usage_by_model": (TEXT, OURS), "active_ms": OURS, "agent_id": IDENTIFIER, "parent_key": OURS,
        "uuid_digests": OURS, "replay_digests": OURS, "leaf_summaries": (IDENTIFIER, TEXT), "custom_title": TEXT, "from_progress": OURS,
        "event_counts": OURS, "outline": TEXT, "tool_call_count": OURS, "first_plan_status": OURS,
        "first_plan_how": TEXT, "started_plan_digest": OURS, "started_plan_text": TEXT, "pending_plans": OURS,
        "role_hint": OURS, "plan_source_id": IDENTIFIER, "subagent_calls": TEXT, "skipped_entries": OURS,
        "tokens_by_day": (IDENTIFIER, OURS), "tool_counts": (TEXT, OURS), "tool_errors": (TEXT, OURS),
        "api_errors": OURS, "files_touched": TEXT, "files_left_out": OURS, "commits": TEXT,
        # Set by `link`, from summaries already redacted.
        "chain_key": OURS, "role": OURS, "plan_source_key": OURS, "continues_key": OURS, "replayed": OURS,
        "parent_anchor": OURS, "parent_anchor_page": OURS, "call_subagents": OURS, "accepted_plan_anchor": OURS,
        "page_starts": OURS, "previous_key": OURS, "next_key": OURS, "subagent_keys": OURS,
    },
    OutlineItem: {"anchor": OURS, "text": TEXT, "timestamp": IDENTIFIER, "page": OURS},
    SubagentCall: {"anchor": OURS, "page": OURS, "agent_id": IDENTIFIER, "prompt_digest": OURS, "description": TEXT},
    FileTouch: {"path": TEXT, "changes": OURS, "places": OURS},
    # The subject and branch are what the transcript printed; the forge's address came from a push's output.
    Commit: {"sha": IDENTIFIER, "branch": TEXT, "subject": TEXT, "anchor": OURS, "page": OURS, "timestamp": IDENTIFIER,
             "files_changed": OURS, "insertions": OURS, "deletions": OURS, "root": OURS, "amend": OURS,
             "forge": TEXT},
    Usage: {name: OURS for name in Usage.__dataclass_fields__},
}


@dataclass
class Redactor:
    """Redacts strings and whole entries; counts what it did."""

    secrets: bool = True
    """Redact secrets (on unless --no-redact)."""
    home: bool = False
    """Replace home directories with ~ (--redact-paths)."""
    counts: Counter[str] = field(default_factory=Counter)
    """Redactions made, by kind."""
    homes: frozenset[str] = field(default_factory=_local_home, repr=False)
    """Home folders known whole (the user's; the sessions' working directories name more): their names
    are taken out of encoded folder names whole, even with a dot or a dash in them."""
    own: OwnRules = field(default_factory=OwnRules)
    """The user's own patterns and words (`--redact`, the config's `redact` and `redact_words`)."""
    record: Callable[[str, str], None] | None = field(default=None, repr=False, compare=False)
    """Told of every redaction, its kind and the text taken out (for `sessionsite audit`)."""
    _cwd: str = field(default="", repr=False)

    def learn_home(self, path: Any) -> None:
        """Know the home folder a working directory is in (`/Users/ada.lovelace/src` -> its user name,
        which its encoded form `-Users-ada-lovelace-src` spells ambiguously)."""
        if self.home and isinstance(path, str) and path != self._cwd:
            self._cwd = path
            found = _HOME_FOLDER.match(path)
            if found is not None and found.group() not in self.homes:
                self.homes = self.homes | {found.group()}

    @property
    def active(self) -> bool:
        return bool(self.secrets or self.home or self.own)

    def text(self, value: str, tokens: bool = True, context: bool = True, home: bool = True, own: bool = True) -> str:
        """`tokens`, `context` and `home` may be turned off for text known to hold no token prefix, no
        word that names a secret, or no home folder; `own` (the user's rules) for identifiers."""
        if self.secrets and len(value) >= SHORTEST_SECRET:
            if tokens and _may_hold_token(value):
                if "\n" in value and ("→" in value or "\t" in value):
                    value = self._unwrap(value)
                value = _apply_whole_match_rules(value, lambda kind: lambda match: self._whole(kind, match.group()))
            if context:
                value = self._by_context(value)
        if self.home and home:
            value = _HOME.sub(self._home, value)
            if "-home-" in value or "-Users-" in value:
                value = _encoded_homes(self.homes).sub(self._home, value)
        if own and self.own:
            for kind, pattern in self.own.compiled():
                value = pattern.sub(functools.partial(self._own, kind), value)
        return value

    def _unwrap(self, value: str) -> str:
        """A token a file wrapped over two lines, as a file read shows them (each line after its number):
        the rules see the two parts joined. The part on the second line counts as the token's when, joined,
        the token takes all of it, or when the first part alone is not a whole token (a line that follows a
        whole token is its own)."""
        breaks = set()
        for look in _WRAP_LOOKS:
            for found in look.finditer(value):
                number = _LINE_NUMBER.match(value, found.end())
                if number is not None:
                    breaks.add((found.end(), number.end()))
        pieces, position = [], 0
        for end, head_start in sorted(breaks):
            start, line_start = end, max(value.rfind("\n", 0, end) + 1, end - _LONGEST_LINE_PART)
            while start > line_start and value[start - 1] in _TOKEN_CHARACTERS:
                start -= 1
            if start < position:
                continue
            run = _TOKEN_RUN.match(value, head_start)
            assert run is not None  # it matches the empty string too
            tail, head = value[start:end], value[head_start:run.end()]
            joined = tail + head
            for kind, pattern in _whole_match_rules():
                across = next((m for m in pattern.finditer(joined) if m.start() < len(tail) < m.end()), None)
                if across is None:
                    continue
                if across.end() < len(joined) and any(m.end() == len(tail) for m in pattern.finditer(tail)):
                    continue
                pieces += [value[position:start + across.start()], self._whole(kind, across.group()), value[end:head_start]]
                position = head_start + across.end() - len(tail)
                break
        return "".join(pieces) + value[position:] if pieces else value

    def _by_context(self, value: str) -> str:
        """The rules that find a secret by what surrounds it; each runs only on text that holds its marks
        (an `=`, a `:`, a URL's "://" and "@", "aws")."""
        lower = value.lower()
        if not _holds_any(lower, _CONTEXT_WORDS):
            return value
        for kind, pattern, groups, name, marks in _GROUPS:
            if _has_marks(lower, marks):
                value = pattern.sub(functools.partial(self._group, kind=kind, groups=groups, name=name), value)
        return value

    def _own(self, kind: str, match: re.Match[str]) -> str:
        return self._whole(kind, match.group()) if match.group() else ""

    def _whole(self, kind: str, secret: str) -> str:
        self.counts[kind] += 1
        if self.record is not None:
            self.record(kind, secret)
        return marker(kind)

    def _group(self, match: re.Match[str], kind: str, groups: tuple[int, ...], name: int | None) -> str:
        number = next((g for g in groups if match.group(g)), None)
        if number is None:
            return match.group(0)
        if name == NAME_BEFORE:
            before_name = name_before(match.string, match.start())
            if not before_name or not is_secret_name(before_name):
                return match.group(0)
        elif name == NAME_ON_LINE:
            line_start = match.string.rfind("\n", 0, match.start()) + 1
            before = _NAME_ON_LINE.fullmatch(match.string, line_start, match.start())
            if before is None or not is_secret_name(before.group(1)):
                return match.group(0)
        elif name is not None and not is_secret_name(match.group(name)):
            return match.group(0)
        secret = match.group(number)
        if _NOT_A_SECRET.match(secret) or secret.startswith("[REDACTED:") or _CODE.search(secret):
            return match.group(0)
        self.counts[kind] += 1
        if self.record is not None:
            self.record(kind, secret)
        start, end = match.span(number)
        whole_start = match.start(0)
        text = match.group(0)
        return text[: start - whole_start] + marker(kind) + text[end - whole_start :]

    def _secret_field(self, value: str) -> str:
        """The value of a mapping key named like a secret (`"password": …`, `"Authorization": "Bearer …"`):
        all of it, after an authorisation scheme."""
        scheme = _AUTH_SCHEME.match(value)
        secret = value[scheme.end():] if scheme else value
        if (len(secret.strip()) < 3 or _NOT_A_SECRET.match(secret) or secret.startswith("[REDACTED:")
                or _CODE.search(secret)):
            return self.text(value)
        self.counts["secret-assignment"] += 1
        if self.record is not None:
            self.record("secret-assignment", secret)
        return value[: len(value) - len(secret)] + marker("secret-assignment")

    def _home(self, match: re.Match[str]) -> str:
        self.counts["home-directory"] += 1
        if self.record is not None:
            self.record("home-directory", match.group())
        return "~"

    def value(self, value: Any, key: str = "", tokens: bool = True, context: bool = True, home: bool = True,
              own: bool = True) -> Any:
        """Every string in a JSON value, mapping keys included (but an embedded file's bytes)."""
        if isinstance(value, str):
            if key in UNTOUCHED_FIELDS:
                return self.text(value, tokens, False, False, False)
            return self.text(value, tokens, context, home, own)
        own = own and bool(self.own)
        shortest = 1 if own else SHORTEST_SECRET  # a word of the user's may be short
        if isinstance(value, dict):
            media = value.get("type") == "base64"
            redacted: dict[str, Any] = {}
            for name, child in value.items():
                flags = _key_flags(name)
                if type(child) is str:
                    if len(child) < shortest and not (context and flags & _SECRET_KEY):
                        new = child  # too short for any rule, but a secret-named key's value
                    elif name in UNTOUCHED_FIELDS:
                        new = self.text(child, tokens, False, False, False) if tokens and not (media and name == "data") \
                            else child
                    elif context and flags & _SECRET_KEY and child:
                        new = self._secret_field(child)
                    else:
                        new = self.text(child, tokens, context, home, own)
                elif isinstance(child, (dict, list)):
                    new = self.value(child, name, tokens, context, home, own)
                else:
                    new = child
                if (flags & (_TOKEN_KEY | _HOME_KEY) and (tokens or home)) or own:
                    name = self.text(name, bool(flags & _TOKEN_KEY) and tokens, False, bool(flags & _HOME_KEY) and home,
                                     own)
                    while name in redacted:  # two keys redacted alike: both are kept
                        name += "'"
                redacted[name] = new
            return redacted
        if isinstance(value, list):
            return [self.value(v, key, tokens, context, home, own) for v in value]
        return value

    def entry(self, entry: Entry) -> Entry:
        # One look at all of an entry's text together says which rules any of it may need: most entries
        # need none, and are passed on as they are; the rest are searched only for what was seen.
        self.learn_home(entry.data.get("cwd"))
        look = _Look()
        look.walk(entry.data, "")
        joined = "\n".join(look.texts)
        families = {
            "tokens": self.secrets and (
                bool(look.keys & _TOKEN_KEY) or _may_hold_token(joined)
                or (bool(look.ids) and _TOKEN_LOOK.search("\n".join(look.ids)) is not None)  # short: one pattern
                or any(pattern.search(encoded) for encoded in look.encoded for pattern in _BASE64_LOOKS)),
            "context": self.secrets and (bool(look.keys & _SECRET_KEY) or _holds_any(joined.lower(), _CONTEXT_WORDS)),
            "home": self.home and (bool(look.keys & _HOME_KEY) or _holds_home(joined)),
        }
        # The user's own rules may match any string, however short: every entry is searched for them.
        families["own"] = bool(self.own)
        if not any(families.values()):
            return entry
        return Entry(entry.file, entry.line, self.value(dict(entry.data), "", **families))

    def item(self, item: Entry | BrokenLine) -> Entry | BrokenLine:
        """An entry, or the text of an unreadable line, which is shown too (and all of a line too long to
        read whole, as it is copied)."""
        if not self.active:
            return item
        if isinstance(item, Entry):
            return self.entry(item)
        whole = item.whole
        return replace(item, text=self.text(item.text),
                       whole=None if whole is None else lambda: self.text_in_pieces(whole(), json_text=True))

    def text_in_pieces(self, pieces: Iterable[str], json_text: bool = False) -> Iterator[str]:
        """A text too long to hold at once, redacted a window at a time, as `text` would redact it whole:
        a window ends where redacting the text around the cut in one go and in two parts comes out the
        same, so that no secret is cut in two. `json_text`: the text is a line of JSON, where a line
        break in a string is written `\\n`; the rules that go by line (`NAME=value` on a line of its
        own) see one there, as they do in the string read."""
        pending, held = "", ""
        for piece in pieces:
            if json_text:  # a backslash and a real line break, which a line of JSON cannot hold, stand for `\n`
                piece = held + piece
                held = "\\" if piece.endswith("\\") else ""
                piece = piece[:len(piece) - len(held)].replace("\\n", _JSON_BREAK)
            pending += piece
            while len(pending) >= REDACTION_WINDOW + REDACTION_MARGIN:
                cut = self._safe_cut(pending, REDACTION_WINDOW)
                if pending[cut - 1:cut + 1] == _JSON_BREAK:
                    cut -= 1
                yield self._text_of_json(pending[:cut]) if json_text else self.text(pending[:cut])
                pending = pending[cut:]
        pending += held
        if pending:
            yield self._text_of_json(pending) if json_text else self.text(pending)

    def _text_of_json(self, text: str) -> str:
        # A rule may take the backslash with the value before it: the break left alone is one still.
        return self.text(text).replace(_JSON_BREAK, "\\n").replace("\n", "\\n")

    def _safe_cut(self, text: str, near: int) -> int:
        """A place at or before `near` where no rule matches across: the first of a few tried, else `near`
        (only a match longer than the margin, which no secret is, spans them all)."""
        counts, record = self.counts, self.record
        self.counts, self.record = Counter(), None  # trying is not redacting
        try:
            for cut in range(near, near - REDACTION_MARGIN // 2, -REDACTION_MARGIN // 32):
                left, right = text[cut - REDACTION_MARGIN:cut], text[cut:cut + REDACTION_MARGIN]
                if self.text(left + right) == self.text(left) + self.text(right):
                    return cut
            return near
        finally:
            self.counts, self.record = counts, record

    # -- summaries, by schema ------------------------------------------------------------------------------

    def session(self, session: Session) -> Session:
        """A session's summary, made from entries that were not redacted (phase 1 reads only what the
        summary keeps, and redacting that is much cheaper than redacting every entry): every field, as
        `SCHEMA` says."""
        if not self.active:
            return session
        self.learn_home(session.cwd)
        return self._dataclass(session)

    def interpreted(self, result: Any) -> Any:
        """Phase 1's result for one file (`interpret.Interpreted`): its sessions' summaries, and the names
        it counts as unknown (field and type names from the transcript), which the build report and the
        manifest hold."""
        if not self.active:
            return result
        return replace(result, session=self.session(result.session),
                       sidechains=tuple(map(self.session, result.sidechains)),
                       unknown=Counter(self._mapping(result.unknown, TEXT, OURS)),
                       diagnostics=tuple(replace(d, message=self.text(d.message)) if isinstance(d, Diagnostic) else d
                                         for d in result.diagnostics))

    def _dataclass(self, value: DataclassT) -> DataclassT:
        rules = SCHEMA[type(value)]
        changes = {}
        for item in dataclasses.fields(value):
            rule = rules[item.name]  # a field without a rule fails here
            if rule == OURS:
                continue
            old = getattr(value, item.name)
            new = self._field(old, rule)
            if new is not old and new != old:
                changes[item.name] = new
        return replace(value, **changes) if changes else value

    def _field(self, value: Any, rule: Any) -> Any:
        if isinstance(value, str):
            if rule == IDENTIFIER:
                return self.text(value, context=False, home=False, own=False)
            return self.text(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):  # an instance, as fields hold
            return self._dataclass(value)
        if isinstance(value, tuple):
            return tuple(self._field(item, rule) for item in value)
        if isinstance(value, Mapping):
            keys, values = rule if isinstance(rule, tuple) else (rule, rule)
            return self._mapping(value, keys, values)
        return value

    def _mapping(self, value: Mapping[str, Any], keys: str, values: str) -> dict[str, Any]:
        """Keys that come out alike are merged: counts are added up."""
        redacted: dict[str, Any] = {}
        for name, item in value.items():
            new_name = self._field(name, keys) if keys != OURS else name
            new = self._field(item, values) if values != OURS else item
            if new_name in redacted and isinstance(new, int) and isinstance(redacted[new_name], int):
                redacted[new_name] += new
            else:
                while new_name in redacted:
                    new_name += "'"
                redacted[new_name] = new
        return redacted
