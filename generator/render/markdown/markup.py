"""The HTML of our own around transcript parts (a folded tool call, a notice), from the theme's templates.

A render rule is looked up from the most specific template to the generic, in the theme's search path
(user theme -> parent -> default): a Bash call is drawn by `tools/Bash.html` if a theme has one, else by
`tools/_default.html`; a notice by `events/notice-<kind>.html`, else `events/notice.html`. A theme restyles
one tool by adding one template.

A rule that wraps other blocks (a tool call's body) marks where they go with `{{ body }}`: what comes before
is the group's opening tags, what comes after its closing tags, so the block model, and every writer over it
(Markdown, pages, bundle, search), keeps working. The Markdown intermediate holds this HTML too.

Every value a template prints is escaped as `escape.html_text` does (line breaks included, which would end
the HTML block in Markdown), except our own `Markup`: transcript text can neither break the structure nor run.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...core.errors import ThemeError
from ..theme import Theme
from .escape import html_text

if TYPE_CHECKING:
    import jinja2

# A name from the transcript picks a template file only when it cannot name anything else.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")
_BODY = "\x00body\x00"


class TranscriptMarkup:
    """Render rules keyed by event type and tool name, backed by a theme's templates."""

    def __init__(self, theme: Theme):
        self.environment = theme.environment()
        # Runs before autoescape: every printed value is escaped our way, and marked safe for jinja.
        self.environment.finalize = _escaped
        self.environment.globals["permalink"] = permalink
        self._templates: dict[tuple[str, ...], jinja2.Template] = {}

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
        if rendered.count(_BODY) != 1:
            raise ThemeError(f"{template.filename}: must print {{{{ body }}}} exactly once")
        opening, closing = rendered.split(_BODY)
        return _one_block(template, opening.rstrip("\n")), _one_block(template, closing.strip("\n"))


def _one_block(template: "jinja2.Template", html: str) -> str:
    # A blank line would end the HTML block in Markdown and spill the rest into paragraphs.
    if "\n\n" in html or not html.strip():
        raise ThemeError(f"{template.filename}: the HTML around a transcript part must have no blank line")
    return html


def _escaped(value: Any) -> Any:
    import markupsafe

    if isinstance(value, markupsafe.Markup) or value is None:
        return value
    return markupsafe.Markup(html_text(str(value)))  # noqa: S704 - escaped just now


def permalink(anchor: str) -> Any:
    """A small link to this very message; anchors come from entry uuids, so they survive rebuilds."""
    import markupsafe

    return markupsafe.Markup(f'<a class="permalink" href="#{html_text(anchor)}" title="Link to this" '  # noqa: S704 - escaped
                             f'aria-label="Link to this">#</a>')


@lru_cache(maxsize=1)
def default_markup() -> TranscriptMarkup:
    """The built-in theme's rules, for a document made without a theme of its own."""
    return TranscriptMarkup(Theme.load())
