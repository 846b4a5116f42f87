"""Formats whose specification says which value is secret (issue 40, 5): JWK private members, Terraform's and
Pulumi's sensitive values, TOTP URIs, keystore passwords, a service account key's id, WireGuard keys, age keys,
`.npmrc` tokens and BIP39 seed phrases (checksum and all). The public parts of the same formats are kept. The
secrets are invented (the seed phrases are drawn from a seeded generator, their checksums computed)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from generator.stages.credentials.schemas import bip39_words, valid_seed_phrase
from generator.stages.redact import Redactor

SECRET = "nZ7pK2xQ9vLm3RtYw8sB4cFhJ6gD1eA0uI5oP"
PASSWORD = "Vq8rT2mz!K4wpLx"


def mnemonic(words: int, seed: int) -> str:
    """A BIP39 mnemonic of `words` words for entropy drawn from `seed` (BIP39, "Generating the mnemonic")."""
    draw = random.Random(seed)
    entropy = bytes(draw.getrandbits(8) for _ in range(words * 4 // 3))
    bits = "".join(format(byte, "08b") for byte in entropy)
    bits += format(hashlib.sha256(entropy).digest()[0], "08b")[:len(entropy) * 8 // 32]
    listed = list(bip39_words())
    return " ".join(listed[int(bits[index:index + 11], 2)] for index in range(0, len(bits), 11))


def redact(text: str) -> str:
    return Redactor().text(text)


def test_the_word_list_is_bip39s():
    words = list(bip39_words())
    assert len(words) == 2048 and words[0] == "abandon" and words[-1] == "zoo"
    # BIP39's own test vector: entropy 00…00 (128 bits) is "abandon" ×11 and "about".
    assert valid_seed_phrase(["abandon"] * 11 + ["about"])
    assert not valid_seed_phrase(["abandon"] * 12)


CASES = {
    "jwk-ec-d": (json.dumps({"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                             "d": SECRET, "kid": "k1"}, indent=2), [SECRET]),
    "jwk-rsa-primes": ('{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZpt","e":"AQAB","d":"' + SECRET + '","p":"'
                       + SECRET[::-1] + '","qi":"' + SECRET[3:] + 'Xy"}', [SECRET, SECRET[::-1], SECRET[3:]]),
    "jwk-oct-escaped": ('{\\"kty\\":\\"oct\\",\\"k\\":\\"' + SECRET + '\\",\\"alg\\":\\"HS256\\"}', [SECRET]),
    "terraform-output": (json.dumps({"admin": {"sensitive": True, "type": "string", "value": PASSWORD}}, indent=2),
                         [PASSWORD]),
    "terraform-state": (json.dumps({"resources": [{"instances": [{"attributes": {"id": "none", "result": PASSWORD},
                                   "sensitive_attributes": [[{"type": "get_attr", "value": "result"}]]}]}]}),
                        [PASSWORD]),
    "terraform-variable": (f'variable "admin" {{\n  sensitive = true\n  default   = "{PASSWORD}"\n}}\n', [PASSWORD]),
    "pulumi-secret": ('{"db": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", '
                      '"plaintext": "\\"' + PASSWORD + '\\""}}', [PASSWORD]),
    "totp-uri": ("otpauth://totp/ACME:ada@example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DQ&issuer=ACME",
                 ["JBSWY3DPEHPK3PXPJBSWY3DQ"]),
    "hotp-uri-later": ("otpauth://hotp/ACME?issuer=ACME&counter=3&secret=KRUGKIDROVUWG2ZAMJZG653O",
                       ["KRUGKIDROVUWG2ZAMJZG653O"]),
    "keytool": (f"keytool -genkeypair -keystore app.jks -storepass {SECRET} -keypass '{PASSWORD}'",
                [SECRET, PASSWORD]),
    "keytool-import": f"keytool -importkeystore -srcstorepass {SECRET} -deststorepass {SECRET[::-1]}",
    "openssl-pass": (f"openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{SECRET}", [SECRET]),
    "gcp-key-id": ('{"type": "service_account", "private_key_id": "5f0c2e3a4d4e6f8a9b0c1d2e3f4a5b6c7d8e9f01"}',
                   ["5f0c2e3a4d4e6f8a9b0c1d2e3f4a5b6c7d8e9f01"]),
    "wireguard": (("[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n[Peer]\n"
                  "PresharedKey = eXnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n"),
                  ["yAnz5TF+lXXJte14tji3zlMNq", "eXnz5TF+lXXJte14tji3zlMNq"]),
    "age": ("AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQY",
            ["QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGP"]),
    "npmrc": (f"//registry.npmjs.org/:_authToken={SECRET}\n", [SECRET]),
}
CASES["keytool-import"] = (CASES["keytool-import"], [SECRET, SECRET[::-1]])  # type: ignore[assignment]
for length, seed in ((12, 1), (15, 2), (18, 3), (21, 4), (24, 5)):
    phrase = mnemonic(length, seed)
    CASES[f"seed-{length}"] = (f"Restore the wallet with this recovery phrase:\n{phrase}\n", [phrase])
numbered = mnemonic(24, 9).split()
CASES["seed-numbered"] = ("mnemonic:\n" + "\n".join(f"{n}. {w}" for n, w in enumerate(numbered, 1)),
                          [f"1. {numbered[0]}\n2. {numbered[1]}"])
CASES["seed-json"] = (json.dumps({"mnemonic": mnemonic(12, 11), "path": "m/44'/60'/0'/0/0"}), [mnemonic(12, 11)])


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_field_the_format_marks_secret_is_redacted(name):
    text, secrets = CASES[name]
    out = redact(text)
    assert not [secret for secret in secrets if secret in out], out


LOOK_ALIKES = [
    '{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}',
    json.dumps({"region": {"sensitive": False, "type": "string", "value": "eu-west-1"}}),
    "otpauth://totp/ACME:ada@example.com?issuer=ACME&digits=6",
    "keytool -list -keystore app.jks -storepass:env KEYSTORE_PASSWORD",
    "openssl pkcs12 -in c.p12 -passin env:P12_PASSWORD -nokeys",
    "openssl rsa -in key.pem -passin file:/run/secrets/key_pass",
    # Twelve words of the list without the checksum, beside the word `seed`: prose, not a phrase.
    "seed the database: add user, test data, sample order, then check table index every time you load",
    "The wallet screen shows abandon ability able about above absent absorb abstract absurd abuse access accident",
    "[Interface]\nPublicKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n",
    'variable "region" {\n  default = "eu-west-1"\n}\n',
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_the_public_parts_of_the_same_formats_are_kept(text):
    assert redact(text) == text
