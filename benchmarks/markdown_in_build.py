"""How much CPU the Markdown writer takes inside a cold single-process build, and how much the build takes.

    python3 benchmarks/markdown_in_build.py ARCHIVE [--rounds 3] [--against OTHER_CHECKOUT]

Each round builds ARCHIVE (say the scaled corpus) cold into a fresh folder with `-j 1 --no-vault`, in a child
process that runs this checkout's (or the other's) code with `SessionDocument`'s entry points (`__init__`,
`__call__`, `finish`) wrapped in `time.thread_time`, less the time spent in the page writer it hands each
page to (the HTML stage and the search index, called from inside `__call__` and `finish`). Prints each
build's CPU and the Markdown writer's, and their medians; with --against, the two checkouts' builds
alternate, so that other load on the machine falls on both.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, shutil, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from generator.render import markdown
from generator.cli import main
spent = {"writer": 0.0, "pages": 0.0}
document = markdown.SessionDocument
original_init, original_call, original_finish = document.__init__, document.__call__, document.finish

def timed_init(self, *args, **kwargs):
    start = time.thread_time()
    original_init(self, *args, **kwargs)
    hand_on = self.on_part
    if hand_on is not None:
        def pages(part):
            started = time.thread_time()
            hand_on(part)
            spent["pages"] += time.thread_time() - started
        self.on_part = pages
    spent["writer"] += time.thread_time() - start

def timed(function):
    def run(self, *args):
        start = time.thread_time()
        function(self, *args)
        spent["writer"] += time.thread_time() - start
    return run

document.__init__, document.__call__, document.finish = timed_init, timed(original_call), timed(original_finish)
out = tempfile.mkdtemp()
started = time.process_time()
try:
    main(["build", sys.argv[2], "-o", out + "/site", "-j", "1", "--no-vault", "-q"], standalone_mode=False)
finally:
    build = time.process_time() - started
    shutil.rmtree(out)
print(json.dumps({"build": build, "markdown": spent["writer"] - spent["pages"]}))
"""


def measure(checkout: Path, archive: Path) -> dict[str, float]:
    found = subprocess.run([sys.executable, "-c", _CHILD, str(checkout), str(archive)], check=True,
                           capture_output=True, text=True)
    result: dict[str, float] = json.loads(found.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout, measured in alternation")
    arguments = parser.parse_args()
    checkouts = [ROOT] + ([arguments.against.resolve()] if arguments.against else [])
    results: dict[Path, list[dict[str, float]]] = {checkout: [] for checkout in checkouts}
    for round_number in range(1, arguments.rounds + 1):
        for checkout in checkouts:
            result = measure(checkout, arguments.archive)
            results[checkout].append(result)
            print(f"round {round_number} {checkout}: build {result['build']:.2f} s CPU, "
                  f"Markdown writer {result['markdown']:.3f} s", flush=True)
    for checkout, rounds in results.items():
        print(f"median {checkout}: build {statistics.median(r['build'] for r in rounds):.2f} s CPU, "
              f"Markdown writer {statistics.median(r['markdown'] for r in rounds):.3f} s")


if __name__ == "__main__":
    main()
