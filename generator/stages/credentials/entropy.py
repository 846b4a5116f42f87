"""The last net: values that look random where a secret is expected, and the measure `audit` ranks what was
left by.

A key of a format no rule knows still looks like one: long, drawn from a token alphabet, mixing cases and
digits, with the entropy of random text (base64 keys have about 5 bits a character, hex 4, English words
joined by underscores under 4). Hex alone is also how digests, commit SHAs and uuids look, so a hex value
counts only where a secret is expected (a credential file, a secret-like name).
"""

from __future__ import annotations

import math
import re
from collections import Counter

_TOKEN_ALPHABET = re.compile(r"[A-Za-z0-9+/=_\-.~]+")
_HEX = re.compile(r"[0-9a-fA-F-]+")
_IDS = re.compile(r"^(?:toolu_|msg_|req_|srvtoolu_|call_|agent_msg_|sha\d+[-:]|h1:)")

SHORTEST_RANDOM = 16
"""Shorter values are too short to tell random from a word or a code."""
RANDOM_ENTROPY = 3.6
"""Bits per character above which a long mixed value looks random (measured on the public corpus: joined
words and paths stay under it, keys sit above 4.2)."""


def entropy(text: str) -> float:
    """Shannon entropy, in bits per character."""
    if not text:
        return 0.0
    length = len(text)
    return -sum(count / length * math.log2(count / length) for count in Counter(text).values())


def looks_random(value: str, hex_counts: bool = False, paths: bool = True) -> bool:
    """A value that looks like a key: long, of token characters, with letters and digits mixed (and both
    cases, for anything that is not hex), and high entropy. Ids of Claude Code's own are not, nor (where
    `paths`) what has the slashes of a path."""
    if len(value) < SHORTEST_RANDOM or len(value) > 2048 or not _TOKEN_ALPHABET.fullmatch(value):
        return False
    if _IDS.match(value) or paths and "/" in value.strip("/") and value.count("/") > 2 and not value.endswith("="):
        return False  # an id, a path
    has_digit = any(character.isdigit() for character in value)
    if _HEX.fullmatch(value):
        return hex_counts and has_digit and len(value.replace("-", "")) >= 20 and entropy(value) >= 3.0
    has_lower = any(character.islower() for character in value)
    has_upper = any(character.isupper() for character in value)
    if not (has_digit and has_lower and has_upper):
        return False
    return entropy(value) >= RANDOM_ENTROPY


def randomness(value: str) -> float:
    """How random a value looks, for ranking: its entropy in bits, over its whole length."""
    return entropy(value) * len(value)
