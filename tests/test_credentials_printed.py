"""The command decides (issue 40, 1): the output of a command that prints a secret is a secret, whatever it looks
like, in every way Claude Code shows a command with its output (a tool call and its result, a background task's
output asked for later, bash mode's `<bash-input>`/`<bash-stdout>`). Commands that print nothing secret, and
variables that name none, keep their output. The secrets are invented."""

from __future__ import annotations

import json

import pytest

from generator.core.model import Entry
from generator.stages.credentials.commands import printed_secret
from generator.stages.redact import Redactor

from helpers import assistant, chain, tool_result, tool_use, user

PASSWORD = "Vq8!rT2mzK4wpL"
TOKEN = "ya29.a0AfB7Hq3mZ9xK2vL8pQ4nR6tW1yU5iO0sD"

PRINTING = {
    # Password managers and keychains (the secret alone).
    "macos-keychain": "security find-generic-password -s deploy -a ada -w",
    "macos-keychain-internet": "security find-internet-password -s github.com -w",
    "pass-show": "pass show work/db",
    "gopass-show": "gopass show -o work/db",
    "1password-read": "op read 'op://Private/db/password'",
    "1password-item": "op item get db --fields label=password --reveal",
    "bitwarden": "bw get password github.com",
    "lastpass": "lpass show --password work/db",
    "keepassxc": "keepassxc-cli show -s -a Password vault.kdbx work/db",
    "secret-tool": "secret-tool lookup service deploy user ada",
    # Vault CLIs.
    "vault-kv": "vault kv get -field=password secret/db",
    "aws-secretsmanager": "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
    "gcloud-secrets": "gcloud secrets versions access latest --secret=db-password",
    "az-keyvault": "az keyvault secret show --vault-name prod --name db --query value -o tsv",
    "doppler": "doppler secrets get DB_PASSWORD --plain",
    "sops": "sops -d --extract '[\"db\"][\"password\"]' secrets.enc.yaml",
    # Cloud CLIs printing tokens.
    "gcloud-token": "gcloud auth print-access-token",
    "gcloud-identity-token": "gcloud auth print-identity-token --audiences=https://run.example",
    "aws-ecr": "aws ecr get-login-password --region eu-west-1",
    "az-token": "az account get-access-token --query accessToken -o tsv",
    "gh-token": "gh auth token",
    "heroku-token": "heroku auth:token",
    # Kubernetes and Docker secrets.
    "kubectl-jsonpath": "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "docker-secret-file": "cat /run/secrets/db_password",
    "k8s-service-account": "sudo cat /var/run/secrets/kubernetes.io/serviceaccount/token",
    # A printer given a variable, a file, a field or a setting that names a secret.
    "echo-variable": "echo $DB_PASSWORD",
    "echo-braced": 'echo "${STRIPE_SECRET_KEY}"',
    "printenv": "printenv GITHUB_TOKEN",
    "cat-password-file": "cat ~/.config/app/db_password.txt",
    "jq-field": "jq -r .auth.token ~/.config/app/session.json",
    "terraform-output": "terraform output -raw admin_password",
    "git-config": "git config --get github.token",
}

NOT_PRINTING = {
    "keychain-attributes": "security find-generic-password -s deploy",
    "keychain-list": "security list-keychains",
    "pass-list": "pass ls work",
    "echo-home": "echo $HOME",
    "echo-path": 'echo "$PATH"',
    "printenv-all": "printenv",
    "cat-code": "cat src/auth/token.go",
    "cat-readme": "cat README.md",
    "grep-word": "grep -rn password src/",
    "pytest-names": "pytest -k test_password_reset",
    "npm-install": "npm install jsonwebtoken",
    "kubectl-pods": "kubectl get pods -n prod",
    "gh-status": "gh auth status",
    "terraform-plan": "terraform plan -out plan.bin",
}


@pytest.mark.parametrize("name", sorted(PRINTING))
def test_a_command_that_prints_a_secret_is_known_by_its_words(name):
    assert printed_secret(PRINTING[name])[0], PRINTING[name]


