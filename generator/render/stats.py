"""Figures about the work, made from session summaries: tokens and their estimated cost, time, tools,
errors, files changed; per session, per project and for the whole archive.

Everything here reads `Session` summaries only (phase 1 keeps no events), so the index and project pages
can show it for archives of any size. Prices come from `prices.json` beside this module: one file to
edit when prices change.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..core.model import Session, Usage

PRICES = Path(__file__).with_name("prices.json")
_DATE_SUFFIX = re.compile(r"-\d{8}$")
_BRACKET_SUFFIX = re.compile(r"\[[^\]]*\]$")


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Dollars per million tokens by model, and where the figures come from."""

    models: Mapping[str, Mapping[str, float]]
    source: str
    source_url: str
    as_of: str
    notes: str
    also: tuple[tuple[str, str], ...] = ()
    """Further sources, each (what it is, its address): another maker's models."""

    def price_of(self, model: str) -> Mapping[str, float] | None:
        """`claude-sonnet-4-5-20250929` and `claude-opus-4-6[1m]` are priced as their family's id."""
        name = _BRACKET_SUFFIX.sub("", model.strip())
        return self.models.get(name) or self.models.get(_DATE_SUFFIX.sub("", name))

    def cost(self, model: str, usage: Usage) -> float | None:
        """Estimated dollars for `usage` by `model`; None when the model has no price here."""
        price = self.price_of(model)
        if price is None:
            return None
        one_hour = min(usage.cache_creation_1h_tokens, usage.cache_creation_tokens)
        return (usage.input_tokens * price["input"]
                + usage.cache_read_tokens * price["cache_read"]
                + (usage.cache_creation_tokens - one_hour) * price["cache_write_5m"]
                + one_hour * price["cache_write_1h"]
                + usage.output_tokens * price["output"]) / 1_000_000


@functools.cache
def price_table() -> PriceTable:
    data = json.loads(PRICES.read_text(encoding="utf-8"))
    return PriceTable(models=data["models"], source=data["source"], source_url=data["source_url"],
                      as_of=data["as_of"], notes=data["notes"],
                      also=tuple((str(name), str(url)) for name, url in data.get("also", ())))


def total_tokens(usage: Usage) -> int:
    return usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens + usage.output_tokens


def add_usage(a: Usage, b: Usage) -> Usage:
    return Usage(input_tokens=a.input_tokens + b.input_tokens, output_tokens=a.output_tokens + b.output_tokens,
                 cache_read_tokens=a.cache_read_tokens + b.cache_read_tokens,
                 cache_creation_tokens=a.cache_creation_tokens + b.cache_creation_tokens,
                 cache_creation_1h_tokens=a.cache_creation_1h_tokens + b.cache_creation_1h_tokens)


@dataclass(frozen=True, slots=True)
class ModelFigures:
    """One model's tokens and what they cost."""

    model: str
    usage: Usage
    cost: float | None
    """None when neither the price table nor Claude Code's own figures give the model's cost."""
    reported: bool = False
    """True when the cost is the one Claude Code reported (`cost-state`), the price table not knowing the
    model."""

    @property
    def tokens(self) -> int:
        return total_tokens(self.usage)


@dataclass
class Totals:
    """Figures added up over sessions: one session, a project, or the archive."""

    sessions: int = 0
    """Sessions as the project pages list them (the runs of subagents that a session started are counted
    apart)."""
    subagent_runs: int = 0
    prompts: int = 0
    tool_calls: int = 0
    tool_counts: Counter[str] = field(default_factory=Counter)
    tool_errors: Counter[str] = field(default_factory=Counter)
    api_errors: int = 0
    active_ms: int = 0
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    reported_cost_by_model: dict[str, float] = field(default_factory=dict)
    """Claude Code's own figure, for the sessions whose logs have one."""
    sessions_by_day: Counter[str] = field(default_factory=Counter)
    """Main sessions by the UTC day they started."""
    tokens_by_day: Counter[str] = field(default_factory=Counter)

    def add(self, session: Session) -> None:
        if not session.is_listed:
            self.subagent_runs += 1
        else:
            self.sessions += 1
            if len(session.started) >= 10:
                self.sessions_by_day[session.started[:10]] += 1
        self.prompts += session.prompt_count
        self.tool_calls += session.tool_call_count
        self.tool_counts.update(session.tool_counts)
        self.tool_errors.update(session.tool_errors)
        self.api_errors += session.api_errors
        self.active_ms += session.active_ms
        self.tokens_by_day.update(session.tokens_by_day)
        for model, usage in session.usage_by_model.items():
            known = self.usage_by_model.get(model)
            self.usage_by_model[model] = add_usage(known, usage) if known else usage
        for model, dollars in session.reported_cost_by_model.items():
            self.reported_cost_by_model[model] = self.reported_cost_by_model.get(model, 0.0) + dollars

    @property
    def tool_error_count(self) -> int:
        return sum(self.tool_errors.values())

    @property
    def models(self) -> list[ModelFigures]:
        """Models that used any tokens, most tokens first."""
        table = price_table()
        figures = []
        for model, usage in self.usage_by_model.items():
            if not total_tokens(usage):
                continue
            priced = table.cost(model, usage)
            reported = self.reported_cost_by_model.get(model) if priced is None else None
            figures.append(ModelFigures(model, usage, priced if reported is None else reported, reported is not None))
        return sorted(figures, key=lambda f: (-f.tokens, f.model))

    @property
    def usage(self) -> Usage:
        total = Usage()
        for usage in self.usage_by_model.values():
            total = add_usage(total, usage)
        return total

    @property
    def cost(self) -> float:
        """Estimated dollars for the models that have a price (see `unpriced`)."""
        return sum(f.cost for f in self.models if f.cost is not None)

    @property
    def unpriced(self) -> list[str]:
        return [f.model for f in self.models if f.cost is None]

    @property
    def reported(self) -> list[str]:
        """Models whose cost is Claude Code's own figure."""
        return [f.model for f in self.models if f.reported]


def totals(sessions: Iterable[Session]) -> Totals:
    found = Totals()
    for session in sessions:
        found.add(session)
    return found


@dataclass
class FileChanges:
    """One file on a project's Files touched page: the sessions that changed it, and where."""

    path: str
    changes: int = 0
    sessions: list[tuple[str, int, tuple[tuple[str, int], ...]]] = field(default_factory=list)
    """(session key, changes in it, its first few places (anchor, page)), oldest session first."""
    last_changed: str = ""


def files_changed(sessions: Iterable[Session]) -> list[FileChanges]:
    """Every file the sessions changed, by path (a project's files read best as a sorted list)."""
    found: dict[str, FileChanges] = {}
    for session in sorted(sessions, key=lambda s: (s.started, s.key)):
        for touch in session.files_touched:
            entry = found.setdefault(touch.path, FileChanges(touch.path))
            entry.changes += touch.changes
            entry.sessions.append((session.key, touch.changes, touch.places))
            entry.last_changed = max(entry.last_changed, session.ended or session.started)
    return sorted(found.values(), key=lambda f: (f.path.lower(), f.path))


def money(dollars: float) -> str:
    """$0.25, $12.40, $1,234: cents only where they matter."""
    if dollars >= 1000:
        return f"${dollars:,.0f}"
    if 0 < dollars < 0.01:
        return "< $0.01"
    return f"${dollars:,.2f}"


def price_note() -> dict[str, Any]:
    table = price_table()
    return {"source": table.source, "url": table.source_url, "as_of": table.as_of, "notes": table.notes,
            "also": table.also}
