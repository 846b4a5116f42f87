"""The archive as one connected site: plan chains, continuations, subagent back-links, pagination with
permalinks that work across pages, and links inside transcript text."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from bs4 import BeautifulSoup

from generator.build import BuildConfig, build
from generator.stages.summarize import PAGE_BUDGET, paginate
from generator.core.model import AssistantText, Prompt

from helpers import (
    CWD,
    PROJECT_DIR,
    assistant,
    build_archive,
    chain,
    session_by_source,
    text,
    tool_use,
    user,
    write_jsonl,
)

PLAN = "# Plan: add `extremes`\n\n1. Find turning points.\n2. Print them."
PLANNING = "aaaaaaaa-1111-4111-8111-000000000001"
IMPLEMENTATION = "aaaaaaaa-1111-4111-8111-000000000002"
FURTHER = "aaaaaaaa-1111-4111-8111-000000000003"
SLUG = "quiet-harbor-tides"


def _planning() -> list[dict]:
    call = tool_use("ExitPlanMode", {"plan": PLAN})
    return chain(user("I'd like an extremes command listing high and low waters", slug=SLUG,
                      permissionMode="plan"),
                 assistant(text("Let me plan it."), slug=SLUG), assistant(call, slug=SLUG))


def _implementation() -> list[dict]:
    preamble = (f"Implement the following plan:\n\n{PLAN}\n\nIf you need specific details from before exiting plan "
                f"mode, read the full transcript at: /home/ada/.claude/projects/{PROJECT_DIR}/{PLANNING}.jsonl")
    first = user(preamble, planContent=PLAN, slug=SLUG)
    return chain(first, assistant(text("Implementing the plan."), slug=SLUG))


def _further() -> list[dict]:
    return chain(user("now add the station name to the JSON", slug=SLUG), assistant(text("Done."), slug=SLUG))


def write_chain(project: Path) -> dict[str, Path]:
    files = {}
    for name, session_id, entries in (("planning", PLANNING, _planning()),
                                      ("implementation", IMPLEMENTATION, _implementation()),
                                      ("further", FURTHER, _further())):
        for entry in entries:
            entry["sessionId"] = session_id
        files[name] = write_jsonl(project / f"{session_id}.jsonl", entries)
    return files


def test_a_chain_of_three_is_linked_in_order_with_roles(tmp_path):
    project = tmp_path / PROJECT_DIR
    files = write_chain(project)
    archive = build_archive(project)
    planning, implementation, further = (session_by_source(archive, files[n])
                                         for n in ("planning", "implementation", "further"))
    assert [planning.role, implementation.role, further.role] == ["planning", "implementation", "further work"]
    assert (planning.previous_key, planning.next_key) == ("", implementation.key)
    assert (implementation.previous_key, implementation.next_key) == (planning.key, further.key)
    assert implementation.plan_source_key == planning.key
    (chain_of_work,) = archive.chains.values()
    assert chain_of_work.session_keys == (planning.key, implementation.key, further.key)


def test_the_planning_plan_is_approved_by_the_session_that_carries_it_out(tmp_path):
    project = tmp_path / PROJECT_DIR
    files = write_chain(project)
    archive = build_archive(project)
    plans = [e for e in session_by_source(archive, files["planning"]).events if type(e).__name__ == "Plan"]
    assert [(p.status, "next session" in p.how) for p in plans] == [("approved", True)]


def test_pages_show_the_chain_and_the_original_ask(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    write_chain(project)
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    folder = out / "projects" / PROJECT_DIR.lstrip("-")
    page = BeautifulSoup((folder / f"{IMPLEMENTATION}.html").read_text(encoding="utf-8"), "html.parser")
    steps = page.select(".chain-strip li")
    assert [s.select_one(".step-role").get_text() for s in steps] == ["planning", "implementation", "further work"]
    assert "current" in steps[1]["class"]
    assert [a["href"] for a in page.select(".chain-strip a")] == [f"{PLANNING}.html", f"{FURTHER}.html"]
    ask = page.select_one("article > blockquote")
    assert "extremes command listing high and low waters" in ask.get_text()
    project_page = BeautifulSoup((folder / "index.html").read_text(encoding="utf-8"), "html.parser")
    (group,) = project_page.select("tbody.chain-group")
    assert [a.get_text() for a in group.select(".role")] == ["planning", "implementation", "further work"]


def test_a_continuation_links_back_and_does_not_repeat_what_it_replays(tmp_path):
    project = tmp_path / PROJECT_DIR
    original = chain(user("add a --tz option"), assistant(text("Added --tz.")))
    first = write_jsonl(project / "11111111-0000-4000-8000-000000000001.jsonl", original)
    replayed = [dict(e, sessionId="22222222-0000-4000-8000-000000000002") for e in original]
    new = chain(user("also show the UTC offset"), assistant(text("Offset shown.")))
    new[0]["parentUuid"] = original[-1]["uuid"]
    resumed = write_jsonl(project / "22222222-0000-4000-8000-000000000002.jsonl",
                          [{"type": "summary", "summary": "Add --tz", "leafUuid": original[-1]["uuid"]},
                           *replayed, *new])
    archive = build_archive(project)
    earlier, later = session_by_source(archive, first), session_by_source(archive, resumed)
    assert later.continues_key == earlier.key and not earlier.continues_key
    texts = [getattr(e, "text", "") for e in later.events]
    assert texts == ["also show the UTC offset", "Offset shown."]
    assert later.replayed == 2


def test_a_subagent_transcript_links_back_to_the_call_that_started_it(examples_site):
    folder = examples_site / "projects" / "home-ada-src-tidewatch"
    agent = BeautifulSoup((folder / "057ab0db-f705-4249-82fd-8293d16bc8eb" / "agent-a36e531.html")
                          .read_text(encoding="utf-8"), "html.parser")
    back = next(a for a in agent.select(".context-line a") if a.get_text() == "this call")
    href = urlsplit(back["href"])
    parent = BeautifulSoup((agent_dir := folder / "057ab0db-f705-4249-82fd-8293d16bc8eb").joinpath(href.path)
                           .resolve().read_text(encoding="utf-8"), "html.parser")
    call = parent.find(id=href.fragment)
    assert call is not None and "subagent" in call["class"]
    assert agent_dir.is_dir()


def _long_session(prompts: int, reply_size: int) -> list[dict]:
    entries = []
    for number in range(prompts):
        entries += [user(f"step {number}: refactor part {number}"),
                    assistant(text(f"Part {number} done. " + "x" * reply_size))]
    return chain(*entries)


def test_pagination_breaks_between_turns_and_keeps_pages_bounded():
    events = []
    for number in range(30):
        events.append(Prompt(f"e-p{number}", "", f"prompt {number}"))
        events.append(AssistantText(f"e-a{number}", "", "y" * (PAGE_BUDGET // 4)))
    starts = paginate(tuple(events))
    assert len(starts) > 3 and starts[0] == 0
    assert all(isinstance(events[s], Prompt) for s in starts)
    sizes = [sum(len(e.text) for e in events[a:b]) for a, b in zip(starts, starts[1:] + (len(events),), strict=True)]
    assert max(sizes) <= PAGE_BUDGET * 1.5


def test_a_long_session_is_split_into_linked_pages_and_permalinks_reach_any_page(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    source = write_jsonl(project / "33333333-0000-4000-8000-000000000003.jsonl",
                         _long_session(prompts=24, reply_size=PAGE_BUDGET // 6))
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    folder = out / "projects" / PROJECT_DIR.lstrip("-")
    pages = [folder / f"{source.stem}.html", *sorted(folder.glob(f"{source.stem}~p*.html"),
                                                     key=lambda p: int(p.stem.rsplit("~p", 1)[1]))]
    assert len(pages) >= 3
    assert all(p.stat().st_size < 1_000_000 for p in pages)
    first = BeautifulSoup(pages[0].read_text(encoding="utf-8"), "html.parser")
    assert first.select_one(".pagination a[rel=next]")["href"] == f"{source.stem}~p2.html"
    # Every prompt in the outline links to the page that shows it.
    for link in first.select(".outline a"):
        href = urlsplit(link["href"])
        target = folder / href.path if href.path else pages[0]
        assert BeautifulSoup(target.read_text(encoding="utf-8"), "html.parser").find(id=href.fragment) is not None


def test_relative_links_in_transcript_text_are_shown_as_paths_not_broken_links(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    reply = "See [the config](src/tidewatch/config.py) and [README.md](README.md), or [docs](https://example.com/d)."
    write_jsonl(project / "44444444-0000-4000-8000-000000000004.jsonl",
                chain(user("where is the config?"), assistant(text(reply))))
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    page = BeautifulSoup((out / "projects" / PROJECT_DIR.lstrip("-") / "44444444-0000-4000-8000-000000000004.html")
                         .read_text(encoding="utf-8"), "html.parser")
    reply_block = page.select_one(".msg.assistant")
    hrefs = [a["href"] for a in reply_block.find_all("a", href=True) if "permalink" not in (a.get("class") or [])]
    assert hrefs == ["https://example.com/d"]
    assert "the config (src/tidewatch/config.py)" in reply_block.get_text()
    assert "README.md" in reply_block.get_text()


def test_anchors_do_not_change_when_more_sessions_are_added(tmp_path):
    project = tmp_path / "in" / PROJECT_DIR
    files = write_chain(project)
    first_out, second_out = tmp_path / "one", tmp_path / "two"
    build(BuildConfig(inputs=(project,), output=first_out))
    write_jsonl(project / "55555555-0000-4000-8000-000000000005.jsonl", chain(user("unrelated"), assistant(text("ok"))))
    build(BuildConfig(inputs=(project,), output=second_out))
    name = f"projects/{PROJECT_DIR.lstrip('-')}/{files['further'].stem}.html"

    def ids(root: Path) -> list[str]:
        soup = BeautifulSoup((root / name).read_text(encoding="utf-8"), "html.parser")
        return [tag["id"] for tag in soup.select("article [id]")]

    assert ids(first_out) == ids(second_out) and ids(first_out)
    assert CWD  # the sessions ran in the project's real directory
