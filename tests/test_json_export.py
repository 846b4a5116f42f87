"""`sessionsite json` (issue 31, point 5): the interpreted, redacted sessions as JSON, for analysis.

What a user sees is the yardstick: the documents hold what the pages show (the same prompts and tool calls,
by id; the same figures, as the page prints them), every document passes the published schema, the planted
secrets of tests/planted_secrets.py reach no document, hostile transcript text makes valid JSON, and every
error names the file or folder."""

from __future__ import annotations

import json
import math
import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from generator.cli import main
from generator.config import BuildConfig
from generator.core import urls
from generator.core.errors import UsageProblem
from generator.json_export import export
from generator.output import session_json
from generator.output.locks import OutputLock
from generator.output.session_json import SCHEMA, SCHEMA_VERSION, SessionJsonWriter, dumps
from generator.render.html.pages import duration_of
from generator.render.stats import money

from generator.stages import read
from generator.stages.summarize import QUIET_TOOLS, UNKNOWN_TOOL
from helpers import (OTHER_SESSION_ID, PROJECT_DIR, SESSION_ID, assistant, chain, text, tool_result, tool_use, user,
                     write_jsonl)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
pytestmark = pytest.mark.xdist_group("json-export")


def run(*arguments: str) -> Any:
    return CliRunner().invoke(main, [*arguments, "--no-vault", "-j", "1"])


def strict_json(data: bytes) -> Any:
    """As a strict reader parses it: UTF-8 only, no NaN or Infinity."""
    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    return json.loads(data.decode("utf-8"), parse_constant=refuse)


def documents(folder: Path) -> dict[str, Any]:
    return {path.relative_to(folder).as_posix(): strict_json(path.read_bytes())
            for path in sorted(folder.rglob("*.json")) if path.name != SCHEMA.name}


