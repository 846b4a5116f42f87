"""Known attack vectors in every field of a transcript that reaches a page: nothing may run, nothing may
become markup, and every payload must still be readable as the text it is.

For each vector of tests/attacks.py this builds one project (its cwd and branch carry the vector) with three
sessions shaped like Claude Code's own files: session A carries the vector in every message-level field
(prompt, reply, thinking, each tool's inputs and outputs, slash commands, bash mode, notices, unknown
entries...); sessions B and C share the vector as their slug (so they make a chain) and take it as their
custom title (B) and summary title (C). Titles live in their own sessions because a title that breaks the
page would otherwise hide what every other field does. The site is built once; then headless Chromium
loads every page (opening every <details>, focusing everything focusable) and checks the DOM, and
BeautifulSoup checks that each payload is still there as text, in the element of the page that shows
that field, and that sessionsite's own structure around it is intact.
"""

from __future__ import annotations

import base64
import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest
from bs4 import BeautifulSoup, Comment, Doctype, NavigableString, Tag

from generator.core import urls
from generator.build import BuildConfig, build

from attacks import VECTORS, Vector
from helpers import PNG_BYTES, assistant, at, chain, custom_title, summary, system, text, thinking, tool_result, \
    tool_use, user, write_jsonl

FIRST_MESSAGE = "Start of the transcript: a plain first prompt."
LAST_MESSAGE = "End of the transcript: the last reply."
SAFE = "nothing to see here"

# ---------------------------------------------------------------------------------------------------------
# Where each field shows, and how its text must read there


@dataclass(frozen=True)
class Check:
    """`field` of vector `vector` must be readable in `css` (minus `exclude`) on page `page`.

    mode: "verbatim" (the whole payload, whitespace runs counted as one space), "prose" (the vector's
    needles: Markdown fields may consume the payload's own Markdown syntax), "lines" (each non-blank line:
    code shown with line numbers or diff marks in front), "json" (the payload as a JSON string, in a JSON
    dump), "mcp" (the payload as the server part of an MCP tool name, shown `server · tool`)."""

    vector: int
    field: str
    page: str
    css: str
    mode: str
    exclude: tuple[str, ...] = ()


def project_dir(vector: Vector) -> str:
    return f"-home-ada-src-attack-{vector.n:02d}"


def session_id(vector: Vector, which: str) -> str:
    return f"{which.lower()}{vector.n:07d}-0000-4000-8000-00000000a77c"


def page_path(vector: Vector, page: str) -> str:
    if page == "index":
        return urls.INDEX
    if page == "project":
        return urls.project_page(project_dir(vector))
    return urls.session_page(f"{project_dir(vector)}/{session_id(vector, page)}")


