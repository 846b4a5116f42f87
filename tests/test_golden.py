"""Golden tests: JSONL in, Markdown out. Each `tests/golden/<name>.jsonl` has a reviewed
`<name>.md` beside it, the exact Markdown intermediate sessionsite writes for it.

After an intended change to the Markdown, regenerate with `SESSIONSITE_UPDATE_GOLDEN=1 pytest
tests/test_golden.py` and review the diff before committing it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.build import BuildConfig, build

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*.jsonl"))


@pytest.mark.parametrize("source", CASES, ids=lambda p: p.stem)
def test_markdown_matches_the_reviewed_golden_file(source, tmp_path):
    project = tmp_path / "in" / "-home-lin-src-kite"
    project.mkdir(parents=True)
    (project / source.name).write_bytes(source.read_bytes())
    out = tmp_path / "md"
    build(BuildConfig(inputs=(project,), output=out, markdown_only=True))
    produced = (out / "projects" / "home-lin-src-kite" / f"{source.stem}.md").read_text(encoding="utf-8")
    expected_file = source.with_suffix(".md")
    if os.environ.get("SESSIONSITE_UPDATE_GOLDEN"):
        expected_file.write_text(produced, encoding="utf-8")
    assert produced == expected_file.read_text(encoding="utf-8")


def test_every_golden_input_has_its_reviewed_output():
    assert CASES, "no golden cases"
    assert [c.stem for c in CASES if not c.with_suffix(".md").is_file()] == []