# -- the schema, checked by hand (the checker is tested below) ---------------------------------------------

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def problems(value: Any, schema: dict[str, Any], root: dict[str, Any], where: str = "$") -> list[str]:
    """What in `value` breaks `schema`: the part of JSON Schema 2020-12 the export's schema uses ($ref into
    $defs, type, const, enum, oneOf, properties, required, additionalProperties, items, minimum)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return problems(value, root["$defs"][name], root, where)
    found: list[str] = []
    if "type" in schema:
        kinds = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]

        def is_a(kind: str) -> bool:
            if kind == "integer":
                return isinstance(value, int) and not isinstance(value, bool)
            if kind == "number":
                return isinstance(value, (int, float)) and not isinstance(value, bool)
            return isinstance(value, TYPES[kind]) and not (kind != "boolean" and isinstance(value, bool))

        if not any(is_a(kind) for kind in kinds):
            return [f"{where}: {type(value).__name__} is not {kinds}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        found.append(f"{where}: {value} < {schema['minimum']}")
    if "oneOf" in schema:
        failures = [problems(value, option, root, where) for option in schema["oneOf"]]
        if sum(1 for failed in failures if not failed) != 1:
            found.append(f"{where}: matches {sum(1 for failed in failures if not failed)} of the oneOf options")
            found += [problem for failed in failures for problem in failed]  # why each option failed
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        found += [f"{where}: no {name!r}" for name in schema.get("required", []) if name not in value]
        for name, inner in value.items():
            if name in properties:
                found += problems(inner, properties[name], root, f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                found.append(f"{where}: unexpected {name!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                found += problems(inner, schema["additionalProperties"], root, f"{where}.{name}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += problems(item, schema["items"], root, f"{where}[{index}]")
    return found


SCHEMA_DATA = json.loads(SCHEMA.read_text(encoding="utf-8"))


def schema_problems(document: Any) -> list[str]:
    return problems(document, SCHEMA_DATA, SCHEMA_DATA)


def test_the_schema_is_versioned_and_names_what_it_describes():
    assert SCHEMA_DATA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for kind in ("session_document", "index_document"):
        assert SCHEMA_DATA["$defs"][kind]["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    # Every event type the writer makes has a definition, and each definition is reachable.
    assert {option["$ref"] for option in SCHEMA_DATA["$defs"]["event"]["oneOf"]} == {
        f"#/$defs/event_{name}" for name in ("prompt", "reply", "thinking", "tool_call", "plan", "slash_command",
                                             "shell_command", "notice", "unknown", "unreadable", "unwritable")}


@pytest.mark.parametrize("break_it, expected", [
    (lambda d: d.update(schema_version=2), "is not 1"),
    (lambda d: d["session"].pop("title"), "no 'title'"),
    (lambda d: d["session"].update(figures={**d["session"]["figures"], "prompts": "1"}), "is not ['integer']"),
    (lambda d: d["session"].update(surprise=True), "unexpected 'surprise'"),
    (lambda d: d["events"].append({"type": "prompt", "id": "e-1"}), "matches 0 of the oneOf"),
    (lambda d: d["events"].append({"type": "telepathy", "id": "e-1"}), "matches 0 of the oneOf"),
], ids=["version", "missing", "type", "extra", "event-incomplete", "event-type"])
def test_the_schema_check_finds_a_broken_document(examples_export, break_it, expected):
    """The check every document passes below can fail: a document broken in each way is caught."""
    out, _ = examples_export
    name = next(name for name in documents(out) if name != "index.json")
    document = documents(out)[name]
    assert schema_problems(document) == []
    break_it(document)
    assert any(expected in problem for problem in schema_problems(document)), schema_problems(document)


# -- the examples: what the pages show ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def examples_export(tmp_path_factory) -> tuple[Path, Path]:
    """The examples exported, and built as a site, with the same (default) options."""
    root = tmp_path_factory.mktemp("examples")
    out, site = root / "json", root / "site"
    result = run("json", str(EXAMPLES), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert run("build", str(EXAMPLES), "-o", str(site), "-q").exit_code == 0
    return out, site


@pytest.fixture(scope="module")
def examples_shown_hidden(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("hidden")
    out, site = root / "json", root / "site"
    assert run("json", str(EXAMPLES), "-o", str(out), "--show-hidden", "-q").exit_code == 0
    assert run("build", str(EXAMPLES), "-o", str(site), "--show-hidden", "-q").exit_code == 0
    return out, site


def test_every_document_passes_the_schema(examples_export, examples_shown_hidden):
    for out, _ in (examples_export, examples_shown_hidden):
        found = documents(out)
        assert len(found) > 10
        assert {name: schema_problems(document) for name, document in found.items()
                if schema_problems(document)} == {}


def test_the_index_lists_every_document_and_each_names_its_file(examples_export):
    out, _ = examples_export
    found = documents(out)
    index = found.pop("index.json")
    assert index["kind"] == "index"
    assert sorted(head["file"] for head in index["sessions"]) == sorted(found)
    for head in index["sessions"]:
        assert found[head["file"]]["session"] == head
    assert index["counts"] == {"sessions": 13, "subagent_runs": 7}  # as `build` says of the examples
    assert (out / SCHEMA.name).read_bytes() == SCHEMA.read_bytes(), "the export carries its schema"


def page_elements(site: Path, key: str) -> dict[str, str]:
    """Every element of a session's pages that has an event's id, by id: its classes."""
    first = site / urls.session_page(key)
    found = {}
    for page in [first, *sorted(first.parent.glob(f"{first.stem}~p*.html"))]:
        for element in BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").select('[id^="e-"]'):
            found[element["id"]] = " ".join(element.get("class") or ())
    return found


def page_facts(site: Path, key: str) -> dict[str, str]:
    page = BeautifulSoup((site / urls.session_page(key)).read_text(encoding="utf-8"), "html.parser")
    return {term.get_text(strip=True): term.find_next_sibling("dd").get_text(" ", strip=True)
            for term in page.select("dl.facts dt")}


def page_tools(site: Path, key: str) -> dict[str, tuple[int, int]]:
    page = BeautifulSoup((site / urls.session_page(key)).read_text(encoding="utf-8"), "html.parser")
    return {row.th.get_text(strip=True): tuple(int(cell.get_text()) for cell in row.select("td"))
            for row in page.select("table.tool-table tbody tr")}


def test_the_figures_are_the_ones_the_page_prints(examples_export):
    out, site = examples_export
    index = documents(out)["index.json"]
    compared = 0
    for head in index["sessions"]:
        facts, figures = page_facts(site, head["key"]), head["figures"]
        assert facts["Prompts"] == str(figures["prompts"])
        assert facts["Tool calls"] == str(figures["tool_calls"])
        if "Estimated cost" in facts:
            assert money(figures["cost_usd"]) == facts["Estimated cost"], head["key"]
            compared += 1
        assert page_tools(site, head["key"]) == {tool["name"]: (tool["calls"], tool["errors"])
                                                 for tool in figures["tools"]}
        assert facts.get("Branch") == (head["branch"] or None)
        if "Duration" in facts:
            assert duration_of(figures["duration_ms"] / 1000) == facts["Duration"], head["key"]
        page = BeautifulSoup((site / urls.session_page(head["key"])).read_text(encoding="utf-8"), "html.parser")
        assert " ".join(page.h1.get_text(" ", strip=True).split()) == " ".join(head["title"].split()), head["key"]
    assert compared >= 10


def test_the_events_are_the_ones_the_page_shows(examples_export, examples_shown_hidden):
    """With the same options, every event the page shows has its id in the document, and the document's
    prompts and tool calls are the page's. The page leaves out (until --show-hidden) the calls that only
    read back Claude's task list: the document keeps every call, and the figures count the cards shown."""
    for (out, site), show_hidden in ((examples_export, False), (examples_shown_hidden, True)):
        for name, document in documents(out).items():
            if name == "index.json":
                continue
            key, events = document["session"]["key"], document["events"]
            shown = page_elements(site, key)
            ids = {event["id"] for event in events}
            assert set(shown) <= ids | {f"m{i[1:]}" for i in ids}, key
            prompts = {e["id"] for e in events if e["type"] == "prompt"}
            assert prompts == {i for i, classes in shown.items() if classes.startswith("msg user")}, key
            calls = {e["id"]: e["name"] for e in events if e["type"] == "tool_call"}
            on_page = {i for i, classes in shown.items() if classes.split()[0] == "tool"}
            if show_hidden:
                assert set(calls) == on_page, key
            else:
                assert on_page <= set(calls)
                assert {calls[i] for i in set(calls) - on_page} <= {"TaskList", "TaskGet"}, key
            # The figures count each call shown once, by its tool; a result with no call is shown, not counted.
            counted = Counter(name for name in calls.values() if name != UNKNOWN_TOOL and name not in QUIET_TOOLS)
            counted.update(e["tool"] for e in events if e["type"] == "plan" and e["tool"])  # ExitPlanMode's calls
            assert counted == {t["name"]: t["calls"] for t in document["session"]["figures"]["tools"]}, key
            typed = [e for e in events if e["type"] == "prompt" and not e["by_agent"] and not e.get("hidden")]
            assert len(typed) == document["session"]["figures"]["prompts"], key


