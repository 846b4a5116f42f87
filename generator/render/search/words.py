"""The words of a text as the index keeps them, and how much of a text is searched and excerpted."""

from __future__ import annotations

import re
from itertools import compress, filterfalse
from dataclasses import dataclass

EXCERPTED_CHARACTERS = 64_000
"""Of each text, how much goes through the whole word pass (split into words in order, found again for
the excerpt): its first 64,000 characters, cut at a space. Past that, a long text (a log, a dump, a
generated file) was most of the search stage's time, for an excerpt that shows its start anyway."""
SEARCHED_CHARACTERS = 1_000_000
"""Of each text, how much is indexed: its words past `EXCERPTED_CHARACTERS` are found by a cheaper pass
(each distinct run of non-spaces split once, so a log's repeated lines cost their first time), up to
here; what lies past it (of a text of megabytes) is not found. app.js says so when a query finds
nothing."""
MAX_TERM_LENGTH = 32
"""Longer runs of letters are hashes, base64 and the like: nobody searches for them by hand."""
_WORD = re.compile(r"[^\W_]+")
_ASCII_WORD_BYTES = bytes(byte if byte >= 128 or chr(byte).isalnum() else ord(" ") for byte in range(256))
"""For `bytes.translate`: an ASCII byte that is no letter or digit (what `_WORD` splits at, `_` included) becomes
a space; letters, digits and every byte of a wider character stay."""
_ONE_CHARACTER = frozenset(map(chr, range(128)))
"""Runs of one ASCII character, too short to be a term."""
_TERM_LENGTHS = range(2, MAX_TERM_LENGTH + 1)


def terms(text: str) -> set[str]:
    """The words of a text as the index keeps them: lower case, split at anything but a letter or a
    digit (so `snake_case` is two words), two to 32 characters. app.js splits a query the same way."""
    return terms_of_lowered(text.lower())


def terms_of_lowered(lowered: str) -> set[str]:
    # In C: the text's UTF-8 bytes with every ASCII character that is no letter or digit made a space, decoded
    # again, split, each distinct run once. A run of ASCII is a word as it stands; only runs holding other
    # characters (whose bytes were all 128 or more, so no character was cut) go through `_WORD`. The same
    # words as `_WORD` over the whole text, in 60% of the time on the corpus: splitting every text into
    # words was the largest part of the search stage. Only where a run is too long is each one measured.
    if lowered.isascii():
        words = set(lowered.encode().translate(_ASCII_WORD_BYTES).decode().split())
        wider = None
    else:
        words = set(lowered.encode("utf-8", "surrogatepass").translate(_ASCII_WORD_BYTES)
                    .decode("utf-8", "surrogatepass").split())
        wider = [*filterfalse(str.isascii, words)]
        words.difference_update(wider)
    words -= _ONE_CHARACTER
    if words and len(max(words, key=len)) > MAX_TERM_LENGTH:
        words = set(compress(words, map(_TERM_LENGTHS.__contains__, map(len, words))))
    if wider:
        words.update(word for word in _WORD.findall(" ".join(wider)) if 2 <= len(word) <= MAX_TERM_LENGTH)
    return words


def searched_part(text: str, limit: int = SEARCHED_CHARACTERS) -> str:
    """What the index holds of a text: all of it, or its first `limit` characters cut back to the last
    whitespace, so that no word is cut in two (a word longer than the whole part is cut where it ends)."""
    return text[:_searched_end(text, limit)]


def _searched_end(text: str, limit: int) -> int:
    """Where `searched_part` ends, found without copying the text."""
    if len(text) <= limit:
        return len(text)
    cut = max(text.rfind(" ", 0, limit + 1), text.rfind("\n", 0, limit + 1), text.rfind("\t", 0, limit + 1))
    return cut if cut > 0 else limit


@dataclass(slots=True)
class IndexedText:
    """A text as the index takes it."""

    flat: str
    """The start of it that is excerpted (`EXCERPTED_CHARACTERS`), on one line."""
    lowered: str
    """`flat.lower()`."""
    excerpted: set[str]
    """The terms of `flat`."""
    terms: set[str]
    """The terms of all that is searched of the text (`SEARCHED_CHARACTERS`)."""
    cut: bool
    """Whether the text goes on past `flat`."""


def indexed(text: str) -> IndexedText:
    head = searched_part(text, EXCERPTED_CHARACTERS)
    flat = " ".join(head.split())
    lowered = flat.lower()
    excerpted = terms_of_lowered(lowered)
    if len(head) == len(text):
        return IndexedText(flat, lowered, excerpted, excerpted, cut=False)
    # The rest of a long text is mostly the same runs of non-spaces again (a log's lines): each is lowered and
    # split once, and the rest is neither copied nor lowered whole.
    rest = set(text[len(head):_searched_end(text, SEARCHED_CHARACTERS)].split())
    return IndexedText(flat, lowered, excerpted, excerpted | terms_of_lowered(" ".join(rest).lower()), cut=True)
