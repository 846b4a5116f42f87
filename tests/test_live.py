"""`sessionsite serve`: of logs (built into a cache, watched, open pages updated), of a built site or a zip;
and what a session page lets a reader choose without a rebuild (filters), and what it shows first."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import urlopen

import pytest
from click.testing import CliRunner

from generator.build import BuildConfig, build
from generator.cli import main
from generator.serve import LIVE_PREFIX, LiveSite, live_config, serve, unzipped
from helpers import OTHER_SESSION_ID, PROJECT_DIR, SESSION_ID, assistant, chain, text, user, write_jsonl
from test_browser import LONG_PAGE, new_context, open_page

from conftest import CTRL_C_AS_AT_A_TERMINAL, EXAMPLES

LIVE_SCRIPT_TAG = LIVE_PREFIX.encode() + b"live.js"


def fetch(address: str) -> bytes:
    with urlopen(address, timeout=10) as response:
        return response.read()


def a_session(logs: Path, session_id: str = SESSION_ID, prompt: str = "how high is the tide at noon?") -> Path:
    return write_jsonl(logs / PROJECT_DIR / f"{session_id}.jsonl", chain(
        user(prompt, sessionId=session_id),
        assistant(text("About 2.1 m at the harbour gauge."), sessionId=session_id),
    ))


@contextmanager
def live_server(logs: Path, watch: bool = True):
    """`serve` of logs, as the command runs it: built into its cache, watched, served on a free port."""
    live = LiveSite(live_config(BuildConfig(inputs=(logs,), output=Path(), vault=None, jobs=1)))
    live.build_once()
    watcher = threading.Thread(target=live.watch, daemon=True)
    if watch:
        watcher.start()
    with serve(live.config.output, 0, live.generation) as server:
        serving = threading.Thread(target=server.serve_forever, daemon=True)
        serving.start()
        try:
            yield server, live
        finally:
            live.stop()
            server.shutdown()
            if watch:
                watcher.join(timeout=30)


def page_of(site: Path, session_id: str) -> str:
    [page] = site.glob(f"projects/*/{session_id}.html")
    return page.relative_to(site).as_posix()


def test_served_pages_carry_the_live_script_and_the_built_site_does_not(tmp_path):
    logs = tmp_path / "logs"
    a_session(logs)
    with live_server(logs, watch=False) as (server, live):
        site = live.config.output
        assert site.is_relative_to(Path(os.environ["XDG_CACHE_HOME"]))  # private, not beside the logs
        page = page_of(site, SESSION_ID)
        assert LIVE_SCRIPT_TAG in fetch(server.url + page)
        assert LIVE_SCRIPT_TAG in fetch(server.url)  # the home page, asked for as a folder
        assert b"EventSource" in fetch(server.url + LIVE_PREFIX.lstrip("/") + "live.js")
        # The files themselves, the site they make and any other build never carry it.
        assert not [p for p in site.rglob("*") if p.is_file() and LIVE_SCRIPT_TAG in p.read_bytes()]
    built = tmp_path / "built"
    build(BuildConfig(inputs=(logs,), output=built, vault=None))
    assert not [p for p in built.rglob("*") if p.is_file() and b"__sessionsite" in p.read_bytes()]


def test_a_built_site_is_served_as_it_is(examples_site):
    with serve(examples_site, 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            assert LIVE_SCRIPT_TAG not in fetch(server.url)
            with pytest.raises(HTTPError):
                fetch(server.url + LIVE_PREFIX.lstrip("/") + "events")
        finally:
            server.shutdown()


def test_a_zipped_site_is_served_from_a_temporary_folder(tmp_path):
    archive = tmp_path / "site.zip"
    build(BuildConfig(inputs=(EXAMPLES,), output=archive, vault=None))
    with unzipped(archive) as site:
        with serve(site, 0) as server:
            threading.Thread(target=server.serve_forever, daemon=True).start()
            try:
                assert b"Claude Code sessions" in fetch(server.url)
            finally:
                server.shutdown()
    assert not site.exists()


def test_a_folder_that_is_neither_a_site_nor_logs_gets_one_clear_line(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing to serve here")
    result = CliRunner().invoke(main, ["serve", str(tmp_path), "--port", "0", "--no-vault"])
    assert result.exit_code == 1
    assert "neither a site" in result.output and str(tmp_path) in result.output
    assert "Traceback" not in result.output


def test_a_file_that_is_not_a_zip_gets_one_clear_line(tmp_path):
    fake = tmp_path / "site.zip"
    fake.write_text("not a zip")
    result = CliRunner().invoke(main, ["serve", str(fake), "--port", "0"])
    assert result.exit_code == 1
    assert "not a zip file" in result.output and "Traceback" not in result.output


def test_ctrl_c_stops_serve_of_logs_cleanly(tmp_path):
    logs = tmp_path / "logs"
    a_session(logs)
    as_typed = CTRL_C_AS_AT_A_TERMINAL + "import runpy; runpy.run_module('generator', run_name='__main__', alter_sys=True)"
    command = subprocess.Popen([sys.executable, "-c", as_typed, "serve", str(logs), "--port", "0", "--no-vault"],
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = ""
        while " at http://" not in line:
            line = command.stderr.readline()
            assert line, "serve ended before it said where it serves"
        address = line.split(" at ", 1)[1].split(" ", 1)[0]
        assert LIVE_SCRIPT_TAG in fetch(address)
        command.send_signal(signal.SIGINT)
        rest = command.communicate(timeout=30)[1]
    finally:
        if command.poll() is None:
            command.kill()
    assert command.returncode == 0
    assert "stopped" in rest and "Traceback" not in rest


def test_a_reply_written_to_the_log_appears_in_the_open_page(browser, tmp_path):
    logs = tmp_path / "logs"
    log = a_session(logs)
    with live_server(logs) as (server, live):
        context = new_context(browser)
        page = context.new_page()
        page.goto(server.url + page_of(live.config.output, SESSION_ID))
        page.wait_for_load_state("load")
        assert page.locator(".msg.assistant").count() == 1
        page.evaluate("window.stillTheSamePage = true")
        last = json.loads(log.read_text().splitlines()[-1])
        reply = assistant(text("Update: the surge adds 0.4 m this afternoon."), parentUuid=last["uuid"])
        with log.open("a") as file:
            file.write(json.dumps(reply) + "\n")
        page.locator(".msg.assistant", has_text="the surge adds 0.4 m").wait_for()
        assert page.locator(".transcript", has_text="About 2.1 m at the harbour gauge.").count() == 1
        assert page.evaluate("window.stillTheSamePage === true")  # updated in place, not reloaded
        context.close()


def test_a_new_session_appears_on_the_open_project_page(browser, tmp_path):
    logs = tmp_path / "logs"
    a_session(logs)
    with live_server(logs) as (server, live):
        context = new_context(browser)
        page = context.new_page()
        project = page_of(live.config.output, SESSION_ID).rsplit("/", 1)[0]
        page.goto(f"{server.url}{project}/")
        assert page.locator("a.session-title").count() == 1
        a_session(logs, OTHER_SESSION_ID, "when is the next spring tide?")
        page.locator("a.session-title", has_text="when is the next spring tide?").wait_for()
        assert page.locator("a.session-title").count() == 2
        context.close()


# In the page: filters and what comes first


def visible_count(page, selector: str) -> int:
    return page.evaluate(f"[...document.querySelectorAll({selector!r})].filter(e => e.offsetParent !== null).length")


def test_filters_hide_kinds_of_block_and_are_remembered(browser, examples_site):
    page, events = open_page(browser, examples_site, LONG_PAGE)
    tools = ".transcript .tool-call"
    shown = visible_count(page, tools)
    assert shown > 0 and visible_count(page, ".transcript details.thinking") > 0
    page.get_by_label("Tool calls").uncheck()
    page.get_by_label("Thinking").uncheck()
    subagent_calls = page.locator(".transcript .tool-call:has(> details.subagent)").count()
    assert visible_count(page, tools) == subagent_calls  # only the subagent calls have their own box
    assert visible_count(page, ".transcript details.thinking") == 0
    assert visible_count(page, ".msg.user") == page.locator(".msg.user").count()  # prompts stay
    page.reload()  # remembered, as the theme is, and applied before the page is shown
    assert not page.get_by_label("Tool calls").is_checked()
    assert visible_count(page, ".transcript details.thinking") == 0
    page.get_by_label("Tool calls").check()
    page.get_by_label("Thinking").check()
    assert visible_count(page, tools) == shown
    assert events["errors"] == []
    page.context.close()


def test_the_subagent_filter_hides_only_subagent_calls(browser, examples_site):
    pages = [p for p in examples_site.rglob("*.html") if b'class="tool subagent"' in p.read_bytes()]
    assert pages
    page, _ = open_page(browser, examples_site, pages[0].relative_to(examples_site).as_posix())
    others = visible_count(page, ".transcript .tool-call:not(:has(> details.subagent))")
    page.get_by_label("Subagent calls").uncheck()
    assert visible_count(page, ".transcript details.subagent") == 0
    assert visible_count(page, ".transcript .tool-call") == others
    page.context.close()


def test_hidden_entries_have_a_filter_only_where_the_page_holds_them(browser, tmp_path):
    logs = tmp_path / "logs"
    write_jsonl(logs / PROJECT_DIR / f"{SESSION_ID}.jsonl", chain(
        user("Caveat: the messages below were generated by the user while running local commands.", isMeta=True),
        user("what is the tide range today?"),
        assistant(text("About 3 m between low and high water.")),
    ))
    for flag, where in ((True, "shown"), (False, "plain")):
        site = tmp_path / where
        build(BuildConfig(inputs=(logs,), output=site, vault=None, show_hidden=flag))
        page, _ = open_page(browser, site, page_of(site, SESSION_ID))
        option = page.get_by_label("Hidden entries")
        if not flag:  # --show-hidden decides whether it is in the page at all
            assert page.locator(".hidden-event").count() == 0 and option.is_hidden()
        else:
            assert visible_count(page, ".hidden-event") > 0
            option.uncheck()
            assert visible_count(page, ".hidden-event") == 0
            assert page.locator(".msg.user", has_text="tide range").is_visible()
        page.context.close()


def test_with_script_off_the_filters_are_not_offered_and_everything_shows(browser, examples_site):
    page, _ = open_page(browser, examples_site, LONG_PAGE, java_script_enabled=False)
    assert page.locator(".view-box").is_hidden()
    assert visible_count(page, ".transcript .tool-call") == page.locator(".transcript .tool-call").count()
    page.context.close()


PHONE = {"width": 375, "height": 812}


def session_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.glob("projects/*/*.html")
                  if p.name not in ("index.html", "files.html", "commits.html"))


def test_on_a_phone_the_first_message_is_on_the_first_screen(browser, examples_site):
    # One profile for every page: a page stores nothing (theme, filters) until the reader uses its controls,
    # and each page opens at its top.
    context = new_context(browser, viewport=PHONE)
    page = context.new_page()
    for path in session_pages(examples_site):
        page.goto((examples_site / path).resolve().as_uri())
        # The session's own first block: what the transcript holds after the way through the chain.
        top = page.evaluate("document.querySelector('.transcript > :not(nav, .kept-note)').getBoundingClientRect().top")
        assert top < PHONE["height"] * 0.75, f"{path}: the first message starts at {top}px"
    assert page.evaluate("localStorage.length") == 0
    context.close()


def test_on_a_phone_the_lists_come_before_the_charts(browser, examples_site):
    for path, item in (("index.html", ".cards .card"), (f"{LONG_PAGE.rsplit('/', 1)[0]}/index.html", "a.session-title")):
        page, _ = open_page(browser, examples_site, path, viewport=PHONE)
        top = page.evaluate(f"document.querySelector({item!r}).getBoundingClientRect().top")
        assert top < PHONE["height"] * 0.75, f"{path}: the first item of the list starts at {top}px"
        page.context.close()
