"""A corpus of credentials known only by what the text means (issue 40), written into sessions the way real
sessions carry them: the output of a command that prints a secret, a secret word in another language, a sentence
that gives a value in either order, a table column headed by a secret word, a field a format's specification marks
private; and values no rule can know (the net's: they are listed for review, `audit`).

As in tests/planted_secrets.py, every value is drawn from a seeded generator (none is live), each recipe is shown in
every way a session carries text of its kind, and each way gets a value of its own, so a leak names the value and
the way. Keys are taken as there (`keys_of`); a seed phrase, whose words are common, is searched for by runs of
four of its words (`Planted.phrases`).

The look-alikes are code and text real sessions hold that name a secret without holding one.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from generator.stages.credentials.schemas import bip39_words
from helpers import CWD, assistant, chain, text, tool_result, tool_use, user, write_jsonl
from planted_secrets import ALNUM, B32, B64, URLSAFE, Draw, keys_of, numbered

PROJECT_DIR = "-home-ada-src-harbourline"


def _password(d: Draw) -> str:
    """A password as people make them: letters and digits, a symbol inside, a few more."""
    return d(ALNUM, 12) + d.rng.choice("!*#%") + d(ALNUM, 3)


def _token(d: Draw) -> str:
    return d(ALNUM, 32)


def _seed(words: int) -> Callable[[Draw], str]:
    def make(d: Draw) -> str:
        entropy = bytes(d.rng.getrandbits(8) for _ in range(words * 4 // 3))
        bits = "".join(format(byte, "08b") for byte in entropy)
        bits += format(hashlib.sha256(entropy).digest()[0], "08b")[:len(entropy) * 8 // 32]
        listed = list(bip39_words())
        phrase = " ".join(listed[int(bits[index:index + 11], 2)] for index in range(0, len(bits), 11))
        d.parts.append(phrase)
        return phrase
    return make


def _filled(shape: str, tail: str = "") -> Callable[[str], str]:
    """The text `shape` with the value where `{v}` is."""
    return lambda v: shape.replace("{v}", v) + tail


@dataclass(frozen=True)
class Recipe:
    value_id: str
    family: str  # command, language, sentence, table, format, net
    make: Callable[[Draw], str]
    content: Callable[[str], str] = lambda v: v
    """The text that holds the value: a file, a note, or (for a command) its output."""
    command: str = ""
    """For a command's output: the command that printed it."""
    path: str = "notes/scratch.txt"
    grep: str = ""
    """What grep is asked for to show the value's lines with what gives them away (`-B` lines before)."""


# -- 1. The command decides ---------------------------------------------------------------------------------

