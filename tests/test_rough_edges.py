"""Rough edges a newcomer meets (issue 31): addresses, messages and figures that must read as they should."""

from __future__ import annotations

import itertools
import re

import pytest

from generator.stages.summarize import QUIET_TOOLS

from generator.core import urls


# -- project addresses ---------------------------------------------------------------------------------------

PROJECT_NAMES = ["-home-ada-src-app", "~-src-app", "~7e-src-app", "~", "-~", "-", "", "--", "~~", "~-", "-~-",
                 "a~b", "~a", "~7e", "~2f", "a-~", "a-~-b", "private-tmp-claude-501-~-src", "~--claude",
                 "~home", "~p2", "-.", "..", "é~-x", "~" * 3 + "-", "x" * 250 + "~-", "~-" + "y" * 250]


def test_a_project_redacted_by_redact_paths_has_a_readable_address():
    assert urls.project_folder("~-napoli-matcha") == "projects/~-napoli-matcha"
    assert urls.project_folder("~") == "projects/~"
    assert urls.project_folder("-private-tmp-claude-501-~-src") == "projects/private-tmp-claude-501-~-src"


@pytest.mark.parametrize("name", PROJECT_NAMES)
def test_a_project_address_stays_inside_projects_and_safe(name):
    folder = urls.project_folder(name)
    assert folder.startswith("projects/") and folder.count("/") == 1
    assert re.fullmatch(r"[A-Za-z0-9._~-]{1,255}", folder.removeprefix("projects/"))
    assert not folder.removeprefix("projects/").startswith(".")


def test_no_two_project_names_share_an_address():
    names = set(PROJECT_NAMES) | {"".join(parts) for parts in itertools.product(["~", "-", "a", "7e", "/"], repeat=3)}
    # A folder name never holds `/`; Claude Code's name of `/` itself is `-`.
    names = {name for name in names if "/" not in name}
    folders: dict[str, str] = {}
    for name in sorted(names):
        # Names that only differ in the leading `-` Claude Code puts in front are one folder by design.
        key = name.removeprefix("-")
        folder = urls.project_folder(name)
        assert folders.setdefault(folder, key) == key, (folder, name, folders[folder])


# -- with no input and no ~/.claude/projects, each command suggests trying itself on the examples ----------

@pytest.mark.parametrize("command, suggested", [
    (["serve", "--no-vault"], "sessionsite serve examples"),
    (["audit"], "sessionsite audit examples"),
    (["build", "-o", "out", "--no-vault"], "sessionsite build examples -o demo"),
    (["markdown", "-o", "out", "--no-vault"], "sessionsite markdown examples -o demo"),
])
def test_a_command_with_no_logs_suggests_itself_on_the_examples(tmp_path, monkeypatch, command, suggested):
    from click.testing import CliRunner

    from generator.cli import main

    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, command)
    assert result.exit_code != 0
    assert f"to try it on the examples: {suggested}\n" in result.output


# -- the vault says where it keeps the raw logs, once per build ------------------------------------------------

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("command", [["build", "-o"], ["markdown", "-o"]])
def test_a_build_says_once_where_the_vault_keeps_the_raw_logs_and_how_to_stop_it(tmp_path, command):
    from click.testing import CliRunner

    from generator.cli import main

    vault = tmp_path / "my-vault"
    result = CliRunner().invoke(main, [command[0], str(EXAMPLES), *command[1:], str(tmp_path / "out"),
                                       "--vault", str(vault), "-j", "1"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if str(vault) in line]
    assert len(lines) == 1, result.output
    assert "secrets included" in lines[0] and "--no-vault" in lines[0]
    # Built again (nothing new to save), it still says so: the copies are there.
    again = CliRunner().invoke(main, [command[0], str(EXAMPLES), *command[1:], str(tmp_path / "out"),
                                      "--vault", str(vault), "-j", "1"])
    assert [line for line in again.output.splitlines() if str(vault) in line] == lines


def test_without_the_vault_or_quiet_no_line_about_it(tmp_path):
    from click.testing import CliRunner

    from generator.cli import main

    off = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "a"), "--no-vault", "-j", "1"])
    quiet = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "b"), "-q", "-j", "1",
                                      "--vault", str(tmp_path / "v")])
    assert off.exit_code == quiet.exit_code == 0
    assert "secrets included" not in off.output and "secrets included" not in quiet.output


