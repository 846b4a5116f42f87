"""One walk over an entry: its strings, by what may be looked for in them (text, identifiers, long base64),
what its mapping keys may need, and what one prefilter pass over the strings of a few entries saw in each;
and the tool calls an entry holds (the commands they run, whether one reads or writes a credential file).

The walk is the hot loop of redaction: every item of every entry passes through `Look`.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ..credentials.files import names_credential_file
from ..credentials.names import is_secret_name
from ..credentials.scan import WRAPPED, Sighting, may_hold_token, scan_tokens, sightings_of
from .homes import holds_home
from .wrapped_tokens import LINE_NUMBER

UNTOUCHED_FIELDS = frozenset({
    "uuid", "parentUuid", "leafUuid", "logicalParentUuid", "sessionId", "requestId", "messageId", "promptId",
    "agentId", "id", "tool_use_id", "toolUseID", "parentToolUseID", "sourceToolUseID", "sourceToolAssistantUUID",
    "signature", "timestamp", "type", "media_type", "version",
})
"""Fields that hold identifiers: only tokens of a known format are looked for in them."""

NOT_AN_IDENTIFIER = re.compile(r"\s|=[^=]")
"""What no identifier holds (a blank, a line break, an `=` but base64's padding at the end): a string under an
identifier's key that holds one is text someone put there (a key file, `TOKEN=…` in a tool's own JSON) and is
searched as text."""



def is_identifier(key: str, value: str) -> bool:
    """Whether a string is redacted as an identifier (only tokens of a known format looked for in it)."""
    return key in UNTOUCHED_FIELDS and not NOT_AN_IDENTIFIER.search(value)


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""Most ids are uuids, in which no token of a known format can stand, not even inside a longer run as an id is
searched (every format has an upper-case letter or a character other than a hex digit and a dash in it:
tests/test_credentials.py checks it); a few hold a token rule's anchor all the same (`fc-`)."""

SHORTEST_SECRET = 7
"""Nothing shorter can hold a secret any rule finds (`PWD=abc` is the shortest); most strings in an entry are
names and ids this short, and skipping them is a good part of redaction's speed."""

PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "command", "url", "pattern")
"""Tool inputs and results that name the file a call reads or writes (a Bash command names it too)."""

SECRET_KEY, TOKEN_KEY, HOME_KEY = 1, 2, 4
KEY_FLAGS: dict[str, int] = {}


def key_flags(name: str) -> int:
    """What a mapping key may need (keys repeat from entry to entry: the answer is kept, in a dict, which
    is faster than lru_cache): its value is a secret by its name, it holds a token, it holds a home folder."""
    flags = KEY_FLAGS.get(name)
    if flags is None:
        flags = ((SECRET_KEY if is_secret_name(name) else 0)
                 | (TOKEN_KEY if len(name) >= SHORTEST_SECRET and scan_tokens(name, name_like(name)) else 0)
                 | (HOME_KEY if holds_home(name) else 0))
        if len(KEY_FLAGS) > 50_000:  # keys that are data (paths, ids) must not grow it without end
            KEY_FLAGS.clear()
        KEY_FLAGS[name] = flags
    return flags


COMMAND_KEY = 40
"""A random run this long in a command is a key given to it (`grep -- <a key's line>`); base64 of a few words
(`echo PHNj…= | base64 -d`) is shorter."""
_NAME_LIKE = re.compile(r"[A-Za-z0-9_.:@/-]{1,200}")
_BASE64 = re.compile(r"[A-Za-z0-9+/=]+")
"""All base64: not a name (in which a token's prefix stands by chance), and a long identifier that is a signature."""


def name_like(value: str) -> bool:
    """A name or an id (a tool's `mcp__server__tool`, a branch, a slug): in it a token is looked for inside
    longer runs of token characters too. Not base64, in which a token's prefix stands by chance."""
    return _NAME_LIKE.fullmatch(value) is not None and not _BASE64.fullmatch(value) and not value.startswith("data:")


