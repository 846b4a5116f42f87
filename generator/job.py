"""One command writing one output: what the build, the Markdown and JSON exports and the bundle share.

`with Job(output, reads, vault, strict) as job:` checks where the output goes (never into what it reads, nor
the vault, nor ~/.claude), makes the command the one writer of the output (`locks.OutputLock`, a second
command stops at once) and removes what dead commands left behind. Inside it, the command

- saves the logs it reads into the vault (`save`; a vault that cannot be used is a problem, not a failure);
- reports the problems of its input and, with --strict, stops on them (`check`), the same way for all;
- writes into a staging folder swapped in whole, or a work folder beside the output removed at the end
  (`staging`, `work_folder`): a kill or a full disk leaves the previous output as it was, and the worker
  processes are stopped before the folder they write into goes.

What a command writes is its own: the site's pages, the exports' files, the bundle's one file, each a writer
over the same parts (`pipeline`).
"""

from __future__ import annotations

import gc
import logging
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from .core.errors import StrictModeError
from .core.entries import Diagnostic
from .output.locks import MARKER, OutputLock, claim, release, remove_abandoned
from .output.write import MARKER_TEXT, Staging, check_output_location, check_vault_location, check_zip_target
from .config import Progress
from .workers import stop_workers

if TYPE_CHECKING:  # the vault is loaded only when there is one
    from .stages.discover import SessionFile
    from .output.vault import SaveReport, Vault, VaultError
    from .workers import InBackground

SaveOutcome = tuple["SaveReport | None", "VaultError | None"]
"""What a save did, or why it could not (None, None: no vault)."""

log = logging.getLogger("sessionsite")


def is_zip(output: Path) -> bool:
    return output.suffix.lower() == ".zip"


FEWER_COLLECTIONS = 50_000
"""While a job runs, the cycle collector's first generation is collected after this many more objects are made
than freed (Python's default is 700). A build makes and frees millions of small objects, nearly all freed by
reference counting; collecting every 700 cost 4% of a cold build of the scaled corpus (0.50 s of 12.9, measured
with `gc.callbacks`), and at this threshold 0.03 s, for 7 MB more at the peak."""


