"""What the review costs: a cold build with no decision kept, the same with a value decided "redact" (every text of
every entry is then searched by the net, and what it finds hashed), and the audit a publishing command runs first.

    python3 benchmarks/review_cost.py ARCHIVE... [--rounds 3] [--jobs 1]

ARCHIVE is a folder of logs (the public corpus, or the scaled one: `../shared/tools/scale_corpus.py`). Each run is a
child process (its CPU, user and system, from `resource.getrusage(RUSAGE_CHILDREN)`), the order turned every round
so that other load on the machine falls on all alike; the decisions are kept in a scratch folder
(`SESSIONSITE_REVIEW`). Prints each round and the medians.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_of(command: list[str], environment: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archives", type=Path, nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    kinds = ["build, no decision", "build, one redact decision", "audit (the publishing review's read)"]
    found: dict[str, list[float]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as scratch:
        none, decided = Path(scratch) / "none", Path(scratch) / "decided"
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from generator.output.decisions import Decided, DecisionStore

        store = DecisionStore(decided)
        key, _ = store.load()
        store.change({store.digest(key, "Qz7" * 11): Decided("redact", "high-entropy", 33, "benchmark:1", "now")})
        for number in range(args.rounds):
            order = kinds[number % 3:] + kinds[:number % 3]
            for kind in order:
                out = Path(scratch) / "site"
                shutil.rmtree(out, ignore_errors=True)
                environment = {**os.environ, "SESSIONSITE_REVIEW": str(decided if "one redact" in kind else none)}
                base = [sys.executable, "-m", "generator"]
                inputs = [str(archive) for archive in args.archives]
                command = base + (["audit", *inputs] if kind.startswith("audit") else ["build", *inputs, "-o", str(out), "-q"])
                found[kind].append(cpu_of(command + ["-j", str(args.jobs), "--no-vault"], environment))
            print(f"round {number + 1}: " + ", ".join(f"{kind} {found[kind][-1]:.2f} s" for kind in kinds)
                  + f"; load {os.getloadavg()[0]:.1f}")
    medians = {kind: statistics.median(found[kind]) for kind in kinds}
    plain = medians[kinds[0]]
    print("median CPU: " + ", ".join(f"{kind} {value:.2f} s ({100 * (value - plain) / plain:+.1f}% of a build)"
                                     if kind != kinds[0] else f"{kind} {value:.2f} s" for kind, value in medians.items()))


if __name__ == "__main__":
    main()
