"""The pipeline's redaction rule: whatever a phase hands on has been through the redactor. Phase 1 keeps
summaries and redacts them as it keeps them; phase 2 redacts entries before it interprets them. So every
string an output shows from phase 1 (titles, first prompts, branches, folders, names of tools) was
redacted, on a fresh build and on a rebuild that takes summaries from the manifest."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from generator.build import BuildConfig, build

from helpers import (OTHER_SESSION_ID, PROJECT_DIR, SESSION_ID, ai_title, assistant, chain, custom_title, summary, text, tool_result, tool_use,
                     user, write_jsonl)

SUMMARY_FIELDS = ("ai title", "custom title", "summary title", "first prompt", "branch", "cwd", "slug", "tool name",
                  "mcp server", "mcp tool", "subagent description", "file touched", "model", "version",
                  "unknown entry type", "unknown field")
"""Fields phase 1 keeps in a session's summary, each planted with a secret of its own."""
TRANSCRIPT_FIELDS = ("reply",)
"""Fields only phase 2 shows, from the entries it reads again."""


def planted_tokens() -> dict[str, str]:
    """A GitHub token of its own for each field, so that a leak names the field that let it through."""
    rng = random.Random("pipeline-redaction-rule")
    alphabet = string.ascii_letters + string.digits
    return {name: "ghp_" + "".join(rng.choice(alphabet) for _ in range(36))
            for name in (*SUMMARY_FIELDS, *TRANSCRIPT_FIELDS)}


def keys_of(token: str) -> list[str]:
    """What would show of the token in any output: slices of its random part, as written and lowercased (the
    search index keeps words lowercased)."""
    body = token.removeprefix("ghp_")
    slices = [body[:12], body[12:24], body[24:]]
    return slices + [part.lower() for part in slices]


def session_with_tokens(tokens: dict[str, str]) -> list[dict]:
    envelope = {"gitBranch": f"feature/{tokens['branch']}", "cwd": f"/home/ada/src/{tokens['cwd']}",
                "slug": f"bright-{tokens['slug']}", "version": f"2.1.{tokens['version']}"}
    mcp = tool_use(f"mcp__{tokens['mcp server']}__{tokens['mcp tool']}", {"query": "tides"})
    plain = tool_use(tokens["tool name"], {"path": "tides.csv"})
    edit = tool_use("Edit", {"file_path": f"/home/ada/src/tidewatch/{tokens['file touched']}.py",
                             "old_string": "a = 1", "new_string": "a = 2"})
    task = tool_use("Task", {"description": f"check {tokens['subagent description']}", "prompt": "check the tides",
                             "subagent_type": "general-purpose"})
    entries = chain(
        user(f"Set up the tide tables with {tokens['first prompt']} please", **envelope),
        assistant(text("Looking."), mcp, **envelope),
        tool_result(mcp["id"], "high tide at noon", **envelope),
        assistant(plain, model=f"claude-{tokens['model']}", **envelope),
        tool_result(plain["id"], "read", **envelope),
        assistant(edit, **envelope),
        tool_result(edit["id"], "edited", **envelope),
        assistant(task, **envelope),
        tool_result(task["id"], "the tides are fine", **envelope),
        assistant(text(f"Done; the tables use {tokens['reply']} now."), **envelope),
        {**user("odd entry", **envelope), "type": tokens["unknown entry type"]},
        {**user("Thanks.", **envelope), tokens["unknown field"]: 1},
    )
    last = entries[-1]["uuid"]
    return [*entries, custom_title(f"Tide work {tokens['custom title']}"),
            summary(f"Tide tables {tokens['summary title']}", last)]


def write_sessions(folder: Path, tokens: dict[str, str]) -> None:
    """The session above, and one titled by Claude alone (a custom title wins over Claude's)."""
    write_jsonl(folder / f"{SESSION_ID}.jsonl", session_with_tokens(tokens))
    write_jsonl(folder / f"{OTHER_SESSION_ID}.jsonl",
                [*chain(user("Chart the moon", sessionId=OTHER_SESSION_ID),
                        assistant(text("Charted."), sessionId=OTHER_SESSION_ID)),
                 ai_title(f"Moon {tokens['ai title']}", session_id=OTHER_SESSION_ID)])


def outputs(site: Path) -> dict[str, str]:
    return {path.relative_to(site).as_posix(): path.read_bytes().decode("utf-8", "replace")
            for path in site.rglob("*") if path.is_file()}


def leaks(site: Path, tokens: dict[str, str]) -> list[tuple[str, str]]:
    found = []
    for path, content in outputs(site).items():
        for name, token in tokens.items():
            if any(key in content for key in keys_of(token)):
                found.append((name, path))
    return sorted(set(found))


@pytest.mark.parametrize("markdown_only", [False, True], ids=["site", "markdown"])
def test_no_summary_field_shows_a_planted_secret_on_a_build_or_a_rebuild(tmp_path, markdown_only):
    tokens = planted_tokens()
    folder = tmp_path / "in" / PROJECT_DIR
    write_sessions(folder, tokens)
    site = tmp_path / "site"
    config = BuildConfig(inputs=(folder,), output=site, markdown_only=markdown_only)
    build(config)
    assert leaks(site, tokens) == []
    # A third session in the folder: the others' summaries now come from the manifest.
    write_jsonl(folder / "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6.jsonl",
                chain(user("And the sea?", sessionId="0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"),
                      assistant(text("Calm on Friday."), sessionId="0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6")))
    build(config)
    assert leaks(site, tokens) == []


def test_the_planted_secrets_reach_the_outputs_when_redaction_is_off(tmp_path):
    """The check above can fail: with redaction off, each planted field shows in some output."""
    tokens = planted_tokens()
    folder = tmp_path / "in" / PROJECT_DIR
    write_sessions(folder, tokens)
    site = tmp_path / "site"
    build(BuildConfig(inputs=(folder,), output=site, redact=False))
    assert {name for name, _ in leaks(site, tokens)} == {*SUMMARY_FIELDS, *TRANSCRIPT_FIELDS}


def test_each_point_of_the_rule_is_needed(tmp_path, monkeypatch):
    """With the summaries kept as read (phase 2 still redacting the entries it renders), every summary
    field shows its secret; with the entries rendered as read (the summaries still redacted), the reply
    does."""
    from generator.stages.redact import Redactor

    tokens = planted_tokens()
    folder = tmp_path / "in" / PROJECT_DIR
    write_sessions(folder, tokens)
    with monkeypatch.context() as patched:
        patched.setattr(Redactor, "interpreted", lambda self, result: result)
        build(BuildConfig(inputs=(folder,), output=tmp_path / "phase-1-unredacted"))
    assert {name for name, _ in leaks(tmp_path / "phase-1-unredacted", tokens)} == set(SUMMARY_FIELDS)
    with monkeypatch.context() as patched:
        patched.setattr(Redactor, "items", lambda self, items: items)
        build(BuildConfig(inputs=(folder,), output=tmp_path / "phase-2-unredacted"))
    assert {name for name, _ in leaks(tmp_path / "phase-2-unredacted", tokens)} >= set(TRANSCRIPT_FIELDS)