_COMMANDS = [
    ("macos-keychain", "security find-generic-password -s deploy -a ada -w", _password, "{v}"),
    ("macos-keychain-internet", "security find-internet-password -s git.example.com -w", _password, "{v}"),
    ("pass-show", "pass show harbourline/db", _password, "{v}\nlogin: app\nurl: db.harbourline.internal"),
    ("gopass-show", "gopass show -o harbourline/smtp", _password, "{v}"),
    ("op-read", "op read 'op://Harbourline/postgres/password'", _password, "{v}"),
    ("op-item-get", "op item get stripe --fields label=credential --reveal", _token, "{v}"),
    ("bw-get", "bw get password harbourline.example.com", _password, "{v}"),
    ("lpass-show", "lpass show --password Shared-Harbourline/db", _password, "{v}"),
    ("keepassxc-show", "keepassxc-cli show -s -a Password vault.kdbx harbourline/db", _password, "{v}"),
    ("secret-tool", "secret-tool lookup service harbourline user ada", _password, "{v}"),
    ("vault-kv-field", "vault kv get -field=password secret/harbourline/db", _password, "{v}"),
    ("vault-kv-table", "vault kv get secret/harbourline/api", _token,
     "====== Data ======\nKey         Value\n---         -----\napi_key     {v}\nowner       ada"),
    ("aws-secretsmanager", "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
     _password, "{v}"),
    ("aws-sts", "aws sts get-session-token --duration-seconds 3600", lambda d: "IQoJb3JpZ2luX2Vj" + d(B64, 120),
     ('{\n    "Credentials": {\n        "AccessKeyId": "ASIAY34FZKBOKMUTVV7A",\n        "SessionToken": "{v}",\n'
     '        "Expiration": "2026-03-02T21:00:00+00:00"\n    }\n}')),
    ("aws-ecr", "aws ecr get-login-password --region eu-west-1", lambda d: "eyJwYXlsb2FkIjoi" + d(B64, 90), "{v}"),
    ("gcloud-secrets", "gcloud secrets versions access latest --secret=db-password", _password, "{v}"),
    ("gcloud-access-token", "gcloud auth print-access-token", lambda d: "ya29." + d(URLSAFE, 60), "{v}"),
    ("gcloud-identity-token", "gcloud auth print-identity-token", _token, "{v}"),
    ("az-keyvault", "az keyvault secret show --vault-name harbourline --name db --query value -o tsv", _password,
     "{v}"),
    ("az-access-token", "az account get-access-token --query accessToken -o tsv", lambda d: d(URLSAFE, 80), "{v}"),
    ("doppler", "doppler secrets get SMTP_PASSWORD --plain", _password, "{v}"),
    ("sops", "sops -d --extract '[\"db\"][\"password\"]' secrets.enc.yaml", _password, "{v}"),
    ("gh-auth-token", "gh auth token", _token, "{v}"),
    ("heroku-auth-token", "heroku auth:token", _token, "{v}"),
    ("kubectl-secret", "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", _password, "{v}"),
    ("docker-secret-file", "cat /run/secrets/db_password", _password, "{v}"),
    ("k8s-service-account", "cat /var/run/secrets/kubernetes.io/serviceaccount/token", _token, "{v}"),
    ("echo-variable", "echo $DB_PASSWORD", _password, "{v}"),
    ("printenv", "printenv STRIPE_WEBHOOK_SECRET", _token, "{v}"),
    ("cat-password-file", "cat ~/.config/harbourline/smtp_password.txt", _password, "{v}"),
    ("jq-field", "jq -r .auth.token ~/.config/harbourline/session.json", _token, "{v}"),
    ("terraform-output", "terraform output -raw admin_password", _password, "{v}"),
    ("git-config", "git config --get harbourline.token", _token, "{v}"),
]
COMMAND_RECIPES = [Recipe(name, "command", make, _filled(shape), command)
                   for name, command, make, shape in _COMMANDS]


# -- 2. Every language ---------------------------------------------------------------------------------------

_LANGUAGES = [  # (language, the word as a name, the word in a sentence)
    ("es", "contraseña", "La contraseña de la base es {v}, no la compartas."),
    ("pt", "senha", "A senha do banco é {v} até sexta."),
    ("fr", "mot_de_passe", "Le mot de passe du serveur est {v} pour l'instant."),
    ("de", "passwort", "Das Passwort für die Datenbank lautet {v} bis Freitag."),
    ("it", "chiave_segreta", "La chiave segreta del servizio è {v} per ora."),
    ("nl", "wachtwoord", "Het wachtwoord van de database is {v} tot vrijdag."),
    ("pl", "hasło", "Hasło do bazy to {v}, nie udostępniaj go."),
    ("cs", "heslo", "Heslo k databázi je {v} do pátku."),
    ("ru", "пароль", "Пароль от базы — {v}, никому не показывай."),
    ("uk", "пароль", "Пароль до бази: {v} до п'ятниці."),
    ("tr", "şifre", "Veritabanı şifresi {v} olarak ayarlandı."),
    ("sv", "lösenord", "Lösenordet till databasen är {v} tills vidare."),
    ("id", "kata_sandi", "Kata sandi database adalah {v} sampai Jumat."),
    ("vi", "mật_khẩu", "Mật khẩu cơ sở dữ liệu là {v} đến thứ Sáu."),
    ("hi", "पासवर्ड", "डेटाबेस का पासवर्ड {v} है।"),
    ("ar", "كلمة_المرور", "كلمة المرور لقاعدة البيانات هي {v} حتى الجمعة."),
    ("fa", "رمز_عبور", "رمز عبور پایگاه داده {v} است."),
    ("he", "סיסמה", "הסיסמה למסד הנתונים היא {v} עד שישי."),
    ("zh-Hans", "数据库密码", "数据库的密码是 {v}，请不要外传。"),
    ("zh-Hant", "密碼", "資料庫密碼是 {v}，請勿外流。"),
    ("ja", "パスワード", "データベースのパスワードは {v} です。"),
    ("ko", "비밀번호", "데이터베이스 비밀번호는 {v} 입니다."),
]
LANGUAGE_RECIPES = [
    *(Recipe(f"{tag}-name", "language", _password, _filled(f"host: db.internal\n{name}: {{v}}\n"),
             path=f"config/{tag}.yaml", grep=name) for tag, name, _ in _LANGUAGES),
    *(Recipe(f"{tag}-json", "language", _token, _filled('{\n  "host": "db.internal",\n  "' + name + '": "{v}"\n}\n'),
             path=f"config/{tag}.json", grep=name) for tag, name, _ in _LANGUAGES),
    *(Recipe(f"{tag}-sentence", "language", _password, _filled(shape, "\n"),
             path=f"notes/{tag}.md") for tag, _, shape in _LANGUAGES),
]


