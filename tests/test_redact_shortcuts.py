"""The redactor's shortcuts cannot hide a secret: the walk over an entry finds every string wherever it stands
(checked against a plain recursive walk written here), and a call is known to read a credential file whatever
spells its path, though the prefilter's pass says which paths need looking at (issue 30)."""

from __future__ import annotations

import json
import random
import re
import string
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from generator.core.model import BrokenLine, Entry
from generator.stages.read import stream_file
from generator.stages.redact import Redactor
from generator.stages.redact.entry_strings import SECRET_KEY, UNTOUCHED_FIELDS, Look, key_flags

from helpers import assistant, tool_result, tool_use

GITHUB = "ghp_" + "N0tAR3alT0ken" * 2 + "N0tAR3alT0"
RANDOM_VALUE = "k7Gq2LmPz9Xw4RtY8vBn3CsD"


def _data(item: Entry | BrokenLine) -> Any:
    assert isinstance(item, Entry)
    return item.data


# -- the walk ------------------------------------------------------------------------------------------------------

def _plain_walk(value: Any, key: str = "", parent: dict[str, Any] | None = None) -> tuple[list[str], list[str], int]:
    """Every string of a JSON value seven characters or longer, as text or as an identifier by the key it is
    under, but an embedded file's bytes; and what its keys ask (a secret-named key only with a non-empty string)."""
    texts: list[str] = []
    ids: list[str] = []
    keys = 0
    if isinstance(value, dict):
        for name, child in value.items():
            flags = key_flags(name)
            if not (type(child) is str and child):
                flags &= ~SECRET_KEY
            keys |= flags
            found = _plain_walk(child, name, value)
            texts += found[0]
            ids += found[1]
            keys |= found[2]
    elif isinstance(value, list):
        for child in value:
            found = _plain_walk(child, key, None)
            texts += found[0]
            ids += found[1]
            keys |= found[2]
    elif type(value) is str and len(value) >= 7:
        if key in UNTOUCHED_FIELDS and not re.search(r"\s|=[^=]", value):
            ids.append(value)
        elif not (key == "data" and parent is not None and parent.get("type") == "base64"):
            texts.append(value)
    return texts, ids, keys


