"""Encryption's share of a cold build (issue 41: at most 10%), and what a rebuild with the same key re-encrypts.

    python3 benchmarks/encryption_share.py ARCHIVE [--rounds 3] [--jobs 2]

ARCHIVE is the scaled real corpus (`../shared/tools/scale_corpus.py OUT 6 12 …`, about 90 MB). Each round builds
it cold twice, in child processes, plainly and with `--encrypt --key-file` (each time into a new output folder
and with a new cache folder, so that the encrypted build also makes its readable site from nothing), the order
swapped every round so that other load on the machine falls on both alike. Reported: wall time and CPU time
(user and system, `RUSAGE_CHILDREN`) of each, their medians, the share ((encrypted - plain) / plain) of the
medians and the median of each round's, and the sizes of the two outputs. On a shared machine the difference of
two whole builds is mostly noise, so the sealing pass is also timed alone, in this process, five times over the
readable site the last encrypted build made (its CPU against the plain builds' median). Then, into the last
encrypted output
with its key: a rebuild with nothing changed, and one after a reply is appended to the largest session, each
with the files it sealed again and kept (from the build's own log line). The vault is off (`--no-vault`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def timed(command: list[str], cache: Path) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and standard error of one child process."""
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(REPOSITORY)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=environment)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stderr


def size_of(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def sealed_line(stderr: str) -> str:
    found = re.search(r"encrypted (\d+) files, kept (\d+) unchanged, in ([\d.]+) s", stderr)
    return f"{found[1]} sealed, {found[2]} kept, sealing {found[3]} s" if found else "(no sealing line)"


def append_reply(archive: Path) -> None:
    """One more assistant reply at the end of the largest session, as Claude Code appends one."""
    largest = max(archive.rglob("*.jsonl"), key=lambda path: path.stat().st_size)
    last = json.loads(largest.read_bytes().splitlines()[-1])
    reply = {**last, "type": "assistant", "uuid": f"bench-{time.time_ns()}", "parentUuid": last.get("uuid"),
             "message": {"role": "assistant", "type": "message", "model": "claude-sonnet-4-5",
                         "content": [{"type": "text", "text": "One more reply, appended by the benchmark."}]}}
    with largest.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(reply) + "\n")


def seal_alone(plain: Path, out: Path) -> tuple[float, float]:
    """Median wall and CPU seconds of sealing the readable site at `plain` into a new archive."""
    sys.path.insert(0, str(REPOSITORY))
    from generator.output.encrypt import new_key
    from generator.output.sealed_site import SealedRecord, seal_site
    from generator.output.write import Staging
    from generator.render.theme import Theme

    theme, walls, cpus = Theme.load(None), [], []
    for _ in range(5):
        staging = Staging(out)
        started, cpu = time.perf_counter(), time.process_time()
        seal_site(plain, staging, new_key(), theme, SealedRecord())
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        staging.discard()
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    walls: dict[str, list[float]] = {"plain": [], "encrypted": []}
    cpus: dict[str, list[float]] = {"plain": [], "encrypted": []}
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        archive = scratch / "archive"
        subprocess.run(["cp", "-a", str(args.archive), str(archive)], check=True)  # a copy: a reply is appended
        key_file = scratch / "bench.key"
        last_encrypted = scratch / "none"
        for number in range(args.rounds):
            order = ["plain", "encrypted"] if number % 2 == 0 else ["encrypted", "plain"]
            for kind in order:
                out = scratch / f"{kind}-{number}"
                command = [sys.executable, "-m", "generator", "build", str(archive), "-o", str(out), "-j",
                           str(args.jobs), "--no-vault", "-v"]
                if kind == "encrypted":
                    command += ["--encrypt", "--key-file", str(key_file)]
                    last_encrypted = out
                wall, cpu, stderr = timed(command, scratch / f"cache-{kind}-{number}")
                walls[kind].append(wall)
                cpus[kind].append(cpu)
                sizes[kind] = size_of(out)
                extra = f" ({sealed_line(stderr)})" if kind == "encrypted" else ""
                print(f"round {number + 1}: {kind:9} {wall:6.2f} s wall, {cpu:6.2f} s CPU{extra}")
            print(f"         load {os.getloadavg()[0]:.2f}")
        print()
        for measure, found in (("wall", walls), ("CPU", cpus)):
            plain, encrypted = statistics.median(found["plain"]), statistics.median(found["encrypted"])
            each = statistics.median((e - p) / p for p, e in zip(found["plain"], found["encrypted"], strict=True))
            print(f"{measure:4}: plain {plain:.2f} s, encrypted {encrypted:.2f} s (median): "
                  f"encryption adds {(encrypted - plain) / plain:+.1%} (median of each round's: {each:+.1%})")
        print(f"site: plain {sizes['plain'] / 1e6:.1f} MB, encrypted {sizes['encrypted'] / 1e6:.1f} MB "
              f"({sizes['encrypted'] / sizes['plain']:.2f}×)")
        sealing = seal_alone(next((scratch / f"cache-encrypted-{args.rounds - 1}").rglob("plain-*")) / "site",
                             scratch / "sealed-alone")
        plain_cpu, plain_wall = statistics.median(cpus["plain"]), statistics.median(walls["plain"])
        print(f"sealing alone (median of 5): {sealing[0]:.2f} s wall, {sealing[1]:.2f} s CPU: "
              f"{sealing[1] / plain_cpu:.1%} of the plain build's CPU, {sealing[0] / plain_wall:.1%} of its wall time")
        print()
        rebuild = [sys.executable, "-m", "generator", "build", str(archive), "-o", str(last_encrypted), "-j",
                   str(args.jobs), "--no-vault", "-v", "--encrypt", "--key-file", str(key_file)]
        cache = scratch / f"cache-encrypted-{args.rounds - 1}"
        wall, cpu, stderr = timed(rebuild, cache)
        print(f"encrypted rebuild, nothing changed: {wall:.2f} s wall, {cpu:.2f} s CPU ({sealed_line(stderr)})")
        append_reply(archive)
        wall, cpu, stderr = timed(rebuild, cache)
        print(f"encrypted rebuild, one reply appended: {wall:.2f} s wall, {cpu:.2f} s CPU ({sealed_line(stderr)})")


if __name__ == "__main__":
    main()
