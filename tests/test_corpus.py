"""The real corpus: every session file written by Claude Code in ../shared/corpus/public builds, and nothing
said in it is lost: each prompt and each reply can be found in the visible text of the pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from generator.build import BuildConfig, build

from helpers import read_entries

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "public"
SESSION_FILES = sorted(CORPUS.rglob("*.jsonl")) if CORPUS.is_dir() else []
ARRAY_FILES = sorted(CORPUS.rglob("chat.json")) if CORPUS.is_dir() else []

pytestmark = pytest.mark.skipif(not SESSION_FILES, reason="../shared/corpus/public is not beside the repository")

# Text Claude Code injects and the pages deliberately leave out (shown with --show-hidden).
NOISE_PREFIXES = ("<command-", "<local-command-", "<bash-", "[Request interrupted by user",
                  "Caveat: The messages below")
SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
MARKDOWN_LINK_TARGET = re.compile(r'\]\([^()\s]*(?:\s+"[^"]*")?\)|<(?:https?|mailto):[^>]*>')
FENCE = re.compile(r"^((?:\s*>)*\s*(`{3,}|~{3,}))[^`]*$")
LIST_NUMBER = re.compile(r"^((?:\s*>)*\s*)\d{1,9}[.)](?=\s|$)")
WORD = re.compile(r"[^\W_]+")


def words(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def as_displayed(markdown: str) -> str:
    """Leave out what Markdown draws rather than prints: a fence's language, ordered-list numbers."""
    lines = []
    open_fence = ""
    for line in markdown.split("\n"):
        fence = FENCE.match(line)
        if fence and (not open_fence or fence.group(2).startswith(open_fence)):
            open_fence = "" if open_fence else fence.group(2)
            lines.append(fence.group(1))
        elif open_fence:
            lines.append(line)
        else:
            lines.append(LIST_NUMBER.sub(r"\1", line))
    return "\n".join(lines)


def said_in(entry: dict) -> list[str]:
    """Prompts and replies in one entry, as the user and the model wrote them."""
    if entry.get("type") not in ("user", "assistant") or entry.get("isMeta"):
        return []
    if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly"):
        return []
    message = entry.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            text = SYSTEM_REMINDER.sub("", part["text"]).strip()
            if entry.get("isApiErrorMessage") or not text or text.startswith(NOISE_PREFIXES):
                continue
            texts.append(as_displayed(MARKDOWN_LINK_TARGET.sub(" ", text)))
    return texts


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus") / "site"
    report = build(BuildConfig(inputs=tuple(SESSION_FILES + ARRAY_FILES), output=out))
    pages = sorted(out.rglob("*.html"))
    visible = " ".join(words(BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser").get_text(" "))
                       for p in pages)
    return out, report, visible


def test_the_whole_corpus_builds_without_unknowns_or_diagnostics(corpus_site):
    out, report, _ = corpus_site
    assert report.sessions >= 34
    assert (out / "index.html").is_file()
    assert report.unknown == {}, f"fell through to the generic fallback: {dict(report.unknown)}"
    assert report.diagnostics == []


@pytest.mark.parametrize("path", SESSION_FILES + ARRAY_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_prompt_and_reply_is_in_the_pages(corpus_site, path):
    _, _, visible = corpus_site
    missing = [text[:120] for entry in read_entries(path) for text in said_in(entry) if words(text) not in visible]
    assert missing == []
