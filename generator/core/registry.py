"""A table of handlers by name (a tool's renderer, a message part's handler), filled by decorators as their
modules are imported. A name registered twice stops the import with both registrations named, rather than
letting whichever module was imported last win silently; a name nobody registered goes to the fallback."""

from __future__ import annotations

import inspect
from typing import Callable, Generic, Hashable, Iterator, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class DuplicateRegistration(ValueError):
    """Two handlers for one name: a defect in the code (or a plugin), found when it is imported."""


def describe(value: object) -> str:
    """A registration as a reader finds it: its qualified name and where it is defined."""
    name = f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', repr(value))}"
    try:
        source = inspect.getsourcefile(value)  # type: ignore[arg-type]
        _, line = inspect.getsourcelines(value)  # type: ignore[arg-type]
    except (TypeError, OSError):
        return name
    return f"{name} ({source}:{line})"


class Registry(Generic[K, V]):
    """Handlers by name. `what` names them in errors ("renderers of tool calls")."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[K, V] = {}
        self._fallback: V | None = None

    def add(self, key: K, value: V) -> None:
        if key in self._entries:
            raise DuplicateRegistration(f"two {self.what} for {key!r}: {describe(self._entries[key])} "
                                        f"and {describe(value)}")
        self._entries[key] = value

    def register(self, *keys: K) -> Callable[[V], V]:
        """A decorator registering what it decorates under each of `keys`."""
        def register(value: V) -> V:
            for key in keys:
                self.add(key, value)
            return value
        return register

    def fallback(self, value: V) -> V:
        """A decorator: what `lookup` gives for a name nobody registered. Set once."""
        if self._fallback is not None:
            raise DuplicateRegistration(f"two fallbacks among the {self.what}: {describe(self._fallback)} "
                                        f"and {describe(value)}")
        self._fallback = value
        return value

    def lookup(self, key: K) -> V:
        """The handler for `key`, or the fallback; a LookupError naming the registry when there is none."""
        found = self._entries.get(key, self._fallback)
        if found is None:
            raise LookupError(f"no {self.what} for {key!r}, and no fallback")
        return found

    def get(self, key: K) -> V | None:
        """The handler registered for `key` itself, or None (the fallback is not consulted)."""
        return self._entries.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
