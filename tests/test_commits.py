"""Commits a session made (issue 19, point 3): found in `git commit` calls and their output, listed on the
session page and in its Markdown, gathered on the project's commits page, linked to the forge, and used by
`sessionsite bundle --commits A..B` to find the sessions behind a range of a real repository.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from click.testing import CliRunner

from generator.build import BuildConfig, build
from generator.cli import main
from generator.commit_range import encoded_project_name
from generator.stages.commits import commit_url, repository_url, web_address
from generator.core.model import Commit

from conftest import corpus_files, each_corpus_file
from helpers import PROJECT_DIR, SESSION_ID, assistant, build_archive, chain, text, tool_result, tool_use, user, \
    write_jsonl
from test_browser import axe  # noqa: F401  (the fixture)
from test_redact import SECRETS

OUTPUT = """[feature/tides 1a2b3c4] Add the tide table parser
 2 files changed, 40 insertions(+), 3 deletions(-)
 create mode 100644 src/tidewatch/tides.py"""


def bash(command: str, output: str, *, is_error: bool = False, tool_use_id: str | None = None) -> list[dict]:
    """A Bash call and its result, as Claude Code writes them."""
    call = tool_use("Bash", {"command": command, "description": "Commit"}, tool_use_id)
    structured = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
    shown = f"Error: Exit code 1\n{output}" if is_error else output
    return [assistant(call), tool_result(call["id"], shown, is_error=is_error,
                                          structured=shown if is_error else structured)]


def session(*calls: list[dict], prompt: str = "Commit the parser") -> list[dict]:
    return chain(user(prompt), *[entry for call in calls for entry in call], assistant(text("Done.")))


def commits_of(tmp_path: Path, *calls: list[dict], name: str = SESSION_ID) -> tuple[Commit, ...]:
    path = write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{name}.jsonl", session(*calls))
    archive = build_archive(path)
    return archive.sessions[f"{PROJECT_DIR}/{name}"].commits


HEREDOC = """git add src/tidewatch/tides.py && git commit -m "$(cat <<'EOF'
Add the tide table parser

