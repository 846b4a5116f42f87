"""What a tool call's renderer gets and gives (`ToolContext`, `ToolView`), the registry renderers are added to
with `@renders("Name")`, and the helpers they share: paths, languages, outputs (long ones previewed and
linked whole), labels, JSON."""

from __future__ import annotations

from fnmatch import fnmatchcase
import json
import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from pygments.lexers import find_lexer_class
from pygments.lexers._mapping import LEXERS

from ...core.model import Ending, ToolCall
from ...core.registry import Registry
from ...core.text import strip_ansi
from .blocks import Block, Code, Prose, Structure
from .escape import html_text, literal

# Past this many characters a tool output is previewed, and linked in full as a text file.
INLINE_OUTPUT_LIMIT = 50_000


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a renderer may need beyond the call itself."""

    cwd: str
    """The session's working directory, to show paths relative to it."""
    subagent_link: str = ""
    """Relative link to the subagent transcript this call started, if any."""
    subagent_title: str = ""
    """Title of that transcript."""
    attach: Callable[[str, bytes], str] | None = None
    """Stores a file beside the page and returns the relative link to it."""


@dataclass(frozen=True, slots=True)
class ToolView:
    """A rendered tool call."""

    label: str
    """Tool name as shown, e.g. Bash or attio · search-records."""
    target: str = ""
    """What it acted on: a path, a command, a pattern (plain text)."""
    body: tuple[Block | str, ...] = ()
    """The blocks of the folded part (a bare string is Markdown prose of ours; transcript text is a `Prose`
    of Claude's, which the search index holds)."""
    status: str = ""
    """Overrides the ok/error status when set."""
    open_by_default: bool = False
    """Shown unfolded (questions)."""
    quiet: bool = False
    """Left out of the page unless hidden things are shown (Claude re-reading its own state)."""
    classes: tuple[str, ...] = field(default=())
    """Extra CSS classes for the block."""
    target_is_path: bool = False
    """The target is a file or folder the call read or changed (the search index marks it as a path)."""


Renderer = Callable[[ToolCall, ToolContext], ToolView]
RENDERERS: Registry[str, Renderer] = Registry("renderers of tool calls")


def renders(*names: str) -> Callable[[Renderer], Renderer]:
    """Register the decorated renderer for the tools `names`; a name already taken stops the import."""
    return RENDERERS.register(*names)


@lru_cache(maxsize=512)
def _language_for_suffix(name: str) -> str:
    """Pygments' choice for a file name (as `find_lexer_class_for_filename` makes it), among its own
    lexers only: the site does not depend on the plugin lexers installed beside it, and loading those can
    import whole programs (IPython's took 1.6 s). The name is looked up in Pygments' table of lexers,
    importing lexer modules only when several lexers claim it (to compare their priorities): an
    incremental build of one session no longer spends a second importing them."""
    endings, names, others = _filename_patterns()
    found = [number for start in range(len(name) + 1) for number in endings.get(name[start:], ())]
    found += names.get(name, ())
    found += [number for number, pattern in others if fnmatchcase(name, pattern)]
    matches = [_PATTERNS[number] for number in sorted(found)]
    if len(matches) > 1:
        def rating(match: tuple[str, tuple[str, ...], str]) -> tuple[float, str]:
            lexer = find_lexer_class(match[0])
            assert lexer is not None  # the name is from Pygments' own table
            return lexer.priority + (0.5 if "*" not in match[2] else 0), lexer.__name__
        matches.sort(key=rating)
    return matches[-1][1][0] if matches and matches[-1][1] else ""


_PATTERNS = [(lexer_name, aliases, pattern) for _, lexer_name, aliases, patterns, _ in LEXERS.values()
             for pattern in patterns]
"""Pygments' file name patterns, in its order, each with its lexer's name and aliases."""


