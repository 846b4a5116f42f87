"""The words the index keeps of a text are the runs of letters and digits of its lower-cased form, two to 32
characters long, whatever the text holds: other scripts, digits of other scripts, marks, emoji, box
drawing, control characters, lone surrogates, underscores. The expected value is Python's `re` over the
whole text, as app.js splits a query; the index finds them another way (bytes first) and must agree."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
