"""Where a build's time went, per stage of the pipeline, from a cProfile profile of it.

    python3 -m cProfile -o build.prof -m generator build ARCHIVE -o OUT -j 1 --no-vault
    python3 benchmarks/stages.py [--cpu SECONDS] build.prof

Each function's own time (not counting what it calls) goes to the stage its module belongs to: ours by
file (read, redact, interpret, link, markdown, the HTML parts, search, write), the libraries the HTML
stage calls by package (markdown-it-py and cmark-gfm for prose, Pygments, nh3, Jinja2; markdown-it-py's
block parse in the markdown stage's `escape.prose` counts as prose too). Time in code that belongs to no stage
(built-ins such as `re` or `json`, the standard library) goes to the stage of the function that called
it, followed up the costliest caller. cProfile slows Python code more than built-ins down, so the
seconds are larger than a plain build's; the shares are what to read, and `--cpu SECONDS` (the CPU time
of the same build run without the profiler) spreads that time over the stages by their shares, as an
estimate of each one's CPU. `-j 1` keeps the work in the profiled process (workers are not profiled).
"""

from __future__ import annotations

import pstats
import sys
from collections import Counter
from pathlib import PurePath
from typing import Any

Function = tuple[str, int, str]

# Our modules by file name (under generator/), in pipeline order.
OUR_STAGES = {
    "discover.py": "read", "read.py": "read",
    "redact.py": "redact", "redactor.py": "redact", "homes.py": "redact", "own.py": "redact",
    "entry_strings.py": "redact", "wrapped_tokens.py": "redact", "long_texts.py": "redact", "summaries.py": "redact",
    "names.py": "redact", "assignments.py": "redact", "forms.py": "redact", "scan.py": "redact",
    "entropy.py": "redact", "files.py": "redact", "providers.py": "redact", "prefilter.py": "redact",
    "sightings.py": "redact", "known_tokens.py": "redact",
    "summarize.py": "interpret", "tracking.py": "interpret", "model.py": "interpret",
    "entries.py": "interpret", "events.py": "interpret", "sessions.py": "interpret", "redaction.py": "redact",
    # the modules of stages/interpret/
    "builder.py": "interpret", "dispatch.py": "interpret", "session_state.py": "interpret",
    "message_content.py": "interpret", "user_entries.py": "interpret", "assistant_entries.py": "interpret",
    "tool_calls.py": "interpret", "system_entries.py": "interpret", "attachments.py": "interpret",
    "bookkeeping.py": "interpret",
    "link.py": "link",
    "search.py": "search",
    "write.py": "write", "locks.py": "write",
    "manifest.py": "build (manifest, phases)", "phase1.py": "build (manifest, phases)",
    "phase2.py": "build (manifest, phases)", "incremental.py": "build (manifest, phases)",
    "plans.py": "build (manifest, phases)",
    "build.py": "build (manifest, phases)", "config.py": "build (manifest, phases)",
    "workers.py": "build (manifest, phases)", "job.py": "build (manifest, phases)",
    "pages.py": "html: templates", "figures.py": "html: templates", "charts.py": "html: templates",
    "theme.py": "html: templates", "anchors.py": "html: templates", "quick_highlight.py": "html: highlighting",
    "bundle.py": "bundle",
    # the modules of bundle/
    "html.py": "bundle", "markdown.py": "bundle", "limits.py": "bundle", "review_notes.py": "bundle",
    "review_summary.py": "bundle", "review_turns.py": "bundle", "shortening.py": "bundle", "excerpts.py": "bundle",
    "inert.py": "bundle",
    "fast_prose.py": "html: prose",
}
LIBRARY_STAGES = {
    "markdown_it": "html: prose", "mdit_py_plugins": "html: prose", "linkify_it": "html: prose",
    "cmarkgfm": "html: prose",
    "pygments": "html: highlighting",
    "nh3": "html: sanitising",
    "jinja2": "html: templates", "markupsafe": "html: templates",
    "orjson": "read",
}
STAGE_ORDER = ["read", "redact", "interpret", "link", "markdown", "html: prose", "html: highlighting",
               "html: sanitising", "html: templates", "search", "write", "write (vault)",
               "build (manifest, phases)", "bundle", "other"]


