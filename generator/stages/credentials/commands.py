"""Commands whose output is a secret: the command decides, not the output's shape.

A password manager asked for a password prints it bare (`security find-generic-password -w`, `pass show`),
a cloud CLI asked for a token prints the token, `echo $DB_PASSWORD` prints the password: nothing in the output
says what it is. So the command is read, by its words: a program known to print a secret (with the subcommand
and the flag that make it print one), or a program that prints what it is given (`echo`, `printenv`, `cat`,
`jq`, `terraform output`, `git config --get`) given a variable, a file or a field that names a secret
(`names.is_secret_name`), or a file of Docker's and Kubernetes' secret mounts (`/run/secrets/*`,
`/var/run/secrets/…/token`).

The programs and their subcommands are from each tool's own reference: macOS `security(1)`; pass(1);
1Password CLI `op read`, `op item get`; Bitwarden CLI `bw get`; LastPass CLI `lpass show`; `keepassxc-cli
show`; libsecret's `secret-tool lookup`; HashiCorp Vault `vault kv get`, `vault read`, `vault token create`,
`vault print token`; AWS CLI `secretsmanager get-secret-value`, `sts get-session-token`, `sts assume-role`,
`ecr get-login-password`, `ssm get-parameter --with-decryption`, `codeartifact get-authorization-token`,
`iam create-access-key`; Google Cloud `gcloud secrets versions access`, `gcloud auth print-access-token`,
`print-identity-token`; Azure CLI `az keyvault secret show`, `az account get-access-token`, `az storage account
keys list`, `az acr login --expose-token`; Doppler `doppler secrets get`/`download`; SOPS `sops -d`/`--decrypt`;
GitHub CLI `gh auth token`, `gh auth status --show-token`; Heroku `heroku auth:token`; kubectl `get secret`,
`create token`, `view-secret`.

What the output holds is then found by `printed_secrets`: the first line of a program that prints the secret
alone, every value in it that looks like a credential, and the value on a row whose name is a secret's.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator

from .names import is_secret_name
from .net import machine_made, shape_known
from .prefilter import Anchors

# (program, the words after it that make it print a secret (each a tuple: all must occur), prints it alone)
_PROGRAMS: tuple[tuple[str, tuple[tuple[str, ...], ...], bool], ...] = (
    ("security", (("find-generic-password", "-w"), ("find-internet-password", "-w"), ("find-generic-password", "-g"),
                  ("find-internet-password", "-g"), ("dump-keychain", "-d")), True),
    ("pass", (("show",), ("otp",)), True),
    ("gopass", (("show",), ("otp",)), True),
    ("op", (("read",), ("item", "get"), ("document", "get"), ("inject",)), True),
    ("bw", (("get",), ("unlock", "--raw")), True),
    ("lpass", (("show",),), True),
    ("keepassxc-cli", (("show",),), True),
    ("secret-tool", (("lookup",),), True),
    ("vault", (("kv", "get"), ("read",), ("token", "create"), ("print", "token"), ("login",)), False),
    ("aws", (("secretsmanager", "get-secret-value"), ("sts", "get-session-token"), ("sts", "assume-role"),
             ("ecr", "get-login-password"), ("ssm", "get-parameter"), ("codeartifact", "get-authorization-token"),
             ("iam", "create-access-key"), ("sts", "get-federation-token")), False),
    ("gcloud", (("secrets", "versions", "access"), ("print-access-token",), ("print-identity-token",)), True),
    ("az", (("keyvault", "secret", "show"), ("account", "get-access-token"), ("storage", "account", "keys"),
            ("acr", "--expose-token"), ("create-for-rbac",), ("cosmosdb", "keys")), False),
    ("doppler", (("secrets", "get"), ("secrets", "download"), ("configure", "get")), False),
    ("sops", (("-d",), ("--decrypt",), ("decrypt",)), False),
    ("gh", (("auth", "token"), ("auth", "status", "--show-token"), ("auth", "status", "-t")), True),
    ("heroku", (("auth:token",),), True),
    ("kubectl", (("get", "secret"), ("get", "secrets"), ("create", "token"), ("view-secret",)), False),
    ("oc", (("get", "secret"), ("get", "secrets"), ("whoami", "-t"), ("create", "token")), False),
)
_BY_PROGRAM = {program: (wanted, alone) for program, wanted, alone in _PROGRAMS}

_PRINTERS = frozenset({"echo", "printf", "printenv", "cat", "head", "tail", "less", "more", "bat", "type", "jq", "yq",
                       "get-content", "gc", "write-output", "write-host", "base64", "xxd", "strings", "od"})
"""Programs that print what they are given: a secret when it names one (`echo $DB_PASSWORD`, `jq -r .token`)."""
_GETTERS: dict[str, tuple[str, ...]] = {
    "terraform": ("output",), "tofu": ("output",), "pulumi": ("output",), "heroku": ("config:get",),
    "git": ("config",), "npm": ("config", "get"), "pnpm": ("config", "get"), "yarn": ("config", "get"),
    "aws": ("configure", "get"), "gcloud": ("config", "get"), "railway": ("variables",), "defaults": ("read",),
    "dotnet": ("user-secrets", "list"), "fly": ("secrets",), "flyctl": ("secrets",), "vercel": ("env",),
    "kubectl": ("get",), "docker": ("inspect",),
}
"""Programs that print a setting they are asked for by name (`terraform output -raw db_password`, `git config
--get github.token`): a secret when the name is a secret's."""
_WRAPPERS = frozenset({"sudo", "env", "command", "exec", "time", "nohup", "doas", "npx", "pnpx", "bunx", "xargs",
                       "watch", "timeout", "builtin"})
