"""Redaction's share of a cold build: builds with and without `--no-redact`, alternating, and the difference.

    python3 benchmarks/redaction_share.py ARCHIVE [--rounds 3] [--jobs 1]

ARCHIVE is the scaled real corpus (`../shared/tools/scale_corpus.py OUT 6 12 …`). Each round builds it cold
into a fresh folder twice, once redacting (the default) and once with `--no-redact`, in child processes (their
CPU, user and system, from `resource.getrusage(RUSAGE_CHILDREN)`), the order swapped every round so that other
load on the machine falls on both alike. Prints each round (with the load average) and the medians; the share
is (redacting - not redacting) / redacting, of the medians and, steadier on a shared machine, the median of
each round's. The vault is off (`--no-vault`): it copies logs, which is not redaction.
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


def cpu_of(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    found: dict[str, list[float]] = {"redacting": [], "not redacting": []}
    with tempfile.TemporaryDirectory() as scratch:
        for number in range(args.rounds):
            order = ["redacting", "not redacting"] if number % 2 == 0 else ["not redacting", "redacting"]
            for kind in order:
                out = Path(scratch) / "site"
                shutil.rmtree(out, ignore_errors=True)
                command = [sys.executable, "-m", "generator", "build", str(args.archive), "-o", str(out),
                           "-j", str(args.jobs), "--no-vault", "-q"]
                found[kind].append(cpu_of(command + (["--no-redact"] if kind == "not redacting" else [])))
            print(f"round {number + 1}: redacting {found['redacting'][-1]:.2f} s, "
                  f"not redacting {found['not redacting'][-1]:.2f} s CPU, "
                  f"share {100 * share(found['redacting'][-1], found['not redacting'][-1]):.1f}%, "
                  f"load {os.getloadavg()[0]:.1f}")
    with_redaction, without = statistics.median(found["redacting"]), statistics.median(found["not redacting"])
    each_round = statistics.median(map(share, found["redacting"], found["not redacting"]))
    print(f"median: redacting {with_redaction:.2f} s, not redacting {without:.2f} s CPU; "
          f"redaction's share {100 * share(with_redaction, without):.1f}% (median of the rounds' shares "
          f"{100 * each_round:.1f}%)")


def share(redacting: float, not_redacting: float) -> float:
    return (redacting - not_redacting) / redacting


if __name__ == "__main__":
    main()
