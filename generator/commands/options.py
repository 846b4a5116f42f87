"""The values a command was given, and the one place they become a `BuildConfig` or a `BundleConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import click

from ..core.errors import InputError, UsageProblem
from ..stages.discover import default_input, default_inputs

if TYPE_CHECKING:  # the build is loaded by the commands that build: `save`, run by a hook, stays light
    from contextlib import ExitStack

    from ..bundle import BundleConfig
    from ..stages.discover import SessionFile
    from ..config import BuildConfig
    from ..stages.redact import OwnRules
    from ..stages.selection import Selection

EXAMPLE_COMMAND = "sessionsite build examples -o demo"
# What each command that reads logs suggests, run with none: itself on the examples where that makes sense.
EXAMPLE_COMMANDS = {"serve": "sessionsite serve examples", "audit": "sessionsite audit examples",
                    "markdown": "sessionsite markdown examples -o demo"}


@dataclass(frozen=True)
class Options:
    """The options of the commands that read logs, named as Click names them; a command without an option
    gets the default, which is the build's."""

    inputs: tuple[Path, ...] = ()
    output: Path | None = None
    report_file: Path | None = None
    show_hidden: bool = False
    strict: bool = False
    no_redact: bool = False
    redact_paths: bool = False
    jobs: int = 1
    verbose: bool = False
    quiet: bool = False
    prune: bool = False
    vault_dir: Path | None = None
    no_vault: bool = False
    since: str | None = None
    until: str | None = None
    projects: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    branches: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()
    redact_patterns: tuple[str, ...] = ()
    redact_words: tuple[str, ...] = ()
    theme: Path | None = None
    base_url: str = ""
    title: str | None = None
    repo_url: str = ""
    commit_range: str | None = None
    yes: bool = False
    """Publish the values nobody reviewed as they are (`commands.review`)."""
    encrypt: bool = False
    key_file: Path | None = None
    passphrase_file: Path | None = None
    passphrase: bool = False


def build_config_from(options: Options, output: Path | None = None, markdown_only: bool = False) -> BuildConfig:
    """The build's config; `output` stands in for the options' own (gh-deploy's temporary folder, serve's)."""
    from ..config import BuildConfig
    from .encryption import previous_salt, site_key_of

    folder = output if output is not None else options.output
    assert folder is not None, "a command that builds has an output"
    key = site_key_of(options, folder, previous_salt(folder) if options.encrypt else b"")
    return BuildConfig(inputs=inputs_or_default(options.inputs), output=folder, theme=options.theme,
                       show_hidden=options.show_hidden, markdown_only=markdown_only, strict=options.strict,
                       jobs=options.jobs, redact=not options.no_redact, redact_paths=options.redact_paths,
                       base_url=options.base_url, vault=vault_of(options.vault_dir, options.no_vault),
                       prune=options.prune, title=options.title or "", repo_url=options.repo_url,
                       selection=selection_of(options), own_redaction=own_rules_of(options), key=key)


def bundle_config_from(options: Options) -> BundleConfig:
    """The bundle's config: its inputs are the sessions given (none: the branch's), never the default folder."""
    from ..bundle import BundleConfig
    from .encryption import site_key_of

    assert options.output is not None, "bundle has an output"
    if options.encrypt and options.output.suffix.lower() in (".md", ".markdown"):
        raise UsageProblem(f"-o {options.output}: a Markdown bundle cannot be encrypted (GitHub shows it as text); "
                           "write .html or .zip")
    branch = options.branches[0] if options.branches and not options.inputs and not options.commit_range else ""
    return BundleConfig(inputs=tuple(options.inputs), output=options.output, show_hidden=options.show_hidden,
                        strict=options.strict, redact=not options.no_redact, redact_paths=options.redact_paths,
                        jobs=options.jobs, vault=vault_of(options.vault_dir, options.no_vault),
                        commits=options.commit_range or "", repo_url=options.repo_url, branch=branch,
                        selection=selection_of(options), own_redaction=own_rules_of(options), theme=options.theme,
                        key=site_key_of(options, options.output))


def inputs_or_default(given: tuple[Path, ...]) -> tuple[Path, ...]:
    if given:
        return given
    # Every agent's own folder: Claude Code's projects, Codex CLI's sessions and archived sessions.
    defaults = default_inputs()
    if not defaults:
        context = click.get_current_context(silent=True)
        example = EXAMPLE_COMMANDS.get(context.info_name or "", EXAMPLE_COMMAND) if context else EXAMPLE_COMMAND
        raise InputError(f"no INPUT given and {default_input()} does not exist (nor Codex CLI's sessions); "
                         f"to try it on the examples: {example}")
    return tuple(defaults)


def vault_of(vault_dir: Path | None, no_vault: bool) -> Path | None:
    return None if no_vault else vault_folder(vault_dir)


def vault_folder(vault_dir: Path | None) -> Path:
    from ..output.vault import default_location

    return vault_dir or default_location()


def origin(parameter: str, option: str, key: str) -> str:
    """How an error names a value: by its option, or by the config file and key it came from."""
    context = click.get_current_context(silent=True)
    if context is not None and context.get_parameter_source(parameter) == click.core.ParameterSource.DEFAULT_MAP:
        return f"{context.meta.get('sessionsite.config', 'the config file')}: {key}"
    return option


def selection_of(options: Options) -> Selection:
    from ..stages.selection import Selection, parse_when

    since, until = options.since, options.until
    return Selection(since=parse_when(since, origin("since", "--since", "select.since")) if since else None,
                     until=parse_when(until, origin("until", "--until", "select.until"), end_of_day=True) if until else None,
                     projects=tuple(options.projects), excludes=tuple(options.excludes),
                     branches=tuple(options.branches), sessions=tuple(options.session_ids))


def own_rules_of(options: Options) -> OwnRules:
    """The user's own patterns and words, and the values they decided to redact on review."""
    from .decided import with_decisions

    return with_decisions(own_rules(options.redact_patterns, options.redact_words))


def own_rules(patterns: Sequence[str], words: Sequence[str]) -> OwnRules:
    from ..stages.redact import OwnRuleError, OwnRules

    rules = OwnRules(tuple(patterns), tuple(words))
    try:
        rules.check()
    except OwnRuleError as error:
        where = origin("redact_patterns", "--redact", "redact") if "regular" in str(error) or "empty text" in str(error) \
            else origin("redact_words", "--redact-word", "redact_words")
        raise UsageProblem(f"{where}: {error}") from None
    return rules


def files_to_read(inputs: list[Path], options: Options, own: OwnRules, stack: ExitStack) -> list[SessionFile]:
    """The logs a build with these options reads: those under the inputs, and the vault's copies of those
    that are gone (read back into a private folder until `stack` closes)."""
    from ..config import arranged
    from ..stages.discover import find

    live = find(inputs)
    vault_folder = vault_of(options.vault_dir, options.no_vault)
    kept: list[SessionFile] = []
    if vault_folder is not None and vault_folder.exists():
        from ..output.vault import Vault, VaultError

        vault = Vault(vault_folder)
        try:
            gone, _ = vault.gone_under(inputs, live)
        except VaultError as error:
            click.echo(f"{error}; the vault's logs are not read", err=True)
            gone = []
        if gone:
            work = stack.enter_context(vault.work_folder())
            kept = [stored.session_file(vault.database, work) for stored in gone]
    return arranged(live + kept, inputs, options.redact_paths, None, own)
