"""Stage 8, search: the archive's full-text index, a writer over the markdown stage's typed blocks, as
static files a page can load from file:// and over HTTP alike.

Browsers refuse `fetch` on file://, but they run a `<script src>` there, so every index file is a script
that hands its data to `window.sessionsiteSearch` (themes/default/static/app.js). And an archive of
gigabytes must not make each page load one huge index, so the index is cut in three:

- `search/index.js`: how many term shards there are; each input file's documents (how many, the kind of
  each, one base-36 digit apiece, and the file's project), so that results are ranked and filtered by kind and
  project before anything else is loaded;
- `search/terms/<n>.js`: the terms whose first three letters (or two, for a two-letter term) hash to
  shard n, each with the documents holding it; a query loads one shard per word typed;
- `search/docs/<file>-<n>.js`: what a result shows (page, anchor, session title, time, an excerpt), each
  input file's documents in stores of `DOCUMENTS_PER_STORE`, loaded only for the results shown.

A document is one thing a page shows, taken from its blocks (`markdown.blocks`), so the index holds what
the pages hold and nothing they redact: a session's title, a prompt, a reply, a plan, a thinking block,
and of each tool call its command (a shell command, a pattern, a query), the path it read or changed,
code it wrote or changed, and its output. Texts are indexed whole: of a long text the page shows the
start, and the note linking the rest carries it (`Prose.unshown`). Each input file also leaves
`search/words/<file>.txt.gz`, its own inverted index: the term shards are merged from these on every
build, so files kept from the previous site (an incremental build) need not be read again. Only the build
reads them, so they are compressed (each block written is a gzip member of its own: gzip reads them as
one stream).
"""

from __future__ import annotations

import gzip
import heapq
import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..core import urls
from ..core.text import plain
from .markdown.blocks import Block, Code, Group, Prose

KINDS = ("session", "prompt", "reply", "plan", "thinking", "command", "path", "code", "output")
"""What a document is, in the order results are ranked in (app.js ranks the first four above the rest);
index.js holds a document's kind as its place here, one base-36 digit."""
EXCERPT_CHARACTERS = 480
"""Of each document's text, what its result can show: all of a short text; of a longer one its start and
the places where words of trouble ("Error", "Traceback", "failed"...) and then its longest words first
occur (an error, a name, a path: the words people search for), so that a snippet can show the words a
query found. The whole text is indexed."""
EXCERPT_START = 160
EXCERPT_CONTEXT = 40
"""Characters kept on each side of a word in an excerpt's windows."""
DOCUMENTS_PER_STORE = 64
"""A session's documents are cut into stores of this many, so that showing a page of results loads a
few of them, well under a megabyte."""
SHARD_TARGET_BYTES = 96 * 1024
"""Term shards are made about this size, so a query loads little whatever the archive's size."""
MAX_SHARDS = 4096
SHARD_PREFIX = 3
"""A term's shard is chosen by its first three letters: a query word of three letters or more finds every
term it starts in one shard, and common starts ("co", "re") do not make one shard huge."""
SPILL_CHARACTERS = 16_000_000
"""How much of the word lists the merge holds before writing it out to its scratch files."""
FILE_LINE = "\tfile\t"
"""The word list's last line starts so (no term is empty), and says in JSON what the file brought: how many
documents, their kinds, its project."""
MAX_TERM_LENGTH = 32
"""Longer runs of letters are hashes, base64 and the like: nobody searches for them by hand."""
_WORD = re.compile(r"[^\W_]+")
_TROUBLE = re.compile(r"error|exception|traceback|fail|fatal|panic|denied|warn|abort|refused|timeout|missing")
_TROUBLE_WORDS = frozenset({"traceback", "error", "exception", "failed", "fatal", "panic", "warning"})
_EMPHASIS = re.compile(r"(?<!\\)\*+")
"""Emphasis marks (asterisks; underscores are left alone, being far more often part of a name)."""
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|\\$", re.M)
"""A backslash before ASCII punctuation (how `escape` keeps typed text literal), or ending a line (a hard
break): a reader sees the character, or nothing."""


def terms(text: str) -> set[str]:
    """The words of a text as the index keeps them: lower case, split at anything but a letter or a
    digit (so `snake_case` is two words), two to 32 characters. app.js splits a query the same way."""
    return {word for word in set(_WORD.findall(text.lower())) if 2 <= len(word) <= MAX_TERM_LENGTH}