def test_subagents_are_linked_to_the_call_that_started_them(examples_export):
    out, _ = examples_export
    found = documents(out)
    by_key = {document["session"]["key"]: document for name, document in found.items() if name != "index.json"}
    linked = 0
    for key, document in by_key.items():
        parent = document["session"]["parent"]
        if parent is None:
            continue
        assert document["session"]["is_subagent"] and key in by_key[parent["key"]]["session"]["subagents"]
        if parent["call"]:
            call = next(e for e in by_key[parent["key"]]["events"] if e["id"] == parent["call"])
            assert call["type"] == "tool_call" and call["subagent"] == key
            linked += 1
    assert linked >= 4


def test_commits_plans_and_results_come_through(examples_export):
    out, _ = examples_export
    found = [d for name, d in documents(out).items() if name != "index.json"]
    commits = [c for d in found for c in d["session"]["commits"]]
    assert commits and all(re.fullmatch(r"[0-9a-f]{7,40}", c["sha"]) for c in commits)
    for document in found:
        for commit in document["session"]["commits"]:
            call = next(e for e in document["events"] if e["id"] == commit["call"])
            assert call["name"] == "Bash" and commit["sha"] in call["result"]["text"]
    plans = [e for d in found for e in d["events"] if e["type"] == "plan"]
    assert {p["status"] for p in plans} >= {"approved", "rejected"}
    results = [e["result"] for d in found for e in d["events"] if e["type"] == "tool_call" and e["result"]]
    assert any(r["is_error"] for r in results) and all(isinstance(r["text"], str) for r in results)


def test_a_document_has_one_event_a_line(examples_export):
    """What docs/json-export.md promises for `grep` and for reading a huge session a line at a time."""
    out, _ = examples_export
    path = max((p for p in out.rglob("*.json") if p.name not in ("index.json", SCHEMA.name)),
               key=lambda p: p.stat().st_size)
    lines = path.read_bytes().split(b"\n")
    assert lines[0].endswith(b'"events":[') and lines[-2:] == [b"]}", b""]
    events = [strict_json(line.rstrip(b",")) for line in lines[1:-2]]
    assert events == strict_json(path.read_bytes())["events"]


