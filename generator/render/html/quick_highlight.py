"""Highlighting for large code blocks, where Pygments would be the slowest part of a build.

Pygments lexes about a megabyte of Python a second, token by token in Python code, and a Read of a big
file is tens of kilobytes: over an archive, most of a build's time. Past a size, a block is instead
scanned by one regular expression per family of languages that picks out comments, strings, numbers and
keywords; everything between them is copied as escaped text by the C scanner, which makes it many times
faster. The classes are Pygments' own short names, so the same style sheet colours both.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

_C_LIKE_KEYWORDS = (
    "abstract async await break case catch class const continue default defer delete do else enum export "
    "extends false final finally fn for func function go if impl implements import in instanceof interface "
    "let loop match mod mut namespace new nil null package private protected pub public readonly return "
    "select self static struct super switch this throw throws trait true try type typeof undefined union "
    "unsafe use var void where while with yield"
)
_PYTHON_KEYWORDS = (
    "False None True and as assert async await break class continue def del elif else except finally for "
    "from global if import in is lambda nonlocal not or pass raise return try while with yield match case self"
)
_SHELL_KEYWORDS = "case do done elif else esac export fi for function if in local readonly return then until while"
_ELIXIR_KEYWORDS = (
    "after alias and case catch cond def defmacro defmodule defp defstruct defimpl defprotocol do else end false fn "
    "for if import in nil not or quote raise receive require rescue true try unless unquote use when with"
)
_POWERSHELL_KEYWORDS = (
    "begin break catch class continue do else elseif end exit filter finally for foreach function if in param "
    "process return switch throw trap try until while"
)

_NUMBER = r"\b(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b"


def _pattern(comments: list[str], strings: list[str], keywords: str) -> re.Pattern[str]:
    words = "|".join(sorted(keywords.split(), key=len, reverse=True))
    return re.compile(
        f"(?P<c>{'|'.join(comments)})|(?P<s>{'|'.join(strings)})|(?P<k>\\b(?:{words})\\b)|(?P<m>{_NUMBER})"
    )


_DOUBLE = r'"(?:\\.|[^"\\\n])*"'
_SINGLE = r"'(?:\\.|[^'\\\n])*'"
_FAMILIES = {
    "python": _pattern([r"#[^\n]*"], [r'"""[\s\S]*?(?:"""|$)', r"'''[\s\S]*?(?:'''|$)", _DOUBLE, _SINGLE],
                       _PYTHON_KEYWORDS),
    "c": _pattern([r"//[^\n]*", r"/\*[\s\S]*?(?:\*/|$)"], [r"`(?:\\.|[^`\\])*`", _DOUBLE, _SINGLE], _C_LIKE_KEYWORDS),
    "shell": _pattern([r"(?:^|(?<=\s))#[^\n]*"], [_DOUBLE, _SINGLE], _SHELL_KEYWORDS),
    "elixir": _pattern([r"#[^\n]*"], [r'"""[\s\S]*?(?:"""|$)', _DOUBLE, _SINGLE], _ELIXIR_KEYWORDS),
    "powershell": _pattern([r"(?:^|(?<=\s))#[^\n]*"], [_DOUBLE, _SINGLE], _POWERSHELL_KEYWORDS),
    # Markdown (a README or a plan read whole): headings, fence lines, code spans, strong and emphasis and list
    # markers, as Pygments marks them, without lexing the code inside the fences.
    # Pygments' classes for them: gh/gu headings, sb code and fences, gs/ge strong and emphasis, k list markers.
    # It reads the text after a line break (`_READ_AFTER`), so that each alternative starts with a character
    # (a line's start is the line break before it): the regular expression engine then skips to where one
    # may match instead of trying each at every character, some three times faster. A group named with a
    # trailing `_` is coloured from that first character on.
    "markdown": re.compile(
        r"\n(?P<gh>#[ \t][^\n]*)|\n(?P<gu>#{2,6}[ \t][^\n]*)|\n(?P<sb>[ \t]*(?:```|~~~)[^\n]*)"
        r"|`(?P<sb_>[^`\n]+`)|\*(?P<gs_>\*[^*\n]+\*\*)|\*(?<![*\w]\*)(?P<ge_>[^*\s][^*\n]*\*(?![*\w]))"
        r"|\n[ \t]*(?P<k>[-*+]|\d+\.)(?=[ \t])"
    ),
}
_READ_AFTER = {"markdown": "\n"}
_FAMILY_OF = {
    **dict.fromkeys(("python", "py", "python3", "pycon", "cython"), "python"),
    **dict.fromkeys(("javascript", "js", "jsx", "typescript", "ts", "tsx", "java", "c", "cpp", "c++", "csharp",
                     "go", "rust", "kotlin", "swift", "scala", "dart", "php", "objective-c", "css", "scss",
                     "less", "json", "jsonc", "groovy", "zig"), "c"),
    **dict.fromkeys(("bash", "sh", "shell", "zsh", "console", "yaml", "yml", "toml", "ini", "dockerfile",
                     "makefile", "make", "ruby", "rb", "perl", "r"), "shell"),
    **dict.fromkeys(("elixir", "ex", "exs"), "elixir"),
    **dict.fromkeys(("powershell", "pwsh", "ps1", "posh"), "powershell"),
    **dict.fromkeys(("markdown", "md"), "markdown"),
}


def supports(language: str) -> bool:
    return language in _FAMILY_OF


@lru_cache(maxsize=None)
def _span(token_class: str) -> tuple[str, str]:
    return f'<span class="{token_class}">', "</span>"


def quick_highlight(code: str, language: str) -> str:
    """Escaped HTML with spans that never cross a line break (line numbers are added per line)."""
    family = _FAMILY_OF[language]
    pattern = _FAMILIES[family]
    # Escaped first, in one go: the patterns look for nothing that escaping changes (&, < and >).
    text = html.escape(code, quote=False)
    before = _READ_AFTER.get(family, "")
    pieces: list[str] = []
    done = 0
    for found in pattern.finditer(before + text if before else text):
        group = found.lastgroup or ""
        start, end = found.span(group or 0)  # a match may lead with context it does not colour
        if group.endswith("_"):
            start = found.start()
        start, end = start - len(before), end - len(before)
        if start == end:
            continue
        pieces.append(text[done:start])
        opening, closing = _span(group.rstrip("_"))
        # A multi-line string or comment is closed and reopened at each line break.
        pieces.append(opening + text[start:end].replace("\n", closing + "\n" + opening) + closing)
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
