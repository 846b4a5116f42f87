"""Secrets in forms that are not `name = value`: passwords in a URL's user-info, the flags and arguments of tools
known to take one (`mysql -pX`, `curl -u user:X`, `sshpass -p X`, `redis-cli AUTH X`, `ssh-keygen -N X`,
`rabbitmqctl add_user u X`, `net user u X`, `ConvertTo-SecureString X -AsPlainText`), a password given to a call
after its user (`auth=("u", "X")`, `.login("u", "X")`, `NetworkCredential("u", "X")`), SQL's `PASSWORD '…'` and
`IDENTIFIED BY …`, a secret piped into the command that reads it (`chpasswd`, `sudo -S`, the CLIs of secret stores: docker, gcloud,
wrangler, gh, vercel, pass), `az keyvault secret set --value X`,
`gh secret set -b X`, `.netrc` lines, configuration entries that give a name and a value in two attributes (`<add key="ApiKey"
value="…"/>`), the `data:` of a Kubernetes Secret, and private keys (PEM blocks, whole or cut off, escaped in JSON
or not; OpenSSH key bodies on their own).

Each rule is (kind, anchors, pattern): a rule runs only on text that holds one of its anchors (lower-cased
text is searched for them), and its group `secret` (or the whole match) is what is redacted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from .assignments import not_a_reference, plausible_secret
from .names import is_secret_name


@dataclass(frozen=True, slots=True)
class FormRule:
    kind: str
    """The marker's name: `[REDACTED:<kind>]`."""
    anchors: tuple[str, ...]
    """Lower-case literals, one of which every match holds."""
    pattern: re.Pattern[str]
    """The group `secret` (or the whole match) is the secret."""
    named: bool = False
    """The group `name` must be a secret-like name (`names.is_secret_name`)."""
    checked: bool = True
    """The secret must pass `assignments.plausible_secret` (placeholders and code are left); otherwise only
    placeholders and references are left (a password in a URL may hold any character)."""
    at_anchor: bool = False
    """Every match starts where one of its anchors does: the rule is tried at its anchors' places only, not
    in a window around each."""


_COMMAND_END = r"[^\n|;&]*?"
_ARGUMENT = r"(?P<secret>'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"|;&]+)"
_SECRET_ARGUMENT = r"(?P<secret>\\?'[^'\n]+?\\?'|\\?\"[^\"\n]+?\\?\"|[^\s'\"|;&\\`-][^\s'\"|;&\\`]*)"
"""A command's argument that is a secret: quoted (escaped in JSON too), or a word that is no option."""
_SECRET_STORES = (r"\b(?:docker\s+secret\s+create|gcloud\s+secrets\s+(?:create|versions\s+add)|(?:npx\s+)?wrangler\s+secret\s+put|"
                  r"gh\s+secret\s+set|(?:npx\s+)?vercel\s+env\s+add|pass\s+insert)\b")
"""The commands that store a secret they read on their input."""
_SECRET_STORE_ANCHORS = ("docker secret create", "gcloud secrets", "wrangler secret put", "gh secret set", "vercel env add",
                         "pass insert")
_USER_ARGUMENT = r"(?:\\?\"[^\"\n]*?\\?\"|'[^'\n]*'|[\w.\[\]]+)"
_LITERAL = r"(?P<secret>\\?\"[^\"\n]+?\\?\"|'[^'\n]+?')"
"""A string literal in code, in either quote (escaped in JSON too)."""

