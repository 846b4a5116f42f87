"""The vault: a private copy of every log sessionsite reads, kept after Claude Code deletes the original.

Claude Code deletes a session's log some weeks after its last activity (`cleanupPeriodDays`). Every
`build`, `markdown` and `bundle` saves the logs it reads here, and so does `sessionsite save` (which a
Claude Code hook can run when a session ends); a build then reads the logs that are gone from the vault,
so that their sessions stay in the site.

One SQLite database (the standard library's), in WAL mode, by job:

    store     the schema, opening it, and reading chunks and rows back checked (`Damaged` names what is not)
    save      saving logs: new, grown, a new version when one lost bytes; repairing damaged chunks on the way
    readback  the logs it keeps, those a build reads back, each version's bytes, and `check` for `doctor`
    restore   a session's logs written back where they were

Damage costs only what it touches: a chunk that does not match its digest, or a row that cannot be right,
loses the logs that use it, each named, and nothing else; a vault that cannot be read at all is one
warning, and a build goes on from the live logs.

The vault holds raw logs, secrets included: its folder is the owner's alone (0700, files 0600), it is
never inside an output folder, and nothing in it is published.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from ...stages.discover import SessionFile
from .readback import DamagedCopy, DamagedLog, KeptLog, Stored, Unusable, VaultReader, Version
from .restore import Restored, restore
from .save import Place, SaveReport, save_logs
from .store import DATABASE, HOOK_LOG, Damaged, VaultError, default_location, log_hook_failure, today


class Vault(VaultReader):
    """The vault in `folder`."""

    def save(self, files: Iterable[SessionFile],
             progress: Callable[[Iterable[Any], int, str], Iterator[Any]] | None = None) -> SaveReport:
        """Save every log that is new or changed since it was last saved (`save.save_logs`)."""
        return save_logs(self, files, progress)


__all__ = ["DATABASE", "HOOK_LOG", "Damaged", "DamagedCopy", "DamagedLog", "KeptLog", "Place", "Restored",
           "SaveReport", "Stored", "Unusable", "Vault", "VaultError", "Version", "default_location",
           "log_hook_failure", "restore", "today"]
