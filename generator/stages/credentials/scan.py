"""One pass over a text for each family of rules, each rule run only where its anchors were seen.

- Tokens of known formats (`providers`), their base64 encodings (a `.dockerconfigjson`, a `Basic` header
  of a token): one scan finds every anchor of every rule, then only the rules whose anchors were found run.
- Secrets by context: fixed forms (`forms`), values given to secret-like names (`assignments`), the data of a
  Kubernetes Secret, and in a credential file (`files`) every value that looks random (`entropy`).

Each finder returns the spans to take out, with their kind; `redact` replaces them and counts.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from dataclasses import dataclass
from urllib.parse import unquote
from typing import Callable, Iterable

from .assignments import assigned_secrets
from .entropy import looks_random
from .files import names_credential_file
from .forms import FORM_RULES, KUBERNETES_SECRET_MARKS, form_matches, kubernetes_secret_values, lines_with_offsets
from .prefilter import Anchors
from .names import NAME_STEMS, lower_in_place
from .providers import TOKEN_RULES, TokenRule


@dataclass(frozen=True, slots=True)
class Found:
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class _Compiled:
    rules: tuple[tuple[TokenRule, re.Pattern[str]], ...]
    anchors: Anchors
    """Every anchor of every rule."""
    rules_by_anchor: dict[str, tuple[int, ...]]
    looks: tuple[tuple[int, re.Pattern[str]], ...]
    """The rules with no literal, each with its cheap pattern."""
    any_look: re.Pattern[str] | None
    """Every look in one alternation, for the one question whether any may match."""
    token_side: Anchors
    """The token anchors and their base64 spellings (every anchor of four characters or more as base64 would
    spell it, at each of its three alignments): one pass over a text finds both."""
    encoded_spellings: frozenset[str]
    context_side: Anchors
    """In lower-case text: the secret-like names' stems, the fixed forms' anchors and the marks of a Kubernetes
    Secret, in one pass."""


def _base64_spellings(anchor: str) -> list[str]:
    """The base64 characters that only `anchor`'s bytes decide, for each alignment of it in the data."""
    data = anchor.encode()
    spellings = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data + b"\0\0").decode()
        first = -(-8 * shift // 6)
        last = 8 * (shift + len(data)) // 6
        spelling = encoded[first:last]
        if len(spelling) >= 4:
            spellings.append(spelling)
    return spellings


@functools.cache
def compiled() -> _Compiled:
    rules = tuple((rule, re.compile(rule.pattern, rule.flags)) for rule in TOKEN_RULES)
    by_anchor: dict[str, list[int]] = {}
    for index, (rule, _) in enumerate(rules):
        for anchor in rule.anchors:
            by_anchor.setdefault(anchor, []).append(index)
    looks = tuple((index, re.compile(rule.look)) for index, (rule, _) in enumerate(rules) if not rule.anchors)
    spellings = sorted({spelling for anchor in by_anchor if len(anchor) >= 4 for spelling in _base64_spellings(anchor)})
    any_look = re.compile("|".join(f"(?:{look.pattern})" for _, look in looks)) if looks else None
    context_side = Anchors([*NAME_STEMS, *(anchor for rule in FORM_RULES for anchor in rule.anchors),
                            *KUBERNETES_SECRET_MARKS])
    return _Compiled(rules, Anchors(by_anchor), {a: tuple(i) for a, i in by_anchor.items()}, looks, any_look, Anchors([*by_anchor, *spellings]), frozenset(spellings), context_side)


def _token_rules_present(text: str, anchors: Iterable[str] | None = None, looked: bool | None = None) -> list[int]:
    catalogue = compiled()
    present: set[int] = set()
    for anchor in catalogue.anchors.found(text) if anchors is None else anchors:
        present.update(catalogue.rules_by_anchor.get(anchor, ()))
    if looked is None:
        looked = catalogue.any_look is not None and catalogue.any_look.search(text) is not None
    if looked:
        for index, look in catalogue.looks:
            if look.search(text):
                present.add(index)
    return sorted(present)


def may_hold_token(text: str) -> bool:
    """Whether any token rule (or a token's base64) could match in `text`."""
    catalogue = compiled()
    return catalogue.token_side.any_in(text) or (catalogue.any_look is not None and catalogue.any_look.search(text)
                                                 is not None)


def _non_overlapping(found: Iterable[Found]) -> list[Found]:
    kept: list[Found] = []
    for item in sorted(found, key=lambda f: (f.start, -f.end)):
        if not kept or item.start >= kept[-1].end:
            kept.append(item)
    return kept


def token_spans(text: str, anchors: Iterable[str] | None = None, looked: bool | None = None) -> list[Found]:
    """Tokens of known formats; where two rules match the same text, the earlier rule names it. `anchors`:
    the rules' anchors in the text, where the caller has found them already."""
    catalogue = compiled()
    found: list[Found] = []
    taken: list[tuple[int, int]] = []
    for index in _token_rules_present(text, anchors, looked):
        rule, pattern = catalogue.rules[index]
        group = "secret" if "secret" in pattern.groupindex else 0
        for match in pattern.finditer(text):
            start, end = match.span(group)
            if start == end or any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            found.append(Found(start, end, rule.kind))
    return _non_overlapping(found)


def scan_tokens(text: str, embedded: bool = False) -> list[Found]:
    """Tokens of known formats and their base64, from one pass that finds every anchor and spelling (and the
    looks of the rules with no anchor). `embedded`: inside longer runs of token characters too (a name)."""
    catalogue = compiled()
    hits = catalogue.token_side.occurrences(text)
    looked = catalogue.any_look is not None and catalogue.any_look.search(text) is not None
    if not hits and not looked:
        return []
    anchors = {literal for _, literal in hits if literal in catalogue.rules_by_anchor}
    spans = embedded_token_spans(text) if embedded else token_spans(text, anchors, looked)
    encoded = [start for start, literal in hits if literal in catalogue.encoded_spellings]
    if encoded:
        spans = _non_overlapping([*spans, *encoded_token_spans(text, encoded)])
    return spans


_LONGEST_EMBEDDED = 256


def embedded_token_spans(text: str) -> list[Found]:
    """Tokens inside a longer run of token characters, which the rules' boundaries keep them from matching
    in prose: in an id, a signature, a tool's name (`mcp__<token>__search`). Each anchor's place is tried as
    the token's start, with the longest run after it that a rule takes whole."""
    catalogue = compiled()
    found = token_spans(text)
    for start, anchor in catalogue.anchors.occurrences(text):
        if any(item.start <= start < item.end for item in found):
            continue
        if len(anchor) < 4 and len(text) > 200:
            continue  # in a long run of random characters (a signature) a short anchor stands by chance
        for index in catalogue.rules_by_anchor[anchor]:
            rule, pattern = catalogue.rules[index]
            window = text[start:start + _LONGEST_EMBEDDED]
            end = next((length for length in range(len(window), len(anchor), -1)
                        if pattern.fullmatch(window[:length])), 0)
            if end:
                found.append(Found(start, start + end, rule.kind))
                break
    return _non_overlapping(found)


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]+={0,2}")