# -- the same choice of sessions as the site -----------------------------------------------------------------


def test_the_selection_options_choose_the_sessions(tmp_path):
    out = tmp_path / "one"
    result = run("json", str(EXAMPLES), "-o", str(out), "--session", "23ddcd5f", "-q")
    assert result.exit_code == 0, result.output
    index = strict_json((out / "index.json").read_bytes())
    assert [(h["id"], h["is_subagent"]) for h in index["sessions"]] == [
        ("23ddcd5f-bf80-4fbe-8f29-272760883dab", False), ("23ddcd5f-bf80-4fbe-8f29-272760883dab", True)]
    assert len(documents(out)) == 3
    result = run("json", str(EXAMPLES), "-o", str(tmp_path / "none"), "--project", "nope")
    assert result.exit_code != 0 and "nope" in result.output and not (tmp_path / "none").exists()


def test_a_zip_holds_the_same_documents(tmp_path, examples_export):
    out, _ = examples_export
    assert run("json", str(EXAMPLES), "-o", str(tmp_path / "sessions.zip"), "-q").exit_code == 0
    with zipfile.ZipFile(tmp_path / "sessions.zip") as archive:
        zipped = {name.removeprefix("sessions/"): strict_json(archive.read(name))
                  for name in archive.namelist() if name.endswith(".json") and not name.endswith(SCHEMA.name)}
    assert zipped == documents(out)


# -- redaction: on by default, as on the site ----------------------------------------------------------------


def test_no_planted_secret_reaches_the_json(tmp_path):
    """The planted credentials (tests/planted_secrets.py) are in the logs and in no document; with
    --no-redact they are (the search would see a leak)."""
    from planted_secrets import write_corpus
    from test_no_leaks import Finder

    corpus = write_corpus(tmp_path / "projects")
    finder = Finder(corpus.planted)
    result = run("json", str(corpus.project), "-o", str(tmp_path / "json"), "-q")
    assert result.exit_code == 0, result.output
    written = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in (tmp_path / "json").rglob("*") if p.is_file()}
    assert len(written) > 10
    leaks = sorted(f"{corpus.planted[i].value_id} · {corpus.planted[i].way} · {name}"
                   for name, data in written.items() for i in finder.found(name, data))
    assert leaks == []
    assert run("json", str(corpus.project), "-o", str(tmp_path / "raw"), "--no-redact", "-q").exit_code == 0
    raw = set().union(*(finder.found(p.name, p.read_bytes()) for p in (tmp_path / "raw").rglob("*.json")))
    assert len(raw) > len(corpus.planted) * 0.9


def test_the_config_files_own_redaction_applies_to_the_json(tmp_path, monkeypatch):
    """A word the user asked sessionsite.toml to redact is redacted in the export too."""
    project = tmp_path / "logs" / PROJECT_DIR
    write_jsonl(project / f"{SESSION_ID}.jsonl", chain(user("Deploy to the bluefinch cluster"),
                                                       assistant(text("Deployed to bluefinch."))))
    (tmp_path / "sessionsite.toml").write_text('redact_words = ["bluefinch"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "out"), "-q").exit_code == 0
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*.json"))
    assert b"Deploy to the" in written and b"bluefinch" not in written.lower()


# -- hostile transcript text ---------------------------------------------------------------------------------


def hostile_session(folder: Path) -> Path:
    call = tool_use("Bash", {"command": "echo \x00 done", "count": 10 ** 40, "ratio": 0.5})
    lines: list[Any] = chain(
        user("a NUL \x00 and a bell \x07 in a prompt"),
        assistant(call),
        tool_result(call["id"], "out \x00 put"),
        assistant(text("done")),
    )
    # Written by hand: JSON escapes a lone surrogate, NaN, an infinity and numbers no float holds.
    odd = tool_use("Read", {"file_path": "/tmp/x"})
    odd_line = json.dumps(assistant(odd))
    odd_line = odd_line.replace('"/tmp/x"', '"/tmp/\\ud800x", "n": NaN, "big": 1e400, "neg": -Infinity, '
                                            '"digits": 123456789012345678901234567890123456789')
    return write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", [*lines, odd_line,
                                                                       json.dumps(tool_result(odd["id"], "\ud83d ok"))])


