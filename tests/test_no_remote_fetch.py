"""A published site fetches nothing a transcript chose. Every way Markdown or HTML can make a page load a
remote resource (an image, inline or by reference; raw <img>, srcset, <picture>, SVG <image>, CSS url(),
<link>, <video poster>, …) is written into every part of a transcript a stranger controls (prompt, reply,
plan, thinking, a subagent's task and reply, the title); the site built from it is read as a browser would
read it, and no element may reference a remote URL as a resource: a remote image is shown as a link. Every
page carries the Content-Security-Policy that would stop anything that slipped through, and the .md files
the site writes, rendered as GitHub or an editor would, load nothing either."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from generator.build import BuildConfig, build
from generator.render.html.render import render_markdown
from generator.render.markdown.escape import prose

from helpers import (OTHER_SESSION_ID, PNG_BYTES, PROJECT_DIR, SESSION_ID, assistant, chain, custom_title, image, text,
                     thinking, tool_result, tool_use, user, write_jsonl)

HOST = "evil.example"
SITE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'none'")

# Markdown that GitHub, an editor or markdown-it would make into an image, each to a URL of its own.
MARKDOWN_IMAGES = {
    "inline": f"![a chart](https://{HOST}/inline.png)",
    "inline-empty-alt": f"![](https://{HOST}/empty-alt.png)",
    "inline-title": f'![a chart](https://{HOST}/title.png "the title")',
    "inline-angle": f"![a chart](<https://{HOST}/angle brackets.png>)",
    "upper-scheme": f"![a chart](HTTPS://{HOST}/upper.png)",
    "http": f"![a chart](http://{HOST}/http.png)",
    "protocol-relative": f"![a chart](//{HOST}/protocol-relative.png)",
    "backslash-authority": f"![a chart](/\\{HOST}/backslash.png)",
    "reference": f"![a chart][pixel]\n\n[pixel]: https://{HOST}/reference.png",
    "reference-collapsed": f"![pixel2][]\n\n[pixel2]: https://{HOST}/collapsed.png",
    "reference-shortcut": f"![pixel3]\n\n[pixel3]: <https://{HOST}/shortcut.png> 'title'",
    "badge-in-link": f"[![build](https://{HOST}/badge.svg)](https://ci.example/build)",
    "in-table": f"| a | b |\n|---|---|\n| ![x](https://{HOST}/table.png) | y |",
    "in-list-and-quote": f"- item ![x](https://{HOST}/list.png)\n\n> ![x](https://{HOST}/quote.png)",
    "in-heading": f"## Heading ![x](https://{HOST}/heading.png)",
    "entity-in-url": f"![a chart](https&#58;//{HOST}/entity.png)",
}
# Raw HTML, which the pages show as text: none of it may become an element.
RAW_HTML = {
    "img": f'<img src="https://{HOST}/raw.png">',
    "img-inline": f"before <img src=https://{HOST}/raw-inline.png> after",
    "srcset": f'<img srcset="https://{HOST}/srcset.png 2x" src="local.png">',
    "picture": f'<picture><source srcset="https://{HOST}/picture.webp"><img src="x.png"></picture>',
    "svg-image": f'<svg><image href="https://{HOST}/svg.png"/><use href="https://{HOST}/use.svg#a"/></svg>',
    "css-url": f'<div style="background:url(https://{HOST}/css.png)">styled</div>',
    "style-import": f"<style>@import url(https://{HOST}/import.css); body{{background:url(//{HOST}/bg.png)}}</style>",
    "link": f'<link rel="stylesheet" href="https://{HOST}/link.css"><link rel="prefetch" href="https://{HOST}/pre">',
    "video": f'<video poster="https://{HOST}/poster.png" src="https://{HOST}/video.mp4"></video>',
    "audio": f'<audio src="https://{HOST}/audio.mp3" autoplay></audio>',
    "iframe": f'<iframe src="https://{HOST}/frame"></iframe>',
    "object": f'<object data="https://{HOST}/object.swf"></object><embed src="https://{HOST}/embed.swf">',
    "input-image": f'<input type="image" src="https://{HOST}/input.png">',
    "background-attribute": f'<table background="https://{HOST}/table-bg.png"><tr><td>x</td></tr></table>',
    "meta-refresh": f'<meta http-equiv="refresh" content="0;url=https://{HOST}/refresh">',
    "base": f'<base href="https://{HOST}/">',
    "script": f'<script src="https://{HOST}/script.js"></script>',
}
# Bare URLs become links (GitHub and our pages alike), never images.
AUTOLINKS = {
    "bare": f"see https://{HOST}/bare.png here",
    "angle": f"see <https://{HOST}/autolink.png> here",
    "www": f"see www.{HOST}/www.png here",
}
EVERY_VECTOR = {**MARKDOWN_IMAGES, **RAW_HTML, **AUTOLINKS}


def hostile(part: str) -> str:
    """Every vector, its URLs under a folder named after the part of the transcript it is written in (and
    its reference labels too: the first definition of a label on a page is the one that counts)."""
    return "\n\n".join(EVERY_VECTOR.values()).replace(f"{HOST}/", f"{HOST}/{part}/").replace("[pixel", f"[pixel-{part}")


# Attributes through which an element loads something (a link's href does not: it waits for a click).
RESOURCE_ATTRIBUTES = ("src", "srcset", "poster", "data", "background", "lowsrc", "dynsrc", "longdesc", "xlink:href")


def is_remote(url: str) -> bool:
    """Whether a browser resolving `url` against a page of ours would reach another host: as the URL
    parser reads it (leading and trailing controls and spaces dropped, tabs and newlines removed anywhere,
    a backslash read as a slash), a URL with a scheme other than data:, or one with an authority."""
    cleaned = re.sub(r"[\t\n\r]", "", url.strip("".join(map(chr, range(0x21))))).replace("\\", "/")
    parts = urlsplit(cleaned)
    return (bool(parts.scheme) and parts.scheme.lower() != "data") or cleaned.startswith("//")


def remote_references(soup: BeautifulSoup) -> list[str]:
    """Every remote URL an element of the page would load: resource attributes, the href of elements that
    load what they point at (<link>, <use>, <image>, <base>), srcset candidates, and url() in a style
    attribute or a <style> element."""
    found = []
    for element in soup.find_all(True):
        for name in RESOURCE_ATTRIBUTES:
            value = element.get(name)
            if value is None:
                continue
            candidates = [part.strip().split(" ")[0] for part in value.split(",")] if name == "srcset" else [value]
            found += [f"<{element.name} {name}={candidate}>" for candidate in candidates if is_remote(candidate)]
        if element.name in ("link", "use", "image", "base", "feimage") and element.get("href"):
            if is_remote(element["href"]) or element.name == "base":
                found.append(f"<{element.name} href={element['href']}>")
        if element.name == "meta" and "refresh" in (element.get("http-equiv") or "").lower():
            found.append(f"<meta refresh {element.get('content')}>")
        styles = [element.get("style") or ""] + ([element.get_text()] if element.name == "style" else [])
        for style in styles:
            for url in re.findall(r"url\(\s*['\"]?([^'\")]*)", style) + re.findall(r"@import\s+['\"]([^'\"]+)", style):
                if is_remote(url):
                    found.append(f"<{element.name} style url({url})>")
    return found


def the_remote_urls_are_shown(soup, vectors: dict[str, str]) -> list[str]:
    """Of each Markdown image, the URL it named, missing from the page (it should be a link to it, or text)."""
    shown = " ".join([soup.get_text()] + [a.get("href", "") for a in soup.find_all("a")]).lower()
    missing = []
    for name, markdown in vectors.items():
        # The host and path, however the scheme was written (or percent-encoded in an href).
        url = re.search(rf"{re.escape(HOST)}/[^)\s>]*", markdown)
        assert url is not None, name
        if url.group().lower() not in shown and url.group().replace(" ", "%20").lower() not in shown:
            missing.append(f"{name}: {url.group()}")
    return missing


# -- the HTML writer on its own ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EVERY_VECTOR))
def test_no_vector_makes_the_html_writer_reference_a_remote_resource(name):
    soup = BeautifulSoup(render_markdown(prose(EVERY_VECTOR[name])), "html.parser")
    assert remote_references(soup) == []
    assert soup.find_all(["img", "picture", "source", "svg", "image", "video", "audio", "iframe", "object",
                          "embed", "link", "style", "script", "base", "meta"]) == []


@pytest.mark.parametrize("name", sorted(MARKDOWN_IMAGES))
def test_a_remote_image_reaching_the_html_writer_unescaped_is_a_link(name):
    """Markdown that did not go through the markdown stage's escaping (a theme's, a writer's to come):
    the renderer itself makes a remote image a link with its text, and keeps no <img> of it. Inside a
    link (a badge), where no link may go, it is its text."""
    soup = BeautifulSoup(render_markdown(MARKDOWN_IMAGES[name]), "html.parser")
    assert remote_references(soup) == []
    assert soup.find_all("img") == []
    if name == "badge-in-link":
        assert [(a["href"], a.get_text()) for a in soup.find_all("a")] == [("https://ci.example/build", "build")]
    else:
        assert the_remote_urls_are_shown(soup, {name: MARKDOWN_IMAGES[name]}) == []


def test_an_image_with_no_text_shows_its_url():
    soup = BeautifulSoup(render_markdown(f"![](https://{HOST}/empty.png)"), "html.parser")
    link = soup.find("a")
    assert link is not None and link.get_text() == f"https://{HOST}/empty.png"


def test_a_local_image_stays_an_image():
    resolve = {"../media/abc.png": "../../media/abc.png"}.get
    soup = BeautifulSoup(render_markdown("![Image 1](../media/abc.png)", resolve), "html.parser")
    assert [img["src"] for img in soup.find_all("img")] == ["../../media/abc.png"]


@pytest.mark.parametrize("url", [f"//{HOST}/x.png", f"/\\{HOST}/x.png", f"\\\\{HOST}\\share\\x.png",
                                 f"https://{HOST}/x.png", f" \t//{HOST}/x.png"])
def test_a_resolver_that_answers_with_a_remote_url_does_not_make_an_image_of_it(url):
    """The sanitiser's own wall: whatever a resolver returns, an <img> keeps only a local source."""
    from generator.render.html.render import sanitize

    soup = BeautifulSoup(sanitize('<img src="x.png" alt="x">', lambda _href: url), "html.parser")
    assert remote_references(soup) == []


