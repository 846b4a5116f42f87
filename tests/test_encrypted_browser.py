"""An encrypted archive (issue 41) in real Chromium, as its reader meets it: the link opens it, from a file and
from a GitHub Pages-like host under /repo/; every page reads as the site's does, links lead on with no question
asked, search finds across the archive, folds and filters work, a permalink reaches a later page, images show,
the phone layout holds. A passphrase opens it too; a wrong key, a wrong passphrase and a damaged page say so;
with JavaScript off the page says it needs it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.build import BuildConfig, build
from generator.cli import main
from generator.output.encrypt import Sealer, key_from_passphrase, new_key

from conftest import EXAMPLES
from test_publish import hosted

TIDEWATCH = "projects/home-ada-src-tidewatch"
LONG_SESSION = f"{TIDEWATCH}/f3a6c1d8-2e95-4b07-8c4d-6a1e9b3f5027"
WITH_IMAGE = f"{TIDEWATCH}/5c12bdb1-a10b-4b0a-9bc1-2edc1cd3eb90.html"
PASSPHRASE = "tide tables at dawn, slowly"


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    """The examples, encrypted with a key the tests know (to name the sealed pages)."""
    key = new_key()
    out = tmp_path_factory.mktemp("sealed") / "site"
    build(BuildConfig(inputs=(EXAMPLES,), output=out, key=key, vault=None))
    return out, key


@pytest.fixture(scope="module")
def sealed_by_passphrase(tmp_path_factory):
    key = key_from_passphrase(PASSPHRASE)
    out = tmp_path_factory.mktemp("passphrase") / "site"
    build(BuildConfig(inputs=(EXAMPLES / "-Users-grace-work-ledger-api",), output=out, key=key, vault=None))
    return out


def page_of(sealer: Sealer, path: str) -> str:
    return "index.html" if path == "index.html" else sealer.name_of(path) + ".html"


class Reader:
    """A browser tab of a fresh profile, noting errors and every address it asks for."""

    def __init__(self, browser, **options):
        self.context = browser.new_context(**options)
        self.context.set_default_timeout(10_000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("request", lambda request: self.requests.append(request.url))

    def open(self, address: str) -> None:
        self.page.goto(address)
        self.page.wait_for_load_state("load")

    def unlocked(self) -> None:
        self.page.wait_for_selector("header.site-header")

    def close(self) -> None:
        self.context.close()


def read_the_archive(browser, root: str, key) -> None:
    """Open the link, read, follow links, search, and the reader's tab asks for the key only once."""
    reader = Reader(browser)
    reader.open(f"{root}index.html#{key.fragment}")
    page = reader.page
    reader.unlocked()
    assert page.title() == "Sessions · sessionsite"
    assert "key=" not in page.url and page.url == f"{root}index.html"
    assert page.locator("main").inner_text().count("tidewatch") >= 1
    page.locator("a.card-title", has_text="tidewatch").click()
    reader.unlocked()
    assert "tidewatch" in page.title() and re.fullmatch(re.escape(root) + r"[0-9a-f]{32}\.html", page.url)
    page.locator("main a[href$='.html']", has_text=re.compile("tide", re.I)).first.click()
    reader.unlocked()
    assert page.locator(".msg.assistant").first.is_visible()
    assert page.locator("#lock-form").count() == 0

    page.fill("#site-search", "extremes")
    page.wait_for_selector("#search-results a.result")
    results = page.locator("#search-results a.result")
    assert results.count() > 3
    title = results.first.locator(".result-title").inner_text()
    results.first.click()
    reader.unlocked()
    assert re.fullmatch(re.escape(root) + r"[0-9a-f]{32}\.html(#.*)?", page.url)
    assert title.rstrip("…")[:30] in page.title()

    assert page.evaluate("Object.keys(localStorage).filter(k => k.includes('key'))") == []
    assert not reader.errors, reader.errors
    assert all(address.startswith(root) or address.startswith("data:") for address in reader.requests), \
        [a for a in reader.requests if not a.startswith(root)]
    reader.close()


