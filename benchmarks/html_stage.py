"""Where the HTML stage's CPU goes in a cold single-process build: session pages (their bodies, prose
through either parser, highlighting, sanitising, the templates) and writing the site's files.

    python3 benchmarks/html_stage.py ARCHIVE [--rounds 3]

Each round builds ARCHIVE into a fresh folder (`-j 1 --no-vault`) in this process, with the stage's entry
points wrapped in `time.thread_time()`, and prints the build's CPU time, its peak memory and each part's
seconds; then the median of the rounds. Compare two checkouts by running it with each, one after the
other: a loaded machine moves every figure by ±10%.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.cli import main as cli  # noqa: E402  (this checkout's, not an installed one)
from generator.output import write  # noqa: E402
from generator.pipeline import phase2  # noqa: E402
from generator.render.html import fast_prose, pages, render  # noqa: E402

spent: Counter[str] = Counter()


def timing(original: Callable[..., Any], label: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - started

    return wrapper


def timed(owner: Any, name: str, label: str) -> None:
    setattr(owner, name, timing(getattr(owner, name), label))


def instrument() -> None:
    # The page writer and the page builder call render_blocks by the names they imported.
    phase2.render_blocks = pages.render_blocks = timing(render.render_blocks, "page bodies")
    timed(pages.PageBuilder, "session_page", "session pages")
    timed(render, "render_prose", "  prose")
    timed(fast_prose, "render", "    through cmark-gfm")
    timed(render, "highlight", "  highlighting")
    timed(render, "sanitize", "  sanitising")
    timed(write.Staging, "write", "writing files")
    timed(write.Staging, "append", "appending to files")


def one_build(archive: Path) -> dict[str, float]:
    spent.clear()
    folder = Path(tempfile.mkdtemp(prefix="html-stage-"))
    started = time.process_time()
    try:
        cli(["build", str(archive), "-o", str(folder / "site"), "-j", "1", "--no-vault", "-q"], standalone_mode=False)
    finally:
        total = time.process_time() - started
        shutil.rmtree(folder)
    figures = dict(spent)
    figures["templates and the rest of a page"] = spent["session pages"] - spent["page bodies"]
    figures["the stage (pages and files)"] = (spent["session pages"] + spent["writing files"]
                                              + spent["appending to files"])
    figures["build"] = total
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    instrument()
    rounds = []
    for number in range(1, arguments.rounds + 1):
        rounds.append(one_build(arguments.archive))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"round {number}: build {rounds[-1]['build']:.2f} CPU s, "
              f"stage {rounds[-1]['the stage (pages and files)']:.2f} s, peak {peak} MB")
    print(f"median of {len(rounds)} rounds, CPU seconds:")
    for name in sorted(rounds[0], key=lambda name: -rounds[0][name]):
        print(f"  {name:36s} {statistics.median(figures.get(name, 0.0) for figures in rounds):6.2f}")


if __name__ == "__main__":
    main()