FORM_RULES: tuple[FormRule, ...] = (
    FormRule("private-key", ("private key",), re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)"),
        checked=False),
    FormRule("private-key", ("putty-user-key-file",), re.compile(
        r"PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC: *[0-9a-f]+|$)"), checked=False),
    # The base64 of "openssh-key-v1": a private key's body seen without its header (a grep, a head -n).
    FormRule("private-key", ("b3blbnnzac1rzxktdje",), re.compile(
        r"b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/=]*(?:(?:\\n|\s+(?:\d+(?:→|\t))?)[A-Za-z0-9+/=]{20,})*"), checked=False),
    FormRule("password-in-url", ("://",), re.compile(
        r"://[^:/?#@\s\"'<>\\]*:(?P<secret>[^/?#\s\"'<>\\]+)@"), checked=False, at_anchor=True),
    FormRule("password-in-url", ("%3a%2f%2f",), re.compile(
        r"(?i)%3A%2F%2F(?:(?!%3A|%40|%2F)[^\s/?#&\"'<>\\])*%3A(?P<secret>(?:(?!%2F|%3F|%23)[^\s/?#&\"'<>\\])+)%40"),
        checked=False),
    FormRule("aws-secret-key", ("aws",), re.compile(
        r"(?i)aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?['\"=:\s](?P<secret>[0-9a-zA-Z/+]{40})"
        r"(?![0-9a-zA-Z/+])")),
    # A configuration entry that names its setting in one attribute and gives it in another.
    FormRule("secret-assignment", ("key=", "name="), re.compile(
        r"(?i)\b(?:key|name)=\s*([\"'])(?P<name>[^\"'\n]{2,80})\1\s+(?:value|content)\s*=\s*([\"'])"
        r"(?P<secret>[^\"'\n]*)\3"), named=True, at_anchor=True),
    FormRule("secret-assignment", ("key=",), re.compile(
        r"(?i)\bkey=\s*\\?([\"'])(?P<name>[^\"'\n\\]{2,80})\\?\1\s*>(?P<secret>[^<\n]+)<"), named=True, at_anchor=True),
    FormRule("password-flag", ("mysql", "mariadb"), re.compile(
        r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b" + _COMMAND_END
        + r"\s(?:-p|--password=)(?P<secret>'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"|;&-][^\s'\"|;&]*)")),
    FormRule("password-flag", ("sshpass",), re.compile(r"\bsshpass\s+-p\s*" + _ARGUMENT)),
    FormRule("password-flag", ("redis-cli", "keydb-cli", "valkey-cli"), re.compile(
        r"\b(?:redis|keydb|valkey)-cli\b" + _COMMAND_END + r"\s(?:-a|--pass)\s+" + _ARGUMENT)),
    FormRule("password-flag", ("curl", "wget", "http "), re.compile(
        r"\b(?:curl|wget|http|https|xh)\b" + _COMMAND_END + r"\s(?:-u|--user|-a|--auth|--http-password=?)\s*"
        r"['\"]?[^\s:'\"]*:(?P<secret>[^\s'\"|;&]+)")),
    FormRule("password-flag", ("login",), re.compile(
        r"\blogin\b" + _COMMAND_END + r"\s(?:-p|--password)[ =]" + _ARGUMENT)),
    FormRule("password-flag", ("zip ", "7z ", "7za ", "7zz ", "rar "), re.compile(
        r"\b(?:zip|unzip|7z|7za|7zz|rar|unrar)\b" + _COMMAND_END + r"\s-(?:P\s*|p)" + _ARGUMENT)),
    FormRule("password-flag", ("ldap",), re.compile(r"\bldap\w+\b" + _COMMAND_END + r"\s-w\s+" + _ARGUMENT)),
    FormRule("password-flag", ("sqlcmd", "bcp", "osql"), re.compile(
        r"\b(?:sqlcmd|bcp|osql)\b" + _COMMAND_END + r"\s-P\s*" + _ARGUMENT)),
    FormRule("password-flag", ("pass:",), re.compile(r"\s-(?:pass(?:in|out)?|password)\s+pass:" + _ARGUMENT)),
    FormRule("password-flag", ("smbclient", "rpcclient"), re.compile(
        r"\b(?:smbclient|rpcclient|smbmap)\b" + _COMMAND_END + r"\s(?:-U|--user)\s*['\"]?[^\s%'\"]+%" + _ARGUMENT)),
    FormRule("password-flag", ("htpasswd",), re.compile(r"\bhtpasswd\s+-\w*b\w*\s+(?:-\w+\s+)*\S+\s+\S+\s+" + _ARGUMENT)),
    FormRule("password-flag", ("pgpassword=", "mysql_pwd=", "rediscli_auth="), re.compile(
        r"\b(?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH)=" + _ARGUMENT)),
    FormRule("password-flag", ("-stdin",), re.compile(
        r"\b(?:echo|printf)\s+(?:-[nes]+\s+|'%s'\s+|\"%s\"\s+)?(?P<secret>'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"|;&$]+)\s*\|[^\n|]*"
        r"--(?:password|pass|token|secret)[-_]stdin\b")),
    # SQL: a user's or a role's password, quoted (`PASSWORD '…'`) or after IDENTIFIED BY (Oracle's unquoted).
    FormRule("password-in-sql", ("password '", 'password "', 'password \\"'), re.compile(
        r"(?i)\bpassword\s+(?P<secret>\\?'[^'\n]+?\\?'|\\?\"[^\"\n]+?\\?\")"), at_anchor=True),
    FormRule("password-in-sql", ("identified by", "identified with"), re.compile(
        r"(?i)\bidentified\s+(?:with\s+\S+\s+)?by\s+" + _SECRET_ARGUMENT), at_anchor=True),
    # Tools that take a password as an argument of their own.
    FormRule("password-flag", ("mongo",), re.compile(
        r"\bmongo\w*\b" + _COMMAND_END + r"\s(?:-p|--password)[ =]" + _SECRET_ARGUMENT), at_anchor=True),
    FormRule("password-flag", ("redis-cli", "keydb-cli", "valkey-cli"), re.compile(
        r"\b(?:redis|keydb|valkey)-cli\b" + _COMMAND_END + r"\s(?i:auth)\s+(?:[^\s'\"|;&\\`-]+[ \t]+(?=[^\s'\"|;&\\`-]))?"
        + _SECRET_ARGUMENT), at_anchor=True),
    FormRule("password-flag", ("rabbitmqctl",), re.compile(
        r"\brabbitmqctl\b" + _COMMAND_END + r"\s(?:add_user|change_password|authenticate_user)\s+\S+\s+"
        + _SECRET_ARGUMENT), at_anchor=True),
    FormRule("password-flag", ("net user",), re.compile(
        r"(?i)\bnet\s+user\s+(?:\"[^\"\n]+\"|[^\s/]+)\s+(?P<secret>\\?\"[^\"\n]+?\\?\"|[^\s'\"|;&\\/*-][^\s'\"|;&\\]*)")),
    FormRule("password-flag", ("ssh-keygen",), re.compile(r"\bssh-keygen\b" + _COMMAND_END + r"\s-[NP]\s*" + _SECRET_ARGUMENT),
             at_anchor=True),
    FormRule("password-flag", ("convertto-securestring",), re.compile(
        r"(?i)\bConvertTo-SecureString\s+(?:-String\s+)?" + _SECRET_ARGUMENT + r"(?=[^\n]*-AsPlainText)")),
    FormRule("password-flag", ("add-generic-password", "add-internet-password"), re.compile(
        r"\badd-(?:generic|internet)-password\b" + _COMMAND_END + r"\s-w\s+" + _SECRET_ARGUMENT)),
    FormRule("password-flag", ("gh secret set",), re.compile(
        r"\bgh\s+secret\s+set\b" + _COMMAND_END + r"\s(?:--body|-b)[ =]" + _SECRET_ARGUMENT), at_anchor=True),
    FormRule("password-flag", ("openssl",), re.compile(r"\bopenssl\b" + _COMMAND_END + r"\s-k\s+" + _SECRET_ARGUMENT),
             at_anchor=True),
    FormRule("password-flag", ("nmcli",), re.compile(
        r"\bnmcli\b" + _COMMAND_END + r"\s(?:password|wifi-sec\.psk|802-11-wireless-security\.psk)\s+"
        + _SECRET_ARGUMENT)),
    FormRule("password-flag", ("wpa_passphrase",), re.compile(
        r"\bwpa_passphrase\s+(?:\\?\"[^\"\n]+\\?\"|'[^'\n]+'|[^\s'\"|;&]+)[ \t]+" + _SECRET_ARGUMENT)),
    # Piped into a command that reads it from its input.
    FormRule("password-flag", ("sudo -s",), re.compile(
        r"\b(?:echo|printf)\s+(?:-\w+\s+)?" + _SECRET_ARGUMENT + r"\s*\|\s*sudo\s+(?:-\w+\s+)*-\w*S\b")),
    FormRule("password-flag", ("sudo -s",), re.compile(r"\bsudo\s+(?:-\w+\s+)*-\w*S\w*\s*<<<\s*" + _SECRET_ARGUMENT)),
    FormRule("password-flag", ("chpasswd",), re.compile(
        r"\b(?:echo|printf)\s+(?:-\w+\s+)?\\?['\"]?[^:\s'\"\\]+:(?P<secret>[^\s'\"|\\]+)\\?['\"]?\s*\|\s*(?:sudo\s+)?chpasswd\b")),
    FormRule("password-flag", ("chpasswd",), re.compile(
        r"\bchpasswd\b[^\n]*?<<<\s*\\?['\"]?[^:\s'\"\\]+:(?P<secret>[^\s'\"\\]+)")),
    # A secret store's CLI given the secret on its input, or as its flag's value.
    FormRule("password-flag", _SECRET_STORE_ANCHORS, re.compile(
        r"\b(?:echo|printf)\s+(?:-\w+\s+|'%s'\s+|\"%s\"\s+)*" + _SECRET_ARGUMENT + r"\s*\|\s*(?:sudo\s+)?"
        + _SECRET_STORES)),
    FormRule("password-flag", _SECRET_STORE_ANCHORS, re.compile(_SECRET_STORES + r"[^\n<|]*<<<\s*" + _SECRET_ARGUMENT)),
    FormRule("password-flag", ("keyvault secret set",), re.compile(
        r"\baz\s+keyvault\s+secret\s+set\b" + _COMMAND_END + r"\s--value[ =]" + _SECRET_ARGUMENT)),
    # Code that gives a user and a password to a call by position: the password is the literal after the user.
    FormRule("password-argument", ("auth=", "auth =", "auth(", "login(", "credential(", "credentials(",
                                   "authentication(", "bind_s(", "simple_bind("), re.compile(
        r"(?:\bauth\s*=\s*\(|(?:[Aa]uth|[Ll]ogin|[Cc]redentials?|[Aa]uthentication|bind_s|simple_bind)\s*\()\s*"
        + _USER_ARGUMENT + r"\s*,\s*" + _LITERAL), at_anchor=True),
    FormRule("password-argument", ("getconnection(",), re.compile(
        r"\bgetConnection\s*\(\s*" + _USER_ARGUMENT + r"\s*,\s*" + _USER_ARGUMENT + r"\s*,\s*" + _LITERAL),
        at_anchor=True),
    FormRule("password-argument", (".connect(",), re.compile(
        r"\b(?:pymysql|MySQLdb|mysql\.connector|pymssql|psycopg2?)\.connect\s*\(\s*" + _USER_ARGUMENT + r"\s*,\s*"
        + _USER_ARGUMENT + r"\s*,\s*" + _LITERAL)),
    FormRule("netrc-password", ("machine",), re.compile(
        r"\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+" + _ARGUMENT), at_anchor=True),
)
"""The rules, most specific first."""


