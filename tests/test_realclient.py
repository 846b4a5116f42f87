"""Logs written by the real Claude Code CLI (tests/fixtures/realclient/, made by tests/realclient/generate.py
against a scripted API) build into pages a person can read: every prompt, reply and tool call is there, no
entry is shown raw as "Unrecognised", and nothing Claude Code sent to the model (its system prompt, its tool
schemas, the memory files and environment of its request records) reaches any published file, even with
--show-hidden.
"""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.build import BuildConfig, BuildReport, build
from generator.core.model import Usage
from generator.render.stats import price_table
from generator.cli import main
from conftest import pinned_claude_code
from helpers import write_jsonl

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "realclient"))

import generate  # noqa: E402
import measure_prices  # noqa: E402
from api_stub import DEFAULT_MODEL  # noqa: E402
from scenarios import SCENARIOS, Scenario  # noqa: E402

FIXTURES = HERE / "fixtures" / "realclient"
BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
# Fields of new Claude Code entries that are harmless and expected: the report must not call them new.
# Tools whose cards only repeat what the page already shows (Claude reading back its task list): kept for
# --show-hidden.
QUIET_TOOLS = frozenset({"TaskList", "TaskGet"})
HARMLESS_NEW_FIELDS = ("attributionAgent", "errorDetails", "promptId", "origin", "entrypoint", "requestedModel",
                       "effort", "madeBy", "turnOrigin", "promptSource")


INLINE_TAGS = frozenset({"a", "abbr", "b", "code", "em", "i", "kbd", "mark", "q", "s", "small", "span", "strong",
                         "sub", "sup", "time", "u", "var", "wbr"})


class _VisibleText(HTMLParser):
    """The words a reader sees: text outside <script>, <style> and <template>."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template"):
            self._skipping += 1
        elif tag not in INLINE_TAGS:
            self.words.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template") and self._skipping:
            self._skipping -= 1
        elif tag not in INLINE_TAGS:
            self.words.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.words.append(data)


def visible_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    return " ".join("".join(parser.words).split())


def as_read(markdown: str) -> str:
    """Markdown's words as a page shows them: no emphasis marks, heading hashes or list bullets."""
    words = re.sub(r"^\s*(?:#+|[-*]|\d+\.)\s+", "", markdown.replace("**", ""), flags=re.M)
    return " ".join(words.split())


def every_file_text(folder: Path) -> str:
    """All the text of every file a build wrote (pages, Markdown, search index, manifest, attachments)."""
    return "\n".join(path.read_bytes().decode("utf-8", "replace") for path in sorted(folder.rglob("*"))
                     if path.is_file())


def session_pages(site: Path) -> list[Path]:
    return sorted(p for p in (site / "projects").rglob("*.html") if p.name != "index.html")


def leak_probes(fixture: Path) -> list[str]:
    sent = json.loads((fixture / "sent.json").read_text(encoding="utf-8"))
    probes = sent["system_prompt"] + sent["tool_schemas"]
    assert len(sent["system_prompt"]) >= 5 and len(sent["tool_schemas"]) >= 5, f"{fixture}/sent.json is too thin"
    return probes


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, tuple[Path, BuildReport]]:
    """Each fixture built once, as a user would build it (default options)."""
    sites = {}
    for scenario in SCENARIOS:
        out = tmp_path_factory.mktemp(scenario.name) / "site"
        sites[scenario.name] = (out, build(BuildConfig(inputs=(FIXTURES / scenario.name / "projects",), output=out)))
    return sites


def test_there_is_a_fixture_for_every_scenario_and_of_the_pinned_version():
    for scenario in SCENARIOS:
        fixture = FIXTURES / scenario.name
        assert list((fixture / "projects").rglob("*.jsonl")), f"{fixture}: no logs (run tests/realclient/generate.py)"
        sent = json.loads((fixture / "sent.json").read_text(encoding="utf-8"))
        assert sent["version"] == generate.PINNED_VERSION, f"{fixture} was made by Claude Code {sent['version']}"


