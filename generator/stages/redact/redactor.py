"""The redactor: every string of every entry, mapping keys included, and every field of a session's summary
pass here, so that no later stage and no output can carry a secret.

What counts as a secret is in `stages.credentials` (token formats, secret-like names in every syntax, fixed
forms, credential files, the entropy net); the redactor applies it to entries (`entry_strings` is the one walk
that says which of an entry's strings need which rules) and to summaries (`summaries`), knows which strings are
identifiers (searched only for tokens of a known format: the rules that go by context would find "secrets"
in ids), which tool call read or wrote a credential file (its result is searched as one), and counts and
records what it takes out. Each redaction leaves a visible marker, `[REDACTED:<kind>]`.

The bytes of an embedded image or document are not searched: they are not text, and changing them would
break the file.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ...core.model import BrokenLine, Entry
from ..credentials.assignments import plausible_secret
from ..credentials.containers import names_a_block, opens_a_block
from ..credentials.files import looks_like_dotenv
from ..credentials.scan import (GREP_PLACE, NOTHING_SEEN, WRAPPED, Found, Sighting, context_spans, embedded_token_spans,
                                may_hold_token, random_runs, replace_spans, scan_tokens, shows_credential_file, sight)
from .entry_strings import (COMMAND_KEY, HOME_KEY, NOTHING_NEEDED, SECRET_KEY, SHORTEST_SECRET, TOKEN_KEY,
                            UUID, Look, Needs, is_identifier, calls_of, commands_of, key_flags, name_like, needs_of,
                            reads_credential_file)
from .homes import HOME_PATH, HomeLearning, encoded_homes, holds_home, local_home
from .long_texts import LongTextRedaction
from .own import OwnRules
from .printed import PrintedCommands
from .summaries import SummaryRedaction
from .wrapped_tokens import LINE_NUMBER, unwrap


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@functools.lru_cache(maxsize=8192)
def identifier(text: str) -> str:
    """An identifier with any token of a known format in it replaced by its marker (not counted). Anchors
    are made from ids: made from this, an id that holds a key cannot carry it into a link, and the anchor
    is the same whether the id was redacted before (phase 2) or not (phase 1's outline). Kept for the ids
    seen last: each is asked for again by the other phase and by the entry that answers it."""
    if len(text) < SHORTEST_SECRET or UUID.fullmatch(text) or not may_hold_token(text):
        return text
    return replace_spans(text, embedded_token_spans(text), lambda found, _: marker(found.kind))


_AUTH_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|negotiate|apikey)[ \t]+(?=\S)")
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|Private-MAC:")
_LONGEST_PATCH_LINE = 1000
_LONGEST_BLOCK = 20
"""Lines of a patch read together with the line that names their block, at most."""


@dataclass
class Redactor(HomeLearning, LongTextRedaction, SummaryRedaction):
    """Redacts strings and whole entries; counts what it did."""

    secrets: bool = True
    """Redact secrets (on unless --no-redact)."""
    home: bool = False
    """Replace home directories with ~ (--redact-paths)."""
    counts: Counter[str] = field(default_factory=Counter)
    """Redactions made, by kind."""
    homes: frozenset[str] = field(default_factory=local_home, repr=False)
    """Home folders known whole (the user's; the sessions' working directories name more): their names
    are taken out of encoded folder names whole, even with a dot or a dash in them."""
    own: OwnRules = field(default_factory=OwnRules)
    """The user's own patterns and words (`--redact`, the config's `redact` and `redact_words`)."""
    record: Callable[[str, str, int], None] | None = field(default=None, repr=False, compare=False)
    """Told of each redaction: kind, text taken out, and line of the entry holding it, for `sessionsite audit`."""
    _cwd: str = field(default="", repr=False)
    _needs: tuple[dict[int, Sighting], set[int], set[int] | None] | None = field(default=None, repr=False)
    """While an entry is redacted: what the prefilter saw in its strings (by id), the ids of those that need the
    token rules, and of those that need the rules by context (None: all of them, as in a credential file)."""
    _credential_calls: set[str] = field(default_factory=set, repr=False)
    """The ids of the calls seen reading or writing a credential file: their results are searched as one."""
    _printing: PrintedCommands = field(default_factory=PrintedCommands, repr=False)
    """The calls seen running a command that prints a secret, and whether the entry being redacted holds its output."""

    @property
    def active(self) -> bool:
        return bool(self.secrets or self.home or self.own)

    def text(self, value: str, tokens: bool = True, context: bool = True, home: bool = True, own: bool = True,
             credential_file: bool = False, identifier: bool = False, seen: Sighting | None = None) -> str:
        """`tokens`, `context` and `home` may be turned off for text known to hold no token prefix, no
        word that names a secret, or no home folder; `own` (the user's rules) for identifiers.
        `credential_file`: the text is (part of) a file that holds credentials, where every value of a
        secret-like name, and every value that looks random, is a secret. `identifier`: an id or a signature,
        in which a token is looked for inside longer runs of token characters too. `seen`: what the prefilter
        saw in `value`, when the caller has looked already."""
        if self.secrets and len(value) >= SHORTEST_SECRET and (tokens or context):
            if seen is None:
                seen = sight(value)
            if tokens and seen.shapes & WRAPPED and may_hold_token(LINE_NUMBER.sub("", value)):
                unwrapped = unwrap(value, self._whole)  # a token a numbered line cut in two, even inside its anchor
                if unwrapped is not value:
                    value, seen = unwrapped, sight(unwrapped)
            if tokens and seen.tokens:
                redacted = replace_spans(value, scan_tokens(value, identifier or name_like(value), seen), self._taken)
                if redacted is not value:
                    value, seen = redacted, sight(redacted)
            if context and (seen.context or credential_file):
                named_file = credential_file or bool(seen.shapes & GREP_PLACE) and shows_credential_file(value)
                dotenv = seen.dotenv_lines >= 2 and looks_like_dotenv(value)
                value = replace_spans(value, context_spans(value, dotenv, named_file, seen), self._taken)
        if self._printing.current is not None and self.secrets and not identifier:
            value = replace_spans(value, self._printing.spans(value), self._taken)
        if self.home and home:
            value = HOME_PATH.sub(self._home, value)
            if "-home-" in value or "-Users-" in value:
                value = encoded_homes(self.homes).sub(self._home, value)
        if own and self.own:
            value = self.own.apply(value, self._whole)
        return value

    def _taken(self, found: Found, secret: str) -> str:
        return self._whole(found.kind, secret)

    def _whole(self, kind: str, secret: str) -> str:
        self.counts[kind] += 1
        if self.record is not None:
            self.record(kind, secret, self._line)
        return marker(kind)

    def _secret_field(self, value: str, credential_file: bool) -> str:
        """The value of a mapping key named like a secret (`"password": …`, `"Authorization": "Bearer …"`):
        all of it, after an authorisation scheme."""
        scheme = _AUTH_SCHEME.match(value)
        secret = value[scheme.end():] if scheme else value
        if not plausible_secret(secret, True, credential_file, whole_field=True) or "\n" in secret.strip():
            return self.text(value, credential_file=credential_file)
        return value[: len(value) - len(secret)] + self._whole("secret-assignment", secret)

    def _home(self, match: re.Match[str]) -> str:
        self.counts["home-directory"] += 1
        if self.record is not None:
            self.record("home-directory", match.group(), self._line)
        return "~"

    def _needed(self, text: str, tokens: bool, context: bool) -> tuple[bool, bool, Sighting | None]:
        """Which families of rules a string of the entry being redacted needs (only those whose anchors the
        one look at the whole entry found in it, `needs_of`), and what that look saw in it."""
        if self._needs is None:
            return tokens, context, None
        sightings, token_ids, context_ids = self._needs
        key = id(text)
        return (tokens and key in token_ids, context and (context_ids is None or key in context_ids),
                sightings.get(key, NOTHING_SEEN))

    def value(self, value: Any, key: str = "", tokens: bool = True, context: bool = True, home: bool = True,
              own: bool = True, credential_file: bool = False) -> Any:
        """Every string in a JSON value, mapping keys included (but an embedded file's bytes)."""
        if isinstance(value, str):
            tokens, context, seen = self._needed(value, tokens, context)
            if is_identifier(key, value):
                return self.text(value, tokens, False, False, False, identifier=True, seen=seen)
            return self.text(value, tokens, context, home, own, credential_file, seen=seen)
        own = own and bool(self.own)
        shortest = 1 if own else SHORTEST_SECRET  # a word of the user's may be short
        if isinstance(value, dict):
            media = value.get("type") == "base64"
            redacted: dict[str, Any] = {}
            for name, child in value.items():
                flags = key_flags(name)
                if type(child) is str:
                    child_tokens, child_context, seen = self._needed(child, tokens, context)
                    if len(child) < shortest and not (context and flags & SECRET_KEY) or media and name == "data":
                        new = child  # too short for any rule (but a secret-named key's value), or a file's bytes
                    elif is_identifier(name, child):
                        new = self.text(child, child_tokens, False, False, False, identifier=True, seen=seen) \
                            if child_tokens else child
                    elif context and flags & SECRET_KEY and child:
                        new = self._secret_field(child, credential_file)
                    elif child_context and self.secrets and name == "command":
                        # A random argument of a command is a key whatever the command (`grep -- <key line>`).
                        new = self.text(child, child_tokens, child_context, home, own, credential_file, seen=seen)
                        new = replace_spans(new, random_runs(new, COMMAND_KEY), self._taken)
                    else:
                        new = self.text(child, child_tokens, child_context, home, own, credential_file, seen=seen)
                elif isinstance(child, (dict, list)):
                    new = self.value(child, name, tokens, context, home, own, credential_file)
                else:
                    new = child
                if (flags & (TOKEN_KEY | HOME_KEY) and (tokens or home)) or own:
                    name = self.text(name, bool(flags & TOKEN_KEY) and tokens, False, bool(flags & HOME_KEY) and home,
                                     own)
                    while name in redacted:  # two keys redacted alike: both are kept
                        name += "'"
                redacted[name] = new
            return redacted
        if isinstance(value, list):
            return self._list(value, key, tokens, context, home, own, credential_file)
        return value

    def _list(self, items: list[Any], key: str, tokens: bool, context: bool, home: bool, own: bool,
              credential_file: bool) -> list[Any]:
        """Each item; a private key whose lines are items of their own (a patch's `+` lines) goes from its
        first line to its last, which the rule for a block cannot see from one string; a patch line under a
        secret-like name's block (`api_keys:` then `- …`) is read with the block's lines before it (`_below`)."""
        redacted: list[Any] = []
        inside_key, block = False, list[str]()
        for item in items:
            if inside_key and type(item) is str:
                inside_key = _KEY_END.search(item) is None
                mark = item[0] if item[:1] in ("+", "-", " ") else ""
                redacted.append(mark + self._whole("private-key", item[len(mark):]))
                continue
            if type(item) is str and self.secrets and context and _KEY_BEGIN.search(item) and not _KEY_END.search(item):
                inside_key = True
            new = self.value(item, key, tokens, context, home, own, credential_file)
            if type(item) is str and self.secrets and context and _patch_line(item):
                if block and new == item:
                    new = _below(block, item, lambda lines: self.text(lines, True, True, home, own, credential_file))
                block = _block_after(block, item[1:])
            redacted.append(new)
        return redacted

    def entry(self, entry: Entry) -> Entry:
        return self._entry(entry, *self._looks_at([entry])[0])

    def items(self, batch: Sequence[Entry | BrokenLine]) -> list[Entry | BrokenLine]:
        """A few items read together, as `item` redacts each: one prefilter pass looks at the strings of all
        their entries, which costs less than a pass for each."""
        if not self.active:
            return list(batch)
        entries = [item for item in batch if isinstance(item, Entry)]
        looked = iter(self._looks_at(entries))
        return [self._entry(item, *next(looked)) if isinstance(item, Entry) else self.item(item) for item in batch]

    def _looks_at(self, entries: Sequence[Entry]) -> list[tuple[Look, Needs]]:
        looks = [Look(entry.data) for entry in entries]
        needs = needs_of(looks) if self.secrets else [NOTHING_NEEDED] * len(looks)
        return list(zip(looks, needs, strict=True))

    def _entry(self, entry: Entry, look: Look, needs: Needs) -> Entry:
        with self._at(entry.line):
            return self._entry_at_its_line(entry, look, needs)

    def _entry_at_its_line(self, entry: Entry, look: Look, needs: Needs) -> Entry:
        # One look at all of an entry's text together says which rules any of it may need: most entries
        # need none, and are passed on as they are; the rest are searched only for what was seen.
        data = entry.data
        if self.home:
            self.learn_home(data.get("cwd"))
        credential_file, keyed_commands, printed = False, [], None
        if self.secrets:
            calls = calls_of(data)
            credential_file = reads_credential_file(data, calls, self._credential_calls, needs.file_mark)
            printed = self._printing.output_of(data, calls)
            if calls:
                keyed_commands = [command for command in commands_of(calls)
                                  if len(command) >= COMMAND_KEY and random_runs(command, COMMAND_KEY)]
        if keyed_commands:
            if needs is NOTHING_NEEDED:
                needs = Needs()
            needs.context_ids.update(id(command) for command in keyed_commands)
        tokens = bool(look.keys & TOKEN_KEY or needs.token_ids)
        context = self.secrets and bool(look.keys & SECRET_KEY or credential_file or needs.context_ids)
        home = self.home and (bool(look.keys & HOME_KEY) or holds_home("\n".join(look.texts)))
        # The user's own patterns and words may match any string, however short: every entry is searched for them.
        own = self.own.needed_for(look.texts)
        if not (tokens or context or home or own or printed is not None):
            return entry
        self._needs = (needs.sightings, needs.token_ids, None if credential_file else needs.context_ids)
        self._printing.current = printed
        try:
            # Most entries in which a rule's anchor was seen hold no secret: each string the rules need is
            # redacted on its own first, and only an entry in which one changes is rebuilt.
            if not (home or own or credential_file or look.keys & (SECRET_KEY | TOKEN_KEY)
                    or keyed_commands or printed is not None) and self._changes_nothing(look, needs):
                return entry
            return Entry(entry.file, entry.line, self.value(dict(data), "", tokens, context, home, own,
                                                            credential_file=credential_file))
        finally:
            self._needs = self._printing.current = None

    def _changes_nothing(self, look: Look, needs: Needs) -> bool:
        """Whether redacting an entry's strings would leave each as it is (no rule that needs the entry's shape
        applies: no secret-named key, no command given a key, no home folder, no rule of the user's, not a
        credential file)."""
        counts, record = self.counts, self.record
        self.counts, self.record = Counter(), None  # trying is not redacting
        token_ids, context_ids, sightings = needs.token_ids, needs.context_ids, needs.sightings
        try:
            for text in look.texts:
                key = id(text)
                if key in context_ids and _patch_line(text) and opens_a_block(text):
                    return False  # a patch line naming a block: the lines after it are redacted with it (`_list`)
                if (key in token_ids or key in context_ids) and self.text(
                        text, key in token_ids, key in context_ids, False, False, seen=sightings.get(key)) != text:
                    return False
            for text in (*look.ids, *look.encoded):
                key = id(text)
                if key in token_ids and self.text(text, True, False, False, False, identifier=True,
                                                  seen=sightings.get(key)) != text:
                    return False
            return True
        finally:
            self.counts, self.record = counts, record


def _patch_line(text: str) -> bool:
    """One line of a patch, as a structuredPatch holds them (a tool's output that starts with a space is none)."""
    return text[:1] in ("+", "-", " ") and len(text) <= _LONGEST_PATCH_LINE and "\n" not in text


def _below(block: list[str], item: str, redact: Callable[[str], str]) -> str:
    """A patch line redacted as it reads in its file, under the lines of its block (`containers.names_a_block`)."""
    line = item[1:]
    within = redact("\n".join([*block, line])).split("\n")
    return item[0] + within[-1] if len(within) == len(block) + 1 and within[-1] != line else item


def _block_after(block: list[str], line: str) -> list[str]:
    """The block a patch line is read under: one it names itself, or the one it goes on (for so long)."""
    if names_a_block(line):
        return [line]
    return [*block, line] if block and len(block) < _LONGEST_BLOCK else []
