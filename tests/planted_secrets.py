"""A corpus of planted credentials, written into sessions the way real sessions carry them (issue 26).

Every value is invented: each is drawn from a seeded generator in its provider's public shape (prefix,
alphabet, length, as gitleaks, trufflehog and GitHub's secret scanning describe them), so none is live and
none is written out in this file. A *recipe* is one planted value: a provider's token or a secret known
only by its context, inside a file of some format. Each recipe is shown in every *way* a session carries
a credential (typed in a prompt, read with both numberings, cat and grep through Bash, written, edited, in
an MCP tool's input, in a fetched URL), and each way gets a value of its own, drawn from the same shape,
so that a leak found in an output names the value and the way that put it there.

A leak is searched for by the value's *keys*: 12-character slices from the middle, the start and the end
of each random part (every line of a private key is a part) and its first and last 8 characters, or for
a short value 8 characters from its middle. A key holds only letters and digits where it can (else also `-_.~`), which JSON, HTML and URL
encoding leave as they are, so the value written plain, JSON-escaped, HTML-escaped or URL-encoded holds
every key, and one search finds them all; a value cut short, or lowercased and split into words as a
search index keeps it, still shows. Keys are random, so they cannot occur by chance anywhere else.

The look-alikes are what a redactor must not take: identifiers, digests, code that reads a secret,
placeholders and prose.
"""

from __future__ import annotations

import base64
import json
import random
import re
import shlex
import string
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from helpers import (CWD, PNG_BYTES, ai_title, assistant, chain, custom_title, summary, text, tool_result, tool_use,
                     user, write_jsonl)

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
LOWERNUM = string.ascii_lowercase + string.digits
UPPERNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
DIGITS = string.digits
B32 = string.ascii_uppercase + "234567"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
# What JSON, HTML and URL encoding leave alone: a key made of these is in every encoded form of its value.
SAFE = set(ALNUM + "-_.~")

PROJECT_DIR = "-home-ada-src-tidewatch"
HOME = "/home/ada"


class Draw:
    """Draws a value's random parts from one seeded generator and remembers them: the keys come from them."""

    def __init__(self, seed: str):
        self.rng = random.Random(seed)
        self.parts: list[str] = []

    def __call__(self, alphabet: str, length: int) -> str:
        part = self.raw(alphabet, length)
        self.parts.append(part)
        return part

    def raw(self, alphabet: str, length: int) -> str:
        """Random text that is not secret material (an id beside the secret): no key is taken from it."""
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    def mark(self, part: str) -> str:
        """A derived part (base64 of a password, of a token): keys are taken from it as it is written."""
        self.parts.append(part)
        return part

    def password(self) -> str:
        """A password as people make them: letters and digits, a symbol, digits."""
        return self(ALNUM, 12) + self.rng.choice("!*") + self.raw(DIGITS, 3)

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))


def _window(part: str, size: int, toward: float) -> str | None:
    """The window of `size` characters nearest the place `toward` (0 the start, 1 the end) of `part`: of
    letters and digits if there is one (a search index splits words at any other character), else of
    safe characters."""
    aim = round((len(part) - size) * toward)
    starts = sorted(range(len(part) - size + 1), key=lambda start: abs(start - aim))
    for allowed in (set(ALNUM), SAFE):
        for start in starts:
            if set(part[start:start + size]) <= allowed:
                return part[start:start + size]
    return None


def keys_of(parts: list[str]) -> tuple[str, ...]:
    """12-character slices of the longest part and of every other part of 20 or more characters (digits
    alone are ids, not secrets): from its middle, and from its start and its end, so that a value cut
    short in a preview still shows, and its first and last 8 characters, so that what a rule leaves of a
    token it took too short shows; 8 characters from the middle when the value is short."""
    candidates = [p for p in parts if not p.isdigit()] or parts
    longest = max(candidates, key=len)
    keys = []
    for part in candidates:
        if part is longest or len(part) >= 20:
            windows = [_window(part, 12, toward) for toward in (0.5, 0, 1)] if len(part) >= 20 else []
            if len(part) >= 20:  # a rule that takes a token too short leaves its last characters
                windows += [_window(part, 8, toward) for toward in (0, 1)]
            windows = [w for w in windows if w] or [_window(part, 8, 0.5)]
            keys += [w for w in windows if w]
    assert keys, f"no key can be taken from {parts}"
    return tuple(dict.fromkeys(keys))


# ---------------------------------------------------------------------------------------------------------
# Providers: a token whose shape tells what it is. (id, the variable that usually holds it, its shape)

Maker = Callable[[Draw], str]


def _b64(data: str, *, pad: bool = True, urlsafe: bool = False) -> str:
    encoded = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data.encode()).decode()
    return encoded if pad else encoded.rstrip("=")


def _discord_bot(d: Draw) -> str:
    user_id = _b64(d.raw(DIGITS[1:], 1) + d.raw(DIGITS, 18), pad=False)
    return f"{user_id}.{d(URLSAFE, 6)}.{d(URLSAFE, 38)}"


def _sentry_org(d: Draw) -> str:
    claims = json.dumps({"iat": 1767225600.5, "url": "https://sentry.io", "region_url": "https://us.sentry.io",
                         "org": d.raw(LOWER, 8)}, separators=(",", ":"))
    return f"sntrys_{_b64(claims, pad=False)}_{d(ALNUM, 43)}"


def _mapbox_secret(d: Draw) -> str:
    claims = json.dumps({"u": "ada-tide", "a": d.raw(LOWERNUM, 24)}, separators=(",", ":"))
    return f"sk.{_b64(claims, pad=False, urlsafe=True)}.{d(URLSAFE, 22)}"


def _jwt(d: Draw) -> str:
    header = _b64('{"alg":"HS256","typ":"JWT"}', pad=False, urlsafe=True)
    claims = json.dumps({"sub": d.raw(LOWERNUM, 12), "iat": 1767225600, "scope": "ledger:write"},
                        separators=(",", ":"))
    return f"{header}.{_b64(claims, pad=False, urlsafe=True)}.{d(URLSAFE, 43)}"


def _teams_webhook(d: Draw) -> str:
    return (f"https://acmecorp.webhook.office.com/webhookb2/{d.uuid()}@{d.uuid()}/IncomingWebhook/"
            f"{d(HEX, 32)}/{d.uuid()}")


