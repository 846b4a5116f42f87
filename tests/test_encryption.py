"""`--encrypt` (issue 41): the keys, each file sealed, and what an encrypted build lets out.

The leak checks collect the words of the input transcripts themselves (every string of every JSONL line, not
what sessionsite made of them) and look for each in every byte of every output file and in every file's name.
Each check first shows it can fail: the same words are found in the plain build of the same logs.
"""

from __future__ import annotations

import json
import os
import re
import stat
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.build import BuildConfig, build
from generator.cli import main
from generator.core.errors import UsageProblem
from generator.output.encrypt import (PBKDF2_ITERATIONS, DecryptionError, Sealer, key_from_file, key_from_passphrase,
                                      new_key)
from generator.output.sealed_site import SEALED_RECORD, load_record

from conftest import EXAMPLES, corpus_files

WORD = re.compile(rb"[A-Za-z]{8,}")
"""Words of eight letters or more, case kept: a chance match inside base64 (64 symbols) is then about one in
2.8e14 per place, so that a match means a leak, not luck."""


def transcript_words(files: list[Path]) -> set[bytes]:
    """Every word of eight letters or more in any string of the logs (keys and values), as written."""
    words: set[bytes] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            words.update(WORD.findall(value.encode("utf-8")))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in files:
        for line in path.read_bytes().splitlines():
            try:
                walk(json.loads(line))
            except ValueError:
                words.update(WORD.findall(line))  # a broken line is still transcript
    return words


def output_files(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def shell_parts(files: dict[str, bytes]) -> dict[str, bytes]:
    """What our own shell holds in clear (the theme's scripts and styles, the record, the locked page around its
    data): sessionsite's words, which a transcript may share."""
    parts: dict[str, bytes] = {}
    for name, data in files.items():
        if name.startswith("assets/") or name == SEALED_RECORD:
            parts[name] = data
        elif name.endswith((".html", ".htm")):
            parts[name] = re.sub(rb">[A-Za-z0-9+/=]{40,}<", b"><", data)
    return parts


def found_in(words: set[bytes], files: dict[str, bytes]) -> dict[bytes, str]:
    """Of `words`, those some file holds (in its bytes or its name), with one file holding each."""
    import hyperscan

    listed = sorted(words)
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=[re.escape(word) for word in listed], ids=list(range(len(listed))),
                     elements=len(listed), flags=[0] * len(listed))
    found: dict[bytes, str] = {}
    for name, data in files.items():
        def seen(number: int, start: int, end: int, flags: int, context: object, name: str = name) -> None:
            found.setdefault(listed[number], name)
        database.scan(data + b"\n" + name.encode("utf-8"), match_event_handler=seen)
    return found


def assert_no_transcript_word(inputs: list[Path], encrypted: dict[str, bytes], plain: dict[str, bytes]) -> None:
    words = transcript_words(inputs)
    words -= set(found_in(words, shell_parts(encrypted)))
    in_plain = found_in(words, plain)
    assert len(in_plain) > 50, "the check must be able to fail: the plain build shows the transcripts' words"
    leaked = found_in(words, encrypted)
    assert not leaked, f"transcript words in the encrypted output: {sorted(leaked.items())[:10]}"


# -- the keys and the sealing ------------------------------------------------------------------------------


