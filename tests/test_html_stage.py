"""The HTML stage's own machinery, as a transcript could try to turn it: the placeholders code blocks wait
under while the page is sanitised."""

from __future__ import annotations

from bs4 import BeautifulSoup

from generator.render.html import render
from generator.render.markdown.blocks import Code, Prose

FORGED_SECRET = "0123456789abcdef"


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
