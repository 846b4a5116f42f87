"""The HTML writer over the markdown stage's blocks shows what rendering the page's Markdown would.

The page's HTML is made from typed blocks (`render_blocks`: markdown-it only for prose, code straight to
the highlighter). The same blocks with the theme's markup around them, as one Markdown text
(`themed_markdown_of`), rendered with markdown-it (`render_markdown`, how pages were made before), must read
the same: the same visible text, in the same order, on every page of the examples and of the public corpus.
(The `.md` people read is the plain writer's, `markdown_of`: tests/test_readable_markdown.py.)
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.render.html import pages
from generator.render.html.render import render_blocks, render_markdown
from generator.render.markdown import MarkdownPart
from generator.render.markdown.blocks import Code, Group, Prose, Structure, markdown_of, themed_markdown_of

from conftest import EXAMPLES, corpus_files


# Text in these is not shown as text (BeautifulSoup's get_text leaves it out too).
NOT_SHOWN = frozenset({"script", "style", "template", "rt", "rp"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})


class VisibleText(HTMLParser):
    """The strings of a fragment, each run of text between two tags (or comments) one string, as
    BeautifulSoup's get_text() gives them (the same on every page of the examples and the corpus; only an
    unknown entity such as `&bogus;`, which no escaped page holds, keeps its `;` here), read without
    building its tree: the whole corpus's pages are read here, twice."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.strings: list[str] = []
        self.open: list[str] = []
        self.pending: list[str] = []

    def _end_of_text(self) -> None:
        if self.pending and not NOT_SHOWN.intersection(self.open):
            self.strings.append("".join(self.pending))
        self.pending = []

    def handle_data(self, data: str) -> None:
        self.pending.append(data)

    def handle_starttag(self, tag: str, attrs) -> None:
        self._end_of_text()
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs) -> None:
        self._end_of_text()

    def handle_endtag(self, tag: str) -> None:
        self._end_of_text()
        if tag in self.open:  # closes what is open inside it too; a stray end tag closes nothing
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag):]

    def handle_comment(self, data: str) -> None:
        self._end_of_text()

    def handle_decl(self, decl: str) -> None:
        self._end_of_text()

    def handle_pi(self, data: str) -> None:
        self._end_of_text()

    def unknown_decl(self, data: str) -> None:
        self._end_of_text()
        if data.upper().startswith("CDATA["):  # a CDATA section's text is text
            self.pending.append(data[len("CDATA["):])
            self._end_of_text()

    def close(self) -> None:
        super().close()
        self._end_of_text()


def visible_text(markup: str) -> list[str]:
    """The page's text as a reader sees it: words in order, whitespace aside."""
    parser = VisibleText()
    parser.feed(markup)
    parser.close()
    return " ".join(parser.strings).split()


def _parts_of_a_build(inputs: tuple[Path, ...], out: Path, monkeypatch) -> list[MarkdownPart]:
    parts: list[MarkdownPart] = []
    session_page = pages.PageBuilder.session_page

    def recording(self, session, part, render=None):
        parts.append(part)
        return session_page(self, session, part, render)

    monkeypatch.setattr(pages.PageBuilder, "session_page", recording)
    build(BuildConfig(inputs=inputs, output=out, redact=False, jobs=1))
    return parts


def _assert_reads_the_same(parts: list[MarkdownPart]) -> None:
    assert parts
    for part in parts:
        assert part.blocks, "the markdown stage gives the HTML stage its blocks"
        assert markdown_of(part.blocks) + "\n" == part.text
        from_blocks = render_blocks(part.blocks)
        from_markdown = render_markdown(themed_markdown_of(part.blocks))
        assert visible_text(from_blocks) == visible_text(from_markdown), f"{part.path} page {part.number}"


def test_the_examples_read_the_same_from_blocks_as_from_their_themed_markdown(tmp_path, monkeypatch):
    _assert_reads_the_same(_parts_of_a_build((EXAMPLES,), tmp_path / "site", monkeypatch))


def _groups(blocks, kind: str):
    for block in blocks:
        if isinstance(block, Group):
            if block.kind == kind:
                yield block
            yield from _groups(block.children, kind)


def test_a_tool_call_group_says_what_its_summary_shows(tmp_path, monkeypatch):
    """The facts of a folded tool call (for writers that lay it out themselves) are what the page shows."""
    tools = [group for part in _parts_of_a_build((EXAMPLES,), tmp_path / "site", monkeypatch)
             for group in _groups(part.blocks, "tool")]
    assert len({group.fact("label") for group in tools}) > 5
    for group in tools:
        summary = BeautifulSoup(render_blocks([group]), "html.parser").select_one(f"#{group.anchor} > summary")
        assert summary.select_one(".tool-name").get_text() == group.fact("label")
        assert summary.select_one(".status").get_text() == group.fact("status")
        assert (summary.code.get_text() if summary.code else "") == group.fact("target")


@pytest.mark.slow
def test_the_public_corpus_reads_the_same_from_blocks_as_from_its_themed_markdown(public_corpus, tmp_path, monkeypatch):
    files = tuple(corpus_files("*.jsonl", "chat.json"))
    _assert_reads_the_same(_parts_of_a_build(files, tmp_path / "site", monkeypatch))


def test_code_in_blocks_is_highlighted_text_never_markup():
    hostile = '<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```\n</details></div>'
    blocks = [Structure('<div class="msg assistant" id="m1">', "message"), Prose("Some *prose*."),
              Code(hostile, "html", kind="output"), Code(hostile, "", kind="pasted"), Structure("</div>", "message")]
    markup = render_blocks(blocks)
    soup = BeautifulSoup(markup, "html.parser")
    assert soup.find("script") is None and soup.find("img") is None
    assert [pre.get_text() for pre in soup.find_all("pre")] == [hostile + "\n", hostile + "\n"]
    assert visible_text(markup) == visible_text(render_markdown(themed_markdown_of(blocks)))


def test_structure_that_is_not_ours_is_shown_as_text():
    markup = render_blocks([Structure('<script>alert(1)</script>'), Prose("after")])
    assert "<script>" not in markup and "&lt;script&gt;" in markup


@pytest.mark.parametrize("language, attributes", [("python", ""), ("", "startline=7"), ("c++", ""), ("", "")])
def test_a_code_block_renders_as_its_fence_would(language, attributes):
    code = "def f(x):\r\n    return x\0 # `` ``` \n"
    block = Code(code, language, attributes)
    assert render_blocks([block]) == render_markdown(block.markdown)
