"""Stage 4, link: the whole picture before any page is written: titles (a summary may sit in another file),
each project's real path, subagent transcripts tied to their parent and to the call that started them,
and plan chains."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.stages.link import decode_project_dir
from generator.core.model import ToolCall
from helpers import (
    OTHER_SESSION_ID,
    SESSION_ID,
    ai_title,
    assistant,
    at,
    build_archive,
    chain,
    custom_title,
    events_of,
    session_by_source,
    sidechain_run,
    snapshot,
    summary,
    text,
    tool_result,
    tool_use,
    user,
    write_jsonl,
)

PROJECT = "-home-ada-src-tide-watch"
REAL_PATH = "/home/ada/src/tide-watch"  # the folder name cannot tell this "-" from a "/"
THIRD_SESSION_ID = "3e2d1c0b-4a5f-4e6d-8c7b-6a5f4e3d2c1b"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / PROJECT
    folder.mkdir(parents=True)
    return folder


def conversation(prompt: str, session_id: str = SESSION_ID, **fields) -> list[dict]:
    return chain(user(prompt, sessionId=session_id, cwd=REAL_PATH, **fields),
                 assistant(text("On it."), sessionId=session_id, cwd=REAL_PATH, **fields))


# ---------------------------------------------------------------------------------------------------------
# Titles


def test_a_custom_title_beats_everything(project: Path) -> None:
    entries = conversation("the sparkline draws boxes over ssh")
    path = write_jsonl(project / f"{SESSION_ID}.jsonl", [
        summary("Sparkline fallback for dumb terminals", entries[-1]["uuid"]),
        *entries,
        ai_title("Fix sparkline rendering"),
        custom_title("sparkline-glyph-fallback"),
    ])

    session = session_by_source(build_archive(project), path)

    assert session.title == "sparkline-glyph-fallback"


def test_a_summary_of_this_session_beats_the_ai_title_and_the_prompt(project: Path) -> None:
    entries = conversation("the sparkline draws boxes over ssh")
    path = write_jsonl(project / f"{SESSION_ID}.jsonl", [
        summary("Sparkline fallback for dumb terminals", entries[-1]["uuid"]),
        *entries,
        ai_title("Fix sparkline rendering"),
    ])

    assert session_by_source(build_archive(project), path).title == "Sparkline fallback for dumb terminals"


def test_a_summary_in_another_file_titles_the_session_it_points_at(project: Path) -> None:
    """1.x writes the summary of a finished conversation at the top of the next session's file."""
    earlier = conversation("add idempotency keys to POST /payments")
    later = conversation("now the refunds endpoint", OTHER_SESSION_ID)
    earlier_path = write_jsonl(project / f"{SESSION_ID}.jsonl", earlier)
    later_path = write_jsonl(project / f"{OTHER_SESSION_ID}.jsonl", [
        summary("Postgres-backed idempotency keys for payments", earlier[-1]["uuid"]),
        *later,
    ])

    archive = build_archive(project)

    assert session_by_source(archive, earlier_path).title == "Postgres-backed idempotency keys for payments"
    assert session_by_source(archive, later_path).title == "now the refunds endpoint", (
        "a summary of another session does not title the file it sits in"
    )


def test_a_summary_in_a_summary_only_file_titles_the_session_it_points_at(project: Path) -> None:
    entries = conversation("add idempotency keys to POST /payments")
    path = write_jsonl(project / f"{SESSION_ID}.jsonl", entries)
    write_jsonl(project / f"{OTHER_SESSION_ID}.jsonl",
                [summary("Postgres-backed idempotency keys for payments", entries[-1]["uuid"])])

    assert session_by_source(build_archive(project), path).title == "Postgres-backed idempotency keys for payments"


def test_of_two_summaries_the_one_for_the_latest_entry_wins(project: Path) -> None:
    """Each resume writes a summary of the conversation so far; the one for the furthest point covers most."""
    entries = chain(*conversation("add idempotency keys to POST /payments"), user("also cover refunds", cwd=REAL_PATH),
                    assistant(text("Refunds covered."), cwd=REAL_PATH))
    path = write_jsonl(project / f"{SESSION_ID}.jsonl", entries)
    write_jsonl(project / f"{OTHER_SESSION_ID}.jsonl", [
        summary("Idempotency keys for payments and refunds", entries[-1]["uuid"]),
        summary("Plan for payment idempotency", entries[1]["uuid"]),
        *conversation("next task", OTHER_SESSION_ID),
    ])

    assert session_by_source(build_archive(project), path).title == "Idempotency keys for payments and refunds"