_SECRET_MOUNTS = ("/run/secrets/", "/var/run/secrets/", "/etc/secrets/")
_SEGMENT_END = re.compile(r"\|\|?|&&|;|\n|\$\(|`")
_WORD = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'|\S+")
_VARIABLE = re.compile(r"\$\{?(?P<name>[A-Za-z_][A-Za-z0-9_]*)")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_FIELD_PATH = re.compile(r"[A-Za-z0-9_\-]+")
_CODE_FILE = re.compile(r"(?i)\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|rb|java|kt|c|h|cc|cpp|cs|php|swift|ex|exs|md|rst|"
                        r"html|css|scss|vue|svelte|sql|sh|bash|zsh|lock|log|snap|test|spec|yml|yaml|json|toml|xml)$")

ANCHORS = (*(program for program, _, _ in _PROGRAMS), *_SECRET_MOUNTS, "printenv", "$", "output", "config", "jq ",
           "yq ", "secret")
"""Literals one of which every command that prints a secret holds: a command without any is not read further."""
_ANCHORS = Anchors(ANCHORS, caseless=True)


def _segments(command: str) -> Iterator[list[str]]:
    """Each simple command of a command line, as its words (quotes kept), past `sudo`, `env X=1` and the like."""
    for part in _SEGMENT_END.split(command):
        words = _WORD.findall(part)
        while words and (words[0] in _WRAPPERS or _ASSIGNMENT.match(words[0]) or words[0].startswith("-")):
            taken = 2 if words[0] in ("-u", "-g", "-n", "-s") else 1  # `sudo -u root`, `timeout -s KILL`
            words = words[taken:]
        if words:
            yield words


def _program(word: str) -> str:
    return word.strip("\"'").rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower().removesuffix(".exe")


def _unquoted(word: str) -> str:
    return word.strip("\"'")


def _names_secret(word: str) -> bool:
    """An argument that names a secret: a secret-named variable (`$DB_PASSWORD`), a secret mount's file, a file
    named as a secret (`db_password.txt`, `.secrets/api_token`; code is not), a field (`.auth.token`), a name."""
    word = _unquoted(word)
    if any(mount in word for mount in _SECRET_MOUNTS):
        return True
    if any(is_secret_name(found.group("name")) for found in _VARIABLE.finditer(word)):
        return True
    if word.startswith("-"):
        word = word.split("=", 1)[1] if "=" in word else ""
    if not word or _CODE_FILE.search(word) or "$" in word:
        return False
    last = re.split(r"[/\\]", word.rstrip("/"))[-1]
    pieces = _FIELD_PATH.findall(last) or [last]
    return any(is_secret_name(piece) for piece in pieces[-2:])


