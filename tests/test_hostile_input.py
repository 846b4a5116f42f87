"""Hostile file systems and odd logs (issue 15, points 10-13): each oddity costs only itself, is reported
once with its file (and line, where it has one), and `--strict` counts it. The sessions are written in
Claude Code's format with the shared builders; the oddities are what a broken disk, a wrong clock or a
careless copy leave behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.core.errors import StrictModeError
from helpers import (PROJECT_DIR, SESSION_ID, assistant, build_archive, session_by_source, text, usage_block, user,
                     write_jsonl)


# -- point 11: implausible times -------------------------------------------------------------------------


def test_times_in_year_9999_or_0001_are_reported_and_stretch_nothing(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl", [
        user("when is high water?", timestamp="2026-03-02T09:00:00.000Z"),
        assistant(text("At 14:02."), usage=usage_block(), timestamp="9999-12-31T23:59:59.999Z"),
        user("and low water?", timestamp="0001-01-01T00:00:00.000Z"),
        assistant(text("At 20:15."), usage=usage_block(), timestamp="2026-03-02T09:05:00.000Z"),
        user("thanks", timestamp="half past nine"),
    ])

    report = build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site"))

    assert [(d.file, d.line) for d in report.diagnostics] == [(str(path), 2), (str(path), 3), (str(path), 5)]
    assert all("timestamp" in d.message for d in report.diagnostics)
    session = session_by_source(build_archive(tmp_path / "in"), path)
    assert (session.started, session.ended) == ("2026-03-02T09:00:00.000Z", "2026-03-02T09:05:00.000Z")
    assert list(session.tokens_by_day) == ["2026-03-02"], "the charts span the days the session ran, no more"
    assert session.prompt_count == 3, "the entries themselves are still shown"
    with pytest.raises(StrictModeError):
        build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "strict", strict=True))


# -- point 12: duplicate uuids ---------------------------------------------------------------------------


def element_ids(page: Path) -> list[str]:
    from bs4 import BeautifulSoup

    return [tag["id"] for tag in BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find_all(id=True)]


def test_two_entries_with_one_uuid_in_a_file_are_both_shown_and_reported(tmp_path: Path) -> None:
    first = user("why does the tide table skip Sunday?")
    second = user("and Monday too?", uuid=first["uuid"])
    path = write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                       [first, assistant(text("A time-zone bug.")), second, assistant(text("Yes, the same bug."))])

    report = build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site"))

    assert [(d.file, d.line) for d in report.diagnostics] == [(str(path), 3)]
    assert first["uuid"] in report.diagnostics[0].message
    session = session_by_source(build_archive(tmp_path / "in"), path)
    assert [p.text for p in session.outline] == ["why does the tide table skip Sunday?", "and Monday too?"]
    ids = element_ids(tmp_path / "site" / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.html")
    assert len(ids) == len(set(ids)), "no two elements share an id"


def test_an_entry_that_only_shares_a_uuid_with_the_continued_session_is_kept(tmp_path: Path) -> None:
    """A resumed session replays the earlier one's entries (same uuid, same time): those are shown only
    where they first happened. An entry of its own that happens to reuse a uuid is not a replay."""
    earlier = [user("list the stations", timestamp="2026-03-02T09:00:00.000Z"),
               assistant(text("Three stations."), timestamp="2026-03-02T09:00:05.000Z")]
    later_id = "6a0e2f4c-1b3d-4f5a-9c8e-7d6b5a4c3e2f"
    own = [user("now sort them", sessionId=later_id, timestamp="2026-03-03T10:00:00.000Z"),
           user("by name, please", sessionId=later_id, uuid=earlier[0]["uuid"], timestamp="2026-03-03T10:01:00.000Z"),
           assistant(text("Sorted by name."), sessionId=later_id, timestamp="2026-03-03T10:01:05.000Z")]
    folder = tmp_path / "in" / PROJECT_DIR
    write_jsonl(folder / f"{SESSION_ID}.jsonl", earlier)
    path = write_jsonl(folder / f"{later_id}.jsonl", [{**entry, "sessionId": later_id} for entry in earlier] + own)

    report = build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site"))

    assert [(d.file, d.line) for d in report.diagnostics] == [(str(path), 4)]
    later = session_by_source(build_archive(tmp_path / "in"), path)
    assert later.continues_key.endswith(SESSION_ID) and later.replayed == 2, "the replay is still left out"
    assert [p.text for p in later.outline] == ["now sort them", "by name, please"]


# -- point 10: hostile file systems ----------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]
OTHER_ID = "9c8d7e6f-5a4b-4c3d-9e2f-1a0b9c8d7e6f"


def a_session(path: Path, prompt: str = "how are the tide tables built?", **fields) -> Path:
    return write_jsonl(path, [user(prompt, **fields), assistant(text("From the harmonics."), **fields)])


def output_files(site: Path) -> list[str]:
    return sorted(str(path.relative_to(site)) for path in site.rglob("*"))


def build_in_a_process(inputs: Path, output: Path, *options: str) -> tuple[int, dict]:
    """The CLI in a process of its own, so that a build that would hang (reading a named pipe) fails the
    test instead of stopping it."""
    import json
    import subprocess
    import sys

    report = output.with_suffix(".report.json")
    finished = subprocess.run([sys.executable, "-m", "generator", "build", str(inputs), "-o", str(output),
                               "--report", str(report), *options], cwd=REPO, capture_output=True, text=True,
                              timeout=120)
    return finished.returncode, json.loads(report.read_text()) if report.exists() else {}


def test_dangling_and_looping_links_and_a_named_pipe_cost_only_themselves(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "in" / PROJECT_DIR
    a_session(folder / f"{SESSION_ID}.jsonl")
    dangling, looping, pipe = folder / "a-gone.jsonl", folder / "b-loop.jsonl", folder / "c-pipe.jsonl"
    os.symlink(folder / "nowhere.jsonl", dangling)
    os.symlink(looping, looping)
    os.mkfifo(pipe)
    (folder / SESSION_ID / "subagents").mkdir(parents=True)
    os.symlink(folder / "nowhere.jsonl", folder / SESSION_ID / "subagents" / "agent-a1.jsonl")

    code, report = build_in_a_process(tmp_path / "in", tmp_path / "site")

    assert code == 0 and report["sessions"] == 1
    named = sorted(d["file"] for d in report["diagnostics"])
    assert named == sorted(map(str, [dangling, looping, pipe, folder / SESSION_ID / "subagents" / "agent-a1.jsonl"]))
    assert (tmp_path / "site" / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.html").is_file()
    code, again = build_in_a_process(tmp_path / "in", tmp_path / "site")
    assert code == 0 and again["diagnostics"] == report["diagnostics"], "a build with nothing to do says so again"
    code, _ = build_in_a_process(tmp_path / "in", tmp_path / "strict", "--strict")
    assert code == 1


def test_a_folder_that_cannot_be_read_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project folder, or a session's `subagents` folder, without permission to read it. (The tests may
    run as root, who can read anything: the refusal is the operating system's, as `os.scandir` gives it.)"""
    import errno
    import os

    root = tmp_path / "in"
    a_session(root / PROJECT_DIR / f"{SESSION_ID}.jsonl")
    subagents = root / PROJECT_DIR / SESSION_ID / "subagents"
    a_session(subagents / "agent-a36e531.jsonl", isSidechain=True, agentId="a36e531")
    locked_project = root / "-home-ada-src-ledger"
    a_session(locked_project / f"{OTHER_ID}.jsonl")
    real_scandir = os.scandir

    def refusing(path):
        if isinstance(path, (str, os.PathLike)) and Path(path) in (subagents, locked_project):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)

    report = build(BuildConfig(inputs=(root,), output=tmp_path / "site"))

    assert sorted(d.file for d in report.diagnostics) == sorted([str(locked_project), str(subagents)])
    assert all("cannot read" in d.message for d in report.diagnostics)
    assert report.sessions == 1
    with pytest.raises(StrictModeError):
        build(BuildConfig(inputs=(root,), output=tmp_path / "strict", strict=True))


