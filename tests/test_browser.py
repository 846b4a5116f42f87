"""Behaviour that needs a real browser: headless Chromium (Debian's package) driven by Playwright.

Nothing is downloaded: Playwright's bundled driver talks to /usr/bin/chromium. On a machine without
Chromium these tests skip, except in CI (CI=true), where .ci/run installs it and a skip would hide that.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TIDEWATCH = "projects/home-ada-src-tidewatch"
HOSTILE_PAGE = f"{TIDEWATCH}/7296ccd2-c393-48c2-a896-d22e0099834f.html"
LONG_PAGE = f"{TIDEWATCH}/057ab0db-f705-4249-82fd-8293d16bc8eb.html"


def url(site: Path, path: str) -> str:
    return (site / path).resolve().as_uri()


def open_page(browser, site: Path, path: str, **context_options):
    context = browser.new_context(**context_options)
    page = context.new_page()
    events = {"dialogs": [], "requests": [], "errors": []}
    page.on("dialog", lambda dialog: (events["dialogs"].append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: events["requests"].append(request.url))
    page.on("pageerror", lambda error: events["errors"].append(str(error)))
    page.goto(url(site, path))
    page.wait_for_load_state("load")
    return page, events


def test_no_script_from_transcript_content_runs(browser, examples_site):
    for html in sorted(examples_site.rglob("*.html")):
        path = html.relative_to(examples_site).as_posix()
        page, events = open_page(browser, examples_site, path)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.wait_for_timeout(50)
        assert events["dialogs"] == [], path
        assert events["errors"] == [], path
        # Every request stays inside the site folder: no network, no CDN, no fonts.
        outside = [r for r in events["requests"] if not r.startswith(examples_site.resolve().as_uri()) and not r.startswith("data:")]
        assert outside == [], path
        page.context.close()


def test_theme_toggle_switches_and_remembers(browser, examples_site):
    page, _ = open_page(browser, examples_site, "index.html", color_scheme="light")
    toggle = page.locator(".theme-toggle")
    assert toggle.is_visible()
    background_before = page.evaluate("getComputedStyle(document.body).backgroundColor")
    toggle.click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != background_before
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.context.close()


def test_dark_mode_follows_the_system_without_javascript(browser, examples_site):
    light, _ = open_page(browser, examples_site, LONG_PAGE, color_scheme="light", java_script_enabled=False)
    dark, _ = open_page(browser, examples_site, LONG_PAGE, color_scheme="dark", java_script_enabled=False)
    background = "getComputedStyle(document.body).backgroundColor"
    assert light.evaluate(background) != dark.evaluate(background)
    light.context.close()
    dark.context.close()


def test_pages_work_with_javascript_off(browser, examples_site):
    page, _ = open_page(browser, examples_site, LONG_PAGE, java_script_enabled=False)
    assert page.locator(".msg.assistant").first.is_visible()
    assert page.locator(".theme-toggle").is_hidden()  # it would do nothing without script
    folded = page.locator("details.tool:not([open])").first
    tool_id = folded.get_attribute("id")
    folded.locator("summary").click()  # folding is plain HTML <details>
    assert page.locator(f"#{tool_id}").evaluate("d => d.open")
    page.context.close()


def test_expand_and_collapse_all(browser, examples_site):
    page, _ = open_page(browser, examples_site, LONG_PAGE)
    page.locator("[data-action=expand]").click()
    assert page.evaluate("[...document.querySelectorAll('.transcript details')].every(d => d.open)")
    page.locator("[data-action=collapse]").click()
    assert page.evaluate("[...document.querySelectorAll('.transcript details')].every(d => !d.open)")
    page.context.close()


def test_a_link_to_a_folded_tool_call_unfolds_it(browser, examples_site):
    page, _ = open_page(browser, examples_site, LONG_PAGE)
    tool_id = page.evaluate("document.querySelector('details.tool:not([open])').id")
    page.goto(url(examples_site, LONG_PAGE) + "#" + tool_id)
    page.wait_for_timeout(50)
    assert page.evaluate(f"document.getElementById('{tool_id}').open")
    page.context.close()


@pytest.mark.parametrize("path", ["index.html", f"{TIDEWATCH}/index.html", LONG_PAGE, HOSTILE_PAGE])
def test_nothing_overflows_sideways_on_a_phone(browser, examples_site, path):
    page, _ = open_page(browser, examples_site, path, viewport={"width": 390, "height": 844})
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{path} is {width}px wide on a 390px screen"
    page.context.close()


def test_a_permalink_to_a_later_page_works_from_the_first_page(browser, tmp_path):
    import json

    from generator.build import BuildConfig, build
    from generator.summarize import PAGE_BUDGET

    project = tmp_path / "in" / "-home-ada-src-tidewatch"
    project.mkdir(parents=True)
    lines, parent = [], None
    for number in range(18):
        for role, content in (("user", f"step {number}"), ("assistant", [{"type": "text", "text": f"reply {number} " + "z" * (PAGE_BUDGET // 5)}])):
            uuid = f"00000000-0000-4000-8000-{len(lines):012d}"
            message = {"role": role, "content": content} if role == "user" else {
                "id": f"msg_{number}", "role": role, "model": "claude-x", "content": content}
            lines.append(json.dumps({"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "long",
                                     "timestamp": f"2026-01-01T00:{len(lines):02d}:00Z", "message": message}))
            parent = uuid
    (project / "long.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "site"
    build(BuildConfig(inputs=(project,), output=out))
    folder = out / "projects" / "home-ada-src-tidewatch"
    last_page = max(folder.glob("long~p*.html"), key=lambda p: int(p.stem.rsplit("~p", 1)[1]))
    anchor = message_ids(last_page)[-1]
    page, _ = open_page(browser, out, "projects/home-ada-src-tidewatch/long.html")
    page.goto((folder / "long.html").resolve().as_uri() + "#" + anchor)
    page.wait_for_url(f"**/{last_page.name}#{anchor}", timeout=5000)
    assert page.evaluate(f"!!document.getElementById('{anchor}')")
    page.context.close()


def message_ids(page: Path) -> list[str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return [tag["id"] for tag in soup.select("article .msg[id]")]
