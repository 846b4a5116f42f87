"""Token formats of known providers: prefix, alphabet and length, as the open secret scanners publish them.

Interim set (the formats the redactor knew before): the full catalogue replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TokenRule:
    kind: str
    """The marker's name: `[REDACTED:<kind>]`."""
    provider: str
    """Whose token it is."""
    anchors: tuple[str, ...]
    """Literals (case-sensitive), one of which every match holds: the rule runs only on text with one."""
    pattern: str
    """The whole match is the secret, or the group `secret` where there is one."""
    flags: int = 0
    look: str = ""
    """For a rule with no literal: a cheap pattern every match holds."""


TOKEN_RULES: tuple[TokenRule, ...] = (
    TokenRule("jwt", "JSON Web Token", ("eyJ",), r"eyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+"),
    TokenRule("anthropic-key", "Anthropic", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    TokenRule("openai-key", "OpenAI", ("sk-proj-", "sk-svcacct-", "sk-admin-"), r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"),
    TokenRule("openai-key", "OpenAI", ("T3BlbkFJ",), r"sk-[A-Za-z0-9\-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"),
    TokenRule("github-token", "GitHub", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,}"),
    TokenRule("github-token", "GitHub", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9_]{36}"),
    TokenRule("google-api-key", "Google", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}"),
    TokenRule("stripe-key", "Stripe", ("k_live_", "k_test_"), r"(?:sk|rk|pk)_(?:live|test)_[0-9a-zA-Z]{16,}"),
    TokenRule("slack-webhook", "Slack", ("hooks.slack.com",),
              r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_\-]+(?:/[A-Za-z0-9_\-]+)+"),
    TokenRule("slack-token", "Slack", ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"), r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    TokenRule("aws-access-key", "AWS", ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}"),
    TokenRule("azure-storage-key", "Azure", ("AccountKey=",), r"AccountKey=[a-zA-Z0-9+/=]{88}"),
    TokenRule("discord-token", "Discord", (), r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}",
              look=r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}"),
    TokenRule("gitlab-token", "GitLab", ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-",
                                         "glagent-", "gloas-"), r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_\-]{20,1024}(?!\w)"),
    TokenRule("gitlab-token", "GitLab", ("GR1348941",), r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)"),
    TokenRule("npm-token", "npm", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    TokenRule("pypi-token", "PyPI", ("pypi-AgE",), r"pypi-AgE[A-Za-z0-9_\-]{70,}"),
    TokenRule("sendgrid-key", "SendGrid", ("SG.",), r"SG\.[a-zA-Z0-9_\-]{22}\.[a-zA-Z0-9_\-]{43}"),
    TokenRule("square-secret", "Square", ("sq0csp-",), r"sq0csp-[0-9A-Za-z\-_]{43}"),
    TokenRule("telegram-token", "Telegram", (":AA",), r"\d{8,10}:AA[0-9A-Za-z_\-]{33}"),
)
