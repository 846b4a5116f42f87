"""How long does redaction take over real logs, and how does it compare with another checkout's?

    python3 benchmarks/redact.py [--rounds 11] [--redact-paths] [--against OTHER_CHECKOUT] [INPUT...]

Reads every entry of the inputs (default: the public corpus beside the repository) once, as phase 2 streams
them, then redacts them all (`BATCH_LINES` at a time, as the build does), round after round, and prints the
CPU time of the fastest and the median round. With --against, the other checkout's redactor (say, a `git worktree` of main) runs in the same
process, its rounds alternating with this one's, so that other load on the machine falls on both alike.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from generator.stages.interpret import without_repeated_result  # noqa: E402 - the checkout being measured
from generator.stages.read import BATCH_LINES, stream_file  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "public"


def load_other(checkout: Path) -> tuple[Any, Any]:
    """The other checkout's `generator` package, imported under another name (its imports are relative)."""
    spec = importlib.util.spec_from_file_location("other_generator", checkout / "generator" / "__init__.py",
                                                  submodule_search_locations=[str(checkout / "generator")])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["other_generator"] = package
    spec.loader.exec_module(package)
    if (checkout / "generator" / "stages").is_dir():  # the layout with one folder per layer (issue 18)
        return importlib.import_module("other_generator.stages.redact"), importlib.import_module("other_generator.core.model")
    return importlib.import_module("other_generator.redact"), importlib.import_module("other_generator.model")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--redact-paths", action="store_true")
    parser.add_argument("--against", type=Path, help="another checkout of sessionsite to compare with")
    args = parser.parse_args()
    files = sorted(p for given in (args.inputs or [CORPUS]) for p in ([given] if given.is_file() else given.rglob("*.jsonl")))
    items = [without_repeated_result(item) for path in files for item in stream_file(path, [])]
    size = sum(path.stat().st_size for path in files)
    print(f"{len(files)} files, {size / 1e6:.1f} MB, {len(items)} entries")

    from generator.stages import redact

    runs: dict[str, tuple[Any, list[Any]]] = {"this checkout": (redact.Redactor, items)}
    if args.against:
        other_redact, other_model = load_other(args.against.resolve())
        converted = [other_model.Entry(i.file, i.line, i.data) if hasattr(i, "data")
                     else other_model.BrokenLine(i.file, i.line, i.text, i.reason) for i in items]
        runs[str(args.against)] = (other_redact.Redactor, converted)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for redactor_class, _ in runs.values():
        redactor_class().text("warm up: API_KEY=0123456789 sk-ant-0123456789")  # compile the rules
    for number in range(args.rounds):
        order = list(runs.items()) if number % 2 == 0 else list(reversed(runs.items()))
        for name, (redactor_class, these) in order:
            redactor = redactor_class(home=args.redact_paths)
            start = time.process_time()
            if hasattr(redactor, "items"):  # a batch at a time, as the build redacts
                for first in range(0, len(these), BATCH_LINES):
                    redactor.items(these[first:first + BATCH_LINES])
            else:
                for item in these:
                    redactor.item(item)
            times[name].append(time.process_time() - start)
    for name, found in times.items():
        print(f"{name}: fastest {min(found) * 1000:.0f} ms, median {statistics.median(found) * 1000:.0f} ms CPU")
    if args.against:
        this, other = times["this checkout"], times[str(args.against)]
        print(f"this / other: {min(this) / min(other):.3f} (fastest), "
              f"{statistics.median(this) / statistics.median(other):.3f} (median)")


if __name__ == "__main__":
    main()