# -- 3. Sentences, either order ------------------------------------------------------------------------------

_SENTENCES = [
    "use {v} as the admin password for now",
    "{v} is my staging token, rotate it Friday",
    "the staging credentials are ada / {v}",
    "pw for db1: {v}",
    "My GitHub token, {v}, expires on Friday.",
    "Password for the router is {v} - don't share it",
    "I set the secret to `{v}` in the dashboard",
    "{v} — that's the wifi password",
    "Log in as root with password {v} and restart nginx.",
    "The API key we got from the vendor: {v}",
    "Here's the passphrase for the backup disk: {v}",
    "Rotate the deploy token ({v}) after the release.",
    "New credentials for Grafana: admin / {v}",
    "token={v} was in the logs, I removed it",
    "{v} is the session secret in prod, keep it out of git",
    "Auth header value is {v} (the bearer token).",
]
SENTENCE_RECIPES = [Recipe(f"sentence-{number:02d}", "sentence", _password if number % 2 else _token,
                           _filled(shape, "\n"), path="notes/handover.md")
                    for number, shape in enumerate(_SENTENCES, start=1)]


# -- 4. Tables -----------------------------------------------------------------------------------------------

_TABLES = [
    ("markdown", "docs/accounts.md", "| user | password | host |\n|------|----------|------|\n| ada | {v} | db1 |\n"),
    ("markdown-token", "docs/tokens.md", "| Service | Token | Owner |\n|---|---|---|\n| stripe | {v} | ada |\n"),
    ("psql", "notes/psql.txt",
     " id | username | api_token\n----+----------+-----------\n  1 | ada      | {v}\n(1 row)\n"),
    ("mysql", "notes/mysql.txt",
     ("+----+------+------------------+\n| id | user | password         |\n+----+------+------------------+\n"
     "|  1 | ada  | {v} |\n+----+------+------------------+\n1 row in set (0.00 sec)\n")),
    ("sqlite", "notes/sqlite.txt", "id|user|secret\n1|ada|{v}\n"),
    ("csv", "data/users.csv", "id,user,password,created\n1,ada,{v},2026-03-01\n"),
    ("tsv", "data/keys.tsv", "name\tapi_key\towner\nbilling\t{v}\tada\n"),
    ("aligned", "notes/accounts.txt", "NAME      PASSWORD            ROLE\nada       {v}     admin\n"),
    ("kubectl-like", "notes/tokens.txt", "NAME           TOKEN                                 AGE\ndeploy-bot     {v}   12d\n"),
    ("markdown-spanish", "docs/cuentas.md", "| usuario | contraseña |\n|---|---|\n| ada | {v} |\n"),
    ("markdown-german", "docs/konten.md", "| Benutzer | Passwort |\n|---|---|\n| ada | {v} |\n"),
    ("csv-credentials", "data/creds.csv", "service,login,credential\nsmtp,ada,{v}\n"),
]
TABLE_RECIPES = [Recipe(f"table-{name}", "table", _password if "password" in shape or "contraseña" in shape
                        or "Passwort" in shape else _token, _filled(shape),
                        path=path) for name, path, shape in _TABLES]


