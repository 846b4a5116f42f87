"""Stage 8, search: the archive's full-text index, a writer over the markdown stage's typed blocks, as
static files a page can load from file:// and over HTTP alike.

Browsers refuse `fetch` on file://, but they run a `<script src>` there, so every index file is a script
that hands its data to `window.sessionsiteSearch` (themes/default/static/app.js). And an archive of
gigabytes must not make each page load one huge index, so the index is cut in three:

- `search/index.js`: how many term shards there are; each input file's documents (how many, the kind of
  each, one base-36 digit apiece, and the file's project), so that results are ranked and filtered by kind and
  project before anything else is loaded;
- `search/terms/<n>.js`: the terms whose first three letters (or two, for a two-letter term) hash to
  shard n, file by file: a line `:<file>` (its place in index.js) and then that file's terms, each with the
  documents holding it; a query loads one shard per word typed;
- `search/docs/<file>-<n>.js`: what a result shows (page, anchor, session title, time, an excerpt), each
  input file's documents in stores of `DOCUMENTS_PER_STORE`, loaded only for the results shown.

A document is one thing a page shows, taken from its blocks (`markdown.blocks`), so the index holds what
the pages hold and nothing they redact: a session's title, a prompt, a reply, a plan, a thinking block,
and of each tool call its command (a shell command, a pattern, a query), the path it read or changed,
code it wrote or changed, and its output. Of each text the first `SEARCHED_CHARACTERS` are indexed (of a
long text the page shows the start, and the note linking the rest carries more of it, `Prose.unshown`):
what lies past that in a text of megabytes (a log, a dump) is not found.

Each input file also leaves `search/words/<file>.txt.gz`, its own inverted index, already in the shards'
encoding and cut by shard: the term shards are put together from these on every build, so files kept from
the previous site (an incremental build) need not be read again, and the merge only joins byte ranges (it
was a second of every build, incremental ones included, when it went term by term). A term's place among
a file's lines is the low `FINE_SHARD_BITS` bits of its shard hash, read backwards: whatever the number of
shards (a power of two), the terms of one shard are then one run of lines. Only the build reads these
lists, so they are compressed, at gzip's fastest level (a third of their size; the better levels cost the
build far more than they save), each write a gzip member of its own (a block, or the last block with the
closing line): gzip reads them as one stream.

The words a text is indexed by are `words`'s; what a result shows of it, `excerpting`'s.
"""

from __future__ import annotations

import array
import bisect
import gzip
import json
import logging
import operator
import re
import sys
import tempfile
import zlib
from dataclasses import dataclass
from itertools import accumulate, chain, compress, repeat
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import orjson

from ...core import urls
from ...core.registry import Registry
from ...core.text import plain
from ..markdown.blocks import Block, Code, Group, Prose
from .excerpting import EXCERPT_CHARACTERS, excerpt, flat_excerpt
from .words import EXCERPTED_CHARACTERS, SEARCHED_CHARACTERS, IndexedText, indexed, searched_part, terms

__all__ = [
    "BLOCK_LINE", "DOCUMENTS_PER_STORE", "EXCERPTED_CHARACTERS", "EXCERPT_CHARACTERS", "FILE_LINE", "INDEXERS", "KINDS",
    "SEARCHED_CHARACTERS", "Document", "FileSearchRecorder", "IndexedText", "SearchIndexSize", "documents_of", "excerpt",
    "indexed", "searched_part", "shard_of", "terms", "write_index",
]

log = logging.getLogger("sessionsite")

