"""The bundle for a pull request, as a reviewer meets it: the Markdown rendered as GitHub renders it, the
zip for Enterprise Server, the 25 MB warning, and the current branch's sessions found in a real git
repository.
"""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from markdown_it import MarkdownIt

import generator.bundle
from generator.bundle import BundleConfig, bundle, github_length
from generator.bundle.markdown import GITHUB_LIMIT, cut, demoted
from generator.cli import main

from helpers import assistant, chain, text, tool_result, tool_use, user, write_jsonl

PLAN = "# Tide extremes\n\nFind the turning points.\n\n## Steps\n\n1. Sample every 10 minutes\n2. Refine\n\n# Tests\n\nDone."


def gfm(markdown: str) -> BeautifulSoup:
    """The Markdown as GitHub renders it (markdown-it-py's GitHub-like preset, raw HTML kept, as GitHub
    keeps <details>)."""
    return BeautifulSoup(MarkdownIt("gfm-like", {"html": True}).render(markdown), "html.parser")


def long_session(folder: Path, prompts: int, tools_per_turn: int, reply_words: int, *, cwd: str = "/home/ada/src/tidewatch",
                 branch: str = "main", session_id: str = "11111111-2222-4333-8444-555555555555") -> Path:
    entries = []
    fields = {"cwd": cwd, "gitBranch": branch, "sessionId": session_id}
    for number in range(prompts):
        entries.append(user(f"Prompt {number}: look at station {number} and fix its tide table", **fields))
        calls = []
        for call in range(tools_per_turn):
            tool_id = f"toolu_{number}_{call}"
            calls += [assistant(tool_use("Bash", {"command": f"python -m tidewatch.check --station {number} "
                                                  + "--verbose " * 20}, tool_id), **fields),
                      tool_result(tool_id, "ok\n" * 50, **fields)]
        entries += calls
        if number == 0:
            entries += [assistant(tool_use("ExitPlanMode", {"plan": PLAN}, "toolu_plan"), **fields),
                        tool_result("toolu_plan", "User has approved your plan.", **fields)]
        entries.append(assistant(text(f"Reply {number}: " + "the table is fixed now. " * reply_words + "END"), **fields))
    return write_jsonl(folder / f"{session_id}.jsonl", chain(*entries))


def make(tmp_path: Path, *inputs: Path, name: str) -> str:
    bundle(BundleConfig(inputs=inputs, output=tmp_path / name, jobs=1))
    return (tmp_path / name).read_text(encoding="utf-8")


# -- the Markdown, as GitHub shows it ---------------------------------------------------------------------


def test_a_long_session_reads_as_a_review_and_fits(tmp_path):
    path = long_session(tmp_path / "-home-ada-src-tidewatch", prompts=64, tools_per_turn=12, reply_words=10)
    markdown = make(tmp_path, path, name="pr.md")
    assert github_length(markdown) <= GITHUB_LIMIT
    page = gfm(markdown)
    # One title, one heading per session; the plan's own headings sit below them.
    assert len(page.find_all("h1")) == 1 and len(page.find_all("h2")) == 1
    assert not page.find_all("h3")
    assert [h.get_text() for h in page.find_all("h4")] == ["Tide extremes", "Tests"]
    assert page.find("h5").get_text() == "Steps"
    # Every prompt and every final reply, whole; the tool calls folded, shortened to fit.
    body = page.get_text(" ")
    for number in range(64):
        assert f"Prompt {number}: look at station {number}" in body
        assert re.search(rf"Reply {number}: (the table is fixed now\. ){{10}}END", body)
    folds = page.find_all("details")
    assert len(folds) == 64  # one per turn (no file was edited: no fold of files changed)
    top = markdown.split("\n---\n", 1)[0]
    assert "Shortened to fit GitHub's 65,536-character limit" in top
    assert re.search(r"[\d,]+ of 768 tool calls left out", top) and "repl" not in top.split("limit:")[1]
    # Words, not wrappers: nothing GitHub strips or that leads nowhere.
    for wrapper in ("<div", "<time", "<a ", "](#", "<span", "<p "):
        assert wrapper not in markdown, wrapper


