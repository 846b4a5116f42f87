"""`escape.prose` parses only the pieces of a text that hold something to escape: a text is cut where block
parsing starts afresh (a line at the margin after a blank line, outside any fence), and each piece with
nothing to escape is kept as it is. These tests hold the cut path to the whole-text parse (`_parsed_prose`,
the parse every text went through before pieces existed) on every prose text of the examples and the
recorded client sessions, on the hostile vectors, on families built around what may run past a blank line
(fences, HTML blocks of every kind, lists, quotes, tables, indented code, setext underlines, reference
definitions), and on random texts made of such lines. Some expected outputs are written out by hand."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.render.markdown import escape
from generator.render.markdown.escape import _fresh_start_pieces, _parsed_prose, prose

from attacks import VECTORS
from conftest import corpus_files

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def whole(text: str) -> str:
    """`prose` as the whole-text parse makes it."""
    return _parsed_prose(text) if escape._may_need_escaping(text) else text


def differing(texts: list[str]) -> list[str]:
    return [text for text in texts if prose(text) != whole(text)]


def prose_of_build(inputs: tuple[Path, ...], output: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the Markdown writer escapes as prose in a build of `inputs`."""
    seen: dict[str, None] = {}
    original = escape.prose

    def recording(text: str) -> str:
        seen.setdefault(text, None)
        return original(text)

    import generator.render.markdown.document_base as document_base
    import generator.render.markdown.reply as reply
    import generator.render.markdown.single_events as single_events
    import generator.render.markdown.tool_agents as tool_agents
    import generator.render.markdown.tool_checklists as tool_checklists
    import generator.render.markdown.tool_commands as tool_commands
    import generator.render.markdown.tool_other as tool_other

    for module in (escape, document_base, reply, single_events, tool_agents, tool_checklists, tool_commands, tool_other):
        monkeypatch.setattr(module, "prose", recording)
    build(BuildConfig(inputs=inputs, output=output, jobs=1))
    monkeypatch.undo()
    return list(seen)


@pytest.mark.slow
def test_the_examples_prose_escapes_the_same_cut_or_whole(tmp_path, monkeypatch):
    texts = prose_of_build((EXAMPLES,), tmp_path / "site", monkeypatch)
    assert differing(texts) == []
    # The cut is taken on real texts, not only on made-up ones.
    assert len(texts) > 200 and sum(len(_fresh_start_pieces(text)) > 1 for text in texts) > 10


@pytest.mark.slow
def test_the_recorded_client_sessions_prose_escapes_the_same_cut_or_whole(tmp_path, monkeypatch):
    folders = tuple(sorted(FIXTURES.glob("realclient/*/projects")))
    assert folders
    texts = prose_of_build(folders, tmp_path / "site", monkeypatch)
    assert texts and differing(texts) == []


@pytest.mark.slow
def test_the_public_corpus_prose_escapes_the_same_cut_or_whole(public_corpus, tmp_path, monkeypatch):
    folders = tuple(sorted({path.parent for path in corpus_files("*.jsonl")}))
    texts = prose_of_build(folders, tmp_path / "site", monkeypatch)
    assert len(texts) > 500 and differing(texts) == []


def test_hostile_vectors_escape_the_same_cut_or_whole():
    texts = []
    for vector in VECTORS:
        text = vector.payload
        texts += [text, f"intro <b>\n\n{text}\n\nafter &amp;", f"```\n\n{text}\n\n```\n\nafter <i>",
                  f"- item\n\n{text}\n\n- item <b>", f"> quote\n\n{text}\n\n# heading"]
    assert differing(texts) == []


# Lines that may open something that runs past a blank line, or look as if they do.
OPENERS = ["```", "````", "~~~", "~~~~", "```py", "``` x", "```a`b", "~~~ `a`", "``` | x", "<!--", "<script>", "<pre>",
           "<style>", "<textarea>", "<?php", "<!DOCTYPE html>", "<![CDATA[", "<div>", "<b>", "</x>", "- item", "1. item",
           "> quote", "    indented", "\tindented", "| a | b |\n|---|---|", "[ref]: /url", "[ref]:", "Title\n---",
           "Title\n===", "***", "para"]
CLOSERS = ["```", "````", "~~~", "   ```", "    ```", "``` x", "-->", "</script>", "</pre>", "?>", ">", "]]>", "</div>",
           "- ```", "> ```", "  ```", ""]
MIDDLES = ["<b> & ![i](x)", "# heading", "---", "===", "`code <b>`", "  continued <b>", "    code <b>", "<i>"]


def test_what_may_run_past_a_blank_line_escapes_the_same_cut_or_whole():
    shapes = itertools.product(OPENERS, CLOSERS, ["x <b>", "# h", "```"])
    texts = [f"{opener}\n{MIDDLES[number % len(MIDDLES)]}\n\n{after}\n{closer}\n\nlast <b> `x`\n\n# end"
             for number, (opener, closer, after) in enumerate(shapes)]
    assert differing(texts) == []
    assert sum(len(_fresh_start_pieces(text)) > 1 for text in texts) > 0.15 * len(texts)


