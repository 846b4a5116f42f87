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
    """What the prefilter saw in an entry's strings (by the string's id), and the ids of the strings that need
    the token rules, and of those that need the rules by context."""

    __slots__ = ("sightings", "token_ids", "context_ids")

    def __init__(self) -> None:
        self.sightings: dict[int, Sighting] = {}
        self.token_ids: set[int] = set()
        self.context_ids: set[int] = set()


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
        for index, seen in sightings_of(texts, identifiers).items():
            text, owner = texts[index], owners[index]
            found = needs[owner]
            if found is NOTHING_NEEDED:
                found = needs[owner] = Needs()
            found.sightings[id(text)] = seen
            if seen.tokens or seen.shapes & WRAPPED and may_hold_token(LINE_NUMBER.sub("", text)):
                found.token_ids.add(id(text))
            if seen.context:
                found.context_ids.add(id(text))
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
        # not recursion, and everything it uses in locals: a fifth faster.
        texts, ids, untouched, shortest, secret_key = self.texts, self.ids, UNTOUCHED_FIELDS, SHORTEST_SECRET, SECRET_KEY
        add_text, add_id = texts.append, ids.append
        flags_of, keys = KEY_FLAGS.get, 0
        pending: list[tuple[Any, str]] = [(data, "")]
        pop, push = pending.pop, pending.append
        while pending:
            value, key = pop()
            if isinstance(value, dict):
                for name, child in value.items():
                    flags = flags_of(name)
                    if flags is None:
                        flags = key_flags(name)
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


def reads_credential_file(data: Mapping[str, Any], calls: list[dict[str, Any]], credential_calls: set[str]) -> bool:
    """Whether the entry is a call that reads or writes a credential file, or the result of one (the call's id
    is kept in `credential_calls` from its entry, which comes first), or a result that names its file."""
    found = False
    for part in calls:
        if part.get("type") == "tool_use" and isinstance(part.get("input"), dict):
            tool_input = part["input"]
            if any(isinstance(tool_input.get(key), str) and names_credential_file(tool_input[key])
                   for key in PATH_KEYS):
                if len(credential_calls) > 10_000:
                    credential_calls.clear()
                credential_calls.add(str(part.get("id")))
                found = True
        elif part.get("type") == "tool_result" and str(part.get("tool_use_id")) in credential_calls:
            found = True
    result = data.get("toolUseResult")
    if isinstance(result, dict):
        named = result.get("file") if isinstance(result.get("file"), dict) else result
        path = named.get("filePath") if isinstance(named, dict) else None
        found = found or (isinstance(path, str) and names_credential_file(path))
    return found
