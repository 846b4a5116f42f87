"""Names that say a value is a secret, in any case style: `DB_PASSWORD`, `db-pass`, `dbPassword`,
`DbPwd`, `client.secret`, `X-Api-Key`, `_auth`, `requirepass`.

A name is split into its words (at `_`, `-`, `.`, spaces and camelCase humps) and read as a phrase: it
names a secret when one of its words is a secret word (`password`, `token`, `secret`…), or ends in one
(`requirepass`, `masterauth`, `dbpwd`), or is a key that a qualifier makes a credential (`api key`,
`private_key`, `accessKey`; a bare `key` is a React key or a dict key). It does not when its last word
only says something about the secret (`token_type`, `password_hint`, `secret_name`, `PASSWORD_FILE`),
when it counts or asks (`max_tokens`, `is_password`, `show_password`), or when the secret word is part of
another word (`author`, `bypass`, `tokenizer`, `keyboard`).
"""

from __future__ import annotations

import functools
import re

from .prefilter import Anchors
from .words import ASCII_WORDS, foreign_occurrences, names_a_secret_in_another_language

_CAMEL_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")

SECRET_WORDS = frozenset({
    "password", "passwd", "pass", "pwd", "passphrase", "passcode", "pw", "secret", "token", "credential",
    "credentials", "creds", "auth", "authorization", "cookie", "apikey", "accesskey", "secretkey", "privatekey",
    "sessionid", "sessid", "sessiontoken", "sessionkey", "sessionsecret", "signingkey", "encryptionkey",
    "masterkey", "clientsecret", "authtoken", "accesstoken", "refreshtoken", "bearer", "jwt", "pat", "pin",
    "otp", "totp", "mfa", "psk", "hmac", "salt", "pepper", "sig", "signature", "connectionstring",
    "connstr", "dsn", "sas", "webhook",
})
"""Words that name a secret on their own. (`session` alone does not: Claude Code's own `sessionId` is an
id; `sessionid` as one word is Django's and PHP's cookie.)"""

_WEAK_ALONE = frozenset({"pat", "pin", "otp", "mfa", "psk", "sig", "signature", "salt", "pepper", "hmac", "dsn",
                         "sas", "webhook", "pw", "jwt", "bearer", "totp"})
"""Secret words that name one only beside another word (`github_pat`, `PIN_CODE`, `mfa_secret`) or as
the whole name of a flag or a setting that is all it is (`pin=…`): alone in prose they are words."""

_WHOLE_NAME_WEAK = frozenset({"pin", "otp", "totp", "pw", "psk", "jwt", "dsn"})
"""Weak words that are a secret's whole name (`--pw X`, `PIN=…`, `DSN=…`)."""

_SECRET_ENDINGS = ("password", "passwd", "pass", "pwd", "secret", "token", "apikey", "auth", "passphrase",
                   "credential", "credentials")
"""A word that ends in one of these is a compound of it: `requirepass`, `masterauth`, `dbpwd`, `authtoken`."""

_NOT_COMPOUNDS = frozenset({
    "bypass", "compass", "encompass", "surpass", "trespass", "overpass", "underpass", "impass", "kompass",
    "carpass", "firstpass", "multipass", "onepass", "singlepass", "twopass", "subpass", "renderpass", "midpass",
    "highpass", "lowpass", "bandpass", "allpass", "notpass", "repass", "cutpass",
})
"""Words ending in `pass` that are no password (a filter's bandpass, a render pass)."""

_KEY_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "signing", "sign", "encryption", "encrypt", "crypt", "crypto", "master",
    "client", "app", "application", "license", "licence", "account", "storage", "service", "auth", "ssh", "gpg",
    "pgp", "hmac", "jwt", "session", "webhook", "subscription", "admin", "deploy", "consumer", "bot", "server",
    "shared", "root", "primary", "secondary", "write", "publishable", "restricted", "live", "test", "prod",
    "production", "sk", "pk", "dev", "cipher", "aes", "rsa", "ed25519", "ecdsa", "tls", "ssl",
    "wallet", "mnemonic", "seed", "recovery", "backup", "unlock", "decryption", "decrypt", "verify", "cookie",
    "csrf", "xsrf", "preshared", "sendgrid", "stripe", "openai", "anthropic", "github", "aws", "gcp", "azure", "google",
})
"""Words that make the next `key` a credential: `api_key`, `PRIVATE_KEY`, `accessKey`, `ssh-key`."""

_KEY_WORDS = frozenset({"key", "keys"})