@lru_cache(maxsize=1)
def _filename_patterns() -> tuple[dict[str, list[int]], dict[str, list[int]], list[tuple[int, str]]]:
    """`_PATTERNS` by the cheapest test that matches as `fnmatchcase` does: the ending a `*` and plain text
    ask for (most of them, `*.py`), the whole name plain text asks for (`Makefile`), and the rest as
    patterns (`*.[1-9]`); each pattern by its number in `_PATTERNS`."""
    endings: dict[str, list[int]] = {}
    names: dict[str, list[int]] = {}
    others: list[tuple[int, str]] = []
    for number, (_, _, pattern) in enumerate(_PATTERNS):
        if not _FNMATCH_SPECIAL.search(pattern):
            names.setdefault(pattern, []).append(number)
        elif pattern.startswith("*") and not _FNMATCH_SPECIAL.search(pattern[1:]):
            endings.setdefault(pattern[1:], []).append(number)
        else:
            others.append((number, pattern))
    return endings, names, others


_FNMATCH_SPECIAL = re.compile(r"[*?\[]")


def language_for(path: str) -> str:
    base = posixpath.basename(path.replace("\\", "/"))
    suffix = base[base.rfind(".") :] if "." in base else base
    return _language_for_suffix("x" + suffix if suffix.startswith(".") else suffix)


def display_path(path: str, cwd: str) -> str:
    if cwd and path.startswith(cwd.rstrip("/\\") + ("\\" if "\\" in cwd else "/")):
        return path[len(cwd.rstrip("/\\")) + 1 :]
    return path


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def result_text(call: ToolCall) -> str:
    return strip_ansi(call.result.text) if call.result else ""


REASON_LABEL: dict[str, str] = {Ending.REFUSED: "Why", Ending.BLOCKED: "The hook said"}
"""The label over the text a refusal or a hook's block gave (in place of "Error")."""


def output_block(call: ToolCall, context: ToolContext, language: str = "text") -> tuple[Block | str, ...]:
    """The result as a fenced block, or nothing when it is empty. A very long output shows its start,
    and the whole of it goes to a text file beside the page, linked: no page gets heavy, nothing is cut."""
    text = result_text(call)
    if not text.strip():
        return ()
    reason = REASON_LABEL.get(call.result.ending) if call.result else None
    heading = label(reason or ("Error" if call.result and call.result.is_error else "Output"))
    if len(text) <= INLINE_OUTPUT_LIMIT or context.attach is None:
        return (heading, Code(text, language, kind="output"))
    preview, note = previewed(text, context.attach, f"{call.anchor}-output.txt", "Full output")
    return (heading, Code(preview, language, kind="output"), note)


def previewed(text: str, attach: Callable[[str, bytes], str], name: str, link_text: str) -> tuple[str, Prose]:
    """Text over `INLINE_OUTPUT_LIMIT` (a tool output, a pasted prompt, a reply): its start, cut at a line,
    and a note linking to all of it, written to a text file beside the page (the note carries the rest, for
    the search index). No page gets heavy, nothing is cut."""
    preview = text[:INLINE_OUTPUT_LIMIT].rsplit("\n", 1)[0]
    whole = text.encode("utf-8")
    link = attach(name, whole)
    hidden_lines = text.count("\n") - preview.count("\n")
    size = len(whole) / 1024
    note = f"[{link_text}]({link}) ({size:,.0f} KB; {hidden_lines:,} more lines than shown here)"
    return preview, Prose(note, "sessionsite", unshown=text[len(preview):])


def label(text: str) -> Structure:
    """A section label inside a tool call (Output, Error, Prompt…): marked on the page so the theme can tell
    it from prose, in bold in the .md."""
    return Structure(f'<p class="label">{html_text(text)}</p>', "label", f"**{literal(text)}**")


def json_block(value: Any) -> Code:
    return Code(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str), "json")


def first_line(text: str, limit: int = 120) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def answer_sentence(result: str) -> tuple[str, bool]:
    """Claude Code's JSON answer to a SendMessage or a TaskStop, `{"success": true, "message": "Message
    queued ..."}`: the first sentence of its message (the rest tells the model what to do next), and whether
    it did what was asked."""
    try:
        answer = json.loads(result)
    except ValueError:
        return "", False
    said = answer.get("message") if isinstance(answer, dict) else None
    if not isinstance(said, str) or not said.strip():
        return "", False
    return re.split(r"(?<=[.!?])\s", said.strip(), maxsplit=1)[0], answer.get("success") is not False