class Transcript:
    """Session A of one vector: entries shaped like Claude Code's, and where each field must show."""

    def __init__(self, vector: Vector):
        self.vector = vector
        self.p = vector.payload
        self.cwd = f"/home/ada/src/attack-{vector.n:02d}/{self.p}"
        self.entries: list[dict] = []
        self.checks: list[Check] = []
        self.tools = 0
        self.tool_anchors: list[str] = []
        """Ids of the tool calls' <details>."""
        self.plan_anchors: list[str] = []
        """Ids of the plans (ExitPlanMode calls are shown as plans)."""
        self.anchors: list[str] = []
        """Ids of the other blocks sessionsite writes for this transcript (prompts, notices...)."""

    def env(self, **more: Any) -> dict[str, Any]:
        return {"cwd": self.cwd, "sessionId": session_id(self.vector, "A"), "slug": "attack-fields",
                "gitBranch": self.p, **more}

    def check(self, field: str, css: str, mode: str, page: str = "A", exclude: tuple[str, ...] = ()) -> None:
        self.checks.append(Check(self.vector.n, field, page, css, mode, exclude))

    def add(self, entry: dict) -> dict:
        self.entries.append(entry)
        return entry

    def prompt(self, content: str | list, **fields: Any) -> str:
        anchor = "e-" + self.add(user(content, **self.env(**fields)))["uuid"]
        self.anchors.append(anchor)
        return "#" + anchor

    def reply(self, *parts: dict, **fields: Any) -> dict:
        return self.add(assistant(*parts, **self.env(**fields)))

    def tool(self, name: str, tool_input: dict, result: str | list, *, is_error: bool = False,
             structured: Any = None) -> str:
        self.tools += 1
        tool_id = f"toolu_01Attack{self.vector.n:02d}x{self.tools:03d}"
        self.reply(tool_use(name, tool_input, tool_id))
        self.add(tool_result(tool_id, result, is_error=is_error, structured=structured, **self.env()))
        (self.plan_anchors if name == "ExitPlanMode" else self.tool_anchors).append(f"e-{tool_id}")
        return f"#e-{tool_id}"

    # -- the fields ------------------------------------------------------------------------------------

    def build(self) -> list[dict]:
        p = self.p
        body = ("summary",)
        self.prompt(FIRST_MESSAGE)
        self.reply(text("A plain first reply."))

        self.check("prompt", self.prompt(p), "prose", exclude=("p.meta",))
        reply = self.reply(text(p))
        wrapper = f"#m-{reply['uuid']}-0"
        self.check("assistant_text", wrapper, "prose", exclude=("p.meta", "details", "div.plan"))
        self.check("thinking", f"#e-{self.reply(thinking(p))['uuid']}-0", "prose", exclude=body)

        self.check("bash_command", self.tool("Bash", {"command": p, "description": "Run it"}, SAFE,
                                             structured={"stdout": SAFE, "stderr": "", "interrupted": False}),
                   "verbatim", exclude=body)
        self.check("bash_description", self.tool("Bash", {"command": "ls", "description": p}, SAFE), "prose",
                   exclude=body)
        self.check("bash_output", self.tool("Bash", {"command": "cat notes.txt", "description": "Show it"}, p,
                                            structured={"stdout": p, "stderr": "", "interrupted": False}),
                   "verbatim", exclude=body)

        numbered_safe = f"     1\u2192{SAFE}\n"
        self.check("read_file_path", self.tool("Read", {"file_path": f"/srv/app/{p}"}, numbered_safe) + " summary code",
                   "verbatim")
        numbered = "".join(f"{number:>6}\u2192{line}\n" for number, line in enumerate(p.split("\n"), start=1))
        self.check("read_output", self.tool("Read", {"file_path": "/srv/app/notes.txt"}, numbered,
                                            structured={"type": "text", "file": {"filePath": "/srv/app/notes.txt",
                                                                                 "content": p}}),
                   "lines", exclude=body)

        for field, old, new in (("edit_old_string", p, SAFE), ("edit_new_string", SAFE, p)):
            lines = [line for line in difflib.unified_diff(old.split("\n"), new.split("\n"), lineterm="", n=3)
                     if not line.startswith(("---", "+++", "@@"))]
            patch = [{"oldStart": 1, "oldLines": old.count("\n") + 1, "newStart": 1,
                      "newLines": new.count("\n") + 1, "lines": lines}]
            self.check(field, self.tool(
                "Edit", {"file_path": "/srv/app/page.html", "old_string": old, "new_string": new},
                "The file /srv/app/page.html has been updated.",
                structured={"filePath": "/srv/app/page.html", "oldString": old, "newString": new,
                            "originalFile": old, "structuredPatch": patch, "userModified": False,
                            "replaceAll": False}), "lines", exclude=body)

        self.check("write_content", self.tool("Write", {"file_path": "/srv/app/page.html", "content": p},
                                              "File created successfully at: /srv/app/page.html"),
                   "verbatim", exclude=body)
        self.check("write_file_path", self.tool("Write", {"file_path": f"/srv/app/{p}", "content": SAFE},
                                                f"File created successfully at: /srv/app/{p}") + " summary code",
                   "verbatim")

        self.check("mcp_tool_name", self.tool(f"mcp__{p}__x", {"query": SAFE}, SAFE) + " summary .tool-name", "mcp")
        self.check("unknown_tool_name", self.tool(p, {"query": SAFE}, SAFE) + " summary .tool-name", "verbatim")
        self.check("tool_input_json", self.tool("mcp__attacks__inspect", {"value": p}, SAFE), "json", exclude=body)
        self.check("tool_output", self.tool("mcp__attacks__inspect", {"value": SAFE}, p), "verbatim", exclude=body)
        self.check("tool_error", self.tool("Bash", {"command": "make", "description": "Build"}, p, is_error=True),
                   "verbatim", exclude=body)

        self.check("grep_pattern", self.tool("Grep", {"pattern": p, "path": "/srv/app", "output_mode": "content"},
                                             "No matches found") + " summary code", "verbatim")
        self.check("webfetch_url", self.tool("WebFetch", {"url": p, "prompt": "Summarise the page"},
                                             "The page is empty.") + " summary code", "verbatim")
        self.check("webfetch_result", self.tool("WebFetch", {"url": "https://example.com/", "prompt": "Summarise"},
                                                p), "prose", exclude=body)

        self.check("webfetch_prompt", self.tool("WebFetch", {"url": "https://example.com/", "prompt": p},
                                                "The page is empty."), "prose", exclude=body)

        agent = {"description": "Explore", "prompt": "Look around", "subagent_type": "general-purpose"}
        self.check("agent_description", self.tool("Task", {**agent, "description": p}, "Done.") + " summary code",
                   "verbatim")
        self.check("agent_type", self.tool("Task", {**agent, "subagent_type": p}, "Done.") + " summary .tool-name",
                   "verbatim")
        self.check("agent_prompt", self.tool("Task", {**agent, "prompt": p}, "Done."), "prose", exclude=body)
        self.check("agent_result", self.tool("Task", agent, [{"type": "text", "text": p}]), "prose", exclude=body)

        todos = [{"content": p, "status": "in_progress", "activeForm": "Working"},
                 {"content": SAFE, "status": "pending", "activeForm": "Waiting"}]
        self.check("todo_item", self.tool("TodoWrite", {"todos": todos},
                                          "Todos have been modified successfully.",
                                          structured={"oldTodos": [], "newTodos": todos}), "prose", exclude=body)

        self.check("task_description", self.tool(
            "TaskCreate", {"subject": SAFE, "description": p, "activeForm": "Creating"},
            f"Task #1 created successfully: {SAFE}", structured={"task": {"id": "1", "subject": SAFE}}),
            "prose", exclude=body)
        created = self.tool("TaskCreate", {"subject": p, "description": SAFE, "activeForm": "Creating"},
                            f"Task #2 created successfully: {p}", structured={"task": {"id": "2", "subject": p}})
        self.check("task_subject", created + " summary code", "verbatim")
        self.check("task_subject_checklist", created, "prose", exclude=body)

        self.question("question_text", question=p)
        self.question("question_option_label", label=p, answer=p)
        self.question("question_option_description", description=p)
        self.question("question_typed_answer", answer=p)

        approved = self.tool("ExitPlanMode", {"plan": p},
                             "User has approved your plan. You can now start coding. Start with updating your todo "
                             "list if applicable")
        self.check("plan_text", approved, "prose", exclude=("p.plan-head",))
        rejected = self.tool(
            "ExitPlanMode", {"plan": SAFE},
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n" + p,
            is_error=True)
        self.check("plan_rejection_feedback", rejected + " blockquote", "prose")

        png = base64.b64encode(PNG_BYTES).decode()
        self.check("image_media_type", self.prompt(
            [{"type": "image", "source": {"type": "base64", "media_type": p, "data": png}}]), "prose",
            exclude=("p.meta",))
        self.check("image_source_url", self.prompt(
            [{"type": "image", "source": {"type": "url", "url": p}}]), "verbatim", exclude=("p.meta",))

        self.check("slash_command_args", self.prompt(
            f"<command-message>review</command-message>\n<command-name>/review</command-name>\n"
            f"<command-args>{p}</command-args>"), "verbatim")
        self.add(user(f"<local-command-stdout>{SAFE}</local-command-stdout>", **self.env()))
        command = self.prompt("<command-name>/cost</command-name>\n<command-message>cost</command-message>\n"
                              "<command-args></command-args>")
        self.add(user(f"<local-command-stdout>{p}</local-command-stdout>", **self.env()))
        self.check("slash_command_output", command + " + details.command-output", "verbatim", exclude=body)

        self.check("bash_mode_input", self.prompt(f"<bash-input>{p}</bash-input>") + " pre", "verbatim")
        self.add(user(f"<bash-stdout>{SAFE}</bash-stdout><bash-stderr></bash-stderr>", **self.env()))
        bash_mode = self.prompt("<bash-input>cat notes.txt</bash-input>")
        self.add(user(f"<bash-stdout>{p}</bash-stdout><bash-stderr></bash-stderr>", **self.env()))
        self.check("bash_mode_output", bash_mode, "verbatim", exclude=("p.meta",))

        notice = "e-" + self.add(system("away_summary", p, **self.env()))["uuid"]
        self.anchors.append(notice)
        self.check("system_notice", "#" + notice, "verbatim")
        self.add({"type": "queue-operation", "operation": "remove", "timestamp": at(10_000),
                  "sessionId": session_id(self.vector, "A"), "content": p})
        self.check("queued_message_removed", ".notice-queue-removed", "verbatim")

        # Of a new type, and with a message: possibly conversation, so shown (one with none is bookkeeping,
        # hidden unless --show-hidden).
        unknown = self.add({**user("x", **self.env()), "type": "mystery-event", "detail": p, "nested": {"list": [p]}})
        self.check("unknown_entry_fields", f"#e-{unknown['uuid']}", "json", exclude=body)
        self.anchors.append(f"e-{unknown['uuid']}")
        odd = self.add({**user("x", **self.env()), "type": p, "detail": SAFE})
        self.check("unknown_entry_type", f"#e-{odd['uuid']}" + " summary code", "verbatim")
        self.anchors.append(f"e-{odd['uuid']}")

        self.prompt("Which model answered?")
        model_reply = self.reply(text("This one."), model=p)
        self.check("model_name", f"#m-{model_reply['uuid']}-0 p.meta .model", "verbatim")

        self.prompt("Last question.")
        self.reply(text(LAST_MESSAGE))

        self.check("cwd", "fact:Directory", "verbatim")
        self.check("cwd", ".page-path", "verbatim", page="project")
        self.check("cwd", f'a.card-title[href^="{urls.project_folder(project_dir(self.vector))}/"]', "verbatim",
                   page="index")
        self.check("git_branch", "fact:Branch", "verbatim")
        self.check("git_branch", ".tag.branch", "verbatim", page="project")
        return chain(*self.entries)

    def question(self, field: str, question: str = "Which way?", label: str = "The safe way",
                 description: str = "Take the safe way", answer: str = "The safe way") -> None:
        questions = [{"question": question, "header": "Choice", "multiSelect": False,
                      "options": [{"label": label, "description": description},
                                  {"label": "The other way", "description": "Take the other way"}]}]
        where = self.tool("AskUserQuestion", {"questions": questions},
                          f'User has answered your questions: "{question}"="{answer}". You can now continue with '
                          "the user's answers in mind.",
                          structured={"questions": questions, "answers": {question: answer}})
        self.check(field, where, "prose", exclude=("summary",))

    def titled_sessions(self) -> tuple[list[dict], list[dict]]:
        """Sessions B and C: the vector as their slug (so the two make a chain), as B's custom title and
        as C's summary title."""
        sessions = []
        for which in ("B", "C"):
            env = {"cwd": self.cwd, "sessionId": session_id(self.vector, which), "slug": self.p, "gitBranch": "main"}
            first = user(FIRST_MESSAGE, **env)
            last = assistant(text(LAST_MESSAGE), **env)
            title = (custom_title(self.p, session_id=session_id(self.vector, which)) if which == "B"
                     else summary(self.p, last["uuid"]))
            sessions.append([title, *chain(first, last)])
        for field, page, other in (("custom_title", "B", "C"), ("summary_title", "C", "B")):
            self.check(field, ".crumbs .here", "verbatim", page=page)
            self.check(f"{field}_heading", "article.transcript h1", "prose", page=page)
            self.check(field, f'a.session-title[href$="{session_id(self.vector, page)}.html"]', "verbatim",
                       page="project")
            self.check(field, ".chain-strip li:not(.current) .step-title", "verbatim", page=other)
        self.check("slug", ".chain-row code", "verbatim", page="project")
        return sessions[0], sessions[1]


