"""`sessionsite gh-deploy`, against a local bare repository standing in for GitHub: the gh-pages branch
holds the built site and no log, a deploy adds a commit, and the user's checkout is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.output.deploy import DeployError, deploy

from conftest import EXAMPLES
from helpers import git, github_clone

LEDGER = EXAMPLES / "-Users-grace-work-ledger-api"


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch) -> Path:
    """A clone of a bare "GitHub" repository, on main, with a change not committed and a file not added."""
    work = github_clone(tmp_path, monkeypatch)
    (work / "README.md").write_text("# app, being edited\n", encoding="utf-8")
    (work / "notes.txt").write_text("not added\n", encoding="utf-8")
    git(work, "add", "-N", "notes.txt")
    monkeypatch.chdir(work)
    return work


def state(work: Path) -> tuple[str, ...]:
    """What a user sees of their checkout: branch, HEAD, status, the staged and unstaged changes."""
    return (git(work, "symbolic-ref", "HEAD"), git(work, "rev-parse", "HEAD"), git(work, "status", "--porcelain"),
            git(work, "diff"), git(work, "diff", "--cached"), (work / "README.md").read_text(encoding="utf-8"))


def published(remote: Path, branch: str = "gh-pages") -> list[str]:
    return git(remote, "ls-tree", "-r", "--name-only", branch).split()


def gh_deploy(*arguments: str):
    return CliRunner().invoke(main, ["gh-deploy", *arguments, "--no-vault", "-j", "1"])


def test_deploy_publishes_the_site_only_and_leaves_the_checkout_alone(checkout, tmp_path):
    before = state(checkout)
    result = gh_deploy(str(LEDGER), "--title", "Ledger")
    assert result.exit_code == 0, result.output
    remote = tmp_path / "github.git"
    files = published(remote)
    assert "index.html" in files and ".nojekyll" in files
    assert any(name.startswith("projects/") and name.endswith(".html") for name in files)
    assert not [name for name in files if name.endswith(".jsonl")]
    assert ".sessionsite-manifest.json" not in files and ".sessionsite" not in files
    assert "README.md" not in files  # the branch holds the site, not the repository's files
    assert "Ledger" in git(remote, "show", "gh-pages:index.html")
    assert state(checkout) == before
    message = git(remote, "log", "-1", "--format=%s", "gh-pages")
    assert message.startswith(f"Deployed {git(checkout, 'rev-parse', '--short', 'HEAD').strip()} with sessionsite")


def test_a_second_deploy_adds_a_commit_on_top_of_the_first(checkout, tmp_path):
    remote = tmp_path / "github.git"
    assert gh_deploy(str(LEDGER)).exit_code == 0
    first = git(remote, "rev-parse", "gh-pages").strip()
    # The examples hold two random-looking values nobody reviewed: published as they are (test_review.py).
    result = gh_deploy(str(EXAMPLES), "--message", "All the sessions", "--yes")
    assert result.exit_code == 0, result.output
    assert git(remote, "rev-parse", "gh-pages^").strip() == first
    assert git(remote, "log", "-1", "--format=%s", "gh-pages").strip() == "All the sessions"
    assert any(name.startswith("projects/home-ada-src-tidewatch/") for name in published(remote))


def test_no_push_commits_here_only(checkout, tmp_path):
    before = state(checkout)
    result = gh_deploy(str(LEDGER), "--no-push", "--remote-branch", "pages")
    assert result.exit_code == 0, result.output
    assert "index.html" in published(checkout, "pages")
    assert git(tmp_path / "github.git", "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main"]
    assert state(checkout) == before


def test_the_selection_and_redaction_apply(checkout, tmp_path):
    result = gh_deploy(str(EXAMPLES), "--project", "ledger-api", "--redact-word", "grace")
    assert result.exit_code == 0, result.output
    remote = tmp_path / "github.git"
    files = published(remote)
    assert not [name for name in files if "tidewatch" in name]
    page = next(name for name in files if name.startswith("projects/") and name.endswith(".html"))
    assert "grace" not in git(remote, "show", f"gh-pages:{page}").lower()


def test_outside_a_repository_it_says_so_before_building(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = gh_deploy(str(LEDGER))
    assert result.exit_code == 1
    assert "is not in a git repository" in result.output
    assert "session" not in result.output  # no build summary: it did not build


def test_the_checked_out_branch_is_never_the_target(checkout):
    result = gh_deploy(str(LEDGER), "--remote-branch", "main", "--no-push")
    assert result.exit_code == 2
    assert "main is the branch checked out here" in result.output


def test_a_folder_holding_a_log_is_refused(checkout, tmp_path):
    site = tmp_path / "site"
    (site / "projects").mkdir(parents=True)
    (site / "index.html").write_text("<p>hi</p>", encoding="utf-8")
    (site / "projects" / "leaked.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(DeployError, match="never published.*leaked.jsonl"):
        deploy(site, checkout, push=False)
    assert "gh-pages" not in git(checkout, "branch", "--list")


def test_an_unreachable_remote_is_one_clear_error(checkout, tmp_path):
    nowhere = str(tmp_path / "nowhere.git")
    result = gh_deploy(str(LEDGER), "--remote", nowhere)
    assert result.exit_code == 1
    assert f"cannot reach the remote {nowhere!r}" in result.output


def test_a_remote_neither_configured_nor_a_url_is_a_usage_error_before_building(checkout):
    result = gh_deploy(str(LEDGER), "--remote", "nowhere")
    assert result.exit_code == 2
    assert "--remote 'nowhere': no remote of that name is configured, and it is not a URL" in result.output
    assert "session" not in result.output


def every_object(repository: Path) -> bytes:
    """The bytes of every object git holds, in any branch or none."""
    import subprocess

    return subprocess.run(["git", "-C", str(repository), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def test_an_encrypted_deploy_publishes_ciphertext_and_the_shell_and_the_key_never_enters_git(checkout, tmp_path):
    import re

    from test_encryption import assert_no_transcript_word, output_files

    key_file = checkout / "pages.key"  # where a user might well put it: in the repository, not ignored
    plain = tmp_path / "plain"
    assert gh_deploy(str(LEDGER), "--no-push", "--remote-branch", "plain-pages", "-o", str(plain)).exit_code == 0
    result = gh_deploy(str(LEDGER), "--encrypt", "--key-file", str(key_file), "--base-url", "https://ada.github.io/app/")
    assert result.exit_code == 0, result.output
    secret = key_file.read_text(encoding="ascii").strip()
    assert result.stdout.strip().endswith(f"https://ada.github.io/app/index.html#key={secret}")
    assert "anyone with the link can read it all" in result.stderr
    assert "not ignored by git" in result.stderr

    remote = tmp_path / "github.git"
    files = published(remote)
    assert all(re.fullmatch(r"index\.html|[0-9a-f]{32}\.(html|js)|assets/[a-z]+\.(css|js)|\.nojekyll", name)
               for name in files), files
    assert len([name for name in files if name.endswith(".html")]) > 3
    blobs = {name: git_bytes(remote, f"gh-pages:{name}") for name in files}
    assert_no_transcript_word(sorted(LEDGER.rglob("*.jsonl")), blobs, output_files(plain))
    for repository in (remote, checkout):
        assert secret.encode() not in every_object(repository)
    assert "pages.key" not in git(checkout, "ls-files")

    # A second deploy with the same key changes nothing that did not change.
    first = git(remote, "rev-parse", "gh-pages:").strip()
    again = gh_deploy(str(LEDGER), "--encrypt", "--key-file", str(key_file), "--base-url", "https://ada.github.io/app/")
    assert again.exit_code == 0, again.output
    assert git(remote, "rev-parse", "gh-pages:").strip() == first


def git_bytes(repository: Path, object_name: str) -> bytes:
    import subprocess

    return subprocess.run(["git", "-C", str(repository), "cat-file", "blob", object_name], capture_output=True,
                          check=True).stdout
