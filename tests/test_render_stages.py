"""The two writing stages on their own, with no site build: the markdown stage turns one interpreted
session into its .md file and page parts; the HTML stage turns a part's blocks into safe markup."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from generator.render.html.render import render_blocks
from generator.render.markdown import MarkdownOptions, MarkdownPart, SessionDocument

from helpers import PROJECT_DIR, SESSION_ID, assistant, build_archive, chain, text, user, write_jsonl

PROMPT = "Why does <script>alert(1)</script> reach the page?"
REPLY = "Because the **template** skipped escaping."


class MemoryOutput:
    """The staging folder's interface, kept in memory."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write(self, path: str, content: bytes) -> None:
        self.files[path] = content

    def write_shared(self, path: str, content: bytes) -> None:
        self.files[path] = content

    def append(self, path: str, text: str) -> None:
        self.files[path] = self.files.get(path, b"") + text.encode()


def written_session(tmp_path: Path) -> tuple[MemoryOutput, list[MarkdownPart]]:
    project = tmp_path / PROJECT_DIR
    write_jsonl(project / f"{SESSION_ID}.jsonl", chain(user(PROMPT), assistant(text(REPLY))))
    archive = build_archive(tmp_path)
    (session,) = archive.sessions.values()
    output, parts = MemoryOutput(), []
    document = SessionDocument(session, archive, MarkdownOptions(), output, parts.append)
    for event in session.events:
        document(event)
    document.finish()
    return output, parts


def test_the_markdown_stage_writes_front_matter_then_the_conversation(tmp_path):
    output, parts = written_session(tmp_path)
    (markdown,) = [content.decode() for path, content in output.files.items() if path.endswith(".md")]
    assert markdown.startswith("---\n")
    front, body = markdown.split("\n---\n", 1)
    assert f'id: "{SESSION_ID}"' in front.splitlines()
    assert body.index("Why does") < body.index("Because the **template** skipped escaping.")
    assert [(part.number, part.total) for part in parts] == [(1, 1)]
    assert parts[0].text in markdown


def test_the_markdown_stage_keeps_markup_in_a_prompt_as_text(tmp_path):
    _, (part,) = written_session(tmp_path)
    # The prompt is shown as typed: its tag is escaped in the Markdown, so no renderer makes it an element.
    assert "<script>" not in part.text
    shown = BeautifulSoup(render_blocks(part.blocks), "html.parser")
    assert not shown.find("script")
    assert PROMPT in shown.get_text()


def test_the_html_stage_renders_the_reply_as_markdown(tmp_path):
    _, (part,) = written_session(tmp_path)
    shown = BeautifulSoup(render_blocks(part.blocks), "html.parser")
    assert [strong.get_text() for strong in shown.find_all("strong")] == ["template"]
    assert "Because the template skipped escaping." in " ".join(shown.get_text().split())



# -- the theme's markup, rendered once per shape ---------------------------------------------------------


def markup_with(tmp_path: Path, templates: dict[str, str]):
    from generator.render.markdown.markup import TranscriptMarkup
    from generator.render.theme import Theme

    for name, content in templates.items():
        (tmp_path / "templates" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "templates" / name).write_text(content, encoding="utf-8")
    return TranscriptMarkup(Theme.load(tmp_path))


def test_a_shape_is_rendered_once_and_each_call_gets_its_own_escaped_values(tmp_path, monkeypatch):
    markup = markup_with(tmp_path, {"events/x.html": '<div class="x {{ kind }}" id="{{ anchor }}">'
                                                      '{% if note %}<em>{{ note }}</em>{% endif %}\n{{ body }}\n</div>\n'})
    template = markup.template("events/x.html")
    renders = []
    real_render = type(template).render
    monkeypatch.setattr(type(template), "render", lambda self, *a, **k: renders.append(k) or real_render(self, *a, **k))
    first = markup.stamp_wrapper(template, {"anchor": "e-1", "note": 'a "<b>" & \n'}, kind="ok")
    second = markup.stamp_wrapper(template, {"anchor": "e-2", "note": "plain"}, kind="ok")
    without_note = markup.stamp_wrapper(template, {"anchor": "e-3", "note": ""}, kind="ok")
    other_kind = markup.stamp_wrapper(template, {"anchor": "e-4", "note": "n"}, kind="error")
    assert first == ('<div class="x ok" id="e-1"><em>a &quot;&lt;b&gt;&quot; &amp; &#10;</em>', "</div>")
    assert second == ('<div class="x ok" id="e-2"><em>plain</em>', "</div>")
    assert without_note == ('<div class="x ok" id="e-3">', "</div>")
    assert other_kind == ('<div class="x error" id="e-4"><em>n</em>', "</div>")
    assert len(renders) == 3  # once per shape: (ok, a note), (ok, no note), (error, a note)


def test_a_template_that_reads_the_event_is_rendered_for_each(tmp_path):
    markup = markup_with(tmp_path, {"tools/Bash.html": '<div class="t" id="{{ anchor }}">{{ call.command }}\n{{ body }}\n</div>\n',
                                    "tools/_default.html": '<div class="t" id="{{ anchor }}">\n{{ body }}\n</div>\n'})
    bash, generic = markup.template("tools/Bash.html"), markup.template("tools/_default.html")
    calls = [{"command": "ls <one>"}, {"command": "ls two"}]
    assert [markup.stamp_wrapper(bash, {"anchor": f"t{n}"}, {"call": call})[0] for n, call in enumerate(calls)] == \
        ['<div class="t" id="t0">ls &lt;one&gt;', '<div class="t" id="t1">ls two']
    # One that does not read it never sees it (it is not part of the shape either).
    assert markup.stamp_wrapper(generic, {"anchor": "t2"}, {"call": calls[0]})[0] == '<div class="t" id="t2">'


def test_a_session_header_lists_its_commits_from_the_theme(tmp_path):
    """The commits a session made (events/commits-made.html): the first COMMITS_IN_HEADER, each with its
    facts (branch, time, root, amended, the stat), and how many more there are; subjects stay text."""
    from types import SimpleNamespace

    from generator.core.model import Commit
    from generator.render.markdown import COMMITS_IN_HEADER, commits_list
    from generator.render.markdown.markup import default_markup

    commits = [Commit(sha=f"{number:07x}", branch="main" if number == 0 else "", subject="<b>fix</b> & go" if number == 0 else "",
                      anchor=f"e-{number}", page=1, timestamp="2026-01-02T03:04:05Z", files_changed=2, insertions=5,
                      deletions=1, root=number == 0, amend=number == 1)
               for number in range(COMMITS_IN_HEADER + 3)]
    block = commits_list(SimpleNamespace(commits=commits), "https://forge.example/r", default_markup())
    assert block is not None and "\n\n" not in block.html
    soup = BeautifulSoup(block.html, "html.parser")
    assert soup.select_one("summary.label").get_text() == f"{len(commits)} commits made in this session"
    items = soup.select("li")
    assert len(items) == COMMITS_IN_HEADER + 1 and items[-1].get_text().startswith("and 3 more")
    first, second = items[0], items[1]
    assert first.select_one("a.sha")["href"] == "https://forge.example/r/commit/0000000"
    assert first.select_one('a[href="#e-0"]').get_text() == "<b>fix</b> & go" and first.select("b") == []
    assert first.select_one(".commit-meta").get_text() == "main · 2026-01-02 03:04 · root commit · 2 files +5 \u22121"
    assert second.select_one('a[href="#e-1"]').get_text() == "(no subject)"
    assert "amended" in second.select_one(".commit-meta").get_text()
    assert commits_list(SimpleNamespace(commits=[]), "", default_markup()) is None