def encoded_token_spans(text: str, hits: Iterable[int]) -> list[Found]:
    """base64 runs that decode to text holding a token of a known format (`"auth": "<base64 of user:ghp_…>"`);
    `hits`: where the tokens' base64 spellings are (`scan_tokens` finds them with the anchors)."""
    found: list[Found] = []
    for hit in hits:
        if found and hit < found[-1].end:
            continue
        start = hit
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "+/_-"):
            start -= 1
        run = _BASE64_RUN.match(text, start)
        if run is None:
            continue
        decoded = _decoded(run.group())
        if decoded:
            tokens = token_spans(decoded)
            if tokens:
                found.append(Found(run.start(), run.end(), f"{tokens[0].kind}-base64"))
    return found


def _decoded(run: str) -> str:
    body = run.rstrip("=")
    for alphabet in (None, b"-_"):
        for skip in range(4):  # a run cut out of a longer one may start at any of four places
            part = body[skip:]
            part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part
            try:
                raw = base64.b64decode(part + "=" * (-len(part) % 4), altchars=alphabet, validate=True)
            except (binascii.Error, ValueError):
                continue
            text = raw.decode("latin-1")
            if compiled().anchors.any_in(text):
                return text
    return ""



def form_spans(text: str, lower: str, present: set[str] | None = None) -> list[Found]:
    """The fixed forms (`forms.FORM_RULES`) whose anchors and flags the lower-case text holds."""
    found: list[Found] = []
    present = compiled().context_side.found(lower) if present is None else present
    for rule in FORM_RULES:
        if not present.isdisjoint(rule.anchors) and (not rule.also or any(flag in lower for flag in rule.also)):
            found += [Found(start, end, rule.kind) for start, end in form_matches(rule, text)]
    if not present.isdisjoint(KUBERNETES_SECRET_MARKS):
        found += [Found(start, end, "kubernetes-secret") for start, end in kubernetes_secret_values(text)]
    return _non_overlapping(found)


_ANY_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[\"']?[ \t]*[=:][ \t]*[\"']?"
    r"(?P<value>[A-Za-z0-9+/=_\-.~]{16,})")


_DIGEST_NAME = re.compile(r"(?i)(?:.*@)?(?:sha\d*|sha3-\d+|md5|h\d|blake\w*|crc\d*|xxh\w*|integrity|digest|checksum|"
                          r"hash|etag|commit|rev|revision|sum)")
