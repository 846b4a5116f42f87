"""gh-deploy as an attacker sees it: the remote and the branch come from the command line or from a
`sessionsite.toml` committed to the repository, and no value of either ever reaches git as an option, a
ref outside refs/heads/<branch>, or a transport that runs a command. A failed push leaves the user's refs
exactly as they were."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.commit_range import commits_in_range
from generator.core.errors import UsageProblem
from generator.output import deploy as deploy_module
from generator.output.deploy import DeployError, deploy

from conftest import EXAMPLES

LEDGER = EXAMPLES / "-Users-grace-work-ledger-api"


def git(folder: Path, *arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=folder, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch) -> Path:
    """A clone of a bare "GitHub" repository, on main, with one commit pushed and a gh-pages branch here."""
    for name, value in {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
                        "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}.items():
        monkeypatch.setenv(name, value)
    remote = tmp_path / "github.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(remote), str(work)], check=True, capture_output=True)
    git(work, "checkout", "-q", "-b", "main")
    (work / "README.md").write_text("# app\n", encoding="utf-8")
    git(work, "add", "README.md")
    git(work, "commit", "-q", "-m", "first")
    git(work, "push", "-q", "origin", "main")
    git(work, "branch", "gh-pages")
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<p>the site</p>", encoding="utf-8")
    return folder


def refs(repository: Path) -> str:
    """Every ref and what it points at, HEAD included: what a deploy must not change when it fails."""
    return git(repository, "for-each-ref", "--format=%(refname) %(objectname)") + git(repository, "symbolic-ref", "HEAD")


def gh_deploy(*arguments: str):
    return CliRunner().invoke(main, ["gh-deploy", str(LEDGER), *arguments, "--no-vault", "-j", "1"])


# Remote values that make git run a command (writing {marker}) wherever they become an option or a transport:
# each of git's options that names a program, the transports that run one or read a file descriptor, and a
# host that ssh would read as an option.
HOSTILE_REMOTES = ["--upload-pack=touch {marker};", "--receive-pack=touch {marker};", "--exec=touch {marker};",
                   "-utouch {marker};", "ext::sh -c touch% {marker}", "EXT::sh -c touch% {marker}", "fd::0", "fd::3,4",
                   "ssh://-oProxyCommand=touch%20{marker}/x", "-oProxyCommand=touch {marker}:x"]


# -- the remote ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("hostile", HOSTILE_REMOTES)
@pytest.mark.parametrize("push", [True, False])
def test_a_remote_that_would_run_a_command_is_refused_on_the_command_line(checkout, tmp_path, hostile, push):
    marker = tmp_path / "ran"
    remote = hostile.format(marker=marker)
    before = refs(checkout)
    result = gh_deploy(f"--remote={remote}", *(() if push else ("--no-push",)))
    assert not marker.exists()
    assert result.exit_code == 2, result.output
    assert "--remote" in result.output and "a configured remote's name or a URL" in result.output
    assert "session" not in result.output  # refused before building
    assert refs(checkout) == before


@pytest.mark.parametrize("hostile", HOSTILE_REMOTES)
def test_a_remote_that_would_run_a_command_is_refused_from_a_committed_config_file(checkout, tmp_path, hostile):
    marker = tmp_path / "ran"
    remote = hostile.format(marker=marker)
    config = checkout / "sessionsite.toml"
    config.write_text(f"[gh-deploy]\nremote = '''{remote}'''\n", encoding="utf-8")
    git(checkout, "add", "sessionsite.toml")
    git(checkout, "commit", "-q", "-m", "a config")
    before = refs(checkout)
    result = CliRunner().invoke(main, ["gh-deploy", str(LEDGER), "--no-vault", "-j", "1"])
    assert not marker.exists()
    assert result.exit_code == 2, result.output
    assert f"{config}: gh-deploy.remote" in result.output
    assert refs(checkout) == before


@pytest.mark.parametrize("hostile", HOSTILE_REMOTES)
def test_the_library_refuses_such_a_remote_too(checkout, site, tmp_path, hostile):
    marker = tmp_path / "ran"
    before = refs(checkout)
    with pytest.raises(UsageProblem, match="remote"):
        deploy(site, checkout, remote=hostile.format(marker=marker))
    assert not marker.exists()
    assert refs(checkout) == before


@pytest.mark.parametrize("hostile", HOSTILE_REMOTES)
def test_each_git_call_keeps_a_remote_that_slipped_through_from_being_an_option(checkout, site, tmp_path,
                                                                                 monkeypatch, hostile):
    """Were the check ever to let one through, git still reads it as a remote (and blocks the name)."""
    marker = tmp_path / "ran"
    monkeypatch.setattr(deploy_module, "check_remote", lambda *arguments, **keywords: None)
    with pytest.raises(DeployError):
        deploy(site, checkout, remote=hostile.format(marker=marker))
    assert not marker.exists()


def test_every_git_call_puts_the_values_it_is_given_after_the_end_of_its_options(checkout, site, tmp_path,
                                                                                  monkeypatch):
    """Each argument that carries the remote or the branch comes after `--end-of-options` (or `--`)."""
    remote, branch = str(tmp_path / "github.git"), "pages-of-ada"
    calls: list[list[str]] = []
    real_run = subprocess.run

    def recording(arguments, *rest, **keywords):
        calls.append(list(arguments))
        return real_run(arguments, *rest, **keywords)

    monkeypatch.setattr(deploy_module.subprocess, "run", recording)
    deploy(site, checkout, remote=remote, branch=branch)
    carrying = [(call, index) for call in calls for index, word in enumerate(call)
                if index > 0 and (word == remote or branch in word)]
    assert {subcommand(call) for call, _ in carrying} >= {"fetch", "push", "update-ref", "check-ref-format"}
    for call, index in carrying:
        if call[call.index("check-ref-format") + 1:][:1] == ["--branch"] if "check-ref-format" in call else False:
            # It reads no option after --branch: a name starting with - is refused (by the check, and by git).
            continue
        ends = [i for i, word in enumerate(call) if word in ("--end-of-options", "--")]
        assert ends and ends[0] < index, call
    assert git(tmp_path / "github.git", "rev-parse", f"refs/heads/{branch}") == git(checkout, "rev-parse", branch)


def subcommand(call: list[str]) -> str:
    """The git command a call runs, past git's own options (`-c name=value`)."""
    words = iter(call[1:])
    for word in words:
        if word == "-c":
            next(words)
        elif not word.startswith("-"):
            return word
    return ""


