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


# -- the Markdown acts on nothing on GitHub ----------------------------------------------------------------

CLOSING_KEYWORDS = ("close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved")
"""GitHub's keywords that close an issue when a pull request naming it is merged."""
ISSUE_REFERENCES = ("#1", "octo/repo#2", "https://github.com/octo/repo/issues/3", "GH-4")
# GitHub's own patterns, erring wide: a mention is an @ after a non-word character (or at the start) and
# before a letter or digit, as `@user` and `@org/team`; a closing keyword is followed by an optional colon,
# space and an issue reference.
GITHUB_MENTION = re.compile(r"(?<![A-Za-z0-9_])@[A-Za-z0-9]")
GITHUB_CLOSING = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+(?:#\d|GH-\d|[\w.-]+/[\w.-]+#\d|https?://)",
                            re.IGNORECASE)
MENTIONS = ["@octocat", "@octo-org/security-team", "(@octocat)", "**@octocat**", "cc:@octocat", "@octocat's work",
            "\\@octocat", "@Octo-Cat.", "_@octocat_", "word**@octocat**", "[see @octocat](https://example.com/x)"]
CODE_KEPT = "@octocat fixes #1 ![x](https://evil.example/in-code.png)"


def closing_phrases() -> list[str]:
    phrases = []
    for keyword in CLOSING_KEYWORDS:
        for case in (str.lower, str.title, str.upper):
            for reference in ISSUE_REFERENCES:
                phrases += [f"{case(keyword)} {reference}", f"{case(keyword)}: {reference}"]
    return phrases + ["Fixes **#5**", "This fixes #6, fixes #7.", "fixes\\#8", "Fixes &nbsp;#9", "_fixes #10_",
                      "_fixes_ #11", "~~fixes #12~~", "**Fixes:** #13", "[Fixes #14](https://example.com)"]


def acting_text() -> str:
    from test_no_remote_fetch import MARKDOWN_IMAGES, RAW_HTML

    return "\n\n".join([" ".join(MENTIONS), *closing_phrases(), *MARKDOWN_IMAGES.values(), *RAW_HTML.values(),
                        f"```\n{CODE_KEPT}\n```", f"Inline `{CODE_KEPT}` code."])


