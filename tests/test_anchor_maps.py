"""A long session's anchor map: the script its first page loads to follow a permalink to a later page,
and what phase 2 asks which page shows an anchor another session links to. Written and read by one module."""

from __future__ import annotations

import json

from generator.core import urls
from generator.render.html.anchors import PREFIX, SUFFIX, AnchorMapWriter, find_anchor_page

KEY = "-home-ada-src-app/4f1c"


def write_map(path, anchors):
    writer = AnchorMapWriter(path, KEY)
    for anchor, page in anchors:
        writer.add(anchor, page)
    return writer.close()


def test_the_map_is_a_script_holding_a_json_object_of_later_pages(tmp_path):
    path = tmp_path / "map.js"
    assert write_map(path, [("e-1", 1), ("e-2", 2), ("e-3", 12)])
    text = path.read_text(encoding="utf-8")
    assert text.startswith(PREFIX[:-1]) and text.endswith(SUFFIX)
    pages = json.loads(text[len(PREFIX) - 1: -len(SUFFIX) + 1])
    assert pages == {"e-2": urls.relative(urls.session_part(KEY, 1), urls.session_part(KEY, 2)),
                     "e-3": urls.relative(urls.session_part(KEY, 1), urls.session_part(KEY, 12))}


def test_each_anchor_is_found_on_its_page(tmp_path):
    path = tmp_path / "map.js"
    # Anchors a naive search would confuse: one ends another, one holds a quote, a comma and a colon.
    anchors = [("e-ab", 2), ("e-b", 3), ('e-"x",:y', 11), ("e-tail", 4)]
    write_map(path, anchors)
    assert [find_anchor_page(path, anchor) for anchor, _ in anchors] == [2, 3, 11, 4]


def test_an_anchor_on_the_first_page_or_without_a_map_is_on_page_one(tmp_path):
    path = tmp_path / "map.js"
    assert not write_map(path, [("e-1", 1)])  # nothing past the first page: no map at all
    assert not path.exists()
    write_map(path, [("e-2", 2)])
    assert find_anchor_page(path, "e-1") == 1
    assert find_anchor_page(tmp_path / "missing.js", "e-2") == 1
    (tmp_path / "empty.js").write_bytes(b"")
    assert find_anchor_page(tmp_path / "empty.js", "e-2") == 1


def test_page_numbers_come_back_from_page_paths():
    for page in (1, 2, 37):
        assert urls.part_number(urls.session_part(KEY, page)) == page
    assert urls.part_number(urls.session_part("-p/~p2", 1)) == 1  # a session named like a later page