# Generated once: the checks name elements by the uuids of these very entries.
TRANSCRIPTS: dict[int, Transcript] = {}
SESSIONS: dict[int, dict[str, list[dict]]] = {}
for _vector in VECTORS:
    _transcript = TRANSCRIPTS[_vector.n] = Transcript(_vector)
    _a = _transcript.build()
    _b, _c = _transcript.titled_sessions()
    SESSIONS[_vector.n] = {"A": _a, "B": _b, "C": _c}
ALL_CHECKS: list[Check] = [check for t in TRANSCRIPTS.values() for check in t.checks]


@dataclass(frozen=True)
class AttackSite:
    root: Path
    pages: dict[int, tuple[str, ...]]
    """The pages built for each vector (its project folder), relative to root."""


@pytest.fixture(scope="module")
def attack_site(tmp_path_factory) -> AttackSite:
    base = tmp_path_factory.mktemp("attacks")
    projects = base / "projects"
    for vector in VECTORS:
        for which, entries in SESSIONS[vector.n].items():
            write_jsonl(projects / project_dir(vector) / f"{session_id(vector, which)}.jsonl", entries)
    out = base / "site"
    report = build(BuildConfig(inputs=(projects,), output=out))  # must not raise
    assert report.diagnostics == []
    assert report.sessions == 3 * len(VECTORS)
    pages = {
        vector.n: tuple(sorted(p.relative_to(out).as_posix()
                               for p in (out / urls.project_folder(project_dir(vector))).rglob("*.html")))
        for vector in VECTORS
    }
    return AttackSite(out, pages)