def test_a_sealed_file_opens_with_its_key_and_name_only():
    key = new_key()
    sealer = Sealer(key)
    name = sealer.name_of("projects/app/one.html")
    sealed = sealer.seal(name, "projects/app/one.html", b"<p>the page</p>")
    assert sealer.open(name, sealed) == ("projects/app/one.html", b"<p>the page</p>")
    assert sealer.seal(name, "projects/app/one.html", b"<p>the page</p>") != sealed  # a fresh nonce each time
    with pytest.raises(DecryptionError):
        Sealer(new_key()).open(name, sealed)  # another key
    other = sealer.name_of("projects/app/two.html")
    with pytest.raises(DecryptionError):
        sealer.open(other, sealed)  # moved into another file's place
    for place in (0, 12, len(sealed) // 2, len(sealed) - 1):  # the nonce, the text, the tag
        flipped = bytearray(sealed)
        flipped[place] ^= 1
        with pytest.raises(DecryptionError):
            sealer.open(name, bytes(flipped))


def test_names_depend_on_the_key_and_say_nothing_of_the_path():
    path = "projects/home-ada-src-tidewatch/8e2d5b90.html"
    first, second = Sealer(new_key()).name_of(path), Sealer(new_key()).name_of(path)
    assert first != second and re.fullmatch(r"[0-9a-f]{32}", first)
    assert "tidewatch" not in first


def test_a_passphrase_makes_the_same_key_with_the_same_salt_only():
    first = key_from_passphrase("correct horse battery staple", iterations=1000)
    again = key_from_passphrase("correct horse battery staple", first.salt, iterations=1000)
    assert again.master == first.master and again.key_id == first.key_id
    assert key_from_passphrase("correct horse battery staple", iterations=1000).master != first.master  # new salt
    assert key_from_passphrase("correct horse battery stapler", first.salt, iterations=1000).master != first.master
    assert len(first.salt) == 16 and PBKDF2_ITERATIONS >= 600_000


def test_the_key_is_in_no_repr():
    key = new_key()
    assert key.fragment.split("=", 1)[1] not in repr(key)
    assert key.fragment.split("=", 1)[1] not in repr(BuildConfig(inputs=(), output=Path("x"), key=key))


def test_a_key_file_is_made_private_and_read_back(tmp_path):
    path = tmp_path / "site.key"
    key, made = key_from_file(path)
    assert made and stat.S_IMODE(path.stat().st_mode) == 0o600
    again, made_again = key_from_file(path)
    assert not made_again and again.master == key.master


@pytest.mark.parametrize("content", ["", "not a key\n", "c2hvcnQ\n", "é" * 43 + "\n", "A" * 44 + "\n"])
def test_a_key_file_of_another_shape_is_refused_and_left_alone(tmp_path, content):
    path = tmp_path / "site.key"
    path.write_text(content, encoding="utf-8")
    path.chmod(0o600)
    with pytest.raises(UsageProblem, match="not a key sessionsite wrote"):
        key_from_file(path)
    assert path.read_text(encoding="utf-8") == content


def test_a_key_file_others_can_read_is_refused(tmp_path):
    path = tmp_path / "site.key"
    key_from_file(path)
    path.chmod(0o644)
    with pytest.raises(UsageProblem, match="chmod 600"):
        key_from_file(path)


def test_a_key_file_planted_as_a_link_is_not_written_through(tmp_path):
    target = tmp_path / "elsewhere"
    (tmp_path / "site.key").symlink_to(target)
    with pytest.raises(UsageProblem):
        key_from_file(tmp_path / "site.key")
    assert not target.exists()


# -- the command line ----------------------------------------------------------------------------------------


def run(*arguments: str):
    return CliRunner().invoke(main, [*arguments, "--no-vault", "-j", "1"])


@pytest.mark.parametrize("arguments, message", [
    (["--key-file", "k"], "add --encrypt"),
    (["--encrypt", "--key-file", "k", "--passphrase"], "choose one"),
    (["--encrypt", "--passphrase"], "no terminal|there is none"),
])
def test_encryption_options_that_do_not_go_together(tmp_path, arguments, message):
    result = run("build", str(EXAMPLES / "-Users-grace-work-ledger-api"), "-o", str(tmp_path / "site"), *arguments)
    assert result.exit_code == 2 and re.search(message, result.output), result.output


def test_a_key_file_inside_the_output_is_refused(tmp_path):
    out = tmp_path / "site"
    result = run("build", str(EXAMPLES / "-Users-grace-work-ledger-api"), "-o", str(out), "--encrypt",
                 "--key-file", str(out / "key"))
    assert result.exit_code == 2 and "would be published" in result.output


def test_a_short_passphrase_is_refused(tmp_path):
    (tmp_path / "pass").write_text("hunter2\n", encoding="utf-8")
    result = run("build", str(EXAMPLES / "-Users-grace-work-ledger-api"), "-o", str(tmp_path / "site"), "--encrypt",
                 "--passphrase-file", str(tmp_path / "pass"))
    assert result.exit_code == 2 and "at least 12 characters" in result.output


def test_the_link_holds_the_key_and_the_key_file_stays_out_of_the_site(tmp_path):
    out, key_file = tmp_path / "site", tmp_path / "site.key"
    result = CliRunner().invoke(main, ["build", str(EXAMPLES / "-Users-grace-work-ledger-api"), "-o",
                                                       str(out), "--encrypt", "--key-file", str(key_file),
                                                       "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.stderr
    secret = key_file.read_text(encoding="ascii").strip()
    assert result.stdout.strip() == f"{out.resolve().as_uri()}/index.html#key={secret}"
    assert secret not in result.stderr
    for name, data in output_files(out).items():
        assert secret.encode() not in data, name


# -- what an encrypted build lets out --------------------------------------------------------------------------


def test_nothing_of_the_examples_is_in_their_encrypted_build(examples_site, tmp_path):
    out = tmp_path / "sealed"
    build(BuildConfig(inputs=(EXAMPLES,), output=out, key=new_key(), vault=None))
    files = output_files(out)
    assert all(re.fullmatch(r"index\.html|[0-9a-f]{32}\.(html|js)|assets/[a-z]+\.(css|js)|\.nojekyll|"
                            r"\.sessionsite(-sealed\.json)?", name) for name in files), sorted(files)
    assert_no_transcript_word(sorted(EXAMPLES.rglob("*.jsonl")), files, output_files(examples_site))


@pytest.mark.slow
def test_nothing_of_the_public_corpus_is_in_its_encrypted_build(public_corpus_site, tmp_path):
    inputs = corpus_files("*.jsonl", "chat.json")
    out = tmp_path / "sealed.zip"
    build(BuildConfig(inputs=tuple(inputs), output=out, key=new_key(), vault=None))
    with zipfile.ZipFile(out) as archive:  # sealed/<file>: the zip's one folder
        files = {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()}
    assert_no_transcript_word(inputs, files, output_files(public_corpus_site))


@pytest.mark.parametrize("suffix", [".html", ".zip"])
def test_nothing_of_a_session_is_in_its_encrypted_bundle(tmp_path, suffix):
    session = EXAMPLES / "-home-ada-src-tidewatch" / "057ab0db-f705-4249-82fd-8293d16bc8eb.jsonl"
    plain, sealed = tmp_path / f"plain{suffix}", tmp_path / f"sealed{suffix}"
    assert run("bundle", str(session), "-o", str(plain)).exit_code == 0
    result = CliRunner().invoke(main, ["bundle", str(session), "-o", str(sealed), "--encrypt",
                                                       "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.stderr
    assert "anyone with the link can read it all" in result.stderr
    assert re.search(r"#key=[A-Za-z0-9_-]{43}$", result.stdout.strip())

    def files_of(path: Path) -> dict[str, bytes]:
        if suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                return {name: archive.read(name) for name in archive.namelist()}
        return {path.name: path.read_bytes()}

    inputs = [session, *sorted((session.parent / session.stem).rglob("*.jsonl"))]
    assert_no_transcript_word(inputs, files_of(sealed), files_of(plain))


def test_a_rebuild_with_the_same_key_keeps_every_unchanged_file_and_seals_what_changed(archive, tmp_path):
    out, key = tmp_path / "site", new_key()
    build(BuildConfig(inputs=(archive,), output=out, key=key, vault=None))
    first = output_files(out)
    folder = out.stat().st_ino
    build(BuildConfig(inputs=(archive,), output=out, key=key, vault=None))
    assert output_files(out) == first  # nothing sealed again: the same bytes, nonces and all
    assert out.stat().st_ino == folder  # nor written at all: the archive was up to date
    gone = next(name for name in first if name.endswith(".js") and not name.startswith("assets/"))
    (out / gone).unlink()  # changed by hand: built again, and the rest kept as it was
    build(BuildConfig(inputs=(archive,), output=out, key=key, vault=None))
    again = output_files(out)
    assert set(again) == set(first) and again[gone] != first[gone]  # sealed again, with a fresh nonce
    assert {name: data for name, data in again.items() if name != gone} == \
        {name: data for name, data in first.items() if name != gone}
    session = archive / "-Users-grace-work-ledger-api" / "23ddcd5f-bf80-4fbe-8f29-272760883dab.jsonl"
    lines = session.read_text(encoding="utf-8").splitlines()
    session.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")
    build(BuildConfig(inputs=(archive,), output=out, key=key, vault=None))
    third = output_files(out)
    changed = [name for name in third if first.get(name) != third[name]]
    assert changed and len(changed) < len(third) // 3, changed
    assert load_record(out).key_id == key.key_id
    build(BuildConfig(inputs=(archive,), output=out, key=new_key(), vault=None))  # another key: all again
    fourth = output_files(out)
    assert not set(fourth) & {name for name in third if name.endswith((".html", ".js")) and name != "index.html"
                              and not name.startswith("assets/")}


def test_the_readable_site_behind_it_is_private(tmp_path):
    from generator.output.sealed_site import plain_folder

    out = tmp_path / "site"
    build(BuildConfig(inputs=(EXAMPLES / "-Users-grace-work-ledger-api",), output=out, key=new_key(), vault=None))
    folder = plain_folder(out).parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert (folder / "site" / "index.html").is_file() and not str(folder).startswith(str(tmp_path))
    assert os.environ["XDG_CACHE_HOME"] in str(folder)


def test_a_passphrase_file_opens_the_same_archive_build_after_build(tmp_path):
    out, passphrase = tmp_path / "site", tmp_path / "passphrase"
    passphrase.write_text("four random words, or more\n", encoding="utf-8")
    arguments = ["build", str(EXAMPLES / "-Users-grace-work-ledger-api"), "-o", str(out), "--encrypt",
                 "--passphrase-file", str(passphrase), "--no-vault", "-j", "1"]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"open {out.resolve().as_uri()}/index.html and type the passphrase"
    record = load_record(out)
    assert len(record.salt_bytes) == 16 and record.iterations == PBKDF2_ITERATIONS
    expected = key_from_passphrase("four random words, or more", record.salt_bytes)
    assert record.key_id == expected.key_id and "#key=" not in result.output
    assert f'data-salt="{record.salt}"' in (out / "index.html").read_text(encoding="utf-8")
    assert CliRunner().invoke(main, arguments).exit_code == 0
    assert load_record(out).key_id == record.key_id  # the same salt, so the same key: nothing sealed again
