"""The `.md` beside each page is Markdown for people: read in an editor, or rendered by GitHub.

It holds none of the theme's HTML (no `<div>`, no class attribute, no permalink): the only HTML in it is
GitHub's fold, a `<details>` whose `<summary>` holds bold and code, around a tool call, a thinking block or
an output, as the page folds them. Parsed as GitHub parses it (raw HTML on), it reads as the page does: the
same words in the same order, so every prompt, reply, tool call, plan, link and code block is there. And
no transcript text can leave the block it was put in: whatever HTML or fences a transcript holds, the
.md's HTML is ours alone and every fold closes where it should.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.tasklists import tasklists_plugin

from generator.build import BuildConfig, build
from generator.bundle import BundleConfig, bundle
from generator.render.html import pages
from generator.render.html.render import render_blocks
from generator.render.markdown import MarkdownPart

from conftest import EXAMPLES, corpus_files
from helpers import (PROJECT_DIR, SESSION_ID, assistant, chain, system, text, thinking, tool_result, tool_use,
                     user, write_jsonl)
from attacks import VECTORS
from test_attacks import SESSIONS, project_dir, session_id
from test_writers import visible_text

OUR_HTML = re.compile(r'<details(?: id="[^"<>]*")?(?: open)?>\n?<summary>(?:[^<>]|</?b>|</?code>)*</summary>\n?'
                      r'|</details>\n?')
"""The HTML the .md may hold: a fold's opening (an id to link to, open or not; its summary bold and code,
the rest text) and its end."""
THEME_MARKUP = re.compile(r'<div|class=|<(?:p|span)\s|permalink')


def github_like() -> MarkdownIt:
    """GitHub's Markdown as markdown-it reads it: tables, strikethrough, and raw HTML (which GitHub shows,
    sanitised), so that any HTML the .md holds is found."""
    return MarkdownIt("gfm-like", {"html": True})


def _tokens(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        yield from _tokens(token.children or [])


def html_in(markdown: str) -> list[str]:
    """Every piece of raw HTML a GitHub-like parser finds, blocks and inline."""
    return [token.content for token in _tokens(github_like().parse(markdown))
            if token.type in ("html_block", "html_inline")]


def problems_of(markdown: str) -> list[str]:
    """HTML that is not one of our folds, or that carries the theme's markup; a fold left open or closed
    twice."""
    pieces = html_in(markdown)
    found = [piece for piece in pieces
             if not OUR_HTML.fullmatch(piece) or any(THEME_MARKUP.search(tag) for tag in re.findall(r"<[^>]*>", piece))]
    opened = sum(piece.startswith("<details") for piece in pieces)
    closed = sum(piece.startswith("</details") for piece in pieces)
    if opened != closed:
        found.append(f"{opened} folds opened, {closed} closed")
    return found


_LINE_NUMBER = re.compile(r'<span class="linenos">\d+</span>')
_NOT_READ = re.compile(r"[\s#·]+")


def reading(markup: str) -> str:
    """What a reader sees of some HTML, as one run of characters: the page's line numbers beside code (the .md
    keeps them in the fence's info string), separators, the permalink's `#` and whitespace aside (the page
    shows a fact in a badge, the .md after a `·`; highlighting and code spans part words differently)."""
    return _NOT_READ.sub("", "".join(visible_text(_LINE_NUMBER.sub("", markup))))


def rendered(markdown: str) -> str:
    """The HTML GitHub would make of it (task lists' checkboxes too)."""
    return github_like().use(tasklists_plugin).render(markdown)


# The classes the renderer itself gives: a code block's language, a task list's.
RENDERERS_CLASSES = re.compile(r"language-.*|contains-task-list|task-list-item(?:-checkbox)?")


def classes_of_the_transcript(shown: BeautifulSoup) -> list[str]:
    """Classes in the rendered .md that the renderer did not give (none can be ours: the .md has none)."""
    return [name for element in shown.find_all(class_=True) for name in element["class"]
            if not RENDERERS_CLASSES.fullmatch(name)]


def _parts_of_a_build(inputs: tuple[Path, ...], out: Path) -> list[MarkdownPart]:
    parts: list[MarkdownPart] = []
    session_page = pages.PageBuilder.session_page

    def recording(self, session, part, render=None):
        parts.append(part)
        return session_page(self, session, part, render)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages.PageBuilder, "session_page", recording)
        build(BuildConfig(inputs=inputs, output=out, redact=False, jobs=1))
    return parts


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> tuple[Path, list[MarkdownPart]]:
    out = tmp_path_factory.mktemp("examples") / "site"
    return out, _parts_of_a_build((EXAMPLES,), out)


