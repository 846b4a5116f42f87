"""Shown as it happened, as the person saw it (issue 43), on logs the real Claude Code wrote
(tests/fixtures/realclient/, see tests/realclient/scenarios.py): how a call ended when it did not run and who
ended it, with Claude Code's words to the model folded and labelled as such; nothing of the harness (ids,
temporary paths, notes and hints to the model) on a page but with --show-hidden; a fork named and linked both
ways; the figures of a page counting what a reader finds on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build

from test_realclient import FIXTURES, session_pages, visible_text

SCENARIOS = ("refusals", "escape", "fork", "rewind", "project-agent", "subagent", "background-agent",
             "structured-output", "stops")
# Claude Code's instructions to the model: never the story, found only inside a fold labelled as the model's.
TO_MODEL = ("STOP what you are doing", "The user doesn't want to proceed")
# What Claude Code adds for the model alone: never on a page but with --show-hidden.
HARNESS = ("[Subagent hand-back]", "This tool's input schema was not in your prompt", "internal ID",
           "internal metadata", "/tmp/claude-", "toolu_scripted", "<usage>", "tools-used-before-summary",
           "A task-notification fires each time")


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[tuple[str, bool], Path]:
    """Each scenario built as a user builds it, and with --show-hidden."""
    found = {}
    for name in SCENARIOS:
        for hidden in (False, True):
            out = tmp_path_factory.mktemp(name) / "site"
            build(BuildConfig(inputs=(FIXTURES / name / "projects",), output=out, show_hidden=hidden))
            found[(name, hidden)] = out
    return found


def soups(site: Path) -> dict[str, BeautifulSoup]:
    return {p.relative_to(site).as_posix(): BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")
            for p in session_pages(site) if p.name not in ("commits.html", "files.html")}


def cards(site: Path) -> list:
    return [card for soup in soups(site).values() for card in soup.select("details.tool")]


def card_for(site: Path, command_or_target: str):
    found = [card for card in cards(site) if command_or_target in card.select_one("summary").get_text()]
    assert len(found) == 1, f"{len(found)} cards for {command_or_target!r}"
    return found[0]


def status(card) -> str:
    return card.select_one("summary .status").get_text()


def outside_folds(card) -> str:
    """The card's words a reader sees without opening the folds inside it."""
    copy = BeautifulSoup(str(card), "html.parser")
    for fold in copy.select("details.to-model"):
        fold.decompose()
    return " ".join(copy.get_text(" ").split())


# -- 1. who did what, in the reader's words -----------------------------------------------------------------

def test_escape_while_a_command_ran_reads_as_an_interruption_by_the_user(sites):
    card = card_for(sites[("escape", False)], "time.sleep(45)")
    assert status(card) == "interrupted"
    assert "Interrupted by the user (Escape)" in outside_folds(card)
    assert not any(words in outside_folds(card) for words in TO_MODEL)
    fold = card.select_one("details.to-model")
    assert fold.select_one("summary").get_text() == "Claude Code's words to the model"
    assert "STOP what you are doing" in fold.get_text()


def test_escape_at_the_permission_prompt_reads_as_a_rejection_and_the_turn_s_end_is_shown(sites):
    site = sites[("escape", False)]
    card = card_for(site, "touch HIGH.txt")
    assert status(card) == "rejected"
    assert "Rejected by the user at Claude Code's permission prompt" in outside_folds(card)
    assert "did not run" in outside_folds(card)
    page = " ".join(visible_text(str(soup)) for soup in soups(site).values())
    # Each `[Request interrupted by user for tool use]` entry is shown, in words of its own.
    assert page.count("Interrupted by the user") - page.count("Interrupted by the user (Escape)") == 2
    assert "[Request interrupted" not in page


def test_bash_mode_in_the_interactive_session_is_the_user_s_command(sites):
    page = " ".join(visible_text(str(soup)) for soup in soups(sites[("escape", False)]).values())
    assert re.search(r"You ran [0-9: -]+ # cat NOTES.txt high water 06:12 low water 12:25", page)


