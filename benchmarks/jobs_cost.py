"""What parallel jobs cost in CPU: cold builds at -j 1 and -j 2 (or the --jobs given), interleaved, each into a
fresh output folder, and per build the CPU time (user + sys) of the build and every process it waited for (its
workers), and its minor page faults (a forked worker copies the pages it writes, and faults in its own heap).

    python3 benchmarks/jobs_cost.py ARCHIVE [--runs 3] [--jobs 1 2] [--repo CHECKOUT] [--vault]

Prints each run and the medians, and the extra CPU of each -j over -j 1. The machine's load moves CPU times by
10-20%: compare checkouts (--repo) in one run, whose builds are interleaved, or compare instruction counts
(cachegrind, with --trace-children=yes; a forked child's count starts at its parent's).
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

REPO = Path(__file__).resolve().parents[1]


def one_build(repo: Path, archive: Path, jobs: int, vault: bool, work: Path) -> tuple[float, float, int]:
    """User and sys seconds and minor faults of one cold build (its process and the workers it waited for)."""
    out = Path(tempfile.mkdtemp(dir=work)) / "out"  # a new folder each time: deleting thousands skews the next
    command = [sys.executable, "-m", "generator", "build", str(archive), "-o", str(out), "-j", str(jobs), "-q"]
    if not vault:
        command.append("--no-vault")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=repo, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, after.ru_minflt - before.ru_minflt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("archive", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repo", type=Path, nargs="+", default=[REPO], help="checkouts to compare (default: this one)")
    parser.add_argument("--vault", action="store_true", help="save into a vault too (default: --no-vault)")
    args = parser.parse_args()
    results: dict[tuple[str, int], list[tuple[float, float, int]]] = {}
    work = Path(tempfile.mkdtemp(prefix="jobs-cost-"))
    try:
        for run in range(1, args.runs + 1):
            for repo in args.repo:
                for jobs in args.jobs:
                    user, system, faults = one_build(repo.resolve(), args.archive.resolve(), jobs, args.vault, work)
                    results.setdefault((str(repo), jobs), []).append((user, system, faults))
                    print(f"run {run} {repo} -j {jobs}: CPU {user + system:.2f} s (user {user:.2f}, sys {system:.2f}), "
                          f"{faults} minor faults", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nmedians of {args.runs} runs ({os.cpu_count()} CPUs):")
    for repo in args.repo:
        serial = None
        for jobs in args.jobs:
            runs = results[(str(repo), jobs)]
            cpu = statistics.median(user + system for user, system, _ in runs)
            serial = cpu if jobs == 1 else serial
            extra = f", {cpu - serial:+.2f} s over -j 1" if serial is not None and jobs != 1 else ""
            print(f"  {repo} -j {jobs}: CPU {cpu:.2f} s (user {statistics.median(u for u, _, _ in runs):.2f}, sys "
                  f"{statistics.median(s for _, s, _ in runs):.2f}), {statistics.median(f for _, _, f in runs):.0f} "
                  f"minor faults{extra}")


if __name__ == "__main__":
    main()