LINES = ["", "", " ", "\t", "```", "````", "~~~", "```py", "```a`b", "``` |x", "  ```", "-|-", "| a | b |", "|---|---|",
         "<div>", "<!--", "-->", "<script>", "</script>", "<?x", "?>", "<![CDATA[", "]]>", "<!X", "- item", "  - nested",
         "1. one", "2) two", "> quote", "> > q", "    code <x>", "\tcode &amp;", "# h", "###### h", "####### h", "===",
         "---", "- - -", "text `a", "b` text", "``x``", "a <b> &amp; c", "![i](x)", "[r]: /u", "[r]:", "/u 'x'", "para",
         "  indented <y>", "Setext", "&copy;", "\\<x>", "x\u00a0y", "\u00a0<b>", "* * *", "a|b", "`", "~~~ `x`", "a\rb",
         "<b>", "</b>", "<b x='1'>", "<custom-tag>", "<Script>", "<PRE>", "<preface>", "<styles>", "- <div>", "> <b>",
         "<div", "</p>x", "<hr>"]


def random_texts(count: int, seed: int) -> list[str]:
    pick = random.Random(seed)
    return ["\n".join(pick.choice(LINES) for _ in range(pick.randint(2, 14))) for _ in range(count)]


def test_random_texts_of_such_lines_escape_the_same_cut_or_whole():
    assert differing(random_texts(600, 20261126)) == []


@pytest.mark.slow
def test_many_more_random_texts_escape_the_same_cut_or_whole():
    assert differing(random_texts(10_000, 1126)) == []


@pytest.mark.parametrize(("text", "escaped"), [
    # A fence runs on past blank lines: what is inside stays code, what follows it is escaped.
    ("```\n<b>\n\nx <b>\n```\n\ny <b>", "```\n<b>\n\nx <b>\n```\n\ny &lt;b>"),
    # A comment runs on too: each HTML block in it is made text, up to the end.
    ("<!--\n\n<b>\n-->\n\nz <b>", "\\<!--\n\n\\<b>\n-->\n\nz &lt;b>"),
    # A fence in a list item ends with the item: the text after it is not code.
    ("- a\n\n  ```\n  <b>\n\nq <b>", "- a\n\n  ```\n  <b>\n\nq &lt;b>"),
    # A fence left open is closed, in the last piece; the pieces before it are escaped as they were.
    ("# one\n\nx <b>\n\n```\n<b>\n\n<i>", "## one\n\nx &lt;b>\n\n```\n<b>\n\n<i>\n```"),
    # An HTML block of kind 6 ends at the blank line: made text in its piece, the next pieces escaped on their own.
    ("<div>\n<b> & x\n\n# h\n\nx <b>", "\\<div>\n&lt;b> & x\n\n## h\n\nx &lt;b>"),
    # One of kind 1 runs past blank lines, so the text is parsed whole.
    ("<pre>\n\n# not a heading\n</pre>\n\n# h", "\\<pre>\n\n## not a heading\n\\</pre>\n\n## h"),
    # A fence line right under an HTML line is text of the HTML block until that is made text: not cut.
    ("<div>\n```\n\n```\n<b>\n\nx\n```", "\\<div>\n```\n\n```\n\\<b>\n\nx\n```\n```"),
    # A table header that looks like a fence opens none.
    ("``` | a\n-|-\n\n<b>\n\n```\n<i>", "``` | a\n-|-\n\n\\<b>\n\n```\n<i>\n```"),
])
def test_texts_cut_into_pieces_escape_as_written(text, escaped):
    assert prose(text) == escaped


def test_a_lone_carriage_return_ends_a_line_as_markdown_reads_it():
    """Markdown reads a carriage return alone as a line break: a fence, heading or underline after one is a
    block of its own, and is escaped as one (a fence left open would run to the end of the .md)."""
    assert prose("text\r```\rcode") == "text\n```\ncode\n```"
    assert prose("a\r# title") == "a\n## title"
    assert prose("a\r---\rb") == "a\n\\---\nb"
    assert prose("a\rb\r<div>") == "a\nb\n\\<div>"
    assert prose("a\r\n<b>\r\n") == "a\r\n&lt;b>\r\n"  # Windows line ends stay as written


def test_a_reply_with_html_after_a_lone_carriage_return_builds(tmp_path):
    """One such reply failed the whole build (the parser's line numbers ran past the text's)."""
    folder = tmp_path / "logs" / "-home-me-app"
    folder.mkdir(parents=True)
    entries = [
        {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/home/me/app",
         "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:01Z",
         "cwd": "/home/me/app", "message": {"role": "assistant", "model": "m", "content": [
             {"type": "text", "text": "first\rsecond\r<div>raw</div>\r```\rcode"}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:02Z",
         "cwd": "/home/me/app", "message": {"role": "user", "content": "after the reply"}},
    ]
    (folder / "s1.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    build(BuildConfig(inputs=(folder,), output=tmp_path / "site", jobs=1, vault=None))
    markdown = next((tmp_path / "site").rglob("*.md")).read_text()
    assert "\\<div>raw&lt;/div>" in markdown
    # The reply's fence is closed: the prompt after it is text, not code.
    assert "```\ncode\n```" in markdown
    assert markdown.index("after the reply") > markdown.index("```\ncode\n```")


def test_the_escape_pattern_knows_the_same_punctuation_as_commonmark():
    for code in range(128):
        char = chr(code)
        assert bool(escape._ESCAPE_OR_BACKTICKS.fullmatch("\\" + char)) == (char in escape._ASCII_PUNCTUATION), char
