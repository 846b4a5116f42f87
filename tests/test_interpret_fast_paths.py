"""The short cuts interpretation takes on every entry, each against the plain rule it stands for: a reminder
found by its tag and matched from its line's start against the pattern tried everywhere; the digests of
the entries seen asked of and added in one walk against a set; a call answered without
`dataclasses.replace`; the words of a long prompt counted no further than needed."""

from __future__ import annotations

import dataclasses
import inspect
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.core.model import (AssistantText, BashMode, BrokenLine, Diagnostic, Entry, Media, Notice, Plan, Prompt,
                                  SlashCommand, TaskItem, Thinking, ToolCall, ToolResult, Unknown, Unreadable)
from generator.stages.interpret.message_content import SYSTEM_REMINDER, strip_system_reminders
from generator.stages.summarize import FEW_WORDS, _what_was_asked, uuid_digest
from generator.stages.duplicates import DigestSet, DuplicateEntries, Seen, entry_digests, replay_digest

REMINDER_PIECES = ["<system-reminder>", "</system-reminder>", "\n", " ", "\t", "\r", "x", "<system-", "reminder>",
                   "</system-reminder> ", "\n<system-reminder>", "<<system-reminder>"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(REMINDER_PIECES), max_size=14))
def test_reminders_are_stripped_as_the_pattern_strips_them_wherever_they_are(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert strip_system_reminders(text) == SYSTEM_REMINDER.sub("", text)


def test_reminders_of_every_layout_are_stripped_as_the_pattern_strips_them() -> None:
    for text in [
        "<system-reminder>a</system-reminder>",
        "out\n  <system-reminder>a</system-reminder>  \nmore",
        "out <system-reminder>quoted in a line</system-reminder>\nmore",
        "<system-reminder>a</system-reminder> tail\n<system-reminder>b</system-reminder>\nend",  # one block
        "<system-reminder>never closed\n",
        "a\n<system-reminder>x</system-reminder>\n<system-reminder>y</system-reminder>\n",
        "a\n<system-reminder>x</system-reminder>\n\n",  # `$` before a last newline
        "\t<system-reminder><system-reminder>x</system-reminder>\nb",
    ]:
        assert strip_system_reminders(text) == SYSTEM_REMINDER.sub("", text), text


def _seen_as_a_set_sees_them(entries: list[tuple[str, str]], continued: frozenset[bytes]) -> tuple[list[Seen], bytes]:
    """`DuplicateEntries.see`'s rules over a plain set, one question at a time."""
    seen: set[bytes] = set()
    found, kept = [], b""
    for uuid, timestamp in entries:
        digest, replay = uuid_digest(uuid), replay_digest(uuid, timestamp)
        if digest in continued and replay in continued:
            found.append(Seen.IN_CONTINUED_SESSION)
        elif replay in seen:
            found.append(Seen.IN_THIS_FILE)
        else:
            found.append(Seen.UUID_IN_THIS_FILE if digest in seen else
                         Seen.UUID_IN_CONTINUED_SESSION if digest in continued else Seen.NEW)
            seen |= {digest, replay}
            kept += digest
    return found, kept


entry_keys = st.tuples(st.sampled_from(["u1", "u2", "u3", "", "é"]), st.sampled_from(["t1", "t2", "None"]))


@settings(max_examples=150, deadline=None)
@given(st.lists(entry_keys, max_size=30), st.lists(entry_keys, max_size=4), st.booleans())
def test_entries_seen_twice_are_told_apart_as_a_set_tells_them(entries: list[tuple[str, str]],
                                                               earlier: list[tuple[str, str]], uuid_only: bool) -> None:
    continued = frozenset({uuid_digest(u) for u, _ in earlier} |
                          (set() if uuid_only else {replay_digest(u, t) for u, t in earlier}))
    duplicates = DuplicateEntries(continued=continued)
    found = [duplicates.see(uuid, timestamp) for uuid, timestamp in entries]
    expected, kept = _seen_as_a_set_sees_them(entries, continued)
    assert found == expected
    assert bytes(duplicates.uuid_digests) == kept
    assert duplicates.replayed == expected.count(Seen.IN_CONTINUED_SESSION)


@pytest.mark.parametrize("small", [DigestSet.SMALL, 64, 0])
def test_a_digest_put_says_whether_it_was_there_in_a_set_and_in_the_table_as_it_grows(
        small: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small sets are sets of numbers; past `small` digests they move into the table, which grows."""
    monkeypatch.setattr(DigestSet, "SMALL", small)
    rows = random.Random(5)
    pool = [rows.randbytes(8) for _ in range(3000)] + [bytes(8), b"\x01" + bytes(7)]
    digests, expected = DigestSet(), set()
    for digest in [rows.choice(pool) for _ in range(12_000)]:  # the table of 1,024 slots grows past 4,096
        assert digests.put(digest) is (digest in expected)
        assert len(digests) == len(expected | {digest})
        expected.add(digest)
        assert digest in digests
    assert [digest in digests for digest in pool] == [digest in expected for digest in pool]
    assert (digests.numbers is None) is (small < len(expected))


def test_a_call_answered_is_the_call_replaced_with_its_result_whatever_its_fields() -> None:
    earlier = ToolResult("2026-03-01T10:00:01Z", "a result this call had", True)
    call = ToolCall("e-1", "2026-03-01T10:00:00Z", "toolu_1", "TaskCreate", {"subject": "s"}, earlier, "p/agent",
                    (TaskItem("1", "s", "pending"),))
    result = ToolResult("2026-03-01T10:00:01Z", "done", False, {"task": {"id": "1"}})
    assert {field.name for field in dataclasses.fields(ToolCall)} == {
        "anchor", "timestamp", "tool_use_id", "name", "input", "result", "subagent", "tasks"}, \
        "a field added to ToolCall must be carried by ToolCall.with_result"
    assert all(getattr(call, field.name) != field.default for field in dataclasses.fields(ToolCall))
    assert call.with_result(result) == dataclasses.replace(call, result=result)


def test_a_prompt_of_a_few_words_beside_a_text_file_asks_what_the_file_says() -> None:
    attached = (Media("text/plain", b"the whole request, in the file"),)
    for text, asked in [("see\tattached\nfile", "the whole request, in the file"),
                        ("  go  ", "the whole request, in the file"),
                        ("read the attached file", "read the attached file"),
                        (" ".join(["word"] * 100_000), " ".join(["word"] * 100_000)),
                        ("a b c\n\nd", "a b c\n\nd")]:
        assert len(text.split()) >= FEW_WORDS or asked != text
        assert _what_was_asked(Prompt("e-1", "", text, attached)) == asked, text[:40]



QUICK_CLASSES = [Diagnostic, Entry, BrokenLine, Media, Prompt, AssistantText, Thinking, ToolResult, TaskItem, ToolCall,
                 Plan, SlashCommand, BashMode, Notice, Unknown, Unreadable]


@pytest.mark.parametrize("cls", QUICK_CLASSES, ids=lambda cls: cls.__name__)
def test_a_quick_init_makes_what_the_dataclass_made(cls: type) -> None:
    """Every field set from its argument, by position or by name; defaults as declared; the instance frozen."""
    found = dataclasses.fields(cls)
    values = {item.name: (f"value of {item.name}",) for item in found}  # unlike any default
    by_name, by_position = cls(**values), cls(*values.values())
    assert by_name == by_position and hash(by_name) == hash(by_position)
    assert all(getattr(by_name, name) == value for name, value in values.items())
    required = {item.name: values[item.name] for item in found if item.default is dataclasses.MISSING}
    with_defaults = cls(**required)
    assert all(getattr(with_defaults, item.name) == (values[item.name] if item.name in required else item.default)
               for item in found)
    with pytest.raises(dataclasses.FrozenInstanceError):
        by_name.__setattr__(found[0].name, "changed")
    assert dataclasses.replace(by_name, **{found[-1].name: "replaced"}) == cls(*[*values.values()][:-1], "replaced")
    with pytest.raises(TypeError):
        cls(*values.values(), "one too many")
    with pytest.raises(TypeError):
        cls(**{**values, "not_a_field": 1})
    if required:
        with pytest.raises(TypeError):
            cls()
    assert str(inspect.signature(cls)) == "(" + ", ".join(
        item.name if item.default is dataclasses.MISSING else f"{item.name}={item.default!r}" for item in found) + ")"


def test_quick_init_refuses_a_field_it_cannot_give_a_plain_default() -> None:
    from generator.core.entries import quick_init

    @dataclasses.dataclass(frozen=True, slots=True)
    class Listed:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="Listed"):
        quick_init(Listed)


def test_the_words_of_a_prompt_are_counted_as_split_counts_them() -> None:
    from generator.stages.summarize import _FEW_WORDS_OR_MORE
    blanks = ["", " ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\x1c", "\u200b"]  # the last one is not a blank
    rows = random.Random(3)
    for _ in range(3000):
        text = "".join(rows.choice([*blanks, "a", "bc", "é"]) for _ in range(rows.randrange(12)))
        assert (_FEW_WORDS_OR_MORE.match(text) is not None) is (len(text.split()) >= FEW_WORDS), repr(text)


@pytest.mark.parametrize("small", [DigestSet.SMALL, 64, 0])
def test_a_pair_of_digests_is_put_as_two_puts_would_put_them(small: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DigestSet, "SMALL", small)
    rows = random.Random(9)
    pool = [rows.randbytes(8) for _ in range(500)] + [bytes(8)]
    paired, one_by_one = DigestSet(), DigestSet()
    for _ in range(3000):
        first, second = rows.choice(pool), rows.choice(pool)
        first_there = one_by_one.put(first)
        expected = (True, True) if first_there else (False, one_by_one.put(second))
        assert paired.put_first_then_second(first, second) == expected
        assert len(paired) == len(one_by_one)
    assert [digest in paired for digest in pool] == [digest in one_by_one for digest in pool]


def test_an_entry_s_digests_are_its_uuid_s_and_its_replay_s() -> None:
    for uuid, timestamp in [("u1", "2026-03-01T10:00:00Z"), ("", None), ("é\ud83d", 5), ("a" * 500, "")]:
        assert entry_digests(uuid, timestamp) == (uuid_digest(uuid), replay_digest(uuid, timestamp))


def test_a_message_is_known_by_its_id_whatever_its_type_or_by_its_entry_s_uuid() -> None:
    from generator.stages.tracking import UsageCounter
    counter = UsageCounter()
    lines = [({"uuid": "a", "requestId": None}, {"id": 7, "usage": {"output_tokens": 5}}),
             ({"uuid": "b", "requestId": None}, {"id": 7, "usage": {"output_tokens": 9}}),  # the same message: 9
             ({"uuid": "c"}, {"usage": {"output_tokens": 4}}),
             ({"uuid": "c"}, {"id": None, "usage": {"output_tokens": 6}}),  # an id of null is the id "None"
             ({"uuid": "d", "requestId": 3}, {"id": "m", "usage": {"output_tokens": 1}}),
             ({"uuid": "e", "requestId": "3"}, {"id": "m", "usage": {"output_tokens": 2}})]  # 3 and "3": one
    for data, message in lines:
        counter.count(data, message)
    total, _, _ = counter.finish()
    assert total.output_tokens == 9 + 4 + 6 + 2