def test_a_long_non_ascii_project_name_gets_a_short_distinct_folder(tmp_path: Path) -> None:
    """Eighty Cyrillic letters are 160 bytes on disk, and 480 characters once escaped for a file name."""
    first = "-home-ada-src-" + "приливы" * 11 + "-1"
    second = "-home-ada-src-" + "приливы" * 11 + "-2"
    a_session(tmp_path / "in" / first / f"{SESSION_ID}.jsonl")
    a_session(tmp_path / "in" / second / f"{SESSION_ID}.jsonl", "and the second project?")

    report = build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site"))

    assert report.sessions == 2
    names = {part for path in (tmp_path / "site").rglob("*") for part in path.relative_to(tmp_path / "site").parts}
    assert max(len(name.encode()) for name in names) <= 255
    projects = [path for path in (tmp_path / "site" / "projects").iterdir() if path.is_dir()]
    assert len(projects) == 2 and all((path / f"{SESSION_ID}.html").is_file() for path in projects)


def test_names_that_differ_only_in_case_get_distinct_output_files(tmp_path: Path) -> None:
    """Fine on Linux, but one file once the site is unzipped on macOS or Windows."""
    upper = SESSION_ID.upper()
    root = tmp_path / "in"
    a_session(root / PROJECT_DIR / f"{SESSION_ID}.jsonl")
    a_session(root / PROJECT_DIR / f"{upper}.jsonl", "the same name, in capitals", sessionId=upper)
    a_session(root / PROJECT_DIR / SESSION_ID / "subagents" / "agent-a1.jsonl", isSidechain=True, agentId="a1")
    a_session(root / PROJECT_DIR / upper / "subagents" / "agent-a1.jsonl", "another agent", sessionId=upper,
              isSidechain=True, agentId="a1")
    a_session(root / PROJECT_DIR.replace("ada", "Ada") / f"{SESSION_ID}.jsonl", "a project in capitals")

    report = build(BuildConfig(inputs=(root,), output=tmp_path / "site"))

    assert (report.sessions, report.subagent_runs) == (3, 2)
    files = output_files(tmp_path / "site")
    assert len({name.lower() for name in files}) == len(files), "no two output names differ only in case"
    assert len(report.diagnostics) == 2, [d.message for d in report.diagnostics]  # the session and the project
    again = tmp_path / "again"
    build(BuildConfig(inputs=(root,), output=again))
    assert output_files(again) == files, "the names given are the same in every build"


