"""Markdown -> safe HTML: markdown-it-py (and cmark-gfm where it writes the same bytes, `fast_prose`),
Pygments for code, nh3 for the final allowlist.

Three walls keep transcript content from becoming markup, each enough on its own for the common case:
the markdown stage escapes transcript text; the renderer here outputs raw HTML only when it is one of
the structural elements the markdown stage writes; and nh3 sanitises the result against an allowlist.
"""

from __future__ import annotations

import html
import logging
import re
import secrets
import sys
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Sequence
from urllib.parse import unquote

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.lexers.diff import DiffLexer
from pygments.lexers.special import TextLexer
from pygments.token import STANDARD_TYPES, Generic, Whitespace
from pygments.util import ClassNotFound

from ..markdown.blocks import Block, Code, Group, Prose, Structure
from ..markdown.escape import code_info
from ..markdown.markup import STRUCTURAL_HTML
from ..theme import CodeColours
from . import fast_prose, quick_highlight

# Past this size a block is shown plain: highlighting megabytes of log output helps no reader.
HIGHLIGHT_LIMIT = 200_000
# Past this size a block is highlighted by `quick_highlight` (comments, strings, numbers, keywords) rather
# than by Pygments' full lexers, which take about a second a megabyte (measured on benchmarks/ archives).
PYGMENTS_LIMIT = 1500
# The tasklists plugin's checkbox, and the bare <label> around it and its text that gives it a name.
_TASK_CHECKBOX = re.compile(
    r'^(?:<input class="task-list-item-checkbox"(?: checked="checked")? disabled="disabled" type="checkbox">'
    r'|</?label>)$'
)
_START_LINE = re.compile(r"(?:^|\s)startline=(\d{1,12})(?!\d)")
"""A code block's first line number, from its fence's info string (ours, for a file's lines; or typed in a
reply): a longer number is no line number, and Python would refuse to read one of thousands of digits."""

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "input", "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "th", "thead", "time", "tr", "ul",
    # A task list's checkbox sits in a <label> with its text, so that it has a name (no attributes).
    "label",
}
ALLOWED_ATTRIBUTES = {
    "*": {"class", "id"},
    "a": {"href", "title", "aria-label"},
    "img": {"src", "alt", "title", "loading"},
    "time": {"datetime"},
    "details": {"open"},
    "input": {"type", "checked", "disabled"},
    "ol": {"start"},
}


_FORMATTER = HtmlFormatter(nowrap=True)


@lru_cache(maxsize=256)
def _lexer(language: str) -> Lexer:
    try:
        # stripnl off: a file's leading blank lines are lines too, and shift every number after them.
        return get_lexer_by_name(language, stripnl=False) if language else TextLexer()
    except ClassNotFound:
        return TextLexer()


COMMON_LANGUAGES = ("bash", "diff", "json", "markdown", "python", "typescript", "javascript")
"""The languages most sessions show (shell commands, edits, tool output, files): their lexers are made before
the build's workers are forked (`warm_up_highlighting`)."""


def warm_up_highlighting(languages: Iterable[str] = ()) -> None:
    """What each worker would otherwise make for itself on its first pages, made once in the process they are
    forked from: the common lexers and those of `languages` (Pygments compiles a lexer's patterns when it is
    first made) and linkify-it's patterns (compiled on its first link; last, since `re` forgets the patterns
    it compiled longest ago)."""
    for language in dict.fromkeys((*COMMON_LANGUAGES, *languages)):
        _lexer(language)
    # Each kind of link (with a scheme, schema-relative, an address, mailto:) and each way of looking for one
    # compiles patterns of its own.
    linkify = markdown_parser().linkify
    assert linkify is not None  # markdown_parser() has it
    links = "https://example.com/ //example.com/ user@example.com mailto:user@example.com"
    linkify.test(links)
    linkify.pretest(links)
    linkify.match(links)
    linkify.match_at_start("https://example.com/")


def highlight(code: str, language: str, attributes: str) -> str:
    # The same file is read again and again over an archive's sessions: its highlighting is kept.
    if len(code) <= _REMEMBERED_SIZE:
        return _remembered_highlight(code, language, attributes)
    return _highlight(code, language, attributes)


