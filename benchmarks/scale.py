"""How does a build scale? Times whole `sessionsite build` processes on real logs, next to peers.

    python3 benchmarks/scale.py [-v] [--jobs 2] [--no-peers] [--keep] [--archive DIR]
    python3 benchmarks/scale.py --synthetic [--size-mb 1000] | --single-session-mb N

By default the archive is the public corpus of real logs (`../shared/corpus/public`) copied six times with
fresh ids into 12 project folders, about 90 MB, made by `../shared/tools/scale_corpus.py` (--corpus,
--copies, --projects change that; `--archive DIR` takes one made already, copied). `--synthetic` writes one with make_archive.py instead (Claude Code's
on-disk layout, ~70% tool output) for sizes the corpus does not reach (1 GB), and `--single-session-mb`
one huge session (the memory test). Each command runs as its own process, one at a time; reported are
wall time, CPU time and memory. Each scenario runs `--repeat` times (3 by default), the tools' cold builds taking
turns, and its median is reported with the range: on a shared virtual machine one build's system time alone has
been seen to vary fivefold (0.3 to 1.5 s), which moves a single run's ratio to a peer by more than 20%.

- sessionsite: a cold build (each time into a new output folder and vault); the same build again with
  nothing changed; again after one reply was appended to the largest session (a turn to the median session,
  on a synthetic archive), each time another; again after one new session file appeared, each time another.
  The rebuilds go into the last cold build's output folder, with its vault in the work folder, and with the checkout's modules compiled to bytecode first, as an install compiles them
  (`ours_env`). The largest page written is reported too. The cold build is also run at `-j 1`, into an
  output and a vault of its own.
- peers, each from its own venv (created and pip-installed on first use under ~/.cache/sessionsite-bench):
  claude-code-log 1.7.0 (cold, its output and cache removed before each, then a rerun on its cache) and
  claude-code-transcripts 0.6 (cold; it keeps no cache). They read a hard-linked copy of the archive, so nothing they write lands in ours.
- the targets of issue 30, each with this run's figure (the medians): a cold build at least 2.5× faster than
  claude-code-log's in wall and CPU time (both at --jobs), a rebuild with nothing changed at most 2% and one
  after an appended reply at most 10% of the cold build, and no build of ours above 300 MB peak RSS.

`-v` then measures two more builds in one process (`-j 1`, into outputs of their own): a cold build, and
a rebuild after one more reply was appended to the largest session, each run twice, plainly (its wall and
CPU time) and under cProfile, and prints where the time went per stage (read, redact, interpret, link,
markdown, prose, highlighting, sanitising, templates, search, write) by `stages.py`: the profiled seconds,
each stage's share, and that share of the plain run's CPU time (an estimate of the stage's CPU).

"peak RSS" is the largest single process of the run (ru_maxrss from wait4, as /usr/bin/time -v gives);
"tree PSS" is the largest sum over the whole process tree, sampled every 0.1 s, which is what parallel
workers cost together. The page cache is warm: the archive has just been written.

Tables are Markdown, ready for the README. Our build runs as `python -m generator` from --ours-repo (default:
this checkout), so a work-in-progress tree is measured as it is.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import uuid
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_archive  # sibling scripts, not installed packages
import stages

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"  # beside the checkout, as the project's machines have it
MB = 1_000_000
NEW_SESSION_BYTES = 300_000  # a typical session, the median of make_archive's sizes


# -- the machine ------------------------------------------------------------------------------------

def machine_lines() -> list[str]:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return [f"- CPU: {cpu}, {os.cpu_count()} cores; RAM: {memory}",
            f"- Python {platform.python_version()} ({sys.executable}); {platform.system()} {platform.release()}"]


# -- measuring one process --------------------------------------------------------------------------

@dataclass
class Run:
    tool: str
    scenario: str
    argv: list[str]
    log: Path
    output: Path | None = None
    seconds: float | None = None
    peak_rss_mb: float | None = None
    peak_tree_mb: float | None = None
    output_mb: float | None = None
    largest_page_kb: float | None = None
    returncode: int | None = None
    timed_out: bool = False
    cpu_seconds: float | None = None
    other_cpu_seconds: float | None = None
    load_before: float | None = None
    note: str = ""
    # Of the repetitions a median stands for: their wall and CPU seconds, in the order they ran.
    repeated: list[tuple[float, float]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def _process_children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # the process ended while we looked
        # The command name may hold spaces and parentheses; the fields after its last ')' do not.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def _proportional_memory_kb(pid: int) -> int:
    """PSS, so pages shared between forked workers are not counted twice; RSS if PSS is unavailable."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class TreeMemorySampler(threading.Thread):
    """Samples the summed memory of a process and all its descendants until stopped."""

    def __init__(self, root_pid: int, interval: float = 0.1):
        super().__init__(daemon=True)
        self.root_pid = root_pid
        self.interval = interval
        self.peak_kb = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        if not Path("/proc/self/stat").exists():
            return  # not Linux: only ru_maxrss is reported
        while not self.stopped.is_set():
            children = _process_children()
            pending, total = [self.root_pid], 0
            while pending:
                pid = pending.pop()
                total += _proportional_memory_kb(pid)
                pending.extend(children.get(pid, []))
            self.peak_kb = max(self.peak_kb, total)
            self.stopped.wait(self.interval)