def test_fixtures_hold_no_path_of_the_machine_that_made_them():
    for path in FIXTURES.rglob("*"):
        if path.is_file():
            words = path.read_text(encoding="utf-8")
            assert not re.search(r"/tmp/realclient-|/root\b|/home/(?!ada\b)\w+", words), path
            assert set(re.findall(r"\bLinux \d[^\s\"\\]*", words)) <= {"Linux 6.8.0-generic"}, path
            assert "/home/" not in str(path.relative_to(FIXTURES)), path


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_no_entry_is_shown_raw_and_no_request_record_is_published(built, name):
    site, _ = built[name]
    for page in session_pages(site):
        html = page.read_text(encoding="utf-8")
        assert "Unrecognised" not in visible_text(html), f"{name}: {page.name} shows an entry raw"
        assert 'class="unknown"' not in html, f"{name}: {page.name}"
    for page in site.rglob("*.md"):
        assert "Unrecognised" not in page.read_text(encoding="utf-8"), page
    # Nor is any record of a request to the model, under any of its names.
    assert not re.search(r"api-request|prompt_snapshot|systemPrompt", every_file_text(site)), name


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_the_report_lists_nothing_of_the_pinned_version_as_unknown(built, name):
    _, report = built[name]
    assert dict(report.unknown) == {}, f"{name}: the report calls these new: {dict(report.unknown)}"


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_nothing_claude_code_sent_to_the_model_is_published(built, name):
    site, _ = built[name]
    everything = every_file_text(site)
    for probe in leak_probes(FIXTURES / name):
        assert probe not in everything, f"{name}: the site shows what Claude Code sent the model: {probe[:80]!r}"


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_prompts_replies_and_tool_calls_are_on_the_page(built, name):
    site, _ = built[name]
    scenario: Scenario = BY_NAME[name]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    for words in scenario.prompts():
        assert " ".join(words.split()) in page, f"{name}: the prompt {words!r} is not on the page"
    for words in scenario.replies_text():
        shown = as_read(words)
        assert shown in page, f"{name}: the reply {shown!r} is not on the page"
    for call in scenario.tool_calls():
        if call["name"] in QUIET_TOOLS:
            continue
        shown_as = {"ExitPlanMode": "Plan"}.get(call["name"], call["name"])
        assert shown_as in page, f"{name}: no {call['name']} call on the page"
        for value in call["input"].values():
            if isinstance(value, str) and "\n" not in value and len(value) < 80 and not re.search(r"@[A-Z_]+@", value.replace("@PROJECT@", "")):
                # A path in the project may be shown relative to it.
                assert value.replace("@PROJECT@/", "") in page, f"{name}: {value!r} not shown"


def test_claude_reading_back_its_task_list_is_shown_only_with_show_hidden(built, tmp_path):
    site, _ = built["deferred-tools"]
    assert not [card for card in _card_names(_conversation_soup(site)) if card in QUIET_TOOLS]
    shown = tmp_path / "shown"
    build(BuildConfig(inputs=(FIXTURES / "deferred-tools" / "projects",), output=shown, show_hidden=True))
    assert {"TaskList", "TaskGet"} <= set(_card_names(_conversation_soup(shown)))


