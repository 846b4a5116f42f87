"""Link check: in a built archive every relative `href` and `src`, with its `#anchor`, resolves to a file
and to an element in it. Run on examples/ and on the whole public corpus."""

from __future__ import annotations

from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest



REFERENCES = {"a": "href", "link": "href", "img": "src", "script": "src"}


class References(HTMLParser):
    """A page's ids and its references (`href` of <a> and <link>, `src` of <img> and <script>), read by the
    parser BeautifulSoup's html.parser builds its tree with, the same tags and values, without the tree:
    the whole corpus's pages are read here."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.references: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}  # a repeated attribute: the last one counts
        if "id" in values:
            self.ids.add(values["id"])
        if tag in REFERENCES and REFERENCES[tag] in values:
            self.references.append((tag, values[REFERENCES[tag]]))


@lru_cache(maxsize=None)
def read(page: Path) -> References:
    parser = References()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    return parser


def ids_in(page: Path) -> frozenset[str]:
    return frozenset(read(page).ids)


def broken_links(site: Path) -> list[tuple[str, str, str]]:
    broken = []
    for page in sorted(site.rglob("*.html")):
        for _tag, reference in read(page).references:
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


@pytest.mark.slow
def test_the_public_corpus_has_no_broken_links(public_corpus_site):
    assert broken_links(public_corpus_site) == []