def busy_cpu_seconds() -> float | None:
    """CPU time spent by the whole machine so far (all cores), from /proc/stat."""
    try:
        fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def folder_mb(path: Path) -> float | None:
    if not path.exists():
        return None
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total / MB


def measure(run: Run, env: dict[str, str], cwd: Path, timeout: float) -> Run:
    """Run one command alone and record its wall time and memory. Output goes to run.log."""
    run.log.parent.mkdir(parents=True, exist_ok=True)
    with open(run.log, "wb") as log:
        log.write(("$ " + " ".join(run.argv) + "\n").encode())
        log.flush()
        machine_busy_before = busy_cpu_seconds()
        run.load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        start = time.perf_counter()
        # Its own session, so a timeout can stop the command and every worker it started.
        process = subprocess.Popen(run.argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   env=env, cwd=cwd, start_new_session=True)
        sampler = TreeMemorySampler(process.pid)
        sampler.start()

        def stop_on_timeout() -> None:
            run.timed_out = True
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, stop_on_timeout)
        timer.start()
        # wait4 rather than Popen.wait: it hands back this child's own resource usage, where
        # getrusage(RUSAGE_CHILDREN) would only ever report the maximum over every child so far.
        _, status, usage = os.wait4(process.pid, 0)
        run.seconds = time.perf_counter() - start
        machine_busy_after = busy_cpu_seconds()
        timer.cancel()
        sampler.stopped.set()
        sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped already; keep Popen quiet
    run.returncode = process.returncode
    run.peak_rss_mb = usage.ru_maxrss / 1024  # kilobytes on Linux
    # User + system time of the command and the workers it waited for: unlike wall time, barely
    # affected when something else shares the machine.
    run.cpu_seconds = usage.ru_utime + usage.ru_stime
    if machine_busy_before is not None and machine_busy_after is not None:
        # What the rest of the machine did meanwhile: on a shared machine, a sign the time is inflated.
        run.other_cpu_seconds = max(0.0, machine_busy_after - machine_busy_before - run.cpu_seconds)
    run.peak_tree_mb = sampler.peak_kb / 1024 if sampler.peak_kb else None
    if run.output is not None:
        run.output_mb = folder_mb(run.output)
        run.largest_page_kb = largest_page_kb(run.output)
    return run


def median_of(runs: list[Run]) -> Run:
    """One run standing for repetitions of the same command: the median wall and CPU time (each on its own),
    the largest memory, the rest from the repetition whose wall time is the median. A repetition that failed
    makes the whole fail."""
    failed = next((run for run in runs if not run.ok), None)
    if failed is not None or len(runs) == 1:
        return failed or runs[0]
    by_time = sorted(runs, key=lambda run: run.seconds or 0.0)
    middle = by_time[len(runs) // 2]
    return replace(middle, seconds=statistics.median(run.seconds or 0.0 for run in runs),
                   cpu_seconds=statistics.median(run.cpu_seconds or 0.0 for run in runs),
                   peak_rss_mb=max(run.peak_rss_mb or 0.0 for run in runs),
                   peak_tree_mb=max(run.peak_tree_mb or 0.0 for run in runs),
                   repeated=[(run.seconds or 0.0, run.cpu_seconds or 0.0) for run in runs])


def spread(run: Run) -> str:
    """The range of a median's repetitions, for a table's note."""
    if len(run.repeated) < 2:
        return ""
    walls = [wall for wall, _ in run.repeated]
    cpus = [cpu for _, cpu in run.repeated]
    return (f"{len(run.repeated)} runs: {min(walls):.2f}–{max(walls):.2f} s, "
            f"{min(cpus):.1f}–{max(cpus):.1f} CPU s")


def largest_page_kb(site: Path) -> float | None:
    sizes = [path.stat().st_size for path in site.rglob("*.html")] if site.exists() else []
    return max(sizes) / 1000 if sizes else None


def log_name(tool: str, scenario: str) -> str:
    words = "".join(char if char.isalnum() else " " for char in scenario.lower()).split()
    return f"{tool}-{'-'.join(words)}.log"


def log_tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join("    " + line[:300] for line in text[-lines:])


def report_failure(run: Run) -> None:
    why = f"timed out after {run.seconds:.0f} s" if run.timed_out else f"exit {run.returncode}"
    print(f"\n  !! {run.tool} / {run.scenario} failed ({why}); last lines of {run.log}:", flush=True)
    print(log_tail(run.log), flush=True)


# -- our tool ---------------------------------------------------------------------------------------

def ours_description(repo: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(repo))
    version = subprocess.run([sys.executable, "-c", "import generator; print(generator.__version__)"],
                             capture_output=True, text=True, check=False, env=env, cwd=repo)
    text = f"sessionsite {version.stdout.strip() or '(version unreadable: ' + version.stderr.strip()[-120:] + ')'}"
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode == 0:
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", "generator", "themes"],
                               capture_output=True, text=True, check=False).stdout.strip()
        text += f" at {head.stdout.strip()}" + (" with uncommitted changes in generator/ or themes/" if dirty else "")
    return text


