"""A mixed archive in a browser: the project page's agent menu shows one agent's sessions, the text filter still
works beside it, and Codex's pages read well in both themes on a phone and a desktop (no serious axe finding,
no sideways scrolling, no script error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from test_browser import axe, new_context, serious_violations  # noqa: F401 - the fixture

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def mixed_site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("mixed-browser") / "site"
    inputs = (HERE / "fixtures" / "realclient" / "tools" / "projects", *sorted((HERE / "fixtures" / "codex").iterdir()))
    build(BuildConfig(inputs=tuple(p for p in inputs if p.is_dir()), output=site, vault=None))
    return site


@pytest.mark.slow
def test_the_agent_menu_shows_one_agents_sessions(browser, mixed_site):
    context = new_context(browser)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(next((mixed_site / "projects").glob("*/index.html")).resolve().as_uri())
    rows = page.locator("table.sessions tbody tr[data-agent]")
    total = rows.count()
    menu = page.locator("select.agent-filter")
    assert menu.is_visible()
    menu.select_option("codex")
    shown = [rows.nth(i).get_attribute("data-agent") for i in range(total) if rows.nth(i).is_visible()]
    assert shown and set(shown) == {"codex"} and len(shown) == total - 1
    menu.select_option("claude-code")
    shown = [rows.nth(i).get_attribute("data-agent") for i in range(total) if rows.nth(i).is_visible()]
    assert shown == ["claude-code"]
    page.locator("input.filter").fill("ferry")  # with Claude Code's chosen, no Codex session shows
    assert page.locator(".filter-empty").is_visible()
    menu.select_option("")
    assert [rows.nth(i).is_visible() for i in range(total)].count(True) >= 1
    assert not page.locator(".filter-empty").is_visible()
    assert errors == []
    context.close()


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_codex_pages_read_well_on_a_phone_and_a_desktop(browser, axe, mixed_site, theme):  # noqa: F811
    pages = [*sorted((mixed_site / "projects").glob("*/rollout-*.html")), next((mixed_site / "projects").glob("*/index.html"))]
    for width in (1280, 390):
        context = new_context(browser, color_scheme=theme, viewport={"width": width, "height": 900})
        page = context.new_page()
        for path in pages:
            page.goto(path.resolve().as_uri())
            assert serious_violations(axe, page) == [], (path.name, width)
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (path.name, width)
        context.close()
