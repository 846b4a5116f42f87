"""The `sessionsite` program as a process: the command line (`cli.main`), then the end of the process.

A build leaves millions of objects alive, which Python frees one by one as it shuts down: 0.13 s of a cold build
of the 94 MB benchmark archive, about as long as a rebuild that finds nothing changed takes in all. The process
ends without that, as the operating system takes its memory back at once, once what must happen at an exit has
happened: what is buffered for stdout and stderr is written and the handlers registered to run at exit (logging's
flush, temporary folders' removal) run. A process with another thread still running, or whose output cannot be
written, ends as Python ends it, which waits for the thread or reports the error; so does one run under a profiler
or a tracer (`python -m cProfile`, coverage), which write their findings after the program returns.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

from .cli import main


def run() -> None:
    """Run the command line, and end the process with its exit code."""
    try:
        main()
    except SystemExit as ending:
        code = ending.code
    else:
        code = 0
    end(code)


def end(code: object) -> None:
    if threading.active_count() > 1 or sys.getprofile() is not None or sys.gettrace() is not None:
        raise SystemExit(code)
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)  # as Python reports `sys.exit("message")`
        code = 1
    try:
        _write_buffered()
        atexit._run_exitfuncs()
        _write_buffered()
    except OSError:
        raise SystemExit(code) from None
    os._exit(code)


def _write_buffered() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
