"""Secrets found by their context: a value given to a secret-like name, in any syntax a file, a command or a
protocol writes it.

The scan starts at each secret word (`names.secret_word_positions`), reads the whole name around it, and
then what follows the name: a closing quote or bracket of a quoted key, a separator (`=`, `:`, `:=`, `=>`,
`==`, whitespace after a `--flag`, `>` after an XML element's `<name`), an optional quote, an optional
HTTP authorisation scheme, and the value. So `API_TOKEN=…` is found after Read's `    2→`, `cat -n`'s
`    2<tab>`, grep's `file:12:`, a diff's `+`, a quoting `> ` or a JSON escape (`\\nAPI_TOKEN=…`), whatever
the line starts with: nothing here looks at the start of a line. The same scan covers `.env`, shell
`export`, INI and `~/.aws/credentials` (`key = value`), YAML, TOML, JSON, code, XML attributes and elements,
query strings (`?api_key=…&`), key-value connection strings (JDBC `;password=…`, ODBC, ADO), CLI flags
(`--password X`, `--token=X`), the `config set NAME VALUE` of the CLIs that keep tokens (git, npm, yarn, pnpm,
aws, gcloud, `dotnet user-secrets`, `netlify env:set`, fish's `set -gx`, `setx`) and HTTP headers (`Authorization: Bearer …`, `X-Api-Key: …`, `Cookie: …`); and
(`containers`) the items of a list or the lines of a block given to such a name, and the value beside a name
field that holds one (an environment variable as Kubernetes, ECS or Terraform write it).

A value is a secret unless it is plainly not one: a placeholder (`changeme`, `${VAR}`, `<your-key>`,
`***`), a reference or code (`$TOKEN`, `os.environ[…]`, `self.password`, `get_token()`), a type (`str`),
or, outside a credential file, a bare word with no digit or symbol (`password: hashedPassword`).
"""

from __future__ import annotations

import re
from typing import Iterator

from .containers import block_items, here_document_lines, list_items, named_value_start
from .names import is_secret_name, secret_word_positions, words_of
from .words import letter, phrase_end

NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_SEPARATORS = (":=", "=>", "==", "=", ":", "：")
"""`：` is the full-width colon of Chinese and Japanese (`密码：…`)."""
_QUOTES = "\"'`"
_AUTH_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|negotiate|apikey|sso-key|key|otp)[ \t]+(?=\S)")
_BARE_END = frozenset(" \t\r\n\"'`,;<>(){}[]\\|")
"""What ends a value that is not quoted (an `&` and a `#` too, in a query string)."""
_LONGEST_VALUE = 4096

_PLACEHOLDER = re.compile(
    r"(?i)^(?:true|false|null|nil|none|undefined|yes|no|on|off|empty|unset|required|optional|default|"
    r"\*+|x{3,}|\.{3}|…|•+|-+|_+|0+|\?+|"
    r"<[^>]*>|\[[^\]]*\]|\{\{.*\}\}|\{[A-Za-z_.]*\}|%\(?[A-Za-z_]*\)?s?|%[A-Za-z_]+%|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|"
    r"changeme|change[-_ ]?me|change[-_ ]?it|replace[-_ ]?me|fill[-_ ]?me[-_ ]?in|todo|tbd|fixme|placeholder|"
    r"example|sample|dummy|fake|test|testing|secret|password|passwd|token|apikey|api[-_]?key|pass|pwd|"
    r"string|str|text|number|int|integer|bool|boolean|any|object|bytes|buffer|unknown|never|void|"
    r"(?:your|my|the|a|an|some|insert|enter|put|add|paste)[-_ ].*|.*[-_]here|.*goes[-_ ]here|"
    r"redacted.*|\[redacted.*|hidden|masked|secret[-_]?value|xxx.*xxx|sk-\.{3}.*|.*\.\.\.)$"
)
"""Values that hold no secret: words, types, placeholders, template references."""

