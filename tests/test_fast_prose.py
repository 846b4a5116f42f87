"""Prose through cmark-gfm (`html.fast_prose`) writes the bytes markdown-it-py writes, or leaves the text to
markdown-it-py: on every prose text of the examples and of the public corpus, on the hostile vectors of
tests/attacks.py as a transcript types them and as the markdown stage escapes them, and on families of
texts built to find where the two parsers part (nesting, fences, indentation, tabs, tables, HTML, links,
entities, line endings). markdown-it-py is the reference: the parser of record, which the pages were made
with before the fast path existed."""

from __future__ import annotations

import html
import itertools
import logging
import re
from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.render.html import fast_prose, render
from generator.render.markdown.escape import prose

from attacks import VECTORS
from conftest import corpus_files

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PLACEHOLDER = "\ue000sessionsite-code-0123456789abcdef:"

pytestmark = pytest.mark.skipif(not fast_prose.available(), reason="cmarkgfm has no wheel for this platform")


def reference(text: str) -> tuple[str, list[str]]:
    blocks: list[str] = []
    markup = render.markdown_parser().render(text, {"resolve": None, "code_blocks": blocks, "placeholder": PLACEHOLDER})
    return markup, blocks


def fast(text: str) -> tuple[str, list[str]] | None:
    blocks: list[str] = []
    markup = fast_prose.render(text, render.highlight, blocks, PLACEHOLDER, render._PLACEHOLDER_END, render.linkable)
    return None if markup is None else (markup, blocks)


def differences(texts: list[str]) -> tuple[list[str], int]:
    """The texts the fast path renders otherwise than markdown-it-py, and how many it rendered."""
    differing, taken = [], 0
    for text in texts:
        found = fast(text)
        if found is None:
            continue
        taken += 1
        if found != reference(text):
            differing.append(text)
    return differing, taken