def _sample_of_the_corpus() -> tuple[Path, ...]:
    # Every third file: each kind of session the corpus has, at a third of its build time.
    return tuple(corpus_files("*.jsonl", "chat.json")[::3])


@pytest.fixture(scope="module")
def corpus_sample(tmp_path_factory) -> tuple[Path, list[MarkdownPart]]:
    out = tmp_path_factory.mktemp("corpus") / "site"
    return out, _parts_of_a_build(_sample_of_the_corpus(), out)


def _assert_plain_markdown(site: Path) -> None:
    files = sorted(site.rglob("*.md"))
    assert files
    for path in files:
        markdown = path.read_text(encoding="utf-8")
        assert problems_of(markdown) == [], path
        assert [line for line in _lines_outside_code(markdown) if re.match(r"\s*<(?:div|p|span)\b", line)] == [], path


def _lines_outside_code(markdown: str) -> Iterator[str]:
    lines = markdown.split("\n")
    in_code = set()
    for token in github_like().parse(markdown):
        if token.type in ("fence", "code_block") and token.map:
            in_code.update(range(*token.map))
    return (line for number, line in enumerate(lines) if number not in in_code)


def _assert_reads_as_the_page(parts: list[MarkdownPart]) -> None:
    assert parts
    for part in parts:
        page, markdown = reading(render_blocks(part.blocks)), reading(rendered(part.text))
        if markdown != page:
            at = next(n for n, (a, b) in enumerate(zip(markdown + "$", page + "^", strict=False)) if a != b)
            pytest.fail(f"{part.path} page {part.number}, at {at}:\n.md:  {markdown[at - 60:at + 60]}\n"
                        f"page: {page[at - 60:at + 60]}")


def test_the_examples_markdown_holds_no_theme_markup(examples):
    _assert_plain_markdown(examples[0])


def test_the_examples_markdown_reads_as_their_pages(examples):
    _assert_reads_as_the_page(examples[1])


def test_the_markdown_files_are_the_parts_written_one_after_the_other(examples):
    site, parts = examples
    by_file: dict[str, list[str]] = {}
    for part in parts:
        by_file.setdefault(part.path, []).append(part.text)
    for path, texts in by_file.items():
        document = (site / path).read_text(encoding="utf-8")
        assert document.endswith("\n".join(texts)), path


def test_every_tool_call_of_a_page_is_a_fold_of_the_markdown_named_as_on_the_page(examples):
    """The tool's name in bold, its target in code and its status, in the fold's summary; in page order."""
    for part in examples[1]:
        page = BeautifulSoup(render_blocks(part.blocks), "html.parser")
        shown = [(summary.select_one(".tool-name").get_text(), summary.code.get_text() if summary.code else "")
                 for summary in page.select("details.tool > summary")]
        markdown = BeautifulSoup(rendered(part.text), "html.parser")
        folds = [(summary.b.get_text(), summary.code.get_text() if summary.code else "")
                 for summary in markdown.select("details > summary") if summary.b is not None]
        assert folds == shown, f"{part.path} page {part.number}"


def test_links_between_sessions_point_at_the_markdown_beside_them(examples):
    site, _ = examples
    links = 0
    for path in site.rglob("*.md"):
        for token in _tokens(github_like().parse(path.read_text(encoding="utf-8"))):
            href = str(token.attrGet("href") or "") if token.type == "link_open" else ""
            target = href.split("#")[0]
            if target.endswith(".md") and "://" not in target:
                links += 1
                assert (path.parent / target).is_file(), f"{path}: {href}"
                anchor = href.partition("#")[2]
                if anchor:
                    assert f'id="{anchor}"' in (path.parent / target).read_text(encoding="utf-8"), f"{path}: {href}"
    assert links > 10


def test_links_to_a_place_in_the_same_markdown_find_it(examples):
    site, _ = examples
    checked = 0
    for path in site.rglob("*.md"):
        markdown = path.read_text(encoding="utf-8")
        for token in _tokens(github_like().parse(markdown)):
            href = str(token.attrGet("href") or "") if token.type == "link_open" else ""
            if href.startswith("#"):
                checked += 1
                assert f'id="{href[1:]}"' in markdown, f"{path}: {href}"
    assert checked