def test_a_permission_refusal_says_claude_code_refused_it_and_what_was_needed(sites):
    site = sites[("refusals", False)]
    write = card_for(site, "HIGH.txt")
    assert status(write) == "refused"
    assert "Refused by Claude Code: its permission settings (or auto mode) do not allow" in outside_folds(write)
    assert "Why Claude requested permissions to write to /home/ada/tidewatch/HIGH.txt" in outside_folds(write)
    gauge = card_for(site, "cat /var/log/gauge.log")
    assert status(gauge) == "refused" and "allowed working directories" in outside_folds(gauge)


def test_a_hook_s_block_says_a_hook_blocked_it_with_what_the_hook_said(sites):
    card = card_for(sites[("refusals", False)], "rm -rf gauge-cache")
    assert status(card) == "blocked by a hook"
    assert "Blocked by a hook in the user's settings" in outside_folds(card)
    assert "The hook said Harbour rule: nothing is deleted" in outside_folds(card)
    # The hook's command line and Claude Code's "hook error" framing are for --show-hidden.
    assert "hook error" not in card.get_text() and "grep -q" not in card.get_text()
    shown = card_for(sites[("refusals", True)], "rm -rf gauge-cache")
    assert "grep -q 'rm -rf'" in shown.get_text()


# -- 2. nothing of the harness ---------------------------------------------------------------------------------

def test_an_mcp_server_s_answer_and_error_read_as_the_server_gave_them(sites):
    site = sites[("refusals", False)]
    ok = card_for(site, "Penzance")
    assert status(ok) == "ok" and "High water at Penzance: 06:12" in ok.get_text()
    error = card_for(site, "Atlantis")
    assert status(error) == "error" and "No tide table for Atlantis" in error.get_text()
    assert "input schema" not in error.get_text()
    assert "This tool's input schema was not in your prompt" in card_for(sites[("refusals", True)],
                                                                          "Atlantis").get_text()


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_page_shows_what_claude_code_wrote_for_the_model_alone(sites, name):
    for path, soup in soups(sites[(name, False)]).items():
        for fold in soup.select("details.to-model"):
            fold.decompose()
        shown = visible_text(str(soup))
        leaked = [words for words in HARNESS + TO_MODEL if words in shown]
        assert not leaked, f"{name}: {path} shows {leaked}"


def test_a_subagent_s_result_is_its_report_without_the_hand_back_frame(sites):
    card = card_for(sites[("subagent", False)], "Count Python files")
    text = " ".join(card.get_text(" ").split())
    assert "Result There is 1 Python file: tides.py." in text
    assert "agentId" not in text and "subagent_tokens" not in text
    hidden = card_for(sites[("subagent", True)], "Count Python files").get_text()
    assert "[Subagent hand-back]" in hidden and "agentId: " in hidden


def test_a_background_task_s_notification_shows_no_id_path_or_note_but_with_show_hidden(sites):
    def notice(hidden: bool) -> str:
        found = [n for soup in soups(sites[("background-agent", hidden)]).values()
                 for n in soup.select(".notice-task-notification")]
        assert len(found) == 1
        return found[0].get_text(" ")

    shown = notice(False)
    assert "Status completed" in " ".join(shown.split()) and "subagent tokens 1284" in shown
    assert not re.search(r"a82b5f10869af8efc|toolu_|/tmp/|task-notification fires", shown)
    assert "a82b5f10869af8efc" in notice(True) and "/tmp/claude-1000/" in notice(True)


# -- 3. forks ------------------------------------------------------------------------------------------------

