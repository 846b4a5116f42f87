"""Highlighting of code blocks: Pygments for small blocks, `quick_highlight` past PYGMENTS_LIMIT. Whichever
path a block takes, the page shows exactly its text, a span never crosses a line (line numbers are added
per line), and the words a reader expects coloured are."""

from __future__ import annotations

import html
import re

import pytest
from bs4 import BeautifulSoup

from generator.render.html.quick_highlight import quick_highlight, supports
from generator.render.html.render import PYGMENTS_LIMIT, highlight

SAMPLES = {
    "python": ('def greet(name):\n    # say hello\n    return f"hi {name}" if name else None\n', {"k", "c", "s"}),
    "typescript": ('export function add(a: number): number {\n  // sum\n  return a + 1; /* done */\n}\n',
                   {"k", "c"}),
    "bash": ('if [ -f "$FILE" ]; then\n  echo \'found\'  # note\nfi\n', {"k", "c", "s"}),
    "elixir": ('defmodule Greeter do\n  # greets\n  def hello(name), do: "Hello #{name}"\nend\n', {"k", "c", "s"}),
    "powershell": ('function Get-Thing {\n  param($Name)  # the name\n  return "x $Name"\n}\n', {"k", "c", "s"}),
    "markdown": ('# Plan\n\n## Steps\n\n- Run `make test` **first**, *then* ship.\n\n```python\nprint("<b>")\n```\n',
                 {"gh", "gu", "sb", "gs", "ge", "k"}),
}
HOSTILE = '</code></pre><script>alert(1)</script> & "quotes" \'single\' <!-- x -->\n'


def _large(sample: str) -> str:
    code = (sample + HOSTILE) * (PYGMENTS_LIMIT // len(sample + HOSTILE) + 2)
    assert len(code) > PYGMENTS_LIMIT
    return code


@pytest.mark.parametrize("language", sorted(SAMPLES))
@pytest.mark.parametrize("size", ["small", "large"])
def test_a_block_shows_its_text_exactly_with_its_words_coloured(language, size):
    sample, classes = SAMPLES[language]
    code = sample + HOSTILE if size == "small" else _large(sample)
    markup = highlight(code, language, "")
    page = BeautifulSoup(markup, "html.parser")
    assert page.get_text() == code
    assert page.find("script") is None and "<script>" not in markup
    shown = {name for span in page.find_all("span") for name in span.get("class", [])}
    # Pygments splits classes finer (kd, s2, c1…): the first letters name the family.
    assert all(any(name == wanted or (len(wanted) == 1 and name.startswith(wanted)) for name in shown)
               for wanted in classes), (language, size, shown)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_large_blocks_take_the_quick_path_and_no_span_crosses_a_line(language):
    assert supports(language)
    markup = highlight(_large(SAMPLES[language][0]), language, "startline=7")
    body = markup[markup.index("<code>") + len("<code>"):markup.rindex("</code>")]
    numbers = [int(found) for found in re.findall(r'<span class="linenos">(\d+)</span>', body)]
    assert numbers == list(range(7, 7 + len(numbers)))
    for line in body.split("\n"):
        assert line.count("<span") == line.count("</span>"), line


# Markdown's pattern as it read every character (each alternative tried at each one), which the one that reads
# after a line break must match exactly: same spans, same classes.
_MARKDOWN_AT_EVERY_CHARACTER = re.compile(
    r"(?m)(?P<gh>^#[ \t][^\n]*)|(?P<gu>^#{2,6}[ \t][^\n]*)|(?P<sb>^[ \t]*(?:```|~~~)[^\n]*|`[^`\n]+`)"
    r"|(?P<gs>\*\*[^*\n]+\*\*)|(?P<ge>(?<![*\w])\*[^*\s][^*\n]*\*(?![*\w]))|^[ \t]*(?P<k>[-*+]|\d+\.)(?=[ \t])"
)


def _markdown_marked_at_every_character(code: str) -> str:
    text = html.escape(code, quote=False)
    pieces, done = [], 0
    for found in _MARKDOWN_AT_EVERY_CHARACTER.finditer(text):
        start, end = found.span(found.lastgroup or 0)
        if start == end:
            continue
        name = found.lastgroup
        pieces += [text[done:start], f'<span class="{name}">'
                   + text[start:end].replace("\n", f'</span>\n<span class="{name}">') + "</span>"]
        done = end
    return "".join(pieces) + text[done:]


def test_markdown_is_marked_as_by_a_pattern_tried_at_every_character():
    import random

    pieces = ["\n", "#", "##", "####### ", " ", "\t", "`", "```", "~~~", "*", "**", "-", "+", "1", "12.", ".", "a",
              "_", "&", "<", "é", "\r"]
    chance = random.Random(7)
    texts = [SAMPLES["markdown"][0], _large(SAMPLES["markdown"][0])]
    texts += ["".join(chance.choice(pieces) for _ in range(chance.randint(0, 16))) for _ in range(20_000)]
    for text in texts:
        assert quick_highlight(text, "markdown") == _markdown_marked_at_every_character(text), repr(text)


# Each rule of Pygments' diff lexer, its edges (a one-digit normal-diff command against a longer one, `---`
# alone against a file header), what escaping changes at a line's start (`< `, `> `, `&lt; ` typed as such),
# the line breaks and byte-order mark its lexer rewrites, and a last line with no line break.
DIFF_LINES = [" context <b>", " ", "!changed", "---", "--- a/x.py", "-removed & 'gone'", "< old", "&lt; not old",
              "+added \"new\"", "> new", "&gt; not new", "@@ -1,2 +1,3 @@", "5,7c8", "1a2", "12c13", "3d", "Index: x",
              "index 1..2", "diff --git a/x b/x", "=====", "plain </code></pre><script>alert(1)</script>", "", "\t-tab",
              "\ufeffbom", "x\x85y", "x\u2028y", "{braces} {0}"]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r", ""])
def test_a_diff_is_marked_as_pygments_marks_it(ending):
    from pygments import highlight as pygments_highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import DiffLexer

    for first in ("", "\ufeff"):
        code = first + ending.join(DIFF_LINES) + ending
        for text in (code, code.rstrip("\r\n"), ending.join(reversed(DIFF_LINES))):
            expected = pygments_highlight(text, DiffLexer(stripnl=False), HtmlFormatter(nowrap=True))
            assert highlight(text, "diff", "") == f'<pre class="highlight language-diff"><code>{expected}</code></pre>'
