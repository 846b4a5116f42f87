"""The archive's search: its index (generator/render/search/) and the search box (app.js) in a real browser,
from file:// (an unzipped archive) as well as over HTTP."""

from __future__ import annotations

import gzip
import json
import logging
import shutil
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.render import search

from generator.core import urls
from generator.build import BuildConfig, build

from conftest import EXAMPLES
from helpers import assistant, chain, element_ids, text, thinking, tool_result, tool_use, user, write_jsonl
from test_browser import axe, new_context, open_page, serious_violations  # noqa: F401 - axe is a fixture

LONG_SESSION = "projects/home-ada-src-tidewatch/f3a6c1d8-2e95-4b07-8c4d-6a1e9b3f5027"


def load_script(path: Path, call: str):
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"sessionsiteSearch.{call}(")
    return text[len(f"sessionsiteSearch.{call}("):text.rindex(")")]


def documents(site: Path) -> list[list]:
    """Every document of the index as [url, session title, kind, time, excerpt, project], in index order."""
    meta = json.loads(load_script(site / urls.SEARCH_INDEX, "index"))
    rows = []
    for name, count, project, kinds in meta["files"]:
        for number in range(-(-count // meta["per_store"])):
            body = load_script(site / urls.search_documents(f"{name}-{number}"), "docs")
            data = json.loads(body[body.index(",") + 1:])
            for offset, (page, anchor, title, timestamp, excerpt) in enumerate(data["docs"]):
                kind = meta["kinds"][int(kinds[number * meta["per_store"] + offset], 36)]
                rows.append([data["pages"][page] + (f"#{anchor}" if anchor else ""), data["titles"][title], kind,
                             timestamp, excerpt, meta["projects"][project]])
    return rows


# A small archive of coding sessions in two projects: the words searched for sit in a prompt, a reply, a
# command, a path, a tool output, a long output past where its page stops showing it, and hostile HTML.
LEDGER_CWD = "/Users/grace/work/ledger"
# Past what the page shows of an output (tools.INLINE_OUTPUT_LIMIT), within what is searched of it.
LONG_OUTPUT = "".join(f"line {number}: all quiet on gauge {number}\n" for number in range(1500))
# Longer than what is searched of a text (search.SEARCHED_CHARACTERS), with a word only past what is excerpted
# (search.EXCERPTED_CHARACTERS) and one only past what is searched.
HUGE_OUTPUT = ("nearstartword begins the dump\n" + "".join(f"row {number} steady\n" for number in range(20_000))
               + "midwayword, in the middle\n" + "".join(f"row {number} steady\n" for number in range(60_000))
               + "farbeyondword ends it\n")
HOSTILE = 'hostilemarker <img src=x onerror="alert(1)"> <script>alert(2)</script> </span><b>bold</b>'


def tidewatch_session() -> list[dict]:
    bash, read, long_run, hostile = "toolu_01Bash", "toolu_01Read", "toolu_01Long", "toolu_01Hostile"
    return chain(
        user("Why does the quokkameter import fail when I run the gauge tests?"),
        assistant(thinking("Probably a missing wheel for the meter."),
                  text("Let me run the tests."),
                  tool_use("Bash", {"command": "python -m pytest tests/test_gauge.py -k meter",
                                    "description": "Run the gauge tests"}, bash)),
        tool_result(bash, "Traceback (most recent call last):\n  File \"tests/test_gauge.py\", line 3, in <module>\n"
                          "    import quokkameter\nModuleNotFoundError: No module named 'quokkameter' (zanzibarite)\n"),
        assistant(tool_use("Read", {"file_path": "/home/ada/src/tidewatch/src/tidewatch/gauge.py"}, read)),
        tool_result(read, "     1→import quokkameter\n     2→\n     3→def level():\n"),
        assistant(tool_use("Grep", {"pattern": "flibbertigibbet", "path": "src"}, "toolu_01Grep")),
        tool_result("toolu_01Grep", "No matches found"),
        assistant(tool_use("Bash", {"command": "tidewatch replay --all"}, long_run)),
        tool_result(long_run, LONG_OUTPUT + "Error: deepwombat exploded at the very end\n"),
        assistant(tool_use("Bash", {"command": "tidewatch dump"}, "toolu_01Huge")),
        tool_result("toolu_01Huge", HUGE_OUTPUT),
        assistant(tool_use("Bash", {"command": "cat notes.html"}, hostile)),
        tool_result(hostile, HOSTILE),
        assistant(text("The module quokkameter is missing from the environment: install it and rerun.")),
    )


def ledger_session() -> list[dict]:
    bash = "toolu_01Ledger"
    return chain(
        user("Add the quokkameter dependency to the ledger", cwd=LEDGER_CWD, sessionId="7c1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b"),
        assistant(tool_use("Bash", {"command": "pip install quokkameter"}, bash), cwd=LEDGER_CWD,
                  sessionId="7c1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b"),
        tool_result(bash, "Successfully installed quokkameter-2.0", cwd=LEDGER_CWD,
                    sessionId="7c1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b"),
    )


@pytest.fixture(scope="module")
def coding_site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("coding")
    write_jsonl(folder / "in" / "-home-ada-src-tidewatch" / "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl",
                tidewatch_session())
    write_jsonl(folder / "in" / "-Users-grace-work-ledger" / "7c1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl",
                ledger_session())
    build(BuildConfig(inputs=(folder / "in",), output=folder / "site", jobs=1))
    return folder / "site"


def found(site: Path, word: str) -> list[list]:
    """The documents the index lists for a word (as the browser reads the shard it is in)."""
    meta = json.loads(load_script(site / urls.SEARCH_INDEX, "index"))
    shard = json.loads(load_script(site / urls.search_terms(search.shard_of(word, meta["shards"])), "terms")
                       .split(",", 1)[1])
    rows = documents(site)
    first = [sum(file[1] for file in meta["files"][:number]) for number in range(len(meta["files"]))]
    hits = []
    number_of_first = 0
    for line in shard.split("\n"):
        if line.startswith(":"):  # the file whose lines follow
            number_of_first = first[int(line[1:], 36)]
            continue
        term, _, gaps = line.partition("\t")
        if term != word:
            continue
        number = number_of_first
        for gap in gaps.split(","):
            number += int(gap, 36)
            hits.append(rows[number])
    return hits


def test_commands_paths_and_tool_output_are_found_each_as_its_kind(coding_site):
    kinds = {word: sorted({row[2] for row in found(coding_site, word)})
             for word in ("zanzibarite", "pytest", "gauge", "quokkameter", "wheel", "flibbertigibbet")}
    assert kinds["zanzibarite"] == ["output"]  # only in a tool's output
    assert kinds["pytest"] == ["command"]
    assert "path" in kinds["gauge"] and "command" in kinds["gauge"]
    assert {"prompt", "reply", "command", "code", "output"} <= set(kinds["quokkameter"])
    assert kinds["wheel"] == ["thinking"]
    assert kinds["flibbertigibbet"] == ["command"]  # a tool's pattern
    # Each result lands on the call that shows it.
    soup = BeautifulSoup((coding_site / found(coding_site, "zanzibarite")[0][0].split("#")[0]).read_text(), "html.parser")
    call = soup.find(id=found(coding_site, "zanzibarite")[0][0].split("#")[1])
    assert call is not None and call.name == "details" and "zanzibarite" in call.get_text()
    projects = {row[5] for row in found(coding_site, "quokkameter")}
    assert projects == {"/home/ada/src/tidewatch", LEDGER_CWD}


def test_a_long_output_is_indexed_whole_and_its_excerpt_shows_the_trouble(coding_site):
    rows = found(coding_site, "deepwombat")
    assert [row[2] for row in rows] == ["output"]
    page = (coding_site / rows[0][0].split("#")[0]).read_text(encoding="utf-8")
    assert "deepwombat" not in page  # the page shows the output's start only; the index has all of it
    assert "Error: deepwombat exploded" in rows[0][4]
    assert len(rows[0][4]) < 2 * search.EXCERPT_CHARACTERS


def test_a_very_long_text_is_searched_as_far_as_the_cap_and_says_it_goes_on(coding_site):
    assert HUGE_OUTPUT.index("midwayword") > 2 * search.EXCERPTED_CHARACTERS
    assert HUGE_OUTPUT.index("farbeyondword") > search.SEARCHED_CHARACTERS
    rows = found(coding_site, "nearstartword")
    assert [row[2] for row in rows] == ["output"]
    assert rows[0][4].startswith("nearstartword begins the dump") and rows[0][4].endswith(" …")
    assert found(coding_site, "midwayword") == rows  # past the excerpted start, still searched
    assert found(coding_site, "farbeyondword") == []
    meta = json.loads(load_script(coding_site / urls.SEARCH_INDEX, "index"))
    assert meta["searched"] == search.SEARCHED_CHARACTERS  # what app.js tells a query that finds nothing


def test_the_searched_part_of_a_long_text_ends_between_words():
    cap = search.SEARCHED_CHARACTERS
    words = "alpha " * (cap // 6) + "straddling" + " omega" * 100
    part = search.searched_part(words)
    assert len(part) <= cap and part.endswith("alpha") and "straddl" not in part
    # Lines and tabs are places to cut too; a text without any is cut at the cap.
    assert search.searched_part("ab\n" * cap).endswith("ab")
    assert search.searched_part("x" * (2 * cap)) == "x" * cap
    assert search.searched_part("short text") == "short text"
    assert search.terms(search.searched_part(words)) == {"alpha"}
    assert search.searched_part("one two three", limit=9) == "one two"


def test_a_long_texts_terms_are_all_its_words_up_to_the_cap_however_they_repeat():
    repeated = "".join(f"step {number % 50} of the_run: ok\n" for number in range(20_000)) + "Größe 潮汐 tail-word\n"
    assert len(repeated) > 4 * search.EXCERPTED_CHARACTERS
    text = search.indexed(repeated)
    assert text.cut and text.terms == search.terms(repeated)
    assert "größe" in text.terms and "größe" not in text.excerpted
    short = search.indexed("  A short\n\ntext  ")
    assert (short.flat, short.cut, short.terms) == ("A short text", False, {"short", "text"})


def test_excerpts_keep_short_texts_and_the_telling_words_of_long_ones():
    assert search.excerpt("  a short\n\ntext ") == "a short text"
    long = " ".join(["filler"] * 2000) + " ZeroDivisionError here " + " ".join(["filler"] * 2000) + " supercalifragilistic"
    shown = search.excerpt(long)
    assert shown.startswith("filler filler") and "ZeroDivisionError here" in shown and "supercalifragilistic" in shown
    assert len(shown) <= search.EXCERPT_CHARACTERS + 20


def test_prose_is_indexed_as_it_reads_not_as_escaped(coding_site):
    """Typed prompts are escaped Markdown in the blocks (`quokkameter\\_x`): the excerpt is the text."""
    prompt = next(row for row in found(coding_site, "quokkameter") if row[2] == "prompt")
    assert prompt[4] == "Why does the quokkameter import fail when I run the gauge tests?"


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
    for url, _title, kind, _timestamp, _snippet, _project in rows:
        page, _, anchor = url.partition("#")
        if page not in pages:
            pages[page] = set(element_ids((examples_site / page).read_text(encoding="utf-8")))
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
    assert sorted(f"{name}-{n}" for name, count, _, _ in meta["files"]
                  for n in range(-(-count // meta["per_store"]))) == stores
    assert sum(count for _, count, _, _ in meta["files"]) == len(documents(examples_site))
    assert all(len(kinds) == count for _, count, _, kinds in meta["files"])
    assert len(list((examples_site / "search" / "terms").glob("*.js"))) == meta["shards"]


def test_a_word_list_in_many_blocks_finds_the_same_documents(coding_site, tmp_path, monkeypatch):
    """A long session writes its word list in several blocks, a term in each of them a line of its own:
    a query must find the same documents as from one block."""
    monkeypatch.setattr(search, "POSTINGS_PER_BLOCK", 3)
    write_jsonl(tmp_path / "in" / "-home-ada-src-tidewatch" / "5b1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl",
                tidewatch_session())
    write_jsonl(tmp_path / "in" / "-Users-grace-work-ledger" / "7c1f0c2e-3a4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl",
                ledger_session())
    build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site", jobs=1))
    blocks = gzip.decompress(next((tmp_path / "site" / urls.SEARCH_WORDS_FOLDER).glob("*.txt.gz")).read_bytes())
    assert blocks.count(search.BLOCK_LINE.encode()) > 3
    def results(site: Path, word: str) -> list[list]:
        # The test sessions' entry ids and times (and so the anchors) are new each time they are made.
        return sorted([row[0].split("#")[0], *row[1:3], *row[4:]] for row in found(site, word))

    for word in ("zanzibarite", "pytest", "gauge", "quokkameter", "wheel", "flibbertigibbet", "the"):
        assert results(tmp_path / "site", word) == results(coding_site, word), word
        assert results(coding_site, word), word


class _Staging:
    """A staging folder's `write` and `append`, as a recorder uses them."""

    def __init__(self, root: Path):
        self.root = root

    def write(self, path: str, content: bytes) -> None:
        (self.root / path).parent.mkdir(parents=True, exist_ok=True)
        (self.root / path).write_bytes(content)

    def append(self, path: str, content: bytes) -> None:
        (self.root / path).parent.mkdir(parents=True, exist_ok=True)
        with (self.root / path).open("ab") as handle:
            handle.write(content)


def every_term(site: Path) -> dict[str, list[int]]:
    """Every term of every shard with the documents it finds, numbered across the files as index.js lists them."""
    meta = json.loads(load_script(site / urls.SEARCH_INDEX, "index"))
    first = [sum(file[1] for file in meta["files"][:number]) for number in range(len(meta["files"]))]
    terms: dict[str, list[int]] = {}
    for shard_number in range(meta["shards"]):
        shard = json.loads(load_script(site / urls.search_terms(shard_number), "terms").split(",", 1)[1])
        number_of_first = 0
        for line in filter(None, shard.split("\n")):
            if line.startswith(":"):
                number_of_first = first[int(line[1:], 36)]
                continue
            term, _, gaps = line.partition("\t")
            assert search.shard_of(term, meta["shards"]) == shard_number, term
            number = number_of_first
            for gap in gaps.split(","):
                number += int(gap, 36)
                terms.setdefault(term, []).append(number)
    return terms


@pytest.mark.parametrize("postings_per_block", [search.POSTINGS_PER_BLOCK, 500])
def test_every_word_of_every_document_finds_it_whatever_its_script(tmp_path, monkeypatch, postings_per_block):
    """Words of one to four bytes a character sit among ASCII ones (a word list cuts its lines by bytes),
    in files of thousands of documents (gaps and numbers of three base-36 digits and more), in one block
    or many: each word finds exactly the documents holding it."""
    monkeypatch.setattr(search, "POSTINGS_PER_BLOCK", postings_per_block)
    monkeypatch.setattr(search, "SHARD_TARGET_BYTES", 2000)  # many shards, each a run of a block's lines
    vocabulary = ["AB", "zz9", "Größe", "潮汐", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "naïve", "X" * 32, "ΚΌΣΜΕ", "0ff1ce"]
    vocabulary += [f"w{number}" for number in range(400)]
    expected: dict[str, list[int]] = {}
    first = 0
    for file_number, documents in enumerate([1, 3000, 40]):
        recorder = search.FileSearchRecorder(f"file{file_number}", _Staging(tmp_path), "/home/ada/project")
        for number in range(documents):
            # Each document holds a different mix: some words in every document, some in few.
            words = [word for index, word in enumerate(vocabulary) if number % (index + 1) == 0 or index == number % 97]
            recorder.add("a session", "page.html", search.Document("output", "", "", " ".join(words)))
            for word in words:
                expected.setdefault(word, []).append(first + number)
        recorder.finish()
        first += documents
    written: dict[str, bytes] = {}
    search.write_index(tmp_path, written.__setitem__)
    for path, content in written.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(content)
    assert json.loads(load_script(tmp_path / urls.SEARCH_INDEX, "index"))["shards"] >= 16
    assert every_term(tmp_path) == {word.lower(): numbers for word, numbers in expected.items()}


def _flipped(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x20]) + data[middle + 1:]


@pytest.mark.parametrize("damage", [
    lambda data: data[:40],  # cut short, as by a full disk
    lambda data: data[:-3],  # its checksum cut off
    _flipped,  # a byte changed on a failing disk
    lambda data: b"",
    lambda data: b"not a word list at all\n",
    lambda data: gzip.compress(b"term\\t1\\n"),  # readable, but no word list
], ids=["cut-short", "no-checksum", "byte-flipped", "empty", "junk", "gzip-of-junk"])
def test_a_damaged_word_list_leaves_out_only_its_own_file(coding_site, tmp_path, caplog, monkeypatch, damage):
    # The command line stops its logger's records from reaching the root, where caplog listens.
    monkeypatch.setattr(logging.getLogger("sessionsite"), "propagate", True)
    caplog.set_level(logging.WARNING, logger="sessionsite")  # a `-q` run before this one left it at ERROR
    site = tmp_path / "site"
    shutil.copytree(coding_site, site)
    lists = sorted((site / urls.SEARCH_WORDS_FOLDER).glob("*.txt.gz"))
    lists[0].write_bytes(damage(lists[0].read_bytes()))
    written: dict[str, bytes] = {}
    search.write_index(site, lambda path, content: written.__setitem__(path, content))
    for path, content in written.items():
        (site / path).write_bytes(content)
    assert lists[0].name in caplog.text and "left out of the search index" in caplog.text
    meta = json.loads(load_script(site / urls.SEARCH_INDEX, "index"))
    assert [file[0] for file in meta["files"]] == [path.name.split(".")[0] for path in lists[1:]]
    projects = {row[-1] for word in ("quokkameter", "pytest", "gauge") for row in found(site, word)}
    assert len(projects) == 1  # the other file's sessions are still found


def test_the_merge_gives_the_same_index_however_often_it_spills(examples_site, monkeypatch):
    def merged() -> dict[str, bytes]:
        written: dict[str, bytes] = {}
        search.write_index(examples_site, lambda path, content: written.__setitem__(path, content))
        return written

    whole = merged()
    monkeypatch.setattr(search, "SPILL_BYTES", 40)  # out to the scratch files after every file
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
    # The results come once their document stores are loaded, after the status line.
    page.wait_for_function("() => document.querySelector('#search-results .search-status').textContent.startsWith('No ')"
                           " || document.querySelectorAll('#search-results .search-list li').length > 0")
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


def test_results_rank_prompts_above_tool_output_and_name_kind_and_project(browser, coding_site):
    page, events = open_page(browser, coding_site, "index.html")
    results = type_query(page, "zanzibarite")
    assert results.count() == 1
    assert "Tool output" in results.first.locator(".result-kind").inner_text()
    assert results.first.locator("mark").inner_text().lower() == "zanzibarite"
    results = type_query(page, "quokkameter")
    kinds = results.locator(".result-kind").all_inner_texts()
    first_tier = ("Session title", "Prompt", "Reply")
    assert kinds[0] in first_tier and "Prompt" in kinds and "Tool output" in kinds
    assert kinds.index("Tool output") > max(i for i, kind in enumerate(kinds) if kind in first_tier)
    assert set(results.locator(".result-project").all_inner_texts()) == {"tidewatch", "ledger"}
    prompt = results.filter(has=page.locator(".result-kind", has_text="Prompt")).first
    assert prompt.locator(".result-snippet mark").first.inner_text().lower() == "quokkameter"
    results.filter(has_text="Tool output").first.click()
    page.wait_for_load_state("load")
    anchor = page.url.split("#", 1)[1]
    assert page.locator(f"[id='{anchor}']").evaluate("node => node.open")  # the folded call opens
    assert events["errors"] == []
    page.context.close()


def test_results_filter_by_kind_and_by_project(browser, coding_site):
    page, events = open_page(browser, coding_site, "index.html")
    results = type_query(page, "quokkameter")
    everything = results.count()
    page.select_option("#search-results select[name=kind]", "output")
    assert set(results.locator(".result-kind").all_inner_texts()) == {"Tool output"}
    assert 0 < results.count() < everything
    assert "filtered from" in page.locator("#search-results .search-status").inner_text()
    page.select_option("#search-results select[name=kind]", "")
    page.select_option("#search-results select[name=project]", LEDGER_CWD)
    assert set(results.locator(".result-project").all_inner_texts()) == {"ledger"}
    assert results.count() == 4  # its title, its prompt, its command, its output
    page.select_option("#search-results select[name=kind]", "prompt")
    assert results.count() == 1 and "Add the" in results.first.inner_text()
    assert events["errors"] == []
    page.context.close()


def test_hostile_transcript_text_in_a_snippet_stays_text(browser, coding_site):
    page, events = open_page(browser, coding_site, "index.html")
    results = type_query(page, "hostilemarker onerror")
    assert results.count() == 1
    assert 'onerror="alert(1)"' in results.first.inner_text() and "<script>" in results.first.inner_text()
    page.wait_for_timeout(100)
    assert events["dialogs"] == [] and events["errors"] == []
    assert page.locator("#search-results img, #search-results script, #search-results b").count() == 0
    page.context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_results_are_reached_by_keyboard_and_pass_axe(browser, axe, coding_site, theme):  # noqa: F811 - the fixture
    context = new_context(browser, color_scheme=theme)
    page = context.new_page()
    page.goto((coding_site / "index.html").resolve().as_uri())
    page.focus("#site-search")
    page.keyboard.type("quokkameter")
    page.keyboard.press("Enter")
    # A function, not an expression: Playwright evaluates an expression with eval, which the page's CSP forbids.
    page.wait_for_function("() => document.activeElement && document.activeElement.classList.contains('result')")
    assert page.evaluate("document.querySelector('#search-results .search-status').getAttribute('role')") == "status"
    assert serious_violations(axe, page) == []
    # The filters are labelled controls just before the results: Shift+Tab from the first result.
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.name") == "project"
    assert page.evaluate("document.activeElement.labels[0].textContent").startswith("Project")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.name") == "kind"
    context.close()


STORE_HOSTILE_TEXTS = [
    'a "quoted" \\ backslash', "controls \x00\x01\x08\x0b\x0c\x1b\x1f\x7f end", "tab\tand\nlines\r\n",
    "line separators \u2028 \u2029 and BOM \ufeff", "</script><!-- -->", "emoji 🙂 and astral 𝔘", "Größe 潮汐 ΚΌΣΜΕ",
    "\ud7ff\ue000\uffff noncharacters \U0010ffff", "x" * 600 + " error: long text past its excerpt",
]


def test_document_stores_are_the_bytes_json_writes_for_hostile_texts(tmp_path):
    """The stores app.js loads are JSON written without ASCII escapes or spaces, whatever the text holds:
    quotes, backslashes, control characters, line separators, markup, astral and non-Latin characters."""
    recorder = search.FileSearchRecorder("hostile", _Staging(tmp_path), "/home/ada/dé\"jà")
    for number, hostile in enumerate(STORE_HOSTILE_TEXTS):
        recorder.add(f"title {hostile}", f"page{number}.html",
                     search.Document("output", f"e-{hostile[:5]}", "2026", hostile))
    recorder.finish()
    store = (tmp_path / urls.search_documents("hostile-0")).read_bytes()
    prefix = b'sessionsiteSearch.docs("hostile-0",'
    assert store.startswith(prefix) and store.endswith(b");\n")
    data = json.loads(store[len(prefix):-3])
    assert len(data["docs"]) == len(STORE_HOSTILE_TEXTS)
    assert store[len(prefix):-3] == json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
