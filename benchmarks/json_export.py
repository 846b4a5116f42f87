"""Does the JSON export stream? Prints the peak RSS and CPU time of `sessionsite json` beside the Markdown
build's (`sessionsite markdown`, the same pipeline with another writer), each in a process of its own with
`-j 1`, on the generated sessions of benchmarks/memory.py: one line of valid JSON too long to read whole
(written into its document a piece at a time), and a session of many short turns.

    python3 benchmarks/json_export.py [--line-mb 300] [--entries 200000]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memory import MEGABYTE, PROJECT_DIR, REPO, SESSION_NAME, write_many_entries, write_one_long_line

RUN = """
import resource, sys
from pathlib import Path
from generator.build import BuildConfig, build
from generator.json_export import export
config = BuildConfig(inputs=(Path(sys.argv[1]),), output=Path(sys.argv[2]), jobs=1, markdown_only=True)
report = (export if sys.argv[3] == "json" else build)(config)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(f"{usage.ru_utime + usage.ru_stime:.1f}")
print(usage.ru_maxrss * 1024)
"""


def measure(command: str, inputs: Path, output: Path) -> tuple[int, float, int]:
    """Peak RSS, CPU seconds (user + sys) and bytes written."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN, str(inputs), str(output), command], cwd=REPO,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{command} failed after {time.perf_counter() - started:.0f} s:\n{done.stderr[-3000:]}")
    cpu, peak = done.stdout.strip().splitlines()[-2:]
    written = sum(path.stat().st_size for path in output.rglob("*") if path.is_file())
    return int(peak), float(cpu), written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--line-mb", type=int, default=300, help="size of the one long line, in MB (0: skip)")
    parser.add_argument("--entries", type=int, default=200_000, help="entries of the long session (0: skip)")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sessionsite-json-"))
    try:
        print("| input | size | json: peak RSS | CPU | written | markdown: peak RSS | CPU | written |")
        print("|---|---|---|---|---|---|---|---|")
        cases = []
        if options.line_mb:
            cases.append((f"one line of {options.line_mb:,} MB", lambda p: write_one_long_line(p, options.line_mb)[0]))
        if options.entries:
            cases.append((f"{options.entries:,} entries", lambda p: write_many_entries(p, options.entries)))
        for number, (name, write) in enumerate(cases):
            inputs = folder / f"in-{number}"
            size = write(inputs / PROJECT_DIR / f"{SESSION_NAME}.jsonl")
            figures = []
            for command in ("json", "markdown"):
                peak, cpu, written = measure(command, inputs, folder / f"{command}-{number}")
                figures.append(f"{peak / MEGABYTE:.0f} MB | {cpu:.1f} s | {written / MEGABYTE:,.0f} MB")
                shutil.rmtree(folder / f"{command}-{number}", ignore_errors=True)
            print(f"| {name} | {size / MEGABYTE:,.0f} MB | {' | '.join(figures)} |", flush=True)
            shutil.rmtree(inputs, ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