PROVIDERS: list[tuple[str, str, Maker]] = [
    ("aws-access-key-id", "AWS_ACCESS_KEY_ID", lambda d: "AKIA" + d(B32, 16)),
    ("aws-session-key-id", "AWS_TEMP_ACCESS_KEY_ID", lambda d: "ASIA" + d(B32, 16)),
    ("github-pat", "GITHUB_TOKEN", lambda d: "ghp_" + d(ALNUM, 36)),
    ("github-oauth", "GH_OAUTH_TOKEN", lambda d: "gho_" + d(ALNUM, 36)),
    ("github-user-to-server", "GH_APP_USER_TOKEN", lambda d: "ghu_" + d(ALNUM, 36)),
    ("github-server-to-server", "GH_INSTALLATION_TOKEN", lambda d: "ghs_" + d(ALNUM, 36)),
    ("github-refresh", "GH_REFRESH_TOKEN", lambda d: "ghr_" + d(ALNUM, 36)),
    ("github-fine-grained-pat", "GITHUB_PAT", lambda d: f"github_pat_{d(ALNUM, 22)}_{d(ALNUM, 59)}"),
    ("gitlab-pat", "GITLAB_TOKEN", lambda d: "glpat-" + d(URLSAFE, 20)),
    ("gitlab-pipeline-trigger", "GITLAB_TRIGGER_TOKEN", lambda d: "glptt-" + d(HEX, 40)),
    ("gitlab-runner-registration", "RUNNER_REGISTRATION_TOKEN", lambda d: "GR1348941" + d(URLSAFE, 20)),
    ("gitlab-deploy-token", "GITLAB_DEPLOY_TOKEN", lambda d: "gldt-" + d(URLSAFE, 20)),
    ("gitlab-runner-auth", "CI_RUNNER_AUTH_TOKEN", lambda d: "glrt-" + d(URLSAFE, 20)),
    ("gitlab-oauth-app-secret", "GITLAB_OAUTH_SECRET", lambda d: "gloas-" + d(URLSAFE, 64)),
    ("slack-bot", "SLACK_BOT_TOKEN", lambda d: f"xoxb-{d.raw(DIGITS, 12)}-{d.raw(DIGITS, 13)}-{d(ALNUM, 24)}"),
    ("slack-user", "SLACK_USER_TOKEN",
     lambda d: f"xoxp-{d.raw(DIGITS, 12)}-{d.raw(DIGITS, 12)}-{d.raw(DIGITS, 13)}-{d(HEX, 32)}"),
    ("slack-app", "SLACK_APP_TOKEN", lambda d: f"xapp-1-A{d.raw(UPPERNUM, 10)}-{d.raw(DIGITS, 13)}-{d(HEX, 64)}"),
    ("slack-webhook", "SLACK_WEBHOOK_URL",
     lambda d: f"https://hooks.slack.com/services/T{d.raw(UPPERNUM, 8)}/B{d.raw(UPPERNUM, 10)}/{d(ALNUM, 24)}"),
    ("stripe-secret-live", "STRIPE_SECRET_KEY", lambda d: "sk_live_51" + d(ALNUM, 96)),
    ("stripe-restricted-live", "STRIPE_RESTRICTED_KEY", lambda d: "rk_live_51" + d(ALNUM, 96)),
    ("stripe-secret-test", "STRIPE_TEST_KEY", lambda d: "sk_test_51" + d(ALNUM, 96)),
    ("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", lambda d: "whsec_" + d(ALNUM, 32)),
    ("openai-project", "OPENAI_API_KEY", lambda d: f"sk-proj-{d(URLSAFE, 74)}T3BlbkFJ{d(URLSAFE, 74)}"),
    ("openai-legacy", "OPENAI_KEY", lambda d: f"sk-{d(ALNUM, 20)}T3BlbkFJ{d(ALNUM, 20)}"),
    ("openai-service-account", "OPENAI_SVC_KEY", lambda d: f"sk-svcacct-{d(URLSAFE, 58)}T3BlbkFJ{d(URLSAFE, 58)}"),
    ("anthropic-api", "ANTHROPIC_API_KEY", lambda d: f"sk-ant-api03-{d(URLSAFE, 93)}AA"),
    ("anthropic-admin", "ANTHROPIC_ADMIN_KEY", lambda d: f"sk-ant-admin01-{d(URLSAFE, 93)}AA"),
    ("google-api-key", "GOOGLE_API_KEY", lambda d: "AIza" + d(URLSAFE, 35)),
    ("google-oauth-client-secret", "GOOGLE_CLIENT_SECRET", lambda d: "GOCSPX-" + d(URLSAFE, 28)),
    ("google-oauth-access-token", "GOOGLE_ACCESS_TOKEN", lambda d: "ya29.a0" + d(URLSAFE, 150)),
    ("npm", "NPM_TOKEN", lambda d: "npm_" + d(ALNUM, 36)),
    ("pypi", "PYPI_API_TOKEN", lambda d: "pypi-AgEIcHlwaS5vcmc" + d(URLSAFE, 140)),
    ("docker-hub-pat", "DOCKERHUB_TOKEN", lambda d: "dckr_pat_" + d(URLSAFE, 27)),
    ("sendgrid", "SENDGRID_API_KEY", lambda d: f"SG.{d(URLSAFE, 22)}.{d(URLSAFE, 43)}"),
    ("twilio-api-key", "TWILIO_API_KEY", lambda d: "SK" + d(HEX, 32)),
    ("mailgun", "MAILGUN_API_KEY", lambda d: "key-" + d(HEX, 32)),
    ("mailchimp", "MAILCHIMP_API_KEY", lambda d: d(HEX, 32) + "-us" + d.raw(DIGITS, 2)),
    ("shopify-access", "SHOPIFY_ACCESS_TOKEN", lambda d: "shpat_" + d(HEX, 32)),
    ("shopify-shared-secret", "SHOPIFY_SHARED_SECRET", lambda d: "shpss_" + d(HEX, 32)),
    ("shopify-custom-app", "SHOPIFY_CUSTOM_TOKEN", lambda d: "shpca_" + d(HEX, 32)),
    ("shopify-private-app", "SHOPIFY_PRIVATE_TOKEN", lambda d: "shppa_" + d(HEX, 32)),
    ("square-access", "SQUARE_ACCESS_TOKEN", lambda d: "EAAA" + d(URLSAFE, 60)),
    ("square-oauth-secret", "SQUARE_OAUTH_SECRET", lambda d: "sq0csp-" + d(URLSAFE, 43)),
    ("discord-bot", "DISCORD_BOT_TOKEN", _discord_bot),
    ("discord-webhook", "DISCORD_WEBHOOK_URL",
     lambda d: f"https://discord.com/api/webhooks/{d.raw(DIGITS, 18)}/{d(URLSAFE, 68)}"),
    ("telegram-bot", "TELEGRAM_BOT_TOKEN", lambda d: f"{d.raw(DIGITS, 10)}:AA{d(URLSAFE, 33)}"),
    ("heroku-api-key-v2", "HEROKU_API_TOKEN", lambda d: "HRKU-AA" + d(URLSAFE, 58)),
    ("digitalocean-pat", "DIGITALOCEAN_TOKEN", lambda d: "dop_v1_" + d(HEX, 64)),
    ("digitalocean-oauth", "DO_OAUTH_TOKEN", lambda d: "doo_v1_" + d(HEX, 64)),
    ("digitalocean-refresh", "DO_REFRESH_TOKEN", lambda d: "dor_v1_" + d(HEX, 64)),
    ("huggingface", "HF_TOKEN", lambda d: "hf_" + d(string.ascii_letters, 34)),
    ("huggingface-org", "HF_ORG_TOKEN", lambda d: "api_org_" + d(string.ascii_letters, 34)),
    ("databricks", "DATABRICKS_TOKEN", lambda d: "dapi" + d(HEX, 32)),
    ("atlassian", "ATLASSIAN_API_TOKEN", lambda d: "ATATT3xFfGF0" + d(URLSAFE, 180)),
    ("linear", "LINEAR_API_KEY", lambda d: "lin_api_" + d(ALNUM, 40)),
    ("notion", "NOTION_TOKEN", lambda d: "ntn_" + d.raw(DIGITS, 11) + d(ALNUM, 35)),
    ("postman", "POSTMAN_API_KEY", lambda d: f"PMAK-{d(HEX, 24)}-{d(HEX, 34)}"),
    ("pulumi", "PULUMI_ACCESS_TOKEN", lambda d: "pul-" + d(HEX, 40)),
    ("doppler", "DOPPLER_TOKEN", lambda d: "dp.pt." + d(ALNUM, 43)),
    ("vault-service", "VAULT_TOKEN", lambda d: "hvs." + d(URLSAFE, 95)),
    ("vault-batch", "VAULT_BATCH_TOKEN", lambda d: "hvb." + d(URLSAFE, 140)),
    ("terraform-cloud", "TFE_TOKEN", lambda d: f"{d(LOWERNUM, 14)}.atlasv1.{d(URLSAFE, 67)}"),
    ("sentry-user", "SENTRY_AUTH_TOKEN", lambda d: "sntryu_" + d(HEX, 64)),
    ("sentry-org", "SENTRY_ORG_TOKEN", _sentry_org),
    ("grafana-cloud", "GRAFANA_CLOUD_TOKEN", lambda d: "glc_" + d(ALNUM, 64)),
    ("grafana-service-account", "GRAFANA_SA_TOKEN", lambda d: f"glsa_{d(ALNUM, 32)}_{d.raw(HEX, 8)}"),
    ("new-relic-user", "NEW_RELIC_API_KEY", lambda d: "NRAK-" + d(UPPERNUM, 27)),
    ("new-relic-insert", "NEW_RELIC_INSERT_KEY", lambda d: "NRII-" + d(LOWERNUM + "-", 32)),
    ("dynatrace", "DT_API_TOKEN", lambda d: f"dt0c01.{d(UPPERNUM, 24)}.{d(UPPERNUM, 64)}"),
    ("airtable-pat", "AIRTABLE_TOKEN", lambda d: f"pat{d(ALNUM, 14)}.{d(HEX, 64)}"),
    ("supabase", "SUPABASE_ACCESS_TOKEN", lambda d: "sbp_" + d(HEX, 40)),
    ("planetscale-token", "PLANETSCALE_SERVICE_TOKEN", lambda d: "pscale_tkn_" + d(URLSAFE, 43)),
    ("planetscale-password", "PLANETSCALE_DB_PASSWORD", lambda d: "pscale_pw_" + d(URLSAFE, 43)),
    ("age-secret-key", "SOPS_AGE_KEY", lambda d: "AGE-SECRET-KEY-1" + d(BECH32, 58)),
    ("shippo", "SHIPPO_API_TOKEN", lambda d: "shippo_live_" + d(HEX, 40)),
    ("easypost", "EASYPOST_API_KEY", lambda d: "EZAK" + d(ALNUM, 54)),
    ("flutterwave", "FLW_SECRET_KEY", lambda d: f"FLWSECK_TEST-{d(HEX, 32)}-X"),
    ("frameio", "FRAMEIO_TOKEN", lambda d: "fio-u-" + d(URLSAFE, 64)),
    ("adafruit", "ADAFRUIT_IO_KEY", lambda d: "aio_" + d(ALNUM, 28)),
    ("alibaba", "ALIBABA_ACCESS_KEY_ID", lambda d: "LTAI" + d(ALNUM, 20)),
    ("azure-ad-client-secret", "AZURE_CLIENT_SECRET",
     lambda d: d(ALNUM, 3) + d.raw(DIGITS, 1) + "Q~" + d(ALNUM + "_~.-", 34)),
    ("bitbucket-app-password", "BITBUCKET_APP_PASSWORD", lambda d: "ATBB" + d(ALNUM, 32) + d.raw(HEX.upper(), 8)),
    ("clojars", "CLOJARS_TOKEN", lambda d: "CLOJARS_" + d(LOWERNUM, 60)),
    ("contentful-pat", "CONTENTFUL_MANAGEMENT_TOKEN", lambda d: "CFPAT-" + d(URLSAFE, 43)),
    ("duffel", "DUFFEL_ACCESS_TOKEN", lambda d: "duffel_live_" + d(URLSAFE, 43)),
    ("dropbox-short-lived", "DROPBOX_ACCESS_TOKEN", lambda d: "sl." + d(URLSAFE, 135)),
    ("flyio", "FLY_API_TOKEN", lambda d: "fo1_" + d(URLSAFE, 43)),
    ("facebook-page", "FB_PAGE_ACCESS_TOKEN", lambda d: "EAAC" + d(ALNUM, 140)),
    ("artifactory-api-key", "ARTIFACTORY_API_KEY", lambda d: "AKCp" + d(ALNUM, 69)),
    ("artifactory-reference", "JFROG_ACCESS_TOKEN", lambda d: "cmVmdGtuOjAxOj" + d(ALNUM, 50)),
    ("lob", "LOB_API_KEY", lambda d: "live_" + d(HEX, 35)),
    ("mapbox-secret", "MAPBOX_SECRET_TOKEN", _mapbox_secret),
    ("openshift", "OPENSHIFT_TOKEN", lambda d: "sha256~" + d(URLSAFE, 43)),
    ("prefect", "PREFECT_API_KEY", lambda d: "pnu_" + d(ALNUM, 36)),
    ("readme", "README_API_KEY", lambda d: "rdme_" + d(LOWERNUM, 70)),
    ("rubygems", "GEM_HOST_API_KEY", lambda d: "rubygems_" + d(HEX, 48)),
    ("scalingo", "SCALINGO_API_TOKEN", lambda d: "tk-us-" + d(URLSAFE, 48)),
    ("brevo", "BREVO_API_KEY", lambda d: f"xkeysib-{d(HEX, 64)}-{d(ALNUM, 16)}"),
    ("typeform", "TYPEFORM_TOKEN", lambda d: "tfp_" + d(URLSAFE, 59)),
    ("octopus-deploy", "OCTOPUS_API_KEY", lambda d: "API-" + d(UPPERNUM, 26)),
    ("groq", "GROQ_API_KEY", lambda d: "gsk_" + d(ALNUM, 52)),
    ("replicate", "REPLICATE_API_TOKEN", lambda d: "r8_" + d(ALNUM, 37)),
    ("perplexity", "PERPLEXITY_API_KEY", lambda d: "pplx-" + d(ALNUM, 48)),
    ("xai", "XAI_API_KEY", lambda d: "xai-" + d(ALNUM, 80)),
    ("langsmith", "LANGSMITH_API_KEY", lambda d: f"lsv2_pt_{d(HEX, 32)}_{d.raw(HEX, 10)}"),
    ("tailscale", "TS_AUTHKEY", lambda d: f"tskey-auth-k{d(ALNUM, 16)}-{d(ALNUM, 33)}"),
    ("infracost", "INFRACOST_API_KEY", lambda d: "ico-" + d(ALNUM, 32)),
    ("harness", "HARNESS_PLATFORM_API_KEY", lambda d: f"pat.{d(URLSAFE, 22)}.{d(ALNUM, 24)}.{d(ALNUM, 20)}"),
    ("buildkite", "BUILDKITE_API_TOKEN", lambda d: "bkua_" + d(HEX, 40)),
    ("1password-service-account", "OP_SERVICE_ACCOUNT_TOKEN", lambda d: "ops_eyJ" + d(ALNUM, 260)),
    ("1password-secret-key", "OP_SECRET_KEY",
     lambda d: f"A3-{d(UPPERNUM, 6)}-{d(UPPERNUM, 11)}-{d(UPPERNUM, 5)}-{d(UPPERNUM, 5)}-{d(UPPERNUM, 5)}"),
    ("deno-deploy", "DENO_DEPLOY_TOKEN", lambda d: "ddp_" + d(ALNUM, 36)),
    ("sourcegraph", "SRC_ACCESS_TOKEN", lambda d: f"sgp_{d.raw(HEX, 16)}_{d(HEX, 40)}"),
    ("nuget", "NUGET_API_KEY", lambda d: "oy2" + d(LOWERNUM, 43)),
    ("intra42", "INTRA_CLIENT_SECRET", lambda d: "s-s4t2ud-" + d(HEX, 64)),
    ("maxmind", "MAXMIND_LICENSE_KEY", lambda d: f"{d(ALNUM, 6)}_{d(ALNUM, 29)}_mmk"),
    ("cloudflare-origin-ca", "CF_ORIGIN_CA_KEY", lambda d: f"v1.0-{d(HEX, 24)}-{d(HEX, 146)}"),
    ("clickhouse-cloud", "CLICKHOUSE_API_SECRET", lambda d: "4b1d" + d(ALNUM, 38)),
    ("microsoft-teams-webhook", "TEAMS_WEBHOOK_URL", _teams_webhook),
    ("jwt", "SESSION_JWT", _jwt),
    ("easypost-test", "EASYPOST_TEST_KEY", lambda d: "EZTK" + d(ALNUM, 54)),
    ("settlemint", "SETTLEMINT_PAT", lambda d: "sm_pat_" + d(ALNUM, 16)),
    ("adobe-client-secret", "ADOBE_CLIENT_SECRET", lambda d: "p8e-" + d(ALNUM, 32)),
]