# ---------------------------------------------------------------------------------------------------------
# Every payload is still there, as text, where it was put

def normalise(value: str) -> str:
    return " ".join(value.split())


def needles(check: Check) -> list[str]:
    vector = VECTORS[check.vector - 1]
    payload = vector.payload
    if check.mode == "verbatim":
        return [payload]
    if check.mode == "prose":
        return list(vector.prose_needles)
    if check.mode == "lines":
        return [line for line in payload.split("\n") if line.strip()]
    if check.mode == "json":
        return [json.dumps(payload, ensure_ascii=False)[1:-1]]
    if check.mode == "mcp":
        _, server, tool = (f"mcp__{payload}__x".split("__", 2) + ["", ""])[:3]
        return [f"{server} · {tool}"]
    raise ValueError(check.mode)


@lru_cache(maxsize=None)
def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


# Each page's ids, first element in document order as soup.find(id=...) gives it: the checks look up
# hundreds of ids per page, and find() walks the whole tree for each. Keyed by id(): a soup hashes by
# serialising itself; the soup is kept with its index, so that its id is never reused.
_ID_INDEXES: dict[int, tuple[BeautifulSoup, dict[str, Tag]]] = {}


def by_id(soup: BeautifulSoup, anchor: str) -> Tag | None:
    if id(soup) not in _ID_INDEXES:
        first: dict[str, Tag] = {}
        for tag in soup.find_all(id=True):
            first.setdefault(tag["id"], tag)
        _ID_INDEXES[id(soup)] = (soup, first)
    return _ID_INDEXES[id(soup)][1].get(anchor)


