"""How big is the search index, against the site, and how much of it does one query make the browser load?

    python3 benchmarks/search_index.py [--archive DIR | --site DIR] [--query WORDS]...
    python3 benchmarks/search_index.py --synthetic [--documents 200000] [--files 5000] [--terms-per-document 60]

By default, on real logs: the public corpus copied six times into 12 projects (90 MB, made with
../shared/tools/scale_corpus.py unless `--archive` names it), built with `--no-vault`. It prints the index's
size against the site's, and for a few real queries what headless Chromium loads from file:// to show the
first page of results (index.js, the term shards, the document stores of the results shown), with the
number of results and the kinds of the first ones.

`--synthetic` writes the per-file word lists a build leaves in `search/words/` (as generator.render.search writes them) for a
synthetic archive whose words follow Zipf's law over a 300,000-word vocabulary, as prose does; then times
`write_index` (the step every build runs, incremental ones included) and prints the sizes a reader meets:
the whole index, the largest term shard, and the bytes loaded to search for a common and for a rare word.
(From the public corpus: 17 MB of logs gave 444 documents of about 55 distinct words each, so 200,000
documents stand for roughly 8 GB of real logs.)
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from generator.core import urls  # noqa: E402 - the checkout being measured
from generator.render import search  # noqa: E402


def vocabulary(size: int, rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 11))))
    ranked = sorted(words)
    rng.shuffle(ranked)  # a word's frequency has nothing to do with its letters
    return ranked


def write_word_lists(root: Path, documents: int, files: int, per_document: int, seed: int) -> None:
    rng = random.Random(seed)
    words = vocabulary(300_000, rng)
    # Zipf: the word of rank r turns up with weight 1/r.
    cumulative, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1 / rank
        cumulative.append(total)
    folder = root / urls.SEARCH_WORDS_FOLDER
    folder.mkdir(parents=True)
    per_file = max(1, documents // files)
    for number in range(files):
        postings: dict[str, list[int]] = {}
        for document in range(per_file):
            for word in set(rng.choices(words, cum_weights=cumulative, k=per_document)):
                postings.setdefault(word, []).append(document)
        # As a build's recorder writes them: its word-list blocks, then what the file brought.
        recorder = search.FileSearchRecorder(urls.search_name(str(number)), _Folder(root),
                                             f"/home/user/project{number % 12}")
        recorder.postings, recorder.count, recorder.kinds = postings, per_file, ["2"] * per_file
        recorder.finish()


class _Folder:
    """The staging folder's `append`, enough for a recorder's word list."""

    def __init__(self, root: Path):
        self.root = root

    def append(self, path: str, content: bytes) -> None:
        with (self.root / path).open("ab") as handle:
            handle.write(content)


def synthetic(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        started = time.perf_counter()
        write_word_lists(root, args.documents, args.files, args.terms_per_document, args.seed)
        print(f"word lists written in {time.perf_counter() - started:.1f} s")

        def write(path: str, content: bytes) -> None:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)

        memory_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        size = search.write_index(root, write)
        seconds = time.perf_counter() - started
        memory_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        shards = sorted((root / "search" / "terms").glob("*.js"), key=lambda p: p.stat().st_size)
        words_bytes = sum(p.stat().st_size for p in (root / "search" / "words").glob("*.txt.gz"))
        shard_bytes = [p.stat().st_size for p in shards]

        def query_bytes(word: str) -> int:
            return (root / urls.search_terms(search.shard_of(word, len(shards)))).stat().st_size

        blocks = search._read_word_list(root / urls.search_words(urls.search_name("0")))[0]
        # A block's lines as the shards hold them: `term\\tgaps\\n`, the tab and line end escaped.
        lines = [line.split("\\t") for block in blocks for line in block.body.decode().split("\\n") if line]
        by_frequency = sorted(lines, key=lambda line: -len(line[1].split(",")))
        common, rare = by_frequency[0][0], by_frequency[-1][0]
        print(f"| documents | term lines | merge time | merge memory | term shards | largest shard | median shard "
              f"| word lists | query '{common}' (most common) | query '{rare}' (rare) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {size.documents:,} | {size.term_lines:,} | {seconds:.1f} s | +{(memory_after - memory_before) / 1024:.0f} MB "
              f"| {len(shards):,} | {shard_bytes[-1] / 1024:.0f} KB | {shard_bytes[len(shard_bytes) // 2] / 1024:.0f} KB "
              f"| {words_bytes / 2**20:.1f} MB | {query_bytes(common) / 1024:.0f} KB | {query_bytes(rare) / 1024:.0f} KB |")


# -- the real archive ---------------------------------------------------------------------------------------

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
QUERIES = ("Traceback", "ModuleNotFoundError", "SandboxQueueProcessor.ts", "waybar", "config")
"""Words people look for in coding sessions: an error's first line, an exception, a file, a word of a
prompt, and a very common word (the most a query can load)."""


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def site_of(args: argparse.Namespace, work: Path) -> Path:
    if args.site:
        return args.site
    archive = args.archive
    if archive is None:
        archive = work / "archive"
        corpus = sorted(str(path) for path in args.corpus.rglob("*.jsonl"))
        if not corpus:
            sys.exit(f"no *.jsonl under {args.corpus}: pass --corpus, --archive, --site or --synthetic")
        subprocess.run([sys.executable, str(args.scale_tool), str(archive), "6", "12", *corpus], check=True,
                       stdout=subprocess.DEVNULL)
    site = work / "site"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "generator", "build", str(archive), "-o", str(site), "--no-vault", "-q"],
                   check=True, cwd=Path(__file__).resolve().parents[1])
    print(f"archive {folder_bytes(archive) / 2**20:.1f} MB ({archive}), built in {time.perf_counter() - started:.1f} s")
    return site


def query_in_browser(site: Path, queries: list[str], chromium: str) -> list[tuple[str, int, str, int, list[str]]]:
    """For each query, in a fresh page from file://: the results' status line, the bytes of the index
    files the page loaded (each file once), how many, and the kinds of the first five results."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for query in queries:
            page = browser.new_page()
            page.goto((site / "index.html").resolve().as_uri())
            page.fill("#site-search", query)
            page.wait_for_function("q => { const s = document.querySelector('#search-results .search-status');"
                                   " return s && s.textContent.includes(q); }", arg=query, timeout=60_000)
            page.wait_for_function("() => !document.querySelector('#search-results .search-list')"
                                   " || document.querySelectorAll('#search-results .search-list li').length > 0"
                                   " || /^0 /.test(document.querySelector('#search-results .search-status').textContent)")
            sources = page.evaluate("Array.from(document.querySelectorAll('script[src*=\"search/\"]'), s => s.src)")
            files = sorted({source.split("/search/", 1)[1] for source in sources})
            loaded = sum((site / "search" / name).stat().st_size for name in files)
            status = page.locator("#search-results .search-status").inner_text()
            kinds = page.locator("#search-results .result-kind").all_inner_texts()[:5]
            rows.append((query, loaded, status, len(files), kinds))
            page.close()
        browser.close()
    return rows