# -- the side panel's Tools table counts every call the log holds ---------------------------------------------

def _calls_in_log(path) -> dict[str, int]:
    import json
    from collections import Counter

    seen: set[str] = set()
    counts: Counter[str] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if entry.get("type") != "assistant" or entry.get("isSidechain") or not isinstance(message, dict):
            continue
        for part in message.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "tool_use" and part.get("id") not in seen:
                seen.add(part["id"])
                counts[part["name"]] += 1
    return dict(counts)


def _tools_table(page) -> dict[str, int]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return {row.th.get_text(strip=True): int(row.td.get_text(strip=True).replace(",", ""))
            for row in soup.select("details.tools tbody tr")}


@pytest.mark.parametrize("log", sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/*.jsonl")
                                       if '"ExitPlanMode"' in p.read_text(encoding="utf-8")))
def test_the_tools_table_counts_exit_plan_mode_as_the_log_does(examples_site, log):
    path = EXAMPLES / log
    page = examples_site / urls.project_folder(path.parent.name) / f"{path.stem}.html"
    in_log = _calls_in_log(path)
    assert "ExitPlanMode" in in_log
    # Claude reading back its own task list has no card (but with --show-hidden), and is not counted.
    shown = {name: count for name, count in in_log.items() if name not in QUIET_TOOLS}
    assert _tools_table(page) == shown


# -- the reviewer's Markdown bundle: what it keeps, and figures that say what they count -----------------------

def _bundle_md(tmp_path, *paths, name="pr.md") -> str:
    from generator.bundle import BundleConfig, bundle

    bundle(BundleConfig(inputs=tuple(paths), output=tmp_path / name, jobs=1))
    return (tmp_path / name).read_text(encoding="utf-8")


def test_shell_commands_the_user_ran_stay_in_the_review(tmp_path):
    from helpers import assistant, chain, text, user, write_jsonl

    path = write_jsonl(tmp_path / "-home-ada-src-tidewatch" / "33333333-4444-4555-8666-777777777777.jsonl", chain(
        user("<bash-input>git log --oneline -3</bash-input>"),
        user("<bash-stdout>a1b2c3d fix the M2 phase\n9f8e7d6 wip harmonics\n0a1b2c3 add stations</bash-stdout>"
             "<bash-stderr></bash-stderr>"),
        user("squash the two commits above into one"),
        assistant(text("Squashed them: `a1b2c3d` now holds both.")),
    ))
    markdown = _bundle_md(tmp_path, path)
    body = markdown.split("\n---\n", 1)[1]
    assert "git log --oneline -3" in body and "9f8e7d6 wip harmonics" in body
    # Before the prompt that refers to it.
    assert body.index("git log --oneline -3") < body.index("**Prompt 1**")


def _page_facts(site) -> dict[str, dict[str, str]]:
    """Each session page's title and its facts (Tool calls, Estimated cost), by title."""
    from bs4 import BeautifulSoup

    found = {}
    for page in site.glob("projects/*/*.html"):
        if "~p" in page.name or page.name in ("index.html", "files.html", "commits.html"):
            continue
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        facts = {div.dt.get_text(strip=True): div.dd.contents[0].get_text(strip=True)
                 if hasattr(div.dd.contents[0], "get_text") else str(div.dd.contents[0]).strip()
                 for div in soup.select("dl div") if div.dt and div.dd and div.dd.contents}
        found[soup.h1.get_text(" ", strip=True)] = facts
    return found


def test_the_reviews_figures_say_what_the_subagent_runs_add_to_the_pages(examples_site, tmp_path):
    markdown = _bundle_md(tmp_path, EXAMPLES / "-home-ada-src-tidewatch" / "059a7ba6-3933-4216-8cac-684e019d3a14.jsonl")
    pages = _page_facts(examples_site)
    titles = [re.sub(r"^[A-Z][a-z ]+: ", "", title) for title in re.findall(r"^## \d+\. (.+)$", markdown, re.MULTILINE)]
    assert len(titles) == 2 and all(title in pages for title in titles), (titles, list(pages))
    calls = sum(int(pages[title]["Tool calls"].replace(",", "")) for title in titles)
    cost = sum(float(pages[title]["Estimated cost"].lstrip("$")) for title in titles)
    work = next(line for line in markdown.splitlines() if line.startswith("- **Work:**"))
    found = re.search(r"(\d+) tool calls \((\d+) in the sessions, (\d+) in the subagent run\)", work)
    assert found, work
    assert int(found[2]) == calls and int(found[1]) == calls + int(found[3]) and int(found[3]) > 0
    money = re.search(r"estimated cost \$([\d.]+) \(\$([\d.]+) in the sessions, \$([\d.]+) in the subagent run\)", work)
    assert money, work
    assert abs(float(money[2]) - cost) < 0.011


def test_the_command_counts_sessions_and_subagent_runs_as_the_file_does(tmp_path):
    from click.testing import CliRunner

    from generator.cli import main

    out = tmp_path / "pr.md"
    result = CliRunner().invoke(main, ["bundle", str(EXAMPLES / "-home-ada-src-tidewatch" /
                                                     "059a7ba6-3933-4216-8cac-684e019d3a14.jsonl"),
                                       "-o", str(out), "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    said = re.search(r"^(\d+ sessions? and \d+ subagent runs?) \(", result.output, re.MULTILINE)
    assert said, result.output
    assert f"- **Sessions:** {said[1].split(' and ')[0]} (" in out.read_text(encoding="utf-8")
    assert f" and {said[1].split(' and ')[1]}, " in out.read_text(encoding="utf-8")


def _long_work(folder, *, big_prompts: int, prompts: int, tools_per_turn: int, reply_chars: int):
    """A session whose first prompts paste a lot (as a person pastes a log), then many short turns, each
    with tool calls and a reply; the last reply is the outcome."""
    from helpers import assistant, chain, text, tool_result, tool_use, user, write_jsonl

    entries = []
    for number in range(prompts):
        pasted = ("Here is the log:\n\n" + "line of a pasted log that goes on\n" * 1300) if number < big_prompts else ""
        entries.append(user(f"Prompt {number}: fix station {number}. {pasted}"))
        for call in range(tools_per_turn):
            tool_id = f"toolu_{number}_{call}"
            entries += [assistant(tool_use("Bash", {"command": f"check --station {number} --step {call}"}, tool_id)),
                        tool_result(tool_id, "ok")]
        entries.append(assistant(text(f"Reply {number}: " + "fixed and checked. " * (reply_chars // 19) + "END")))
    entries.append(user("Prompt last: is everything done?"))
    entries.append(assistant(text("FINAL OUTCOME: all stations fixed, tests pass, nothing left to do.")))
    return write_jsonl(folder / "44444444-5555-4666-8777-888888888888.jsonl", chain(*entries))


def test_shortened_to_fit_the_review_keeps_every_turns_reply_and_the_outcome(tmp_path):
    from generator.bundle import github_length
    from generator.bundle.markdown import GITHUB_LIMIT

    path = _long_work(tmp_path / "-home-ada-src-tidewatch", big_prompts=3, prompts=30, tools_per_turn=9,
                      reply_chars=600)
    markdown = _bundle_md(tmp_path, path)
    assert github_length(markdown) <= GITHUB_LIMIT
    top = markdown.split("\n---\n", 1)[0]
    assert "Shortened to fit" in top
    note = top.partition("limit:**")[2].partition("\n")[0]
    assert not re.search(r"final repl\w* left out", note) and "turn" not in note, note
    for number in range(30):
        assert f"Prompt {number}: fix station {number}." in markdown
        assert f"Reply {number}: fixed and checked." in markdown
    assert "FINAL OUTCOME: all stations fixed, tests pass, nothing left to do." in markdown
    assert "Prompt last: is everything done?" in markdown


def test_tool_calls_are_given_up_from_the_middle_of_a_turn(tmp_path):
    path = _long_work(tmp_path / "-home-ada-src-tidewatch", big_prompts=0, prompts=40, tools_per_turn=40,
                      reply_chars=200)
    markdown = _bundle_md(tmp_path, path)
    top = markdown.split("\n---\n", 1)[0]
    assert re.search(r"[\d,]+ of 1,600 tool calls left out", top), top
    # Each turn keeps its first and its last call (the last is often the check that it worked).
    for number in range(40):
        assert f"check --station {number} --step 0`" in markdown
        assert f"check --station {number} --step 39`" in markdown
        assert f"check --station {number} --step 20`" not in markdown


CORPUS_LARGEST = ["Eduardodmb__ClaudeHome/projects.bak-20260511-072525/C--Users-eduar--claude/762cc180-ae9a-436f-9b2e-d6e7763bbb47.jsonl",
                  "Smartagent-so__Personal_AI_Infrastructure/dot-claude/projects/-Users-pretor-Documents-PAI---TPOS/d6a37ffc-384d-4d2a-832a-78cdd493af69.jsonl",
                  "Eduardodmb__ClaudeHome/projects.bak-20260511-072525/X--03-ACG-Custom-Addons/71b482a4-915a-4d69-80cb-04c122118ed3.jsonl",
                  "4thehalibit__omarchy-backup/dot-claude/projects/-home-vwestberg-Claude/1fb5e404-604d-4a2b-baf1-3beb42a67371.jsonl"]


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS_LARGEST)
def test_the_corpus_largest_sessions_keep_their_outcome_when_shortened(public_corpus, tmp_path, name):
    from generator.bundle import github_length
    from generator.bundle.markdown import GITHUB_LIMIT

    path = public_corpus / name
    if not path.is_file():
        pytest.fail(f"{path} is gone from the corpus: name another of its largest sessions here")
    markdown = _bundle_md(tmp_path, path)
    assert github_length(markdown) <= GITHUB_LIMIT
    note = markdown.split("\n---\n", 1)[0].partition("limit:**")[2].partition("\n")[0]
    assert not re.search(r"final repl\w* left out", note) and "turn" not in note, note
    # Every turn with a reply shows one.
    body = markdown.split("\n---\n", 1)[1]
    for turn in re.split(r"\n\*\*Prompt \d+\*\*", body)[1:]:
        assert "**Claude**" in turn or "tool call" not in turn, turn[:500]


def test_work_too_long_for_any_shortening_leaves_out_middle_turns_and_keeps_the_outcome(tmp_path):
    from generator.bundle import github_length
    from generator.bundle.markdown import GITHUB_LIMIT

    path = _long_work(tmp_path / "-home-ada-src-tidewatch", big_prompts=0, prompts=500, tools_per_turn=1,
                      reply_chars=300)
    markdown = _bundle_md(tmp_path, path)
    assert github_length(markdown) <= GITHUB_LIMIT
    note = markdown.split("\n---\n", 1)[0].partition("limit:**")[2].partition("\n")[0]
    assert re.search(r"[\d,]+ turns from the middle of the sessions left out", note), note
    assert "Prompt 0: fix station 0." in markdown and "Reply 0: fixed" in markdown
    assert "Prompt last: is everything done?" in markdown
    assert "FINAL OUTCOME: all stations fixed, tests pass, nothing left to do." in markdown
