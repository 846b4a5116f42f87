"""The documentation: the MkDocs site under docs/ builds in strict mode (no broken link or anchor, no page
left out of the nav), loads nothing from another host, and its command line reference (docs/cli.md) is
what the Click commands say. The README's links into it lead to files that exist."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml
from bs4 import BeautifulSoup

from conftest import REPO
from generator.cli import main

DOCS = REPO / "docs"


def mkdocs_build(project: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of the project folder `project` (its mkdocs.yml and docs/) into `site`."""
    # Not --quiet: MkDocs counts the warnings strict mode fails on as it logs them, and --quiet logs none.
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--config-file", str(project / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=project, capture_output=True, text=True, timeout=300)


def copy_of_the_docs(target: Path) -> Path:
    target.mkdir()
    shutil.copy(REPO / "mkdocs.yml", target / "mkdocs.yml")
    shutil.copytree(DOCS, target / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture(scope="module")
def built_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("docs-site") / "site"
    done = mkdocs_build(REPO, site)
    assert done.returncode == 0, done.stdout + done.stderr
    return site


def test_the_docs_build_in_strict_mode_with_a_page_for_every_markdown_file(built_docs):
    pages = sorted(path.relative_to(DOCS).with_suffix("") for path in DOCS.rglob("*.md"))
    assert len(pages) >= 15
    for page in pages:
        html = built_docs / ("index.html" if page.name == "index" else page / "index.html")
        assert html.is_file(), f"docs/{page}.md has no page in the built site"


def test_the_docs_load_nothing_from_another_host(built_docs):
    """MkDocs' theme can fetch highlight.js from a CDN; these pages must read the same offline."""
    remote = []
    for page in sorted(built_docs.rglob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for tag in soup.find_all(["script", "img", "iframe"], src=True):
            if re.match(r"(https?:)?//", tag["src"]):
                remote.append(f"{page.name}: {tag['src']}")
        for tag in soup.find_all("link", href=True):
            if "stylesheet" in (tag.get("rel") or []) and re.match(r"(https?:)?//", tag["href"]):
                remote.append(f"{page.name}: {tag['href']}")
    assert remote == []


@pytest.mark.parametrize("breakage", ["a link to a page that is not there", "an anchor that is not there",
                                      "a page left out of the nav"])
def test_strict_mode_fails_on_what_would_mislead_a_reader(tmp_path, breakage):
    """The build above passing means something: each of these, added to a copy of the docs, fails it."""
    project = copy_of_the_docs(tmp_path / "project")
    page = project / "docs" / "guide" / "vault.md"
    if breakage == "a link to a page that is not there":
        page.write_text(page.read_text(encoding="utf-8") + "\nSee [the tour](tour.md).\n", encoding="utf-8")
        warning = "contains a link 'tour.md'"
    elif breakage == "an anchor that is not there":
        page.write_text(page.read_text(encoding="utf-8") + "\nSee [the hook](#the-hooks).\n", encoding="utf-8")
        warning = "there is no such anchor on this page"
    else:
        (project / "docs" / "tour.md").write_text("# A tour\n", encoding="utf-8")
        warning = "are not included in the \"nav\""
    done = mkdocs_build(project, tmp_path / "site")
    assert done.returncode != 0, breakage
    assert warning in done.stderr


def test_the_docs_build_beside_site_never_into_it():
    """`mkdocs build` with no -d writes to site_dir, which MkDocs replaces whole: it must not be site/, the
    committed example archive."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    site_dir = (REPO / config["site_dir"]).resolve()
    committed = (REPO / "site").resolve()
    assert site_dir != committed and committed not in site_dir.parents and site_dir not in committed.parents
    top = site_dir.relative_to(REPO).parts[0]
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert f"/{top}/" in ignored or f"{top}/" in ignored, f"{top}/ is not in .gitignore"


# -- the command line reference ------------------------------------------------------------------------------


def load_cli_reference():
    spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "cli_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_cli_reference_is_what_the_commands_say():
    written = load_cli_reference().reference()
    committed = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert committed == written, "docs/cli.md is out of step with the commands: run `python docs/cli_reference.py`"


def every_command(group: click.Group, path: str) -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        found.append((f"{path} {name}", command))
        if isinstance(command, click.Group):
            found += every_command(command, f"{path} {name}")
    return found


def test_the_cli_reference_has_every_command_with_every_option():
    """Read from Click's own objects, not from the generator: each command, sub-commands included, has its
    section, and that section names each of its options and arguments."""
    reference = load_cli_reference().reference()
    sections = dict(re.findall(r"^## (sessionsite[\w -]*)\n(.*?)(?=^## |\Z)", reference, re.M | re.S))
    commands = every_command(main, "sessionsite")
    assert {"sessionsite hook install", "sessionsite gh-deploy"} <= {path for path, _ in commands}
    for path, command in commands:
        assert path in sections, f"{path} has no section"
        for parameter in command.params:
            names = parameter.opts if isinstance(parameter, click.Option) else [parameter.human_readable_name]
            for name in names:
                assert name in sections[path], f"{path}: {name} is not in its section"


# -- the README ------------------------------------------------------------------------------------------------


def test_every_link_in_the_readme_leads_to_a_file_that_exists():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    local = [target.split("#", 1)[0] for target in targets if not re.match(r"[a-z]+:", target)]
    assert len(local) >= 15
    missing = sorted({target for target in local if not (REPO / target).exists()})
    assert missing == []


def test_every_page_the_readme_lists_is_in_the_docs_nav():
    """A page the README sends a newcomer to is one the site shows (the nav is what strict mode checks)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {target.split("#", 1)[0].removeprefix("docs/")
             for target in re.findall(r"\]\((docs/[^)\s]+\.md(?:#[^)\s]*)?)\)", readme)}
    assert pages and all(re.search(rf":\s+{re.escape(page)}$", nav, re.M) for page in pages), pages


def test_the_workflow_the_docs_show_is_the_workflow_file():
    page = (DOCS / "guide" / "sharing.md").read_text(encoding="utf-8")
    shown = re.search(r"```yaml\n(.*?)```", page, re.S)
    assert shown, "docs/guide/sharing.md shows no workflow"
    assert shown.group(1) == (DOCS / "publish-sessions.yml").read_text(encoding="utf-8")
