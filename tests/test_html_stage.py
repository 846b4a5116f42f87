"""The HTML stage's own machinery, as a transcript could try to turn it: the placeholders code blocks wait
under while the page is sanitised."""

from __future__ import annotations

from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.cli import main
from generator.render.html import render
from generator.render.markdown.blocks import Code, Prose

from helpers import assistant, user, write_jsonl
from helpers import text as reply_text

FORGED_SECRET = "0123456789abcdef"
HUGE_START = "9" * 5000


def forged_placeholder(number: int, secret: str = FORGED_SECRET) -> str:
    return f"<p>{render._PLACEHOLDER_START}{secret}:{number}{render._PLACEHOLDER_END}</p>"


def test_a_placeholder_typed_in_the_transcript_stays_text_beside_real_code_blocks():
    typed = [forged_placeholder(0), forged_placeholder(1), render._PLACEHOLDER_START + "feedfacefeedface:0"
             + render._PLACEHOLDER_END]
    for text in typed:
        page = render.render_blocks([Prose(text), Code("print('real')\n", "python"), Prose(text),
                                     Code("second\n", "text")])
        shown = BeautifulSoup(page, "html.parser")
        assert [pre.get_text() for pre in shown.find_all("pre")] == ["print('real')\n", "second\n"]
        assert "<script" not in page
        # The forged text is shown (as text: its tags escaped), and takes no code block's place.
        assert shown.get_text().count(render._PLACEHOLDER_START) == 2
        assert page.count("<pre") == 2


def test_every_code_block_comes_back_in_order_on_a_page_of_many():
    blocks = [block for number in range(40) for block in (Prose(f"para {number}"),
                                                          Code(f"line {number}\n", "python" if number % 2 else ""))]
    shown = BeautifulSoup(render.render_blocks(blocks), "html.parser")
    assert [pre.get_text() for pre in shown.find_all("pre")] == [f"line {number}\n" for number in range(40)]
    assert render._PLACEHOLDER_START not in str(shown)


# The macro the `breakable` filter stands in for, as _macros.html had it.
BREAKABLE_MACRO = (
    '{% macro breakable(path) -%}\n{% for part in path.split("/") %}{% for piece in part.split("\\\\") %}{{ piece }}'
    '{% if not loop.last %}\\<wbr>{% endif %}{% endfor %}{% if not loop.last %}/{% if not loop.first %}<wbr>'
    "{% endif %}{% endif %}{% endfor %}\n{%- endmacro %}{{ breakable(path) }}"
)


def test_the_breakable_filter_writes_what_the_macro_wrote_for_any_path():
    import itertools

    import jinja2

    from generator.render.theme import Theme

    macro = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True,
                               keep_trailing_newline=True).from_string(BREAKABLE_MACRO)
    environment = Theme.load().environment()
    environment.filters["thousands"] = str  # _macros.html's plural() uses the page builder's
    theme_macro = environment.from_string('{% from "_macros.html" import breakable %}{{ breakable(path) }}')
    alphabet = ["/", "\\", "a", "<", "&", '"', "'", "é", "<script>"]
    for length in range(5):
        for letters in itertools.product(alphabet, repeat=length):
            path = "".join(letters)
            assert theme_macro.render(path=path) == macro.render(path=path), path
    assert macro.render(path="/home/u\\x/<b>") == "/home/<wbr>u\\<wbr>x/<wbr>&lt;b&gt;"


def test_a_fence_whose_first_line_number_is_thousands_of_digits_long_is_shown_without_numbers(tmp_path):
    """A reply's fence info string is the transcript's: `startline=` with 5,000 digits (more than Python reads
    as an int) stopped the whole build."""
    assert 'class="linenos">7<' in render.highlight("x = 1\n", "python", "startline=7")
    for attributes in (f"startline={HUGE_START}", f"title=a startline={HUGE_START} b", "startline=1234567890123"):
        shown = render.highlight("x = 1\n", "python", attributes)
        assert "linenos" not in shown and "x" in BeautifulSoup(shown, "html.parser").get_text()
    write_jsonl(tmp_path / "logs" / "-home-x-app" / "s1.jsonl", [
        user("show me"), assistant(reply_text(f"Here:\n\n```python startline={HUGE_START}\nx = 1\n```\n"))])
    result = CliRunner().invoke(main, ["build", str(tmp_path / "logs"), "-o", str(tmp_path / "site"), "--no-vault"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "projects" / "home-x-app" / "s1.html").read_text(encoding="utf-8")
    assert "x = 1" in BeautifulSoup(page, "html.parser").get_text()