_CODE = re.compile(
    r"\\[()0-9{}|.]|[.\]][*+?]|\[\^|\$[({]|\$[A-Za-z_]|\b(?:process\.env|os\.environ|os\.getenv|getenv|"
    r"import\.meta\.env|ENV\[|System\.getenv|Environment\.Get|config\.|settings\.|self\.|this\.|request\.|"
    r"req\.|params\.|args\.|options\.|opts\.|props\.|ctx\.|context\.)|\w\(|^\w+\[|=>|->|::|\bnew\s+\w|^[&*]\w"
)
"""A value that is code handling a secret, not the secret: a lookup, a call, a member, a sed pattern."""

_NOT_A_SECRET = re.compile(
    r"(?:Test|Benchmark|Example|Fuzz)[A-Z0-9_]\w*(?:/\S*)?"  # a Go test's name (`--- PASS: TestParse/alias`)
    r"|test_\w+(?:\[[^\]]*\])?|\S+\.(?:test|spec)\.\w+(?:::\S+)?|\S+\.py::\S+"  # pytest's, jest's
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"  # a date, a time
    r"|\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h|d|min|sec|secs|seconds|minutes|hours|days)"  # a duration
    r"|\(?\d+(?:\.\d+)?s\)"  # a test's duration
    r"|(?:\.{0,2}/|~/)?(?:[\w.\-]+/)+[\w.\-]+\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|rb|java|kt|c|h|cc|cpp|cs|php|"
    r"swift|ex|exs|md|rst|html|css|scss|vue|svelte|sql|sh|lock|log|snap|yml|yaml|json|toml|xml|txt)(?::\d+)*")  # a path
"""Values that are something else by what they are, whatever name they are given: a test's name (a test runner's
`PASS:` line), a date or a time (`claudeCodeFirstTokenDate: 2026-…`), a duration, a path to a source file (prose
after `Auth:`)."""
_SAYS_PLACEHOLDER = re.compile(r"(?i)(?:^|[-_.])(?:test|testing|dev|development|local|example|sample|dummy|fake|"
                               r"insecure|placeholder|changeme|not[-_]?a[-_]?secret|do[-_]?not[-_]?use)(?=[-_.]|$)")
_WORDS_JOINED = re.compile(r"[A-Za-z]+(?:[-_.](?:[A-Za-z]+|\d+))+")
"""Words (and numbers) joined by `-`, `_` or `.`: with one of them saying so, a placeholder's value."""
_DOTTED_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+")
_MEMBER_PART = re.compile(r"[A-Za-z_$]+[0-9]{0,2}|[a-z_$][a-z0-9_$]{0,15}")
_WORD = re.compile(r"[A-Za-z_][A-Za-z_-]*")
_SCREAMING_REFERENCE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_FILE_NAME = re.compile(r"\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|ex|exs|erl|rb|go|rs|java|kt|kts|scala|c|h|cc|cpp|hpp|cs|"
                        r"php|swift|m|mm|dart|lua|pl|r|md|rst|txt|html|htm|css|scss|vue|svelte|sh|bash|zsh|sql|lock|"
                        r"log|snap|test|spec|d|ini|toml|ya?ml|json|env|conf|cfg|properties|xml|pem|crt|txt|csv|tf|tfvars)$", re.IGNORECASE)
"""A name that is a file name (`token.ex`, `auth.test.ts`): what follows it is a place, not a value."""
_NETRC_BEFORE = re.compile(r"(?:\blogin[ \t]+\S+[ \t]+|(?:^|\n|\t|→|(?:^|\n)(?:[^\s:]*:)?\d+[:-]|(?:^|\n)[+\-])[ \t]*)\Z")
"""What stands before a `.netrc` password: the login on its line, or nothing."""
_SAID_TO_BE = re.compile(r"(?:is|was|=)[ \t]+(?:(?:set|changed|now)[ \t]+(?:to[ \t]+)?)?(?=\S)")
"""Prose that gives a secret: "the password is X" (the value is then taken only if it looks like one)."""
_QUERY_SECRETS = frozenset({"sig", "signature", "x-amz-signature", "x-goog-signature", "key", "code", "apikey",
                            "api-key", "access_token", "auth", "sas", "se-token"})