# -- 5. Formats that say which value is secret ---------------------------------------------------------------

def _jwk(member: str, kty: str) -> Callable[[str], str]:
    return lambda v: json.dumps({"kty": kty, "kid": "harbourline-1", member: v, "use": "sig"}, indent=2) + "\n"


_FORMATS = [
    ("jwk-ec-d", "keys/signing.jwk", lambda d: d(URLSAFE, 43), _jwk("d", "EC")),
    ("jwk-okp-d", "keys/ed25519.jwk", lambda d: d(URLSAFE, 43), _jwk("d", "OKP")),
    ("jwk-rsa-p", "keys/rsa.jwk", lambda d: d(URLSAFE, 86), _jwk("p", "RSA")),
    ("jwk-rsa-qi", "keys/rsa2.jwk", lambda d: d(URLSAFE, 86), _jwk("qi", "RSA")),
    ("jwk-oct-k", "keys/hmac.jwk", lambda d: d(URLSAFE, 43), _jwk("k", "oct")),
    ("jwk-rsa-dp", "keys/rsa3.jwk", lambda d: d(URLSAFE, 86), _jwk("dp", "RSA")),
    ("jwk-rsa-dq", "keys/rsa4.jwk", lambda d: d(URLSAFE, 86), _jwk("dq", "RSA")),
    ("terraform-output", "notes/tf-output.json", _password, lambda v: json.dumps(
        {"admin_login": {"sensitive": True, "type": "string", "value": v}}, indent=2) + "\n"),
    ("terraform-state", "infra/terraform.tfstate", _password, lambda v: json.dumps(
        {"version": 4, "resources": [{"type": "random_password", "name": "db", "instances": [
            {"attributes": {"id": "none", "length": 16, "result": v},
             "sensitive_attributes": [[{"type": "get_attr", "value": "result"}]]}]}]}, indent=2) + "\n"),
    ("terraform-variable", "infra/variables.tf", _password,
     lambda v: f'variable "admin_login" {{\n  type      = string\n  sensitive = true\n  default   = "{v}"\n}}\n'),
    ("pulumi-secret", "infra/stack.json", _password, lambda v: json.dumps(
        {"outputs": {"dbLogin": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                                 "plaintext": json.dumps(v)}}}, indent=2) + "\n"),
    ("totp-uri", "notes/2fa.txt", lambda d: d(B32, 32),
     lambda v: f"otpauth://totp/Harbourline:ada@example.com?secret={v}&issuer=Harbourline\n"),
    ("hotp-uri", "notes/hotp.txt", lambda d: d(B32, 32),
     lambda v: f"otpauth://hotp/Harbourline?issuer=Harbourline&counter=4&secret={v}\n"),
    ("keytool-storepass", "scripts/keystore.sh", _token,
     lambda v: f"#!/bin/sh\nkeytool -genkeypair -alias app -keystore app.jks -storepass {v} -dname CN=app\n"),
    ("keytool-keypass", "scripts/keystore2.sh", _password,
     lambda v: f"#!/bin/sh\nkeytool -importkeystore -srckeystore a.p12 -srcstoretype PKCS12 -destkeypass '{v}'\n"),
    ("openssl-passout", "scripts/p12.sh", _token,
     lambda v: f"#!/bin/sh\nopenssl pkcs12 -export -in cert.pem -inkey key.pem -out app.p12 -passout pass:{v}\n"),
    ("gcp-private-key-id", "keys/service-account.json", lambda d: d("0123456789abcdef", 40),
     lambda v: json.dumps({"type": "service_account", "project_id": "harbourline", "private_key_id": v,
                           "client_email": "ci@harbourline.iam.gserviceaccount.com"}, indent=2) + "\n"),
    ("wireguard-private", "vpn/wg0.conf", lambda d: d(B64, 43) + "=",
     lambda v: f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {v}\n"),
    ("wireguard-preshared", "vpn/wg1.conf", lambda d: d(B64, 43) + "=",
     lambda v: f"[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nPresharedKey = {v}\n"),
    ("age-secret-key", "keys/age.txt", lambda d: "AGE-SECRET-KEY-1" + d("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
     lambda v: f"# created: 2026-03-01T10:00:00Z\n# public key: age1harbourline\n{v}\n"),
    ("npmrc-auth-token", "config/npmrc.txt", _token, lambda v: f"//npm.harbourline.dev/:_authToken={v}\n"),
    ("seed-12", "notes/wallet.txt", _seed(12), lambda v: f"wallet recovery phrase:\n{v}\n"),
    ("seed-24", "notes/wallet24.txt", _seed(24), lambda v: f"mnemonic: {v}\n"),
    ("seed-15", "notes/wallet15.txt", _seed(15), lambda v: f"Seed phrase for the cold wallet\n\n{v}\n"),
    ("seed-18", "notes/wallet18.txt", _seed(18), lambda v: f"BIP39 words:\n{v}\n"),
    ("otpauth-migration", "notes/authenticator-export.txt", lambda d: d(URLSAFE, 60),
     lambda v: f"otpauth-migration://offline?data={v}\n"),
    ("seed-json", "config/wallet.json", _seed(12),
     lambda v: json.dumps({"mnemonic": v, "path": "m/44'/60'/0'/0/0"}, indent=2) + "\n"),
]
FORMAT_RECIPES = [Recipe(name, "format", make, content, path=path) for name, path, make, content in _FORMATS]


# -- 6. The net: values no rule knows, listed for review -----------------------------------------------------

_NET = [
    "the new one is {v}, it works",
    "Try {v} on the staging box.",
    "ok {v}",
    "Copied from the vendor portal: {v}",
    "value {v} goes in the second field",
    "{v}",
    "Here: {v}",
    "set it to {v} and restart",
    "paste {v} in the form",
    "it printed {v} and then exited",
]
NET_RECIPES = [Recipe(f"net-{number:02d}", "net", (lambda d: d(ALNUM, 16)) if number % 2 else _password,
                      _filled(shape, "\n"), path="notes/misc.txt")
               for number, shape in enumerate(_NET, start=1)]

RECIPES: list[Recipe] = [*COMMAND_RECIPES, *LANGUAGE_RECIPES, *SENTENCE_RECIPES, *TABLE_RECIPES, *FORMAT_RECIPES]
"""What must be redacted in every way; the net's are listed by `audit` instead."""


# -- The ways --------------------------------------------------------------------------------------------------

@dataclass
class Shown:
    recipe: Recipe
    value: str
    keys: tuple[str, ...]
    content: str
    phrases: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"{CWD}/{self.recipe.path}"

    @property
    def lines(self) -> list[str]:
        return self.content.splitlines()


@dataclass(frozen=True)
class Planted:
    value_id: str
    family: str
    way: str
    value: str
    keys: tuple[str, ...]
    phrases: tuple[str, ...] = field(default=())
    """For a seed phrase: runs of four of its words, which no other text holds."""


def show(recipe: Recipe, way: str) -> Shown:
    draw = Draw(f"meaning|{recipe.value_id}|{way}")
    value = recipe.make(draw)
    content = recipe.content(value)
    if " " in value and value.replace(" ", "").isalpha():  # a seed phrase
        words = value.split()
        phrases = tuple(" ".join(words[index:index + 4]) for index in range(0, len(words) - 3, 2))
        return Shown(recipe, value, (), content, phrases)
    return Shown(recipe, value, keys_of(draw.parts), content)


def _bash(command: str, stdout: str, description: str = "Run it", **structured: object) -> list[dict]:
    call = tool_use("Bash", {"command": command, "description": description})
    result = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False, **structured}
    return [assistant(call), tool_result(call["id"], stdout, structured=result)]


