"""The threat model (docs/security.md) names an attacker's test for each threat: each one it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_the_threat_model_names_exists():
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    named: list[tuple[str, str]] = []
    for cell in re.findall(r"`(test_\w+\.py)(::\w+)?`|`::(\w+)`", text):
        module, test, bare = cell
        if module:
            current = module
            if test:
                named.append((module, test[2:]))
        elif bare:
            named.append((current, bare))
    assert len(named) >= 20
    missing = [f"{module}::{test}" for module, test in named
               if not re.search(rf"^(?:async )?def {test}\(", (ROOT / "tests" / module).read_text(encoding="utf-8"), re.M)]
    assert missing == []