def shard_of(term: str, shards: int) -> int:
    """Which term shard holds a term: a hash of its first three letters (app.js computes the same)."""
    value = 0
    for character in term[:SHARD_PREFIX]:
        value = (value * 31 + ord(character)) & 0xFFFFFFFF
    return value % shards


def excerpt(text: str, words: set[str] | None = None) -> str:
    """What a result can show of a text (`EXCERPT_CHARACTERS`): all of it on one line when it is short;
    else its start and, words of trouble first and then the longest, a window around the first place
    each occurs, in reading order, joined by " … ". `words`: the text's terms, when they are known."""
    flat = " ".join(text.split())
    if len(flat) <= EXCERPT_CHARACTERS:
        return flat
    lowered = flat.lower()
    if words is None:
        words = terms(flat)
    # Only the first few dozen candidates can fit: no need to sort them all, nor to find every word.
    longer = [word for word in words if len(word) >= 3]
    # Most texts name no trouble: then no word needs asking, and the longest come first.
    trouble = _TROUBLE.search(" ".join(longer)) is not None
    candidates = heapq.nsmallest(EXCERPT_CHARACTERS // EXCERPT_CONTEXT, longer,
                                 key=_trouble_first if trouble else _longest_first)
    spans = [(0, EXCERPT_START)]
    budget = EXCERPT_CHARACTERS - EXCERPT_START
    for word in candidates:
        if budget < 2 * EXCERPT_CONTEXT:
            break
        start = lowered.find(word)
        end = start + len(word)
        if start < 0 or any(low <= start and end <= high for low, high in spans):
            continue
        low, high = max(0, start - EXCERPT_CONTEXT), min(len(flat), end + EXCERPT_CONTEXT)
        # Whole words at the window's edges.
        space = flat.find(" ", low, start) if low else -1
        low = space + 1 if space >= 0 else low
        space = flat.rfind(" ", end, high) if high < len(flat) else -1
        window = (low, space if space >= 0 else high)
        if window[1] - window[0] <= budget:
            spans.append(window)
            budget -= window[1] - window[0]
    spans.sort()
    merged = [list(spans[0])]
    for low, high in spans[1:]:
        if low <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    shown = " … ".join(flat[low:high].strip() for low, high in merged)
    return shown + (" …" if merged[-1][1] < len(flat) else "")


def _longest_first(word: str) -> tuple[int, str]:
    return -len(word), word


def _trouble_first(word: str) -> tuple[int, int, str]:
    return _trouble_rank(word), -len(word), word


def _trouble_rank(word: str) -> int:
    """0 for a word that names trouble (`Traceback`), 1 for one that holds such a word (`ValueError`), else 2."""
    return 0 if word in _TROUBLE_WORDS else 1 if _TROUBLE.search(word) else 2


@dataclass(frozen=True, slots=True)
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


def _group_documents(group: Group, timestamp: str) -> Iterator[Document]:
    kind = group.kind
    if kind == "prompt":
        yield Document("prompt", group.anchor, timestamp, _text_of(group.children))
    elif kind == "message":
        yield Document("reply", group.anchor, timestamp, _text_of(group.children))
        for child in group.children:
            if isinstance(child, Group):
                yield from _group_documents(child, timestamp)
    elif kind in ("plan", "thinking"):
        yield Document(kind, group.anchor, timestamp, _text_of(group.children))
    elif kind in ("tool", "bash-mode", "command-output"):
        yield from _tool_documents(group, timestamp)


def _tool_documents(group: Group, timestamp: str) -> Iterator[Document]:
    """A tool call, or a command the user ran: what it was asked to do, then what it gave."""
    commands: list[str] = [group.fact("command")] if group.fact("command") else []
    code: list[str] = []
    output: list[str] = []
    for child in group.children:
        if isinstance(child, Code):
            {"command": commands, "output": output}.get(child.kind, code).append(child.code)
        elif isinstance(child, Prose) and child.by != "sessionsite":
            output.append(_readable(child.text))  # a subagent's task and result, a fetched page
        if isinstance(child, Prose) and child.unshown:
            output.append(child.unshown)
    target = group.fact("target")
    if group.fact("target-is") == "path":
        yield Document("path", group.anchor, timestamp, target)
    elif target and not commands:
        commands.append(target)  # a pattern, a query, a URL, a task's description
    for kind, texts in (("command", commands), ("code", code), ("output", output)):
        if any(text.strip() for text in texts):
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
    return plain(_MARKDOWN_ESCAPE.sub(lambda match: match.group(1) or "", _EMPHASIS.sub("", markdown)))


