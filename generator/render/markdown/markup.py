"""The HTML of our own around transcript parts, from the theme's templates: every kind of part has one
(`events/message.html`, `events/prompt.html`, `events/thinking.html`, `events/plan.html`, `events/meta.html`
for the line above a message, … `tools/_default.html` for a folded tool call).

A render rule is looked up from the most specific template to the generic, in the theme's search path
(user theme -> parent -> default): a Bash call is drawn by `tools/Bash.html` if a theme has one, else by
`tools/_default.html`; a notice by `events/notice-<kind>.html`, else `events/notice.html`. A theme restyles
one tool by adding one template.

A rule that wraps other blocks (a tool call's body) marks where they go with `{{ body }}`: what comes before
is the group's opening tags, what comes after its closing tags, so the block model, and every writer over it
(pages, bundle, search), keeps working. This HTML is the page's alone: the .md says the same in plain
Markdown (`gfm`), whatever the theme.

Every value a template prints is escaped as `escape.html_text` does (line breaks included, which would end
the HTML block in the page's Markdown, `blocks.themed_markdown_of`), except our own `Markup`: transcript text
can neither break the structure nor run.

Every message, prompt, tool call and line of facts goes through a rule, tens of thousands in an archive, and
a Jinja2 render costs some 20 µs: a rule is rendered once per *shape* (`stamp`) and its text reused. A
call's free text (an anchor, a time, a path: `values`) goes into the template as a placeholder, which the
value, escaped, replaces; the few-valued rest (`shape`: a label, a status, whether the call is hidden) is
the key of the rendering kept. So a template may test whether a value is empty and must print it as it is
(a filter that changes a placeholder is an error). A template that reads the event itself (`objects`:
`call`, `notice`, for a theme that shows a field of its own) is rendered for every call instead.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Hashable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...core.errors import ThemeError
from ..theme import Theme
from .escape import html_text

if TYPE_CHECKING:
    import jinja2

STRUCTURAL_HTML = re.compile(
    r'^(?:</(?:div|details)>|<(?:div|details|p) class="[A-Za-z0-9 _-]+"(?: id="[A-Za-z0-9_-]+")?(?: open)?>)'
)
"""How each HTML block of ours opens: a closing </div> or </details>, or a <div>, <details> or <p> with a
class (and perhaps an id, or open). The HTML writer shows any other HTML block as text (it is the
transcript's), so a template's markup must open so too."""
log = logging.getLogger("sessionsite")
# A name from the transcript picks a template file only when it cannot name anything else.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")
_BODY = "\x00body\x00"
# A placeholder survives escaping and no transcript text holds it: transcript text is in no template.
_PLACEHOLDER_START, _PLACEHOLDER_END = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{_PLACEHOLDER_START}([a-z_]+){_PLACEHOLDER_END}")
_MOST_SHAPES_KEPT = 4096
"""Renderings kept, at most (a theme that puts a value in `shape` by mistake cannot grow memory)."""


class TranscriptMarkup:
    """Render rules keyed by event type and tool name, backed by a theme's templates."""

    def __init__(self, theme: Theme):
        self.environment = theme.environment()
        # Runs before autoescape: every printed value is escaped our way, and marked safe for jinja.
        self.environment.finalize = _escaped
        self.environment.globals["permalink"] = permalink
        self._templates: dict[tuple[str, ...], jinja2.Template] = {}
        self._stamps: dict[Hashable, tuple[tuple[tuple[bool, str], ...], ...]] = {}
        self._names: dict[str, frozenset[str]] = {}
        self._warned: set[str | None] = set()

    def template(self, *names: str) -> "jinja2.Template":
        """The first of these templates the theme has."""
        found = self._templates.get(names)
        if found is None:
            found = self._templates[names] = self.environment.select_template(list(names))
        return found

    def rule(self, folder: str, name: str, generic: str) -> "jinja2.Template":
        specific = f"{folder}/{name}.html" if _SAFE_NAME.fullmatch(name) else None
        return self.template(*([specific] if specific else []), f"{folder}/{generic}.html")

    def element(self, template: "jinja2.Template", **context: Any) -> str:
        """A whole element of ours (one Structure block)."""
        return _one_block(template, template.render(**context).rstrip("\n"))

    def wrapper(self, template: "jinja2.Template", **context: Any) -> tuple[str, str]:
        """The opening and closing tags of a group, around `{{ body }}`."""
        import markupsafe

        rendered = template.render(body=markupsafe.Markup(_BODY), **context)  # noqa: S704 - our marker
        return self._split_at_body(template, rendered)

    def _split_at_body(self, template: "jinja2.Template", rendered: str) -> tuple[str, str]:
        if rendered.count(_BODY) != 1:
            raise ThemeError(f"{template.filename}: must print {{{{ body }}}} exactly once")
        opening, closing = rendered.split(_BODY)
        return _one_block(template, opening.rstrip("\n")), _one_block(template, closing.strip("\n"))

    def stamp(self, template: "jinja2.Template", values: Mapping[str, str], objects: Mapping[str, Any] | None = None,
              **shape: Hashable) -> str:
        """A whole element of ours, the template rendered once per shape (see the module docstring)."""
        return self._stamped(template, False, values, objects or {}, shape)[0]

    def stamp_wrapper(self, template: "jinja2.Template", values: Mapping[str, str],
                      objects: Mapping[str, Any] | None = None, **shape: Hashable) -> tuple[str, str]:
        """A group's opening and closing tags, around `{{ body }}`, rendered once per shape."""
        return self._stamped(template, True, values, objects or {}, shape)

    def event(self, kind: str, values: Mapping[str, str], **shape: Hashable) -> str:
        """A part's element from its template, `events/<kind>.html` (see `stamp`)."""
        return self.stamp(self.template(f"events/{kind}.html"), values, None, **shape)

    def event_wrapper(self, kind: str, values: Mapping[str, str], **shape: Hashable) -> tuple[str, str]:
        """A part's opening and closing tags from its template, `events/<kind>.html` (see `stamp_wrapper`)."""
        return self.stamp_wrapper(self.template(f"events/{kind}.html"), values, None, **shape)

    def _stamped(self, template: "jinja2.Template", wraps: bool, values: Mapping[str, str],
                 objects: Mapping[str, Any], shape: dict[str, Hashable]) -> tuple[str, str]:
        import markupsafe

        used = self._names_used(template) if objects else frozenset()
        if "*" in used or not used.isdisjoint(objects):
            context = {**shape, **values, **objects}
            if wraps:
                return self.wrapper(template, **context)
            return self.element(template, **context), ""
        key = (template.name, wraps, tuple(shape.items()), tuple([(name, not value) for name, value in values.items()]))
        pieces = self._stamps.get(key)
        if pieces is None:
            placeholders = {name: f"{_PLACEHOLDER_START}{name}{_PLACEHOLDER_END}" if value else ""
                            for name, value in values.items()}
            context = {**shape, **placeholders, **{name: None for name in objects}}
            if wraps:
                halves = self._split_at_body(template, template.render(body=markupsafe.Markup(_BODY), **context))  # noqa: S704 - our marker
            else:
                halves = (self.element(template, **context), "")
            # A placeholder a filter changed is printed neutralised (as transcript text holding our markers
            # would be): with no such text in the shape, finding one means the template changed a value.
            from_transcript = any(isinstance(value, str) and (_PLACEHOLDER_START in value or _PLACEHOLDER_END in value)
                                  for value in shape.values())
            if not from_transcript and any(_NEUTRALISED_START in half or _NEUTRALISED_END in half for half in halves):
                raise ThemeError(f"{template.filename}: a filter changed a value it prints (print it as it is)")
            pieces = tuple(self._pieces(template, half) for half in halves)
            for half in pieces:
                # Values in place as an anchor would be: the template's own markup is what is checked. A
                # warning, not an error: a shape value in the opening tag (a tool's name in a class, say)
                # may be what breaks it, and no transcript may fail a build.
                probe = "".join("x" if odd else piece for odd, piece in half)
                if probe and not STRUCTURAL_HTML.match(probe) and template.filename not in self._warned:
                    self._warned.add(template.filename)
                    log.warning("%s: its HTML must open with <div class=\"…\">, <details class=\"…\"> or "
                                "<p class=\"…\"> (perhaps with an id, and open on <details>), or close a div or "
                                "details; it opens with %r, which the page shows as text", template.filename,
                                probe[:40])
            if len(self._stamps) >= _MOST_SHAPES_KEPT:
                self._stamps.clear()
            self._stamps[key] = pieces
        escaped = {name: _neutral_text(value) for name, value in values.items()}
        opening, closing = ["".join([escaped[piece] if odd else piece for odd, piece in half]) for half in pieces]
        return opening, closing

    @staticmethod
    def _pieces(template: "jinja2.Template", rendered: str) -> tuple[tuple[bool, str], ...]:
        """The rendering cut at its placeholders: (False, text of the template), (True, a value's name)."""
        parts = _PLACEHOLDER.split(rendered)
        if any(_PLACEHOLDER_START in part or _PLACEHOLDER_END in part for part in parts[::2]):
            raise ThemeError(f"{template.filename}: a filter changed a value it prints (print it as it is)")
        return tuple((bool(number % 2), part) for number, part in enumerate(parts) if part)

    def _names_used(self, template: "jinja2.Template") -> frozenset[str]:
        """The variables a template reads, its parents' and includes' too."""
        name = template.name or ""
        found = self._names.get(name)
        if found is None:
            from jinja2 import meta

            names: set[str] = set()
            pending, seen = [name], set()
            while pending:
                current = pending.pop()
                if current in seen:
                    continue
                seen.add(current)
                assert self.environment.loader is not None
                source = self.environment.loader.get_source(self.environment, current)[0]
                tree = self.environment.parse(source)
                names |= meta.find_undeclared_variables(tree)
                for referenced in meta.find_referenced_templates(tree):
                    if referenced is None:  # a name made while rendering: any variable may be read
                        names.add("*")
                    else:
                        pending.append(referenced)
            found = self._names[name] = frozenset(names)
        return found


def _one_block(template: "jinja2.Template", html: str) -> str:
    # A blank line would end the HTML block in Markdown and spill the rest into paragraphs.
    if "\n\n" in html or not html.strip():
        raise ThemeError(f"{template.filename}: the HTML around a transcript part must have no blank line")
    return html


_NEUTRALISED_START, _NEUTRALISED_END = f"&#{ord(_PLACEHOLDER_START)};", f"&#{ord(_PLACEHOLDER_END)};"
_NEUTRALISED_MARKERS = str.maketrans({"\x00": "\ufffd", _PLACEHOLDER_START: _NEUTRALISED_START,
                                      _PLACEHOLDER_END: _NEUTRALISED_END})
"""Our markers in text: NUL as a browser shows it, the placeholders' characters as references to
themselves, so that no text (a tool's name, a value) can be taken for a body or a placeholder."""


_CHANGED_BY_NEUTRAL_TEXT = re.compile(f"[&<>\"'\r\n\x00{_PLACEHOLDER_START}{_PLACEHOLDER_END}]")
"""What `html_text` escapes, and our markers: a value without any is printed as it is."""


def _neutral_text(value: str) -> str:
    """A value as our markup prints it: escaped, our markers neutralised."""
    if not _CHANGED_BY_NEUTRAL_TEXT.search(value):
        return value
    return html_text(value).translate(_NEUTRALISED_MARKERS)


def _text(value: str) -> str:
    """`_neutral_text`, except for our own placeholders, which pass as they are (while a shape is rendered)."""
    if _PLACEHOLDER_START in value and _PLACEHOLDER.fullmatch(value):
        return value
    return _neutral_text(value)


def _escaped(value: Any) -> Any:
    import markupsafe

    if isinstance(value, markupsafe.Markup) or value is None:
        return value
    return markupsafe.Markup(_text(str(value)))  # noqa: S704 - escaped just now


def permalink(anchor: str) -> Any:
    """A small link to this very message; anchors come from entry uuids, so they survive rebuilds."""
    import markupsafe

    return markupsafe.Markup(f'<a class="permalink" href="#{_text(anchor)}" title="Link to this" '  # noqa: S704 - escaped
                             f'aria-label="Link to this">#</a>')


@lru_cache(maxsize=1)
def default_markup() -> TranscriptMarkup:
    """The built-in theme's rules, for a document made without a theme of its own."""
    return TranscriptMarkup(Theme.load())