"""Query parameters that carry a credential though their names alone would not say so (an Azure SAS's
`sig`, a presigned URL's signature, Google's `key`)."""
_LINE_REFERENCE = re.compile(r"\d+(?::\d+)*(?::|$)")
_SECRET_SIGNS = re.compile(r"[0-9!@#%^&*+/=~?]")
_CONFIG_SET_BEFORE = re.compile(
    r"(?:\bgit\s+config(?:\s+--[\w-]+)*|\b(?:npm|yarn|pnpm)\s+config\s+set|\baws\s+configure\s+set|"
    r"\bgcloud\s+config\s+set|\bdotnet\s+user-secrets\s+set|\bnetlify\s+env:set|\bsetx|\bset(?:\s+-[a-zA-Z]+)+)"
    r"\s+\\?[\"']?(?:[^\s'\"\\]*[:/])?\Z")
"""What comes before the name a CLI that keeps tokens among its settings is given, with its value after it (and the
environment setters that take a name and a value: fish's `set -gx`, Windows' `setx`)."""
_BLOCK_OPENINGS = frozenset(("", "\n", "\r", "#", "|", ">"))
"""What follows `name:` when its value is on the lines below (`containers.block_items`)."""


def _name_span(text: str, position: int) -> tuple[int, int]:
    start = end = position
    while start > 0 and (text[start - 1] in NAME_CHARACTERS or text[start - 1] > "\x7f" and letter(text[start - 1])):
        start -= 1
    while end < len(text) and (text[end] in NAME_CHARACTERS or text[end] > "\x7f" and letter(text[end])):
        end += 1
    if end < len(text) and text[end] == " ":
        end = phrase_end(text, start) or end  # `كلمة المرور:`, `clave secreta:`: a name of words
    # A JSON escape before the name (`\nAPI_TOKEN`) is not part of it.
    if start > 0 and text[start - 1] == "\\" and text[start] in "nrt":
        start += 1
    return start, end


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _opens_arguments(text: str, name_start: int) -> bool:
    """Whether the quoted name at `name_start` is the first of a call's or a list's arguments."""
    position = name_start - 1
    if position > 0 and text[position - 1] == "\\":
        position -= 1
    position -= 1
    while position >= 0 and text[position] in " \t":
        position -= 1
    return position >= 0 and text[position] in "([{"


def _separator(text: str, name_start: int, name_end: int, credential_file: bool = False) -> tuple[int, str] | None:
    """Where the value starts after the name, and what separated them; None when no value is given."""
    position = name_end
    quoted_name = False
    if position < len(text) and text[position] == "\\" and text[position + 1:position + 2] in ("\"", "'"):
        position += 2
        quoted_name = True
    elif position < len(text) and text[position] in _QUOTES:
        position += 1
        quoted_name = True
    if position < len(text) and text[position] == "]":
        position += 1
    after_blanks = _skip_blanks(text, position)
    for separator in _SEPARATORS:
        if text.startswith(separator, after_blanks):
            following = after_blanks + len(separator)
            if separator == ":" and text[following:following + 1] in (":", "/"):
                return None  # a C++ scope, a URL's scheme
            if separator == "=" and text[following:following + 1] == "~":
                return None  # a Perl or awk match
            return _skip_blanks(text, following), separator
    said = _SAID_TO_BE.match(text, after_blanks)
    if said is not None and after_blanks > position:
        return said.end(), "is"  # prose: "the db password is X", "my token was X"
    if quoted_name and text.startswith(",", after_blanks) and _opens_arguments(text, name_start):
        return _skip_blanks(text, after_blanks + 1), ","  # define('DB_PASSWORD', '…'), set("token", "…")
    if name_start > 0 and text[name_start - 1] == "<" and text[position:position + 1] == ">":
        return position + 1, ">"  # <password>…</password>
    flag = text[name_start:name_start + 1] == "-" and (name_start == 0 or text[name_start - 1] in " \t\n\"'(")
    if not flag and text[name_start:position].lower() in ("password", "passwd") and _NETRC_BEFORE.search(
            text, max(0, name_start - 200), name_start):
        flag = True  # .netrc: `machine h login me password X`, on one line or on its own
    if flag and after_blanks > position and after_blanks < len(text) and text[after_blanks] not in "-\n|&;>":
        return after_blanks, " "  # --password X
    if (after_blanks > position and after_blanks < len(text) and text[after_blanks] not in "-\n|&;>#"
            and _CONFIG_SET_BEFORE.search(text, max(0, name_start - 120), name_start)):
        return after_blanks, " "  # git config github.token X, npm config set //host/:_authToken X
    return None