def test_an_ai_title_beats_the_first_prompt(project: Path) -> None:
    path = write_jsonl(project / f"{SESSION_ID}.jsonl",
                       [*conversation("can extremes print local time?"), ai_title("Local time output")])

    assert session_by_source(build_archive(project), path).title == "Local time output"


def test_without_titles_the_first_real_prompt_is_the_title(project: Path) -> None:
    prompt = "why does `predict` print UTC?"
    path = write_jsonl(project / f"{SESSION_ID}.jsonl", chain(
        user("<command-name>/model</command-name>\n            <command-message>model</command-message>\n"
             "            <command-args>opus</command-args>", cwd=REAL_PATH),
        user("Base directory for this skill: /home/ada/.claude/skills/x", isMeta=True, cwd=REAL_PATH),
        *conversation(prompt),
    ))

    # Read as plain words: Markdown's backticks would show raw in <title> and in lists.
    assert session_by_source(build_archive(project), path).title == prompt.replace("`", "")


@pytest.mark.parametrize("prompt, title", [
    ("why does __init__ run twice?", "why does __init__ run twice?"),
    ("set __dirname in snake__case", "set __dirname in snake__case"),
    ("log __FILE__ and __LINE__ in **bold**", "log __FILE__ and __LINE__ in bold"),
])
def test_underscores_a_prompt_holds_stay_in_its_title(project: Path, prompt: str, title: str) -> None:
    # Prompts are shown as typed; double underscores in them are names (Python's, C's, Node's), not bold.
    path = write_jsonl(project / f"{SESSION_ID}.jsonl", conversation(prompt))
    session = session_by_source(build_archive(project), path)
    assert session.title == title
    assert [item.text for item in session.outline] == [title]


def test_a_long_first_prompt_is_shortened_to_one_line(project: Path) -> None:
    prompt = ("the tide table for Port Hallow is off by an hour every March and October,\n\n"
              "I think the DST switch is applied twice when the station's timezone is read from the config "
              "file and again in the formatter; can you find where and fix it without touching the harmonics?")
    path = write_jsonl(project / f"{SESSION_ID}.jsonl", conversation(prompt))

    title = session_by_source(build_archive(project), path).title

    flat = " ".join(prompt.split())
    assert "\n" not in title
    assert len(title) < len(flat)
    assert flat.startswith(title.rstrip("…").rstrip())
    assert len(title.rstrip("…")) >= len("the tide table for Port Hallow"), "it keeps a useful start"


# ---------------------------------------------------------------------------------------------------------
# Projects


def test_the_project_path_is_the_most_common_cwd_not_the_folder_name(project: Path) -> None:
    subfolder = f"{REAL_PATH}/docs"
    for number, cwd in enumerate([REAL_PATH, subfolder, REAL_PATH]):
        session_id = f"0000000{number}-aaaa-4bbb-8ccc-dddddddddddd"
        write_jsonl(project / f"{session_id}.jsonl",
                    chain(user("hi", sessionId=session_id, cwd=cwd), assistant(text("Hello."), sessionId=session_id,
                                                                                cwd=cwd)))

    (found,) = build_archive(project).projects

    assert found.dir_name == PROJECT
    assert found.path == REAL_PATH
    assert found.path != decode_project_dir(PROJECT)


def test_subagents_do_not_outvote_the_sessions_on_the_project_path(project: Path) -> None:
    write_jsonl(project / f"{SESSION_ID}.jsonl", conversation("survey the docs"))
    for agent in ("a1", "a2", "a3"):
        write_jsonl(project / SESSION_ID / "subagents" / f"agent-{agent}.jsonl", sidechain_run(
            user("Read docs/", cwd=f"{REAL_PATH}/docs"), assistant(text("Read."), cwd=f"{REAL_PATH}/docs"),
            agent_id=agent))

    (found,) = build_archive(project).projects

    assert found.path == REAL_PATH


