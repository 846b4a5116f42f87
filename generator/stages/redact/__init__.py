"""Between read and interpret: take secrets (and, if asked, the home directory) out of every entry, so that no
later stage and no output (pages, Markdown, search index, manifest, saved outputs) can carry them.

- `redactor`: the `Redactor`, over entries, strings and session summaries (`summaries`), and long texts a window
  at a time (`long_texts`);
- `entry_strings`: one walk over an entry, and what the prefilter saw in its strings; `wrapped_tokens`: a token
  a file read shows wrapped over two lines;
- `homes`: home folders in paths and in Claude Code's encoded folder names (`--redact-paths`);
- `own`: the user's own patterns and words.

What counts as a secret is in `stages.credentials`.
"""

from __future__ import annotations

from ...core.redaction import IDENTIFIER, OURS, TEXT
from ..credentials.names import is_secret_name
from .entry_strings import SHORTEST_SECRET, UNTOUCHED_FIELDS
from .homes import HOME_PATH
from .long_texts import REDACTION_MARGIN, REDACTION_WINDOW
from .own import OwnRuleError, OwnRules, redact_project_dir
from .redactor import Redactor, identifier, marker

__all__ = ["HOME_PATH", "IDENTIFIER", "OURS", "REDACTION_MARGIN", "REDACTION_WINDOW", "SHORTEST_SECRET", "TEXT", "UNTOUCHED_FIELDS", "OwnRuleError",
           "OwnRules", "Redactor", "identifier", "is_secret_name", "marker", "redact_project_dir"]
