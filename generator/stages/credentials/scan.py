"""One prefilter pass over a text (or over all of an entry's strings) for every family of rules (`sightings`),
then each rule run only where the pass saw what it needs (`Sighting`).

- Tokens of known formats (`providers`), their base64 encodings (a `.dockerconfigjson`, a `Basic` header
  of a token): the rules whose anchors were seen run, each only around its anchors (`known_tokens`).
- Secrets by context, here: fixed forms (`forms`), values given to secret-like names (`assignments`), the data of a
  Kubernetes Secret, and in a credential file (`files`) every value that looks random (`entropy`).

Each finder returns the spans to take out, with their kind; `redact` replaces them (`replace_spans`) and counts.
Every name of the three modules is imported from this one.
"""


from __future__ import annotations

import re
from typing import Callable, Iterable
from urllib.parse import unquote

from .assignments import assigned_secrets
from .entropy import looks_random
from .files import names_credential_file
from .forms import KUBERNETES_SECRET_MARKS, form_matches, kubernetes_secret_values, lines_with_offsets
from .known_tokens import embedded_token_spans, encoded_token_spans, matches_near, non_overlapping, scan_tokens, token_spans
from .names import NAME_STEMS
from .commands import TRANSCRIPT_ANCHORS, transcript_outputs
from .schemas import RULES, SEED_MARKS, TERRAFORM_MARKS, seed_phrases, terraform_sensitive_values
from .sentences import sentence_secrets
from .tables import table_secrets
from .words import OTHER_WORDS
from .sightings import (CONTEXT_SHAPES, DOTENV, GREP_PLACE, KEY_BODY, NOTHING_SEEN, PERCENT, PGPASS, WRAPPED, Found,
                        Sighting, compiled, may_hold_token, sight, sightings_of)

__all__ = [
    "CONTEXT_SHAPES", "DOTENV", "GREP_PLACE", "KEY_BODY", "NOTHING_SEEN", "PERCENT", "PGPASS", "WRAPPED", "Found",
    "Sighting", "compiled", "context_spans", "embedded_token_spans", "encoded_token_spans", "form_spans",
    "key_body_spans", "may_hold_token", "percent_encoded_spans", "pgpass_spans", "random_runs", "random_value_spans",
    "replace_spans", "scan_tokens", "shows_credential_file", "sight", "sightings_of", "token_spans",
]


def form_spans(text: str, words: list[tuple[int, str]] | None = None) -> list[Found]:
    """The fixed forms (`schemas.RULES`) whose anchors the text holds (in any case), each tried only around
    its anchors' places (`words`: where the prefilter saw the words, when the caller has looked)."""
    if words is None:
        words = sight(text).words
    places: dict[int, list[int]] = {}
    kubernetes_secret = terraform = False
    seeds: list[int] = []
    commands: list[int] = []
    for start, word in words:
        for index in _FORMS_BY_ANCHOR.get(word, ()):
            places.setdefault(index, []).append(start)
        kubernetes_secret = kubernetes_secret or word in KUBERNETES_SECRET_MARKS
        terraform = terraform or word in TERRAFORM_MARKS
        if word in _SEED_MARKS:
            seeds.append(start)
        elif word in _TRANSCRIPT_ANCHORS or word in _STEMS:  # a command that prints a secret, or names one
            commands.append(start)
    found: list[Found] = []
    if seeds:
        found += [Found(start, end, "seed-phrase") for start, end in seed_phrases(text, seeds)]
    if commands:
        found += [Found(start, end, "printed-secret") for start, end in transcript_outputs(text, commands)]
    if terraform:
        found += [Found(start, end, "terraform-sensitive") for start, end in terraform_sensitive_values(text)]
    for index, starts in sorted(places.items()):
        rule = RULES[index]
        if rule.at_anchor:
            matches = [match for start in sorted(set(starts)) if (match := rule.pattern.match(text, start)) is not None]
        else:
            matches = matches_near(rule.pattern, text, sorted(starts))
        found += [Found(start, end, rule.kind) for start, end in form_matches(rule, text, matches)]
    if kubernetes_secret:
        found += [Found(start, end, "kubernetes-secret") for start, end in kubernetes_secret_values(text)]
    return non_overlapping(found)


def _forms_by_anchor() -> dict[str, list[int]]:
    by_anchor: dict[str, list[int]] = {}
    for index, rule in enumerate(RULES):
        for anchor in rule.anchors:
            by_anchor.setdefault(anchor, []).append(index)
    return by_anchor


