"""The real corpus: every session file written by Claude Code in ../shared/corpus/public builds, and nothing
in it is lost: each prompt, reply, thinking block, continuation summary, tool call and tool result can be
found in the visible text of the pages.

What a file holds is read here independently of sessionsite (`helpers.read_entries`) and compared with the
words a reader sees: BeautifulSoup's text of the built pages, lower-cased, punctuation dropped. The one thing
borrowed from sessionsite is *where* to look for the newer checks: which pages were made from which file
(the source phase 1 records for each session), so text from a file is looked for in that file's own pages.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator

import pytest
from bs4 import BeautifulSoup

from generator import urls
from generator.build import BuildConfig, build
from generator.markdown.tools import INLINE_OUTPUT_LIMIT

from helpers import build_archive, read_entries, read_numbered_entries

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "public"
SESSION_FILES = sorted(CORPUS.rglob("*.jsonl")) if CORPUS.is_dir() else []
ARRAY_FILES = sorted(CORPUS.rglob("chat.json")) if CORPUS.is_dir() else []
ALL_FILES = SESSION_FILES + ARRAY_FILES

pytestmark = pytest.mark.skipif(not SESSION_FILES, reason="../shared/corpus/public is not beside the repository")

# Text Claude Code injects and the pages deliberately leave out (shown with --show-hidden).
NOISE_PREFIXES = ("<command-", "<local-command-", "<bash-", "[Request interrupted by user",
                  "Caveat: The messages below")
SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
MARKDOWN_LINK_TARGET = re.compile(r'\]\([^()\s]*(?:\s+"[^"]*")?\)|<(?:https?|mailto):[^>]*>')
FENCE = re.compile(r"^((?:\s*>)*\s*(`{3,}|~{3,}))[^`]*$")
LIST_NUMBER = re.compile(r"^((?:\s*>)*\s*)(\d{1,9})[.)](?=\s|$)")
LIST_ITEM = re.compile(r"^(?:\s*>)*\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
WORD = re.compile(r"[^\W_]+")
# More Markdown that draws rather than prints: an image shows as a picture (its alt text is no visible
# text), a task-list box as a checkbox, a link reference definition not at all, code-span backticks and
# emphasis asterisks not at all (they matter when glued to a word: `x`を, Pre**Post**). Table pipes and
# rules and heading hashes are not words, so they need nothing.
MARKDOWN_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
TASK_BOX = re.compile(r"^((?:\s*>)*\s*[-*+]\s+)\[[ xX]\](?=\s)")
LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*\S+.*$")
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
# Terminal colours and cursor moves in tool output (CSI, OSC and two-byte escapes) are not text.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# Claude Code wraps a refused tool call's message in this tag; the page shows the message as an error.
TOOL_USE_ERROR_TAG = re.compile(r"</?tool_use_error>")

# How much of a value shown in a one-line summary is compared: the summary may cut it with "…".
SUMMARY_PREFIX = 60
# Snippets quoted in failure messages, and how many of them.
SNIPPET = 120
SHOWN_PER_KIND = 2
SHOWN_AT_MOST = 12


def words(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def as_displayed(markdown: str) -> str:
    """Leave out what Markdown draws rather than prints: a fence's language, ordered-list numbers (where
    the line does start a list item: a number other than 1 cannot interrupt a paragraph), task-list boxes,
    link reference definitions, code-span backticks, emphasis asterisks."""
    lines = []
    open_fence = ""
    in_list, after_blank = False, True
    for line in markdown.split("\n"):
        fence = FENCE.match(line)
        if fence and (not open_fence or fence.group(2).startswith(open_fence)):
            open_fence = "" if open_fence else fence.group(2)
            lines.append(fence.group(1))
            after_blank = False
            continue
        if open_fence:
            lines.append(line)
            continue
        number = LIST_NUMBER.match(line)
        if number and (after_blank or in_list or int(number.group(2)) == 1):
            line = line[: number.start(2)] + line[number.end(2) + 1 :]
        if LIST_ITEM.match(line) or number:
            in_list = True
        elif line.strip() and after_blank and not line.startswith((" ", "\t")):
            in_list = False
        after_blank = not line.strip()
        line = TASK_BOX.sub(r"\1", line)
        lines.append("" if LINK_DEFINITION.match(line) else _without_inline_marks(line))
    return "\n".join(lines)


def _without_inline_marks(line: str) -> str:
    pieces, position = [], 0
    for span in CODE_SPAN.finditer(line):
        pieces += [line[position : span.start()].replace("*", ""), span.group(2)]
        position = span.end()
    pieces.append(line[position:].replace("*", ""))
    return "".join(pieces)


def displayed_markdown(text: str) -> str:
    """Markdown source as the words a reader of the rendered page sees: no link targets or images."""
    return as_displayed(MARKDOWN_LINK_TARGET.sub(" ", MARKDOWN_IMAGE.sub(" ", text)))


# "Implement the following plan:" -- accepting a plan with a fresh context starts a session whose first
# message wraps the plan: this preamble, the plan, and a closing note pointing at the old transcript on the
# user's disk. The wrapper is hidden by design when a plan card shows the plan; the plan itself must show.
PLAN_PREAMBLE = "Implement the following plan:"
PLAN_CLOSING_NOTE = re.compile(r"\n\s*If you need specific details from before exiting plan mode\b.*\Z", re.S)


def plan_inside_preamble(text: str) -> str | None:
    stripped = text.strip()
    if not stripped.startswith(PLAN_PREAMBLE):
        return None
    return PLAN_CLOSING_NOTE.sub("", stripped[len(PLAN_PREAMBLE):])


def said_in(entry: dict) -> list[str]:
    """Prompts and replies in one entry, as the user and the model wrote them."""
    if entry.get("type") not in ("user", "assistant") or entry.get("isMeta"):
        return []
    if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly"):
        return []  # continuation summaries are checked on their own, below
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
            plan = plan_inside_preamble(text) if entry.get("type") == "user" else None
            texts.append(displayed_markdown(plan if plan is not None else text))
    return texts


# ---------------------------------------------------------------------------------------------------------
# What each file should show: thinking, tool calls, tool results, continuation summaries


@dataclass(frozen=True)
class Text:
    """One piece of text as it should read on the page, and its words."""

    source: str
    words: str

    @staticmethod
    def of(source: str) -> "Text":
        return Text(source, words(source))


@dataclass(frozen=True)
class Expected:
    """Something a page must show. It is found when, for one of `forms`, every text of that form is."""

    line: int
    """Line of the corpus file (or position in a JSON array) it comes from."""
    what: str
    """What it is, e.g. "Bash result" or "thinking"."""
    forms: tuple[tuple[Text, ...], ...]
    full_output_ok: bool = False
    """A very long tool result may be found in a linked "Full output" file instead of the page."""


def expect(line: int, what: str, *sources: str, markdown: bool = True, json_escaped: bool = False,
           full_output_ok: bool = False, alternatives: Iterable[tuple[str, ...]] = ()) -> list[Expected]:
    """Expect `sources` on the page, each as written, or (markdown) as rendered Markdown reads, or
    (json_escaped) as shown inside a JSON block; or else any one of `alternatives` (all its texts)."""
    forms: list[tuple[Text, ...]] = []
    for source in sources:
        variants = [source]
        if markdown:
            variants.append(displayed_markdown(source))
        if json_escaped:
            variants.append(json.dumps(source, ensure_ascii=False)[1:-1])
        texts = [Text.of(v) for v in dict.fromkeys(variants)]
        texts = [t for t in texts if t.words]
        if not texts:
            continue
        forms.extend((t,) for t in texts)
    forms.extend(tuple(Text.of(s) for s in alternative) for alternative in alternatives)
    return [Expected(line, what, tuple(forms), full_output_ok)] if forms else []


def _string_leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if value.strip():
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _string_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _string_leaves(item)


def _first_line(value: str) -> str:
    return value.strip().split("\n", 1)[0]


def _shown_paths(path: str, cwds: tuple[str, ...]) -> list[str]:
    """A path as a summary may show it: relative to the session's folder when inside it. Which folder is
    the session's is sessionsite's choice when the file moves between several, so any of them will do,
    as does the path in full."""
    shown = []
    for cwd in cwds:
        base = cwd.rstrip("/\\")
        separator = "\\" if "\\" in cwd else "/"
        if base and path.startswith(base + separator):
            shown.append(path[len(base) + 1:])
    return [*shown, path]


# Tools whose boilerplate result the page may replace by what it means (plan status, answers, checklist):
# for them the meaningful content is checked instead of the result's text.
PLAN_TOOLS = frozenset({"ExitPlanMode", "exit_plan_mode"})
BOILERPLATE_RESULTS = frozenset({"AskUserQuestion", "TodoWrite", "TaskCreate", "TaskUpdate"})
# Claude reading back its own task list tells the reader nothing new: calls and results are kept quiet.
QUIET_TOOLS = frozenset({"TaskList", "TaskGet"})
# A rejected call's result ends with what the user said instead; that part is meaningful.
USER_SAID = "the user said:"
READ_EMPTY_LAST_LINES = re.compile(r"(?:\n *\d+(?:→|\t)[ \t]*)+\Z")
# Said as the whole result of a call the user interrupted: noise the page shows as an interruption.
INTERRUPTED_FOR_TOOL = "[Request interrupted by user for tool use]"

# Tool names as generator/markdown/tools.py shows them, where they differ from the name itself.
LABELS = {"TodoWrite": "Todo list", "TaskCreate": "New task", "TaskUpdate": "Task update",
          "ExitPlanMode": "Plan", "exit_plan_mode": "Plan", "AskUserQuestion": "Question",
          "EnterPlanMode": "Plan mode"}
# The input value a one-line summary shows after the name, by tool (generic tools: the first string).
TARGETS = {"Bash": "command", "PowerShell": "command", "Read": "file_path", "Write": "file_path",
           "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path", "Glob": "pattern",
           "Grep": "pattern", "LS": "path", "WebSearch": "query", "WebFetch": "url", "Task": "description",
           "Agent": "description", "TaskCreate": "subject", "ToolSearch": "query", "KillBash": "shell_id",
           "KillShell": "shell_id", "BashOutput": "bash_id", "TaskOutput": "task_id"}
PATH_TARGETS = frozenset({"file_path", "notebook_path", "path"})
# Input values shown in full in the folded body, by tool, and whether they are rendered as Markdown.
BODY_VALUES = {"Bash": {"command": False, "description": True}, "PowerShell": {"command": False, "description": True},
               "Write": {"content": False}, "NotebookEdit": {"new_source": False},
               "WebFetch": {"prompt": True}, "Task": {"prompt": True}, "Agent": {"prompt": True},
               "TaskCreate": {"description": True}, "Skill": {"args": True}}
# Tools with their own renderer whose other inputs are options (limits, flags, offsets), not content. Edit
# and MultiEdit show their change as a diff whose lines interleave, so old and new text are not compared as
# one sequence here (tests/test_pages.py checks diffs).
OWN_RENDERER = frozenset({"Bash", "PowerShell", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob",
                          "Grep", "LS", "WebSearch", "WebFetch", "Task", "Agent", "Skill", "TodoWrite",
                          "TaskCreate", "AskUserQuestion", "EnterPlanMode", *PLAN_TOOLS})


def _label(name: str, tool_input: dict) -> str:
    if name in ("Task", "Agent"):
        kind = tool_input.get("subagent_type")
        return f"{name} · {kind}" if isinstance(kind, str) and kind else name
    if name.startswith("mcp__"):
        _, server, tool = (name.split("__", 2) + ["", ""])[:3]
        return f"{server} · {tool}" if tool else name
    return LABELS.get(name, name)


def call_expectations(line: int, name: str, tool_input: dict, cwds: tuple[str, ...]) -> list[Expected]:
    """A tool call: its name as shown with the start of its main input value, and its content."""
    if name in QUIET_TOOLS:
        return []
    what = f"{name} call"
    label = _label(name, tool_input)
    key = TARGETS.get(name)
    if name == "Skill":
        target = tool_input.get("skill") or tool_input.get("command")
    elif name == "TaskUpdate":
        target = f"#{tool_input.get('taskId', '')}"
    elif key:
        target = tool_input.get(key) or (tool_input.get("notebook_path") if key == "file_path" else None)
    elif name in OWN_RENDERER:
        target = None
    else:
        target = next((v for v in tool_input.values() if isinstance(v, str) and v.strip()), None)
    found: list[Expected] = []
    if isinstance(target, str) and target.strip():
        shown = _shown_paths(target, cwds) if key in PATH_TARGETS else [target]
        found += expect(line, what, alternatives=[(f"{label} {_first_line(s)[:SUMMARY_PREFIX]}",) for s in shown])
    else:
        found += expect(line, what, label, markdown=False)
    for field, is_markdown in BODY_VALUES.get(name, {}).items():
        if isinstance(tool_input.get(field), str):
            found += expect(line, f"{name} {field}", tool_input[field], markdown=is_markdown)
    if name in PLAN_TOOLS and isinstance(tool_input.get("plan"), str):
        found += expect(line, "plan", tool_input["plan"])
    elif name == "TodoWrite":
        for todo in tool_input.get("todos") or []:
            if isinstance(todo, dict) and isinstance(todo.get("content"), str):
                # activeForm is the same item in the present tense, for the spinner: not content.
                found += expect(line, "todo item", " ".join(todo["content"].split()))
    elif name == "AskUserQuestion":
        for question in tool_input.get("questions") or []:
            if isinstance(question, dict):
                for text in _string_leaves({k: v for k, v in question.items() if k != "multiSelect"}):
                    found += expect(line, "question", text)
    elif name == "TaskUpdate":
        for text in _string_leaves({k: v for k, v in tool_input.items() if k not in ("taskId", "activeForm")}):
            found += expect(line, "TaskUpdate input", text)
    elif name not in OWN_RENDERER:
        # Other tools show their input as JSON: a value may read as written or JSON-escaped.
        for text in _string_leaves(tool_input):
            found += expect(line, f"{name} input", text, markdown=False, json_escaped=True)
    return found


def result_text(content: Any) -> str:
    """A tool result's content as text: its text parts; other parts (a loaded tool's reference) by their
    string values. Images and documents are not text."""
    if isinstance(content, str):
        return content
    pieces = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict) and part.get("type") == "text":
            pieces.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") not in ("image", "document"):
            pieces.extend(_string_leaves({k: v for k, v in part.items() if k != "type"}))
    return "\n".join(pieces)


def result_expectations(line: int, name: str, part: dict, structured: Any) -> list[Expected]:
    """A tool result: its text, unless the tool's result is boilerplate the page says differently."""
    text = result_text(part.get("content"))
    text = TOOL_USE_ERROR_TAG.sub("", ANSI_ESCAPE.sub("", SYSTEM_REMINDER.sub("", text))).strip()
    what = f"{name} result"
    if not text or name in QUIET_TOOLS or text == INTERRUPTED_FOR_TOOL:
        return []
    said = text.split(USER_SAID, 1)[1] if USER_SAID in text else None
    if name in PLAN_TOOLS:
        # Approval or rejection shows as the plan's status; what the user said when rejecting must show.
        return expect(line, "plan feedback", said) if said else []
    if name in BOILERPLATE_RESULTS:
        if said:
            return expect(line, f"{name} feedback", said)
        answers = structured.get("answers") if isinstance(structured, dict) else None
        if name == "AskUserQuestion" and isinstance(answers, dict):
            found = []
            for answer in answers.values():
                if isinstance(answer, str):
                    # Several options picked read "A, B": each may be marked on its own option.
                    pieces = tuple(p.strip() for p in answer.split(",") if p.strip())
                    found += expect(line, "answer", answer, alternatives=[pieces] if len(pieces) > 1 else ())
            return found
        if name == "AskUserQuestion" or part.get("is_error") is True:
            return expect(line, what, text)
        return []  # "Todos have been modified successfully…", "Task #1 created successfully: …"
    if name == "Read":
        # Claude Code numbers the empty "line" after a file's last newline; a page may leave that out.
        text = READ_EMPTY_LAST_LINES.sub("", text)
    return expect(line, what, text, full_output_ok=len(text) > INLINE_OUTPUT_LIMIT)


