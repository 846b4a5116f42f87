"""Stage 8, search: the archive's full-text index, as static files a page can load from file:// and over
HTTP alike.

Browsers refuse `fetch` on file://, but they run a `<script src>` there, so every index file is a script
that hands its data to `window.sessionsiteSearch` (themes/default/static/app.js). And an archive of
gigabytes must not make each page load one huge index, so the index is cut in three:

- `search/index.js`: how many term shards there are, and how many documents each input file brought
  (a document's number says which file's store holds it);
- `search/terms/<n>.js`: the terms whose first two letters hash to shard n, each with the documents
  holding it; a query loads one shard per word typed (prefix search needs nothing more, since the
  shard depends only on a term's first two letters);
- `search/docs/<file>-<n>.js`: what a result shows (page, anchor, session title, a snippet), each input
  file's documents in stores of 500, loaded only for the results shown.

Documents are a session's title, each prompt, each reply and each plan, made in phase 2 from the
redacted events, so nothing the pages redact can be found or read here. Each input file also leaves
`search/words/<file>.txt`, its own inverted index: the term shards are merged from these on every
build, so files kept from the previous site (an incremental build) need not be read again.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ..core import urls
from ..core.text import plain

SNIPPET_CHARACTERS = 600
"""Of each document's text, what its result can show; the whole text is indexed."""
INDEXED_CHARACTERS = 100_000
"""A reply longer than this (a pasted log, say) is indexed on its beginning only."""
DOCUMENTS_PER_STORE = 500
"""A long session's documents are cut into stores of this many, so that showing a result never loads
more than a few hundred kilobytes."""
SHARD_TARGET_BYTES = 96 * 1024
"""Term shards are made about this size, so a query loads little whatever the archive's size."""
MAX_SHARDS = 4096
SPILL_CHARACTERS = 16_000_000
"""How much of the word lists the merge holds before writing it out to its scratch files."""
COUNT_LINE = "\tcount\t"
"""The word list's last line starts so (no term is empty): the number of documents the file brought."""
MAX_TERM_LENGTH = 32
"""Longer runs of letters are hashes, base64 and the like: nobody searches for them by hand."""
_WORD = re.compile(r"[^\W_]+")


def terms(text: str) -> set[str]:
    """The words of a text as the index keeps them: lower case, split at anything but a letter or a
    digit (so `snake_case` is two words), two to 32 characters. app.js splits a query the same way."""
    return {word for word in _WORD.findall(text.lower()) if 2 <= len(word) <= MAX_TERM_LENGTH}


def shard_of(term: str, shards: int) -> int:
    """Which term shard holds a term: a hash of its first two letters (app.js computes the same)."""
    value = 0
    for character in term[:2]:
        value = (value * 31 + ord(character)) & 0xFFFFFFFF
    return value % shards


class FileSearchRecorder:
    """The documents of one input file's sessions, written out as phase 2 renders them: every 500
    documents, a document store and a block of the file's word list. A session of any length costs the
    memory of 500 documents."""

    def __init__(self, name: str, output: Any):
        self.name = name
        self.output = output
        """Where the files go: the staging folder's `write` and `append`."""
        self.count = 0
        self.rows: list[list[Any]] = []
        self.titles: dict[str, int] = {}
        self.postings: dict[str, list[int]] = {}

    def add(self, title: str, kind: str, page_path: str, anchor: str, timestamp: str, text: str) -> None:
        text = plain(text[:INDEXED_CHARACTERS])
        if not text.strip() and kind != "session":
            return
        url = page_path + (f"#{anchor}" if anchor else "")
        title_number = self.titles.setdefault(title, len(self.titles))
        snippet = " ".join(text[:SNIPPET_CHARACTERS * 2].split())[:SNIPPET_CHARACTERS]
        self.rows.append([url, title_number, kind, timestamp, snippet])
        for term in terms(text + (" " + title if kind == "session" else "")):
            self.postings.setdefault(term, []).append(self.count)
        self.count += 1
        if len(self.rows) == DOCUMENTS_PER_STORE:
            self._write_out()

    def _write_out(self) -> None:
        name = f"{self.name}-{(self.count - 1) // DOCUMENTS_PER_STORE}"
        store = json.dumps({"titles": list(self.titles), "docs": self.rows}, ensure_ascii=False, separators=(",", ":"))
        self.output.write(urls.search_documents(name), f"sessionsiteSearch.docs({json.dumps(name)},{store});\n".encode())
        # A block of the word list: each term's documents as gaps from the file's first document, already
        # in the shards' encoding, so that merging is putting strings together. A term may have a line in
        # several blocks; each becomes its own `file:gaps` part in the shard.
        self.output.append(urls.search_words(self.name), "".join(
            f"{term}\t{_deltas(numbers)}\n" for term, numbers in sorted(self.postings.items())))
        self.rows, self.titles, self.postings = [], {}, {}

    def finish(self) -> None:
        """The last documents, and the word list's closing line: how many documents the file has (some
        may hold no word at all)."""
        if self.rows:
            self._write_out()
        if self.count:
            self.output.append(urls.search_words(self.name), f"{COUNT_LINE}{self.count}\n")


