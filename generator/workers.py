"""Worker processes for the build's two phases, and how they stop.

Workers are forked from the build's process, so they inherit the task, its items and what they refer to (the
archive's summaries) instead of receiving a copy: an item is sent as its number. The build's process is one of
the `jobs`: it works on items too while it waits for the workers' results, so `-j 2` forks one worker. Each
process forked makes for itself what it does not inherit (its first pages, the patterns compiled on first use,
its caches), and work the build's process does finds its own warm: a process fewer is that much less. They never
outlive the build:

- when the build stops early (an error, Ctrl-C, SIGTERM), the pool's processes are terminated before the
  staging folder they write into is removed (`stop_workers`, also called by the build's own clean-up);
- when the build's process dies without a word (SIGKILL), Linux kills them too (PR_SET_PDEATHSIG);
- Ctrl-C reaches every process of the terminal's process group: workers ignore it, and the build's
  process stops them.
"""

from __future__ import annotations

import ctypes
import gc
import os
import pickle
import signal
import sys
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterator, Sequence, TypeVar

if TYPE_CHECKING:  # loaded when workers are started: a build that finds nothing changed starts none
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

_FORKED_TASK: Callable[[Any], Any] | None = None
_FORKED_ITEMS: Sequence[Any] = ()
_LIVE_POOLS: set[ProcessPoolExecutor] = set()
PR_SET_PDEATHSIG = 1


def _run_forked(number: int) -> Any:
    assert _FORKED_TASK is not None
    return _FORKED_TASK(_FORKED_ITEMS[number])


def _worker_started(parent: int) -> None:
    # Inherited from the build's process, whose SIGTERM and SIGHUP handlers stop the build by raising: a
    # worker just ends.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "SIGHUP"):  # not on Windows
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the build died before the line above took effect
        os._exit(1)


def _forks(jobs: int, items: int) -> bool:
    """Whether the work goes to forked workers (multiprocessing is loaded only to ask, and only then)."""
    if jobs <= 1 or items < 2:
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def in_workers(task: Callable[[T], R], items: Sequence[T], jobs: int) -> Iterator[R]:
    """`map(task, items)`, over `jobs` processes when jobs > 1: this one and forked workers. Results come back
    in order (what a task raised, at its turn), so the output does not depend on the number of jobs."""
    if not _forks(jobs, len(items)):
        yield from map(task, items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _FORKED_TASK, _FORKED_ITEMS
    _FORKED_TASK, _FORKED_ITEMS = task, items
    # The workers inherit the build's objects; their collector walking them would copy every page it
    # touches (copy-on-write) in each worker. Frozen, they are left alone, until the pool is done.
    gc.freeze()
    workers = min(jobs, len(items)) - 1
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_started, initargs=(os.getpid(),))
    _LIVE_POOLS.add(pool)
    finished = False
    try:
        yield from _shared(pool, workers, task, items)
        finished = True
    finally:
        # The task is left set, not reset to None: a pool left unfinished runs this only when it is collected,
        # which can fall between another `in_workers` setting the task and forking its workers, which then
        # had no task (a bare AssertionError, seen once on CI in test_cli's build).
        if finished:
            _LIVE_POOLS.discard(pool)
            pool.shutdown(wait=True)
        else:
            _stop(pool)
        gc.unfreeze()  # a long-lived process (`serve`) collects them again


