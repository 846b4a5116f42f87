"""Keeping transcript text as text inside our Markdown.

Prompts and replies are Markdown and are rendered as Markdown, but whatever HTML they contain must show
as the characters it is, and nothing in them may break the structure we put around them (`<details>`
blocks, `<div>` wrappers, fences). Three rules do that:

- `prose()` escapes `<` and entity-like `&` everywhere except inside code (fences, indented code and code
  spans, found with the same markdown-it parser the HTML stage uses), so raw HTML becomes text and code
  still reads naturally on GitHub; and the `!` of an image, which becomes a link: no transcript makes a
  reader's browser fetch anything. It also closes a fence that the transcript left open.
- `fence()` wraps code in a backtick fence longer than any backtick run inside it.
- `html_text()` escapes text that goes inside our own HTML tags (summaries, notices).

The HTML stage does not trust this alone: it refuses raw HTML that is not ours, and sanitises with nh3.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

# A backslash escape is already literal text and stays as written; `<` and entity-like `&` get escaped,
# and the `!` that makes a link an image (a reader's browser would fetch it from wherever it names).
_NEEDS_ESCAPE = re.compile(
    r"\\[!-/:-@\[-`{-~]|<|!(?=\[)|&(?=#[0-9]{1,8};|#[xX][0-9a-fA-F]{1,8};|[A-Za-z][A-Za-z0-9]{1,31};)"
)
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_BACKTICK_RUN = re.compile(r"`+")
_ESCAPE_OR_BACKTICKS = re.compile(r"\\[!-/:-@\[-`{-~]|`+")
# What can start or end inline Markdown (emphasis, code, links, HTML, entities, autolinks, strikethrough).
_INLINE_SYNTAX = frozenset("\\`*_[]<>#!|~&{}")
_INLINE_SYNTAX_BACKSLASH_FIRST = ("\\", *sorted(_INLINE_SYNTAX - {"\\"}))
"""The escaping order: a backslash first, so the ones put before the others are not escaped in turn."""
_MAX_PASSES = 20
# Without any of these, prose has no HTML or entities to escape, no fence to close, no setext underline and
# no heading: `prose` would return it as it is, so the block parse (a fifth of a build's Markdown time) is
# skipped. Code spans alone need nothing: escaping outside them is a no-op when there is nothing to escape.
# A line's lead (indentation, quote and list markers) is passed over: inside a list item or a quote, a
# heading or an underline starts further in.
# A carriage return on its own ends a line, as Markdown reads it. The first line is looked at on its own: with
# no anchor among them, every alternative starts with one of a few characters, which the search skips to.
_FIRST_LINE_MAY_NEED_ESCAPING = re.compile(r"[ \t>*+\-0-9.)]*(?:#|```|~~~|[-=]+[ \t\r]*(?:[\n\r]|$))")
_MAY_NEED_ESCAPING = re.compile(r"[<&]|!\[|[\n\r][ \t>*+\-0-9.)]*(?:#|```|~~~|[-=]+[ \t\r]*(?:[\n\r]|$))")
_LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")
_LANGUAGE = re.compile(r"[^A-Za-z0-9_+#.-]")


@lru_cache(maxsize=1)
def block_parser() -> MarkdownIt:
    """The block structure as the HTML stage will see it (html on, so raw HTML blocks are found)."""
    # Only block structure matters here, so the inline rules (the costly part) are switched off.
    return MarkdownIt("gfm-like", {"linkify": False}).disable(
        ["inline", "linkify", "replacements", "smartquotes", "text_join"], ignoreInvalid=True
    )


def html_text(text: str) -> str:
    """Text for inside our own HTML elements. Line breaks become character references: a blank line
    would end the HTML block early and spill the rest into Markdown."""
    return html.escape(text, quote=True).replace("\r", "&#13;").replace("\n", "&#10;")


def literal(text: str) -> str:
    """Plain text (a title, a label, an option) as Markdown that shows exactly these characters on one
    line: every ASCII punctuation mark backslash-escaped, so nothing in it can open emphasis, a link, a
    code span or a block, or close ours."""
    flat = " ".join(text.split())
    escaped = flat
    # A str.replace per mark, in C, the marks that are not there passed over: several times faster than a
    # look at each character in Python, or str.translate, which looks each up in a dict.
    for mark in _INLINE_SYNTAX_BACKSLASH_FIRST:
        if mark in escaped:
            escaped = escaped.replace(mark, "\\" + mark)
    # At the start of a line, these would make a list, a heading rule or a setext underline.
    return "\\" + escaped if escaped[:1] in ("-", "+", "=") else escaped


def one_line(text: str) -> str:
    """Transcript Markdown kept to one line (a list item): inline formatting and code still work, but
    nothing can start a block (a leading fence, heading or quote marker is escaped)."""
    flat = " ".join(text.split())
    if flat[:1] in _ASCII_PUNCTUATION:
        flat = "\\" + flat
    rendered = prose(flat)
    return rendered if "\n" not in rendered else literal(text)


def fence(code: str, language: str = "", attributes: str = "") -> str:
    """A fenced code block that no content can close early."""
    # Only a run of three or more backticks can close a fence of three: the fence is one backtick longer than
    # the longest such run, found by looking for ever longer ones (most code has none).
    ticks = "```"
    while ticks in code:
        ticks += "`"
    info = _LANGUAGE.sub("", language)
    if attributes:
        # The first word of an info string is the language, so attributes need one in front of them.
        info = f"{info or 'text'} {attributes}"
    # Markdown reads a lone carriage return as a line break; inside code it is shown as the character it is.
    if "\r" in code:
        code = code.replace("\r\n", "\n").replace("\r", "\u240d")
    return f"{ticks}{info}\n{code}{ticks}" if code.endswith("\n") or not code else f"{ticks}{info}\n{code}\n{ticks}"


def code_info(code: str, language: str = "", attributes: str = "") -> tuple[str, str, str]:
    """What a Markdown parser reads from `fence(code, language, attributes)`: the code (NUL made U+FFFD,
    as CommonMark asks), the language and the attributes, for a writer that skips the parsing."""
    info = _LANGUAGE.sub("", language)
    if attributes:
        info = f"{info or 'text'} {attributes}"
    name, _, rest = info.partition(" ")
    code = code.replace("\r\n", "\n").replace("\r", "\u240d").replace("\0", "\ufffd")
    body = code if code.endswith("\n") or not code else code + "\n"
    return body, name, rest.strip()


def inline_code(text: str) -> str:
    """A code span for a short value (a path, a command), safe whatever backticks it holds."""
    flat = " ".join(text.split())
    if not flat:
        return ""
    longest = max((len(run) for run in _BACKTICK_RUN.findall(flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


# A fence in typed text: up to three spaces, then three or more backticks or tildes (CommonMark).
_TYPED_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_TYPED_KEPT = re.compile(r"https?://[^\s<>\"'`]+|(?<!`)(`+)(?!`)(?:.+?)(?<!`)\1(?!`)")
# What Markdown could read as syntax within a typed line; each is backslash-escaped (so shown as is).
_TYPED_SYNTAX = re.compile(r"[\\`*_\[\]<>!|~{}#&]")
# What could start a block at the beginning of a typed line: a list, a quote, a heading, a rule, a table.
_TYPED_BLOCK_START = re.compile(r"^([-+=:]|\d{1,9}[.)])")
_RUN_OF_SPACES = re.compile(r" {2,}")
# Whatever `_typed_line` changes in a line: a line with none of it is written as it is.
_TYPED_CHANGES = re.compile(r"[\\`*_\[\]<>!|~{}#&]|  |^ |^(?:[-+=:]|\d{1,9}[.)])")


def typed(text: str) -> str:
    """What a person typed or pasted into the terminal, as Markdown that shows it as typed: every line
    break and every indent kept, nothing read as emphasis, a heading or a list. Fenced code the person
    wrote (```) stays a fence, so it is still highlighted; everything else is text, so `__init__` stays
    `__init__` and a pasted traceback keeps its lines. Each line ends in a hard break (a backslash, which
    GitHub renders too), and an empty line is a break of its own, so the line count is the typed one."""
    return "\n\n".join(piece if isinstance(piece, str) else fence(*piece) for piece in typed_pieces(text))


def typed_pieces(text: str) -> list[str | tuple[str, str]]:
    """`typed` in pieces: Markdown text, or (code, language) for a fence the person wrote."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[str | tuple[str, str]] = []
    typed_lines: list[str] = []

    def flush() -> None:
        while typed_lines and not typed_lines[-1].strip():
            typed_lines.pop()
        if typed_lines:
            blocks.append("\\\n".join(map(_typed_line, typed_lines)))
        typed_lines.clear()

    if "```" not in text and "~~~" not in text:  # no line can open a fence: all of it is typed text
        typed_lines.extend(lines[next((number for number, line in enumerate(lines) if line.strip()), len(lines)):])
        flush()
        return blocks
    number = 0
    while number < len(lines):
        opening = _TYPED_FENCE.match(lines[number])
        if opening is None or (opening.group(2)[0] == "`" and "`" in opening.group(3)):
            if typed_lines or lines[number].strip():
                typed_lines.append(lines[number])
            number += 1
            continue
        flush()
        marker = opening.group(2)
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
        end = number + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        indent = len(opening.group(1))
        code = "\n".join(line[min(indent, len(line) - len(line.lstrip(" "))):] for line in lines[number + 1 : end])
        info = opening.group(3).strip().split(" ", 1)[0]
        blocks.append((code, info))
        number = end + 1
    flush()
    return blocks


def _typed_line(line: str) -> str:
    """One typed line as inline Markdown text: syntax escaped outside links, indent and runs of spaces
    kept as non-breaking spaces (a leading indent would otherwise make a code block, or vanish)."""
    line = line.rstrip().expandtabs(4)
    if not _TYPED_CHANGES.search(line):
        return line  # nothing to escape, no indent or run of spaces to keep, no block to stop (or empty)
    out: list[str] = []
    position = 0
    # Code spans (`like this`) and bare links are kept as written: people type both on purpose.
    for kept in _TYPED_KEPT.finditer(line):
        out.append(_TYPED_SYNTAX.sub(r"\\\g<0>", line[position : kept.start()]))
        out.append(kept.group())
        position = kept.end()
    out.append(_TYPED_SYNTAX.sub(r"\\\g<0>", line[position:]))
    escaped = "".join(out)
    stripped = escaped.lstrip(" ")
    indent = len(escaped) - len(stripped)
    if _TYPED_BLOCK_START.match(stripped):
        stripped = re.sub(r"^(\d*)(.)", r"\1\\\2", stripped, count=1)
    stripped = _RUN_OF_SPACES.sub(lambda run: "&nbsp;" * (len(run.group()) - 1) + " ", stripped)
    return "&nbsp;" * indent + stripped


def prose(text: str) -> str:
    """Transcript Markdown, made safe to embed in our document (see the module docstring)."""
    if not _may_need_escaping(text):
        return text
    pieces = _fresh_start_pieces(text)
    if len(pieces) == 1:
        return _parsed_prose(text)
    # Pieces with nothing to escape are kept as they are, unparsed; the others are parsed in runs.
    out: list[str] = []
    pending: list[str] = []
    for piece in pieces:
        if _may_need_escaping(piece):
            pending.append(piece)
            continue
        if pending:
            out.append(_parsed_prose("\n".join(pending)))
            pending = []
        out.append(piece)
    if pending:
        out.append(_parsed_prose("\n".join(pending)))
    return "\n".join(out)


def _may_need_escaping(text: str) -> bool:
    """Whether `prose` may change `text` at all (see `_MAY_NEED_ESCAPING`)."""
    return bool(_FIRST_LINE_MAY_NEED_ESCAPING.match(text) or _MAY_NEED_ESCAPING.search(text))


# A line that may open or close a fence (after a line's lead), and one that may open an HTML block.
_FENCE_LINE = re.compile(r"^([ \t>*+\-0-9.)]*)(`{3,}|~{3,})(.*)$", re.MULTILINE)
# A line that may open an HTML block of the kinds that run past blank lines (1 to 5: `<script>`, `<pre>`,
# `<style>`, `<textarea>`, a comment, a processing instruction, a declaration, CDATA): any `<!` or `<?`.
_LONG_HTML_BLOCK_LINE = re.compile(r"^[ \t>*+\-0-9.)]*<(?:[!?]|(?i:script|pre|style|textarea))", re.MULTILINE)
# A line that may open an HTML block of any kind, and a blank line (from the line break before it).
_HTML_BLOCK_LINE = re.compile(r"^[ \t>*+\-0-9.)]*<", re.MULTILINE)
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")
# A line at the left margin after a blank line (its start is the match's end).
_AFTER_BLANK_LINE = re.compile(r"\n[ \t]*\n(?=[^ \t\n])")


def _fresh_start_pieces(text: str) -> list[str]:
    """`text` cut before each line where block parsing starts afresh, so that each piece parses on its own as
    it does within the whole (one piece when that cannot be shown cheaply).

    After a blank line, a line at the left margin closes every list, quote, paragraph, table, indented code
    block and HTML block of kinds 6 and 7: only an open fence or an HTML block of kinds 1 to 5 (a comment,
    `<script>`...) runs on past it. So a text is cut there unless a fence is open. The fences are followed
    by their lines at the margin, which open and close them wherever they are, with three exceptions, where
    the text is not cut at all: a fence line further in (inside a list or a quote, where what closes it
    depends on the container); a fence marker a `|` follows (it may be a table's header row); and a fence
    opened before a blank line ends an HTML block above it, in which it would be text. Nor is a text cut
    when a line outside its fences may open an HTML block of kinds 1 to 5. An HTML block of kinds 6 and 7
    then ends within its piece, and is made text there as it would be in the whole (`_defuse_html_blocks`
    never changes a fence line, so the fences stay where they are on every pass). Markdown-it reads a
    carriage return as a line break, which these line numbers do not: a text holding one is not cut."""
    if "\r" in text:
        return [text]
    fences: list[tuple[int, int]] = []
    marker, opened = "", 0
    for line in _FENCE_LINE.finditer(text):
        lead, run, rest = line.groups()
        if lead or "|" in rest:
            return [text]
        if marker:
            if run[0] == marker[0] and len(run) >= len(marker) and not rest.strip(" \t"):
                fences.append((opened, line.end()))
                marker = ""
        elif not (run[0] == "`" and "`" in rest):
            marker, opened = run, line.start()
    if marker:
        fences.append((opened, len(text)))
    if any(not _inside(fences, line.start()) for line in _LONG_HTML_BLOCK_LINE.finditer(text)):
        return [text]
    for line in _HTML_BLOCK_LINE.finditer(text):
        if _inside(fences, line.start()):
            continue
        blank = _BLANK_LINE.search(text, line.end())
        following = bisect_left(fences, (line.end(),))
        if following < len(fences) and (blank is None or fences[following][0] < blank.start()):
            return [text]
    pieces: list[str] = []
    start = 0
    for blank in _AFTER_BLANK_LINE.finditer(text):
        cut = blank.end()
        if not _inside(fences, cut):
            pieces.append(text[start : cut - 1])
            start = cut
    pieces.append(text[start:])
    return pieces


def _inside(fences: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` lies within one of `fences` (in order, apart), past its opening line's start."""
    last = bisect_left(fences, (position,)) - 1
    return last >= 0 and position < fences[last][1]


def _parsed_prose(text: str) -> str:
    """`prose` by a block parse of the whole text."""
    if "\r" in text:
        # Lines as the parser counts them: a carriage return on its own ends one.
        text = _LONE_CARRIAGE_RETURN.sub("\n", text)
    lines, tokens = _defuse_html_blocks(text.split("\n"))
    kinds: list[str] = ["other"] * len(lines)
    groups: dict[int, int] = {}
    unclosed_fence = ""
    setext_underlines: list[int] = []
    atx_headings: list[int] = []
    for token in tokens:
        if token.map is None:
            continue
        start, end = token.map
        if token.type in ("fence", "code_block"):
            for number in range(start, min(end, len(lines))):
                kinds[number] = "code"
            if token.type == "fence" and token.level == 0 and not _closes(lines, start, end, token.markup):
                unclosed_fence = token.markup
        elif token.type == "heading_open" and token.markup in ("-", "=") and end - 1 < len(lines):
            # A line of dashes under text makes it a heading (setext); in a prompt that is almost always
            # a separator or pasted front matter, so the underline is kept as text.
            setext_underlines.append(end - 1)
        elif token.type == "heading_open" and token.markup.startswith("#") and len(token.markup) < 6:
            atx_headings.append(start)
        elif token.type == "inline":
            for number in range(start, min(end, len(lines))):
                if kinds[number] == "other":
                    kinds[number] = "inline"
                    groups[number] = start
    out: list[str] = []
    number = 0
    while number < len(lines):
        kind = kinds[number]
        if kind == "code":
            out.append(lines[number])
            number += 1
        elif kind == "inline":
            group = groups[number]
            last = number
            while last + 1 < len(lines) and kinds[last + 1] == "inline" and groups[last + 1] == group:
                last += 1
            out.extend(_escape_inline("\n".join(lines[number : last + 1])).split("\n"))
            number = last + 1
        else:
            out.append(_escape_all(lines[number]))
            number += 1
    for number in setext_underlines:
        out[number] = re.sub(r"^(\s*)([-=])", r"\1\\\2", out[number], count=1)
    # The page's title is its one top heading: the transcript's own headings go one level down.
    for number in atx_headings:
        out[number] = re.sub(r"^( {0,3})#", r"\1##", out[number], count=1)
    if unclosed_fence:
        while out and not out[-1].strip():
            out.pop()  # the text's own trailing newline is not a line of the code
        out.append(unclosed_fence)
    return "\n".join(out)


def _defuse_html_blocks(lines: list[str]) -> tuple[list[str], list[Token]]:
    """Turn every raw HTML block into text by backslash-escaping its opening `<`. An HTML block can hide
    what follows it (an unclosed `<!--` runs to the end), so parse again until none is left."""
    for _ in range(_MAX_PASSES):
        tokens = block_parser().parse("\n".join(lines))
        starts = [t.map[0] for t in tokens if t.type == "html_block" and t.map]
        if not starts:
            return lines, tokens
        for start in starts:
            column = lines[start].find("<")
            if column >= 0:
                lines[start] = lines[start][:column] + "\\" + lines[start][column:]
    # Pathological input: escape whatever is still inside an HTML block, wholesale.
    for token in tokens:
        if token.type == "html_block" and token.map:
            for number in range(token.map[0], min(token.map[1], len(lines))):
                lines[number] = _escape_all(lines[number]).replace("\\&lt;", "&lt;")
    return lines, block_parser().parse("\n".join(lines))


def _closes(lines: list[str], start: int, end: int, markup: str) -> bool:
    if end - start < 2 or end > len(lines):
        return False
    closing = lines[end - 1].strip()
    return closing.startswith(markup) and set(closing) == {markup[0]}


def _escape_all(text: str) -> str:
    return _NEEDS_ESCAPE.sub(_escape_match, text)


def _escape_match(match: re.Match[str]) -> str:
    found = match.group()
    if found == "<":
        return "&lt;"
    if found == "&":
        return "&amp;"
    if found == "!":
        return "\\!"
    return found


def _escape_inline(text: str) -> str:
    """Escape outside code spans, following CommonMark's backtick rule: a run of n backticks opens a span
    that the next run of exactly n backticks closes; with no such run it is literal text. A backslash
    escape is passed over whole (an escaped backtick opens nothing)."""
    if "`" not in text:
        return _escape_all(text)
    out: list[str] = []
    position = plain_start = 0
    while (found := _ESCAPE_OR_BACKTICKS.search(text, position)) is not None:
        if found.group()[0] == "\\":
            position = found.end()
            continue
        run_start, run_end = found.span()
        run = run_end - run_start
        closer = _find_closing_run(text, run_end, run)
        out.append(_escape_all(text[plain_start:run_start]))
        if closer < 0:
            out.append(text[run_start:run_end])
            position = plain_start = run_end
        else:
            out.append(text[run_start : closer + run])
            position = plain_start = closer + run
    out.append(_escape_all(text[plain_start:]))
    return "".join(out)


def _find_closing_run(text: str, start: int, run: int) -> int:
    for match in _BACKTICK_RUN.finditer(text, start):
        if len(match.group()) == run:
            return match.start()
    return -1
