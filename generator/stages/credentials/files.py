"""Files whose whole purpose is to hold credentials: in them, every value given to a secret-like name is a
secret however plain it looks, and any value that looks random is one too."""

from __future__ import annotations

import re

from .prefilter import Anchors

_CREDENTIAL_FILE = re.compile(
    r"(?ix)(?:^|[/\\\s'\"=@])(?:"
    r"\.env(?:\.[\w.-]+)?|[\w.-]*\.env|\.envrc|\.flaskenv|"
    r"[\w.-]+\.ini|\.?credentials(?:\.\w+)?|\.npmrc|\.pypirc|\.netrc|_netrc|\.pgpass|\.my\.cnf|\.git-credentials|"
    r"\.dockercfg|\.docker/config\.json|kubeconfig[\w.-]*|\.kube/config|"
    r"[\w.-]+\.(?:pem|key|p8|p12|pfx|ppk|asc|gpg|keystore|jks|tfvars|secret|secrets)|secring[\w.]*|id_(?:rsa|dsa|ecdsa|ed25519)|"
    r"secrets?\.(?:ya?ml|json|toml|env|properties)|[\w.-]*secrets?[\w.-]*\.(?:ya?ml|json|toml)|"
    r"\.htpasswd|wp-config\.php|appsettings(?:\.\w+)?\.json|application(?:-\w+)?\.(?:properties|ya?ml)|"
    r"\.s3cfg|\.boto|\.gem/credentials|\.cargo/credentials(?:\.toml)?|\.terraformrc|terraform\.rc|"
    r"service[-_]?account[\w.-]*\.json|gcloud/[\w./-]*\.json|\.vault-token|\.gh\.ya?ml|hosts\.yml|"
    r"settings\.xml|\.m2/settings\.xml|\.yarnrc(?:\.yml)?|\.bowerrc|\.composer/auth\.json|auth\.json"
    r")(?=$|[\s'\"`;|&)<>:]|\\)")


CREDENTIAL_FILE_MARKS = (
    ".env", "env.", ".flaskenv", ".ini", "credential", ".npmrc", ".pypirc", "netrc", ".pgpass", ".my.cnf",
    ".dockercfg", "docker/config", "kube", ".pem", ".key", ".p8", ".p12", ".pfx", ".ppk", ".asc", ".gpg", "keystore",
    ".jks", "tfvars", "secret", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "secring", "htpasswd", "wp-config",
    "appsettings", "application", ".s3cfg", ".boto", "terraform", "service", "gcloud", ".vault-token", ".gh.",
    "hosts.yml", "settings.xml", ".yarnrc", ".bowerrc", "auth.json",
)
"""A literal every credential file's name holds (in lower case): most paths and commands hold none, and are
passed over."""
_CREDENTIAL_FILE_MARKS = Anchors(CREDENTIAL_FILE_MARKS)


def names_credential_file(text: str) -> bool:
    """Whether a path or a command names a credential file (`.env.local`, `~/.aws/credentials`,
    `cat config/prod.ini`, `kubeconfig.yaml`)."""
    return len(text) < 4096 and _CREDENTIAL_FILE_MARKS.any_in(text.lower()) and _CREDENTIAL_FILE.search(text) is not None


_DOTENV_LINE = re.compile(r"(?m)^(?:[ \t]*\d+(?:→|\t)|[^\s:]+:\d+:|[+ ])?[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]{2,}=\S")


def looks_like_dotenv(text: str) -> bool:
    """Text with two or more `NAME=value` lines of environment variables: a `.env` file, however it got
    into the transcript (printed by `env`, pasted, written by a heredoc)."""
    if "=" not in text:
        return False
    found = _DOTENV_LINE.search(text)
    return found is not None and _DOTENV_LINE.search(text, found.end()) is not None
