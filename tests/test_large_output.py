"""A huge tool output must not make a heavy page, and must not be cut off with no way to reach it."""

from __future__ import annotations

import json

from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.markdown.tools import INLINE_OUTPUT_LIMIT


def test_huge_output_is_previewed_and_linked_in_full(tmp_path):
    output = "\n".join(f"line {n}: {'x' * 60}" for n in range(20_000))
    project = tmp_path / "-tmp-big"
    project.mkdir()
    entries = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "big", "timestamp": "2026-01-01T00:00:00Z",
         "cwd": "/tmp/big", "message": {"role": "user", "content": "dump the log"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "big", "timestamp": "2026-01-01T00:00:01Z",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "tool_use", "id": "toolu_big", "name": "Bash", "input": {"command": "cat big.log"}}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "big", "timestamp": "2026-01-01T00:00:02Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_big", "content": output}]}},
    ]
    (project / "big.jsonl").write_text("\n".join(json.dumps(e) for e in entries) + "\n", encoding="utf-8")
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))

    page = out / "projects" / "tmp-big" / "big.html"
    assert page.stat().st_size < len(output) / 2
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    link = next(a for a in soup.find_all("a") if a.get_text() == "Full output")
    assert (page.parent / link["href"]).read_text(encoding="utf-8") == output
    shown = soup.select("#e-toolu_big pre")[-1].get_text()  # the first is the command
    assert output.startswith(shown.rstrip("\n")) and len(shown) <= INLINE_OUTPUT_LIMIT
