"""The vault: every log read is kept, builds read the logs that are gone from it, restore gives them back.

The reliability tests run real processes: a save killed with SIGKILL, two saves at once, a save on a full
disk (a small tmpfs in a mount namespace of its own, so nothing stays mounted after the test).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shlex
import shutil
import sqlite3
import stat
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import zstandard
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.build import BuildConfig, build
from generator.claude import hook_command, install, is_ours, uninstall
from generator.cli import main
from generator.stages.discover import find
from generator.core.errors import UsageProblem
from generator.output.manifest import MANIFEST
from generator.output.vault import DATABASE, HOOK_LOG, Vault

from conftest import EXAMPLES, skip_unless_in_ci

REPO = Path(__file__).resolve().parents[1]
TIDEWATCH = "-home-ada-src-tidewatch"
LEDGER = "-Users-grace-work-ledger-api"
SESSION = "5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90"
NOTE = re.compile(r'<p class="kept-note"[^>]*>log deleted from ~/\.claude on or after <time datetime="([0-9-]+)">'
                  r"\1</time>, kept by sessionsite</p>\n?")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def logs(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.jsonl"))}


def run(*arguments: str) -> subprocess.CompletedProcess:
    """sessionsite in a process of its own, as a user (or Claude Code) runs it."""
    return subprocess.run([sys.executable, "-m", "generator", *arguments], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)


def restored(vault: Vault, origin: Path, target: Path, number: int | None = None) -> bytes:
    target.unlink(missing_ok=True)
    vault.write_out(str(origin.resolve()), number, target)
    return target.read_bytes()


def lines_of(size: int, seed: int, words: int = 12) -> bytes:
    """JSONL lines of about `size` bytes, compressible like real logs but not trivially."""
    generator = random.Random(seed)
    vocabulary = [f"w{generator.randrange(5000)}" for _ in range(400)]
    out = bytearray()
    number = 0
    while len(out) < size:
        number += 1
        text = " ".join(generator.choice(vocabulary) for _ in range(words * 8))
        out += json.dumps({"type": "user", "uuid": f"{seed}-{number}", "sessionId": f"s{seed}",
                           "message": {"role": "user", "content": text}}).encode() + b"\n"
    return bytes(out)


# -- saving --------------------------------------------------------------------------------------------------


def test_a_save_keeps_every_log_and_a_second_save_reads_nothing(archive, vault_dir):
    vault = Vault(vault_dir)
    first = vault.save(find([archive]))
    assert first.new == len(logs(archive)) == 18
    again = vault.save(find([archive]))
    assert (again.saved, again.unchanged, again.read_bytes) == (0, 18, 0)
    for name, content in logs(archive).items():
        assert restored(vault, archive / name, vault_dir.parent / "out.jsonl") == content


def test_the_vault_is_private(archive, vault_dir):
    vault_dir.mkdir(mode=0o755)  # made by hand, readable by others: the first save closes it
    vault_dir.chmod(0o755)
    Vault(vault_dir).save(find([archive]))
    assert stat.S_IMODE(vault_dir.stat().st_mode) == 0o700
    files = [p for p in vault_dir.iterdir() if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


def test_a_grown_log_costs_what_it_gained_and_only_it_is_read(archive, vault_dir):
    vault = Vault(vault_dir)
    path = archive / TIDEWATCH / f"{SESSION}.jsonl"
    path.write_bytes(path.read_bytes() + lines_of(3 << 20, 1))  # past one chunk
    vault.save(find([archive]))
    before = vault.size_on_disk()
    addition = lines_of(20_000, 2)
    with path.open("ab") as handle:
        handle.write(addition)
    report = vault.save(find([archive]))
    assert (report.grown, report.new, report.versions, report.unchanged) == (1, 0, 0, 17)
    assert report.read_bytes == path.stat().st_size  # that log, once; no other
    assert report.stored_bytes < (1 << 20)  # its last chunk again, not the whole log
    with sqlite3.connect(vault_dir / DATABASE) as connection:
        assert connection.execute("SELECT COUNT(*) FROM versions").fetchone()[0] == 18
    assert restored(vault, path, vault_dir.parent / "out.jsonl") == path.read_bytes()
    assert vault.size_on_disk() - before < (1 << 20)


def test_a_log_that_lost_entries_is_kept_beside_the_old_one(archive, vault_dir):
    vault = Vault(vault_dir)
    path = archive / TIDEWATCH / f"{SESSION}.jsonl"
    original = path.read_bytes()
    vault.save(find([archive]))
    path.write_bytes(original[: len(original) // 2])  # cut short
    assert vault.save(find([archive])).versions == 1
    path.write_bytes(lines_of(5000, 3))  # another session's log under the same name
    assert vault.save(find([archive])).versions == 1
    out = vault_dir.parent / "out.jsonl"
    assert restored(vault, path, out, 1) == original
    assert restored(vault, path, out, 2) == original[: len(original) // 2]
    assert restored(vault, path, out) == path.read_bytes()


def test_a_save_command_says_what_it_did(archive, vault_dir):
    result = CliRunner().invoke(main, ["save", str(archive), "--vault", str(vault_dir)])
    assert result.exit_code == 0, result.output
    assert "18 new, 0 grown, 0 unchanged" in result.output and str(vault_dir) in result.output


# -- building from the vault ---------------------------------------------------------------------------------


def test_a_deleted_log_keeps_its_pages_with_a_note(archive, vault_dir, tmp_path):
    site = tmp_path / "site"
    first = build(BuildConfig(inputs=(archive,), output=site, vault=vault_dir))
    before = tree(site)
    (archive / TIDEWATCH / f"{SESSION}.jsonl").unlink()
    report = build(BuildConfig(inputs=(archive,), output=site, vault=vault_dir))
    assert report.kept == [f"{TIDEWATCH}/{SESSION}.jsonl"]
    assert (report.sessions, report.pages, report.events) == (first.sessions, first.pages, first.events)
    after = tree(site)
    # Everything else is as it was: the index and its statistics, the search index, the chains.
    changed = sorted(path for path in before if after.get(path) != before[path])
    project = "projects/home-ada-src-tidewatch"
    assert changed == [MANIFEST, f"{project}/{SESSION}.html", f"{project}/index.html"]
    assert sorted(after) == sorted(before)
    page = after[f"{project}/{SESSION}.html"].decode("utf-8")
    assert NOTE.search(page) and NOTE.sub("", page).encode("utf-8") == before[f"{project}/{SESSION}.html"]
    listing = BeautifulSoup(after[f"{project}/index.html"].decode("utf-8"), "html.parser")
    notes = listing.select(".kept-note")
    assert len(notes) == 1 and "kept by sessionsite" in notes[0].get_text()
    assert notes[0].find_parent("tr").select_one("a.session-title")["href"] == f"{SESSION}.html"
    # Other options render it again, like the others.
    again = build(BuildConfig(inputs=(archive,), output=site, vault=vault_dir, show_hidden=True))
    assert again.kept == report.kept
    assert NOTE.search((site / project / f"{SESSION}.html").read_text(encoding="utf-8"))


def test_a_site_from_the_vault_alone_is_the_site_from_the_live_logs(archive, vault_dir, tmp_path):
    live = tmp_path / "live"
    build(BuildConfig(inputs=(archive,), output=live, vault=vault_dir, jobs=1))
    for path in archive.rglob("*.jsonl"):
        path.unlink()
    kept = tmp_path / "kept"
    report = build(BuildConfig(inputs=(archive,), output=kept, vault=vault_dir, jobs=2))
    assert len(report.kept) == 18
    expected, built = tree(live), tree(kept)
    assert sorted(built) == sorted(expected)
    notes = 0
    for path in expected:
        if path == MANIFEST:
            continue
        text, count = NOTE.subn("", built[path].decode("utf-8")) if path.endswith(".html") else (built[path], 0)
        notes += count
        assert (text.encode("utf-8") if isinstance(text, str) else text) == expected[path], path
    assert notes >= 20  # every session's page, and each in its project's list
    # Built again over the live site, incrementally: the same as the fresh build from the vault.
    build(BuildConfig(inputs=(archive,), output=live, vault=vault_dir, jobs=2))
    assert tree(live) == built
    # And with nothing changed, the site is left as it is.
    again = build(BuildConfig(inputs=(archive,), output=kept, vault=vault_dir))
    assert tree(kept) == built and again.kept == report.kept


def test_a_vault_of_the_first_format_is_read_and_taken_on(archive, vault_dir, tmp_path):
    """A vault written by a sessionsite whose chunks were zlib streams (format 1), made here from a vault of
    today by packing every chunk again with zlib: every log reads back as it was, the vault is taken on
    (format 2) without writing its chunks again, and a log that grows afterwards shares its old chunks."""
    originals = logs(archive)
    build(BuildConfig(inputs=(archive,), output=tmp_path / "live", vault=vault_dir, jobs=1))
    database = vault_dir / DATABASE
    with sqlite3.connect(database) as connection:
        for digest, data in connection.execute("SELECT digest, data FROM chunks").fetchall():
            raw = zstandard.ZstdDecompressor().decompress(data)
            connection.execute("UPDATE chunks SET data = ? WHERE digest = ?", (zlib.compress(raw, 4), digest))
        connection.execute("PRAGMA user_version=1")
    for path in archive.rglob("*.jsonl"):
        path.unlink()
    build(BuildConfig(inputs=(archive,), output=tmp_path / "kept", vault=vault_dir, jobs=1))
    assert sorted(p.name for p in (tmp_path / "kept").rglob("*.html")) == sorted(
        p.name for p in (tmp_path / "live").rglob("*.html"))
    for name, data in originals.items():
        assert restored(Vault(vault_dir), archive / name, tmp_path / "back.jsonl") == data, name
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 2
        assert all(data[:2] != b"\x28\xb5" for (data,) in connection.execute("SELECT data FROM chunks"))

    grown = archive / TIDEWATCH / f"{SESSION}.jsonl"
    grown.parent.mkdir(parents=True, exist_ok=True)
    grown.write_bytes(originals[f"{TIDEWATCH}/{SESSION}.jsonl"] + lines_of(3000, 5))
    assert Vault(vault_dir).save(find([archive])).grown == 1
    with sqlite3.connect(database) as connection:
        kinds = [data[:4] == b"\x28\xb5\x2f\xfd" for (data,) in connection.execute("SELECT data FROM chunks")]
    assert kinds.count(True) == 1 and kinds.count(False) >= 18  # the grown log's new last chunk alone
    assert restored(Vault(vault_dir), grown, tmp_path / "back.jsonl") == grown.read_bytes()


def test_a_first_format_chunk_of_a_whole_long_line_is_read_back(archive, vault_dir, tmp_path):
    """Before long lines were cut (format 1), a line of any length was one chunk: a chunk of 5 MB, longer than
    any a save makes now, is read back whole (its row's size bounds what is unpacked, not today's largest)."""
    long_log = archive / TIDEWATCH / "0a0b0c0d-0000-4000-8000-000000000005.jsonl"
    long_log.write_bytes(lines_of(1000, 3) + json.dumps({"type": "user", "message": {
        "role": "user", "content": "x" * (5 << 20)}}).encode() + b"\n")
    assert Vault(vault_dir).save(find([archive])).new >= 1
    database = vault_dir / DATABASE
    raw = long_log.read_bytes()
    digest = hashlib.blake2b(raw, digest_size=16).digest()
    with sqlite3.connect(database) as connection:  # the log's chunks made into one, as format 1 kept it
        (version,) = connection.execute("SELECT versions.id FROM versions JOIN logs ON logs.id = versions.log_id "
                                        "WHERE logs.origin = ?", (str(long_log.resolve()),)).fetchone()
        connection.execute("DELETE FROM version_chunks WHERE version_id = ?", (version,))
        connection.execute("INSERT INTO chunks (digest, size, data) VALUES (?, ?, ?)",
                           (digest, len(raw), zlib.compress(raw, 4)))
        connection.execute("INSERT INTO version_chunks (version_id, seq, digest) VALUES (?, 0, ?)", (version, digest))
        connection.execute("PRAGMA user_version=1")
    assert restored(Vault(vault_dir), long_log, tmp_path / "back.jsonl") == raw


def test_a_build_reads_only_the_kept_logs_from_under_its_inputs(archive, vault_dir, tmp_path):
    build(BuildConfig(inputs=(archive,), output=tmp_path / "all", vault=vault_dir))
    (archive / LEDGER / "a256e702-08bc-4854-ae3b-34e7eb0045ea.jsonl").unlink()
    (archive / TIDEWATCH / f"{SESSION}.jsonl").unlink()
    report = build(BuildConfig(inputs=(archive / TIDEWATCH,), output=tmp_path / "one", vault=vault_dir))
    assert report.kept == [f"{TIDEWATCH}/{SESSION}.jsonl"]
    assert not (tmp_path / "one" / "projects" / "Users-grace-work-ledger-api").exists()
    other = tmp_path / "elsewhere"
    shutil.copytree(archive / TIDEWATCH, other / TIDEWATCH)
    report = build(BuildConfig(inputs=(other,), output=tmp_path / "other", vault=vault_dir))
    assert report.kept == []  # saved from another place: not this INPUT's


def test_prune_is_the_only_way_out_and_says_which(archive, vault_dir, tmp_path):
    site = tmp_path / "site"
    runner = CliRunner()
    assert runner.invoke(main, ["build", str(archive), "-o", str(site), "--vault", str(vault_dir)]).exit_code == 0
    (archive / TIDEWATCH / f"{SESSION}.jsonl").unlink()
    page = site / "projects" / "home-ada-src-tidewatch" / f"{SESSION}.html"
    kept = runner.invoke(main, ["build", str(archive), "-o", str(site), "--vault", str(vault_dir)])
    assert kept.exit_code == 0 and page.is_file()
    assert "1 log is gone from where it was" in kept.output
    pruned = runner.invoke(main, ["build", str(archive), "-o", str(site), "--vault", str(vault_dir), "--prune"])
    assert pruned.exit_code == 0, pruned.output
    assert not page.exists()
    assert "--prune left out 1 log that is gone" in pruned.output and f"{TIDEWATCH}/{SESSION}.jsonl" in pruned.output
    assert Vault(vault_dir).versions_of(SESSION)  # still kept


def test_no_vault_neither_saves_nor_reads(archive, tmp_path):
    vault_dir = tmp_path / "vault"
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "site"), "--vault", str(vault_dir),
                                       "--no-vault"])
    assert result.exit_code == 0 and not vault_dir.exists()


def test_the_vault_and_the_output_stay_apart(archive, tmp_path):
    with pytest.raises(UsageProblem):
        build(BuildConfig(inputs=(archive,), output=tmp_path / "site", vault=tmp_path / "site" / "vault"))
    with pytest.raises(UsageProblem):
        build(BuildConfig(inputs=(archive,), output=tmp_path / "vault" / "site", vault=tmp_path / "vault"))
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "v" / "site"),
                                       "--vault", str(tmp_path / "v")])
    assert result.exit_code == 2 and "vault" in result.output
    assert not (tmp_path / "site").exists() and not (tmp_path / "v").exists()


def test_the_environment_and_the_default_place(archive, tmp_path, monkeypatch):
    chosen = tmp_path / "chosen"
    monkeypatch.setenv("SESSIONSITE_VAULT", str(chosen))
    assert CliRunner().invoke(main, ["save", str(archive)]).exit_code == 0
    assert (chosen / DATABASE).is_file()
    monkeypatch.delenv("SESSIONSITE_VAULT")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert CliRunner().invoke(main, ["save", str(archive)]).exit_code == 0
    assert (tmp_path / "data" / "sessionsite" / "vault" / DATABASE).is_file()


def test_bundle_saves_what_it_reads(archive, vault_dir, tmp_path):
    result = CliRunner().invoke(main, ["bundle", str(archive / TIDEWATCH / f"{SESSION}.jsonl"),
                                       "-o", str(tmp_path / "pr.md"), "--vault", str(vault_dir)])
    assert result.exit_code == 0, result.output
    assert {s.name for s in Vault(vault_dir).stored()} == {f"{TIDEWATCH}/{name}" for name in logs(archive / TIDEWATCH)}


# -- restore -------------------------------------------------------------------------------------------------


def test_restore_writes_back_the_log_and_never_over_a_live_one(archive, vault_dir, tmp_path, monkeypatch):
    original = {name: content for name, content in logs(archive / TIDEWATCH).items()
                if name.startswith("057ab0db")}  # a session with two subagent logs
    Vault(vault_dir).save(find([archive]))
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    runner = CliRunner()
    result = runner.invoke(main, ["restore", "057ab0db", "--vault", str(vault_dir)])
    assert result.exit_code == 0, result.output
    assert logs(claude / "projects" / TIDEWATCH) == original
    assert "claude --resume 057ab0db-f705-4249-82fd-8293d16bc8eb" in result.output
    again = runner.invoke(main, ["restore", "057ab0db", "--vault", str(vault_dir)])
    assert again.exit_code == 0 and "already there" in again.output
    live = claude / "projects" / TIDEWATCH / "057ab0db-f705-4249-82fd-8293d16bc8eb.jsonl"
    live.write_bytes(live.read_bytes() + b'{"type":"user"}\n')  # the session went on
    refused = runner.invoke(main, ["restore", "057ab0db", "--vault", str(vault_dir)])
    assert refused.exit_code == 1 and "left as it is" in refused.output
    assert live.read_bytes().endswith(b'{"type":"user"}\n')
    missing = runner.invoke(main, ["restore", "00000000-0000", "--vault", str(vault_dir)])
    assert missing.exit_code == 1 and "keeps no session" in missing.output


def test_restore_lists_and_restores_older_versions(archive, vault_dir, tmp_path):
    vault = Vault(vault_dir)
    path = archive / TIDEWATCH / f"{SESSION}.jsonl"
    original = path.read_bytes()
    vault.save(find([archive]))
    path.write_bytes(original[:1000])
    vault.save(find([archive]))
    runner = CliRunner()
    listed = runner.invoke(main, ["restore", SESSION, "--list", "--vault", str(vault_dir)])
    assert "version 1" in listed.output and "version 2" in listed.output
    out = tmp_path / "old"
    result = runner.invoke(main, ["restore", SESSION, "--version", "1", "-o", str(out), "--vault", str(vault_dir)])
    assert result.exit_code == 0, result.output
    assert (out / f"{SESSION}.jsonl").read_bytes() == original


def test_the_round_trip_in_the_vault_guide_works_as_written(tmp_path, monkeypatch):
    """The vault guide's own commands, run as a new user would from a clone: build, delete a log, build again
    (the pages are still there, with the note), restore (the original bytes)."""
    readme = (REPO / "docs" / "guide" / "vault.md").read_text(encoding="utf-8")
    block = readme.split("Try it on the examples", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    ran = []
    for line in block.strip().splitlines():
        words = shlex.split(line, comments=True)
        ran.append(words[0])
        if words[:2] == ["cp", "-r"]:
            shutil.copytree(words[2], words[3])
        elif words[0] == "rm":
            Path(words[1]).unlink()
        elif words[0] == "sessionsite":
            result = runner.invoke(main, words[1:])
            assert result.exit_code == 0, (line, result.output)
        elif words[0] == "cmp":
            assert Path(words[1]).read_bytes() == Path(words[2]).read_bytes()
        else:
            raise AssertionError(f"the test does not know how to run: {line}")
    assert ran == ["cp", "sessionsite", "rm", "sessionsite", "sessionsite", "cmp"]
    page = (tmp_path / "demo" / "projects" / "home-ada-src-tidewatch" / f"{SESSION}.html").read_text(encoding="utf-8")
    assert NOTE.search(page)


# -- the hook ------------------------------------------------------------------------------------------------


def test_hook_install_merges_is_idempotent_and_uninstall_takes_only_its_own(tmp_path):
    settings = tmp_path / "settings.json"
    theirs = {"model": "opus", "cleanupPeriodDays": 90,
              "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send bye"}]}],
                        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}]}}
    settings.write_text(json.dumps(theirs), encoding="utf-8")
    command = hook_command(tmp_path / "vault")
    assert is_ours(command)
    change = install(settings, command)
    assert change.changed and sorted(change.events) == ["PreCompact", "SessionEnd"]
    assert json.loads(change.backup.read_text(encoding="utf-8")) == theirs
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["model"] == "opus" and data["hooks"]["PreToolUse"] == theirs["hooks"]["PreToolUse"]
    assert data["hooks"]["SessionEnd"][0] == theirs["hooks"]["SessionEnd"][0]
    for event in ("SessionEnd", "PreCompact"):
        assert [h["command"] for g in data["hooks"][event] for h in g["hooks"] if is_ours(h["command"])] == [command]
    written = settings.read_bytes()
    assert not install(settings, command).changed and settings.read_bytes() == written
    assert not list(tmp_path.glob(".settings.json.*"))  # no temporary file left
    assert uninstall(settings).changed
    assert json.loads(settings.read_text(encoding="utf-8")) == theirs
    assert not uninstall(settings).changed


def test_hook_commands_and_a_broken_settings_file(tmp_path):
    settings = tmp_path / "claude" / "settings.json"
    runner = CliRunner()
    result = runner.invoke(main, ["hook", "install", "--settings", str(settings), "--vault", str(tmp_path / "v")])
    assert result.exit_code == 0 and "added" in result.output
    hooks = json.loads(settings.read_text(encoding="utf-8"))["hooks"]
    assert set(hooks) == {"SessionEnd", "PreCompact"}
    assert "--vault" in hooks["SessionEnd"][0]["hooks"][0]["command"]
    assert "already" in runner.invoke(main, ["hook", "install", "--settings", str(settings), "--vault",
                                             str(tmp_path / "v")]).output
    moved = runner.invoke(main, ["hook", "install", "--settings", str(settings), "--vault", str(tmp_path / "w")])
    assert "added" in moved.output  # brought up to date: still one of ours per event
    hooks = json.loads(settings.read_text(encoding="utf-8"))["hooks"]
    assert [len(hooks[event]) for event in ("SessionEnd", "PreCompact")] == [1, 1]
    assert str(tmp_path / "w") in hooks["PreCompact"][0]["hooks"][0]["command"]
    assert runner.invoke(main, ["hook", "uninstall", "--settings", str(settings)]).exit_code == 0
    assert "hooks" not in json.loads(settings.read_text(encoding="utf-8"))
    settings.write_text("{not json", encoding="utf-8")
    broken = runner.invoke(main, ["hook", "install", "--settings", str(settings)])
    assert broken.exit_code == 1 and "not valid JSON" in broken.output
    assert settings.read_text(encoding="utf-8") == "{not json"


def test_the_hook_saves_the_session_claude_code_names(archive, vault_dir):
    transcript = archive / TIDEWATCH / "057ab0db-f705-4249-82fd-8293d16bc8eb.jsonl"
    hook_input = json.dumps({"session_id": transcript.stem, "transcript_path": str(transcript), "cwd": "/home/ada",
                             "hook_event_name": "SessionEnd", "reason": "other"})
    result = subprocess.run([sys.executable, "-m", "generator", "save", "--hook", "--vault", str(vault_dir)],
                            input=hook_input, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(REPO), "CLAUDE_CONFIG_DIR": str(archive.parent)})
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    names = {s.name for s in Vault(vault_dir).stored()}
    assert names == {f"{TIDEWATCH}/057ab0db-f705-4249-82fd-8293d16bc8eb.jsonl",
                     f"{TIDEWATCH}/057ab0db-f705-4249-82fd-8293d16bc8eb/subagents/agent-a36e531.jsonl",
                     f"{TIDEWATCH}/057ab0db-f705-4249-82fd-8293d16bc8eb/subagents/agent-acompact-b5f917.jsonl"}
    assert not (vault_dir / HOOK_LOG).exists()


def test_a_failing_hook_is_silent_and_logged(tmp_path):
    vault_dir = tmp_path / "vault"
    for hook_input in ("not json", json.dumps({"session_id": "x"}), json.dumps({"transcript_path": 42}),
                       json.dumps({"transcript_path": str(tmp_path / "never-written.jsonl")})):  # nothing to save
        result = subprocess.run([sys.executable, "-m", "generator", "save", "--hook", "--vault", str(vault_dir)],
                                input=hook_input, capture_output=True, text=True, timeout=60,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    logged = (vault_dir / HOOK_LOG).read_text(encoding="utf-8").splitlines()
    assert len(logged) == 3 and "transcript_path" in logged[1]


# -- doctor --------------------------------------------------------------------------------------------------


def test_doctor_says_what_is_unsaved_and_how_long_claude_code_keeps_logs(archive, vault_dir, tmp_path, monkeypatch):
    claude = tmp_path / "claude"
    shutil.copytree(archive, claude / "projects")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    (claude / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 7}), encoding="utf-8")
    runner = CliRunner()
    before = runner.invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert before.exit_code == 1
    assert "18 logs in" in before.output and "not in the vault" in before.output
    assert "cleanupPeriodDays is 7" in before.output and "hook is not installed" in before.output
    assert runner.invoke(main, ["save", "--vault", str(vault_dir)]).exit_code == 0
    assert runner.invoke(main, ["hook", "install", "--vault", str(vault_dir)]).exit_code == 0
    (claude / "settings.json").write_text(
        json.dumps({**json.loads((claude / "settings.json").read_text(encoding="utf-8")), "cleanupPeriodDays": 365}),
        encoding="utf-8")
    after = runner.invoke(main, ["doctor", "--vault", str(vault_dir)])
    assert after.exit_code == 0, after.output
    assert "every log in" in after.output and "cleanupPeriodDays is 365" in after.output
    (claude / "settings.json").write_text("{}", encoding="utf-8")
    assert "not set" in runner.invoke(main, ["doctor", "--vault", str(vault_dir)]).output


# -- reliability: real processes -----------------------------------------------------------------------------


def _project(root: Path, sizes: dict[str, int], seed: int) -> dict[Path, bytes]:
    written = {}
    for offset, (name, size) in enumerate(sizes.items()):
        path = root / "-home-x-app" / f"{name}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(lines_of(size, seed + offset))
        written[path] = path.read_bytes()
    return written


def _check(vault_dir: Path, expected: dict[Path, tuple[bytes | None, ...]], out: Path) -> dict[Path, bytes | None]:
    """Every log is in one of the states it may be in (a save either happened or not), and the vault is
    whole. Returns what the vault holds of each."""
    with sqlite3.connect(vault_dir / DATABASE) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    vault = Vault(vault_dir)
    stored = {s.place.origin for s in vault.stored()}
    held: dict[Path, bytes | None] = {}
    for path, allowed in expected.items():
        if str(path.resolve()) not in stored:
            assert None in allowed, f"{path.name}: saved before, lost after a kill"
            held[path] = None
            continue
        held[path] = restored(vault, path, out)
        assert held[path] in allowed, f"{path.name}: neither what was saved nor what was being saved"
    return held


@pytest.mark.slow
def test_a_save_killed_at_any_point_leaves_what_was_saved_intact(tmp_path):
    archive = tmp_path / "projects"
    old = _project(archive, {f"old{i}": 600_000 for i in range(6)}, seed=10)
    vault_dir, saved = tmp_path / "vault", tmp_path / "saved"
    assert run("save", str(archive), "--vault", str(vault_dir)).returncode == 0
    shutil.copytree(vault_dir, saved)
    # Then: three logs grow, one is cut short (a new version), and large new ones arrive.
    new = dict(old)
    for number, path in enumerate(list(old)[:3]):
        with path.open("ab") as handle:
            handle.write(lines_of(1_500_000, 20 + number))
        new[path] = path.read_bytes()
    cut = list(old)[3]
    cut.write_bytes(old[cut][: len(old[cut]) // 3])
    new[cut] = cut.read_bytes()
    new.update(_project(archive, {f"new{i}": 3_000_000 for i in range(6)}, seed=40))
    expected = {path: ((old[path], new[path]) if path in old else (None, new[path])) for path in new}
    outcomes = set()
    for delay in (0.05, 0.2, 0.4, 0.7, 1.0, 1.5, 2.5, 4.0):
        shutil.rmtree(vault_dir)
        shutil.copytree(saved, vault_dir)
        process = subprocess.Popen([sys.executable, "-m", "generator", "save", str(archive), "--vault", str(vault_dir)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            process.wait(timeout=delay)  # a save done sooner is past killing: no need to sit out the delay
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        held = _check(vault_dir, expected, tmp_path / "out.jsonl")
        outcomes.add("done" if held == new else "interrupted")
        # The version cut short never replaced the one saved before.
        if str(cut.resolve()) in {s.place.origin for s in Vault(vault_dir).stored()}:
            assert restored(Vault(vault_dir), cut, tmp_path / "out.jsonl", 1) == old[cut]
    assert "interrupted" in outcomes
    # The next save finishes the work.
    assert run("save", str(archive), "--vault", str(vault_dir)).returncode == 0
    assert _check(vault_dir, expected, tmp_path / "out.jsonl") == new


def test_two_saves_at_once_both_succeed(tmp_path):
    first = _project(tmp_path / "a", {f"a{i}": 1_500_000 for i in range(4)}, seed=100)
    second = _project(tmp_path / "b", {f"b{i}": 1_500_000 for i in range(4)}, seed=200)
    shared = _project(tmp_path / "claude" / "projects", {f"c{i}": 1_500_000 for i in range(3)}, seed=300)
    vault_dir = tmp_path / "vault"
    # The hooks save only logs in Claude Code's projects folder: the shared one is there.
    env = {**os.environ, "PYTHONPATH": str(REPO), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    processes = [subprocess.Popen([sys.executable, "-m", "generator", "save", str(tmp_path / own),
                                   str(tmp_path / "claude" / "projects"),
                                   "--vault", str(vault_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
                 for own in ("a", "b")]
    # And two Claude Code windows ending together: two hooks for two sessions of one project.
    hooks = [subprocess.Popen([sys.executable, "-m", "generator", "save", "--hook", "--vault", str(vault_dir)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
             for _ in range(2)]
    for hook, path in zip(hooks, list(shared)[:2], strict=True):
        hook.stdin.write(json.dumps({"transcript_path": str(path), "hook_event_name": "SessionEnd"}).encode())
        hook.stdin.close()
    for process in processes + hooks:
        process.wait(timeout=300)  # what they print is a line or two: no pipe fills up
        assert process.returncode == 0, process.stderr.read().decode()
    assert not (vault_dir / HOOK_LOG).exists()
    everything = {**first, **second, **shared}
    assert _check(vault_dir, {p: (c,) for p, c in everything.items()}, tmp_path / "out.jsonl") == everything
    assert len(Vault(vault_dir).stored()) == len(everything)


def _namespace_prefix(scratch: Path) -> list[str]:
    """A mount namespace of our own (a user namespace too, when not root), so that the small disk
    disappears with the process."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    scratch.mkdir()
    for prefix in ([unshare, "--mount", "--propagation", "private"],
                   [unshare, "--user", "--map-root-user", "--mount", "--propagation", "private"]):
        probe = subprocess.run([*prefix, "mount", "-t", "tmpfs", "-o", "size=64k", "probe", str(scratch)],
                               capture_output=True, timeout=30)
        if probe.returncode == 0:
            return prefix
    return []