def test_a_forked_session_is_named_as_a_fork_and_linked_both_ways(sites):
    site = sites[("fork", False)]
    pages = soups(site)
    titles = {path: soup.select_one("h1").get_text(strip=True) for path, soup in pages.items()}
    assert sorted(titles.values()) == ["Tide questions", "Tide questions (fork)"]
    fork = next(path for path, title in titles.items() if title.endswith("(fork)"))
    original = next(path for path in titles if path != fork)
    fork_line = pages[fork].select_one(".context-line")
    assert fork_line.get_text(" ", strip=True).startswith("Forked from Tide questions")
    assert fork_line.select_one("a")["href"].endswith(Path(original).name)
    original_line = pages[original].select_one(".context-line")
    assert " ".join(original_line.get_text(" ").split()) == "Forked into Tide questions (fork) ."
    assert original_line.select_one("a")["href"].endswith(Path(fork).name)
    assert [a.get_text() for a in pages[original].select("nav.forks a")] == ["Tide questions (fork)"]
    # The copied history is shown once, in the original; the fork shows what came after.
    assert "What does tides.py compute?" in visible_text(str(pages[original]))
    assert "What does tides.py compute?" not in visible_text(str(pages[fork].select_one("article")))
    assert "And in feet?" in visible_text(str(pages[fork]))


def test_a_rewind_shows_the_branch_left_and_where_the_conversation_went_on(sites):
    [soup] = soups(sites[("rewind", False)]).values()
    notice = soup.select_one(".notice-rewind")
    left = soup.find(id=notice.select_one("a")["href"][1:])
    assert "And at 6pm in feet?" in left.get_text()
    assert soup.find(id=left.select_one(".left-branch a")["href"][1:]) is notice
    article = " ".join(soup.select_one("article").get_text(" ").split())
    assert (article.index("About 14 ft at 6pm.") < article.index("went back to an earlier point")
            < article.index("About 4.2 m at 6pm."))
    # The branch left is folded; the path the conversation took is open.
    fold = soup.select_one("details.left-branch-fold")
    assert fold is not None and not fold.has_attr("open") and left in fold.descendants
    assert "About 14 ft at 6pm." in fold.get_text() and "About 4.2 m at 6pm." not in fold.get_text()
    assert notice not in fold.descendants


# -- 4. counts from what is shown -------------------------------------------------------------------------------

def _fact(soup: BeautifulSoup, name: str) -> str:
    for row in soup.select("dl.facts div"):
        if row.select_one("dt").get_text() == name:
            return row.select_one("dd").get_text()
    return ""


def test_the_tool_calls_figure_counts_the_cards_on_the_page(sites):
    for name in ("project-agent", "refusals", "escape"):
        for path, soup in soups(sites[(name, False)]).items():
            shown = len(soup.select("details.tool")) + len(soup.select("div.plan"))
            assert _fact(soup, "Tool calls") == str(shown), f"{name}: {path}"


def test_a_project_subagent_s_page_counts_the_task_it_was_given(sites):
    [agent] = [soup for path, soup in soups(sites[("project-agent", False)]).items() if "/agent-" in path]
    # Prompts count what a person typed; the task the calling agent wrote is counted as what it is.
    assert _fact(agent, "Task from the calling agent") == "1" and _fact(agent, "Prompts") == "0"
    assert "Read NOTES.txt and say whether high water comes before low water." in visible_text(str(agent))


def test_calls_stopped_by_the_user_or_claude_code_are_not_counted_as_errors(sites):
    for name, errors in (("escape", ""), ("refusals", "1 tool")):  # the MCP server's error is one
        [soup] = [soup for path, soup in soups(sites[(name, False)]).items() if "/agent-" not in path]
        assert _fact(soup, "Errors") == errors, name


def test_a_turn_stopped_by_a_limit_says_whose_limit_it_was(sites):
    """The account's rate limit (a 429, which Claude Code writes as a message of its own) and the user's
    --max-turns (an attachment) each say what stopped the turn, in the open. (Claude Code 2.1.332 records a
    streamed reply cut at max_tokens as end_turn, and writes no entry for an empty refused reply: the
    rendering cases in tests/fixtures/cases/assistant.md cover those stop reasons.)"""
    (page,) = soups(sites[("stops", False)]).values()
    notices = [" ".join(n.get_text(" ", strip=True).split()) for n in page.select(".notice")]
    assert any(n.startswith("Stopped by the account's rate or usage limit: API Error: Request rejected (429)")
               for n in notices), notices
    assert any(n.startswith("Stopped by the user's limit on turns (--max-turns 1)") for n in notices), notices