def _text(node: Tag, skip: set[int]) -> Iterator[str]:
    for child in node.children:
        if isinstance(child, Tag):
            if id(child) not in skip and child.name not in ("script", "style", "template"):
                yield from _text(child, skip)
        elif isinstance(child, NavigableString) and not isinstance(child, (Comment, Doctype)):
            yield str(child)


def find(soup: BeautifulSoup, css: str) -> list[Tag]:
    """`css`, with two shortcuts: `fact:<term>` is the value of that term in the session's facts, and a
    selector starting with an id looks the id up first (much faster than soupsieve on every element)."""
    if css.startswith("fact:"):
        terms = [dt for dt in soup.select("dl.facts dt") if dt.get_text(strip=True) == css[5:]]
        return [dd for dt in terms if (dd := dt.find_next_sibling("dd")) is not None]
    if not css.startswith("#"):
        return soup.select(css)
    anchor, _, rest = css[1:].partition(" ")
    node = by_id(soup, anchor)
    if node is None or not rest:
        return [node] if node is not None else []
    if rest.startswith("+ "):
        sibling = node.find_next_sibling(True)
        return [sibling] if sibling is not None and sibling.css.match(rest[2:]) else []
    return node.select(rest)


def visible_text(soup: BeautifulSoup, css: str, exclude: tuple[str, ...] = ()) -> tuple[str, int]:
    """The text of the elements `css` finds (minus `exclude`), and how many it found."""
    nodes = find(soup, css)
    texts = []
    for node in nodes:
        skip = {id(tag) for tag in node.select(", ".join(exclude))} if exclude else set()
        texts.append("".join(_text(node, skip)))
    return "\n".join(texts), len(nodes)


def text_problems(site: Path, vector: Vector) -> list[str]:
    problems = []
    for check in (c for c in ALL_CHECKS if c.vector == vector.n):
        path = page_path(vector, check.page)
        found, count = visible_text(_soup(site / path), check.css, check.exclude)
        where = f"{check.field}: {path} {check.css}"
        if not count:
            problems.append(f"{where}: no such element; the structure around it is gone (an earlier field may "
                            "have swallowed it)")
            continue
        shown = normalise(found)
        missing = [needle for needle in needles(check) if normalise(needle) not in shown]
        if missing:
            problems.append(f"{where}: not shown as text: {missing!r}; shown there: {shown[:300]!r}")
    return problems


@pytest.mark.parametrize("vector", [pytest.param(v, id=v.id) for v in VECTORS])
def test_payload_is_kept_as_text_where_it_was_put(attack_site, vector):
    problems = text_problems(attack_site.root, vector)
    assert not problems, f"{vector.id} ({vector.payload!r}):\n" + "\n".join(problems)


# Our own markup: if it shows as text, transcript content broke the structure around it.
OWN_MARKUP = ('class="permalink"', 'class="status', 'class="tool-name"', 'class="who"', "</summary>\n")


