"""Values a secret-like name is given other than as one scalar after it: the items of a list (`api_keys:` then
`- …` lines, `tokens = ["…"]`, `"apiKeys": [ … ]`, `PASSWORDS = [ … ]`), the lines of a YAML block scalar
(`password: |`), and the value beside a name that is itself a value (Kubernetes' and ECS's environment variables,
`name: DB_PASSWORD` then `value: …`; Terraform's `name = "…"` then `value = "…"`).

Lists and blocks run over several lines. A line may carry a tool's lead before the file's own text (Read's
`    12→`, `cat -n`'s `    12<tab>`, grep's `path:12:`, a diff's `+`): a flow list's lines are read past such a lead,
and a block's lines by their column, counted as the key's line counts it, since a tool gives every line the same
lead (grep's varies with its line number's digits: there a block may be cut short).
"""

from __future__ import annotations

import re
from typing import Iterator

from .names import secret_word_positions

_LONGEST_LIST = 16_384
"""Characters a flow list is read through, at most."""
_MOST_LINES = 200
"""Lines of a block list or a block scalar read, at most."""
_NUMBERED_LEAD = re.compile(r"[ \t]*\d+[→\t:-]|[^\s:\"'\[\]{},]+[:-]\d+[:-]")
"""A line's number as a tool writes it before the line (Read's `12→`, `cat -n`'s `12<tab>`, grep's `12:`, `12-`,
`path:12:`): its width grows with the number's digits where grep writes it."""
_LINE_LEAD = re.compile(f"(?:{_NUMBERED_LEAD.pattern}|[+\\- ](?=[ \\t]))?")
"""What a tool writes before a line of a file: its number (`_NUMBERED_LEAD`), or a diff's mark."""
_BLOCK_SCALAR = re.compile(r"[|>][+-]?[1-9]?[+-]?[ \t]*(?:#[^\n]*)?(?=\r?\n)")
_NOTHING_MORE = re.compile(r"[ \t]*(?:#[^\n]*)?(?=\r?\n)")
"""The end of a key's line that gives no value on it (a comment at most): a block follows."""
_LIST_ITEM = re.compile(r"([ \t]*)- +(?=\S)")
_MAPPING_ITEM = re.compile(r"""["']?[\w.-]+["']?[ \t]*:(?:[ \t]|$)""")
_BARE_ITEM_END = re.compile(r"[ \t]+#|[ \t]*$")
_NAME_FIELD_BEFORE = re.compile(r"""(?:^|[\s{,(])["']?(?:name|key|Name|Key|NAME|KEY)["']?[ \t]*[:=][ \t]*["']?\Z""")
_OPENS_A_BLOCK = re.compile(r"""(?:[:=][ \t]*(?:[|>][+-]?[1-9]?[+-]?|\[)?[ \t]*(?:#.*)?|\bname["']?[ \t]*[:=].*)$""")
"""A line after which a name's value lies on the lines below: a key with nothing after it, a block scalar's or a
list's opening, or a name field (whose value field follows)."""
_BLOCK_LINE_ENDS = frozenset(":=|>[+-0123456789")
"""The last characters of a line `_OPENS_A_BLOCK` may match (or it holds a `#` or `name`)."""
_VALUE_FIELD_AFTER = re.compile(
    r"""["']?[ \t]*(?:,[ \t]*|\r?\n(?:""" + _LINE_LEAD.pattern + r""")[ \t]*)["']?(?:value|Value|VALUE)["']?[ \t]*[:=][ \t]*""")


def list_items(text: str, opening: int) -> Iterator[tuple[int, int, bool]]:
    """The items of the flow list whose `[` is at `opening`, as (start, end, quoted): quoted strings (in any
    of `"`, `'`, or `\\"` inside a JSON string) and bare scalars. A list holding lists or objects is not read
    past its first one."""
    position = opening + 1
    limit = min(len(text), opening + _LONGEST_LIST)
    while position < limit:
        character = text[position]
        if character in " \t,":
            position += 1
        elif character == "\n" or text.startswith("\\n", position):
            position += 1 if character == "\n" else 2
            lead = _LINE_LEAD.match(text, position)
            position = lead.end() if lead else position
        elif character == "\r":
            position += 1
        elif character == "]" or character in "[{":
            return
        elif character in "\"'" or (character == "\\" and text[position + 1:position + 2] in ("\"", "'")):
            escaped = character == "\\"
            quote = ("\\" + text[position + 1]) if escaped else character
            start = position + len(quote)
            end = text.find(quote, start, limit)
            if end < 0 or "\n" in text[start:end]:
                return
            yield start, end, True
            position = end + len(quote)
        else:
            end = position
            while end < limit and text[end] not in ",]\n\r":
                end += 1
            bare_end = end
            while bare_end > position and text[bare_end - 1] in " \t":
                bare_end -= 1
            yield position, bare_end, False
            position = end


