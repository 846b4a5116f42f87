"""How each field of a session's summary is redacted."""

from __future__ import annotations

from typing import Any

from ...core.model import Commit, FileTouch, OutlineItem, Session, SubagentCall, Usage

TEXT = "text"
"""Untrusted text from the transcript: every string in it, mapping keys included, is redacted."""
IDENTIFIER = "identifier"
"""An identifier or a time from the transcript: only tokens of a known format are looked for (the rules by
context would find secrets in ids; an id must keep its shape)."""
OURS = "ours"
"""Made by sessionsite (numbers, digests, anchors made by `identifier`, words of its own), or a name from
the file system (the project folder, which discovery redacts with --redact-paths, and file names), or the
input's path, which no output holds."""

# For each model class a session summary holds, how each of its fields is redacted; a mapping's rule may
# be a pair (its keys', its values'). Nested dataclasses follow their own entry. A field added to the model
# and not named here fails the build and the tests (test_redact.py).
SCHEMA: dict[type, dict[str, Any]] = {
    Session: {
        "key": OURS, "session_id": IDENTIFIER, "source": OURS, "project_dir": OURS, "cwd": TEXT, "title": TEXT,
        "slug": TEXT, "git_branch": TEXT, "models": TEXT, "versions": TEXT, "started": IDENTIFIER,
        "ended": IDENTIFIER, "events": OURS, "prompt_count": OURS, "first_prompt": TEXT, "first_action": TEXT, "usage": OURS,
        "usage_by_model": (TEXT, OURS), "reported_cost_by_model": (TEXT, OURS), "active_ms": OURS, "agent_id": IDENTIFIER, "parent_key": OURS,
        "uuid_digests": OURS, "replay_digests": OURS, "leaf_summaries": (IDENTIFIER, TEXT), "custom_title": TEXT, "from_progress": OURS,
        "event_counts": OURS, "outline": TEXT, "tool_call_count": OURS, "first_plan_status": OURS,
        "first_plan_how": TEXT, "started_plan_digest": OURS, "started_plan_text": TEXT, "pending_plans": OURS,
        "role_hint": OURS, "plan_source_id": IDENTIFIER, "subagent_calls": TEXT, "skipped_entries": OURS,
        "tokens_by_day": (IDENTIFIER, OURS), "tool_counts": (TEXT, OURS), "tool_errors": (TEXT, OURS),
        "api_errors": OURS, "files_touched": TEXT, "files_left_out": OURS, "commits": TEXT,
        # Set by `link`, from summaries already redacted.
        "chain_key": OURS, "role": OURS, "plan_source_key": OURS, "continues_key": OURS, "replayed": OURS,
        "parent_anchor": OURS, "parent_anchor_page": OURS, "call_subagents": OURS, "accepted_plan_anchor": OURS,
        "page_starts": OURS, "previous_key": OURS, "next_key": OURS, "subagent_keys": OURS,
    },
    OutlineItem: {"anchor": OURS, "text": TEXT, "timestamp": IDENTIFIER, "page": OURS},
    SubagentCall: {"anchor": OURS, "page": OURS, "agent_id": IDENTIFIER, "prompt_digest": OURS, "description": TEXT,
                   "name": TEXT},
    FileTouch: {"path": TEXT, "changes": OURS, "places": OURS},
    # The subject and branch are what the transcript printed; the forge's address came from a push's output.
    Commit: {"sha": IDENTIFIER, "branch": TEXT, "subject": TEXT, "anchor": OURS, "page": OURS, "timestamp": IDENTIFIER,
             "files_changed": OURS, "insertions": OURS, "deletions": OURS, "root": OURS, "amend": OURS,
             "forge": TEXT},
    Usage: {name: OURS for name in Usage.__dataclass_fields__},
}