def _random_value(rng: random.Random, depth: int) -> Any:
    names = ["text", "id", "uuid", "data", "type", "password", "api_key", "content", "input", "command", "x",
             "signature", "timestamp", "token", "file_path", "/home/ada/notes", GITHUB, ""]
    roll = rng.random()
    if depth < 4 and roll < 0.3:
        return {rng.choice(names): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    if depth < 4 and roll < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return rng.choice([None, True, 7, 2.5, "", "short", "base64", GITHUB, "a" * 300, "x" * 6, "y" * 7,
                       "".join(rng.choices(string.printable, k=rng.randint(0, 40)))])


def _real_entries(public_corpus: Path) -> list[dict[str, Any]]:
    return [item.data for path in sorted(public_corpus.rglob("*.jsonl"))[:4] for item in stream_file(path, [])
            if isinstance(item, Entry)]


def test_the_walk_finds_every_string_a_plain_walk_finds():
    rng = random.Random(30)
    for _ in range(3000):
        data = _random_value(rng, 0)
        look = Look(data)
        texts, ids, keys = _plain_walk(data)
        assert Counter(look.texts) == Counter(texts), data
        assert Counter(look.ids + look.encoded) == Counter(ids), data
        assert look.keys == keys, data


def test_the_walk_finds_every_string_of_real_entries(public_corpus):
    for data in _real_entries(public_corpus):
        look = Look(data)
        texts, ids, keys = _plain_walk(data)
        assert Counter(look.texts) == Counter(texts)
        assert Counter(look.ids + look.encoded) == Counter(ids)
        assert look.keys == keys


class _Text(str):
    """A string of a type of its own (an entry made in code, not read from JSON)."""


class _Mapping(dict):  # type: ignore[type-arg]
    pass


@pytest.mark.parametrize("place", [
    lambda secret: {"x": secret},
    lambda secret: {"x": [[[{"y": [secret]}]]]},
    lambda secret: {"uuid": secret},
    lambda secret: {"id": [secret]},
    lambda secret: {"data": secret, "type": "text"},
    lambda secret: {"message": {"content": [{"type": "tool_result", "content": [{"type": "text", "text": secret}]}]}},
    lambda secret: _Mapping(x=_Mapping(y=[secret])),
    lambda secret: {secret: 1},
    lambda secret: {"x": {secret: [None, 1.5, True]}},
], ids=["key", "nested-lists", "uuid", "id-list", "data-not-bytes", "tool-result", "dict-subclass",
        "mapping-key", "nested-mapping-key"])
def test_a_token_goes_wherever_an_entry_holds_it(place):
    entry = Entry("f", 1, place(f"deploy {GITHUB}"))
    for redacted in (Redactor().items([entry])[0], Redactor().entry(entry)):
        assert GITHUB not in json.dumps(_data(redacted), default=list)


# -- credential files ------------------------------------------------------------------------------------------

def _read_and_result(path: str, where: str) -> list[Entry]:
    """A Read of `path` and its result, which shows a random value under a name that is not a secret's, on one
    line (two would have a `.env` file's shape): only in a credential file is it one."""
    call = tool_use("Read", {"file_path": path} if where == "input" else {"file_path": "settings"})
    result = tool_result(call["id"], f"stripe: {RANDOM_VALUE} eu-west-1")
    if where == "result":
        result["toolUseResult"] = {"type": "text", "file": {"filePath": path, "content": "STRIPE=…"}}
    return [Entry("f", 1, assistant(call)), Entry("f", 2, result)]


@pytest.mark.parametrize("path", [
    ".env",                      # too short for the prefilter's pass to look at
    "x/.Env",
    "id_rsa",
    "~/.\u212Aube/config",       # a Kelvin sign, which lower-cased is a `k`: the pass sees a `?`
    "/srv/\u212Aubeconfig.yaml",
    "/HOME/ADA/.ENV",            # upper case
    "/home/ada/src/tidewatch/.env.production",
])
@pytest.mark.parametrize("where", ["input", "result"])
def test_a_credential_file_is_known_whatever_spells_its_path(path, where):
    entries = _read_and_result(path, where)
    batched = Redactor().items(entries)
    one_by_one = Redactor()
    alone = [one_by_one.entry(entry) for entry in entries]
    for redacted in (batched, alone):
        shown = json.dumps([_data(item) for item in redacted])
        assert RANDOM_VALUE not in shown and "eu-west-1" in shown


def test_a_path_of_a_type_of_its_own_is_looked_at():
    call = tool_use("Read", {"file_path": _Text("/home/ada/src/tidewatch/.env")})
    result = tool_result(call["id"], f"stripe: {RANDOM_VALUE}")
    shown = json.dumps([_data(item) for item in Redactor().items([Entry("f", 1, assistant(call)),
                                                                            Entry("f", 2, result)])])
    assert RANDOM_VALUE not in shown


# -- uuids -------------------------------------------------------------------------------------------------------

def _uuids_with_each_anchor_and_spelling() -> list[str]:
    """Random uuids, and uuids with every token anchor and every base64 spelling of one that a uuid's characters
    can spell put at each place its dashes allow."""
    import uuid

    from generator.stages.credentials.sightings import _ANCHOR, _SPELLING, compiled
    generator = random.Random(30)
    samples = [str(uuid.UUID(int=generator.getrandbits(128))) for _ in range(2000)]
    literals = [what for meaning, what in compiled().meanings if meaning in (_ANCHOR, _SPELLING)]
    assert literals
    for literal in literals:
        assert isinstance(literal, str)
        if set(literal) - set("0123456789abcdef-"):
            continue
        for place in range(37 - len(literal)):
            shape = samples[place]
            candidate = shape[:place] + literal + shape[place + len(literal):]
            if all((candidate[i] == "-") == (i in (8, 13, 18, 23)) for i in range(36)):
                samples.append(candidate)
    return samples


def test_no_token_is_found_in_a_uuid_even_inside_a_longer_run():
    """The ids of an entry that are uuids are not searched (`needs_of`): searched as an id is, inside longer runs
    of token characters and in base64, a uuid holds nothing, though some hold an anchor (`fc-`)."""
    samples = _uuids_with_each_anchor_and_spelling()
    assert len(samples) > 2000  # some anchors and spellings a uuid can spell
    redactor = Redactor()
    for sample in samples:
        assert redactor.text(sample, context=False, home=False, own=False, identifier=True) == sample
    assert not redactor.counts


@pytest.mark.parametrize("identifier", [
    "d3b07384-d113-4ec6-a2fc-" + GITHUB,
    GITHUB + "-d3b07384-d113-4ec6-a2fc-0c5e1b8e5a4f",
    "d3b07384-d113-4ec6-a2fc-0c5e1b8e5a4f\n" + GITHUB,
    "D3B07384-D113-4EC6-A2FC-" + GITHUB,
    "toolu_" + GITHUB,
])
@pytest.mark.parametrize("key", ["uuid", "parentUuid", "id", "tool_use_id", "sessionId"])
def test_an_id_that_is_not_a_uuid_is_searched(identifier, key):
    entry = Entry("f", 1, {"type": "user", "uuid": "d3b07384-d113-4ec6-a2fc-0c5e1b8e5a4f", key: identifier,
                           "message": {"content": [{"type": "tool_result", key: [identifier]}]}})
    for redacted in (Redactor().items([entry])[0], Redactor().entry(entry)):
        assert GITHUB not in json.dumps(_data(redacted))


_KEY_BYTES = random.Random(7)
PRIVATE_KEY = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(
    "".join(_KEY_BYTES.choice(string.ascii_letters + string.digits + "+/") for _ in range(64)) for _ in range(5))
               + "\n-----END RSA PRIVATE KEY-----\n")