@pytest.mark.parametrize("how", ["path", "file-url", "name"])
def test_a_remote_named_or_given_as_a_url_or_a_path_still_deploys(checkout, site, tmp_path, how):
    bare = tmp_path / "github.git"
    if how == "name":
        git(checkout, "remote", "add", "pages", str(bare))
    remote = {"path": str(bare), "file-url": bare.as_uri(), "name": "pages"}[how]
    done = deploy(site, checkout, remote=remote)
    assert done.pushed
    assert git(bare, "rev-parse", "gh-pages").strip() == done.commit


@pytest.mark.parametrize("remote", ["nowhere", "origin ", "", "ori\ngin"])
def test_a_remote_that_is_neither_configured_nor_a_url_is_a_usage_error(checkout, remote):
    result = gh_deploy(f"--remote={remote}")
    assert result.exit_code == 2, result.output
    assert "--remote" in result.output


# -- the branch ----------------------------------------------------------------------------------------------


BAD_BRANCHES = ["HEAD", "refs/heads/x", "refs/tags/v1", "refs/remotes/origin/main", "-delete", "--force", "-",
                "@", "@{-1}", "a..b", "x.lock", "with space", "x~1", "x^", "x:y", "/x", "x/", "x//y", "",
                "heads/../x", "ta\tb", "HEAD/x", "x/HEAD", "FETCH_HEAD", "ORIG_HEAD"]


@pytest.mark.parametrize("branch", BAD_BRANCHES)
@pytest.mark.parametrize("push", [True, False])
def test_a_branch_name_that_is_not_a_plain_branch_is_refused_and_no_ref_is_made(checkout, branch, push):
    before = refs(checkout)
    result = gh_deploy(f"--remote-branch={branch}", *(() if push else ("--no-push",)))
    assert result.exit_code == 2, result.output
    assert "--remote-branch" in result.output
    assert refs(checkout) == before
    assert git(checkout.parent / "github.git", "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main"]


@pytest.mark.parametrize("branch", ["HEAD", "refs/heads/x", "-delete"])
def test_a_branch_name_from_a_committed_config_file_is_refused_naming_the_file(checkout, branch):
    config = checkout / "sessionsite.toml"
    config.write_text(f"[gh-deploy]\nbranch = '{branch}'\n", encoding="utf-8")
    before = refs(checkout)
    result = CliRunner().invoke(main, ["gh-deploy", str(LEDGER), "--no-vault", "-j", "1", "--no-push"])
    assert result.exit_code == 2, result.output
    assert f"{config}: gh-deploy.branch" in result.output
    assert refs(checkout) == before


@pytest.mark.parametrize("branch", BAD_BRANCHES)
def test_the_library_refuses_such_a_branch_too(checkout, site, branch):
    before = refs(checkout)
    with pytest.raises(UsageProblem, match="branch"):
        deploy(site, checkout, branch=branch, push=False)
    assert refs(checkout) == before


@pytest.mark.parametrize("branch", ["gh-pages", "pages/2026", "docs-site", "x.y", "ünïcode", "AHEAD", "head", "ref",
                                    "pages@2026"])
def test_plain_branch_names_deploy(checkout, site, branch):
    done = deploy(site, checkout, branch=branch, push=False)
    assert git(checkout, "rev-parse", f"refs/heads/{branch}").strip() == done.commit


# -- a push the remote refuses -------------------------------------------------------------------------------


@pytest.mark.parametrize("had_branch", [True, False])
def test_a_refused_push_leaves_every_ref_as_it_was(checkout, site, tmp_path, had_branch):
    bare = tmp_path / "github.git"
    hook = bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'no pushes today' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    if not had_branch:
        git(checkout, "branch", "-D", "gh-pages")
    before = refs(checkout)
    with pytest.raises(DeployError, match="push"):
        deploy(site, checkout)
    assert refs(checkout) == before
    assert git(bare, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main"]


def test_a_push_that_succeeds_then_moves_the_local_branch(checkout, site, tmp_path):
    done = deploy(site, checkout)
    assert git(checkout, "rev-parse", "gh-pages").strip() == done.commit
    assert git(tmp_path / "github.git", "rev-parse", "gh-pages").strip() == done.commit


# -- a commit range ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["--output={marker}..HEAD", "-o{marker}..x", "--all..HEAD", "main..--output={marker}",
                                   "HEAD..--all", "--exec-path={marker}..HEAD"])
def test_a_commit_range_is_never_an_option(checkout, tmp_path, given):
    marker = tmp_path / "written"
    try:
        hashes = commits_in_range(given.format(marker=marker), checkout)
    except UsageProblem as error:
        assert "--commits" in str(error) or "git rev-list" in str(error)
    else:  # git read it as a range: then it can only be one it resolved, and none of these is
        raise AssertionError(f"{given} was read as a range of {len(hashes)} commits")
    assert not marker.exists()
