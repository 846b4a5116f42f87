"""The redactor: every string of every entry, mapping keys included, and every field of a session's summary
pass here, so that no later stage and no output can carry a secret.

What counts as a secret is in `stages.credentials` (token formats, secret-like names in every syntax, fixed
forms, credential files, the entropy net); this module walks entries and summaries, knows which strings are
identifiers (searched only for tokens of a known format: the rules that go by context would find "secrets"
in ids), which tool call read or wrote a credential file (its result is searched as one), and counts and
records what it takes out. Each redaction leaves a visible marker, `[REDACTED:<kind>]`.

The bytes of an embedded image or document are not searched: they are not text, and changing them would
break the file.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

from ...core.model import BrokenLine, Diagnostic, Entry, Session
from ..credentials.assignments import plausible_secret
from ..credentials.files import looks_like_dotenv, names_credential_file
from ..credentials.names import is_secret_name
from ..credentials.scan import (GREP_PLACE, NOTHING_SEEN, WRAPPED, Found, Sighting, context_spans, embedded_token_spans,
                                may_hold_token, random_runs, replace_spans, scan_tokens, shows_credential_file, sight,
                                sightings_of, token_spans)
from .homes import HOME_FOLDER, HOME_PATH, encoded_homes, holds_home, local_home
from .own import OwnRules
from ...core.redaction import IDENTIFIER, OURS, TEXT, Rule, rules_of

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

DataclassT = TypeVar("DataclassT", bound="DataclassInstance")

UNTOUCHED_FIELDS = frozenset({
    "uuid", "parentUuid", "leafUuid", "logicalParentUuid", "sessionId", "requestId", "messageId", "promptId",
    "agentId", "id", "tool_use_id", "toolUseID", "parentToolUseID", "sourceToolUseID", "sourceToolAssistantUUID",
    "signature", "timestamp", "type", "media_type", "version",
})
"""Fields that hold identifiers: only tokens of a known format are looked for in them."""

REDACTION_WINDOW = 1 << 20
"""A text too long to hold at once (a line too long to read whole) is redacted this many characters at a
time…"""
REDACTION_MARGIN = 64 << 10
"""…cut where the text this far either side of the cut redacts alike whole and in two."""
_JSON_BREAK = "\\\n"
"""A backslash and a line break, which no line of JSON holds: what `\\n` in one is read as while redacting."""
SHORTEST_SECRET = 7
"""Nothing shorter can hold a secret any rule finds (`PWD=abc` is the shortest); most strings in an entry are
names and ids this short, and skipping them is a good part of redaction's speed."""

