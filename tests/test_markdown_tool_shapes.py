"""The Markdown writer's quicker ways to the same answers: the language of a file name from Pygments' table
without matching every pattern, a Read output's numbered lines found in one pass. Each is held to a plain reference written here, on families that try where the
quick way could part from it; and the hostile shapes (a line number too long for a Python int) build."""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from pygments.lexers import find_lexer_class
from pygments.lexers._mapping import LEXERS

from generator.build import BuildConfig, build
from generator.render.markdown.pasted import looks_pasted
from generator.render.markdown.tool_views import _language_for_suffix, language_for


def pygments_choice(name: str) -> str:
    """Every Pygments filename pattern matched in turn, the best rated kept (`find_lexer_class_for_filename`)."""
    matches = [(lexer_name, aliases, pattern) for _, lexer_name, aliases, patterns, _ in LEXERS.values()
               for pattern in patterns if fnmatchcase(name, pattern)]
    if len(matches) > 1:
        def rating(match: tuple[str, tuple[str, ...], str]) -> tuple[float, str]:
            lexer = find_lexer_class(match[0])
            assert lexer is not None
            return lexer.priority + (0.5 if "*" not in match[2] else 0), lexer.__name__
        matches.sort(key=rating)
    return matches[-1][1][0] if matches and matches[-1][1] else ""


@pytest.mark.slow
def test_every_pygments_file_pattern_picks_the_language_pygments_picks():
    names = {"x.py", "x", "x.", ".", "", "Makefile", "makefile", "Makefile.am", "x.1", "x.10", "x.tar.gz", ".bashrc",
             "x.bash_profile", "bash_x", "CMakeLists.txt", "x.h", "x.PY", "Dockerfile", "x.xbm", "x.xcm", "x.php5",
             "x.gsed", "Kconfig-x", "xConfig.in.bak", "x.py[", "x.*", "x.?"}
    for spec in LEXERS.values():
        for pattern in spec[3]:
            plain = pattern.replace("*", "").replace("?", "q").replace("[", "").replace("]", "")
            names |= {"x" + pattern.lstrip("*"), plain}
    differing = [name for name in sorted(names) if _language_for_suffix(name) != pygments_choice(name)]
    assert differing == []
    assert len(names) > 1000


@pytest.mark.parametrize(("path", "language"), [("src/app.py", "python"), ("C:\\src\\main.rs", "rust"),
                                                ("Makefile", "make"), ("notes.unknownext", ""), ("a.tar.gz", "")])
def test_a_path_gets_its_language(path, language):
    assert language_for(path) == language


def test_a_date_and_a_time_on_two_lines_are_not_one_log_line():
    """Each line is shaped like a log or not by itself."""
    dates = "\n".join(["2026-10-01", "10:32 happened"] * 15) + "\n" + "words " * 300
    assert not looks_pasted(dates)
    assert looks_pasted("\n".join(["2026-10-01 10:32 happened"] * 30) + "\n" + "words " * 300)


@pytest.mark.parametrize("line, opens_a_fence", [
    ("```", True), ("   ~~~", True), ("  ````python", True), ("~~~~~", True),
    ("    ```", False), ("x ```", False), ("\t```", False), ("``", False), ("~~", False), ("`~~", False),
    ("    ^~~~ caret", False), ("a ``` then", False), ("````` ``` x", True), ("   x```", False),
])
def test_a_log_with_a_fence_the_person_wrote_is_theirs(line, opens_a_fence):
    """A fence line (up to three spaces, then three backticks or tildes) keeps a log as the person's text,
    wherever it is in the text; a marker further in, or after other text on its line, is no fence."""
    log = ["2026-10-01 10:32:05 ERROR worker stopped " + "x" * 60] * 30
    for where in (0, 15, 29):
        lines = [*log[:where], line, *log[where:]]
        for joined in ("\n".join(lines), "\n".join(lines) + "\n"):
            assert looks_pasted(joined) is not opens_a_fence, (line, where)
    # A marker later on a line that is no fence does not hide one on the next line.
    assert not looks_pasted("\n".join([*log, "error ``` in " + "```" * 50, "```"]))


def read_call(output: str) -> list[dict]:
    return [
        {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/x",
         "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:01Z",
         "cwd": "/x", "message": {"role": "assistant", "model": "m", "content": [
             {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x/a.py"}}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:02Z",
         "cwd": "/x", "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": output}]}},
    ]


def built_markdown(tmp_path: Path, output: str) -> str:
    folder = tmp_path / "logs" / "-x"
    folder.mkdir(parents=True)
    (folder / "s1.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in read_call(output)))
    build(BuildConfig(inputs=(folder,), output=tmp_path / "site", jobs=1, vault=None))
    return next((tmp_path / "site").rglob("*.md")).read_text()


def test_a_read_output_keeps_each_run_of_numbers_in_its_own_fence(tmp_path):
    markdown = built_markdown(tmp_path, "    7→a\n     8→b\n12\tc\n13→d\n")
    assert "```python startline=7\na\nb\n```" in markdown
    assert "```python startline=12\nc\nd\n```" in markdown


def test_a_read_output_with_an_unnumbered_line_is_shown_as_it_is(tmp_path):
    markdown = built_markdown(tmp_path, "1→a\nplain\n2→b")
    assert "```python\n1→a\nplain\n2→b\n```" in markdown


def test_a_line_number_too_long_for_python_builds(tmp_path):
    """It failed the whole build (int() refuses more than 4,300 digits): the line is shown, not numbered."""
    huge = "9" * 5000
    markdown = built_markdown(tmp_path, f"1→a\n{huge}→b\n3→c")
    assert "```python startline=1\na\n```\n\n```python\nb\n```\n\n```python startline=3\nc\n```" in markdown