def test_the_link_opens_the_archive_from_a_file(browser, sealed):
    out, key = sealed
    read_the_archive(browser, out.resolve().as_uri() + "/", key)


def test_the_link_opens_the_archive_from_a_github_pages_like_host(browser, sealed):
    out, key = sealed
    with hosted(out, "/repo/") as root:
        read_the_archive(browser, root, key)


def test_a_new_tab_of_another_session_asks_again(browser, sealed):
    out, key = sealed
    first = Reader(browser)
    first.open(out.resolve().as_uri() + f"/index.html#{key.fragment}")
    first.unlocked()
    first.close()
    second = Reader(browser)
    second.open(out.resolve().as_uri() + "/index.html")
    assert second.page.locator("#lock-form").is_visible()
    assert second.page.title() == "Encrypted archive · sessionsite"
    second.close()


def test_folds_filters_permalinks_and_images_work_once_unlocked(browser, sealed):
    out, key = sealed
    sealer = Sealer(key)
    root = out.resolve().as_uri() + "/"
    reader = Reader(browser)
    reader.open(f"{root}index.html#{key.fragment}")
    reader.unlocked()
    page = reader.page

    page.goto(root + page_of(sealer, LONG_SESSION + ".html"))
    reader.unlocked()
    page.locator("[data-action=expand]").click()
    assert page.evaluate("[...document.querySelectorAll('.transcript details')].every(d => d.open)")
    page.locator("[data-action=collapse]").click()
    assert page.evaluate("[...document.querySelectorAll('.transcript details')].every(d => !d.open)")
    tools = page.locator(".view-box input[data-show=tools]")
    if tools.count():
        tools.first.uncheck()
        assert page.evaluate("document.documentElement.dataset.hide || ''") == "tools"
        tools.first.check()

    # A permalink to an anchor on the session's second page, given to its first: the anchor map (sealed) says where.
    later = sealer.name_of(LONG_SESSION + "~p2.html") + ".html"
    page.goto(root + later)
    reader.unlocked()
    anchor = page.evaluate("[...document.querySelectorAll('main [id]')].map(e => e.id).find(i => /^(e|m)-/.test(i))")
    assert anchor
    page.goto(root + page_of(sealer, LONG_SESSION + ".html") + "#" + anchor)
    page.wait_for_url(re.compile(re.escape(later) + "#"))
    reader.unlocked()
    assert page.locator(f"[id='{anchor}']").count() == 1

    page.goto(root + page_of(sealer, WITH_IMAGE))
    reader.unlocked()
    page.wait_for_function("[...document.querySelectorAll('main img')].some(i => i.src.startsWith('data:image/png'))")
    assert not reader.errors, reader.errors
    reader.close()


def test_the_phone_layout_holds(browser, sealed):
    out, key = sealed
    sealer = Sealer(key)
    reader = Reader(browser, viewport={"width": 390, "height": 844})
    root = out.resolve().as_uri() + "/"
    reader.open(f"{root}index.html")
    assert reader.page.evaluate("document.documentElement.scrollWidth") <= 390  # the lock screen
    reader.open(f"{root}index.html#{key.fragment}")
    reader.unlocked()
    for path in ("index.html", LONG_SESSION + ".html", f"{TIDEWATCH}/files.html"):
        reader.page.goto(root + page_of(sealer, path))
        reader.unlocked()
        reader.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        width = reader.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width}px wide on a 390px screen"
    reader.close()


