"""An encrypted archive made from a built site: every file sealed (`encrypt.Sealer`), only the shell in clear.

The site is built as always, into a private folder (`plain_folder`, in the user's cache, kept between builds so
that the next build renders only what changed); `seal_site` then writes the archive the user publishes:

- `index.html` and one `<name>.html` per other page: a page that only unlocks (the theme's `locked.html`, with
  `assets/unlock.js`), holding its page sealed, in base64, as a data block, since `fetch` is refused on
  file:// and a page's script can read its own document anywhere. The script opens it and shows the page.
- `<name>.js` for every other file (search index, anchor maps, Markdown, saved outputs, images): a script
  handing its sealed bytes to the page (`sessionsiteSealed(name, data)`), loaded as the search index always
  was, from file:// as over HTTP; nothing in it runs until it is opened, and then only as data.
- in clear: `assets/` (the theme's styles and scripts, and the unlocking script), `.nojekyll`, and the record
  `.sessionsite-sealed.json` (the key's public id, the passphrase's salt and rounds, and each file's keyed
  fingerprint), so that the next build with the same key keeps every file whose content is unchanged as it
  is, and re-encrypts only what changed.

Names are flat (`<name>` is 32 hex digits of a keyed hash of the file's path), so the archive shows how many
files it has and how large each is, and nothing of what they are called.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from ..core import urls
from ..core.errors import SessionsiteError
from ..render.theme import Theme
from . import deploy
from .encrypt import FORMAT, Sealer, SiteKey
from .locks import MARKER
from .manifest import MANIFEST, digest_of_files, site_files
from .write import Staging

SEALED_RECORD = deploy.SEALED_RECORD
UNLOCK_FOLDER = "unlock"
"""Beside a theme's `static/`: what only an encrypted archive carries (its script and styles)."""
UNLOCK_FILES = ("unlock.js", "unlock.css")
INDEX_NAME = "index"
"""The sealed name of the site's `index.html`, which keeps its name: the link points at it."""
_NAME_MARK, _SEALED_MARK = "@@sealed-name@@", "@@sealed-data@@"
SEALING_THREADS = 4
SITE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
               "form-action 'none'")


def plain_folder(output: Path) -> Path:
    """Where the readable site behind the encrypted archive at `output` is built: the user's cache, private to
    them (as the logs it is made from are), one folder per output."""
    from .manifest import digest

    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sessionsite"
    root.mkdir(parents=True, exist_ok=True)
    folder = root / f"plain-{digest(str(output.resolve()))[:24]}"
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o700)
    return folder / "site"


def _left_out(path: str) -> bool:
    """Files of the plain site that only a build reads (its manifest, the search index's per-file word lists)
    or that name its pages (sitemaps): not part of the archive."""
    return (path in (MARKER, MANIFEST) or path.startswith(urls.SEARCH_WORDS_FOLDER + "/")
            or ("/" not in path and path.startswith("sitemap") and path.endswith(".xml")))


def _in_clear(path: str) -> bool:
    return path.startswith(urls.ASSETS + "/") or path == urls.NO_JEKYLL


@dataclass
class SealedRecord:
    """What an encrypted archive says of itself in clear, for the next build."""

    key_id: str = ""
    salt: str = ""
    iterations: int = 0
    shell: str = ""
    """A digest of the locked page around every sealed page: another one (a new theme) seals every page again."""
    plain: str = ""
    """A keyed digest of the readable site's files by name, size and time (`_plain_listing`) when it was sealed."""
    sealed: str = ""
    """A digest of the archive's files by name and size (the record and the marker aside), as the build left it."""
    files: dict[str, str] = field(default_factory=dict)
    """Of each sealed file, by its published name: its keyed fingerprint (`Sealer.fingerprint`)."""

    def to_bytes(self) -> bytes:
        return json.dumps({"format": FORMAT, "key_id": self.key_id, "salt": self.salt, "iterations": self.iterations,
                           "shell": self.shell, "plain": self.plain, "sealed": self.sealed, "files": self.files}, sort_keys=True, indent=0).encode("utf-8")

    @property
    def salt_bytes(self) -> bytes:
        return base64.b64decode(self.salt) if self.salt else b""