def test_hostile_text_makes_valid_json(tmp_path):
    hostile_session(tmp_path / "logs")
    result = run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    found = documents(tmp_path / "out")
    assert all(schema_problems(d) == [] for d in found.values())
    events = next(d for n, d in found.items() if n != "index.json")["events"]
    assert events[0]["text"] == "a NUL \x00 and a bell \x07 in a prompt"
    bash = next(e for e in events if e["type"] == "tool_call" and e["name"] == "Bash")
    assert bash["input"]["command"] == "echo \x00 done"
    # The reader's fast path (orjson) reads an integer past 64 bits as the nearest float.
    assert math.isclose(bash["input"]["count"], 10 ** 40) and bash["result"]["text"] == "out \x00 put"
    read_call = next(e for e in events if e["type"] == "tool_call" and e["name"] == "Read")
    # The reader turns a lone surrogate into U+FFFD (one a byte of its UTF-8 form).
    assert re.fullmatch("/tmp/\ufffd+x", read_call["input"]["file_path"])
    assert read_call["input"]["n"] is None and read_call["input"]["big"] is None and read_call["input"]["neg"] is None
    assert read_call["input"]["digits"] == 123456789012345678901234567890123456789
    assert re.fullmatch("\ufffd+ ok", read_call["result"]["text"])


@pytest.mark.parametrize("value, expected", [
    ("lone \ud800 surrogate", '"lone \ufffd surrogate"'),
    ({"k\udfff": ["\ud83d"]}, '{"k\ufffd":["\ufffd"]}'),
    (float("nan"), "null"),
    ([float("inf"), 2 ** 70], f"[null,{2 ** 70}]"),
    ({"deep": [[[[[[[[[[1]]]]]]]]]] * 30}, None),
])
def test_dumps_writes_what_orjson_refuses(value, expected):
    written = dumps(value)
    strict_json(written)
    if expected is not None:
        assert written.decode("utf-8") == expected


def test_nesting_past_what_orjson_writes_is_written(tmp_path):
    nested: Any = "bottom"
    for _ in range(400):
        nested = {"n": nested}
    assert strict_json(dumps(nested))["n"]["n"]["n"] is not None


def test_an_event_that_cannot_be_written_is_one_diagnostic_naming_the_file(tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                       chain(user("first"), assistant(text("fine")), user("second")))
    real = session_json.event_json

    def too_deep(event: Any) -> dict[str, Any]:
        found = real(event)
        if found.get("text") == "fine":
            raise RecursionError("maximum recursion depth exceeded")
        return found

    monkeypatch.setattr(session_json, "event_json", too_deep)
    result = run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    problems_said = [line for line in result.output.splitlines() if line.startswith("WARNING")]
    assert len(problems_said) == 1 and f"{path}:0: event e-" in problems_said[0]
    assert "cannot be written as JSON" in problems_said[0]
    events = next(d for n, d in documents(tmp_path / "out").items() if n != "index.json")["events"]
    assert [e["type"] for e in events] == ["prompt", "unwritable", "prompt"]


def test_a_line_too_long_to_read_whole_is_written_whole_a_piece_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "LINE_LIMIT", 4000)
    long_line = '{"type": "user", "broken": "' + "é\x00" * 20_000  # never ends: not JSON, and long
    path = write_jsonl(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                       [*chain(user("before"), assistant(text("ok"))), long_line, json.dumps(user("after"))])
    export(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "out"))
    events = next(d for n, d in documents(tmp_path / "out").items() if n != "index.json")["events"]
    broken = next(e for e in events if e["type"] == "unreadable")
    assert broken["line"] == 3 and broken["text"] == long_line and "MB" in broken["reason"]
    assert path.name in str(tmp_path / "logs" / PROJECT_DIR / path.name)


def test_a_secret_in_a_line_too_long_to_read_whole_is_redacted(tmp_path, monkeypatch):
    """The long line is copied into its document a piece at a time, redacted as it goes."""
    import random
    import string

    monkeypatch.setattr(read, "LINE_LIMIT", 4000)
    draw = random.Random(31)
    token = "sk-ant-api03-" + "".join(draw.choice(string.ascii_letters + string.digits) for _ in range(93)) + "AA"
    long_line = '{"type": "user", "broken": "' + "padding " * 2000 + token + " more" * 2000
    write_jsonl(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                [*chain(user("before"), assistant(text("ok"))), long_line])
    export(BuildConfig(inputs=(tmp_path / "logs",), output=tmp_path / "out"))
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*.json"))
    assert token[13:40].encode() not in written and b"[REDACTED:anthropic-key]" in written
    assert written.count(b"padding ") == 2000


