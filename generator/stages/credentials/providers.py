"""Token formats that providers publish, as rules: what a credential of each provider looks like.

Each rule pins a token to the format its provider gives it (and gitleaks, TruffleHog, detect-secrets and
GitHub's secret-scanning partners document): a literal prefix, an alphabet, a length. The rules are our
own, written from those facts, and every one is tested on an invented token of its format
(tests/test_providers.py).

A token is found where a token can start and end: not inside a longer run of its own characters (so a
hex digest, a base64 blob or an identifier that happens to hold `ghp_` is left alone), but also where
text puts one of those characters right before a token: a JSON escape (`\\nghp_…`, a `.env` file printed
inside a JSON string), an escaped URL character (`token%3Dghp_…`), a terminal's colour code, a diff's
`-` or `+`, `/bot` in a Telegram URL. The check is written after the literal prefix, not before it: a
pattern that starts with a literal is searched for as one (Python's re skips to it), one that starts
with a look-behind is tried at every position, 30 to 90 times slower.

Providers whose tokens have no literal or shape of their own (a 32-digit hex key, a uuid) are not here:
only the name they are given (DATADOG_API_KEY=…) tells them apart, and that is the context rules' work.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TokenRule:
    """One token format of one provider."""

    kind: str
    """The marker's name, lower-kebab: the page shows `[REDACTED:<kind>]`."""
    provider: str
    anchors: tuple[str, ...]
    """Literal substrings (case-sensitive), each at least 3 characters: every match of `pattern` holds at
    least one, so the rule need run only on text that holds one. Empty only when the format has no literal
    (then `look` says what every match holds)."""
    pattern: str
    """The whole match is the secret, or the group named `secret` when there is one."""
    flags: int = 0
    look: str = ""
    """For a rule without anchors: a cheap pattern that every match contains."""


# The characters most tokens are made of: a token is not found inside a longer run of them.
_TOKEN = "A-Za-z0-9_-"
# …and those of base64 (with `=` padding), for tokens of that alphabet.
_BASE64 = "A-Za-z0-9_+/=-"


# What may stand right before a token although it ends in one of the token's characters: a JSON escape
# (`\\n`, `\\t`: a .env file printed inside a JSON string; `\\u003e`), an escaped URL character (`%3D`), a
# terminal's colour code (`ESC[32m`, `ESC[1;31m`, `ESC[m`), the `-` or `+` that starts a diff's line.
_MAY_PRECEDE = (r"\\[nrt]", r"\\u[0-9A-Fa-f]{4}", "%[0-9A-Fa-f]{2}",
                r"\[m", r"[\[;][0-9]m", r"[\[;][0-9]{2}m", r"[\[;][0-9]{3}m",
                r"\n[-+]", r"\\n[-+]", "^[-+]")


def _starting(lead: str, run: str = _TOKEN, after: str = "") -> str:
    """`lead` (a pattern of fixed width that every match starts with) where a token may start: not right
    after one of the `run` characters, unless they end one of `_MAY_PRECEDE` or `after` (a literal the
    provider puts before its tokens). Checked behind the lead, so that re can search for the lead's
    literal."""
    # `=` ends base64, and assigns; `/` ends a URL's path segment: either may stand before a token.
    lead, run = f"(?:{lead})", run.replace("=", "").replace("/", "")
    allowed = "".join(f"|(?<={before}{lead})" for before in (*_MAY_PRECEDE, *([after] if after else [])))
    return f"{lead}(?:(?<![{run}]{lead}){allowed})"


def _end(run: str = _TOKEN) -> str:
    """Where a token ends: not before another of its characters."""
    return f"(?![{run}])"


_END = _end()
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# Ahead of a random part whose length varies: it is not all lower-case words, as placeholders are
# (`sk-proj-your-api-key-here`, `glpat-your-access-token`); 16 random letters and digits are all lower
# case about one time in a million. (A digit is no test: 24 random letters and digits hold none one time
# in 70.)
_NOT_WORDS = "(?![a-z_-]*(?![A-Za-z0-9_-]))"


_SLACK_WEBHOOK_PATH = r"(?:services|workflows|triggers)/[A-Za-z0-9_-]{1,64}(?:/[A-Za-z0-9_-]{1,64}){1,4}" + _END


def _token(lead: str, body: str, run: str = _TOKEN, after: str = "") -> str:
    """A token: `lead`, then `body`, standing alone in its text (or right after `after`)."""
    return _starting(lead, run, after) + body + _end(run)