"""Names of digests and checksums: what they are given is a hash (`sha256:…`, go.sum's `h1:…`)."""
_RANDOM_RUN = re.compile(r"(?<![A-Za-z0-9+/_])[A-Za-z0-9+/_]{32,}={0,2}(?![A-Za-z0-9+/=_])")
"""A run of base64 on its own: a key's body line, whatever a tool put before it (grep's `file-3-`)."""
_PGPASS_LINE = re.compile(r"(?m)(?:^|\t|→|[\s'\"])[^\s'\"]*?(?:localhost|[^\s:'\"]*\.[^\s:'\"]+|\*):(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:"
                          r"(?P<value>[^\s\"'\\]+)(?=$|['\"\s])")


def random_runs(text: str, shortest: int = 32) -> list[Found]:
    """Every run of base64 on its own, `shortest` characters or more, that looks random (a key's line; a
    command's argument), but a path or a data URI's content (`data:…;base64,…`)."""
    return [Found(*match.span(), "high-entropy") for match in _RANDOM_RUN.finditer(text)
            if len(match.group()) >= shortest and not text.endswith("base64,", 0, match.start())
            and looks_random(match.group())]


def random_value_spans(text: str, nameless: bool) -> list[Found]:
    """In a credential file: every value that looks random, whatever its name (`STRIPE=…`, `[default]
    key = …`), and every long run that does on its own (a key's body lines, a value on a line of its own),
    and the password field of a `.pgpass` line."""
    found = [Found(*match.span("value"), "high-entropy") for match in _ANY_ASSIGNMENT.finditer(text)
             if not _DIGEST_NAME.fullmatch(match.group("name"))
             and looks_random(match.group("value"), hex_counts=nameless) and not match.group("value").startswith("REDACTED")]
    if nameless:
        found += random_runs(text)
    return found


_PGPASS_FIELDS = re.compile(r":(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:")


def pgpass_spans(text: str) -> list[Found]:
    """The password field of a `.pgpass` line (`host:port:database:user:password`), wherever it stands."""
    return [Found(*match.span("value"), "secret-assignment") for match in _PGPASS_LINE.finditer(text)
            if not match.group("value").startswith("[REDACTED")]


_PERCENT_HEX = re.compile(r"%[0-9A-Fa-f]{2}")
_SEGMENT_END = frozenset(" \t\r\n/?&#=\"'<>\\")


def _segments_with_escapes(text: str) -> list[tuple[int, int]]:
    """The URL segments (between `/`, `?`, `&`, `#`, `=` and white space) that hold a percent-escape."""
    segments: list[tuple[int, int]] = []
    for escape in _PERCENT_HEX.finditer(text):
        if segments and escape.start() < segments[-1][1]:
            continue
        start, end = escape.start(), escape.end()
        while start > 0 and text[start - 1] not in _SEGMENT_END:
            start -= 1
        while end < len(text) and text[end] not in _SEGMENT_END:
            end += 1
        segments.append((start, end))
    return segments


def percent_encoded_spans(text: str) -> list[Found]:
    """A path segment or query value that holds a secret once its percent-escapes are decoded (a webhook's
    URL passed in another URL, a connection string in a query): the whole encoded segment goes."""
    found: list[Found] = []
    for start, end in _segments_with_escapes(text):
        segment = text[start:end]
        decoded = unquote(segment)
        if len(decoded) < 8 or decoded == segment:
            continue
        kinds = [item.kind for item in token_spans(decoded)] if may_hold_token(decoded) else []
        if not kinds:
            kinds = [item.kind for item in context_spans(decoded, False)]
        if kinds:
            found.append(Found(start, end, kinds[0]))
    return found


_KEY_BODY_LINE = re.compile(r"(?:[ \t]*\d+(?:→|\t)|[^\s:]*[:-]\d+[:-]|\d+[:-]|[+> ])?[ \t]*"
                            r"(?P<body>[A-Za-z0-9+/]{56,80}={0,2})[ \t]*")
_KEY_BODY_TAIL = re.compile(r"(?:[ \t]*\d+(?:→|\t)|[^\s:]*[:-]\d+[:-]|\d+[:-]|[+> ])?[ \t]*"
                            r"(?P<body>[A-Za-z0-9+/]{4,80}={0,2})[ \t]*")
_LONG_BASE64 = re.compile(r"(?m)^(?:[^\S\n]*\d+(?:→|\t)|[^\s:]*[:-]\d+[:-]|\d+[:-]|[+> ])?[^\S\n]*[A-Za-z0-9+/]{56}")
"""A line that starts with a long run of base64: a key's body line may be in the text."""


