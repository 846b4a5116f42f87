"""Telling a pasted log or piece of code from prose a person wrote, by its shape alone.

A prompt that is mostly a server log, a stack trace or a source file reads best as it was: preformatted,
in a monospace block, the way a tool's output is shown. The test is deliberately cautious: many lines,
long, and most of them shaped like log lines, stack frames or code. A prompt that only quotes a few such
lines among sentences stays prose.
"""

from __future__ import annotations

import re

# Fewer lines or characters than this and the prompt is read as written, whatever its shape.
MIN_LINES = 20
MIN_CHARACTERS = 1_500
# The share of its non-blank lines that must look like a log, a stack trace or code.
MIN_SHARE = 0.6

# A fence opening a line, as CommonMark reads one (a line of ~~~ under a traceback's caret is not).
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})", re.MULTILINE)
# Each alternative stays within its line (`[^\S\n]` for a space, no `\n` in a class): matched over the whole
# text with MULTILINE, each line that is shaped so is found once.
_LOG_OR_CODE_LINE = re.compile(
    r"""^(?:
        [^\S\n]*\[?\d{4}-\d{2}-\d{2}(?:T|[^\S\n])\d{1,2}:\d{2}          # 2026-10-01 10:32 or [2026-10-01T10:32
      | [^\S\n]*\[?\d{1,2}:\d{2}:\d{2}                           # 10:32:05
      | [^\S\n]*[A-Z][a-z]{2}[^\S\n]+\d{1,2}[^\S\n]\d{2}:\d{2}:\d{2}  # syslog: Oct  1 10:32:05
      | [^\S\n]*\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE)\b[\]:]?
      | [^\S\n]*\d{1,3}(?:\.\d{1,3}){3}[^\S\n]                        # an access log's client address
      | [^\S\n]+at[^\S\n]+\S+                                     # Java / JavaScript stack frame
      | [^\S\n]*File[^\S\n]"[^"\n]+",[^\S\n]line[^\S\n]\d+                      # Python stack frame
      | [^\S\n]*Traceback[^\S\n]\(most[^\S\n]recent[^\S\n]call[^\S\n]last\)
      | [^\S\n]*\#\d+[^\S\n]+0x[0-9a-fA-F]+                        # native backtrace
      | [^\S\n]*[\w.$]+(?:Error|Exception)\b                     # the exception line itself
      | .*[;{}][^\S\n]*$                                         # C-like code
      | [^\S\n]*(?:def|class|import|from|return|if|elif|else|for|while|try|except|function|const|let|var|
             public|private|static|package|func|fn|use|\#include|\#define)\b
      | [^\S\n]{4,}\S                                            # indented: code, or a continuation
    )""",
    re.VERBOSE | re.MULTILINE,
)
_NON_BLANK_LINE = re.compile(r"^[^\S\n]*\S", re.MULTILINE)


def looks_pasted(text: str) -> bool:
    """A log or code by its shape: many lines, long, and most of them shaped like one."""
    if len(text) < MIN_CHARACTERS or text.count("\n") + 1 < MIN_LINES:
        return False
    # A fence the person wrote already shows code as code; the text around it is theirs.
    if _FENCE.search(text):
        return False
    lines = len(_NON_BLANK_LINE.findall(text))
    if lines < MIN_LINES:
        return False
    return len(_LOG_OR_CODE_LINE.findall(text)) >= MIN_SHARE * lines
