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
        site = output or Path(temporary) / "site"
        config = build_config_from(options, output=site)
        run(config, None, verbose, quiet, review=review_before_publishing(options.yes, how_to_review(options)))
        with stopped_by_signals(), errors(verbose):
            done = deploy(site, Path.cwd(), remote, deploy_branch, message or DEFAULT_MESSAGE, push=push)
    if not quiet:
        where = f"pushed to {remote}" if done.pushed else "not pushed (--no-push)"
        click.echo(f"committed {done.files} files to {deploy_branch} ({done.commit[:12]}), {where}", err=True)
