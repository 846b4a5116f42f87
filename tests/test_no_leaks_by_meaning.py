"""Nothing known by its meaning leaks (issue 40, "Done when"): the planted values of tests/planted_by_meaning.py (a
command's output, a secret word in another language, a sentence, a table column, a format's private field), in
every way a session shows them, built with default settings, reach no output: the pages, the Markdown, the search
index, the JSON export, the site as a zip and the bundles. The net's values (no rule can know them) are each
listed by `audit` for review. The look-alikes from real code and logs come through whole."""

from __future__ import annotations

import json
import zipfile
from collections import Counter

import pytest

import planted_by_meaning as corpus_module
from planted_by_meaning import LOOK_ALIKES, RECIPES, Corpus, write_corpus
from test_no_leaks import Finder, invoke, page_text

pytestmark = pytest.mark.xdist_group("planted-by-meaning")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Corpus:
    return write_corpus(tmp_path_factory.mktemp("meaning") / "projects")


@pytest.fixture(scope="module")
def outputs(corpus, tmp_path_factory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("out")
    site = out / "site"
    invoke("build", str(corpus.project), "-o", str(site), "-j", "1", "-q", "--no-vault")
    invoke("json", str(corpus.project), "-o", str(out / "json"), "-j", "1", "-q", "--no-vault")
    sessions = [str(path) for path in corpus.session_files]
    for suffix in ("html", "zip", "md"):
        # --yes: what the net leaves to review goes out, so that every planted value is checked in the file.
        invoke("bundle", *sessions, "-o", str(out / f"bundle.{suffix}"), "-j", "1", "-q", "--yes")
    found: dict[str, bytes] = {}
    for folder in (site, out / "json"):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                found[f"{folder.name}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    with zipfile.ZipFile(out / "bundle.zip") as opened:
        for member in opened.namelist():
            found[f"bundle.zip:{member}"] = opened.read(member)
    found["bundle.html"] = (out / "bundle.html").read_bytes()
    found["bundle.md"] = (out / "bundle.md").read_bytes()
    return found


def test_the_corpus_is_what_the_issue_asks_for(corpus):
    values = {value.value_id for value in corpus.planted}
    assert len(values) >= 150, len(values)
    families = Counter(recipe.family for recipe in RECIPES)
    assert set(families) == {"command", "language", "sentence", "table", "format"}, families
    ways = Counter(value.value_id for value in corpus.planted)
    assert min(ways.values()) >= 6
    assert len({value.value for value in corpus.planted}) == len(corpus.planted)
    assert len({value.value_id for value in corpus.net}) >= 10


def _searchable(planted):
    return [value for value in planted if value.keys]


def test_the_search_sees_every_value_in_the_logs(corpus):
    finder = Finder(_searchable(corpus.planted))
    seen: set[int] = set()
    for path in corpus.session_files:
        seen |= finder.found(path.name, path.read_bytes())
    assert len(seen) == len(_searchable(corpus.planted))
    logs = "".join(path.read_text(encoding="utf-8") for path in corpus.session_files)
    assert all(phrase in logs for value in corpus.planted for phrase in value.phrases)


def _readings(name: str, data: bytes) -> str:
    import html
    import re
    written = data.decode("utf-8", errors="replace")
    readings = [written, html.unescape(re.sub(r"<[^>]*>", "", written)),
                re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), written)]
    return "\n".join(readings).lower()


def test_nothing_planted_leaks_into_any_output(corpus, outputs):
    searchable = _searchable(corpus.planted)
    finder = Finder(searchable)
    leaks = [f"{searchable[index].value_id} · {searchable[index].way} · {name}"
             for name, data in outputs.items() for index in sorted(finder.found(name, data))]
    phrases = [value for value in corpus.planted if value.phrases]
    for name, data in outputs.items():
        reading = _readings(name, data)
        leaks += [f"{value.value_id} · {value.way} · {name}" for value in phrases
                  if any(phrase in reading for phrase in value.phrases)]
    assert len(outputs) > 10
    if leaks:
        by_id = Counter(line.split(" · ")[0] for line in leaks)
        pytest.fail(f"{len(by_id)} values leak: {dict(by_id)}\n" + "\n".join(sorted(set(leaks))[:200]), pytrace=False)


def test_the_nets_values_are_each_listed_for_review(corpus):
    out = invoke("audit", str(corpus.project), "--all", "-j", "1")
    listed = out.split("Not redacted: look at these", 1)[1]
    from generator.audit import masked
    missing = [f"{value.value_id} · {value.way}" for value in corpus.net if masked(value.value) not in listed]
    assert missing == []


def test_every_look_alike_comes_through_whole(corpus, outputs):
    pages = {name: data for name, data in outputs.items() if name.startswith("site/projects/")}
    lost = []
    for way, session in corpus.look_alike_sessions.items():
        # As a reader sees it: blanks as one, and a prompt's `code` shown as code, without its backticks.
        shown = " ".join(page_text(pages, session).replace("\xa0", " ").replace("`", "").split())
        for name, value in LOOK_ALIKES.items():
            for line in value.splitlines():
                written = " ".join((json.dumps(line, ensure_ascii=False)[1:-1] if way == "tool-input" else line).replace("`", "").split())
                if written not in shown:
                    lost.append(f"{name} · {way}: {written!r}")
    assert lost == []


def test_the_look_alikes_hold_no_planted_value():
    keys = {key for recipe in RECIPES for way in corpus_module.ways_of(recipe)
            for key in corpus_module.show(recipe, way).keys}
    assert not [value for value in LOOK_ALIKES.values() if any(key in value for key in keys)]