def _value_span(text: str, start: int, in_query: bool, to_line_end: bool) -> tuple[int, int, bool] | None:
    """The value that starts at `start`: (start, end, quoted)."""
    if start >= len(text):
        return None
    escaped = text[start] == "\\" and text[start + 1:start + 2] in ("\"", "'")
    quote = text[start + 1] if escaped else text[start]
    if escaped or quote in _QUOTES:
        opening = start + (2 if escaped else 1)
        closing_mark = ("\\" + quote) if escaped else quote
        end = text.find(closing_mark, opening, opening + _LONGEST_VALUE)
        if end < 0:
            return None
        if "\n" in text[opening:end]:
            return None
        return opening, end, True
    if to_line_end:
        end = start
        while end < len(text) and end - start < _LONGEST_VALUE and text[end] not in "\r\n\"'\\":
            end += 1
        while end > start and text[end - 1] in " \t":
            end -= 1
        return start, end, False
    end = start
    stops = _BARE_END | {"&", "#"} if in_query else _BARE_END
    while end < len(text) and end - start < _LONGEST_VALUE and text[end] not in stops:
        end += 1
    return start, end, False


def _member_access(value: str) -> bool:
    """`config.db.password`, `user1.token`: code. A token with dots in it (`hvs.CAESI…`, `pat.S2Uy….ySL9…`)
    is not: its parts are not words."""
    return _DOTTED_IDENTIFIER.fullmatch(value) is not None and all(
        _MEMBER_PART.fullmatch(part) for part in value.split("."))


def not_a_reference(value: str) -> bool:
    """A placeholder or a reference (`${DB_PASSWORD}`, `<password>`, `$PASS`), where any text may be a secret."""
    stripped = value.strip()
    return _PLACEHOLDER.match(stripped) is not None or stripped[:1] in ("$", "%", "{", "<") or stripped.startswith(
        "[REDACTED:")


def plausible_secret(value: str, quoted: bool, credential_file: bool, whole_field: bool = False) -> bool:
    """Could `value`, given to a secret-like name, be the secret? `whole_field`: it is all of a field named
    like a secret (a JSON key's string), where a passphrase of words is one too."""
    stripped = value.strip()
    if len(stripped) < 3 or stripped.startswith("[REDACTED:"):
        return False
    if _PLACEHOLDER.match(stripped) or _CODE.search(stripped) or _NOT_A_SECRET.fullmatch(stripped):
        return False
    if _SAYS_PLACEHOLDER.search(stripped) and _WORDS_JOINED.fullmatch(stripped):
        return False  # `test-only-secret-base-…`, `insecure-dev-key`: words that say they are no secret
    if stripped[0] in "$%@!*&{[(<" or stripped.startswith(("file:", "env:", "vault:", "secret:", "arn:", "op://")):
        return False
    if credential_file or whole_field:
        return True
    if quoted:
        # A literal: a password may be a word, but a sentence is a description or a message.
        return stripped.count(" ") < 3 and not _member_access(stripped)
    if _member_access(stripped) or _SCREAMING_REFERENCE.fullmatch(stripped):
        return False
    if _WORD.fullmatch(stripped):
        return False  # an identifier (`hashedPassword`, `token_value`) or a word
    return _SECRET_SIGNS.search(stripped) is not None or len(stripped) >= 12