@functools.lru_cache(maxsize=4096)
def printed_secret(command: str) -> tuple[bool, bool]:
    """Whether `command` prints a secret, and whether it prints it alone (its output's first line is the secret,
    whatever it looks like). Commands repeat: the answer is kept."""
    if not command or not _ANCHORS.any_in(command):
        return False, False
    prints, alone = False, False
    for words in _segments(command):
        program = _program(words[0])
        arguments = [_unquoted(word) for word in words[1:]]
        lowered = [argument.lower() for argument in arguments]
        known = _BY_PROGRAM.get(program)
        if known is not None:
            wanted, by_itself = known
            if any(all(word in lowered or any(argument.startswith(word + "=") or
                                              word.startswith("-") and argument.startswith(word)
                                              for argument in lowered) for word in words_wanted)
                   for words_wanted in wanted):
                prints = True
                alone = alone or by_itself or any(argument.startswith(("-field", "--field", "-raw", "--raw",
                                                                       "jsonpath", "-ojsonpath", "--query", "--plain",
                                                                       "get-login-password"))
                                                  for argument in lowered)
                continue
        if program in _PRINTERS and any(_names_secret(word) for word in words[1:]):
            prints, alone = True, alone or program in ("echo", "printf", "printenv", "cat", "head", "type",
                                                       "get-content", "gc", "write-output")
            continue
        getter = _GETTERS.get(program)
        if getter is not None and all(word in lowered for word in getter) and any(
                _names_secret(argument) for argument in arguments if argument.lower() not in getter):
            prints = True
            alone = alone or any(flag in lowered for flag in ("-raw", "--raw", "--get", "get", "-json", "--json"))
        elif program == "printenv" and len(words) == 1:
            continue  # every variable: its secret-named ones are found by their names
        elif any(mount in argument for argument in arguments for mount in _SECRET_MOUNTS) and program in _PRINTERS:
            prints, alone = True, True
    return prints, alone


_TOKEN = re.compile(r"[^\s\"'`,;(){}\[\]<>|\\]+")
_ROW = re.compile(r"(?m)^[ \t]*(?P<name>[A-Za-z_][\w.\-]*)(?:[ \t]{2,}|\t|[ \t]*[:=][ \t]*)(?P<value>\S[^\n]*?)[ \t]*$")
_FIRST_LINE = re.compile(r"(?m)^(?![ \t]*</?[a-z_\-]+>(?:[^<\n]*</[a-z_\-]+>)?[ \t]*$)[ \t]*\S[^\n]*")
"""The first line of an output that is not a tag a tool wraps it in (`<stdout>`, `<status>completed</status>`)."""
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{20,}={0,2}")
_DATE_OR_NUMBER = re.compile(r"[\d\-:.TZ+ ]+|n/a|none|null|true|false|\*+|<[^>]*>", re.IGNORECASE)


