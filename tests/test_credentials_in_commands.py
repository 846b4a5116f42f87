"""Passwords and tokens a command or a statement gives without a `name=value` (stages/credentials/forms.py): SQL's
credential clauses, tools that take a password as an argument, the `config set NAME VALUE` of the CLIs that keep
tokens, and secrets piped into a command. Each family over its members, as typed, in a Bash call and quoted; what
only looks like one is left. The secrets are invented."""

from __future__ import annotations

import json

import pytest

from generator.stages.redact import Redactor

SECRET = "Qm7xK9pL!w2vB8zR"

GIVEN = {
    # SQL: a role's or a user's password.
    "postgres-create-user": f"CREATE USER app WITH PASSWORD '{SECRET}';",
    "postgres-create-role-login": f"create role app login password '{SECRET}';",
    "postgres-alter-role-encrypted": f"ALTER ROLE app WITH ENCRYPTED PASSWORD '{SECRET}' VALID UNTIL 'infinity';",
    "psql-in-a-command": f"psql -c \"ALTER ROLE app PASSWORD '{SECRET}'\"",
    "mysql-identified-by": f"ALTER USER 'app'@'%' IDENTIFIED BY '{SECRET}';",
    "mysql-identified-with-plugin": f"CREATE USER app IDENTIFIED WITH mysql_native_password BY '{SECRET}';",
    "mysql-grant-identified": f"GRANT ALL ON db.* TO 'app'@'%' IDENTIFIED BY \"{SECRET}\";",
    "oracle-identified-by-unquoted": f"ALTER USER app IDENTIFIED BY {SECRET};",
    # Tools that take a password as an argument.
    "mongo-dash-p": f"mongo admin -u root -p {SECRET}",
    "mongosh-password": f"mongosh --host db -u root --password '{SECRET}'",
    "mongodump-password-equals": f"mongodump --uri db --username root --password={SECRET} --out /tmp/x",
    "redis-auth": f"redis-cli -h cache AUTH {SECRET}",
    "redis-auth-user": f"redis-cli -h cache AUTH default {SECRET}",
    "rabbitmq-add-user": f"rabbitmqctl add_user app {SECRET}",
    "rabbitmq-change-password": f"sudo rabbitmqctl change_password app '{SECRET}'",
    "windows-net-user": f"net user ada {SECRET} /add",
    "ssh-keygen-new-passphrase": f"ssh-keygen -t ed25519 -N '{SECRET}' -f ~/.ssh/deploy",
    "ssh-keygen-old-passphrase": f"ssh-keygen -p -P \"{SECRET}\" -N '' -f key",
    "powershell-secure-string": f"$pw = ConvertTo-SecureString '{SECRET}' -AsPlainText -Force",
    "powershell-secure-string-named": f"ConvertTo-SecureString -String \"{SECRET}\" -AsPlainText -Force",
    "macos-keychain": f"security add-generic-password -a ada -s deploy -w {SECRET}",
    "macos-keychain-internet": f"security add-internet-password -a ada -s host -w '{SECRET}'",
    # Piped in.
    "chpasswd-echo": f"echo 'ada:{SECRET}' | sudo chpasswd",
    "chpasswd-here-string": f"chpasswd <<< \"ada:{SECRET}\"",
    "vercel-env-piped": f"echo {SECRET} | vercel env add API_SECRET production",
    "vercel-env-here-string": f"vercel env add API_SECRET production <<< '{SECRET}'",
    "sudo-piped": f"echo '{SECRET}' | sudo -S apt-get update",
    "sudo-here-string": f"sudo -S <<< '{SECRET}' systemctl restart app",
    "openssl-k": f"openssl enc -aes-256-cbc -k '{SECRET}' -in a -out b",
    "nmcli-wifi": f"nmcli dev wifi connect Home password {SECRET}",
    "wpa-passphrase": f"wpa_passphrase Home {SECRET}",
    # Stored in a secret manager, piped in, given as here-string or as its flag's value.
    "docker-secret-here-string": f"docker secret create db_pass - <<< '{SECRET}'",
    "docker-secret-piped": f"printf '%s' '{SECRET}' | docker secret create db_pass -",
    "gcloud-secret-piped": f"echo -n '{SECRET}' | gcloud secrets create api-key --data-file=-",
    "gcloud-secret-version-piped": f"echo {SECRET} | gcloud secrets versions add api-key --data-file=-",
    "wrangler-here-string": f"wrangler secret put API_KEY <<< {SECRET}",
    "wrangler-piped": f"echo {SECRET} | npx wrangler secret put API_KEY",
    "gh-secret-piped": f"echo '{SECRET}' | gh secret set API_TOKEN",
    "pass-insert-piped": f"echo '{SECRET}' | pass insert -e work/db",
    "azure-keyvault-value": f"az keyvault secret set --vault-name v --name db --value '{SECRET}'",
    "netlify-env-set": f"netlify env:set API_SECRET {SECRET}",
    "fish-set-exported": f"set -gx API_TOKEN {SECRET}",
    "windows-setx": f"setx API_TOKEN {SECRET}",
    "xml-entry-element": f'<entry key="password">{SECRET}</entry>',
    # Code that gives a user and a password to a call, by position.
    "requests-auth-tuple": f'requests.get(url, auth=("ada", "{SECRET}"))',
    "session-auth-tuple": f"session.auth = ('ada', '{SECRET}')",
    "basic-auth-object": f"requests.get(url, auth=HTTPBasicAuth('ada', '{SECRET}'))",
    "aiohttp-basic-auth": f'aiohttp.BasicAuth(login="ada", password="{SECRET}")',
    "smtp-login": f'server.login("ada@example.com", "{SECRET}")',
    "ftp-login-variable-user": f"ftp.login(user, '{SECRET}')",
    "dotnet-network-credential": f'new NetworkCredential("ada", "{SECRET}")',
    "java-password-authentication": f'new PasswordAuthentication("ada", "{SECRET}".toCharArray())',
    "jdbc-get-connection": f'DriverManager.getConnection(url, "ada", "{SECRET}")',
    "pymysql-connect-positional": f'pymysql.connect("db", "ada", "{SECRET}", "app")',
    "ldap-simple-bind": f'conn.simple_bind_s("cn=admin,dc=example,dc=org", "{SECRET}")',
    # The CLIs that keep a token in their settings.
    "git-config-token": f"git config --global github.token {SECRET}",
    "npm-config-auth-token": f"npm config set //registry.npmjs.org/:_authToken {SECRET}",
    "yarn-config-npm-auth-token": f"yarn config set npmAuthToken {SECRET}",
    "pnpm-config-password": f"pnpm config set //npm.example.com/:_password '{SECRET}'",
    "aws-configure-set": f"aws configure set aws_secret_access_key {SECRET} --profile ci",
    "aws-configure-set-session-token": f"aws configure set aws_session_token {SECRET}",
    "dotnet-user-secrets": f"dotnet user-secrets set \"Stripe:SecretKey\" \"{SECRET}\"",
    "gh-secret-body": f"gh secret set API_TOKEN --body {SECRET}",
    "gh-secret-b-quoted": f"gh secret set DEPLOY_KEY -R ada/tidewatch -b '{SECRET}'",
}