# -- a whole site ------------------------------------------------------------------------------------------


def hostile_logs(root: Path) -> Path:
    """One session with the vectors in every part a stranger writes, and a subagent with them too."""
    agent_id = "a1b2c3d"
    project = root / PROJECT_DIR
    task = tool_use("Task", {"description": "Look around", "prompt": hostile("task"), "subagent_type": "Explore"},
                    "toolu_01TaskCall0001")
    plan = tool_use("ExitPlanMode", {"plan": "# The plan\n\n" + hostile("plan")}, "toolu_01PlanCall0001")
    bash = tool_use("Bash", {"command": f"curl https://{HOST}/tool.png"}, "toolu_01BashCall0001")
    one_line = " ".join(markdown for markdown in EVERY_VECTOR.values() if "\n" not in markdown)
    todo = tool_use("TodoWrite", {"todos": [{"content": one_line.replace(f"{HOST}/", f"{HOST}/todo/"),
                                             "status": "in_progress", "activeForm": "Looking"}]}, "toolu_01TodoCall0001")
    question = tool_use("AskUserQuestion", {"questions": [{
        "question": one_line.replace(f"{HOST}/", f"{HOST}/question/"), "header": "Pick",
        "options": [{"label": "A ![l](https://evil.example/label.png)",
                     "description": one_line.replace(f"{HOST}/", f"{HOST}/option/")}]}]}, "toolu_01AskCall0001")
    write_jsonl(project / f"{SESSION_ID}.jsonl", chain(
        custom_title(f"Title ![t](https://{HOST}/title.png) <img src=https://{HOST}/title-raw.png>"),
        user([text("Prompt words marigold\n\n" + hostile("prompt")), image(PNG_BYTES)]),
        assistant(thinking("Thinking " + hostile("thinking"))),
        assistant(bash),
        tool_result(bash["id"], hostile("output")),
        assistant(todo),
        tool_result(todo["id"], "Todos have been modified successfully."),
        assistant(question),
        tool_result(question["id"], 'User has answered your questions: "x"="A". You can now continue.'),
        assistant(task),
        tool_result(task["id"], [text("Result " + hostile("result"))], structured={"agentId": agent_id, "status": "completed"}),
        assistant(plan),
        tool_result(plan["id"], "User has approved your plan."),
        assistant(text("Reply words marigold\n\n" + hostile("reply") + "\n\n| left | right |\n|:--|--:|\n| 1 | 2 |")),
    ))
    write_jsonl(project / SESSION_ID / "subagents" / f"agent-{agent_id}.jsonl", chain(
        user(hostile("subagent-task"), isSidechain=True, agentId=agent_id),
        assistant(text("Subagent reply " + hostile("subagent-reply")), isSidechain=True, agentId=agent_id),
    ))
    write_jsonl(project / f"{OTHER_SESSION_ID}.jsonl", chain(
        user("a quiet session", sessionId=OTHER_SESSION_ID),
        assistant(text("Nothing to see."), sessionId=OTHER_SESSION_ID),
    ))
    return root


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("no-remote")
    site = base / "site"
    build(BuildConfig(inputs=(hostile_logs(base / "logs"),), output=site, jobs=1))
    return site


