"""Nothing unreviewed leaves the machine: `gh-deploy` (to a local bare repository standing in for GitHub),
`bundle` and `build --strict` stop on a value that looks like a secret until a person decides on it; after a
decision it goes out as decided (kept, or redacted everywhere), and nothing else changes. The decisions are kept
by keyed digest, and nothing but the user (no transcript, no repository, no file changed by hand) decides."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.commands import review
from generator.output.decisions import Decided, DecisionStore

from helpers import assistant, at, chain, git, github_clone, text, tool_result, tool_use, user, write_jsonl

SESSION = "5b1f0c2e-0000-4000-8000-0000000be71e"
RANDOM = "Zx8kQ2mN7vB4pL9sR3tW6yH1jF5gD0aC"  # no known format, no telling name: only the net sees it
HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\u202e"


@pytest.fixture(autouse=True)
def decisions(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "review"
    monkeypatch.setenv("SESSIONSITE_REVIEW", str(folder))
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "-srv-app"
    call = tool_use("Bash", {"command": "cat cache.conf"})
    write_jsonl(folder / f"{SESSION}.jsonl", chain(
        user("Which cache key do we use?", sessionId=SESSION, cwd="/srv/app", timestamp=at(0)),
        assistant(call, sessionId=SESSION, cwd="/srv/app", timestamp=at(1)),
        tool_result(call["id"], f"{HOSTILE} cache_key {RANDOM}\nttl 60", sessionId=SESSION, cwd="/srv/app",
                    timestamp=at(2)),
        assistant(text("The cache key is set in cache.conf."), sessionId=SESSION, cwd="/srv/app", timestamp=at(3)),
    ))
    return folder


def invoke(*arguments: str, keys: str | None = None, monkeypatch=None):
    if keys is not None:
        monkeypatch.setattr(review, "interactive", lambda: True)
    return CliRunner().invoke(main, [*arguments], input=keys)


def bundle(project: Path, out: Path, *more: str, **keys):
    return invoke("bundle", str(project / f"{SESSION}.jsonl"), "-o", str(out), "--no-vault", "-j", "1", *more, **keys)


def test_bundle_stops_then_goes_out_as_decided_and_nothing_else_changes(project, tmp_path, monkeypatch):
    out = tmp_path / "pr.html"  # the HTML bundle shows tool output (the Markdown one, for a reviewer, does not)
    stopped = bundle(project, out)
    assert stopped.exit_code == 1
    assert "1 value that may be secrets (1 place) not reviewed: nothing was published" in stopped.output
    assert "sessionsite review" in stopped.output and "--yes" in stopped.output
    assert not out.exists()

    loud = bundle(project, tmp_path / "yes.html", "--yes")
    assert loud.exit_code == 0 and "WARNING: --yes: publishing 1 value" in loud.output
    assert RANDOM not in loud.output  # said, never shown
    as_it_was = (tmp_path / "yes.html").read_text(encoding="utf-8")
    assert RANDOM in as_it_was
    assert not DecisionStore().path.exists()  # --yes decides nothing

    kept = bundle(project, out, keys="k", monkeypatch=monkeypatch)
    assert kept.exit_code == 0, kept.output
    assert out.read_text(encoding="utf-8") == as_it_was
    monkeypatch.setattr(review, "interactive", lambda: False)
    again = bundle(project, tmp_path / "again.html")  # reviewed once: no question, no terminal needed
    assert again.exit_code == 0 and (tmp_path / "again.html").read_text(encoding="utf-8") == as_it_was

    listed = invoke("review", "--list")
    assert listed.exit_code == 0 and " keep " in listed.output and "high-entropy (32 characters)" in listed.output
    digest = listed.output.split()[0]
    assert invoke("review", "--decide", f"{digest}=redact").exit_code == 0
    redacted = bundle(project, out)
    assert redacted.exit_code == 0, redacted.output
    assert "reviewed 1" in redacted.output
    assert out.read_text(encoding="utf-8") == as_it_was.replace(RANDOM, "[REDACTED:reviewed]")


def test_gh_deploy_stops_then_publishes_as_decided(project, tmp_path, monkeypatch):
    work = github_clone(tmp_path, monkeypatch)
    remote = tmp_path / "github.git"

    def deploy(**keys):
        return invoke("gh-deploy", str(project), "--no-vault", "-j", "1", **keys)

    stopped = deploy()
    assert stopped.exit_code == 1 and "not reviewed: nothing was published" in stopped.output
    assert subprocess.run(["git", "-C", str(remote), "rev-parse", "--verify", "-q", "gh-pages"],
                          capture_output=True).returncode != 0  # no branch: nothing went out

    assert deploy(keys="k", monkeypatch=monkeypatch).exit_code == 0
    kept = published(remote)
    assert any(RANDOM in content for content in kept.values())

    assert invoke("review", "--decide", f"{invoke('review', '--list').output.split()[0]}=redact").exit_code == 0
    assert deploy().exit_code == 0
    redacted = published(remote)
    assert sorted(redacted) == sorted(kept)
    assert not any(RANDOM.lower() in content.lower() for content in redacted.values())
    # What changed is what held the value (the page, its Markdown, the search index), and nothing else.
    changed = sorted(name for name in kept if kept[name] != redacted[name])
    assert changed == sorted(name for name in kept if RANDOM.lower() in kept[name].lower()), changed
    assert all("[REDACTED:reviewed]" in redacted[name] for name in changed if RANDOM in kept[name])
    assert git(work, "status", "--porcelain") == ""


def holding(folder: Path) -> list[Path]:
    """The files of an output that hold the value, in any case (the search index lowers it), compressed or not."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            if RANDOM.lower().encode() in data.lower():
                found.append(path)
    return found