@pytest.mark.parametrize("vector", [pytest.param(v, id=v.id) for v in VECTORS])
def test_the_structure_around_each_field_is_intact(attack_site, vector):
    """Every block sessionsite writes for the transcript is where it should be: a tool call is a <details>
    of its own with its summary, beside its permalink, directly in a reply; nothing of ours shows as text."""
    transcript = TRANSCRIPTS[vector.n]
    problems = []
    for which in ("A", "B", "C"):
        path = page_path(vector, which)
        soup = _soup(attack_site.root / path)
        article = soup.select_one("article.transcript")
        if article is None:
            problems.append(f"{path}: no article.transcript")
            continue
        text = "".join(_text(article, set()))
        problems += [f"{path}: our markup {marker!r} shows as text" for marker in OWN_MARKUP if marker in text]
        messages = article.find_all(class_="msg", recursive=False)
        if not messages or FIRST_MESSAGE not in messages[0].get_text():
            problems.append(f"{path}: the first message is not the first block of the transcript")
        replies = [m for m in messages if "assistant" in m.get("class", [])]
        if not replies or LAST_MESSAGE not in "".join(_text(replies[-1], set())):
            problems.append(f"{path}: the last reply is not the last reply block of the transcript")
        if which != "A":
            continue
        for anchor in transcript.tool_anchors:
            node = by_id(soup, anchor)
            if node is None:
                problems.append(f"{path}: tool call #{anchor} is gone")
                continue
            summary_tag = node.find("summary", recursive=False)
            # The call's permalink stands beside it, in the wrapper they share (not inside the summary).
            wrapper = node.parent
            parent = wrapper.parent if wrapper is not None and "tool-call" in wrapper.get("class", []) else None
            intact = (node.name == "details" and summary_tag is not None and parent is not None
                      and wrapper.find("a", class_="permalink", href=f"#{anchor}", recursive=False) is not None
                      and summary_tag.select_one(".status") is not None)
            if not intact:
                problems.append(f"{path}: tool call #{anchor} lost its summary: {str(node)[:300]!r}")
            if parent is None or parent.name != "div" or "assistant" not in parent.get("class", []) \
                    or parent.parent is not article:
                problems.append(f"{path}: tool call #{anchor} is not directly in a reply but in "
                                f"<{parent.name if parent else None} {parent.attrs if parent else ''}>")
        for anchor in transcript.plan_anchors:
            node = by_id(soup, anchor)
            parent = node.parent if node else None
            if node is None or node.name != "div" or "plan" not in node.get("class", []):
                problems.append(f"{path}: plan #{anchor} is gone")
            elif parent is None or "assistant" not in parent.get("class", []) or parent.parent is not article:
                problems.append(f"{path}: plan #{anchor} is not directly in a reply but in "
                                f"<{parent.name if parent else None} {parent.attrs if parent else ''}>")
        for anchor in transcript.anchors:
            node = by_id(soup, anchor)
            if node is None:
                problems.append(f"{path}: block #{anchor} is gone")
            elif node.parent is not article:
                problems.append(f"{path}: block #{anchor} is inside <{node.parent.name} {node.parent.attrs}>, "
                                "not the transcript")
    assert not problems, f"{vector.id} ({vector.payload!r}):\n" + "\n".join(problems)


def test_template_syntax_is_not_evaluated(attack_site):
    vector = next(v for v in VECTORS if v.name == "template")
    for which in ("A", "B", "C", "project"):
        soup = _soup(attack_site.root / page_path(vector, which))
        # Figures the site computes (token counts, charts) may well contain 49; the labels beside them are
        # transcript text and stay checked (the tables' row headings, the charts' tables).
        figures = {id(tag) for tag in soup.select("td.num, .stat-tiles, svg.chart")}
        shown = "".join(_text(soup.body, figures))
        assert "{{7*7}}" in shown and "${7*7}" in shown, which  # shown as written where it is code or plain
        assert "49" not in shown, which


def test_every_field_is_covered_for_every_vector():
    fields = {c.field for c in ALL_CHECKS}
    for vector in VECTORS:
        assert {c.field for c in ALL_CHECKS if c.vector == vector.n} == fields, vector.id


# ---------------------------------------------------------------------------------------------------------
# Nothing runs in a browser


# Records markers even if a payload sets them and something later resets them.
INIT_SCRIPT = """
(() => {
  const hits = [];
  Object.defineProperty(window, '__attackHits', {value: hits});
  let pwned;
  Object.defineProperty(window, '__pwned', {configurable: true, get() { return pwned; },
                                            set(value) { hits.push('window.__pwned = ' + value); pwned = value; }});
  const title = Object.getOwnPropertyDescriptor(Document.prototype, 'title');
  Object.defineProperty(Document.prototype, 'title', {configurable: true, get() { return title.get.call(this); },
                        set(value) { hits.push('document.title = ' + value); title.set.call(this, value); }});
})();
"""

# Exercise a page: open every <details>, focus (and blur) everything focusable, and note when.
EXERCISE_PAGE = r"""
() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const focusable = document.querySelectorAll('a, button, input, select, textarea, summary, area, iframe, object, embed, [tabindex], [contenteditable]');
  for (const el of focusable) { try { el.focus(); el.blur(); } catch (e) {} }
  window.__exercisedAt = performance.now();
}
"""

