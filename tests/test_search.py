"""The archive's search: its index (generator/render/search.py) and the search box (app.js) in a real browser,
from file:// (an unzipped archive) as well as over HTTP."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.render import search

from generator.core import urls
from generator.build import BuildConfig, build

from conftest import EXAMPLES
from test_browser import open_page

LONG_SESSION = "projects/home-ada-src-tidewatch/f3a6c1d8-2e95-4b07-8c4d-6a1e9b3f5027"


def load_script(path: Path, call: str):
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"sessionsiteSearch.{call}(")
    return text[len(f"sessionsiteSearch.{call}("):text.rindex(")")]


def documents(site: Path) -> list[list]:
    rows = []
    for store in sorted((site / "search" / "docs").glob("*.js")):
        body = load_script(store, "docs")
        data = json.loads(body[body.index(",") + 1:])
        rows.extend([row[0], data["titles"][row[1]], *row[2:]] for row in data["docs"])
    return rows


def test_terms_split_as_a_reader_types_them():
    assert search.terms("Fix the parse_entry() bug in READ.py, then re-run: 3 tests") == {
        "fix", "the", "parse", "entry", "bug", "in", "read", "py", "then", "re", "run", "tests"}
    assert search.terms("Größe der Gezeiten 潮汐") == {"größe", "der", "gezeiten", "潮汐"}
    assert search.terms("a " + "x" * 33) == set()  # one letter, and runs too long to be typed


def test_every_prompt_and_reply_can_be_found_and_its_result_lands_on_it(examples_site):
    rows = documents(examples_site)
    kinds = {row[2] for row in rows}
    assert {"session", "prompt", "reply"} <= kinds
    pages: dict[str, set[str]] = {}
    for url, title, kind, timestamp, snippet in rows:
        page, _, anchor = url.partition("#")
        if page not in pages:
            soup = BeautifulSoup((examples_site / page).read_text(encoding="utf-8"), "html.parser")
            pages[page] = {node["id"] for node in soup.find_all(id=True)}
        if kind == "session":
            assert anchor == ""
        else:
            assert anchor in pages[page], f"{url}: no such message on its page"
    # Each prompt of the long session, on whichever of its pages it is, has its document.
    prompts = [row for row in rows if row[0].startswith(LONG_SESSION) and row[2] == "prompt"]
    on_pages = {row[0].split("#")[0] for row in prompts}
    assert len(on_pages) > 1, "the long session's prompts should be spread over its pages"
    html_prompts = set()
    for page in sorted(examples_site.glob(LONG_SESSION + "*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        html_prompts |= {f"{page.relative_to(examples_site).as_posix()}#{node['id']}"
                         for node in soup.select(".msg.user")}
    assert {row[0] for row in prompts} == html_prompts


def test_the_index_names_every_document_store_and_shard(examples_site):
    meta = json.loads(load_script(examples_site / urls.SEARCH_INDEX, "index"))
    stores = sorted(p.stem for p in (examples_site / "search" / "docs").glob("*.js"))
    assert sorted(f"{name}-{n}" for name, count in meta["files"]
                  for n in range(-(-count // meta["per_store"]))) == stores
    assert sum(count for _, count in meta["files"]) == len(documents(examples_site))
    assert len(list((examples_site / "search" / "terms").glob("*.js"))) == meta["shards"]


def test_the_merge_gives_the_same_index_however_often_it_spills(examples_site, monkeypatch):
    def merged() -> dict[str, bytes]:
        written: dict[str, bytes] = {}
        search.write_index(examples_site, lambda path, content: written.__setitem__(path, content))
        return written

    whole = merged()
    monkeypatch.setattr(search, "SPILL_CHARACTERS", 40)  # out to the scratch files every line or two
    spilled = merged()
    assert spilled == whole
    on_disk = {p.relative_to(examples_site).as_posix(): p.read_bytes()
               for p in (examples_site / "search").rglob("*.js") if not p.parent.name == "docs"}
    assert whole == on_disk  # and the same as the build wrote


# In the browser ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def unzipped_archive(tmp_path_factory) -> Path:
    """The example archive as a user gets it: built as a zip, unzipped elsewhere, opened from disk."""
    folder = tmp_path_factory.mktemp("zip")
    build(BuildConfig(inputs=(EXAMPLES,), output=folder / "sessions.zip"))
    with zipfile.ZipFile(folder / "sessions.zip") as archive:
        archive.extractall(folder / "elsewhere")
    return folder / "elsewhere" / "sessions"


def type_query(page, query: str):
    page.fill("#site-search", query)
    page.wait_for_selector("#search-results .search-status")
    page.wait_for_function("q => document.querySelector('#search-results .search-status').textContent.includes(q)",
                           arg=query)
    return page.locator("#search-results .search-list a.result")


def test_search_from_file_finds_a_message_on_a_later_page_and_opens_it(browser, unzipped_archive):
    page, events = open_page(browser, unzipped_archive, "index.html")
    assert page.url.startswith("file://")
    results = type_query(page, "hand written LAM2")
    assert results.count() >= 1
    first = results.first
    assert "hand-written" in first.inner_text().lower() or "lam2" in first.inner_text().lower()
    first.click()
    page.wait_for_load_state("load")
    assert "~p2.html#" in page.url
    anchor = page.url.split("#", 1)[1]
    assert page.locator(f"[id='{anchor}']").is_visible()
    assert "LAM2" in page.locator(f"[id='{anchor}']").inner_text()
    assert events["errors"] == []
    page.context.close()


def test_search_works_from_a_session_page_deep_in_the_site(browser, unzipped_archive):
    page, events = open_page(browser, unzipped_archive, LONG_SESSION + "~p3.html")
    results = type_query(page, "idempotency")
    assert results.count() >= 1
    href = results.first.get_attribute("href")
    assert href.startswith("../../projects/Users-grace-work-ledger-api/")
    results.first.click()
    page.wait_for_load_state("load")
    assert "idempotency" in page.locator("body").inner_text().lower()
    no_hits = type_query(page, "zyxwvut")
    assert no_hits.count() == 0
    assert "No results" in page.locator("#search-results").inner_text()
    assert events["errors"] == []
    page.context.close()


def test_transcript_text_in_results_stays_text(browser, unzipped_archive):
    page, events = open_page(browser, unzipped_archive, "index.html")
    results = type_query(page, "script alert")
    assert results.count() >= 1
    page.wait_for_timeout(100)
    assert events["dialogs"] == []
    assert page.locator("#search-results script, #search-results b").count() == 0
    page.context.close()


def test_a_large_index_is_cut_into_pieces_and_search_still_finds_every_word(browser, tmp_path, monkeypatch):
    """Words whose first letters hash to different shards, non-ASCII ones included: the browser must
    pick the shard the build put each word in."""
    monkeypatch.setattr(search, "SHARD_TARGET_BYTES", 256)
    monkeypatch.setattr(search, "DOCUMENTS_PER_STORE", 3)  # and a long session's documents in several stores
    project = tmp_path / "in" / "-home-ada-src-shards"
    project.mkdir(parents=True)
    words = ["aardvark", "zeppelin", "größenordnung", "Ωmega", "潮汐表", "quokka", "xylophone", "jabberwock"]
    lines = []
    parent = None
    for number, word in enumerate(words):
        uuid = f"00000000-0000-4000-8000-{number:012d}"
        lines.append(json.dumps({
            "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "5e55a0b1-0000-4000-8000-000000000001",
            "timestamp": f"2026-10-01T10:{number:02d}:00.000Z", "cwd": "/home/ada/src/shards", "version": "2.1.0",
            "message": {"role": "user", "content": f"please look up {word} and filler{number} words"}}))
        parent = uuid
    (project / "5e55a0b1-0000-4000-8000-000000000001.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    site = tmp_path / "site"
    build(BuildConfig(inputs=(tmp_path / "in",), output=site, jobs=1))
    meta = json.loads(load_script(site / urls.SEARCH_INDEX, "index"))
    assert meta["shards"] > 1
    assert meta["per_store"] == 3 and len(list((site / "search" / "docs").glob("*.js"))) == 3  # 9 documents
    page, events = open_page(browser, site, "index.html")
    for word in words:
        texts = [text.lower() for text in type_query(page, word).all_inner_texts()]
        assert any("prompt" in text for text in texts), word
        assert all(word.lower() in text for text in texts), word
    prefix = type_query(page, "jabber")  # the start of a word finds it
    assert "jabberwock" in prefix.first.inner_text()
    assert events["errors"] == []
    page.context.close()
