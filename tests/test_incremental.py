"""Incremental builds: the manifest lets a rebuild read and render only what changed, and the result is
always the site a fresh build would write."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.output.manifest import MANIFEST

from helpers import assistant, chain, read_entries, text, user, write_jsonl

TIDEWATCH = "-home-ada-src-tidewatch"


def tree(root: Path) -> dict[str, bytes]:
    """The site's files, the manifest included: an incremental build writes the same one as a fresh build."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def inodes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_ino for p in root.rglob("*") if p.is_file()}


def assert_same_as_fresh_build(archive: Path, site: Path, tmp_path: Path, **settings) -> None:
    fresh = tmp_path / "fresh"
    shutil.rmtree(fresh, ignore_errors=True)
    build(BuildConfig(inputs=(archive,), output=fresh, **settings))
    built, expected = tree(site), tree(fresh)
    assert sorted(built) == sorted(expected)
    assert [path for path in expected if built[path] != expected[path]] == []


def session_files(archive: Path) -> list[Path]:
    """Main session files with no subagent transcripts of their own."""
    return sorted(path for path in (archive / TIDEWATCH).glob("*.jsonl") if not path.with_suffix("").is_dir())


def test_a_rebuild_with_nothing_changed_leaves_the_site_as_it_is(archive, tmp_path):
    site = tmp_path / "site"
    first = build(BuildConfig(inputs=(archive,), output=site))
    before = {path: (site / path).stat().st_mtime_ns for path in tree(site)}
    manifest = (site / MANIFEST).read_bytes()
    again = build(BuildConfig(inputs=(archive,), output=site))
    assert again.to_json() == first.to_json()
    assert {path: (site / path).stat().st_mtime_ns for path in tree(site)} == before
    assert (site / MANIFEST).read_bytes() == manifest