def summary_expectations(line: int, entry: dict) -> list[Expected]:
    """A continuation summary (isCompactSummary): folded on the page, but there."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text = content if isinstance(content, str) else result_text(content)
    return expect(line, "continuation summary", text.strip())


@lru_cache(maxsize=None)
def expectations(path: Path) -> dict[str, list[Expected]]:
    """Everything one corpus file should show, by kind: thinking, call, result, summary.

    Left out by design: isMeta entries (text Claude Code adds for the model, e.g. skill bodies and
    caveats; shown with --show-hidden) and API error messages (shown as notices)."""
    numbered = read_numbered_entries(path)
    cwds = tuple(dict.fromkeys(e["cwd"] for _, e in numbered if isinstance(e.get("cwd"), str) and e["cwd"]))
    found: dict[str, list[Expected]] = {"thinking": [], "call": [], "result": [], "summary": []}
    calls: dict[str, tuple[str, dict]] = {}
    for line, entry in numbered:
        message = entry.get("message")
        if entry.get("type") not in ("user", "assistant") or entry.get("isMeta") or not isinstance(message, dict):
            continue
        if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly"):
            found["summary"] += summary_expectations(line, entry)
            continue
        content = message.get("content")
        if entry.get("isApiErrorMessage") or not isinstance(content, list):
            continue
        for part in content:
            if not isinstance(part, dict):
                continue
            if entry["type"] == "assistant" and part.get("type") == "thinking":
                thought = part.get("thinking")
                if isinstance(thought, str) and thought.strip():
                    found["thinking"] += expect(line, "thinking", thought)
            elif entry["type"] == "assistant" and part.get("type") == "tool_use":
                name = str(part.get("name", ""))
                tool_input = part["input"] if isinstance(part.get("input"), dict) else {"input": part.get("input")}
                calls[str(part.get("id", ""))] = (name, tool_input)
                found["call"] += call_expectations(line, name, tool_input, cwds)
            elif entry["type"] == "user" and part.get("type") == "tool_result":
                name, tool_input = calls.get(str(part.get("tool_use_id", "")), ("(unknown tool)", {}))
                structured = entry.get("toolUseResult")
                found["result"] += result_expectations(line, name, part, structured)
                plan = structured.get("plan") if isinstance(structured, dict) else None
                if name in PLAN_TOOLS and not isinstance(tool_input.get("plan"), str) and isinstance(plan, str):
                    found["call"] += expect(line, "plan", plan)  # newer versions put the plan in the result
    return found


# ---------------------------------------------------------------------------------------------------------
# The built site, once per module


@dataclass(frozen=True)
class Pages:
    """The pages made from one corpus file."""

    names: tuple[str, ...]
    """Their paths in the site."""
    visible: str
    """Their visible text, as words."""
    full_outputs: tuple[str, ...]
    """The "Full output" text files linked from them, as words."""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus") / "site"
    report = build(BuildConfig(inputs=tuple(ALL_FILES), output=out))
    page_words = {page.relative_to(out).as_posix(): visible_words(page.read_text(encoding="utf-8"))
                  for page in sorted(out.rglob("*.html"))}
    return out, report, page_words


# Elements inside a line of text: no space between them, so a word split over several (a highlighted token,
# a link inside a word) reads whole. Every other element, and a line number in code, stands apart.
INLINE_TAGS = frozenset({"a", "abbr", "b", "code", "del", "em", "i", "kbd", "mark", "q", "s", "small", "span",
                         "strong", "sub", "sup", "time", "u"})


def visible_words(html: str) -> str:
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(["script", "style", "template"]):
        tag.decompose()
    for tag in soup.find_all(True):
        if tag.name not in INLINE_TAGS or "linenos" in (tag.get("class") or ()):
            tag.insert_before(" ")
            tag.insert_after(" ")
    return words(soup.get_text())


@pytest.fixture(scope="module")
def corpus_site(built):
    out, report, page_words = built
    return out, report, " ".join(page_words.values())


@pytest.fixture(scope="module")
def pages_of(built) -> dict[Path, Pages]:
    """Each corpus file's pages: its session's, and those of subagent runs read from inside it."""
    out, _, page_words = built
    names: dict[Path, list[str]] = {}
    for session in build_archive(*ALL_FILES).sessions.values():
        names.setdefault(Path(session.source).resolve(), []).append(urls.session_page(session.key))
    found = {}
    for path, pages in names.items():
        outputs = []
        for page in pages:
            folder = out / (page[: -len(".html")] + ".files")  # where a page's own files go
            outputs += [words(f.read_text(encoding="utf-8", errors="replace"))
                        for f in (sorted(folder.glob("*.txt")) if folder.is_dir() else [])]
        found[path] = Pages(tuple(pages), " ".join(page_words.get(p, "") for p in pages), tuple(outputs))
    return found


# ---------------------------------------------------------------------------------------------------------
# Checking, and saying what is missing


def _is_found(expected: Expected, places: list[str]) -> bool:
    return any(all(any(text.words in place for place in places) for text in form) for form in expected.forms)


def _places(expected: Expected, pages: Pages) -> list[str]:
    return [pages.visible, *(pages.full_outputs if expected.full_output_ok else ())]


def _found_prefix(text: Text, places: list[str]) -> int:
    """How many of the text's first words are found in one place, in order."""
    sequence = text.words.split(" ")
    low, high = 0, len(sequence)
    while low < high:
        middle = (low + high + 1) // 2
        if any(" ".join(sequence[:middle]) in place for place in places):
            low = middle
        else:
            high = middle - 1
    return low