KINDS = ("session", "prompt", "reply", "plan", "thinking", "command", "path", "code", "output")
"""What a document is, in the order results are ranked in (app.js ranks the first four above the rest);
index.js holds a document's kind as its place here, one base-36 digit."""
DOCUMENTS_PER_STORE = 64
"""A session's documents are cut into stores of this many, so that showing a page of results loads a
few of them, well under a megabyte."""
SHARD_TARGET_BYTES = 96 * 1024
"""Term shards are made about this size, so a query loads little whatever the archive's size."""
FINE_SHARD_BITS = 12
MAX_SHARDS = 1 << FINE_SHARD_BITS
SHARD_PREFIX = 3
"""A term's shard is chosen by its first three letters: a query word of three letters or more finds every
term it starts in one shard, and common starts ("co", "re") do not make one shard huge."""
SPILL_BYTES = 64_000_000
"""How much of the shards the merge holds before writing it out to its scratch files."""
KEPT_BYTES = 64_000_000
"""How much of the word lists the merge keeps from reading them for their size to cutting them: the rest is
read again."""
POSTINGS_PER_BLOCK = 200_000
"""How many (term, document) pairs a file's recorder holds before writing a block of its word list (a term in
two blocks is two lines of its shard). A block is written all at once, some 40 bytes a posting for the moment:
at two million, a session's memory grew with its length (a 40 MB session took 13 MB more than a 10 MB one;
here 5 MB)."""
BLOCK_LINE = "\tblock\t"
FILE_LINE = "\tfile\t"
"""A word list is blocks, each a line starting so (no term is empty) with what the block holds in JSON
(its size in bytes, its line count, how many runs of lines of one fine shard), then each run's fine key and
where it starts (`_packed`), then those lines; and a last line saying in JSON what the file brought: how
many documents, their kinds, its project."""
_EMPHASIS = re.compile(r"(?<!\\)\*+")
"""Emphasis marks (asterisks; underscores are left alone, being far more often part of a name)."""
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|\\$", re.M)
"""A backslash before ASCII punctuation (how `escape` keeps typed text literal), or ending a line (a hard
break): a reader sees the character, or nothing."""

_HEADING_MARKS = re.compile(r"^\s{0,3}#{1,6}\s+", re.M)
"""The marks of a heading, as `plain` takes them out."""


def shard_of(term: str, shards: int) -> int:
    """Which term shard holds a term: a hash of its first three letters (app.js computes the same)."""
    value = 0
    for character in term[:SHARD_PREFIX]:
        value = (value * 31 + ord(character)) & 0xFFFFFFFF
    return value % shards



@dataclass(slots=True)
class Document:
    """One thing a page shows, as the index keeps it."""

    kind: str
    """One of `KINDS`."""
    anchor: str
    """Where on its page (empty: the top)."""
    timestamp: str
    text: str


def documents_of(blocks: Iterable[Block], timestamp: str = "") -> Iterator[Document]:
    """The documents in a page's blocks, in reading order. Only groups hold transcript text worth finding;
    our own lines (meta, labels, notes) are left out, and the text past a long text's start, which only
    its note carries, is put back."""
    for block in blocks:
        if isinstance(block, Group):
            yield from _group_documents(block, block.fact("time") or timestamp)


GroupIndexer = Callable[[Group, str], Iterator[Document]]
INDEXERS: Registry[str, GroupIndexer] = Registry("indexers of page groups")
"""By the `kind` of a group (`blocks.Group`): the documents it gives, given the time it is shown at."""


def _group_documents(group: Group, timestamp: str) -> Iterator[Document]:
    return INDEXERS.lookup(group.kind)(group, timestamp)


@INDEXERS.fallback
def _nothing_to_find(group: Group, timestamp: str) -> Iterator[Document]:
    """A notice, an unknown or unreadable entry: what sessionsite says about the log, not the conversation."""
    return iter(())


@INDEXERS.register("prompt")
def _prompt_documents(group: Group, timestamp: str) -> Iterator[Document]:
    yield Document("prompt", group.anchor, timestamp, _text_of(group.children))


@INDEXERS.register("message")
def _reply_documents(group: Group, timestamp: str) -> Iterator[Document]:
    yield Document("reply", group.anchor, timestamp, _text_of(group.children))
    for child in group.children:
        if isinstance(child, Group):
            yield from _group_documents(child, timestamp)


@INDEXERS.register("plan", "thinking")
def _documents_of_their_own_kind(group: Group, timestamp: str) -> Iterator[Document]:
    yield Document(group.kind, group.anchor, timestamp, _text_of(group.children))


@INDEXERS.register("tool", "bash-mode", "command-output")
def _tool_documents(group: Group, timestamp: str) -> Iterator[Document]:
    """A tool call, or a command the user ran: what it was asked to do, then what it gave."""
    facts = dict(reversed(group.facts))  # a fact's first value, as `Group.fact` gives it
    command = facts.get("command", "")
    commands: list[str] = [command] if command else []
    code: list[str] = []
    output: list[str] = []
    for child in group.children:
        if isinstance(child, Code):
            (commands if child.kind == "command" else output if child.kind == "output" else code).append(child.code)
        elif isinstance(child, Prose):
            if child.by != "sessionsite":
                output.append(_readable(child.text))  # a subagent's task and result, a fetched page
            if child.unshown:
                output.append(child.unshown)
    target = facts.get("target", "")
    if facts.get("target-is") == "path":
        yield Document("path", group.anchor, timestamp, target)
    elif target and not commands:
        commands.append(target)  # a pattern, a query, a URL, a task's description
    for kind, texts in (("command", commands), ("code", code), ("output", output)):
        if any(text and not text.isspace() for text in texts):  # (`strip` would copy a long output)
            yield Document(kind, group.anchor, timestamp, "\n".join(texts))


