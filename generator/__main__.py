"""`python -m generator` runs the `sessionsite` command."""

from .cli import main

main()
