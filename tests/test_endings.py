"""How a call ended, read from what Claude Code wrote and from nothing a stranger controls: a command's
output, a file a tool read or an MCP server's answer that quotes Claude Code's own sentences (a rejection, a
refusal, a hook's block, a schema hint, a subagent's hand-back frame) is shown whole, as the output it is;
what the user typed when rejecting a call is text, never markup. (The real client's endings are checked in
test_realclient_endings.py.)"""

from __future__ import annotations

import pytest

from generator.core.model import Ending, ToolCall

from helpers import assistant, chain, events_of, interpret_entries, tool_result, tool_use, user
from test_fidelity import site_for

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to "
            "tell you how to proceed.")
QUOTED = {
    "a rejection": REJECTED,
    "a short rejection": "The user doesn't want to proceed with this tool use.",
    "an interruption": "[Request interrupted by user for tool use]",
    "a cancel": ("The user doesn't want to take this action right now. STOP what you are doing and wait for the "
                 "user to tell you how to proceed."),
    "a refusal": "Claude requested permissions to write to /etc/passwd, but you haven't granted it yet.",
    "a hook's block": "PreToolUse:Bash hook error: [./guard.sh]: Nothing is deleted here",
}


def _call(tmp_path, name: str, tool_input: dict, content, *, is_error: bool = False, **fields) -> ToolCall:
    call = tool_use(name, tool_input)
    entries = chain(user("go"), assistant(call), tool_result(call["id"], content, is_error=is_error, **fields))
    (found,) = events_of(interpret_entries(tmp_path, entries).session, ToolCall)
    return found


@pytest.mark.parametrize("what", sorted(QUOTED))
def test_output_that_quotes_claude_code_s_sentences_is_output(tmp_path, what):
    call = _call(tmp_path, "Bash", {"command": "cat notes.txt"}, QUOTED[what])
    assert call.result is not None
    assert call.result.ending == Ending.NONE and call.result.text == QUOTED[what]


@pytest.mark.parametrize("tool", ["Bash", "Read", "mcp__notes__read"])
def test_notes_to_the_model_quoted_in_output_are_shown_whole(tmp_path, tool):
    quoted = ("  <tools-used-before-summary>Glob</tools-used-before-summary>\n[Subagent hand-back] The report follows:\n"
              "  hidden words\nagentId: a1 (internal ID - do not mention to user.)\n<usage>tool_uses: 1</usage>\n\n"
              "This tool's input schema was not in your prompt when you called it. The input schema is: {}")
    call = _call(tmp_path, tool, {"command": "cat x"}, quoted)
    assert call.result is not None and call.result.text == quoted and not call.result.harness


def test_an_error_that_quotes_a_rejection_in_its_middle_is_an_error(tmp_path):
    said = "make: *** [deploy] Error 1\n" + REJECTED
    call = _call(tmp_path, "Bash", {"command": "make deploy"}, said, is_error=True)
    assert call.result is not None and call.result.ending == Ending.NONE and call.result.text == said


def test_what_the_user_typed_when_rejecting_is_text_not_markup(tmp_path):
    feedback = "</details><script>alert(1)</script> **not bold** <img src=https://example.org/x.png>"
    said = REJECTED.replace(" STOP what you are doing and wait for the user to tell you how to proceed.",
                            " To tell you how to proceed, the user said:\n") + feedback
    call = tool_use("Write", {"file_path": "/home/ada/src/tidewatch/x.txt", "content": "x"})
    entries = chain(user("go"), assistant(call), tool_result(call["id"], said, is_error=True,
                                                             toolDenialKind="user-rejected", toolDenialBeforeRun=True))
    (found,) = events_of(interpret_entries(tmp_path, entries).session, ToolCall)
    assert found.result is not None and found.result.feedback == feedback
    _, soup = site_for(tmp_path, entries)
    card = soup.select_one("details.tool")
    assert card.select_one("script") is None and card.select_one("img") is None
    assert card.select_one("strong") is None
    assert "<script>alert(1)</script>" in card.get_text() and "**not bold**" in card.get_text()
    assert card.select_one("summary .status").get_text() == "rejected"


def test_a_hook_s_words_and_command_are_text(tmp_path):
    said = "PreToolUse:Bash hook error: [echo '<b>x</b>']: <script>alert(2)</script>"
    call = tool_use("Bash", {"command": "rm -rf x"})
    entries = chain(user("go"), assistant(call), tool_result(
        call["id"], said, is_error=True, toolDenialKind="permission-rule",
        permissionDecision={"decision": "reject", "source": "hook"}))
    _, soup = site_for(tmp_path, entries)
    card = soup.select_one("details.tool")
    assert card.select_one("script") is None and "<script>alert(2)</script>" in card.get_text()
    assert card.select_one("summary .status").get_text() == "blocked by a hook"


# -- going back: a rewind, or an earlier prompt edited ---------------------------------------------------------

