"""Choosing what to publish: --since/--until, --project, --exclude, --branch, --session, for build, markdown
and bundle alike; a chosen session brings its chain, the sessions it continues and its subagents."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.core.errors import UsageProblem
from generator.stages.selection import parse_when

from helpers import assistant, at, chain, sidechain_run, text, user, write_jsonl

DAY = 86400
TIDEWATCH = "-home-ada-src-tidewatch"
LEDGER = "-home-ada-work-ledger"


def conversation(path: Path, session_id: str, prompt: str, start: float, branch: str = "main", slug: str = "",
                 cwd: str = "/home/ada/src/tidewatch") -> Path:
    extra = {"slug": slug} if slug else {}
    return write_jsonl(path, chain(
        user(prompt, sessionId=session_id, timestamp=at(start), gitBranch=branch, cwd=cwd, **extra),
        assistant(text(f"Done: {prompt}"), sessionId=session_id, timestamp=at(start + 60), gitBranch=branch,
                  cwd=cwd, **extra),
    ))


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """Two projects: tidewatch with sessions on days 0, 10 and 20 (the one of day 20 on a feature branch,
    the first two a plan chain, the planning one with a subagent), and ledger with one on day 15."""
    root = tmp_path / "projects"
    tide = root / TIDEWATCH
    conversation(tide / "aaaa1111-plan.jsonl", "aaaa1111-plan", "plan the tide tables", 0, slug="quiet-harbor")
    write_jsonl(tide / "aaaa1111-plan" / "subagents" / "agent-a1.jsonl", sidechain_run(
        user("explore the tide sources", sessionId="aaaa1111-plan", timestamp=at(30)),
        assistant(text("explored"), sessionId="aaaa1111-plan", timestamp=at(40)), agent_id="a1"))
    conversation(tide / "bbbb2222-build.jsonl", "bbbb2222-build", "build the tide tables", 10 * DAY,
                 slug="quiet-harbor")
    conversation(tide / "cccc3333-later.jsonl", "cccc3333-later", "add moon phases", 20 * DAY,
                 branch="feature/moon")
    conversation(root / LEDGER / "dddd4444-ledger.jsonl", "dddd4444-ledger", "reconcile the ledger", 15 * DAY,
                 cwd="/home/ada/work/ledger")
    return root


def prompts_in(site: Path) -> set[str]:
    """The prompts whose session got a Markdown file in the site."""
    found = set()
    for markdown in site.rglob("*.md"):
        body = markdown.read_text(encoding="utf-8")
        for prompt in ("plan the tide tables", "build the tide tables", "add moon phases", "reconcile the ledger",
                       "explore the tide sources"):
            if prompt in body:
                found.add(prompt)
    return found


def run(*arguments: str) -> object:
    return CliRunner().invoke(main, [*arguments, "--no-vault", "-j", "1"])


def test_since_and_until_keep_the_sessions_active_in_the_range(projects, tmp_path):
    # Day 15 is 2026-03-17 (START is 2026-03-02): the ledger session only, by date.
    result = run("markdown", str(projects), "-o", str(tmp_path / "out"), "--since", "2026-03-16",
                 "--until", "2026-03-17")
    assert result.exit_code == 0, result.output
    assert prompts_in(tmp_path / "out") == {"reconcile the ledger"}


def test_a_chain_partly_out_of_range_is_published_whole_with_its_subagents(projects, tmp_path):
    # Day 10 (the implementation) is in range; the planning session of day 0 and its subagent come with it.
    result = run("markdown", str(projects), "-o", str(tmp_path / "out"), "--since", "2026-03-12",
                 "--until", "2026-03-13")
    assert result.exit_code == 0, result.output
    assert prompts_in(tmp_path / "out") == {"build the tide tables", "plan the tide tables",
                                            "explore the tide sources"}


def test_project_branch_and_session_choose_and_combine(projects, tmp_path):
    cases = {
        ("--project", "ledger"): {"reconcile the ledger"},
        ("--project", "*tide*", "--branch", "feature/*"): {"add moon phases"},
        ("--session", "cccc3333"): {"add moon phases"},
        ("--session", "cccc3333", "--session", "dddd4444-ledger"): {"add moon phases", "reconcile the ledger"},
    }
    for number, (options, expected) in enumerate(cases.items()):
        out = tmp_path / f"out{number}"
        result = run("markdown", str(projects), "-o", str(out), *options)
        assert result.exit_code == 0, (options, result.output)
        assert prompts_in(out) == expected, options


def test_exclude_wins_over_a_chain(projects, tmp_path):
    result = run("build", str(projects), "-o", str(tmp_path / "out"), "--project", "tidewatch",
                 "--exclude", "aaaa1111")
    assert result.exit_code == 0, result.output
    assert prompts_in(tmp_path / "out") == {"build the tide tables", "add moon phases"}
    site = tmp_path / "out"
    assert "aaaa1111" not in "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))


def test_exclude_takes_out_a_project(projects, tmp_path):
    result = run("markdown", str(projects), "-o", str(tmp_path / "out"), "--exclude", "*ledger*")
    assert result.exit_code == 0, result.output
    assert "reconcile the ledger" not in prompts_in(tmp_path / "out")
    assert not (tmp_path / "out" / "projects" / "home-ada-work-ledger").exists()


def test_a_selection_that_leaves_nothing_says_so(projects, tmp_path):
    result = run("build", str(projects), "-o", str(tmp_path / "out"), "--since", "2030-01-01")
    assert result.exit_code == 1
    assert "no session of the 4 found is selected by --since 2030-01-01" in result.output
    assert not (tmp_path / "out").exists()


def test_a_changed_selection_rebuilds_to_what_a_fresh_build_writes(projects, tmp_path):
    again, fresh = tmp_path / "again", tmp_path / "fresh"
    assert run("build", str(projects), "-o", str(again), "--project", "ledger").exit_code == 0
    assert run("build", str(projects), "-o", str(again), "--project", "tidewatch").exit_code == 0
    assert run("build", str(projects), "-o", str(fresh), "--project", "tidewatch").exit_code == 0

    def files(site: Path) -> dict[str, bytes]:
        return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}

    assert files(again) == files(fresh)
    assert "reconcile the ledger" not in prompts_in(again)


def test_bundle_takes_the_selection_too(projects, tmp_path):
    output = tmp_path / "pr.md"
    result = run("bundle", str(projects / TIDEWATCH / "bbbb2222-build.jsonl"), "-o", str(output),
                 "--exclude", "aaaa1111-plan")
    assert result.exit_code == 0, result.output
    body = output.read_text(encoding="utf-8")
    assert "build the tide tables" in body
    assert "plan the tide tables" not in body


TODAY = date(2026, 3, 31)


@pytest.mark.parametrize("given, expected", [
    ("7d", datetime(2026, 3, 24, tzinfo=timezone.utc)),
    ("2w", datetime(2026, 3, 17, tzinfo=timezone.utc)),
    ("1m", datetime(2026, 3, 1, tzinfo=timezone.utc)),
    ("today", datetime(2026, 3, 31, tzinfo=timezone.utc)),
    ("yesterday", datetime(2026, 3, 30, tzinfo=timezone.utc)),
    ("2026-03-02", datetime(2026, 3, 2, tzinfo=timezone.utc)),
    ("2026-03-02T14:30", datetime(2026, 3, 2, 14, 30, tzinfo=timezone.utc)),
    ("2026-03-02T14:30+02:00", datetime(2026, 3, 2, 12, 30, tzinfo=timezone.utc)),
])
def test_when_forms(given, expected):
    assert parse_when(given, "--since", today=TODAY) == expected


def test_until_a_day_includes_the_whole_day():
    assert parse_when("2026-03-02", "--until", end_of_day=True, today=TODAY) == datetime(2026, 3, 3, tzinfo=timezone.utc)


@pytest.mark.parametrize("given", ["last week", "2026-13-01", "7x", ""])
def test_a_bad_when_is_a_usage_error_naming_the_option(given):
    with pytest.raises(UsageProblem, match="--since"):
        parse_when(given, "--since", today=TODAY)


def test_a_bad_date_on_the_command_line_exits_2(projects, tmp_path):
    result = run("build", str(projects), "-o", str(tmp_path / "out"), "--since", "last week")
    assert result.exit_code == 2
    assert "--since 'last week'" in result.output


# -- a selection that leaves nothing says what would have matched (issue 31) ---------------------------------

def test_a_project_that_matches_nothing_lists_the_projects(projects, tmp_path):
    result = run("build", str(projects), "-o", str(tmp_path / "out"), "--project", "nope")
    assert result.exit_code == 1
    assert "the projects are: ledger, tidewatch" in result.output


def test_a_misspelt_project_names_the_closest(projects, tmp_path):
    result = run("build", str(projects), "-o", str(tmp_path / "out"), "--project", "tidewach")
    assert result.exit_code == 1
    assert "--project tidewach: did you mean tidewatch?" in result.output


def test_a_long_list_of_projects_is_cut(tmp_path):
    root = tmp_path / "projects"
    for number in range(30):
        conversation(root / f"-home-ada-p{number:02d}" / f"{number:04d}aaaa.jsonl", f"{number:04d}aaaa", "hi", 0,
                     cwd=f"/home/ada/p{number:02d}")
    result = run("build", str(root), "-o", str(tmp_path / "out"), "--project", "qqqqqqqq")
    assert result.exit_code == 1
    assert "the projects are: p00, p01, p02" in result.output and "p29" not in result.output
    assert "and 20 more" in result.output


@pytest.mark.parametrize("given", ["73", "bbb", "b"])
def test_a_session_id_too_short_to_match_says_how_long_it_must_be(projects, tmp_path, given):
    result = run("build", str(projects), "-o", str(tmp_path / "out"), "--session", given)
    assert result.exit_code == 1
    assert f"--session {given}: give at least 4 characters of a session id" in result.output


def test_a_session_id_that_matches_nothing_says_so(projects, tmp_path):
    result = run("build", str(projects), "-o", str(tmp_path / "out"), "--session", "ffff9999")
    assert result.exit_code == 1
    assert "--session ffff9999: no session id starts with it" in result.output
