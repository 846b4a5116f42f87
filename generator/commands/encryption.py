"""`--encrypt`, `--key-file`, `--passphrase-file`, `--passphrase`: the key a command encrypts with, and the link
that opens what it wrote.

The key is shown once, in the link printed on standard output (never through logging, whose lines may be
kept), and kept only in the `--key-file` the user names.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import click

from ..core.errors import UsageProblem

if TYPE_CHECKING:
    from ..output.encrypt import SiteKey


class Options(Protocol):
    """The encryption options of a command's `options.Options`."""

    @property
    def encrypt(self) -> bool: ...
    @property
    def key_file(self) -> Path | None: ...
    @property
    def passphrase_file(self) -> Path | None: ...
    @property
    def passphrase(self) -> bool: ...

LIMITS = ("Encrypted: the host, crawlers and anyone without the link see locked pages only (how many there are, "
          "and their sizes); anyone with the link can read it all, and a link pasted in a chat stays in that "
          "chat. See docs/security.md.")


def wants_encryption(options: Options) -> bool:
    given = [name for name, value in (("--key-file", options.key_file), ("--passphrase-file", options.passphrase_file),
                                      ("--passphrase", options.passphrase)) if value]
    if given and not options.encrypt:
        raise UsageProblem(f"{given[0]} is for an encrypted output: add --encrypt")
    if options.key_file and (options.passphrase_file or options.passphrase):
        raise UsageProblem("--key-file and a passphrase: choose one (a key in a file, or a key made from a passphrase)")
    if options.passphrase_file and options.passphrase:
        raise UsageProblem("--passphrase-file and --passphrase: choose one")
    return options.encrypt


def site_key_of(options: Options, output: Path, previous_salt: bytes = b"") -> SiteKey | None:
    """The key to encrypt `output` with (None: not encrypted): from the key file (made there when new), from a
    passphrase (with the salt of the archive it replaces, so that its key stays the same), or new."""
    if not wants_encryption(options):
        return None
    from ..output.encrypt import check_passphrase, key_from_file, key_from_passphrase, new_key, read_passphrase_file

    if options.passphrase_file is not None:
        return key_from_passphrase(read_passphrase_file(options.passphrase_file), previous_salt or None)
    if options.passphrase:
        if not sys.stdin.isatty():
            raise UsageProblem("--passphrase asks in a terminal, and there is none: give --passphrase-file FILE")
        typed = click.prompt("Passphrase", hide_input=True, confirmation_prompt=True, err=True)
        return key_from_passphrase(check_passphrase(typed, "--passphrase"), previous_salt or None)
    if options.key_file is not None:
        _check_key_file_place(options.key_file, output)
        key, made = key_from_file(options.key_file)
        if made:
            click.echo(f"new key written to {options.key_file} (readable by you alone): keep it, and out of git",
                       err=True)
        return key
    return new_key()


def _check_key_file_place(key_file: Path, output: Path) -> None:
    key_file, output = key_file.resolve(), output.resolve()
    if output == key_file or output in key_file.parents:
        raise UsageProblem(f"--key-file {key_file}: inside the output, it would be published with it; keep it elsewhere")


def say_link(key: SiteKey, where: str, options: Options, *, zipped: bool = False) -> None:
    """The link that opens the output (`where`: its address, or the name of the page in it), on standard
    output; with a passphrase, the page to open and type it in."""
    if key.from_passphrase:
        click.echo(f"open {where} and type the passphrase")
    else:
        click.echo(f"{where}#{key.fragment}")
        if not options.key_file:
            click.echo("this link holds the only copy of the key (no --key-file): the next build makes a new one",
                       err=True)
    if zipped:
        click.echo("(once unzipped)", err=True)


def site_address(output: Path, base_url: str) -> str:
    """Where the built archive's index page is: its published address, or the file."""
    if base_url:
        return base_url + "index.html"
    if output.suffix.lower() == ".zip":
        return f"{output.stem}/index.html"
    return output.resolve().as_uri() + "/index.html"


def previous_salt(output: Path) -> bytes:
    """The passphrase's salt of the encrypted archive at `output`, if there is one."""
    from ..output.write import is_sessionsite_output

    if output.suffix.lower() == ".zip" or not output.is_dir() or not is_sessionsite_output(output):
        return b""
    from ..output.sealed_site import load_record

    return load_record(output).salt_bytes
