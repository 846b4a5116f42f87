"""Names from the input cannot place files outside the output or on top of each other; transcript paths
are never read; a build never writes into its input; a killed build leaves the previous site whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.core import urls
from generator.build import BuildConfig, build
from generator.cli import main

from conftest import EXAMPLES
from helpers import assistant, chain, text, user, write_jsonl

HOSTILE_NAMES = ["..", "../../etc", "a b", "a_b", "a~20b", "index", ".hidden", "x/y", "é", "con", "x~p2", "-", ""]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_output_paths_stay_inside_and_never_collide():
    keys = [f"{project}/{name}" for project in ["-home-a", "home-a", "..", "-"] for name in HOSTILE_NAMES]
    keys += [f"-home-a/{name}/agent-x" for name in HOSTILE_NAMES]
    paths = [urls.session_page(key) for key in keys] + [urls.session_part(k, 2) for k in keys]
    paths += [urls.project_page(project) for project in ["-home-a", "..", "-"]] + [urls.INDEX]
    for path in paths:
        assert not path.startswith("/") and ".." not in path.split("/") and "//" not in path, path
        assert all(not part.startswith(".") for part in path.split("/")), path
    within = [urls.session_page(f"-home-a/{n}") for n in HOSTILE_NAMES]
    assert len(set(within)) == len(within)
    assert urls.project_page("-home-a") not in within


def test_hostile_session_and_project_names_build_inside_the_output(tmp_path):
    projects = tmp_path / "in"
    for project in ["-home-a", "home-a", "..x", "a b"]:
        for name in ["index", "files", "a b", "a_b", "x~p2", ".hidden"]:  # index and files: the site's own names
            write_jsonl(projects / project / f"{name}.jsonl", chain(user(f"hi from {project}/{name}"), assistant(text("ok"))))
    out = tmp_path / "site"
    report = build(BuildConfig(inputs=(projects,), output=out))
    assert report.sessions == 24
    written = [p.resolve() for p in out.rglob("*") if p.is_file()]
    assert all(out.resolve() in p.parents for p in written)
    pages = [p for p in written if p.suffix == ".html" and p.parent.parent.name == "projects"]
    assert len({p for p in pages if p.name not in ("index.html", "files.html", "commits.html")}) == 24


def test_a_path_named_in_a_transcript_is_never_read(tmp_path):
    secret = tmp_path / "private.png"
    secret.write_bytes(b"\x89PNG private bytes that must not be copied")
    part = {"type": "image", "source": {"type": "path", "path": str(secret)}}
    project = tmp_path / "in" / "-tmp-p"
    write_jsonl(project / "s.jsonl", chain(user([text("look"), dict(part, path=str(secret))]), assistant(text("ok"))))
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    assert all(b"private bytes" not in p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert str(secret) in (out / "projects" / "tmp-p" / "s.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["same", "inside", "holds"])
def test_the_output_may_not_be_inside_or_hold_its_input(tmp_path, where):
    project = tmp_path / "in" / "-tmp-p"
    write_jsonl(project / "s.jsonl", chain(user("hi"), assistant(text("ok"))))
    out = {"same": project, "inside": project / "site", "holds": tmp_path}[where]
    before = tree(tmp_path)
    result = CliRunner().invoke(main, ["build", str(project), "-o", str(out)])
    assert result.exit_code == 2 and "input" in result.output
    assert tree(tmp_path) == before


WRITING_COMMANDS = ["build", "markdown", "bundle"]


def _write_command(command: str, project: Path, out_folder: Path) -> list[str]:
    """The command line writing into `out_folder`: a site, Markdown, or a bundle of the one session."""
    if command == "bundle":
        return ["bundle", str(project / "s.jsonl"), "-o", str(out_folder / "pr.md")]
    return [command, str(project), "-o", str(out_folder / "site")]


def _everything(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


@pytest.mark.parametrize("command", WRITING_COMMANDS)
def test_the_output_may_not_be_inside_claude_folder(tmp_path, monkeypatch, command):
    monkeypatch.setenv("HOME", str(tmp_path))
    project = tmp_path / "work" / "-tmp-p"
    write_jsonl(project / "s.jsonl", chain(user("hi"), assistant(text("ok"))))
    (tmp_path / ".claude").mkdir()
    result = CliRunner().invoke(main, _write_command(command, project, tmp_path / ".claude"))
    assert result.exit_code == 2 and ".claude" in result.output
    assert _everything(tmp_path / ".claude") == []


@pytest.mark.parametrize("command", WRITING_COMMANDS)
@pytest.mark.parametrize("where", ["the input folder", "a folder inside it"])
def test_no_command_writes_into_what_it_reads(tmp_path, command, where):
    """A bundle reads the whole project folder of the session it is given: that is its input."""
    project = tmp_path / "in" / "-tmp-p"
    write_jsonl(project / "s.jsonl", chain(user("hi"), assistant(text("ok"))))
    (project / "notes").mkdir()
    before = _everything(tmp_path)
    result = CliRunner().invoke(main, _write_command(command, project, project if where == "the input folder"
                                                     else project / "notes"))
    assert result.exit_code == 2 and "input" in result.output, result.output
    assert _everything(tmp_path) == before


def _big_input(root: Path, copies: int) -> Path:
    for copy in range(copies):
        for source in EXAMPLES.rglob("*.jsonl"):
            target = root / f"-copy-{copy}" / source.relative_to(EXAMPLES).relative_to(source.relative_to(EXAMPLES).parts[0])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return root


@pytest.mark.slow
def test_a_killed_build_leaves_the_previous_site_whole(tmp_path):
    out = tmp_path / "site"
    first_input = _big_input(tmp_path / "first", 1)
    build(BuildConfig(inputs=(first_input,), output=out, jobs=1))
    previous = tree(out)
    second_input = _big_input(tmp_path / "second", 3)
    build(BuildConfig(inputs=(second_input,), output=tmp_path / "complete", jobs=1))
    complete = tree(tmp_path / "complete")
    command = [sys.executable, "-m", "generator", "build", str(second_input), "-o", str(out), "-j", "1"]
    outcomes = []
    for delay in (0.2, 0.5, 0.9, 1.4, 2.0, 3.0):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
        try:
            process.wait(timeout=delay)  # a build done sooner is past killing: no need to sit out the delay
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
        now = tree(out)
        # Killed at any moment, the output is the old site or the new one, whole: never a mixture.
        assert now in (previous, complete), f"half-written site after a kill at {delay} s"
        outcomes.append("new" if now == complete else "old")
        if now == complete:
            build(BuildConfig(inputs=(first_input,), output=out, jobs=1))
            previous = tree(out)
    assert "old" in outcomes  # at least one kill landed before the swap
    build(BuildConfig(inputs=(first_input,), output=out, jobs=1))  # the next build clears what a kill left
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.")] == []


def test_a_failed_build_leaves_no_half_built_site(tmp_path, monkeypatch):
    from generator.output import write

    out = tmp_path / "site"
    build(BuildConfig(inputs=(EXAMPLES,), output=out))
    previous = tree(out)

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(write, "_swap_in", fail)
    with pytest.raises(OSError):
        build(BuildConfig(inputs=(EXAMPLES,), output=out, show_hidden=True))  # other settings: a full build
    assert tree(out) == previous
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_report_json_is_valid_even_with_hostile_names(tmp_path):
    project = tmp_path / "in" / "-tmp-p"
    write_jsonl(project / "\u202egnp.jsonl", chain(user("<script>x</script>"), assistant(text("ok"))))
    report = build(BuildConfig(inputs=(project,), output=tmp_path / "site"))
    assert json.loads(report.to_json())["sessions"] == 1


def test_relative_links_are_what_posixpath_would_make():
    """urls.relative works on the names alone (posixpath.relpath asks the OS for the current folder)."""
    import itertools
    import posixpath

    keys = [f"{project}/{name}" for project in ["-home-a", "x~2fy"] for name in ["s", "index", "a b", "é"]]
    paths = [urls.INDEX, urls.asset("style.css"), urls.media("ab.png"), *map(urls.session_page, keys),
             *(urls.session_part(k, 3) for k in keys), *(urls.session_page(f"{k}/agent-x") for k in keys),
             *(urls.attachment(k, "e-1-output.txt") for k in keys), *(urls.project_page(k.split("/")[0]) for k in keys)]
    for page, target in itertools.product(paths, repeat=2):
        assert urls.relative(page, target) == posixpath.relpath(target, posixpath.dirname(page) or "."), (page, target)