def _read(s: Shown, separator: str) -> list[dict]:
    call = tool_use("Read", {"file_path": s.path})
    structured = {"type": "text", "file": {"filePath": s.path, "content": s.content, "numLines": len(s.lines),
                                           "startLine": 1, "totalLines": len(s.lines)}}
    return [assistant(call), tool_result(call["id"], numbered(s.lines, separator), structured=structured)]


def _terminal(s: Shown) -> str:
    return f"$ {s.recipe.command}\n{s.content}"


# Ways of a command's output.
def way_bash(s: Shown) -> list[dict]:
    return _bash(s.recipe.command, s.content + "\n")


def way_background(s: Shown) -> list[dict]:
    call = tool_use("Bash", {"command": s.recipe.command, "description": "Run it", "run_in_background": True})
    started = tool_result(call["id"], "Command running in background with ID: bash_3",
                          structured={"stdout": "", "stderr": "", "interrupted": False, "isImage": False,
                                      "backgroundTaskId": "bash_3"})
    asked = tool_use("BashOutput", {"bash_id": "bash_3"})
    answered = tool_result(asked["id"], f"<status>completed</status>\n\n<stdout>\n{s.content}\n</stdout>",
                           structured={"shellId": "bash_3", "command": s.recipe.command, "status": "completed",
                                       "exitCode": 0, "stdout": s.content, "stderr": ""})
    return [assistant(call), started, assistant(asked), answered]


