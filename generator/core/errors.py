"""One error tree, rooted at click.ClickException so the CLI prints one clear line and exits 1."""

from __future__ import annotations

import click


class SessionsiteError(click.ClickException):
    """Anything that stops a build."""

    exit_code = 1


class UsageProblem(SessionsiteError):
    """Options that cannot work together, such as an output folder inside the input: a usage error."""

    exit_code = 2


class InputError(SessionsiteError):
    """An INPUT that cannot be used: missing, unreadable, or holding no sessions."""


class ThemeError(SessionsiteError):
    """A theme folder that is missing or lacks a template."""


class StrictModeError(SessionsiteError):
    """--strict was given and the build produced diagnostics."""
