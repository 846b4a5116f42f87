"""How the calls that read, change and find files read: Read, Edit, MultiEdit, Write, NotebookEdit,
apply_patch, Glob, Grep, LS."""

from __future__ import annotations

import difflib
import re
from typing import Any

from ...core.model import ToolCall
from ...core.text import strip_ansi
from .blocks import Block, Code
from .escape import inline_code
from .tool_views import (ToolContext, ToolView, display_path, label, language_for, output_block, renders, result_text,
                         text_of)


READ_LINE = re.compile(r"^ *(\d+)(?:→|\t)(.*)$")
_READ_LINES = re.compile(READ_LINE.pattern, re.MULTILINE)
"""`READ_LINE` over a whole output: each numbered line found once (neither part runs past a line's end)."""


@renders("Read")
def read(call: ToolCall, context: ToolContext) -> ToolView:
    path = text_of(call.input.get("file_path"))
    text = result_text(call)
    if call.result is None or call.result.is_error or not text:
        return ToolView("Read", display_path(path, context.cwd), output_block(call, context), target_is_path=True)
    shown = text.rstrip("\n")
    numbered = _READ_LINES.findall(shown)
    if len(numbered) != shown.count("\n") + 1:  # a line without its number: shown as it is
        return ToolView("Read", display_path(path, context.cwd), (Code(text, language_for(path)),), target_is_path=True)
    # One fence per run of consecutive numbers, so that each line keeps its own number.
    runs: list[tuple[str, list[str]]] = []
    previous: int | None = None
    for number, line in numbered:
        try:
            value: int | None = int(number)
        except ValueError:  # more digits than Python reads into a number: on its own, and not numbered
            value = None
        if value is not None and previous is not None and value == previous + 1:
            runs[-1][1].append(line)
        else:
            runs.append((number if value is not None else "", [line]))
        previous = value
    language = language_for(path)
    body = tuple(Code("\n".join(lines), language, f"startline={first}" if first else "") for first, lines in runs)
    return ToolView("Read", display_path(path, context.cwd), body, target_is_path=True)


def _patch_lines(structured: Any) -> list[str]:
    if not isinstance(structured, dict) or not isinstance(structured.get("structuredPatch"), list):
        return []
    lines: list[str] = []
    for hunk in structured["structuredPatch"]:
        if not isinstance(hunk, dict) or not isinstance(hunk.get("lines"), list):
            continue
        lines.append(
            f"@@ -{hunk.get('oldStart', 0)},{hunk.get('oldLines', 0)} "
            f"+{hunk.get('newStart', 0)},{hunk.get('newLines', 0)} @@"
        )
        lines.extend(str(line) for line in hunk["lines"])
    return lines


def _replacement_diff(old: str, new: str) -> list[str]:
    return [
        line.rstrip("\n")
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
        if not line.startswith(("---", "+++"))
    ]


def _diff_view(call: ToolCall, context: ToolContext, edits: list[tuple[str, str]]) -> ToolView:
    path = text_of(call.input.get("file_path")) or text_of(call.input.get("notebook_path"))
    structured = call.result.structured if call.result else None
    lines = _patch_lines(structured)
    if not lines:
        for old, new in edits:
            lines.extend(_replacement_diff(old, new))
    blocks: list[Block | str] = [Code(strip_ansi("\n".join(lines)), "diff", kind="diff")] if lines else []
    blocks.extend(output_block(call, context))
    return ToolView(call.name, display_path(path, context.cwd), tuple(blocks), target_is_path=True)


_PATCH_KINDS = {"add": "added", "update": "changed", "delete": "deleted"}


@renders("apply_patch")
def apply_patch(call: ToolCall, context: ToolContext) -> ToolView:
    """A patch of several files (Codex CLI): each file named with what became of it, then its diff. A patch
    whose files could not be told apart is shown as it was written."""
    changes = [change for change in call.input.get("changes") or () if isinstance(change, dict)]
    blocks: list[Block | str] = []
    for change in changes:
        path = display_path(text_of(change.get("path")), context.cwd)
        what = _PATCH_KINDS.get(text_of(change.get("kind")), text_of(change.get("kind")))
        moved = text_of(change.get("move_to"))
        blocks.append(label(f"{path} ({what}" + (f", moved to {display_path(moved, context.cwd)})" if moved else ")")))
        diff = text_of(change.get("diff"))
        if diff.strip():
            blocks.append(Code(strip_ansi(diff), "diff", kind="diff"))
    if not changes:
        blocks.append(Code(text_of(call.input.get("patch")), "diff", kind="diff"))
    blocks.extend(output_block(call, context))
    paths = [text_of(change.get("path")) for change in changes]
    target = display_path(paths[0], context.cwd) if len(paths) == 1 else f"{len(paths)} files" if paths else ""
    return ToolView("Patch", target, tuple(blocks), target_is_path=len(paths) == 1)


@renders("Edit")
def edit(call: ToolCall, context: ToolContext) -> ToolView:
    return _diff_view(call, context, [(text_of(call.input.get("old_string")), text_of(call.input.get("new_string")))])


@renders("MultiEdit")
def multi_edit(call: ToolCall, context: ToolContext) -> ToolView:
    edits = call.input.get("edits")
    pairs = [
        (text_of(e.get("old_string")), text_of(e.get("new_string")))
        for e in (edits if isinstance(edits, list) else [])
        if isinstance(e, dict)
    ]
    return _diff_view(call, context, pairs)


@renders("Write")
def write(call: ToolCall, context: ToolContext) -> ToolView:
    path = text_of(call.input.get("file_path"))
    blocks: list[Block | str] = [Code(text_of(call.input.get("content")), language_for(path))]
    blocks.extend(output_block(call, context))
    return ToolView("Write", display_path(path, context.cwd), tuple(blocks), target_is_path=True)


@renders("NotebookEdit")
def notebook_edit(call: ToolCall, context: ToolContext) -> ToolView:
    path = text_of(call.input.get("notebook_path"))
    mode = text_of(call.input.get("edit_mode")) or "replace"
    cell = text_of(call.input.get("cell_id"))
    language = "markdown" if call.input.get("cell_type") == "markdown" else "python"
    blocks = [f"{mode} cell {inline_code(cell)}" if cell else mode,
              Code(text_of(call.input.get("new_source")), language), *output_block(call, context)]
    return ToolView("NotebookEdit", display_path(path, context.cwd), tuple(blocks), target_is_path=True)


@renders("Glob")
def glob(call: ToolCall, context: ToolContext) -> ToolView:
    pattern = text_of(call.input.get("pattern"))
    where = text_of(call.input.get("path"))
    target = pattern + (f" in {display_path(where, context.cwd)}" if where else "")
    return ToolView("Glob", target, output_block(call, context))


@renders("Grep")
def grep(call: ToolCall, context: ToolContext) -> ToolView:
    pattern = text_of(call.input.get("pattern"))
    where = text_of(call.input.get("path")) or text_of(call.input.get("glob"))
    target = pattern + (f" in {display_path(where, context.cwd)}" if where else "")
    return ToolView("Grep", target, output_block(call, context))


@renders("LS")
def list_directory(call: ToolCall, context: ToolContext) -> ToolView:
    return ToolView("LS", display_path(text_of(call.input.get("path")), context.cwd), output_block(call, context),
                    target_is_path=True)
