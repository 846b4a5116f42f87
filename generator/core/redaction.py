"""How a field of a session's summary is redacted, said in the field's own metadata, beside its type:

    cwd: str = field(metadata=redacted_as(TEXT))
    tool_counts: Mapping[str, int] = field(default_factory=dict, metadata=redacted_as(TEXT, OURS))

`stages.redact` walks a summary by these (`rules_of`). A class whose fields the redactor walks is decorated
with `declares_redaction`, which refuses it where it is defined when a field says nothing: a field added to
the model without a rule stops the import, before any build runs. `dataclasses.field` is written out (no
helper around it) so that mypy still knows which fields have a default.
"""

from __future__ import annotations

import dataclasses
import functools
from types import MappingProxyType
from typing import Any, Mapping, TypeVar, Union

TEXT = "text"
"""Untrusted text from the transcript: every string in it, mapping keys included, is redacted."""
IDENTIFIER = "identifier"
"""An identifier or a time from the transcript: only tokens of a known format are looked for (the rules by
context would find secrets in ids; an id must keep its shape)."""
OURS = "ours"
"""Made by sessionsite (numbers, digests, anchors made by `identifier`, words of its own), or a name from
the file system (the project folder, which discovery redacts with --redact-paths, and file names), or the
input's path, which no output holds."""
CLASSES = (TEXT, IDENTIFIER, OURS)

Rule = Union[str, tuple[str, str]]
"""A class, or for a mapping a pair: its keys' class, its values' class."""

REDACTION = "redaction"
"""The metadata key a field's rule is kept under."""

T = TypeVar("T", bound=type)


class UndeclaredRedaction(TypeError):
    """A field the redactor walks says nothing of how it is redacted, or names a class there is not: a
    defect in the code, found when its module is imported."""


def redacted_as(rule: str, values: str | None = None) -> Mapping[str, Rule]:
    """A field's metadata: redacted as `rule`; with `values`, a mapping whose keys are redacted as `rule`
    and whose values as `values` (nested dataclasses follow their own fields' rules)."""
    for name in (rule, values):
        if name is not None and name not in CLASSES:
            raise ValueError(f"no redaction class {name!r}: one of {', '.join(CLASSES)}")
    return MappingProxyType({REDACTION: rule if values is None else (rule, values)})


def redaction_rule(item: dataclasses.Field[Any]) -> Rule | None:
    """What a field's metadata says of its redaction; None when it says nothing or names no class."""
    rule = item.metadata.get(REDACTION)
    if isinstance(rule, str) and rule in CLASSES:
        return rule
    if isinstance(rule, tuple) and len(rule) == 2 and all(part in CLASSES for part in rule):
        return (rule[0], rule[1])
    return None


@functools.cache
def rules_of(cls: type) -> tuple[tuple[str, Rule], ...]:
    """Each field of the dataclass with its rule, in field order."""
    found = []
    for item in dataclasses.fields(cls):
        rule = redaction_rule(item)
        if rule is None:
            raise UndeclaredRedaction(f"{cls.__qualname__}.{item.name} (in {cls.__module__}) says no redaction "
                                      f"class (found {item.metadata.get(REDACTION)!r}): give it "
                                      f"field(metadata=redacted_as(...)) with one of {', '.join(CLASSES)}")
        found.append((item.name, rule))
    return tuple(found)


def declares_redaction(cls: T) -> T:
    """A class decorator, over `@dataclass`: refuses the class where it is defined unless every field says
    how it is redacted."""
    rules_of(cls)
    return cls
