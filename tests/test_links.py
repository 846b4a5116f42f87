"""Link check: in a built archive every relative `href` and `src`, with its `#anchor`, resolves to a file
and to an element in it. Run on examples/ and on the whole public corpus."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from generator.build import BuildConfig, build

from conftest import corpus_files


@lru_cache(maxsize=None)
def ids_in(page: Path) -> frozenset[str]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return frozenset(tag["id"] for tag in soup.find_all(id=True))


def broken_links(site: Path) -> list[tuple[str, str, str]]:
    broken = []
    for page in sorted(site.rglob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        references = [(a.name, a["href"]) for a in soup.find_all(["a", "link"], href=True)]
        references += [(t.name, t["src"]) for t in soup.find_all(["img", "script"], src=True)]
        for _tag, reference in references:
            parts = urlsplit(reference)
            if parts.scheme or parts.netloc:
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            where = page.relative_to(site).as_posix()
            if not target.is_file():
                broken.append((where, reference, "no such file"))
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in ids_in(target):
                broken.append((where, reference, "no such anchor"))
    return broken


def test_examples_have_no_broken_links(examples_site):
    assert broken_links(examples_site) == []


def test_the_public_corpus_has_no_broken_links(public_corpus, tmp_path):
    inputs = tuple(corpus_files("*.jsonl", "chat.json"))
    build(BuildConfig(inputs=inputs, output=tmp_path / "site"))
    assert broken_links(tmp_path / "site") == []