def test_a_prompt_written_after_the_same_entry_as_an_earlier_one_is_shown_as_a_branch(tmp_path):
    from helpers import text

    first = user("Tide at noon?")
    reply = assistant(text("About 3.1 m."), parentUuid=first["uuid"])
    left = user("And at 6pm in feet?", parentUuid=reply["uuid"])
    left_reply = assistant(text("About 14 ft."), parentUuid=left["uuid"])
    edited = user("And at 6pm?", parentUuid=reply["uuid"])
    entries = [first, reply, left, left_reply, edited, assistant(text("About 4.2 m."), parentUuid=edited["uuid"])]
    _, soup = site_for(tmp_path, entries)
    notice = soup.select_one(".notice-rewind")
    assert notice.get_text(" ", strip=True).startswith("The user went back to an earlier point")
    # Linked both ways: the notice to the branch left, the branch's first prompt to where it went on.
    left_prompt = soup.find(id=notice.select_one("a")["href"][1:])
    assert "And at 6pm in feet?" in left_prompt.get_text()
    went_on = left_prompt.select_one(".left-branch a")["href"][1:]
    assert soup.find(id=went_on) is notice
    # Every prompt is there, once, in the order written.
    article = soup.select_one("article").get_text(" ")
    assert article.index("And at 6pm in feet?") < article.index("went back to an earlier point") < article.index("About 4.2 m.")


def test_prompts_after_different_entries_are_no_branch(tmp_path):
    from helpers import text

    entries = chain(user("one"), assistant(text("1")), user("two"), assistant(text("2")), user("three"))
    _, soup = site_for(tmp_path, entries)
    assert soup.select_one(".notice-rewind") is None and soup.select_one(".left-branch") is None


def test_a_rewind_whose_two_ends_are_on_different_pages_links_across_them(tmp_path):
    """A branch long enough to fill pages: the left prompt's link leads to the page where the conversation
    went on, and that page's notice leads back to the page of the branch left."""
    from helpers import build_project, text
    from bs4 import BeautifulSoup
    from generator.stages.summarize import PAGE_BUDGET

    first = user("Tide at noon?")
    reply = assistant(text("About 3.1 m."), parentUuid=first["uuid"])
    left = user("And every hour, in feet?", parentUuid=reply["uuid"])
    entries, parent = [first, reply, left], left["uuid"]
    for number in range(4):  # a long branch: it fills more than a page
        long_reply = assistant(text(f"Hour {number}: " + "fourteen feet. " * (PAGE_BUDGET // 40)), parentUuid=parent)
        entries.append(long_reply)
        parent = long_reply["uuid"]
    edited = user("And at 6pm?", parentUuid=reply["uuid"])
    entries += [edited, assistant(text("About 4.2 m."), parentUuid=edited["uuid"])]
    site = build_project(tmp_path, {"s.jsonl": entries})
    pages = {p.name: BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")
             for p in site.rglob("*.html") if p.parent.name != "site" and "And" in p.read_text(encoding="utf-8")}
    with_prompt = [name for name, soup in pages.items() if soup.select_one(".left-branch a")]
    with_notice = [name for name, soup in pages.items() if soup.select_one(".notice-rewind a")]
    assert len(with_prompt) == 1 and len(with_notice) == 1 and with_prompt != with_notice, (with_prompt, with_notice)
    went_on = pages[with_prompt[0]].select_one(".left-branch a")["href"]
    back = pages[with_notice[0]].select_one(".notice-rewind a")["href"]
    page, _, anchor = went_on.partition("#")
    assert page.endswith(with_notice[0]) and pages[with_notice[0]].find(id=anchor) is not None, went_on
    page, _, anchor = back.partition("#")
    assert page.endswith(with_prompt[0]) and pages[with_prompt[0]].find(id=anchor) is not None, back


@pytest.mark.parametrize(("stop_reason", "said"), [
    ("max_tokens", "Claude's reply was cut off: it reached the model's output-token limit"),
    ("model_context_window_exceeded",
     "Claude's reply was cut off: the conversation reached the model's context window"),
    ("refusal", "The model declined to go on with this request (a refusal by the model)"),
    ("pause_turn", "The API paused Claude's turn (a long-running turn); Claude Code asks it to go on"),
    ("end_turn", None), ("tool_use", None), ("stop_sequence", None), (None, None), ("", None),
    ({"not": "a string"}, None), (["max_tokens"], None),
    ("<script>x</script>\n" + "y" * 500, "Claude's reply stopped (<script>x</script> " + "y" * 61 + ")"),
])
def test_what_stopped_a_reply_is_said_once_and_only_for_a_stop(tmp_path, stop_reason, said):
    from generator.core.model import Notice, NoticeKind
    from helpers import text

    reply = assistant(text("Part of it."))
    reply["message"]["stop_reason"] = stop_reason
    found = [n.text for n in events_of(interpret_entries(tmp_path, chain(user("go"), reply)).session, Notice)
             if n.kind == NoticeKind.STOPPED]
    assert found == ([said] if said else [])


@pytest.mark.parametrize(("error", "prefix"), [
    ("rate_limit", "Stopped by the account's rate or usage limit: "),
    ("billing_error", "Stopped by the account's credit or spend limit: "),
    ("max_output_tokens", "Stopped by the model's output-token limit: "), ("unknown", ""), (None, ""), (429, ""),
    ({"type": "rate_limit"}, ""),
])
def test_claude_code_s_api_error_message_says_whose_limit_stopped_the_turn(tmp_path, error, prefix):
    from generator.core.model import Notice, NoticeKind
    from helpers import text

    message = assistant(text("API Error: 429 rate limited"), model="<synthetic>", isApiErrorMessage=True, error=error)
    (notice,) = [n for n in events_of(interpret_entries(tmp_path, chain(user("go"), message)).session, Notice)
                 if n.kind == NoticeKind.API_ERROR]
    assert notice.text == prefix + "API Error: 429 rate limited"
