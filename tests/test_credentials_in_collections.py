"""Secrets a secret-like name is given other than as one value after it (stages/credentials/containers.py): a
list's items, a block scalar's lines, the value beside a name field. Every syntax of the family, every tool's lead
before a line, a patch's lines one by one; and what only looks like one (lists of names, of columns, of kinds)
left whole. The secrets are invented."""

from __future__ import annotations

import json

import pytest

from generator.stages.redact import Redactor

SECRET = "Qm7xK9pL!w2vB8zR"
OTHER = "Zt4cW8nH2jF6yD1s"

GIVEN = {
    "yaml-block-list": f"service:\n  api_keys:\n    - {SECRET}\n    - {OTHER}\n  region: eu\n",
    "yaml-block-list-same-indent": f"access_keys:\n- {SECRET}\n- {OTHER}\nregion: eu\n",
    "yaml-block-list-quoted": f"passwords:\n  - \"{SECRET}\"\n  - '{OTHER}'\n",
    "yaml-block-list-commented": f"tokens:  # rotated weekly\n  - {SECRET}  # current\n  - {OTHER}\n",
    "yaml-plural-name": f"client_secrets:\n  - {SECRET}\n  - {OTHER}\n",
    "yaml-block-literal": f"smtp:\n  password: |\n    {SECRET}\n  port: 587\n",
    "yaml-block-folded-chomped": f"private_key: >-\n  {SECRET}\n  {OTHER}\nnext: 1\n",
    "yaml-block-with-blank-line": f"secret: |\n  {SECRET}\n\n  {OTHER}\nnext: 1\n",
    "yaml-flow-list": f"webhook_secrets: [{SECRET}, {OTHER}]",
    "json-array": f'{{"apiKeys": ["{SECRET}", "{OTHER}"]}}',
    "json-array-multiline": f'{{\n  "api_keys": [\n    "{SECRET}",\n    "{OTHER}"\n  ]\n}}',
    "json-in-json-string": f'{{\\"tokens\\": [\\"{SECRET}\\", \\"{OTHER}\\"]}}',
    "toml-array": f'tokens = ["{SECRET}", "{OTHER}"]',
    "python-list": f'API_KEYS = [\n    "{SECRET}",\n    "{OTHER}",\n]',
    "python-tuple-like-list": f"PASSWORDS = ['{SECRET}', '{OTHER}']",
    "k8s-env": f"env:\n  - name: DB_PASSWORD\n    value: {SECRET}\n  - name: API_TOKEN\n    value: \"{OTHER}\"\n",
    "ecs-env": f'[{{"name": "DB_PASSWORD", "value": "{SECRET}"}}, {{"name": "API_TOKEN", "value": "{OTHER}"}}]',
    "terraform-env": f'env {{\n  name  = "DB_PASSWORD"\n  value = "{SECRET}"\n}}\nenv {{\n  name = "API_TOKEN"\n  value = "{OTHER}"\n}}',
    # here-documents: HCL's, Ruby's, PHP's, Perl's
    "hcl-heredoc": f'resource "tls" "key" {{\n  private_key = <<EOT\n{SECRET}\n{OTHER}\nEOT\n}}\n',
    "hcl-heredoc-indented": f'  client_secret = <<-EOT\n    {SECRET}\n    {OTHER}\n  EOT\n',
    "ruby-heredoc-squiggly": f"API_TOKEN = <<~TOKEN.strip\n  {SECRET}\n  {OTHER}\nTOKEN\n",
    "php-heredoc": f"$password = <<<EOT\n{SECRET}\n{OTHER}\nEOT;\n",
    "perl-heredoc-quoted": f'my $secret = <<"END";\n{SECRET}\n{OTHER}\nEND\n',
}