_FORMS_BY_ANCHOR = _forms_by_anchor()
_SEED_MARKS = frozenset(SEED_MARKS)
_TRANSCRIPT_ANCHORS = frozenset(TRANSCRIPT_ANCHORS)


_ANY_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[\"']?[ \t]*[=:][ \t]*[\"']?"
    r"(?P<value>[A-Za-z0-9+/=_\-.~]{16,})")


_ENV_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*=[ \t]*[\"']?"
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


def random_value_spans(text: str, nameless: bool, dotenv: bool = False) -> list[Found]:
    """In a credential file: every value that looks random, whatever its name (`STRIPE=…`, `[default]
    key = …`), and every long run that does on its own (a key's body lines, a value on a line of its own),
    and the password field of a `.pgpass` line. `dotenv`: the text has a `.env` file's shape and is not known as
    one by its name: only its `NAME=value` assignments are (a JSON member beside them, `"x": "…"`, is not)."""
    found = [Found(*match.span("value"), "high-entropy") for match in (_ENV_ASSIGNMENT if dotenv else
                                                                      _ANY_ASSIGNMENT).finditer(text)
             if not _DIGEST_NAME.fullmatch(match.group("name"))
             and looks_random(match.group("value"), hex_counts=nameless) and not match.group("value").startswith("REDACTED")]
    if nameless:
        found += random_runs(text)
    return found


def pgpass_spans(text: str, places: Iterable[int] | None = None) -> list[Found]:
    """The password field of a `.pgpass` line (`host:port:database:user:password`), wherever it stands
    (`places`: where the prefilter saw a line's fields; only their lines are read)."""
    if places is None:
        matches: Iterable[re.Match[str]] = _PGPASS_LINE.finditer(text)
    else:
        # The host and the password around the fields are runs without a space: a short window of the line.
        windows: list[list[int]] = []
        for place in sorted(places):
            reach = max(0, place - _PGPASS_REACH)
            start, end = max(text.rfind("\n", reach, place) + 1, reach), _line_end(text, place, place + _PGPASS_REACH)
            if windows and start <= windows[-1][1]:  # places on one line share its window
                windows[-1][1] = max(windows[-1][1], end)
            else:
                windows.append([start, end])
        matches = (match for start, end in windows for match in _PGPASS_LINE.finditer(text, start, end))
    return [Found(*match.span("value"), "secret-assignment") for match in matches
            if not match.group("value").startswith("[REDACTED")]


_PGPASS_REACH = 512


def _line_end(text: str, place: int, most: int) -> int:
    """Where the line `place` is in ends, or `most`, whichever comes first (a line may be a megabyte long)."""
    end = text.find("\n", place, most)
    return min(len(text), most) if end < 0 else end


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


def key_body_spans(text: str) -> list[Found]:
    """Two or more lines of random base64 of a key's width (64 for PEM, 70 for OpenSSH, 76 for MIME), with
    the short line that may end them: the body of a private key shown without its header (a grep, a pasted
    part, a quoted one), whatever a tool put before each line."""
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


def context_spans(text: str, credential_file: bool, named_file: bool = False,
                  seen: Sighting | None = None) -> list[Found]:
    """Secrets found by their context, from what the prefilter saw (`seen`, or one pass now).
    `credential_file`: the text has the shape of a credential file or is one; `named_file`: it is a file known
    as one by its name, where a random run on its own is a secret too (a key's body lines)."""
    if seen is None:
        seen = sight(text)
    found = form_spans(text, seen.words) if seen.words else []
    if seen.shapes & KEY_BODY and len(text) > 112:
        found += key_body_spans(text)
    if seen.shapes & PERCENT:
        found += percent_encoded_spans(text)
    stems = [start for start, word in seen.words if word in _STEMS]
    if stems:
        found += [Found(start, end, "secret-assignment") for start, end in assigned_secrets(text, named_file, stems)]
        found += [Found(start, end, "secret-in-sentence") for start, end in sentence_secrets(text, stems)]
        found += [Found(start, end, "secret-column") for start, end in table_secrets(text, stems)]
    if credential_file or named_file:
        found += random_value_spans(text, nameless=named_file, dotenv=not named_file)
    if seen.pgpass:
        found += pgpass_spans(text, seen.pgpass)
    return non_overlapping(found)


_STEMS = frozenset((*NAME_STEMS, *OTHER_WORDS))


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