def _text_of(blocks: Iterable[Block]) -> str:
    """The transcript text among a group's own blocks (not in the groups inside it), as a reader sees it."""
    parts = []
    for block in blocks:
        if isinstance(block, Prose):
            if block.by != "sessionsite":
                parts.append(_readable(block.text))
            if block.unshown:
                parts.append(block.unshown)
        elif isinstance(block, Code):
            parts.append(block.code)
    return "\n".join(parts)


def _readable(markdown: str) -> str:
    """Markdown as its words read: without the escapes `escape` put in and the marks of emphasis."""
    # Each step is skipped, or done with `str.replace`, where the text holds nothing it could change
    # otherwise: most prose has no escape and few marks, and these were most of finding the documents.
    if "*" in markdown:
        markdown = _EMPHASIS.sub("", markdown) if "\\*" in markdown else markdown.replace("*", "")
    if "\\" in markdown:
        markdown = _MARKDOWN_ESCAPE.sub(lambda match: match.group(1) or "", markdown)
    if "*" in markdown:
        return plain(markdown)
    # Left: what `plain` takes out in one pass, one kind at a time (its pattern tried at every character was
    # a twentieth of the search stage). A heading's marks are spaces and hashes after a line's end: taking
    # them out leaves a line's end before what followed, and makes no new mark.
    if "#" in markdown:
        markdown = _HEADING_MARKS.sub("", markdown)
    return markdown.replace("`", "") if "`" in markdown else markdown


_KIND_DIGITS = {kind: "0123456789abcdefghijklmnopqrstuvwxyz"[number] for number, kind in enumerate(KINDS)}
"""Each kind's base-36 digit in index.js."""