def _snippet(expected: Expected, pages: Pages, page_words: dict[str, str]) -> str:
    """Where the best form of the text stops being found, quoted from there (at most SNIPPET chars)."""
    places = _places(expected, pages)
    best, best_found = None, -1
    for form in expected.forms:
        for text in form:
            count = _found_prefix(text, places)
            if not any(text.words in place for place in places) and count > best_found:
                best, best_found = text, count
    assert best is not None
    total = len(best.words.split(" "))
    starts = [m.start() for m in WORD.finditer(best.source)]
    start = starts[best_found] if best_found < len(starts) else 0
    quoted = " ".join(best.source[start:].split())
    quoted = quoted if len(quoted) <= SNIPPET else quoted[: SNIPPET - 1] + "…"
    where = "not found at all" if best_found == 0 else f"found up to word {best_found} of {total}, then"
    elsewhere = [name for name, visible in page_words.items()
                 if name not in pages.names and best.words in visible][:2]
    also = f" (but it is on {', '.join(elsewhere)})" if elsewhere else ""
    return f"{where}: «{quoted}»{also}"


def check(path: Path, kind: str, description: str, pages_of: dict[Path, Pages], built) -> None:
    expected = expectations(path)[kind]
    if not expected:
        pytest.skip(f"no {description} in this file")
    pages = pages_of.get(path.resolve(), Pages((), "", ()))
    missing = [e for e in expected if not _is_found(e, _places(e, pages))]
    if not missing:
        return
    _, _, page_words = built
    kinds = Counter(e.what for e in missing)
    lines = [f"{path.relative_to(CORPUS)}: {len(missing)} of {len(expected)} {description} are not in its pages "
             f"({', '.join(pages.names) or 'no pages were made from it'})",
             "  missing: " + ", ".join(f"{what} ×{count}" for what, count in kinds.most_common())]
    shown: Counter[str] = Counter()
    for e in missing:
        if shown[e.what] >= SHOWN_PER_KIND or sum(shown.values()) >= SHOWN_AT_MOST:
            continue
        shown[e.what] += 1
        lines.append(f"  line {e.line}, {e.what}: {_snippet(e, pages, page_words)}")
    pytest.fail("\n".join(lines), pytrace=False)


