"""What a search result shows of a text: its start, and windows around its most telling words."""

from __future__ import annotations

from bisect import bisect_left

from .words import terms_of_lowered

EXCERPT_CHARACTERS = 480
"""Of each document's text, what its result can show: all of a short text; of a longer one its start and
the places where words of trouble ("Error", "Traceback", "failed"...) and then its longest words first
occur (an error, a name, a path: the words people search for), so that a snippet can show the words a
query found."""
EXCERPT_START = 160
EXCERPT_CONTEXT = 40
"""Characters kept on each side of a word in an excerpt's windows."""
_TROUBLE_STEMS = ("error", "exception", "traceback", "fail", "fatal", "panic", "denied", "warn", "abort", "refused",
                  "timeout", "missing")
_TROUBLE_WORDS = frozenset({"traceback", "error", "exception", "failed", "fatal", "panic", "warning"})


def excerpt(text: str, words: set[str] | None = None) -> str:
    """What a result can show of a text (`EXCERPT_CHARACTERS`): all of it on one line when it is short;
    else its start and, words of trouble first and then the longest, a window around the first place
    each occurs, in reading order, joined by " … ". `words`: the text's terms, when they are known."""
    flat = " ".join(text.split())
    lowered = flat.lower()
    return flat_excerpt(flat, lowered, terms_of_lowered(lowered) if words is None else words, more=False)


def flat_excerpt(flat: str, lowered: str, words: set[str], more: bool) -> str:
    """`excerpt` of a text already flattened to one line and lowercased (`lowered`, `flat.lower()`);
    `more`: the text goes on past `flat`."""
    if len(flat) <= EXCERPT_CHARACTERS and not more:
        return flat
    candidates = _telling_words(words)
    spans = [(0, EXCERPT_START)]
    budget = EXCERPT_CHARACTERS - EXCERPT_START
    for word in candidates:
        if budget < 2 * EXCERPT_CONTEXT:
            break
        start = lowered.find(word)
        end = start + len(word)
        if start < 0 or any(low <= start and end <= high for low, high in spans):
            continue
        low, high = max(0, start - EXCERPT_CONTEXT), min(len(flat), end + EXCERPT_CONTEXT)
        # Whole words at the window's edges.
        space = flat.find(" ", low, start) if low else -1
        low = space + 1 if space >= 0 else low
        space = flat.rfind(" ", end, high) if high < len(flat) else -1
        window = (low, space if space >= 0 else high)
        if window[1] - window[0] <= budget:
            spans.append(window)
            budget -= window[1] - window[0]
    spans.sort()
    merged = [list(spans[0])]
    for low, high in spans[1:]:
        if low <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    shown = " … ".join(flat[low:high].strip() for low, high in merged)
    return shown + (" …" if more or merged[-1][1] < len(flat) else "")


_MOST_WINDOWS = EXCERPT_CHARACTERS // EXCERPT_CONTEXT
"""Only the first few dozen candidates can fit: no need to sort them all."""


def _telling_words(words: set[str]) -> list[str]:
    """The words an excerpt shows first: those naming trouble (`traceback`), then those holding such a
    word (`valueerror`), then the longest; alike, in alphabetical order. Only the few that can fit."""
    # Most texts have hundreds of words: each step goes over them in C (sorted by length alone, the
    # words of trouble found with `str.find`), and only the few chosen are sorted on their letters.
    by_length = sorted(words, key=len)
    # The length the last one that can fit has (at least three letters): all the words as long are candidates.
    shortest = max(3, len(by_length[-_MOST_WINDOWS])) if len(by_length) >= _MOST_WINDOWS else 3
    chosen = set(by_length[bisect_left(by_length, shortest, key=len):])
    # Most texts name no trouble: then no word needs asking.
    joined = " ".join(words)
    troubled = _words_holding(joined, _TROUBLE_STEMS)
    if not troubled:
        return _longest_first(chosen)[:_MOST_WINDOWS]
    naming = troubled & _TROUBLE_WORDS
    ranked = _longest_first(naming)
    if len(ranked) < _MOST_WINDOWS:
        ranked += _longest_first(troubled - naming)
    if len(ranked) < _MOST_WINDOWS:
        ranked += _longest_first(chosen - troubled)
    return ranked[:_MOST_WINDOWS]


def _words_holding(joined: str, stems: tuple[str, ...]) -> set[str]:
    """The words (of `joined`, words joined by spaces) that hold one of `stems`."""
    found = set()
    for stem in stems:
        place = joined.find(stem)
        while place >= 0:
            start = joined.rfind(" ", 0, place) + 1
            end = joined.find(" ", place + len(stem))
            end = end if end >= 0 else len(joined)
            found.add(joined[start:end])
            place = joined.find(stem, end)
    return found


def _longest_first(words: set[str]) -> list[str]:
    """Longest first, then in alphabetical order, sorted in C (a reversed sort keeps equal keys in their order)."""
    return sorted(sorted(words), key=len, reverse=True)
