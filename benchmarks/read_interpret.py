"""What do reading and interpreting cost, in the two phases of a build? Prints the CPU time (of this thread)
of each, over every log of an archive, on one process:

    python3 benchmarks/read_interpret.py /tmp/lead/arch [--rounds 3] [--repo /path/to/another/checkout]

- read: every line of every file read into entries (`stream_file`), nothing more;
- phase 1: `phase1.summarise` of each file, as a build's workers run it (read, interpret with summaries,
  the summaries redacted, anchor maps written);
- phase 2: each file read in batches and interpreted without summaries, as `phase2.FileRenderer` does, its
  events handed to a sink that drops them (redaction and rendering are left out: they are other stages').

`--repo` measures another checkout's code (e.g. main's) with this same script, for an A/B comparison.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=REPO)
    options = parser.parse_args()
    sys.path.insert(0, str(options.repo))
    from generator.config import discover_files
    from generator.pipeline.phase1 import summarise
    from generator.pipeline.plans import Redaction
    from generator.stages.discover import readable
    from generator.stages.interpret import interpret_stream, without_repeated_result
    from generator.stages.read import stream_file, stream_file_in_batches
    from generator.stages.redact import Redactor

    redactor = Redactor()
    redaction = Redaction(secrets=redactor.secrets, home=redactor.home, own=redactor.own)
    files = discover_files([options.archive], redactor.home, own=redactor.own)

    def read_all() -> None:
        for session_file in files:
            for _ in stream_file(readable(session_file), []):
                pass

    def phase1() -> None:
        with tempfile.TemporaryDirectory() as folder:
            for session_file in files:
                summarise(session_file, redaction, anchor_folder=Path(folder))

    def drop(event: Any) -> None:
        pass

    def phase2() -> None:
        for session_file in files:
            entries = (without_repeated_result(item) for batch in stream_file_in_batches(readable(session_file), [])
                       for item in batch)
            interpret_stream(session_file, entries, sink_for=lambda key: drop, summarise=False)

    stages: list[tuple[str, Callable[[], None]]] = [("read", read_all), ("phase 1", phase1), ("phase 2", phase2)]
    print(f"{len(files)} files of {options.archive}, code of {options.repo}")
    spent: dict[str, list[float]] = {name: [] for name, _ in stages}
    for _ in range(options.rounds):
        for name, run in stages:
            started = time.thread_time()
            run()
            spent[name].append(time.thread_time() - started)
    for name, times in spent.items():
        ordered = sorted(times)
        print(f"{name:8s} median {ordered[len(ordered) // 2]:6.2f} s  (rounds: {', '.join(f'{t:.2f}' for t in times)})")


if __name__ == "__main__":
    main()
