"""`sessionsite audit`: what a person should look at before publishing.

It reads the sessions as a build would (the same selection, the same redaction) and lists:

- each redaction made: its kind, the session, the line of the log, and the secret masked (its first
  characters at most, and its length: never the secret);
- what looks private and was not redacted: e-mail addresses, IP addresses, host names (of machines:
  in ssh, database and other non-web URLs, git remotes, private domains such as `.internal`), home
  folders, long high-entropy strings (masked too: they may be keys of a format no rule knows), and last
  the hosts of web addresses, which are mostly public sites a search or a fetch named,

grouped by kind and value, and counted; the high-entropy strings ranked by how random they look, the likeliest
keys first. Given the site built from the same sessions (`--site DIR`), each
place is also a link into it: the page, and the anchor of the entry when the page shows one.
"""

from __future__ import annotations

import ipaddress
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from .core import urls
from .core.model import Archive, Entry
from .core.text import for_terminal
from .stages.credentials import net
from .stages.credentials.entropy import randomness
from .stages.redact import HOME_PATH, Redactor, is_identifier
from .stages.discover import SessionFile
from .stages.selection import Selection
from .render.html.anchors import find_anchor_page
from .pipeline.phase1 import collect, stream_entries
from .pipeline.plans import PlannedFile, Redaction

EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]*\d)")
# Hosts in URLs: of the web (https://…), which are mostly public sites a search or a fetch named, and of
# everything else (ssh://, postgres://, redis://…), which are mostly one's own machines.
WEB_HOST = re.compile(r"(?i)\bhttps?://(?:[^/\s@\"'<>]*@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?=[:/?#\s\"'<>)\]]|$)")
URL_HOST = re.compile(r"(?i)\b(?:ssh|git|ftp|sftp|wss?|postgres(?:ql)?|mysql|redis|mongodb(?:\+srv)?|amqp|ldaps?|smb)://"
                      r"(?:[^/\s@\"'<>]*@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?=[:/\s\"'<>)\]]|$)")
SSH_HOST = re.compile(r"(?<![\w.-])[\w.-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):")
PRIVATE_HOST = re.compile(r"(?i)(?<![\w.-])(?:[a-z0-9-]+\.)+(?:internal|local|localdomain|corp|lan|intranet|"
                          r"home\.arpa|intra|priv)(?![\w-]|\.\w)")
# Hosts everybody's sessions name: documentation, registries, forges.
PUBLIC_HOSTS = (
    "github.com", "githubusercontent.com", "github.io", "gitlab.com", "bitbucket.org", "pypi.org",
    "pythonhosted.org", "python.org", "npmjs.com", "npmjs.org", "anthropic.com", "claude.ai", "claude.com",
    "readthedocs.io", "readthedocs.org", "mozilla.org", "wikipedia.org", "stackoverflow.com", "w3.org",
    "example.com", "example.org", "example.net", "localhost", "googleapis.com", "google.com", "crates.io",
    "docs.rs", "golang.org", "go.dev", "rust-lang.org", "nodejs.org", "apple.com", "microsoft.com",
    "shields.io", "schema.org", "json-schema.org", "gnu.org", "debian.org", "ubuntu.com", "docker.com",
    "docker.io", "mkdocs.org", "sqlite.org", "git-scm.com", "opensource.org", "creativecommons.org",
)
PUBLIC_EMAILS = ("noreply@anthropic.com",)
REVIEW_KINDS = ("e-mail", "ip-address", "host-name", "home-folder", "high-entropy", "web-host")
NEEDS_DECISION = ("high-entropy",)
"""The kinds nothing is published with until a person decided on each value (`sessionsite review`): values
that may be a key of a format no rule knows. The others (addresses, host and folder names) are listed by
the audit but are rarely secret and often many: `--redact-word` takes out those that are private."""
CONTEXT = 48
"""Characters of the text either side of a value to review that the review shows with it."""


