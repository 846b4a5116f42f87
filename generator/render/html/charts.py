"""Charts drawn at build time as inline SVG: no chart library, no script, nothing fetched.

Colours come from the theme's CSS (classes and `currentColor`), so a chart follows the light and the dark
theme. Every chart names itself (`<title>`, `aria-labelledby`); the page shows its figures in a table
beside it as well. Labels are transcript content (model names, tool names): each is escaped, so none can
leave the SVG.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Callable, Mapping, Sequence

from markupsafe import Markup, escape

WIDTH = 640
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _label(text: str, limit: int) -> str:
    """A label that fits and cannot reorder or hide the text around it."""
    text = _CONTROL.sub("", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


@dataclass(frozen=True, slots=True)
class Bucket:
    """One column of a chart over time."""

    start: str
    """First day of the bucket (YYYY-MM-DD)."""
    label: str
    """How the bucket is named for a reader: a day, `week of` a day, or a month."""
    values: tuple[int, ...]
    """One value per series."""


def by_period(series: Sequence[Mapping[str, int]], max_columns: int = 62) -> tuple[str, list[Bucket]]:
    """Values by day, put in columns over the whole span (days with nothing show as empty columns, so the
    time axis is true): by day when the span is short, else by week, else by month. Returns the period's
    name and the buckets."""
    days = sorted({day for values in series for day in values if _day(day)})
    if not days:
        return "day", []
    first, last = _day(days[0]), _day(days[-1])
    assert first and last
    start_of: Callable[[date], date]
    if (last - first).days < max_columns:
        period, start_of = "day", (lambda d: d)
    elif (last - first).days < max_columns * 7:
        period, start_of = "week", (lambda d: d - timedelta(days=d.weekday()))
    else:
        period, start_of = "month", (lambda d: d.replace(day=1))
    starts: list[date] = []
    current = start_of(first)
    while current <= last:
        starts.append(current)
        current = _next(current, period)
    index = {start.isoformat(): i for i, start in enumerate(starts)}
    totals = [[0] * len(series) for _ in starts]
    for position, values in enumerate(series):
        for day, value in values.items():
            parsed = _day(day)
            if parsed:
                totals[index[start_of(parsed).isoformat()]][position] += value
    buckets = [Bucket(start.isoformat(), _period_label(start, period), tuple(values))
               for start, values in zip(starts, totals, strict=True)]
    return period, buckets


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None


def _next(day: date, period: str) -> date:
    if period == "day":
        return day + timedelta(days=1)
    if period == "week":
        return day + timedelta(days=7)
    return (day.replace(day=28) + timedelta(days=4)).replace(day=1)


def _period_label(day: date, period: str) -> str:
    if period == "month":
        return day.strftime("%b %Y")
    return day.isoformat()


def _open(chart_id: str, title: str, description: str, height: int, css_class: str) -> list[str]:
    return [
        (f'<svg class="chart {css_class}" viewBox="0 0 {WIDTH} {height}" width="100%" role="img" '
         f'aria-labelledby="{chart_id}-title {chart_id}-desc" preserveAspectRatio="xMinYMin meet" '
         f'xmlns="http://www.w3.org/2000/svg">'),
        f'<title id="{chart_id}-title">{escape(title)}</title>',
        f'<desc id="{chart_id}-desc">{escape(description)}</desc>',
    ]


def bar_chart(chart_id: str, title: str, rows: Sequence[tuple[str, float]],
              show: Callable[[float], str] = _number, limit: int = 12) -> Markup:
    """Horizontal bars, largest first as given; past `limit` rows the rest are summed as "others"."""
    rows = list(rows)
    if len(rows) > limit:
        rows = rows[: limit - 1] + [(f"{len(rows) - limit + 1} others", sum(v for _, v in rows[limit - 1:]))]
    row_height, top, label_width = 24, 4, 190
    height = top * 2 + row_height * max(len(rows), 1)
    largest = max((value for _, value in rows), default=0) or 1
    bar_room = WIDTH - label_width - 90
    description = "; ".join(f"{name}: {show(value)}" for name, value in rows)
    parts = _open(chart_id, title, description, height, "chart-bars")
    for position, (name, value) in enumerate(rows):
        y = top + position * row_height
        width = max(value / largest * bar_room, 1.5 if value else 0)
        middle = y + row_height / 2
        parts.append(
            f'<g><title>{escape(_label(name, 300))}: {escape(show(value))}</title>'
            f'<text class="chart-label" x="{label_width - 8}" y="{middle:.1f}" text-anchor="end" '
            f'dominant-baseline="middle">{escape(_label(name, 26))}</text>'
            f'<rect class="chart-bar" x="{label_width}" y="{y + 4}" width="{width:.1f}" height="{row_height - 8}" rx="2"/>'
            f'<text class="chart-value" x="{label_width + width + 6:.1f}" y="{middle:.1f}" '
            f'dominant-baseline="middle">{escape(show(value))}</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 - every value in the parts is escaped


def column_chart(chart_id: str, title: str, buckets: Sequence[Bucket], series: int = 0,
                 show: Callable[[float], str] = _number) -> Markup:
    """Columns over time, one per bucket, for one series of the buckets."""
    height, top, bottom, left, right = 180, 14, 28, 56, 10
    plot_width, plot_height = WIDTH - left - right, height - top - bottom
    values = [bucket.values[series] for bucket in buckets]
    largest = max(values, default=0)
    scale = largest or 1
    description = (f"{len(buckets)} columns from {buckets[0].label} to {buckets[-1].label}; the highest is "
                   f"{show(largest)}" if buckets else "No data")
    parts = _open(chart_id, title, description, height, "chart-columns")
    parts.append(f'<line class="chart-axis" x1="{left}" y1="{top + plot_height}" x2="{WIDTH - right}" '
                 f'y2="{top + plot_height}"/>')
    parts.append(f'<line class="chart-gridline" x1="{left}" y1="{top}" x2="{WIDTH - right}" y2="{top}"/>')
    parts.append(f'<text class="chart-value" x="{left - 6}" y="{top}" text-anchor="end" '
                 f'dominant-baseline="middle">{escape(show(largest))}</text>')
    parts.append(f'<text class="chart-value" x="{left - 6}" y="{top + plot_height}" text-anchor="end" '
                 f'dominant-baseline="middle">0</text>')
    slot = plot_width / max(len(buckets), 1)
    gap = min(slot * 0.2, 4)
    for position, (bucket, value) in enumerate(zip(buckets, values, strict=True)):
        bar_height = value / scale * plot_height
        if value and bar_height < 1.5:
            bar_height = 1.5
        x = left + position * slot
        parts.append(
            f'<rect class="chart-bar" x="{x + gap / 2:.1f}" y="{top + plot_height - bar_height:.1f}" '
            f'width="{max(slot - gap, 1):.1f}" height="{bar_height:.1f}">'
            f'<title>{escape(bucket.label)}: {escape(show(value))}</title></rect>')
    # Dates under the axis: the first, the last, and as many between as fit without overlapping.
    placed: list[tuple[float, float, int]] = []  # (left edge, right edge, bucket)
    for position, bucket in enumerate(buckets):
        text_width = len(bucket.label) * 6.6  # about right for 12px digits in the system sans
        middle = left + (position + 0.5) * slot
        start = min(max(middle - text_width / 2, left - 40), WIDTH - right - text_width)
        if position == len(buckets) - 1:  # the last always shows, in place of any it would overlap
            placed = [p for p in placed if p[1] + 10 <= start]
            placed.append((start, start + text_width, position))
        elif not placed or placed[-1][1] + 10 <= start:
            placed.append((start, start + text_width, position))
    for start, _, position in placed:
        parts.append(f'<text class="chart-label" x="{start:.1f}" y="{height - 8}">'
                     f'{escape(buckets[position].label)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 - every value in the parts is escaped