def test_the_reviewers_markdown_bundle_holds_no_theme_markup_either(tmp_path):
    out = tmp_path / "pr.md"
    bundle(BundleConfig(inputs=(EXAMPLES / "-home-ada-src-tidewatch" / "c41f7d2e-8b3a-4e6f-9d15-2a7b6c0e8f31.jsonl",),
                        output=out, jobs=1))
    markdown = out.read_text(encoding="utf-8")
    assert "<details" in markdown and problems_of(markdown) == []


@pytest.mark.slow
def test_a_sample_of_the_public_corpus_holds_no_theme_markup(public_corpus, corpus_sample):
    _assert_plain_markdown(corpus_sample[0])


@pytest.mark.slow
def test_a_sample_of_the_public_corpus_reads_as_its_pages(public_corpus, corpus_sample):
    _assert_reads_as_the_page(corpus_sample[1])


# -- transcripts that try to leave their block ---------------------------------------------------------

FENCES = "\n".join(f"{'`' * n}{'~' * n}" for n in range(1, 9)) + "\n```\n~~~~\n`` ` ``"
HOSTILE = ('<div class=x>div</div> </details> </summary> <script>alert(1)</script> <p class="meta">fake</p>\n\n'
           f"{FENCES}\n\n<details open><summary>forged</summary>\n\n<!-- never closed")
LAST_WORDS = "Last words of the transcript."


def _hostile_session(folder: Path) -> Path:
    entries = chain(
        user(HOSTILE),
        assistant(thinking(HOSTILE)),
        assistant(text(HOSTILE)),
        assistant(tool_use("Bash", {"command": HOSTILE, "description": HOSTILE}, "toolu_bash1")),
        tool_result("toolu_bash1", HOSTILE),
        assistant(tool_use(HOSTILE, {"pattern": HOSTILE}, "toolu_odd1")),
        tool_result("toolu_odd1", HOSTILE, is_error=True),
        assistant(tool_use("Task", {"description": HOSTILE, "prompt": HOSTILE, "subagent_type": HOSTILE},
                           "toolu_task1")),
        tool_result("toolu_task1", HOSTILE),
        assistant(tool_use("ExitPlanMode", {"plan": HOSTILE}, "toolu_plan1")),
        tool_result("toolu_plan1", "User has approved your plan."),
        user(f"<command-name>/{HOSTILE}</command-name>\n<command-args>{HOSTILE}</command-args>"),
        system("api_error", HOSTILE, level="error"),
        assistant(text(HOSTILE), isApiErrorMessage=True),
        user(HOSTILE),
        assistant(text(LAST_WORDS)),
    )
    return write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)


def test_hostile_text_stays_in_its_block(tmp_path):
    _hostile_session(tmp_path / "logs")
    parts = _parts_of_a_build((tmp_path / "logs",), tmp_path / "site")
    markdown = "\n".join(part.text for part in parts)
    assert problems_of(markdown) == []
    shown = BeautifulSoup(rendered(markdown), "html.parser")
    assert shown.find(["script", "div", "span"]) is None
    assert classes_of_the_transcript(shown) == []
    # The last reply is a paragraph of the document itself: nothing before it swallowed it into a fold,
    # a code block or an HTML block.
    last = shown.find_all("p")[-1]
    assert last.get_text() == LAST_WORDS and last.parent is shown
    folds = shown.find_all("details")
    assert folds and all(fold.find("summary") is fold.contents[1 if fold.contents[0] == "\n" else 0] for fold in folds)
    _assert_reads_as_the_page(parts)


def test_every_attack_vector_stays_text_in_the_markdown(tmp_path):
    """tests/attacks.py's vectors in every field of a transcript (tests/test_attacks.py's sessions)."""
    for vector in VECTORS:
        for which, entries in SESSIONS[vector.n].items():
            write_jsonl(tmp_path / "logs" / project_dir(vector) / f"{session_id(vector, which)}.jsonl", entries)
    parts = _parts_of_a_build((tmp_path / "logs",), tmp_path / "site")
    assert len({part.path for part in parts}) == 3 * len(VECTORS)
    for part in parts:
        assert problems_of(part.text) == [], part.path
        shown = BeautifulSoup(rendered(part.text), "html.parser")
        assert shown.find(["script", "div", "span", "iframe", "svg", "style", "object", "embed"]) is None, part.path
        assert classes_of_the_transcript(shown) == [], part.path
        assert shown.find(attrs={"onerror": True}) is None, part.path
    _assert_reads_as_the_page(parts)