# What a tool writes before each line of a file it shows.
LEADS = {
    "none": lambda lines: lines,
    "read-arrow": lambda lines: [f"{n:>6}\u2192{line}" for n, line in enumerate(lines, 1)],
    "cat-n": lambda lines: [f"{n:>6}\t{line}" for n, line in enumerate(lines, 1)],
    "grep-n": lambda lines: [f"{n}{':' if n == 1 else '-'}{line}" for n, line in enumerate(lines, 1)],
    "grep-path": lambda lines: [f"config/app.yaml:{n}:{line}" for n, line in enumerate(lines, 1)],
    # numbers that gain a digit inside the block: grep's lead grows by one column there
    "grep-n-from-line-8": lambda lines: [f"{n}{':' if n == 8 else '-'}{line}" for n, line in enumerate(lines, 8)],
    "grep-path-from-line-98": lambda lines: [f"config/app.yaml:{n}:{line}" for n, line in enumerate(lines, 98)],
    "read-arrow-from-line-98": lambda lines: [f"{n:>6}\u2192{line}" for n, line in enumerate(lines, 98)],
    "diff-added": lambda lines: [f"+{line}" for line in lines],
}


@pytest.mark.parametrize("lead", sorted(LEADS))
@pytest.mark.parametrize("syntax", sorted(GIVEN))
def test_every_value_of_a_collection_is_taken_whatever_leads_its_lines(syntax, lead):
    shown = "\n".join(LEADS[lead](GIVEN[syntax].split("\n")))
    redacted = Redactor().text(shown)
    assert SECRET not in redacted and OTHER not in redacted, redacted


@pytest.mark.parametrize("syntax", sorted(GIVEN))
def test_a_patch_line_by_line_takes_them_too(syntax):
    # Claude Code's structuredPatch: one string per line, the name on one and the value on the next.
    lines = ["-placeholder", *("+" + line for line in GIVEN[syntax].split("\n"))]
    redacted = json.dumps(Redactor().value({"structuredPatch": [{"lines": lines}]}))
    assert SECRET not in redacted and OTHER not in redacted, redacted


LEFT_WHOLE = [
    "primary_keys:\n  - account_id\n  - created_at\n",
    "secrets:\n  - DB_PASSWORD\n  - API_TOKEN\n",
    "secrets: [DB_PASSWORD, API_TOKEN]",
    "tokens: [access, refresh]",
    "max_tokens:\n  - 4096\n",
    "passwords:\n  - name: ada\n    role: admin\n",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n",
    '{"name": "TOKEN_URL", "value": "https://auth.example.com/oauth/token"}',
    '{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}',
    "password:\n  - changeme\n",
    "api_keys: [\n    [nested, list],\n]",
    "tokens: 4096",
    "passwords: hunter2-Correct-Horse-is-a-scalar-under-a-plural",
    "description = <<EOT\nRotates the signing key every night\nEOT\n",
    f"private_key = <<EOT\n${{file(\"key.pem\")}}\nEOT\nregion = \"{OTHER[:4]}\"\n",
    "cat <<EOF > notes.txt\nthe password is in the vault\nEOF\n",
]


@pytest.mark.parametrize("shown", LEFT_WHOLE)
def test_names_columns_kinds_references_and_placeholders_stay(shown):
    assert Redactor().text(shown) == shown


def test_a_long_list_and_an_unclosed_one_still_lose_their_first_items():
    # Collections are read only so far (`containers._MOST_LINES`, `_LONGEST_LIST`): what lies in that reach is taken.
    many = "api_keys:\n" + "".join(f"  - k{n:05d}{SECRET}\n" for n in range(500))
    redacted = Redactor().text(many)
    assert f"k00000{SECRET}" not in redacted  # the first items are taken
    endless = "api_keys: [" + ", ".join(f'"{SECRET}{n}"' for n in range(3000))
    assert f"{SECRET}0" not in Redactor().text(endless)


def test_a_here_document_ends_at_its_marker():
    shown = f"token = <<EOT\n{SECRET}\nEOT\nregion = eu-west-1\nowner = ops\n"
    assert Redactor().text(shown) == "token = <<EOT\n[REDACTED:secret-assignment]\nEOT\nregion = eu-west-1\nowner = ops\n"


def test_an_opening_flooded_with_spaces_is_read_in_one_pass():
    """A transcript's `password = <<EOF` followed by a hundred thousand spaces: the opening's pattern gives each
    space one way to be read, so the build goes on (two ways each made it quadratic: minutes)."""
    flood = "password = <<EOF" + " " * 100_000 + "x\nhunter2\nEOF"
    assert Redactor().text(flood).startswith("password = <<EOF")
    lines = ["+password = <<EOF" + " " * 100_000 + ";", "+hunter2"]
    assert Redactor().value({"structuredPatch": [{"lines": lines}]})