def ours_env(repo: Path, **extra: str) -> dict[str, str]:
    """The environment our builds run in, with the checkout's modules compiled to bytecode first, as
    `pip install` does for a user (and did for the peers' venvs). Without that, a machine that sets
    PYTHONDONTWRITEBYTECODE (this project's sandboxes do) makes every build of ours compile the 45
    modules it imports from source: 0.13 s a build, which a user never pays, and 40% of a build that
    finds nothing changed."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(repo / "generator")], check=True,
                   env={name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"})
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(repo), **extra}


def run_ours(scenarios: list[tuple[str, Callable[[], str | None]]], archive: Path, work: Path,
             args: argparse.Namespace, jobs: int | None = None, name: str = "sessionsite", repeat: int = 1
             ) -> list[Run]:
    """Build scenarios, each preceded by the change it measures and run `repeat` times (the median of them
    kept), into the output folder (and vault) `name`."""
    jobs = args.jobs if jobs is None else jobs
    output = work / f"site-{name}"
    # The editable install's console script may point at another checkout; PYTHONPATH names this one.
    # Builds save what they read into a vault: this one, in the work folder, not the user's.
    env = ours_env(args.ours_repo, SESSIONSITE_VAULT=str(work / f"vault-{name}"))
    argv = [sys.executable, "-m", "generator", "build", str(archive), "-o", str(output), "-j", str(jobs)]
    runs = []
    for scenario, prepare in scenarios:
        repetitions = []
        for repetition in range(repeat):
            note = prepare() or ""
            run = Run(f"sessionsite -j {jobs}", scenario, argv,
                      work / "logs" / log_name(f"{name}-{repetition}", scenario), output, note=note)
            print(f"  sessionsite -j {jobs}: {scenario} …", end=" ", flush=True)
            measure(run, env, work, args.timeout)
            print(f"{run.seconds:.1f} s" + ("" if run.ok else " FAILED"), flush=True)
            repetitions.append(run)
            if not run.ok:
                report_failure(run)
                break
        runs.append(median_of(repetitions))
    return runs


def forget_build(work: Path, name: str) -> None:
    """An output folder and vault no later scenario builds on: removed, so that repetitions do not fill the disk."""
    for folder in (work / f"site-{name}", work / f"vault-{name}"):
        shutil.rmtree(folder, ignore_errors=True)


# -- peers ------------------------------------------------------------------------------------------

@dataclass
class Peer:
    package: str
    version: str
    has_cache: bool
    flags_note: str
    venv: Path = field(default=Path())

    def argv(self, source: Path | str, output: Path | str, jobs: int, executable: str | None = None) -> list[str]:
        program = executable or str(self.venv / "bin" / self.package)
        if self.package == "claude-code-log":
            # Positional INPUT is the projects folder; --all-projects makes it walk every project in it.
            return [program, str(source), "--all-projects", "-o", str(output), "-j", str(jobs)]
        return [program, "all", "-s", str(source), "-o", str(output)]

    def shown_command(self, jobs: int) -> str:
        return " ".join(self.argv("DIR", "OUT", jobs, executable=self.package))


PEERS = [
    Peer("claude-code-log", "1.7.0", has_cache=True,
         flags_note="HTML per session plus a combined page per project; SQLite cache kept in the work folder"),
    Peer("claude-code-transcripts", "0.6", has_cache=False,
         flags_note="single process (no -j); skips subagent files unless --include-agents, so it renders less"),
]


def installed_version(python: Path, package: str) -> str | None:
    if not python.exists():
        return None
    result = subprocess.run([str(python), "-c", f"import importlib.metadata as m; print(m.version('{package}'))"],
                            capture_output=True, text=True, check=False)
    return result.stdout.strip() if result.returncode == 0 else None


def ensure_venv(peer: Peer, cache: Path) -> str | None:
    """Create the peer's venv and install its pinned release if needed. Returns an error, or None."""
    peer.venv = cache / "venvs" / peer.package
    python = peer.venv / "bin" / "python"
    if installed_version(python, peer.package) == peer.version:
        return None
    print(f"  installing {peer.package}=={peer.version} into {peer.venv} …", flush=True)
    steps = [[sys.executable, "-m", "venv", str(peer.venv)],
             [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
              f"{peer.package}=={peer.version}"]]
    for step in steps:
        result = subprocess.run(step, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            return f"`{' '.join(step)}` failed:\n" + "\n".join(
                "    " + line for line in (result.stderr or result.stdout).splitlines()[-10:])
    found = installed_version(python, peer.package)
    return None if found == peer.version else f"installed {peer.package} reports version {found!r}"


def linked_copy(source: Path, target: Path) -> None:
    """Hard links where possible: instant, no extra disk, and the peers never write into our archive."""
    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    shutil.copytree(source, target, copy_function=link_or_copy)


@dataclass
class PeerSetup:
    """A peer ready to run on its own hard-linked copy of the archive, with a private HOME."""
    peer: Peer
    env: dict[str, str]
    argv: list[str]
    work: Path
    output: Path
    cache: Path

    def run(self, scenario: str, work: Path, args: argparse.Namespace, repetition: int) -> Run:
        if scenario == "cold build":  # nothing left of the previous one
            shutil.rmtree(self.output, ignore_errors=True)
            self.cache.unlink(missing_ok=True)
        run = Run(f"{self.peer.package} {self.peer.version}", scenario, self.argv,
                  work / "logs" / log_name(f"{self.peer.package}-{repetition}", scenario), self.output)
        print(f"  {self.peer.package}: {scenario} …", end=" ", flush=True)
        measure(run, self.env, self.work, args.timeout)
        print(f"{run.seconds:.1f} s" + ("" if run.ok else " FAILED"), flush=True)
        if not run.ok:
            report_failure(run)
        return run


def prepare_peers(archive: Path, work: Path, args: argparse.Namespace) -> tuple[list[PeerSetup], list[str]]:
    setups, notes = [], []
    for peer in PEERS:
        error = ensure_venv(peer, args.cache)
        if error:
            print(f"  !! {peer.package} unavailable: {error}", flush=True)
            notes.append(f"{peer.package} {peer.version}: not run ({error.splitlines()[0]})")
            continue
        peer_work = work / "peers" / peer.package
        source = peer_work / "projects"
        linked_copy(archive, source)
        home = peer_work / "home"
        home.mkdir(parents=True, exist_ok=True)
        # A private HOME so neither tool can read or write the real ~/.claude.
        cache = peer_work / "cache.db"
        env = dict(os.environ, HOME=str(home), CLAUDE_CODE_LOG_CACHE_PATH=str(cache))
        env.pop("PYTHONPATH", None)
        output = peer_work / "site"
        setups.append(PeerSetup(peer, env, peer.argv(source, output, args.jobs), peer_work, output, cache))
        notes.append(f"{peer.package} {peer.version}: `{peer.shown_command(args.jobs)}` ({peer.flags_note})")
    return setups, notes


# -- tables -----------------------------------------------------------------------------------------

def number(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def seconds_cell(run: Run) -> str:
    if run.timed_out:
        return f"timeout ({run.seconds:.0f})"
    if run.returncode != 0:
        return f"failed (exit {run.returncode})"
    return number(run.seconds, 2)


def ours_table(runs: list[Run]) -> list[str]:
    """Our runs, each against the first (the cold build at --jobs)."""
    cold = runs[0] if runs and runs[0].ok else None
    lines = [("| build | scenario | seconds | % of cold | CPU s | CPU % of cold | peak RSS MB | tree PSS MB | output MB "
              "| largest page KB | load | other CPU s |"),
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        share = (f"{100 * run.seconds / cold.seconds:.1f}%"
                 if cold and run.ok and run.seconds is not None and cold.seconds else "n/a")
        cpu_share = (f"{100 * run.cpu_seconds / cold.cpu_seconds:.1f}%"
                     if cold and run.ok and run.cpu_seconds is not None and cold.cpu_seconds else "n/a")
        label = run.scenario + "".join(f" ({part})" for part in (run.note, spread(run)) if part)
        lines.append(f"| {run.tool} | {label} | {seconds_cell(run)} | {share} | {number(run.cpu_seconds)} | "
                     f"{cpu_share} | {number(run.peak_rss_mb, 0)} | {number(run.peak_tree_mb, 0)} | "
                     f"{number(run.output_mb)} | {number(run.largest_page_kb, 0)} | {number(run.load_before, 2)} | "
                     f"{number(run.other_cpu_seconds)} |")
    return lines


def ratio(theirs: float | None, mine: float | None) -> str:
    return f"{theirs / mine:.2f}×" if theirs is not None and mine else "n/a"


def peers_table(peer_runs: list[Run], ours: list[Run]) -> list[str]:
    """Each peer run against our run of the same kind: cold against cold, cached rerun against no-change.
    A ratio above 1 means the peer took more (time, CPU, memory) than we did."""
    ours_by_kind = {"cold": ours[0] if ours else None, "rerun": ours[1] if len(ours) > 1 else None}
    lines = [("| tool | scenario | seconds | time ÷ ours | CPU s | CPU ÷ ours | peak RSS MB | peak RSS ÷ ours "
              "| tree PSS MB | output MB | load | other CPU s |"),
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in peer_runs:
        mine = ours_by_kind["cold" if run.scenario.startswith("cold") else "rerun"]
        comparable = mine is not None and mine.ok and run.ok
        label = run.scenario + (f" ({spread(run)})" if spread(run) else "")
        lines.append(f"| {run.tool} | {label} | {seconds_cell(run)} | "
                     f"{ratio(run.seconds, mine.seconds) if comparable and mine else 'n/a'} | "
                     f"{number(run.cpu_seconds)} | "
                     f"{ratio(run.cpu_seconds, mine.cpu_seconds) if comparable and mine else 'n/a'} | "
                     f"{number(run.peak_rss_mb, 0)} | "
                     f"{ratio(run.peak_rss_mb, mine.peak_rss_mb) if comparable and mine else 'n/a'} | "
                     f"{number(run.peak_tree_mb, 0)} | {number(run.output_mb)} | {number(run.load_before, 2)} | "
                     f"{number(run.other_cpu_seconds)} |")
    return lines


# What the project promises on this archive (issue 30), each checked against this run's figures.
TARGET_SPEEDUP = 2.5
TARGET_NOTHING_CHANGED = 0.02
TARGET_ONE_REPLY = 0.10
TARGET_PEAK_RSS_MB = 300


def targets_table(ours: list[Run], ours_one_job: list[Run], peer_runs: list[Run]) -> list[str]:
    """Each target with the figure this run measured and whether it is met."""
    def verdict(met: bool | None) -> str:
        return "n/a" if met is None else ("met" if met else "NOT met")

    runs = {run.scenario: run for run in ours if run.ok}
    cold = runs.get("cold build")
    rows: list[tuple[str, str, bool | None]] = []
    reference = next((run for run in peer_runs
                      if run.tool.startswith("claude-code-log") and run.scenario == "cold build" and run.ok), None)
    for what, theirs, mine in (("wall time", reference and reference.seconds, cold and cold.seconds),
                               ("CPU time", reference and reference.cpu_seconds, cold and cold.cpu_seconds)):
        speedup = theirs / mine if theirs and mine else None
        rows.append((f"cold build at least {TARGET_SPEEDUP}× faster than claude-code-log, in {what}",
                     "n/a" if speedup is None else f"{speedup:.2f}×",
                     None if speedup is None else speedup >= TARGET_SPEEDUP))
    for scenario, limit in (("rebuild, nothing changed", TARGET_NOTHING_CHANGED),
                            ("rebuild, one session appended", TARGET_ONE_REPLY)):
        run = runs.get(scenario)
        for what, part, whole in (("wall", run.seconds if run else None, cold.seconds if cold else None),
                                  ("CPU", run.cpu_seconds if run else None, cold.cpu_seconds if cold else None)):
            share = part / whole if part is not None and whole else None
            rows.append((f"{scenario}: at most {limit:.0%} of the cold build ({what})",
                         "n/a" if share is None else f"{share:.1%}", None if share is None else share <= limit))
    peaks = [run.peak_rss_mb for run in [*ours, *ours_one_job] if run.ok and run.peak_rss_mb is not None]
    peak = max(peaks) if peaks else None
    rows.append((f"peak RSS at most {TARGET_PEAK_RSS_MB} MB (any build of ours)",
                 "n/a" if peak is None else f"{peak:.0f} MB", None if peak is None else peak <= TARGET_PEAK_RSS_MB))
    return ["| target | measured | |", "|---|---:|---|",
            *(f"| {target} | {measured} | {verdict(met)} |" for target, measured, met in rows)]


# -- main -------------------------------------------------------------------------------------------

def median_session(paths: list[Path]) -> Path:
    by_size = sorted(paths, key=lambda path: (path.stat().st_size, path.name))
    return by_size[len(by_size) // 2]


# -- the real archive ---------------------------------------------------------------------------------

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def write_corpus_archive(archive: Path, args: argparse.Namespace) -> str:
    """The public corpus copied `--copies` times with fresh ids into `--projects` folders (scale_corpus.py)."""
    corpus_files = sorted(str(path) for path in args.corpus.rglob("*.jsonl"))
    if not corpus_files:
        sys.exit(f"no *.jsonl under {args.corpus}: pass --corpus, or --synthetic")
    subprocess.run([sys.executable, str(args.scale_tool), str(archive), str(args.copies), str(args.projects),
                    *corpus_files], check=True, stdout=subprocess.DEVNULL)
    return (f"the public corpus ({len(corpus_files)} files, {args.corpus}) copied {args.copies} times with fresh "
            f"ids into {args.projects} projects by scale_corpus.py: {folder_mb(archive):.1f} MB")


def main_sessions(archive: Path) -> list[Path]:
    """Session files at the top of their project folder, named by their session id (not the subagent
    transcripts kept beside them)."""
    return [path for path in archive.glob("*/*.jsonl") if UUID.fullmatch(path.stem)]


def append_reply(session_path: Path, words: str) -> int:
    """One reply from Claude appended to a real session, as Claude Code writes it: an `assistant` entry
    following the last entry, with the session's ids, model and version. Returns bytes added."""
    last = make_archive.read_last_entry(session_path)
    model = make_archive.read_last_entry(session_path, "message")
    model_name = (model.get("message") or {}).get("model") if model.get("type") == "assistant" else None
    moment = last.get("timestamp") or "2026-06-01T00:00:00.000Z"
    entry = {
        "parentUuid": last.get("uuid"), "isSidechain": False, "userType": "external", "cwd": last.get("cwd", "/"),
        "sessionId": last.get("sessionId", session_path.stem), "version": last.get("version", "2.0.0"),
        "gitBranch": last.get("gitBranch", ""), "type": "assistant",
        "message": {"id": f"msg_bench{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant",
                    "model": model_name or "claude-opus-4-6", "content": [{"type": "text", "text": words}],
                    "stop_reason": "end_turn", "stop_sequence": None,
                    "usage": {"input_tokens": 3, "output_tokens": 40, "cache_read_input_tokens": 1000,
                              "cache_creation_input_tokens": 0}},
        "requestId": f"req_bench{uuid.uuid4().hex[:20]}", "uuid": str(uuid.uuid4()), "timestamp": moment,
    }
    line = (json.dumps(entry) + "\n").encode("utf-8")
    with open(session_path, "ab") as handle:
        handle.write(line)
    return len(line)


def add_session_copy(session_path: Path, label: str) -> Path:
    """A new session file: a copy of a real one with fresh ids and a slug of its own, so that it joins no
    chain (its subagent transcripts are left out)."""
    fresh: dict[str, str] = {}
    text = UUID.sub(lambda m: fresh.setdefault(m.group(0), str(uuid.uuid5(uuid.NAMESPACE_URL, f"{label}:{m.group(0)}"))),
                    session_path.read_text(encoding="utf-8", errors="replace"))
    text = re.sub(r'"slug": ?"([^"\\]*)"', lambda m: f'"slug":"{m.group(1)}-{label}"', text)
    target = session_path.with_name(fresh.get(session_path.stem, f"{label}-{session_path.stem}") + ".jsonl")
    target.write_text(text, encoding="utf-8")
    return target


# -- where the time goes (-v) ---------------------------------------------------------------------------

def profile_stages(archive: Path, largest: Path, work: Path, args: argparse.Namespace) -> list[str]:
    """A cold build and a rebuild after one appended reply, each run plainly (for its CPU time) and profiled,
    into outputs of their own that see the same changes."""
    env = ours_env(args.ours_repo)
    lines = []
    for scenario, prepare in (("cold build", lambda: None),
                              ("one reply appended to the largest session",
                               lambda: append_reply(largest, "Profiled: one more reply."))):
        prepare()
        base = [sys.executable, "-m", "generator", "build", str(archive), "-j", "1", "--no-vault"]
        plain = Run("sessionsite", scenario, [*base, "-o", str(work / "site-plain")],
                    work / "logs" / log_name("plain", scenario), work / "site-plain")
        print(f"  -j 1, plain: {scenario} …", end=" ", flush=True)
        measure(plain, env, work, args.timeout)
        print(f"{plain.seconds:.1f} s, {number(plain.cpu_seconds)} CPU s" + ("" if plain.ok else " FAILED"), flush=True)
        if not plain.ok:
            report_failure(plain)
        profile = work / "logs" / f"profile-{log_name('sessionsite', scenario)[:-4]}.prof"
        argv = [sys.executable, "-m", "cProfile", "-o", str(profile), *base[1:], "-o", str(work / "site-profiled")]
        run = Run("sessionsite", scenario, argv, work / "logs" / log_name("profiled", scenario), work / "site-profiled")
        print(f"  -j 1, profiled: {scenario} …", end=" ", flush=True)
        measure(run, env, work, args.timeout)
        print(f"{run.seconds:.1f} s" + ("" if run.ok else " FAILED"), flush=True)
        if not run.ok:
            report_failure(run)
            continue
        cpu = plain.cpu_seconds if plain.ok else None
        heading = (f"\n### Where the time went: {scenario} (`-j 1`: {number(plain.seconds)} s, {number(cpu)} CPU s "
                   f"plainly; {run.seconds:.1f} s under cProfile)\n")
        lines += [heading, *stages.stage_table(str(profile), cpu_seconds=cpu)]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also profile a cold and an incremental build and print where the time went, per stage")
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus" / "public",
                        help="folder of real logs the archive is made of (default ../shared/corpus/public)")
    parser.add_argument("--scale-tool", type=Path, default=SHARED / "tools" / "scale_corpus.py",
                        help="the script that copies the corpus (default ../shared/tools/scale_corpus.py)")
    parser.add_argument("--copies", type=int, default=6, help="copies of the corpus (default 6)")
    parser.add_argument("--projects", type=int, default=12, help="project folders (default 12)")
    parser.add_argument("--archive", type=Path,
                        help="an archive made already (e.g. by scale_corpus.py): copied into the work folder, "
                             "so the changes the scenarios make do not reach it")
    parser.add_argument("--synthetic", action="store_true", help="a synthetic archive of --size-mb instead")
    parser.add_argument("--size-mb", type=float, default=100, help="synthetic archive size (default 100 MB)")
    parser.add_argument("--single-session-mb", type=float,
                        help="instead of an archive, ONE session file of this size (the memory test)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="-j for the tools that take it (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="archive seed (default 1)")
    parser.add_argument("--no-peers", action="store_true", help="only measure sessionsite")
    parser.add_argument("--ours-repo", type=Path, default=REPO,
                        help="checkout whose generator/ is measured (default: this one)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sessionsite-bench",
                        help="where the peers' venvs live (default ~/.cache/sessionsite-bench)")
    parser.add_argument("--workdir", type=Path, help="where to write archive and sites (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder afterwards")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed per command (default 3600)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each scenario, the median reported with the range (default 3)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat: at least 1")
    args.ours_repo = args.ours_repo.resolve()

    work = (args.workdir or Path(tempfile.mkdtemp(prefix="sessionsite-bench-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    archive = work / "projects"
    if archive.exists():
        sys.exit(f"{archive} exists: pass an empty --workdir")
    try:
        print("## Machine\n", flush=True)
        print("\n".join(machine_lines()) + f"\n- {ours_description(args.ours_repo)}\n", flush=True)

        started = time.perf_counter()
        synthetic = args.synthetic or bool(args.single_session_mb)
        added = itertools.count()  # each new session another
        if not synthetic:
            if args.archive:
                # A real copy, not hard links: the scenarios append to files in it.
                shutil.copytree(args.archive, archive)
                archive_line = f"Archive: {args.archive}, copied: {folder_mb(archive):.1f} MB"
            else:
                archive_line = f"Archive: {write_corpus_archive(archive, args)}"
            sessions = main_sessions(archive)
            largest = max(sessions, key=lambda path: (path.stat().st_size, path.name))
            median = median_session(sessions)

            def append_to_one() -> str:
                added = append_reply(largest, "One more reply, appended by the benchmark.")
                return f"+{added} bytes: one reply appended to the largest session, {largest.stat().st_size / MB:.1f} MB"

            def add_one() -> str:
                new = add_session_copy(median, f"bench-added-{next(added)}")
                return f"a copy of the median session, {new.stat().st_size / 1000:.0f} KB"
        else:
            if args.single_session_mb:
                stats = make_archive.write_single_session(archive, int(args.single_session_mb * MB), args.seed)
            else:
                stats = make_archive.write_archive(archive, int(args.size_mb * MB), args.seed)
            archive_line = f"Archive (seed {args.seed}): {make_archive.describe(stats, time.perf_counter() - started)}"
            if args.single_session_mb:
                archive_line += (f"; the session file itself is {stats.session_paths[0].stat().st_size / MB:.1f} MB, "
                                 "the rest its subagent transcripts")
            changed = largest = median_session(stats.session_paths)

            def append_to_one() -> str:
                added = make_archive.append_turn(changed, args.seed)
                return f"+{added / 1000:.0f} KB: a turn appended to a {changed.stat().st_size / MB:.1f} MB session"

            def add_one() -> str:
                new = make_archive.add_session(changed.parent, NEW_SESSION_BYTES, args.seed, index=10**6 + next(added))
                return f"{new.stat().st_size / 1000:.0f} KB"
        print(archive_line + "\n", flush=True)

        print("Running (one process at a time):", flush=True)
        peers, peer_notes = ([], []) if args.no_peers else prepare_peers(archive, work, args)
        # Every tool's cold builds take turns, and go before the archive is changed: they read the same bytes.
        colds: list[Run] = []
        colds_one_job: list[Run] = []
        peer_colds: dict[str, list[Run]] = {setup.peer.package: [] for setup in peers}
        for repetition in range(args.repeat):
            if repetition:
                forget_build(work, f"sessionsite-{repetition - 1}")
            colds += run_ours([("cold build", lambda: None)], archive, work, args, name=f"sessionsite-{repetition}")
            for setup in peers:
                if all(run.ok for run in peer_colds[setup.peer.package]):
                    peer_colds[setup.peer.package].append(setup.run("cold build", work, args, repetition))
            if args.jobs != 1:
                # The same cold build in one process, into an output and a vault of its own.
                colds_one_job += run_ours([("cold build", lambda: None)], archive, work, args, jobs=1,
                                          name=f"sessionsite-j1-{repetition}")
                forget_build(work, f"sessionsite-j1-{repetition}")
        last = f"sessionsite-{args.repeat - 1}"
        ours = [median_of(colds), *run_ours([("rebuild, nothing changed", lambda: None)], archive, work, args,
                                            name=last, repeat=args.repeat)]
        ours_one_job = [median_of(colds_one_job)] if colds_one_job else []
        peer_runs: list[Run] = []
        for setup in peers:
            cold = median_of(peer_colds[setup.peer.package])
            peer_runs.append(cold)
            if setup.peer.has_cache and cold.ok:
                peer_runs.append(median_of([setup.run("rerun, nothing changed (its cache)", work, args, repetition)
                                            for repetition in range(args.repeat)]))
        ours += run_ours([("rebuild, one session appended", append_to_one),
                          ("rebuild, one new session", add_one)], archive, work, args, name=last,
                         repeat=args.repeat)
        profiled = profile_stages(archive, largest, work, args) if args.verbose else []

        command = f"python3 -m generator build ARCHIVE -o OUT -j {args.jobs}"
        print(f"\n## sessionsite: `{command}`\n\n{archive_line}\n", flush=True)
        print("\n".join(ours_table(ours + ours_one_job)), flush=True)
        if peer_runs or peer_notes:
            print("\n## Peers on the same archive\n", flush=True)
            print("\n".join(f"- {note}" for note in peer_notes) + "\n", flush=True)
            if peer_runs:
                print("\n".join(peers_table(peer_runs, ours)), flush=True)
        print(f"\n## Targets (issue 30; ours at -j {args.jobs}, against claude-code-log at -j {args.jobs})\n",
              flush=True)
        print("\n".join(targets_table(ours, ours_one_job, peer_runs)), flush=True)
        if profiled:
            print("\n".join(profiled), flush=True)
        print("\nseconds: wall time. CPU s: user + system time of the process and its workers. peak RSS: largest "
              "single process (wait4 ru_maxrss). tree PSS: largest sampled sum over the process tree. other CPU s: "
              "CPU time the rest of the machine used during the run (this harness's sampler included); more than a "
              "second or two means the wall time is inflated by other work. load: the 1-minute load average as "
              f"the run started ({os.cpu_count()} cores).\nLogs: {work / 'logs'}"
              + ("" if args.keep else " (removed; pass --keep)"), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
