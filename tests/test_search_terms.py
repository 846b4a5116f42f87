"""The words the index keeps of a text are the runs of letters and digits of its lower-cased form, two to 32
characters long, whatever the text holds: other scripts, digits of other scripts, marks, emoji, box
drawing, control characters, lone surrogates, underscores. The expected value is Python's `re` over the
whole text, as app.js splits a query; the index finds them another way (bytes first) and must agree. Likewise
the words an excerpt is made around, against the rule told the slow way."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.core.text import plain
from generator.render import search

WORD = re.compile(r"[^\W_]+")


def expected_terms(text: str) -> set[str]:
    return {word for word in WORD.findall(text.lower()) if 2 <= len(word) <= 32}


HOSTILE = [
    "", " ", "_", "a", "ab", "snake_case_name", "CamelCase and UPPER", "x" * 32, "x" * 33, "x" * 31 + "é",
    "é" * 32 + "a", "Größe der Gezeiten 潮汐", "naïve café", "e\u0301cole", "٣٤ arabic-indic digits ١٢",
    "Ⅻ roman ⅻ numerals", "½ ¾ fractions ²³", "emoji 🙂🙂 between👍words", "│ box ─ drawing ┼x┼y",
    "tab\there\x0bvt\x0cff\x1cfs\x1dgs\x1ers\x1fus", "nul\x00byte", "lone \ud800 surrogate \udfff end",
    "a\ud800b", "ΣΑΣ final sigma ΟΔΟΣ", "İstanbul ǅ titlecase", "ﬁ ligature ß", "zero\u200bwidth\u200cjoiner",
    "full-width ＡＢＣ１２３", "a-b c.d e/f g:h i@j k#l m$n", "\u00a0nbsp\u00a0words", "mixed ascii日本語mix",
    "ab_日本_cd", "x" * 40 + "日本", "日" * 33, "日" * 32, "🙂" * 40,
]


@pytest.mark.parametrize("text", HOSTILE)
def test_terms_of_hostile_texts_are_the_runs_of_letters_and_digits(text):
    assert search.terms(text) == expected_terms(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=()), max_size=200)
       | st.text(alphabet=st.sampled_from("ab_-. \t\n1é日🙂│\u0301ΣσςİIı"), max_size=200))
def test_terms_of_any_text_are_the_runs_of_letters_and_digits(text):
    assert search.terms(text) == expected_terms(text)


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF) | st.sampled_from("ab é"),
               max_size=50))
def test_terms_of_text_with_lone_surrogates_are_the_runs_of_letters_and_digits(text):
    assert search.terms(text) == expected_terms(text)


TROUBLE_WORDS = {"traceback", "error", "exception", "failed", "fatal", "panic", "warning"}
TROUBLE_STEMS = ("error", "exception", "traceback", "fail", "fatal", "panic", "denied", "warn", "abort", "refused",
                 "timeout", "missing")


def expected_telling_words(words: set[str]) -> list[str]:
    """What an excerpt shows windows around, as excerpting.py's docstring tells it, the slow way: words of
    three letters or more, those naming trouble first, then those holding such a word, then the rest;
    longest first, then in alphabetical order; as many as can fit (the candidates past the longest few
    only get in if they name trouble)."""
    longer = [word for word in words if len(word) >= 3]
    fit = search.EXCERPT_CHARACTERS // search.excerpting.EXCERPT_CONTEXT
    by_length = sorted(longer, key=lambda word: (-len(word), word))
    shortest = len(by_length[fit - 1]) if len(by_length) > fit else 0
    troubled = [word for word in longer if any(stem in word for stem in TROUBLE_STEMS)]
    chosen = {word for word in longer if len(word) >= shortest} | set(troubled)
    rank = {word: 0 if word in TROUBLE_WORDS else 1 for word in troubled}
    return sorted(chosen, key=lambda word: (rank.get(word, 2), -len(word), word))[:fit]


TELLING_PARTS = st.sampled_from(["error", "fail", "warn", "ing", "ed", "x", "value", "traceback", "timeout", "a", "zz",
                                 "é", "7", "ur", "abort", "panic", "denied"])


@settings(max_examples=400, deadline=None)
@given(st.sets(st.lists(TELLING_PARTS, min_size=1, max_size=5).map("".join), max_size=60))
def test_an_excerpt_shows_trouble_first_then_the_longest_words(words):
    assert search.excerpting._telling_words(words) == expected_telling_words(words)


MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|\\$", re.M)


def expected_readable(markdown: str) -> str:
    """Markdown as its words read, the slow way: every run of asterisks not after a backslash out, then
    each escape read as the character it keeps, then what `plain` takes out (in one pass of its pattern)."""
    unemphasised = re.sub(r"(?<!\\)\*+", "", markdown)
    return plain(MARKDOWN_ESCAPE.sub(lambda match: match.group(1) or "", unemphasised))


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from("#`*_\\ \n\tax!é"), max_size=40))
def test_prose_is_read_without_its_marks_and_escapes(markdown):
    assert search._readable(markdown) == expected_readable(markdown)


@pytest.mark.parametrize("markdown", [
    "_`_", "`_`_", "*__*", "\\**", "\\*\\*", "a\\\\*b*", "# Heading", "   ### h\nx", "``code``", "___", "**bold**",
    "_\\`_", "x\\\ny", "\\", "snake_case `code` __dunder__", "* list", "\\_`_",
])
def test_prose_marks_that_meet_once_others_are_taken_out_stay_as_plain_leaves_them(markdown):
    assert search._readable(markdown) == expected_readable(markdown)


@pytest.mark.parametrize("markdown", [
    "# h", "####### seven hashes", "#no space", "a # not a heading", "\n\n# h", "\n    # four spaces", "   # three",
    "\t#\tx", "\xa0# h", "\u2003\u2003# h", "\x85# h", "\r\n# h", "\x0b# h", "# \n\n# \n#", "#\n_`_", "x\n# `a`__b",
    "# __x__", "##  `##`  \n__", "a\\# h\n# h", "\\\n# h", "#_\n_#",
])
def test_prose_headings_are_read_as_plain_reads_them(markdown):
    assert search._readable(markdown) == expected_readable(markdown)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from("#`_ \n\t\r\x0b\xa0\u2003\x85a"), max_size=40))
def test_prose_with_headings_and_any_spaces_is_read_as_plain_reads_it(markdown):
    assert search._readable(markdown) == expected_readable(markdown)