class FileSearchRecorder:
    """The documents of one input file's sessions, recorded page by page as phase 2 renders them: every
    `DOCUMENTS_PER_STORE` documents a document store is written, and every `POSTINGS_PER_BLOCK` postings a
    block of the file's word list. A session of any length costs the memory of one store and one block."""

    def __init__(self, name: str, output: Any, project: str = ""):
        self.name = name
        self.output = output
        """Where the files go: the staging folder's `write` and `append`."""
        self.project = project
        """The real path of the file's project, which results name."""
        self.count = 0
        self.kinds: list[str] = []
        self.rows: list[list[Any]] = []
        self.pages: dict[str, int] = {}
        self.titles: dict[str, int] = {}
        self.postings: dict[str, list[int]] = {}
        self.postings_held = 0

    def add_page(self, title: str, page_path: str, blocks: Iterable[Block], first: bool, started: str = "") -> None:
        """A page's documents; the first page of a session also makes a document of its title."""
        if first:
            self.add(title, page_path, Document("session", "", started, title))
        for document in documents_of(blocks):
            self.add(title, page_path, document)

    def add(self, title: str, page_path: str, document: Document) -> None:
        # Flattened and lowercased once: the terms and the excerpt are both taken from these.
        text = indexed(document.text)
        if not text.flat and not document.text.strip():
            return
        page_number = self.pages.setdefault(page_path, len(self.pages))
        title_number = self.titles.setdefault(title, len(self.titles))
        words = text.terms
        shown = "" if document.kind == "session" else flat_excerpt(text.flat, text.lowered, text.excerpted, text.cut)
        self.rows.append([page_number, document.anchor, title_number, document.timestamp[:16], shown])
        self.kinds.append(_KIND_DIGITS[document.kind])
        postings, number = self.postings, self.count
        for term in words:
            found = postings.get(term)
            if found is None:
                postings[term] = [number]
            else:
                found.append(number)
        self.postings_held += len(words)
        self.count += 1
        if len(self.rows) == DOCUMENTS_PER_STORE:
            self._write_store()
        if self.postings_held >= POSTINGS_PER_BLOCK:
            self._write_words()

    def _write_store(self) -> None:
        name = f"{self.name}-{(self.count - 1) // DOCUMENTS_PER_STORE}"
        store = _json_bytes({"pages": list(self.pages), "titles": list(self.titles), "docs": self.rows})
        self.output.write(urls.search_documents(name), b"sessionsiteSearch.docs(%s,%s);\n" % (json.dumps(name).encode(), store))
        self.rows, self.pages, self.titles = [], {}, {}

    def _write_words(self, closing: bytes = b"") -> None:
        """A block of the word list (`_word_block`), and the `closing` line after it (one write)."""
        data = self._word_block() + closing
        if data:
            self.output.append(urls.search_words(self.name), _compressed(data))
        self.postings, self.postings_held = {}, 0

    def _word_block(self) -> bytes:
        """A block of the word list: each term's documents as gaps from the file's first document, lines in
        the shards' encoding (a term holds letters and digits only, so inside the shard's JSON string
        only the tab and the line's end need escaping), ordered so that each shard's lines are one run."""
        if not self.postings:
            return b""
        terms = sorted(self.postings)
        # Each step below runs once per term or per posting, and a file holds thousands: kept to C (maps,
        # sorts, joins), for all the terms at once.
        fine_keys = _fine_keys(terms)
        order = sorted(range(len(terms)), key=fine_keys.__getitem__)  # stable: a key's terms stay in order
        terms = list(map(terms.__getitem__, order))
        fine_keys.sort()
        deltas = _all_deltas(list(map(self.postings.__getitem__, terms)), self.count)
        text = "".join(chain.from_iterable(zip(terms, repeat("\\t"), deltas, repeat("\\n"))))
        body = text.encode()
        # Where each fine key's run starts: its first line (one whose key differs from the line's before),
        # after the lines before it, each its term, its gaps and four characters (two escapes).
        firsts = list(compress(range(len(fine_keys)), map(operator.ne, fine_keys, [-1, *fine_keys])))
        keys = list(map(fine_keys.__getitem__, firsts))
        term_sizes = map(len, terms if len(body) == len(text) else map(str.encode, terms))
        before = list(accumulate(map(operator.add, term_sizes, map(len, deltas)), initial=0))
        starts = list(map(operator.add, map(before.__getitem__, firsts), map(operator.mul, firsts, repeat(4))))
        header = json.dumps({"size": len(body), "lines": len(terms), "keys": len(keys)}, separators=(",", ":"))
        return f"{BLOCK_LINE}{header}\n".encode() + _packed(keys) + _packed(starts) + body

    def finish(self) -> None:
        """The last documents, and the word list's closing line: what the file brought (some documents
        may hold no word at all)."""
        if self.rows:
            self._write_store()
        closing = b""
        if self.count:
            about = {"count": self.count, "kinds": "".join(self.kinds), "project": self.project}
            closing = f"{FILE_LINE}{json.dumps(about, ensure_ascii=False, sort_keys=True)}\n".encode()
        self._write_words(closing)


def _json_bytes(value: Any) -> bytes:
    """`value` (strings, whole numbers, lists and dicts) in JSON as `json.dumps` writes it with `ensure_ascii=False`
    and no spaces, in UTF-8: by orjson, which writes the same bytes for these in a fifth of the time (a
    store is mostly excerpts), or by `json` for what orjson refuses (a lone surrogate, a number past 64 bits),
    which then fails or not as before."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True, slots=True)
class SearchIndexSize:
    documents: int
    term_lines: int
    """A term's line for each file holding it (a term in several files has a line in each)."""


@dataclass(slots=True)
class _WordBlock:
    keys: array.array[int]
    starts: array.array[int]
    body: bytes


_UINT32 = next(code for code in "IL" if array.array(code).itemsize == 4)


def _packed(numbers: list[int]) -> bytes:
    """Numbers under 2**32 as 4 bytes each, little-endian: a block's fine keys and where their lines start,
    read by every build for every file (as JSON, reading them was a fifth of the merge)."""
    packed = array.array(_UINT32, numbers)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def _unpacked(data: bytes) -> array.array[int]:
    numbers = array.array(_UINT32)
    numbers.frombytes(data[:len(data) - len(data) % numbers.itemsize])
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers


