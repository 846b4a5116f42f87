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


# -- one answer to which sessions belong together ------------------------------------------------------------


def _examples_archive():
    from generator.pipeline.phase1 import collect

    archive, _, _ = collect([Path(__file__).resolve().parents[1] / "examples"])
    return archive


def _name(key: str, session) -> str:
    """A session of `_resumed_archive` by the last digit of its file's name; its subagent run as 2-agent."""
    return "2-agent" if session.is_subagent else key[-1]


def _resumed_archive(folder: Path):
    """Sessions no chain ties: 0001, resumed by 0002 (which ran a subagent), resumed by 0003; and 0004 alone."""
    from generator.pipeline.phase1 import collect

    project = folder / TIDEWATCH
    earlier = chain(user("add a --tz option"), assistant(text("Added --tz.")))
    write_jsonl(project / "11111111-0000-4000-8000-000000000001.jsonl", earlier)
    for number, prompt in ((2, "also show the UTC offset"), (3, "and document it")):
        session_id = f"11111111-0000-4000-8000-00000000000{number}"
        replayed = [dict(e, sessionId=session_id) for e in earlier]
        new = chain(user(prompt, sessionId=session_id), assistant(text("Done."), sessionId=session_id))
        new[0]["parentUuid"] = earlier[-1]["uuid"]
        write_jsonl(project / f"{session_id}.jsonl",
                    [{"type": "summary", "summary": prompt, "leafUuid": earlier[-1]["uuid"]}, *replayed, *new])
        if number == 2:
            write_jsonl(project / session_id / "subagents" / "agent-a2.jsonl", sidechain_run(
                user("look around", sessionId=session_id), assistant(text("Looked."), sessionId=session_id),
                agent_id="a2"))
        earlier = new  # what the next one replays: this one's own entries
    write_jsonl(project / "11111111-0000-4000-8000-000000000004.jsonl",
                chain(user("unrelated"), assistant(text("Yes."))))
    archive, _, _ = collect([folder])
    keys = {_name(k, s): k for k, s in archive.sessions.items()}
    assert archive.sessions[keys["3"]].continues_key == keys["2"]
    assert archive.sessions[keys["2"]].continues_key == keys["1"]
    assert archive.sessions[keys["2-agent"]].parent_key == keys["2"]
    return archive


def test_resumed_sessions_belong_together_backwards_for_a_build_and_both_ways_for_a_bundle(tmp_path):
    from generator.bundle import select_sessions
    from generator.stages.selection import Selection

    archive = _resumed_archive(tmp_path / "projects")
    named = {_name(k, s): k for k, s in archive.sessions.items()}
    name_of = {key: name for name, key in named.items()}
    published = Selection(sessions=("11111111-0000-4000-8000-000000000002",)).chosen(archive)
    assert {name_of[k] for k in published} == {"1", "2", "2-agent"}  # what 0002 replays, not what carries it on
    for given in ("1", "2", "3", "2-agent"):
        assert [name_of[k] for k in select_sessions(archive, [named[given]])] == ["1", "2", "2-agent", "3"], given
    assert [name_of[k] for k in select_sessions(archive, [named["4"]])] == ["4"]


@pytest.mark.parametrize("archive_of", ["examples", "resumed"])
def test_a_bundle_holds_all_a_build_of_the_same_session_publishes_and_in_reading_order(archive_of, tmp_path):
    """For every session: `build --session ID` publishes what the session needs to be read (its chain, what it
    continues, their subagents); the bundle of it, its whole piece of work, holds all of that, each
    subagent run right after (the runs of) the session that started it, and nothing twice."""
    from generator.bundle import select_sessions
    from generator.stages.selection import Selection

    archive = _examples_archive() if archive_of == "examples" else _resumed_archive(tmp_path / "projects")
    for key, session in archive.sessions.items():
        bundled = select_sessions(archive, [key])
        assert len(bundled) == len(set(bundled)), key
        assert key in bundled
        if session.is_listed:
            published = Selection(sessions=(session.session_id,)).chosen(archive)
            same_id = {k for k, s in archive.sessions.items() if s.session_id == session.session_id and s.is_listed}
            if len(same_id) == 1:  # an id several sessions share (a resumed one) chooses them all
                assert published <= set(bundled), key
            for member in published:  # closed: nothing a published session needs is left out
                needs = {*archive.sessions[member].subagent_keys, archive.sessions[member].continues_key} - {""}
                assert needs <= published, (key, member)
        for member in bundled:  # closed over the whole piece of work
            other = archive.sessions[member]
            chain = archive.chains.get(other.chain_key)
            continuing = {k for k, s in archive.sessions.items() if s.continues_key == member}
            needs = {*other.subagent_keys, other.continues_key, other.plan_source_key,
                     *(chain.session_keys if chain else ()), *continuing} - {""}
            assert needs <= set(bundled), (key, member)
        for position, member in enumerate(bundled):
            parent = archive.sessions[member].parent_key
            if archive.sessions[member].is_subagent and parent in bundled:
                assert bundled.index(parent) < position, (key, member)