def real(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="sessionsite-search-bench-") as folder:
        site = site_of(args, Path(folder))
        site_bytes = folder_bytes(site)
        index_bytes = folder_bytes(site / urls.SEARCH_FOLDER)
        parts = {name: folder_bytes(site / urls.SEARCH_FOLDER / name) for name in ("terms", "docs", "words")}
        shards = sorted(path.stat().st_size for path in (site / urls.SEARCH_FOLDER / "terms").glob("*.js"))
        print(f"site {site_bytes / 2**20:.1f} MB; search index {index_bytes / 2**20:.1f} MB = "
              f"{100 * index_bytes / site_bytes:.1f}% of the site (term shards {parts['terms'] / 2**20:.1f} MB, "
              f"document stores {parts['docs'] / 2**20:.1f} MB, word lists {parts['words'] / 2**20:.1f} MB, "
              f"index.js {(site / urls.SEARCH_INDEX).stat().st_size / 1024:.0f} KB); "
              f"{len(shards)} term shards, largest {shards[-1] / 1024:.0f} KB")
        print("| query | loaded for the first page of results | files | results | first kinds |")
        print("|---|---:|---:|---|---|")
        for query, loaded, status, files, kinds in query_in_browser(site, args.query or list(QUERIES), args.chromium):
            print(f"| `{query}` | {loaded / 1024:.0f} KB | {files} | {status} | {', '.join(kinds)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", type=Path, help="a folder of logs to build (default: the scaled public corpus)")
    parser.add_argument("--site", type=Path, help="a site already built, to measure as it is")
    parser.add_argument("--query", action="append", help=f"a query to measure (repeatable; default {', '.join(QUERIES)})")
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus" / "public")
    parser.add_argument("--scale-tool", type=Path, default=SHARED / "tools" / "scale_corpus.py")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--synthetic", action="store_true", help="merge synthetic word lists instead (the scale of the merge)")
    parser.add_argument("--documents", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=5_000)
    parser.add_argument("--terms-per-document", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    synthetic(args) if args.synthetic else real(args)


if __name__ == "__main__":
    main()