class Needs:
    """What the prefilter saw in an entry's strings (by the string's id), the ids of the strings that need the
    token rules, and of those that need the rules by context, and whether a credential file's mark occurs in
    one of them."""

    __slots__ = ("sightings", "token_ids", "context_ids", "file_mark")

    def __init__(self) -> None:
        self.sightings: dict[int, Sighting] = {}
        self.token_ids: set[int] = set()
        self.context_ids: set[int] = set()
        self.file_mark = False
        """A literal every credential file's name holds (`files.CREDENTIAL_FILE_MARKS`) occurs, in any case, in
        one of the entry's strings of `SHORTEST_SECRET` characters or more (those `Look.texts` holds)."""


NOTHING_NEEDED = Needs()
"""What an entry in whose strings the prefilter saw nothing needs (shared: never changed)."""


def needs_of(looks: Sequence[Look]) -> list[Needs]:
    """From one prefilter pass over all the strings of a few entries (and one over all their ids): what each
    entry's strings need."""
    needs = [NOTHING_NEEDED] * len(looks)
    for identifiers in (False, True):
        texts: list[str] = []
        owners: list[int] = []
        for number, look in enumerate(looks):
            strings = [*look.ids, *look.encoded] if identifiers else look.texts
            texts += strings
            owners += [number] * len(strings)
        marked: set[int] | None = None if identifiers else set()
        for index, seen in sightings_of(texts, identifiers, marked).items():
            text, owner = texts[index], owners[index]
            if identifiers and UUID.fullmatch(text):
                continue  # no token of a known format can stand in a uuid (`tests/test_credentials.py`)
            found = needs[owner]
            if found is NOTHING_NEEDED:
                found = needs[owner] = Needs()
            found.sightings[id(text)] = seen
            if seen.tokens or seen.shapes & WRAPPED and may_hold_token(LINE_NUMBER.sub("", text)):
                found.token_ids.add(id(text))
            if seen.context:
                found.context_ids.add(id(text))
        for owner in {owners[index] for index in marked or ()}:
            found = needs[owner]
            if found is NOTHING_NEEDED:
                found = needs[owner] = Needs()
            found.file_mark = True
    return needs