@dataclass(frozen=True, slots=True)
class SearchIndexSize:
    documents: int
    terms: int


def write_index(root: Path, write: Callable[[str, bytes], None]) -> SearchIndexSize:
    """Merge the word lists every input file left in the site (at `root`) into the term shards and the
    index script, through `write(path, bytes)`. A shard line is `term<TAB>file:gaps;file:gaps…`: the
    numbers of the files holding the term (base 36, by their place in index.js) and, for each, its
    document numbers in that file as the file's word list gave them.

    The word lists are read once and their lines spilled to one scratch file per shard; each shard is
    then merged on its own, so memory holds one shard, not the whole index."""
    words_folder = root / urls.SEARCH_WORDS_FOLDER
    lists = sorted(words_folder.glob("*.txt")) if words_folder.is_dir() else []
    shards = 1
    while sum(path.stat().st_size for path in lists) / shards > SHARD_TARGET_BYTES and shards < MAX_SHARDS:
        shards *= 2
    counts = []
    distinct_terms = 0
    with tempfile.TemporaryDirectory(prefix="sessionsite-search-") as scratch_folder:
        scratch = Path(scratch_folder)
        pending: list[list[str]] = [[] for _ in range(shards)]
        pending_characters = 0

        def spill() -> None:
            for number, lines in enumerate(pending):
                if lines:
                    with (scratch / str(number)).open("a", encoding="utf-8") as handle:
                        handle.write("".join(lines))
                    lines.clear()

        # A scratch file holds raw word-list lines, each run of them after a line naming their file
        # ("\0" and its number): so the lines need no rewriting on the way through.
        shard_of_prefix: dict[str, int] = {}
        for file_number, path in enumerate(lists):
            marker = f"\0{_base36(file_number)}:\n"
            marked: set[int] = set()
            count = 0
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith(COUNT_LINE):
                        count = int(line[len(COUNT_LINE):])
                        continue
                    start = line[:2]  # every term has two letters or more
                    number = shard_of_prefix.get(start)
                    if number is None:
                        number = shard_of_prefix[start] = shard_of(start, shards)
                    if number not in marked:
                        marked.add(number)
                        pending[number].append(marker)
                    pending[number].append(line)
                    pending_characters += len(line)
                    if pending_characters > SPILL_CHARACTERS:
                        spill()  # the file's marker stays the last one in each scratch file it wrote to
                        pending_characters = 0
            counts.append([path.stem, count])
        spill()
        for number in range(shards):
            postings: dict[str, list[str]] = {}
            source = scratch / str(number)
            if source.exists():
                prefix = ""
                with source.open(encoding="utf-8") as handle:
                    for line in handle:
                        if line[0] == "\0":
                            prefix = line[1:-1]
                            continue
                        term, _, gaps = line.partition("\t")
                        found = postings.get(term)
                        if found is None:
                            postings[term] = [prefix + gaps[:-1]]
                        else:
                            found.append(prefix + gaps[:-1])
            distinct_terms += len(postings)
            payload = json.dumps("\n".join(term + "\t" + ";".join(postings[term]) for term in sorted(postings)),
                                 ensure_ascii=False)
            write(urls.search_terms(number), f"sessionsiteSearch.terms({number},{payload});\n".encode("utf-8"))
    meta = {"shards": shards, "per_store": DOCUMENTS_PER_STORE, "files": counts}
    write(urls.SEARCH_INDEX, f"sessionsiteSearch.index({json.dumps(meta, separators=(',', ':'))});\n".encode("utf-8"))
    return SearchIndexSize(documents=sum(count for _, count in counts), terms=distinct_terms)


def _deltas(numbers: Iterable[int]) -> str:
    """Ascending document numbers as gaps in base 36: the shards are most of the index's bytes."""
    out = []
    previous = 0
    for number in numbers:
        out.append(_base36(number - previous))
        previous = number
    return ",".join(out)


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if number == 0:
        return "0"
    text = ""
    while number:
        number, remainder = divmod(number, 36)
        text = digits[remainder] + text
    return text
