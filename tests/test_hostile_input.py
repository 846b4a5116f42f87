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