_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "command", "url", "pattern")
"""Tool inputs and results that name the file a call reads or writes (a Bash command names it too)."""


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""Most ids are uuids, in which no token of a known format can stand (every format has an upper-case letter or a
character other than a hex digit and a dash in it: tests/test_credentials.py checks it)."""


@functools.lru_cache(maxsize=8192)
def identifier(text: str) -> str:
    """An identifier with any token of a known format in it replaced by its marker (not counted). Anchors
    are made from ids: made from this, an id that holds a key cannot carry it into a link, and the anchor
    is the same whether the id was redacted before (phase 2) or not (phase 1's outline). Kept for the ids
    seen last: each is asked for again by the other phase and by the entry that answers it."""
    if len(text) < SHORTEST_SECRET or _UUID.fullmatch(text) or not may_hold_token(text):
        return text
    return replace_spans(text, embedded_token_spans(text), lambda found, _: marker(found.kind))


_SECRET_KEY, _TOKEN_KEY, _HOME_KEY = 1, 2, 4
_KEY_FLAGS: dict[str, int] = {}


def _key_flags(name: str) -> int:
    """What a mapping key may need (keys repeat from entry to entry: the answer is kept, in a dict, which
    is faster than lru_cache): its value is a secret by its name, it holds a token, it holds a home folder."""
    flags = _KEY_FLAGS.get(name)
    if flags is None:
        flags = ((_SECRET_KEY if is_secret_name(name) else 0)
                 | (_TOKEN_KEY if len(name) >= SHORTEST_SECRET and scan_tokens(name, _name_like(name)) else 0)
                 | (_HOME_KEY if holds_home(name) else 0))
        if len(_KEY_FLAGS) > 50_000:  # keys that are data (paths, ids) must not grow it without end
            _KEY_FLAGS.clear()
        _KEY_FLAGS[name] = flags
    return flags


_COMMAND_KEY = 40
"""A random run this long in a command is a key given to it (`grep -- <a key's line>`); base64 of a few words
(`echo PHNj…= | base64 -d`) is shorter."""
_NAME_LIKE = re.compile(r"[A-Za-z0-9_.:@/-]{1,200}")
_BASE64_ONLY = re.compile(r"[A-Za-z0-9+/=]+")


def _name_like(value: str) -> bool:
    """A name or an id (a tool's `mcp__server__tool`, a branch, a slug): in it a token is looked for inside
    longer runs of token characters too. Not base64, in which a token's prefix stands by chance."""
    return _NAME_LIKE.fullmatch(value) is not None and not _BASE64_ONLY.fullmatch(value) and not value.startswith("data:")


_AUTH_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|negotiate|apikey)[ \t]+(?=\S)")
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|Private-MAC:")
_BASE64 = re.compile(r"[A-Za-z0-9+/=]+")
# A line of a file read: Read's `    12→` or `cat -n`'s `    12<tab>`, after the line break.
_LINE_NUMBER = re.compile(r"\n[ \t]*\d+(?:→|\t)")
_TOKEN_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+/=.]*")
_LONGEST_LINE_PART = 400
"""How far back a wrapped token's first part is looked for."""


def _wrapped_token_breaks(value: str) -> list[tuple[int, int]]:
    """The numbered line breaks (as a file read shows them) with token characters on both sides: where a
    token a file wrapped over two lines may go on."""
    breaks = []
    for number in _LINE_NUMBER.finditer(value):
        end, head_start = number.start(), number.end()
        if end > 0 and value[end - 1] in _TOKEN_CHARACTERS and head_start < len(value) and (
                value[head_start] in _TOKEN_CHARACTERS):
            breaks.append((end, head_start))
    return breaks


class _Needs:
    """What the prefilter saw in an entry's strings (by the string's id), and the ids of the strings that need
    the token rules, and of those that need the rules by context."""

    __slots__ = ("sightings", "token_ids", "context_ids")

    def __init__(self) -> None:
        self.sightings: dict[int, Sighting] = {}
        self.token_ids: set[int] = set()
        self.context_ids: set[int] = set()


_NOTHING_NEEDED = _Needs()
"""What an entry in whose strings the prefilter saw nothing needs (shared: never changed)."""


def _needs_of(looks: Sequence[_Look]) -> list[_Needs]:
    """From one prefilter pass over all the strings of a few entries (and one over all their ids): what each
    entry's strings need."""
    needs = [_NOTHING_NEEDED] * len(looks)
    for identifiers in (False, True):
        texts: list[str] = []
        owners: list[int] = []
        for number, look in enumerate(looks):
            strings = [*look.ids, *look.encoded] if identifiers else look.texts
            texts += strings
            owners += [number] * len(strings)
        for index, seen in sightings_of(texts, identifiers).items():
            text, owner = texts[index], owners[index]
            found = needs[owner]
            if found is _NOTHING_NEEDED:
                found = needs[owner] = _Needs()
            found.sightings[id(text)] = seen
            if seen.tokens or seen.shapes & WRAPPED and may_hold_token(_LINE_NUMBER.sub("", text)):
                found.token_ids.add(id(text))
            if seen.context:
                found.context_ids.add(id(text))
    return needs


