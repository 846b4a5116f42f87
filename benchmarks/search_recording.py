"""How much CPU does the search stage take in a build: finding the documents of each page, indexing them,
writing the document stores and the word lists? Prints the stage's thread CPU time per round, split into
recording pages (`FileSearchRecorder.add_page`) and finishing each file (`FileSearchRecorder.finish`).

    python3 benchmarks/search_recording.py [--archive DIR] [--rounds 5]

The archive (default: the scaled public corpus the lead's benchmarks use, /tmp/lead/arch) is built once
with `-j 1 --no-vault`, keeping every page's blocks as the build hands them to the search stage; then the
stage alone is run on them again, round after round, into memory (no files: a build's writing of them is
the file system's time, which other stages share). A change to generator/render/search/ is then timed
without the rest of the build's noise; compare two checkouts by running this from each, back to back.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from generator.cli import main as sessionsite  # noqa: E402 - the checkout being measured
from generator.render import search  # noqa: E402


class _Memory:
    """A staging folder's `write` and `append`, into memory."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write(self, path: str, content: bytes) -> None:
        self.files[path] = content

    def append(self, path: str, content: bytes) -> None:
        self.files[path] = self.files.get(path, b"") + content


def captured_pages(archive: Path) -> list[tuple[str, str, list[tuple[Any, ...]]]]:
    """Each input file's recorder (its name and project) with the pages it was given, in order."""
    files: list[tuple[str, str, list[tuple[Any, ...]]]] = []
    recorder_init, add_page = search.FileSearchRecorder.__init__, search.FileSearchRecorder.add_page

    def capturing_init(self: search.FileSearchRecorder, name: str, output: Any, project: str = "") -> None:
        recorder_init(self, name, output, project)
        files.append((name, project, []))

    def capturing_add_page(self: search.FileSearchRecorder, title: str, page_path: str, blocks: Any, first: bool,
                           started: str = "") -> None:
        blocks = list(blocks)
        files[-1][2].append((title, page_path, blocks, first, started))
        add_page(self, title, page_path, blocks, first, started)

    search.FileSearchRecorder.__init__ = capturing_init  # type: ignore[method-assign]
    search.FileSearchRecorder.add_page = capturing_add_page  # type: ignore[method-assign]
    out = Path(tempfile.mkdtemp(prefix="sessionsite-search-recording-"))
    try:
        sessionsite(["build", str(archive), "-o", str(out / "site"), "-j", "1", "--no-vault", "-q"], standalone_mode=False)
    finally:
        search.FileSearchRecorder.__init__ = recorder_init  # type: ignore[method-assign]
        search.FileSearchRecorder.add_page = add_page  # type: ignore[method-assign]
        shutil.rmtree(out)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", type=Path, default=Path("/tmp/lead/arch"), help="a folder of logs")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    files = captured_pages(options.archive)
    print(f"{len(files)} input files, {sum(len(pages) for _, _, pages in files)} pages")
    print("| round | add_page | finish | stage |")
    print("|---|---|---|---|")
    totals = []
    for number in range(options.rounds):
        memory = _Memory()
        recording = finishing = 0.0
        for name, project, pages in files:
            started = time.thread_time()
            recorder = search.FileSearchRecorder(name, memory, project)
            for title, page_path, blocks, first, session_started in pages:
                recorder.add_page(title, page_path, blocks, first, session_started)
            recorded = time.thread_time()
            recorder.finish()
            recording += recorded - started
            finishing += time.thread_time() - recorded
        totals.append(recording + finishing)
        print(f"| {number + 1} | {recording:.3f} s | {finishing:.3f} s | {recording + finishing:.3f} s |")
    print(f"\nstage CPU: median {statistics.median(totals):.3f} s, best {min(totals):.3f} s; "
          f"{len(memory.files)} files, {sum(map(len, memory.files.values())) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
