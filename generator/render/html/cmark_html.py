"""cmark-gfm's HTML for a Markdown text, with the memory of each parse given back.

cmarkgfm's `markdown_to_html_with_extensions` never frees the document tree its parser hands over nor the
HTML string it renders (its binding exposes no function that could): a build leaked about thirteen bytes
for each byte of prose, hundreds of megabytes on a large archive, and paid the page faults of all of it.
The two functions that free them are in the library cmarkgfm loads; they are called here through ctypes.
Where they cannot be found (another build of the binding), cmarkgfm's own function is used, as before.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Final

try:
    import cmarkgfm
    from cmarkgfm import _cmark
except ImportError:  # pragma: no cover - a platform without its wheel: fast_prose is off there
    cmarkgfm = None
    _cmark = None


class _Allocator(ctypes.Structure):
    """cmark's `cmark_mem`: the functions its strings and nodes are allocated and freed with."""

    _fields_ = [("calloc", ctypes.c_void_p), ("realloc", ctypes.c_void_p),
                ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p))]


def _freeing_functions() -> tuple[Callable[[int], None], Callable[[int], None]] | None:
    """cmark's `cmark_node_free` and its default allocator's `free`, or None where they cannot be had."""
    if _cmark is None:
        return None
    try:
        library = ctypes.CDLL(_cmark.__file__)
        free_node = library.cmark_node_free
        default_allocator = library.cmark_get_default_mem_allocator
    except (OSError, AttributeError):
        return None
    free_node.argtypes, free_node.restype = [ctypes.c_void_p], None
    default_allocator.argtypes, default_allocator.restype = [], ctypes.POINTER(_Allocator)
    return free_node, default_allocator().contents.free


def _table_extension() -> Any:
    if _cmark is None:
        return None
    _cmark.lib.cmark_gfm_core_extensions_ensure_registered()
    found = _cmark.lib.cmark_find_syntax_extension(b"table")
    return None if found == _cmark.ffi.NULL else found


_FREEING: Final = _freeing_functions()
_TABLE: Final[Any] = _table_extension()


def available() -> bool:
    return cmarkgfm is not None


def to_html(text: str, options: int) -> str:
    """The HTML cmark-gfm writes for `text` with these options and the table extension."""
    assert cmarkgfm is not None and _cmark is not None
    if _FREEING is None or _TABLE is None:
        return str(cmarkgfm.markdown_to_html_with_extensions(text, options, ["table"]))
    free_node, free = _FREEING
    lib, ffi = _cmark.lib, _cmark.ffi
    encoded = text.encode("utf-8")
    parser = lib.cmark_parser_new(options)
    try:
        lib.cmark_parser_attach_syntax_extension(parser, _TABLE)
        lib.cmark_parser_feed(parser, encoded, len(encoded))
        root = lib.cmark_parser_finish(parser)
        try:
            rendered = lib.cmark_render_html(root, options, lib.cmark_parser_get_syntax_extensions(parser))
            try:
                return str(ffi.string(rendered).decode("utf-8"))
            finally:
                free(int(ffi.cast("uintptr_t", rendered)))
        finally:
            free_node(int(ffi.cast("uintptr_t", root)))
    finally:
        lib.cmark_parser_free(parser)
