"""A new kind of event needs its class, what makes it (an entry handler), its Markdown writer and its search
indexer, each registered through the public registries; nothing else in the build is taught about it. This
module adds one (a weather report, an entry type Claude Code does not write) without touching the package,
and checks that it shows on the page, in the .md, in the search index and in the JSON export. An event kind
nobody wrote a Markdown writer for is shown as an unknown entry is: never dropped, never a failed build."""

from __future__ import annotations

import json
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.core import urls
from generator.core.model import (AssistantText, BashMode, Event, EventBase, Notice, Plan, Prompt, SlashCommand,
                                  Thinking, ToolCall, Unknown, Unreadable)
from generator.json_export import export
from generator.render.markdown import SINGLE_EVENTS, SessionDocument
from generator.render.markdown.blocks import Block, Group, Prose
from generator.render.markdown.escape import html_text, prose
from generator.render.search import INDEXERS, Document
from generator.stages import interpret
from generator.stages.summarize import event_kind

from helpers import PROJECT_DIR, SESSION_ID, assistant, at, chain, new_uuid, text, user, write_jsonl
from test_search import found

FORECAST = "Squalls over the harbour by noon, then tidewatchdrizzle"


@dataclass(frozen=True, slots=True)
class WeatherReport(EventBase):
    """A forecast a hook wrote into the log (an entry type of this test's own)."""

    anchor: str
    timestamp: str
    forecast: str


@dataclass(frozen=True, slots=True)
class TideTable(EventBase):
    """An event kind that nobody wrote a Markdown writer or an indexer for."""

    anchor: str
    timestamp: str
    heights: tuple[float, ...]


def weather_entry(forecast: str) -> dict:
    return {"type": "weather-report", "uuid": new_uuid(), "timestamp": at(30), "sessionId": SESSION_ID,
            "forecast": forecast}


def tide_entry() -> dict:
    return {"type": "tide-table", "uuid": new_uuid(), "timestamp": at(40), "sessionId": SESSION_ID,
            "heights": [1.5, 4.25]}


def make_weather(builder, entry) -> None:
    data = entry.data
    builder.events.append(WeatherReport(builder._next_anchor(data.get("uuid")), builder._time(data), data["forecast"]))


def make_tides(builder, entry) -> None:
    data = entry.data
    builder.events.append(TideTable(builder._next_anchor(data.get("uuid")), builder._time(data),
                                    tuple(data["heights"])))


def write_weather(document: SessionDocument, event: WeatherReport) -> list[Block]:
    # Structural HTML of ours opens as `markup.STRUCTURAL_HTML` says (any other is shown as text).
    opening = f'<div class="weather" id="{html_text(event.anchor)}">'
    return [Group("weather", opening, (Prose(prose(event.forecast)),), "</div>", event.anchor,
                  (("time", event.timestamp),))]


def index_weather(group: Group, timestamp: str) -> Iterator[Document]:
    yield Document("output", group.anchor, timestamp,
                   " ".join(child.text for child in group.children if isinstance(child, Prose)))


@pytest.fixture
def registries(monkeypatch):
    """The new kinds registered as a package would register them; gone again after the test (the Markdown
    and search registries are this test's own copies while it runs)."""
    for registry in (SINGLE_EVENTS, INDEXERS):
        monkeypatch.setattr(registry, "_entries", dict(registry._entries))
    SINGLE_EVENTS.register(WeatherReport)(write_weather)
    INDEXERS.register("weather")(index_weather)
    interpret.handles(interpret.ENTRY_HANDLERS, "weather-report")(make_weather)
    interpret.handles(interpret.ENTRY_HANDLERS, "tide-table")(make_tides)
    yield
    del interpret.ENTRY_HANDLERS["weather-report"], interpret.ENTRY_HANDLERS["tide-table"]


def log_with_new_events(folder: Path) -> Path:
    project = folder / PROJECT_DIR
    write_jsonl(project / f"{SESSION_ID}.jsonl", chain(
        user("what is the weather doing?"), assistant(text("Let me look.")), weather_entry(FORECAST), tide_entry(),
        assistant(text("Take a coat."))))
    return project


def session_page(site: Path) -> BeautifulSoup:
    return BeautifulSoup((site / urls.session_page(f"{PROJECT_DIR}/{SESSION_ID}")).read_text(encoding="utf-8"),
                         "html.parser")


def test_a_new_event_kind_shows_on_the_page_in_the_markdown_and_in_the_search_index(registries, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(log_with_new_events(tmp_path / "in"),), output=site))
    [shown] = session_page(site).select("div.weather")
    assert shown.get_text(" ", strip=True) == FORECAST
    markdown = (site / urls.session_markdown(f"{PROJECT_DIR}/{SESSION_ID}")).read_text(encoding="utf-8")
    assert FORECAST in markdown
    [hit] = found(site, "tidewatchdrizzle")
    assert hit[0].endswith(f"#{shown['id']}") and hit[2] == "output" and "Squalls over the harbour" in hit[4]


def test_an_event_kind_without_a_markdown_writer_is_shown_as_an_unknown_entry(registries, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(log_with_new_events(tmp_path / "in"),), output=site))
    page = session_page(site)
    [unknown] = [element for element in page.select(".unknown") if "TideTable" in element.get_text()]
    assert "4.25" in unknown.get_text()  # its fields, as JSON
    markdown = (site / urls.session_markdown(f"{PROJECT_DIR}/{SESSION_ID}")).read_text(encoding="utf-8")
    assert "TideTable" in markdown and "4.25" in markdown
    assert "Take a coat." in page.get_text()  # the rest of the session is there


def test_the_json_export_holds_a_new_event_kind_as_an_unknown_event(registries, tmp_path):
    out = tmp_path / "out"
    export(BuildConfig(inputs=(log_with_new_events(tmp_path / "in"),), output=out))
    [document] = [json.loads(path.read_text(encoding="utf-8")) for path in out.rglob("*.json")
                  if path.name not in ("index.json", "export.schema.json")]
    unknown = [event for event in document["events"] if event["type"] == "unknown"]
    assert {event["name"] for event in unknown} == {"event:WeatherReport", "event:TideTable"}
    assert {"anchor": unknown[0]["id"], "timestamp": at(30), "forecast": FORECAST} == unknown[0]["raw"]


@pytest.mark.parametrize(("cls", "counted_as"), [
    (Prompt, "prompt"), (AssistantText, "assistant_text"), (Thinking, "thinking"), (ToolCall, "tool_call"),
    (Plan, "plan"), (SlashCommand, "slash_command"), (BashMode, "bash_mode"), (Notice, "notice"),
    (Unknown, "unknown"), (Unreadable, "unreadable"), (WeatherReport, "weather_report"), (TideTable, "tide_table")])
def test_the_build_report_counts_each_kind_by_its_name(cls, counted_as):
    assert event_kind(cls) == counted_as


def test_every_kind_the_package_makes_is_an_event():
    assert all(issubclass(cls, EventBase) for cls in typing.get_args(Event))
