"""How much CPU redaction takes inside a cold single-process build, and how much the build takes.

    python3 benchmarks/redact_in_build.py ARCHIVE [--rounds 3] [--against OTHER_CHECKOUT]

Each round builds ARCHIVE (say the scaled corpus, `../shared/tools/scale_corpus.py OUT 6 12 …`) cold into a
fresh folder with `-j 1 --no-vault`, in a child process that runs this checkout's (or the other's) code with
the redactor's entry points (`items`, `item`, `interpreted`, `session`, `text`, `value`) wrapped in
`time.thread_time`, counted once however they nest. Prints each build's CPU and redaction's, and their
medians; with --against, the two checkouts' builds alternate, so that other load on the machine falls on both.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, shutil, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from generator.stages.redact import redactor
from generator.cli import main
spent, depth = [0.0], [0]

def wrapped(function):
    def timed(*args, **kwargs):
        if depth[0]:
            return function(*args, **kwargs)
        depth[0] += 1
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[0] += time.thread_time() - start
            depth[0] -= 1
    return timed

for name in ("item", "items", "interpreted", "session", "text", "value"):
    if hasattr(redactor.Redactor, name):
        setattr(redactor.Redactor, name, wrapped(getattr(redactor.Redactor, name)))
out = tempfile.mkdtemp()
start = time.process_time()
try:
    main(["build", sys.argv[2], "-o", out + "/site", "-j", "1", "--no-vault", "-q"], standalone_mode=False)
finally:
    total = time.process_time() - start
    shutil.rmtree(out)
print(json.dumps({"file": redactor.__file__, "build": total, "redaction": spent[0]}))
"""


def measure(checkout: Path, archive: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(checkout), str(archive)], check=True,
                          capture_output=True, text=True)
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if not str(found["file"]).startswith(str(checkout)):
        raise SystemExit(f"{checkout}: the build ran the code in {found['file']}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout of sessionsite to compare with")
    args = parser.parse_args()
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    results: dict[Path, list[dict[str, Any]]] = {checkout: [] for checkout in checkouts}
    for number in range(args.rounds):
        for checkout in checkouts if number % 2 == 0 else reversed(checkouts):
            found = measure(checkout, args.archive)
            results[checkout].append(found)
            print(f"{checkout}: build {found['build']:.2f} s CPU, redaction {found['redaction']:.2f} s", flush=True)
    for checkout, builds in results.items():
        build = statistics.median(float(item["build"]) for item in builds)
        redaction = statistics.median(float(item["redaction"]) for item in builds)
        print(f"{checkout}: median build {build:.2f} s CPU, redaction {redaction:.2f} s ({100 * redaction / build:.1f}%)")


if __name__ == "__main__":
    main()
