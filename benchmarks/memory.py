"""Is memory bounded by the page, whatever the input? Prints the peak RSS of `build` and of the vault's
`save` (each in a process of its own, `-j 1`), and of `sessionsite build` as a user runs it (the vault
saved beside the build, workers on every core: the largest of its processes), on two generated sessions,
written into a temporary folder:

- one line of valid JSON of a gigabyte (a tool output of a pasted build log: numbered rows of random hex,
  which zlib takes to about half), among three ordinary lines; target: at most 300 MB each;
- a session of 500,000 entries (short turns: a prompt, a reply, a shell call, its result, a reply);
  target: at most 300 MB.

    python3 benchmarks/memory.py [--line-mb 1000] [--entries 500000] [--keep]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from helpers import PROJECT_DIR, assistant, text, tool_result, tool_use, user  # noqa: E402  (the tests' builders)
from test_memory import SESSION_NAME, write_one_long_line  # noqa: E402

MEGABYTE = 1024 * 1024

BUILD = """
import resource, sys
from pathlib import Path
from generator.build import BuildConfig, build
report = build(BuildConfig(inputs=(Path(sys.argv[1]),), output=Path(sys.argv[2]), jobs=1))
print(f"{report.pages} pages, {len(report.diagnostics)} problems")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

CLI = """
import resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "generator", "build", *sys.argv[1:], "-q"])
assert done.returncode == 0
print("ok")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)  # the largest process it waited for
"""

SAVE = """
import resource, sys
from pathlib import Path
from generator.output.vault import Vault
from generator.stages.discover import find
report = Vault(Path(sys.argv[2])).save(find([Path(sys.argv[1])]))
print(report.summary())
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def write_many_entries(path: Path, entries: int) -> int:
    """A session of `entries` entries in short turns, written entry by entry. Returns the file's size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parent, count, turn = None, 0, 0
    with path.open("w", encoding="utf-8") as handle:
        while count < entries:
            turn += 1
            call = tool_use("Bash", {"command": f"pytest -q tests/test_tides_{turn % 50}.py"})
            for entry in (user(f"Turn {turn}: check the tide tables for port {turn % 97}"),
                          assistant(text(f"Looking at **port {turn % 97}** now.")), assistant(call),
                          tool_result(call["id"], f"{turn % 13} passed, {turn % 3} failed in 0.{turn % 9}s"),
                          assistant(text(f"Port {turn % 97} is fine: the failure is in `tide_{turn % 11}.py`."))):
                entry["parentUuid"] = parent
                parent = entry["uuid"]
                handle.write(json.dumps(entry) + "\n")
                count += 1
    return path.stat().st_size


def peak_of(script: str, *arguments: Path) -> tuple[int, str, float]:
    started = time.perf_counter()
    finished = subprocess.run([sys.executable, "-c", script, *map(str, arguments)], cwd=REPO, capture_output=True,
                              text=True)
    if finished.returncode:
        raise SystemExit(f"failed:\n{finished.stderr[-3000:]}")
    lines = finished.stdout.strip().splitlines()
    return int(lines[-1]), lines[-2], time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--line-mb", type=int, default=1000, help="size of the one long line, in MB (0: skip)")
    parser.add_argument("--entries", type=int, default=500_000, help="entries of the long session (0: skip)")
    parser.add_argument("--keep", action="store_true", help="keep the folder of logs, sites and vaults")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sessionsite-memory-"))
    try:
        print("| input | size | build: peak RSS | wall | save: peak RSS | wall | `sessionsite build`: largest process "
              "| wall | target |")
        print("|---|---|---|---|---|---|---|---|---|")
        cases = []
        if options.line_mb:
            cases.append((f"one line of {options.line_mb:,} MB", 300,
                          lambda path: write_one_long_line(path, options.line_mb)[0]))
        if options.entries:
            cases.append((f"{options.entries:,} entries", 300, lambda path: write_many_entries(path, options.entries)))
        for number, (name, target, write) in enumerate(cases):
            inputs = folder / f"in-{number}"
            size = write(inputs / PROJECT_DIR / f"{SESSION_NAME}.jsonl")
            build_peak, built, build_wall = peak_of(BUILD, inputs, folder / f"site-{number}")
            save_peak, saved, save_wall = peak_of(SAVE, inputs, folder / f"vault-{number}")
            cli_peak, _, cli_wall = peak_of(CLI, inputs, Path("-o"), folder / f"cli-site-{number}", Path("--vault"),
                                            folder / f"cli-vault-{number}")
            print(f"| {name} ({built}; {saved}) | {size / MEGABYTE:,.0f} MB | {build_peak / MEGABYTE:.0f} MB "
                  f"| {build_wall:.0f} s | {save_peak / MEGABYTE:.0f} MB | {save_wall:.0f} s "
                  f"| {cli_peak / MEGABYTE:.0f} MB | {cli_wall:.0f} s | ≤ {target} MB |", flush=True)
            shutil.rmtree(inputs, ignore_errors=True)  # a gigabyte less on the disk for the next case
    finally:
        if options.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