@pytest.mark.parametrize("key", ["id", "uuid", "requestId", "signature", "type", "version", "timestamp"])
@pytest.mark.parametrize(("secret", "kept_out"), [
    (PRIVATE_KEY, PRIVATE_KEY.splitlines()[2]),
    ("API_TOKEN=hunter2-but-longer", "hunter2-but-longer"),
    ("export DB_PASSWORD=s3cr3t-Passw0rd", "s3cr3t-Passw0rd"),
], ids=["key-file", "assignment", "export"])
def test_text_under_an_identifiers_key_is_searched_as_text(key, secret, kept_out):
    """An identifier holds no blank and no `=` (but base64's padding): a tool's own JSON (an MCP server's
    structured result) can put anything under `id` or `type`, at any depth, alone or in a list."""
    for data in ({key: secret}, {"toolUseResult": {"items": [{key: secret}]}}, {"x": {key: [secret]}}):
        entry = Entry("f", 1, data)
        for redacted in (Redactor().items([entry])[0], Redactor().entry(entry)):
            assert kept_out not in json.dumps(_data(redacted)), (key, data)


def test_identifiers_stay_untouched():
    """Base64 padding, times, versions, types, uuids and tool ids: nothing in them is taken for a secret."""
    values = {"signature": "EqQBCkYIBxgCKkD" + "a1B2c3D4" * 40 + "==", "timestamp": "2026-11-26T22:45:50.123Z",
              "version": "2.1.328", "type": "tool_result", "uuid": "d3b07384-d113-4ec6-a2fc-0c5e1b8e5a4f",
              "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "requestId": "req_011CVyV5jmnHvFvEF3nZRdEy"}
    entry = Entry("f", 1, dict(values))
    assert _data(Redactor().items([entry])[0]) == values
