"""Prose to HTML through cmark-gfm (GitHub's C parser), for the texts where it writes exactly what
markdown-it-py writes; markdown-it-py stays the parser of record, and every other text goes to it.

markdown-it-py is pure Python: on real archives its prose rendering was a fifth of a build, where cmark-gfm
parses the same texts some twenty times faster. The two follow the same specifications (CommonMark and
GitHub's tables and strikethrough) but differ in what they write around them and in the extensions and
rules of ours (render.py) that only markdown-it-py runs. So a text takes the fast path only when nothing
in it reaches those, and what cmark-gfm writes is then put in markdown-it-py's words:

- before parsing, a text goes to markdown-it-py if it may hold a strikethrough or a tilde fence (`~~`), or
  whitespace other than ASCII's (which markdown-it-py strips in places where cmark-gfm keeps it) or a
  byte-order mark;
- after, if cmark-gfm wrote a link, an image or dropped raw HTML, or took a link reference definition
  (a `]:` is missing from its HTML), unless the links are plain ones (`_PLAIN_LINK`), which are kept or
  shown as their text as `_links_inside_the_archive` does; if its text outside code holds what markdown-it's linkify may turn
  into a link (`//`; an `@` or `www.` where linkify-it finds a link in its words), a link or image it did
  not make (`](`, `][`), or, where the text has a raw `<` that may start HTML or an autolink outside code,
  a `<` shown as text (where code starts and ends the two agree, as CommonMark's rules say; elsewhere
  they may not);
  if blocks or emphasis nest near
  `MAX_NESTING` levels deep (where markdown-it-py stops and cmark-gfm goes on); if a code block's
  source line does not settle whether it is fenced or indented, or a fence follows a tight list item's
  text (markdown-it-py puts no line break between them); or if a line that may start a task list item
  (`[ ]`, `[x]` at its start) is not one cmark-gfm shows starting with the source's own box;
- a task list item is written as markdown-it-py's tasklists plugin writes it (a class on the item and its
  list, the box a disabled checkbox in a label with the item's text);
- fenced code goes to the highlighter under a placeholder, as `_GuardedRenderer.fence` does, and a
  table cell's alignment becomes a class, as `_alignment_as_class` does.

tests/test_fast_prose.py renders every prose text of the examples, the public corpus and the hostile
fixtures both ways and requires the same bytes; a difference it finds is a new rule here, or a new
reason to take markdown-it-py.
"""

from __future__ import annotations

import html
import re
from typing import Callable, Final

try:
    import cmarkgfm
    from cmarkgfm.cmark import Options as _Options
except ImportError:  # pragma: no cover - a platform without its wheel: markdown-it-py renders everything
    cmarkgfm = None

from . import cmark_html

MAX_NESTING: Final = 20
"""markdown-it-py's commonmark preset stops nesting blocks and inline markup there (`maxNesting`)."""

_FULL_INFO_STRING: Final = 1 << 16
"""CMARK_OPT_FULL_INFO_STRING (cmark-gfm's cmark-gfm.h), which the Python binding does not name: a fence's
info string past the language goes into `data-meta`, where the highlighter reads `startline=`."""
_OPTIONS: Final = (0 if cmarkgfm is None else
                   _Options.CMARK_OPT_SOURCEPOS | _Options.CMARK_OPT_TABLE_PREFER_STYLE_ATTRIBUTES
                   | _FULL_INFO_STRING)