def _read_word_list(path: Path) -> tuple[list[_WordBlock], dict[str, Any], int]:
    """A word list's blocks, what its file brought, and how many term lines it holds."""
    data = gzip.decompress(path.read_bytes())
    blocks: list[_WordBlock] = []
    about: dict[str, Any] | None = None
    lines = 0
    position = 0
    block_line, file_line = BLOCK_LINE.encode(), FILE_LINE.encode()
    while position < len(data):
        end = data.index(b"\n", position)
        line = data[position:end]
        position = end + 1
        if line.startswith(block_line):
            header = json.loads(line[len(block_line):])
            count, size = header["keys"], header["size"]
            keys = _unpacked(data[position:position + 4 * count])
            starts = _unpacked(data[position + 4 * count:position + 8 * count])
            position += 8 * count
            if len(starts) != count or position + size > len(data):
                raise ValueError("a block cut short")
            blocks.append(_WordBlock(keys, starts, data[position:position + size]))
            position += size
            lines += header["lines"]
        elif line.startswith(file_line):
            about = json.loads(line[len(file_line):])
        else:
            raise ValueError(f"{path}: not a word list of this version of sessionsite")
    if about is None:  # every word list ends so: one without it was cut short (emptied, even)
        raise ValueError("no closing line")
    return blocks, about, lines


def write_index(root: Path, write: Callable[[str, bytes], None]) -> SearchIndexSize:
    """Put the word lists every input file left in the site (at `root`) together into the term shards and
    the index script, through `write(path, bytes)`. A shard is, for each file holding its terms (in their
    order in index.js), a line `:file` (the file's number, base 36) and that file's lines of the shard,
    `term<TAB>gaps`: the term's document numbers in that file as gaps.

    The word lists are read first for their size (which sets the number of shards), then cut into the
    shards, spilled to one scratch file per shard past `SPILL_BYTES`; up to `KEPT_BYTES` of them are kept
    from the first reading, the rest read again: memory stays bounded, whatever the archive's size."""
    words_folder = root / urls.SEARCH_WORDS_FOLDER
    lists = sorted(words_folder.glob("*.txt.gz")) if words_folder.is_dir() else []
    files: list[list[Any]] = []
    words_bytes = 0
    term_lines = 0
    readable = []
    kept: dict[Path, list[_WordBlock]] = {}
    kept_bytes = 0
    for path in lists:
        try:
            blocks, about, lines = _read_word_list(path)
        except (OSError, EOFError, ValueError, KeyError, TypeError, zlib.error) as error:
            # Only a damaged site gets here (a word list is ours, and replaced on every build of its
            # file): the file's sessions are left out of search, and the rest is still found.
            log.warning("%s: left out of the search index: %s", path, error)
            continue
        readable.append(path)
        size = sum(len(block.body) for block in blocks)
        words_bytes += size
        if kept_bytes + size <= KEPT_BYTES:
            kept[path] = blocks
            kept_bytes += size
        term_lines += lines
        files.append([path.name.split(".")[0], about["count"], about["project"], about["kinds"]])
    shards = 1
    while words_bytes / shards > SHARD_TARGET_BYTES and shards < MAX_SHARDS:
        shards *= 2
    shift = FINE_SHARD_BITS - (shards.bit_length() - 1)
    with tempfile.TemporaryDirectory(prefix="sessionsite-search-") as scratch_folder:
        scratch = Path(scratch_folder)
        pending: list[list[bytes]] = [[] for _ in range(shards)]
        pending_bytes = 0

        def spill() -> None:
            for number, parts in enumerate(pending):
                if parts:
                    with (scratch / str(number)).open("ab") as handle:
                        handle.write(b"".join(parts))
                    parts.clear()

        # A shard's lines in a block lie between the fine keys that start its run and the next one's.
        bits = FINE_SHARD_BITS - shift
        numbers = [_reversed_bits(top, bits) for top in range(shards)]
        boundaries = [top << shift for top in range(shards + 1)]
        for file_number, path in enumerate(readable):
            marker = f":{_base36(file_number)}\\n".encode()
            for block in kept.pop(path) if path in kept else _read_word_list(path)[0]:
                # Done for every file and shard (5,000 files into 1,024 shards is five million times): kept to
                # a comprehension and a loop that does nothing for a shard the block has no line of. A file in
                # several blocks names itself again in each: the shard reads the same.
                keys, body = block.keys, block.body
                starts = [*block.starts, len(body)]
                offsets = [starts[bisect.bisect_left(keys, boundary)] for boundary in boundaries]
                for number, low, high in zip(numbers, offsets, offsets[1:], strict=False):  # one offset more
                    if low != high:
                        parts = pending[number]
                        parts.append(marker)
                        parts.append(body[low:high])
                pending_bytes += len(body) + len(marker) * min(shards, len(keys))
            if pending_bytes > SPILL_BYTES:
                spill()
                pending_bytes = 0
        for number in range(shards):
            source = scratch / str(number)
            spilled = source.read_bytes() if source.exists() else b""
            payload = spilled + b"".join(pending[number])
            write(urls.search_terms(number), b"sessionsiteSearch.terms(%d,\"%s\");\n" % (number, payload))
    projects = sorted({project for _, _, project, _ in files})
    meta = {"shards": shards, "prefix": SHARD_PREFIX, "per_store": DOCUMENTS_PER_STORE, "kinds": KINDS,
            "searched": SEARCHED_CHARACTERS,
            "projects": projects,
            "files": [[name, count, projects.index(project), kinds] for name, count, project, kinds in files]}
    write(urls.SEARCH_INDEX, f"sessionsiteSearch.index({json.dumps(meta, ensure_ascii=False, separators=(',', ':'))});\n"
          .encode("utf-8"))
    return SearchIndexSize(documents=sum(file[1] for file in files), term_lines=term_lines)