def block_items(text: str, name_start: int, value_start: int) -> Iterator[tuple[int, int, bool]]:
    """The items of a YAML block list, or the lines of a block scalar, given to the key at `name_start` whose
    value would start at `value_start`: (start, end, quoted), a block scalar's lines counting as quoted."""
    scalar = _BLOCK_SCALAR.match(text, value_start)
    if scalar is None and _NOTHING_MORE.match(text, value_start) is None:
        return
    line_start = text.rfind("\n", 0, name_start) + 1
    key_line_start = _numbered_lead_end(text, line_start, name_start)
    first_line = text.find("\n", value_start) + 1
    # Columns are counted past each line's number when the key's line and the next have one (grep's `9:` and
    # `10:` differ in width); else from the line's start, as a tool that leads every line alike keeps them.
    numbered = (key_line_start > line_start and 0 < first_line < len(text)
                and _numbered_lead_end(text, first_line, len(text)) > first_line)
    key_column = name_start - (key_line_start if numbered else line_start)
    for position, content_end in _lines_from(text, first_line):
        # where the key's own column is on this line
        own = (_numbered_lead_end(text, position, content_end) if numbered else position) + key_column
        if scalar is not None:
            if own >= content_end or not text[own:content_end].strip():
                continue  # a blank line inside the block
            if text[own] not in " \t":
                return  # back at the key's column, or left of it: the block is over
            start = own
            while text[start] in " \t":
                start += 1
            end = content_end
            while end > start and text[end - 1] in " \t":
                end -= 1
            yield start, end, True
        else:
            item = _LIST_ITEM.match(text, own, content_end) if own < content_end else None
            if item is None:
                return
            start = item.end()
            if _MAPPING_ITEM.match(text, start, content_end):
                return  # a list of mappings: their keys say what each value is
            if text[start] in "\"'":
                end = text.find(text[start], start + 1, content_end)
                if end > start:
                    yield start + 1, end, True
            else:
                bare_end = _BARE_ITEM_END.search(text, start, content_end)
                yield start, bare_end.start() if bare_end else content_end, False


_HERE_DOCUMENT = re.compile(
    r"""<<<?[-~]?[ \t]*(["']?)([A-Za-z_][A-Za-z0-9_]*)\1(?:\.[A-Za-z_]\w*(?:\(\))?)*[ \t]*(?:;[ \t]*)?(?=\r?\n)""")
"""A here-document's opening after a name (HCL's `<<EOT` and `<<-EOT`, Ruby's `<<~EOS` and `<<~EOS.strip`, Perl's
`<<"EOF"`, PHP's `<<<EOT`): its lines follow, up to the one holding its marker alone."""

_OPENS_A_HERE_DOCUMENT = re.compile(r"[:=][ \t]*" + _HERE_DOCUMENT.pattern.replace(r"(?=\r?\n)", r"\r?$"))


def here_document_lines(text: str, value_start: int) -> Iterator[tuple[int, int, bool]]:
    """The lines of the here-document opened at `value_start`, as (start, end, quoted), each past a tool's lead
    (`12→`, a diff's `+`) and its own indentation; none when no here-document opens there."""
    opening = _HERE_DOCUMENT.match(text, value_start)
    if opening is None:
        return
    marker = opening.group(2)
    for position, content_end in _lines_from(text, text.find("\n", opening.end()) + 1):
        lead = _LINE_LEAD.match(text, position, content_end)
        start = lead.end() if lead else position
        while start < content_end and text[start] in " \t":
            start += 1
        end = content_end
        while end > start and text[end - 1] in " \t\r":
            end -= 1
        if text[start:end].rstrip(";,)") == marker:
            return
        if end > start:
            yield start, end, True


def _lines_from(text: str, position: int) -> Iterator[tuple[int, int]]:
    """The lines of `text` from `position` (a line's start; 0: there is none), `_MOST_LINES` at most, as (start,
    end before a `\r\n`'s `\r`)."""
    for _ in range(_MOST_LINES):
        if position <= 0 or position >= len(text):
            return
        line_end = text.find("\n", position)
        line_end = len(text) if line_end < 0 else line_end
        yield position, line_end - 1 if line_end > position and text[line_end - 1] == "\r" else line_end
        position = line_end + 1


def _numbered_lead_end(text: str, start: int, end: int) -> int:
    """Where the line at `start` begins past its number (`_NUMBERED_LEAD`), or `start`."""
    lead = _NUMBERED_LEAD.match(text, start, end)
    return lead.end() if lead is not None else start


def named_value_start(text: str, name_start: int, name_end: int) -> int | None:
    """Where the value of the `value` field beside a `name` field holding this name starts (`name: DB_PASSWORD`
    then `value: …`; `{"name": "API_TOKEN", "value": "…"}`), or None."""
    if _NAME_FIELD_BEFORE.search(text, max(0, name_start - 40), name_start) is None:
        return None
    beside = _VALUE_FIELD_AFTER.match(text, name_end)
    return beside.end() if beside else None


def opens_a_block(line: str) -> bool:
    """Whether the values of the name on this one line lie on the lines below it (`_OPENS_A_BLOCK`, or a
    here-document)."""
    # Most lines end otherwise: the patterns are tried only on those that may open a block.
    return ((line.rstrip()[-1:] in _BLOCK_LINE_ENDS or "name" in line or "#" in line)
            and _OPENS_A_BLOCK.search(line) is not None
            or "<<" in line and _OPENS_A_HERE_DOCUMENT.search(line) is not None)


def names_a_block(line: str) -> bool:
    """Whether this one line opens a block under a secret-like word (`api_keys:`, `name: DB_PASSWORD`)."""
    return opens_a_block(line) and bool(secret_word_positions(line))