def wrapped(way: str, command: str) -> str:
    return {"typed": command, "bash-prompt": f"$ {command}\nok",
            "in-prose": f"I ran `{command}` and it worked.", "json-escaped": json.dumps(command)[1:-1]}[way]


@pytest.mark.parametrize("way", ["typed", "bash-prompt", "in-prose", "json-escaped"])
@pytest.mark.parametrize("form", sorted(GIVEN))
def test_every_form_loses_its_secret(form, way):
    redacted = Redactor().text(wrapped(way, GIVEN[form]))
    assert SECRET not in redacted and "Qm7xK9pL" not in redacted, redacted


@pytest.mark.parametrize("form", sorted(GIVEN))
def test_as_a_bash_call_it_loses_its_secret(form):
    entry = {"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "toolu_01X", "name": "Bash", "input": {"command": GIVEN[form]}}]}}
    assert "Qm7xK9pL" not in json.dumps(Redactor().value(entry))


LEFT_WHOLE = [
    "CREATE USER app WITH PASSWORD NULL;",
    "ALTER ROLE app PASSWORD 'changeme';",
    "The password column is varchar(255) and IDENTIFIED BY is MySQL's clause.",
    "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519",
    "net user ada /add",
    "net user ada * /add",
    "mongo admin -u root -p",
    "mongosh -u root -p --authenticationDatabase admin",
    "git config --global user.name 'Ada Lovelace'",
    "git config --global credential.helper store",
    "npm config set registry https://registry.npmjs.org/",
    "aws configure set region eu-west-1",
    "aws configure set aws_access_key_id AKIDEXAMPLEONLY --profile ci",
    "gh secret list",
    "gh secret set API_TOKEN < token.txt",
    "rabbitmqctl list_users",
    "security find-generic-password -a ada -s deploy -w",
    "echo $TOKEN | vercel env add API_SECRET production",
    "ConvertTo-SecureString $env:PASSWORD -AsPlainText -Force",
    "requests.get(url, auth=(user, password))",
    "client.login(username, password)",
    "session.auth = (settings.USER, settings.PASSWORD)",
    "DriverManager.getConnection(url, user, password)",
    "echo $PASSWORD | sudo -S apt-get update",
    "openssl enc -aes-256-cbc -kfile key.txt -in a -out b",
    "wpa_passphrase Home",
    'button.bind("<Button-1>", on_click)',
    "docker secret create db_pass ./db_pass.txt",
    "echo $API_KEY | wrangler secret put API_KEY",
    "set -gx PATH $HOME/bin $PATH",
    "setx PATH %PATH%;C:\\tools",
    '<entry key="timeout">30</entry>',
    "az keyvault secret show --vault-name v --name db --query value",
]


@pytest.mark.parametrize("line", LEFT_WHOLE)
def test_what_gives_no_secret_is_left(line):
    assert Redactor().text(line) == line
