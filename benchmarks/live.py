"""How soon does `sessionsite serve` show a reply? From the line written to the log to the reply in an open page.

    python3 benchmarks/live.py [--archive DIR] [--rounds 5] [--jobs 2]

The archive is the public corpus of real logs copied six times with fresh ids into 12 project folders,
about 90 MB (`../shared/tools/scale_corpus.py`), made in a temporary folder unless --archive names one.
It is served as `serve` serves logs (built into a cache folder of the run's own, watched, pages told by
server-sent events), the largest session's last page is opened in headless Chromium, and a reply is
appended to that session's log, `--rounds` times. Printed per round: the time until the rebuild was done
(the server's side) and until the reply was in the page (what a reader sees), in a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def make_archive(folder: Path) -> None:
    logs = sorted(str(p) for p in (SHARED / "corpus" / "public").rglob("*.jsonl"))
    subprocess.run([sys.executable, str(SHARED / "tools" / "scale_corpus.py"), str(folder), "6", "12", *logs],
                   check=True, stdout=subprocess.DEVNULL)


def largest_session(archive: Path) -> Path:
    """The largest main session (subagent logs are not shown on their own page's first screen)."""
    return max((p for p in archive.glob("*/*.jsonl") if not p.name.startswith("agent-")), key=lambda p: p.stat().st_size)


def reply_to(log: Path, words: str) -> str:
    """An assistant line continuing the log's last entry, as Claude Code appends one."""
    last = next(json.loads(line) for line in reversed(log.read_text(encoding="utf-8").splitlines())
                if line.strip().startswith("{") and '"uuid"' in line)
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    return json.dumps({
        "parentUuid": last["uuid"], "isSidechain": False, "userType": "external", "cwd": last.get("cwd", "/"),
        "sessionId": last["sessionId"], "version": last.get("version", "2.1.0"), "type": "assistant",
        "uuid": str(uuid.uuid4()), "timestamp": now,
        "message": {"model": "claude-opus-4-6", "id": f"msg_bench{uuid.uuid4().hex[:16]}", "type": "message",
                    "role": "assistant", "content": [{"type": "text", "text": words}], "stop_reason": None,
                    "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 9}},
    }) + "\n"


def last_page(site: Path, session_id: str) -> str:
    pages = sorted(site.glob(f"projects/*/{session_id}*.html"),
                   key=lambda p: int(p.stem.rsplit("~p", 1)[1]) if "~p" in p.stem else 1)
    return pages[-1].relative_to(site).as_posix()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", type=Path, help="a folder of logs to use (default: the scaled corpus)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sessionsite-live-"))
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")  # a cache of the run's own: the first build is cold
    from playwright.sync_api import sync_playwright

    from generator.config import BuildConfig
    from generator.serve import LiveSite, live_config, serve

    try:
        archive = options.archive
        if archive is None:
            archive = work / "archive"
            make_archive(archive)
        size = sum(p.stat().st_size for p in archive.rglob("*.jsonl"))
        live = LiveSite(live_config(BuildConfig(inputs=(archive,), output=Path(), vault=None, jobs=options.jobs)))
        started = time.perf_counter()
        live.build_once()
        print(f"archive: {size / 1e6:.0f} MB; first build {time.perf_counter() - started:.1f} s")
        built: list[float] = []  # when each rebuild was done
        cpu: list[float] = []  # and the CPU time it took (one changed session is rendered in this thread)
        original = live._build

        def timed_build(config):
            cpu_before = time.thread_time()
            original(config)
            cpu.append(time.thread_time() - cpu_before)
            built.append(time.perf_counter())

        live._build = timed_build
        watcher = threading.Thread(target=live.watch, daemon=True)
        watcher.start()
        log = largest_session(archive)
        rows = []
        with serve(live.config.output, 0, live.generation) as server, sync_playwright() as playwright:
            threading.Thread(target=server.serve_forever, daemon=True).start()
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.goto(server.url + last_page(live.config.output, log.stem))
            print(f"session: {log.stat().st_size / 1e6:.1f} MB log, page {page.url.rsplit('/', 1)[1]}")
            time.sleep(1)  # the watcher is listening
            for round_number in range(1, options.rounds + 1):
                words = f"benchmark reply {round_number} {uuid.uuid4().hex}"
                line = reply_to(log, words)
                before = len(built)
                # The page notes the moment the reply is in it: Playwright's own waiting looks only every
                # few hundred milliseconds, which would be measured too.
                page.evaluate("""words => {
                    window.sessionsiteShownAt = 0;
                    const observer = new MutationObserver(() => {
                        if (document.body.textContent.includes(words)) {
                            window.sessionsiteShownAt = Date.now();
                            observer.disconnect();
                        }
                    });
                    observer.observe(document.body, {childList: true, subtree: true});
                }""", words)
                written_at = time.time()
                written = time.perf_counter()
                with log.open("a", encoding="utf-8") as file:
                    file.write(line)
                page.get_by_text(words).wait_for()
                shown_at = page.evaluate("window.sessionsiteShownAt") / 1000
                # (A page that reloaded itself has lost the note: then the time Playwright saw it.)
                shown = written + shown_at - written_at if shown_at else time.perf_counter()
                while len(built) == before:  # the rebuild ends before the page can show it
                    time.sleep(0.01)
                rows.append((built[before] - written, shown - written, cpu[before]))
                # A page that reloads itself would not keep this: the reply came in place.
                time.sleep(1)
            browser.close()
        live.stop()
        watcher.join()
        print(f"load average after the rounds (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print("\n| round | rebuilt after | shown in the page after | CPU time of the rebuild |\n|---|---:|---:|---:|")
        for number, (rebuilt, shown, seconds) in enumerate(rows, start=1):
            print(f"| {number} | {rebuilt:.2f} s | {shown:.2f} s | {seconds:.2f} s |")
        shown = [r[1] for r in rows]
        print(f"\nshown: median {statistics.median(shown):.2f} s, worst {max(shown):.2f} s "
              f"(target: under 1 s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