def load_record(out: Path) -> SealedRecord:
    """The record of the archive at `out`, or an empty one (none, damaged, another format)."""
    try:
        data = json.loads((out / SEALED_RECORD).read_bytes())
        if data.get("format") != FORMAT:
            return SealedRecord()
        record = SealedRecord(str(data["key_id"]), str(data["salt"]), int(data["iterations"]),
                              str(data.get("shell", "")), str(data.get("plain", "")), str(data.get("sealed", "")),
                              {str(k): str(v) for k, v in dict(data["files"]).items()})
        record.salt_bytes  # noqa: B018 - damaged base64 is an empty record, here rather than later
        return record
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return SealedRecord()


@dataclass
class SealReport:
    sealed: int = 0
    """Files encrypted by this build."""
    kept: int = 0
    """Files kept from the previous archive as they were (same key, same content)."""
    pages: int = 0
    seconds: float = 0.0


class Shell:
    """The locked page every sealed page is: the theme's `locked.html`, made once per build, filled per page."""

    def __init__(self, theme: Theme, key: SiteKey, *, inline: str = "", policy: str = SITE_POLICY,
                 mode: str = "site"):
        page = theme.environment().get_template("locked.html").render(
            policy=policy, key_id=key.key_id, name=_NAME_MARK, sealed=_SEALED_MARK, passphrase=key.from_passphrase,
            salt=base64.b64encode(key.salt).decode("ascii") if key.salt else "", iterations=key.iterations,
            format=FORMAT, mode=mode, inline=Markup(inline), assets=urls.ASSETS)  # noqa: S704 - our own script and styles
        before_name, _, rest = page.partition(_NAME_MARK)
        between, _, after = rest.partition(_SEALED_MARK)
        if not after or _NAME_MARK in after or _SEALED_MARK in before_name:
            raise SessionsiteError("internal error: the theme's locked.html must show {{ name }} and then {{ sealed }} "
                                   "once each")
        self._parts = (before_name.encode("utf-8"), between.encode("utf-8"), after.encode("utf-8"))
        self.digest = hashlib.sha256(b"\0".join(self._parts)).hexdigest()[:32]

    def page(self, name: str, sealed: bytes) -> bytes:
        before_name, between, after = self._parts
        return b"".join((before_name, name.encode("ascii"), between, base64.b64encode(sealed), after))


def data_script(name: str, sealed: bytes) -> bytes:
    return b'sessionsiteSealed("%s","%s");\n' % (name.encode("ascii"), base64.b64encode(sealed))


def unlock_files(theme: Theme) -> dict[str, bytes]:
    """The unlocking script and styles, from the first theme folder that has each."""
    found: dict[str, bytes] = {}
    for name in UNLOCK_FILES:
        for folder in theme.dirs:
            path = Path(folder) / UNLOCK_FOLDER / name
            if path.is_file():
                found[name] = path.read_bytes()
                break
        else:
            raise SessionsiteError(f"internal error: the theme has no {UNLOCK_FOLDER}/{name}")
    return found


