"""Transcript markup comes from the theme: a theme restyles one tool, or one kind of notice, by adding one
template (`tools/Bash.html`, `events/notice-<kind>.html`), looked up before the generic one, and every
other kind of transcript part by its own (`events/message.html`, `events/prompt.html`, `events/meta.html`…);
transcript text printed by a template is escaped whatever the template does with it."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import generator
from generator.build import BuildConfig, build
from generator.core.errors import ThemeError
from generator.render.html.render import pygments_css
from generator.render.theme import CodeColours, Theme, default_theme_dir

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
    # The body (the call's input) is still inside the restyled element. The .md is plain Markdown, not the
    # theme's: the same whatever the theme.
    assert bash.select_one("pre") is not None
    assert _markdown(themed) == _markdown(plain) and "prompt-sign" not in _markdown(themed)
    # Hostile text in the command stays text, in the page and in the Markdown: nothing closes our elements.
    for soup in (before, after):
        assert soup.select("main script") == []
        assert soup.select("main b") == []
    summary_line = next(line for line in _markdown(themed).splitlines() if line.startswith("<summary><b>Bash</b>"))
    assert "<code>ls -la &lt;/details&gt;&lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;</code>" in summary_line


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
    assert "<summary><b>Evil&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;/details&gt;</b> <code>TODO</code>" in markdown
    assert "*\\</details\\>\\</div\\>\\<script\\>alert(1)\\</script\\> \\<b\\>x\\</b\\>*" in markdown  # the notice


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


MESSAGE_TEMPLATE = """<div class="reply by-{{ model|replace('.', '-') }} who-{{ who }}" id="{{ anchor }}">
{{ body }}
</div>
"""
META_TEMPLATE = """<p class="meta"><b class="author">{{ who }}</b>{% if timestamp %} at <time datetime="{{ timestamp }}">{{ time }}</time>{% endif %}{% if anchor %} {{ permalink(anchor) }}{% endif %}</p>
"""


def test_a_theme_restyles_replies_prompts_and_their_meta_lines(tmp_path):
    """Every kind of transcript part comes from a template (events/<kind>.html): a theme redraws Claude's
    replies and the line above each message, and the page carries its markup, each reply with its own anchor
    and time, transcript text still escaped. The .md is plain Markdown, the theme's markup nowhere in it."""
    _session(tmp_path / "logs", notice=HOSTILE)
    theme = _theme(tmp_path, {"events/message.html": MESSAGE_TEMPLATE, "events/meta.html": META_TEMPLATE})
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=out, redact=False, jobs=1, theme=theme))
    page = _page(out)
    replies = page.select("div.reply")
    assert replies and page.select(".msg.assistant") == []
    assert len({reply["id"] for reply in replies}) == len(replies)  # each its own, not the first one's
    assert all("who-Claude" in reply["class"] and reply.select_one("p.meta b.author").get_text() == "Claude"
               for reply in replies)
    assert "by-claude-opus-4-6" in replies[-1]["class"]  # a few-valued value, such as the model, can be filtered
    times = [time["datetime"] for time in page.select("p.meta time")]
    assert len(times) == len(set(times)) == len(page.select("p.meta"))  # each message's own time
    assert page.select_one(".msg.user p.meta b.author").get_text() == "You"
    assert page.select("main script") == [] and page.select("main b:not(.author)") == []
    # The .md is the same whatever the theme (the helpers' clock runs on from test to test: any minute).
    assert "class=" not in _markdown(out)
    assert re.search(r"\*\*Claude\*\* · claude-opus-4-6 · 2026-03-02 \d\d:\d\d\n", _markdown(out))


def test_a_template_that_changes_a_value_it_prints_is_refused(tmp_path):
    """Values such as anchors and times are put in after the template is rendered once per shape: a filter
    that would change one is refused with the template's name, rather than printing something wrong."""
    _session(tmp_path / "logs")
    theme = _theme(tmp_path, {"events/meta.html": "<p>{{ time|upper }}</p>\n"})
    with pytest.raises(ThemeError, match="meta.html"):
        build(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "site", redact=False, jobs=1, theme=theme))


