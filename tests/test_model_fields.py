"""Each field of a session's summary says, beside its type, how it is redacted (its metadata): a field added
without saying so stops the import of its module, before any build runs."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field

import pytest

from generator.core import model
from generator.core.redaction import (IDENTIFIER, OURS, TEXT, UndeclaredRedaction, declares_redaction, redacted_as,
                                      redaction_rule)
from generator.stages.redact import Redactor


def dataclasses_in(hint: object) -> set[type]:
    found = set()
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        found.add(hint)
    for argument in typing.get_args(hint):
        found |= dataclasses_in(argument)
    return found


def walked_by_the_redactor() -> set[type]:
    """The dataclasses a session's summary holds, found from the types of its fields: what
    `Redactor.session` walks. The events are not among them (phase 2 makes them from redacted entries)."""
    reachable, todo = set(), [model.Session]
    while todo:
        cls = todo.pop()
        if cls in reachable:
            continue
        reachable.add(cls)
        for name, hint in typing.get_type_hints(cls).items():
            if cls is model.Session and name == "events":
                continue
            todo.extend(dataclasses_in(hint) - reachable)
    return reachable


def test_the_walk_finds_every_part_of_a_summary():
    assert walked_by_the_redactor() >= {model.Session, model.OutlineItem, model.SubagentCall, model.FileTouch,
                                        model.Commit, model.Usage}


@pytest.mark.parametrize("cls", sorted(walked_by_the_redactor(), key=lambda cls: cls.__name__))
def test_every_field_the_redactor_walks_says_how_it_is_redacted(cls):
    for item in dataclasses.fields(cls):
        rule = redaction_rule(item)
        assert rule in (TEXT, IDENTIFIER, OURS) or (
            isinstance(rule, tuple) and set(rule) <= {TEXT, IDENTIFIER, OURS}), (cls.__name__, item.name, rule)


def test_a_mapping_of_transcript_names_to_counts_redacts_its_keys_only():
    fields = {item.name: item for item in dataclasses.fields(model.Session)}
    assert redaction_rule(fields["tool_counts"]) == (TEXT, OURS)
    assert redaction_rule(fields["leaf_summaries"]) == (IDENTIFIER, TEXT)
    assert redaction_rule(fields["cwd"]) == TEXT
    assert redaction_rule(fields["session_id"]) == IDENTIFIER
    assert redaction_rule(fields["key"]) == OURS


def test_a_summary_field_that_does_not_say_how_it_is_redacted_fails_where_the_class_is_defined():
    with pytest.raises(UndeclaredRedaction, match=r"Summary\.note .*says no redaction"):
        @declares_redaction
        @dataclass(frozen=True)
        class Summary:
            title: str = field(default="", metadata=redacted_as(TEXT))
            note: str = ""


def test_a_field_with_a_class_the_redactor_does_not_know_fails_where_the_class_is_defined():
    with pytest.raises(UndeclaredRedaction, match=r"Summary\.note .*'secret'"):
        @declares_redaction
        @dataclass(frozen=True)
        class Summary:
            note: str = field(default="", metadata={"redaction": "secret"})


def test_a_class_the_redactor_does_not_know_cannot_be_declared():
    with pytest.raises(ValueError, match="'secret'"):
        redacted_as("secret")
    with pytest.raises(ValueError, match="'secret'"):
        redacted_as(TEXT, "secret")


def test_the_redactor_goes_by_each_fields_own_class():
    """A secret in a text field goes; the same in a field of ours stays (sessionsite made it: never a
    secret); in an identifier, only a token of a known format is looked for."""
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    words = "password=hunter2hunter2"
    session = model.Session(key=f"p/{token}", session_id=f"{token} {words}", source="", project_dir="p",
                            cwd=f"/w {token}", title=f"see {words}")
    redacted = Redactor().session(session)
    assert redacted.key == session.key  # ours
    assert token not in redacted.cwd and token not in redacted.session_id
    assert "hunter2hunter2" not in redacted.title  # text: the rules by context apply
    assert words in redacted.session_id  # an identifier: only tokens of a known format
