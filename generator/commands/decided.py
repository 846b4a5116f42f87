"""The user's own rules with the values they decided to redact on review (`commands.review`): every command
that reads logs applies them, the review's own questions aside."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..output.decisions import DecisionStore
    from ..stages.redact import OwnRules


def with_decisions(own: OwnRules, store: DecisionStore | None = None) -> OwnRules:
    """The user's own rules, with the values they decided to redact."""
    from ..output.decisions import DecisionStore

    store = store or DecisionStore()
    if not store.path.exists():  # nothing reviewed yet: nothing to load (and no key made)
        return replace(own, reviewed=None)
    from ..audit import high_entropy_values
    from ..stages.redact import ReviewedSecrets

    key, decisions = store.load()
    redacted = frozenset(digest for digest, decided in decisions.items() if decided.decision == "redact")
    return replace(own, reviewed=ReviewedSecrets(key, redacted, high_entropy_values) if redacted else None)
