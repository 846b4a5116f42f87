"""How big is the search index of a large archive, how long does merging it take, and how much does one
query make the browser load?

    python3 benchmarks/search_index.py [--documents 200000] [--files 5000] [--terms-per-document 60]

Writes the per-file word lists a build leaves in `search/words/` (as generator.render.search writes them) for a
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
        text = "".join(f"{w}\t{search._deltas(d)}\n" for w, d in sorted(postings.items()))
        text += f"{search.COUNT_LINE}{per_file}\n"
        (folder / f"{urls.search_name(str(number))}.txt").write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=5_000)
    parser.add_argument("--terms-per-document", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
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
        words_bytes = sum(p.stat().st_size for p in (root / "search" / "words").glob("*.txt"))
        shard_bytes = [p.stat().st_size for p in shards]

        def query_bytes(word: str) -> int:
            return (root / urls.search_terms(search.shard_of(word, len(shards)))).stat().st_size

        lines = (root / urls.search_words(urls.search_name("0"))).read_text().splitlines()[:-1]
        by_frequency = sorted(lines, key=lambda line: -len(line.split("\t")[1].split(",")))
        common, rare = by_frequency[0].split("\t")[0], by_frequency[-1].split("\t")[0]
        print(f"| documents | terms | merge time | merge memory | term shards | largest shard | median shard "
              f"| word lists | query '{common}' (most common) | query '{rare}' (rare) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {size.documents:,} | {size.terms:,} | {seconds:.1f} s | +{(memory_after - memory_before) / 1024:.0f} MB "
              f"| {len(shards):,} | {shard_bytes[-1] / 1024:.0f} KB | {shard_bytes[len(shard_bytes) // 2] / 1024:.0f} KB "
              f"| {words_bytes / 2**20:.1f} MB | {query_bytes(common) / 1024:.0f} KB | {query_bytes(rare) / 1024:.0f} KB |")


if __name__ == "__main__":
    main()
