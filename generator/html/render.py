"""Markdown -> safe HTML: markdown-it-py, Pygments for code, nh3 for the final allowlist.

Three walls keep transcript content from becoming markup, each enough on its own for the common case:
the markdown stage escapes transcript text; the renderer here outputs raw HTML only when it is one of
the structural elements the markdown stage writes; and nh3 sanitises the result against an allowlist.
"""

from __future__ import annotations

import html
import re
import secrets
from functools import lru_cache
from typing import Callable, Sequence

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

from . import quick_highlight

# Past this size a block is shown plain: highlighting megabytes of log output helps no reader.
HIGHLIGHT_LIMIT = 200_000
# Past this size a block is highlighted by `quick_highlight` (comments, strings, numbers, keywords) rather
# than by Pygments' full lexers, which take about a second a megabyte (measured on benchmarks/ archives).
PYGMENTS_LIMIT = 1500
# The HTML blocks the markdown stage writes open with exactly one of these: a closing </div> or
# </details>, or a <div>, <details> or <p> with a class (and perhaps an id, or open).
_STRUCTURAL_HTML = re.compile(
    r'^(?:</(?:div|details)>|<(?:div|details|p) class="[A-Za-z0-9 _-]+"(?: id="[A-Za-z0-9_-]+")?(?: open)?>)'
)
_TASK_CHECKBOX = re.compile(
    r'^<input class="task-list-item-checkbox"(?: checked="checked")? disabled="disabled" type="checkbox">$'
)
_START_LINE = re.compile(r"(?:^|\s)startline=(\d+)")

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "input", "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "th", "thead", "time", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "*": {"class", "id"},
    "a": {"href", "title", "aria-label"},
    "img": {"src", "alt", "title", "loading"},
    "time": {"datetime"},
    "details": {"open"},
    "td": {"style"},
    "th": {"style"},
    "input": {"type", "checked", "disabled"},
    "ol": {"start"},
}


_FORMATTER = HtmlFormatter(nowrap=True)


@lru_cache(maxsize=256)
def _lexer(language: str):
    try:
        # stripnl off: a file's leading blank lines are lines too, and shift every number after them.
        return get_lexer_by_name(language, stripnl=False) if language else TextLexer()
    except ClassNotFound:
        return TextLexer()


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
        tokens = html.escape(code, quote=False) if isinstance(lexer, TextLexer) else pygments_highlight(
            code, lexer, _FORMATTER
        )
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
        content = tokens[idx].content
        if _STRUCTURAL_HTML.match(content):
            return content
        return f"<p>{html.escape(content)}</p>\n"

    def html_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        content = tokens[idx].content
        if _TASK_CHECKBOX.match(content):  # written by the tasklists plugin, not by the transcript
            return content
        return html.escape(content)


Resolver = Callable[[str], "str | None"]


def _links_inside_the_archive(state) -> None:
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
    parser.linkify.set({"fuzzy_link": False})
    # linkify-it's "quick" pretest is one large case-insensitive pattern run on every paragraph, and it
    # was a tenth of a build. Without fuzzy links, a link it can find holds "//" (after a scheme, or
    # protocol-relative), an "@" (an email, mailto:) or "www.", so other text is passed over unasked.
    full_pretest = parser.linkify.pretest
    parser.linkify.pretest = lambda text: ("//" in text or "@" in text or "www." in text.lower()) and full_pretest(text)
    parser.use(tasklists_plugin)
    parser.core.ruler.push("sessionsite_links", _links_inside_the_archive)
    return parser


def sanitize(markup: str, resolve: Resolver | None = None) -> str:
    def keep_links_inside(element: str, attribute: str, value: str) -> str | None:
        # Our own HTML (context lines, saved outputs) links by .md path too; the same resolver applies.
        if resolve is not None and (element, attribute) in (("a", "href"), ("img", "src")):
            return resolve(value)
        return value

    return nh3.clean(
        markup,
        attribute_filter=keep_links_inside,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        filter_style_properties={"text-align"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def render_markdown(text: str, resolve: Resolver | None = None) -> str:
    """Our Markdown (with its transcript content already escaped) -> sanitised HTML. With a resolver,
    relative links are pointed at the right page of the archive, or shown as text when they lead outside."""
    # The placeholder carries a secret a transcript cannot guess, so text can never take a block's place.
    placeholder = f"{_PLACEHOLDER_START}{secrets.token_hex(8)}:"
    blocks: list[str] = []
    markup = sanitize(markdown_parser().render(text, {"resolve": resolve, "code_blocks": blocks,
                                                     "placeholder": placeholder}), resolve)
    if not blocks:
        return markup
    pattern = re.compile(f"<p>{re.escape(placeholder)}(\\d+){_PLACEHOLDER_END}</p>")
    restored = pattern.sub(lambda found: blocks[int(found.group(1))], markup)
    if placeholder in restored:
        raise AssertionError("a code block's placeholder did not survive sanitising")
    return restored


# Private-use characters: text no transcript shows, which the sanitiser keeps as it is.
_PLACEHOLDER_START = "\ue000sessionsite-code-"
_PLACEHOLDER_END = "\ue001"


def pygments_css() -> str:
    """Light and dark code colours; dark follows the system unless the reader picked a theme."""
    def rules(style: str, selector: str) -> str:
        # Token colours only: the theme's CSS owns the layout of code blocks and line numbers.
        formatter = HtmlFormatter(style=style)
        background = formatter.style.background_color
        return f"{selector} {{ background: {background}; }}\n" + "\n".join(formatter.get_token_style_defs(selector))

    light = rules("friendly", ".highlight")
    forced_dark = rules("github-dark", ':root[data-theme="dark"] .highlight')
    system_dark = rules("github-dark", ':root:not([data-theme="light"]) .highlight')
    return (
        "/* Generated from Pygments styles: friendly (light) and github-dark (dark). */\n"
        f"{light}\n{forced_dark}\n@media (prefers-color-scheme: dark) {{\n{system_dark}\n}}\n"
    )
