"""The user's own redaction: patterns and words (`--redact`, `--redact-word`, the config's keys), and the values
they decided to redact when they reviewed them (`sessionsite review`), known only by their digests."""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .homes import encoded_form, encoded_homes, local_home


def redact_project_dir(dir_name: str, home: bool, own: OwnRules | None = None) -> str:
    """`-home-ada-src-app` -> `~-src-app` (with --redact-paths): the folder name spells out the home
    directory too, and so do the names of Claude Code's temporary folders
    (`-private-tmp-claude-501--Users-ada-src` -> `-private-tmp-claude-501-~-src`). The user's own rules
    apply to it too (`-home-ada-src-acme-portal` -> `-home-ada-src-redacted-portal`): a folder name
    becomes a path in the site. Claude Code's encoding made every character of the path that is not a
    letter or a digit a `-`, so a word is looked for in that form as well."""
    if home:
        dir_name = encoded_homes(local_home()).sub("~", dir_name)
    for _, pattern in own.compiled() if own else ():
        dir_name = pattern.sub(lambda m: "redacted" if m.group() else "", dir_name)
    for word in own.words if own else ():
        dir_name = re.sub(re.escape(encoded_form(word)), "redacted", dir_name, flags=re.IGNORECASE)
    return dir_name


@dataclass(frozen=True)
class OwnRules:
    """The user's own redaction, on top of the built-in rules: regular expressions (`--redact`, the config's
    `redact`) whose every match is a secret, and words (`redact_words`: host names, a client's name, a
    code name) found as they are, in any case."""

    patterns: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    reviewed: ReviewedSecrets | None = None
    """The values a person decided to redact when reviewing them (`sessionsite review`)."""

    def __bool__(self) -> bool:
        return bool(self.patterns or self.words or self.reviewed)

    def compiled(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        return _compile_own_rules(self.patterns, self.words)

    def needed_for(self, texts: Iterable[str]) -> bool:
        """Whether the rules may change one of an entry's texts: a pattern or a word may match any string,
        however short; the values decided "redact" are looked for first, and most entries hold none."""
        reviewed = self.reviewed
        return bool(self.patterns or self.words) or reviewed is not None and any(map(reviewed.found_in, texts))

    def apply(self, text: str, taken: Callable[[str, str], str]) -> str:
        """`text` with what each rule matches replaced by what `taken(kind, match)` gives; the values decided
        "redact" last, since they were reviewed as the other rules left them."""
        for kind, pattern in self.compiled():
            text = pattern.sub(functools.partial(_taken_match, taken, kind), text)
        return self.reviewed.redact(text, taken) if self.reviewed else text

    def check(self) -> None:
        """Raises `OwnRuleError` naming the first pattern that cannot be used, and why."""
        self.compiled()


def _taken_match(taken: Callable[[str, str], str], kind: str, match: re.Match[str]) -> str:
    return taken(kind, match.group()) if match.group() else ""


class OwnRuleError(ValueError):
    """A pattern of the user's that is not a regular expression, or that matches empty text."""


@functools.lru_cache(maxsize=16)
def _compile_own_rules(patterns: tuple[str, ...], words: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    rules = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise OwnRuleError(f"{pattern!r} is not a regular expression: {error}") from None
        if compiled.fullmatch("") is not None:
            raise OwnRuleError(f"{pattern!r} matches empty text, so it would redact nothing but mark every place")
        rules.append(("custom-pattern", compiled))
    cleaned = [word.strip() for word in words]
    if any(not word for word in cleaned):
        raise OwnRuleError("an empty word in redact_words would redact nothing")
    if cleaned:
        # The longest first: a word inside another (`acme`, `acme.corp`) does not cut the longer one in two.
        alternatives = "|".join(re.escape(word) for word in sorted(set(cleaned), key=lambda w: (-len(w), w)))
        rules.append(("custom-word", re.compile(f"(?i:{alternatives})")))
    return tuple(rules)


def keyed_digest(key: bytes, value: str) -> str:
    """What a reviewed value is known by: HMAC-SHA256 under the user's own key, so that the digests alone (a
    copy of the decisions' file) cannot be matched against guesses of a short password."""
    return hmac.new(key, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class ReviewedSecrets:
    """The values decided "redact", by their keyed digests, and how to find them again: `candidates` is the
    very finder whose values were put to review (`audit`'s), so each value it yields in a text is the one
    reviewed, and only those are hashed (a handful a text, not every word)."""

    key: bytes = field(repr=False)
    digests: frozenset[str]
    candidates: Callable[[str], Iterable[str]] = field(compare=False)

    def __bool__(self) -> bool:
        return bool(self.digests)

    def found_in(self, text: str) -> set[str]:
        """The values decided "redact" that `text` holds."""
        return {found for found in self.candidates(text) if keyed_digest(self.key, found) in self.digests}

    def redact(self, text: str, taken: Callable[[str, str], str]) -> str:
        """`text` with every value decided "redact" replaced by what `taken(kind, value)` gives."""
        for value in self.found_in(text):
            text = text.replace(value, taken(REVIEWED, value))
        return text


REVIEWED = "reviewed"
"""The kind of a redaction a person decided on: `[REDACTED:reviewed]`."""
