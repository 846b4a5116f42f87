"""Transcript markup comes from the theme: a theme restyles one tool, or one kind of notice, by adding one
template (`tools/Bash.html`, `events/notice-<kind>.html`), looked up before the generic one; transcript
text printed by a template is escaped whatever the template does with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.core.errors import ThemeError

from helpers import (CWD, PROJECT_DIR, SESSION_ID, assistant, chain, text, tool_result, tool_use, user,
                     write_jsonl)

HOSTILE = "</details></div><script>alert(1)</script>\n\n<b>x</b>"


def _session(folder: Path, tool_name: str = "Grep", notice: str = "Overloaded") -> Path:
    entries = chain(
        user("look around"),
        assistant(tool_use("Bash", {"command": "ls -la " + HOSTILE, "description": "list"}, "toolu_bash1")),
        user([tool_result("toolu_bash1", "total 0")]),
        assistant(tool_use(tool_name, {"pattern": "TODO"}, "toolu_grep1")),
        user([tool_result("toolu_grep1", "src/a.py:1: TODO")]),
        assistant(text(notice), isApiErrorMessage=True),
        assistant(text("done")),
    )
    return write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)


def _page(out: Path) -> BeautifulSoup:
    page = out / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.html"
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


def _markdown(out: Path) -> str:
    return (out / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.md").read_text(encoding="utf-8")


def _theme(tmp_path: Path, templates: dict[str, str], static: dict[str, str] | None = None) -> Path:
    theme = tmp_path / "theme"
    for name, content in templates.items():
        (theme / "templates" / name).parent.mkdir(parents=True, exist_ok=True)
        (theme / "templates" / name).write_text(content, encoding="utf-8")
    for name, content in (static or {}).items():
        (theme / "static" / name).parent.mkdir(parents=True, exist_ok=True)
        (theme / "static" / name).write_text(content, encoding="utf-8")
    (theme / "templates").mkdir(parents=True, exist_ok=True)
    return theme


BASH_TEMPLATE = """<div class="tool-call shell-call">
<details class="{{ classes }}" id="{{ anchor }}"{% if open %} open{% endif %}>
<summary><span class="prompt-sign">$</span> <kbd>{{ call.input.command }}</kbd> <span class="status {{ status_class }}">{{ status }}</span></summary>
{{ body }}
</details>
</div>
"""


def test_a_theme_restyles_bash_calls_and_only_them(tmp_path):
    _session(tmp_path / "logs")
    plain, themed = tmp_path / "plain", tmp_path / "themed"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=plain, redact=False, jobs=1))
    theme = _theme(tmp_path, {"tools/Bash.html": BASH_TEMPLATE})
    build(BuildConfig(inputs=(tmp_path / "logs",), output=themed, redact=False, jobs=1, theme=theme))

    before, after = _page(plain), _page(themed)
    bash = after.select_one("#e-toolu_bash1")
    assert bash.find_parent(class_="shell-call") is not None
    assert bash.summary.kbd.get_text() == "ls -la " + HOSTILE
    assert before.select(".shell-call, .prompt-sign") == []
    # The Grep call is drawn as it always was, by the generic template.
    assert str(after.select_one("#e-toolu_grep1")) == str(before.select_one("#e-toolu_grep1"))
    # The body (the call's input) is still inside the restyled element, and the Markdown carries the same HTML.
    assert bash.select_one("pre") is not None
    assert '<span class="prompt-sign">$</span>' in _markdown(themed)
    # Hostile text in the command stays text, in the page and in the Markdown: nothing closes our elements.
    for soup in (before, after):
        assert soup.select("main script") == []
        assert soup.select("main b") == []
    summary_line = next(line for line in _markdown(themed).splitlines() if "prompt-sign" in line)
    assert "&lt;/details&gt;&lt;/div&gt;&lt;script&gt;" in summary_line and "&#10;&#10;" in summary_line


def test_hostile_tool_names_and_notices_stay_text(tmp_path):
    hostile_name = 'Evil"><script>alert(1)</script></details>'
    _session(tmp_path / "logs", tool_name=hostile_name, notice=HOSTILE)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=out, redact=False, jobs=1))
    page = _page(out)
    assert page.select("main script") == [] and page.select("main b") == []
    assert page.select_one("#e-toolu_grep1 .tool-name").get_text() == hostile_name
    notice = page.select_one(".notice-api-error")
    assert notice.get_text() == " ".join(HOSTILE.split())
    markdown = _markdown(out)
    assert all("<script>" not in line for line in markdown.splitlines() if "tool-name" in line or "notice" in line)


def test_a_theme_restyles_one_kind_of_notice(tmp_path):
    _session(tmp_path / "logs")
    theme = _theme(tmp_path, {"events/notice-api-error.html":
                              '<div class="notice api-trouble" id="{{ anchor }}">API trouble: {{ text }}</div>\n'})
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=out, redact=False, jobs=1, theme=theme))
    assert _page(out).select_one(".api-trouble").get_text() == "API trouble: Overloaded"


@pytest.mark.parametrize("template", ["<div>\n\n<p>\n{{ body }}</p></div>\n", "<div>{{ body }}{{ body }}</div>\n"])
def test_a_tool_template_that_would_break_the_markdown_is_refused(tmp_path, template):
    _session(tmp_path / "logs")
    theme = _theme(tmp_path, {"tools/Bash.html": template})
    with pytest.raises(ThemeError, match="Bash.html"):
        build(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "site", redact=False, jobs=1, theme=theme))
