"""What the build makes before its workers fork, chosen from the logs (a stranger's): the lexers of the
languages several files to render changed."""

from __future__ import annotations

from pygments.lexers._mapping import LEXERS

from generator.pipeline.phase2 import MOST_LEXERS_WARMED, languages_to_warm
from generator.render.html.render import COMMON_LANGUAGES


def every_extension_pygments_knows() -> list[str]:
    return sorted({pattern[2:] for _, _, _, patterns, _ in LEXERS.values() for pattern in patterns
                   if pattern.startswith("*.") and not any(special in pattern[2:] for special in "*?[")})


def test_logs_that_change_files_of_every_language_warm_only_a_few_lexers():
    """Edits of a file of each of Pygments' ~750 file endings, in two logs: made before the fork, their lexers
    would cost the build seconds for pages that show the edits as diffs."""
    paths = [f"/src/file.{extension}" for extension in every_extension_pygments_knows()]
    assert len(paths) > 500
    warmed = languages_to_warm([paths, paths])
    assert len(warmed) == MOST_LEXERS_WARMED


def test_the_languages_most_files_changed_are_warmed_first_and_those_of_one_file_not_at_all():
    files = [["a/x.rs", "a/y.rs", "a/z.go"], ["b/x.rs"], ["c/x.rs", "c/y.lua"], ["d/x.lua"], ["e/only.ex"],
             ["f/x.go"], ["g/notes"]]
    assert languages_to_warm(files) == ["rust", "go", "lua"]  # 3 files, then 2 and 2 by name; not elixir (1 file)


def test_the_common_languages_are_not_counted_against_the_limit():
    common = [f"/src/x.{extension}" for extension in ("py", "ts", "js", "json", "md", "sh", "diff")]
    others = [f"/src/y.{extension}" for extension in ("rs", "go", "rb", "lua", "ex", "kt", "swift", "scala", "hs", "ml",
                                                      "clj", "erl", "php", "pl")]
    warmed = languages_to_warm([common + others, common + others])
    assert len(warmed) == MOST_LEXERS_WARMED
    assert not set(warmed) & set(COMMON_LANGUAGES)
