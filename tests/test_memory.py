"""Memory stays bounded however large a session file is: the input is streamed, one page at a time.

Each build runs in a process of its own (`-j 1`, so the whole build is in it) that reports its own peak
resident memory. A session four times larger must not need noticeably more memory: what grows with the
input is written out as it comes, not held.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.core.model import BrokenLine
from generator.output.vault import Vault
from generator.stages import read
from generator.stages.discover import SessionFile
from generator.stages.redact import REDACTION_WINDOW, Redactor
from generator.stages.duplicates import DigestSet
from helpers import PNG_BYTES, PROJECT_DIR, assistant, text, tool_result, tool_use, user

REPO = Path(__file__).resolve().parents[1]
MEGABYTE = 1024 * 1024

# A child's peak memory (`ru_maxrss`) starts from its parent's at the fork, and a test worker can be large:
# the script measured runs as the grandchild of a small launcher, so its peak is its own.
MEASURED = [sys.executable, "-c", "import subprocess, sys; sys.exit(subprocess.run([sys.executable, *sys.argv[1:]]).returncode)",
            "-c"]

MEASURE = """
import resource, sys
from pathlib import Path
from generator.build import BuildConfig, build
report = build(BuildConfig(inputs=(Path(sys.argv[1]),), output=Path(sys.argv[2]), jobs=1))
assert report.sessions == 1 and not report.diagnostics, report.to_json()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def write_long_session(path: Path, megabytes: int) -> int:
    """A session of many turns, each with a large tool output and now and then a pasted image in the
    middle of its line, written entry by entry. Returns the file's size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(PNG_BYTES * 3000).decode()}}
    size, parent, turn = 0, None, 0
    with path.open("w", encoding="utf-8") as handle:
        while size < megabytes * MEGABYTE:
            turn += 1
            call = tool_use("Bash", {"command": f"pytest -q tests/test_tides_{turn}.py"})
            output = "\n".join(f"tests/test_tides_{turn}.py::test_case_{line} PASSED  [{line % 100:3d}%]"
                               for line in range(1200))
            entries = [user(f"Turn {turn}: run the tide tests again"),
                       assistant(text(f"Running the tests for **turn {turn}**."), call),
                       tool_result(call["id"], output)]
            if turn % 8 == 0:
                entries.append(user([{"type": "text", "text": "this is what I see"}, image]))
            for entry in entries:
                entry["parentUuid"] = parent
                parent = entry["uuid"]
                line = json.dumps(entry) + "\n"
                handle.write(line)
                size += len(line)
    return size


def peak_memory_of_build(tmp_path: Path, megabytes: int) -> tuple[int, int]:
    folder = tmp_path / f"in-{megabytes}"
    size = write_long_session(folder / PROJECT_DIR / "7d4f9a1e-0c35-4b8e-9f6a-2b1c3d4e5f60.jsonl", megabytes)
    finished = subprocess.run([*MEASURED, MEASURE, str(folder), str(tmp_path / f"site-{megabytes}")],
                              cwd=REPO, capture_output=True, text=True, check=True)
    return size, int(finished.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_memory_does_not_grow_with_the_size_of_a_session(tmp_path: Path) -> None:
    small_size, small_peak = peak_memory_of_build(tmp_path, 10)
    large_size, large_peak = peak_memory_of_build(tmp_path, 40)
    growth = large_peak - small_peak
    # What is held for every entry read (all of them, or their text) would grow as fast as the input. Measured
    # (2026-11-26, -j 1): 46 MB for 10 MB of session, 52-54 MB for 40 MB, 71 MB for 120 MB. Something still
    # grows by about a fifth of the input (the search terms and anchors of a session whose every turn has new
    # words grow with it; the rest is not yet found): a third is the bound, with room for a noisy machine.
    assert growth < (large_size - small_size) / 3, (
        f"{(large_size - small_size) / MEGABYTE:.0f} MB more input took {growth / MEGABYTE:.1f} MB more memory "
        f"({small_peak / MEGABYTE:.0f} MB -> {large_peak / MEGABYTE:.0f} MB)")


MEASURE_BUNDLE = """
import resource, sys
from pathlib import Path
from generator.bundle import BundleConfig, bundle
report = bundle(BundleConfig(inputs=(Path(sys.argv[1]),), output=Path(sys.argv[2]), jobs=1))
assert report.sessions and not report.diagnostics, report
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def peak_memory_of_bundle(tmp_path: Path, megabytes: int, suffix: str) -> tuple[int, int]:
    session = tmp_path / f"in-{megabytes}" / PROJECT_DIR / "7d4f9a1e-0c35-4b8e-9f6a-2b1c3d4e5f60.jsonl"
    size = write_long_session(session, megabytes)
    output = tmp_path / f"bundle-{megabytes}{suffix}"
    finished = subprocess.run([*MEASURED, MEASURE_BUNDLE, str(session), str(output)],
                              cwd=REPO, capture_output=True, text=True, check=True)
    if suffix == ".html":
        assert output.stat().st_size > size / 2, "the bundle holds the whole session, saved outputs and images too"
    return size, int(finished.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_bundle_memory_does_not_grow_with_the_size_of_a_session(tmp_path: Path, suffix: str) -> None:
    """The HTML bundle is as large as its sessions: it is written as it is composed, a page at a time,
    with only the last few inlined files kept. The Markdown bundle is shrunk to fit GitHub as each
    session's blocks are read, a run of turns at a time."""
    small_size, small_peak = peak_memory_of_bundle(tmp_path, 10, suffix)
    large_size, large_peak = peak_memory_of_bundle(tmp_path, 40, suffix)
    growth = large_peak - small_peak
    # Measured before: 147 and 416 MB (HTML), 84 and 235 MB (Markdown) for 10 and 40 MB of session;
    # now 45 and 48 MB, 47 and 48 MB.
    assert growth < (large_size - small_size) / 4, (
        f"{(large_size - small_size) / MEGABYTE:.0f} MB more input took {growth / MEGABYTE:.1f} MB more memory "
        f"({small_peak / MEGABYTE:.0f} MB -> {large_peak / MEGABYTE:.0f} MB)")


# -- a line too long to read whole -------------------------------------------------------------------------

SESSION_NAME = "7d4f9a1e-0c35-4b8e-9f6a-2b1c3d4e5f60"


def write_one_long_line(path: Path, megabytes: int) -> tuple[int, str]:
    """A session whose third line is one valid JSON entry of `megabytes` (a tool output of a pasted build
    log), written a piece at a time, never held. Returns the file's size and the SHA-256 of that line,
    without its line ending."""
    path.parent.mkdir(parents=True, exist_ok=True)
    call = tool_use("Bash", {"command": "cat build.log"})
    prefix, suffix = json.dumps(tool_result(call["id"], "BODY")).split('"BODY"')
    line_hash = hashlib.sha256()
    rows = random.Random(7)
    with path.open("wb") as handle:
        for entry in (user("Show me the build log"), assistant(text("Here it is."), call)):
            handle.write(json.dumps(entry).encode() + b"\n")

        def put(data: bytes) -> None:
            handle.write(data)
            line_hash.update(data)

        put(prefix.encode() + b'"')
        written, number = 0, 0
        while written < megabytes * MEGABYTE:
            piece = "".join(f"{number + i:09d} {rows.randbytes(24).hex()} ok\\n" for i in range(4000)).encode()
            number += 4000
            put(piece)
            written += len(piece)
        put(b'"' + suffix.encode())
        handle.write(b"\n" + json.dumps(user("Thanks, that is all")).encode() + b"\n")
    return path.stat().st_size, line_hash.hexdigest()


MEASURE_SAVE = """
import resource, sys
from pathlib import Path
from generator.build import BuildConfig, build
from generator.core.model import BrokenLine
from generator.output.vault import Vault
from generator.stages import read
from generator.stages.discover import SessionFile
from generator.stages.redact import REDACTION_WINDOW, Redactor
from generator.stages.duplicates import DigestSet
from generator.stages.discover import find
report = Vault(Path(sys.argv[2])).save(find([Path(sys.argv[1])]))
assert report.new == 1 and not report.skipped, report
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

HUGE_LINE_MEGABYTES = 200


@pytest.fixture(scope="module")
def huge_line(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    folder = tmp_path_factory.mktemp("huge-line")
    size, line_hash = write_one_long_line(folder / PROJECT_DIR / f"{SESSION_NAME}.jsonl", HUGE_LINE_MEGABYTES)
    return folder, size, line_hash


def sha256_of(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(MEGABYTE):
            hasher.update(block)
    return hasher.hexdigest()


@pytest.mark.slow
def test_a_200_mb_line_builds_in_a_fraction_of_its_size_shown_in_part_and_kept_whole(
        tmp_path: Path, huge_line: tuple[Path, int, str]) -> None:
    """Parsed, a line takes many times its size (a 1 GB line took a build 7 GB): one over the limit is
    read past, its start shown on the page, and all of it copied, a piece at a time, into a linked file."""
    folder, size, line_hash = huge_line
    site = tmp_path / "site"
    command = MEASURE.replace("and not report.diagnostics", "and len(report.diagnostics) == 1")
    finished = subprocess.run([*MEASURED, command, str(folder), str(site)], cwd=REPO,
                              capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr[-3000:]
    peak = int(finished.stdout.strip().splitlines()[-1])
    # Measured: 70 MB (2 GB before).
    assert peak < size / 2, f"a build of a {size / MEGABYTE:.0f} MB line peaked at {peak / MEGABYTE:.0f} MB"
    page = (site / "projects" / "home-ada-src-tidewatch" / f"{SESSION_NAME}.html").read_text(encoding="utf-8")
    assert re.search(r"Line 3 could not be read: a line of 20\d\.\d MB, longer than the 16 MB read whole", page)
    assert "000000000 " in page and "000040000 " not in page, "the start of the line is shown, not all of it"
    assert "Thanks, that is all" in page, "the entry after it is read"
    links = re.findall(r'href="([^"]*line-3\.txt)"', page)
    assert links, "the page links the whole line"
    whole = site / "projects" / "home-ada-src-tidewatch" / links[0]
    assert sha256_of(whole) == line_hash, "the file beside the page holds the whole line, byte for byte"
    assert page.count("000000000 ") == 1 and len(page) < 2 * MEGABYTE


@pytest.mark.slow
def test_saving_a_200_mb_line_takes_a_fraction_of_its_size(tmp_path: Path, huge_line: tuple[Path, int, str]) -> None:
    """The vault's save cuts a line longer than a chunk, and writes a large log's chunks ahead of its
    transaction: a 1 GB line took 3 GB."""
    folder, size, _ = huge_line
    vault = tmp_path / "vault"
    finished = subprocess.run([*MEASURED, MEASURE_SAVE, str(folder), str(vault)], cwd=REPO,
                              capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr[-3000:]
    peak = int(finished.stdout.strip().splitlines()[-1])
    # Measured: 120 MB (625 MB before).
    assert peak < size / 2, f"saving a {size / MEGABYTE:.0f} MB line peaked at {peak / MEGABYTE:.0f} MB"
    log = folder / PROJECT_DIR / f"{SESSION_NAME}.jsonl"
    Vault(vault).write_out(str(log.resolve()), None, tmp_path / "restored.jsonl")
    assert sha256_of(tmp_path / "restored.jsonl") == sha256_of(log)


# The rules of a line over the limit, on small lines: the limit and the pieces it is copied in made small.


@pytest.fixture()
def small_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(read, "LINE_LIMIT", 3000)
    monkeypatch.setattr(read, "LINE_PREVIEW", 1000)
    monkeypatch.setattr(read, "_PIECE", 7)  # a piece ends inside a character of two, three or four bytes
    return 3000


LONG_TEXT = "".join(f"row {n}: tide ✓ 𝄞 été\\n" for n in range(400))  # about 11,000 characters, of 1 to 4 bytes


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("where", ["first", "middle", "last-unended"])
def test_a_line_over_the_limit_is_shown_in_part_and_read_again_whole(
        tmp_path: Path, small_limit: int, ending: str, encoding: str, where: str) -> None:
    """In every encoding a log is read in, at the start, in the middle and cut off at the end: the lines
    around it are read, and it is one unreadable line holding its start, which gives all of it again."""
    long_line = json.dumps(user(LONG_TEXT), ensure_ascii=False)
    short = [json.dumps(user(f"prompt {n}")) for n in range(2)]
    lines = {"first": [long_line, *short], "middle": [short[0], long_line, short[1]],
             "last-unended": [*short, long_line]}[where]
    content = ending.join(lines) + ("" if where == "last-unended" else ending)
    path = tmp_path / "log.jsonl"
    path.write_bytes(content.encode(encoding))
    number = lines.index(long_line) + 1

    result = read.read_file(path)
    assert [(type(i).__name__, i.line) for i in result.items] == [
        ("BrokenLine" if n == number else "Entry", n) for n in range(1, 4)]
    broken = result.items[number - 1]
    assert isinstance(broken, BrokenLine) and broken.whole is not None
    assert "".join(broken.whole()) == long_line
    assert long_line.startswith(broken.text) and 0 < len(broken.text) <= 1000
    messages = [(d.file, d.line, d.message) for d in result.diagnostics if "read whole" in d.message]
    assert len(messages) == 1 and messages[0][:2] == (str(path), number)
    assert ("the file ends in it" in messages[0][2]) == (where == "last-unended")


def test_a_line_over_the_limit_is_not_copied_from_another_file_put_in_its_place(
        tmp_path: Path, small_limit: int) -> None:
    """A log replaced between reading and copying (Claude Code rewrote it, a sync tool swapped it): the
    page says so rather than copy bytes of another file as the line."""
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(user("first")) + "\n" + json.dumps(user(LONG_TEXT)) + "\n")
    (broken,) = [i for i in read.read_file(path).items if isinstance(i, BrokenLine)]
    replacement = tmp_path / "other.jsonl"
    replacement.write_text("x" * 20_000)
    replacement.replace(path)
    assert broken.whole is not None
    copied = "".join(broken.whole())
    assert "xxx" not in copied and "was replaced since it was read" in copied


def test_a_line_over_the_limit_builds_with_its_start_on_the_page_and_all_of_it_beside(
        tmp_path: Path, small_limit: int) -> None:
    session = tmp_path / "in" / PROJECT_DIR / f"{SESSION_NAME}.jsonl"
    session.parent.mkdir(parents=True)
    long_line = json.dumps(user(LONG_TEXT), ensure_ascii=False)
    session.write_text("\n".join([json.dumps(user("Before the long line")), long_line,
                                  json.dumps(user("After the long line"))]) + "\n", encoding="utf-8")
    report = build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site", jobs=1))
    (diagnostic,) = report.diagnostics
    assert (diagnostic.file, diagnostic.line) == (str(session), 2)
    folder = tmp_path / "site" / "projects" / "home-ada-src-tidewatch"
    page = (folder / f"{SESSION_NAME}.html").read_text(encoding="utf-8")
    assert "Before the long line" in page and "After the long line" in page
    assert "row 0: tide" in page and "row 399: tide" not in page
    (link,) = re.findall(r'href="([^"]*line-2\.txt)"', page)
    assert (folder / link).read_text(encoding="utf-8") == long_line


# Secrets in a line too long to hold are redacted a window at a time; none may be cut in two by a window. As
# written in a line of JSON, with the redacted text each leaves.
SECRETS = {
    "anthropic-key": ("sk-ant-api03-" + "Q7xR2mVb9LpZ4kWc8NfT1yHd6GsJ3aUe5oKi0" * 2, "[REDACTED:anthropic-key]"),
    "github-token": ("ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "[REDACTED:github-token]"),
    "secret-assignment": ("export DB_PASSWORD=correct-horse-battery-staple-91\\n",
                          "export DB_PASSWORD=[REDACTED:secret-assignment]\\n"),
    "private-key": ("-----BEGIN RSA PRIVATE KEY-----\\n" + "MIIEowIBAAKCAQEAv1x9Zq3\\n" * 60
                    + "-----END RSA PRIVATE KEY-----", "[REDACTED:private-key]"),
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_a_secret_where_a_redaction_window_ends_is_redacted(kind: str) -> None:
    secret, redacted = SECRETS[kind]
    filler = "".join(f"tide table row {n} checked\\n" for n in range(45_000))  # 1.2 MB, as JSON writes it
    for offset in range(-len(secret) - 3, 4, max(1, len(secret) // 5)):
        start = REDACTION_WINDOW + offset
        pieces = [filler[:start], f"\\n{secret}\\n", filler[start:]]  # on a line of its own
        pieces = [piece[i:i + 100_003] for piece in pieces for i in range(0, len(piece), 100_003)]
        redactor = Redactor()
        in_pieces = "".join(redactor.text_in_pieces(pieces, json_text=True))
        expected = f"{filler[:start]}\\n{redacted}\\n{filler[start:]}"
        # Compared as booleans: pytest would otherwise print a diff of megabytes.
        assert (in_pieces == expected) is True, f"{kind} {offset} from the cut"
        assert redactor.counts == {kind: 1}


def test_the_file_beside_the_page_of_a_long_line_is_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read, "LINE_LIMIT", 1 << 20)
    session = tmp_path / "in" / PROJECT_DIR / f"{SESSION_NAME}.jsonl"
    session.parent.mkdir(parents=True)
    filler = "".join(f"tide table row {n} checked\n" for n in range(200_000))  # 5.3 MB
    near_the_cut = REDACTION_WINDOW - 200  # where the copy's first window ends, near enough
    secrets = [json.loads(f'"{secret}"') for secret, _ in SECRETS.values()]
    content = "\n".join([secrets[0], filler[:near_the_cut], secrets[1], filler[near_the_cut:], *secrets[2:]])
    session.write_text(json.dumps(user("Before")) + "\n" + json.dumps(user(content)) + "\n")
    build(BuildConfig(inputs=(tmp_path / "in",), output=tmp_path / "site", jobs=1))
    whole = (tmp_path / "site" / "projects" / "home-ada-src-tidewatch" / f"{SESSION_NAME}.files" / "line-2.txt"
             ).read_text(encoding="utf-8")
    assert len(whole) > 5_000_000 and "\n" not in whole
    for leaked in ("Q7xR2mVb9", "a1B2c3D4e5F6", "correct-horse", "MIIEowIBAAKCAQEA"):
        assert (leaked in whole) is False, leaked
    assert whole.count("[REDACTED:") == 4


def test_the_digests_of_a_long_session_are_held_compactly_and_found_as_a_set_finds_them() -> None:
    """Which entries a session has seen is asked of every entry: held as a set of bytes it took 75 MB for a
    session of 500,000 entries."""
    rows = random.Random(11)
    # past the digests a small set holds as a set of numbers; 0 and 1 as numbers
    added = [rows.randbytes(8) for _ in range(DigestSet.SMALL + 50_000)] + [bytes(8), b"\x01" + bytes(7)]
    digests = DigestSet()
    for digest in added + added[:1000]:
        digests.add(digest)
    assert len(digests) == len(set(added))
    others = [rows.randbytes(8) for _ in range(50_000)]
    assert all(digest in digests for digest in added)
    expected = set(added)
    assert [digest for digest in others if digest in digests] == [d for d in others if d in expected]
    assert digests.numbers is None and len(digests.table) * 8 < 32 * len(added)


def test_a_long_line_saved_while_it_is_written_and_again_when_done_is_kept_byte_for_byte(tmp_path: Path) -> None:
    """The vault cuts a long line into chunks: saved halfway through (Claude Code still writing it) and
    again when done, the log comes back as it is."""
    log = tmp_path / "in" / PROJECT_DIR / f"{SESSION_NAME}.jsonl"
    log.parent.mkdir(parents=True)
    rows = random.Random(5)
    start = json.dumps(user("before")) + "\n" + '{"type": "user", "message": {"role": "user", "content": "'
    log.write_text(start + rows.randbytes(3_500_000).hex())
    vault = Vault(tmp_path / "vault")
    assert vault.save([SessionFile(log, PROJECT_DIR)]).new == 1
    with log.open("a") as handle:
        handle.write(rows.randbytes(1_000_000).hex() + '"}}\n' + json.dumps(user("after")) + "\n")
    assert vault.save([SessionFile(log, PROJECT_DIR)]).grown == 1
    vault.write_out(str(log.resolve()), None, tmp_path / "restored.jsonl")
    assert (tmp_path / "restored.jsonl").read_bytes() == log.read_bytes()


def test_a_json_array_file_over_the_limit_is_shown_in_part_and_read_again_whole(tmp_path: Path, small_limit: int) -> None:
    """A hook's `chat.json` (one JSON array of entries) is one line as far as memory goes."""
    path = tmp_path / "chat.json"
    content = json.dumps([user(f"prompt {n}: {LONG_TEXT}") for n in range(3)], ensure_ascii=False)
    path.write_text(content, encoding="utf-8")
    result = read.read_file(path)
    (broken,) = result.items
    assert isinstance(broken, BrokenLine) and broken.whole is not None and broken.line == 1
    assert "".join(broken.whole()) == content and content.startswith(broken.text)
    ((file, line, message),) = [(d.file, d.line, d.message) for d in result.diagnostics]
    assert (file, line) == (str(path), 1) and "read whole" in message