def test_a_tool_template_that_reads_the_call_gets_each_call(tmp_path):
    """A template reading the call itself (BASH_TEMPLATE prints call.input.command) is rendered for every
    call: two calls with different commands show each their own."""
    entries = chain(
        user("look around"),
        assistant(tool_use("Bash", {"command": "ls one"}, "toolu_one")),
        user([tool_result("toolu_one", "a")]),
        assistant(tool_use("Bash", {"command": "ls two"}, "toolu_two")),
        user([tool_result("toolu_two", "b")]),
    )
    write_jsonl(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)
    theme = _theme(tmp_path, {"tools/Bash.html": BASH_TEMPLATE})
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=out, redact=False, jobs=1, theme=theme))
    page = _page(out)
    assert [page.select_one(f"#e-toolu_{n} kbd").get_text() for n in ("one", "two")] == ["ls one", "ls two"]


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


# -- one palette source ---------------------------------------------------------------------------------------

DEFAULT_STYLE = default_theme_dir() / "static" / "style.css"
COLOUR_LITERAL = re.compile(r"#[0-9a-fA-F]{3,8}\b|rgba?\([^)]*\)")
DARK_RULES = (('@media (prefers-color-scheme: dark)', ':root:not([data-theme="light"])'),
              ("", ':root[data-theme="dark"]'))


def _css_rules(css: str) -> list[tuple[str, str, dict[str, str]]]:
    """(the at-rule it sits in or "", selector, declarations) of each style rule: enough of CSS to read
    our own stylesheet (no braces or semicolons inside strings or urls there)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    rules, open_preludes, start = [], [], 0
    for brace in re.finditer(r"[{}]", css):
        if brace.group() == "{":
            open_preludes.append(" ".join(css[start:brace.start()].split()))
        else:
            prelude = open_preludes.pop()
            if not prelude.startswith("@"):
                declarations = dict(
                    (name.strip(), value.strip()) for name, _, value in
                    (part.partition(":") for part in css[start:brace.start()].split(";") if part.strip()))
                rules.append((open_preludes[-1] if open_preludes else "", prelude, declarations))
        start = brace.end()
    return rules


def test_each_colour_of_the_palette_is_written_once():
    rules = _css_rules(DEFAULT_STYLE.read_text(encoding="utf-8"))
    root = next(declarations for at_rule, selector, declarations in rules if (at_rule, selector) == ("", ":root"))
    palette = {name: value for name, value in root.items() if COLOUR_LITERAL.search(value)}
    dark_palette = {name.removeprefix("--dark-") for name in root if name.startswith("--dark-")}
    assert {"code-bg", "diff-add", "diff-del", "bg", "text"} <= dark_palette

    # Outside :root (and print, a palette of its own) no rule gives a custom property a colour of its own.
    for at_rule, selector, declarations in rules:
        if (at_rule, selector) != ("", ":root") and at_rule != "@media print":
            written = {name: value for name, value in declarations.items()
                       if name.startswith("--") and COLOUR_LITERAL.search(value)}
            assert written == {}, (at_rule, selector)

    # Dark is in force by two rules (the system's preference, the reader's toggle) that name no colour: each
    # maps a colour to its --dark- value, both the same, and every dark colour is put in force.
    dark_rules = [declarations for at_rule, selector, declarations in rules if (at_rule, selector) in DARK_RULES]
    assert len(dark_rules) == 2 and dark_rules[0] == dark_rules[1]
    mapped = {name.removeprefix("--"): value for name, value in dark_rules[0].items() if name.startswith("--")}
    assert {name for name, value in mapped.items() if value == f"var(--dark-{name})"} == dark_palette
    assert all(f"--{name}" in root for name in dark_palette)  # each has its light value too

    # The code colours the highlighter needs are read from the theme: no palette colour is written in Python.
    python = "\n".join(path.read_text(encoding="utf-8").lower()
                       for path in Path(generator.__file__).parent.rglob("*.py"))
    for name, value in palette.items():
        for literal in COLOUR_LITERAL.findall(value):
            assert literal.lower() not in python, (name, literal)


def test_code_colours_come_from_the_themes_stylesheet(tmp_path, caplog, monkeypatch):
    # The CLI's logging (set up by any earlier test that ran it) keeps warnings from the root logger.
    monkeypatch.setattr(logging.getLogger("sessionsite"), "propagate", True)
    default_light, default_dark = Theme.load().code_colours()
    assert default_light == CodeColours(background="#f6f7f9", inserted="#e6f4ea", deleted="#fdecec")
    style = DEFAULT_STYLE.read_text(encoding="utf-8")
    assert "--diff-add: #e6f4ea;" in style and "--dark-diff-del: #490202;" in style
    themed = style.replace("--diff-add: #e6f4ea;", "--diff-add: rgba(0, 127, 1, .5);").replace(
        "--dark-diff-del: #490202;", "--dark-diff-del: color-mix(in srgb, red 30%, black);")
    light, dark = Theme.load(_theme(tmp_path, {}, {"style.css": themed})).code_colours()
    # A translucent colour as it shows over the block's background: half #007f01, half #f6f7f9.
    assert light == CodeColours(background="#f6f7f9", inserted="#7bbb7d", deleted="#fdecec")
    # One this cannot read is the default theme's, and said so.
    assert dark == default_dark and "--dark-diff-del" in caplog.text
    # A theme with no stylesheet of its own has the default's colours.
    assert Theme.load(_theme(tmp_path / "bare", {})).code_colours() == (default_light, default_dark)


def _wcag_contrast(one: tuple[int, ...], other: tuple[int, ...]) -> float:
    def luminance(colour: tuple[int, ...]) -> float:
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in colour)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rgb(value: str) -> tuple[int, ...]:
    if value.startswith("#"):
        return tuple(int(value[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(int(float(part)) for part in re.findall(r"[\d.]+", value)[:3])


CODE_REPLY = """Here it is:

