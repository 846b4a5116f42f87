"""Stage 1, discover: which files are sessions, which project each belongs to, and which subagent logs
belong to which parent, for every shape of INPUT."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.stages.discover import discover
from generator.core.errors import InputError
from helpers import OTHER_SESSION_ID, SESSION_ID, assistant, text, user, write_jsonl

PROJECT = "-home-ada-src-tidewatch"
OTHER_PROJECT = "-Users-grace-work-ledger-api"


def a_session(path: Path, session_id: str = SESSION_ID, **fields) -> Path:
    return write_jsonl(path, [user("how do the tide tables get built?", sessionId=session_id, **fields),
                              assistant(text("They are generated from the harmonics."), sessionId=session_id,
                                        **fields)])


def a_subagent(path: Path, parent_session_id: str, agent_id: str) -> Path:
    return write_jsonl(path, [user("List the CLI subcommands.", sessionId=parent_session_id, isSidechain=True,
                                   agentId=agent_id),
                              assistant(text("predict, extremes."), sessionId=parent_session_id,
                                        isSidechain=True, agentId=agent_id)])


def by_path(files) -> dict[Path, object]:
    return {f.path.resolve(): f for f in files}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A 2.x-style project folder: two sessions, one with a subagent log, plus a flat 1.x agent log and
    files that are not sessions."""
    folder = tmp_path / "projects" / PROJECT
    a_session(folder / f"{SESSION_ID}.jsonl")
    a_session(folder / f"{OTHER_SESSION_ID}.jsonl", OTHER_SESSION_ID)
    a_subagent(folder / SESSION_ID / "subagents" / "agent-a36e531.jsonl", SESSION_ID, "a36e531")
    a_subagent(folder / "agent-e6ecf1f3.jsonl", OTHER_SESSION_ID, "e6ecf1f3")
    (folder / "notes.txt").write_text("not a session\n")
    (folder / SESSION_ID / "tool-results").mkdir(parents=True)
    (folder / SESSION_ID / "tool-results" / "out.txt").write_text("spilled tool output\n")
    return folder


def test_a_single_session_file(tmp_path: Path) -> None:
    path = a_session(tmp_path / PROJECT / f"{SESSION_ID}.jsonl")

    files = discover([path])

    assert len(files) == 1
    (found,) = files
    assert found.path == path
    assert found.project_dir == PROJECT
    assert not found.is_subagent
    assert found.agent_id == "" and found.parent_session_id == ""


def test_a_single_subagent_file_knows_its_parent_and_project(tmp_path: Path) -> None:
    path = a_subagent(tmp_path / PROJECT / SESSION_ID / "subagents" / "agent-a36e531.jsonl", SESSION_ID,
                      "a36e531")

    (found,) = discover([path])

    assert found.is_subagent
    assert found.agent_id == "a36e531"
    assert found.parent_session_id == SESSION_ID
    assert found.project_dir == PROJECT, "a subagent belongs to the project of its parent, not to subagents/"


def test_a_single_flat_agent_file(tmp_path: Path) -> None:
    path = a_subagent(tmp_path / OTHER_PROJECT / "agent-e6ecf1f3.jsonl", OTHER_SESSION_ID, "e6ecf1f3")

    (found,) = discover([path])

    assert found.agent_id == "e6ecf1f3"
    assert found.parent_session_id == "", "a flat 1.x agent log names its parent only inside the file"
    assert found.project_dir == OTHER_PROJECT


def test_a_project_folder(project: Path) -> None:
    files = by_path(discover([project]))

    expected = {
        project / f"{SESSION_ID}.jsonl": ("", ""),
        project / f"{OTHER_SESSION_ID}.jsonl": ("", ""),
        project / SESSION_ID / "subagents" / "agent-a36e531.jsonl": ("a36e531", SESSION_ID),
        project / "agent-e6ecf1f3.jsonl": ("e6ecf1f3", ""),
    }
    assert set(files) == {p.resolve() for p in expected}, "only session logs, each once"
    for path, (agent_id, parent) in expected.items():
        found = files[path.resolve()]
        assert found.project_dir == PROJECT
        assert (found.agent_id, found.parent_session_id) == (agent_id, parent)


def test_a_folder_of_project_folders(tmp_path: Path, project: Path) -> None:
    root = project.parent
    other = root / OTHER_PROJECT
    a_session(other / f"{OTHER_SESSION_ID}.jsonl", OTHER_SESSION_ID)
    (root / "empty-folder").mkdir()
    (root / "README.md").write_text("backup of ~/.claude/projects\n")

    files = discover([root])

    projects = {f.project_dir for f in files}
    assert projects == {PROJECT, OTHER_PROJECT}
    assert [f.path for f in files if f.project_dir == OTHER_PROJECT] == [other / f"{OTHER_SESSION_ID}.jsonl"]
    assert len([f for f in files if f.project_dir == PROJECT]) == len(discover([project]))


def test_a_project_folder_holding_only_subagent_logs_is_still_found(tmp_path: Path) -> None:
    """The main log may be gone (pruned, or not copied) while `<session>/subagents/` remains."""
    root = tmp_path / "projects"
    path = a_subagent(root / PROJECT / SESSION_ID / "subagents" / "agent-a36e531.jsonl", SESSION_ID, "a36e531")

    files = discover([root])

    assert [(f.path, f.project_dir, f.parent_session_id) for f in files] == [(path, PROJECT, SESSION_ID)]