def calls_of(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool calls and results an entry's message holds."""
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [part for part in content if isinstance(part, dict) and part.get("type") in ("tool_use", "tool_result")] \
        if isinstance(content, list) else []


def commands_of(calls: list[dict[str, Any]]) -> list[str]:
    """The commands an entry's calls run."""
    return [part["input"]["command"] for part in calls if part.get("type") == "tool_use"
            and isinstance(part.get("input"), dict) and isinstance(part["input"].get("command"), str)]


class Look:
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
        """What the mapping keys need (`key_flags`, together)."""
        self._walk(data)

    def _walk(self, data: Mapping[str, Any]) -> None:
        # The hot loop of redaction: every item of every entry passes here, most of them only once. A stack,
        # not recursion, and everything it uses in locals; JSON's own types (as the reader makes them) tested
        # by identity first, and one look-up for what a key asks (`key_role`): most ask nothing.
        texts, ids, shortest, secret_key = self.texts, self.ids, SHORTEST_SECRET, SECRET_KEY
        add_text, add_id = texts.append, ids.append
        role_of, keys, scalars, untouched = KEY_ROLES.get, 0, _SCALARS, _UNTOUCHED
        not_an_identifier = NOT_AN_IDENTIFIER.search
        pending: list[tuple[Any, str]] = [(data, "")]
        pop, push = pending.pop, pending.append
        while pending:
            value, key = pop()
            if type(value) is dict or isinstance(value, dict):
                for name, child in value.items():
                    role = role_of(name)
                    if role is None:
                        role = key_role(name)
                    kind = type(child)
                    if kind is str:
                        if len(child) >= shortest:
                            if not role:
                                add_text(child)
                            elif role == untouched or role & untouched:
                                if len(child) > 200 and _BASE64.fullmatch(child):
                                    self.encoded.append(child)
                                elif not_an_identifier(child):
                                    add_text(child)
                                else:
                                    add_id(child)
                                keys |= role >> _FLAGS_SHIFT
                            else:
                                if not role & _DATA or value.get("type") != "base64":  # an embedded file's bytes
                                    add_text(child)
                                keys |= role >> _FLAGS_SHIFT
                        elif role:
                            keys |= role >> _FLAGS_SHIFT if child else role >> _FLAGS_SHIFT & ~secret_key
                    else:
                        if role:
                            keys |= role >> _FLAGS_SHIFT & ~secret_key
                        if kind not in scalars and isinstance(child, (dict, list)):
                            push((child, name))
            elif type(value) is list or isinstance(value, list):
                to_ids = key in UNTOUCHED_FIELDS
                for child in value:
                    kind = type(child)
                    if kind is str:
                        if len(child) >= shortest:
                            (add_id if to_ids and not not_an_identifier(child) else add_text)(child)
                    elif kind not in scalars and isinstance(child, (dict, list)):
                        push((child, key))
            elif isinstance(value, str) and len(value) >= shortest:  # an entry that is not a JSON object
                (add_id if key in UNTOUCHED_FIELDS and not not_an_identifier(value) else add_text)(value)
        self.keys = keys


_SCALARS = frozenset({int, float, bool, type(None)})
"""The types of JSON's other values, which hold no string: skipped without asking whether they are containers."""
_UNTOUCHED, _DATA, _FLAGS_SHIFT = 1, 2, 2
KEY_ROLES: dict[str, int] = {}


def key_role(name: str) -> int:
    """What a mapping key asks of the walk, in one number (0 for most keys: its string value is a text, and it
    needs nothing): `_UNTOUCHED` (its value is an identifier), `_DATA` (its value may be an embedded file's
    bytes), and its `key_flags` above them. Kept in a dict, as `key_flags` keeps its answer."""
    role = (key_flags(name) << _FLAGS_SHIFT | (_UNTOUCHED if name in UNTOUCHED_FIELDS else 0)
            | (_DATA if name == "data" else 0))
    if len(KEY_ROLES) > 50_000:  # keys that are data (paths, ids) must not grow it without end
        KEY_ROLES.clear()
    KEY_ROLES[name] = role
    return role


def reads_credential_file(data: Mapping[str, Any], calls: list[dict[str, Any]], credential_calls: set[str],
                          file_mark: bool = True) -> bool:
    """Whether the entry is a call that reads or writes a credential file, or the result of one (the call's id
    is kept in `credential_calls` from its entry, which comes first), or a result that names its file.
    `file_mark`: False when the prefilter saw no credential file's mark in the entry's strings (`Needs`): then
    only a path it did not look at (too short, or not ASCII, which lower-cased may spell one) may name one."""
    found = False
    for part in calls:
        kind = part.get("type")
        if kind == "tool_use":
            tool_input = part.get("input")
            if isinstance(tool_input, dict) and any(_names_credential_file(tool_input.get(key), file_mark)
                                                    for key in PATH_KEYS):
                if len(credential_calls) > 10_000:
                    credential_calls.clear()
                credential_calls.add(str(part.get("id")))
                found = True
        elif kind == "tool_result" and credential_calls and str(part.get("tool_use_id")) in credential_calls:
            found = True
    result = data.get("toolUseResult")
    if isinstance(result, dict) and not found:
        named = result.get("file") if isinstance(result.get("file"), dict) else result
        found = isinstance(named, dict) and _names_credential_file(named.get("filePath"), file_mark)
    return found


def _names_credential_file(path: Any, file_mark: bool) -> bool:
    # A path the walk put in `Look.texts` (a `str`, as JSON's reader makes, long enough) that is ASCII was looked at.
    return isinstance(path, str) and (file_mark or type(path) is not str or len(path) < SHORTEST_SECRET
                                      or not path.isascii()) and names_credential_file(path)
