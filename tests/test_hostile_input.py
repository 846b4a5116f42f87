"""Hostile file systems and odd logs (issue 15, points 10-13): each oddity costs only itself, is reported
once with its file (and line, where it has one), and `--strict` counts it. The sessions are written in
Claude Code's format with the shared builders; the oddities are what a broken disk, a wrong clock or a
careless copy leave behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.errors import StrictModeError
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
