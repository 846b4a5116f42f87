"""Between read and interpret: take secrets (and, if asked, the home directory) out of every entry, so
that no later stage and no output (pages, Markdown, saved outputs) can carry them.

Transcripts hold whatever passed through a terminal: keys read from `.env` files, tokens in `curl`
commands. The patterns for well-known token formats come from detect-secrets' plugins (maintained by
Yelp, used in pre-commit hooks); rules of our own cover what they miss (Anthropic and newer OpenAI keys,
Google API keys, whole private-key blocks, values assigned to variables named like secrets). Each
redaction leaves a visible marker, `[REDACTED:<kind>]`, and is counted in the build report.

Identifiers (uuids, message and tool ids), thinking signatures and embedded file data are left alone:
they are not secrets, and changing them would break links or images.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any


from .model import BrokenLine, Entry, Session

# Fields that hold identifiers or encoded data, never a secret someone typed or a tool printed.
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
    ("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)"),
]
# A name that says it holds a secret: *TOKEN*, *SECRET*, *PASSWORD* (with any prefix or suffix part), or a
# qualified *_KEY (api_key, access_key…). A bare `key` is too common (React keys, dict keys) to mean one.
_SECRET_NAME = re.compile(
    r"(?i)(?:[A-Za-z0-9]+[_.\-])*"
    r"(?:(?:TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?|AUTH)(?:[_\-][A-Za-z0-9]+)*"
    r"|(?:[A-Za-z0-9]+[_\-])*(?:API|SECRET|ACCESS|PRIVATE|SIGNING|ENCRYPTION|MASTER|CLIENT|APP|LICENSE)[_\-]?KEY(?:[_\-]ID)?)"
)
# The name a value is given to: the identifier before the `:` or `=`, perhaps quoted (JSON)…
_NAME_BEFORE_SEPARATOR = re.compile(r"([A-Za-z0-9_.\-]+)[\"']?[ \t]*$")
NAME_BEFORE = -1
# …or all that stands on its line before the separator (`export NAME=`, `NAME:`).
_NAME_ON_LINE = re.compile(r"[ \t]*(?:export[ \t]+)?([A-Za-z0-9_.\-]+)")
NAME_ON_LINE = -2
# Secrets found by context: (kind, pattern, groups that may hold the secret, group holding the name, or
# NAME_BEFORE for the identifier before the match, or None when there is no name to check, marks).
_GROUP_RULES = [
    # (kind, pattern, groups, name, marks): a line without all of the marks cannot hold a match.
    ("password-in-url", r"://[^:/?#\[\]@!$&'()*+,;=\s]+:([^:/?#\[\]@!$&'()*+,;=\s]+)@", (1,), None, ("://", "@")),
    # NAME=value at the start of a line: .env files and shell exports (`$VAR` references are not secrets).
    # Like the rules below, it starts at the separator, which re finds fast, and checks the name after.
    ("secret-assignment", r"=(?:\"([^\"\n$]{3,})\"|'([^'\n$]{3,})'|([^\s\"'$=][^\s]{2,}))", (1, 2, 3), NAME_ON_LINE,
     ("=",)),
    # A quoted literal given to a secret-named key: JSON, YAML, code. Identifiers and calls are left alone.
    # The match starts at the `:` or `=`, which re finds fast; the name is the identifier before it.
    ("secret-assignment", r"[:=][ \t]*(?:\"([^\"\s$]{6,})\"|'([^'\s$]{6,})')", (1, 2), NAME_BEFORE, ()),
    # YAML `password: value` on a line of its own, when the value looks like a secret (has a digit or a symbol).
    ("secret-assignment", r"(?m):[ \t]+((?=[^\s]*[0-9!@#%^&*+/=_-])[^\s\"'$]{6,})[ \t]*$", (1,), NAME_ON_LINE, (":",)),
    ("aws-secret-key", r"(?i)aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?['\"=:\s]([0-9a-zA-Z/+]{40})"
     r"(?![0-9a-zA-Z/+])", (1,), None, ("aws",)),
]
# Values of secret-named variables that are plainly not secrets.
_NOT_A_SECRET = re.compile(r"(?i)^(?:true|false|null|none|undefined|\*+|x+|\.\.\.|<[^>]*>|changeme|example|your[_-].*|redacted.*|\[redacted.*)$")

_HOME = re.compile(r"(?:/home/|/Users/)[^/\s\"'\\:]+|[A-Za-z]:\\\\?Users\\\\?[^\\\s\"':]+")


@functools.cache
def _whole_match_rules() -> list[tuple[str, re.Pattern[str]]]:
    """Compiled on first use: importing detect-secrets takes a tenth of a second, which a build that
    finds its site up to date should not pay."""
    # Our rules first: where two rules match the same text, the first one names it.
    rules = [(kind, re.compile(pattern)) for kind, pattern in _OWN_RULES]
    for kind, module, name in _DETECT_SECRETS:
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
        for number, pattern in enumerate(plugin().denylist):
            if (name, number) not in _SKIPPED_PLUGIN_PATTERNS:
                rules.append((kind, pattern))
    return rules


# One pattern at a time: each starts on a literal, which re finds fast; one big alternation was 15x slower.
_GROUPS = [(kind, re.compile(pattern), groups, name, marks) for kind, pattern, groups, name, marks in _GROUP_RULES]
# Cheap first looks: most text holds none of these, and then the full patterns need not run. Every token
# the whole-match rules find starts with one of these; a pattern of its own for each group of prefixes
# (each led by a literal, which re finds fast) scans tool output several times faster than one
# alternation or a substring test per prefix.
_TOKEN_LOOKS = tuple(re.compile(look) for look in (
    r"A(?:KIA|SIA|BIA|CCA|3T|Iza|ccountKey=)", r"gh(?:[pousr]_|ithub_pat_)", r"gl(?:pat|dt|ft|soat|rt|cbt)-",
    "GR1348941", "sk-", "xox", r"hooks\.slack", r"_(?:live|test)_", "eyJ", "PRIVATE KEY", r"SG\.", "sq0csp-",
    "pypi-", "_authToken",
))
# Every context rule needs a name that says "secret" (see _SECRET_NAME: a bare "key" does not), a URL, or
# "aws", lower-cased.
_CONTEXT_WORDS = (
    "token", "secret", "passw", "pwd", "credential", "auth", "_key", "-key", "apikey", "accesskey", "privatekey",
    "signingkey", "encryptionkey", "masterkey", "clientkey", "appkey", "licensekey", "://", "aws",
)


def _holds_token_prefix(text: str) -> bool:
    return any(look.search(text) for look in _TOKEN_LOOKS)


def _holds_any(text: str, needles: tuple[str, ...]) -> bool:
    return any(needle in text for needle in needles)


# Nothing shorter can hold a secret any rule finds (`PWD=abc` is the shortest); most strings in an entry
# are names and ids this short, and skipping them is a good part of redaction's speed.
SHORTEST_SECRET = 7


def _texts_of(value: Any, key: str, found: list[str]) -> None:
    """The strings `Redactor.value` would look at."""
    if isinstance(value, str):
        if len(value) >= SHORTEST_SECRET and key not in UNTOUCHED_FIELDS:
            found.append(value)
    elif isinstance(value, dict):
        for name, child in value.items():
            _texts_of(child, name, found)
    elif isinstance(value, list):
        for child in value:
            _texts_of(child, key, found)


def redact_project_dir(dir_name: str, home: bool) -> str:
    """`-home-ada-src-app` -> `~-src-app` (with --redact-paths): the folder name spells out the home
    directory too."""
    if not home:
        return dir_name
    return re.sub(r"^(?:-home-|-Users-|[A-Za-z]--Users-)[^-]+", "~", dir_name)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass
class Redactor:
    """Redacts strings and whole entries; counts what it did."""

    secrets: bool = True
    """Redact secrets (on unless --no-redact)."""
    home: bool = False
    """Replace home directories with ~ (--redact-paths)."""
    counts: Counter[str] = field(default_factory=Counter)
    """Redactions made, by kind."""

    def text(self, value: str, tokens: bool = True, context: bool = True, home: bool = True) -> str:
        """`tokens`, `context` and `home` may be turned off for text known to hold no token prefix, no
        word that names a secret, or no home folder."""
        if self.secrets and len(value) >= SHORTEST_SECRET:
            if tokens and _holds_token_prefix(value):
                for kind, pattern in _whole_match_rules():
                    value = pattern.sub(lambda m, k=kind: self._whole(k), value)
            if context:
                value = self._by_context(value)
        if self.home and home:
            value = _HOME.sub(self._home, value)
        return value

    def _by_context(self, value: str) -> str:
        """The rules that find a secret by what surrounds it; each runs only on text that holds its marks
        (an `=`, a `:`, a URL's "://" and "@", "aws")."""
        lower = value.lower()
        if not _holds_any(lower, _CONTEXT_WORDS):
            return value
        for kind, pattern, groups, name, marks in _GROUPS:
            if all(mark in lower for mark in marks):
                value = pattern.sub(lambda m, k=kind, g=groups, n=name: self._group(m, k, g, n), value)
        return value

    def _whole(self, kind: str) -> str:
        self.counts[kind] += 1
        return marker(kind)

    def _group(self, match: re.Match[str], kind: str, groups: tuple[int, ...], name: int | None) -> str:
        number = next((g for g in groups if match.group(g)), None)
        if number is None:
            return match.group(0)
        if name == NAME_BEFORE:
            before = _NAME_BEFORE_SEPARATOR.search(match.string, max(0, match.start() - 200), match.start())
            if before is None or not _SECRET_NAME.fullmatch(before.group(1)):
                return match.group(0)
        elif name == NAME_ON_LINE:
            line_start = match.string.rfind("\n", 0, match.start()) + 1
            before = _NAME_ON_LINE.fullmatch(match.string, line_start, match.start())
            if before is None or not _SECRET_NAME.fullmatch(before.group(1)):
                return match.group(0)
        elif name is not None and not _SECRET_NAME.fullmatch(match.group(name)):
            return match.group(0)
        secret = match.group(number)
        if _NOT_A_SECRET.match(secret) or secret.startswith("[REDACTED:"):
            return match.group(0)
        self.counts[kind] += 1
        start, end = match.span(number)
        whole_start = match.start(0)
        text = match.group(0)
        return text[: start - whole_start] + marker(kind) + text[end - whole_start :]

    def _home(self, match: re.Match[str]) -> str:
        self.counts["home-directory"] += 1
        return "~"

    def value(self, value: Any, key: str = "", **families: bool) -> Any:
        if isinstance(value, str):
            return value if key in UNTOUCHED_FIELDS else self.text(value, **families)
        if isinstance(value, dict):
            return {k: self.value(v, k, **families) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, key, **families) for v in value]
        return value

    def entry(self, entry: Entry) -> Entry:
        # One look at all of an entry's text together says which rules any of it may need: most entries
        # need none, and are passed on as they are; the rest are searched only for what was seen.
        texts: list[str] = []
        _texts_of(entry.data, "", texts)
        joined = "\n".join(texts)
        families = {
            "tokens": self.secrets and _holds_token_prefix(joined),
            "context": self.secrets and _holds_any(joined.lower(), _CONTEXT_WORDS),
            "home": self.home and _HOME.search(joined) is not None,
        }
        if not any(families.values()):
            return entry
        return Entry(entry.file, entry.line, self.value(dict(entry.data), **families))

    def item(self, item: Entry | BrokenLine) -> Entry | BrokenLine:
        """An entry, or the text of an unreadable line, which is shown too."""
        if not (self.secrets or self.home):
            return item
        return self.entry(item) if isinstance(item, Entry) else replace(item, text=self.text(item.text))

    def session(self, session: Session) -> Session:
        """A session's summary, made from entries that were not redacted (phase 1 reads only what the
        summary keeps, and redacting that is much cheaper than redacting every entry): every text in it
        that reaches a page."""
        if not (self.secrets or self.home):
            return session
        text = self.text
        return replace(
            session,
            title=text(session.title), custom_title=text(session.custom_title), slug=text(session.slug),
            cwd=text(session.cwd), git_branch=text(session.git_branch), first_prompt=text(session.first_prompt),
            first_action=text(session.first_action),
            started_plan_text=text(session.started_plan_text), first_plan_how=text(session.first_plan_how),
            models=tuple(map(text, session.models)), versions=tuple(map(text, session.versions)),
            usage_by_model={text(model): usage for model, usage in session.usage_by_model.items()},
            leaf_summaries={leaf: text(summary) for leaf, summary in session.leaf_summaries.items()},
            outline=tuple(replace(item, text=text(item.text)) for item in session.outline),
            subagent_calls=tuple(replace(call, description=text(call.description)) for call in session.subagent_calls),
            files_touched=tuple(replace(touch, path=text(touch.path)) for touch in session.files_touched),
        )