def published(remote: Path) -> dict[str, str]:
    names = git(remote, "ls-tree", "-r", "--name-only", "gh-pages").split()
    found = {}
    for name in names:
        data = subprocess.run(["git", "-C", str(remote), "show", f"gh-pages:{name}"], capture_output=True).stdout
        found[name] = (gzip.decompress(data) if name.endswith(".gz") else data).decode("utf-8", "replace")
    return found


def test_build_strict_stops_and_a_redact_decision_reaches_every_output(project, tmp_path, monkeypatch):
    site = tmp_path / "site"
    stopped = invoke("build", str(project), "-o", str(site), "--strict", "--no-vault", "-j", "1")
    assert stopped.exit_code == 1 and "not reviewed" in stopped.output and not site.exists()
    assert invoke("build", str(project), "-o", str(site), "--strict", "--no-vault", "-j", "1", keys="r",
                  monkeypatch=monkeypatch).exit_code == 0
    exports = tmp_path / "json"
    assert invoke("json", str(project), "-o", str(exports), "--no-vault", "-j", "1").exit_code == 0
    for folder in (site, exports):
        files = [path for path in folder.rglob("*") if path.is_file()]
        assert holding(folder) == []
        assert any(b"[REDACTED:reviewed]" in path.read_bytes() for path in files if path.suffix in (".md", ".json"))
    audited = invoke("audit", str(project), "--no-vault", "-j", "1")
    assert "reviewed: 1 place" in audited.output and "high-entropy" not in audited.output


# -- attackers -------------------------------------------------------------------------------------------


def test_the_review_shows_a_hostile_transcript_without_letting_it_drive_the_terminal(project, monkeypatch):
    result = invoke("review", str(project), "--no-vault", "-j", "1", keys="s", monkeypatch=monkeypatch)
    assert result.exit_code == 0, result.output
    shown = result.output
    assert "Zx8k••••" in shown and RANDOM not in shown
    assert not any(ord(c) < 32 and c not in "\n" or 0x7f <= ord(c) < 0xa0 or c == "\u202e" for c in shown)
    assert "\\x07click\\x1b]8;;\\x07\\u202e cache_key «Zx8k••••»" in shown  # shown as what it is, in context
    assert "0 to redact, 0 to keep; 1 not decided" in shown


