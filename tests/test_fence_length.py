"""A code block's fence is three backticks, or one more than the longest backtick run in the code: the
shortest fence no line of the code can close, and the same fence whatever shortcut finds it."""

from __future__ import annotations

from itertools import groupby

import pytest

from generator.render.markdown.escape import fence


def longest_backtick_run(code: str) -> int:
    return max((len(list(run)) for char, run in groupby(code) if char == "`"), default=0)


CODES = [
    "", "plain", "`", "``", "```", "````", "`" * 9, "a`b``c", "x``", "``x", "`a`", "a ``` b", "``` at the start",
    "at the end ```", "one ` two `` three ``` four ```` five", "`````` then ``", "``\n`", "``\n``\n`",
    "```\r\n```", "\u00a0```\u00a0", "＀`＀``", "``` ` ``` ``", "a" * 10_000 + "``" + "b" * 10_000,
    "many `` runs of two " * 500, "\n".join("`" * n for n in range(1, 12)),
]


@pytest.mark.parametrize("code", CODES)
def test_the_fence_is_one_longer_than_the_longest_backtick_run_and_at_least_three(code):
    opening, _, _ = fence(code, "python").partition("\n")
    ticks = len(opening) - len(opening.lstrip("`"))
    assert ticks == max(3, longest_backtick_run(code) + 1)
    assert fence(code, "python").endswith("\n" + "`" * ticks)


@pytest.mark.parametrize(("code", "body"), [
    ("a\r\nb", "a\nb\n"), ("a\rb", "a\u240db\n"), ("a\r\n", "a\n"), ("\r", "\u240d\n"), ("a\r\r\nb\r", "a\u240d\nb\u240d\n"),
    ("no carriage return", "no carriage return\n"), ("ends\n", "ends\n"),
])
def test_a_carriage_return_in_code_is_a_line_end_before_a_line_feed_and_shown_as_itself_alone(code, body):
    assert fence(code) == f"```\n{body}```"