def assigned_secrets(text: str, credential_file: bool = False,
                     positions: list[int] | None = None) -> Iterator[tuple[int, int]]:
    """The spans of the values given to secret-like names in `text`, in order, not overlapping (`positions`:
    where the secret words are, when the caller has found them already)."""
    seen_end = -1
    for position in secret_word_positions(text) if positions is None else positions:
        if position < seen_end:
            continue
        name_start, name_end = _name_span(text, position)
        seen_end = name_end
        name = text[name_start:name_end].strip("-.")
        if _FILE_NAME.search(name):
            continue
        in_query = name_start > 0 and text[name_start - 1] in "?&;"
        # A plural (`passwords`, `client_secrets`) names a list of secrets: only a list's items are taken.
        secret_name = is_secret_name(name)
        plural = not secret_name and name[-1:] in ("s", "S") and is_secret_name(name[:-1])
        if not (secret_name or plural) and not (in_query and name.lower() in _QUERY_SECRETS):
            continue
        found = _separator(text, name_start, name_end, credential_file)
        if plural and found is None:
            continue
        if found is None:
            beside = named_value_start(text, name_start, name_end)
            if beside is not None:
                span = _value_span(text, beside, False, False)
                if span is not None and plausible_secret(text[span[0]:span[1]], span[2], credential_file):
                    yield span[0], span[1]
                    seen_end = span[1]
            continue
        value_start, separator = found
        opening = text[value_start:value_start + 1]  # a list, a block (a key's line ending there), or a value
        items: list[tuple[int, int, bool]] = []
        if separator in (":", "=", ":=") and (opening == "[" or separator == ":" and opening in _BLOCK_OPENINGS):
            items = list(list_items(text, value_start) if opening == "["
                         else block_items(text, name_start, value_start))
        elif opening == "<" and separator in ("=", ":=", ":") and not plural:
            items = list(here_document_lines(text, value_start))
        for start, end, quoted in items:
            if plausible_secret(text[start:end], quoted, credential_file):
                yield start, end
                seen_end = end
        if items or plural:
            continue
        if separator in (":", "=", " ", ","):
            scheme = _AUTH_SCHEME.match(text, value_start)
            if scheme is not None and "auth" in name.lower():
                value_start = scheme.end()
        words = words_of(name) or [name.lower()]
        to_line_end = separator == ":" and words[-1] in ("cookie", "cookies") and len(words) <= 2
        span = _value_span(text, value_start, in_query, to_line_end)
        if span is None:
            continue
        start, end, quoted = span
        if separator == ">":
            closing = text.find("<", start, start + _LONGEST_VALUE)
            if closing < 0:
                continue
            end, quoted = closing, True
        value = text[start:end]
        if separator == ":" and _LINE_REFERENCE.match(value):
            continue  # `token.ex:135:`, `cargo-credentials.toml:2:token = …`: a place in a stack trace or a grep
        if separator == "is" and (_SECRET_SIGNS.search(value) is None or quoted or _WORD.fullmatch(value)):
            continue  # prose gives a secret only if it looks like one: "the password is S3cr3t!", not "is not"
        if words[-1] in ("key", "keys") and _WORD.fullmatch(value) and not credential_file:
            continue  # `STORAGE_KEY = 'todos'`: a key that names a thing
        if plausible_secret(value, quoted, credential_file):
            yield start, end
            seen_end = end
