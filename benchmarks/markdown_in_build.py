"""How much CPU the Markdown writer takes inside a cold single-process build, and how much the build takes.

    python3 benchmarks/markdown_in_build.py ARCHIVE [--rounds 3] [--against OTHER_CHECKOUT]

Each round builds ARCHIVE (say the scaled corpus) cold into a fresh folder with `-j 1 --no-vault`, in a child
process that runs this checkout's (or the other's) code with `SessionDocument`'s entry points (`__init__`,
`__call__`, `finish`) wrapped in `time.thread_time`, less the time spent in the page writer it hands each
page to (the HTML stage and the search index, called from inside `__call__` and `finish`). Prints each
build's CPU and the Markdown writer's, and their medians; with --against, the two checkouts' builds
alternate, so that other load on the machine falls on both.
"""

from __future__ import annotations

from in_build import compare

_SETUP = r"""
from generator.render import markdown
spent = {"writer": 0.0, "pages": 0.0}
document = markdown.SessionDocument
original_init, original_call, original_finish = document.__init__, document.__call__, document.finish

def timed_init(self, *args, **kwargs):
    start = time.thread_time()
    original_init(self, *args, **kwargs)
    hand_on = self.on_part
    if hand_on is not None:
        def pages(part):
            started = time.thread_time()
            hand_on(part)
            spent["pages"] += time.thread_time() - started
        self.on_part = pages
    spent["writer"] += time.thread_time() - start

def timed(function):
    def run(self, *args):
        start = time.thread_time()
        function(self, *args)
        spent["writer"] += time.thread_time() - start
    return run

document.__init__, document.__call__, document.finish = timed_init, timed(original_call), timed(original_finish)

def measured():
    return {"markdown": spent["writer"] - spent["pages"]}
"""

if __name__ == "__main__":
    compare(__doc__.split("\n\n")[0], _SETUP, "Markdown writer", "markdown")
