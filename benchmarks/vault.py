"""What does the vault cost? Its size against the logs', and the time of saves and builds that use it.

    python3 benchmarks/vault.py [--copies 6] [--projects 12] [--keep]

1. The public corpus (../shared/corpus/public) saved into an empty vault: the vault's size against the logs'.
2. An archive of real logs made with ../shared/tools/scale_corpus.py (the public corpus six times over in
   twelve projects: about 90 MB), timed as whole `sessionsite save` processes: the first save, a save with
   nothing changed, a save after one session grew (and how many bytes it read: only that session's).
3. The hook: `sessionsite save --hook` on a 10 MB session, first saved and then grown, as Claude Code runs
   it (hook input on stdin).
4. Builds of that archive: cold without the vault, cold with an empty vault (which saves everything
   first), again with nothing changed, and a cold build with every log deleted, read back from the vault.

Every process runs `python -m generator` from this checkout, with its own vault in the work folder.
Timings are wall time of the whole process, the best of --repeat runs where a run changes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus" / "public"
SCALE = SHARED / "tools" / "scale_corpus.py"
MB = 1_000_000


def logs_size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))


def vault_size(vault: Path) -> int:
    return sum(p.stat().st_size for p in vault.glob("vault.sqlite3*") if p.is_file())


class Seconds(float):
    """Wall time of a process, shown with its CPU time (user + system, its workers included): on a busy
    machine the wall time grows, the CPU time much less."""

    cpu: float = 0.0

    def __format__(self, spec: str) -> str:
        return f"{format(float(self), spec)} s (CPU {format(self.cpu, spec)} s)"


def timed(argv: list[str], env: dict[str, str], stdin: str | None = None) -> Seconds:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "generator", *argv], input=stdin, capture_output=True,
                            text=True, env=env)
    seconds = Seconds(time.perf_counter() - started)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if result.returncode != 0:
        sys.exit(f"failed: sessionsite {' '.join(argv)}\n{result.stderr}")
    return seconds


def best(runs: int, argv: list[str], env: dict[str, str], stdin: str | None = None) -> Seconds:
    return min((timed(argv, env, stdin) for _ in range(runs)), key=float)


def python_start(runs: int) -> Seconds:
    """Starting Python and doing nothing, for scale."""
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        seconds = Seconds(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        times.append(seconds)
    return min(times, key=float)


def grow(path: Path, source: Path, size: int) -> int:
    """Append `size` bytes of whole lines taken from `source` (real entries) to `path`."""
    lines = source.read_bytes().splitlines(keepends=True)
    added = bytearray()
    while len(added) < size:
        added += lines[len(added) % len(lines)]
    with path.open("ab") as handle:
        handle.write(added)
    return len(added)


def read_bytes_of_one_save(archive: Path, vault: Path) -> tuple[int, int]:
    """In this process: what a save read, and how many logs it found changed."""
    sys.path.insert(0, str(REPO))
    from generator.stages.discover import find
    from generator.output.vault import Vault

    report = Vault(vault).save(find([archive]))
    return report.read_bytes, report.saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--projects", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timing that changes nothing (best kept)")
    parser.add_argument("--jobs", "-j", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"the public corpus is not at {CORPUS}")
    work = Path(tempfile.mkdtemp(prefix="sessionsite-vault-bench-"))
    env = dict(os.environ, PYTHONPATH=str(REPO), SESSIONSITE_VAULT=str(work / "vault"))
    rows: list[tuple[str, str]] = []

    def row(what: str, value: str) -> None:
        rows.append((what, value))
        print(f"  {what}: {value}", flush=True)

    try:
        corpus_files = sorted(CORPUS.rglob("*.jsonl")) + sorted(CORPUS.rglob("*.json"))
        corpus_vault = work / "corpus-vault"
        seconds = timed(["save", *map(str, corpus_files), "--vault", str(corpus_vault)], env)
        logs = sum(p.stat().st_size for p in corpus_files)
        row("public corpus: logs", f"{logs / MB:.1f} MB in {len(corpus_files)} files")
        row("public corpus: vault", f"{vault_size(corpus_vault) / MB:.2f} MB, "
                                    f"{vault_size(corpus_vault) / logs:.1%} of the logs (saved in {seconds:.2f})")

        archive = work / "projects"
        jsonl = sorted(str(p) for p in CORPUS.rglob("*.jsonl"))
        subprocess.run([sys.executable, str(SCALE), str(archive), str(args.copies), str(args.projects), *jsonl],
                       check=True, capture_output=True)
        size = logs_size(archive)
        count = sum(1 for _ in archive.rglob("*.jsonl"))
        row("archive", f"{size / MB:.1f} MB in {count} logs ({args.copies} copies of the corpus, "
                       f"{args.projects} projects)")
        vault = work / "vault"
        row("save, first", f"{timed(['save', str(archive)], env):.2f}; vault {vault_size(vault) / MB:.1f} MB, "
                           f"{vault_size(vault) / size:.1%} of the logs")
        row("python3 -c pass, for scale", f"{python_start(args.repeat):.3f}")
        row("save, nothing changed", f"{best(args.repeat, ['save', str(archive)], env):.3f}")
        sessions = sorted(archive.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
        median = sessions[len(sessions) // 2]
        added = grow(median, sessions[-1], 20_000)
        seconds = timed(["save", str(archive)], env)
        added += grow(median, sessions[-1], 20_000)
        read, saved = read_bytes_of_one_save(archive, vault)
        row("save, one session grew", f"{seconds:.3f} (+{added // 2 / 1000:.0f} KB to a "
                                      f"{median.stat().st_size / MB:.2f} MB log); a save like it read "
                                      f"{read:,} bytes for {saved} changed log (the log is {median.stat().st_size:,})")

        project = work / "hook" / "-home-user-big"
        project.mkdir(parents=True)
        big = project / "0f0e0d0c-0b0a-4908-8706-050403020100.jsonl"
        big.write_bytes(b"")
        grow(big, sessions[-1], 10 * MB)
        hook_input = json.dumps({"session_id": big.stem, "transcript_path": str(big), "cwd": "/home/user/big",
                                 "hook_event_name": "SessionEnd", "reason": "other"})
        seconds = timed(["save", "--hook"], env, hook_input)
        if (vault / "hook.log").exists():
            sys.exit("the hook logged a failure:\n" + (vault / "hook.log").read_text())
        row("hook, a 10 MB session saved first", f"{seconds:.3f}")
        grow(big, sessions[-1], 50_000)
        row("hook, the same session grown by 50 KB", f"{timed(['save', '--hook'], env, hook_input):.3f}")
        row("hook, nothing changed", f"{best(args.repeat, ['save', '--hook'], env, hook_input):.3f}")
        if (vault / "hook.log").exists():
            sys.exit("the hook logged a failure:\n" + (vault / "hook.log").read_text())

        fresh = dict(env, SESSIONSITE_VAULT=str(work / "build-vault"))
        j = ["-j", str(args.jobs), "-q"]
        row("build, cold, --no-vault", f"{timed(['build', str(archive), '-o', str(work / 'a'), '--no-vault', *j], env):.2f}")
        row("build, cold, saving into an empty vault",
            f"{timed(['build', str(archive), '-o', str(work / 'b'), *j], fresh):.2f}")
        row("build, nothing changed (with the vault)",
            f"{best(args.repeat, ['build', str(archive), '-o', str(work / 'b'), *j], fresh):.3f}")
        row("build, nothing changed, --no-vault",
            f"{best(args.repeat, ['build', str(archive), '-o', str(work / 'a'), '--no-vault', *j], env):.3f}")
        for path in archive.rglob("*.jsonl"):
            path.unlink()
        row("build, cold, every log deleted (all read from the vault)",
            f"{timed(['build', str(archive), '-o', str(work / 'c'), *j], fresh):.2f}")
        same = subprocess.run(["diff", "-rq", "-x", ".sessionsite-manifest.json", str(work / "b"), str(work / "c")],
                              capture_output=True, text=True).stdout.count("\n")
        pages = sum(1 for _ in (work / "c").rglob("*.html"))
        row("that site against the one from the live logs", f"{same} of {pages} pages differ (by the note)")

        print("\n| measured | result |\n|---|---|")
        for what, value in rows:
            print(f"| {what} | {value} |")
        print(f"\nwork folder: {work}" + ("" if args.keep else " (removed; pass --keep)"))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