def test_api_errors_are_shown_as_errors(built):
    site, _ = built["api-error"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "529" in page and "500" in page


def test_a_hidden_build_publishes_no_request_record(tmp_path):
    """--show-hidden shows bookkeeping, but never what was sent to the model: not in the pages, the
    Markdown, the search index, the manifest, or a bundle."""
    site = tmp_path / "site"
    inputs = tuple(FIXTURES / name / "projects" for name in sorted(BY_NAME))
    build(BuildConfig(inputs=inputs, output=site, show_hidden=True))
    bundle = tmp_path / "bundle.md"
    logs = [str(log) for folder in inputs for log in sorted(folder.glob("*/*.jsonl"))]
    result = CliRunner().invoke(main, ["bundle", *logs, "-o", str(bundle), "--show-hidden",
                                       "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    everything = every_file_text(site) + bundle.read_text(encoding="utf-8")
    for name in BY_NAME:
        for probe in leak_probes(FIXTURES / name):
            assert probe not in everything, f"{name}: --show-hidden published {probe[:80]!r}"


# -- what is new: a policy, not a list -------------------------------------------------------------------

# Each ends in a marker that is not hexadecimal, so that no digest in the build's own files can hold it.
SYSTEM_WORDS = "You are Tidebot, the secret operator persona qx7k"
SCHEMA_WORDS = "Schema text only the model should read wv9z"
MEMORY_WORDS = "CLAUDE.md says the staging password hint is jy2p"


def _envelope(kind: str, **fields: object) -> dict:
    return {"type": kind, "sessionId": "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b", "timestamp": "2026-11-20T10:00:00.000Z",
            **fields}


def request_records() -> list[dict]:
    """Records of what was sent to the model, as today's Claude Code writes them and as a later one might."""
    schema = {"name": "Bash", "description": SCHEMA_WORDS, "input_schema": {"type": "object"}}
    return [
        _envelope("api-request-shape", shape={"system": [{"type": "text", "text": SYSTEM_WORDS}], "tools": [schema]}),
        _envelope("api-request-blob", message={"role": "system", "content": [{"type": "text", "text": MEMORY_WORDS}]}),
        _envelope("api-request", params={"model": "claude-opus-5-5", "system": SYSTEM_WORDS}),
        # Types no version writes yet: the same content under new names must be kept out as well.
        _envelope("api-request-replay", body={"messages": [{"role": "user", "content": MEMORY_WORDS}]}),
        _envelope("request-snapshot", request={"system": [{"type": "text", "text": SYSTEM_WORDS}],
                                               "tools": [schema]}),
        _envelope("model-context", systemPrompt=[SYSTEM_WORDS], memoryFiles=[{"path": "CLAUDE.md",
                                                                             "content": MEMORY_WORDS}]),
        {"type": "attachment", "attachment": {"type": "prompt_snapshot", "systemPrompt": [SYSTEM_WORDS]},
         "uuid": "00000000-0000-4000-8000-0000000000a1", "timestamp": "2026-11-20T10:00:01.000Z",
         "sessionId": "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b"},
    ]


def _conversation() -> list[dict]:
    base = {"sessionId": "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b", "cwd": "/home/ada/tidewatch", "version": "2.1.332",
            "isSidechain": False, "userType": "external"}
    return [
        {**base, "type": "user", "uuid": "00000000-0000-4000-8000-000000000001", "parentUuid": None,
         "timestamp": "2026-11-20T10:00:00.000Z", "message": {"role": "user", "content": "When is high water?"}},
        {**base, "type": "assistant", "uuid": "00000000-0000-4000-8000-000000000002",
         "parentUuid": "00000000-0000-4000-8000-000000000001", "timestamp": "2026-11-20T10:00:02.000Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-5-5",
                     "content": [{"type": "text", "text": "At 06:12."}]}},
    ]


def test_request_records_are_never_published_even_with_show_hidden(tmp_path):
    conversation = _conversation()
    # A part of a new kind inside a message, carrying the request it answered.
    conversation[1]["message"]["content"].append({"type": "request_echo", "system": [{"text": SYSTEM_WORDS}]})
    log = write_jsonl(tmp_path / "projects" / "-home-ada-tidewatch" / "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl",
                      [*conversation[:1], *request_records(), *conversation[1:]])
    site = tmp_path / "site"
    report = build(BuildConfig(inputs=(log.parent,), output=site, show_hidden=True))
    bundle = tmp_path / "bundle.html"
    result = CliRunner().invoke(main, ["bundle", str(log), "-o", str(bundle), "--show-hidden", "--no-vault",
                                       "-j", "1"])
    assert result.exit_code == 0, result.output
    everything = every_file_text(site) + bundle.read_text(encoding="utf-8")
    assert "At 06:12." in everything
    for secret in (SYSTEM_WORDS, SCHEMA_WORDS, MEMORY_WORDS, "qx7k", "wv9z", "jy2p"):
        assert secret not in everything
    # Really new types are still counted, so that the report says a new version wrote something new.
    assert {"type:request-snapshot", "type:model-context", "type:api-request-replay",
            "part:request_echo"} <= set(report.unknown)


def test_a_new_bookkeeping_type_is_hidden_by_default_and_counted(tmp_path):
    log = write_jsonl(tmp_path / "p" / "-home-ada-tidewatch" / "s.jsonl",
                      [*_conversation(), _envelope("tide-state", level="rising ku4w")])
    site = tmp_path / "site"
    report = build(BuildConfig(inputs=(log.parent,), output=site))
    assert "ku4w" not in every_file_text(site)
    assert report.unknown.get("type:tide-state") == 1
    shown = tmp_path / "shown"
    build(BuildConfig(inputs=(log.parent,), output=shown, show_hidden=True))
    assert "rising ku4w" in " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(shown))


def test_harmless_new_fields_are_not_reported_as_unknown(tmp_path):
    entries = _conversation()
    for entry in entries:
        entry.update({name: "x" for name in HARMLESS_NEW_FIELDS})
    log = write_jsonl(tmp_path / "p" / "-home-ada-tidewatch" / "s.jsonl", entries)
    report = build(BuildConfig(inputs=(log.parent,), output=tmp_path / "site"))
    assert not [name for name in report.unknown if name.startswith("field:")], dict(report.unknown)


# -- the real CLI, end to end -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_claude(tmp_path_factory) -> Path:
    """The pinned Claude Code, installed from a pre-filled npm cache (no network)."""
    return pinned_claude_code(tmp_path_factory)


@pytest.mark.slow
def test_the_real_cli_writes_logs_that_build_clean(real_claude, tmp_path):
    """Runs a scenario through the real CLI against the stub, and builds what it wrote."""
    executable = real_claude
    fixture = tmp_path / "fixture"
    generate.run_scenario(BY_NAME["tools"], executable, generate.PINNED_VERSION, fixture)
    written = every_file_text(fixture)
    assert "/home/ada/tidewatch" in written and str(tmp_path) not in written and "/tmp/realclient-" not in written
    assert set(re.findall(r"\bLinux \d[^\s\"\\]*", written)) <= {"Linux 6.8.0-generic"}
    site = tmp_path / "site"
    report = build(BuildConfig(inputs=(fixture / "projects",), output=site))
    assert dict(report.unknown) == {}
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "Unrecognised" not in page
    assert BY_NAME["tools"].prompts()[0] in page
    everything = every_file_text(site)
    for probe in leak_probes(fixture):
        assert probe not in everything


# -- what today's logs give ------------------------------------------------------------------------------

def _cost_states(fixture: Path) -> list[dict]:
    return [json.loads(line) for log in sorted((fixture / "projects").glob("*/*.jsonl"))
            for line in log.read_text(encoding="utf-8").splitlines() if '"type":"cost-state"' in line]


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_the_price_table_gives_the_cost_claude_code_reported(name):
    """For each model of each fixture, the tokens Claude Code counted in its `cost-state`, priced with
    prices.json, cost what Claude Code said they cost."""
    states = _cost_states(FIXTURES / name)
    assert states, f"{name}: no cost-state"
    table = price_table()
    for model, figures in states[-1]["modelUsage"].items():
        usage = Usage(input_tokens=figures["inputTokens"], output_tokens=figures["outputTokens"],
                      cache_read_tokens=figures["cacheReadInputTokens"],
                      cache_creation_tokens=figures["cacheCreationInputTokens"],
                      cache_creation_1h_tokens=figures["cacheCreationEphemeral1hInputTokens"])
        assert table.cost(model, usage) == pytest.approx(figures["costUSD"], abs=1e-9), f"{name}: {model}"


def test_a_session_of_today_s_default_model_shows_the_cost_claude_code_charged(built):
    site, _ = built["tools"]
    dollars = _cost_states(FIXTURES / "tools")[-1]["totalCostUSD"]
    assert dollars >= 0.01, "the fixture's cost is too small to tell apart from a rounding"
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert f"Estimated cost ${dollars:,.2f}" in page
    assert "no price is known for" not in page and "as Claude Code reported it" not in page


@pytest.mark.slow
def test_the_price_table_is_what_the_real_cli_charges(real_claude):
    """measure_prices.py's method, for the CLI's default model: each kind of token apart, read back from the
    cost-state Claude Code writes."""
    measured = measure_prices.price_per_million(real_claude, DEFAULT_MODEL)
    assert measured == dict(price_table().price_of(DEFAULT_MODEL) or {})
    assert DEFAULT_MODEL in measure_prices.known_models(real_claude)


def _reported_log(tmp_path: Path, model: str, **cost_state: object) -> Path:
    entries = _conversation()
    entries[1]["message"]["model"] = model
    entries[1]["message"]["usage"] = {"input_tokens": 1000, "output_tokens": 100}
    entries.append(_envelope("cost-state", **cost_state))
    return write_jsonl(tmp_path / "p" / "-home-ada-tidewatch" / "s.jsonl", entries)


def test_the_cost_claude_code_reported_is_shown_for_a_model_with_no_price(tmp_path):
    log = _reported_log(tmp_path, "claude-tide-9", totalCostUSD=1.25, hasUnknownModelCost=False,
                        modelUsage={"claude-tide-9": {"inputTokens": 1000, "outputTokens": 100, "costUSD": 1.25}})
    build(BuildConfig(inputs=(log.parent,), output=tmp_path / "site"))
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(tmp_path / "site"))
    assert "Estimated cost $1.25 as Claude Code reported it" in page
    assert "the cost is as Claude Code reported it" in page
    assert "no price is known for claude-tide-9" not in page


def test_a_cost_claude_code_only_guessed_is_not_shown_as_reported(tmp_path):
    """Claude Code prices a model it does not know at a default and flags it (`hasUnknownModelCost`): that
    figure is its guess, not a cost."""
    log = _reported_log(tmp_path, "claude-tide-9", totalCostUSD=0.0045, hasUnknownModelCost=True,
                        modelUsage={"claude-tide-9": {"inputTokens": 1000, "outputTokens": 100, "costUSD": 0.0045}})
    build(BuildConfig(inputs=(log.parent,), output=tmp_path / "site"))
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(tmp_path / "site"))
    assert "as Claude Code reported it" not in page and "$0.0045" not in page
    assert "no price is known for claude-tide-9" in page