Co-Authored-By: Claude <noreply@anthropic.com>
EOF
)\""""


@pytest.mark.parametrize("command", [
    'git commit -m "Add the tide table parser"',
    'git commit -am "Add the tide table parser"',
    HEREDOC,
    'cd /home/ada/src/tidewatch && git add -A && git commit -m "Add the tide table parser" && git log --oneline -1',
    'git -C /home/ada/src/tidewatch commit -m "Add the tide table parser"',
    'git --no-pager -c user.name=Ada commit -m "Add the tide table parser"',
], ids=["m", "am", "heredoc", "chain", "dash-C", "git-options"])
def test_a_git_commit_call_with_its_summary_line_is_a_commit(tmp_path, command):
    (commit,) = commits_of(tmp_path, bash(command, OUTPUT, tool_use_id="toolu_01CommitTides0001"))
    assert (commit.sha, commit.branch, commit.subject) == ("1a2b3c4", "feature/tides", "Add the tide table parser")
    assert (commit.files_changed, commit.insertions, commit.deletions) == (2, 40, 3)
    assert commit.anchor == "e-toolu_01CommitTides0001"
    assert commit.page == 1 and commit.timestamp and not commit.root and not commit.amend


@pytest.mark.parametrize("where", ["files", "insertions", "deletions"])
def test_a_stat_line_with_a_number_of_thousands_of_digits_is_no_stat(tmp_path, where):
    """A command's output is the transcript's: a count Python will not read as an int (over 4,300 digits)
    stopped the whole build. The commit is kept, without its counts."""
    counts = {"files": "2", "insertions": "40", "deletions": "3", where: "9" * 5000}
    output = (f"[main 1a2b3c4] Add the parser\n {counts['files']} files changed, {counts['insertions']} "
              f"insertions(+), {counts['deletions']} deletions(-)")
    (commit,) = commits_of(tmp_path, bash('git commit -m "Add the parser"', output))
    assert commit.sha == "1a2b3c4" and commit.files_changed == -1


def test_root_commit_amend_detached_head_and_stat_lines_as_git_prints_them(tmp_path):
    root = "[main (root-commit) 0f0e0d0] Initial commit\n 1 file changed, 1 insertion(+)\n create mode 100644 README.md"
    amend = "[main 9a8b7c6] Initial commit, reworded\n Date: Mon Mar 2 09:00:00 2026 +0000\n 1 file changed, 2 insertions(+)"
    detached = "[detached HEAD 5e5e5e5] Try a fix\n 1 file changed, 4 deletions(-)"
    no_stat = "[main 7777777] Empty\n"
    found = commits_of(tmp_path, bash('git commit -m "Initial commit"', root),
                       bash('git commit --amend -m "Initial commit, reworded"', amend),
                       bash('git commit -m "Try a fix"', detached),
                       bash("git commit --allow-empty -m Empty", no_stat))
    assert [(c.sha, c.branch, c.root, c.amend) for c in found] == [
        ("0f0e0d0", "main", True, False), ("9a8b7c6", "main", False, True),
        ("5e5e5e5", "detached HEAD", False, False), ("7777777", "main", False, False)]
    assert [(c.files_changed, c.insertions, c.deletions) for c in found] == [(1, 1, 0), (1, 2, 0), (1, 0, 4), (-1, 0, 0)]


def test_a_quiet_commit_is_found_by_the_log_line_after_it(tmp_path):
    quiet = bash('git switch -c tides && git commit -qam "Parse tide tables" && git log --oneline -1',
                 "Switched to a new branch 'tides'\n7c2e91f (HEAD -> tides) Parse tide tables")
    (commit,) = commits_of(tmp_path, quiet)
    assert (commit.sha, commit.branch, commit.subject, commit.files_changed) == ("7c2e91f", "tides", "Parse tide tables", -1)
    # Without the log line, or when the call failed, nothing says which commit it was.
    assert commits_of(tmp_path / "a", bash('git commit -q -m "Parse"', "")) == ()
    assert commits_of(tmp_path / "b", bash('git commit -q -m "Parse" && git log --oneline -1',
                                          "7c2e91f Parse", is_error=True)) == ()
    assert commits_of(tmp_path / "c", bash('git commit -m "Parse" ; git log --oneline -1', "7c2e91f Parse")) == ()


def test_failed_commits_are_not_commits(tmp_path):
    nothing = "On branch main\nnothing to commit, working tree clean"
    hook = "black....................................................................Failed\n- hook id: black\n- files were modified by this hook"
    found = commits_of(
        tmp_path,
        bash('git commit -m "Add the parser"', nothing, is_error=True),
        bash('git commit -m "Add the parser"', hook, is_error=True),
        bash('git commit -m "Add the parser"', "fatal: not a git repository (or any of the parent directories): .git",
             is_error=True),
        # Not a commit call: a file that happens to hold a summary line.
        bash("cat notes/release.txt", OUTPUT),
        bash("git log -1 --format='[%D %h] %s'", "[main 1a2b3c4] Add the tide table parser"),
    )
    assert found == ()


def test_a_call_with_no_result_made_no_known_commit(tmp_path):
    call = tool_use("Bash", {"command": 'git commit -m "Add the parser"'})
    path = write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                       chain(user("Commit"), assistant(call), assistant(text("Interrupted."))))
    assert build_archive(path).sessions[f"{PROJECT_DIR}/{SESSION_ID}"].commits == ()


def test_a_commit_whose_push_failed_is_still_made(tmp_path):
    """`git commit … && git push` where only the push failed: the result is an error, but git printed the
    summary line, which it does only once the commit exists."""
    output = OUTPUT + "\nfatal: The current branch feature/tides has no upstream branch."
    (commit,) = commits_of(tmp_path, bash('git commit -m "Add the tide table parser" && git push', output,
                                          is_error=True))
    assert commit.sha == "1a2b3c4"


@pytest.mark.parametrize(("remote", "address"), [
    ("github.com:owner/repo.git", "https://github.com/owner/repo"),
    ("git@github.com:owner/repo.git", "https://github.com/owner/repo"),
    ("https://github.com/owner/repo", "https://github.com/owner/repo"),
    ("https://github.com/owner/repo.git", "https://github.com/owner/repo"),
    ("ssh://git@gitlab.example.com:2222/group/sub/repo.git", "https://gitlab.example.com/group/sub/repo"),
    ("http://git.internal.example/team/repo", "http://git.internal.example/team/repo"),
    ("https://x-access-token@github.com/owner/repo.git", "https://github.com/owner/repo"),
    ("/srv/git/repo.git", ""),
    ("file:///srv/git/repo.git", ""),
    ("../bare.git", ""),
    ("javascript:alert(1)//x/y", ""),
    ('github.com:owner/"><script>alert(1)</script>', ""),
    ("github.com:owner/../../etc", ""),
])
def test_web_address_of_a_remote(remote, address):
    assert web_address(remote) == address


def test_repo_url_option_takes_only_http_addresses():
    assert repository_url("https://github.com/owner/repo/") == "https://github.com/owner/repo"
    assert repository_url("https://github.com/owner/repo.git") == "https://github.com/owner/repo"
    for bad in ("javascript:alert(1)", "ftp://example.com/x", "github.com/owner/repo",
                'https://example.com/"><b>x', "https://example.com/x?y=1"):
        assert repository_url(bad) == ""
    assert commit_url("https://github.com/owner/repo", "1a2b3c4") == "https://github.com/owner/repo/commit/1a2b3c4"
    assert commit_url("https://github.com/owner/repo", "not-a-sha") == ""


def test_each_commit_gets_the_forge_its_own_push_names(tmp_path):
    """Two repositories in one session: the push that names a commit's hash decides, then the folder the
    push ran in; a session that pushed to one remote gives it to every commit."""
    docs = ('cd "/home/ada/src/docs" && git commit -m "Docs"', "[main aaaaaaa] Docs\n 1 file changed, 1 insertion(+)")
    app = ('git commit -m "App"', "[main bbbbbbb] App\n 1 file changed, 1 insertion(+)")
    app_later = ('git commit -m "App again"', "[main ccccccc] App again\n 1 file changed, 1 insertion(+)")
    push_docs = ('cd "/home/ada/src/docs" && git push',
                 "To https://github.com/ada/docs.git\n   1111111..aaaaaaa  main -> main")
    push_app = ("git push 2>&1", "remote: \nTo github.com:ada/tidewatch.git\n   2222222..bbbbbbb  main -> main")
    found = commits_of(tmp_path, bash(*docs), bash(*app), bash(*push_docs), bash(*push_app), bash(*app_later))
    assert [(c.sha, c.forge) for c in found] == [("aaaaaaa", "https://github.com/ada/docs"),
                                                ("bbbbbbb", "https://github.com/ada/tidewatch"),
                                                ("ccccccc", "https://github.com/ada/tidewatch")]
    alone = commits_of(tmp_path / "alone", bash(*app))
    assert alone[0].forge == ""


# -- pages ---------------------------------------------------------------------------------------------------

HOSTILE_SUBJECT = '<img src=x onerror=alert(1)> & </details> "quoted"'
EARLIER = "5b1f0c2e-0000-4000-8000-00000000e0e1"


def two_sessions(folder: Path) -> Path:
    """A project with two sessions that committed; the later one also pushed."""
    first = session(bash('git commit -m "First"', "[main 1111111] First change\n 1 file changed, 1 insertion(+)",
                         tool_use_id="toolu_01FirstCommit00001"),
                    prompt="Make the first change")
    pushed = "To github.com:ada/tidewatch.git\n   1111111..2222222  main -> main"
    second = session(bash("git commit -am x", f"[main 2222222] {HOSTILE_SUBJECT}\n 3 files changed, 5 insertions(+), 2 deletions(-)",
                          tool_use_id="toolu_01SecondCommit0001"),
                     bash("git push", pushed), prompt="Make the second change")
    for entry in second:
        if "timestamp" in entry:
            entry["timestamp"] = entry["timestamp"].replace("2026-03-02", "2026-03-05")
    write_jsonl(folder / PROJECT_DIR / f"{EARLIER}.jsonl", first)
    write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", second)
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    inputs = two_sessions(tmp_path_factory.mktemp("commits") / "in")
    out = inputs.parent / "site"
    build(BuildConfig(inputs=(inputs,), output=out))
    return out


def soup_of(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


PROJECT = "projects/home-ada-src-tidewatch"


def test_the_session_page_lists_its_commits_near_the_top(site):
    soup = soup_of(site / PROJECT / f"{SESSION_ID}.html")
    listing = soup.select_one("article.transcript .commits-made")
    assert listing is not None
    first_message = soup.select_one("article.transcript .msg")
    assert listing.sourceline < first_message.sourceline
    (item,) = listing.select("li")
    sha, call = item.select("a")
    assert sha["href"] == "https://github.com/ada/tidewatch/commit/2222222" and sha.get_text() == "2222222"
    assert call["href"] == "#e-toolu_01SecondCommit0001"
    assert soup.find(id="e-toolu_01SecondCommit0001") is not None
    # The hostile subject is text.
    assert call.get_text() == HOSTILE_SUBJECT
    assert soup.find("img", src="x") is None
    assert "3 files +5 \u22122" in item.get_text()


def test_the_project_commits_page_lists_every_commit_newest_first(site):
    soup = soup_of(site / PROJECT / "commits.html")
    rows = soup.select("table.commits-table tbody tr")
    assert [row.select_one(".sha").get_text(strip=True) for row in rows] == ["2222222", "1111111"]
    newest, oldest = rows
    assert newest.select_one("a.sha")["href"] == "https://github.com/ada/tidewatch/commit/2222222"
    assert oldest.select_one("a.sha") is None  # its session pushed nothing: no forge known
    assert newest.select_one("a.session-title")["href"] == f"{SESSION_ID}.html#e-toolu_01SecondCommit0001"
    assert oldest.select_one("a.session-title")["href"] == f"{EARLIER}.html#e-toolu_01FirstCommit00001"
    assert newest.select("td")[-1].a["href"] == f"{SESSION_ID}.html"
    assert newest.select_one("a.session-title").get_text() == HOSTILE_SUBJECT
    assert soup.find("img", src="x") is None


def test_index_and_project_pages_link_to_the_commits_page(site):
    index = soup_of(site / "index.html")
    assert index.find("a", href=f"{PROJECT}/commits.html").get_text() == "2 commits"
    project = soup_of(site / PROJECT / "index.html")
    assert project.find("a", href="commits.html").get_text() == "2 commits"


def test_the_markdown_lists_the_commits_in_front_matter_and_body(site):
    markdown = (site / PROJECT / f"{SESSION_ID}.md").read_text(encoding="utf-8")
    front = markdown.split("\n---\n", 1)[0]
    (line,) = [line for line in front.splitlines() if line.startswith("commits: ")]
    (facts,) = json.loads(line.removeprefix("commits: "))
    assert facts["sha"] == "2222222" and facts["subject"] == HOSTILE_SUBJECT
    assert facts["url"] == "https://github.com/ada/tidewatch/commit/2222222"
    body = markdown.split("\n---\n", 1)[1]
    listing = body[body.index("**1 commit made in this session**"):]
    listing = listing[:listing.index("**You**")]
    # Plain Markdown, read as GitHub reads it (raw HTML on): a list whose item links the SHA to the forge and
    # the subject, as text, to the call that made the commit.
    shown = BeautifulSoup(MarkdownIt("gfm-like", {"html": True}).render(listing), "html.parser")
    (item,) = shown.select("ul > li")
    assert [(a["href"], a.get_text()) for a in item.find_all("a")] == [
        ("https://github.com/ada/tidewatch/commit/2222222", "2222222"),
        ("#e-toolu_01SecondCommit0001", HOSTILE_SUBJECT)]
    assert shown.find(["img", "details"]) is None
    assert 'id="e-toolu_01SecondCommit0001"' in body  # the call's fold, which the subject links to


def test_repo_url_overrides_the_pushed_remote(tmp_path):
    inputs = two_sessions(tmp_path / "in")
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", str(inputs), "-o", str(out), "--no-vault", "-q",
                                       "--repo-url", "https://git.example.com/ada/tidewatch/"])
    assert result.exit_code == 0, result.output
    rows = soup_of(out / PROJECT / "commits.html").select("table.commits-table tbody tr a.sha")
    assert [a["href"] for a in rows] == ["https://git.example.com/ada/tidewatch/commit/2222222",
                                         "https://git.example.com/ada/tidewatch/commit/1111111"]
    bad = CliRunner().invoke(main, ["build", str(inputs), "-o", str(tmp_path / "x"), "--repo-url", "javascript:alert(1)"])
    assert bad.exit_code == 2 and "--repo-url" in bad.output


def test_a_secret_in_a_commit_subject_is_redacted(tmp_path):
    token = SECRETS["github-token"]
    inputs = tmp_path / "in"
    write_jsonl(inputs / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                session(bash("git commit -am x", f"[main 3333333] Rotate {token}\n 1 file changed, 1 insertion(+)")))
    out = tmp_path / "site"
    build(BuildConfig(inputs=(inputs,), output=out))
    for path in (PROJECT + "/commits.html", f"{PROJECT}/{SESSION_ID}.html", f"{PROJECT}/{SESSION_ID}.md"):
        written = (out / path).read_text(encoding="utf-8")
        assert token not in written and "3333333" in written and "[REDACTED:github-token]" in written


def test_a_commit_on_a_later_page_links_to_that_page(tmp_path):
    filler = [bash(f"cat log{n}.txt", "x" * 60_000) for n in range(8)]
    late = bash('git commit -m "Late"', "[main 4444444] Late\n 1 file changed, 1 insertion(+)",
                tool_use_id="toolu_01LateCommit000001")
    entries = chain(user("Start"), *[e for call in filler[:4] for e in call], user("Go on"),
                    *[e for call in filler[4:] for e in call], user("Commit it"), *late, assistant(text("Done.")))
    inputs = tmp_path / "in"
    write_jsonl(inputs / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(inputs,), output=out))
    link = soup_of(out / PROJECT / f"{SESSION_ID}.html").select_one(".commits-made li a[href*='e-toolu_01LateCommit']")
    page, _, anchor = link["href"].partition("#")
    assert page.startswith(f"{SESSION_ID}~p") and anchor == "e-toolu_01LateCommit000001"
    assert soup_of(out / PROJECT / page).find(id=anchor) is not None


# -- the real corpus -----------------------------------------------------------------------------------------

def printed_commits(path: Path) -> list[str]:
    """The hashes git printed in the results of the file's Bash calls that ran `git commit`, read straight
    from the JSON: what the build must find."""
    commands: dict[str, str] = {}
    printed: list[str] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        content = entry.get("message", {}).get("content") if isinstance(entry, dict) else None
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "tool_use" and part.get("name") == "Bash":
                commands[part["id"]] = str(part.get("input", {}).get("command", ""))
            elif part.get("type") == "tool_result" and "git commit" in commands.get(part.get("tool_use_id"), ""):
                result = part.get("content")
                result = result if isinstance(result, str) else " ".join(p.get("text", "") for p in result or ())
                printed += re.findall(r"^\[\S+ (?:\(root-commit\) )?([0-9a-f]{7,})\] ", result, re.M)
    return printed


COMMITTING = [path for path in corpus_files("*.jsonl") if "git commit" in path.read_text(encoding="utf-8", errors="replace")
              and printed_commits(path)]


@pytest.mark.slow
@each_corpus_file(COMMITTING)
def test_every_commit_in_the_corpus_is_found(public_corpus, path):
    archive = build_archive(path)
    found = [commit.sha for s in archive.sessions.values() for commit in s.commits]
    assert sorted(found) == sorted(printed_commits(path))


def test_the_corpus_has_commits_to_find(public_corpus):
    assert len(COMMITTING) >= 3


# -- bundle --commits, against a real repository -------------------------------------------------------------

def git(repository: Path, *arguments: str) -> str:
    return subprocess.run(["git", "-C", str(repository), *arguments], check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def repository(tmp_path) -> Path:
    folder = tmp_path / "tidewatch"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.email", "ada@example.com")
    git(folder, "config", "user.name", "Ada")
    for name in ("base", "parser", "docs"):
        (folder / f"{name}.txt").write_text(name)
        git(folder, "add", ".")
        git(folder, "commit", "-q", "-m", f"Add {name}")
    return folder


def committing_session(repository: Path, folder: Path, name: str, subject: str, prompt: str) -> Path:
    """A session whose git commit printed the hash the repository gave that commit."""
    sha = git(repository, "log", "--format=%h", "-1", f"--grep={subject}")
    entries = session(bash(f'git commit -m "{subject}"', f"[main {sha}] {subject}\n 1 file changed, 1 insertion(+)"),
                      prompt=prompt)
    for entry in entries:
        if "cwd" in entry:
            entry["cwd"] = str(repository)
    return write_jsonl(folder / f"{name}.jsonl", entries)


def test_bundle_commits_takes_the_sessions_that_made_the_range(repository, tmp_path, monkeypatch):
    projects = Path.home() / ".claude" / "projects"  # HOME is a temporary folder (conftest)
    folder = projects / encoded_project_name(repository.resolve())
    committing_session(repository, folder, "aaaaaaaa-0000-4000-8000-000000000001", "Add base", "Lay the base")
    committing_session(repository, folder, "aaaaaaaa-0000-4000-8000-000000000002", "Add parser", "Write the parser")
    committing_session(repository, folder, "aaaaaaaa-0000-4000-8000-000000000003", "Add docs", "Write the docs")
    monkeypatch.chdir(repository)
    out = tmp_path / "pr.md"
    result = CliRunner().invoke(main, ["bundle", "--commits", "HEAD~2..HEAD", "-o", str(out), "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    written = out.read_text(encoding="utf-8")
    assert "Write the parser" in written and "Write the docs" in written
    assert "Lay the base" not in written
    assert "2 sessions" in result.output

    # The project folders given are looked in instead of the repository's.
    parser_only = tmp_path / "parser.md"
    given = CliRunner().invoke(main, ["bundle", "--commits", "HEAD~2..HEAD~1", str(folder), "-o", str(parser_only),
                                      "--no-vault", "-j", "1"])
    assert given.exit_code == 0, given.output
    written = parser_only.read_text(encoding="utf-8")
    assert "Write the parser" in written and "Write the docs" not in written and "Lay the base" not in written


def test_bundle_commits_errors_are_one_clear_line(repository, tmp_path, monkeypatch):
    monkeypatch.chdir(repository)
    for arguments, message in [(["--commits", "nonsense..HEAD"], "git rev-list"),
                               (["--commits", "HEAD"], "give a range of commits"),
                               (["--commits", "--all..HEAD"], "give a range of commits"),
                               (["--commits", "HEAD..HEAD"], "no commits in that range")]:
        result = CliRunner().invoke(main, ["bundle", *arguments, "-o", str(tmp_path / "x.md"), "--no-vault"])
        assert result.exit_code == 2, (arguments, result.output)
        assert message in result.output and "Traceback" not in result.output
    (Path.home() / ".claude" / "projects").mkdir(parents=True, exist_ok=True)  # whatever tests ran before
    nowhere = CliRunner().invoke(main, ["bundle", "--commits", "HEAD~1..HEAD", "-o", str(tmp_path / "x.md"), "--no-vault"])
    assert nowhere.exit_code == 1 and "no sessions of" in nowhere.output


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_commit_lists_read_well_and_lead_to_the_call(browser, axe, site, theme):  # noqa: F811 - the fixture
    """In both themes, on a phone and a desktop: no serious axe finding on the commits page or the session's
    list, no sideways scrolling, and following a commit's subject lands on the call that made it."""
    from test_browser import new_context, serious_violations

    for width in (1280, 390):
        context = new_context(browser, color_scheme=theme, viewport={"width": width, "height": 900})
        page = context.new_page()
        for path in (f"{PROJECT}/commits.html", f"{PROJECT}/{SESSION_ID}.html"):
            page.goto((site / path).resolve().as_uri())
            assert serious_violations(axe, page) == [], path
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (path, width)
        page.goto((site / PROJECT / "commits.html").resolve().as_uri())
        page.locator("a.session-title").first.click()
        page.wait_for_load_state()
        assert page.url.endswith(f"{SESSION_ID}.html#e-toolu_01SecondCommit0001")
        assert page.locator("#e-toolu_01SecondCommit0001").is_visible()
        context.close()


def test_the_reviewers_markdown_lists_the_commits_made(tmp_path):
    # A pull request's reviewer sees, in the summary at the top, what the sessions committed.
    path = write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl", session(
        bash("git commit -am 'Add the tide table parser'", OUTPUT),
        bash("git push", "To github.com:ada/tidewatch.git\n   9f8e7d6..1a2b3c4  feature/tides -> feature/tides")))
    out = tmp_path / "pr.md"
    result = CliRunner().invoke(main, ["bundle", str(path), "-o", str(out), "--no-vault"])
    assert result.exit_code == 0, result.output
    summary = out.read_text(encoding="utf-8").split("\n## ", 1)[0]
    assert "1 commit made" in summary
    assert "[`1a2b3c4`](https://github.com/ada/tidewatch/commit/1a2b3c4) Add the tide table parser" in summary