class Job:
    """One command writing `output` from what it `reads`, with the `vault` (None: none) and --strict."""

    def __init__(self, output: Path, reads: Iterable[Path], vault: Path | None = None, strict: bool = False):
        self.output = output
        self.reads = tuple(reads)
        self.vault_folder = vault
        self.strict = strict
        self._lock = OutputLock(output)
        self._vault: Vault | None = None

    def __enter__(self) -> Job:
        self._collection_thresholds = gc.get_threshold()
        gc.set_threshold(max(self._collection_thresholds[0], FEWER_COLLECTIONS), *self._collection_thresholds[1:])
        try:
            self._enter()
        except BaseException:
            gc.set_threshold(*self._collection_thresholds)
            raise
        return self

    def _enter(self) -> None:
        check_output_location(self.output, self.reads)
        if self.vault_folder is not None:
            check_vault_location(self.output, self.vault_folder)
        if is_zip(self.output):
            check_zip_target(self.output)
        self._lock.__enter__()
        try:
            remove_abandoned(self.output)
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._lock.__exit__(*exc_info)
        finally:
            gc.set_threshold(*self._collection_thresholds)

    # -- the vault ---------------------------------------------------------------------------------------

    @property
    def vault(self) -> Vault | None:
        if self.vault_folder is not None and self._vault is None:
            from .output.vault import Vault

            self._vault = Vault(self.vault_folder)
        return self._vault

    def save(self, files: list[SessionFile], progress: Progress | None = None
             ) -> tuple[SaveReport | None, VaultError | None]:
        """Save the logs read into the vault: what the save did, or why it could not (None, None: no vault)."""
        from .output.vault import VaultError

        vault = self.vault
        if vault is None:
            return None, None
        try:
            return vault.save(files, progress), None
        except VaultError as error:
            return None, error

    def save_beside(self, files: list[SessionFile], progress: Progress | None = None) -> VaultSave:
        """The save of `save`, run in a forked process while the command reads and writes (where one can be
        forked: else now, as `save`). The save reads every log whole and its CPU goes on one core: beside the
        command's workers, a first save of a large archive no longer holds the build up."""
        from .workers import InBackground, can_work_in_background

        vault = self.vault
        if vault is None:
            return VaultSave()
        if not can_work_in_background():
            return VaultSave(self.save(files, progress), database=vault.database)

        def save() -> SaveOutcome:
            from .output.vault.save import keep_freed_blocks

            keep_freed_blocks()
            return self.save(files)

        # At the command's own priority: at a lower one (nice 10) the save is preempted over and over, which
        # costs more than it lets the workers gain (a cold build of the scaled corpus, -j 2: 0.3 CPU s more).
        return VaultSave(running=InBackground(save), database=vault.database)

    # -- problems ----------------------------------------------------------------------------------------

    def check(self, problems: Sequence[Diagnostic]) -> None:
        """With --strict, stop on any problem of the input (each was reported when it was found)."""
        if self.strict and problems:
            raise StrictModeError(f"{len(problems)} problem(s) in the input (--strict)")

    # -- where the output is made --------------------------------------------------------------------------

    @contextmanager
    def staging(self, folder: Path, keep: bool = True) -> Iterator[Staging]:
        """A staging folder for `folder`, swapped in whole when the block ends well (`keep`), removed
        otherwise; the worker processes writing into it are stopped first."""
        staging = Staging(folder)
        try:
            yield staging
            if keep:
                staging.commit()
        except BaseException:
            stop_workers()  # before their staging folder goes
            staging.discard()
            raise
        if not keep:
            stop_workers()
            staging.discard()

    @contextmanager
    def work_folder(self) -> Iterator[Path]:
        """A folder beside the output, for what is made before the output is (`.NAME.site-…`): held while
        the command runs, removed when it ends, and by the next command if this one dies."""
        beside = self.output.resolve().parent
        beside.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{self.output.name}.site-", dir=beside))
        claim(work)
        try:
            (work / MARKER).write_bytes(MARKER_TEXT)
            yield work
        finally:
            stop_workers()  # before the folder they may write into goes
            shutil.rmtree(work, ignore_errors=True)
            release(work)


def report_problems(problems: Iterable[Diagnostic]) -> None:
    """Each problem of the input, once, as a warning naming its file and line."""
    for problem in problems:
        log.warning("%s:%d: %s", problem.file, problem.line, problem.message)


class VaultSave:
    """The save of the logs a command reads: done, or going on beside the command (`Job.save_beside`).

    Entered on the command's exit stack, it settles when the command ends: a command that fails still waits
    for its save (the logs it read are kept, as when the save came first), one stopped by Ctrl-C or a signal
    stops it (nothing half-written is kept: the save's transaction never commits)."""

    def __init__(self, done: SaveOutcome | None = None, running: InBackground[SaveOutcome] | None = None,
                 database: Path | None = None):
        """Neither `done` nor `running`: there is no vault, and nothing to save."""
        self._outcome = done if done is not None or running is not None else (None, None)
        self._running = running
        self.database = database

    def outcome(self) -> SaveOutcome:
        """What the save did (waiting for it to end), or why it could not."""
        if self._outcome is None:
            assert self._running is not None
            from .output.vault import VaultError
            from .workers import BackgroundDied

            try:
                self._outcome = self._running.result()
            except BackgroundDied as error:
                self._outcome = (None, VaultError(f"cannot save to the vault {self.database}: {error}"))
            except BaseException:
                self._running.stop()  # interrupted while waiting for it (Ctrl-C, a signal)
                raise
            finally:
                self._running = None
        return self._outcome

    def __enter__(self) -> VaultSave:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self._running is None:
            return
        if kind is not None and issubclass(kind, (KeyboardInterrupt, SystemExit)):
            self._running.stop()
            self._running = None
        else:
            self.outcome()


__all__ = ["Job", "SaveOutcome", "VaultSave", "is_zip", "report_problems"]
