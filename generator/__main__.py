"""`python -m generator` runs the `sessionsite` program."""

from .program import run

run()