def test_a_reported_cost_that_is_not_a_number_is_ignored(tmp_path):
    entries = [*_conversation(), _envelope("cost-state", totalCostUSD="12", modelUsage={
        "claude-opus-5-5": {"costUSD": float("nan")}, "other": {"costUSD": True}})]
    log = write_jsonl(tmp_path / "p" / "-home-ada-tidewatch" / "s.jsonl", entries)
    report = build(BuildConfig(inputs=(log.parent,), output=tmp_path / "site"))
    assert "type:cost-state" not in report.unknown
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(tmp_path / "site"))
    assert "as Claude Code reported it" not in page and "$12" not in page


def test_a_background_agent_s_notification_reads_as_words_not_tags(built):
    site, _ = built["background-agent"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "completed" in page
    assert "<tool_uses>" not in page and "tool uses 1" in page


def test_files_claude_code_gives_back_after_a_compaction_are_not_said_to_be_sent_with_a_prompt(built):
    site, _ = built["compact"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "Sent with the prompt" not in page


def test_a_file_named_with_at_is_said_to_be_sent_with_the_prompt(built):
    site, _ = built["attached-file"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "Sent with the prompt: NOTES.txt" in page
    assert "harbour-notes.txt" in page and "Pilot boards at the Gurnard buoy." in page


def _calls_log(tmp_path: Path, calls: list[tuple[str, dict, str]]) -> Path:
    base = {"sessionId": "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b", "cwd": "/home/ada/tidewatch", "version": "2.1.332",
            "isSidechain": False, "userType": "external"}
    entries, parent = list(_conversation()[:1]), "00000000-0000-4000-8000-000000000001"
    for number, (name, tool_input, result) in enumerate(calls, start=1):
        use, done = f"00000000-0000-4000-8000-1{number:011d}", f"00000000-0000-4000-8000-2{number:011d}"
        entries.append({**base, "type": "assistant", "uuid": use, "parentUuid": parent,
                        "timestamp": f"2026-11-20T10:01:{number:02d}.000Z",
                        "message": {"id": f"msg_{number}", "role": "assistant", "model": "claude-opus-5-5",
                                    "content": [{"type": "tool_use", "id": f"toolu_{number}", "name": name,
                                                 "input": tool_input}]}})
        entries.append({**base, "type": "user", "uuid": done, "parentUuid": use,
                        "timestamp": f"2026-11-20T10:01:{number:02d}.500Z",
                        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{number}",
                                                                 "content": result}]}})
        parent = done
    return write_jsonl(tmp_path / "p" / "-home-ada-tidewatch" / "s.jsonl", entries)


