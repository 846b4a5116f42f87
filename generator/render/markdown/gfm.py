"""Our own elements as the .md shows them: GitHub-flavoured Markdown, with none of the theme's HTML.

The page draws a meta line, a label, a notice or a tool call's head from the theme's templates (`markup`);
the .md says the same words in plain Markdown, the same for every theme: a bold name and ` · ` between the
facts, a label in bold, a link as a Markdown link. A folded part (a tool call, a thinking block) is a
`blocks.Fold`, GitHub's `<details>`, whose summary is the one place the .md holds HTML: bold and code, its
text escaped.

Transcript text goes in as `literal` (every character shown as it is, on one line) or `inline_code`, so it
can open nothing and close nothing of ours.
"""

from __future__ import annotations

from urllib.parse import quote

from .escape import html_text, literal

SEPARATOR = " · "


def destination(href: str) -> str:
    """A link's target as a Markdown link destination holds it: what could end it early (a space, a
    bracket, a parenthesis) or be read as an escape, percent-encoded."""
    return quote(href, safe="/#%:?=&+,;@!$*'~")


def link(text: str, href: str) -> str:
    return f"[{literal(text)}]({destination(href)})"


def facts(*parts: str) -> str:
    """Markdown pieces of a line, the empty ones left out, a `·` between them."""
    return SEPARATOR.join(part for part in parts if part)


def bold(text: str) -> str:
    return f"**{literal(text)}**" if text.strip() else ""


def emphasis(text: str) -> str:
    return f"*{literal(text)}*" if text.strip() else ""


def meta_line(who: str, time: str, model: str = "") -> str:
    """Who wrote a message, with which model, when: `**Claude** · claude-opus-4-6 · 2026-10-01 10:32`."""
    return facts(bold(who), literal(model), literal(time))


def summary(name: str, target: str = "", status: str = "") -> str:
    """A fold's summary: its name in bold, what it acted on in code, then its status; HTML, text escaped."""
    parts = [f"<b>{html_text(name)}</b>"] + ([f"<code>{html_text(target)}</code>"] if target else [])
    return " ".join(parts) + (f"{SEPARATOR}{html_text(status)}" if status else "")


def summary_text(text: str, code: str = "") -> str:
    """A fold's summary that is a sentence, perhaps ending in a name in code."""
    return html_text(text) + (f" <code>{html_text(code)}</code>" if code else "")
