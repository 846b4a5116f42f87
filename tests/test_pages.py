"""What a reader sees in the built pages, checked structurally with BeautifulSoup on a build of examples/."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from conftest import EXAMPLES
from helpers import read_entries

TIDEWATCH = "projects/home-ada-src-tidewatch"
LEDGER = "projects/Users-grace-work-ledger-api"


def page(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def test_index_lists_projects_by_real_path_with_counts_and_last_activity(examples_site):
    soup = page(examples_site, "index.html")
    cards = {a.get_text(strip=True): a for a in soup.select("a.card-title")}
    # The real paths come from cwd; the folder names (-Users-grace-work-ledger-api) cannot be decoded.
    assert set(cards) == {"/home/ada/src/tidewatch", "/Users/grace/work/ledger-api"}
    for path, link in cards.items():
        card = link.find_parent(class_="card")
        folder = next(d for d in EXAMPLES.iterdir() if d.is_dir() and read_entries(next(d.glob("*.jsonl")))
                      and any(e.get("cwd") == path for e in read_entries(next(d.glob("*.jsonl")))))
        main_sessions = [p for p in folder.glob("*.jsonl") if not p.name.startswith("agent-")]
        assert f"{len(main_sessions)} session" in card.get_text() or f"{len(main_sessions) + 1} session" in card.get_text()
        latest = max(e["timestamp"] for p in folder.rglob("*.jsonl") for e in read_entries(p) if e.get("timestamp"))
        assert card.find("time")["datetime"] == latest


def test_project_page_lists_sessions_with_title_start_duration_prompts_and_first_prompt(examples_site):
    soup = page(examples_site, f"{TIDEWATCH}/index.html")
    rows = soup.select("table.sessions tbody tr:not(.chain-row)")
    titles = [row.select_one("a.session-title").get_text(strip=True) for row in rows]
    folder = next(EXAMPLES.glob("-home-ada-src-tidewatch"))
    assert len(rows) == len([p for p in folder.glob("*.jsonl") if not p.name.startswith("agent-")])
    # custom-title wins over the first prompt (the last custom-title entry is the current one)
    custom = [e["customTitle"] for e in read_entries(next(EXAMPLES.glob("*/5c12bdb1-*.jsonl"))) if e.get("type") == "custom-title"]
    assert custom[-1] in titles or custom[0] in titles
    for row in rows:
        cells = row.find_all("td")
        assert row.find("time")["datetime"].startswith("2026-")
        assert re.fullmatch(r"\d+ (s|min)|\d+ h \d\d min", cells[2].get_text(strip=True))
        assert re.match(r"\d+\b", cells[3].get_text(strip=True))
    # Newest first, except that a chain's sessions stay together, oldest first, at the place of its newest.
    groups = [[row.find("time")["datetime"] for row in body.select("tr:not(.chain-row)")]
              for body in soup.select("table.sessions tbody")]
    newest = [max(group) for group in groups]
    assert newest == sorted(newest, reverse=True)
    for body, group in zip(soup.select("table.sessions tbody"), groups, strict=True):
        if "chain-group" in (body.get("class") or []):
            assert group == sorted(group) and len(group) >= 2


def test_session_page_shows_prompts_replies_thinking_and_paired_tool_calls(examples_site):
    source = next(EXAMPLES.glob("*/98878b43-*.jsonl"))
    soup = page(examples_site, f"{TIDEWATCH}/{source.stem}.html")
    entries = read_entries(source)
    first_prompt = next(e["message"]["content"] for e in entries if e.get("type") == "user"
                        and isinstance(e["message"]["content"], str))
    assert soup.select_one(".msg.user").get_text(" ", strip=True).endswith(" ".join(first_prompt.split()[-5:]))
    assert soup.select("details.thinking")
    calls = [(p["id"], p["name"]) for e in entries if e.get("type") == "assistant"
             for p in e["message"]["content"] if p.get("type") == "tool_use"]
    results = {p["tool_use_id"] for e in entries if e.get("type") == "user" and isinstance(e["message"]["content"], list)
               for p in e["message"]["content"] if p.get("type") == "tool_result"}
    assert any(name == "ExitPlanMode" for _, name in calls)
    for tool_id, name in calls:
        block = soup.find(id="e-" + tool_id)
        if name == "ExitPlanMode":
            # A plan card. This session ends before the answer; the answer is the next session, which
            # starts from the same plan (new-format "accept and clear context").
            plan = next(p for e in entries if e.get("type") == "assistant" for p in e["message"]["content"]
                        if p.get("id") == tool_id)["input"]["plan"]
            carried_out = any(e.get("planContent") == plan for f in EXAMPLES.rglob("*.jsonl")
                              for e in read_entries(f))
            assert block.name == "div" and "plan" in block["class"]
            assert block.select_one(".status").get_text() == ("approved" if carried_out else "pending")
            continue
        assert block is not None and block.name == "details"
        status = block.select_one("summary .status").get_text()
        assert status == ("ok" if tool_id in results else "no result")


def test_tool_calls_are_folded_behind_a_one_line_summary(examples_site):
    source = next(EXAMPLES.glob("*/057ab0db-*.jsonl"))
    soup = page(examples_site, f"{TIDEWATCH}/{source.stem}.html")
    bash = [d for d in soup.select("details.tool") if d.select_one(".tool-name").get_text() == "Bash"]
    assert bash and all(not d.has_attr("open") for d in bash)
    statuses = {d.select_one(".status").get_text() for d in bash}
    assert statuses == {"ok", "error"}  # the failing pytest run and the passing one
    for details in bash:
        assert details.select_one("summary code").get_text()  # the command


def test_read_keeps_line_numbers_as_line_numbers(examples_site):
    source = next(EXAMPLES.glob("*/98878b43-*.jsonl"))
    soup = page(examples_site, f"{TIDEWATCH}/{source.stem}.html")
    read = next(d for d in soup.select("details.tool") if d.select_one(".tool-name").get_text() == "Read")
    numbers = [int(n.get_text()) for n in read.select("pre .linenos")]
    assert numbers and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    code = "".join(t for t in read.find("code").find_all(string=True) if "linenos" not in (t.parent.get("class") or []))
    assert "→" not in code and not re.search(r"^\s*\d+\t", code, re.M)


def test_edit_shows_a_highlighted_diff_and_write_shows_highlighted_content(examples_site):
    source = next(EXAMPLES.glob("*/057ab0db-*.jsonl"))
    soup = page(examples_site, f"{TIDEWATCH}/{source.stem}.html")
    edit = next(d for d in soup.select("details.tool") if d.select_one(".tool-name").get_text() == "Edit")
    assert edit.select("pre.language-diff .gd") and edit.select("pre.language-diff .gi")
    write = next(d for d in soup.select("details.tool") if d.select_one(".tool-name").get_text() == "Write")
    assert write.select_one("pre.language-python .k")  # Python keywords highlighted by the file extension


def test_ansi_colour_codes_never_show(examples_site):
    for html in examples_site.rglob("*.html"):
        assert "\x1b" not in html.read_text(encoding="utf-8")
        assert "[0m" not in html.read_text(encoding="utf-8")


def test_slash_commands_are_one_compact_line(examples_site):
    source = next(EXAMPLES.glob("*/5c12bdb1-*.jsonl"))
    soup = page(examples_site, f"{TIDEWATCH}/{source.stem}.html")
    assert [c.get_text() for c in soup.select(".command code")] == ["/model opus"]
    assert "<command-name>" not in soup.get_text()


def test_subagent_call_links_to_its_transcript_and_back(examples_site):
    source = next(EXAMPLES.glob("*/057ab0db-*.jsonl"))
    soup = page(examples_site, f"{TIDEWATCH}/{source.stem}.html")
    task = soup.select_one("details.subagent")
    link = next(a for a in task.find_all("a") if a.get_text().startswith("Subagent transcript"))
    target = (examples_site / TIDEWATCH / link["href"]).resolve()
    assert target.name == "agent-a36e531.html" and target.is_file()
    back = page(examples_site, target.relative_to(examples_site.resolve()).as_posix())
    crumb_hrefs = [a["href"] for a in back.select(".crumbs a")]
    assert any(href.endswith(f"{source.stem}.html") for href in crumb_hrefs)


def test_unreadable_lines_are_shown_where_they_were(examples_site):
    soup = page(examples_site, f"{TIDEWATCH}/7296ccd2-c393-48c2-a896-d22e0099834f.html")
    summaries = [d.find("summary").get_text() for d in soup.select("details.unreadable")]
    assert [re.match(r"Line (\d+)", s).group(1) for s in summaries] == ["8", "13", "14", "23"]


@pytest.mark.parametrize("kind", ["html", "md"])
def test_every_relative_link_resolves_to_a_file_in_the_site(examples_site, kind):
    broken = []
    for document in examples_site.rglob(f"*.{kind}"):
        text = document.read_text(encoding="utf-8")
        if kind == "html":
            soup = BeautifulSoup(text, "html.parser")
            targets = [a["href"] for a in soup.find_all("a", href=True)]
            targets += [t["src"] for t in soup.find_all(["img", "script"], src=True)]
            targets += [t["href"] for t in soup.find_all("link", href=True)]
        else:
            targets = re.findall(r"\]\(([^)\s]+)\)", text)
        for target in targets:
            parts = urlsplit(target)
            if parts.scheme or target.startswith("#"):
                continue
            assert not target.startswith("/"), f"absolute link {target} in {document}"
            if not (document.parent / unquote(parts.path)).exists():
                broken.append((document.relative_to(examples_site).as_posix(), target))
    assert broken == []


def test_pages_request_nothing_from_the_network(examples_site):
    for html in examples_site.rglob("*.html"):
        soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
        for tag in soup.find_all(["script", "link", "img", "iframe", "source"]):
            url = tag.get("src") or tag.get("href") or ""
            assert urlsplit(url).scheme in ("", "data") and not url.startswith("//"), (html, url)
    for css in examples_site.rglob("*.css"):
        assert not re.search(r"url\(\s*['\"]?(https?:)?//|@import|@font-face", css.read_text(encoding="utf-8"))
