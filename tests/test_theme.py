"""Transcript markup comes from the theme: a theme restyles one tool, or one kind of notice, by adding one
template (`tools/Bash.html`, `events/notice-<kind>.html`), looked up before the generic one; transcript
text printed by a template is escaped whatever the template does with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.core.errors import ThemeError

from helpers import (PROJECT_DIR, SESSION_ID, assistant, chain, text, tool_result, tool_use, user,
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


EXTRA_LAYOUT = """{% extends "base.html" %}
{% block extrahead %}{{ stylesheet("extra.css") }}{% endblock %}
"""
EXTRA_CSS = ".tool { outline: 3px solid rebeccapurple; } /* </style><script>alert(1)</script> */\n"


def test_a_theme_adds_a_stylesheet_to_every_page(tmp_path):
    _session(tmp_path / "logs")
    theme = _theme(tmp_path, {"layout.html": EXTRA_LAYOUT}, {"extra.css": EXTRA_CSS})
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=out, redact=False, jobs=1, theme=theme))
    for page in (out / "index.html", out / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        sheets = [link["href"] for link in soup.select('head link[rel="stylesheet"]')]
        assert len(sheets) == 3 and sheets[-1].split("?")[0].endswith("extra.css")
        assert (page.parent / sheets[-1].split("?")[0]).read_text(encoding="utf-8") == EXTRA_CSS
        assert soup.select(".site-search")  # the rest of base.html is still there


def _bundle(tmp_path: Path, theme: Path | None, name: str) -> BeautifulSoup:
    from generator.bundle import BundleConfig, bundle

    log = tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl"
    if not log.exists():
        _session(tmp_path / "logs")
    out = tmp_path / name
    bundle(BundleConfig(inputs=(log,), output=out, jobs=1, redact=False, theme=theme))
    return BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")


def test_bundle_honours_the_theme_and_stays_one_file(tmp_path):
    theme = _theme(tmp_path, {"layout.html": EXTRA_LAYOUT, "tools/Bash.html": BASH_TEMPLATE},
                   {"extra.css": EXTRA_CSS})
    plain, themed = _bundle(tmp_path, None, "plain.html"), _bundle(tmp_path, theme, "themed.html")
    assert plain.select(".shell-call") == [] and len(plain.select("head style")) == 1
    assert themed.select_one("#" + themed.select_one(".shell-call details")["id"]).summary.kbd
    # The extra stylesheet is inline, with nothing that could end its element early; nothing is linked.
    styles = themed.select("head style")
    assert len(styles) == 2 and "rebeccapurple" in styles[1].get_text()
    assert themed.select("link[rel=stylesheet]") == [] and themed.select("script[src]") == []
    assert themed.select("script") == plain.select("script")
    # Its own parts are still there: the policy, the contents, the title, the footer.
    assert themed.select_one('meta[http-equiv="Content-Security-Policy"]')
    assert themed.select_one("#contents") and themed.title.get_text().endswith("· sessionsite bundle")
    assert themed.select_one(".site-footer").get_text().startswith("Bundled with")


def test_bundle_command_takes_a_theme(tmp_path):
    from click.testing import CliRunner

    from generator.cli import main

    _session(tmp_path / "logs")
    theme = _theme(tmp_path, {"tools/Bash.html": BASH_TEMPLATE})
    out = tmp_path / "b.html"
    result = CliRunner().invoke(main, ["bundle", str(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl"),
                                       "-o", str(out), "--theme", str(theme), "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser").select(".shell-call kbd")


def test_compiled_templates_are_kept_between_builds_and_never_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _session(tmp_path / "logs")
    theme = _theme(tmp_path, {"tools/Bash.html": BASH_TEMPLATE})
    build(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "first", redact=False, jobs=1, theme=theme))
    kept = sorted((tmp_path / "cache" / "sessionsite" / "templates").iterdir())
    assert kept  # the next build loads them instead of compiling
    # The theme's template edited: the next build must show the edit, not the compiled old one.
    (theme / "templates" / "tools" / "Bash.html").write_text(BASH_TEMPLATE.replace("prompt-sign", "shell-sign"))
    build(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "second", redact=False, jobs=1, theme=theme))
    assert _page(tmp_path / "second").select_one("#e-toolu_bash1 .shell-sign") is not None
    assert _page(tmp_path / "second").select(".prompt-sign") == []
    # Damaged entries are compiled again: the page comes out as without any cache.
    for path in kept:
        path.write_bytes(path.read_bytes()[:30])
    build(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "third", redact=False, jobs=1, theme=theme))
    assert _page(tmp_path / "third").select_one("#e-toolu_bash1 .shell-sign") is not None


def test_a_cache_folder_that_cannot_be_made_does_not_stop_a_build(tmp_path, monkeypatch):
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not-a-folder"))
    _session(tmp_path / "logs")
    build(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "site", redact=False, jobs=1))
    assert _page(tmp_path / "site").select_one("#e-toolu_bash1") is not None
