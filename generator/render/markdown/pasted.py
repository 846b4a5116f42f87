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

# A fence opens a line, as CommonMark reads one (a line of ~~~ under a traceback's caret is not): up to three
# spaces, then three or more backticks or tildes.
_FENCE_MARKERS = ("```", "~~~")
_LOG_OR_CODE_LINE = re.compile(
    r"""^(?:
        \s*\[?\d{4}-\d{2}-\d{2}[T\s]\d{1,2}:\d{2}          # 2026-10-01 10:32 or [2026-10-01T10:32
      | \s*\[?\d{1,2}:\d{2}:\d{2}                           # 10:32:05
      | \s*[A-Z][a-z]{2}\s+\d{1,2}\s\d{2}:\d{2}:\d{2}       # syslog: Oct  1 10:32:05
      | \s*\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE)\b[\]:]?
      | \s*\d{1,3}(?:\.\d{1,3}){3}\s                        # an access log's client address
      | \s+at\s+\S+                                         # Java / JavaScript stack frame
      | \s*File\s"[^"]+",\sline\s\d+                        # Python stack frame
      | \s*Traceback\s\(most\srecent\scall\slast\)
      | \s*\#\d+\s+0x[0-9a-fA-F]+                           # native backtrace
      | \s*[\w.$]+(?:Error|Exception)\b                     # the exception line itself
      | .*[;{}]\s*$                                         # C-like code
      | \s*(?:def|class|import|from|return|if|elif|else|for|while|try|except|function|const|let|var|
             public|private|static|package|func|fn|use|\#include|\#define)\b
      | \s{4,}\S                                            # indented: code, or a continuation
    )""",
    re.VERBOSE,
)


def looks_pasted(text: str) -> bool:
    """A log or code by its shape: many lines, long, and most of them shaped like one."""
    if len(text) < MIN_CHARACTERS or text.count("\n") + 1 < MIN_LINES:
        return False
    # A fence the person wrote already shows code as code; the text around it is theirs.
    if _opens_a_fence(text):
        return False
    # Each line by itself, in loops that stay in C: a match over the whole text would be tried at every
    # character, not only where lines start.
    lines = list(filter(str.strip, text.split("\n")))
    if len(lines) < MIN_LINES:
        return False
    shaped = len(list(filter(None, map(_LOG_OR_CODE_LINE.match, lines))))
    return shaped >= MIN_SHARE * len(lines)


def _opens_a_fence(text: str) -> bool:
    """Whether a line of the text opens with a fence. Found from each marker's occurrences (`str.find`, in C)
    rather than by a pattern anchored at each line's start, which the regular expression engine tries at every
    character of a long log. Past a marker that is not a line's fence, the rest of its line is skipped: a
    later marker on it has the first one before it, so no line is read twice."""
    for marker in _FENCE_MARKERS:
        found = text.find(marker)
        while found >= 0:
            line_start = text.rfind("\n", 0, found) + 1
            if found - line_start <= 3 and text.count(" ", line_start, found) == found - line_start:
                return True
            line_end = text.find("\n", found)
            if line_end < 0:
                break
            found = text.find(marker, line_end + 1)
    return False