def test_subagent_logs_are_paired_with_their_parent_session(tmp_path: Path) -> None:
    folder = tmp_path / PROJECT
    a_session(folder / f"{SESSION_ID}.jsonl")
    a_session(folder / f"{OTHER_SESSION_ID}.jsonl", OTHER_SESSION_ID)
    for parent, agent in [(SESSION_ID, "a1"), (SESSION_ID, "acompact-b5f917"), (OTHER_SESSION_ID, "a2")]:
        a_subagent(folder / parent / "subagents" / f"agent-{agent}.jsonl", parent, agent)

    files = discover([folder])

    pairs = {(f.parent_session_id, f.agent_id) for f in files if f.is_subagent}
    assert pairs == {(SESSION_ID, "a1"), (SESSION_ID, "acompact-b5f917"), (OTHER_SESSION_ID, "a2")}
    main_stems = {f.path.stem for f in files if not f.is_subagent}
    assert all(parent in main_stems for parent, _ in pairs)


def test_order_is_sorted_and_does_not_depend_on_input_order_or_creation_order(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    # Created in reverse order of their names, so that directory order is unlikely to be name order.
    names = sorted(["0a6c-session.jsonl", "5c12-session.jsonl", "f0e1-session.jsonl"], reverse=True)
    for project_name in [PROJECT, OTHER_PROJECT]:
        for name in names:
            a_session(root / project_name / name)
    a_subagent(root / PROJECT / "0a6c-session" / "subagents" / "agent-a1.jsonl", "0a6c-session", "a1")
    a_subagent(root / PROJECT / "agent-b2.jsonl", SESSION_ID, "b2")

    first = discover([root])
    again = discover([root])
    by_projects = discover([root / PROJECT, root / OTHER_PROJECT])
    reversed_inputs = discover([root / OTHER_PROJECT, root / PROJECT])

    assert [f.path for f in first] == [f.path for f in again]
    assert [f.path for f in by_projects] == [f.path for f in reversed_inputs] == [f.path for f in first]
    project_order = [f.project_dir for f in first]
    assert project_order == sorted(project_order), "files of one project stay together, projects in order"
    for project_name in [PROJECT, OTHER_PROJECT]:
        mains = [f.path.name for f in first if f.project_dir == project_name and not f.is_subagent]
        assert mains == sorted(names)
    positions = {f.path.name: index for index, f in enumerate(first) if f.project_dir == PROJECT}
    assert positions["0a6c-session.jsonl"] < positions["agent-a1.jsonl"], "a parent comes before its subagents"


def test_the_same_file_given_twice_counts_once(tmp_path: Path, project: Path) -> None:
    session = project / f"{SESSION_ID}.jsonl"
    spelled_differently = project / ".." / PROJECT / f"{SESSION_ID}.jsonl"

    assert len(discover([session, session])) == 1
    assert len(discover([session, spelled_differently])) == 1

    whole = discover([project])
    assert len(discover([project, session])) == len(whole)
    assert len(discover([session, project])) == len(whole)
    assert len(discover([project.parent, project])) == len(whole)


def test_the_same_file_through_a_symlinked_folder_counts_once(tmp_path: Path, project: Path) -> None:
    link = tmp_path / "shortcut"
    link.symlink_to(project, target_is_directory=True)

    assert len(discover([project, link])) == len(discover([project]))


def test_two_different_folders_with_the_same_name_stay_distinct_projects(tmp_path: Path) -> None:
    """Checkpoint trees (`…/05/a737f62fb9/0/full.jsonl`, `…/04/22b428133d/0/full.jsonl`) reuse folder names."""
    first = tmp_path / "checkpoints" / "05" / "a737f62fb9" / "0"
    second = tmp_path / "checkpoints" / "04" / "22b428133d" / "0"
    a_session(first / "full.jsonl")
    a_session(first / SESSION_ID / "subagents" / "agent-a1.jsonl", SESSION_ID)
    a_session(second / "full.jsonl", OTHER_SESSION_ID)

    files = discover([first, second])

    project_of = {f.path.resolve(): f.project_dir for f in files}
    assert project_of[(first / "full.jsonl").resolve()] != project_of[(second / "full.jsonl").resolve()]
    assert project_of[(first / SESSION_ID / "subagents" / "agent-a1.jsonl").resolve()] == project_of[
        (first / "full.jsonl").resolve()
    ], "a subagent log stays in the project of its parent, renamed or not"
    assert discover([second, first]) == files, "the names do not depend on the order of the inputs"


def test_backups_of_the_same_project_from_two_machines_stay_distinct(tmp_path: Path) -> None:
    laptop = tmp_path / "laptop" / ".claude" / "projects"
    desktop = tmp_path / "desktop" / ".claude" / "projects"
    a_session(laptop / PROJECT / f"{SESSION_ID}.jsonl")
    a_session(desktop / PROJECT / f"{OTHER_SESSION_ID}.jsonl", OTHER_SESSION_ID)

    files = discover([laptop, desktop])

    assert len(files) == 2
    assert len({f.project_dir for f in files}) == 2


def test_three_backups_of_the_same_project_stay_three_projects(tmp_path: Path) -> None:
    roots = [tmp_path / machine / ".claude" / "projects" for machine in ("laptop", "desktop", "server")]
    for number, root in enumerate(roots):
        a_session(root / PROJECT / f"session-{number}.jsonl")

    files = discover(roots)

    assert len(files) == 3
    assert len({f.project_dir for f in files}) == 3


def test_a_missing_input_raises_input_error(tmp_path: Path, project: Path) -> None:
    missing = tmp_path / "no-such-folder"

    with pytest.raises(InputError) as raised:
        discover([missing])
    assert str(missing) in raised.value.format_message()

    with pytest.raises(InputError):
        discover([project, missing])