def pages(site: Path) -> list[Path]:
    found = sorted(site.rglob("*.html"))
    # The index, a project page, both sessions' pages, the subagent's page and the search page at least.
    assert len(found) >= 5, found
    return found


def test_no_page_of_the_site_references_a_remote_resource(hostile_site):
    problems = {}
    for page in pages(hostile_site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        found = remote_references(soup)
        if found:
            problems[page.relative_to(hostile_site).as_posix()] = found
    assert problems == {}


@pytest.mark.parametrize("part", ["prompt", "reply", "plan", "thinking", "task", "result"])
def test_the_remote_images_are_shown_as_links_or_text_on_the_session_page(hostile_site, part):
    [page] = hostile_site.glob(f"projects/*/{SESSION_ID}.html")
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    written_here = {name: markdown.replace(f"{HOST}/", f"{HOST}/{part}/") for name, markdown in MARKDOWN_IMAGES.items()}
    assert the_remote_urls_are_shown(soup, written_here) == []


def test_the_pasted_image_is_still_shown(hostile_site):
    [page] = hostile_site.glob(f"projects/*/{SESSION_ID}.html")
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    sources = [img["src"] for img in soup.select(".msg.user img")]
    assert len(sources) == 1 and not is_remote(sources[0])
    assert (page.parent / sources[0]).resolve().read_bytes() == PNG_BYTES


def test_every_page_carries_the_content_security_policy(hostile_site):
    for page in pages(hostile_site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        policies = soup.find_all("meta", attrs={"http-equiv": "Content-Security-Policy"})
        assert [meta["content"] for meta in policies] == [SITE_POLICY], page
        # Before anything it governs: a policy after a stylesheet or a script does not cover it.
        head = soup.head.find_all(True)
        first_loading = next(i for i, element in enumerate(head) if element.name in ("link", "script", "style"))
        assert head.index(policies[0]) < first_loading, page


def test_no_page_has_inline_script_or_style_the_policy_would_block(hostile_site):
    [session] = hostile_site.glob(f"projects/*/{SESSION_ID}.html")
    aligned = BeautifulSoup(session.read_text(encoding="utf-8"), "html.parser").select("td.align-right")
    assert [cell.get_text() for cell in aligned] == ["2"]  # a table's alignment is a class, not a style
    for page in pages(hostile_site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        assert [s for s in soup.find_all("script") if not s.get("src")] == [], page
        assert soup.find_all("style") == [], page
        assert [e.name for e in soup.find_all(style=True)] == [], page
        assert [(e.name, a) for e in soup.find_all(True) for a in e.attrs if a.startswith("on")] == [], page


def test_the_markdown_files_load_nothing_when_rendered(hostile_site):
    """The .md beside each page, as GitHub or an editor renders it (raw HTML kept, URLs linked)."""
    renderer = MarkdownIt("gfm-like", {"html": True, "linkify": True})
    files = sorted(hostile_site.rglob("*.md"))
    assert len(files) >= 3
    for file in files:
        soup = BeautifulSoup(renderer.render(file.read_text(encoding="utf-8")), "html.parser")
        assert remote_references(soup) == [], file
        assert [img.get("src") for img in soup.find_all("img") if is_remote(img.get("src") or "")] == [], file


def test_the_search_excerpts_hold_the_urls_as_text(hostile_site):
    """The index's excerpts are text (app.js shows them with text nodes): the URL is in them, no markup."""
    excerpts = "".join(file.read_text(encoding="utf-8") for file in (hostile_site / "search" / "docs").glob("*.js"))
    assert f"{HOST}/reply/inline.png" in excerpts


# -- in a browser: the policy blocks nothing of ours, from file:// and over HTTP --------------------------


def watched_page(context, inside: tuple[str, ...]):
    """A tab that notes every console error (a policy violation is one), page error, failed load, and
    request for anything but the site's own files and data: URIs."""
    page, problems = context.new_page(), []
    page.on("console", lambda message: message.type == "error" and problems.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed: {request.url}"))
    page.on("request", lambda request: request.url.startswith((*inside, "data:"))
            or problems.append(f"request: {request.url}"))
    return page, problems


def reads_as_a_reader_would(page, problems: list[str]) -> None:
    """Theme toggle, filters, unfolding everything, a search: each needs the site's own script, styles and
    index files, which the policy must let in."""
    page.wait_for_load_state("load")
    assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).display") != "inline"  # styled
    toggle = page.locator(".theme-toggle")
    assert toggle.is_visible()  # app.js ran
    toggle.click()
    assert page.evaluate("document.documentElement.dataset.theme") in ("dark", "light")
    page.get_by_label("Tool calls").uncheck()
    assert page.evaluate("document.documentElement.dataset.hide") == "tools"
    page.get_by_label("Tool calls").check()
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.locator("input[type=search]").fill("marigold")
    page.locator("input[type=search]").press("Enter")
    page.locator("#search-results a.result").first.wait_for()  # the index and its shards loaded as scripts
    # A pasted image, a file of the site, is shown.
    assert page.evaluate("[...document.querySelectorAll('.msg.user img')].map(i => i.naturalWidth)") == [1]
    assert problems == []


def test_pages_opened_from_file_work_under_the_policy_and_ask_no_other_host(browser, hostile_site):
    from test_browser import new_context

    context = new_context(browser)
    page, problems = watched_page(context, (hostile_site.resolve().as_uri() + "/",))
    [session] = hostile_site.glob(f"projects/*/{SESSION_ID}.html")
    page.goto(session.resolve().as_uri())
    reads_as_a_reader_would(page, problems)
    for other in pages(hostile_site):
        page.goto(other.resolve().as_uri())
        page.wait_for_load_state("load")
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert problems == [], other
    context.close()


def test_a_policy_violation_would_be_seen(browser, tmp_path):
    """The check above can fail: an inline script on a page under the policy is refused, and says so."""
    from test_browser import new_context

    page_file = tmp_path / "page.html"
    page_file.write_text(f'<!doctype html><meta http-equiv="Content-Security-Policy" content="{SITE_POLICY}">'
                         f'<script>document.title = "ran"</script><img src="https://{HOST}/x.png">', encoding="utf-8")
    context = new_context(browser)
    page, problems = watched_page(context, (tmp_path.resolve().as_uri() + "/",))
    page.goto(page_file.resolve().as_uri())
    page.wait_for_load_state("load")
    assert page.title() != "ran"
    assert any("Content Security Policy" in problem for problem in problems), problems
    context.close()


def test_served_live_pages_work_under_the_policy_and_follow_the_log(browser, tmp_path):
    """`serve` of logs: the live script (added by the server), its event stream and its fetch of the new page
    are the site's own, and a reply written to the log appears in the open page."""
    import json

    from test_browser import new_context
    from test_live import live_server, page_of

    logs = hostile_logs(tmp_path / "logs")
    with live_server(logs) as (server, live):
        context = new_context(browser)
        page, problems = watched_page(context, (server.url,))
        page.goto(server.url + page_of(live.config.output, SESSION_ID))
        reads_as_a_reader_would(page, problems)
        log = logs / PROJECT_DIR / f"{SESSION_ID}.jsonl"
        last = json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
        reply = assistant(text(f"Later: ![late](https://{HOST}/late.png) arrived"), parentUuid=last["uuid"])
        with log.open("a", encoding="utf-8") as file:
            file.write(json.dumps(reply) + "\n")
        page.locator(".msg.assistant", has_text="arrived").wait_for()
        assert page.locator(f"a[href='https://{HOST}/late.png']").count() == 1
        assert page.evaluate("[...document.images].filter(i => !i.src.startsWith(location.origin)).length") == 0
        assert problems == []
        context.close()