def masked(secret: str) -> str:
    """A secret as the audit shows it: at most its first four characters (a fifth of it, for a short one),
    which say what it is (`ghp_`, `sk-a`) but not what it holds, and its length."""
    shown = min(4, len(secret) // 5)
    return f"{secret[:shown]}{'•' * 4} ({len(secret)} characters)"


@dataclass(frozen=True)
class Place:
    """Where something is: the log and its line, the session, and the page and anchor of a built site."""

    file: str
    line: int
    session: str
    link: str = ""


@dataclass
class Finding:
    """One value of one kind, and every place it is."""

    kind: str
    shown: str
    """What the audit prints: the value, or, for a secret, the value masked."""
    places: list[Place] = field(default_factory=list)
    randomness: float = 0.0
    """For a high-entropy string: how random it looks (bits over its length), which ranks it."""
    context: str = ""
    """For a value to decide on: the text around its first place, the value masked in it."""


@dataclass
class AuditReport:
    redacted: dict[tuple[str, str], Finding] = field(default_factory=dict)
    """Redactions made, by kind and masked value."""
    to_review: dict[tuple[str, str], Finding] = field(default_factory=dict)
    """What looks private and was not redacted, by kind and value."""
    sessions: int = 0

    @property
    def anything(self) -> bool:
        return bool(self.redacted or self.to_review)

    def needing_decision(self) -> list[tuple[str, Finding]]:
        """The values nothing is published with until a person decides (`NEEDS_DECISION`), each with its
        finding: the likeliest keys first."""
        found = [(value, finding) for (kind, value), finding in self.to_review.items() if kind in NEEDS_DECISION]
        return sorted(found, key=lambda item: (-item[1].randomness, -len(item[1].places), item[1].shown))

    def add(self, found: dict[tuple[str, str], Finding], kind: str, value: str, shown: str, place: Place,
            text: str = "") -> None:
        finding = found.get((kind, value))
        if finding is None:
            finding = found[(kind, value)] = Finding(
                kind, shown, randomness=randomness(value) if kind == "high-entropy" else 0.0,
                context=context_of(text, value, shown) if kind in NEEDS_DECISION else "")
        if not finding.places or finding.places[-1] != place:
            finding.places.append(place)


def private_looking(text: str) -> Iterator[tuple[str, str, str]]:
    """(kind, value, shown) for what looks private in text that was redacted already."""
    for found in EMAIL.finditer(text):
        address = found.group()
        domain = address.rsplit("@", 1)[1].lower()
        if address.lower() not in PUBLIC_EMAILS and not _is_public(domain):
            yield "e-mail", address, address
    for found in IPV4.finditer(text):
        try:
            ip = ipaddress.IPv4Address(found.group())
        except ValueError:
            continue
        if not (ip.is_loopback or ip.is_unspecified or ip.is_multicast or ip.is_reserved):
            yield "ip-address", str(ip), str(ip)
    hosts = {m.group(1).lower() for pattern in (URL_HOST, SSH_HOST) for m in pattern.finditer(text)}
    hosts.update(m.group().lower() for m in PRIVATE_HOST.finditer(text))
    web = {m.group(1).lower() for m in WEB_HOST.finditer(text)}
    for host in sorted(hosts | web):
        if not _is_public(host) and not IPV4.fullmatch(host):
            private = host in hosts or PRIVATE_HOST.fullmatch(host) is not None
            yield ("host-name" if private else "web-host"), host, host
    for found in HOME_PATH.finditer(text):
        yield "home-folder", found.group(), found.group()
    for token in high_entropy_values(text):
        yield "high-entropy", token, masked(token)


def high_entropy_values(text: str) -> Iterator[str]:
    """The values of text (redacted already) that look machine-made or random: the net whose every value is
    put to a person before it is published (`NEEDS_DECISION`), and that finds a value decided "redact" again
    in every text of every later build (`stages.redact.ReviewedSecrets`)."""
    for token, _, _ in net.candidates(text):
        yield token


def context_of(text: str, value: str, shown: str) -> str:
    """The line of `text` around `value`, at most `CONTEXT` characters either side, with every copy of the
    value in it masked (`shown`)."""
    at = text.find(value)
    if at < 0:
        return ""
    start = max(text.rfind("\n", 0, at) + 1, at - CONTEXT)
    end = text.find("\n", at + len(value))
    end = min(len(text) if end < 0 else end, at + len(value) + CONTEXT)
    around = text[start:end].replace(value, f"«{shown.split(' (')[0]}»")
    return ("…" if start > 0 and text[start - 1] != "\n" else "") + around + ("…" if end < len(text) and text[end] != "\n" else "")


def _is_public(host: str) -> bool:
    host = host.rstrip(".")
    return any(host == public or host.endswith("." + public) for public in PUBLIC_HOSTS)


def _texts(value: Any, key: str = "") -> Iterator[str]:
    """The strings of an entry that a page may show: not its ids, times and embedded files' bytes, nor the
    working directory every entry repeats (the session's is looked at once, with its first line)."""
    if isinstance(value, str):
        if not is_identifier(key, value) and key != "cwd":
            yield value
    elif isinstance(value, dict):
        media = value.get("type") == "base64"
        for name, child in value.items():
            if not (media and name == "data"):
                yield from _texts(child, name)
    elif isinstance(value, list):
        for child in value:
            yield from _texts(child, key)


def _anchor_of(entry: Entry) -> str:
    """The anchor the page gives the entry: a tool result shows in its call's block."""
    from .stages.interpret import _anchor  # one rule for anchors: interpret's

    content = entry.data.get("message", {}).get("content") if isinstance(entry.data.get("message"), dict) else None
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "tool_result" and part.get("tool_use_id"):
                return _anchor(part["tool_use_id"], "")
    return _anchor(entry.data.get("uuid"), "") if entry.data.get("uuid") else ""


class _Linker:
    """Links into a built site: the page of a session that shows an anchor, with it when it is there."""

    def __init__(self, site: Path | None):
        self.site = site
        self.pages: dict[str, str] = {}

    def __call__(self, key: str, anchor: str) -> str:
        if self.site is None:
            return ""
        page_number = find_anchor_page(self.site / urls.anchor_map(key), anchor) if anchor else 1
        page = urls.session_part(key, page_number)
        if page not in self.pages:
            try:
                self.pages[page] = (self.site / page).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self.pages[page] = ""
        text = self.pages[page]
        link = f"{self.site.as_posix().rstrip('/')}/{page}" if text else ""
        if link and anchor and f'id="{anchor}"' in text:
            link += f"#{anchor}"
        return link


def audit(inputs: Iterable[Path], redaction: Redaction, selection: Selection = Selection(), site: Path | None = None,
          jobs: int = 1, files: list[SessionFile] | None = None) -> AuditReport:
    """Read the sessions the inputs hold (those `selection` chooses) as a build would, and list what was
    redacted and what looks private and was not. `files`: the inputs' files as a build found them (the
    vault's copies of logs that are gone among them)."""
    redactor = redaction.redactor()
    archive, _, plans = collect(list(inputs), redactor=redactor, jobs=jobs, selection=selection, files=files)
    report = AuditReport(sessions=sum(1 for session in archive.sessions.values() if session.is_listed))
    linker = _Linker(site)
    for plan in plans:
        _audit_file(plan, archive, redaction, report, linker)
    return report


def _audit_file(plan: PlannedFile, archive: Archive, redaction: Redaction, report: AuditReport,
                linker: _Linker) -> None:
    keys = sorted((key for key, session in archive.sessions.items() if session.source == str(plan.source.path)),
                  key=lambda key: (len(key), key))
    if not keys:
        return
    key = keys[0]  # the file's own session; the runs its progress entries hold are shown on its page too
    # Redactions by the line of the entry that held them: a batch of entries is redacted before its first
    # is handed on, so what was taken out is matched to each entry by its line, not by when it was told.
    found: defaultdict[int, list[tuple[str, str]]] = defaultdict(list)
    recording = Redactor(secrets=redaction.secrets, home=redaction.home, own=redaction.own,
                         record=lambda kind, secret, line: found[line].append((kind, secret)))
    cwd_seen = False
    for item in stream_entries(plan.source, recording, []):
        texts = list(_texts(item.data)) if isinstance(item, Entry) else [item.text]  # a broken line is shown too
        if not cwd_seen and isinstance(item, Entry) and isinstance(item.data.get("cwd"), str):
            texts.append(item.data["cwd"])
            cwd_seen = True
        seen = [(found, text) for text in texts for found in private_looking(text)]
        taken = found.pop(item.line, [])
        if not (taken or seen):
            continue
        anchor = _anchor_of(item) if isinstance(item, Entry) else f"line-{item.line}"
        place = Place(str(plan.source.path), item.line, key, linker(key, anchor))
        for kind, secret in taken:
            shown = masked(secret)
            report.add(report.redacted, kind, shown, shown, place)
        for (kind, value, shown), text in seen:
            report.add(report.to_review, kind, value, shown, place, text)


def lines(report: AuditReport, everything: bool = False, most: int = 30, places: int = 3) -> Iterator[str]:
    """The report as the command prints it: each group with its count, then each value with its count and
    where it is (the first `places` of them)."""
    for title, found, order in (("Redacted", report.redacted, None), ("Not redacted: look at these", report.to_review,
                                                                        REVIEW_KINDS)):
        by_kind: dict[str, list[Finding]] = defaultdict(list)
        for finding in found.values():
            by_kind[finding.kind].append(finding)
        total = sum(len(finding.places) for finding in found.values())
        yield f"{title}: {total} place{'s' if total != 1 else ''}" + (":" if total else "")
        kinds = sorted(by_kind, key=lambda k: (order.index(k) if order and k in order else len(order or ()), k))
        for kind in kinds:
            # Strings no rule knew are ranked by how random they look: the likeliest keys first.
            findings = sorted(by_kind[kind], key=lambda f: (-f.randomness, -len(f.places), f.shown))
            count = sum(len(f.places) for f in findings)
            yield f"  {kind}: {count} place{'s' if count != 1 else ''}, {len(findings)} different"
            shown = findings if everything else findings[:most]
            for finding in shown:
                # What a transcript or a file's name holds is shown, never acted on by the terminal.
                yield f"    {for_terminal(finding.shown)}  ×{len(finding.places)}"
                for place in finding.places[:places]:
                    where = for_terminal(f"{place.file}:{place.line}")
                    yield (f"      {for_terminal(place.link)}  ({where})" if place.link
                           else f"      {where}  ({for_terminal(place.session)})")
                if len(finding.places) > places:
                    yield f"      … and {len(finding.places) - places} more"
            if len(findings) > len(shown):
                yield f"    … and {len(findings) - len(shown)} more (--all lists them)"


__all__ = ["NEEDS_DECISION", "AuditReport", "Finding", "Place", "audit", "context_of", "high_entropy_values", "lines",
           "masked", "private_looking"]
