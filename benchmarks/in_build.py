"""What the per-stage benchmarks share: a stage's CPU timed inside cold single-process builds of an archive,
in child processes that run one checkout's code or another's, round after round.

A benchmark gives the code that wraps its stage's entry points (`setup`: it runs in the child before the
build, and defines `measured()`, a dict of the seconds it counted) and the name of the figure it prints.
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
{setup}
from generator.cli import main
out = tempfile.mkdtemp()
started = time.process_time()
try:
    main(["build", sys.argv[2], "-o", out + "/site", "-j", "1", "--no-vault", "-q"], standalone_mode=False)
finally:
    build = time.process_time() - started
    shutil.rmtree(out)
print(json.dumps({{"build": build, **measured()}}))
"""


def measure(setup: str, checkout: Path, archive: Path) -> dict[str, Any]:
    """One cold build of `archive` with `checkout`'s code: its CPU (`build`) and what `setup` counted."""
    done = subprocess.run([sys.executable, "-c", _CHILD.format(setup=setup), str(checkout), str(archive)],
                          check=True, capture_output=True, text=True)
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if "file" in found and not str(found["file"]).startswith(str(checkout)):
        raise SystemExit(f"{checkout}: the build ran the code in {found['file']}")
    return found


def compare(description: str, setup: str, stage: str, key: str) -> None:
    """The command line: ARCHIVE [--rounds N] [--against OTHER_CHECKOUT]. With another checkout, the two
    checkouts' builds alternate (first one, then the other, then back), so that other load falls on both."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout of sessionsite, measured in alternation")
    arguments = parser.parse_args()
    checkouts = [ROOT] + ([arguments.against.resolve()] if arguments.against else [])
    results: dict[Path, list[dict[str, Any]]] = {checkout: [] for checkout in checkouts}
    for number in range(arguments.rounds):
        for checkout in checkouts if number % 2 == 0 else list(reversed(checkouts)):
            found = measure(setup, checkout, arguments.archive)
            results[checkout].append(found)
            print(f"round {number + 1} {checkout}: build {found['build']:.2f} s CPU, {stage} {found[key]:.3f} s",
                  flush=True)
    for checkout, builds in results.items():
        build = statistics.median(float(found["build"]) for found in builds)
        spent = statistics.median(float(found[key]) for found in builds)
        print(f"median {checkout}: build {build:.2f} s CPU, {stage} {spent:.3f} s ({100 * spent / build:.1f}%)")