def stage_of(function: Function) -> str | None:
    """The stage a function's own time belongs to; None for code of no stage (its caller's, then)."""
    filename, _, name = function
    if filename == "~" or not filename:  # a built-in
        return None
    if filename == "<template>" or filename.endswith((".html", ".xml")):
        return "html: templates"  # compiled Jinja2 templates
    parts = PurePath(filename).parts
    if "generator" in parts:
        inside = parts[parts.index("generator") + 1:]
        if inside[:1] in (("core",), ("stages",), ("render",), ("output",)):
            inside = inside[1:]  # the layer folder; the stage is the module (or markdown/, html/) inside it
        if inside[:1] == ("markdown",):
            return "markdown"
        if inside[:1] == ("vault",):
            return "write (vault)"
        if inside[:1] == ("search",):
            return "search"
        if inside == ("html", "render.py"):
            if name in ("sanitize", "keep_links_inside", "keep_callback_errors"):
                return "html: sanitising"
            if "highlight" in name or name == "_lexer":
                return "html: highlighting"
            return "html: prose"
        if inside:
            return OUR_STAGES.get(inside[-1], "other")
    for package, stage in LIBRARY_STAGES.items():
        if package in parts:
            return stage
    return None


def stage_seconds(stats: dict[Function, Any]) -> Counter[str]:
    """Own time per stage; time of stage-less code goes to its callers' stages, in proportion to the time
    each caller's calls took."""
    resolved: dict[Function, str] = {}

    def stage_through_callers(function: Function, seen: frozenset[Function] = frozenset()) -> str:
        if function in resolved:
            return resolved[function]
        found = stage_of(function)
        if found is None:
            callers = stats.get(function, (0, 0, 0, 0, {}))[4]
            candidates = [caller for caller in callers if caller not in seen]
            if candidates:
                costliest = max(candidates, key=lambda caller: callers[caller][2])
                found = stage_through_callers(costliest, seen | {function})
            else:
                found = "other"
        resolved[function] = found
        return found

    seconds: Counter[str] = Counter()
    for function, (_, _, own, _, callers) in stats.items():
        stage = stage_of(function)
        if stage is not None:
            seconds[stage] += own
        elif callers:
            # Split a built-in's time by the caller it was spent for (cProfile keeps it per caller).
            for caller, (_, _, caller_own, _) in callers.items():
                seconds[stage_through_callers(caller, frozenset({function}))] += caller_own
        else:
            seconds["other"] += own
    return seconds


def stage_table(profile_path: str, title: str = "", cpu_seconds: float | None = None) -> list[str]:
    """The stages' profiled seconds and shares; with `cpu_seconds` (the unprofiled build's CPU time), each
    stage's share of it too."""
    stats = pstats.Stats(profile_path).stats  # type: ignore[attr-defined]
    seconds = stage_seconds(stats)
    total = sum(seconds.values()) or 1.0
    cpu_header, cpu_rule = (" | ≈ CPU s", "---:|") if cpu_seconds is not None else ("", "")
    lines = [f"| stage{(' — ' + title) if title else ''} | profiled s | share{cpu_header} |", f"|---|---:|---:|{cpu_rule}"]

    def cpu_cell(stage_seconds: float) -> str:
        return f" {cpu_seconds * stage_seconds / total:.2f} |" if cpu_seconds is not None else ""

    for stage in sorted(seconds, key=lambda s: STAGE_ORDER.index(s) if s in STAGE_ORDER else len(STAGE_ORDER)):
        if seconds[stage] >= 0.005:
            lines.append(f"| {stage} | {seconds[stage]:.2f} | {100 * seconds[stage] / total:.0f}% |{cpu_cell(seconds[stage])}")
    lines.append(f"| total | {total:.2f} | 100% |{cpu_cell(total)}")
    return lines


def main() -> None:
    arguments = sys.argv[1:]
    cpu_seconds = None
    if arguments[:1] == ["--cpu"] and len(arguments) > 1:
        cpu_seconds, arguments = float(arguments[1]), arguments[2:]
    if not arguments:
        sys.exit(__doc__)
    for path in arguments:
        print("\n".join(stage_table(path, path, cpu_seconds)) + "\n")


if __name__ == "__main__":
    main()
