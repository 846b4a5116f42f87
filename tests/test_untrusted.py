"""Transcript text is hostile: it must show as the text it is, never become markup, and never break the
structure around it. Checked on the escaping rules alone, on the HTML renderer, and end to end."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.render.html.render import render_markdown
from generator.render.markdown.escape import fence, inline_code, prose

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "</details></div><div>",
    "<!-- never closed",
    "<![CDATA[ x",
    '<a href="javascript:alert(2)">x</a>',
    "<style>body{display:none}</style>",
    "<iframe src=https://example.com></iframe>",
    "<svg onload=alert(3)>",
    "<textarea>",
    "`code` and <b>bold</b> and ``<i>``",
    "```\nunclosed fence <b>",
    "~~~\nunclosed tilde fence",
    "- list <li>\n\n      indented <code>",
    "> quote <script>",
    "| a | <b> |\n|---|---|\n| `<x>` | <y> |",
    "&lt;b&gt; and &amp; and &#60;script&#62;",
    "\\<escaped> and \\`not code`",
]


def wrapped(text: str) -> str:
    """Transcript prose inside our structure, the way the markdown stage embeds it."""
    return f'<div class="msg user" id="e-1">\n\n{prose(text)}\n\n</div>\n\n<div class="msg assistant" id="e-2">\n\nafter\n\n</div>\n'


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_prose_makes_no_markup_and_keeps_the_structure(text):
    soup = BeautifulSoup(render_markdown(wrapped(text)), "html.parser")
    assert soup.find_all(["script", "img", "iframe", "style", "svg", "textarea"]) == []
    assert [a["href"] for a in soup.find_all("a") if "javascript" in a.get("href", "").lower()] == []
    assert all(not name.startswith("on") for tag in soup.find_all(True) for name in tag.attrs)
    # Our two message blocks survive, in order, each holding what it should.
    blocks = soup.select("div.msg")
    assert [b["id"] for b in blocks] == ["e-1", "e-2"]
    assert blocks[1].get_text(strip=True) == "after"


@pytest.mark.parametrize("text", ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                                  "</details>", "<b>bold</b>"])
def test_html_in_prose_is_shown_as_its_characters(text):
    soup = BeautifulSoup(render_markdown(wrapped(text)), "html.parser")
    assert text in soup.select_one("#e-1").get_text()


def test_code_spans_keep_their_text_unescaped():
    soup = BeautifulSoup(render_markdown(prose("use `Vec<String>` and ``a ` b`` here")), "html.parser")
    assert [c.get_text() for c in soup.find_all("code")] == ["Vec<String>", "a ` b"]


def test_entities_typed_by_the_user_stay_literal():
    soup = BeautifulSoup(render_markdown(prose("write &lt;b&gt; or &amp;")), "html.parser")
    assert soup.get_text().strip() == "write &lt;b&gt; or &amp;"


def test_unclosed_fence_is_closed_so_it_cannot_swallow_what_follows():
    escaped = prose("look:\n```python\nprint(1)\n")
    soup = BeautifulSoup(render_markdown(escaped + "\n\nafterwards\n"), "html.parser")
    assert soup.find("pre").get_text() == "print(1)\n"
    assert soup.find_all("p")[-1].get_text() == "afterwards"


def test_an_html_comment_that_never_closes_cannot_hide_a_fence_behind_it():
    text = "<!-- open\n``````\nsix backticks\n```python\nstill open\n"
    soup = BeautifulSoup(render_markdown(wrapped(text)), "html.parser")
    assert soup.select_one("#e-2").get_text(strip=True) == "after"
    assert "<!-- open" in soup.select_one("#e-1").get_text()


@pytest.mark.parametrize("code", ["plain", "has ``` inside", "has ```````` eight", "ends with `"])
def test_fence_is_longer_than_any_backtick_run_inside(code):
    html = render_markdown(fence(code, "text") + "\n\nafter\n")
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("pre").get_text() == code + "\n"
    assert soup.find("p").get_text() == "after"


@pytest.mark.parametrize("value", ["a`b", "``", "`start", "end`", "<script>"])
def test_inline_code_holds_any_value(value):
    soup = BeautifulSoup(render_markdown(inline_code(value)), "html.parser")
    assert soup.find("code").get_text() == value


def test_raw_html_that_is_not_ours_is_refused_even_if_it_reaches_the_renderer():
    html = render_markdown("<script>alert(1)</script>\n\n<p onclick=x>hi</p>\n\ntext <b onmouseover=x>b</b>\n")
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("script") is None and soup.find("b") is None
    assert all(not name.startswith("on") for tag in soup.find_all(True) for name in tag.attrs)


def test_javascript_links_in_markdown_do_not_become_links():
    soup = BeautifulSoup(render_markdown(prose("[x](javascript:alert(1)) ![y](javascript:alert(2))")),
                         "html.parser")
    assert all(not a.get("href", "").lower().startswith("javascript") for a in soup.find_all("a"))
    assert soup.find("img") is None


def _session_line(**fields) -> str:
    entry = {"type": "user", "uuid": fields.pop("uuid"), "parentUuid": None, "sessionId": "s-1",
             "timestamp": fields.pop("timestamp"), "cwd": "/tmp/p", "version": "2.1.39", **fields}
    return json.dumps(entry)


def test_hostile_session_end_to_end_runs_no_script_and_loses_no_text(tmp_path):
    project = tmp_path / "projects" / "-tmp-p"
    project.mkdir(parents=True)
    prompt = "\n\n".join(HOSTILE)
    tool_output = "</code></pre><script>alert('out')</script>"
    lines = [
        _session_line(uuid="u1", timestamp="2026-01-01T00:00:00Z", message={"role": "user", "content": prompt}),
        json.dumps({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s-1",
                    "timestamp": "2026-01-01T00:00:01Z",
                    "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [
                        {"type": "tool_use", "id": "t1", "name": "Bash",
                         "input": {"command": "echo '<script>alert(\"cmd\")</script>'"}}]}}),
        _session_line(uuid="u2", timestamp="2026-01-01T00:00:02Z",
                      message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                            "content": tool_output}]}),
    ]
    (project / "s-1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "projects",), output=out))
    for page in out.rglob("*.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        scripts = soup.find_all("script")
        assert all(s.get("src", "").endswith("assets/app.js") and not s.string for s in scripts), page
        assert all(not name.startswith("on") for tag in soup.find_all(True) for name in tag.attrs), page
    session_page = BeautifulSoup((out / "projects" / "tmp-p" / "s-1.html").read_text(encoding="utf-8"),
                                 "html.parser")
    text = session_page.get_text()
    assert tool_output in text
    assert "<script>alert(1)</script>" in text
    assert 'echo \'<script>alert("cmd")</script>\'' in text
