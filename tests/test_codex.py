"""Codex CLI's rollouts, as the real CLI writes them (tests/fixtures/codex/, made by tests/realclient_codex/generate.py
against a scripted Responses API), build into pages a person can read: every prompt, reply, call and patch is
there, once; no record is unknown; nothing Codex sent the model as its instructions reaches a published file; a
Codex session joins the Claude Code sessions of the same folder in one project."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, BuildReport, build
from generator.stages.interpret.codex_rollout import is_harness

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "codex"
CLAUDE_FIXTURES = HERE / "fixtures" / "realclient"
SCENARIOS = sorted(path.name for path in FIXTURES.iterdir() if path.is_dir())


def rollouts(folder: Path) -> list[Path]:
    return sorted(folder.rglob("rollout-*.jsonl"))


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def page_text(site: Path) -> str:
    return "\n".join(BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").get_text(" ")
                     for page in sorted((site / "projects").rglob("*.html")))


def every_file_text(folder: Path) -> str:
    return "\n".join(path.read_bytes().decode("utf-8", "replace") for path in sorted(folder.rglob("*")) if path.is_file())


def spaced(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, tuple[Path, BuildReport]]:
    sites = {}
    for name in SCENARIOS:
        site = tmp_path_factory.mktemp(name) / "site"
        sites[name] = (site, build(BuildConfig(inputs=(FIXTURES / name,), output=site, vault=None)))
    return sites


def test_there_is_a_fixture_of_every_scenario():
    assert set(SCENARIOS) >= {"shell_and_patch", "plan_search_image", "mcp", "resume", "compaction"}
    for name in SCENARIOS:
        assert rollouts(FIXTURES / name), name


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_record_is_known(built, name):
    _, report = built[name]
    assert dict(report.unknown) == {}
    assert report.sessions == 1
    assert not [d for d in report.diagnostics if "codex" in d.file], report.diagnostics


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_prompt_reply_and_call_is_shown_once(built, name):
    """What the person typed and what the model wrote, read from the rollout's own records, is on the page,
    and each message once (Codex writes each twice or three times)."""
    site, _ = built[name]
    soup = BeautifulSoup(next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8"), "html.parser")
    shown_prompts = [spaced(prompt.get_text(" ")) for prompt in soup.select(".msg.user")]
    text = spaced(soup.get_text(" "))
    prompts, replies, calls, searches = [], [], [], []
    for log in rollouts(FIXTURES / name):
        for record in records(log):
            payload = record.get("payload", {})
            if record["type"] != "response_item":
                continue
            if payload.get("type") == "message" and payload.get("role") == "user":
                words = "\n".join(part["text"] for part in payload["content"] if part.get("type") == "input_text"
                                  and not part["text"].startswith(("<image", "</image")))
                if not is_harness(words):
                    prompts.append(words)
            elif payload.get("type") == "message" and payload.get("role") == "assistant":
                replies.extend(part["text"] for part in payload["content"] if part.get("type") == "output_text")
            elif payload.get("type") in ("function_call", "custom_tool_call", "tool_search_call"):
                calls.append(payload.get("call_id") or payload.get("id"))
            elif payload.get("type") == "web_search_call":  # anchored by its line: the query shows it
                searches.append(payload["action"]["query"])
    assert prompts and replies
    for prompt in prompts:
        # Markdown's marks (`code`, **bold**) are shown as what they mark.
        assert sum(spaced(re.sub(r"[*`]", "", prompt)) in shown for shown in shown_prompts) == 1, (prompt, shown_prompts)
    for reply in replies:
        visible = spaced(re.sub(r"[*`]", "", reply))
        assert visible in text, reply
    html = every_file_text(site / "projects")
    for call_id in calls:
        assert f'id="e-{call_id}"' in html, call_id
    for query in searches:
        assert query in text, query


@pytest.mark.parametrize("name", SCENARIOS)
def test_nothing_codex_sent_the_model_as_instructions_is_published(built, name):
    site, _ = built[name]
    everything = every_file_text(site)
    probes = json.loads((FIXTURES / name / "sent.json").read_text(encoding="utf-8"))
    assert len(probes) >= 5
    for probe in probes:
        assert probe not in everything
    assert "environment_context" not in everything and "skills_instructions" not in everything
    assert "You are Codex, a coding agent" not in everything


def test_shell_calls_show_their_command_output_and_exit_code(built):
    site, _ = built["shell_and_patch"]
    soup = BeautifulSoup(next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8"), "html.parser")
    tools = soup.select("details.tool")
    commands = [tool.select_one("summary code").get_text() for tool in tools if tool.select_one(".tool-name").get_text() == "Bash"]
    assert "cat tides.py" in commands and any("sys.exit(3)" in command for command in commands)
    failing = next(tool for tool in tools if "sys.exit(3)" in tool.get_text())
    assert failing.select_one(".status").get_text() == "exit 3"
    assert "not yet" in failing.get_text() and "Chunk ID" not in failing.get_text()


def test_a_patch_shows_a_diff_of_each_file(built):
    site, _ = built["shell_and_patch"]
    soup = BeautifulSoup(next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8"), "html.parser")
    patch = next(tool for tool in soup.select("details.tool") if tool.select_one(".tool-name").get_text() == "Patch")
    labels = [label.get_text() for label in patch.select("p.label")]
    assert labels[:3] == ["tides.py (changed)", "README.md (added)", "old_notes.txt (deleted)"]
    diff = patch.get_text()
    assert "-    return 'low'" in diff and "+    return 'high' if hour >= 12 else 'low'" in diff
    assert "+# Tides" in diff


def test_files_touched_and_the_commit_made_are_linked(built):
    site, _ = built["shell_and_patch"]
    files = page_text(site)
    for path in ("tides.py", "README.md", "old_notes.txt"):
        assert path in files
    commits = next(site.glob("projects/*/commits.html")).read_text(encoding="utf-8")
    assert "Tide is high after noon" in commits


def test_model_settings_tokens_and_the_version_are_shown(built):
    site, _ = built["shell_and_patch"]
    soup = BeautifulSoup(next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8"), "html.parser")
    text = spaced(soup.get_text(" "))
    assert "gpt-5.5" in text and "Codex CLI 0.171.0" in text and "Approvals never" in text
    assert {meta.get_text(" ", strip=True).split(" ")[0] for meta in soup.select(".msg .meta .who")} >= {"You", "Codex"}
    assert re.search(r"[\d,]+ in · [\d,]+ out", text)


def test_plan_search_and_image(built):
    site, _ = built["plan_search_image"]
    page = next(site.glob("projects/*/rollout-*.html"))
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    assert [item.get_text(" ", strip=True) for item in soup.select(".checklist li")][:2] == ["Read the chart", "Check online"]
    assert any("Brest high tide today" in tool.get_text() for tool in soup.select("details.tool"))
    assert soup.select(".msg.user img"), "the pasted chart"


def test_mcp_calls_name_their_server_and_tool(built):
    site, _ = built["mcp"]
    text = spaced(page_text(site))
    assert "notes · lookup" in text and "The Ouessant ferry leaves at 09:30." in text
    assert "Tools found: mcp__notes__lookup" in text
    soup = BeautifulSoup(next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8"), "html.parser")
    statuses = {tool.select_one("summary code").get_text(): tool.select_one(".status").get_text()
                for tool in soup.select("details.tool") if "lookup" in tool.select_one(".tool-name").get_text()}
    assert statuses == {"ferry": "ok", "weather": "error"}  # the MCP server's isError


def test_a_resumed_session_is_one_page_with_both_prompts(built):
    site, report = built["resume"]
    text = page_text(site)
    assert report.sessions == 1 and "What does" in text and "And the date, in UTC?" in text


def test_a_compaction_is_said_and_its_summary_folded(built):
    site, _ = built["compaction"]
    soup = BeautifulSoup(next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8"), "html.parser")
    assert "Conversation compacted" in soup.get_text()
    assert "And the ferry?" in soup.get_text()
    # The summary the model wrote when asked for one is the compaction's, not a reply.
    replies = " ".join(message.get_text(" ") for message in soup.select(".msg.assistant"))
    assert "The ferry leaves at 09:30." in replies
    assert "Summary: the user asked" not in replies
    summary = next(fold for fold in soup.select("details") if "Continued from an earlier conversation" in fold.get_text())
    assert "Summary: the user asked about tides and the ferry" in summary.get_text()


# -- one archive ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> tuple[Path, BuildReport]:
    """Claude Code's sessions of /home/ada/tidewatch and Codex's of the same folder, in one build."""
    site = tmp_path_factory.mktemp("mixed") / "site"
    inputs = (CLAUDE_FIXTURES / "tools" / "projects", FIXTURES / "shell_and_patch", FIXTURES / "mcp")
    return site, build(BuildConfig(inputs=inputs, output=site, vault=None))


def test_a_mixed_archive_has_one_project_page_with_both_agents(mixed):
    site, report = mixed
    projects = sorted(path.parent.name for path in (site / "projects").glob("*/index.html"))
    assert projects == ["-home-ada-tidewatch"] or projects == ["home-ada-tidewatch"], projects
    soup = BeautifulSoup(next((site / "projects").glob("*/index.html")).read_text(encoding="utf-8"), "html.parser")
    agents = [row["data-agent"] for row in soup.select("table.sessions tbody tr[data-agent]")]
    assert set(agents) == {"claude-code", "codex"}
    assert [option.get_text() for option in soup.select("select.agent-filter option")] == [
        "Every agent", "Claude Code", "Codex CLI"]
    assert {tag.get_text() for tag in soup.select(".tag.agent")} == {"Claude Code", "Codex CLI"}
    started = [row.select_one("time")["datetime"] for row in soup.select("table.sessions tbody tr[data-agent]")]
    assert started == sorted(started, reverse=True)


def test_search_finds_words_from_both_agents(mixed):
    site, _ = mixed
    index = every_file_text(site / "search") if (site / "search").exists() else every_file_text(site)
    assert "ouessant" in index.lower()  # the Codex MCP session's reply
    claude_prompt = next(json.loads(line) for log in (CLAUDE_FIXTURES / "tools" / "projects").rglob("*.jsonl")
                         for line in log.read_text(encoding="utf-8").splitlines()
                         if '"type":"user"' in line and '"role":"user"' in line)
    content = claude_prompt["message"]["content"]
    word = max(re.findall(r"[a-z]{6,}", (content if isinstance(content, str) else json.dumps(content)).lower()), key=len)
    assert word in index.lower()


def test_approved_and_refused_commands_and_an_interrupt(built):
    """On Codex's interactive screen: a command the person approved ran, one they refused (Esc) did not and
    stopped the turn, and a turn they interrupted is said."""
    site, _ = built["approvals_and_interrupt"]
    soup = BeautifulSoup(next(site.glob("projects/*/rollout-*.html")).read_text(encoding="utf-8"), "html.parser")
    tools = {tool.select_one("summary code").get_text(): tool for tool in soup.select("details.tool")}
    assert tools["rm -rf build"].select_one(".status").get_text() == "ok"
    assert "Remove the old build" in tools["rm -rf build"].get_text()  # why Codex asked for approval
    assert tools["rm -rf .cache"].select_one(".status").get_text() == "denied"
    assert len([n for n in soup.select(".notice") if "Interrupted by the user" in n.get_text()]) == 2


def test_the_index_names_the_agents_of_a_project(mixed):
    site, _ = mixed
    soup = BeautifulSoup((site / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert [card.get_text() for card in soup.select(".card .agents")] == ["Claude Code · Codex CLI"]