def test_a_full_disk_fails_in_one_line_and_loses_nothing(tmp_path):
    prefix = _namespace_prefix(tmp_path / "probe")
    if not prefix:
        skip_unless_in_ci("cannot mount a small tmpfs in a mount namespace here (unshare)")
    small = _project(tmp_path / "small", {f"s{i}": 200_000 for i in range(3)}, seed=500)
    big = tmp_path / "big" / "-home-x-app" / "big.jsonl"
    big.parent.mkdir(parents=True)
    # Random bytes (as base64 in a line) hardly compress: four times the disk's size.
    big.write_bytes(b"".join(json.dumps({"type": "user", "data": os.urandom(3000).hex()}).encode() + b"\n"
                             for _ in range(1300)))
    disk, out = tmp_path / "disk", tmp_path / "out"
    disk.mkdir()
    out.mkdir()
    python = shlex.quote(sys.executable)
    script = f"""
set -e
mount -t tmpfs -o size=2m sessionsite-full-disk-test {shlex.quote(str(disk))}
cd {shlex.quote(str(REPO))}
{python} -m generator save {shlex.quote(str(tmp_path / 'small'))} --vault {shlex.quote(str(disk / 'vault'))} \\
    2> {shlex.quote(str(out / 'first.err'))}
set +e
{python} -m generator save {shlex.quote(str(tmp_path / 'big'))} --vault {shlex.quote(str(disk / 'vault'))} \\
    2> {shlex.quote(str(out / 'full.err'))}
echo $? > {shlex.quote(str(out / 'full.rc'))}
cp -a {shlex.quote(str(disk / 'vault'))} {shlex.quote(str(out / 'vault'))}
"""
    result = subprocess.run([*prefix, "sh", "-c", script], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    assert not any(disk.iterdir())  # the small disk went with its namespace
    assert (out / "full.rc").read_text().strip() == "1"
    message = (out / "full.err").read_text(encoding="utf-8").strip()
    assert len(message.splitlines()) == 1 and "the disk is full" in message, message
    assert "Traceback" not in message
    assert _check(out / "vault", {p: (c,) for p, c in small.items()}, tmp_path / "out.jsonl") == small
    assert str(big.resolve()) not in {s.place.origin for s in Vault(out / "vault").stored()}


def test_a_save_that_finds_its_logs_saved_meanwhile_checks_them_again(archive, vault_dir):
    """What two saves at once come to, step by step: one prepares its logs (outside the lock), the other
    saves them first, then the first writes. It finds the vault changed under each log and compares again:
    no log is saved twice, and no version appears that nobody made."""
    from concurrent.futures import ThreadPoolExecutor

    from generator.output.vault.save import Place, SaveReport, commit, prepare
    from generator.output.vault.store import current_of, today

    vault = Vault(vault_dir)
    path = archive / TIDEWATCH / f"{SESSION}.jsonl"
    vault.save(find([archive]))

    def prepare_all() -> list:
        with vault.connect() as connection, ThreadPoolExecutor(1) as pool:
            known = current_of(connection)
            prepared = []
            for session_file in find([archive]):
                origin = str(session_file.path.resolve())
                info = session_file.path.stat()
                prepared.append(prepare(connection, pool, Place.of(session_file, origin), session_file.path,
                                         (info.st_size, info.st_mtime_ns), known[origin]))
            return prepared

    with path.open("ab") as handle:
        handle.write(lines_of(5000, 7))
    first = prepare_all()  # this save sees the log grown...
    assert [p.kind for p in first].count("grown") == 1
    assert vault.save(find([archive])).grown == 1  # ...and the other one saves it first
    report = SaveReport()
    with vault.connect() as connection, ThreadPoolExecutor(1) as pool:
        commit(connection, pool, first, today(), report)
    assert (report.grown, report.new, report.versions) == (0, 0, 0)
    with sqlite3.connect(vault_dir / DATABASE) as connection:
        assert connection.execute("SELECT COUNT(*) FROM versions").fetchone()[0] == 18
    assert restored(vault, path, vault_dir.parent / "out.jsonl") == path.read_bytes()