class FileSearchRecorder:
    """The documents of one input file's sessions, recorded page by page as phase 2 renders them: every
    `DOCUMENTS_PER_STORE` documents, a document store and a block of the file's word list are written.
    A session of any length costs the memory of one store."""

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

    def add_page(self, title: str, page_path: str, blocks: Iterable[Block], first: bool, started: str = "") -> None:
        """A page's documents; the first page of a session also makes a document of its title."""
        if first:
            self.add(title, page_path, Document("session", "", started, title))
        for document in documents_of(blocks):
            self.add(title, page_path, document)

    def add(self, title: str, page_path: str, document: Document) -> None:
        if not document.text.strip():
            return
        page_number = self.pages.setdefault(page_path, len(self.pages))
        title_number = self.titles.setdefault(title, len(self.titles))
        words = terms(document.text)
        shown = "" if document.kind == "session" else excerpt(document.text, words)
        self.rows.append([page_number, document.anchor, title_number, document.timestamp[:16], shown])
        self.kinds.append(_base36(KINDS.index(document.kind)))
        for term in words:
            self.postings.setdefault(term, []).append(self.count)
        self.count += 1
        if len(self.rows) == DOCUMENTS_PER_STORE:
            self._write_out()

    def _write_out(self) -> None:
        name = f"{self.name}-{(self.count - 1) // DOCUMENTS_PER_STORE}"
        store = json.dumps({"pages": list(self.pages), "titles": list(self.titles), "docs": self.rows},
                           ensure_ascii=False, separators=(",", ":"))
        self.output.write(urls.search_documents(name), f"sessionsiteSearch.docs({json.dumps(name)},{store});\n".encode())
        # A block of the word list: each term's documents as gaps from the file's first document, already
        # in the shards' encoding, so that merging is putting strings together. A term may have a line in
        # several blocks; each becomes its own `file:gaps` part in the shard.
        self.output.append(urls.search_words(self.name), _compressed("".join(
            f"{term}\t{_deltas(numbers)}\n" for term, numbers in sorted(self.postings.items()))))
        self.rows, self.pages, self.titles, self.postings = [], {}, {}, {}

    def finish(self) -> None:
        """The last documents, and the word list's closing line: what the file brought (some documents
        may hold no word at all)."""
        if self.rows:
            self._write_out()
        if self.count:
            about = {"count": self.count, "kinds": "".join(self.kinds), "project": self.project}
            self.output.append(urls.search_words(self.name),
                               _compressed(FILE_LINE + json.dumps(about, ensure_ascii=False, sort_keys=True) + "\n"))


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
    lists = sorted(words_folder.glob("*.txt.gz")) if words_folder.is_dir() else []
    shards = 1
    words_bytes = sum(_uncompressed_size(path) for path in lists)
    while words_bytes / shards > SHARD_TARGET_BYTES and shards < MAX_SHARDS:
        shards *= 2
    files: list[list[Any]] = []
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
            about: dict[str, Any] = {"count": 0, "kinds": "", "project": ""}
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith(FILE_LINE):
                        about = json.loads(line[len(FILE_LINE):])
                        continue
                    tab = line.index("\t")
                    start = line[:min(tab, SHARD_PREFIX)]  # every term has two letters or more
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
            files.append([path.name.split(".")[0], about["count"], about["project"], about["kinds"]])
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
    projects = sorted({project for _, _, project, _ in files})
    meta = {"shards": shards, "prefix": SHARD_PREFIX, "per_store": DOCUMENTS_PER_STORE, "kinds": KINDS,
            "projects": projects,
            "files": [[name, count, projects.index(project), kinds] for name, count, project, kinds in files]}
    write(urls.SEARCH_INDEX, f"sessionsiteSearch.index({json.dumps(meta, ensure_ascii=False, separators=(',', ':'))});\n"
          .encode("utf-8"))
    return SearchIndexSize(documents=sum(file[1] for file in files), terms=distinct_terms)


def _uncompressed_size(path: Path) -> int:
    with gzip.open(path) as handle:
        return sum(len(chunk) for chunk in iter(lambda: handle.read(1 << 20), b""))


def _compressed(text: str) -> bytes:
    """A gzip member, the same bytes for the same text (no time in its header)."""
    return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)


def _deltas(numbers: Iterable[int]) -> str:
    """Ascending document numbers as gaps in base 36: the shards are most of the index's bytes."""
    out = []
    previous = 0
    for number in numbers:
        out.append(_base36(number - previous))
        previous = number
    return ",".join(out)


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


_SMALL_BASE36 = [_base36_of(number) for number in range(36 * 36)]
"""Gaps between documents are mostly small: their spellings are made once."""