def way_bash_mode(s: Shown) -> list[dict]:
    return [user(f"<bash-input>{s.recipe.command}</bash-input>"),
            user(f"<bash-stdout>{s.content}</bash-stdout><bash-stderr></bash-stderr>")]


def way_prompt_terminal(s: Shown) -> list[dict]:
    return [user(f"This is what I get, is it the right one?\n\n{_terminal(s)}\n")]


def way_reply_terminal(s: Shown) -> list[dict]:
    return [assistant(text(f"The command printed it:\n\n```\n{_terminal(s)}\n```\n\nThat is the current value."))]


def way_read_terminal_log(s: Shown) -> list[dict]:
    log = Shown(s.recipe, s.value, s.keys, _terminal(s) + "\n$ exit\n")
    call = tool_use("Read", {"file_path": f"{CWD}/notes/terminal.log"})
    return [assistant(call), tool_result(call["id"], numbered(log.lines, "\u2192"))]


COMMAND_WAYS: dict[str, Callable[[Shown], list[dict]]] = {
    "bash": way_bash, "background": way_background, "bash-mode": way_bash_mode, "prompt-terminal": way_prompt_terminal,
    "reply-terminal": way_reply_terminal, "read-terminal-log": way_read_terminal_log,
}


# Ways of a file or a note.
def way_prompt(s: Shown) -> list[dict]:
    return [user(f"From {s.recipe.path}:\n\n{s.content}\nWhy does the service refuse it?")]


def way_reply(s: Shown) -> list[dict]:
    return [assistant(text(f"`{s.recipe.path}` holds:\n\n```\n{s.content}```\n\nIt has to be rotated."))]


def way_read_tab(s: Shown) -> list[dict]:
    return _read(s, "\t")


def way_read_arrow(s: Shown) -> list[dict]:
    return _read(s, "\u2192")


def way_cat(s: Shown) -> list[dict]:
    return _bash(f"cat {shlex.quote(s.recipe.path)}", s.content, "Show the file")


def way_grep(s: Shown) -> list[dict]:
    """grep -n with the lines before the value's (a table's header, the line that names it)."""
    lines = s.lines
    last = next(index for index, line in enumerate(lines) if any(key in line for key in s.keys)
                or any(phrase.split()[0] in line for phrase in s.phrases))
    shown = "\n".join(f"{number + 1}{':' if number == last else '-'}{lines[number]}" for number in range(0, last + 1))
    return _bash(f"grep -n -B{last} -- {shlex.quote(lines[last][:6] or 'x')} {shlex.quote(s.recipe.path)}", shown,
                 "Find the line")


