"""Every redaction and every finding of the net (`credentials.net`) on the real logs: the public corpus
(../shared/corpus/public) and the real client's fixtures (tests/fixtures/realclient), each by the file that holds it,
its kind and a digest of its value (the value itself is never written down).

`tests/fixtures/reviewed_real_corpus.tsv` is the reviewed table: one line a redaction or a finding, with a person's
verdict (`secret`, or `not-secret` for a redaction that should not have been made, `keep` for a finding that is no
secret) and the reason. `python tests/real_corpus_review.py` prints what the table lacks, to review and add.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOTS = (HERE.parents[1] / "shared" / "corpus" / "public", HERE / "fixtures" / "realclient")
TABLE = HERE / "fixtures" / "reviewed_real_corpus.tsv"


@dataclass(frozen=True)
class Seen:
    source: str
    """The log, relative to its root (`public/…` or `realclient/…`)."""
    what: str
    """`redacted` or `finding`."""
    kind: str
    digest: str
    """The value's SHA-256, its first 16 hex digits."""
    shown: str
    """The value as `audit` shows it (masked)."""


def digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def session_files() -> list[tuple[str, Path]]:
    found = []
    for root in ROOTS:
        label = "public" if root.name == "public" else "realclient"
        found += [(f"{label}/{path.relative_to(root).as_posix()}", path) for path in sorted(root.rglob("*.jsonl"))]
    return found


def seen_in(path: Path, source: str) -> list[Seen]:
    """Each redaction and finding in one log, read as a build reads it (in batches, redacted)."""
    from generator.audit import _texts, masked, private_looking
    from generator.core.model import Entry
    from generator.stages.read import stream_file_in_batches
    from generator.stages.redact import Redactor

    records: list[tuple[str, str]] = []
    redactor = Redactor(record=lambda kind, value, line: records.append((kind, value)))
    found: list[Seen] = []
    for batch in stream_file_in_batches(path, []):
        for item in redactor.items(batch):
            if isinstance(item, Entry):
                for text in _texts(item.data):
                    for kind, value, _ in private_looking(text):
                        if kind == "high-entropy":
                            found.append(Seen(source, "finding", kind, digest(value), masked(value)))
    found += [Seen(source, "redacted", kind, digest(value), masked(value)) for kind, value in records]
    return found


def everything() -> list[Seen]:
    seen: list[Seen] = []
    for source, path in session_files():
        seen += seen_in(path, source)
    return seen


def reviewed() -> dict[tuple[str, str, str, str], tuple[str, str]]:
    """(source, what, kind, digest): (verdict, reason)."""
    table = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        source, what, kind, value_digest, _shown, verdict, reason = line.split("\t")
        table[(source, what, kind, value_digest)] = (verdict, reason)
    return table


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    known = reviewed() if TABLE.exists() else {}
    for item in sorted(set(everything()), key=lambda s: (s.source, s.what, s.kind, s.digest)):
        if (item.source, item.what, item.kind, item.digest) not in known:
            print("\t".join([item.source, item.what, item.kind, item.digest, item.shown, "?", "?"]))