_REMEMBERED_SIZE = 20_000


@lru_cache(maxsize=512)
def _remembered_highlight(code: str, language: str, attributes: str) -> str:
    return _highlight(code, language, attributes)


def _highlight(code: str, language: str, attributes: str) -> str:
    start = _START_LINE.search(attributes or "")
    if len(code) > HIGHLIGHT_LIMIT:
        return f'<pre class="highlight plain"><code>{html.escape(code)}</code></pre>'
    language = language.lower()
    if len(code) > PYGMENTS_LIMIT and quick_highlight.supports(language):
        tokens = quick_highlight.quick_highlight(code, language)
    else:
        lexer = _lexer(language)
        # Plain text (most tool output) needs no lexing: escaping it gives the same markup, much faster.
        if isinstance(lexer, TextLexer):
            tokens = html.escape(code, quote=False)
        elif type(lexer) is DiffLexer:
            tokens = _diff_markup(code)
        else:
            tokens = pygments_highlight(code, lexer, _FORMATTER)
    if start:
        first = int(start.group(1))
        lines = tokens.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        tokens = "".join(
            f'<span class="linenos">{number}</span>{line}\n' for number, line in enumerate(lines, start=first)
        )
    # markdown-it uses the highlighter's output as is only when it starts with <pre.
    language_class = f" language-{html.escape(language)}" if language else ""
    return f'<pre class="highlight{language_class}"><code>{tokens}</code></pre>'





