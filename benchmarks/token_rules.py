"""How long do the providers' token rules take over real logs?

    python3 benchmarks/token_rules.py [--rounds 3] [INPUT...]

Reads every string of every JSONL input (default: the public corpus beside the repository), then runs the
rules of generator/stages/credentials/providers.py over them, round after round, and prints the CPU time
of the fastest round two ways: each rule only on the strings that hold one of its anchors (or match its
look), as a prefilter would run it (one pattern of every anchor and look first: most strings hold none;
the anchors as a trie, `A(?:BSK|CCA|…)|…`, which re searches four times faster than their alternation);
and each rule on every string, whatever it holds (the worst case, and what a rule costs where its anchor
is common). The rules that cost most that second way are listed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from generator.stages.credentials.providers import TOKEN_RULES, TokenRule  # noqa: E402 - the checkout measured

CORPUS = ROOT.parent / "shared" / "corpus" / "public"


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield key
            yield from strings_in(child)
    elif isinstance(value, list):
        for child in value:
            yield from strings_in(child)


def read_strings(inputs: list[Path]) -> list[str]:
    files = [found for path in inputs for found in (sorted(path.rglob("*.jsonl")) if path.is_dir() else [path])]
    strings: list[str] = []
    for path in files:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                strings.extend(strings_in(json.loads(line)))
            except ValueError:
                continue
    return strings


def as_trie(words: list[str]) -> str:
    """A pattern matching any of `words`, their common prefixes written once."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for character in word:
            node = node.setdefault(character, {})
        node[""] = {}

    def written(node: dict[str, Any]) -> str:
        branches = [re.escape(character) + written(child) for character, child in sorted(node.items()) if character]
        if not branches:
            return ""
        ends_here = "" in node
        body = branches[0] if len(branches) == 1 and not ends_here else "(?:" + "|".join(branches) + ")"
        return body + ("?" if ends_here else "")

    return written(tree)


def may_match(rule: TokenRule, look: re.Pattern[str] | None, text: str) -> bool:
    if look is not None:
        return look.search(text) is not None
    return any(anchor in text for anchor in rule.anchors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("inputs", nargs="*", type=Path, default=[CORPUS])
    options = parser.parse_args()
    strings = read_strings(options.inputs)
    characters = sum(map(len, strings))
    rules = [(rule, re.compile(rule.pattern, rule.flags), re.compile(rule.look) if rule.look else None)
             for rule in TOKEN_RULES]
    print(f"{len(rules)} rules, {len(strings)} strings, {characters / 1e6:.1f} M characters")

    anchors = sorted({anchor for rule in TOKEN_RULES for anchor in rule.anchors})
    any_anchor = re.compile("|".join([as_trie(anchors), *(rule.look for rule in TOKEN_RULES if rule.look)]))
    gated, found = [], 0
    for _ in range(options.rounds):
        start, found = time.process_time(), 0
        for text in strings:
            if any_anchor.search(text) is None:
                continue
            for rule, pattern, look in rules:
                if may_match(rule, look, text):
                    found += sum(1 for _ in pattern.finditer(text))
        gated.append(time.process_time() - start)
    print(f"each rule on the strings holding its anchors: {min(gated):.2f} s (fastest of {options.rounds}); "
          f"{found} matches")

    joined = "\n".join(strings)  # no rule matches across a line break
    costs: dict[str, float] = {}
    for _ in range(options.rounds):
        for rule, pattern, _look in rules:
            start = time.process_time()
            sum(1 for _ in pattern.finditer(joined))
            name = f"{rule.kind} ({rule.anchors[0] if rule.anchors else rule.look})"
            costs[name] = min(costs.get(name, float("inf")), time.process_time() - start)
    print(f"each rule on every string: {sum(costs.values()):.2f} s, "
          f"{sum(costs.values()) / (characters / 1e6) * 1000 / len(rules):.1f} ms per rule and M characters")
    for name, seconds in sorted(costs.items(), key=lambda item: -item[1])[:8]:
        print(f"  {seconds * 1000:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
