"""The review's decisions: for each value a person reviewed (`sessionsite review`), redact or keep, known by a
keyed digest of the value and never by the value.

Where: `$XDG_DATA_HOME/sessionsite/review/` (beside the vault's default place; `SESSIONSITE_REVIEW` names
another), a folder only its owner may enter, holding two files only its owner may read:

- `key`: 32 random bytes, made the first time. A value is known by HMAC-SHA256 under it (`keyed_digest`). A
  plain or salted hash of a 10-character password is found again by trying guesses at billions a second,
  salt or no salt (the salt sits beside the hash); under a key that is not in the decisions' file, a copy
  of that file (a backup, a synced folder, a paste into a bug report) gives nothing to try guesses against.
- `decisions.json`: the decisions, and an HMAC of them under the same key, so that a file edited by hand,
  copied from someone else or planted (a repository's `sessionsite.toml` can name none of this) is refused
  with a message rather than read as decisions the user made.

Each change is read, made and written under an exclusive lock on `.lock` (two commands at once both keep their
decisions), and written whole (`write_atomically`): a kill leaves the file as it was or as it is now.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Literal, Mapping

if sys.platform != "win32":
    import fcntl

from ..core.errors import SessionsiteError
from ..core.files import write_atomically
from ..stages.redact import keyed_digest

Decision = Literal["redact", "keep"]
DECISIONS = ("redact", "keep")
FORMAT = "sessionsite-review-decisions"
VERSION = 1
KEY_BYTES = 32


class DecisionsError(SessionsiteError):
    """The decisions cannot be read or trusted: the message names the file and what to do."""


@dataclass(frozen=True)
class Decided:
    """One decision, and what helps a person recognise the value in a list (never any of its characters)."""

    decision: Decision
    kind: str
    length: int
    where: str
    """Where it was first seen: the log and its line."""
    decided: str
    """When (UTC)."""


def default_location() -> Path:
    given = os.environ.get("SESSIONSITE_REVIEW")
    if given:
        return Path(given)
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "sessionsite" / "review"


class DecisionStore:
    """The decisions kept in `folder`: read with `load`, changed with `change` (under the lock)."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder or default_location()
        self.path = self.folder / "decisions.json"
        self.key_path = self.folder / "key"

    # -- reading ---------------------------------------------------------------------------------------

    def load(self) -> tuple[bytes, dict[str, Decided]]:
        """The key (made when there is none yet and no decision either) and the decisions, by digest."""
        with self._locked():
            return self._read()

    def digest(self, key: bytes, value: str) -> str:
        return keyed_digest(key, value)

    def _read(self) -> tuple[bytes, dict[str, Decided]]:
        key = self._key()
        if not self.path.exists():
            return key, {}
        try:
            data = json.loads(self.path.read_bytes())
        except OSError as error:
            raise DecisionsError(f"{self.path}: cannot be read ({error.strerror or error})") from None
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise DecisionsError(self._damaged("is not the JSON sessionsite writes")) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("decisions"), dict):
            raise DecisionsError(self._damaged("is not a file of review decisions"))
        if data.get("version") != VERSION:
            raise DecisionsError(self._damaged(f"is of version {data.get('version')!r}, not {VERSION}"))
        decisions = data["decisions"]
        mac = data.get("mac")
        if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(key, decisions)):
            raise DecisionsError(self._damaged("was changed outside sessionsite, or made with another key (its "
                                               "signature does not match)"))
        found: dict[str, Decided] = {}
        for digest, fields in decisions.items():
            try:
                decided = Decided(**fields)
            except TypeError:
                raise DecisionsError(self._damaged(f"has a decision of another shape ({digest[:12]})")) from None
            if decided.decision not in DECISIONS:
                raise DecisionsError(self._damaged(f"has a decision that is neither redact nor keep ({digest[:12]})"))
            found[digest] = decided
        return key, found

    def _damaged(self, what: str) -> str:
        return (f"{self.path}: {what}; nothing is published until it is settled: move it away (every value is "
                "then reviewed again) or restore your backup of it")

    def _key(self) -> bytes:
        try:
            key = self.key_path.read_bytes()
        except FileNotFoundError:
            if self.path.exists():
                raise DecisionsError(f"{self.key_path}: is missing, so the decisions in {self.path} cannot be "
                                     "checked; restore it, or move the decisions away and review again") from None
            key = secrets.token_bytes(KEY_BYTES)
            write_atomically(self.key_path, lambda handle: handle.write(key), mode=0o600)
            return key
        except OSError as error:
            raise DecisionsError(f"{self.key_path}: cannot be read ({error.strerror or error})") from None
        if len(key) != KEY_BYTES:
            raise DecisionsError(f"{self.key_path}: is not a key sessionsite made ({len(key)} bytes, not "
                                 f"{KEY_BYTES}); restore it, or move it and {self.path.name} away and review again")
        return key

    # -- changing --------------------------------------------------------------------------------------

    def change(self, decide: Mapping[str, Decided | None]) -> dict[str, Decided]:
        """Set (or, for None, forget) the decisions by digest, keeping every other decision as it is on disk
        now (another command may have added some); the decisions as they are after."""
        with self._locked():
            key, decisions = self._read()
            for digest, decided in decide.items():
                if decided is None:
                    decisions.pop(digest, None)
                else:
                    decisions[digest] = decided
            self._write(key, decisions)
            return decisions

    def _write(self, key: bytes, decisions: Mapping[str, Decided]) -> None:
        fields = {digest: asdict(decided) for digest, decided in sorted(decisions.items())}
        data = {"format": FORMAT, "version": VERSION, "decisions": fields, "mac": _mac(key, fields)}
        text = json.dumps(data, indent=1, sort_keys=True).encode("utf-8") + b"\n"
        write_atomically(self.path, lambda handle: handle.write(text), mode=0o600)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The folder made private, and its lock held (waiting for another command's change to end)."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            folder = self.folder.stat()
            fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise DecisionsError(f"{self.folder}: cannot keep the review's decisions there "
                                 f"({error.strerror or error})") from None
        if sys.platform != "win32" and (folder.st_uid != os.getuid() or folder.st_mode & 0o022):
            os.close(fd)
            # Another local user who may write here could replace the files (and the key with them).
            raise DecisionsError(f"{self.folder}: {'is not yours' if folder.st_uid != os.getuid() else 'others may write in it'}; "
                                 "the review's decisions are kept only in a folder no one else may change "
                                 f"(chmod go-w {self.folder})")
        try:
            if sys.platform != "win32":
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def _mac(key: bytes, decisions: Any) -> str:
    canonical = json.dumps(decisions, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return hmac.new(key, b"sessionsite review decisions\0" + canonical, "sha256").hexdigest()


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["DECISIONS", "Decided", "Decision", "DecisionStore", "DecisionsError", "default_location", "now"]
