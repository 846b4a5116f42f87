"""Regenerate the README's screenshots from examples/.

    python3 docs/screenshots.py

Builds examples/ into a temporary folder and photographs it with the system's headless Chromium
(`apt-get install chromium`), driven by Playwright (installed by `pip install -e '.[test]'`). Nothing is
downloaded. Writes, in docs/:

- screenshot.png: a session page (a plan carried out, with its chain and subagents), light, 1280×900;
- screenshot-dark.png: the same page in the dark theme;
- screenshot-phone.png: the same page's transcript on a 390 px wide phone (its facts come first there).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.build import BuildConfig, build  # noqa: E402

DOCS = REPO / "docs"
# The session that carries out a plan: prompts, replies, folded tool calls, its chain and subagents.
SESSION = "projects/home-ada-src-tidewatch/057ab0db-f705-4249-82fd-8293d16bc8eb.html"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]

SHOTS = [
    # file name, browser context options, element scrolled to the top (None: the top of the page)
    ("screenshot.png", {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"}, None),
    ("screenshot-dark.png", {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"}, None),
    ("screenshot-phone.png", {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
                              "is_mobile": True, "has_touch": True, "color_scheme": "light"}, "article.transcript"),
]


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("Chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        build(BuildConfig(inputs=(REPO / "examples",), output=site))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            for name, options, scroll_to in SHOTS:
                context = browser.new_context(**options)
                page = context.new_page()
                page.goto((site / SESSION).as_uri())
                page.wait_for_load_state("load")
                if scroll_to:
                    page.locator(scroll_to).evaluate("element => element.scrollIntoView()")
                page.screenshot(path=str(DOCS / name))
                context.close()
                print(f"wrote docs/{name}")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
