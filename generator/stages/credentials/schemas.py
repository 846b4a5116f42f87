"""Formats whose own specification says which value is secret, whatever it is named.

- JSON Web Keys: the private members `d` (RFC 7518 §6.2.2.1 for EC, §6.3.2.1 for RSA; RFC 8037 §2 for OKP), `p`,
  `q`, `dp`, `dq`, `qi` and `oth` (RFC 7518 §6.3.2) and the symmetric key `k` (RFC 7518 §6.4.1), in an object with a
  `kty` (RFC 7517 §4.1).
- Terraform: `terraform output -json` gives each output as `{"sensitive": true, "type": …, "value": …}`
  (developer.hashicorp.com/terraform/cli/commands/output); a state file lists the attributes it holds secret in
  `sensitive_attributes` (state format version 4); a `variable` block with `sensitive = true` keeps its `default`.
  Pulumi: a secret in a state or a stack export is an object marked by the signature key
  `4dabf18193072939515e22adb298388d` whose `plaintext` is the value (pulumi/pulumi, `sdk/go/common/resource/
  sig/sig.go`, `Secret`).
- TOTP and HOTP: the `secret` parameter of an `otpauth://` URI (Google Authenticator's Key Uri Format), and the
  `data` of an `otpauth-migration://` export.
- Keystores: `keytool`'s `-storepass`, `-keypass`, `-srcstorepass`, `-deststorepass`, `-srckeypass`,
  `-destkeypass` (Java SE keytool reference), OpenSSL's `-passin`/`-passout`/`-pass`/`-password` given
  `pass:…` (openssl-passphrase-options(1)), `-k`/`-kfile` aside.
- A Google Cloud service account key's `private_key_id` (IAM `ServiceAccountKey`; its `private_key` is a PEM key,
  found as one).
- BIP39 seed phrases: 12, 15, 18, 21 or 24 words of the BIP39 English word list (`bip39_english.txt`, from
  github.com/bitcoin/bips `bip-0039/english.txt`, SHA-256 2f5eed53…24dbda) whose last word carries the phrase's
  checksum (BIP39, "Generating the mnemonic"), near a word that names one (`mnemonic`, `seed`, `recovery phrase`,
  `wallet`).

Each is a fixed form (`forms.FormRule`) or a finder of its own, run only where one of its anchors was seen.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from .forms import FORM_RULES, FormRule

_BASE64URL = r"[A-Za-z0-9_\-]{16,}"
_Q = r"\\?\""  # a JSON quote, escaped inside a string or not
_GAP = r"(?:\s|\d+(?:→|\t|[:-])|\+)*"
"""What stands between a JSON document's tokens as a tool shows it: blanks and line breaks, and the line numbers
and marks put before each line (Read's `   5→`, grep's `5:`, a diff's `+`)."""

SCHEMA_RULES: tuple[FormRule, ...] = (
    FormRule("jwk-private-member", ("\"kty\"", "\\\"kty\\\""), re.compile(
        _Q + r"(?:d|p|q|dp|dq|qi|k)" + _Q + r"\s*:\s*" + _Q + r"(?P<secret>" + _BASE64URL + r")" + _Q),
        checked=False),
    FormRule("terraform-sensitive", ("\"sensitive\": true", "\"sensitive\":true", "\\\"sensitive\\\": true",
                                     "\\\"sensitive\\\":true"), re.compile(
        _Q + r"sensitive" + _Q + r"\s*:\s*true\s*," + _GAP + r"(?:" + _Q + r"type" + _Q + r"\s*:\s*(?:" + _Q
        + r"[^\"\\]*" + _Q + r"|\[[^\]]*\])\s*," + _GAP + r")?" + _Q + r"value" + _Q + r"\s*:\s*" + _Q
        + r"(?P<secret>(?:[^\"\\]|\\[^\"])+)" + _Q),
        checked=False),
    FormRule("pulumi-secret", ("4dabf18193072939515e22adb298388d",), re.compile(
        _Q + r"plaintext" + _Q + r"\s*:\s*" + _Q + r"(?P<secret>(?:[^\"\\]|\\.)+)" + _Q),
        checked=False),
    FormRule("totp-secret", ("otpauth://",), re.compile(
        r"otpauth://[th]otp/[^\s?\"']*\?(?:[^\s\"'#]*?&)?secret=(?P<secret>[A-Za-z2-7=]{8,})"), checked=False),
    FormRule("totp-secret", ("otpauth-migration://",), re.compile(
        r"otpauth-migration://offline\?data=(?P<secret>[A-Za-z0-9%+/=_\-]{8,})"), checked=False),
    FormRule("keystore-password", ("storepass", "keypass"), re.compile(
        r"(?i)-(?:src|dest)?(?:store|key)pass\s+(?P<secret>\\?'[^'\n]+?\\?'|\\?\"[^\"\n]+?\\?\"|"
        r"[^\s'\"|;&\\`-][^\s'\"|;&\\`]*)")),
    FormRule("keystore-password", ("pass:",), re.compile(
        r"-(?:passin|passout|pass|password|passwd|kpass)\s+(?:\\?['\"])?pass:(?P<secret>[^\s'\"\\|;&]+)"),
        checked=False),
    # The hashicorp/random provider's `random_password` keeps its `result` as a sensitive attribute
    # (registry.terraform.io/providers/hashicorp/random/latest/docs/resources/password).
    FormRule("terraform-sensitive", ("random_password",), re.compile(
        r"random_password" + r"(?:(?!\\?\"type\\?\"\s*:)[\s\S]){0,1500}?" + _Q + r"result" + _Q + r"\s*:\s*" + _Q
        + r"(?P<secret>(?:[^\"\\]|\\[^\"])+)" + _Q), checked=False),
    FormRule("service-account-key-id", ("private_key_id",), re.compile(
        _Q + r"private_key_id" + _Q + r"\s*:\s*" + _Q + r"(?P<secret>[0-9a-f]{40})" + _Q), checked=False),
)
"""The fixed forms of formats that mark their secret fields."""

RULES: tuple[FormRule, ...] = (*FORM_RULES, *SCHEMA_RULES)
"""Every fixed form: `forms`' and these."""

SEED_MARKS = ("mnemonic", "seed phrase", "seed words", "recovery phrase", "secret phrase", "seed:", "seed =",
              "seed=", "wallet", "bip39", "bip-39")
"""Words one of which is near every seed phrase found (a seed phrase has no anchor of its own)."""
_REACH = 600
_WORD_RUN = re.compile(r"(?<![A-Za-z0-9])(?:\d{1,2}[.)]\s*)?[a-z]{3,8}"
                       r"(?:(?:\s+|\\n|,\s*)(?:\d{1,2}[.)]\s*)?[a-z]{3,8}){11,23}", re.MULTILINE)


@functools.cache
def bip39_words() -> dict[str, int]:
    """The BIP39 English word list: each word's index (its 11 bits)."""
    text = (Path(__file__).with_name("bip39_english.txt")).read_text(encoding="utf-8")
    return {word: index for index, word in enumerate(text.split())}


def valid_seed_phrase(words: list[str]) -> bool:
    """Whether `words` are a BIP39 mnemonic: 12–24 words (a multiple of 3) of the list, with its checksum."""
    indexes = bip39_words()
    if len(words) not in (12, 15, 18, 21, 24) or any(word not in indexes for word in words):
        return False
    bits = "".join(format(indexes[word], "011b") for word in words)
    checksum_bits = len(words) // 3
    entropy_bits = bits[:-checksum_bits]
    entropy = int(entropy_bits, 2).to_bytes(len(entropy_bits) // 8, "big")
    expected = format(hashlib.sha256(entropy).digest()[0], "08b")[:checksum_bits]
    return bits[-checksum_bits:] == expected


_NUMBERED = re.compile(r"\d{1,2}[.)]\s*")
_SPLIT = re.compile(r"\s+|\\n|,\s*")


def seed_phrases(text: str, starts: list[int]) -> list[tuple[int, int]]:
    """The spans of the seed phrases near the marks at `starts`: every run of the list's words of a mnemonic's
    length whose checksum holds (a longer run is tried at each of its words)."""
    spans: list[tuple[int, int]] = []
    windows: list[list[int]] = []
    for start in starts:
        low, high = max(0, start - _REACH), min(len(text), start + _REACH)
        if windows and low <= windows[-1][1]:
            windows[-1][1] = high
        else:
            windows.append([low, high])
    for low, high in windows:
        for run in _WORD_RUN.finditer(text, low, high):
            words = [(found.start(), found.end()) for found in re.finditer(r"[a-z]{3,8}", run.group())]
            spans += _phrases_in(run.group(), run.start(), words)
    return spans


def _phrases_in(run: str, offset: int, words: list[tuple[int, int]]) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    first = 0
    while first + 12 <= len(words):
        for length in (24, 21, 18, 15, 12):
            chosen = words[first:first + length]
            if len(chosen) == length and valid_seed_phrase([run[start:end] for start, end in chosen]):
                found.append((offset + chosen[0][0], offset + chosen[-1][1]))
                first += length
                break
        else:
            first += 1
    return found


_SENSITIVE_ATTRIBUTES = re.compile(r"\"sensitive_attributes\"\s*:\s*\[(?P<list>(?:[^\[\]]|\[[^\[\]]*\]|"
                                   r"\[(?:[^\[\]]|\[[^\[\]]*\])*\])*)\]")
_GET_ATTR = re.compile(r"\"type\"\s*:\s*\"get_attr\"\s*," + _GAP + r"\"value\"\s*:\s*\"(?P<name>[^\"]+)\"")
_TERRAFORM_VARIABLE = re.compile(r"\bvariable\s+\"[^\"]+\"\s*\{(?P<body>[^{}]*)(?:\}|$)")
_SENSITIVE_TRUE = re.compile(r"\bsensitive\s*=\s*true\b")
_DEFAULT = re.compile(r"\bdefault\s*=\s*\"(?P<secret>[^\"\n]+)\"")


def terraform_sensitive_values(text: str) -> list[tuple[int, int]]:
    """In a Terraform state: the values of the attributes its `sensitive_attributes` list, in the resource instance
    that lists them; in configuration: the `default` of a variable declared `sensitive = true`."""
    spans: list[tuple[int, int]] = []
    for listed in _SENSITIVE_ATTRIBUTES.finditer(text):
        names = {found.group("name") for found in _GET_ATTR.finditer(listed.group("list"))}
        # The instance's `attributes` come before its `sensitive_attributes` in the state Terraform writes.
        instance_start = text.rfind("\"attributes\"", 0, listed.start())
        if instance_start < 0:
            continue
        for name in names:
            value = re.compile("\"" + re.escape(name) + r"\"\s*:\s*\"(?P<secret>(?:[^\"\\]|\\.)+)\"")
            for found in value.finditer(text, instance_start, listed.start()):
                spans.append(found.span("secret"))
    for variable in _TERRAFORM_VARIABLE.finditer(text):
        body = variable.group("body")
        if _SENSITIVE_TRUE.search(body):
            default = _DEFAULT.search(body)
            if default is not None:
                start = variable.start("body") + default.start("secret")
                spans.append((start, start + len(default.group("secret"))))
    return spans


TERRAFORM_MARKS = ("sensitive_attributes", "sensitive = true", "sensitive=true")