def _shared(pool: ProcessPoolExecutor, workers: int, task: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
    """The results of `task` over `items`, in order, the items shared out one at a time, first come first
    served, between the pool's workers and this process."""
    sent: dict[int, Future[R]] = {}
    done_here: dict[int, tuple[bool, Any]] = {}
    untaken = 0  # items are taken in order: largest first, so that no process is left with a big one at the end
    for wanted in range(len(items)):
        while True:
            # Each worker has one item waiting beside the one it works on: those were taken before the one this
            # process takes next, so they are no smaller, and a worker has not run dry when this process is done.
            # (Not pool.map: stopped early, it cancels the futures its pool is about to fail, which 3.11's pool
            # reports as an error of its own on stderr.)
            while untaken < len(items) and sum(1 for future in sent.values() if not future.done()) < 2 * workers:
                sent[untaken] = pool.submit(_run_forked, untaken)
                untaken += 1
            if wanted in done_here:
                returned, value = done_here.pop(wanted)
                if not returned:
                    raise value
                yield value
                break
            if wanted in sent and (sent[wanted].done() or untaken == len(items)):
                yield sent.pop(wanted).result()
                break
            # The result wanted next is not ready: this process takes the next item meanwhile.
            number, untaken = untaken, untaken + 1
            try:
                done_here[number] = (True, task(items[number]))
            except Exception as error:  # noqa: BLE001 - raised at its turn, as a worker's would be
                done_here[number] = (False, error)


def stop_workers() -> None:
    """Terminate every worker process this process started and has not finished with: the build is
    stopping. (A generator left suspended by an exception in its consumer would stop its pool only when
    it is collected, which may be after the staging folder is removed.)"""
    for pool in list(_LIVE_POOLS):
        _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    _LIVE_POOLS.discard(pool)
    processes = list((getattr(pool, "_processes", None) or {}).values())  # the executor has no public way
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join()
    # The pool sees its workers gone and fails what was pending (cancelling those futures here as well
    # would make its manager thread trip over them).
    pool.shutdown(wait=True)


class InBackground(Generic[R]):
    """`task()` run in one forked process while this one goes on: its result, or what it raised, when
    `result` is called. The process dies with the build, as the workers do (`_worker_started`)."""

    def __init__(self, task: Callable[[], R]):
        parent = os.getpid()
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: it never returns into the caller's code
            status = 1
            try:
                os.close(reading)
                _worker_started(parent)
                status = _send_outcome(task, writing)
            finally:
                os._exit(status)
        os.close(writing)
        self.pid = pid
        self._pipe: int | None = reading
        self._status: int | None = None
        """The process's exit status, once it is reaped."""

    def result(self) -> R:
        """Wait for the task: what it returned, or what it raised raised here. A child that died without
        an answer (killed) raises `BackgroundDied`."""
        data = self._read_answer()
        if not data:
            assert self._status is not None
            raise BackgroundDied(self._status)
        returned, value = pickle.loads(data)
        if not returned:
            raise value
        result: R = value
        return result

    def stop(self) -> None:
        """End the task now (the command is stopping): nothing it had not finished is kept."""
        if self._status is not None:
            return
        try:
            os.kill(self.pid, signal.SIGTERM)  # the task's process dies at once (`_worker_started`)
        except ProcessLookupError:
            pass
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None
        _, self._status = os.waitpid(self.pid, 0)

    def _read_answer(self) -> bytes:
        if self._pipe is None:
            raise RuntimeError("the task's answer was read already")
        with os.fdopen(self._pipe, "rb") as pipe:
            self._pipe = None
            data = pipe.read()
        _, self._status = os.waitpid(self.pid, 0)
        return data


class BackgroundDied(Exception):
    """A task run in the background ended without an answer (it was killed)."""

    def __init__(self, status: int):
        how = (f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
               else f"it exited with status {os.WEXITSTATUS(status)}")
        super().__init__(f"the process doing it stopped ({how})")


def _send_outcome(task: Callable[[], Any], pipe: int) -> int:
    try:
        outcome: tuple[bool, Any] = (True, task())
    except BaseException as error:  # noqa: BLE001 - everything the task raises is the caller's to see
        outcome = (False, error)
    try:
        data = pickle.dumps(outcome)
    except (pickle.PicklingError, TypeError, AttributeError):  # what cannot be pickled: what it was, at least
        data = pickle.dumps((False, RuntimeError(repr(outcome[1]))))
    with os.fdopen(pipe, "wb") as writing:
        writing.write(data)
    return 0


def can_work_in_background() -> bool:
    """Whether `InBackground` may fork here: where processes fork, and from a process that runs no other
    thread (a thread's locks would be copied held into the child; `serve` runs threads)."""
    import threading

    return hasattr(os, "fork") and sys.platform != "win32" and threading.active_count() == 1


__all__ = ["BackgroundDied", "InBackground", "can_work_in_background", "in_workers", "stop_workers"]