def way_write(s: Shown) -> list[dict]:
    call = tool_use("Write", {"file_path": s.path, "content": s.content})
    structured = {"type": "create", "filePath": s.path, "content": s.content, "structuredPatch": [], "originalFile": None}
    return [assistant(call), tool_result(call["id"], f"File created successfully at: {s.path}", structured=structured)]


def way_git_diff(s: Shown) -> list[dict]:
    added = "\n".join(f"+{line}" for line in s.lines)
    diff = (f"diff --git a/{s.recipe.path} b/{s.recipe.path}\nnew file mode 100644\n--- /dev/null\n"
            f"+++ b/{s.recipe.path}\n@@ -0,0 +1,{len(s.lines)} @@\n{added}\n")
    return _bash("git diff --cached", diff, "Show the staged change")


def way_tool_input(s: Shown) -> list[dict]:
    call = tool_use("mcp__notes__save", {"path": s.recipe.path, "content": s.content})
    return [assistant(call), tool_result(call["id"], [text("Saved.")])]


FILE_WAYS: dict[str, Callable[[Shown], list[dict]]] = {
    "prompt": way_prompt, "reply": way_reply, "read-tab": way_read_tab, "read-arrow": way_read_arrow, "cat": way_cat,
    "grep": way_grep, "write": way_write, "git-diff": way_git_diff, "tool-input": way_tool_input,
}


def ways_of(recipe: Recipe) -> dict[str, Callable[[Shown], list[dict]]]:
    return COMMAND_WAYS if recipe.family == "command" else FILE_WAYS


# -- Look-alikes: real code and text that name a secret without holding one -----------------------------------

LOOK_ALIKES: dict[str, str] = {
    "environ": 'db_password = os.environ["DB_PASSWORD"]',
    "environ-get": "token = os.environ.get('GITHUB_TOKEN', '')",
    "getpass": 'password = getpass.getpass("Password: ")',
    "type-annotation": "def login(user: str, password: str, otp: Optional[str] = None) -> Session:",
    "type-field": "    api_token: SecretStr",
    "typescript-interface": "interface Credentials { username: string; password: string; token?: string }",
    "form-field": 'password = request.form["password"]',
    "html-input": '<input type="password" name="password" placeholder="Password" autocomplete="current-password">',
    "hashing": "hashed = bcrypt.hashpw(password.encode('utf-8'), bcrypt.gensalt(rounds=12))",
    "hash-compare": "if not hmac.compare_digest(token_hash, expected_hash): raise Unauthorized()",
    "placeholder-env": "DB_PASSWORD=<your-password-here>",
    "placeholder-changeme": "contraseña: changeme",
    "placeholder-stars": "| ada | ******** | db1 |",
    "path": "SECRET_FILE=/run/secrets/db_password",
    "path-windows": r"C:\Users\ada\AppData\Roaming\harbourline\token.json",
    "test-name-go": "    --- PASS: TestParseToken/expired_password (0.00s)",
    "test-name-go-fail": "--- FAIL: TestSecretRotation/v2_keys (0.12s)",
    "test-name-pytest": "tests/test_auth.py::test_password_reset_token_expires PASSED                 [ 42%]",
    "test-name-jest": "  ✓ rejects an expired token (3 ms)",
    "test-name-cargo": "test auth::tests::password_hash_roundtrip ... ok",
    "test-name-rspec": "User#authenticate with a wrong password returns false",
    "cli-help": "  --password PASSWORD   the password to log in with (or set DB_PASSWORD)",
    "config-doc": "| `api_token` | string | The token sent as `Authorization: Bearer <token>` |",
    "log-line": "2026-03-02T09:14:03Z INFO auth: token refreshed for user=ada expires_in=3600s",
    "date-under-token-name": "claudeCodeFirstTokenDate: 2026-03-02T09:00:00.000Z",
    "auth-prose": "Auth: src/lib/auth.ts checks the session cookie",
    "schema-json": '{"type": "object", "properties": {"password": {"type": "string", "minLength": 12}}}',
    "terraform-nonsensitive": '{"region": {"sensitive": false, "type": "string", "value": "eu-west-1"}}',
    "jwk-public": '{"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}',
    "words-beside-seed": "seed the database with the sample data before the demo",
    "commit-sha": "Fixed the password reset in 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "model-name": "The token count for claude-opus-4-5-20251101 is 3k.",
    "version": "pip install cryptography==44.0.1 passlib==1.7.4",
    "echo-home": "$ echo $HOME\n/home/ada",
    "keychain-attributes": '$ security find-generic-password -s deploy\nkeychain: "/Users/ada/Library/Keychains/login.keychain-db"',
    "docs-table": "| Secret | Used by |\n|---|---|\n| DB_PASSWORD | api |\n| STRIPE_KEY | billing |",
    "foreign-prose": "Забыли пароль? Нажмите «Сбросить» на странице входа.",
}