def test_a_session_is_written_as_it_streams(tmp_path):
    """Events go to the file as they come (the writer holds none): a large session needs the memory of
    one event."""
    from generator.core.model import Archive, AssistantText, Session

    session = Session(key=f"{PROJECT_DIR}/{SESSION_ID}", session_id=SESSION_ID, source="s.jsonl",
                      project_dir=PROJECT_DIR, cwd="/w", title="t")
    path = tmp_path / "s.json"
    writer = SessionJsonWriter(session, Archive((), {session.key: session}), path)
    for number in range(5_000):
        writer(AssistantText(f"e-{number}", "2026-03-02T09:00:00.000Z", "x" * 1000))
    assert path.stat().st_size > 4_000_000, "written before the session ends"
    writer.close()
    assert len(strict_json(path.read_bytes())["events"]) == 5_000


# -- errors name the file or folder; the previous export stays whole ----------------------------------------


def two_sessions(folder: Path) -> Path:
    write_jsonl(folder / PROJECT_DIR / f"{SESSION_ID}.jsonl", chain(user("one"), assistant(text("ok"))))
    write_jsonl(folder / PROJECT_DIR / f"{OTHER_SESSION_ID}.jsonl",
                chain(user("two", sessionId=OTHER_SESSION_ID), assistant(text("ok"), sessionId=OTHER_SESSION_ID)))
    return folder


def test_an_output_that_is_a_file_is_refused_naming_it(tmp_path):
    two_sessions(tmp_path / "logs")
    (tmp_path / "taken").write_text("mine", encoding="utf-8")
    result = run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "taken"))
    assert result.exit_code != 0 and str(tmp_path / "taken") in result.output
    assert (tmp_path / "taken").read_text(encoding="utf-8") == "mine"


def test_a_folder_it_did_not_write_is_never_replaced(tmp_path):
    two_sessions(tmp_path / "logs")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("keep", encoding="utf-8")
    result = run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "notes"))
    assert result.exit_code != 0 and str(tmp_path / "notes") in result.output
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["todo.txt"]


def test_a_broken_line_is_reported_with_its_file_and_line(tmp_path):
    path = write_jsonl(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl",
                       [*chain(user("hi"), assistant(text("ok"))), "{not json"])
    result = run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0 and f"{path}:3: " in result.output
    strict = run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "strict"), "--strict")
    assert strict.exit_code == 1 and f"{path}:3: " in strict.output and not (tmp_path / "strict").exists()


def test_a_failed_export_leaves_the_previous_one_whole(tmp_path, monkeypatch):
    logs = two_sessions(tmp_path / "logs")
    out = tmp_path / "out"
    export(BuildConfig(inputs=(logs,), output=out))
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    calls = 0
    real_call = SessionJsonWriter.__call__

    def disk_full_on_the_second_session(self: SessionJsonWriter, event: Any) -> None:
        nonlocal calls
        calls += 1
        if calls > 2:
            raise OSError(28, "No space left on device")
        real_call(self, event)

    monkeypatch.setattr(SessionJsonWriter, "__call__", disk_full_on_the_second_session)
    with pytest.raises(OSError):
        export(BuildConfig(inputs=(logs,), output=out))
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "out"], "no staging folder left behind"


def test_a_second_export_to_the_same_folder_stops_naming_it(tmp_path):
    logs = two_sessions(tmp_path / "logs")
    with OutputLock(tmp_path / "out"):
        with pytest.raises(UsageProblem, match=re.escape(str(tmp_path / "out"))):
            export(BuildConfig(inputs=(logs,), output=tmp_path / "out"))