def _plain_listing(plain: Path, sealer: Sealer) -> str:
    """The readable site's files by name, size and modification time (a file the plain build kept from its last
    build is the same file, hard-linked), keyed: the record is published."""
    listing = []
    for path in _files_of(plain):
        if not _left_out(path):
            stat = (plain / path).stat()
            listing.append(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return sealer.fingerprint("", "\n".join(listing).encode("utf-8", "surrogateescape"))


def _archive_digest(root: Path) -> str:
    return digest_of_files([item for item in site_files(root) if item[0] not in (SEALED_RECORD, MARKER)])


def up_to_date(plain: Path, out: Path, key: SiteKey, theme: Theme, previous: SealedRecord) -> bool:
    """Whether the archive at `out` is what sealing `plain` would make: sealed with this key and shell from the
    same files, and not changed since. Then nothing is read or written. (A new unlocking script is a change of
    the theme's files, which renders the readable site again: its listing changes with it.)"""
    if not previous.sealed or previous.key_id != key.key_id or previous.shell != Shell(theme, key).digest:
        return False
    return previous.plain == _plain_listing(plain, Sealer(key)) and previous.sealed == _archive_digest(out)


def seal_site(plain: Path, staging: Staging, key: SiteKey, theme: Theme, previous: SealedRecord) -> SealReport:
    """The archive of the site at `plain`, written into `staging`; the previous archive's files are kept where
    `previous` (its record) shows the same key and the same content."""
    started = time.perf_counter()
    sealer = Sealer(key)
    shell = Shell(theme, key)
    reusable = previous.files if (previous.key_id, previous.shell) == (key.key_id, shell.digest) else {}
    record = SealedRecord(key.key_id, base64.b64encode(key.salt).decode("ascii") if key.salt else "",
                          key.iterations, shell.digest)
    report = SealReport()
    for name, content in unlock_files(theme).items():
        staging.write(urls.asset(name), content)

    def seal_one(path: str) -> tuple[str, str, bool] | None:
        """The file at `path` in the archive: its published name, fingerprint, and whether it was kept."""
        content = (plain / path).read_bytes()
        if _in_clear(path):
            staging.write(path, content)
            return None
        is_page = path.endswith(".html")
        name = INDEX_NAME if path == urls.INDEX else sealer.name_of(path)
        published = f"{name}.html" if is_page else f"{name}.js"
        fingerprint = sealer.fingerprint(path, content)
        if reusable.get(published) == fingerprint and staging.take_from_previous(published):
            return published, fingerprint, True
        sealed = sealer.seal(name, path, content)
        staging.write(published, shell.page(name, sealed) if is_page else data_script(name, sealed))
        return published, fingerprint, False

    # Threads: opening, hashing, sealing and writing files let go of the interpreter, and a site is thousands of
    # files (on two cores, four threads halve the pass's wall time).
    with ThreadPoolExecutor(max_workers=SEALING_THREADS) as pool:
        for done in pool.map(seal_one, [path for path in _files_of(plain) if not _left_out(path)]):
            if done is None:
                continue
            published, fingerprint, kept = done
            record.files[published] = fingerprint
            report.pages += published.endswith(".html")
            report.kept += kept
            report.sealed += not kept
    record.plain = _plain_listing(plain, sealer)
    record.sealed = _archive_digest(staging.root)
    staging.write(SEALED_RECORD, record.to_bytes())
    report.seconds = time.perf_counter() - started
    return report


def _files_of(root: Path) -> list[str]:
    found: list[str] = []
    for folder, _, names in os.walk(root):
        inside = os.path.relpath(folder, root)
        for file_name in names:
            found.append(file_name if inside == "." else f"{Path(inside).as_posix()}/{file_name}")
    return sorted(found)


def seal_bundle(page: bytes, key: SiteKey, theme: Theme, page_script_hash: str) -> bytes:
    """A bundle's one page sealed inside a locked page of its own: the unlocking script and styles inline (one
    file), and the bundle's own script allowed by its hash, for when the page it holds is shown."""
    files = unlock_files(theme)
    script = files["unlock.js"].decode("utf-8").replace("</", "<\\/")
    style = files["unlock.css"].decode("utf-8").replace("</", "<\\/")
    script_hash = "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = (f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '{script_hash}' "
              f"'{page_script_hash}'; base-uri 'none'; form-action 'none'")
    shell = Shell(theme, key, inline=f"<style>\n{style}\n</style>\n<script>{script}</script>", policy=policy,
                  mode="bundle")
    return shell.page("bundle", Sealer(key).seal("bundle", "bundle.html", page))


__all__ = ["SEALED_RECORD", "SealReport", "SealedRecord", "load_record", "plain_folder", "seal_bundle", "seal_site",
           "up_to_date"]