def test_a_passphrase_opens_it_and_a_wrong_one_says_so(browser, sealed_by_passphrase):
    root = sealed_by_passphrase.resolve().as_uri() + "/"
    reader = Reader(browser)
    reader.open(root + "index.html")
    page = reader.page
    assert page.locator("label[for=lock-secret]").inner_text() == "Passphrase"
    page.fill("#lock-secret", "tide tables at noon, quickly")
    page.click("#lock-form button")
    page.wait_for_selector("#lock-status.lock-problem")
    assert page.locator("#lock-status").inner_text() == "This passphrase does not open this archive."
    page.fill("#lock-secret", PASSPHRASE)
    page.click("#lock-form button")
    reader.unlocked()
    assert page.title() == "Sessions · sessionsite"
    page.locator("a.card-title").first.click()
    reader.unlocked()  # the next page opens with the key derived once
    assert "ledger-api" in page.title()
    assert not reader.errors, reader.errors
    reader.close()


def test_a_wrong_key_says_so_and_asks_for_the_right_one(browser, sealed):
    out, _ = sealed
    reader = Reader(browser)
    reader.open(out.resolve().as_uri() + f"/index.html#{new_key().fragment}")
    page = reader.page
    page.wait_for_selector("#lock-status.lock-problem")
    assert page.locator("#lock-status").inner_text() == "The key in this link does not open this archive."
    assert page.locator("#lock-form").is_visible() and "key=" not in page.url
    page.fill("#lock-secret", "not a key at all")
    page.click("#lock-form button")
    page.wait_for_function("document.getElementById('lock-status').textContent.startsWith('That is not a key')")
    reader.close()


def test_a_damaged_page_says_so(browser, sealed, tmp_path):
    out, key = sealed
    copy = tmp_path / "site"
    shutil.copytree(out, copy)
    index = copy / "index.html"
    text = index.read_text(encoding="utf-8")
    start = text.index('id="sealed"')
    start = text.index(">", start) + 200
    flipped = "B" if text[start] != "B" else "C"
    index.write_text(text[:start] + flipped + text[start + 1:], encoding="utf-8")
    reader = Reader(browser)
    reader.open(copy.resolve().as_uri() + f"/index.html#{key.fragment}")
    reader.page.wait_for_selector("#lock-status.lock-problem")
    assert reader.page.locator("#lock-status").inner_text().startswith("This page is damaged")
    assert reader.page.locator("#lock-form").is_hidden()
    reader.close()


def test_with_javascript_off_the_page_says_it_needs_it(browser, sealed):
    out, key = sealed
    reader = Reader(browser, java_script_enabled=False)
    reader.open(out.resolve().as_uri() + f"/index.html#{key.fragment}")
    assert "needs JavaScript" in reader.page.locator("main").inner_text()
    assert reader.page.locator("#lock-form").is_hidden()
    reader.close()


def test_an_encrypted_bundle_opens_with_its_own_link(browser, tmp_path):
    session = EXAMPLES / "-home-ada-src-tidewatch" / "057ab0db-f705-4249-82fd-8293d16bc8eb.jsonl"
    out = tmp_path / "pr.html"
    result = CliRunner().invoke(main, ["bundle", str(session), "-o", str(out), "--encrypt", "--no-vault", "-j", "1"])
    assert result.exit_code == 0, result.output
    link = result.stdout.strip().splitlines()[-1]
    reader = Reader(browser)
    reader.open(link)
    reader.page.wait_for_selector(".bundle-head h1")
    assert "extremes" in reader.page.title()
    assert reader.page.locator(".view-box").first.is_visible()  # the bundle's own script ran
    assert not reader.errors, reader.errors
    reader.close()


def test_the_markdown_version_downloads_as_it_was_written(browser, sealed):
    out, key = sealed
    sealer = Sealer(key)
    root = out.resolve().as_uri() + "/"
    reader = Reader(browser, accept_downloads=True)
    reader.open(f"{root}index.html#{key.fragment}")
    reader.unlocked()
    reader.page.goto(root + page_of(sealer, LONG_SESSION + ".html"))
    reader.unlocked()
    with reader.page.expect_download() as download:
        reader.page.locator("a", has_text="Markdown version").click()
    assert download.value.suggested_filename == LONG_SESSION.rsplit("/", 1)[1] + ".md"
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith("---\n") and 'cwd: "/home/ada/src/tidewatch"' in text
    reader.close()