def _pygments_escaped(text: str) -> str:
    """Text escaped as Pygments' HTML formatter escapes a token (`&` first, so no reference is escaped again;
    str.translate does the same, but slowly on text beyond ASCII)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#39;"))

_DIFF_LINE = re.compile(
    # Pygments' DiffLexer's rules, in its order (a line is the first rule's that matches it), one group each, read
    # on the text escaped as Pygments' formatter escapes it: only the rules for `< ` and `> ` look for a character
    # that escaping changes, and an escaped `&lt; ` or `&gt; ` at a line's start can only be one of those.
    r"( )(.*)\n|(!.*|---)\n|((?:&lt; |-).*)\n|((?:&gt; |\+).*)\n|(@.*|\d(?:,\d+)?(?:a|c|d)\d+(?:,\d+)?)\n"
    r"|((?:[Ii]ndex|diff).*)\n|(=.*)\n|(.*)\n"
)


@lru_cache(maxsize=1)
def _diff_line_markup() -> tuple[str, ...]:
    """For each group of `_DIFF_LINE`, its line as Pygments' formatter writes it: in a span of the class of the
    rule's token type (none for plain text; a context line's leading space in a whitespace span)."""
    def opening(token_type: Any) -> str:
        # Each of these types is one of Pygments' standard ones, whose class is its short name (no prefix is set).
        return f'<span class="{STANDARD_TYPES[token_type]}">'

    def spanned(token_type: Any) -> str:
        return opening(token_type) + "{}</span>\n"

    return ("", "", opening(Whitespace) + " </span>{}\n", spanned(Generic.Strong), spanned(Generic.Deleted),
            spanned(Generic.Inserted), spanned(Generic.Subheading), spanned(Generic.Heading),
            spanned(Generic.Heading), "{}\n")


def _diff_markup(code: str) -> str:
    """What Pygments writes for a diff (`pygments.highlight(code, DiffLexer(), _FORMATTER)`), a line at a time:
    each of the diff lexer's rules takes a whole line, so one regular expression finds the lines and their
    classes, without Pygments' generators of tokens. tests/test_highlight.py holds it to Pygments' output."""
    # As Pygments' lexer reads its input: no byte-order mark, line breaks as \n, one at the end.
    if code.startswith("\ufeff"):
        code = code[1:]
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    if not code.endswith("\n"):
        code += "\n"
    formats = _diff_line_markup()
    return "".join([formats[line.lastindex or 0].format(line.group(line.lastindex or 0))
                    for line in _DIFF_LINE.finditer(_pygments_escaped(code))])


class _GuardedRenderer(RendererHTML):
    """Raw HTML passes only if it is one of our structural tags; anything else is shown as text.

    Code blocks are most of a page, and `highlight` makes them from escaped text alone, so they need no
    sanitising: each is set aside under a placeholder that the sanitiser passes as text, and put back
    after (`render_markdown`)."""

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        markup = super().fence(tokens, idx, options, env)
        blocks = env.get("code_blocks") if isinstance(env, dict) else None
        if blocks is None or not markup.startswith('<pre class="highlight'):
            return markup
        blocks.append(markup)
        return f'<p>{env["placeholder"]}{len(blocks) - 1}{_PLACEHOLDER_END}</p>\n'

    def html_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return _guarded_html(tokens[idx].content)

    def html_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        content = tokens[idx].content
        if _TASK_CHECKBOX.match(content):  # written by the tasklists plugin, not by the transcript
            return content
        return html.escape(content)


def _guarded_html(content: str) -> str:
    # Ours opens so (markup.STRUCTURAL_HTML, which the theme's templates are held to); any other HTML
    # block is the transcript's, and shown as text.
    if STRUCTURAL_HTML.match(content):
        return content
    return f"<p>{html.escape(content)}</p>\n"


Resolver = Callable[[str], "str | None"]

# What the URL parser drops before reading a URL: C0 controls and spaces around it, tabs and line breaks
# anywhere in it. It reads a backslash as a slash, so `/\\host/x` names another host as `//host/x` does.
_URL_PADDING = "".join(map(chr, range(0x21)))
_URL_IGNORED = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_TABLE_ALIGNMENT = re.compile(r"text-align:(left|center|right)")


def is_local_resource(url: str) -> bool:
    """Whether a page loading `url` (an image's source) stays on the site: a path relative to the page or to
    the site, or a data: URI; not a URL with a scheme or a host, as a browser would read it, percent-encoded
    or not."""
    for form in (url, unquote(url)):
        cleaned = _URL_IGNORED.sub("", form.strip(_URL_PADDING)).replace("\\", "/")
        scheme = _SCHEME.match(cleaned)
        if cleaned.startswith("//") or scheme and scheme.group().lower() != "data:":
            return False
    return True


def _remote_images_as_links(state: StateCore) -> None:
    """A transcript's image of another host is a link to it, its text the image's (or, with none, the URL):
    a reader's browser asks no host a transcript picked for anything. Inside a link, where a link cannot
    go, the image is its text."""
    for token in state.tokens:
        if not token.children or not any(child.type == "image" for child in token.children):
            continue
        children: list[Token] = []
        in_link = 0
        for child in token.children:
            in_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            source = str(child.attrGet("src") or "")
            if child.type != "image" or is_local_resource(source):
                children.append(child)
                continue
            label = list(child.children or [])
            if not label or not "".join(part.content for part in label).strip():
                shown = Token("text", "", 0)
                shown.content = state.md.normalizeLinkText(source)
                label = [shown]
            if in_link:
                children.extend(label)
                continue
            opening, closing = Token("link_open", "a", 1), Token("link_close", "a", -1)
            opening.attrSet("href", source)
            if child.attrGet("title"):
                opening.attrSet("title", str(child.attrGet("title")))
            children.extend([opening, *label, closing])
        token.children = children


def _alignment_as_class(state: StateCore) -> None:
    """A table column's alignment as a class, `align-right`: the pages' policy allows no style attribute."""
    for token in state.tokens:
        if token.type in ("th_open", "td_open") and "style" in token.attrs:
            alignment = _TABLE_ALIGNMENT.fullmatch(str(token.attrs.pop("style")))
            if alignment:
                token.attrSet("class", f"align-{alignment.group(1)}")


def _links_inside_the_archive(state: StateCore) -> None:
    """A relative link either points at something in the archive (another session, a saved output, an
    image), which the resolver rewrites to the right page, or into the user's working tree, which is not
    in the archive: that one is shown as the path it is instead of a broken link."""
    resolve: Resolver | None = state.env.get("resolve") if isinstance(state.env, dict) else None
    if resolve is None:
        return
    for token in state.tokens:
        children = token.children or []
        for index, child in enumerate(children):
            if child.type != "link_open":
                continue
            href = str(child.attrGet("href") or "")
            if resolve(href) is not None:
                continue  # sanitize() rewrites it, together with the links in our own HTML
            close = next(i for i in range(index + 1, len(children)) if children[i].type == "link_close"
                         and children[i].level == child.level)
            label = "".join(c.content for c in children[index + 1 : close] if c.type in ("text", "code_inline"))
            child.type, child.tag, child.nesting, child.attrs = "text", "", 0, {}
            child.content = ""
            closing = children[close]
            closing.type, closing.tag, closing.nesting = "text", "", 0
            closing.content = "" if label.strip() == href else f" ({href})"


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    parser = MarkdownIt("gfm-like", {"html": True, "linkify": True, "highlight": highlight},
                        renderer_cls=_GuardedRenderer)
    # Only links with a scheme or www.: fuzzy matching would turn file names like CLAUDE.md into links.
    linkify = parser.linkify
    assert linkify is not None  # the "linkify" option needs linkify-it-py, one of our dependencies
    linkify.set({"fuzzy_link": False})
    # linkify-it's "quick" pretest is one large case-insensitive pattern run on every paragraph, and it
    # was a tenth of a build. Without fuzzy links, a link it can find holds "//" (after a scheme, or
    # protocol-relative), an "@" (an email, mailto:) or "www.", so other text is passed over unasked.
    full_pretest = linkify.pretest
    linkify.pretest = lambda text: ("//" in text or "@" in text or "www." in text.lower()) and full_pretest(text)
    parser.use(tasklists_plugin, label=True)
    parser.core.ruler.push("sessionsite_remote_images", _remote_images_as_links)
    parser.core.ruler.push("sessionsite_alignment", _alignment_as_class)
    parser.core.ruler.push("sessionsite_links", _links_inside_the_archive)
    return parser


def sanitize(markup: str, resolve: Resolver | None = None, rename_id: Callable[[str], str] | None = None) -> str:
    """`rename_id`: the id an element gets in place of its own (the bundle keeps ids unique across the
    sessions it holds, and its resolver points links at the new ones)."""
    def keep_links_inside(element: str, attribute: str, value: str) -> str | None:
        # Called for every attribute of a page (a hundred thousand on a large archive): most leave at once.
        if attribute == "id":
            return value if rename_id is None else rename_id(value)
        if attribute != "href" and attribute != "src":
            return value
        # Our own HTML (context lines, saved outputs) links by .md path too; the same resolver applies.
        if resolve is not None and (element, attribute) in (("a", "href"), ("img", "src")):
            resolved = resolve(value)
            if resolved is None or element == "a":
                return resolved
            value = resolved
        if element == "img" and attribute == "src" and not is_local_resource(value):
            return None  # whatever made it, a page loads no image from another host
        return value

    # nh3 does not pass on an exception raised in the attribute callback: it hands it to
    # sys.unraisablehook, drops the attribute and goes on. Ctrl-C or SIGTERM lands there whenever the
    # signal comes while nh3 runs (Python acts on signals only while Python code runs, and that is the
    # callback), so the callback's exceptions are kept here and raised when nh3 returns: an interrupted
    # build stops instead of writing a damaged page.
    raised: list[BaseException] = []
    previous_hook = sys.unraisablehook

    def keep_callback_errors(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.object, tuple) and len(unraisable.object) == 3 and unraisable.exc_value is not None:
            raised.append(unraisable.exc_value)  # nh3 reports the callback's arguments as the object
        else:
            previous_hook(unraisable)

    sys.unraisablehook = keep_callback_errors
    try:
        cleaned = nh3.clean(
            markup,
            attribute_filter=keep_links_inside,
            tags=ALLOWED_TAGS,
            attributes=ALLOWED_ATTRIBUTES,
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer nofollow",
            strip_comments=True,
        )
    finally:
        sys.unraisablehook = previous_hook
    if raised:
        raise raised[0]
    return cleaned


def render_markdown(text: str, resolve: Resolver | None = None) -> str:
    """Our Markdown (with its transcript content already escaped) -> sanitised HTML. With a resolver,
    relative links are pointed at the right page of the archive, or shown as text when they lead outside."""
    # The placeholder carries a secret a transcript cannot guess, so text can never take a block's place.
    secret = secrets.token_hex(8)
    placeholder = f"{_PLACEHOLDER_START}{secret}:"
    blocks: list[str] = []
    markup = sanitize(markdown_parser().render(text, {"resolve": resolve, "code_blocks": blocks,
                                                     "placeholder": placeholder}), resolve)
    return _restore_code(markup, secret, blocks)


def render_blocks(blocks: Sequence[Block], resolve: Resolver | None = None,
                  rename_id: Callable[[str], str] | None = None) -> str:
    """The HTML writer over the markdown stage's blocks: the same page as `render_markdown` makes of their
    Markdown, with markdown-it-py only for prose. Code, diffs and outputs go straight to the highlighter
    (which escapes them), and our own structural HTML passes the same guard as in the Markdown renderer;
    all of it is sanitised with nh3 as before, code set aside under a placeholder as before."""
    secret = secrets.token_hex(8)
    placeholder = f"{_PLACEHOLDER_START}{secret}:"
    code_blocks: list[str] = []
    env = {"resolve": resolve, "code_blocks": code_blocks, "placeholder": placeholder}
    out: list[str] = []
    prose: list[str] = []
    for block in _leaves(blocks):
        if isinstance(block, Prose):
            prose.append(block.text)
            continue
        if prose:
            # Consecutive prose is parsed as one: it is one text in the Markdown too.
            out.append(render_prose("\n\n".join(prose), env))
            prose = []
        if isinstance(block, Code):
            code, language, attributes = code_info(block.code, block.language, block.attributes)
            code_blocks.append(highlight(code, language, attributes) + "\n")
            out.append(f"<p>{placeholder}{len(code_blocks) - 1}{_PLACEHOLDER_END}</p>\n")
        else:
            # As markdown-it reads an HTML block: its lines up to the blank line after it.
            out.append(_guarded_html((block if isinstance(block, str) else block.html).rstrip("\n") + "\n"))
    if prose:
        out.append(render_prose("\n\n".join(prose), env))
    return _restore_code(sanitize("".join(out), resolve, rename_id), secret, code_blocks)


def _restore_code(markup: str, secret: str, blocks: list[str]) -> str:
    """The sanitised page with each code block back in its placeholder's paragraph."""
    if not blocks:
        return markup

    def block_of(found: re.Match[str]) -> str:
        # Another secret's placeholder is text (a transcript's), and stays as it is.
        return blocks[int(found.group(2))] if found.group(1) == secret else found.group()

    restored = _PLACEHOLDER_PARAGRAPH.sub(block_of, markup)
    if f"{_PLACEHOLDER_START}{secret}:" in restored:
        raise AssertionError("a code block's placeholder did not survive sanitising")
    return restored


def _leaves(blocks: Sequence[Block]) -> Iterator[Prose | Code | Structure | str]:
    """`blocks.leaves`, with a group's opening and closing tags as they are (no Structure made for each:
    a page has thousands)."""
    for block in blocks:
        if isinstance(block, Group):
            yield block.opening
            yield from _leaves(block.children)
            yield block.closing
        else:
            yield block


def render_prose(text: str, env: dict[str, Any]) -> str:
    """What `markdown_parser().render(text, env)` writes, through cmark-gfm where it writes the same bytes
    (`fast_prose`), which is most prose and some twenty times faster; markdown-it-py renders the rest."""
    fast = fast_prose.render(text, highlight, env["code_blocks"], env["placeholder"], _PLACEHOLDER_END, linkable,
                             env.get("resolve"))
    return fast if fast is not None else markdown_parser().render(text, env)


def linkable(text: str) -> bool:
    """Whether markdown-it's linkify finds a link in `text` (the words of a text piece, or of several
    between spaces)."""
    linkify = markdown_parser().linkify
    assert linkify is not None  # markdown_parser() has it
    return bool(linkify.test(text))


@contextmanager
def markdown_it_quiet() -> Iterator[None]:
    """markdown-it-py's block rules log a `debug` line each time one is tried (a million calls a build of a
    large archive), and the logging module's check costs a call each: its loggers are disabled while this
    lasts, and put back as they were after. Only the loggers of markdown-it-py, and only those no one has
    asked for its debug lines from (an embedding program may have)."""
    import markdown_it  # noqa: F401  (its modules name their loggers when imported)

    loggers = [logger for name, logger in list(logging.Logger.manager.loggerDict.items())
               if (name == "markdown_it" or name.startswith("markdown_it.")) and isinstance(logger, logging.Logger)
               and not logger.disabled and not logger.isEnabledFor(logging.DEBUG)]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger in loggers:
            logger.disabled = False


# Private-use characters: text no transcript shows, which the sanitiser keeps as it is.
_PLACEHOLDER_START = "\ue000sessionsite-code-"
_PLACEHOLDER_END = "\ue001"
# Any page's placeholder paragraph, compiled once (a page's own secret is checked on each match).
_PLACEHOLDER_PARAGRAPH = re.compile(f"<p>{re.escape(_PLACEHOLDER_START)}([0-9a-f]{{16}}):(\\d+){_PLACEHOLDER_END}</p>")


def pygments_css(light: CodeColours, dark: CodeColours) -> str:
    """Token colours for light and dark code, each readable on the backgrounds the theme gives code
    (`Theme.code_colours`); dark follows the system unless the reader picked a theme."""
    def rules(style: str, selector: str, on: CodeColours) -> str:
        # Token colours only: the theme's CSS owns code blocks' backgrounds (a diff's lines too) and layout.
        # Each colour is made readable on what it is shown on: a diff's added and removed lines (the only
        # text on their backgrounds: the diff lexer nests no token in them) on theirs, the rest on the block's.
        lines = []
        for line in HtmlFormatter(style=style).get_token_style_defs(selector):
            token = _token_class(line, selector)
            shown_on = {".gi": on.inserted, ".gd": on.deleted}.get(token, on.background)
            if token in (".gi", ".gd"):
                line = re.sub(r"; background-color: #[0-9a-fA-F]+", "", line)

            def readable_here(found: re.Match[str], background: str = shown_on) -> str:
                return f"color: {readable_colour(found.group(1), (background,))}"

            lines.append(re.sub(r"(?<![-\w])color: (#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})\b", readable_here, line))
        return "\n".join(lines)

    forced_dark = rules("github-dark", ':root[data-theme="dark"] .highlight', dark)
    system_dark = rules("github-dark", ':root:not([data-theme="light"]) .highlight', dark)
    return (
        "/* Generated from Pygments styles: friendly (light) and github-dark (dark). */\n"
        f"{rules('friendly', '.highlight', light)}\n{forced_dark}\n"
        f"@media (prefers-color-scheme: dark) {{\n{system_dark}\n}}\n"
    )


def _token_class(rule: str, selector: str) -> str:
    """`.gi` of `<selector> .gi { … }`; "" for a rule of another shape."""
    rest = rule[len(selector):] if rule.startswith(selector) else ""
    return rest.split("{")[0].strip()


def _luminance(colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(one: str, other: str) -> float:
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable_colour(colour: str, backgrounds: Sequence[str], ratio: float = 4.6) -> str:
    """The token colour, darkened on light backgrounds or lightened on dark ones just enough to be read on
    each of them (WCAG AA asks 4.5:1 for text); a colour that is readable already is kept as it is."""
    if len(colour) == 4:  # #abc is #aabbcc
        colour = "#" + "".join(c * 2 for c in colour[1:])
    dark_backgrounds = _luminance(backgrounds[0]) < 0.2
    target = 255 if dark_backgrounds else 0
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    for step in range(21):
        mix = step / 20
        candidate = "#{:02x}{:02x}{:02x}".format(*(round(c + (target - c) * mix) for c in (r, g, b)))
        if all(_contrast(candidate, background) >= ratio for background in backgrounds):
            return colour if step == 0 else candidate
    return candidate
