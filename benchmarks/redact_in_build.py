"""How much CPU redaction takes inside a cold single-process build, and how much the build takes.

    python3 benchmarks/redact_in_build.py ARCHIVE [--rounds 3] [--against OTHER_CHECKOUT]

Each round builds ARCHIVE (say the scaled corpus, `../shared/tools/scale_corpus.py OUT 6 12 …`) cold into a
fresh folder with `-j 1 --no-vault`, in a child process that runs this checkout's (or the other's) code with
the redactor's entry points (`items`, `item`, `interpreted`, `session`, `text`, `value`) wrapped in
`time.thread_time`, counted once however they nest. Prints each build's CPU and redaction's, and their
medians; with --against, the two checkouts' builds alternate, so that other load on the machine falls on both.
"""

from __future__ import annotations

from in_build import compare

_SETUP = r"""
from generator.stages.redact import redactor
spent, depth = [0.0], [0]

def wrapped(function):
    def timed(*args, **kwargs):
        if depth[0]:
            return function(*args, **kwargs)
        depth[0] += 1
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[0] += time.thread_time() - start
            depth[0] -= 1
    return timed

for name in ("item", "items", "interpreted", "session", "text", "value"):
    if hasattr(redactor.Redactor, name):
        setattr(redactor.Redactor, name, wrapped(getattr(redactor.Redactor, name)))

def measured():
    return {"file": redactor.__file__, "redaction": spent[0]}
"""

if __name__ == "__main__":
    compare(__doc__.split("\n\n")[0], _SETUP, "redaction", "redaction")
