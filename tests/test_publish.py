"""Sharing the archive: served by a web host from a subpath or from the root, opened from disk, zipped,
with canonical addresses and a sitemap, and previewed with `sessionsite serve`."""

from __future__ import annotations

import functools
import json
import threading
import zipfile
from collections import deque
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.request import urlopen
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.build import BuildConfig, build
from generator.cli import main
from generator.serve import serve

from conftest import EXAMPLES
from helpers import start_tags

LINK_ATTRIBUTES = ("href", "src", "data-anchor-map", "data-search-index")


class _SubpathHandler(SimpleHTTPRequestHandler):
    """A host serving the site under one folder, as GitHub Pages serves a project site under /repo/:
    any request outside it is a 404, so a link that climbs out of the site shows up broken."""

    prefix = "/"

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return "/nonexistent-outside-the-site"
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format, *args):  # noqa: A002
        pass


@contextmanager
def hosted(site: Path, prefix: str):
    handler = type("Handler", (_SubpathHandler,), {"prefix": prefix})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except HTTPError as error:
        return error.code, b""


def crawl(start: str) -> tuple[set[str], list[str]]:
    """Every page reachable from `start` on its host, following every link, script, stylesheet, image,
    anchor map and search index; returns the pages seen and the broken references (missing files, or
    anchors that no element on the target page has)."""
    host = urlsplit(start).netloc
    seen_pages: set[str] = set()
    ids_by_page: dict[str, set[str] | None] = {}
    broken: list[str] = []
    queue = deque([start])
    fragments: list[tuple[str, str, str]] = []

    def load(url: str, referrer: str) -> bytes | None:
        status, body = fetch(url)
        if status != 200:
            broken.append(f"{referrer} -> {url}: HTTP {status}")
            return None
        return body

    checked: set[str] = set()
    while queue:
        page = queue.popleft()
        if page in seen_pages:
            continue
        seen_pages.add(page)
        body = load(page, "(start)" if page == start else "(queued)")
        if body is None:
            continue
        elements = start_tags(body.decode("utf-8"))
        ids_by_page[page] = {attributes["id"] for _, attributes in elements if "id" in attributes}
        for _, attributes in elements:
            for attribute in LINK_ATTRIBUTES:
                value = attributes.get(attribute)
                if not value or value.startswith(("data:", "mailto:")):
                    continue
                target, fragment = urldefrag(urljoin(page, value))
                if urlsplit(target).netloc != host:
                    continue  # links out of the archive (transcript URLs): not ours to check
                if fragment:
                    fragments.append((page, target, fragment))
                if target.endswith(".html"):
                    queue.append(target)
                elif target not in checked:
                    checked.add(target)
                    load(target, page)
    for page, target, fragment in fragments:
        ids = ids_by_page.get(target)
        if ids is not None and fragment not in ids and not _on_a_later_page(target, fragment):
            broken.append(f"{page} -> {target}#{fragment}: no such anchor")
    return seen_pages, broken


def _on_a_later_page(page: str, anchor: str) -> bool:
    """A long session's first page reaches anchors on its later pages through its anchor map."""
    status, body = fetch(page.removesuffix(".html") + ".anchors.js")
    return status == 200 and json.dumps(anchor).encode() + b":" in body


def _search_files_exist(base: str) -> list[str]:
    """The search files app.js loads on demand exist where index.js says."""
    status, body = fetch(base + "search/index.js")
    assert status == 200
    meta = json.loads(body.decode().removeprefix("sessionsiteSearch.index(").rstrip().removesuffix(");"))
    missing = []
    wanted = [f"search/terms/{n}.js" for n in range(meta["shards"])]
    wanted += [f"search/docs/{name}-{n}.js" for name, count, *_ in meta["files"]
               for n in range(-(-count // meta["per_store"]))]
    for path in wanted:
        if fetch(base + path)[0] != 200:
            missing.append(path)
    return missing


@pytest.mark.parametrize("prefix", ["/repo/", "/"], ids=["project-subpath", "host-root"])
def test_every_link_works_when_the_site_is_served(examples_site, prefix):
    with hosted(examples_site, prefix) as base:
        pages, broken = crawl(base + "index.html")
        assert broken == []
        assert _search_files_exist(base) == []
    every_page = {p.relative_to(examples_site).as_posix() for p in examples_site.rglob("*.html")}
    reached = {page.removeprefix(base) for page in pages}
    assert every_page <= reached, "pages no link leads to: " + ", ".join(sorted(every_page - reached))


def test_the_site_tells_github_pages_not_to_run_jekyll(examples_site):
    assert (examples_site / ".nojekyll").is_file()


def test_base_url_gives_canonical_addresses_and_a_sitemap(tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(out), "-q",
                                       "--base-url", "https://ada.github.io/archive"])
    assert result.exit_code == 0, result.output
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    canonical = {}
    for page in pages:
        link = BeautifulSoup((out / page).read_text(encoding="utf-8"), "html.parser").find("link", rel="canonical")
        canonical[page] = link["href"]
    assert canonical["index.html"] == "https://ada.github.io/archive/"
    assert canonical["projects/home-ada-src-tidewatch/index.html"] == \
        "https://ada.github.io/archive/projects/home-ada-src-tidewatch/"
    session = "projects/home-ada-src-tidewatch/f3a6c1d8-2e95-4b07-8c4d-6a1e9b3f5027~p2.html"
    assert canonical[session] == "https://ada.github.io/archive/" + session
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    listed = [loc.text for loc in ElementTree.parse(out / "sitemap.xml").getroot().findall("s:url/s:loc", namespace)]
    assert sorted(listed) == sorted(canonical.values())


def test_without_base_url_there_is_no_canonical_link_or_sitemap(examples_site):
    assert not (examples_site / "sitemap.xml").exists()
    assert 'rel="canonical"' not in (examples_site / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("address", ["ada.github.io/archive", "ftp://host/x/", "https://host/x/?q=1"])
def test_a_base_url_that_is_not_a_web_address_is_refused(tmp_path, address):
    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "site"), "--base-url", address])
    assert result.exit_code == 2
    assert "--base-url" in result.output
    assert not (tmp_path / "site").exists()


