"""Between read and interpret: take secrets (and, if asked, the home directory) out of every entry, so that no
later stage and no output (pages, Markdown, search index, manifest, saved outputs) can carry them.

- `redactor`: the `Redactor`, over entries, strings and session summaries (`summaries`), and long texts a window
  at a time (`long_texts`);
- `entry_strings`: one walk over an entry, and what the prefilter saw in its strings; `wrapped_tokens`: a token
  a file read shows wrapped over two lines;
- `homes`: home folders in paths and in Claude Code's encoded folder names (`--redact-paths`);
- `own`: the user's own patterns and words, and the values they decided to redact on review (by digest).

What counts as a secret is in `stages.credentials`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ...core.redaction import IDENTIFIER, OURS, TEXT
from .homes import HOME_PATH
from .own import REVIEWED, OwnRuleError, OwnRules, ReviewedSecrets, keyed_digest, redact_project_dir

if TYPE_CHECKING:
    from ..credentials.names import is_secret_name
    from .entry_strings import SHORTEST_SECRET, UNTOUCHED_FIELDS, is_identifier
    from .long_texts import REDACTION_MARGIN, REDACTION_WINDOW
    from .redactor import Redactor, identifier, marker

# The rules are compiled when their modules load: a build that finds nothing changed, which needs only the
# folder names' redaction (`own`, `homes`), does not load them.
_LOADED_WHEN_ASKED = {
    "is_secret_name": "..credentials.names", "SHORTEST_SECRET": ".entry_strings", "UNTOUCHED_FIELDS": ".entry_strings",
    "is_identifier": ".entry_strings",
    "REDACTION_MARGIN": ".long_texts", "REDACTION_WINDOW": ".long_texts", "Redactor": ".redactor",
    "identifier": ".redactor", "marker": ".redactor",
}


def __getattr__(name: str) -> Any:
    if name not in _LOADED_WHEN_ASKED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_LOADED_WHEN_ASKED[name], __name__), name)


__all__ = ["HOME_PATH", "IDENTIFIER", "OURS", "REVIEWED", "ReviewedSecrets", "keyed_digest", "REDACTION_MARGIN", "REDACTION_WINDOW", "SHORTEST_SECRET", "TEXT", "UNTOUCHED_FIELDS", "OwnRuleError",
           "OwnRules", "Redactor", "identifier", "is_identifier", "is_secret_name", "marker", "redact_project_dir"]