def test_tool_calls_go_before_replies_and_replies_before_prompts(tmp_path):
    path = long_session(tmp_path / "-home-ada-src-tidewatch", prompts=40, tools_per_turn=20, reply_words=300)
    markdown = make(tmp_path, path, name="pr.md")
    assert github_length(markdown) <= GITHUB_LIMIT
    top = markdown.split("\n---\n", 1)[0]
    assert "all 800 tool calls left out" in top and "final repl" in top and "prompt" not in top.split("limit:")[1]
    body = gfm(markdown).get_text(" ")
    for number in range(40):
        assert f"Prompt {number}: look at station {number} and fix its tide table" in body
        assert f"Reply {number}:" in body  # shortened, not gone
    assert "Tide extremes" in body  # the plan outranks the replies


def test_a_short_piece_of_work_is_whole_with_its_summary(tmp_path):
    folder = tmp_path / "-home-ada-src-tidewatch"
    path = write_jsonl(folder / "22222222-3333-4444-8555-666666666666.jsonl", chain(
        user("make M2 use the shared formulas"),
        assistant(text("Editing."), tool_use("Edit", {"file_path": "/home/ada/src/tidewatch/m2.py", "old_string": "a",
                                                      "new_string": "b"}, "toolu_e1")),
        tool_result("toolu_e1", "The file has been updated."),
        assistant(tool_use("Edit", {"file_path": "/home/ada/src/tidewatch/m2.py", "old_string": "b", "new_string": "c"},
                           "toolu_e2")),
        tool_result("toolu_e2", "The file has been updated."),
        assistant(text("# Done\n\nM2 now uses `shared.f_u`.")),
    ))
    markdown = make(tmp_path, path, name="pr.md")
    assert "Shortened" not in markdown
    top = gfm(markdown.split("\n---\n", 1)[0])
    facts = top.get_text(" ")
    assert "1 session" in facts and "2026-03-02" in facts and "claude-opus-4-6" in facts and "estimated cost $" in facts
    files = top.find("details")
    assert files.summary.get_text() == "1 file changed, 2 edits" and files.li.get_text() == "m2.py: 2 edits"
    page = gfm(markdown)
    assert page.find("h4").get_text() == "Done"  # Claude's heading, demoted
    assert page.find_all("details")[1].summary.get_text() == "2 tool calls"


def test_demoting_and_cutting_keep_the_markdown_whole():
    assert demoted("# A\n\ntext\n\n```\n# not a heading\n```\n\n> ## quoted") == (
        "#### A\n\ntext\n\n```\n# not a heading\n```\n\n> ##### quoted")
    assert demoted("Setext\n===\n\nmore") == "#### Setext\n\nmore"
    assert demoted("### Low\n\n#### Lower") == "#### Low\n\n##### Lower"  # the highest becomes ####
    long_code = "intro\n\n```python\n" + "x = 1\n" * 500 + "```\n\nafter"
    shortened = cut(long_code, 300)
    assert len(shortened) < 400 and shortened.count("```") == 2 and "shortened" in shortened
    rendered = gfm(shortened)
    assert rendered.find("pre") and "shortened" in rendered.get_text()


# -- zip and size ------------------------------------------------------------------------------------------


def test_the_zip_holds_the_html_bundle_and_nothing_else(tmp_path):
    path = long_session(tmp_path / "-home-ada-src-tidewatch", prompts=3, tools_per_turn=1, reply_words=3)
    page = make(tmp_path, path, name="pr.html")
    bundle(BundleConfig(inputs=(path,), output=tmp_path / "pr.zip", jobs=1))
    with zipfile.ZipFile(tmp_path / "pr.zip") as archive:
        assert archive.namelist() == ["pr.html"]
        assert archive.read("pr.html").decode("utf-8") == page
    first = (tmp_path / "pr.zip").read_bytes()
    bundle(BundleConfig(inputs=(path,), output=tmp_path / "pr.zip", jobs=1))
    assert (tmp_path / "pr.zip").read_bytes() == first  # the same sessions, the same bytes


