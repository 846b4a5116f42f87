"""Where sessionsite keeps things of its own on the user's machine, outside any site it writes."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def user_cache_folder() -> Path:
    """The platform's folder for caches (what is kept there can always be made again), sessionsite's own
    part of it."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "sessionsite"
