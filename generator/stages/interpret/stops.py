"""What stopped a turn before Claude finished it, and whose limit it was, in the reader's words: a reply cut
off at the model's output-token limit or context window, a refusal by the model, a turn the API paused
(`message.stop_reason`), a limit of the account Claude Code reported in a message of its own (the `error`
field of its synthetic API error message: rate limit, usage or credit limit), and the user's --max-turns
(an attachment `max_turns_reached`). A stop reason Claude Code adds later is said as the API named it."""

from __future__ import annotations

from typing import Any, Mapping

STOP_REASONS: dict[str, str] = {
    "max_tokens": "Claude's reply was cut off: it reached the model's output-token limit",
    "model_context_window_exceeded": "Claude's reply was cut off: the conversation reached the model's context window",
    "refusal": "The model declined to go on with this request (a refusal by the model)",
    "pause_turn": "The API paused Claude's turn (a long-running turn); Claude Code asks it to go on",
}
"""By `message.stop_reason`: what stopped a reply other than its end or a tool call, and whose limit it was."""

NORMAL_STOP_REASONS = frozenset({"end_turn", "tool_use", "stop_sequence"})
"""Stop reasons of a reply that ended as Claude meant it to: nothing to say."""

API_ERROR_WHO: dict[str, str] = {
    "rate_limit": "Stopped by the account's rate or usage limit",
    "billing_error": "Stopped by the account's credit or spend limit",
    "max_output_tokens": "Stopped by the model's output-token limit",
    "authentication_failed": "Stopped: Claude Code could not sign in to the API",
}
"""By the `error` field of the message Claude Code writes in place of a reply: who stopped the turn, said
before Claude Code's own text ("API Error: 429 …", "You've hit your limit …")."""


def stop_reason_notice(message: Mapping[str, Any]) -> str:
    """What a reply's `stop_reason` says stopped it, for a reader; empty for a reply that ended normally."""
    reason = message.get("stop_reason")
    if not isinstance(reason, str) or not reason or reason in NORMAL_STOP_REASONS:
        return ""
    return STOP_REASONS.get(reason, f"Claude's reply stopped ({' '.join(reason.split())[:80]})")


def api_error_text(data: Mapping[str, Any], text: str) -> str:
    """Claude Code's API error message, with who stopped the turn before it when its `error` field says."""
    who = API_ERROR_WHO.get(error) if isinstance(error := data.get("error"), str) else None
    return f"{who}: {text}" if who else text


def max_turns_text(attachment: Mapping[str, Any]) -> str:
    """The user's --max-turns limit reached, as Claude Code records it (`maxTurns`, `turnCount`)."""
    limit = attachment.get("maxTurns")
    said = f" {limit}" if isinstance(limit, int) and not isinstance(limit, bool) else ""
    return f"Stopped by the user's limit on turns (--max-turns{said}): Claude Code stopped the turn here"
