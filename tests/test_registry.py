"""The registries of handlers by name: a name taken twice stops the import with both named, and a name
nobody registered goes to the fallback."""

from __future__ import annotations

import importlib
import sys
import textwrap
import typing

import pytest

from generator.core.model import (AssistantText, BashMode, Event, Notice, Plan, Prompt, SlashCommand, Thinking,
                                  ToolCall, Unknown, Unreadable)
from generator.core.registry import DuplicateRegistration, Registry
from generator.render.markdown import SINGLE_EVENTS
from generator.render.markdown.blocks import Group, Prose
from generator.render.markdown.tools import RENDERERS, ToolContext, render_tool
from generator.render.search import INDEXERS, documents_of

A_SECOND_BASH_RENDERER = """
from generator.render.markdown.tools import ToolView, renders

@renders("Bash")
def my_bash(call, context):
    return ToolView("mine", "", ())
"""


def test_a_second_renderer_for_a_tool_fails_at_import_naming_both(tmp_path, monkeypatch):
    (tmp_path / "second_bash_renderer.py").write_text(textwrap.dedent(A_SECOND_BASH_RENDERER))
    monkeypatch.syspath_prepend(str(tmp_path))
    before = RENDERERS.get("Bash")
    with pytest.raises(DuplicateRegistration) as raised:
        importlib.import_module("second_bash_renderer")
    sys.modules.pop("second_bash_renderer", None)
    message = str(raised.value)
    assert "'Bash'" in message and "renderers of tool calls" in message
    assert "generator.render.markdown.tool_commands.bash" in message  # the one registered first
    assert "second_bash_renderer.my_bash" in message and str(tmp_path / "second_bash_renderer.py") in message
    assert RENDERERS.get("Bash") is before  # the first keeps its place


def test_one_decorator_naming_a_tool_twice_is_refused():
    registry: Registry[str, object] = Registry("handlers")
    with pytest.raises(DuplicateRegistration, match="two handlers for 'x'"):
        registry.register("x", "x")(print)


def test_a_second_fallback_is_refused():
    registry: Registry[str, object] = Registry("handlers")
    registry.fallback(print)
    with pytest.raises(DuplicateRegistration, match="two fallbacks among the handlers"):
        registry.fallback(repr)


def test_without_a_fallback_an_unknown_name_says_which_registry():
    registry: Registry[str, object] = Registry("handlers of message parts")
    registry.register("text")(print)
    assert registry.lookup("text") is print
    with pytest.raises(LookupError, match="no handlers of message parts for 'image', and no fallback"):
        registry.lookup("image")


def call(name: str) -> ToolCall:
    return ToolCall(anchor="t1", timestamp="", tool_use_id="toolu_1", name=name,
                    input={"command": "echo a secret plan", "description": "shown first"})


@pytest.mark.parametrize("name", ["SomeToolFromTomorrow", "bash", "Bash ", "", "__class__", "get", "mcp__srv__tool"])
def test_an_unknown_tool_falls_back_to_its_input_as_json(name):
    view = render_tool(call(name), ToolContext(cwd="/work"))
    assert view.label == ("srv · tool" if name.startswith("mcp__") else name)
    shown = "".join(getattr(block, "text", str(block)) for block in view.body)
    assert '"command": "echo a secret plan"' in shown  # the generic view shows the input whole


def test_a_known_tool_is_not_rendered_by_the_fallback():
    view = render_tool(call("Bash"), ToolContext(cwd="/work"))
    shown = "".join(getattr(block, "text", str(block)) for block in view.body)
    assert '"command"' not in shown and "echo a secret plan" in shown


def group(kind: str, words: str) -> Group:
    return Group(kind, "<div>", (Prose(words),), "</div>", anchor="e1")


@pytest.mark.parametrize("kind", ["notice", "unknown", "unreadable", "a-kind-from-tomorrow", "", "__class__"])
def test_a_group_of_a_kind_the_index_does_not_know_gives_no_document(kind):
    assert list(documents_of([group(kind, "the tide is high")])) == []


