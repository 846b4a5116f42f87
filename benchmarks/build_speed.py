"""How fast is a build? Times each phase on a synthetic archive and prints the figures.

    python3 benchmarks/build_speed.py [--copies N] [--source DIR] [--jobs N]

The archive is DIR (default: ../shared/corpus/public if present, else examples/) copied N times into a
temporary projects folder, each copy its own project, so the figures scale with real content.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from generator import __version__
from generator.build import collect, render_files
from generator.html.theme import Theme
from generator.markdown import MarkdownOptions
from generator.write import write_output

REPO = Path(__file__).resolve().parents[1]


def make_archive(source: Path, copies: int, into: Path) -> int:
    files = sorted(p for p in source.rglob("*.jsonl"))
    total = 0
    for copy in range(copies):
        for index, path in enumerate(files):
            relative = path.relative_to(source)
            is_subagent = "subagents" in relative.parts
            # Keep `<session>/subagents/agent-*.jsonl` beside its session; flatten everything else.
            project = into / f"-bench-{copy}-{relative.parts[0]}"
            target = project / Path(*relative.parts[-3:]) if is_subagent else project / f"{index:03d}-{path.name}"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            total += path.stat().st_size
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    corpus = REPO.parent / "shared" / "corpus" / "public"
    parser.add_argument("--source", type=Path, default=corpus if corpus.is_dir() else REPO / "examples")
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        archive = Path(scratch) / "projects"
        size = make_archive(args.source, args.copies, archive)
        timings = {}
        start = time.perf_counter()
        archive_model, report = collect([archive])
        timings["phase 1: read to link"] = time.perf_counter() - start

        start = time.perf_counter()
        files, _ = render_files(archive_model, Theme.load(None), MarkdownOptions(), args.jobs)
        timings[f"phase 2: render ({args.jobs} jobs)"] = time.perf_counter() - start

        start = time.perf_counter()
        write_output(files, Path(scratch) / "site")
        timings["write"] = time.perf_counter() - start
        written = sum(len(content) for _, content in files.items())
    total = sum(timings.values())
    megabytes = size / 1e6
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"sessionsite {__version__}: {report.sessions} sessions, {megabytes:.1f} MB of JSONL "
          f"({args.copies} copies of {args.source})")
    for phase, seconds in timings.items():
        print(f"  {phase:<30}{seconds:7.2f} s")
    print(f"  {'total':<30}{total:7.2f} s   {megabytes / total:.2f} MB/s of input, {written / 1e6:.1f} MB written")
    print(f"  peak memory of the main process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