def test_the_command_says_what_it_wrote(tmp_path):
    logs = two_sessions(tmp_path / "logs")
    result = run("json", str(logs), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0
    assert f"2 sessions, 3 JSON documents -> {tmp_path / 'out'}" in result.output
    assert "no secret found to redact" in result.output
    index = strict_json((tmp_path / "out" / "index.json").read_bytes())
    assert index["options"] == {"redacted": True, "home_directories_redacted": False, "show_hidden": False}
    assert math.isclose(sum(m["cost_usd"] or 0 for m in index["figures"]["models"]), index["figures"]["cost_usd"])


def test_worker_processes_write_the_same_documents(tmp_path, examples_export):
    """Files are spread over forked workers with -j 2; the documents are the same bytes as with -j 1 (no
    time, path or order of their own in them)."""
    out, _ = examples_export
    result = CliRunner().invoke(main, ["json", str(EXAMPLES), "-o", str(tmp_path / "two"), "-j", "2", "--no-vault",
                                       "-q"])
    assert result.exit_code == 0, result.output
    assert {p.relative_to(tmp_path / "two"): p.read_bytes() for p in (tmp_path / "two").rglob("*") if p.is_file()} == {
        p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_a_log_gone_from_disk_is_exported_from_the_vault(tmp_path):
    logs = two_sessions(tmp_path / "logs")
    vault = tmp_path / "vault"
    assert CliRunner().invoke(main, ["json", str(logs), "-o", str(tmp_path / "first"), "--vault", str(vault),
                                     "-q"]).exit_code == 0
    (logs / PROJECT_DIR / f"{OTHER_SESSION_ID}.jsonl").unlink()
    result = CliRunner().invoke(main, ["json", str(logs), "-o", str(tmp_path / "again"), "--vault", str(vault)])
    assert result.exit_code == 0 and "read from the vault" in result.output
    index = strict_json((tmp_path / "again" / "index.json").read_bytes())
    kept = {head["id"]: head["kept_by_vault_since"] for head in index["sessions"]}
    assert kept[SESSION_ID] is None and re.fullmatch(r"\d{4}-\d\d-\d\d.*", kept[OTHER_SESSION_ID] or "")
    gone = next(h for h in index["sessions"] if h["id"] == OTHER_SESSION_ID)
    assert [e["text"] for e in strict_json((tmp_path / "again" / gone["file"]).read_bytes())["events"]] == ["two", "ok"]


def test_the_documentation_names_every_field_and_event_type():
    """docs/json-export.md describes the format: each field of a session's head, of the figures and of
    the index, and each event type with its fields, is named there."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "json-export.md").read_text(encoding="utf-8")
    definitions = SCHEMA_DATA["$defs"]
    named = [*definitions["session_head"]["properties"], *definitions["figures"]["properties"],
             *definitions["index_document"]["properties"], *definitions["media"]["properties"]]
    for option in definitions["event"]["oneOf"]:
        event = definitions[option["$ref"].removeprefix("#/$defs/")]
        named += [event["properties"]["type"]["const"], *event["properties"]]
    assert sorted({name for name in named if f"`{name}`" not in page}) == []
    assert "sessionsite json " in page and "export.schema.json" in page


def test_redact_paths_leaves_no_home_directory_in_any_document(tmp_path):
    """--redact-paths: the home folder is in the session's folder name, its cwd, a tool's input and its
    result; no document, nor a path in the export, names it."""
    call = tool_use("Read", {"file_path": "/home/ada/src/tidewatch/tides.py"})
    write_jsonl(tmp_path / "logs" / PROJECT_DIR / f"{SESSION_ID}.jsonl", chain(
        user("Read /home/ada/src/tidewatch/tides.py"), assistant(call),
        tool_result(call["id"], "/home/ada/src/tidewatch/tides.py: 12 lines"), assistant(text("Read it."))))
    result = run("json", str(tmp_path / "logs"), "-o", str(tmp_path / "out"), "--redact-paths", "-q")
    assert result.exit_code == 0, result.output
    written = {p.relative_to(tmp_path / "out").as_posix(): p.read_bytes() for p in (tmp_path / "out").rglob("*")
               if p.is_file()}
    assert [name for name, data in written.items() if b"/home/ada" in data or "home-ada" in name] == []
    assert any(b"~/src/tidewatch/tides.py" in data for data in written.values())


FULL_DISK_AT = {
    "every file and lock": dict(fd_writes=True),
    "a session's document": dict(which=lambda path: path.suffix == ".json" and path.name != "index.json"),
    "the index, written last": dict(which=lambda path: path.name == "index.json"),
}


@pytest.mark.parametrize("where", FULL_DISK_AT)
@pytest.mark.parametrize("name, jobs", [("out", "1"), ("out", "2"), ("out.zip", "1")])
def test_a_full_disk_is_one_line_naming_the_output_and_keeps_the_previous_export(monkeypatch, tmp_path, where,
                                                                                name, jobs):
    import errno

    from test_output_errors import assert_one_line_naming, fill_the_disk

    logs = two_sessions(tmp_path / "logs")
    out = tmp_path / "exports" / name
    assert run("json", str(logs), "-o", str(out), "-q").exit_code == 0
    before = out.read_bytes() if out.is_file() else {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    write_jsonl(logs / PROJECT_DIR / "0e9a3c55-1b2d-4c4e-9f60-7a8b9c0d1e2f.jsonl",
                chain(user("three"), assistant(text("ok"))))
    fill_the_disk(monkeypatch, out.parent, errno.ENOSPC, **FULL_DISK_AT[where])
    result = CliRunner().invoke(main, ["json", str(logs), "-o", str(out), "--no-vault", "-j", jobs])
    monkeypatch.undo()
    assert_one_line_naming(result, out, errno.ENOSPC)
    assert (out.read_bytes() if out.is_file() else {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}) == before
    assert sorted(p.name for p in out.parent.iterdir()) == [name], "no staging folder or lock left behind"


@pytest.mark.parametrize("where", ["the input folder", "a folder inside it", "~/.claude"])
def test_the_export_never_writes_into_what_it_reads(tmp_path, monkeypatch, where):
    monkeypatch.setenv("HOME", str(tmp_path))
    logs = two_sessions(tmp_path / "logs")
    (logs / PROJECT_DIR / "notes").mkdir()
    (tmp_path / ".claude").mkdir()
    out = {"the input folder": logs / PROJECT_DIR, "a folder inside it": logs / PROJECT_DIR / "notes",
           "~/.claude": tmp_path / ".claude" / "json"}[where]
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    result = CliRunner().invoke(main, ["json", str(logs / PROJECT_DIR), "-o", str(out), "--no-vault"])
    assert result.exit_code == 2 and str(out) in result.output, result.output
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("started, ended, expected", [
    ("2026-03-02T09:00:00.000Z", "2026-03-02T09:05:00.250Z", 300_250),
    ("2026-03-02T09:00:00", "2026-03-02T09:05:00.000Z", 300_000),  # no offset: UTC, as the page reads it
    ("half past nine", "2026-03-02T09:05:00.000Z", None),
    ("", "", None),
])
def test_the_duration_is_the_pages(started, expected, ended):
    from generator.core.model import Session
    from generator.render.stats import totals

    session = Session(key="p/s", session_id="s", source="", project_dir="p", cwd="/w", title="t", started=started,
                      ended=ended)
    assert session_json.figures(totals([session]), session)["duration_ms"] == expected


def test_how_a_call_ended_and_what_stopped_a_turn_come_through(tmp_path):
    """A rejected call keeps who ended it and what the user typed (as text, markup and all), Claude Code's
    instruction to the model apart from the result; a call that ran says it ended by running (null); a
    reply cut off at the output-token limit is a notice saying so."""
    from test_endings import REJECTED

    feedback = "</script><b>use the other file</b>"
    said = REJECTED.replace(" STOP what you are doing and wait for the user to tell you how to proceed.",
                            " To tell you how to proceed, the user said:\n") + feedback
    rejected = tool_use("Write", {"file_path": "/home/ada/x.txt", "content": "x"})
    ran = tool_use("Bash", {"command": "ls"})
    cut = assistant(text("The first half"))
    cut["message"]["stop_reason"] = "max_tokens"
    entries = chain(user("go"), assistant(rejected),
                    tool_result(rejected["id"], said, is_error=True, toolDenialKind="user-rejected",
                                toolDenialBeforeRun=True),
                    assistant(ran), tool_result(ran["id"], "a.txt"), user("write it all"), cut)
    write_jsonl(tmp_path / "in" / PROJECT_DIR / f"{SESSION_ID}.jsonl", entries)
    result = run("json", str(tmp_path / "in" / PROJECT_DIR), "-o", str(tmp_path / "json"), "-q")
    assert result.exit_code == 0, result.output
    (document,) = [d for name, d in documents(tmp_path / "json").items() if name != "index.json"]
    assert schema_problems(document) == []
    calls = {e["name"]: e["result"] for e in document["events"] if e["type"] == "tool_call"}
    assert calls["Write"]["ending"] == "rejected" and calls["Write"]["feedback"] == feedback
    assert calls["Write"]["instruction"] and "STOP" not in calls["Write"]["text"]
    assert calls["Bash"]["ending"] is None and calls["Bash"]["feedback"] is None
    assert calls["Bash"]["instruction"] is None and calls["Bash"]["text"] == "a.txt"
    (stopped,) = [e for e in document["events"] if e["type"] == "notice" and e["kind"] == "stopped"]
    assert stopped["text"] == "Claude's reply was cut off: it reached the model's output-token limit"