_ABOUT_WORDS = frozenset({
    "type", "types", "mode", "method", "methods", "provider", "providers", "strategy", "policy", "kind", "format",
    "name", "names", "url", "uri", "urls", "endpoint", "host", "hostname", "file", "files", "path", "paths",
    "dir", "directory", "folder", "hint", "length", "len", "count", "counts", "size", "expires", "expire",
    "expiry", "expiration", "expired", "ttl", "timeout", "prefix", "suffix", "scope", "scopes", "enabled",
    "disabled", "required", "version", "field", "fields", "var", "vars", "env", "usage", "limit", "limits",
    "budget", "id", "ids", "label", "placeholder", "header", "headers", "param", "params", "column", "table",
    "regex", "pattern", "template", "location", "store", "manager", "service", "helper", "validator",
    "validation", "reset", "changed", "updated", "created", "at", "min", "max", "rotation", "source",
    "command", "cmd", "script", "flag", "option", "options", "input", "text", "description", "desc",
    "prompt", "message", "msg", "error", "errors", "index", "counter", "stats", "lifetime", "interval",
    "tokens", "secrets", "passwords", "cookies", "rules", "rule", "strength", "visible",
    "visibility", "toggle", "icon", "button", "form", "page", "screen", "view", "component", "modal",
    "dialog", "class", "style", "display", "shown", "status", "state", "callback", "handler",
    "request", "response", "route", "link", "mask", "masked", "example", "sample",
    "test", "tests", "spec", "mock", "stub", "fixture", "schema", "model", "entity", "dto", "repository",
    "repo", "controller", "router", "module", "package", "lib", "util", "utils", "parser", "encoder",
    "decoder", "generator", "factory", "builder", "cache", "digest", "algorithm", "alg",
    "algo", "bits", "character", "characters", "chars", "char", "position", "offset",
    "exists", "present", "missing", "set", "unset", "valid", "invalid", "verified", "rotated", "owner",
    "user", "username", "login", "email", "account", "number",
    # units: what is measured in them is a quantity (`TOKEN_TTL_SECONDS`, `SESSION_COOKIE_AGE`)
    "seconds", "secs", "ms", "millis", "milliseconds", "minutes", "mins", "hours", "days", "weeks", "age",
    "duration", "retries", "attempts",
    # times: what is dated is a moment (`claudeCodeFirstTokenDate`, `token_issued_time`)
    "date", "dates", "time", "times", "timestamp", "ts", "day", "month", "year", "when", "since", "until", "issued",
})
"""A last word that makes the name about a secret rather than the secret (`token_type`, `password_hint`,
`SECRET_NAME`, `PASSWORD_FILE`, `api_key_env`): its value is a description, a name or a count."""

_ASKING_WORDS = frozenset({
    "is", "has", "have", "use", "uses", "using", "enable", "enabled", "disable", "show", "hide", "require",
    "requires", "allow", "validate", "check", "get", "set", "on", "handle", "forgot", "num", "max", "min",
    "total", "count", "no", "without", "with", "needs", "need", "should", "can", "must", "will", "did", "do",
    "does", "input", "output", "cache", "context", "prompt", "completion", "reasoning", "thinking",
    "ephemeral", "estimated", "remaining", "next", "prev", "previous", "page", "cursor", "continuation",
    "new", "old", "last", "first",
})
"""A first word that asks about the secret or counts it: `is_password`, `show_password`, `max_tokens`,
`input_tokens`, `next_page_token` (a cursor, not a credential)."""


def words_of(name: str) -> list[str]:
    """`DB_PASSWORD` -> db, password; `clientSecret` -> client, secret; `X-Api-Key` -> x, api, key."""
    words: list[str] = []
    for part in _SEPARATORS.split(name):
        if part:
            words += [hump.lower() for hump in _CAMEL_HUMP.findall(part)]
    return words


def _names_a_secret_word(word: str) -> bool:
    if word in SECRET_WORDS:
        return True
    if word.endswith("key") and word[:-3] in _KEY_QUALIFIERS:
        return True  # authkey, apikey, masterkey
    return len(word) > 4 and word.endswith(_SECRET_ENDINGS) and word not in _NOT_COMPOUNDS and not (
        word.endswith("auth") and word.endswith(("author", "authority")))


@functools.lru_cache(maxsize=16384)
def is_secret_name(name: str) -> bool:
    """A variable, key, flag, header or attribute named like a secret (names repeat: the answer is kept)."""
    if not 2 <= len(name) <= 100:
        return False
    if not name.isascii() and names_a_secret_in_another_language(name):
        return True
    words = words_of(name)
    if words and (words[-1] in _ABOUT_WORDS or words[0] in _ASKING_WORDS and len(words) > 1):
        return "connection" in words and words[-1] in {"string", "str"}
    if names_a_secret_in_another_language(name):
        return True
    if not words:
        return False
    if "connection" in words and words[-1] in {"string", "str"}:
        return True
    for index, word in enumerate(words):
        if word in _KEY_WORDS:
            if index > 0 and words[index - 1] in _KEY_QUALIFIERS:
                return True
        elif _names_a_secret_word(word):
            strong = word not in _WEAK_ALONE
            qualified = index > 0
            if strong or qualified or (len(words) == 1 and word in _WHOLE_NAME_WEAK):
                return True
    return False


NAME_STEMS = (
    "pass", "pwd", "secret", "token", "auth", "credential", "creds", "cookie", "sessid", "sessionid", "bearer", "jwt",
    "connstr", "connectionstring", "dsn", "webhook", "mnemonic", "_pw", "pw_", "-pw", "pw=",
    # `GITHUB_PAT=`, `pat_token`: a bare `_pat` is in every `_path`.
    *(mark + "pat" + end for mark in ("_", "-") for end in ("=", ":", " ", "\"", "'")), "pat_",
    "pw:", "pw ", "pin=", "pin:", "otp", "psk", "sig=", "signature=", "?key=", "&key=", "?code=", "&code=", "sas=",
    *(qualifier + separator + "key" for qualifier in sorted(_KEY_QUALIFIERS) for separator in ("", "_", "-", ".", " ")),
    *ASCII_WORDS,  # the secret words of other languages spelt in ASCII (`passwort`, `senha`, `wachtwoord`)
)
"""Where a secret-like name may stand, in lower-case text: every place a name rule could apply is found by one
scan for these (a `key` only after a word that makes it a credential: code is full of keys)."""
_NAME_STEMS = Anchors(NAME_STEMS)


_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


def lower_in_place(text: str) -> str:
    """`text` in lower case, each character where it was (a few characters lower to two: `İ`)."""
    lower = text.lower()
    return lower if len(lower) == len(text) else text.translate(_ASCII_LOWER)



def secret_word_positions(text: str) -> list[int]:
    """Where each secret word starts (in any language): the name around it is read from there."""
    starts = _NAME_STEMS.starts(lower_in_place(text))
    if not text.isascii():
        starts = sorted({*starts, *(start for start, _ in foreign_occurrences(text))})
    return starts