@pytest.mark.parametrize(("kind", "document_kind"), [("prompt", "prompt"), ("message", "reply"),
                                                     ("thinking", "thinking"), ("plan", "plan")])
def test_a_group_the_index_knows_gives_its_text(kind, document_kind):
    [document] = documents_of([group(kind, "the tide is high")], "2026-01-01T00:00:00Z")
    assert (document.kind, document.anchor, document.text) == (document_kind, "e1", "the tide is high")


def test_a_second_indexer_for_a_group_kind_is_refused_naming_both():
    with pytest.raises(DuplicateRegistration) as raised:
        @INDEXERS.register("prompt")
        def another_prompt_indexer(group, timestamp):  # pragma: no cover - never registered
            return iter(())
    assert "generator.render.search._prompt_documents" in str(raised.value)
    assert "another_prompt_indexer" in str(raised.value) and __file__ in str(raised.value)


def test_every_event_shown_on_its_own_has_its_markdown_writer():
    """The kinds of `Event` outside Claude's reply each have a writer; none goes to the fallback."""
    shown_on_their_own = {Prompt, Plan, SlashCommand, BashMode, Notice, Unknown, Unreadable}
    assert shown_on_their_own <= set(SINGLE_EVENTS)
    assert set(typing.get_args(Event)) - set(SINGLE_EVENTS) == {AssistantText, Thinking, ToolCall}


def test_a_second_writer_for_an_event_type_is_refused_naming_both():
    with pytest.raises(DuplicateRegistration) as raised:
        SINGLE_EVENTS.register(Prompt)(print)
    assert "generator.render.markdown.single_events.SingleEventWriter._prompt_event" in str(raised.value)
    assert "builtins.print" in str(raised.value)


def every_registry() -> list[tuple[str, Registry]]:
    """Every registry the package defines, found by importing each of its modules: a registry added later is
    checked too."""
    import pkgutil

    import generator

    found: dict[int, tuple[str, Registry]] = {}
    for module in pkgutil.walk_packages(generator.__path__, "generator."):
        if module.name.endswith("__main__"):
            continue
        imported = importlib.import_module(module.name)
        for name, value in vars(imported).items():
            if isinstance(value, Registry):
                found.setdefault(id(value), (f"{module.name}.{name}", value))
    return sorted(found.values(), key=lambda item: item[0])


REGISTRIES = every_registry()


def test_the_package_has_the_registries_this_file_knows_of():
    assert {registry for _, registry in REGISTRIES} >= {SINGLE_EVENTS, RENDERERS, INDEXERS}


@pytest.mark.parametrize(("name", "registry"), REGISTRIES, ids=[name for name, _ in REGISTRIES])
def test_every_registry_refuses_a_second_handler_for_a_name_it_has(name, registry):
    taken = next(iter(registry))
    before = registry.get(taken)
    with pytest.raises(DuplicateRegistration, match=f"two {registry.what} for"):
        registry.register(taken)(repr)
    assert registry.get(taken) is before


@pytest.mark.parametrize(("name", "registry"), REGISTRIES, ids=[name for name, _ in REGISTRIES])
def test_every_registry_refuses_a_second_fallback(name, registry):
    try:
        registry.lookup(object())
    except LookupError:
        pytest.skip("no fallback: setting one would stay for the rest of the run")
    with pytest.raises(DuplicateRegistration, match=f"two fallbacks among the {registry.what}"):
        registry.fallback(repr)


@pytest.mark.parametrize("table", ["ENTRY_HANDLERS", "SYSTEM_HANDLERS", "ASSISTANT_PART_HANDLERS",
                                   "USER_PART_HANDLERS"])
def test_every_table_of_the_interpreter_refuses_a_second_handler_for_a_name(table):
    from generator.stages import interpret

    handlers = getattr(interpret, table)
    taken = next(iter(handlers))
    before = handlers[taken]
    with pytest.raises(DuplicateRegistration, match=f"two handlers for {taken!r}"):
        interpret.handles(handlers, taken)(repr)
    assert handlers[taken] is before