# ---------------------------------------------------------------------------------------------------------
# File formats, and how each one holds a named value


def _snake(name: str) -> str:
    return name.lower()


def _camel(name: str) -> str:
    first, *rest = name.lower().split("_")
    return first + "".join(word.capitalize() for word in rest)


def _pascal(name: str) -> str:
    return "".join(word.capitalize() for word in name.lower().split("_"))


FORMATS: dict[str, tuple[str, Callable[[str, str], str]]] = {
    # format: (file name pattern, the file holding NAME = value)
    "env": ("deploy/{slug}.env", lambda n, v: f"# {n.lower()} for staging\nAPP_ENV=staging\n{n}={v}\nLOG_LEVEL=info\n"),
    "shell": ("scripts/{slug}.sh",
              lambda n, v: f"#!/usr/bin/env bash\nset -euo pipefail\nexport {n}={v}\n./bin/deploy --region eu-west-1\n"),
    "yaml": ("config/{slug}.yaml",
             lambda n, v: f"service:\n  region: eu-west-1\n  {_snake(n)}: {v}\n  retries: 3\n"),
    "json": ("config/{slug}.json",
             lambda n, v: f'{{\n  "region": "eu-west-1",\n  "{_snake(n)}": "{v}",\n  "retries": 3\n}}\n'),
    "toml": ("config/{slug}.toml", lambda n, v: f'[service]\nregion = "eu-west-1"\n{_snake(n)} = "{v}"\nretries = 3\n'),
    "ini": ("config/{slug}.ini", lambda n, v: f"[service]\nregion = eu-west-1\n{_snake(n)} = {v}\nretries = 3\n"),
    "xml": ("config/{slug}.config",
            lambda n, v: (f'<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <appSettings>\n'
                          f'    <add key="{_pascal(n)}" value="{v}" />\n  </appSettings>\n</configuration>\n')),
    "properties": ("src/main/resources/{slug}.properties",
                   lambda n, v: f"app.region=eu-west-1\n{n.lower().replace('_', '.')}={v}\napp.retries=3\n"),
    "python": ("tidewatch/settings_{slug_}.py",
               lambda n, v: f'import os\n\n{n} = "{v}"\nREGION = os.environ.get("REGION", "eu-west-1")\n'),
    "javascript": ("src/config/{slug}.js",
                   lambda n, v: f'export const config = {{\n  region: "eu-west-1",\n  {_camel(n)}: "{v}",\n}};\n'),
    "php": ("config/{slug}.php", lambda n, v: f"<?php\ndefine('APP_REGION', 'eu-west-1');\ndefine('{n}', '{v}');\n"),
    "go": ("internal/config/{slug_}.go", lambda n, v: f'package config\n\nconst {_pascal(n)} = "{v}"\n'),
    "ruby": ("config/initializers/{slug_}.rb",
             lambda n, v: f'Rails.application.configure do\n  config.x.{_snake(n)} = "{v}"\nend\n'),
    "terraform": ("infra/{slug}.tf",
                  lambda n, v: f'provider "service" {{\n  region = "eu-west-1"\n  {_snake(n)} = "{v}"\n}}\n'),
    "dockerfile": ("docker/{slug}.Dockerfile",
                   lambda n, v: f'FROM python:3.12-slim\nWORKDIR /app\nENV {n}={v}\nCMD ["python", "-m", "app"]\n'),
}