LOOK_ALIKE_WAYS = ["prompt", "read-arrow", "cat", "grep", "write", "tool-input"]


def _look_alike_entries(way: str) -> list[dict]:
    body = "\n".join(LOOK_ALIKES.values())
    lines = body.splitlines()
    path = f"{CWD}/notes/look-alikes.txt"
    if way == "prompt":
        return [user(f"These lines are fine to publish, right?\n\n{body}\n")]
    if way == "read-arrow":
        call = tool_use("Read", {"file_path": path})
        return [assistant(call), tool_result(call["id"], numbered(lines, "\u2192"))]
    if way == "cat":
        return _bash("cat notes/look-alikes.txt", body, "Show the notes")
    if way == "grep":
        return _bash("grep -n -- . notes/look-alikes.txt",
                     "\n".join(f"{n}:{line}" for n, line in enumerate(lines, start=1)), "Number the lines")
    if way == "write":
        call = tool_use("Write", {"file_path": path, "content": body})
        return [assistant(call), tool_result(call["id"], f"File created successfully at: {path}")]
    call = tool_use("mcp__notes__save", {"name": "look-alikes", "lines": lines})
    return [assistant(call), tool_result(call["id"], [text("Saved.")])]


# -- Writing the sessions --------------------------------------------------------------------------------------

def session_id(number: int) -> str:
    return f"{number:08x}-4ea7-4000-8000-{number:012x}"


@dataclass
class Corpus:
    project: Path
    planted: list[Planted]
    net: list[Planted]
    session_files: list[Path]
    look_alike_sessions: dict[str, str]


def write_corpus(root: Path) -> Corpus:
    """Every recipe in every way of its kind, one session per family; the net's values; the look-alikes."""
    project = root / PROJECT_DIR
    planted: list[Planted] = []
    net: list[Planted] = []
    files: list[Path] = []
    number = 0
    for family in ("command", "language", "sentence", "table", "format", "net"):
        number += 1
        sid = session_id(number)
        entries: list[dict] = [user(f"Let's look at the {family} notes of harbourline.", sessionId=sid)]
        for recipe in (*RECIPES, *NET_RECIPES):
            if recipe.family != family:
                continue
            ways = {"prompt": way_prompt, "reply": way_reply, "read-arrow": way_read_arrow} if family == "net" \
                else ways_of(recipe)
            for way, write in ways.items():
                shown = show(recipe, way)
                value = Planted(recipe.value_id, recipe.family, way, shown.value, shown.keys, shown.phrases)
                (net if family == "net" else planted).append(value)
                for entry in write(shown):
                    entry["sessionId"] = sid
                    entries.append(entry)
        files.append(write_jsonl(project / f"{sid}.jsonl", chain(*entries)))
    look_alike_sessions = {}
    for way in LOOK_ALIKE_WAYS:
        number += 1
        sid = session_id(number)
        entries = [user("Keep these as they are.", sessionId=sid), *_look_alike_entries(way)]
        for entry in entries:
            entry["sessionId"] = sid
        files.append(write_jsonl(project / f"{sid}.jsonl", chain(*entries)))
        look_alike_sessions[way] = sid
    return Corpus(project, planted, net, files, look_alike_sessions)