def key_body_spans(text: str) -> list[Found]:
    """Two or more lines of random base64 of a key's width (64 for PEM, 70 for OpenSSH, 76 for MIME), with
    the short line that may end them: the body of a private key shown without its header (a grep, a pasted
    part, a quoted one), whatever a tool put before each line."""
    if _LONG_BASE64.search(text) is None:
        return []
    found: list[Found] = []
    run: list[tuple[int, int]] = []
    for offset, line in lines_with_offsets(text):
        body = _KEY_BODY_LINE.fullmatch(line)
        if body is not None and looks_random(body.group("body"), paths=False):
            run.append((offset + body.start("body"), offset + body.end("body")))
            continue
        if len(run) >= 2:
            tail = _KEY_BODY_TAIL.fullmatch(line)
            if tail is not None and tail.group("body").endswith("="):
                run.append((offset + tail.start("body"), offset + tail.end("body")))
            found += [Found(start, end, "private-key") for start, end in run]
        run = []
    if len(run) >= 2:
        found += [Found(start, end, "private-key") for start, end in run]
    return found


def context_spans(text: str, credential_file: bool, named_file: bool = False) -> list[Found]:
    """Secrets found by their context. `credential_file`: the text has the shape of a credential file or
    is one; `named_file`: it is a file known as one by its name, where a random run on its own is a secret too
    (a key's body lines)."""
    lower = lower_in_place(text)
    hits = compiled().context_side.occurrences(lower)
    found = form_spans(text, lower, {literal for _, literal in hits}) if hits else []
    if len(text) > 112 and _LONG_BASE64.search(text) is not None:
        found += key_body_spans(text)
    if "%" in text:
        found += percent_encoded_spans(text)
    stems = [start for start, literal in hits if literal in _STEMS]
    if stems:
        found += [Found(start, end, "secret-assignment")
                  for start, end in assigned_secrets(text, named_file, sorted(set(stems)))]
    if credential_file or named_file:
        found += random_value_spans(text, nameless=named_file)
    if ":" in text and _PGPASS_FIELDS.search(text):
        found += pgpass_spans(text)
    return _non_overlapping(found)


_STEMS = frozenset(NAME_STEMS)


def token_positions(text: str) -> list[int]:
    """Where any token rule's anchor, a token's base64 spelling or an anchorless rule's look stands."""
    catalogue = compiled()
    positions = catalogue.token_side.positions(text)
    if catalogue.any_look is not None:
        positions += [found.start() for found in catalogue.any_look.finditer(text)]
    return positions


def context_positions(text: str) -> list[int]:
    """Where any rule by context may apply: a secret-like name's stem, a form's anchor, a Kubernetes Secret's
    mark, and the marks of the shapes the rules look for (a `.pgpass` line, a percent-escape, a key's body
    line, a `.env` line, grep's place)."""
    positions = compiled().context_side.positions(lower_in_place(text))
    if ":" in text:
        positions += [found.start() for found in _PGPASS_FIELDS.finditer(text)]
    if "%" in text:
        positions += [found.start() for found in _PERCENT_HEX.finditer(text)]
    positions += [found.start() for found in _LINE_SHAPES.finditer(text)]
    return positions


_LINE_SHAPES = re.compile(
    r"(?m)^(?:"
    r"(?:[^\S\n]*\d+(?:→|\t)|[^\s:]*[:-]\d+[:-]|\d+[:-]|[+> ])?[^\S\n]*[A-Za-z0-9+/]{56}"  # a key's body line
    r"|(?:[ \t]*\d+(?:→|\t)|[^\s:]+:\d+:|[+ ])?[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]{2,}=\S"  # a .env line
    r"|[^\s:]+?[:-]\d+[:-])")  # grep's place
"""The lines the rules by context look for by their shape, in one scan: a key's body line, a `.env` line, a
line of grep's output."""


_GREP_PLACE = re.compile(r"(?m)^(?P<path>[^\s:]+?)[:-]\d+[:-]")
_GREP_MARK = re.compile(r"[:-]\d+[:-]")


def shows_credential_file(text: str) -> bool:
    """grep's lines of a file that `files` knows as one (`config/.env:3:…`, `certs/server.pem-4-…`)."""
    if _GREP_MARK.search(text) is None:
        return False
    checked: set[str] = set()
    for place in _GREP_PLACE.finditer(text):
        path = place.group("path")
        if path not in checked:
            if names_credential_file(path):
                return True
            checked.add(path)
            if len(checked) > 20:
                break
    return False


def replace_spans(text: str, spans: list[Found], replacement: Callable[[Found, str], str]) -> str:
    if not spans:
        return text
    pieces, position = [], 0
    for item in spans:
        pieces += [text[position:item.start], replacement(item, text[item.start:item.end])]
        position = item.end
    pieces.append(text[position:])
    return "".join(pieces)