KUBERNETES_SECRET_MARKS = ("kind: secret", '"kind": "secret"', '"kind":"secret"')
_LINE_BREAK = re.compile(r"\r?\n|\\n")
_DECORATION = re.compile(r"[ \t]*\d+(?:→|\t)|[^\s:]+:\d+[:-]|\d+[:-]|[+\- >]")
"""What a tool puts before a line of a file: Read's and `cat -n`'s numbers, grep's `file:12:`, a diff's mark."""
_DATA_LINE = re.compile(r"(?P<indent>[ \t]*)(?:data|stringData):[ \t]*$")
_DATA_ENTRY = re.compile(r"(?P<indent>[ \t]+)[A-Za-z0-9_.\-]+:[ \t]*(?P<secret>[^\s\"'|>][^\n]*?)[ \t]*$")


def lines_with_offsets(text: str) -> list[tuple[int, str]]:
    lines, start = [], 0
    for found in _LINE_BREAK.finditer(text):
        lines.append((start, text[start:found.start()]))
        start = found.end()
    lines.append((start, text[start:]))
    return lines


def kubernetes_secret_values(text: str) -> list[tuple[int, int]]:
    """Every value under `data:` and `stringData:` of a Kubernetes Secret (base64 or not: the keys are the
    user's own names, so nothing but the manifest's kind says they are secrets), whatever a tool put before
    each line."""
    spans: list[tuple[int, int]] = []
    data_indent: int | None = None
    for offset, line in lines_with_offsets(text):
        decoration = _DECORATION.match(line)
        content_start = decoration.end() if decoration and _DATA_ENTRY.match(line, decoration.end()) or (
            decoration and _DATA_LINE.match(line, decoration.end())) else 0
        content = line[content_start:]
        if data_indent is not None:
            entry = _DATA_ENTRY.match(content)
            if entry is not None and len(entry.group("indent")) > data_indent:
                if not entry.group("secret").startswith("[REDACTED:"):
                    spans.append((offset + content_start + entry.start("secret"), offset + content_start + entry.end("secret")))
                continue
            data_indent = None
        data_line = _DATA_LINE.match(content)
        if data_line is not None:
            data_indent = len(data_line.group("indent"))
    return spans


def form_matches(rule: FormRule, text: str, matches: Iterable[re.Match[str]] | None = None) -> list[tuple[int, int]]:
    """The spans of `rule`'s secrets in `text` (among `matches` of its pattern, when the caller has them)."""
    spans = []
    for found in rule.pattern.finditer(text) if matches is None else matches:
        group = "secret" if "secret" in rule.pattern.groupindex else 0
        start, end = found.span(group)
        secret = found.group(group)
        if secret.startswith("[REDACTED:"):
            continue
        if rule.named and not is_secret_name(found.group("name")):
            continue
        quoted = secret[:1] in "'\"" and secret[-1:] == secret[:1] and len(secret) > 1
        if quoted:
            start, end, secret = start + 1, end - 1, secret[1:-1]
        if not rule.checked and not_a_reference(secret):
            continue
        if rule.checked and not plausible_secret(secret, True if rule.kind != "secret-assignment" else quoted, False):
            continue
        spans.append((start, end))
    return spans
