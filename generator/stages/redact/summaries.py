"""Redacting a session's summary, field by field as its metadata says (`core.redaction`): a part of the
`Redactor`."""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, TypeVar

from ...core.model import Diagnostic, Session
from ...core.redaction import IDENTIFIER, OURS, TEXT, Rule, rules_of

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from ..credentials.scan import Sighting

DataclassT = TypeVar("DataclassT", bound="DataclassInstance")


class SummaryRedaction:
    """The `Redactor`'s summaries: each field redacted as `text` redacts a string."""

    if TYPE_CHECKING:  # what it uses of the `Redactor`, which defines them
        @property
        def active(self) -> bool: ...

        def learn_home(self, path: Any) -> None: ...

        def text(self, value: str, tokens: bool = True, context: bool = True, home: bool = True, own: bool = True,
                 credential_file: bool = False, identifier: bool = False, seen: Sighting | None = None) -> str: ...

    def session(self, session: Session) -> Session:
        """A session's summary, made from entries that were not redacted (phase 1 reads only what the
        summary keeps, and redacting that is much cheaper than redacting every entry): every field, as
        its metadata says (`core.redaction`)."""
        if not self.active:
            return session
        self.learn_home(session.cwd)
        return self._dataclass(session)

    def interpreted(self, result: Any) -> Any:
        """Phase 1's result for one file (`interpret.Interpreted`): its sessions' summaries, and the names
        it counts as unknown (field and type names from the transcript), which the build report and the
        manifest hold."""
        if not self.active:
            return result
        return replace(result, session=self.session(result.session),
                       sidechains=tuple(map(self.session, result.sidechains)),
                       unknown=Counter(self._mapping(result.unknown, TEXT, OURS)),
                       diagnostics=tuple(replace(d, message=self.text(d.message)) if isinstance(d, Diagnostic) else d
                                         for d in result.diagnostics))

    def _dataclass(self, value: DataclassT) -> DataclassT:
        changes = {}
        for name, rule in rules_of(type(value)):
            if rule == OURS:
                continue
            old = getattr(value, name)
            new = self._field(old, rule)
            if new is not old and new != old:
                changes[name] = new
        return replace(value, **changes) if changes else value

    def _field(self, value: Any, rule: Rule) -> Any:
        if isinstance(value, str):
            if rule == IDENTIFIER:
                return self.text(value, context=False, home=False, own=False, identifier=True)
            return self.text(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):  # an instance, as fields hold
            return self._dataclass(value)
        if isinstance(value, tuple):
            return tuple(self._field(item, rule) for item in value)
        if isinstance(value, Mapping):
            keys, values = rule if isinstance(rule, tuple) else (rule, rule)
            return self._mapping(value, keys, values)
        return value

    def _mapping(self, value: Mapping[str, Any], keys: str, values: str) -> dict[str, Any]:
        """Keys that come out alike are merged: counts are added up."""
        redacted: dict[str, Any] = {}
        for name, item in value.items():
            new_name = self._field(name, keys) if keys != OURS else name
            new = self._field(item, values) if values != OURS else item
            if new_name in redacted and isinstance(new, int) and isinstance(redacted[new_name], int):
                redacted[new_name] += new
            else:
                while new_name in redacted:
                    new_name += "'"
                redacted[new_name] = new
        return redacted