_STRUCK: Final = "~~"
"""Strikethrough (markdown-it's rules and cmark-gfm's differ at the edges) and ~~~ fences."""
_TASK_ITEM: Final = re.compile(r"(?m:^[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t>]*)*\[[ xX]\])")
_SPACE_BEYOND_ASCII: Final = re.compile(
    # Whitespace beyond ASCII's space, tab and line breaks: markdown-it-py strips a paragraph, a heading or
    # a cell with Python's str.strip, which takes these too (a leading no-break space), cmark-gfm does not;
    # and a byte-order mark, which cmark-gfm drops at the start.
    "[\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)
_TAG_START: Final = re.compile(r"<[A-Za-z/!?]")
"""What starts raw HTML or an autolink; an entity (`&lt;`, as the markdown stage escapes `<`) never does."""
_TAG_START_SHOWN: Final = re.compile(r"&lt;[A-Za-z/!?]")
_UNESCAPED_TAG_START: Final = re.compile(r"(?<!\\)(?:\\\\)*<[A-Za-z/!?]")
"""A `<` that may start HTML: after an even number of backslashes (none, or escaped ones)."""
_UNESCAPED_TAG_START_SHOWN: Final = re.compile(r"(?<!\\)(?:\\\\)*&lt;[A-Za-z/!?]")
_CODE_CONTENT: Final = re.compile(r"<code(?: [^>]*)?>(.*?)</code>", re.DOTALL)
_CODE: Final = re.compile(r"<code[ >].*?</code>", re.DOTALL)
_PLAIN_LINK: Final = re.compile(r'<a href="([A-Za-z0-9._/#-]+)">([^<\n]*)</a>')
"""A link as both parsers write it: a destination of characters that neither escapes (no scheme, no
host), no title, and text alone (no markup, no line break, which markdown-it-py leaves out of the text
`_links_inside_the_archive` compares with the destination)."""
_TAG_OR_CODE: Final = re.compile(r"<code[ >].*?</code>|<[^>]*>", re.DOTALL)
_RUN_WITH_AN_AT: Final = re.compile(r"\S*@\S*")
_ENTITY: Final = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_PUNCTUATION: Final = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""What a backslash escapes (CommonMark's ASCII punctuation)."""
_MOST_PIECES_TRIED: Final = 400
_SOURCEPOS: Final = re.compile(r' data-sourcepos="[^"]*"')
"""cmark-gfm's source positions, which it writes in no other place: a `"` of the text is `&quot;` there."""
_PRE: Final = re.compile(
    r'<pre data-sourcepos="(\d+):(\d+)-(\d+):\d+"><code(?: class="language-([^"]*)")?(?: data-meta="([^"]*)")?>'
    r"(.*?)</code></pre>\n", re.DOTALL)
_ALIGNMENT: Final = re.compile(r'<(th|td) style="text-align: (left|center|right)">')
_ALIGNED: Final = ' style="text-align: '
"""What every match of `_ALIGNMENT` holds."""
_FENCE_START: Final = re.compile(rb"`{3,}|~{3,}")
_LIST_ITEM_OR_BREAK: Final = re.compile(r'<(li|hr) data-sourcepos="(\d+):(\d+)-')
_LINE_BREAK: Final = re.compile(rb"\r\n?|\n")
_NESTING_OPENERS: Final = ("<blockquote", "<ul", "<ol", "<em>", "<strong>")
_NESTING_SUSPECT: Final = MAX_NESTING // 4
_BOXED_ITEM: Final = re.compile(
    r'<li data-sourcepos="(\d+):(\d+)-[^"]*">(?:\n<p data-sourcepos="(\d+):(\d+)-[^"]*">)?\[([ xX])\] ')
"""A list item whose first paragraph (tight: no <p>) starts with a box and a space."""
_MARKER_AND_BOX: Final = re.compile(rb"(?:[-+*]|\d{1,9}[.)]) {1,4}\[[ xX]\] ")
_BOX: Final = re.compile(rb"\[[ xX]\] ")
_TIGHT_TEXT_END: Final = re.compile(r"</li>|\n<(?:ul|ol|pre|blockquote|h[1-6]|hr|table)\b")
"""Where a tight item's paragraph ends: at the item's end, or where its next block starts (cmark-gfm writes
text escaped and no inline tag of these names)."""
_LOOSE_TEXT_END: Final = re.compile("</p>")
_LIST_TAG: Final = re.compile(r'<(/)?(ul|ol|li)\b( class="task-list-item")?')
_AFTER_A_BLOCK: Final = re.compile(
    r'(?:</(?:p|li|ul|ol|blockquote|h[1-6]|table|pre)>|<(?:li|ul|ol|blockquote|hr)\b[^>]*>)\n\Z')
"""What a code block follows in cmark-gfm's HTML when it is not a tight item's text: after that text,
markdown-it-py writes no line break before it (a fence is rendered by its own rule, which adds none)."""
_NESTED_TAG: Final = re.compile(r"<(/?)(?:blockquote|ul|ol|li|em|strong|table|thead|tbody|tr|th|td)\b")

Highlighter = Callable[[str, str, str], str]


def available() -> bool:
    return cmarkgfm is not None


def render(text: str, highlight: Highlighter, code_blocks: list[str], placeholder: str, end: str,
           linkable: Callable[[str], bool] | None = None,
           resolve: Callable[[str], str | None] | None = None) -> str | None:
    """The HTML markdown-it-py (`render.markdown_parser`) writes for `text` with this environment, or None
    when the text must go to markdown-it-py. Each fenced code block's highlighting is appended to
    `code_blocks` and a paragraph `<p>{placeholder}{number}{end}</p>` takes its place. `linkable(text)`:
    whether markdown-it's linkify finds a link in a text (LinkifyIt.test); without it, any `@` sends the
    text to markdown-it-py. `resolve`: the environment's resolver, which `_links_inside_the_archive` asks
    about each link (one it has no answer for is shown as its text)."""
    if cmarkgfm is None or _STRUCK in text or _SPACE_BEYOND_ASCII.search(text):
        return None
    # Every task list item holds a box: the pattern, tried at each line's start, runs only then.
    boxes = len(_TASK_ITEM.findall(text)) if "[ ]" in text or "[x]" in text or "[X]" in text else 0
    markup = cmark_html.to_html(text, _OPTIONS)
    if (("<a " in markup and markup.count("<a ") != len(_PLAIN_LINK.findall(markup))) or "<img " in markup
            or "<!-- raw HTML omitted -->" in markup or markup.count("]:") != text.count("]:")):
        return None  # a link but a plain one, an image, raw HTML, or a link reference definition cmark-gfm took
    # Removing code can join what is on either side of it (`/<code>x</code>/`), so the text outside code is
    # looked at apart, and made only where the whole markup has what is looked for, and code to remove.
    linked = _may_be_linked(markup)
    tag_start = "<" in text and _TAG_START.search(text) and _TAG_START_SHOWN.search(markup)
    if linked or tag_start:
        outside_code = _CODE.sub("", markup) if "<code" in markup else markup
        if linked and _may_be_linked(outside_code) and (
                linkable is None or _may_be_a_link(outside_code)
                or "@" in outside_code and _address_may_link(text, markup, linkable)):
            return None
        if (tag_start and _TAG_START_SHOWN.search(outside_code)
                and not _every_tag_start_in_code(text, markup)):
            return None
    if sum(map(markup.count, _NESTING_OPENERS)) >= _NESTING_SUSPECT and _too_deep(markup):
        return None
    lines: list[bytes] | None = None
    if ("*" in text or "_" in text) and not _emphasis_accounted_for(text, markup):
        return None
    if boxes:
        lines = _lines(text)
        with_boxes = _task_items(markup, lines, boxes)
        if with_boxes is None:
            return None
        markup = with_boxes
    found: list[str] = []
    highlighted: list[str] = []
    position = 0
    for pre in _PRE.finditer(markup):
        if lines is None:
            lines = _lines(text)
        kind = _code_kind(lines, int(pre.group(1)), int(pre.group(2)))
        if kind is None or not _AFTER_A_BLOCK.search(markup, 0, pre.start()) and pre.start() > 0:
            return None
        if kind == "fenced" and int(pre.group(3)) == len(lines) and not _closed_at_the_end(lines, int(pre.group(1)),
                                                                                          int(pre.group(2))):
            return None
        found.append(_SOURCEPOS.sub("", markup[position:pre.start()]))
        position = pre.end()
        language, meta, code = pre.group(4), pre.group(5), pre.group(6)
        if not (language or "").isascii() or not (meta or "").isascii():
            return None  # where an info string splits, beyond ASCII's spaces, is each parser's own
        if kind == "indented":
            if language is not None or meta is not None:
                return None
            found.append(f"<pre><code>{code}</code></pre>\n")
            continue
        highlighted.append(highlight(html.unescape(code), html.unescape(language or ""),
                                     html.unescape(meta or "").lstrip(" \t")) + "\n")
        found.append(f"<p>{placeholder}{len(code_blocks) + len(highlighted) - 1}{end}</p>\n")
    found.append(_SOURCEPOS.sub("", markup[position:]))
    code_blocks.extend(highlighted)
    markup = "".join(found)
    if _ALIGNED in markup:
        markup = _ALIGNMENT.sub(r'<\1 class="align-\2">', markup)
    if resolve is not None and "<a " in markup:
        markup = _PLAIN_LINK.sub(lambda link: _link_or_its_text(link, resolve), markup)
    # An empty quote: markdown-it-py writes it on one line.
    return markup.replace("<blockquote>\n</blockquote>", "<blockquote></blockquote>")


def _link_or_its_text(link: re.Match[str], resolve: Callable[[str], str | None]) -> str:
    """What `render._links_inside_the_archive` makes of a plain link: the link, if the resolver knows where
    it leads; else its text, and the path after it unless the text is the path."""
    href, label = link.group(1), link.group(2)
    if resolve(href) is not None:
        return link.group()
    return label if html.unescape(label).strip() == href else f"{label} ({href})"


def _may_be_linked(markup: str) -> bool:
    """Whether the markup holds what markdown-it's linkify may make a link of (`//`, `@`, `www.` in any
    case), or a link or an image cmark-gfm did not make (`](`, `][`; markdown-it-py may have). Substring
    searches, many times faster over a long text than one case-blind pattern: only `W` and `w` match `w`
    without regard to case, in all of Unicode, and the `w.` test spares lowering texts with no `www.`."""
    return ("//" in markup or "@" in markup or "](" in markup or "][" in markup
            or ("w." in markup or "W." in markup) and "www." in markup.lower())


def _may_be_a_link(markup: str) -> bool:
    """What `_may_be_linked` finds that no look at the words settles: a link or an image cmark-gfm did not
    make, or a `//`, where markdown-it's inline linkify rule reads the source (a scheme before `://`).
    Without these, only an address (`@`) can be linked: with fuzzy links off, linkify-it's other schemes
    (http:, https:, ftp:) all need a `//`, and `www.` alone is no link."""
    return "//" in markup or "](" in markup or "][" in markup


def _address_may_link(text: str, markup: str, linkable: Callable[[str], bool]) -> bool:
    """Whether markdown-it's linkify may find an address (or a mailto: link) in one of the text pieces it
    hands linkify-it. Its pieces are the text between tags and code spans (where cmark-gfm's HTML has a
    tag: a space here, where a link may start and end as at a piece's ends), also cut at each backslash
    escape and entity, which cmark-gfm's HTML does not show. So each run of words around an `@` is tried
    cut at any of its ASCII punctuation marks (what an escape or an entity of `&amp;`'s kind leaves), each
    cut-off piece alone; an entity for anything else sends the text to markdown-it-py."""
    for entity in _ENTITY.findall(text):
        if html.unescape(entity) not in _PUNCTUATION:
            return True
    words = html.unescape(_TAG_OR_CODE.sub(" ", markup))
    for run in _RUN_WITH_AN_AT.findall(words):
        marks = [index for index, character in enumerate(run) if character in _PUNCTUATION]
        starts, ends = [0, *(index + 1 for index in marks)], [*marks, len(run)]
        if len(starts) * len(ends) > _MOST_PIECES_TRIED:
            return True
        if any(linkable(run[start:end]) for start in starts for end in ends if "@" in run[start:end]):
            return True
    return False


def _every_tag_start_in_code(text: str, markup: str) -> bool:
    """Whether each `<` of the text that may start HTML or an autolink (not backslash-escaped) stands in
    code, where both parsers show it as text: code keeps its source as it is, so there each stands as a
    `&lt;` with as many backslashes before it."""
    in_code = sum(len(_UNESCAPED_TAG_START_SHOWN.findall(code)) for code in _CODE_CONTENT.findall(markup))
    return len(_UNESCAPED_TAG_START.findall(text)) == in_code


def _lines(text: str) -> list[bytes]:
    """The text's lines, as cmark-gfm counts lines and byte columns in its source positions."""
    return _LINE_BREAK.split(text.replace("\0", "\ufffd").encode("utf-8"))


def _emphasis_accounted_for(text: str, markup: str) -> bool:
    """Whether every `*` and `_` of the text is in cmark-gfm's HTML, or was taken by emphasis (one at each
    end of `<em>`, two of `<strong>`), a list item's bullet or a thematic break. cmark-gfm drops strong
    emphasis inside strong emphasis (`**a **b** c**` is one `<strong>`), which markdown-it-py nests as
    CommonMark says: the marks of the inner one are then missing from the count."""
    vanished = text.count("*") + text.count("_") - markup.count("*") - markup.count("_")
    taken = 2 * markup.count("<em>") + 4 * markup.count("<strong>")
    if vanished == taken:
        return True
    lines = _lines(text)  # only here: most texts with marks are settled by the count alone
    for kind, line, column in _LIST_ITEM_OR_BREAK.findall(markup):
        source = lines[int(line) - 1] if int(line) <= len(lines) else b""
        if kind == "li":
            taken += source[int(column) - 1:int(column)] == b"*"
        else:
            taken += source.count(b"*") + source.count(b"_")
    return vanished == taken


def _code_kind(lines: list[bytes], line: int, column: int) -> str | None:
    """Whether the code block cmark-gfm says starts at this line and byte column (1-based) is fenced or
    indented (it writes both as `<pre><code>`), or None when the line leaves it open: a fence starts at its
    backticks, indented code at its first character, which may be backticks too; indented code sits
    four spaces or more inside its container, a fence at most three."""
    if line > len(lines):
        return None
    source = lines[line - 1]
    lead = source[:column - 1]
    if b"\t" in lead:
        return None
    if not _FENCE_START.match(source, column - 1):
        return "indented"
    return None if lead.endswith(b"    ") else "fenced"


def _closed_at_the_end(lines: list[bytes], line: int, column: int) -> bool:
    """Whether a fence that runs to the text's last line is closed there. Left open, markdown-it-py's code
    ends without the line break cmark-gfm gives it, where the text ends without one; so a fence counts as
    closed only when it is not inside a list or a quote and the last line is a closing fence of its own,
    else markdown-it-py renders it."""
    if lines[-1] == b"" or len(lines) == line:
        return lines[-1] == b""  # the text ends with a line break: the two parsers agree
    lead, opening = lines[line - 1][:column - 1], _FENCE_START.match(lines[line - 1], column - 1)
    if opening is None or lead.strip(b" ") or len(lead) > 3:
        return False
    marker = opening.group()
    closing = re.fullmatch(rb" {0,3}(%s{%d,})[ \t]*" % (re.escape(marker[:1]), len(marker)), lines[-1])
    return closing is not None


def _task_items(markup: str, lines: list[bytes], boxes: int) -> str | None:
    """cmark-gfm's HTML with the task list items markdown-it-py's tasklists plugin makes (`label=True`): an
    item whose first paragraph starts with `[ ]`, `[x]` or `[X]` and a space gets a class, its paragraph's
    text a label that holds a disabled checkbox in the box's place, and the list around it a class. None
    unless each of the `boxes` lines that may start a task item (`_TASK_ITEM`) does: the box cmark-gfm
    shows must be the source's own (not `\\[ ]` or `&#91; ]`), and a space must follow it in both."""
    items = [item for item in _BOXED_ITEM.finditer(markup) if _box_in_source(lines, item)]
    if len(items) != boxes:
        return None
    pieces: list[str] = []
    position = 0
    for item in items:
        end = _LOOSE_TEXT_END.search(markup, item.end()) if item.group(3) else _TIGHT_TEXT_END.search(markup, item.end())
        if end is None:
            return None
        text_end = end.start()
        checked = ' checked="checked"' if item.group(5) != " " else ""
        pieces += [markup[position:item.start()], '<li class="task-list-item"', markup[item.start() + 3:item.start(5) - 1],
                   f'<label><input class="task-list-item-checkbox"{checked} disabled="disabled" type="checkbox">',
                   markup[item.end() - 1:text_end], "</label>"]
        position = text_end
    pieces.append(markup[position:])
    boxed = "".join(pieces)
    # Each task item's list (the nearest list that holds it) gets the class too.
    lists: list[int] = []
    marked: set[int] = set()
    for tag in _LIST_TAG.finditer(boxed):
        if tag.group(2) != "li":
            if tag.group(1):
                del lists[-1:]
            else:
                lists.append(tag.start())
        elif tag.group(3) and lists:
            marked.add(lists[-1])
    if not marked:
        return None
    pieces, position = [], 0
    for start in sorted(marked):
        opening = boxed.index(" data-sourcepos=", start)
        pieces += [boxed[position:opening], ' class="contains-task-list"']
        position = opening
    pieces.append(boxed[position:])
    return "".join(pieces)


def _box_in_source(lines: list[bytes], item: re.Match[str]) -> bool:
    """Whether the source holds a box and a space where the item's first paragraph starts: where its
    <p> starts, or in a tight item (no <p>), after the item's marker."""
    tight = item.group(3) is None
    line, column = (int(item.group(1)), int(item.group(2))) if tight else (int(item.group(3)), int(item.group(4)))
    if line > len(lines):
        return False
    return (_MARKER_AND_BOX if tight else _BOX).match(lines[line - 1], column - 1) is not None


def _too_deep(markup: str) -> bool:
    """Whether blocks or emphasis nest anywhere near `MAX_NESTING` deep, where markdown-it-py stops
    (each of these tags is a level of its, and a paragraph and its inline content two more)."""
    depth = deepest = 0
    for tag in _NESTED_TAG.finditer(markup):
        depth += -1 if tag.group(1) else 1
        deepest = max(deepest, depth)
    return deepest >= MAX_NESTING // 2
