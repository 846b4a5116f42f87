"""Bookkeeping entries: Claude Code's records about the session rather than the conversation. Titles (a
summary, a custom or AI title), the reported cost, a pull request made from the session, progress
entries (the subagent messages in them are collected to rebuild its run), and records that are never
shown (file-history snapshots, requests to the model, and the like)."""

from __future__ import annotations

from typing import Any, Mapping

from ...core.model import Entry, Notice, NoticeKind
from .dispatch import ENTRY_HANDLERS, handles
from .session_state import SessionState


class BookkeepingEntries(SessionState):
    """The handlers of bookkeeping entries: not conversation; what each is for, and so whether it is shown."""

    @handles(ENTRY_HANDLERS, "file-history-snapshot", "file-history-delta", "last-prompt", "agent-name", "tools-used", "atis-latch",
             "mode", "relocated", "worktree-state")
    def _claude_code_bookkeeping(self, entry: Entry) -> None:
        """Claude Code's own bookkeeping: not shown."""

    @handles(ENTRY_HANDLERS, "api-request", "api-request-shape", "api-request-blob")
    def _request_record(self, entry: Entry) -> None:
        """What was sent to the model (system prompt, tool schemas, memory files): never published."""

    @handles(ENTRY_HANDLERS, "cost-state")
    def _cost_state(self, entry: Entry) -> None:
        """Claude Code's own running cost of the session, by model: the last one is the total. One that it
        flags as priced at a default, some model being unknown to it, is a guess and not taken."""
        if entry.data.get("hasUnknownModelCost") is True:
            self.metadata.reported_cost_by_model = {}
            return
        self.metadata.note_reported_cost(entry.data.get("modelUsage"), entry.data.get("totalCostUSD"))

    @handles(ENTRY_HANDLERS, "progress")
    def _progress(self, entry: Entry) -> None:
        """Live progress of hooks, bash, MCP and web search is a replay of what the results already hold,
        and is skipped; agent_progress carries a subagent's messages and is collected to rebuild its
        transcript when its own file is missing."""
        progress = entry.data.get("data")
        if isinstance(progress, dict) and progress.get("type") == "agent_progress":
            self._agent_progress(entry.data, progress, entry.line)

    def _agent_progress(self, data: Mapping[str, Any], progress: Mapping[str, Any], line: int = 0) -> None:
        """2.x streams a subagent's messages into the parent as progress entries. They are kept to rebuild
        the subagent's transcript when its own `agent-*.jsonl` file is missing."""
        message = progress.get("message")
        agent_id = progress.get("agentId")
        if not isinstance(message, dict) or not isinstance(agent_id, str) or self.progress_sink is None:
            return
        feed = self.progress_sink(agent_id)
        if feed is None:  # nothing is wanted of that run (phase 2, when the agent's own file shows it)
            return
        entry = {**message, "isSidechain": True, "agentId": agent_id}
        for name in ("timestamp", "sessionId", "cwd", "version", "gitBranch"):
            entry.setdefault(name, data.get(name))
        feed(Entry(str(self.source.path), line, entry))

    @handles(ENTRY_HANDLERS, "summary")
    def _summary(self, entry: Entry) -> None:
        """A title for a session, which may be another file's (the leaf it names says which)."""
        data = entry.data
        summary = data.get("summary")
        if not isinstance(summary, str) and isinstance(data.get("data"), dict):
            summary = data["data"].get("summary")
        if isinstance(summary, str):
            self.metadata.leaf_summaries[str(data.get("leafUuid", ""))] = summary

    @handles(ENTRY_HANDLERS, "custom-title")
    def _custom_title(self, entry: Entry) -> None:
        if isinstance(entry.data.get("customTitle"), str):
            self.metadata.custom_title = entry.data["customTitle"]

    @handles(ENTRY_HANDLERS, "ai-title")
    def _ai_title(self, entry: Entry) -> None:
        if isinstance(entry.data.get("aiTitle"), str):
            self.metadata.ai_title = entry.data["aiTitle"]

    @handles(ENTRY_HANDLERS, "pr-link")
    def _pr_link(self, entry: Entry) -> None:
        """Shown: a pull request made from the session is part of its story."""
        data = entry.data
        if data.get("prUrl"):
            self.events.append(Notice(self._next_anchor(data.get("uuid")), self._time(data), NoticeKind.PR_LINK,
                                      f"Pull request #{data.get('prNumber', '')}: {data['prUrl']}"))
