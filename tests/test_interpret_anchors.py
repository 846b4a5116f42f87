"""Anchors are made from ids, and an id may hold a key: each is searched for tokens of a known format
(`redactor.identifier`) before it stands in a link. Ids that are uuids, or a uuid with the number of a part
of its message, are taken as they are without the search (`session_state._PLAIN_ID`): these tests hold that
short cut to what the search would say, and keep every other id searched."""

from __future__ import annotations

import random
import re
import uuid

from generator.stages.credentials.providers import TOKEN_RULES
from generator.stages.credentials.sightings import _ANCHOR, _SPELLING, compiled
from generator.stages.interpret.session_state import _NOT_IN_ANCHOR, _anchor
from generator.stages.redact.redactor import identifier

GITHUB = "ghp_" + "N0tAR3alT0ken" * 2 + "N0tAR3alT0"
PLAIN_CHARACTERS = set("0123456789abcdef-")
DASHES = (8, 13, 18, 23)


def _searched_anchor(raw_id: object) -> str:
    """The anchor as it is made with the search, for every id."""
    return "e-" + _NOT_IN_ANCHOR.sub("", identifier(str(raw_id)))[:40]


def _part_ids_with_each_anchor_and_spelling() -> list[str]:
    """Random `<uuid>-<n>` ids, and ids of that shape with every token anchor and every base64 spelling of one
    that such an id can spell put at each place its shape allows."""
    generator = random.Random(12)
    numbers = [0, 1, 9, 10, 99, 123, 4567, 999999]
    samples = [f"{uuid.UUID(int=generator.getrandbits(128))}-{generator.choice(numbers)}" for _ in range(2000)]
    samples += [str(uuid.UUID(int=generator.getrandbits(128))) for _ in range(500)]
    shape = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:-[0-9]{1,6})?")
    literals = [what for meaning, what in compiled().identifier_meanings if meaning in (_ANCHOR, _SPELLING)]
    literals += [anchor for rule in TOKEN_RULES for anchor in rule.anchors]
    placed = 0
    for literal in literals:
        if not isinstance(literal, str) or set(literal) - PLAIN_CHARACTERS:
            continue  # an id of this shape cannot hold it
        for base in samples[:40]:
            for place in range(len(base) - len(literal) + 1):
                candidate = base[:place] + literal + base[place + len(literal):]
                if shape.fullmatch(candidate):
                    samples.append(candidate)
                    placed += 1
    assert placed  # some anchors (`fc-`) can be spelled in such an id
    return samples


def test_an_id_of_a_uuid_and_a_part_number_is_given_back_by_the_search_as_it_is() -> None:
    samples = _part_ids_with_each_anchor_and_spelling()
    for sample in samples:
        assert identifier(sample) == sample
        assert _anchor(sample, "") == _searched_anchor(sample) == "e-" + sample[:40]
    for rule in TOKEN_RULES:
        pattern = re.compile(rule.pattern, rule.flags)
        assert not any(pattern.search(sample) for sample in samples), rule.kind


def test_an_id_that_only_looks_like_a_uuid_is_searched() -> None:
    plain = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
    for raw_id in [f"{plain}-{GITHUB}", f"{plain}{GITHUB}", f"{GITHUB}-{plain}", f"{plain}-1{GITHUB}",
                   f"{plain}-1\n{GITHUB}", f"{plain.upper()}-{GITHUB}", f"toolu_{GITHUB}", f"{plain}-1234567-{GITHUB}"]:
        made = _anchor(raw_id, "")
        assert made == _searched_anchor(raw_id)
        assert "N0tAR3alT0ken" not in made, raw_id


def test_anchors_of_other_ids_are_made_as_before() -> None:
    for raw_id, fallback in [("toolu_01AbCdEf", ""), ("msg-01/../x y", ""), ("", "n3"), (None, "n4"), (42, "n5"),
                             ("0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9", ""), ("0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9-x", "")]:
        expected = "e-" + _NOT_IN_ANCHOR.sub("", identifier(str(raw_id)) if raw_id else fallback)[:40]
        assert _anchor(raw_id, fallback) == expected