def what_github_acts_on(markdown: str) -> list[str]:
    """The mentions, closing keywords and remote images GitHub would act on in `markdown`, rendered as GitHub
    renders it (raw HTML kept, bare URLs linked): mentions in text outside links and code (GitHub's filter
    skips those), closing keywords in the text of a paragraph outside code, images of another host."""
    from test_no_remote_fetch import is_remote, remote_references

    soup = BeautifulSoup(MarkdownIt("gfm-like", {"html": True, "linkify": True}).render(markdown), "html.parser")
    found = [f"image: {img.get('src')}" for img in soup.find_all("img") if is_remote(img.get("src") or "")]
    found += remote_references(soup)
    for code in soup.find_all(["code", "pre"]):
        code.decompose()
    for node in soup.find_all(string=True):
        if node.find_parent("a") is None:
            found += [f"mention: {node[max(0, m.start() - 10):m.end() + 10]!r}" for m in GITHUB_MENTION.finditer(node)]
    for block in soup.find_all(["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "summary"]):
        text = block.get_text()
        found += [f"closing: {text[m.start():m.end() + 20]!r}" for m in GITHUB_CLOSING.finditer(text)]
    return found


def test_the_checks_see_what_github_acts_on():
    """The checks can fail: on the text as written they find every kind."""
    found = what_github_acts_on(acting_text())
    assert {item.split(":")[0] for item in found} >= {"image", "mention", "closing"}
    assert sum(item.startswith("closing") for item in found) >= len(closing_phrases())
    assert sum(item.startswith("mention") for item in found) >= len(MENTIONS) - 1  # not the one in a link


def acting_session(folder: Path) -> Path:
    """Everything GitHub would act on, in every part the Markdown bundle shows: the title, the prompt,
    Claude's reply, a plan, the feedback on a rejected plan, a commit's subject, a tool call's target."""
    said = acting_text()
    fields = {"cwd": "/home/ada/src/tidewatch", "gitBranch": "fix-@octocat-#1"}
    rejected = tool_use("ExitPlanMode", {"plan": "# First plan\n\n" + said}, "toolu_plan_1")
    approved = tool_use("ExitPlanMode", {"plan": "# Second plan @octocat\n\nFixes #1 now."}, "toolu_plan_2")
    commit = tool_use("Bash", {"command": 'git commit -m "Fixes #1 for @octocat"'}, "toolu_commit")
    from helpers import custom_title

    return write_jsonl(folder / "11111111-2222-4333-8444-555555555555.jsonl", chain(
        custom_title("Fixes #1 for @octocat ![t](https://evil.example/title.png)",
                     session_id="11111111-2222-4333-8444-555555555555"),
        user("Please look. " + said, **fields),
        assistant(rejected, **fields),
        tool_result("toolu_plan_1", "The user doesn't want to proceed with this tool use. The tool use was rejected "
                    "(eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to "
                    "proceed, the user said:\nNo. " + said, is_error=True, **fields),
        assistant(approved, **fields),
        tool_result("toolu_plan_2", "User has approved your plan.", **fields),
        assistant(commit, **fields),
        tool_result("toolu_commit", "[main 1a2b3c4] Fixes #1 for @octocat\n 1 file changed, 1 insertion(+)", **fields),
        assistant(text("Done. " + said), **fields),
    ))


def test_the_markdown_bundle_mentions_closes_and_loads_nothing(tmp_path):
    folder = tmp_path / "logs" / "-home-ada-src-tidewatch"
    markdown = make(tmp_path, acting_session(folder), name="review.md")
    assert what_github_acts_on(markdown) == []
    # Shown, not acted on: the words are all there to read.
    shown = BeautifulSoup(MarkdownIt("gfm-like", {"html": True}).render(markdown), "html.parser").get_text()
    readable = shown.replace("\u200b", "")
    assert all(mention.strip("()*_.'s work[]") in readable for mention in ("@octocat", "@octo-org/security-team"))
    assert "Fixes #1 for @octocat" in readable and "octo/repo#2" in readable
    assert "evil.example/inline.png" in readable or "evil.example/inline.png" in markdown
    # Code is left as written, in a block and in a span.
    assert f"```\n{CODE_KEPT}\n```" in markdown and f"`{CODE_KEPT}`" in markdown


@pytest.mark.parametrize("phrase", closing_phrases() + MENTIONS)
def test_each_phrase_alone_acts_on_nothing(phrase):
    from generator.bundle.markdown import inert_on_github

    assert what_github_acts_on(inert_on_github(phrase)) == []
    assert inert_on_github(phrase).replace("\u200b", "") == phrase


@pytest.mark.parametrize("text", ["a `code span`\n\n@octocat\n\n`` end", "`unclosed @octocat", "``@a` @octocat``",
                                  "> quote `x\n> @octocat` y", "| a | b |\n|---|---|\n| `x` | @octocat fixes #1 |",
                                  "<details><summary>@octocat</summary>\n\nfixes #1\n\n</details>",
                                  "[x]: https://example.com/@octocat\n\n[y](<https://example.com/a b> \"@octocat\")",
                                  "    indented code @octocat\n\nafter @octocat"])
def test_code_spans_are_found_as_github_finds_them(text):
    """A backtick that opens no code span (its closer is in another paragraph, or missing) protects nothing."""
    from generator.bundle.markdown import inert_on_github

    assert what_github_acts_on(inert_on_github(text)) == []


def test_urls_and_emails_are_left_working():
    from generator.bundle.markdown import inert_on_github

    text = "See https://medium.com/@octocat/post, <https://x.example/@a>, [b](https://y.example/@b) and ada@example.com."
    assert inert_on_github(text) == text


def test_shortened_to_its_last_resort_a_session_keeps_its_first_prompt_plan_and_final_reply(tmp_path):
    """Prompts alone past the limit: turns from the middle go, but not the first prompt, the plan proposed in
    the middle, or the final reply, even when a later turn (a prompt left unanswered) comes after it."""
    fields = {"cwd": "/home/ada/src/tidewatch", "gitBranch": "main", "sessionId": "11111111-2222-4333-8444-555555555555"}
    entries = []
    for number in range(900):
        entries.append(user(f"Prompt {number}: station {number} " + "check the harmonic constants again " * 4, **fields))
        if number == 450:
            entries += [assistant(tool_use("ExitPlanMode", {"plan": PLAN}, "toolu_plan"), **fields),
                        tool_result("toolu_plan", "User has approved your plan.", **fields)]
        if number == 898:
            entries.append(assistant(text("FINAL OUTCOME: every station's table is fixed."), **fields))
    path = write_jsonl(tmp_path / "-home-ada-src-tidewatch" / f"{fields['sessionId']}.jsonl", chain(*entries))
    markdown = make(tmp_path, path, name="pr.md")
    assert github_length(markdown) <= GITHUB_LIMIT
    assert "turns from the middle of the sessions left out" in markdown
    assert "Prompt 0: station 0" in markdown
    assert "Find the turning points." in markdown
    assert "FINAL OUTCOME: every station's table is fixed." in markdown
    assert "Prompt 899: station 899" in markdown