def test_a_bundle_over_githubs_attachment_limit_says_to_zip_it(tmp_path, monkeypatch):
    path = long_session(tmp_path / "-home-ada-src-tidewatch", prompts=3, tools_per_turn=1, reply_words=3)
    runner = CliRunner()
    fits = runner.invoke(main, ["bundle", str(path), "-o", str(tmp_path / "pr.html"), "-j", "1", "--no-vault"])
    assert fits.exit_code == 0 and "WARNING" not in fits.stderr
    size = (tmp_path / "pr.html").stat().st_size
    monkeypatch.setattr(generator.bundle, "ATTACHMENT_LIMIT", size - 1)
    result = runner.invoke(main, ["bundle", str(path), "-o", str(tmp_path / "pr.html"), "-j", "1", "--no-vault"])
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1 and "25 MB" in warnings[0] and "-o pr.zip" in warnings[0]


# -- the current branch ------------------------------------------------------------------------------------


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args],
                   check=True, capture_output=True)


@pytest.fixture
def repository(tmp_path, monkeypatch):
    """A git repository on branch feature/tides, and Claude Code's projects folder with sessions run in it
    on that branch, on main, in a folder inside it, and in another repository."""
    repo = tmp_path / "src" / "tide watch"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    git(repo, "checkout", "-q", "-b", "feature/tides")
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    top = str(repo.resolve())
    projects = claude / "projects"
    encoded = re.sub(r"[^A-Za-z0-9-]", "-", top)
    long_session(projects / encoded, 2, 1, 3, cwd=top, branch="feature/tides",
                 session_id="aaaaaaaa-0000-4000-8000-000000000001")
    long_session(projects / encoded, 1, 1, 3, cwd=top, branch="main", session_id="aaaaaaaa-0000-4000-8000-000000000002")
    long_session(projects / (encoded + "-docs"), 1, 1, 3, cwd=top + "/docs", branch="feature/tides",
                 session_id="aaaaaaaa-0000-4000-8000-000000000003")
    long_session(projects / (encoded + "-other"), 1, 1, 3, cwd=top + "-other", branch="feature/tides",
                 session_id="aaaaaaaa-0000-4000-8000-000000000004")
    return repo


def sections(page: str) -> list[str]:
    return [s["id"] for s in BeautifulSoup(page, "html.parser").select("section.bundle-session")]


def test_with_no_session_the_current_branchs_sessions_are_bundled(repository, tmp_path, monkeypatch):
    (repository / "docs").mkdir()
    monkeypatch.chdir(repository / "docs")  # anywhere in the repository
    result = CliRunner().invoke(main, ["bundle", "-o", str(tmp_path / "pr.html"), "-j", "1", "--no-vault"])
    assert result.exit_code == 0, result.output
    assert "2 sessions of branch feature/tides" in result.stderr
    assert sections((tmp_path / "pr.html").read_text()) == ["session-aaaaaaaa-0000-4000-8000-000000000001",
                                                             "session-aaaaaaaa-0000-4000-8000-000000000003"]
    other = CliRunner().invoke(main, ["bundle", "--branch", "main", "-o", str(tmp_path / "main.md"), "-j", "1",
                                      "--no-vault"])
    assert other.exit_code == 0, other.output
    markdown = (tmp_path / "main.md").read_text()
    assert markdown.startswith("# Claude Code session on main: ") and markdown.count("\n## ") == 1


def test_no_repository_or_no_session_on_the_branch_is_one_clear_line(repository, tmp_path, monkeypatch):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.chdir(outside)
    result = CliRunner().invoke(main, ["bundle", "-o", str(tmp_path / "pr.md"), "--no-vault"])
    assert result.exit_code == 2 and "not inside a git repository" in result.stderr
    assert "Traceback" not in result.output
    monkeypatch.chdir(repository)
    result = CliRunner().invoke(main, ["bundle", "--branch", "nothing-here", "-o", str(tmp_path / "pr.md"), "--no-vault"])
    # --branch is the selection's too: the sessions it leaves are none, and the one line says which branch.
    assert result.exit_code == 1 and "no session of" in result.stderr and "nothing-here" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "pr.md").exists()