def _fine_key(term: str) -> int:
    """Where a term's line goes among its file's: the low bits of its shard hash, read backwards."""
    return _reversed_bits(shard_of(term[:SHARD_PREFIX], MAX_SHARDS), FINE_SHARD_BITS)


_fine_keys_known: dict[str, int] = {}
"""`_fine_key` by a term's first three characters, for the starts met so far."""
_MOST_FINE_KEYS_KNOWN = 1 << 16
"""Starts in other scripts are many: past this many, those known are forgotten."""
_START = operator.itemgetter(slice(SHARD_PREFIX))


def _fine_keys(terms: list[str]) -> list[int]:
    """`_fine_key` of each term, in C but for the starts not met before."""
    global _fine_keys_known
    known = _fine_keys_known
    starts = list(map(_START, terms))
    new = set(starts).difference(known)
    if len(known) + len(new) > _MOST_FINE_KEYS_KNOWN:
        known = _fine_keys_known = {}
        new = set(starts)
    for start in new:
        known[start] = _fine_key(start)
    return list(map(known.__getitem__, starts))


def _reversed_bits(value: int, bits: int) -> int:
    """`value`'s lowest `bits` bits in reverse order (by its binary digits, in C: every new start of a term asks)."""
    return int(f"{value:0{bits}b}"[::-1], 2)


def _compressed(data: bytes) -> bytes:
    """A gzip member, the same bytes for the same data (no time in its header)."""
    return gzip.compress(data, compresslevel=1, mtime=0)


def _all_deltas(postings: list[list[int]], documents: int) -> list[str]:
    """Each list of ascending document numbers (all under `documents`) as its gaps in base 36, joined by
    commas (the first gap is from 0): the shards are most of the index's bytes. Made for all the lists at
    once, in C (a Python call per list was most of writing a word list): every gap is looked up in a table
    that spells it after a comma, or, for a list's first number (told apart by adding `documents`), after
    a line's end; the lot is joined, then split at the lines' ends."""
    spellings = _base36_up_to(documents)
    table = [*map(operator.add, repeat(","), spellings), *map(operator.add, repeat("\n"), spellings)]
    numbers = list(chain.from_iterable(postings))
    previous = [0, *numbers]
    previous.pop()
    for first in accumulate(map(len, postings[:-1]), initial=0):
        previous[first] = -documents
    spelt = "".join(map(table.__getitem__, map(operator.sub, numbers, previous))).split("\n")
    del spelt[0]
    return spelt


def _base36(number: int) -> str:
    if number < len(_SMALL_BASE36):
        return _SMALL_BASE36[number]
    return _base36_of(number)


def _base36_of(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if number == 0:
        return "0"
    text = ""
    while number:
        number, remainder = divmod(number, 36)
        text = digits[remainder] + text
    return text


def _base36_up_to(count: int) -> list[str]:
    """The spellings of 0 to `count` - 1."""
    global _spellings_known
    known = _spellings_known
    if count > len(known):
        known = _spellings_known = [*known, *map(_base36_of, range(len(known), count))]
    return known[:count]


_SMALL_BASE36 = [_base36_of(number) for number in range(36 * 36)]
"""Gaps between documents are mostly small: their spellings are made once."""
_spellings_known = _SMALL_BASE36
"""Those of `_base36_up_to`, as many as the longest list of documents asked for."""