def test_a_decisions_file_changed_by_hand_or_garbled_is_refused_with_a_message(project, tmp_path, monkeypatch):
    store = DecisionStore()
    key, _ = store.load()
    store.change({store.digest(key, "something else entirely"): Decided("redact", "high-entropy", 23, "x:1", "now")})
    data = json.loads(store.path.read_text())
    # An attacker with write access to the file, not the key, marks the value "keep".
    data["decisions"][store.digest(key, RANDOM)] = {"decision": "keep", "kind": "high-entropy", "length": 32,
                                                     "where": "x:1", "decided": "now"}
    store.path.write_text(json.dumps(data))
    tampered = bundle(project, tmp_path / "pr.md")
    assert tampered.exit_code == 1 and not (tmp_path / "pr.md").exists()
    assert f"{store.path}: was changed outside sessionsite" in tampered.output
    assert "Traceback" not in tampered.output

    for garbage in (b"\x00\xffnot json", b"[]", (b'{"format": "sessionsite-review-decisions", "version": 9, '
                                                  b'"decisions": {}}')):
        store.path.write_bytes(garbage)
        result = bundle(project, tmp_path / "pr.md", "--yes")  # not even --yes publishes past it
        assert result.exit_code == 1 and str(store.path) in result.output, result.output
        assert "move it away" in result.output and "Traceback" not in result.output
    store.key_path.unlink()
    result = invoke("review", "--list")
    assert result.exit_code == 1 and f"{store.key_path}: is missing" in result.output


def test_a_committed_config_cannot_pre_approve(project, tmp_path, monkeypatch):
    repository = tmp_path / "repo"
    repository.mkdir()
    monkeypatch.chdir(repository)
    for committed in ('yes = true\n', '[review]\nkeep = ["all"]\n', 'decisions = "decisions.json"\n'):
        (repository / "sessionsite.toml").write_text(committed, encoding="utf-8")
        result = bundle(project, tmp_path / "pr.md")
        assert result.exit_code == 2 and "unknown key" in result.output, result.output
        assert not (tmp_path / "pr.md").exists()
    # A decisions file made by someone else (their key) and planted where ours go is refused, not obeyed.
    theirs = DecisionStore(tmp_path / "theirs")
    key, _ = theirs.load()
    theirs.change({theirs.digest(key, RANDOM): Decided("keep", "high-entropy", 32, "x:1", "now")})
    ours = DecisionStore()
    ours.folder.mkdir(parents=True)
    ours.path.write_bytes(theirs.path.read_bytes())
    (repository / "sessionsite.toml").unlink()
    assert invoke("review", "--list").exit_code == 1  # no key of ours: its decisions cannot be checked
    ours.key_path.write_bytes(b"k" * 32)
    result = bundle(project, tmp_path / "pr.md")
    assert result.exit_code == 1 and "made with another key" in result.output


# -- the store --------------------------------------------------------------------------------------------


def test_the_store_holds_no_value_and_private_files(project, monkeypatch):
    assert bundle(project, project.parent / "pr.md", keys="k", monkeypatch=monkeypatch).exit_code == 0
    store = DecisionStore()
    for path in (store.path, store.key_path):
        assert path.stat().st_mode & 0o077 == 0
    assert store.folder.stat().st_mode & 0o077 == 0
    held = store.path.read_text()
    assert RANDOM not in held and RANDOM[:6] not in held
    key, decisions = store.load()
    assert list(decisions) == [store.digest(key, RANDOM)]
    # Keyed: the same value under another key has another digest, so a copy of the file alone gives nothing
    # to try guesses against.
    assert DecisionStore(project.parent / "other").digest(b"o" * 32, RANDOM) not in decisions


