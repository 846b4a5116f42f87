"""sessionsite: Claude Code session logs -> Markdown -> a static HTML archive.

The pipeline runs one way, one module per stage, each importing only from the stages before it:

    discover -> read -> redact -> interpret -> link -> markdown -> html -> write

`build.build()` runs it; `cli` is a thin Click layer over that. `model` holds the frozen types the stages
pass along, and `urls` decides where every output file goes.
"""

__version__ = "0.1.0"
