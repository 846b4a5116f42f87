"""Every field of every record the real Codex CLI wrote, in turn given a value of the wrong JSON kind: the adapter
reads the file to its end without raising (damage is the reader's to report, never a crash of the build)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from generator.stages.discover import discover
from generator.stages.interpret import interpret
from generator.stages.read import read_file

FIXTURES = Path(__file__).parent / "fixtures" / "codex"
WRONG_VALUES: tuple[Any, ...] = ([], {}, 7, None, "text", True, [{"type": "message"}])
DEPTH = 4


def field_paths(value: Any, path: tuple = (), depth: int = DEPTH) -> Iterator[tuple]:
    """The path of every value inside a record, to `depth` levels (a list's first two items)."""
    if depth == 0:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*path, key)
            yield from field_paths(inner, (*path, key), depth - 1)
    elif isinstance(value, list):
        for index, inner in enumerate(value[:2]):
            yield (*path, index)
            yield from field_paths(inner, (*path, index), depth - 1)


def replaced(record: Any, path: tuple, new: Any) -> Any:
    copy = json.loads(json.dumps(record))
    holder = copy
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = new
    return copy


def rollouts() -> list[Path]:
    return sorted(FIXTURES.rglob("rollout-*.jsonl"))


@pytest.mark.slow
@pytest.mark.parametrize("rollout", rollouts(), ids=lambda path: path.parts[-6])
def test_a_field_of_the_wrong_kind_never_stops_the_codex_adapter(rollout, tmp_path):
    records = [json.loads(line) for line in rollout.read_text(encoding="utf-8").splitlines() if line.strip()]
    target = tmp_path / "sessions" / "2026" / "12" / "01" / rollout.name
    target.parent.mkdir(parents=True)
    tried = 0
    for number, record in enumerate(records):
        for path in field_paths(record):
            for new in WRONG_VALUES:
                damaged = [*records[:number], replaced(record, path, new), *records[number + 1:]]
                target.write_text("".join(json.dumps(r) + "\n" for r in damaged), encoding="utf-8")
                for found in discover([target]):
                    interpret(found, read_file(target))
                tried += 1
    assert tried > 100