def test_projects_by_latest_activity_and_sessions_newest_first(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    times = {("-home-ada-a", "old"): 0, ("-home-ada-a", "new"): 5000, ("-home-ada-b", "mid"): 3000}
    for (folder, name), start in times.items():
        write_jsonl(root / folder / f"{name}.jsonl", chain(
            user(name, sessionId=name, cwd="/home/ada/" + folder[-1], timestamp=at(start)),
            assistant(text("ok"), sessionId=name, cwd="/home/ada/" + folder[-1], timestamp=at(start + 1))))

    archive = build_archive(root)

    assert [p.dir_name for p in archive.projects] == ["-home-ada-a", "-home-ada-b"]
    first = archive.projects[0]
    assert [archive.sessions[k].first_prompt for k in first.session_keys] == ["new", "old"]
    assert first.last_activity == at(5001)


def test_metadata_only_files_get_no_session(tmp_path: Path, project: Path) -> None:
    real = write_jsonl(project / f"{SESSION_ID}.jsonl", conversation("hi"))
    write_jsonl(project / f"{OTHER_SESSION_ID}.jsonl", [snapshot(), summary("Old work", "00000000-0000-4000-8000-0")])
    only_metadata = tmp_path / "projects" / "-home-ada-scratch"
    write_jsonl(only_metadata / f"{THIRD_SESSION_ID}.jsonl", [snapshot(), custom_title("scratch")])

    archive = build_archive(project.parent)

    assert [s.source for s in archive.sessions.values()] == [str(real)]
    assert [(p.dir_name, p.session_keys) for p in archive.projects] == [(PROJECT, tuple(archive.sessions))]


# ---------------------------------------------------------------------------------------------------------
# Subagents


def task_call(name: str, prompt: str) -> dict:
    return tool_use(name, {"description": "Explore CLI test conventions", "prompt": prompt,
                           "subagent_type": "Explore"})


def task_result(call: dict, agent_id: str, answer: str, session_id: str = SESSION_ID) -> dict:
    return tool_result(call["id"], [text(answer), text(f"agentId: {agent_id} (for resuming)")], sessionId=session_id,
                       cwd=REAL_PATH, structured={"status": "completed", "prompt": call["input"]["prompt"],
                                                  "agentId": agent_id, "content": [text(answer)],
                                                  "totalDurationMs": 23487, "totalTokens": 18734,
                                                  "totalToolUseCount": 3})


@pytest.mark.parametrize("tool_name", ["Task", "Agent"])
def test_subagent_logs_are_linked_to_their_parent_and_to_the_call(project: Path, tool_name: str) -> None:
    prompt = "How do the CLI tests call main()? Do not modify files."
    call = task_call(tool_name, prompt)
    other_call = task_call(tool_name, "Which helpers parse dates?")
    main = write_jsonl(project / f"{SESSION_ID}.jsonl", chain(
        *conversation("add an extremes subcommand"),
        assistant(call, cwd=REAL_PATH, message_id="msg_01Par"), assistant(other_call, cwd=REAL_PATH,
                                                                          message_id="msg_01Par"),
        task_result(other_call, "a9f00d1", "`_parse_when`."),
        task_result(call, "a36e531", "They call main(argv) and read capsys."),
    ))
    agents = project / SESSION_ID / "subagents"
    explorer = write_jsonl(agents / "agent-a36e531.jsonl", sidechain_run(
        user(prompt, cwd=REAL_PATH), assistant(text("They call main(argv)."), cwd=REAL_PATH), agent_id="a36e531"))
    dates = write_jsonl(agents / "agent-a9f00d1.jsonl", sidechain_run(
        user("Which helpers parse dates?", cwd=REAL_PATH), assistant(text("_parse_when"), cwd=REAL_PATH),
        agent_id="a9f00d1"))
    compactor = write_jsonl(agents / "agent-acompact-b5f917.jsonl", sidechain_run(
        user("Your task is to create a detailed summary of the conversation so far.", cwd=REAL_PATH),
        assistant(text("<summary>…</summary>"), cwd=REAL_PATH), agent_id="acompact-b5f917"))

    archive = build_archive(project)

    parent = session_by_source(archive, main)
    subagents = {path: session_by_source(archive, path) for path in (explorer, dates, compactor)}
    for sub in subagents.values():
        assert sub.is_subagent
        assert sub.parent_key == parent.key
    assert set(parent.subagent_keys) == {sub.key for sub in subagents.values()}
    calls = {c.tool_use_id: c for c in events_of(parent, ToolCall)}
    assert calls[call["id"]].subagent == subagents[explorer].key
    assert calls[other_call["id"]].subagent == subagents[dates].key
    (listed,) = archive.projects
    assert listed.session_keys == (parent.key,), "subagents are reached from their parent, not listed"


def test_a_subagent_the_user_stopped_is_still_linked_to_its_call(project: Path) -> None:
    """Stopping a running subagent leaves the refusal as the call's result, with no agentId: the run's
    own log is found by its prompt, among the runs no call names."""
    prompt = "Find how Teams is launched on this machine."
    stopped = task_call("Agent", prompt)
    finished = task_call("Agent", "Which helpers parse dates?")
    main = write_jsonl(project / f"{SESSION_ID}.jsonl", chain(
        *conversation("make a launcher for Teams"),
        assistant(finished, cwd=REAL_PATH), task_result(finished, "a9f00d1", "`_parse_when`."),
        assistant(stopped, cwd=REAL_PATH),
        tool_result(stopped["id"], "The user doesn't want to proceed with this tool use.", is_error=True,
                    structured="User rejected tool use", cwd=REAL_PATH),
    ))
    agents = project / SESSION_ID / "subagents"
    stopped_run = write_jsonl(agents / "agent-a71969c.jsonl", sidechain_run(
        user(prompt, cwd=REAL_PATH), assistant(text("Looking in /usr/bin."), cwd=REAL_PATH), agent_id="a71969c"))
    dates = write_jsonl(agents / "agent-a9f00d1.jsonl", sidechain_run(
        user("Which helpers parse dates?", cwd=REAL_PATH), assistant(text("_parse_when"), cwd=REAL_PATH),
        agent_id="a9f00d1"))

    archive = build_archive(project)

    calls = {c.tool_use_id: c for c in events_of(session_by_source(archive, main), ToolCall)}
    assert calls[stopped["id"]].subagent == session_by_source(archive, stopped_run).key
    assert calls[finished["id"]].subagent == session_by_source(archive, dates).key
    assert session_by_source(archive, stopped_run).parent_anchor == calls[stopped["id"]].anchor


def test_flat_agent_logs_are_linked_by_session_id(project: Path) -> None:
    """2.0 wrote `agent-<id>.jsonl` beside the sessions, naming the parent only in `sessionId`."""
    call = task_call("Task", "List relative imports without an extension.")
    main = write_jsonl(project / f"{SESSION_ID}.jsonl", chain(
        *conversation("fix the NodeNext build"), assistant(call, cwd=REAL_PATH),
        task_result(call, "e6ecf1f3", "Nine imports."),
    ))
    other = write_jsonl(project / f"{OTHER_SESSION_ID}.jsonl", conversation("unrelated", OTHER_SESSION_ID))
    flat = write_jsonl(project / "agent-e6ecf1f3.jsonl", sidechain_run(
        user("List relative imports without an extension.", cwd=REAL_PATH),
        assistant(text("Nine imports."), cwd=REAL_PATH), agent_id="e6ecf1f3"))
    orphan = write_jsonl(project / "agent-5117b9da.jsonl", sidechain_run(
        user("Warmup", sessionId=THIRD_SESSION_ID, cwd=REAL_PATH),
        assistant(text("Ready."), sessionId=THIRD_SESSION_ID, cwd=REAL_PATH), agent_id="5117b9da"))

    archive = build_archive(project)

    parent, sub = session_by_source(archive, main), session_by_source(archive, flat)
    assert sub.parent_key == parent.key
    assert parent.subagent_keys == (sub.key,)
    assert session_by_source(archive, other).subagent_keys == ()
    (linked_call,) = events_of(parent, ToolCall)
    assert linked_call.subagent == sub.key
    lost = session_by_source(archive, orphan)
    assert lost.parent_key == ""
    (listed,) = archive.projects
    assert lost.key in listed.session_keys, "a subagent log whose parent is gone is still listed"
    assert sub.key not in listed.session_keys


def test_inline_sidechain_runs_are_linked_to_the_task_whose_prompt_matches(project: Path) -> None:
    schema_prompt = "Find the migration that creates the idempotency_keys table."
    imports_prompt = "List every file under src/ that imports the payments client."
    schema_task = task_call("Task", schema_prompt)
    imports_task = task_call("Task", imports_prompt)
    entries = [
        *chain(*conversation("plan the idempotency keys"),
               assistant(schema_task, cwd=REAL_PATH, message_id="msg_01Two"),
               assistant(imports_task, cwd=REAL_PATH, message_id="msg_01Two")),
        # The runs are written in the other order from the calls.
        *sidechain_run(user(imports_prompt, cwd=REAL_PATH), assistant(text("charge.ts"), cwd=REAL_PATH)),
        *sidechain_run(user(schema_prompt, cwd=REAL_PATH), assistant(text("migrations/004"), cwd=REAL_PATH)),
        *chain(tool_result(schema_task["id"], "migrations/004", cwd=REAL_PATH),
               tool_result(imports_task["id"], "charge.ts", cwd=REAL_PATH)),
    ]
    main = write_jsonl(project / f"{SESSION_ID}.jsonl", entries)

    archive = build_archive(project)

    parent = session_by_source(archive, main)
    runs = {archive.sessions[key].first_prompt: archive.sessions[key] for key in parent.subagent_keys}
    assert set(runs) == {schema_prompt, imports_prompt}
    calls = {c.tool_use_id: c for c in events_of(parent, ToolCall)}
    assert calls[schema_task["id"]].subagent == runs[schema_prompt].key
    assert calls[imports_task["id"]].subagent == runs[imports_prompt].key
    assert all(run.parent_key == parent.key for run in runs.values())


# ---------------------------------------------------------------------------------------------------------
# Plan chains


def test_sessions_sharing_a_slug_are_chained_in_time_order(tmp_path: Path, project: Path) -> None:
    slug = "quiet-harbor-tides"
    # File names in the opposite order from the times, so that neither name nor discovery order can pass.
    starts = {"c-planning": 0, "b-implementing": 3600, "a-follow-up": 7200}
    paths = {}
    for name, start in starts.items():
        session_id = f"{name}-session"
        paths[name] = write_jsonl(project / f"{name}.jsonl", chain(
            user(f"{name} prompt", sessionId=session_id, cwd=REAL_PATH, slug=slug, timestamp=at(start)),
            assistant(text("ok"), sessionId=session_id, cwd=REAL_PATH, slug=slug, timestamp=at(start + 60)),
        ))
    unrelated = write_jsonl(project / f"{SESSION_ID}.jsonl", conversation("other work", slug="brittle-echoing-gull"))
    # A subagent of the planning session carries the same slug but is not part of the chain.
    write_jsonl(project / "c-planning" / "subagents" / "agent-a1.jsonl", sidechain_run(
        user("explore", sessionId="c-planning-session", slug=slug, timestamp=at(30)),
        assistant(text("done"), sessionId="c-planning-session", slug=slug, timestamp=at(40)), agent_id="a1"))
    # The same slug in another project is another chain.
    elsewhere = write_jsonl(tmp_path / "projects" / "-home-ada-src-other" / "x.jsonl", chain(
        user("elsewhere", sessionId="x", slug=slug, timestamp=at(5000)), assistant(text("ok"), sessionId="x",
                                                                                   slug=slug)))

    archive = build_archive(project.parent)

    planning, implementing, follow_up = (session_by_source(archive, paths[n])
                                         for n in ("c-planning", "b-implementing", "a-follow-up"))
    assert (planning.previous_key, planning.next_key) == ("", implementing.key)
    assert (implementing.previous_key, implementing.next_key) == (planning.key, follow_up.key)
    assert (follow_up.previous_key, follow_up.next_key) == (implementing.key, "")
    for alone in (unrelated, elsewhere):
        session = session_by_source(archive, alone)
        assert (session.previous_key, session.next_key) == ("", "")
    for sub_key in planning.subagent_keys:
        assert (archive.sessions[sub_key].previous_key, archive.sessions[sub_key].next_key) == ("", "")