def test_a_session_saved_in_utf16_is_read(tmp_path: Path) -> None:
    """A log saved again by a Windows editor, or through PowerShell's `>`: UTF-16 with a byte-order mark."""
    import json

    entries = [user("what is the höchste Flut? 🌊"), assistant(text("At 14:02."))]
    path = tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes("".join(json.dumps(e, ensure_ascii=False) + "\r\n" for e in entries).encode("utf-16"))

    report = build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site"))

    assert [(d.file, d.line) for d in report.diagnostics] == [(str(path), 0)]
    assert "UTF-16" in report.diagnostics[0].message
    session = session_by_source(build_archive(tmp_path / "in"), path)
    assert session.first_prompt == "what is the höchste Flut? 🌊"
    with pytest.raises(StrictModeError):
        build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "strict", strict=True))


# -- point 13: a huge broken line, and lines with nothing in them -----------------------------------------


def test_a_huge_broken_line_is_previewed_and_saved_whole(tmp_path: Path) -> None:
    """Like a long tool output: the page and the Markdown show its start, a linked file holds all of it."""
    broken = '{"type": "user", "message": {"role": "user", "content": "' + "tide " * 600_000  # 3 MB, no end
    path = write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                       [user("load the harmonics table"), broken, assistant(text("Loaded."))])

    report = build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site"))

    assert [(d.file, d.line) for d in report.diagnostics] == [(str(path), 2)]
    folder = tmp_path / "site" / "projects" / PROJECT_DIR.lstrip("-")
    pages, markdown = sorted(folder.glob(f"{SESSION_ID}*.html")), folder / f"{SESSION_ID}.md"
    assert max(page.stat().st_size for page in pages) < len(broken) / 10
    assert markdown.stat().st_size < len(broken) / 10
    saved = [file for file in folder.rglob("*.txt") if file.read_text(encoding="utf-8") == broken.strip()]
    assert len(saved) == 1, "the whole line is kept, in a file of its own"
    assert saved[0].name in markdown.read_text(encoding="utf-8")
    assert any(saved[0].name in page.read_text(encoding="utf-8") for page in pages)


def lines_of_nothing(tmp_path: Path, count: int) -> Path:
    """A session whose file also holds `count` lines of `{}` between its turns."""
    folder = tmp_path / f"in-{count}"
    entries: list = [user("list the stations")]
    entries += ["{}"] * (count // 2)
    entries += [assistant(text("Three stations.")), user("sort them")]
    entries += ["{}"] * (count - count // 2)
    entries += [assistant(text("Sorted."))]
    write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)
    return folder


def test_lines_with_nothing_in_them_cost_nothing(tmp_path: Path) -> None:
    """Empty objects hold nothing to show: however many there are, they make no anchors, no events and no
    pages (the anchor map of a long session is written as its anchors go by: it would grow with them)."""
    sites, reports = {}, {}
    for count in (0, 30_000):
        sites[count] = tmp_path / f"site-{count}"
        reports[count] = build(BuildConfig(inputs=(lines_of_nothing(tmp_path, count),), output=sites[count]))
    assert reports[30_000].events == reports[0].events and reports[30_000].pages == reports[0].pages
    assert not reports[30_000].diagnostics
    assert output_files(sites[0]) == output_files(sites[30_000]), "no page, map or file more"
    page = {count: site / "projects" / PROJECT_DIR.lstrip("-") / f"{SESSION_ID}.html" for count, site in sites.items()}
    assert page[30_000].stat().st_size == page[0].stat().st_size