# Ordered: where two rules could match the same text, the first names it (none is known to; the tests
# check each sample is found by its own rule alone).
TOKEN_RULES: tuple[TokenRule, ...] = (
    # -- AI model providers -----------------------------------------------------------------------------
    # Anthropic: sk-ant-api03- (API), sk-ant-admin01- (Admin API), sk-ant-oat01-/ort01- (OAuth access and
    # refresh, as Claude Code holds them); 95 characters after the prefix, ending in AA. Shorter ones, and
    # ones without the version, are still taken: a key cut by a terminal is still a key.
    TokenRule("anthropic-key", "Anthropic", ("sk-ant-",),
              _token("sk-ant-", "(?:[a-z]{2,8}[0-9]{2}-|(?![a-z]{2,8}[0-9]{2}-))" + _NOT_WORDS + "[A-Za-z0-9_-]{20,200}")),
    # OpenAI project, service-account, admin and user keys (sk-proj-…, up to 164 characters)…
    TokenRule("openai-key", "OpenAI", ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"),
              _token("sk-", "(?:proj|svcacct|admin|None)-" + _NOT_WORDS + "[A-Za-z0-9_-]{20,300}")),
    # …and any other key whose middle is base64 for "openai" (T3BlbkFJ), the legacy sk-<20>T3BlbkFJ<20> first.
    TokenRule("openai-key", "OpenAI", ("T3BlbkFJ",),
              _token("sk-", "(?!(?:proj|svcacct|admin|None)-)[A-Za-z0-9_-]{20,200}T3BlbkFJ[A-Za-z0-9_-]{20,200}")),
    TokenRule("openrouter-key", "OpenRouter", ("sk-or-v1-",), _token("sk-or-v1-", "[0-9a-f]{64}")),
    TokenRule("huggingface-token", "Hugging Face", ("hf_",), _token("hf_", "[A-Za-z0-9]{34}")),
    TokenRule("huggingface-token", "Hugging Face", ("api_org_",), _token("api_org_", "[A-Za-z0-9]{34}")),
    TokenRule("groq-key", "Groq", ("gsk_",), _token("gsk_", "[A-Za-z0-9]{52}")),
    TokenRule("replicate-token", "Replicate", ("r8_",), _token("r8_", "[A-Za-z0-9_-]{37}")),
    TokenRule("perplexity-key", "Perplexity", ("pplx-",), _token("pplx-", "[A-Za-z0-9]{48}")),
    TokenRule("xai-key", "xAI", ("xai-",), _token("xai-", "[A-Za-z0-9_]{80}")),
    # LangSmith personal (pt) and service (sk) keys: 32 hex, then 10 hex.
    TokenRule("langsmith-key", "LangChain", ("lsv2_pt_", "lsv2_sk_"),
              _token("lsv2_", "(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}")),
    TokenRule("pinecone-key", "Pinecone", ("pcsk_",), _token("pcsk_", "[A-Za-z0-9]{5,6}_[A-Za-z0-9]{63}")),
    TokenRule("nvidia-key", "NVIDIA", ("nvapi-",), _token("nvapi-", "[A-Za-z0-9_-]{64}")),
    TokenRule("elevenlabs-key", "ElevenLabs", ("sk_",), _token("sk_", "[0-9a-f]{48}")),
    TokenRule("tavily-key", "Tavily", ("tvly-",), _token("tvly-", "(?:dev-|prod-)?[A-Za-z0-9]{32}")),
    TokenRule("together-key", "Together AI", ("tgp_v1_",), _token("tgp_v1_", "[A-Za-z0-9_-]{40,64}")),
    TokenRule("firecrawl-key", "Firecrawl", ("fc-",), _token("fc-", "[0-9a-f]{32}")),
    # Langfuse's secret and public keys: a uuid after the prefix.
    TokenRule("langfuse-key", "Langfuse", ("sk-lf-", "pk-lf-"), _token("[sp]k-lf-", _UUID)),

    # -- Cloud platforms ------------------------------------------------------------------------------
    # AWS access key ids: long-term (AKIA), temporary from STS (ASIA), and the other id types; 16 base32
    # (AWS's own examples hold other digits: AKIAI44QH8DHBEXAMPLE).
    TokenRule("aws-access-key", "AWS", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
              _token("A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA", "[A-Z0-9]{16}")),
    # Amazon Bedrock long-term API keys: ABSK and base64.
    TokenRule("aws-bedrock-key", "AWS", ("ABSK",), _token("ABSK", "[A-Za-z0-9+/]{109,269}={0,2}", _BASE64)),
    TokenRule("google-api-key", "Google", ("AIza",), _token("AIza", "[A-Za-z0-9_-]{35}")),
    TokenRule("google-oauth-client-secret", "Google", ("GOCSPX-",), _token("GOCSPX-", "[A-Za-z0-9_-]{28}")),
    TokenRule("google-oauth-token", "Google", ("1//0",), _token("1//0", "[A-Za-z0-9_-]{40,512}")),
    TokenRule("google-oauth-token", "Google", ("ya29.",), _token(r"ya29\.", "[A-Za-z0-9_-]{30,2048}")),
    # A service account's key file names its key by a 40-hex id (the private key beside it is a PEM
    # block); the file's JSON may itself be inside a JSON string, its quotes escaped (`\\"`).
    TokenRule("gcp-service-account-key", "Google", ("private_key_id",),
              r'"private_key_id\\{0,3}"[ \t]*:[ \t]*\\{0,3}"(?P<secret>[0-9a-f]{40})\\{0,3}"'),
    # Firebase Cloud Messaging's legacy server key.
    TokenRule("firebase-messaging-key", "Google", (":APA91b",),
              _token("AAAA", "[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{134}")),
    # Azure storage account keys (64 bytes, base64) in a connection string.
    TokenRule("azure-storage-key", "Azure", ("AccountKey=",),
              r"AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)" + _end(_BASE64)),
    # A shared access signature's signature: an HMAC-SHA256 (43 base64 and `=`), perhaps URL-encoded.
    TokenRule("azure-sas-token", "Azure", ("sig=",),
              r"sig=(?<=[?&;]sig=)(?P<secret>(?:[A-Za-z0-9+/_-]|%2[BbFf]){43}(?:=|%3[Dd])?)(?![A-Za-z0-9+/=%_-])"),
    # Entra ID (Azure AD) client secrets: three characters, a digit, Q~, then 31 to 34.
    TokenRule("azure-ad-client-secret", "Azure", (),
              _token("[A-Za-z0-9_~.]", "[A-Za-z0-9_~.]{2}[0-9]Q~[A-Za-z0-9_~.-]{31,34}", "A-Za-z0-9_~.-"),
              look="Q~"),
    TokenRule("azure-container-registry-key", "Azure", ("+ACR",),
              _token("[A-Za-z0-9+/]", r"[A-Za-z0-9+/]{41}\+ACR[A-Za-z0-9]{6}", _BASE64)),
    # DigitalOcean personal access (dop), OAuth access (doo) and refresh (dor) tokens.
    TokenRule("digitalocean-token", "DigitalOcean", ("dop_v1_", "doo_v1_", "dor_v1_"),
              _token("do[por]_v1_", "[0-9a-f]{64}")),
    TokenRule("alibaba-access-key", "Alibaba Cloud", ("LTAI",), _token("LTAI", "[A-Za-z0-9]{12,20}")),
    TokenRule("tencent-secret-id", "Tencent Cloud", ("AKID",), _token("AKID", "[A-Za-z0-9]{32}")),
    TokenRule("scaleway-access-key", "Scaleway", ("SCW",), _token("SCW", "[A-Z0-9]{17}")),
    TokenRule("yandex-api-key", "Yandex Cloud", ("AQVN",), _token("AQVN", "[A-Za-z0-9_-]{35,38}")),
    TokenRule("yandex-iam-token", "Yandex Cloud", ("t1.",),
              _token(r"t1\.", r"[A-Za-z0-9_-]{20,400}={0,2}\.[A-Za-z0-9_-]{86}={0,2}", "A-Za-z0-9_=-")),
    TokenRule("heroku-key", "Heroku", ("HRKU-AA",), _token("HRKU-AA", "[A-Za-z0-9_-]{58}")),
    # Fly.io: an org or deploy token (fo1_), and macaroons (fm1a_, fm1r_, fm2_), several joined by commas.
    TokenRule("flyio-token", "Fly.io", ("fo1_",), _token("fo1_", "[A-Za-z0-9_-]{43}")),
    TokenRule("flyio-token", "Fly.io", ("fm1a_", "fm1r_", "fm2_"),
              _token("fm", r"(?:1[ar]|2)_[A-Za-z0-9+/]{100,4000}={0,3}(?:,fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,4000}={0,3}){0,8}",
                     _BASE64)),
    # Vercel personal, integration, app access and refresh tokens and API keys (prefixed since 2025).
    TokenRule("vercel-token", "Vercel", ("vcp_", "vci_", "vca_", "vcr_", "vck_"),
              _token("vc[piark]_", _NOT_WORDS + "[A-Za-z0-9]{24,80}")),
    TokenRule("netlify-token", "Netlify", ("nfp_",), _token("nfp_", "[A-Za-z0-9_]{36}")),
    # Cloudflare user and account API tokens and API keys: 40 letters and digits, 8 hex of checksum.
    TokenRule("cloudflare-api-token", "Cloudflare", ("cfut_", "cfat_", "cfk_"),
              _token("cf", "(?:ut|at|k)_[A-Za-z0-9]{40}[0-9a-f]{8}")),
    TokenRule("cloudflare-origin-ca-key", "Cloudflare", ("v1.0-",),
              _token(r"v1\.0-", "[0-9a-f]{24}-[0-9a-f]{146}")),
    TokenRule("supabase-token", "Supabase", ("sbp_",), _token("sbp_", "[0-9a-f]{40}")),
    TokenRule("supabase-token", "Supabase", ("sb_secret_",), _token("sb_secret_", "[A-Za-z0-9_-]{20,64}")),
    # Render API keys: 28 letters and digits seen, more allowed.
    TokenRule("render-key", "Render", ("rnd_",), _token("rnd_", _NOT_WORDS + "[A-Za-z0-9]{24,40}")),
    TokenRule("pulumi-token", "Pulumi", ("pul-",), _token("pul-", "[0-9a-f]{40}")),
    # Terraform Cloud / HCP Terraform: 14 characters, .atlasv1., 60 to 70.
    TokenRule("terraform-token", "HashiCorp", (".atlasv1.",),
              _token("[A-Za-z0-9]", r"[A-Za-z0-9]{13}\.atlasv1\.[A-Za-z0-9_=-]{60,70}", "A-Za-z0-9_=-")),
    # Vault service (hvs.), batch (hvb.) and recovery (hvr.) tokens.
    TokenRule("vault-token", "HashiCorp", ("hvs.", "hvb.", "hvr."), _token(r"hv[sbr]\.", "[A-Za-z0-9_-]{24,400}")),
    # Doppler personal, CLI, service (with its config's name), service account, SCIM and audit tokens.
    TokenRule("doppler-token", "Doppler", ("dp.pt.", "dp.ct.", "dp.st.", "dp.sa.", "dp.scim.", "dp.audit."),
              _token(r"dp\.", r"(?:pt|ct|sa|scim|audit|st(?:\.[a-z0-9_-]{2,35})?)\.[A-Za-z0-9]{40,44}")),
    # 1Password service-account tokens (ops_ and base64 JSON) and account Secret Keys (A3-…).
    TokenRule("onepassword-token", "1Password", ("ops_eyJ",),
              _token("ops_eyJ", "[A-Za-z0-9+/]{250,4000}={0,3}", _BASE64)),
    TokenRule("onepassword-secret-key", "1Password", ("A3-",),
              _token("A3-", "[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}")),
    TokenRule("databricks-token", "Databricks", ("dapi",), _token("dapi", "[0-9a-f]{32}(?:-[0-9])?")),
    TokenRule("tailscale-key", "Tailscale", ("tskey-",),
              _token("tskey-", "(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{8,32}-[A-Za-z0-9]{16,64}")),
    TokenRule("planetscale-token", "PlanetScale", ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
              _token("pscale_", "(?:tkn|pw|oauth)_[A-Za-z0-9_-]{32,64}")),
    TokenRule("scalingo-token", "Scalingo", ("tk-us-",), _token("tk-us-", "[A-Za-z0-9_-]{48}")),
    TokenRule("prefect-key", "Prefect", ("pnu_",), _token("pnu_", "[A-Za-z0-9]{36}")),
    TokenRule("neon-key", "Neon", ("napi_",), _token("napi_", "[a-z0-9]{64}")),
    TokenRule("deno-deploy-token", "Deno", ("ddp_", "ddw_"), _token("dd[pw]_", "[A-Za-z0-9]{36}")),
    TokenRule("openshift-token", "Red Hat", ("sha256~",), _token("sha256~", "[A-Za-z0-9_-]{43}")),
    TokenRule("clickhouse-key", "ClickHouse", ("4b1d",), _token("4b1d", "[A-Za-z0-9]{38}")),
    TokenRule("defined-networking-key", "Defined Networking", ("dnkey-",),
              _token("dnkey-", "[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}", "A-Za-z0-9_=-")),

    # -- Source hosting, CI and package registries -----------------------------------------------------
    # GitHub personal (ghp), OAuth (gho), user-to-server (ghu), server-to-server (ghs), refresh (ghr)…
    TokenRule("github-token", "GitHub", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
              _token("gh[pousr]_", "[A-Za-z0-9]{36}")),
    # …and fine-grained personal access tokens: 22, an underscore, 59 (other lengths taken too).
    TokenRule("github-token", "GitHub", ("github_pat_",), _token("github_pat_", _NOT_WORDS + "[A-Za-z0-9_]{22,255}")),
    # GitLab personal, deploy, runner, trigger, SCIM, feed, CI job, incoming mail, agent, OAuth app and
    # feature flag tokens; routable ones end in .<version>.<9 characters>.
    TokenRule("gitlab-token", "GitLab",
              ("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glft-", "glcbt-", "glimt-", "glagent-", "gloas-",
               "glffct-"),
              _token("gl", "(?:pat|dt|rt|ptt|soat|ft|cbt|imt|agent|oas|ffct)-" + _NOT_WORDS + "[A-Za-z0-9_-]{20,300}"
                           r"(?:\.[0-9a-z]{2}\.[0-9a-z]{9}|\.[0-9a-z]{9})?")),
    # GitLab runner registration tokens.
    TokenRule("gitlab-token", "GitLab", ("GR1348941",), _token("GR1348941", "[A-Za-z0-9_-]{20,50}")),
    # Atlassian API tokens (Jira, Confluence, Bitbucket) and access tokens, Bitbucket app passwords and
    # Bitbucket Data Center tokens.
    TokenRule("atlassian-token", "Atlassian", ("ATATT3",), _token("ATATT3", "[A-Za-z0-9_=-]{186}", "A-Za-z0-9_=-")),
    TokenRule("atlassian-token", "Atlassian", ("ATCTT3",),
              _token("ATCTT3", "[A-Za-z0-9_=-]{100,300}=[A-F0-9]{8}", "A-Za-z0-9_=-")),
    TokenRule("bitbucket-app-password", "Atlassian", ("ATBB",), _token("ATBB", "[A-Za-z0-9]{32}(?:[A-F0-9]{8})?")),
    TokenRule("bitbucket-token", "Atlassian", ("BBDC-",),
              _token("BBDC-", "[A-Za-z0-9+/@_-]{40,50}", "A-Za-z0-9+/@_-")),
    TokenRule("circleci-token", "CircleCI", ("CCIPAT_", "CCIPRJ_"),
              _token("CCIP(?:AT|RJ)_", "[A-Za-z0-9]{22}_[0-9a-f]{40}")),
    TokenRule("buildkite-token", "Buildkite", ("bkua_",), _token("bkua_", "[a-z0-9]{40}")),
    TokenRule("sourcegraph-token", "Sourcegraph", ("sgp_",),
              _token("sgp_", "(?:(?:[0-9a-f]{16}|local)_)?[0-9a-f]{40}")),
    TokenRule("npm-token", "npm", ("npm_",), _token("npm_", "[A-Za-z0-9]{36}")),
    # A legacy npm token: a uuid given to a registry in .npmrc.
    TokenRule("npm-token", "npm", (":_authToken=",),
              r":_authToken=[ \t]*(?P<secret>" + _UUID.replace("a-f", "a-fA-F") + ")" + _END),
    TokenRule("pypi-token", "PyPI", ("pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"),
              _token("pypi-AgE", "(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,1000}")),
    TokenRule("rubygems-key", "RubyGems", ("rubygems_",), _token("rubygems_", "[0-9a-f]{48}")),
    TokenRule("nuget-key", "NuGet", ("oy2",), _token("oy2", "[a-z0-9]{43}")),
    TokenRule("dockerhub-token", "Docker", ("dckr_pat_", "dckr_oat_"),
              _token("dckr_", "(?:pat_[A-Za-z0-9_-]{27}|oat_[A-Za-z0-9_-]{32})")),
    # JFrog Artifactory API keys (AKCp) and reference tokens (base64 of "reftkn…").
    TokenRule("jfrog-token", "JFrog", ("AKCp",), _token("AKCp", "[A-Za-z0-9]{69}")),
    TokenRule("jfrog-token", "JFrog", ("cmVmd",), _token("cmVmd", "[A-Za-z0-9]{59}")),
    TokenRule("crates-io-token", "crates.io", ("cio",), _token("cio", "[A-Za-z0-9]{32}")),
    TokenRule("clojars-token", "Clojars", ("CLOJARS_",), _token("CLOJARS_", "[a-z0-9]{60}")),
    TokenRule("postman-key", "Postman", ("PMAK-",), _token("PMAK-", "[0-9a-f]{24}-[0-9a-f]{34}")),
    TokenRule("sonarqube-token", "SonarSource", ("squ_", "sqp_", "sqa_"), _token("sq[upa]_", "[0-9a-f]{40}")),
    TokenRule("sonarqube-token", "SonarSource", ("sqco_",), _token("sqco_", "[A-Za-z0-9]{59}")),
    TokenRule("octopus-deploy-key", "Octopus Deploy", ("API-",), _token("API-", "[A-Z0-9]{26}")),
    TokenRule("harness-token", "Harness", ("pat.", "sat."),
              _token(r"[ps]at\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}")),
    TokenRule("infracost-token", "Infracost", ("ico-",), _token("ico-", "[A-Za-z0-9]{32}")),
    TokenRule("readme-key", "ReadMe", ("rdme_",), _token("rdme_", "[a-z0-9]{70}")),
    TokenRule("intra42-secret", "42", ("s-s4t2ud-", "s-s4t2af-"), _token("s-s4t2", "(?:ud|af)-[0-9a-f]{64}")),
    TokenRule("settlemint-token", "SettleMint", ("sm_aat_", "sm_pat_", "sm_sat_"),
              _token("sm_", "[aps]at_[A-Za-z0-9]{16}")),

    # -- Messaging, email and webhooks ------------------------------------------------------------------
    # Slack bot, user and legacy tokens (numeric ids, then the secret), workspace and refresh tokens,
    # configuration tokens and their refresh tokens…
    TokenRule("slack-token", "Slack", ("xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xoxe.xox"),
              _token("xox", r"(?:[bpos]-(?:[0-9]{1,16}-){1,4}|[ar]-(?:[0-9]{1,16}-){0,4}|e-[0-9]-|e\.xox[bp]-[0-9]-)"
                             "[A-Za-z0-9]{8,250}")),
    TokenRule("slack-token", "Slack", ("xapp-",), _token("xapp-", "[0-9]-[A-Z0-9]{6,20}-[0-9]{6,20}-[a-f0-9]{32,80}")),
    # …and incoming webhooks (services/), workflow webhooks and triggers.
    TokenRule("slack-webhook", "Slack", ("://hooks.slack.com/",),
              r"https?://hooks\.slack\.com/" + _SLACK_WEBHOOK_PATH),
    # (the same without its scheme)
    TokenRule("slack-webhook", "Slack", ("hooks.slack.com/",),
              r"(?<!/)" + _starting(r"hooks\.slack\.com/", "A-Za-z0-9_.-") + _SLACK_WEBHOOK_PATH),
    # Discord bot tokens: the bot's id in base64, a timestamp, an HMAC (27, or 38 in newer tokens).
    TokenRule("discord-token", "Discord", (),
              _token("[MNO]", r"[A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.(?:[A-Za-z0-9_-]{38}|[A-Za-z0-9_-]{27})"),
              look=r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}"),
    TokenRule("discord-webhook", "Discord", ("discord",),
              r"https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v[0-9]{1,2}/)?webhooks/[0-9]{17,20}/"
              r"[A-Za-z0-9_-]{68}" + _END),
    # Telegram bot tokens: the bot's id, a colon, 35 characters that start with AA; in the Bot API's URLs
    # right after `/bot` (https://api.telegram.org/bot<token>/getMe).
    TokenRule("telegram-token", "Telegram", (":AA",), _token("[0-9]", "[0-9]{7,9}:AA[A-Za-z0-9_-]{33}", after="/bot")),
    TokenRule("teams-webhook", "Microsoft", (".webhook.office.com/",),
              r"https://[a-z0-9-]{1,63}\.webhook\.office\.com/webhookb2/" + _UUID + "@" + _UUID
              + r"/IncomingWebhook/[0-9a-f]{32}/" + _UUID + "(?:/[A-Za-z0-9_-]{20,80})?" + _END),
    TokenRule("zapier-webhook", "Zapier", ("hooks.zapier.com/",),
              r"https://hooks\.zapier\.com/hooks/catch/[0-9]{4,12}/[A-Za-z0-9]{5,12}" + _END),
    TokenRule("tines-webhook", "Tines", (".tines.com/webhook/",),
              r"https://[A-Za-z0-9-]{1,63}\.tines\.com/webhook/[a-z0-9]{32}/[a-z0-9]{32}" + _END),
    TokenRule("make-webhook", "Make", (".make.com/",),
              r"https://hook\.(?:eu|us)[0-9]\.make\.com/[a-z0-9]{32}" + _END),
    TokenRule("ifttt-webhook-key", "IFTTT", ("maker.ifttt.com/",),
              r"maker\.ifttt\.com/(?:trigger/[A-Za-z0-9_-]{1,64}/(?:json/)?)?with/key/(?P<secret>[A-Za-z0-9_-]{22})" + _END),
    TokenRule("dingtalk-webhook", "DingTalk", ("oapi.dingtalk.com/robot/",),
              r"oapi\.dingtalk\.com/robot/send\?access_token=(?P<secret>[0-9a-f]{64})" + _END),
    TokenRule("feishu-webhook", "Feishu", ("/open-apis/bot/v2/hook/",),
              r"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/(?P<secret>" + _UUID + ")" + _END),
    TokenRule("wecom-webhook", "WeCom", ("qyapi.weixin.qq.com/",),
              r"qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=(?P<secret>" + _UUID + ")" + _END),
    # Twilio API key SIDs (SK) and account SIDs (AC): 32 hex.
    TokenRule("twilio-api-key", "Twilio", (), _token("SK", "[0-9a-fA-F]{32}"), look="SK[0-9a-fA-F]{32}"),
    TokenRule("twilio-account-sid", "Twilio", (), _token("AC", "[0-9a-f]{32}"), look="AC[0-9a-f]{32}"),
    TokenRule("telnyx-key", "Telnyx", ("KEY",), _token("KEY", "[0-9A-F]{32}_[A-Za-z0-9]{22}")),
    TokenRule("sendgrid-key", "SendGrid", ("SG.",), _token(r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")),
    TokenRule("mailgun-key", "Mailgun", ("key-",), _token("key-", "[0-9a-f]{32}")),
    TokenRule("mailgun-key", "Mailgun", ("pubkey-",), _token("pubkey-", "[0-9a-f]{32}")),
    # Mailchimp: 32 hex and the data centre (-us6).
    TokenRule("mailchimp-key", "Mailchimp", ("-us",), _token("[0-9a-f]", "[0-9a-f]{31}-us[0-9]{1,2}")),
    TokenRule("brevo-key", "Brevo", ("xkeysib-",), _token("xkeysib-", "[0-9a-f]{64}-[A-Za-z0-9]{16}")),
    TokenRule("brevo-key", "Brevo", ("xsmtpsib-",), _token("xsmtpsib-", "[0-9a-f]{64}-[A-Za-z0-9]{16}")),
    TokenRule("mailersend-key", "MailerSend", ("mlsn.",), _token(r"mlsn\.", "[0-9a-f]{64}")),
    # Resend: re_, 8, an underscore, 24 (random letters and digits: at least one capital or digit).
    # `re_`, `live_`, `test_` and `pat` stand in many words and names (`pre_`, `is_live_`, `test_x`, `path`):
    # these rules are found by a look, the prefix and the first characters of the body.
    TokenRule("resend-key", "Resend", (), _token("re_", "(?=[a-z_]{0,32}[A-Z0-9])[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"),
              look="re_[A-Za-z0-9]{8}_"),

    # -- Payments and commerce --------------------------------------------------------------------------
    # Stripe secret, restricted and publishable keys, live and test…
    TokenRule("stripe-key", "Stripe", ("k_live_", "k_test_"), _token("[spr]k_(?:live|test)_", _NOT_WORDS + "[A-Za-z0-9]{16,247}")),
    # …and webhook signing secrets.
    TokenRule("stripe-webhook-secret", "Stripe", ("whsec_",), _token("whsec_", "[A-Za-z0-9+/]{32,88}={0,2}", _BASE64)),
    # Square OAuth secrets (sq0csp-, sandbox-sq0csb-) and access tokens (sq0atp-, EAAA).
    TokenRule("square-secret", "Square", ("sq0csp-", "sq0csb-"), _token("sq0cs[pb]-", "[A-Za-z0-9_-]{43}", "A-Za-z0-9_")),
    TokenRule("square-token", "Square", ("sq0atp-",), _token("sq0atp-", "[A-Za-z0-9_-]{22}")),
    TokenRule("square-token", "Square", ("EAAA",), _token("EAAA", "[A-Za-z0-9_-]{60}")),
    # Meta (Facebook, Instagram) access tokens: EAA, the app's letter, 100 or more.
    TokenRule("facebook-token", "Meta", ("EAA",), _token("EAA[A-Z]", "[A-Za-z0-9]{100,400}")),
    TokenRule("paypal-token", "PayPal", ("access_token$production$", "access_token$sandbox$"),
              _token(r"access_token\$", r"(?:production|sandbox)\$[a-z0-9]{16}\$[0-9a-f]{32}")),
    TokenRule("shopify-token", "Shopify", ("shpat_", "shpca_", "shppa_", "shpss_"),
              _token("shp(?:at|ca|pa|ss)_", "[0-9a-fA-F]{32}")),
    TokenRule("plaid-token", "Plaid", ("access-sandbox-", "access-development-", "access-production-"),
              _token("access-", "(?:sandbox|development|production)-" + _UUID)),
    TokenRule("flutterwave-key", "Flutterwave", ("FLWSECK", "FLWPUBK"),
              _token("FLW(?:SECK|PUBK)", "(?:_TEST)?-[A-Za-z0-9]{32}-X")),
    TokenRule("flutterwave-encryption-key", "Flutterwave", ("FLWSECK",), _token("FLWSECK", "(?:_TEST)?[0-9a-f]{12}")),
    TokenRule("easypost-key", "EasyPost", ("EZAK", "EZTK"), _token("EZ[AT]K", "[A-Za-z0-9]{54}")),
    TokenRule("duffel-token", "Duffel", ("duffel_test_", "duffel_live_"),
              _token("duffel_", "(?:test|live)_[A-Za-z0-9_=-]{43}", "A-Za-z0-9_=-")),
    TokenRule("lob-key", "Lob", (), _token("(?:live|test)_", "(?:pub_[0-9a-f]{31}|[0-9a-f]{35})"),
              look="(?:live|test)_(?:pub_)?[0-9a-f]{8}"),
    TokenRule("mollie-key", "Mollie", (), _token("(?:live|test)_", "(?=[A-Za-z]{0,29}[0-9])[A-Za-z0-9]{30}"),
              look="(?:live|test)_[A-Za-z0-9]{12}"),
    TokenRule("shippo-token", "Shippo", ("shippo_live_", "shippo_test_"), _token("shippo_", "(?:live|test)_[0-9a-f]{40}")),
    TokenRule("razorpay-key", "Razorpay", ("rzp_live_", "rzp_test_"), _token("rzp_", "(?:live|test)_[A-Za-z0-9]{14}")),
    TokenRule("paddle-key", "Paddle", ("pdl_live_apikey_", "pdl_sdbx_apikey_"),
              _token("pdl_", "(?:live|sdbx)_apikey_[a-z0-9]{26}_[A-Za-z0-9]{22}_[A-Za-z0-9]{3}")),
    TokenRule("ramp-key", "Ramp", ("ramp_id_", "ramp_sec_"), _token("ramp_", "(?:id_[A-Za-z0-9]{40}|sec_[A-Za-z0-9]{48})")),

    # -- Observability, productivity and other services ------------------------------------------------
    TokenRule("dynatrace-token", "Dynatrace", ("dt0c01.",), _token(r"dt0c01\.", r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}")),
    # Grafana Cloud tokens, service-account tokens and legacy API keys (base64 of {"k":…).
    TokenRule("grafana-token", "Grafana", ("glc_",), _token("glc_", "[A-Za-z0-9+/]{32,400}={0,3}", _BASE64)),
    TokenRule("grafana-token", "Grafana", ("glsa_",), _token("glsa_", "[A-Za-z0-9]{32}_[0-9a-fA-F]{8}")),
    TokenRule("grafana-token", "Grafana", ("eyJrIjoi",), _token("eyJrIjoi", "[A-Za-z0-9]{60,400}={0,3}", _BASE64)),
    # New Relic user API keys, browser keys, insert and query keys.
    TokenRule("new-relic-key", "New Relic", ("NRAK-",), _token("NRAK-", "[A-Z0-9]{27}")),
    TokenRule("new-relic-key", "New Relic", ("NRJS-",), _token("NRJS-", "[0-9a-f]{19}")),
    TokenRule("new-relic-key", "New Relic", ("NRII-", "NRIQ-"), _token("NRI[IQ]-", "[A-Za-z0-9_-]{25,32}")),
    # Sentry organisation tokens (base64 JSON, an underscore, 43) and user tokens.
    TokenRule("sentry-token", "Sentry", ("sntrys_eyJ",),
              _token("sntrys_eyJ", "[A-Za-z0-9+/=]{60,400}_[A-Za-z0-9+/]{43}", _BASE64)),
    TokenRule("sentry-token", "Sentry", ("sntryu_",), _token("sntryu_", "[0-9a-f]{64}")),
    # Honeycomb ingest keys (environment and classic): a ULID and a secret, 58 in all, lower case.
    TokenRule("honeycomb-key", "Honeycomb", ("hcaik_", "hcxik_"), _token("hc[ax]ik_", "[0-9a-z]{58}")),
    TokenRule("linear-key", "Linear", ("lin_api_",), _token("lin_api_", "[A-Za-z0-9]{40}")),
    TokenRule("notion-token", "Notion", ("ntn_",), _token("ntn_", "[0-9]{11}[A-Za-z0-9]{35}")),
    TokenRule("notion-token", "Notion", ("secret_",), _token("secret_", "[A-Za-z0-9]{43}")),
    # Asana personal access tokens: 1/ or 2/, the user's id (and the token's), a colon, 32 hex.
    TokenRule("asana-token", "Asana", (),
              _token("[12]", "/[0-9]{13,20}(?:/[0-9]{13,20})?:[0-9a-f]{32}"), look="[12]/[0-9]{13}"),
    TokenRule("airtable-token", "Airtable", (), _token("pat", r"[A-Za-z0-9]{14}\.[0-9a-f]{64}"),
              look=r"pat[A-Za-z0-9]{14}\."),
    TokenRule("figma-token", "Figma", ("figd_", "figp_"), _token("fig[dp]_", "[A-Za-z0-9_-]{40,54}")),
    # Dropbox short-lived access tokens (sl., sl.u.).
    TokenRule("dropbox-token", "Dropbox", ("sl.",), _token(r"sl\.", r"(?:u\.)?[A-Za-z0-9_=-]{130,1500}", "A-Za-z0-9_=-")),
    TokenRule("typeform-token", "Typeform", ("tfp_",), _token("tfp_", "[A-Za-z0-9_=-]{40,59}", "A-Za-z0-9_=-")),
    TokenRule("age-secret-key", "age", ("AGE-SECRET-KEY-1",),
              _token("AGE-SECRET-KEY-1", "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")),
    # sessionsite's own: the key of an encrypted archive, in the link a build prints (`--encrypt`), which a
    # session that ran the build, or was given the link, holds in its transcript.
    TokenRule("sessionsite-archive-key", "sessionsite", ("#key=",), r"#key=(?P<secret>[A-Za-z0-9_-]{43})" + _END),
    # Mapbox secret, public and temporary tokens: base64 JSON of the user, a dot, 22 or more.
    TokenRule("mapbox-token", "Mapbox", ("sk.eyJ", "pk.eyJ", "tk.eyJ"),
              _token(r"[spt]k\.eyJ", r"[A-Za-z0-9_-]{20,300}\.[A-Za-z0-9_-]{20,30}")),
    TokenRule("contentful-token", "Contentful", ("CFPAT-",), _token("CFPAT-", "[A-Za-z0-9_-]{43}")),
    TokenRule("frameio-token", "Frame.io", ("fio-u-",), _token("fio-u-", "[A-Za-z0-9_=-]{64}", "A-Za-z0-9_=-")),
    # LaunchDarkly API access, SDK and mobile keys: the prefix and a version-4 uuid.
    TokenRule("launchdarkly-key", "LaunchDarkly", ("api-", "sdk-", "mob-"),
              _token("(?:api|sdk|mob)-", "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")),
    TokenRule("hubspot-key", "HubSpot", ("pat-na1-", "pat-eu1-"), _token("pat-", "(?:na|eu)1-" + _UUID)),
    TokenRule("klaviyo-key", "Klaviyo", ("pk_",), _token("pk_", "[0-9a-f]{34}")),
    TokenRule("clickup-token", "ClickUp", ("pk_",), _token("pk_", "[0-9]{6,10}_[A-Z0-9]{32}")),
    TokenRule("posthog-key", "PostHog", ("phx_",), _token("phx_", "[A-Za-z0-9_]{43,48}")),
    TokenRule("rootly-key", "Rootly", ("rootly_",), _token("rootly_", "[0-9a-f]{64}")),
    TokenRule("maxmind-license-key", "MaxMind", ("_mmk",), _token("[A-Za-z0-9]", "[A-Za-z0-9]{5}_[A-Za-z0-9]{29}_mmk")),
    # ngrok authtokens: a KSUID (27, starting with 2), an underscore, a digit, 20.
    TokenRule("ngrok-token", "ngrok", (), _token("2", "[A-Za-z0-9]{26}_[0-9][A-Za-z0-9]{20}"),
              look="2[A-Za-z0-9]{26}_[0-9]"),
    TokenRule("adafruit-key", "Adafruit", ("aio_",), _token("aio_", "[A-Za-z0-9]{28}")),
    TokenRule("adobe-client-secret", "Adobe", ("p8e-",), _token("p8e-", "[A-Za-z0-9]{32}")),
    # X (Twitter) app bearer tokens: twenty-odd A's, then 80 to 100 letters, digits and %-escapes (not
    # more A's: base64 of zeros is a long run of them).
    TokenRule("twitter-bearer-token", "X", ("AAAAAAAAAAAAAAAAAAAA",),
              _token("AAAAAAAAAAAAAAAAAAAA", "A{0,3}[B-Za-z0-9%][A-Za-z0-9%]{79,99}", "A-Za-z0-9_+/=%-")),
    # JSON web tokens: a header and a payload of base64 JSON, and a signature (none when unsigned).
    TokenRule("jwt", "any issuer (JSON Web Token)", ("eyJ",),
              _token("eyJ", r"[A-Za-z0-9_-]{10,4000}\.eyJ[A-Za-z0-9_-]{10,20000}\.(?:[A-Za-z0-9_-]{10,4000}={0,2})?",
                     "A-Za-z0-9_=-")),
)