def credential_looking(value: str) -> bool:
    """A value in a secret's output that is one: machine-made or password-like (`net.machine_made`), or six
    characters or more with a letter and a digit or a symbol in it, or long and of both cases; not a shape that
    says it is something else (a date, a path, a URL, a version, an ARN)."""
    value = value.strip(".:")
    if len(value) < 6 or value.startswith(("[REDACTED", "arn:")):
        return False
    if _BASE64_RUN.fullmatch(value) and machine_made(value.replace("/", "").replace("+", "")):
        return True  # base64 with slashes in it is no path
    if shape_known(value):
        return False
    if machine_made(value):
        return True
    has_letter = any(character.isalpha() for character in value)
    has_digit = any(character.isdigit() for character in value)
    has_symbol = any(not character.isalnum() and character not in "-_." for character in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return has_letter and (has_digit or has_symbol or mixed_case and len(value) >= 12)


def printed_secrets(output: str, alone: bool) -> list[tuple[int, int]]:
    """The spans of the secrets in the output of a command that prints one (`printed_secret`): its first line
    when the command prints the secret alone, the value of each row named as a secret (`password   s3cr3t`, a
    Vault table), and every credential-looking value."""
    spans: list[tuple[int, int]] = []
    if alone:
        first = _FIRST_LINE.search(output)
        if first is not None:
            line = first.group().rstrip()
            if len(line) >= 4 and not line.startswith("[REDACTED") and not _looks_like_a_message(line):
                spans.append((first.start(), first.start() + len(line)))
    for row in _ROW.finditer(output):
        value = row.group("value")
        if is_secret_name(row.group("name")) and not _DATE_OR_NUMBER.fullmatch(value) and not value.startswith(
                "[REDACTED") and len(value) >= 4:
            spans.append(row.span("value"))
    for found in _TOKEN.finditer(output):
        value = found.group()
        if ":" in value and not value.startswith(("http", "arn:")):
            start = found.start() + value.rindex(":") + 1
            value = value[value.rindex(":") + 1:]
        else:
            start = found.start()
        if credential_looking(value):
            trimmed = value.rstrip(".:")
            spans.append((start, start + len(trimmed)))
    return _merged(spans)


def _looks_like_a_message(line: str) -> bool:
    """An error or a notice where the secret would have been (`Error: …`, `security: SecKeychainSearch…: The
    specified item could not be found`)."""
    lowered = line.lower()
    return line.count(" ") >= 4 and any(word in lowered for word in ("error", "not found", "could not", "no such",
                                                                     "denied", "usage", "failed", "unknown",
                                                                     "invalid", "expired", "warning"))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


TRANSCRIPT_ANCHORS = ("find-generic-password", "find-internet-password", "pass show", "gopass show", "op read",
                      "op item get", "bw get", "lpass show", "keepassxc-cli", "secret-tool lookup", "vault kv get",
                      "vault read", "get-secret-value", "get-session-token", "get-login-password", "versions access",
                      "print-access-token", "print-identity-token", "keyvault secret show", "get-access-token",
                      "doppler secrets", "sops -d", "sops --decrypt", "gh auth token", "auth:token", "get secret",
                      "/run/secrets/", "printenv ", "echo $", "echo \"$", "echo '$", "terraform output", "jq -r")
"""Literals one of which a command that prints a secret holds, where a text shows a terminal (a prompt pasted,
a reply quoting a session): where none is seen, no line is read as a command."""
_PROMPT_LINE = re.compile(r"(?m)^(?P<lead>[ \t]*(?:\d+(?:→|\t)|>[ \t]?)?[ \t]*(?:\([\w.\-]+\)[ \t]*)?"
                          r"(?:[\w.\-]+@[\w.\-]+(?::[^\s$#%>]*)?[ \t]*)?(?:[$%#❯»]|PS [^>\n]*>)[ \t]+)"
                          r"(?P<command>[^\n]+)$")
"""A command at a shell's prompt (`$ `, `% `, `# `, `❯ `, `PS C:\\> `, `ada@host:~$ `), as a terminal shows it,
after what a tool put before the line (Read's number, a quote's `>`)."""
_LONGEST_COMMAND = 2048
"""A line longer than this is no command at a prompt."""
_LONGEST_OUTPUT = 200
"""Lines of a command's output read after its prompt line, at most."""


def transcript_outputs(text: str, starts: list[int]) -> list[tuple[int, int]]:
    """In a text that shows a terminal: the secrets in the output of each command at a prompt that prints one
    (`starts`: where the prefilter saw a command's anchor or a secret word; only their lines are read). The output
    is the lines after the command, up to the next prompt, a blank line or a code fence's end."""
    spans: list[tuple[int, int]] = []
    done_until = -1
    for start in starts:
        if start < done_until:
            continue
        line_start = text.rfind("\n", max(0, start - _LONGEST_COMMAND), start) + 1
        line_end = text.find("\n", start, start + _LONGEST_COMMAND)
        if line_end < 0 or line_start == 0 and start > _LONGEST_COMMAND:
            continue  # the last line (no output follows it), or a line too long to be a command's
        done_until = line_end
        prompt = _PROMPT_LINE.match(text, line_start, line_end)
        if prompt is None:
            continue
        prints, alone = printed_secret(prompt.group("command"))
        if not prints:
            continue
        output_start = position = line_end + 1
        for _ in range(_LONGEST_OUTPUT):
            next_end = text.find("\n", position)
            next_end = len(text) if next_end < 0 else next_end
            line = text[position:next_end]
            if not line.strip() or line.lstrip().startswith("```") or _PROMPT_LINE.match(line):
                break
            position = next_end + 1
            if next_end == len(text):
                break
        output = text[output_start:max(output_start, position - 1)]
        if not output:
            continue
        if prompt.group("lead").strip():  # a numbered or quoted terminal: each line's lead is not output
            output = _LEAD.sub(lambda found: " " * len(found.group()), output)
        spans += [(output_start + begin, output_start + finish) for begin, finish in printed_secrets(output, alone)]
        done_until = position
    return spans


_LEAD = re.compile(r"(?m)^[ \t]*\d+(?:→|\t)|^>[ \t]?")