def _calls(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool calls and results an entry's message holds."""
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [part for part in content if isinstance(part, dict) and part.get("type") in ("tool_use", "tool_result")] \
        if isinstance(content, list) else []


def _commands(calls: list[dict[str, Any]]) -> list[str]:
    """The commands an entry's calls run."""
    return [part["input"]["command"] for part in calls if part.get("type") == "tool_use"
            and isinstance(part.get("input"), dict) and isinstance(part["input"].get("command"), str)]


class _Look:
    """What one walk over an entry found: its strings, by what may be looked for in them."""

    __slots__ = ("texts", "ids", "encoded", "keys")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.texts: list[str] = []
        """Strings that any rule may apply to."""
        self.ids: list[str] = []
        """Identifiers: only known token formats are looked for in them."""
        self.encoded: list[str] = []
        """Long base64 identifiers (signatures), in which few formats can be."""
        self.keys = 0
        """What the mapping keys need (`_key_flags`, together)."""
        self._walk(data)

    def _walk(self, data: Mapping[str, Any]) -> None:
        # The hot loop of redaction: every item of every entry passes here, most of them only once. A stack,
        # not recursion, and everything it uses in locals: a fifth faster.
        texts, ids, untouched, shortest, secret_key = self.texts, self.ids, UNTOUCHED_FIELDS, SHORTEST_SECRET, _SECRET_KEY
        add_text, add_id = texts.append, ids.append
        flags_of, keys = _KEY_FLAGS.get, 0
        pending: list[tuple[Any, str]] = [(data, "")]
        pop, push = pending.pop, pending.append
        while pending:
            value, key = pop()
            if isinstance(value, dict):
                for name, child in value.items():
                    flags = flags_of(name)
                    if flags is None:
                        flags = _key_flags(name)
                    kind = type(child)
                    if kind is str:
                        if len(child) >= shortest:
                            if name not in untouched:
                                if name != "data" or value.get("type") != "base64":  # an embedded file's bytes
                                    add_text(child)
                            elif len(child) > 200 and _BASE64.fullmatch(child):
                                self.encoded.append(child)
                            else:
                                add_id(child)
                        elif flags and not child:
                            flags &= ~secret_key
                    else:
                        flags &= ~secret_key
                        if isinstance(child, (dict, list)):
                            push((child, name))
                    keys |= flags
            elif isinstance(value, list):
                for child in value:
                    if type(child) is str:
                        if len(child) >= shortest:
                            (add_id if key in untouched else add_text)(child)
                    elif isinstance(child, (dict, list)):
                        push((child, key))
            elif isinstance(value, str) and len(value) >= shortest:  # an entry that is not a JSON object
                (add_id if key in untouched else add_text)(value)
        self.keys = keys


@dataclass
class Redactor:
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
    record: Callable[[str, str], None] | None = field(default=None, repr=False, compare=False)
    """Told of every redaction, its kind and the text taken out (for `sessionsite audit`)."""
    _cwd: str = field(default="", repr=False)
    _needs: tuple[dict[int, Sighting], set[int], set[int] | None] | None = field(default=None, repr=False)
    """While an entry is redacted: what the prefilter saw in its strings (by id), the ids of those that need the
    token rules, and of those that need the rules by context (None: all of them, as in a credential file)."""
    _credential_calls: set[str] = field(default_factory=set, repr=False)
    """The ids of the calls seen reading or writing a credential file: their results are searched as one."""

    def learn_home(self, path: Any) -> None:
        """Know the home folder a working directory is in (`/Users/ada.lovelace/src` -> its user name,
        which its encoded form `-Users-ada-lovelace-src` spells ambiguously)."""
        if self.home and isinstance(path, str) and path != self._cwd:
            self._cwd = path
            found = HOME_FOLDER.match(path)
            if found is not None and found.group() not in self.homes:
                self.homes = self.homes | {found.group()}

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
            if tokens and seen.shapes & WRAPPED and may_hold_token(_LINE_NUMBER.sub("", value)):
                unwrapped = self._unwrap(value)  # a token a numbered line cut in two, even inside its anchor
                if unwrapped is not value:
                    value, seen = unwrapped, sight(unwrapped)
            if tokens and seen.tokens:
                redacted = replace_spans(value, scan_tokens(value, identifier or _name_like(value), seen), self._taken)
                if redacted is not value:
                    value, seen = redacted, sight(redacted)
            if context and (seen.context or credential_file):
                named_file = credential_file or bool(seen.shapes & GREP_PLACE) and shows_credential_file(value)
                dotenv = seen.dotenv_lines >= 2 and looks_like_dotenv(value)
                value = replace_spans(value, context_spans(value, dotenv, named_file, seen), self._taken)
        if self.home and home:
            value = HOME_PATH.sub(self._home, value)
            if "-home-" in value or "-Users-" in value:
                value = encoded_homes(self.homes).sub(self._home, value)
        if own and self.own:
            for kind, pattern in self.own.compiled():
                value = pattern.sub(functools.partial(self._own, kind), value)
        return value

    def _taken(self, found: Found, secret: str) -> str:
        return self._whole(found.kind, secret)

    def _unwrap(self, value: str) -> str:
        """A token a file wrapped over two lines, as a file read shows them (each line after its number):
        the rules see the two parts joined. The part on the second line counts as the token's when, joined,
        the token takes all of it, or when the first part alone is not a whole token (a line that follows a
        whole token is its own)."""
        pieces, position = [], 0
        for end, head_start in _wrapped_token_breaks(value):
            reach = max(0, end - _LONGEST_LINE_PART)
            start, line_start = end, max(value.rfind("\n", reach, end) + 1, reach)
            while start > line_start and value[start - 1] in _TOKEN_CHARACTERS:
                start -= 1
            if start < position:
                continue
            run = _TOKEN_RUN.match(value, head_start)
            assert run is not None  # it matches the empty string too
            tail, head = value[start:end], value[head_start:run.end()]
            joined = tail + head
            if not may_hold_token(joined):
                continue
            across = next((found for found in token_spans(joined) if found.start < len(tail) < found.end), None)
            if across is None:
                continue
            if across.end < len(joined) and any(found.end == len(tail) for found in token_spans(tail)):
                continue
            pieces += [value[position:start + across.start], self._whole(across.kind, joined[across.start:across.end]),
                       value[end:head_start]]
            position = head_start + across.end - len(tail)
        return "".join(pieces) + value[position:] if pieces else value

    def _own(self, kind: str, match: re.Match[str]) -> str:
        return self._whole(kind, match.group()) if match.group() else ""

    def _whole(self, kind: str, secret: str) -> str:
        self.counts[kind] += 1
        if self.record is not None:
            self.record(kind, secret)
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
            self.record("home-directory", match.group())
        return "~"

    def _needed(self, text: str, tokens: bool, context: bool) -> tuple[bool, bool, Sighting | None]:
        """Which families of rules a string of the entry being redacted needs (only those whose anchors the
        one look at the whole entry found in it, `_needs_of`), and what that look saw in it."""
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
            if key in UNTOUCHED_FIELDS:
                return self.text(value, tokens, False, False, False, identifier=True, seen=seen)
            return self.text(value, tokens, context, home, own, credential_file, seen=seen)
        own = own and bool(self.own)
        shortest = 1 if own else SHORTEST_SECRET  # a word of the user's may be short
        if isinstance(value, dict):
            media = value.get("type") == "base64"
            redacted: dict[str, Any] = {}
            for name, child in value.items():
                flags = _key_flags(name)
                if type(child) is str:
                    child_tokens, child_context, seen = self._needed(child, tokens, context)
                    if len(child) < shortest and not (context and flags & _SECRET_KEY) or media and name == "data":
                        new = child  # too short for any rule (but a secret-named key's value), or a file's bytes
                    elif name in UNTOUCHED_FIELDS:
                        new = self.text(child, child_tokens, False, False, False, identifier=True, seen=seen) \
                            if child_tokens else child
                    elif context and flags & _SECRET_KEY and child:
                        new = self._secret_field(child, credential_file)
                    elif child_context and self.secrets and name == "command":
                        # A random argument of a command is a key whatever the command (`grep -- <key line>`).
                        new = self.text(child, child_tokens, child_context, home, own, credential_file, seen=seen)
                        new = replace_spans(new, random_runs(new, _COMMAND_KEY), self._taken)
                    else:
                        new = self.text(child, child_tokens, child_context, home, own, credential_file, seen=seen)
                elif isinstance(child, (dict, list)):
                    new = self.value(child, name, tokens, context, home, own, credential_file)
                else:
                    new = child
                if (flags & (_TOKEN_KEY | _HOME_KEY) and (tokens or home)) or own:
                    name = self.text(name, bool(flags & _TOKEN_KEY) and tokens, False, bool(flags & _HOME_KEY) and home,
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
        first line to its last, which the rule for a block cannot see from one string."""
        redacted: list[Any] = []
        inside_key = False
        for item in items:
            if inside_key and type(item) is str:
                inside_key = _KEY_END.search(item) is None
                mark = item[0] if item[:1] in ("+", "-", " ") else ""
                redacted.append(mark + self._whole("private-key", item[len(mark):]))
                continue
            if type(item) is str and self.secrets and context and _KEY_BEGIN.search(item) and not _KEY_END.search(item):
                inside_key = True
            redacted.append(self.value(item, key, tokens, context, home, own, credential_file))
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

    def _looks_at(self, entries: Sequence[Entry]) -> list[tuple[_Look, _Needs]]:
        looks = [_Look(entry.data) for entry in entries]
        needs = _needs_of(looks) if self.secrets else [_NOTHING_NEEDED] * len(looks)
        return list(zip(looks, needs, strict=True))

    def _entry(self, entry: Entry, look: _Look, needs: _Needs) -> Entry:
        # One look at all of an entry's text together says which rules any of it may need: most entries
        # need none, and are passed on as they are; the rest are searched only for what was seen.
        self.learn_home(entry.data.get("cwd"))
        calls = _calls(entry.data) if self.secrets else []
        credential_file = self.secrets and self._reads_credential_file(entry.data, calls)
        keyed_commands = [command for command in _commands(calls) if random_runs(command, _COMMAND_KEY)]
        if keyed_commands:
            if needs is _NOTHING_NEEDED:
                needs = _Needs()
            needs.context_ids.update(id(command) for command in keyed_commands)
        families = {
            "tokens": bool(look.keys & _TOKEN_KEY) or bool(needs.token_ids),
            "context": self.secrets and (bool(look.keys & _SECRET_KEY) or credential_file or bool(needs.context_ids)),
            "home": self.home and (bool(look.keys & _HOME_KEY) or holds_home("\n".join(look.texts))),
        }
        # The user's own rules may match any string, however short: every entry is searched for them.
        families["own"] = bool(self.own)
        if not any(families.values()):
            return entry
        self._needs = (needs.sightings, needs.token_ids, None if credential_file else needs.context_ids)
        try:
            # Most entries in which a rule's anchor was seen hold no secret: each string the rules need is
            # redacted on its own first, and only an entry in which one changes is rebuilt.
            if not (families["home"] or families["own"] or credential_file or look.keys & (_SECRET_KEY | _TOKEN_KEY)
                    or keyed_commands) and self._changes_nothing(look, needs):
                return entry
            return Entry(entry.file, entry.line, self.value(dict(entry.data), "", **families,
                                                            credential_file=credential_file))
        finally:
            self._needs = None

    def _changes_nothing(self, look: _Look, needs: _Needs) -> bool:
        """Whether redacting an entry's strings would leave each as it is (no rule that needs the entry's shape
        applies: no secret-named key, no command given a key, no home folder, no rule of the user's, not a
        credential file)."""
        counts, record = self.counts, self.record
        self.counts, self.record = Counter(), None  # trying is not redacting
        token_ids, context_ids, sightings = needs.token_ids, needs.context_ids, needs.sightings
        try:
            for text in look.texts:
                key = id(text)
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

    def _reads_credential_file(self, data: Mapping[str, Any], calls: list[dict[str, Any]]) -> bool:
        """Whether the entry is a call that reads or writes a credential file, or the result of one (the
        call's id is kept from its entry, which comes first), or a result that names its file."""
        found = False
        for part in calls:
            if part.get("type") == "tool_use" and isinstance(part.get("input"), dict):
                tool_input = part["input"]
                if any(isinstance(tool_input.get(key), str) and names_credential_file(tool_input[key])
                       for key in _PATH_KEYS):
                    if len(self._credential_calls) > 10_000:
                        self._credential_calls.clear()
                    self._credential_calls.add(str(part.get("id")))
                    found = True
            elif part.get("type") == "tool_result" and str(part.get("tool_use_id")) in self._credential_calls:
                found = True
        result = data.get("toolUseResult")
        if isinstance(result, dict):
            named = result.get("file") if isinstance(result.get("file"), dict) else result
            path = named.get("filePath") if isinstance(named, dict) else None
            found = found or (isinstance(path, str) and names_credential_file(path))
        return found


    def item(self, item: Entry | BrokenLine) -> Entry | BrokenLine:
        """An entry, or the text of an unreadable line, which is shown too (and all of a line too long to
        read whole, as it is copied)."""
        if not self.active:
            return item
        if isinstance(item, Entry):
            return self.entry(item)
        whole = item.whole
        return replace(item, text=self.text(item.text),
                       whole=None if whole is None else lambda: self.text_in_pieces(whole(), json_text=True))

    def text_in_pieces(self, pieces: Iterable[str], json_text: bool = False) -> Iterator[str]:
        """A text too long to hold at once, redacted a window at a time, as `text` would redact it whole:
        a window ends where redacting the text around the cut in one go and in two parts comes out the
        same, so that no secret is cut in two. `json_text`: the text is a line of JSON, where a line
        break in a string is written `\\n`; the rules that go by line (`NAME=value` on a line of its
        own) see one there, as they do in the string read."""
        pending, held = "", ""
        for piece in pieces:
            if json_text:  # a backslash and a real line break, which a line of JSON cannot hold, stand for `\n`
                piece = held + piece
                held = "\\" if piece.endswith("\\") else ""
                piece = piece[:len(piece) - len(held)].replace("\\n", _JSON_BREAK)
            pending += piece
            while len(pending) >= REDACTION_WINDOW + REDACTION_MARGIN:
                cut = self._safe_cut(pending, REDACTION_WINDOW)
                if pending[cut - 1:cut + 1] == _JSON_BREAK:
                    cut -= 1
                yield self._text_of_json(pending[:cut]) if json_text else self.text(pending[:cut])
                pending = pending[cut:]
        pending += held
        if pending:
            yield self._text_of_json(pending) if json_text else self.text(pending)

    def _text_of_json(self, text: str) -> str:
        # A rule may take the backslash with the value before it: the break left alone is one still.
        return self.text(text).replace(_JSON_BREAK, "\\n").replace("\n", "\\n")

    def _safe_cut(self, text: str, near: int) -> int:
        """A place at or before `near` where no rule matches across: the first of a few tried, else `near`
        (only a match longer than the margin, which no secret is, spans them all)."""
        counts, record = self.counts, self.record
        self.counts, self.record = Counter(), None  # trying is not redacting
        try:
            for cut in range(near, near - REDACTION_MARGIN // 2, -REDACTION_MARGIN // 32):
                left, right = text[cut - REDACTION_MARGIN:cut], text[cut:cut + REDACTION_MARGIN]
                if self.text(left + right) == self.text(left) + self.text(right):
                    return cut
            return near
        finally:
            self.counts, self.record = counts, record

    # -- summaries, field by field -------------------------------------------------------------------------

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
