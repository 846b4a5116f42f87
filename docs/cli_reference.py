"""Write docs/cli.md, the command line reference, from the Click commands themselves.

    python docs/cli_reference.py          # write docs/cli.md
    python docs/cli_reference.py --check  # exit 1 if docs/cli.md is not what the commands say

Each command's section is its `--help`, as a terminal 100 columns wide shows it, so the reference says
exactly what the program says; tests/test_docs.py fails when the committed file falls out of step.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "cli.md"
WIDTH = 100

HEADER = """\
# Command line reference

<!-- Written by docs/cli_reference.py from the commands' own help: edit the commands, then run
     `python docs/cli_reference.py`. tests/test_docs.py fails when this file and the commands differ. -->

Every command takes `-h` or `--help`, which prints what its section below shows. Most options can also
come from a [config file](guide/config.md); a flag on the command line wins over the file.
"""


def _commands(group: click.Group, context: click.Context) -> list[tuple[str, click.Command, click.Context]]:
    """Every command under `group`, depth first in name order, each with the context its help is shown in."""
    found = []
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if command is None or command.hidden:
            continue
        child = click.Context(command, info_name=name, parent=context, terminal_width=WIDTH, max_content_width=WIDTH)
        found.append((child.command_path, command, child))
        if isinstance(command, click.Group):
            found.extend(_commands(command, child))
    return found


def _anchor(command_path: str) -> str:
    """The id MkDocs gives the heading `command_path` (its toc extension's slugify)."""
    return command_path.lower().replace(" ", "-")


def _table_cell(text: str) -> str:
    """Help text as the text of a Markdown table cell: outside `code`, which reads as code, a `|` would end
    the cell, `*` start emphasis and `<` a tag, where the terminal shows them as they are. A `|` ends the
    cell even inside code, so it is escaped everywhere."""
    pieces = re.split(r"(`[^`]*`)", text)
    for index in range(0, len(pieces), 2):  # the even pieces are outside backticks
        pieces[index] = pieces[index].replace("&", "&amp;").replace("<", "&lt;").replace("*", "\\*")
    return "".join(pieces).replace("|", "\\|")


def reference() -> str:
    if str(ROOT) not in sys.path:  # run as a script from anywhere: the checkout's generator, not another
        sys.path.insert(0, str(ROOT))
    from generator.cli import main

    # The group's own settings (`-h` beside `--help`), which every command's context inherits.
    root = click.Context(main, info_name="sessionsite", terminal_width=WIDTH, max_content_width=WIDTH,
                         **main.context_settings)
    commands = _commands(main, root)
    lines = [HEADER, "| command | what it does |", "|---|---|"]
    for path, command, _context in commands:
        summary = _table_cell(command.get_short_help_str(limit=200))
        lines.append(f"| [{path}](#{_anchor(path)}) | {summary} |")
    lines += ["", f"## {root.command_path}", "", "```text", main.get_help(root).rstrip(), "```", ""]
    for path, command, context in commands:
        lines += [f"## {path}", "", "```text", command.get_help(context).rstrip(), "```", ""]
    return "\n".join(lines)


def main() -> int:
    written = reference()
    if sys.argv[1:] == ["--check"]:
        current = TARGET.read_text(encoding="utf-8") if TARGET.is_file() else ""
        if current != written:
            print(f"{TARGET}: not what the commands say; run `python docs/cli_reference.py`", file=sys.stderr)
            return 1
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    TARGET.write_text(written, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