# Then, once anything that was triggered has had SETTLE_MS to run, look at the DOM.
SETTLE_MS = 50
CHECK_PAGE = r"""
async ({transcript, firstMessage, lastMessage, settleMs}) => {
  const waited = performance.now() - window.__exercisedAt;
  if (!(waited >= settleMs)) await new Promise(resolve => setTimeout(resolve, settleMs - (waited || 0)));

  const problems = [];
  const urlAttributes = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'background', 'srcdoc', 'codebase', 'cite', 'ping', 'srcset']);
  for (const el of document.querySelectorAll('*')) {
    for (const attribute of el.attributes) {
      const name = attribute.name.toLowerCase();
      const shown = `<${el.tagName.toLowerCase()} ${attribute.name}=${JSON.stringify(attribute.value)}>`;
      if (name.startsWith('on')) problems.push(`event handler attribute: ${shown}`);
      if (urlAttributes.has(name) || name.endsWith(':href')) {
        const value = attribute.value.replace(/[\t\n\r]/g, '').trim().toLowerCase();
        if (value.startsWith('javascript:') || value.startsWith('vbscript:') || value.startsWith('data:text/html')
            || (value.startsWith('data:') && !value.startsWith('data:image/')) || name === 'srcdoc') {
          problems.push(`dangerous URL: ${shown}`);
        }
      }
      if (name === 'style') problems.push(`style attribute: ${shown}`);  // the pages' policy allows none
    }
  }
  for (const script of document.querySelectorAll('script')) {
    const src = script.getAttribute('src') || '';
    // Ours: the theme's script, a long session's anchor map, and the search index's pieces (app.js adds
    // those to the head when the search box is used).
    const searchPiece = /(^|\/)search\/(index|terms\/\d+|docs\/[0-9a-f]{16}-\d+)\.js$/.test(src) && script.parentElement === document.head;
    const ours = (src.endsWith('assets/app.js') || src.endsWith('.anchors.js') || searchPiece) && !script.textContent.trim();
    if (!ours) problems.push(`foreign script: ${script.outerHTML.slice(0, 200)}`);
  }
  const forbidden = 'iframe, frame, frameset, object, embed, applet, portal, base, meta[http-equiv], form, style, body link, math, noscript, textarea, select';
  const ourSearchBox = el => el.matches('header.site-header > form.site-search') && el.querySelectorAll('*').length === 2;
  // Ours: the page's Content-Security-Policy, the first element of the head that says one.
  const ourPolicy = el => el.matches('head > meta[http-equiv="Content-Security-Policy"]')
    && el === document.head.querySelector('meta[http-equiv]') && el.content.startsWith("default-src 'none'");
  for (const el of document.querySelectorAll(forbidden)) {
    if (!ourSearchBox(el) && !ourPolicy(el)) problems.push(`forbidden element: ${el.outerHTML.slice(0, 200)}`);
  }
  for (const el of document.querySelectorAll('svg')) {
    // Ours: the theme toggle's icons and the statistics' charts, which sit outside any transcript.
    const ours = el.closest('.theme-toggle') || (el.matches('svg.chart') && el.closest('section.stats') && !el.closest('article'));
    if (!ours) problems.push(`foreign svg: ${el.outerHTML.slice(0, 200)}`);
  }
  for (const el of document.querySelectorAll('head link')) {
    const rel = (el.getAttribute('rel') || '').toLowerCase();
    if (rel !== 'stylesheet' && rel !== 'icon') problems.push(`foreign link: ${el.outerHTML.slice(0, 200)}`);
  }
  for (const el of document.querySelectorAll('.forged')) {
    problems.push(`transcript markup became an element: ${el.outerHTML.slice(0, 200)}`);
  }
  for (const el of document.querySelectorAll('input')) {
    // Ours: a task list's disabled boxes, the filters, the search box, and the page's view filter (a template's
    // fieldset outside any transcript message; the sanitiser keeps no data-* attribute of a transcript's input).
    const viewFilter = el.type === 'checkbox' && el.dataset.show && el.closest('section.view-box > fieldset.view-filter')
      && !el.closest('article, .message, details');
    const ok = (el.type === 'checkbox' && el.disabled) || (el.type === 'search' && el.classList.contains('filter'))
      || viewFilter
      || (el.type === 'search' && el.id === 'site-search' && ourSearchBox(el.parentElement));
    if (!ok) problems.push(`foreign input: ${el.outerHTML.slice(0, 200)}`);
  }
  if (typeof window.__pwned !== 'undefined') problems.push(`window.__pwned = ${window.__pwned}`);
  for (const hit of window.__attackHits || []) problems.push(`marker set: ${hit}`);

  const visible = el => !!el && el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
                         && el.getBoundingClientRect().height > 0;
  if (!visible(document.body)) problems.push('the body is not visible');
  if (transcript) {
    const messages = document.querySelectorAll('article.transcript .msg');
    const replies = document.querySelectorAll('article.transcript .msg.assistant');
    const first = messages[0], last = replies[replies.length - 1];
    if (!visible(first) || !first.innerText.includes(firstMessage)) {
      problems.push("the transcript's first message is not visible");
    }
    if (!visible(last) || !last.innerText.includes(lastMessage)) {
      problems.push("the transcript's last reply is not visible (swallowed or hidden)");
    }
  } else if (!visible(document.querySelector('main h1, main .cards'))) {
    problems.push("the page's heading is not visible");
  }
  return {problems, title: document.title};
}
"""


