"""The Markdown writer's quicker ways to the same answers: the language of a file name from Pygments' table
without matching every pattern, a pasted log told by one pass over the prompt, a Read output's numbered
lines found in one pass. Each is held to a plain reference written here, on families that try where the
quick way could part from it; and the hostile shapes (a line number too long for a Python int) build."""

from __future__ import annotations

import json
import random
import re
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from pygments.lexers import find_lexer_class
from pygments.lexers._mapping import LEXERS

from generator.build import BuildConfig, build
from generator.render.markdown import pasted
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


def shaped_lines(text: str) -> tuple[int, int]:
    """The reference: each line tested on its own (the non-blank lines, and those shaped like a log or code)."""
    lines = [line for line in text.split("\n") if line.strip()]
    single = re.compile(pasted._LOG_OR_CODE_LINE.pattern, re.VERBOSE)
    return len(lines), sum(1 for line in lines if single.match(line))


# Pieces of lines, some of which only make a shaped line together with the next line's start (a date on
# one line and its time on the next, a stack frame cut after `File`): one pass over the whole text must not
# join them.
PIECES = ["", "   ", "\t", "x = 1;", "def f():", "    return 1", "2026-10-01 10:32 INFO x", "2026-10-01", "10:32 x",
          "[ERROR] bad", "Oct  1 10:32:05 h", "Oct", " 1 10:32:05", "10.0.0.1 - -", "10.0.0.1", "  at foo.bar", "  at",
          "  File \"a.py\", line 3", "  File \"a", ".py\", line 3", "Traceback (most recent call last)", "Traceback",
          "(most recent call last)", "#0 0x1234", "#1", " 0xff", "ValueError: x", "prose a person wrote.", "{", "a;\r",
          "    ", "     x", "import os", "\u00a0\u00a0\u00a0\u00a0x", "x\x0b;", "\x0c", "2026-10-01T", "1:02:03", "File"]


def test_shaped_lines_are_counted_as_line_by_line():
    pick = random.Random(7)
    for _ in range(3000):
        text = "\n".join(pick.choice(PIECES) for _ in range(pick.randint(1, 30)))
        assert (len(pasted._NON_BLANK_LINE.findall(text)), len(pasted._LOG_OR_CODE_LINE.findall(text))) == \
            shaped_lines(text), repr(text)


def test_a_date_and_a_time_on_two_lines_are_not_one_log_line():
    dates = "\n".join(["2026-10-01", "10:32 happened"] * 15) + "\n" + "words " * 300
    assert not looks_pasted(dates)
    assert looks_pasted("\n".join(["2026-10-01 10:32 happened"] * 30) + "\n" + "words " * 300)


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
