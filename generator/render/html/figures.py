"""The statistics the pages show, as plain values for the templates: a session's tokens, cost, tools,
errors and files; a project's or the archive's activity, tool mix and models, with their charts; a
project's Files touched page.

Figures come from `stats` (which reads summaries only); charts from `charts`. Template values are plain
strings and numbers (autoescaped), except the charts, which `charts` builds with every label escaped.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ...core import paths
from ...core.model import Session
from ..stats import Totals, files_changed, money, price_note, total_tokens, totals
from . import charts

# Kinds of token, in the order a reader meets them: what was sent, what the cache served or stored, what
# came back.
TOKEN_KINDS = (("input_tokens", "Input"), ("cache_read_tokens", "Cache read"),
               ("cache_creation_tokens", "Cache write"), ("output_tokens", "Output"))


def compact(number: float) -> str:
    """12_345_678 -> 12.3M: big token counts at a glance."""
    for limit, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if number >= limit:
            return f"{number / limit:.1f}".rstrip("0").rstrip(".") + suffix
    return f"{number:.0f}"


def duration_text(milliseconds: int) -> str:
    seconds = milliseconds // 1000
    if seconds < 60:
        return f"{milliseconds / 1000:.1f} s" if milliseconds < 10_000 else f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 10:
        return f"{minutes} min {seconds:02d} s"
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _usage_rows(found: Totals) -> dict[str, Any]:
    """Token kinds by model, and what each model cost: a table a person can check."""
    models = found.models
    columns = [{"name": f.model, "cost": money(f.cost) if f.cost is not None else "no price", "reported": f.reported}
               for f in models]
    rows = []
    for attribute, label in TOKEN_KINDS:
        values = [getattr(f.usage, attribute) for f in models]
        rows.append({"label": label, "values": values, "total": sum(values)})
    usage = found.usage
    return {
        "columns": columns,
        "rows": rows,
        "total_tokens": total_tokens(usage),
        "one_hour_writes": usage.cache_creation_1h_tokens,
        "cost": money(found.cost),
        "has_cost": any(f.cost is not None for f in models),
        "unpriced": found.unpriced,
        "reported": found.reported,
    }


def session_figures(session: Session, place_url: Callable[[str, int], str], project_path: str) -> dict[str, Any]:
    """What a session page's side shows of the work: tokens and cost, tools, errors, files changed."""
    found = totals([session])
    tools = sorted(session.tool_counts.items(), key=lambda item: (-item[1], item[0]))
    files = [{
        "path": relative_to(touch.path, project_path or session.cwd),
        "full_path": touch.path,
        "changes": touch.changes,
        "places": [{"url": place_url(anchor, page), "number": n} for n, (anchor, page) in enumerate(touch.places, 1)],
    } for touch in session.files_touched]
    return {
        "usage": _usage_rows(found) if found.models else None,
        "tools": [{"name": name, "calls": calls, "errors": session.tool_errors.get(name, 0)} for name, calls in tools],
        "tool_errors": found.tool_error_count,
        "api_errors": session.api_errors,
        "files": files,
        "files_left_out": session.files_left_out,
        "prices": price_note(),
    }


def relative_to(path: str, root: str) -> str:
    """A changed file's path as the project knows it: relative to the project's folder when inside it."""
    return paths.relative_to(path, root)


def overview(sessions: Iterable[Session], chart_prefix: str) -> dict[str, Any]:
    """A project's or the archive's figures and charts: activity over time, tool mix, models."""
    found = totals(sessions)
    period, buckets = charts.by_period([found.sessions_by_day, found.tokens_by_day])
    period_name = {"day": "day", "week": "week", "month": "month"}[period]
    activity = {
        "period": period_name,
        "sessions_svg": charts.column_chart(f"{chart_prefix}-sessions", f"Sessions started per {period_name}",
                                            buckets, 0, lambda v: f"{v:,.0f}"),
        "tokens_svg": charts.column_chart(f"{chart_prefix}-tokens", f"Tokens per {period_name}", buckets, 1,
                                          compact),
        # The table lists the periods with something in them; the chart shows the empty ones too.
        "rows": [{"label": (f"week of {b.label}" if period == "week" else b.label), "start": b.start,
                  "sessions": b.values[0], "tokens": b.values[1]} for b in buckets if any(b.values)],
    } if buckets else None
    tools = sorted(found.tool_counts.items(), key=lambda item: (-item[1], item[0]))
    models = found.models
    return {
        "sessions": found.sessions,
        "subagent_runs": found.subagent_runs,
        "prompts": found.prompts,
        "tool_calls": found.tool_calls,
        "tool_errors": found.tool_error_count,
        "api_errors": found.api_errors,
        "active": duration_text(found.active_ms) if found.active_ms else "",
        "tokens": total_tokens(found.usage),
        "cost": money(found.cost),
        "has_cost": any(f.cost is not None for f in models),
        "unpriced": found.unpriced,
        "reported": found.reported,
        "activity": activity,
        "tools": {
            "svg": charts.bar_chart(f"{chart_prefix}-tools", "Tool calls by tool", tools, lambda v: f"{v:,.0f}"),
            "rows": [{"name": name, "calls": calls, "errors": found.tool_errors.get(name, 0)} for name, calls in tools],
        } if tools else None,
        "models": {
            "svg": charts.bar_chart(f"{chart_prefix}-models", "Tokens by model",
                                    [(f.model, f.tokens) for f in models], compact),
            "usage": _usage_rows(found),
        } if models else None,
        "prices": price_note(),
    }


def files_page(sessions: list[Session], project_path: str, session_url: Callable[[str], str],
               place_url: Callable[[str, str, int], str], title_of: Callable[[str], str]) -> list[dict[str, Any]]:
    """Each file the project's sessions changed, with the sessions that changed it and where."""
    files = []
    for entry in files_changed(sessions):
        files.append({
            "path": relative_to(entry.path, project_path),
            "full_path": entry.path,
            "changes": entry.changes,
            "sessions": [{
                "title": title_of(key),
                "url": session_url(key),
                "changes": changes,
                "places": [{"url": place_url(key, anchor, page), "number": n} for n, (anchor, page) in enumerate(places, 1)],
            } for key, changes, places in entry.sessions],
        })
    return files
