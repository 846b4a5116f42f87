"""`--encrypt`: the keys of an encrypted archive, and each file sealed with one of its own.

Only reviewed primitives, from pyca `cryptography` here and WebCrypto in the page (themes/default/unlock/unlock.js),
which must agree on every byte:

- the archive's **master key**: 256 random bits (`secrets`), or derived from a passphrase with PBKDF2-HMAC-SHA256,
  `PBKDF2_ITERATIONS` rounds over a random 128-bit salt. Argon2id or scrypt would be stronger against a
  guesser with graphics cards, but the page must derive the same key, and WebCrypto offers PBKDF2 alone; the
  rounds are OWASP's 2023 figure for PBKDF2-HMAC-SHA256.
- from it, with HKDF-SHA256 (`info` naming the use): a key that names files (HMAC-SHA256 of a file's path in
  the plain site, so that the published names say nothing of projects or sessions), a key for the
  fingerprints that let a rebuild keep a file sealed already, a short public key id (which key a page wants,
  so that a wrong key is told from a damaged page), and **one key per file** (`info` holds the file's name).
- each file: AES-256-GCM under its own key, a fresh random 96-bit nonce each time it is sealed, and the
  file's published name as associated data, so a file moved into another's place does not open. What is
  sealed is the file's path in the plain site, a newline, and its bytes.

The master key is never written into the site, its record, the manifest or a log line: the build prints it
once, in the link's fragment, and keeps it only in the `--key-file` the user names (created readable by its
owner alone).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from ..core.errors import SessionsiteError, UsageProblem

KEY_BYTES = 32
NONCE_BYTES = 12
SALT_BYTES = 16
PBKDF2_ITERATIONS = 600_000
"""OWASP's Password Storage Cheat Sheet (2023) for PBKDF2-HMAC-SHA256."""
SHORTEST_PASSPHRASE = 12
"""Characters: a passphrase is the whole of the archive's protection against a guesser who has the files."""
FORMAT = 1
NAME_HEX = 32
"""A sealed file's name: the first 128 bits of its path's HMAC, in hex."""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _from_b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(master: bytes, use: str, length: int = KEY_BYTES) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=use.encode("utf-8")).derive(master)


class DecryptionError(SessionsiteError):
    """A sealed file that does not open with the key: another key, or damaged bytes."""


@dataclass(frozen=True)
class SiteKey:
    """An archive's master key, and, when it came from a passphrase, the salt and rounds that make it again."""

    master: bytes = field(repr=False)
    salt: bytes = b""
    iterations: int = 0

    def __post_init__(self) -> None:
        if len(self.master) != KEY_BYTES:
            raise SessionsiteError("internal error: a master key is 32 bytes")

    @property
    def from_passphrase(self) -> bool:
        return bool(self.salt)

    @property
    def key_id(self) -> str:
        """Public: which key a page was sealed with (HKDF output: it tells nothing of the key)."""
        return _hkdf(self.master, "sessionsite/key-id", 8).hex()

    @property
    def fragment(self) -> str:
        """What follows `#` in a link that opens the archive with no question asked."""
        return "key=" + _b64url(self.master)

    def __repr__(self) -> str:
        return f"SiteKey(key_id={self.key_id!r})"


def new_key() -> SiteKey:
    return SiteKey(secrets.token_bytes(KEY_BYTES))


def key_from_passphrase(passphrase: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> SiteKey:
    """The key a passphrase makes with `salt` (None: a new random one, for a new archive)."""
    salt = salt if salt else secrets.token_bytes(SALT_BYTES)
    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=salt, iterations=iterations)
    return SiteKey(kdf.derive(passphrase.encode("utf-8")), salt, iterations)


def check_passphrase(passphrase: str, where: str) -> str:
    if len(passphrase) < SHORTEST_PASSPHRASE:
        raise UsageProblem(f"{where}: a passphrase needs at least {SHORTEST_PASSPHRASE} characters (it is all that "
                           "stands between the files and a guesser); a few random words make a good one")
    return passphrase


def read_passphrase_file(path: Path) -> str:
    """The file's first line, without its line end."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageProblem(f"--passphrase-file {path}: cannot read it: {getattr(error, 'strerror', None) or error}") from None
    return check_passphrase(text.splitlines()[0] if text else "", f"--passphrase-file {path}")


def key_from_file(path: Path) -> tuple[SiteKey, bool]:
    """The key kept in `path`, or a new one written there, readable by its owner alone; and whether it is new.
    A file of another shape stops the command (it is never overwritten)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        pass
    except OSError as error:
        raise UsageProblem(f"--key-file {path}: cannot create it: {error.strerror or error}") from None
    else:
        key = new_key()
        with os.fdopen(handle, "w", encoding="ascii") as written:
            written.write(_b64url(key.master) + "\n")
        return key, True
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
        mode = path.stat().st_mode
    except OSError as error:
        raise UsageProblem(f"--key-file {path}: cannot read it: {error.strerror or error}") from None
    try:
        master = _from_b64url(text)
    except (binascii.Error, ValueError):
        master = b""
    if len(master) != KEY_BYTES or not text.isascii():
        raise UsageProblem(f"--key-file {path}: not a key sessionsite wrote (one line of 43 base64url characters); "
                           "name a new file to have one made")
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise UsageProblem(f"--key-file {path}: others can read it; make it private first (chmod 600 {path})")
    return SiteKey(master), False


class Sealer:
    """Names, fingerprints and seals the files of one archive under one master key."""

    def __init__(self, key: SiteKey):
        self.key = key
        self._names = _hkdf(key.master, "sessionsite/names")
        self._fingerprints = _hkdf(key.master, "sessionsite/fingerprints")

    def name_of(self, path: str) -> str:
        """A file's published name: as stable as the key, and telling nothing of `path` without it."""
        return hmac.new(self._names, path.encode("utf-8"), hashlib.sha256).hexdigest()[:NAME_HEX]

    def fingerprint(self, path: str, content: bytes) -> str:
        """Keyed: equal for the same file, and, in the public record, no way to confirm a guess of its content."""
        hasher = hashlib.blake2b(key=self._fingerprints[:32], digest_size=16)
        hasher.update(path.encode("utf-8") + b"\0")
        hasher.update(content)
        return hasher.hexdigest()

    def _cipher(self, name: str) -> AESGCM:
        return AESGCM(_hkdf(self.key.master, "sessionsite/file\0" + name))

    @staticmethod
    def _associated(name: str) -> bytes:
        return f"sessionsite/{FORMAT}\0{name}".encode("utf-8")

    def seal(self, name: str, path: str, content: bytes) -> bytes:
        """nonce ‖ AES-256-GCM(path, newline, content), bound to `name`."""
        nonce = secrets.token_bytes(NONCE_BYTES)
        return nonce + self._cipher(name).encrypt(nonce, path.encode("utf-8") + b"\n" + content,
                                                  self._associated(name))

    def open(self, name: str, sealed: bytes) -> tuple[str, bytes]:
        """The path and bytes `seal` sealed under `name`; DecryptionError for another key or damaged bytes."""
        try:
            plain = self._cipher(name).decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], self._associated(name))
        except (InvalidTag, ValueError):
            raise DecryptionError(f"{name}: does not open with this key (another key, or damaged)") from None
        path, _, content = plain.partition(b"\n")
        return path.decode("utf-8"), content


__all__ = ["DecryptionError", "PBKDF2_ITERATIONS", "Sealer", "SiteKey", "check_passphrase", "key_from_file",
           "key_from_passphrase", "new_key", "read_passphrase_file"]