def test_a_file_added_to_the_site_by_hand_is_cleared_by_the_next_build(archive, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    (site / "stale.html").write_text("old", encoding="utf-8")
    build(BuildConfig(inputs=(archive,), output=site))
    assert not (site / "stale.html").exists()
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_a_file_touched_but_not_changed_is_not_read_again(archive, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    before = inodes(site)
    touched = session_files(archive)[0]
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    build(BuildConfig(inputs=(archive,), output=site))
    assert inodes(site) == before, "the content hash says nothing changed: the site stays"


def test_one_changed_session_is_rendered_again_and_the_rest_is_kept(archive, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    before = inodes(site)
    changed = session_files(archive)[0]
    last = [entry for entry in read_entries(changed) if isinstance(entry.get("uuid"), str)][-1]
    added = chain(user("one more question about the tide tables", parentUuid=last["uuid"]),
                  assistant(text("Answered: the tables are in UTC.")))
    added[0]["parentUuid"] = last["uuid"]
    with changed.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(entry) + "\n" for entry in added)

    build(BuildConfig(inputs=(archive,), output=site))

    after = inodes(site)
    kept = {path for path in before if after.get(path) == before[path]}
    rendered_again = {path for path in after if path not in kept}
    assert any(changed.stem in path for path in rendered_again)
    assert any(path.endswith(".html") and changed.stem not in path and "index" not in path for path in kept), \
        "pages of unchanged sessions are taken from the previous site"
    assert "one more question about the tide tables" in (site / next(
        p for p in rendered_again if changed.stem in p and p.endswith(".html"))).read_text(encoding="utf-8")
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_a_reply_added_in_one_project_renders_only_that_projects_pages(archive, tmp_path):
    from generator.core import urls
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    projects = sorted(path.name for path in archive.iterdir() if path.is_dir())
    assert TIDEWATCH in projects and len(projects) > 1, "the examples have more than one project"
    before = inodes(site)
    changed = session_files(archive)[0]
    last = [entry for entry in read_entries(changed) if isinstance(entry.get("uuid"), str)][-1]
    with changed.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(assistant(text("One more reply."), parentUuid=last["uuid"])) + "\n")

    build(BuildConfig(inputs=(archive,), output=site))

    after = inodes(site)
    project_pages = {name: [p for p in before if p.startswith("projects/") and p.count("/") == 2
                            and p.endswith(("/index.html", "/files.html", "/commits.html")) and name.strip("-") in p]
                     for name in projects}
    assert all(project_pages.values())
    for name, pages in project_pages.items():
        for page in pages:
            if name == TIDEWATCH:
                assert after[page] != before[page], f"{page}: its project's session grew"
            else:
                assert after[page] == before[page], f"{page}: nothing of its project changed"
    assert after[urls.INDEX] != before[urls.INDEX]
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_an_added_session_appears_and_a_removed_one_goes(archive, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    removed = session_files(archive)[0]
    removed_pages = [path for path in tree(site) if removed.stem in path]
    assert removed_pages
    removed.unlink()
    write_jsonl(archive / TIDEWATCH / "0a0a0a0a-1111-4222-8333-444444444444.jsonl",
                chain(user("plot the spring tides for May"), assistant(text("Plotted."))))

    build(BuildConfig(inputs=(archive,), output=site))

    assert not any(removed.stem in path for path in tree(site))
    assert any("0a0a0a0a-1111-4222-8333-444444444444" in path for path in tree(site))
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_a_retitled_session_updates_the_pages_that_show_it(archive, tmp_path):
    """The pages of a chain show every session of the chain: renaming one renders the others again."""
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    chain_members = [path for path in session_files(archive)
                     if any(entry.get("slug") == "quiet-harbor-tides" for entry in read_entries(path))]
    assert len(chain_members) >= 2
    first = chain_members[0]
    with first.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"type": "custom-title", "customTitle": "Harbour tides, renamed",
                                 "sessionId": read_entries(first)[0].get("sessionId")}) + "\n")

    build(BuildConfig(inputs=(archive,), output=site))

    other_page = next(site.rglob(f"{chain_members[1].stem}.html"))
    assert "Harbour tides, renamed" in other_page.read_text(encoding="utf-8")
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_other_settings_render_everything_again(archive, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    build(BuildConfig(inputs=(archive,), output=site, show_hidden=True))
    assert_same_as_fresh_build(archive, site, tmp_path, show_hidden=True)


def test_a_damaged_manifest_means_a_full_build(archive, tmp_path):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    (site / MANIFEST).write_text('{"format": 1, "settings": "x", "files": [{"path": 3}]', encoding="utf-8")
    build(BuildConfig(inputs=(archive,), output=site))
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_the_manifest_names_no_input_path(archive, tmp_path):
    """It is published with the site; paths would name the user's home folder."""
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    manifest = (site / MANIFEST).read_text(encoding="utf-8")
    assert str(tmp_path) not in manifest and str(archive) not in manifest


LONG_SESSION = "f3a6c1d8-2e95-4b07-8c4d-6a1e9b3f5027"


def append_reply(session_file: Path, words: str) -> None:
    """A reply added at the end of a session, as Claude Code appends it."""
    entries = read_entries(session_file)
    last = [entry for entry in entries if isinstance(entry.get("uuid"), str)][-1]
    model = [entry["message"]["model"] for entry in entries if entry.get("type") == "assistant"][-1]
    reply = assistant(text(words), model=model, parentUuid=last["uuid"], sessionId=last.get("sessionId"),
                      timestamp=max(entry.get("timestamp", "") for entry in entries))
    with session_file.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(reply) + "\n")


@pytest.fixture
def rendered_bodies(monkeypatch) -> list[str]:
    """The Markdown of every page body phase 2 renders (the build runs in this process)."""
    import generator.pipeline.phase2 as phase2

    from generator.render.markdown.blocks import markdown_of

    rendered: list[str] = []
    render, render_blocks = phase2.render_markdown, phase2.render_blocks

    def noting(text: str, resolve=None) -> str:
        rendered.append(text)
        return render(text, resolve)

    def noting_blocks(blocks, resolve=None) -> str:
        rendered.append(markdown_of(blocks))
        return render_blocks(blocks, resolve)

    monkeypatch.setattr(phase2, "render_markdown", noting)
    monkeypatch.setattr(phase2, "render_blocks", noting_blocks)
    return rendered


