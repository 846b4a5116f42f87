"""What `read` makes of a log file's lines: entries, lines that could not be read, and diagnostics."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, Callable, Iterator, Mapping, TypeVar

_Frozen = TypeVar("_Frozen", bound=type)


def quick_init(cls: _Frozen) -> _Frozen:
    """Gives a frozen dataclass with slots an `__init__` that sets each field through its slot's descriptor,
    a third quicker than the one `dataclass` writes (`object.__setattr__` by name, field by field): for the
    classes made for every line and every event. Its parameters and their defaults are the fields', and
    the instances are what `dataclass` makes them (frozen, compared and hashed by their fields)."""
    found = fields(cls)
    if any(item.default_factory is not MISSING or not item.init for item in found):
        raise TypeError(f"{cls.__qualname__}: quick_init takes fields with plain defaults only")
    names = [item.name for item in found]
    setters = {f"set_{name}": getattr(cls, name).__set__ for name in names}
    parameters = ", ".join(name if item.default is MISSING else f"{name}=default_{name}"
                           for name, item in zip(names, found, strict=True))
    body = "".join(f"\n        set_{name}(self, {name})" for name in names) or "\n        pass"
    source = (f"def make({', '.join([*setters, *(f'default_{item.name}' for item in found)])}):\n"
              f"    def __init__(self, {parameters}):{body}\n    return __init__\n")
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # noqa: S102 - made of the class's own field names, as `dataclass` makes its own
    init = namespace["make"](*setters.values(), *(item.default for item in found))
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[misc]
    return cls


@quick_init
@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Something wrong with the input, pinned to where it was found."""

    file: str
    """Path of the input file, as given or discovered."""
    line: int
    """1-based line number in that file (0 when the problem is the whole file)."""
    message: str
    """One sentence for a person."""


@quick_init
@dataclass(frozen=True, slots=True)
class Entry:
    """One JSONL line that parsed as a JSON object."""

    file: str
    """Path of the file it came from."""
    line: int
    """1-based line number."""
    data: Mapping[str, Any]
    """The parsed object, as written by Claude Code."""


WholeLine = Callable[[], Iterator[str]]
"""A line's text, a piece at a time: for a line too long to hold in memory at once."""


@quick_init
@dataclass(frozen=True, slots=True)
class BrokenLine:
    """A line that could not be read as an entry. Kept so that nothing is silently dropped."""

    file: str
    """Path of the file it came from."""
    line: int
    """1-based line number."""
    text: str
    """The line as far as it could be decoded."""
    reason: str
    """Why it could not be read."""
    whole: WholeLine | None = None
    """For a line too long to be read whole: all of it, read again, of which `text` is the start."""

