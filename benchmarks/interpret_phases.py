"""What does interpretation alone cost, as each phase of a build asks for it? Every log of an archive is read
into memory first (not timed), then interpreted on one process, and the CPU time (of this thread) printed:

    python3 benchmarks/interpret_phases.py /tmp/lead/arch [--rounds 5] [--repo /path/to/another/checkout]

- phase 1: with summaries and no sink for the events, as `phase1.summarise` interprets a file (its anchor
  maps, the redaction of its summaries and the reading are left out: other stages');
- phase 2: without summaries, every session's events handed to a sink that drops them, as
  `phase2.FileRenderer` interprets a file (redaction and rendering left out).

`benchmarks/read_interpret.py` times the same with the reading; `--repo` measures another checkout's code
(e.g. main's) with this same script, for an A/B comparison.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repo", type=Path, default=REPO)
    options = parser.parse_args()
    sys.path.insert(0, str(options.repo))
    from generator.config import discover_files
    from generator.stages.discover import readable
    from generator.stages.interpret import interpret_stream, without_repeated_result
    from generator.stages.read import stream_file
    from generator.stages.redact import Redactor

    redactor = Redactor()
    files = discover_files([options.archive], redactor.home, own=redactor.own)
    entries = {session_file: [without_repeated_result(item) for item in stream_file(readable(session_file), [])]
               for session_file in files}

    def drop(event: Any) -> None:
        pass

    def phase1() -> None:
        for session_file, items in entries.items():
            interpret_stream(session_file, items)

    def phase2() -> None:
        for session_file, items in entries.items():
            interpret_stream(session_file, items, sink_for=lambda key: drop, summarise=False)

    stages: list[tuple[str, Callable[[], None]]] = [("phase 1", phase1), ("phase 2", phase2)]
    print(f"{len(files)} files, {sum(map(len, entries.values()))} lines of {options.archive}, code of {options.repo}")
    spent: dict[str, list[float]] = {name: [] for name, _ in stages}
    for _ in range(options.rounds):
        for name, run in stages:
            started = time.thread_time()
            run()
            spent[name].append(time.thread_time() - started)
    for name, times in spent.items():
        ordered = sorted(times)
        print(f"{name:8s} median {ordered[len(ordered) // 2]:6.3f} s  (rounds: {', '.join(f'{t:.3f}' for t in times)})")


if __name__ == "__main__":
    main()