# ---------------------------------------------------------------------------------------------------------
# The tests


def test_the_whole_corpus_builds_without_unknowns_or_diagnostics(corpus_site):
    out, report, _ = corpus_site
    assert report.sessions >= 34
    assert (out / "index.html").is_file()
    assert report.unknown == {}, f"fell through to the generic fallback: {dict(report.unknown)}"
    assert report.diagnostics == []


FILE_IDS = {"ids": lambda p: str(p.relative_to(CORPUS))}


@pytest.mark.parametrize("path", ALL_FILES, **FILE_IDS)
def test_every_prompt_and_reply_is_in_the_pages(corpus_site, path):
    _, _, visible = corpus_site
    missing = [text[:120] for entry in read_entries(path) for text in said_in(entry) if words(text) not in visible]
    assert missing == []


@pytest.mark.parametrize("path", ALL_FILES, **FILE_IDS)
def test_every_thinking_block_is_in_the_pages(pages_of, built, path):
    check(path, "thinking", "thinking blocks", pages_of, built)


@pytest.mark.parametrize("path", ALL_FILES, **FILE_IDS)
def test_every_continuation_summary_is_in_the_pages(pages_of, built, path):
    check(path, "summary", "continuation summaries", pages_of, built)


@pytest.mark.parametrize("path", ALL_FILES, **FILE_IDS)
def test_every_tool_call_is_in_the_pages(pages_of, built, path):
    """Each call's name as shown with the start of its main input, and what it asked: a command, a file
    written, a prompt, a plan, questions, todo items, other tools' input values."""
    check(path, "call", "tool call expectations", pages_of, built)


@pytest.mark.parametrize("path", ALL_FILES, **FILE_IDS)
def test_every_tool_result_is_in_the_pages(pages_of, built, path):
    """Each result's text (a very long one may be in its linked Full output file instead), or for plans,
    questions and task lists what it meant: the answers, what the user said when rejecting."""
    check(path, "result", "tool results", pages_of, built)
