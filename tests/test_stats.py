"""Statistics and charts (issue 9), checked against figures counted by hand from the example JSONL.

Most figures are those of `examples/-home-ada-src-tidewatch/c41f7d2e-….jsonl`, a short session, counted
line by line (see `C41F7D2E` below). The counting is written out so that a reader can redo it; nothing
here recomputes a figure with the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from generator.render.html import charts
from generator.output.manifest import decode, encode
from generator.core.model import FileTouch, Session, Usage
from generator.render.stats import PRICES, price_table

TIDEWATCH = "projects/home-ada-src-tidewatch"
C41F7D2E = f"{TIDEWATCH}/c41f7d2e-8b3a-4e6f-9d15-2a7b6c0e8f31.html"

# c41f7d2e, by hand. Its 11 API messages (distinct message ids; a streamed message repeats its usage on each
# line, with output_tokens growing, so each message counts once at its largest output) all say
# input_tokens 3 -> 33 input tokens.
# cache_read_input_tokens: 14263 + 17137 + 19528 + 20139 + 20541 + 20929 + 21663 + 22850 + 23494 + 23931
#   + 24326 = 228,801.
# cache_creation_input_tokens: 2874 + 2391 + 611 + 402 + 388 + 734 + 1187 + 644 + 437 + 395 + 503 = 10,566,
#   every one of them in `ephemeral_1h_input_tokens` (the one-hour cache).
# output_tokens (largest per message): 264 + 198 + 121 + 41 + 66 + 119 + 176 + 134 + 41 + 88 + 131 = 1,379.
# Model claude-opus-4-6 at $5 input, $0.50 cache read, $10 one-hour cache write, $25 output per million:
#   33 × 5 = 165; 228,801 × 0.5 = 114,400.5; 10,566 × 10 = 105,660; 1,379 × 25 = 34,475;
#   sum 254,700.5 / 1,000,000 = $0.2547005 -> "$0.25".
# Tool calls: Read ×2 (lines 5, 6), Edit ×4 (lines 11, 14, 25, 27), Bash ×4 (lines 16, 18, 29, 31); no
# result says is_error. Prompts: 2 (lines 2 and 23).
# turn_duration: 32,580 ms (line 21) + 23,360 ms (line 34) = 55,940 ms -> "55.9 s".
# Files changed: src/tidewatch/cli.py by the Edits on lines 11 and 25, tests/test_cli.py on lines 14 and 27.
HAND = {"input": 33, "cache_read": 228_801, "cache_write": 10_566, "output": 1_379}
CLI_EDITS = ("toolu_01yu6DxBz0iy3OUeNdchZGmb", "toolu_01Tj2xzMtAfUUBhuEIlnqDi1")  # tool_use ids, lines 11 and 25
TEST_EDITS = ("toolu_01p2MLiSE4oVz3BasM8Ypf8X", "toolu_01PB7js78K8hWB8zDH63vdDY")  # lines 14 and 27


def page(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def numbers(cells) -> list[int]:
    return [int(cell.get_text(strip=True).replace(",", "")) for cell in cells]


def test_session_page_shows_tokens_by_kind_and_the_estimated_cost(examples_site):
    soup = page(examples_site, C41F7D2E)
    table = soup.select_one(".side-stats.usage table.usage-table")
    assert [th.get_text(strip=True) for th in table.select("thead th")] == ["Tokens", "claude-opus-4-6"]
    rows = {row.th.get_text(strip=True): numbers(row.select("td")) for row in table.select("tbody tr")}
    assert rows == {"Input": [HAND["input"]], "Cache read": [HAND["cache_read"]],
                    "Cache write": [HAND["cache_write"]], "Output": [HAND["output"]]}
    assert table.select_one("tfoot td").get_text(strip=True) == "$0.25"
    facts = {div.dt.get_text(strip=True): div.dd.get_text(" ", strip=True) for div in soup.select(".facts > div")}
    assert facts["Estimated cost"] == "$0.25"
    assert facts["Claude working"] == "55 s"  # 55,940 ms
    assert facts["Tool calls"] == "10" and facts["Prompts"] == "2"
    assert "Errors" not in facts  # none of its results is an error
    # The source and date of the prices are named where the cost is.
    note = table.find_parent("details").select_one(".price-note a")
    assert note["href"] == price_table().source_url


def test_session_page_lists_tools_by_name(examples_site):
    soup = page(examples_site, C41F7D2E)
    rows = {row.th.get_text(strip=True): numbers(row.select("td"))
            for row in soup.select(".side-stats.tools tbody tr")}
    assert rows == {"Bash": [4, 0], "Edit": [4, 0], "Read": [2, 0]}


def test_session_errors_count_tool_and_api_errors(examples_site):
    # 5c12bdb1: lines 45 and 46 are Bash results with is_error true (a missing `ruff`, then its sibling).
    soup = page(examples_site, f"{TIDEWATCH}/5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90.html")
    tools = {row.th.get_text(strip=True): numbers(row.select("td")) for row in soup.select(".side-stats.tools tbody tr")}
    assert tools["Bash"][1] == 2
    assert sum(errors for _, errors in tools.values()) == 2
    # e5a81d37: one isApiErrorMessage entry, no tool error.
    soup = page(examples_site, f"{TIDEWATCH}/e5a81d37-9c24-4b0e-8f6d-27b4c9a0d15e.html")
    facts = {div.dt.get_text(strip=True): div.dd.get_text(" ", strip=True) for div in soup.select(".facts > div")}
    assert facts["Errors"] == "0 tool · 1 API"


def test_files_touched_link_to_the_calls_that_changed_them(examples_site):
    soup = page(examples_site, C41F7D2E)
    files = {item.code.get_text(strip=True): [a["href"] for a in item.select(".places a")]
             for item in soup.select(".files-touched li")}
    assert files == {"src/tidewatch/cli.py": [f"#e-{tool_id}" for tool_id in CLI_EDITS],
                     "tests/test_cli.py": [f"#e-{tool_id}" for tool_id in TEST_EDITS]}
    for links in files.values():
        for href in links:
            assert soup.find(id=href[1:]) is not None, href


def test_a_refused_edit_touches_no_file(examples_site):
    # 4d0f9b62: Edits on lines 21, 26 and 36. Line 21's (stations.toml) is refused ("File has not been read
    # yet", is_error on line 22); after a Read, line 26 makes the same Edit; line 36 edits CHANGELOG.md.
    soup = page(examples_site, f"{TIDEWATCH}/4d0f9b62-e18a-4c37-b5d1-a9e62f07c813.html")
    tools = {row.th.get_text(strip=True): numbers(row.select("td")) for row in soup.select(".side-stats.tools tbody tr")}
    assert tools["Edit"] == [3, 1]
    changes = {item.code.get_text(strip=True): len(item.select(".places a")) for item in soup.select(".files-touched li")}
    assert changes == {"src/tidewatch/data/stations.toml": 1, "CHANGELOG.md": 1}


def test_project_files_page_lists_each_file_with_the_sessions_that_changed_it(examples_site):
    soup = page(examples_site, f"{TIDEWATCH}/files.html")
    rows = {row.select_one(".file-cell code").get_text(strip=True): row for row in soup.select("table.files-table tbody tr")}
    # tests/test_cli.py is changed in c41f7d2e (lines 14, 27) among others; each link leads to the session
    # page that has the call's anchor.
    row = rows["tests/test_cli.py"]
    sessions = {li.a.get_text(strip=True): [a["href"] for a in li.select(".places a")] for li in row.select(".file-sessions li")}
    title = BeautifulSoup((examples_site / C41F7D2E).read_text(), "html.parser").h1.get_text(strip=True)
    assert [href.rsplit("#", 1)[1] for href in sessions[title]] == [f"e-{tool_id}" for tool_id in TEST_EDITS]
    for links in sessions.values():
        for href in links:
            target, anchor = href.split("#", 1)
            assert not urlsplit(href).scheme and not href.startswith("/")
            linked = BeautifulSoup(((examples_site / TIDEWATCH) / unquote(target)).read_text(), "html.parser")
            assert linked.find(id=anchor) is not None, href
    # The project page and the index link to it.
    assert page(examples_site, f"{TIDEWATCH}/index.html").find("a", href="files.html") is not None
    assert page(examples_site, "index.html").find("a", href=f"{TIDEWATCH}/files.html") is not None


def test_project_activity_counts_sessions_per_day(examples_site):
    # First timestamps of the tidewatch main sessions, read from each file (8e2d5b90 replays 059a7ba6's
    # 2026-11-09 entries; its own first entry is its new prompt, 2026-11-10 08:41):
    # 10-27 98878b43 and 057ab0db; 10-28 c41f7d2e; 10-30 5c12bdb1; 11-02 7296ccd2; 11-09 059a7ba6;
    # 11-10 8e2d5b90; 11-12 b7e3c1a4; 11-16 4d0f9b62; 11-20 e5a81d37; 11-21 f3a6c1d8. A span of 26 days: by day.
    soup = page(examples_site, f"{TIDEWATCH}/index.html")
    stats = soup.select_one("section.stats")
    table = stats.select_one(".chart-wide table.figures")
    per_day = {row.th.time["datetime"]: numbers(row.select("td"))[0] for row in table.select("tbody tr")}
    assert per_day == {"2026-10-27": 2, "2026-10-28": 1, "2026-10-30": 1, "2026-11-02": 1, "2026-11-09": 1,
                       "2026-11-10": 1, "2026-11-12": 1, "2026-11-16": 1, "2026-11-20": 1, "2026-11-21": 1}
    tokens = {row.th.time["datetime"]: numbers(row.select("td"))[1] for row in table.select("tbody tr")}
    # All of c41f7d2e's tokens fall on 2026-10-28, and no other session has a message that day.
    assert tokens["2026-10-28"] == sum(HAND.values())
    # The chart draws a column for every day of the span, empty days too: 2026-10-27 to 2026-11-21.
    svg = stats.select_one("svg.chart-columns")
    assert len(svg.select("rect.chart-bar")) == 26


def test_charts_name_themselves_and_follow_the_theme(examples_site):
    for path in ("index.html", f"{TIDEWATCH}/index.html"):
        soup = page(examples_site, path)
        svgs = soup.select("section.stats svg.chart")
        assert len(svgs) == 4  # sessions per day, tokens per day, tool mix, models
        for svg in svgs:
            assert svg["role"] == "img"
            ids = svg["aria-labelledby"].split()
            assert svg.find("title", id=ids[0]).get_text(strip=True)
            assert svg.find("desc", id=ids[1]).get_text(strip=True)
            # Colours come from the theme's CSS classes, never from fills written into the chart.
            assert not svg.find(attrs={"fill": True}) and not svg.find(attrs={"style": True})
        # Each chart's figures are in a table beside it.
        assert len(soup.select("section.stats .chart-box table.figures")) == 3
    ids = [tag["id"] for tag in page(examples_site, "index.html").select("[id]")]
    assert len(ids) == len(set(ids))


def test_archive_tool_mix_adds_up_the_sessions(examples_site):
    # The tool table's rows add up to the archive's tool calls (the tile), subagent runs included.
    soup = page(examples_site, "index.html")
    stats = soup.select_one("section.stats")
    tiles = {div.dt.get_text(strip=True): div.dd for div in stats.select(".stat-tiles > div")}
    calls = int(tiles["Tool calls"].get_text(strip=True).replace(",", ""))
    rows = [numbers(row.select("td")) for row in stats.select("table.tool-table tbody tr")]
    assert sum(row[0] for row in rows) == calls
    # 14 tool errors, by hand (results with is_error true): tidewatch 057ab0db line 23, 059a7ba6 line 19,
    # 4d0f9b62 line 22, 5c12bdb1 lines 45 and 46, f3a6c1d8 lines 23, 223, 252 and 439 (9; 8e2d5b90's line 16
    # replays 059a7ba6's and is shown there); ledger-api 23ddcd5f lines 39 and 44, a256e702 lines 5, 11
    # and 31 (5; 23ddcd5f's lines 10 and 23 answer ExitPlanMode: a rejected plan, not a failed tool).
    # One API error: e5a81d37's isApiErrorMessage entry.
    assert sum(row[1] for row in rows) == 14
    assert tiles["Errors"].get_text(" ", strip=True) == "14 tool · 1 API"


def test_the_price_table_is_one_dated_file_with_its_source():
    data = json.loads(PRICES.read_text(encoding="utf-8"))
    assert data["source_url"].startswith("https://") and data["as_of"] and data["source"]
    for model, price in data["models"].items():
        assert set(price) == {"input", "cache_read", "cache_write_5m", "cache_write_1h", "output"}, model
    table = price_table()
    # Dated ids are priced as their family: Sonnet 4.5 at $3 in / $15 out (the pricing page).
    assert table.price_of("claude-sonnet-4-5-20250929")["input"] == 3
    assert table.price_of("claude-opus-4-6[1m]")["output"] == 25
    assert table.price_of("claude-made-up-9") is None
    # Five-minute and one-hour writes are priced apart: 1M tokens written to each cache by Sonnet 4
    # cost $3.75 and $6 (the page's 5m and 1h cache write columns).
    assert table.cost("claude-sonnet-4", Usage(cache_creation_tokens=1_000_000)) == pytest.approx(3.75)
    assert table.cost("claude-sonnet-4", Usage(cache_creation_tokens=1_000_000,
                                               cache_creation_1h_tokens=1_000_000)) == pytest.approx(6)


def test_new_summary_fields_round_trip_through_the_manifest():
    session = Session(key="p/s", session_id="s", source="", project_dir="p", cwd="/w", title="t",
                      usage=Usage(1, 2, 3, 4, 4), usage_by_model={"m": Usage(1, 2, 3, 4, 4)},
                      tokens_by_day={"2026-01-02": 10}, tool_counts={"Edit": 2}, tool_errors={"Edit": 1},
                      api_errors=1, files_touched=(FileTouch("/w/a.py", 3, (("e-1", 1), ("e-2", 2))),),
                      files_left_out=4)
    assert decode(json.loads(encode(session))) == session


def test_chart_labels_are_escaped_and_cannot_leave_the_svg():
    hostile = '</svg><script>alert(1)</script><img src=x onerror=alert(2)>\u202eevil'
    svg = charts.bar_chart("t", "Tools <b>", [(hostile, 3), ("Bash", 1)])
    soup = BeautifulSoup(f"<div>{svg}</div>", "html.parser")
    assert soup.find("script") is None and soup.find("img") is None
    assert len(soup.find_all("svg")) == 1
    assert "</svg><script>" in soup.svg.find("title", id=None).get_text() or "<script>" in soup.svg.get_text()
    assert "\u202e" not in soup.select("text.chart-label")[0].get_text()
    assert soup.svg.title.get_text() == "Tools <b>"


def test_periods_fill_the_gaps_and_grow_with_the_span():
    period, buckets = charts.by_period([{"2026-01-01": 1, "2026-01-04": 2}])
    assert period == "day" and [b.values[0] for b in buckets] == [1, 0, 0, 2]
    period, buckets = charts.by_period([{"2026-01-01": 1, "2026-06-01": 2}])
    assert period == "week" and buckets[0].start == "2025-12-29"  # the Monday of that week
    period, buckets = charts.by_period([{"2024-01-15": 1, "2026-06-01": 2}])
    assert period == "month" and buckets[0].start == "2024-01-01" and len(buckets) == 30


def test_every_link_to_a_change_lands_on_the_call_even_on_a_later_page(examples_site):
    # f3a6c1d8 is four pages long; its Edits are spread over all of them, and the Files touched page and
    # every page of the session link to them.
    folder = examples_site / TIDEWATCH
    pages = ["files.html", *sorted(p.name for p in folder.glob("f3a6c1d8-*.html"))]
    assert len(pages) == 5
    ids: dict[str, set[str]] = {}

    def ids_of(name: str) -> set[str]:
        if name not in ids:  # the pages are large: each is parsed once
            ids[name] = {tag["id"] for tag in page(folder, name).select("[id]")}
        return ids[name]

    checked = 0
    for name in pages:
        for link in page(folder, name).select(".places a"):
            target, anchor = link["href"].split("#", 1)
            assert anchor in ids_of(unquote(target) or name), (name, link["href"])
            checked += 1
    # 40 prompts, each with an Edit of a different file, and four of them a second Edit (README): 44
    # changes, shown on the session's four pages and on the Files touched page.
    assert checked >= 44 * 2


def test_hostile_tool_names_and_file_paths_stay_text(tmp_path):
    from generator.build import BuildConfig, build
    from helpers import CWD, PROJECT_DIR, SESSION_ID, assistant, chain, tool_result, tool_use, user, write_jsonl

    path = '/home/ada/src/tidewatch/<img src=x onerror="window.__pwned=1">"</code></svg>.py'
    tool = '</text></svg><script>window.__pwned=2</script>'
    edit = tool_use("Write", {"file_path": path, "content": "x"}, "toolu_01HostileWrite00001")
    odd = tool_use(tool, {}, "toolu_01HostileTool000001")
    entries = chain(user("make a file"), assistant(edit), tool_result(edit["id"], "ok"),
                    assistant(odd), tool_result(odd["id"], "done", is_error=True), assistant({"type": "text", "text": "done"}))
    write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "in",), output=out))
    project = "projects/home-ada-src-tidewatch"
    for name in ("index.html", f"{project}/index.html", f"{project}/files.html", f"{project}/{SESSION_ID}.html"):
        soup = page(out, name)
        assert not soup.select("script:not([src])") and not soup.select("img"), name
        assert all(svg.get("class") and "chart" in svg["class"] or svg.find_parent(class_="theme-toggle")
                   for svg in soup.find_all("svg")), name
        text = soup.get_text()
        if name.endswith("files.html") or name.endswith(f"{SESSION_ID}.html"):
            assert '<img src=x onerror="window.__pwned=1">"</code></svg>.py' in text, name
        if not name.endswith("files.html"):
            assert tool in text, name
    # The refused call counts as an error of that tool, by its name as written.
    rows = {row.th.get_text(strip=True): numbers(row.select("td"))
            for row in page(out, f"{project}/{SESSION_ID}.html").select(".side-stats.tools tbody tr")}
    assert rows == {tool: [1, 1], "Write": [1, 0]}
    assert CWD in page(out, f"{project}/files.html").get_text()