def test_a_title_given_with_rename_is_the_session_s_title(built):
    site, _ = built["continue-resume"]
    pages = [p.read_text(encoding="utf-8") for p in session_pages(site)]
    assert any("<title>Tide questions" in html for html in pages)


def test_a_plan_rejected_then_approved_reads_so(built):
    site, _ = built["plan-mode"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert page.count("Fix the tide formula") == 2
    assert "rejected by the user" in page and "approved by the user" in page
    assert "pending" not in page


def test_a_hook_s_output_claude_was_given_is_shown_and_its_chatter_is_hidden(built, tmp_path):
    site, _ = built["hooks"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "UserPromptSubmit hook: Tide tables were last refreshed on Monday" in page
    assert "Harbour log updated" not in page
    shown = tmp_path / "shown"
    build(BuildConfig(inputs=(FIXTURES / "hooks" / "projects",), output=shown, show_hidden=True))
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(shown))
    assert "Harbour log updated" in page


def test_claude_code_s_own_error_messages_are_no_model_of_the_session(built):
    site, _ = built["api-error"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "unknown 0 in" not in page and "<synthetic>" not in page


class _Paragraphs(HTMLParser):
    """The text of each <p> of a page, outside <pre>."""

    def __init__(self) -> None:
        super().__init__()
        self.paragraphs: list[str] = []
        self._in_p = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p":
            self._in_p = True
            self.paragraphs.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self._in_p = False

    def handle_data(self, data: str) -> None:
        if self._in_p:
            self.paragraphs[-1] += data


def test_a_new_kind_of_message_part_is_shown_as_words_with_its_type_named(tmp_path):
    entries = _conversation()
    entries[1]["message"]["content"].append({"type": "citation_list", "id": "cit_1", "citations": [
        {"title": "Admiralty tide tables", "text": "Penzance high water 06:12"}]})
    log = write_jsonl(tmp_path / "p" / "-home-ada-tidewatch" / "s.jsonl", entries)
    site = tmp_path / "site"
    report = build(BuildConfig(inputs=(log.parent,), output=site))
    assert report.unknown.get("part:citation_list") == 1
    html = "".join(p.read_text(encoding="utf-8") for p in session_pages(site))
    assert "Unrecognised" not in visible_text(html)
    assert "citation_list" in visible_text(html)
    parser = _Paragraphs()
    parser.feed(html)
    assert any("Penzance high water 06:12" in paragraph for paragraph in parser.paragraphs), "shown only as JSON"


def test_a_refused_todo_list_says_why(built):
    site, _ = built["tools"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "TodoWrite is disabled for this session" in page


def test_a_background_agent_s_launch_shows_no_instructions_meant_for_the_model(built):
    site, _ = built["background-agent"]
    page = " ".join(visible_text(p.read_text(encoding="utf-8")) for p in session_pages(site))
    assert "Started in the background" in page
    assert "internal metadata" not in page and "do not mention to user" not in page


# -- agent teams, titles and background reports, from the real CLI's logs ----------------------------------

def _pages(site: Path) -> dict[str, BeautifulSoup]:
    """The conversation pages (a session's, a subagent's), by path."""
    return {str(p.relative_to(site)): BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")
            for p in session_pages(site) if p.name not in ("commits.html", "files.html")}


def _card_names(soup: BeautifulSoup) -> list[str]:
    return [name.get_text(strip=True) for name in soup.select("details.tool .tool-name")]


def _card(soup: BeautifulSoup, name: str):
    for card in soup.select("details.tool"):
        if card.select_one(".tool-name") and card.select_one(".tool-name").get_text(strip=True) == name:
            return card
    raise AssertionError(f"no {name!r} card")


def test_a_message_to_a_team_agent_is_a_card_naming_it_linked_to_its_page(built):
    site, _ = built["agent-team"]
    pages = _pages(site)
    main_page = next(path for path in pages if "/agent-" not in path)
    card = _card(pages[main_page], "Message to tide-reader")
    assert card.select_one("summary code").get_text() == "Port to check"
    assert [li.get_text() for li in card.select("li")] == ["read NOTES.txt", "report high water"]
    assert card.select_one("strong").get_text() == "Penzance"
    # The answer Claude Code gave the model reads as a sentence, not as JSON.
    words = " ".join(card.get_text(" ").split())
    assert "Message queued for delivery to tide-reader" in words and '"success"' not in words
    # Linked to the page of the agent it went to, which shows the message it received.
    links = [a["href"] for a in card.select("a[href]") if "agent-" in a["href"]]
    assert len(links) == 1
    target = (site / main_page).parent / links[0].split("#")[0]
    assert target.is_file() and target.name.startswith("agent-")
    received = " ".join(BeautifulSoup(target.read_text(encoding="utf-8"), "html.parser").get_text(" ").split())
    assert "Check Penzance first." in received and "report high water" in received


def test_a_session_claude_code_named_takes_that_name(built):
    site, _ = built["ai-title"]
    [page] = _pages(site).values()
    title = page.title.get_text()
    assert title.startswith("Tide height formula")
    assert '"aiTitle":"Tide height formula"' in every_file_text(FIXTURES / "ai-title")


@pytest.mark.parametrize("name", ["agent-team", "background-agent"])
def test_a_background_agent_s_report_reads_as_markdown(built, name):
    """The report in a `<task-notification>` keeps its headings, lines and lists on the page."""
    site, _ = built[name]
    soup = next(s for path, s in _pages(site).items() if "/agent-" not in path)
    notice = soup.select_one(".notice-task-notification")
    report = notice.parent
    assert not report.select("code:-soup-contains('Penzance')"), "the report is shown as code"
    if name == "agent-team":
        assert report.select_one("h3").get_text() == "Penzance"
        assert [li.get_text() for li in report.select("li")] == ["high water at 06:12", "low water at 12:25"]
    else:
        assert report.select_one("strong").get_text() == "Penzance"


def _sent(tmp_path: Path, message: object, result: str, is_error: bool = False) -> BeautifulSoup:
    log = _calls_log(tmp_path, [("SendMessage", {"to": "tide-reader", "message": message}, result)])
    if is_error:
        entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        entries[-1]["message"]["content"][0]["is_error"] = True
        write_jsonl(log, entries)
    build(BuildConfig(inputs=(log.parent,), output=tmp_path / "site"))
    [page] = _pages(tmp_path / "site").values()
    return page


def test_a_request_between_team_agents_reads_as_words(tmp_path):
    card = _card(_sent(tmp_path, {"type": "shutdown_request", "reason": "The tides are all read."},
                       '{"success":true,"message":"Shutdown request sent to tide-reader. Wait for its answer."}'),
                 "Message to tide-reader")
    words = " ".join(card.get_text(" ").split())
    assert "Asks the agent to shut down. The tides are all read." in words
    assert "Shutdown request sent to tide-reader." in words
    assert "shutdown_request" not in words and "Wait for its answer" not in words


def test_a_message_that_did_not_go_says_so(tmp_path):
    card = _card(_sent(tmp_path, "Check Penzance", '{"success":false,"message":"No agent named tide-reader."}'),
                 "Message to tide-reader")
    assert [p.get_text() for p in card.select("p.label")][-1] == "Error"
    assert "No agent named tide-reader." in card.get_text()


def test_a_message_s_markup_and_claude_code_s_answer_are_text_not_html(tmp_path):
    soup = _sent(tmp_path, 'Hi <img src=x onerror="alert(1)"> <script>alert(2)</script>',
                 '{"success":true,"message":"Sent <script>alert(3)</script>. Done."}')
    card = _card(soup, "Message to tide-reader")
    assert not card.select("img, script") and not soup.select("[onerror]")
    assert "<script>alert(3)</script>" in card.get_text()


def _conversation_soup(site: Path) -> BeautifulSoup:
    [page] = [soup for path, soup in _pages(site).items() if "/agent-" not in path]
    return page


def test_a_plan_the_user_edited_before_approving_reads_so(built):
    site, _ = built["plan-edited"]
    page = " ".join(_conversation_soup(site).get_text(" ").split())
    assert "approved after your edits" in page
    # The plan as the user left it, not as Claude wrote it.
    assert "Add a doctest for Penzance" in page
    plan = _conversation_soup(site).select_one(".plan") or _conversation_soup(site)
    assert [li.get_text() for li in plan.select("li")][-2:] == ["Define cos_hour", "Add a doctest for Penzance"]


def test_a_pasted_image_is_on_the_page(built):
    site, _ = built["pasted-image"]
    soup = _conversation_soup(site)
    [page_path] = [path for path in _pages(site) if "/agent-" not in path]
    images = soup.select("img[src]")
    assert len(images) == 1
    image = (site / page_path).parent / images[0]["src"]
    assert image.read_bytes().startswith(b"\x89PNG")
    # Claude Code's note of where it kept the image is its own, not the user's.
    assert "/images/1.png" not in " ".join(soup.get_text(" ").split())


def test_the_other_kinds_of_tool_read_as_cards(built):
    site, _ = built["more-tools"]
    soup = _conversation_soup(site)
    search = _card(soup, "web_search")
    assert search.select_one("summary code").get_text() == "Penzance tide tables"
    assert "https://tides.example.org/penzance" in search.get_text() and '"query"' not in search.get_text()
    assert "replace cell c1" in " ".join(_card(soup, "NotebookEdit").get_text(" ").split())
    assert _card(soup, "Skill").select_one("summary code").get_text() == "tide-table"
    stop = _card(soup, "Stop task")
    assert "Successfully stopped task:" in stop.get_text() and "(sleep 600)" in stop.get_text()
    assert '"task_type"' not in stop.get_text()
    page = " ".join(soup.get_text(" ").split())
    assert 'Background command "Log the tide" completed (exit code 0)' in page
    # Reasoning kept only as its signature leaves a trace.
    assert "the text of its thinking was not kept" in page


def test_a_question_claude_asked_shows_the_user_s_choice(built):
    site, _ = built["ask-user"]
    card = _card(_conversation_soup(site), "Question")
    assert card.select_one("summary code").get_text() == "1 question, 1 answered"
    choices = {li.get_text(" ", strip=True).split(" ")[0]: "✓" in li.get_text() for li in card.select("li")}
    assert choices == {"Penzance": True, "Newlyn": False}