def _add(folder: str, start: int) -> None:
    store = DecisionStore(Path(folder))
    for number in range(start, start + 15):
        store.change({f"{number:064x}": Decided("keep", "high-entropy", 30, "x:1", "now")})


def test_two_commands_deciding_at_once_both_keep_their_decisions(tmp_path):
    folder = tmp_path / "shared"
    DecisionStore(folder).load()
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_add, args=(str(folder), start)) for start in (0, 100)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(DecisionStore(folder).load()[1]) == 30



def test_a_redact_decision_reaches_a_site_built_before_it(project, tmp_path, monkeypatch):
    site = tmp_path / "site"
    assert invoke("build", str(project), "-o", str(site), "--no-vault", "-j", "1").exit_code == 0
    assert holding(site)
    assert invoke("review", str(project), "--no-vault", "-j", "1", keys="r", monkeypatch=monkeypatch).exit_code == 0
    rebuilt = invoke("build", str(project), "-o", str(site), "--no-vault", "-j", "1")
    assert rebuilt.exit_code == 0 and "reviewed 1" in rebuilt.output
    assert holding(site) == []


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="a pseudo-terminal")
def test_at_a_real_terminal_one_key_decides_and_the_transcript_cannot_drive_it(project, decisions):
    """The review as a person sees it: sessionsite at a pseudo-terminal, its keys pressed there."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: sessionsite, at the terminal
        os.execv(sys.executable, [sys.executable, "-m", "generator", "review", str(project), "--no-vault", "-j", "1"])
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # the terminal closed: the command ended
                    break
                if not chunk:
                    break
                seen += chunk
            # The key is pressed once the question is asked, and again if the terminal was not yet in raw mode
            # when it came (setting it drops what was typed before).
            if b"(q)uit ?" in seen and b"redact\r\n" not in seen and not ready:
                os.write(fd, b"r")
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen
    text = seen.decode("utf-8", "replace")
    assert "1 to redact, 0 to keep" in text
    assert "\x1b]0;owned" not in text and "\x1b[2J" not in text and "\x1b]8;;" not in text and "\u202e" not in text
    assert "\\x1b]8;;\\x07" in text
    key, found = DecisionStore().load()
    assert [decided.decision for decided in found.values()] == ["redact"]


def test_a_decisions_folder_others_may_write_in_is_refused(project, tmp_path, decisions):
    decisions.mkdir()
    decisions.chmod(0o777)  # another local user could put their own key and decisions there
    result = bundle(project, tmp_path / "pr.html", "--yes")
    assert result.exit_code == 1 and not (tmp_path / "pr.html").exists()
    assert f"{decisions}: others may write in it" in result.output


def test_review_without_a_terminal_says_what_to_do_instead(project):
    result = invoke("review", str(project), "--no-vault", "-j", "1")
    assert result.exit_code == 2 and "review --list" in result.output and "--decide" in result.output
    assert invoke("review", "--list").output == "no decisions kept yet\n"
    assert not DecisionStore().folder.exists()  # listing nothing makes nothing


def test_again_puts_a_decided_value_and_changes_its_decision(project, monkeypatch):
    assert invoke("review", str(project), "--no-vault", "-j", "1", keys="k", monkeypatch=monkeypatch).exit_code == 0
    nothing = invoke("review", str(project), "--no-vault", "-j", "1", keys="", monkeypatch=monkeypatch)
    assert "nothing waits for a decision" in nothing.output
    again = invoke("review", str(project), "--no-vault", "-j", "1", "--again", keys="r", monkeypatch=monkeypatch)
    assert again.exit_code == 0 and "(decided: keep)" in again.output and "1 to redact, 0 to keep" in again.output
    assert [decided.decision for decided in DecisionStore().load()[1].values()] == ["redact"]
    forgotten = invoke("review", "--forget", invoke("review", "--list").output.split()[0])
    assert forgotten.exit_code == 0 and "forgotten" in forgotten.output
    assert invoke("review", "--list").output == "no decisions kept yet\n"
