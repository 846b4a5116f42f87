"""A huge tool output must not make a heavy page, and must not be cut off with no way to reach it."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.render.markdown.pasted import looks_pasted
from generator.render.markdown.tools import INLINE_OUTPUT_LIMIT


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


def _session(tmp_path, prompt: str, reply: str = "Done."):
    project = tmp_path / "-tmp-pasted"
    project.mkdir()
    entries = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "pasted", "timestamp": "2026-01-01T00:00:00Z",
         "cwd": "/tmp/pasted", "message": {"role": "user", "content": prompt}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "pasted", "timestamp": "2026-01-01T00:00:01Z",
         "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": reply}]}},
    ]
    (project / "pasted.jsonl").write_text("\n".join(json.dumps(e) for e in entries) + "\n", encoding="utf-8")
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    page = out / "projects" / "tmp-pasted" / "pasted.html"
    return page, BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


def _server_log(lines: int) -> str:
    frames = ['Traceback (most recent call last):', '  File "/srv/app/views.py", line 42, in handle',
              "    return self.dispatch(request)", "KeyError: 'user_id'"]
    return "\n".join(f"2026-04-23 19:49:{n % 60:02d},{n % 1000:03d} 1 INFO app.db: query *{n}* took <b>{n}</b> ms"
                     if n % 10 else "\n".join(frames) for n in range(lines))


def test_a_pasted_log_is_shown_preformatted_as_pasted(tmp_path):
    log = "see this:\n" + _server_log(200)
    page, soup = _session(tmp_path, log)
    prompt = soup.select_one(".msg.user")
    shown = prompt.select_one("pre").get_text()
    # Every character as pasted: the stars stay stars, the tags text, the indents and line breaks kept.
    assert shown == log + "\n"
    assert not prompt.find("b") and not prompt.find("em")
    assert page.with_suffix(".md").read_text(encoding="utf-8").count("```text\nsee this:\n") == 1


def test_a_huge_pasted_log_shows_its_start_and_links_the_whole(tmp_path):
    log = _server_log(40_000)
    page, soup = _session(tmp_path, log)
    assert page.stat().st_size < len(log) / 4
    prompt = soup.select_one(".msg.user")
    link = next(a for a in prompt.find_all("a") if a.get_text() == "The whole prompt")
    assert (page.parent / link["href"]).read_text(encoding="utf-8") == log
    shown = prompt.select_one("pre").get_text()
    assert log.startswith(shown.rstrip("\n")) and len(shown) <= INLINE_OUTPUT_LIMIT


def test_a_prompt_with_a_few_log_lines_among_sentences_stays_as_typed(tmp_path):
    sentences = "\n".join(f"Point {n}: the *import* fails when the cache is cold, as you can see." for n in range(30))
    prompt = sentences + "\n" + _server_log(5)
    _, soup = _session(tmp_path, prompt)
    assert soup.select_one(".msg.user pre") is None
    assert "the *import* fails" in soup.select_one(".msg.user").get_text()


def test_a_huge_reply_shows_its_start_and_links_the_whole(tmp_path):
    reply = "\n\n".join(f"Paragraph {n}: the **result** of step {n} is fine." for n in range(5_000))
    page, soup = _session(tmp_path, "go", reply)
    assert page.stat().st_size < len(reply) / 2
    message = soup.select_one(".msg.assistant")
    link = next(a for a in message.find_all("a") if a.get_text() == "The whole reply")
    assert (page.parent / link["href"]).read_text(encoding="utf-8") == reply
    assert "Paragraph 0: the result of step 0 is fine." in message.get_text()
    assert "Paragraph 4999" not in message.get_text()


_JAVA_TRACE = "\n".join(["Exception in thread \"main\" java.lang.IllegalStateException: pool closed"]
                        + [f"\tat com.example.pool.Pool.borrow{n}(Pool.java:{100 + n})" for n in range(40)])
_PYTHON_SOURCE = "\n".join(f"def step_{n}(value):\n    if value > {n}:\n        return value - {n}\n    return value"
                           for n in range(40))
_SYSLOG = "\n".join(f"Oct  1 10:{n % 60:02d}:05 host sshd[{n}]: Accepted key for deploy from 10.0.0.{n % 255}"
                    for n in range(60))
_STEPS = "\n".join(f"{n}. Open the settings page and check that option {n} is still what we agreed on last week."
                   for n in range(1, 31))
_NOTES = "\n".join(f"- The {n}th report says the export is slow when the archive is large; can you look into it?"
                   for n in range(30))


@pytest.mark.parametrize("text, expected", [
    (_JAVA_TRACE, True), (_PYTHON_SOURCE, True), (_SYSLOG, True),
    (_STEPS, False), (_NOTES, False), (_SYSLOG[:1000], False),
    ("Please fix this:\n```\n" + _JAVA_TRACE + "\n```", False),  # fenced by the person: stays as written
], ids=["java-trace", "python-source", "syslog", "numbered-steps", "bullet-notes", "short-log", "fenced-trace"])
def test_a_log_or_code_is_told_by_its_shape(text, expected):
    assert looks_pasted(text) is expected