class _Title(HTMLParser):
    """The text of a page's first <title>, read by the tokenizer alone: a tree of the whole page (as
    BeautifulSoup builds it) costs a browser check of the page as much again, for one element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "title" and self.text is None:
            self.inside, self.text = True, []

    def handle_endtag(self, tag):
        if tag == "title":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text.append(data)


def expected_title(site: Path, path: str) -> str:
    parser = _Title()
    parser.feed((site / path).read_text(encoding="utf-8"))
    parser.close()
    return " ".join("".join(parser.text or ()).split())


class Inspector:
    """A few browser tabs, reused for every page of the site (a context per vector would double the time),
    recording what happens while a page is open. A vector's pages are loaded and exercised one per tab, then
    checked: the moment each is given to settle passes while the next ones load."""

    TABS = 8

    def __init__(self, browser, site: Path):
        self.site = site
        self.context = browser.new_context()
        self.context.add_init_script(INIT_SCRIPT)
        self.tabs: list[tuple[Any, dict[str, list[str]]]] = []
        for _ in range(self.TABS):
            page = self.context.new_page()
            events: dict[str, list[str]] = {"dialogs": [], "errors": [], "requests": [], "navigations": []}
            page.on("dialog", lambda dialog, events=events: (
                events["dialogs"].append(f"{dialog.type}({dialog.message})"), dialog.dismiss()))
            page.on("pageerror", lambda error, events=events: events["errors"].append(str(error)))
            page.on("request", lambda request, events=events: events["requests"].append(request.url))
            page.on("framenavigated", lambda frame, events=events: events["navigations"].append(frame.url))
            self.tabs.append((page, events))
        # Registered after the tabs are made: any page opened from now on was opened by a page of the site.
        self.windows: list[str] = []
        self.context.on("page", lambda other: self.windows.append(other.url))

    def inspect(self, paths: tuple[str, ...]) -> list[str]:
        """Load each page, exercise it, and say everything suspicious found in it."""
        found: list[str] = []
        for start in range(0, len(paths), self.TABS):
            found += self._inspect_batch(paths[start:start + self.TABS])
        return found

    def _inspect_batch(self, paths: tuple[str, ...]) -> list[str]:
        site = self.site
        inside = site.resolve().as_uri() + "/"
        targets = [(site / path).resolve().as_uri() for path in paths]
        tabs = self.tabs[:len(paths)]
        self.windows.clear()
        for (page, events), target in zip(tabs, targets, strict=True):
            for kind in events.values():
                kind.clear()
            page.goto(target, wait_until="load")
            page.evaluate(EXERCISE_PAGE)
        found: list[str] = []
        for (page, events), path, target in zip(tabs, paths, targets, strict=True):
            is_session = path.startswith("projects/") and not path.endswith(("/index.html", "/files.html", "/commits.html"))
            result = page.evaluate(CHECK_PAGE, {"transcript": is_session, "firstMessage": FIRST_MESSAGE,
                                                "lastMessage": LAST_MESSAGE, "settleMs": SETTLE_MS})
            problems = list(result["problems"])
            problems += [f"dialog: {d}" for d in events["dialogs"]]
            problems += [f"page error: {e}" for e in events["errors"]]
            problems += [f"request outside the site: {r[:200]}" for r in events["requests"]
                         if not r.startswith(inside) and not r.startswith("data:image/")]
            problems += [f"navigated to {n[:200]}" for n in events["navigations"] if n != target]
            if page.url != target:
                problems.append(f"left the page for {page.url[:200]}")
            title = expected_title(site, path)
            if " ".join(result["title"].split()) != title:
                problems.append(f"document.title is {result['title']!r}, the page says {title!r}")
            found.extend(f"{path}: {problem}" for problem in problems)
        # A window opened by one of these pages (which one is not recorded) counts against all of them.
        found.extend(f"{path}: navigated to new window {url[:200]}" for url in self.windows for path in paths)
        return found


@pytest.fixture(scope="module")
def inspector(browser, attack_site):
    instance = Inspector(browser, attack_site.root)
    yield instance
    instance.context.close()


@pytest.mark.slow
@pytest.mark.parametrize("vector", [pytest.param(v, id=v.id) for v in VECTORS])
def test_no_payload_runs_or_becomes_markup_in_a_browser(inspector, attack_site, vector):
    paths = attack_site.pages[vector.n]
    assert {page_path(vector, page) for page in ("A", "B", "C", "project")} <= set(paths)
    problems = inspector.inspect(paths)
    assert not problems, f"{vector.id} ({vector.payload!r}):\n" + "\n".join(problems)


def test_pages_outside_the_projects_are_safe_too(inspector, attack_site):
    covered = {path for paths in attack_site.pages.values() for path in paths}
    rest = tuple(sorted(p.relative_to(attack_site.root).as_posix() for p in attack_site.root.rglob("*.html")
                        if p.relative_to(attack_site.root).as_posix() not in covered))
    assert "index.html" in rest
    problems = inspector.inspect(rest)
    assert not problems, "\n".join(problems)