# ---------------------------------------------------------------------------------------------------------
# Recipes: one planted value each


@dataclass(frozen=True)
class Recipe:
    value_id: str
    family: str  # provider-format, or the kind of context that gives the secret away
    file_format: str
    path: str
    name: str  # the key it is given in a tool's JSON input or a URL's query
    make: Maker
    shown: Callable[[str], str] = lambda v: v  # what holds it as a setting: the token, or a connection string…
    content: Callable[[str], str] | None = None  # the file holding it (None: the format's own NAME = value)
    provider: str | None = None
    leading: int = 0  # lines above the value's own that give it its name, shown with it by a prompt, a reply, an edit


def _text(template: str) -> Callable[[str], str]:
    return lambda v: template.replace("{v}", v)


def _pem(kind: str, lines: int, width: int = 64) -> Maker:
    def make(d: Draw) -> str:
        body = [d(B64, width) for _ in range(lines)] + [d(B64, width // 2) + "=="]
        return "\n".join([f"-----BEGIN {kind}-----", *body, f"-----END {kind}-----"])
    return make


def _openssh(d: Draw) -> str:
    body = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"]
    body += [d(B64, 70) for _ in range(5)] + [d(B64, 20) + "="]
    return "\n".join(["-----BEGIN OPENSSH PRIVATE KEY-----", *body, "-----END OPENSSH PRIVATE KEY-----"])


def _b64_of(inner: Callable[[Draw], str]) -> Maker:
    """The base64 of a secret: its keys come from the encoded text, which is what a page would show."""
    def make(d: Draw) -> str:
        encoded = _b64(inner(Draw(d.rng.random().hex())))
        # A key's base64 starts with its fixed head (`-----BEGIN …`), which certificates share.
        d.mark(encoded[24:] if encoded.startswith("LS0tLS1") else encoded)
        return encoded
    return make


def _service_account(v: str) -> str:
    return ('{\n  "type": "service_account",\n  "project_id": "tidewatch-prod",\n'
            '  "private_key_id": "5f0c2e3a4d4e6f8a9b0c1d2e3f4a5b6c7d8e9f01",\n'
            f'  "private_key": {json.dumps(v + chr(10))},\n'
            '  "client_email": "deploy@tidewatch-prod.iam.gserviceaccount.com"\n}\n')


def _kubeconfig(v: str) -> str:
    return ("apiVersion: v1\nkind: Config\nusers:\n- name: ada\n  user:\n"
            "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=\n"
            f"    client-key-data: {v}\ncurrent-context: tidewatch\n")


def _pw(d: Draw) -> str:
    return d.password()


CONTEXT_RECIPES: list[Recipe] = [
    # A name that says "secret", however it is written.
    Recipe("env-api-token", "secret-name", "env", "deploy/staging.env", "API_TOKEN", lambda d: "Qm7" + d(ALNUM, 29),
           content=_text("APP_ENV=staging\nAPI_TOKEN={v}\nLOG_LEVEL=debug\n")),
    Recipe("ini-password-spaces", "secret-name", "ini", "config/db.ini", "password", _pw,
           content=_text("[database]\nhost = db.internal\nport = 5432\npassword = {v}\n")),
    Recipe("js-camel-apiKey", "secret-name", "javascript", "src/client.js", "apiKey", lambda d: d(ALNUM, 32),
           content=_text('const client = new Client({\n  baseUrl: "https://api.example.com",\n  apiKey: "{v}",\n});\n')),
    Recipe("json-camel-clientSecret", "secret-name", "json", "config/oauth.json", "clientSecret",
           lambda d: d(URLSAFE, 40),
           content=_text('{\n  "clientId": "tidewatch-web",\n  "clientSecret": "{v}",\n'
                         '  "redirectUri": "https://tidewatch.example.com/callback"\n}\n')),
    Recipe("env-db-pass", "abbreviated-name", "env", "deploy/db.env", "DB_PASS", _pw,
           content=_text("DB_HOST=db.internal\nDB_USER=app\nDB_PASS={v}\n")),
    Recipe("yaml-pwd", "abbreviated-name", "yaml", "config/mysql.yaml", "pwd", _pw,
           content=_text("mysql:\n  host: db.internal\n  user: app\n  pwd: {v}\n")),
    Recipe("ini-passwd", "abbreviated-name", "ini", "config/client.cnf", "passwd", _pw,
           content=_text("[client]\nuser = app\npasswd = {v}\n")),
    Recipe("env-pwd", "abbreviated-name", "env", "deploy/mssql.env", "SA_PWD", _pw,
           content=_text("ACCEPT_EULA=Y\nSA_PWD={v}\n")),
    Recipe("shell-export", "secret-name", "shell", "dotfiles/bashrc.sh", "STAGING_SECRET", lambda d: d(ALNUM, 28),
           content=_text('# ~/.bashrc\nexport PATH="$HOME/bin:$PATH"\nexport STAGING_SECRET={v}\n')),
    Recipe("toml-token", "secret-name", "toml", "dotfiles/cargo-credentials.toml", "token", lambda d: d(ALNUM, 32),
           content=_text('[registries.internal]\ntoken = "{v}"\n')),
    Recipe("python-secret-key", "high-entropy-after-name", "python", "tidewatch/settings.py", "SECRET_KEY",
           lambda d: d(URLSAFE, 50),
           content=_text('DEBUG = False\nSECRET_KEY = "{v}"\nALLOWED_HOSTS = ["tidewatch.example.com"]\n')),
    Recipe("ruby-secret-key-base", "high-entropy-after-name", "ruby", "config/environments/production.rb",
           "secret_key_base", lambda d: d(HEX, 128),
           content=_text('Rails.application.configure do\n  config.secret_key_base = "{v}"\nend\n')),
    Recipe("go-api-secret", "high-entropy-after-name", "go", "internal/auth/keys.go", "apiSecret",
           lambda d: d(ALNUM, 40), content=_text('package auth\n\nconst apiSecret = "{v}"\n')),
    Recipe("python-password-kwarg", "secret-name", "python", "tidewatch/db.py", "password", _pw,
           content=_text('def connect():\n    return psycopg.connect(host="db.internal", user="app",\n'
                         '                           password="{v}")\n')),
    Recipe("php-define-password", "secret-name", "php", "wp-config.php", "DB_PASSWORD", _pw,
           content=_text("<?php\ndefine('DB_NAME', 'ledger');\ndefine('DB_PASSWORD', '{v}');\n")),
    Recipe("tfvars-password", "secret-name", "terraform", "infra/prod.tfvars", "db_password", _pw,
           content=_text('db_username = "app"\ndb_password = "{v}"\n')),
    Recipe("compose-password", "secret-name", "yaml", "docker-compose.yml", "POSTGRES_PASSWORD", _pw,
           content=_text("services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: {v}\n")),
    Recipe("dockerfile-arg-token", "secret-name", "dockerfile", "Dockerfile", "PIP_INDEX_TOKEN",
           lambda d: d(ALNUM, 30),
           content=_text("FROM python:3.12-slim\nARG PIP_INDEX_TOKEN={v}\nRUN pip install -r requirements.txt\n")),
    Recipe("properties-smtp-password", "secret-name", "properties", "src/main/resources/mail.properties",
           "mail.smtp.password", _pw,
           content=_text("mail.smtp.host=smtp.internal\nmail.smtp.user=alerts\nmail.smtp.password={v}\n")),
    # Services whose keys have no shape of their own: known only by the name beside them.
    Recipe("datadog-api-key", "secret-name", "env", "deploy/datadog.env", "DD_API_KEY", lambda d: d(HEX, 32),
           content=_text("DD_SITE=datadoghq.eu\nDD_API_KEY={v}\n")),
    Recipe("twilio-auth-token", "secret-name", "env", "deploy/twilio.env", "TWILIO_AUTH_TOKEN", lambda d: d(HEX, 32),
           content=_text("TWILIO_ACCOUNT_SID=AC0f1e2d3c4b5a69788796a5b4c3d2e1f0\nTWILIO_AUTH_TOKEN={v}\n")),
    Recipe("cloudflare-api-token", "secret-name", "shell", "scripts/dns.sh", "CLOUDFLARE_API_TOKEN",
           lambda d: d(URLSAFE, 40), content=_text("#!/bin/sh\nexport CLOUDFLARE_API_TOKEN={v}\nflarectl dns list\n")),
    Recipe("heroku-legacy-uuid-key", "secret-name", "env", "deploy/heroku.env", "HEROKU_API_KEY",
           lambda d: d.mark(d.uuid()), content=_text("HEROKU_APP=tidewatch\nHEROKU_API_KEY={v}\n")),
    Recipe("algolia-admin-key", "secret-name", "yaml", "config/search.yaml", "ALGOLIA_ADMIN_KEY",
           lambda d: d(HEX, 32), content=_text("algolia:\n  app_id: LX2K9Q0ZTB\n  ALGOLIA_ADMIN_KEY: {v}\n")),
    Recipe("okta-api-token", "secret-name", "yaml", "config/okta.yaml", "token", lambda d: "00" + d(URLSAFE, 40),
           content=_text("okta:\n  client:\n    orgUrl: https://acme.okta.com\n    token: {v}\n")),
    # Credential files: the place says what the value is.
    Recipe("aws-credentials-file", "credential-file", "ini", "/home/ada/.aws/credentials", "aws_secret_access_key",
           lambda d: d(B64, 40),
           content=_text("[default]\naws_access_key_id = AKIAQX4NOTAKEYATALL7\naws_secret_access_key = {v}\n"
                         "region = eu-west-1\n")),
    Recipe("netrc-password", "credential-file", "netrc", "/home/ada/.netrc", "password", _pw,
           content=_text("machine api.example.com\n  login ada\n  password {v}\n")),
    Recipe("pgpass-line", "credential-file", "pgpass", "/home/ada/.pgpass", "password", _pw,
           content=_text("# hostname:port:database:username:password\ndb.internal:5432:ledger:app:{v}\n")),
    Recipe("git-credentials", "credential-file", "git-credentials", "/home/ada/.git-credentials", "password", _pw,
           content=_text("https://ada:{v}@git.internal\n")),
    Recipe("npmrc-authtoken", "credential-file", "npmrc", "/home/ada/.npmrc", "_authToken",
           lambda d: d.mark(d.uuid()),
           content=_text("registry=https://npm.internal/\n//npm.internal/:_authToken={v}\n")),
    # Connection strings, URLs and not.
    Recipe("jdbc-password", "connection-string", "properties", "src/main/resources/application.properties",
           "spring.datasource.url", _pw,
           shown=_text("jdbc:postgresql://db.internal:5432/ledger?user=app&password={v}&ssl=true"),
           content=_text("spring.jpa.open-in-view=false\nspring.datasource.url=jdbc:postgresql://db.internal:5432/"
                         "ledger?user=app&password={v}&ssl=true\n")),
    Recipe("ado-connection-string", "connection-string", "json", "appsettings.json", "Default", _pw,
           shown=_text("Server=tcp:sql.internal,1433;Database=ledger;User ID=app;Password={v};Encrypt=True;"),
           content=_text('{\n  "ConnectionStrings": {\n    "Default": "Server=tcp:sql.internal,1433;Database=ledger;'
                         'User ID=app;Password={v};Encrypt=True;"\n  }\n}\n')),
    Recipe("odbc-connection-string", "connection-string", "ini", "config/odbc.ini", "ConnectionString", _pw,
           shown=_text("Driver={ODBC Driver 18 for SQL Server};Server=sql.internal;Uid=report;Pwd={v};"),
           content=_text("[report]\nConnectionString = Driver={ODBC Driver 18 for SQL Server};Server=sql.internal;"
                         "Uid=report;Pwd={v};\n")),
    Recipe("redis-url-no-user", "connection-string", "env", "deploy/cache.env", "REDIS_URL", _pw,
           shown=_text("redis://:{v}@cache.internal:6379/0"),
           content=_text("CACHE_TTL=300\nREDIS_URL=redis://:{v}@cache.internal:6379/0\n")),
    Recipe("amqp-url", "connection-string", "yaml", "config/broker.yaml", "url", _pw,
           shown=_text("amqp://ledger:{v}@rabbit.internal:5672/ledger"),
           content=_text("broker:\n  url: amqp://ledger:{v}@rabbit.internal:5672/ledger\n  prefetch: 10\n")),
    Recipe("postgres-url", "connection-string", "env", "deploy/app.env", "DATABASE_URL", _pw,
           shown=_text("postgres://ledger:{v}@db.internal:5432/ledger"),
           content=_text("PORT=8080\nDATABASE_URL=postgres://ledger:{v}@db.internal:5432/ledger\n")),
    Recipe("mongodb-srv-url", "connection-string", "javascript", "src/db.js", "uri", _pw,
           shown=_text("mongodb+srv://app:{v}@cluster0.example.mongodb.net/ledger?retryWrites=true"),
           content=_text('import mongoose from "mongoose";\n\nawait mongoose.connect(\n'
                         '  "mongodb+srv://app:{v}@cluster0.example.mongodb.net/ledger?retryWrites=true");\n')),
    Recipe("git-clone-url", "connection-string", "shell", "scripts/mirror.sh", "remote", _pw,
           shown=_text("https://ada:{v}@git.internal/ledger.git"),
           content=_text("#!/bin/sh\ngit clone https://ada:{v}@git.internal/ledger.git /srv/mirror\n")),
    Recipe("azure-storage-connection", "connection-string", "env", "deploy/azure.env",
           "AZURE_STORAGE_CONNECTION_STRING", lambda d: d(B64, 86) + "==",
           shown=_text("DefaultEndpointsProtocol=https;AccountName=tidewatch;AccountKey={v};"
                       "EndpointSuffix=core.windows.net"),
           content=_text("AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=tidewatch;"
                         "AccountKey={v};EndpointSuffix=core.windows.net\n")),
    Recipe("azure-sas-signature", "connection-string", "env", "deploy/backup.env", "BACKUP_URL",
           lambda d: quote(d(B64, 43) + "=", safe=""),
           shown=_text("https://tidewatch.blob.core.windows.net/backups?sv=2022-11-02&sp=rl&se=2026-12-31&sig={v}"),
           content=_text("BACKUP_URL=https://tidewatch.blob.core.windows.net/backups?sv=2022-11-02&sp=rl"
                         "&se=2026-12-31&sig={v}\n")),
    # Base64 under a secret's key, and base64 of a known token.
    Recipe("k8s-secret-data", "base64-under-key", "yaml", "k8s/db-secret.yaml", "password", _b64_of(_pw),
           content=_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: ledger-db\ntype: Opaque\ndata:\n"
                         "  username: bGVkZ2Vy\n  password: {v}\n")),
    Recipe("kubeconfig-client-key-data", "base64-under-key", "yaml", "/home/ada/.kube/config", "client-key-data",
           _b64_of(_pem("RSA PRIVATE KEY", 8)), content=_kubeconfig),
    Recipe("kubeconfig-token", "base64-under-key", "yaml", "/home/ada/.kube/ci-config", "token",
           lambda d: d(ALNUM, 48),
           content=_text("apiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n    token: {v}\n")),
    Recipe("npm-_auth", "base64-under-key", "npmrc", "project.npmrc", "_auth",
           _b64_of(lambda d: "ada:" + d.password()),
           content=_text("registry=https://registry.example.com/\n_auth={v}\nalways-auth=true\n")),
    Recipe("docker-config-auth", "base64-under-key", "json", "/home/ada/.docker/config.json", "auth",
           _b64_of(lambda d: "ada:" + d.password()),
           content=_text('{\n  "auths": {\n    "registry.example.com": {\n      "auth": "{v}"\n    }\n  }\n}\n')),
    Recipe("base64-of-github-token", "base64-of-token", "shell", "scripts/restore-token.sh", "encoded",
           _b64_of(lambda d: "ghp_" + d(ALNUM, 36)),
           content=_text("#!/bin/sh\necho '{v}' | base64 -d > ~/.config/gh/token\n")),
    Recipe("basic-auth-header", "http-header", "http", "requests/ledger.http", "Authorization",
           _b64_of(lambda d: "svc-ledger:" + d.password()), shown=_text("Basic {v}"),
           content=_text("GET https://api.example.com/v1/ledger\nAuthorization: Basic {v}\nAccept: application/json\n")),
    # Private keys: whole, in base64 lines, or escaped inside a JSON or source string.
    Recipe("rsa-private-key", "private-key", "pem", "deploy/id_rsa.pem", "private_key", _pem("RSA PRIVATE KEY", 12),
           content=lambda v: v + "\n"),
    Recipe("openssh-private-key", "private-key", "openssh", "/home/ada/.ssh/id_ed25519", "private_key", _openssh,
           content=lambda v: v + "\n"),
    Recipe("ec-private-key", "private-key", "pem", "deploy/signing-ec.pem", "private_key", _pem("EC PRIVATE KEY", 3),
           content=lambda v: v + "\n"),
    Recipe("pgp-private-key", "private-key", "pgp", "keys/release.asc", "private_key",
           _pem("PGP PRIVATE KEY BLOCK", 6), content=lambda v: v + "\n"),
    Recipe("json-escaped-private-key", "private-key", "json", "keys/tidewatch-prod-sa.json", "private_key",
           _pem("PRIVATE KEY", 10), content=_service_account),
    Recipe("python-escaped-private-key", "private-key", "python", "tidewatch/signing.py", "SIGNING_KEY",
           _pem("PRIVATE KEY", 4),
           content=lambda v: f'SIGNING_KEY = "{v.replace(chr(10), chr(92) + "n")}\\n"\n\ndef sign(data): ...\n'),
    # XML attributes.
    Recipe("xml-add-key-apikey", "xml-attribute", "xml", "web.config", "ApiKey", lambda d: d(ALNUM, 32),
           content=_text('<configuration>\n  <appSettings>\n    <add key="ApiKey" value="{v}" />\n'
                         '  </appSettings>\n</configuration>\n')),
    Recipe("xml-password-attribute", "xml-attribute", "xml", "conf/context.xml", "password", _pw,
           content=_text('<Context>\n  <Resource name="jdbc/ledger" url="jdbc:postgresql://db.internal/ledger"\n'
                         '            username="app" password="{v}" />\n</Context>\n')),
    Recipe("nuget-cleartext-password", "xml-attribute", "xml", "nuget.config", "ClearTextPassword", _pw,
           content=_text('<configuration>\n  <packageSourceCredentials>\n    <internal>\n'
                         '      <add key="Username" value="ada" />\n'
                         '      <add key="ClearTextPassword" value="{v}" />\n'
                         '    </internal>\n  </packageSourceCredentials>\n</configuration>\n')),
    # Command-line flags.
    Recipe("cli-password-flag", "cli-flag", "shell", "scripts/migrate.sh", "password", _pw,
           shown=_text("--password {v}"),
           content=_text("#!/bin/sh\n./bin/ledger-admin migrate --user app --password {v} --yes\n")),
    Recipe("cli-token-equals", "cli-flag", "shell", "scripts/deploy-preview.sh", "token", lambda d: d(ALNUM, 24),
           shown=_text("--token={v}"), content=_text("#!/bin/sh\nnpx vercel deploy --prod --token={v}\n")),
    Recipe("mysql-dash-p", "cli-flag", "shell", "scripts/restore-db.sh", "command", _pw,
           shown=_text("mysql -u root -p{v} ledger"),
           content=_text("#!/bin/sh\nmysql -u root -p{v} ledger < dump.sql\n")),
    Recipe("curl-dash-u", "cli-flag", "shell", "scripts/trigger-build.sh", "command", _pw,
           shown=_text("curl -fsS -u deploy:{v} https://ci.internal/job/ledger/build"),
           content=_text("#!/bin/sh\ncurl -fsS -u deploy:{v} https://ci.internal/job/ledger/build\n")),
    Recipe("docker-login-stdin", "cli-flag", "shell", "scripts/registry-login.sh", "command",
           lambda d: d(ALNUM, 32), shown=_text("echo {v} | docker login -u ada --password-stdin registry.example.com"),
           content=_text("#!/bin/sh\necho {v} | docker login -u ada --password-stdin registry.example.com\n")),
    # A value in a collection given to a secret-like name, or given beside one: a list's items, a block of
    # lines, an environment variable as a name and a value.
    Recipe("yaml-list-under-name", "value-in-collection", "yaml", "config/rotation.yaml", "api_keys",
           lambda d: d(ALNUM, 32), leading=1,
           content=_text("rotation:\n  schedule: weekly\n  api_keys:\n    - {v}\n    - retired\n  notify: ops\n")),
    Recipe("yaml-list-same-indent", "value-in-collection", "yaml", "config/admins.yaml", "access_keys",
           lambda d: d(ALNUM, 40), leading=1,
           content=_text("admins:\n  - ada\naccess_keys:\n- {v}\nregion: eu-west-1\n")),
    Recipe("yaml-block-scalar", "value-in-collection", "yaml", "config/smtp.yaml", "smtp_password", _pw, leading=1,
           content=_text("smtp:\n  host: mail.internal\n  smtp_password: |\n    {v}\n  port: 587\n")),
    Recipe("terraform-heredoc", "value-in-collection", "terraform", "infra/signing.tf", "signing_secret",
           lambda d: d(ALNUM, 40), leading=1,
           content=_text('resource "vault_generic_secret" "signing" {\n  signing_secret = <<-EOT\n    {v}\n  EOT\n'
                         '  path = "secret/signing"\n}\n')),
    Recipe("ruby-heredoc", "value-in-collection", "ruby", "config/initializers/mail.rb", "SMTP_PASSWORD", _pw,
           leading=1, content=_text("SMTP_PASSWORD = <<~PASS.strip\n  {v}\nPASS\nSMTP_PORT = 587\n")),
    Recipe("yaml-flow-list", "value-in-collection", "yaml", "config/webhooks.yaml", "webhook_secret",
           lambda d: d(ALNUM, 28),
           content=_text("webhooks:\n  url: https://hooks.example.com/in\n  webhook_secret: [{v}, rotated-out]\n")),
    Recipe("json-array-under-name", "value-in-collection", "json", "config/keys.json", "apiKeys",
           lambda d: d(URLSAFE, 40), leading=1,
           content=_text('{\n  "service": "ingest",\n  "apiKeys": [\n    "{v}",\n    "k2-retired"\n  ]\n}\n')),
    Recipe("toml-array-under-name", "value-in-collection", "toml", "config/tokens.toml", "registry_token",
           lambda d: d(ALNUM, 32), content=_text('[ci]\nrunner = "linux"\nregistry_token = ["{v}"]\n')),
    Recipe("python-list-under-name", "value-in-collection", "python", "tidewatch/keys.py", "API_KEYS",
           lambda d: d(ALNUM, 36), leading=1, content=_text('API_KEYS = [\n    "{v}",\n]\nTIMEOUT = 30\n')),
    Recipe("k8s-env-name-value", "name-beside-value", "yaml", "k8s/deployment.yaml", "DB_PASSWORD", _pw, leading=1,
           content=_text("    env:\n      - name: LOG_LEVEL\n        value: info\n      - name: DB_PASSWORD\n"
                         "        value: {v}\n")),
    Recipe("ecs-env-name-value", "name-beside-value", "json", "infra/task-definition.json", "API_TOKEN",
           lambda d: d(ALNUM, 32),
           content=_text('{\n  "environment": [\n    {"name": "REGION", "value": "eu-west-1"},\n'
                         '    {"name": "API_TOKEN", "value": "{v}"}\n  ]\n}\n')),
    Recipe("terraform-env-name-value", "name-beside-value", "terraform", "infra/app.tf", "STRIPE_SECRET", _pw,
           leading=1, content=_text('env {\n  name  = "STRIPE_SECRET"\n  value = "{v}"\n}\n')),
    # HTTP headers.
    Recipe("authorization-bearer", "http-header", "shell", "scripts/whoami.sh", "Authorization",
           lambda d: d(URLSAFE, 40), shown=_text("Bearer {v}"),
           content=_text("#!/bin/sh\ncurl -H 'Authorization: Bearer {v}' https://api.example.com/v1/me\n")),
    Recipe("x-api-key-header", "http-header", "http", "requests/ingest.http", "X-Api-Key", lambda d: d(ALNUM, 32),
           content=_text("POST https://api.example.com/v1/ingest\nX-Api-Key: {v}\nContent-Type: application/json\n")),
    Recipe("cookie-session-header", "http-header", "http", "requests/admin.http", "Cookie",
           lambda d: d(URLSAFE, 48), shown=_text("session={v}; theme=dark"),
           content=_text("GET https://admin.example.com/dashboard\nCookie: session={v}; theme=dark\n")),
]


def _provider_recipes() -> list[Recipe]:
    """Each provider's token once, in the formats by turns; the first 45 again in another format."""
    formats = list(FORMATS)
    recipes = []
    for index, (provider, name, make) in enumerate(PROVIDERS):
        for round_ in (0, 1) if index < 45 else (0,):
            file_format = formats[(index + 7 * round_) % len(formats)]
            slug = f"{provider}-{round_ + 1}"
            path = FORMATS[file_format][0].format(slug=slug, slug_=slug.replace("-", "_"))
            recipes.append(Recipe(f"{provider}@{file_format}", "provider-format", file_format, path, name, make,
                                  provider=provider))
    return recipes


RECIPES: list[Recipe] = _provider_recipes() + CONTEXT_RECIPES

# ---------------------------------------------------------------------------------------------------------
# The ways a session shows a value


@dataclass(frozen=True)
class Planted:
    """One recipe's value, as one way shows it."""
    value_id: str
    family: str
    way: str
    value: str
    keys: tuple[str, ...]


@dataclass
class Shown:
    recipe: Recipe
    value: str
    keys: tuple[str, ...]
    path: str = ""
    content: str = ""
    lines: list[str] = field(default_factory=list)
    span: list[int] = field(default_factory=list)  # indexes of the lines that hold the secret

    @property
    def relative(self) -> str:
        return self.path.removeprefix(CWD + "/")


def show(recipe: Recipe, way: str) -> Shown:
    draw = Draw(f"{recipe.value_id}|{way}")
    value = recipe.make(draw)
    keys = keys_of(draw.parts)
    path = recipe.path if recipe.path.startswith("/") else f"{CWD}/{recipe.path}"
    if recipe.content is not None:
        content = recipe.content(value)
    else:
        content = FORMATS[recipe.file_format][1](recipe.name, recipe.shown(value))
    lines = content.splitlines()
    span = [i for i, line in enumerate(lines) if any(key in line for key in keys)]
    assert span, f"{recipe.value_id}: its file does not hold it"
    return Shown(recipe, value, keys, path, content, lines, span)


def numbered(lines: list[str], separator: str) -> str:
    """A file as Claude Code's Read tool returns it: `cat -n` numbering (`     2\\t`) or the arrow (`     2→`)."""
    return "\n".join(f"{number:>6}{separator}{line}" for number, line in enumerate(lines, start=1))


def _read(s: Shown, separator: str) -> list[dict]:
    call = tool_use("Read", {"file_path": s.path})
    structured = {"type": "text", "file": {"filePath": s.path, "content": s.content, "numLines": len(s.lines),
                                           "startLine": 1, "totalLines": len(s.lines)}}
    return [assistant(call), tool_result(call["id"], numbered(s.lines, separator), structured=structured)]


def _bash(command: str, stdout: str, description: str) -> list[dict]:
    call = tool_use("Bash", {"command": command, "description": description})
    structured = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
    return [assistant(call), tool_result(call["id"], stdout, structured=structured)]


def _grep_match(s: Shown) -> tuple[int, str]:
    """The line grep finds and the word it is asked for: the value's name, or another word of the line
    the value starts on, or of the line before it (a private key's BEGIN); never a piece of the value."""
    pieces = [piece for piece in (*s.value.splitlines(), json.dumps(s.value)[1:-1], s.value.replace("\n", "\\n"))
              if any(key in piece for key in s.keys)]
    # A value its name gives on the line above (`name: DB_PASSWORD` then `value: …`) is looked for by that name.
    for index in (s.span[0] - s.recipe.leading, s.span[0]) if s.recipe.leading else (s.span[0], s.span[0] - 1):
        line = s.lines[index] if index >= 0 else ""
        for piece in sorted(pieces, key=len, reverse=True):
            line = line.replace(piece, " ")
        if s.recipe.name in line:
            return index, s.recipe.name
        words = re.findall(r"[A-Za-z]{3,}", line)
        if words:
            return index, max(words, key=len)
    raise AssertionError(f"{s.recipe.value_id}: nothing to grep for")


def _grep_lines(s: Shown, prefix: str) -> str:
    """grep -n's output for the secret's lines: `N:` for the match, `N-` for the lines after it (-A)."""
    first, _ = _grep_match(s)
    out = []
    for index in range(first, s.span[-1] + 1):
        separator = ":" if index == first else "-"
        out.append(f"{prefix}{separator if prefix else ''}{index + 1}{separator}{s.lines[index]}")
    return "\n".join(out)


def _pattern(s: Shown) -> str:
    first, word = _grep_match(s)
    after = f" -A{s.span[-1] - first}" if s.span[-1] > first else ""
    return f"grep -n{after} -- {shlex.quote(word)}"


def way_prompt(s: Shown) -> list[dict]:
    if s.recipe.family == "provider-format":
        return [user(f"The deploy job fails with {s.value} as the credential. Is it expired, or the wrong scope?")]
    held = "\n".join(s.lines[i] for i in range(s.span[0] - s.recipe.leading, s.span[-1] + 1))
    return [user(f"This is in {s.relative} and the service still refuses it:\n\n{held}\n\nWhat is wrong with it?")]


def way_assistant_reply(s: Shown) -> list[dict]:
    """Claude quoting the value back in its reply."""
    if s.recipe.family == "provider-format":
        return [assistant(text(f"`{s.value}` is the credential the job sends; it was revoked yesterday."))]
    held = "\n".join(s.lines[i] for i in range(s.span[0] - s.recipe.leading, s.span[-1] + 1))
    return [assistant(text(f"In `{s.relative}` the value is read as it stands:\n\n```\n{held}\n```\n\n"
                           "It has to be rotated: it was in the log."))]


def way_read_tab(s: Shown) -> list[dict]:
    return _read(s, "\t")


def way_read_arrow(s: Shown) -> list[dict]:
    return _read(s, "\u2192")


def way_bash_cat(s: Shown) -> list[dict]:
    return _bash(f"cat {shlex.quote(s.relative)}", s.content, "Show the configuration file")


def way_grep_with_path(s: Shown) -> list[dict]:
    folder = s.relative.rsplit("/", 1)[0] if "/" in s.relative else "."
    command = _pattern(s).replace("grep -n", "grep -rn", 1) + f" {shlex.quote(folder)}/"
    return _bash(command, _grep_lines(s, s.relative), "Find where it is set")


def way_grep_number(s: Shown) -> list[dict]:
    return _bash(f"{_pattern(s)} {shlex.quote(s.relative)}", _grep_lines(s, ""), "Find the line")


def way_write(s: Shown) -> list[dict]:
    call = tool_use("Write", {"file_path": s.path, "content": s.content})
    structured = {"type": "create", "filePath": s.path, "content": s.content, "structuredPatch": [],
                  "originalFile": None}
    return [assistant(call), tool_result(call["id"], f"File created successfully at: {s.path}", structured=structured)]


def way_edit(s: Shown) -> list[dict]:
    """An Edit that puts the value where a placeholder was."""
    held = next(form for form in (s.value, json.dumps(s.value)[1:-1], s.value.replace("\n", "\\n"))
                if form in s.content)
    original = s.content.replace(held, "changeme")
    first = s.content[:s.content.index(held)].count("\n")
    last = first + held.count("\n")
    old_string = "\n".join(original.splitlines()[first - s.recipe.leading:first + 1])
    new_string = "\n".join(s.lines[first - s.recipe.leading:last + 1])
    call = tool_use("Edit", {"file_path": s.path, "old_string": old_string, "new_string": new_string})
    patch = [{"oldStart": first + 1, "oldLines": 1, "newStart": first + 1, "newLines": last - first + 1,
              "lines": [f"-{old_string}", *(f"+{line}" for line in new_string.splitlines())]}]
    structured = {"filePath": s.path, "oldString": old_string, "newString": new_string, "originalFile": original,
                  "structuredPatch": patch, "userModified": False, "replaceAll": False}
    return [assistant(call), tool_result(call["id"], f"The file {s.path} has been updated successfully.",
                                         structured=structured)]


def way_tool_input(s: Shown) -> list[dict]:
    call = tool_use("mcp__config__apply_settings",
                    {"file": s.relative, "settings": {s.recipe.name: s.recipe.shown(s.value)}, "dry_run": False})
    return [assistant(call), tool_result(call["id"], [text(f"Applied 1 setting to {s.relative}.")])]


def way_fetched_url(s: Shown) -> list[dict]:
    shown = quote(s.recipe.shown(s.value), safe="")
    # A provider's token tells what it is anywhere; a secret known by its name is given under it.
    if s.recipe.family != "provider-format" or len(s.recipe.value_id) % 2:
        url = f"https://api.example.com/v1/verify?{quote(s.recipe.name, safe='')}={shown}&format=json"
    else:
        url = f"https://hooks.example.net/notify/{shown}/status"
    call = tool_use("WebFetch", {"url": url, "prompt": "Does the service accept this credential?"})
    answer = "The endpoint answered 401 Unauthorized: it refused the credential in the request."
    structured = {"bytes": 182, "code": 401, "codeText": "Unauthorized", "result": answer, "durationMs": 311,
                  "url": url}
    return [assistant(call), tool_result(call["id"], answer, structured=structured)]


WAYS: dict[str, Callable[[Shown], list[dict]]] = {
    "prompt": way_prompt,
    "assistant-reply": way_assistant_reply,
    "read-tab": way_read_tab,
    "read-arrow": way_read_arrow,
    "bash-cat": way_bash_cat,
    "grep-with-path": way_grep_with_path,
    "grep-n": way_grep_number,
    "write": way_write,
    "edit": way_edit,
    "tool-input": way_tool_input,
    "fetched-url": way_fetched_url,
}

# Values in the places around the transcript: the session's title (given, or Claude Code's own), its
# summary, its first prompt, a file's name, the git branch, an MCP server's name. (way, whose value it is:
# a provider's token, or a password known only by the words around it, which `{v}` stands for)
PLACEMENTS: list[tuple[str, str, str]] = [
    ("session-title", "github-pat", "Rotating {v}"),
    ("session-title", "groq", "Rotating {v}"),
    ("session-title", "password", "Why DB_PASSWORD={v} fails in prod"),
    ("ai-title", "huggingface", "Debug the {v} token"),
    ("summary", "linear", "Rotated {v} after the leak"),
    ("first-prompt", "anthropic-api", "Rotate {v} today, it was pasted in the channel."),
    ("first-prompt", "perplexity", "Rotate {v} today, it was pasted in the channel."),
    ("first-prompt", "password", "the db password is {v}, log in and check the ledger table"),
    ("file-name", "stripe-secret-live", "{v}"),
    ("file-name", "supabase", "{v}"),
    ("git-branch", "gitlab-pat", "{v}"),
    ("git-branch", "replicate", "{v}"),
    ("mcp-server-name", "npm", "{v}"),
    ("mcp-server-name", "slack-bot", "{v}"),
    ("mcp-server-name", "linear", "{v}"),
]


# ---------------------------------------------------------------------------------------------------------
# Look-alikes: what must come through whole.

LOOK_ALIKES: dict[str, str] = {
    "git-sha": "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "short-git-sha": "commit 9fceb02 on main",
    "uuid": "6f1e2d3c-4b5a-4987-8c6d-5e4f3a2b1c0d",
    "uuid-like-id": "req_011CUkQ5xTJ2n8RbV4dPz7Lw",
    "ulid": "01HZX3K4Q9WZ8T6V2R5N7M1B3C",
    "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "sha512": ("cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
               "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
    "npm-integrity": ("sha512-Kq5sNclPz7QV2+lfQIuu6R7dZcPzBBUU0WbiW6I4WOh1ZEqNr1gBaZc2z1E4fN2jq7r0vXkQvY5sC1"
                      "Fz2o7tEw=="),
    "docker-digest": "python@sha256:4b9b4e1d3f0cbb8b8f1e2c0f1d1b6a9e8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f",
    "go-sum": "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=",
    "base64-image": "data:image/png;base64," + base64.b64encode(PNG_BYTES).decode(),
    "token-type-bearer": "token_type: bearer",
    "key-list-of-columns": "primary_keys: [account_id, created_at]",
    "secret-names-listed": "secrets: [DB_PASSWORD, API_TOKEN]",
    "token-list-of-kinds": "tokens: [access, refresh]",
    "env-name-beside-setting": '{"name": "TOKEN_URL", "value": "https://auth.example.com/oauth/token"}',
    "env-secret-from-ref": '{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db"}}}',
    "max-tokens": "max_tokens: 4096",
    "environ-read": 'api_key = os.environ["API_KEY"]',
    "process-env-read": "const token = process.env.GITHUB_TOKEN;",
    "password-type-hint": "def login(user: str, password: str) -> Session:",
    "token-from-call": "token = get_token()",
    "prose": "Remember to rotate the password and the token before Friday; the auth flow reads both.",
    "placeholder-changeme": "DB_PASSWORD=changeme",
    "placeholder-variable": "DB_PASSWORD=${DB_PASSWORD}",
    "placeholder-angle": "API_KEY=<your-key>",
    "placeholder-stars": "password: ***",
    "placeholder-xxxx": "token: xxxx",
    "password-file-name": "DB_PASSWORD_FILE=/run/secrets/db_password",
    "token-url-name": "TOKEN_URL=https://auth.example.com/oauth/token",
}

LOOK_ALIKE_WAYS = ["prompt", "read-tab", "read-arrow", "bash-cat", "grep-n", "write", "tool-input"]


def _look_alike_entries(way: str) -> list[dict]:
    body = "\n".join(LOOK_ALIKES.values())
    lines = body.splitlines()
    path = f"{CWD}/notes/look-alikes.txt"
    if way == "prompt":
        return [user(f"These lines are fine to publish, right?\n\n```\n{body}\n```")]
    if way in ("read-tab", "read-arrow"):
        call = tool_use("Read", {"file_path": path})
        return [assistant(call), tool_result(call["id"], numbered(lines, "\t" if way == "read-tab" else "\u2192"))]
    if way == "bash-cat":
        return _bash("cat notes/look-alikes.txt", body, "Show the notes")
    if way == "grep-n":
        return _bash("grep -n -- . notes/look-alikes.txt",
                     "\n".join(f"{n}:{line}" for n, line in enumerate(lines, start=1)), "Number the lines")
    if way == "write":
        call = tool_use("Write", {"file_path": path, "content": body})
        return [assistant(call), tool_result(call["id"], f"File created successfully at: {path}")]
    call = tool_use("mcp__notes__save", {"name": "look-alikes", "lines": lines})
    return [assistant(call), tool_result(call["id"], [text("Saved.")])]


# ---------------------------------------------------------------------------------------------------------
# Writing the sessions


def session_id(number: int) -> str:
    return f"{number:08x}-5eed-4000-8000-{number:012x}"


@dataclass
class Corpus:
    project: Path
    planted: list[Planted]
    session_files: list[Path]
    look_alike_sessions: dict[str, str]  # way: session id


def write_corpus(root: Path) -> Corpus:
    """Every recipe in every way, one session per file format; the placements; the look-alikes."""
    project = root / PROJECT_DIR
    planted: list[Planted] = []
    files: list[Path] = []
    number = 0
    by_format: dict[str, list[Recipe]] = {}
    for recipe in RECIPES:
        by_format.setdefault(recipe.file_format, []).append(recipe)
    for file_format, recipes in by_format.items():
        number += 1
        sid = session_id(number)
        entries: list[dict] = [user(f"Let's go through the {file_format} configuration of tidewatch.", sessionId=sid)]
        for recipe in recipes:
            for way, write in WAYS.items():
                shown = show(recipe, way)
                planted.append(Planted(recipe.value_id, recipe.family, way, shown.value, shown.keys))
                for entry in write(shown):
                    entry["sessionId"] = sid
                    entries.append(entry)
        files.append(write_jsonl(project / f"{sid}.jsonl", chain(*entries)))
    makers: dict[str, Maker] = {provider: make for provider, _, make in PROVIDERS}
    makers["password"] = _pw
    for way, whose, template in PLACEMENTS:
        number += 1
        sid = session_id(number)
        draw = Draw(f"{whose}|{way}|{number}")
        value = makers[whose](draw)
        family = "placement-by-context" if whose == "password" else "placement"
        planted.append(Planted(f"{whose}@{way}", family, way, value, keys_of(draw.parts)))
        files.append(write_jsonl(project / f"{sid}.jsonl", _placement(way, template.replace("{v}", value), sid)))
    look_alike_sessions = {}
    for way in LOOK_ALIKE_WAYS:
        number += 1
        sid = session_id(number)
        entries = [user("Keep these as they are.", sessionId=sid), *_look_alike_entries(way)]
        for entry in entries:
            entry["sessionId"] = sid
        files.append(write_jsonl(project / f"{sid}.jsonl", chain(*entries)))
        look_alike_sessions[way] = sid
    return Corpus(project, planted, files, look_alike_sessions)


def _placement(way: str, shown: str, sid: str) -> list[dict[str, Any]]:
    fields: dict[str, Any] = {"sessionId": sid}
    if way == "git-branch":
        fields["gitBranch"] = f"rotate/{shown}"
    first = shown if way == "first-prompt" else "Rotate the credentials we talked about."
    entries: list[dict[str, Any]] = [user(first, **fields)]
    if way == "file-name":
        path = f"{CWD}/keys/{shown}.json"
        call = tool_use("Read", {"file_path": path})
        entries += [assistant(call, **fields), tool_result(call["id"], numbered(['{"rotated": false}'], "\u2192"),
                                                           **fields)]
    if way == "mcp-server-name":
        call = tool_use(f"mcp__deploy-{shown}__list_services", {"region": "eu-west-1"})
        entries += [assistant(call, **fields), tool_result(call["id"], [text("3 services")], **fields)]
    entries.append(assistant(text("Done: the old one no longer works."), **fields))
    if way == "session-title":
        entries.append(custom_title(shown, session_id=sid))
    if way == "ai-title":
        entries.append(ai_title(shown, session_id=sid))
    if way == "summary":
        entries.insert(0, summary(shown, entries[-1]["uuid"]))
    return chain(*entries)
