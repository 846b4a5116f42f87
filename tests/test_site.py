"""`site/` is the committed build of `examples/`, and builds are deterministic."""

from __future__ import annotations

from pathlib import Path

from generator.build import BuildConfig, build

from conftest import EXAMPLES, REPO

SITE = REPO / "site"


def tree(root: Path) -> dict[str, bytes]:
    """Every file of a site, the build manifest included: it records nothing of where or when."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_of_the_same_input_are_byte_identical(examples_site, tmp_path):
    again = tmp_path / "again"
    build(BuildConfig(inputs=(EXAMPLES,), output=again))
    assert tree(again) == tree(examples_site)


def test_committed_site_is_a_fresh_build_of_examples(examples_site):
    assert SITE.is_dir(), "site/ is missing: run `sessionsite build examples -o site`"
    fresh, committed = tree(examples_site), tree(SITE)
    stale = sorted(path for path in fresh.keys() | committed.keys() if fresh.get(path) != committed.get(path))
    assert stale == [], "site/ is stale; rebuild it with `sessionsite build examples -o site`"


def test_build_does_not_depend_on_where_the_input_or_output_is(tmp_path):
    copy = tmp_path / "elsewhere" / "examples"
    copy.parent.mkdir()
    for source in EXAMPLES.rglob("*"):
        target = copy / source.relative_to(EXAMPLES)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    first, second = tmp_path / "one", tmp_path / "two"
    build(BuildConfig(inputs=(EXAMPLES,), output=first))
    build(BuildConfig(inputs=(copy,), output=second))
    assert tree(first) == tree(second)
