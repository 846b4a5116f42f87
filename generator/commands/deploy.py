"""`sessionsite gh-deploy`: build the site and commit it, alone, to the branch GitHub Pages serves."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from ..core.errors import UsageProblem
from .options import Options, build_config_from, origin
from .review import how_to_review, review_before_publishing
from .running import errors, run, stopped_by_signals


def build_and_deploy(options: Options, remote: str, deploy_branch: str, message: str | None, push: bool) -> None:
    """Check the repository, the branch and the remote, build the site (into a temporary folder unless -o
    names one), commit it to `deploy_branch` and push it to `remote` (unless not `push`)."""
    from ..output.deploy import DEFAULT_MESSAGE, check_branch, check_remote, check_repository, deploy

    output, verbose, quiet = options.output, options.verbose, options.quiet
    if output is not None and output.suffix.lower() == ".zip":
        raise UsageProblem(f"-o {output}: gh-deploy publishes a folder; name a folder, or leave -o out")
    with errors(verbose):  # before building, so as not to build in vain; the values may come from a config file
        check_repository(Path.cwd())
        check_branch(Path.cwd(), deploy_branch, origin("deploy_branch", "--remote-branch", "gh-deploy.branch"))
        check_remote(Path.cwd(), remote, origin("remote", "--remote", "gh-deploy.remote"), must_exist=push)
    with tempfile.TemporaryDirectory(prefix="sessionsite-gh-deploy-") as temporary:
        # An encrypted site is kept between deploys (in the cache, unless -o names a folder): with the same key,
        # a file whose content is unchanged keeps its bytes, and the branch changes only where the site did.
        site = output or (_kept_site(deploy_branch) if options.encrypt else Path(temporary) / "site")
        config = build_config_from(options, output=site)
        run(config, None, verbose, quiet, review=review_before_publishing(options.yes, how_to_review(options)))
        if config.key is not None and options.key_file is not None:
            with errors(verbose):
                warn_if_committable(options.key_file, Path.cwd())
        with stopped_by_signals(), errors(verbose):
            done = deploy(site, Path.cwd(), remote, deploy_branch, message or DEFAULT_MESSAGE, push=push)
    if not quiet:
        where = f"pushed to {remote}" if done.pushed else "not pushed (--no-push)"
        click.echo(f"committed {done.files} files to {deploy_branch} ({done.commit[:12]}), {where}", err=True)
    if config.key is not None:
        from .encryption import LIMITS, say_link

        if not quiet:
            click.echo(LIMITS, err=True)
        say_link(config.key, config.base_url + "index.html" if config.base_url
                 else "https://<you>.github.io/<repository>/index.html", options)


def _kept_site(branch: str) -> Path:
    import hashlib
    import os

    from ..output.deploy import check_repository

    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sessionsite"
    named = hashlib.sha1(f"{check_repository(Path.cwd())}\0{branch}".encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return root / f"deploy-{named}" / "site"


def warn_if_committable(key_file: Path, repository: Path) -> None:
    """A key file inside the repository that git would take in a `git add -A` is one commit from being public."""
    import logging
    import subprocess

    from ..output.deploy import check_repository

    root = Path(check_repository(repository)).resolve()
    key_file = key_file.resolve()
    if root not in key_file.parents:
        return
    ignored = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", "--end-of-options", str(key_file)],
                             capture_output=True)
    if ignored.returncode != 0:
        logging.getLogger("sessionsite").warning("--key-file %s: inside the repository and not ignored by git; "
                                                 "add it to .gitignore, or keep it outside", key_file)