def prose_of_build(inputs: tuple[Path, ...], output: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the HTML writer renders as prose in a build of `inputs` (one process, so all are seen)."""
    seen: dict[str, None] = {}
    original = render.render_prose

    def recording(text: str, env: dict) -> str:
        seen.setdefault(text, None)
        return original(text, env)

    monkeypatch.setattr(render, "render_prose", recording)
    build(BuildConfig(inputs=inputs, output=output, jobs=1))
    monkeypatch.undo()
    return list(seen)


def test_the_examples_prose_renders_the_same_through_either_parser(tmp_path, monkeypatch):
    texts = prose_of_build((EXAMPLES,), tmp_path / "site", monkeypatch)
    differing, taken = differences(texts)
    assert differing == []
    assert len(texts) > 300 and taken > 0.6 * len(texts)  # the fast path is the common one


def test_the_recorded_client_sessions_prose_renders_the_same_through_either_parser(tmp_path, monkeypatch):
    folders = tuple(sorted(FIXTURES.glob("realclient/*/projects")))
    assert folders
    texts = prose_of_build(folders, tmp_path / "site", monkeypatch)
    differing, taken = differences(texts)
    assert differing == []
    assert texts and taken > 0


@pytest.mark.slow
def test_the_public_corpus_prose_renders_the_same_through_either_parser(public_corpus, tmp_path, monkeypatch):
    texts = prose_of_build(tuple(corpus_files("*.jsonl", "chat.json")), tmp_path / "site", monkeypatch)
    differing, taken = differences(texts)
    assert differing == []
    assert len(texts) > 1000 and taken > 0.6 * len(texts)


def test_hostile_vectors_render_the_same_as_typed_and_as_escaped():
    texts = []
    for vector in VECTORS:
        for text in (vector.payload, prose(vector.payload)):
            texts += [text, f"- {text}", f"> {text}", f"1. item\n\n   {text}", f"| a | b |\n|:-|-:|\n| {text} | x |",
                      f"before\n\n```\n{text}\n```\n\nafter", f"`{text}`", f"*{text}*"]
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0


def nested(depth: int) -> list[str]:
    return [">" * depth + " quoted", "> " * depth + "quoted", "".join("  " * level + "- item\n" for level in range(depth)),
            "".join("   " * level + "1. item\n" for level in range(depth)), "*" * depth + "a" + "*" * depth,
            "_" * depth + "a" + "_" * depth, "**a " * depth + "b" + " a**" * depth,
            "".join("> " * level + "- " + "```\ncode\n```\n" for level in range(depth))]


def test_deep_nesting_where_markdown_it_stops_is_left_to_it():
    differing, taken = differences([text for depth in range(1, 45) for text in nested(depth)])
    assert differing == []
    assert taken > 0


FENCE_FAMILY = [
    "```", "~~~", "````", "```py", "``` py", "```py startline=12", "```py   startline=3  x", "```\tpy",
    "```py\u00a0startline=2", "```&lt;x&gt;", "```p&amp;y", "```\\`x", "```py {.class}", "``` ", "```\u3000py",
]
INDENTS = ["", " ", "  ", "   ", "    ", "\t", " \t", "- ", "-    ", "-\t", "> ", ">    ", ">\t", "1. ", "10.  ",
           "- > ", "  - ", "* ", "+     "]
BODIES = ["x = 1", "<b>&amp;</b> \"q\" 'a'", "\tindented\n  two", "", "```", "a\u0000b", "line\r\nnext", "é ü 潮汐"]


def test_fences_and_indented_code_in_every_container_render_the_same():
    texts = []
    for opening, indent, body in itertools.product(FENCE_FAMILY, INDENTS, BODIES):
        closing = opening[0] * 3 if opening[0] in "`~" else "```"
        lines = [opening, *body.split("\n"), closing]
        texts.append("text before\n\n" + "\n".join(indent + line for line in lines) + "\n\nafter")
        texts.append("\n".join(indent + line for line in lines))
        texts.append(indent + "    " + body + "\n" + indent + "    more")  # indented code, perhaps
        texts.append(indent + "```" + "\n" + indent + body)  # a fence left open
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0.25 * len(texts)


INLINE_FAMILY = [
    "a <b>bold</b>", "<div>\nblock\n</div>", "<!-- c -->", "<?php x ?>", "<![CDATA[x]]>", "<http://example.com>",
    "<a@b.co>", "see http://example.com/x.", "mail me@example.com", "www.example.com", "//host/path",
    "[a](b)", "[a] [b]", "[a]\n\n[a]: /u", "![i](x.png)", "[a][b]", "[x]", "- [ ] task", "- [x] done", "1. [X] t",
    "~~s~~", "~s~", "~~~", "&amp; &copy; &#35; &#x41; &bogus; &#0;", "a\\\nb", "a  \nb", "`code` ``co`de``",
    "*a* _b_ **c** __d__ ***e***", "a*b*c a_b_c", "\\<b> \\* \\[", "| a | b |\n|---|:-:|\n| 1 | 2 |",
    "| a |\n|--|\n| `x|y` |", "a | b\n--|--\n1 | 2", "|x|\n|-|\n", "| a | b |\n|:-|-:|\n| \\| | x |", "Setext\n===",
    "Setext\n---", "# h1", "###### h6", "####### h7", "***", "- - -", "1) x\n2) y", "3. x", "- a\n\n- b",
    "- a\n - b\n  - c", "> a\nlazy", "text\u2028more", "tab\there", "a\rb", "a\r\nb\r\n", "\u00a0lead",
    "e\u0301", "\ufeffbom", "emoji 🎉 and 𝒜", "`<b>`", "a <b", "a < b > c", "x<y", "<b", "</b>", "<b/>",
    "&lt;div&gt; shown", "`<b>` and &lt;b>", "`<b>` and <b>", "&lt;http://x.y&gt;", "[x]: /u \"t\"", "para\n[x]: /u",
    "a]: b", "`d[k]: v`", "[x]:\n/u", "[x]: <>", "\\[x]: /u", "    [x]: /u", "[x]: /u\n\n[x]",
    "| a | b |\n|---|---|\n| 1 |", "| a |\n|---|---|\n| 1 | 2 |", "| a | b |\n|---|---|\n| 1 | 2 | 3 |",
    "| a | b |\n| --- | --- |\ntext after", "| a | b |\n|---|---|\n\n| c |", "a|b\n-|-", "|a|\n|:-:|\n|*x*|",
    "| a |\n|---|\n| b |\n> quote", "para\n| a |\n|---|", "| `|` | b |\n|---|---|", "| a \\| b |\n|---|",
    "|||\n|-|-|\n|||", "| a |\n|-|\n|    code? |", "# | a |\n|---|", "| é | 潮 |\n|:--|--:|\n| ü | 汐 |",
]


def test_inline_and_block_constructs_render_the_same_alone_and_in_containers():
    texts = []
    for snippet, indent in itertools.product(INLINE_FAMILY, ["", "- ", "> ", "1. ", "  ", "    "]):
        text = "\n".join(indent + line for line in snippet.split("\n"))
        texts += [text, prose(text), f"Intro line\n{text}\n\nOutro"]
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0.4 * len(texts)


def test_what_the_fast_path_cannot_match_goes_to_markdown_it():
    for text in ["see [the docs](https://example.com)", "a ~~struck~~ word", "raw <span>html</span>",
                 "<https://example.com>", "mail a@b.co", "[ref]\n\n[ref]: /x", ">" * 30 + " deep"]:
        assert fast(text) is None, text


def test_builds_switch_off_markdown_its_debug_lines_and_put_them_back(caplog):
    rules = logging.getLogger("markdown_it.rules_block.paragraph")
    with render.markdown_it_quiet():
        assert rules.disabled
    assert not rules.disabled
    # Someone who asked for markdown-it's debug lines keeps them.
    rules.setLevel(logging.DEBUG)
    try:
        with render.markdown_it_quiet(), caplog.at_level(logging.DEBUG, logger="markdown_it"):
            assert not rules.disabled
            render.markdown_parser().render("a paragraph")
        assert any(record.name.startswith("markdown_it") for record in caplog.records)
    finally:
        rules.setLevel(logging.NOTSET)


def test_large_shapes_render_the_same_or_go_to_markdown_it():
    """Where either parser has a limit of its own (cells a table may have, runs of delimiters, list length)."""
    texts = ["1" * 20_000, "*" * 10_000, "**a " * 2_000 + "b", "_a" * 5_000, "a\n" * 5_000, "- a\n" * 2_000,
             "|a" * 500 + "\n|" + "-|" * 500 + "\n" + "|b" * 500, "| a |\n|---|\n" + "| x |\n" * 2_000,
             "> " * 200 + "deep", "- " * 200 + "deep", "`" * 3_000 + "x" + "`" * 2_999]
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0


LINKABLE = ["//", "@", "www.", "WWW.", "wWw.", "Www.", "](", "][", "http://x.y", "HTTPS://X.Y/Z", "MAILTO:A@B.CO",
            "A@B.CO", "WWW.EXAMPLE.COM", "[a](b)", "[A][B]", "//HOST/PATH"]


def test_what_linkify_or_a_link_may_take_is_found_at_either_end_in_any_case_and_beside_code():
    texts = []
    for found in LINKABLE:
        half = len(found) // 2
        texts += [found, f"{found} after", f"before {found}", f"before\n\n{found}", f"{found}\n\nafter",
                  f"`{found}`", f"`x`{found}", f"{found}`x`", f"{found[:half]}`x`{found[half:]}",
                  f"- {found}", f"> {found}", f"| {found} |\n|---|", f"*{found}*", f"```\n{found}\n```\n\n{found}"]
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0
    for text in ["see HTTP://EXAMPLE.COM", "MAIL A@B.CO", "[A][B]", "x [A](HTTPS://B)"]:
        assert fast(text) is None, text
    for text in ["WWW.EXAMPLE.COM", "wWw.example.org", "@CLAUDE.md", "a @ b", "x [A](B)"]:  # as either parser
        assert fast(text) == reference(text), text


ADDRESSES = ["a@b.co", "me@example.com", "A@B.CO", "x.y+z@sub.example.org", "mailto:a@b.co", "MAILTO:A@B.CO",
             "a@b", "@CLAUDE.md", "@request_queue/x.md", "user@localhost", "a@b.co.", "a@@b.co", "a@b.c", "1@2.3.4",
             "www.example.com", "WWW.EXAMPLE.COM", "www.", "a.www.b", "é@ü.de", "a@xn--nxasmq6b.com", "a@b.co_x"]
BESIDE = ["{a}", "x {a} y", "`c`{a}", "{a}`c`", "*e*{a}", "{a}*e*", "**s**{a}", "x\\_{a}", "\\_{a}", "{a}\\_",
          "&amp;{a}", "&#64;{a}", "x&#64;b.co", "({a})", "\"{a}\"", "<{a}>", "'{a}'", "{a}.", "{a},", "# {a}", "- {a}",
          "> {a}", "| {a} | b |\n|---|---|", "| x |\n|---|\n| {a} |", "line\n{a}", "{a}  \nnext", "`x`\n{a}",
          "![i]({a})", "[{a}]", "x_{a}_y", "*{a}*"]


def test_addresses_and_www_render_the_same_wherever_they_stand():
    """linkify-it finds an e-mail address (fuzzy_email) in each text piece markdown-it-py hands it: the
    fast path asks it about cmark-gfm's text with a space for each tag and code span, so a piece's ends
    are never missed."""
    texts = [beside.replace("{a}", address) for address in ADDRESSES for beside in BESIDE]
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0.3 * len(texts)


def test_the_linkable_check_finds_all_that_a_case_blind_pattern_finds():
    """Against the pattern it stands for: the check may find more, never less."""
    pattern = re.compile(r"//|@|www\.|\]\(|\]\[", re.IGNORECASE)
    alphabet = ["w", "W", ".", "/", "@", "]", "(", "[", "\u212a", "\u0130", "\u017f", "x", " "]
    for length in range(1, 5):
        for letters in itertools.product(alphabet, repeat=length):
            text = "".join(letters)
            if pattern.search(text):
                assert fast_prose._may_be_linked(text), text


BOXES = ["[ ]", "[x]", "[X]", "\\[ ]", "\\[ \\]", "&#91; ]", "[\u00a0]", "[ ]\\", "[x]*", "[xx]", "[ ]]", "[[ ]"]
BOXED_LINES = ["- {box} a", "* {box}", "+\t{box} b", "1. {box} c", "12) {box}", "> - {box} q", "- > {box}",
               "intro\n- {box} later", "- a\n  - {box} nested", "{box} at the start", "-\n  {box} next line",
               "- {box}\ta", "- {box}  \n  hard break", "- {box} \n  soft", "- {box}", "-     {box} code", "- {box} *em*",
               "- {box} a\n\n- {box} loose", "- {box} a\n\n  para", "- {box} a\n  ```\n  fenced\n  ```",
               "- {box} a\n  # heading", "- {box} a\n  ---", "- {box} a\n  > quote", "- {box} a\n  | t |\n  |---|",
               "- {box} a\n  - {box} b\n    - {box} c", "7. {box} a\n8. b\n9. {box} c", "- {box} a\n+ {box} other list",
               "- {box} a\nlazy {box} line", "- `{box}` code", "- {box} `code` **strong** _em_", "> 1. {box} quoted\n>    more",
               "- {box} a\n\n      indented code", "- x\n- {box} y\n- z", "- {box} [link](/x)", "- {box} a\n\n{box} para"]


def test_task_items_render_the_same_in_every_container_and_any_box_that_is_not_one_goes_to_markdown_it():
    """markdown-it-py's tasklists plugin against the fast path's reading of cmark-gfm's items: boxes as the
    markdown stage writes them, and look-alikes (escaped, entities, no space after, a tab, at a line's end)."""
    texts = []
    for box, line in itertools.product(BOXES, BOXED_LINES):
        text = line.replace("{box}", box)
        texts += [text, f"before\n\n{text}\n\nafter", "\n".join("> " + part for part in text.split("\n"))]
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0.5 * len(texts)
    todo = "- [x] Read the file\n- [ ] **Fix the bug** in `parse()`\n- [ ] Run the tests"
    assert fast(todo) == reference(todo)


def test_task_items_take_the_fast_path_only_when_every_box_is_accounted_for():
    for text in ["- [ ]\ta", "- [ ]  \n  b", "-\n  [ ] a", "- [x] a\n- \\[ \\] b\n- [ ]\tc", "- [ ]",
                 "- [ ] a\n  ```\n  code\n  ```"]:
        assert fast(text) is None, text
    for text in ["- [ ] a", "- [x] a\n- \\[ \\] b", "1. [X] a\n\n   b", "> - [ ] q"]:
        assert fast(text) == reference(text), text


def test_a_fence_right_after_a_tight_items_text_goes_to_markdown_it():
    """markdown-it-py writes no line break between a tight item's text and a fence after it, cmark-gfm does."""
    for text in ["- a\n  ```\n  code\n  ```", "1. a\n   ```py\n   x\n   ```\n2. b", "> - a\n>   ```\n>   c\n>   ```"]:
        assert fast(text) is None or fast(text) == reference(text), text
    differing, _ = differences(["- a\n  ```\n  code\n  ```", "- ```\n  code\n  ```", "- a\n\n  ```\n  code\n  ```"])
    assert differing == []


def test_strikethrough_and_unusual_spaces_go_to_markdown_it_wherever_they_stand():
    for text in ["a ~~b~~", "~~~\ncode\n~~~", "x\u00a0y", "\ufeffbom", "a\u2028b", "a\u3000b", "a\x0bb"]:
        assert fast(text) is None, text
    # A box elsewhere than an item's start is only text, and the two parsers agree on it.
    differing, taken = differences(["see a [x] b", "a - [ ] b", "[x]y", "`- [ ]`", "- a [X]", "x [ ]\n[ ] y"])
    assert differing == [] and taken > 0


def test_text_that_spells_a_source_position_keeps_it():
    """cmark-gfm's source positions are taken out of its HTML; the same words typed in a text stay."""
    forged = ' data-sourcepos="1:1-1:9"'
    texts = [forged, f"a{forged}b", f"`{forged}`", f"```py{forged}\n{forged}\n```", f"    {forged}",
             f"| {forged} |\n|:-:|\n| x |", f"- {forged}", f"> {forged}", f"# {forged}", prose(forged)]
    differing, taken = differences(texts)
    assert differing == [] and taken > 0
    for text in texts:
        found = fast(text)
        if found is not None:
            shown = html.unescape(re.sub(r"<[^>]*>", "", found[0] + "".join(found[1])))
            assert 'data-sourcepos="1:1-1:9"' in shown, text


ANGLES = ["`<b>`", "``<b> ` x``", "`\\<b>`", "`\\\\<b>`", "\\<b>", "\\\\<b>", "\\\\\\<b>", "<b>", "a <b", "x<y", "a < b",
          "<http://a.b>", "<a@b.co>", "<!-- c -->", "</x>", "<?x?>", "<!X>", "\\`<b>`", "`a`<b>`c`", "&lt;b&gt;",
          "`&lt;b`", "```\n<b>\n```", "```\n\\<b>\n```", "    <b> indented", "```&lt;x&gt;\nc\n```", "*<b>*",
          "| `<b>` | \\<i> |\n|---|---|", "- `<b>`\n- \\<i>", "> `</x>` \\</y>"]


def test_a_tag_start_in_code_beside_escaped_ones_renders_the_same():
    """A text whose `<` that may start HTML all stand in code, beside escaped ones shown as text (as the
    markdown stage writes a transcript's `<usage>`), takes the fast path; any `<` outside code may be HTML
    to one parser and text to the other, and sends it to markdown-it-py."""
    texts = [f"{first} and {second}" for first in ANGLES for second in ANGLES]
    texts += [f"{first}\n\n{second}" for first in ANGLES for second in ANGLES]
    differing, taken = differences(texts)
    assert differing == []
    assert taken > 0.2 * len(texts)
    for text in ["`Promise<T>` and \\<usage>", "`<b>` then \\</b>", "\\<analysis>\n```\n<div>\n```"]:
        assert fast(text) == reference(text), text
    for text in ["`<b>` and a <b", "x<y \\<z>"]:
        assert fast(text) is None, text


LINK_TEXTS = ["[Subagent transcript: Explore the module](0d6f-41/agent-a7be2f0.md)", "[a.md](a.md)", "[ a.md ](a.md)",
              "[The whole prompt](abc.files/e-1-prompt.txt)", "[x](#e-toolu_01)", "[x](other.md#e-2)", "[x](../up.md)",
              "[x](a%20b.md)", "[x](a_b.md)", "[x](a~b.md)", "[x](<a b.md>)", "[x](a.md \"title\")", "[*em*](a.md)",
              "[`code`](a.md)", "[a\nb](a.md)", "[a &amp; b](a.md)", "[a \\_b](a.md)", "[](a.md)", "[x]()",
              "[x](a.md) and [y](b.md)", "[x](javascript:alert(1))", "[x](//host/p)", "[x](http://h/p)",
              "[x](data:text/html,1)", "[x](a.md)[y](b.md)", "[[x](a.md)](b.md)", "![i](a.png)", "[x](a.md)\n\n[x]: b.md"]


@pytest.mark.parametrize("answers", ["none", "all", "some"])
def test_plain_links_render_the_same_as_the_archive_resolver_sees_them(answers):
    """A link the resolver knows stays; one it does not is shown as its text (`_links_inside_the_archive`),
    through either parser, and the resolver is asked about the same links in the same order."""
    def resolver(asked: list[str]):
        def resolve(href: str) -> str | None:
            asked.append(href)
            known = {"none": False, "all": True, "some": href.startswith(("a", "#"))}[answers]
            return href if known else None
        return resolve

    texts = []
    for link, container in itertools.product(LINK_TEXTS, ["{l}", "- {l}", "> {l}", "| {l} | b |\n|---|---|", "# {l}",
                                                           "before {l} after", "- [ ] {l}"]):
        texts.append(container.replace("{l}", link))
    taken = 0
    for text in texts:
        asked_fast: list[str] = []
        blocks: list[str] = []
        found = fast_prose.render(text, render.highlight, blocks, PLACEHOLDER, render._PLACEHOLDER_END,
                                  render.linkable, resolver(asked_fast))
        if found is None:
            continue
        taken += 1
        asked_reference: list[str] = []
        expected = render.markdown_parser().render(text, {"resolve": resolver(asked_reference), "code_blocks": [],
                                                          "placeholder": PLACEHOLDER})
        assert found == expected, text
        assert asked_fast == asked_reference, text
    assert taken > 0.3 * len(texts)


def _resident_megabytes() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the process's size from /proc")
def test_rendering_prose_gives_its_memory_back():
    """cmarkgfm's own function leaks each document tree and HTML string (some thirteen bytes a byte of
    prose): 4 MB of prose rendered must not leave the process fifty megabytes bigger."""
    from generator.render.html import cmark_html

    text = "\n\n".join(f"# Part {n}\n\n- *item* `code` **strong**\n- [ ] task {n}\n\n| a | b |\n|---|--:|\n| {n} | x |"
                       for n in range(200))
    cmark_html.to_html(text, fast_prose._OPTIONS)
    before = _resident_megabytes()
    for _ in range(4_000_000 // len(text)):
        cmark_html.to_html(text, fast_prose._OPTIONS)
    assert _resident_megabytes() - before < 20
