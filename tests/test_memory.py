"""Memory stays bounded however large a session file is: the input is streamed, one page at a time.

Each build runs in a process of its own (`-j 1`, so the whole build is in it) that reports its own peak
resident memory. A session four times larger must not need noticeably more memory: what grows with the
input is written out as it comes, not held.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import PNG_BYTES, PROJECT_DIR, assistant, text, tool_result, tool_use, user

REPO = Path(__file__).resolve().parents[1]
MEGABYTE = 1024 * 1024

MEASURE = """
import resource, sys
from pathlib import Path
from generator.build import BuildConfig, build
report = build(BuildConfig(inputs=(Path(sys.argv[1]),), output=Path(sys.argv[2]), jobs=1))
assert report.sessions == 1 and not report.diagnostics, report.to_json()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def write_long_session(path: Path, megabytes: int) -> int:
    """A session of many turns, each with a large tool output and now and then a pasted image in the
    middle of its line, written entry by entry. Returns the file's size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(PNG_BYTES * 3000).decode()}}
    size, parent, turn = 0, None, 0
    with path.open("w", encoding="utf-8") as handle:
        while size < megabytes * MEGABYTE:
            turn += 1
            call = tool_use("Bash", {"command": f"pytest -q tests/test_tides_{turn}.py"})
            output = "\n".join(f"tests/test_tides_{turn}.py::test_case_{line} PASSED  [{line % 100:3d}%]"
                               for line in range(1200))
            entries = [user(f"Turn {turn}: run the tide tests again"),
                       assistant(text(f"Running the tests for **turn {turn}**."), call),
                       tool_result(call["id"], output)]
            if turn % 8 == 0:
                entries.append(user([{"type": "text", "text": "this is what I see"}, image]))
            for entry in entries:
                entry["parentUuid"] = parent
                parent = entry["uuid"]
                line = json.dumps(entry) + "\n"
                handle.write(line)
                size += len(line)
    return size


def peak_memory_of_build(tmp_path: Path, megabytes: int) -> tuple[int, int]:
    folder = tmp_path / f"in-{megabytes}"
    size = write_long_session(folder / PROJECT_DIR / "7d4f9a1e-0c35-4b8e-9f6a-2b1c3d4e5f60.jsonl", megabytes)
    finished = subprocess.run([sys.executable, "-c", MEASURE, str(folder), str(tmp_path / f"site-{megabytes}")],
                              cwd=REPO, capture_output=True, text=True, check=True)
    return size, int(finished.stdout.strip().splitlines()[-1])


def test_memory_does_not_grow_with_the_size_of_a_session(tmp_path: Path) -> None:
    small_size, small_peak = peak_memory_of_build(tmp_path, 10)
    large_size, large_peak = peak_memory_of_build(tmp_path, 40)
    growth = large_peak - small_peak
    # Measured: 45 MB for 10 MB of session, 46 MB for 40 MB, 51 MB for 120 MB.
    assert growth < (large_size - small_size) / 4, (
        f"{(large_size - small_size) / MEGABYTE:.0f} MB more input took {growth / MEGABYTE:.1f} MB more memory "
        f"({small_peak / MEGABYTE:.0f} MB -> {large_peak / MEGABYTE:.0f} MB)")


MEASURE_BUNDLE = """
import resource, sys
from pathlib import Path
from generator.bundle import BundleConfig, bundle
report = bundle(BundleConfig(inputs=(Path(sys.argv[1]),), output=Path(sys.argv[2]), jobs=1))
assert report.sessions and not report.diagnostics, report
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def peak_memory_of_bundle(tmp_path: Path, megabytes: int, suffix: str) -> tuple[int, int]:
    session = tmp_path / f"in-{megabytes}" / PROJECT_DIR / "7d4f9a1e-0c35-4b8e-9f6a-2b1c3d4e5f60.jsonl"
    size = write_long_session(session, megabytes)
    output = tmp_path / f"bundle-{megabytes}{suffix}"
    finished = subprocess.run([sys.executable, "-c", MEASURE_BUNDLE, str(session), str(output)],
                              cwd=REPO, capture_output=True, text=True, check=True)
    if suffix == ".html":
        assert output.stat().st_size > size / 2, "the bundle holds the whole session, saved outputs and images too"
    return size, int(finished.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_bundle_memory_does_not_grow_with_the_size_of_a_session(tmp_path: Path, suffix: str) -> None:
    """The HTML bundle is as large as its sessions: it is written as it is composed, a page at a time,
    with only the last few inlined files kept. The Markdown bundle is shrunk to fit GitHub as each
    session's blocks are read, a run of turns at a time."""
    small_size, small_peak = peak_memory_of_bundle(tmp_path, 10, suffix)
    large_size, large_peak = peak_memory_of_bundle(tmp_path, 40, suffix)
    growth = large_peak - small_peak
    # Measured before: 147 and 416 MB (HTML), 84 and 235 MB (Markdown) for 10 and 40 MB of session;
    # now 45 and 48 MB, 47 and 48 MB.
    assert growth < (large_size - small_size) / 4, (
        f"{(large_size - small_size) / MEGABYTE:.0f} MB more input took {growth / MEGABYTE:.1f} MB more memory "
        f"({small_peak / MEGABYTE:.0f} MB -> {large_peak / MEGABYTE:.0f} MB)")