def test_a_reply_added_to_a_long_session_renders_only_its_last_page(archive, tmp_path, rendered_bodies):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    pages = sorted(path for path in tree(site) if LONG_SESSION in path and path.endswith(".html"))
    assert len(pages) >= 3, "the example session spans several pages"
    before = inodes(site)
    rendered_bodies.clear()
    append_reply(archive / TIDEWATCH / f"{LONG_SESSION}.jsonl", "A late answer: the tables are in UTC.")

    build(BuildConfig(inputs=(archive,), output=site))

    assert len(rendered_bodies) == 1 and "A late answer" in rendered_bodies[0]
    assert "A late answer" in (site / pages[-1]).read_text(encoding="utf-8")
    after = inodes(site)
    other_pages = [path for path in before if path.endswith(".html") and LONG_SESSION not in path
                   and not path.endswith(("index.html", "files.html", "commits.html"))]
    assert other_pages and [path for path in other_pages if after.get(path) != before[path]] == []
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_a_reply_added_to_a_chain_member_leaves_the_other_members_as_they_are(archive, tmp_path):
    """The chain strip shows each member's title, start and prompts: a reply changes none of them."""
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    members = [path for path in session_files(archive)
               if any(entry.get("slug") == "quiet-harbor-tides" for entry in read_entries(path))]
    assert len(members) >= 2
    before = inodes(site)
    append_reply(members[0], "Checked again: the harbour gauge agrees.")

    build(BuildConfig(inputs=(archive,), output=site))

    after = inodes(site)
    others = [path for path in before if path.endswith(".html") and members[1].stem in path]
    assert others and [path for path in others if after[path] != before[path]] == []
    assert any(after[path] != before[path] for path in before if members[0].stem in path)
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_a_page_changed_by_hand_is_rendered_again_rather_than_reused(archive, tmp_path, rendered_bodies):
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    first_page = site / "projects" / "home-ada-src-tidewatch" / f"{LONG_SESSION}.html"
    page = first_page.read_text(encoding="utf-8")
    marker = '<div class="msg user"'
    assert marker in page
    first_page.unlink()  # a new file: the previous build's stays untouched under its hard links
    first_page.write_text(page.replace(marker, '<div class="msg user" data-edited=""', 1), encoding="utf-8")
    rendered_bodies.clear()
    append_reply(archive / TIDEWATCH / f"{LONG_SESSION}.jsonl", "A late answer: the tables are in UTC.")

    build(BuildConfig(inputs=(archive,), output=site))

    assert len(rendered_bodies) == 2, "the edited first page and the last page"
    assert "data-edited" not in first_page.read_text(encoding="utf-8")
    assert_same_as_fresh_build(archive, site, tmp_path)


def test_damaged_page_records_in_the_manifest_mean_the_pages_are_rendered(archive, tmp_path, rendered_bodies):
    """The output folder may come from anywhere: what its manifest says of a page is checked before use."""
    site = tmp_path / "site"
    build(BuildConfig(inputs=(archive,), output=site))
    manifest = json.loads((site / MANIFEST).read_bytes())
    damaged = 0
    for record in manifest["files"]:
        for path, made in record["page_bodies"].items():
            record["page_bodies"][path] = [made[0], [7, None], made[2], made[3], -5, "x"]
            damaged += 1
    assert damaged
    (site / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    rendered_bodies.clear()
    append_reply(archive / TIDEWATCH / f"{LONG_SESSION}.jsonl", "A late answer: the tables are in UTC.")

    build(BuildConfig(inputs=(archive,), output=site))

    assert len(rendered_bodies) > 4, "a full build"
    assert_same_as_fresh_build(archive, site, tmp_path)