def test_a_zip_is_the_same_bytes_every_time_and_holds_the_site(tmp_path, examples_site):
    first, second = tmp_path / "one" / "sessions.zip", tmp_path / "two" / "sessions.zip"
    build(BuildConfig(inputs=(EXAMPLES,), output=first, jobs=2))
    build(BuildConfig(inputs=(EXAMPLES,), output=second, jobs=1))
    assert first.read_bytes() == second.read_bytes()
    assert sorted(p.name for p in first.parent.iterdir()) == ["sessions.zip"]  # no work folder left behind
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
        assert names == sorted(names)
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert all(name.startswith("sessions/") for name in names)  # unzips into one folder
        archive.extractall(tmp_path / "unzipped")
    unzipped = tmp_path / "unzipped" / "sessions"
    site_files = {p.relative_to(examples_site).as_posix(): p.read_bytes() for p in examples_site.rglob("*")
                  if p.is_file() and p.name not in (".sessionsite", ".sessionsite-manifest.json")}
    zipped_files = {p.relative_to(unzipped).as_posix(): p.read_bytes() for p in unzipped.rglob("*") if p.is_file()}
    assert zipped_files == site_files


def test_zipping_shows_its_progress(tmp_path):
    shown = []

    def progress(items, length, label):
        shown.append((label, length))
        yield from items

    build(BuildConfig(inputs=(EXAMPLES,), output=tmp_path / "sessions.zip"), progress=progress)
    with zipfile.ZipFile(tmp_path / "sessions.zip") as archive:
        entries = len(archive.namelist())
    assert ("Zipping", entries) in shown


def test_a_zip_replaces_an_older_zip_but_not_a_folder(tmp_path):
    target = tmp_path / "sessions.zip"
    target.write_bytes(b"an older archive")
    assert CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(target), "-q"]).exit_code == 0
    assert zipfile.is_zipfile(target)
    folder = tmp_path / "folder.zip"
    folder.mkdir()
    result = CliRunner().invoke(main, ["build", str(EXAMPLES), "-o", str(folder), "-q"])
    assert result.exit_code != 0 and "not a file" in result.output


def test_the_report_sets_the_search_index_against_the_site(examples_build):
    site, report = examples_build
    on_disk = sum(p.stat().st_size for p in (site / "search").rglob("*") if p.is_file())
    assert report.search_index_bytes == on_disk
    everything = sum(p.stat().st_size for p in site.rglob("*") if p.is_file() and p.name != ".sessionsite-manifest.json")
    assert report.site_bytes == everything
    assert json.loads(report.to_json())["search_index_bytes"] == on_disk


def test_the_build_says_how_big_the_search_index_is_and_quiet_says_nothing(tmp_path):
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
    loud = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "a")])
    assert loud.exit_code == 0
    assert "search index" in loud.stderr and "of the site's" in loud.stderr
    quiet = runner.invoke(main, ["build", str(EXAMPLES), "-o", str(tmp_path / "b"), "-q"])
    assert quiet.exit_code == 0
    assert quiet.stderr == "" and quiet.stdout == ""


def test_serve_previews_the_site_on_loopback(examples_site):
    with serve(examples_site, 0) as server:
        assert server.server_address[0] == "127.0.0.1"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            status, body = fetch(server.url)
            assert status == 200 and b"Claude Code sessions" in body
            with urlopen(server.url + "search/index.js", timeout=10) as response:
                assert response.headers["Content-Type"].startswith("text/javascript")
        finally:
            server.shutdown()


def test_serve_on_a_taken_port_says_so_in_one_line(examples_site):
    with serve(examples_site, 0) as taken:
        result = CliRunner().invoke(main, ["serve", str(examples_site), "--port", str(taken.server_address[1])])
    assert result.exit_code == 1
    assert "cannot listen on 127.0.0.1" in result.output and "--port" in result.output
    assert "Traceback" not in result.output


def test_the_sharing_guide_shows_the_workflow_that_ships(tmp_path):
    workflow = (Path(__file__).parents[1] / "docs" / "publish-sessions.yml").read_text(encoding="utf-8")
    readme = (Path(__file__).parents[1] / "docs" / "guide" / "sharing.md").read_text(encoding="utf-8")
    assert workflow.strip() in readme