```python
# the total, in cents
def total(payments: list[int]) -> int:
    return sum(payments) + 0x10  # plus the fee
print(f"total: {total([1, 2])!r}", 'done', 3.5, None, True)
```
"""


@pytest.mark.parametrize("mode", ["light", "system dark", "toggle dark"])
def test_a_theme_that_changes_the_code_background_changes_code_blocks(browser, tmp_path, mode):
    """A theme's own --code-bg is what code is shown on, and the highlighter's colours are readable on it
    (the default theme's are not: they are made for the default's background)."""
    backgrounds = {"light": "#d5dae3", "dark": "#30353f"}
    style = DEFAULT_STYLE.read_text(encoding="utf-8")
    assert "--code-bg: #f6f7f9;" in style and "--dark-code-bg: #0b0d12;" in style
    theme = _theme(tmp_path, {}, {"style.css": style.replace("--code-bg: #f6f7f9;", f"--code-bg: {backgrounds['light']};")
                                  .replace("--dark-code-bg: #0b0d12;", f"--dark-code-bg: {backgrounds['dark']};")})
    entries = chain(user("show me"), assistant(text(CODE_REPLY)),
                    assistant(tool_use("Edit", {"file_path": "/src/a.py", "old_string": "x = 1  # one",
                                                "new_string": "x = 2  # two"}, "toolu_edit1")),
                    user([tool_result("toolu_edit1", "The file /src/a.py has been updated.")]))
    write_jsonl(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=out, redact=False, jobs=1, theme=theme))

    scheme = "light" if mode == "light" else "dark"
    background = backgrounds[scheme]
    default_colours = pygments_css(*Theme.load().code_colours()).split(':root[data-theme="dark"]')
    default_tokens = set(re.findall(r"(?<![-\w])color: (#[0-9a-f]{6})\b", default_colours[0 if scheme == "light" else 1], re.I))
    assert any(_wcag_contrast(_rgb(c), _rgb(background)) < 4.5 for c in default_tokens)

    context = browser.new_context(color_scheme="light" if mode == "toggle dark" else scheme)
    context.set_default_timeout(10_000)
    page = context.new_page()
    session_page = (out / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.html").as_uri()
    if mode == "toggle dark":
        page.goto(session_page)
        page.evaluate("localStorage.setItem('sessionsite-theme', 'dark')")
    page.goto(session_page)
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    shown = page.evaluate("""() => Array.from(document.querySelectorAll('pre.highlight')).map(pre => ({
        language: pre.className, background: getComputedStyle(pre).backgroundColor,
        spans: Array.from(pre.querySelectorAll('span')).filter(s => s.textContent.trim()).map(s => ({
            token: s.className, colour: getComputedStyle(s).color, background: getComputedStyle(s).backgroundColor}))}))""")
    context.close()
    assert {"highlight language-python", "highlight language-diff"} <= {block["language"] for block in shown}
    for block in shown:
        assert _rgb(block["background"]) == _rgb(background), block["language"]
        tokens = {span["token"] for span in block["spans"]}
        assert tokens, block["language"]
        for span in block["spans"]:
            # A diff's lines have a background of their own; every other token is on the block's.
            seen_on = span["background"] if not span["background"].startswith("rgba(0, 0, 0, 0") else block["background"]
            assert _wcag_contrast(_rgb(span["colour"]), _rgb(seen_on)) >= 4.5, (block["language"], span)
    python_tokens = next(b for b in shown if b["language"] == "highlight language-python")["spans"]
    assert {"c1", "k", "s2", "mi"} <= {span["token"] for span in python_tokens}


@pytest.mark.parametrize("name", ["Evil\x00body\x00", "Evil\ue000anchor\ue001", "Evil\ue000nothing\ue001x"])
def test_a_tool_name_holding_our_markers_stays_text(tmp_path, name):
    """Our templates mark where a group's body and a call's values go with characters no template prints:
    a tool name (transcript text) holding them is text like any other, not a second body or a value."""
    _session(tmp_path / "logs", tool_name=name)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "logs",), output=out, redact=False, jobs=1))
    shown = _page(out).select_one("#e-toolu_grep1 .tool-name").get_text()
    assert shown == name.replace("\x00", "\ufffd")
    assert _page(out).select_one("#e-toolu_grep1 pre") is not None  # the call's body is where it belongs


@pytest.mark.parametrize("template", ['<section class="reply" id="{{ anchor }}">\n{{ body }}\n</section>\n',
                                      '<div id="{{ anchor }}">\n{{ body }}\n</div>\n'])
def test_a_template_whose_markup_the_page_shows_as_text_is_named_once(tmp_path, template, caplog, monkeypatch):
    """Our HTML blocks open with a <div>, <details> or <p> with a class: the page shows any other HTML
    block as text, the transcript's. A theme's message template opening otherwise is named in one warning
    (not an error: a value from the transcript in its opening tag may be what breaks it), and the build
    goes on."""
    monkeypatch.setattr(logging.getLogger("sessionsite"), "propagate", True)
    _session(tmp_path / "logs")
    theme = _theme(tmp_path, {"events/message.html": template})
    with caplog.at_level(logging.WARNING, logger="sessionsite"):
        build(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "site", redact=False, jobs=1, theme=theme))
    warned = [record.getMessage() for record in caplog.records if "shows as text" in record.getMessage()]
    assert len(warned) == 1 and "message.html" in warned[0], warned
    assert (tmp_path / "site" / "index.html").is_file()
