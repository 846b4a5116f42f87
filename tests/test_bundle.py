"""`sessionsite bundle`: one file for a pull request.

The HTML bundle references no other file and carries the whole piece of work a session belongs to (its
chain, what it continues, its subagents); the Markdown bundle fits GitHub's limit, says when it was
shortened, and links only inside itself. Both are redacted, and hostile transcript content runs nowhere.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.bundle import GITHUB_LIMIT, BundleConfig, bundle, github_length, section_id
from generator.cli import main
from generator.render.markdown.tools import INLINE_OUTPUT_LIMIT
from generator.pipeline.phase1 import collect
from generator.core.errors import InputError
from generator.core.text import plain

from attacks import VECTORS
from conftest import corpus_files, each_corpus_file
from helpers import PNG_BYTES, assistant, chain, image, text, tool_result, tool_use, user, write_jsonl
from test_attacks import SESSIONS, project_dir, session_id
from test_redact import SECRETS

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
TIDEWATCH = EXAMPLES / "-home-ada-src-tidewatch"
LEDGER = EXAMPLES / "-Users-grace-work-ledger-api"
LONG_SESSION = TIDEWATCH / "f3a6c1d8-2e95-4b07-8c4d-6a1e9b3f5027.jsonl"
SHORTENED = "Shortened to fit GitHub's 65,536-character limit"


def make_bundle(tmp_path: Path, *inputs: Path, name: str, **options) -> str:
    out = tmp_path / name
    bundle(BundleConfig(inputs=inputs, output=out, jobs=1, **options))
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def examples_archive():
    archive, _, _ = collect([TIDEWATCH, LEDGER])
    return archive


@pytest.fixture(scope="module")
def chain_html(tmp_path_factory) -> str:
    """The quiet-harbor-tides chain (planning, implementation with two subagents, further work), asked
    for by its last session."""
    return make_bundle(tmp_path_factory.mktemp("bundle"), TIDEWATCH / "c41f7d2e-8b3a-4e6f-9d15-2a7b6c0e8f31.jsonl",
                       name="chain.html")


@pytest.fixture(scope="module")
def chain_md(tmp_path_factory) -> str:
    return make_bundle(tmp_path_factory.mktemp("bundle"), TIDEWATCH / "98878b43-fdae-4a02-bcf3-f201c4eb58b9.jsonl",
                       name="chain.md")


def words(value: str) -> str:
    return " ".join(plain(value).split())


# -- HTML: self-contained --------------------------------------------------------------------------------


def external_references(page: str | BeautifulSoup) -> list[str]:
    """Everything in the page that would load or open another file (the page's text, or its tree when the
    caller has parsed it already: a large bundle takes seconds to parse)."""
    soup = page if isinstance(page, BeautifulSoup) else BeautifulSoup(page, "html.parser")
    found = []
    for tag in soup.find_all(True):
        for attribute in ("href", "src", "srcset", "action", "data", "poster", "formaction", "background",
                          "data-anchor-map"):
            value = tag.get(attribute)
            if value is None:
                continue
            value = " ".join(value) if isinstance(value, list) else value
            if value.startswith("#") or value.startswith("data:"):
                continue
            # A link the reader may follow to the web is not a file the page needs; nothing else may.
            if tag.name == "a" and attribute == "href" and re.match(r"(https?|mailto):", value):
                continue
            found.append(f"<{tag.name} {attribute}={value[:80]}>")
    for style in soup.find_all("style"):
        css = style.get_text()
        found += [f"css url({m[:60]})" for m in re.findall(r"url\(\s*['\"]?([^)'\"]*)", css) if not m.startswith("data:")]
        found += ["css @import"] if "@import" in css else []
    for tag in soup.find_all(style=True):
        found += [f"inline style url on <{tag.name}>"] if "url(" in tag["style"] else []
    return found


def test_the_html_bundle_references_no_other_file(chain_html):
    soup = BeautifulSoup(chain_html, "html.parser")
    assert external_references(soup) == []
    assert [link["rel"] for link in soup.find_all("link")] == [["icon"]]
    scripts = soup.find_all("script")
    assert len(scripts) == 1 and not scripts[0].get("src") and "sessionsite-theme" in scripts[0].get_text()
    assert ".site-header" in soup.style.get_text() and ".highlight" in soup.style.get_text()  # theme + pygments


def test_the_html_bundle_inlines_images_and_saved_outputs(tmp_path):
    page = make_bundle(tmp_path, TIDEWATCH / "e5a81d37-9c24-4b0e-8f6d-27b4c9a0d15e.jsonl", name="media.html")
    soup = BeautifulSoup(page, "html.parser")
    assert external_references(soup) == []
    assert soup.select('img[src^="data:image/png;base64,"]')
    pdf = soup.select('a[href^="data:application/pdf;base64,"]')
    assert pdf and pdf[0].get("download", "").endswith(".pdf")  # a data: URL opens as a download

    # A very long tool output, saved beside its page on the site, comes along too.
    output = "".join(f"line {n} of the build log\n" for n in range(INLINE_OUTPUT_LIMIT // 10))
    path = write_jsonl(tmp_path / "-home-ada-src-log" / "77777777-8888-4999-8aaa-bbbbbbbbbbbb.jsonl", chain(
        user("run the build"),
        assistant(tool_use("Bash", {"command": "make"}, "toolu_make")),
        tool_result("toolu_make", output),
        assistant(text("Done.")),
    ))
    saved = BeautifulSoup(make_bundle(tmp_path, path, name="log.html"), "html.parser").select(
        'a[href^="data:text/plain"]')
    assert len(saved) == 1 and saved[0]["download"].endswith(".txt")
    assert base64.b64decode(saved[0]["href"].split(",", 1)[1]).decode() == output


def test_links_inside_the_bundle_lead_to_its_own_anchors(chain_html):
    soup = BeautifulSoup(chain_html, "html.parser")
    ids = [tag["id"] for tag in soup.find_all(id=True)]
    assert len(ids) == len(set(ids)), "ids are unique across the bundled sessions"
    targets = {a["href"][1:] for a in soup.select('a[href^="#"]')}
    assert targets - set(ids) == set()
    # The chain strip of each session leads to the others, in this document.
    strip_links = {a["href"] for a in soup.select(".chain-strip a")}
    assert {"#session-98878b43-fdae-4a02-bcf3-f201c4eb58b9",
            "#session-057ab0db-f705-4249-82fd-8293d16bc8eb"} <= strip_links


def test_a_long_session_is_one_document(tmp_path):
    page = make_bundle(tmp_path, LONG_SESSION, name="long.html")
    soup = BeautifulSoup(page, "html.parser")
    assert not soup.select("nav.pagination") and not soup.select("[data-anchor-map]")
    assert len(soup.select("section.bundle-session")) == 1
    assert len(soup.select(".transcript .msg.user")) == 40  # all its prompts, from all four of its pages


def test_there_is_no_search_box_and_the_theme_toggle_is_there(chain_html):
    soup = BeautifulSoup(chain_html, "html.parser")
    assert not soup.select('input[type="search"]') and not soup.select('[role="search"]')
    assert soup.select("button.theme-toggle")


# -- HTML: the whole piece of work -----------------------------------------------------------------------


def test_one_member_brings_the_whole_chain_and_its_subagents(chain_html, examples_archive):
    chain_keys = examples_archive.chains["-home-ada-src-tidewatch/quiet-harbor-tides"].session_keys
    soup = BeautifulSoup(chain_html, "html.parser")
    sections = [section["id"] for section in soup.select("section.bundle-session")]
    subagents = [key for member in chain_keys for key in examples_archive.sessions[member].subagent_keys]
    assert len(subagents) == 2
    assert set(sections) == {section_id(key) for key in (*chain_keys, *subagents)}
    body = words(soup.get_text(" "))
    for key in (*chain_keys, *subagents):
        prompt = examples_archive.sessions[key].first_prompt
        if prompt:
            assert words(prompt)[:120] in body, key
    # Planning, implementation, further work: in the order the work happened, each with its subagents.
    planning, implementation, further = (section_id(key) for key in chain_keys)
    assert sections.index(planning) < sections.index(implementation) < sections.index(further)
    assert sections.index(implementation) < sections.index(section_id(subagents[0])) < sections.index(further)


def test_the_header_says_what_the_bundle_is(chain_html):
    soup = BeautifulSoup(chain_html, "html.parser")
    head = words(soup.select_one(".bundle-head").get_text(" "))
    assert "3 + 2 subagents" in head and "2026-10-27" in head
    assert soup.select_one(".bundle-facts code").get_text("") == "/home/ada/src/tidewatch"
    toc = [a["href"] for a in soup.select("#contents a")]
    assert toc == ["#" + s["id"] for s in soup.select("section.bundle-session")]
    roles = [p.get_text() for p in soup.select("#contents .pill")]
    assert roles == ["planning", "implementation", "subagent", "subagent", "further work"]


def test_a_continued_session_brings_the_one_it_continues(tmp_path, examples_archive):
    continuing = "-home-ada-src-tidewatch/8e2d5b90-6f14-4c7a-b3e8-d91a0c5f27e6"
    earlier = examples_archive.sessions[continuing].continues_key
    assert earlier
    page = make_bundle(tmp_path, TIDEWATCH / "8e2d5b90-6f14-4c7a-b3e8-d91a0c5f27e6.jsonl", name="resumed.html")
    sections = [s["id"] for s in BeautifulSoup(page, "html.parser").select("section.bundle-session")]
    assert sections.index(section_id(earlier)) < sections.index(section_id(continuing))


def test_an_unrelated_session_comes_alone_with_its_subagents(tmp_path):
    page = make_bundle(tmp_path, LEDGER / "a256e702-08bc-4854-ae3b-34e7eb0045ea.jsonl", name="one.html")
    sections = [s["id"] for s in BeautifulSoup(page, "html.parser").select("section.bundle-session")]
    assert sections == ["session-a256e702-08bc-4854-ae3b-34e7eb0045ea", "session-agent-5117b9da",
                        "session-agent-e6ecf1f3"]  # the flat 1.x agent files beside it, and nothing else


# -- Markdown --------------------------------------------------------------------------------------------

MD_LINK = re.compile(r"\]\(([^)\s]*)")
HTML_HREF = re.compile(r'(?:href|src)="([^"]*)"')


SITE_FILE = re.compile(r"(?:^|/)(?:media/|[^/]*\.files/)|(?:[0-9a-f]{8}-[0-9a-f-]{27}|agent-[^/#]*)\.md(?:#|$)")


def local_targets(markdown: str) -> list[str]:
    """Links to files of the site, which a pull request will not have: another session's Markdown, media,
    saved outputs. (A relative link the transcript itself wrote, to a file of the user's project, stays
    as the transcript wrote it, as it does in the site's Markdown.)"""
    links = MD_LINK.findall(markdown) + HTML_HREF.findall(markdown)
    return [link for link in links if SITE_FILE.search(link)]


def test_the_markdown_bundle_of_a_long_session_keeps_every_prompt(tmp_path):
    assert LONG_SESSION.stat().st_size > 1_000_000
    markdown = make_bundle(tmp_path, LONG_SESSION, name="long.md")
    assert github_length(markdown) <= GITHUB_LIMIT
    assert local_targets(markdown) == []
    archive, _, _ = collect([TIDEWATCH])
    session = archive.sessions["-home-ada-src-tidewatch/f3a6c1d8-2e95-4b07-8c4d-6a1e9b3f5027"]
    assert markdown.count("\n**Prompt ") == session.prompt_count == 40
    for item in session.outline:
        assert words(item.text)[:60] in words(markdown)


def test_the_markdown_bundle_shrinks_a_very_long_chain_to_fit(tmp_path):
    """A session whose prompts alone pass the limit still fits, prompts cut short, and says so at the top."""
    entries = []
    for number in range(60):
        entries += [user(f"Prompt {number}: " + "please look at the tide tables again " * 80),
                    assistant(text("Looking. " * 400))]
    path = write_jsonl(tmp_path / "-home-ada-src-big" / "11111111-2222-4333-8444-555555555555.jsonl", chain(*entries))
    markdown = make_bundle(tmp_path, path, name="big.md")
    assert github_length(markdown) <= GITHUB_LIMIT
    top = markdown.split("\n---\n", 1)[0]
    assert SHORTENED in top and "all 60 final replies shortened" in top and "prompts shortened" in top
    assert "left out" not in top  # every turn's reply stays, shortened: it says how the turn ended
    assert markdown.count("**Claude**") == 60
    assert "big.zip" in top  # where the whole of it is
    assert markdown.count(SHORTENED) == 1
    assert "Prompt 0:" in markdown and "Prompt 59:" in markdown


def test_a_short_session_is_not_shortened(tmp_path):
    markdown = make_bundle(tmp_path, LEDGER / "a256e702-08bc-4854-ae3b-34e7eb0045ea.jsonl", name="short.md")
    assert github_length(markdown) <= GITHUB_LIMIT and SHORTENED not in markdown
    assert "<details" in markdown and "<summary>" in markdown  # tool calls fold
    assert not markdown.startswith("---")  # no front matter: it would show as a table on GitHub


def test_markdown_links_stay_inside_the_document(chain_md):
    assert local_targets(chain_md) == []
    # Nothing GitHub would strip or that leads nowhere: no anchors of ours, no links to them.
    assert "](#" not in chain_md and 'href="#' not in chain_md and "<a " not in chain_md


def test_the_link_check_sees_the_sites_own_links():
    site_markdown = ("![Image 1](../../media/75d4a6e1.png) [Full output](abc.files/e-1-output.txt) "
                     '<a href="98878b43-fdae-4a02-bcf3-f201c4eb58b9.md#e-1">plan</a> [notes](docs/NOTES.md)')
    assert len(local_targets(site_markdown)) == 3


def test_markdown_media_become_text(tmp_path):
    markdown = make_bundle(tmp_path, TIDEWATCH / "e5a81d37-9c24-4b0e-8f6d-27b4c9a0d15e.jsonl", name="media.md")
    assert local_targets(markdown) == []
    assert "Image 1 (in the HTML bundle)" in markdown and "media/" not in markdown


def test_the_markdown_bundle_carries_the_chain(chain_md, examples_archive):
    chain_keys = examples_archive.chains["-home-ada-src-tidewatch/quiet-harbor-tides"].session_keys
    headings = re.findall(r"^## (.*)$", chain_md, re.M)
    assert len(headings) == len(chain_keys)
    for heading, key, role in zip(headings, chain_keys, ("Planning", "Implementation", "Further work"), strict=True):
        assert heading.startswith(f"{chain_keys.index(key) + 1}. {role}: ")
        assert words(examples_archive.sessions[key].title)[:40] in words(heading)
    # Subagent transcripts are counted at the top; they are in the HTML bundle.
    assert "and 2 subagent runs" in chain_md.split("\n---\n", 1)[0]
    # The plan the implementation started with is the one the planning session proposed: shown once.
    assert chain_md.count("**Plan** · approved") == 2 and "approved: the plan shown in session 1 above." in chain_md


# -- safety ----------------------------------------------------------------------------------------------


def test_secrets_are_redacted_in_both(tmp_path):
    secrets = " ".join(SECRETS.values())
    path = write_jsonl(tmp_path / "-home-ada-src-keys" / "22222222-3333-4444-8555-666666666666.jsonl", chain(
        user(f"deploy with {secrets}"),
        assistant(text("Checking the config."), tool_use("Bash", {"command": "cat .env"}, "toolu_keys")),
        tool_result("toolu_keys", f"ANTHROPIC_API_KEY={SECRETS['anthropic-key']}\n"),
        assistant(text(f"The token is {SECRETS['github-token']}.")),
    ))
    for name in ("keys.html", "keys.md"):
        output = make_bundle(tmp_path, path, name=name)
        assert "[REDACTED:" in output
        for value in SECRETS.values():
            assert value not in output, (name, value)
    kept = make_bundle(tmp_path, path, name="kept.md", redact=False)
    assert SECRETS["github-token"] in kept


@pytest.fixture(scope="module")
def attack_bundle(tmp_path_factory) -> str:
    base = tmp_path_factory.mktemp("attack-bundle")
    inputs = []
    for vector in VECTORS:
        for which, entries in SESSIONS[vector.n].items():
            inputs.append(write_jsonl(base / "projects" / project_dir(vector) / f"{session_id(vector, which)}.jsonl",
                                      entries))
    return make_bundle(base, *inputs, name="attacks.html")


def test_hostile_content_adds_no_script_or_handler(attack_bundle):
    soup = BeautifulSoup(attack_bundle, "html.parser")
    assert len(soup.find_all("script")) == 1  # ours
    assert not soup.find_all(["iframe", "object", "embed", "form", "base", "frame"])
    assert all(meta.parent.name == "head" for meta in soup.find_all("meta"))
    for tag in soup.find_all(True):
        for attribute, value in tag.attrs.items():
            assert not attribute.startswith("on"), tag
            if attribute in ("href", "src"):
                assert not str(value).lower().startswith(("javascript:", "vbscript:", "data:text/html")), tag
    assert not soup.select(".forged")
    assert len(soup.find_all("style")) == 1
    assert external_references(soup) == []


def test_hostile_content_runs_nothing_in_a_browser(attack_bundle, browser, tmp_path):
    path = tmp_path / "attacks.html"
    path.write_text(attack_bundle, encoding="utf-8")
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(path.as_uri())
    page.wait_for_timeout(300)
    assert dialogs == []
    assert "PWNED" not in page.title()
    assert page.evaluate("window.__pwned === undefined")
    assert page.evaluate("document.querySelectorAll('.forged').length") == 0
    # Our own script did run: the theme toggle shows and works.
    page.click(".theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") in ("light", "dark")
    page.close()


def test_each_sessions_expand_all_opens_its_own_tool_calls(chain_html, browser, tmp_path):
    path = tmp_path / "chain.html"
    path.write_text(chain_html, encoding="utf-8")
    page = browser.new_page()
    page.goto(path.as_uri())
    sections = page.locator(".bundle-session:has(.toolbar)")
    assert sections.count() >= 2
    second = sections.nth(1)
    second.locator(".toolbar button[data-action=expand]").click()
    assert second.evaluate("s => [...s.querySelectorAll('.transcript details')].every(d => d.open)")
    first = sections.nth(0)
    assert first.evaluate("s => [...s.querySelectorAll('.transcript details.tool')].some(d => !d.open)")
    page.close()


# -- input problems --------------------------------------------------------------------------------------


def test_a_broken_line_is_reported_with_file_and_line(tmp_path):
    path = write_jsonl(tmp_path / "-home-ada-src-broken" / "33333333-4444-4555-8666-777777777777.jsonl",
                       [*chain(user("hello"), assistant(text("hi"))), '{"type": "user", "message": '])
    runner = CliRunner()
    result = runner.invoke(main, ["bundle", str(path), "-o", str(tmp_path / "b.html")])
    assert result.exit_code == 0, result.output
    assert f"{path}:3:" in result.stderr
    strict = runner.invoke(main, ["bundle", str(path), "-o", str(tmp_path / "s.html"), "--strict"])
    assert strict.exit_code == 1 and "--strict" in strict.stderr and "Traceback" not in strict.output


@pytest.mark.parametrize("case", ["folder", "text-output", "no-conversation", "not-a-log"])
def test_bad_input_gives_one_clear_line(tmp_path, case):
    session = write_jsonl(tmp_path / "-p" / "44444444-5555-4666-8777-888888888888.jsonl",
                          chain(user("hello"), assistant(text("hi"))))
    empty = write_jsonl(tmp_path / "-p" / "55555555-6666-4777-8888-999999999999.jsonl",
                        [{"type": "summary", "summary": "nothing", "leafUuid": "x"}])
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    args, code, message = {
        "folder": ([str(tmp_path / "-p"), "-o", str(tmp_path / "b.html")], 2, "is a folder"),
        "text-output": ([str(session), "-o", str(tmp_path / "b.txt")], 2, ".html, .zip or .md"),
        "no-conversation": ([str(empty), "-o", str(tmp_path / "b.html")], 1, "no conversation"),
        "not-a-log": ([str(notes), "-o", str(tmp_path / "b.html")], 1, "not a Claude Code session log"),
    }[case]
    result = CliRunner().invoke(main, ["bundle", *args])
    assert result.exit_code == code, result.output
    assert message in result.stderr and "Traceback" not in result.output


def test_the_command_says_what_it_wrote(tmp_path):
    result = CliRunner().invoke(main, ["bundle", str(LEDGER / "a256e702-08bc-4854-ae3b-34e7eb0045ea.jsonl"),
                                       "-o", str(tmp_path / "pr.md"), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "1 session and 2 subagent runs (" in result.stderr and "characters" in result.stderr
    assert (tmp_path / "pr.md").is_file()


def test_images_in_a_prompt_are_inlined(tmp_path):
    path = write_jsonl(tmp_path / "-home-ada-src-img" / "66666666-7777-4888-8999-000000000000.jsonl",
                       chain(user([text("this screenshot"), image()]), assistant(text("I see it."))))
    page = make_bundle(tmp_path, path, name="img.html")
    assert f"data:image/png;base64,{base64.b64encode(PNG_BYTES).decode()}" in page
    assert external_references(page) == []


# -- the real corpus -------------------------------------------------------------------------------------

CORPUS_SESSIONS = [p for p in corpus_files("*.jsonl") if not p.name.startswith("agent-")]


@pytest.mark.slow
@each_corpus_file(CORPUS_SESSIONS)
def test_every_corpus_session_bundles_and_its_markdown_fits(public_corpus, tmp_path, path):
    try:
        markdown = make_bundle(tmp_path, path, name="pr.md")
    except InputError as error:  # a file with no conversation is refused with a clear message, nothing else
        assert "no conversation" in str(error), error
        return
    assert github_length(markdown) <= GITHUB_LIMIT
    assert local_targets(markdown) == []
    soup = BeautifulSoup(make_bundle(tmp_path, path, name="pr.html"), "html.parser")
    assert external_references(soup) == []
    # A side question's transcript holds entries of its parent: each still has an id of its own.
    ids = [tag["id"] for tag in soup.find_all(id=True)]
    assert len(ids) == len(set(ids))