@pytest.mark.parametrize("name", sorted(NOT_PRINTING))
def test_a_command_that_prints_nothing_secret_is_left(name):
    assert not printed_secret(NOT_PRINTING[name])[0], NOT_PRINTING[name]


def _redacted(entries: list[dict]) -> str:
    items = [Entry("s.jsonl", number, entry) for number, entry in enumerate(entries, start=1)]
    return json.dumps([item.data for item in Redactor().items(items)])


def _bash(command: str, output: str, **result: object) -> list[dict]:
    call = tool_use("Bash", {"command": command, "description": "Look"})
    structured = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False, **result}
    return [assistant(call), tool_result(call["id"], output, structured=structured)]


@pytest.mark.parametrize("name", sorted(PRINTING))
@pytest.mark.parametrize("secret", [PASSWORD, TOKEN, "correct horse battery staple"])
def test_its_output_is_redacted_bare(name, secret):
    if secret.count(" ") and not printed_secret(PRINTING[name])[1]:
        pytest.skip("a passphrase of words is taken where the command prints the secret alone")
    out = _redacted(chain(*_bash(PRINTING[name], secret + "\n")))
    assert secret not in out and "[REDACTED:" in out


def test_a_vault_table_and_a_json_answer_lose_their_secrets_and_keep_the_rest():
    table = ("====== Data ======\nKey         Value\n---         -----\npassword    " + PASSWORD +
             "\nusername    app\n\n====== Metadata ======\ncreated_time       2026-03-22T02:24:06.945319214Z\nversion 3\n")
    out = _redacted(chain(*_bash("vault kv get secret/db", table)))
    assert PASSWORD not in out and "created_time       2026-03-22T02:24:06.945319214Z" in out
    assert "username    app" in out
    answer = json.dumps({"Credentials": {"AccessKeyId": "ASIAQXY2EXAMPLE7QF3K", "SecretAccessKey":
                                         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY", "SessionToken": TOKEN,
                                         "Expiration": "2026-03-22T14:00:00+00:00"}}, indent=2)
    out = _redacted(chain(*_bash("aws sts get-session-token --duration-seconds 3600", answer)))
    assert TOKEN not in out and "wJalrXUtnFEMI" not in out and "2026-03-22T14:00:00+00:00" in out


def test_a_background_task_and_bash_output_are_read_as_their_command():
    call = tool_use("Bash", {"command": "gcloud auth print-access-token", "run_in_background": True})
    started = tool_result(call["id"], "Command running in background with ID: bash_7",
                          structured={"stdout": "", "stderr": "", "backgroundTaskId": "bash_7"})
    asked = tool_use("BashOutput", {"bash_id": "bash_7"})
    answered = tool_result(asked["id"], f"<stdout>\n{TOKEN}\n</stdout>",
                           structured={"shellId": "bash_7", "command": "gcloud auth print-access-token",
                                       "status": "completed", "stdout": TOKEN, "stderr": ""})
    out = _redacted(chain(assistant(call), started, assistant(asked), answered))
    assert TOKEN not in out


def test_bash_mode_input_then_output():
    entries = chain(user("<bash-input>pass show work/db</bash-input>"),
                    user(f"<bash-stdout>{PASSWORD}\nurl: https://db.example.com</bash-stdout><bash-stderr></bash-stderr>"))
    out = _redacted(entries)
    assert PASSWORD not in out and "url: https://db.example.com" in out


@pytest.mark.parametrize("name", sorted(NOT_PRINTING))
def test_the_output_of_a_look_alike_command_is_kept(name):
    output = "x7Gq2mVw9Lp4Rt8Z version 1.2.3 created 2026-03-22 by ada"
    assert "x7Gq2mVw9Lp4Rt8Z" in _redacted(chain(*_bash(NOT_PRINTING[name], output)))


def test_an_error_where_the_secret_would_be_is_kept():
    error = "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain."
    assert error in _redacted(chain(*_bash(PRINTING["macos-keychain"], error)))
