"""How much memory does `sessionsite bundle` take as a session grows? Prints the peak RSS of one bundle
process per session size, for the HTML and the Markdown bundle.

    python3 benchmarks/bundle_memory.py [--sizes 10 40] [--keep]

The sessions are the ones tests/test_memory.py writes: many turns, each with a large tool output (saved in
a file of its own past the inline limit, and inlined in the HTML bundle), and now and then a pasted image.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from helpers import PROJECT_DIR  # noqa: E402  (the tests' own builders, not an installed package)
from test_memory import MEASURE_BUNDLE, write_long_session  # noqa: E402

MEGABYTE = 1024 * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 40], help="session sizes in MB")
    parser.add_argument("--keep", action="store_true", help="keep the folder of sessions and bundles")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sessionsite-bundle-memory-"))
    try:
        print("| session | HTML bundle | its peak RSS | Markdown bundle peak RSS |")
        print("|---|---|---|---|")
        for megabytes in options.sizes:
            session = folder / f"in-{megabytes}" / PROJECT_DIR / "7d4f9a1e-0c35-4b8e-9f6a-2b1c3d4e5f60.jsonl"
            size = write_long_session(session, megabytes)
            peaks = []
            for suffix in (".html", ".md"):
                output = folder / f"bundle-{megabytes}{suffix}"
                finished = subprocess.run([sys.executable, "-c", MEASURE_BUNDLE, str(session), str(output)],
                                          cwd=REPO, capture_output=True, text=True, check=True)
                peaks.append(int(finished.stdout.strip().splitlines()[-1]))
            html_size = (folder / f"bundle-{megabytes}.html").stat().st_size
            print(f"| {size / MEGABYTE:.1f} MB | {html_size / MEGABYTE:.1f} MB | {peaks[0] / MEGABYTE:.0f} MB "
                  f"| {peaks[1] / MEGABYTE:.0f} MB |")
    finally:
        if options.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
