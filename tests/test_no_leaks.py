"""Nothing leaks (issue 26, "Done when"): the planted credentials of tests/planted_secrets.py, written into
sessions the way real sessions carry them and built with default settings, are found in no output at all:
the pages, the Markdown, the search index, the manifest, the report, the site as a zip, the three bundles
and the audit's listing. And the look-alikes (ids, digests, code that reads a secret, placeholders, prose)
all come through whole.

The corpus is written independently of the redaction engine: the values come from the providers' public
formats and the contexts real files give them, not from the engine's rules.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import zipfile
from collections import Counter, defaultdict

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.cli import main

import planted_secrets
from planted_secrets import FORMATS, LOOK_ALIKES, RECIPES, WAYS, Corpus, Planted, write_corpus

# Runs of the characters a key is made of: every key of a value shown in an output is inside one of them.
RUN = re.compile(r"[A-Za-z0-9_.~-]{8,}")
TAG = re.compile(r"<[^>]*>")
MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


class Finder:
    """Which planted values an output shows, by their keys, in the bytes as written (a gzipped file
    unzipped) and in the text a reader sees (an HTML page without its tags and entities, Markdown without
    its backslash escapes, JSON or JavaScript with its \\u escapes read), so that a token split by
    highlighting spans or escaped character by character is still found; in any case, as a search index
    keeps its words lowercased."""

    def __init__(self, planted: list[Planted]):
        self.by_key: dict[str, list[int]] = defaultdict(list)
        for index, value in enumerate(planted):
            for key in value.keys:
                self.by_key[key.lower()].append(index)
        self.sizes = sorted({len(key) for key in self.by_key})

    def found(self, name: str, data: bytes) -> set[int]:
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        written = data.decode("utf-8", errors="replace")
        readings = [written]
        if name.endswith((".html", ".htm", ".svg", ".xml")) or "<html" in written[:2000].lower():
            readings.append(html.unescape(TAG.sub("", written)))
        if name.endswith(".md"):
            readings.append(MARKDOWN_ESCAPE.sub(r"\1", written))
        if "\\u" in written:
            readings.append(UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), written))
        runs = set()
        for reading in readings:
            runs.update(RUN.findall(reading.lower()))
        hits: set[int] = set()
        for run in runs:
            for size in self.sizes:
                for start in range(len(run) - size + 1):
                    indexes = self.by_key.get(run[start:start + size])
                    if indexes:
                        hits.update(indexes)
        return hits


def invoke(*arguments: str) -> str:
    result = CliRunner().invoke(main, list(arguments))
    assert result.exit_code == 0, f"sessionsite {' '.join(arguments)}:\n{result.output}"
    return result.output


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Corpus:
    return write_corpus(tmp_path_factory.mktemp("planted") / "projects")


@pytest.fixture(scope="module")
def outputs(corpus, tmp_path_factory) -> dict[str, bytes]:
    """Every output of every command, by name: one build with default settings (and its report), the same
    build as a zip, the three bundles, the audit's listing. A zip's members are read one by one."""
    out = tmp_path_factory.mktemp("out")
    site, report = out / "site", out / "report.json"
    invoke("build", str(corpus.project), "-o", str(site), "--report", str(report), "-j", "1", "-q")
    invoke("build", str(corpus.project), "-o", str(out / "site.zip"), "-j", "1", "-q")
    sessions = [str(path) for path in corpus.session_files]
    for suffix in ("html", "zip", "md"):
        # --yes: what the net leaves to review goes out, so that every planted value is checked in the file.
        invoke("bundle", *sessions, "-o", str(out / f"bundle.{suffix}"), "-j", "1", "-q", "--yes")
    audit = invoke("audit", str(corpus.project), "--site", str(site), "--all", "-j", "1")

    found: dict[str, bytes] = {}
    for path in sorted(site.rglob("*")):
        if path.is_file():
            found[f"site/{path.relative_to(site).as_posix()}"] = path.read_bytes()
    found["report.json"] = report.read_bytes()
    for archive in ("site.zip", "bundle.zip"):
        with zipfile.ZipFile(out / archive) as opened:
            for member in opened.namelist():
                found[f"{archive}:{member}"] = opened.read(member)
    found["bundle.html"] = (out / "bundle.html").read_bytes()
    found["bundle.md"] = (out / "bundle.md").read_bytes()
    found["audit (stdout)"] = audit.encode("utf-8")
    return found


def test_the_corpus_is_what_the_issue_asks_for(corpus):
    """At least 200 planted values, of at least 80 provider formats and 12 file formats, each shown in at
    least 6 ways; every family of context the issue measured is there."""
    values = {value.value_id for value in corpus.planted if not value.family.startswith("placement")}
    assert len(values) >= 200, len(values)
    providers = {recipe.provider for recipe in RECIPES if recipe.provider}
    assert len(providers) >= 80, len(providers)
    file_formats = {recipe.file_format for recipe in RECIPES}
    assert len(file_formats) >= 12 and set(FORMATS) <= file_formats, file_formats
    ways = Counter(value.value_id for value in corpus.planted if not value.family.startswith("placement"))
    assert min(ways.values()) >= 6 and len(WAYS) >= 6
    families = {recipe.family for recipe in RECIPES}
    assert families >= {"secret-name", "abbreviated-name", "high-entropy-after-name", "credential-file",
                        "connection-string", "base64-under-key", "base64-of-token", "private-key",
                        "xml-attribute", "cli-flag", "http-header"}
    placements = {value.way for value in corpus.planted if value.family.startswith("placement")}
    assert placements == {"session-title", "ai-title", "summary", "first-prompt", "file-name", "git-branch",
                          "mcp-server-name"}
    # Every value shown in every way is a value of its own, so a leak names its way.
    assert len({value.value for value in corpus.planted}) == len(corpus.planted)


def test_the_search_finds_every_planted_value_in_the_logs(corpus):
    """The search that the leak test relies on finds each value in the session logs themselves, where it
    is JSON-escaped (and in a URL, URL-encoded): a value the search could not see would pass unnoticed."""
    finder = Finder(corpus.planted)
    seen: set[int] = set()
    for path in corpus.session_files:
        seen |= finder.found(path.name, path.read_bytes())
    missing = [f"{corpus.planted[i].value_id} · {corpus.planted[i].way}" for i in range(len(corpus.planted))
               if i not in seen]
    assert missing == []


def test_nothing_planted_leaks_into_any_output(corpus, outputs):
    finder = Finder(corpus.planted)
    leaks: list[tuple[Planted, str]] = []
    for name, data in outputs.items():
        for index in sorted(finder.found(name, data)):
            leaks.append((corpus.planted[index], name))
    assert len(outputs) > 10 and any(name.endswith(".html") for name in outputs)
    if leaks:
        leaked = {(value.value_id, value.way) for value, _ in leaks}
        values = {value.value_id for value, _ in leaks}
        by_way = Counter(way for _, way in leaked)
        by_kind = Counter(value.family for value in {v.value_id: v for v, _ in leaks}.values())
        summary = [
            (f"{len(values)} of {len({v.value_id for v in corpus.planted})} planted values leak "
             f"({len(leaked)} of {len(corpus.planted)} value × way), in {len({n for _, n in leaks})} outputs"),
            "by way (value × way pairs): " + ", ".join(f"{way} {n}" for way, n in by_way.most_common()),
            "by kind (values): " + ", ".join(f"{kind} {n}" for kind, n in by_kind.most_common()),
        ]
        lines = sorted(f"{value.value_id} · {value.way} · {name}" for value, name in leaks)
        pytest.fail("\n".join([*summary, "", *lines]), pytrace=False)


def page_text(site_pages: dict[str, bytes], session: str) -> str:
    texts = [BeautifulSoup(data, "html.parser").get_text() for name, data in sorted(site_pages.items())
             if name.rsplit("/", 1)[-1].startswith(session) and name.endswith(".html")]
    assert texts, f"no page for session {session}"
    return "\n".join(texts)


def test_every_look_alike_comes_through_whole(corpus, outputs):
    """Each look-alike, in each way it was shown, is in its session's page text as it was written (in a
    tool's JSON input, as a JSON string shows it)."""
    pages = {name: data for name, data in outputs.items() if name.startswith("site/projects/")}
    lost = []
    for way, session in corpus.look_alike_sessions.items():
        shown = page_text(pages, session)
        for name, value in LOOK_ALIKES.items():
            written = json.dumps(value)[1:-1] if way == "tool-input" else value
            if written not in shown:
                lost.append(f"{name} · {way}: {written!r}")
    assert lost == []


def test_the_look_alikes_are_not_planted_values():
    """None of the look-alikes holds a planted value's key (the test above would contradict the leak test)."""
    corpus_keys = {key for recipe in RECIPES for way in WAYS
                   for key in planted_secrets.show(recipe, way).keys}
    assert not [value for value in LOOK_ALIKES.values() if any(key in value for key in corpus_keys)]
