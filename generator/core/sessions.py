"""A session's summary (what phase 1 keeps of each file), and the archive of linked sessions phase 2 writes
out. Each field of a summary says how it is redacted (`core.redaction`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping

from .entries import Diagnostic
from .events import Event
from .redaction import IDENTIFIER, OURS, TEXT, declares_redaction, redacted_as


@declares_redaction
@dataclass(frozen=True, slots=True)
class OutlineItem:
    """A prompt in a session's outline."""

    anchor: str = field(metadata=redacted_as(OURS))
    """Where the prompt is."""
    text: str = field(metadata=redacted_as(TEXT))
    """Its first words."""
    timestamp: str = field(metadata=redacted_as(IDENTIFIER))
    """When it was typed."""
    page: int = field(metadata=redacted_as(OURS))
    """The page of the session it is on (1-based)."""


@declares_redaction
@dataclass(frozen=True, slots=True)
class SubagentCall:
    """A Task/Agent call, as `link` needs it to find the transcript of the run it started."""

    anchor: str = field(metadata=redacted_as(OURS))
    """The call's anchor."""
    page: int = field(metadata=redacted_as(OURS))
    """The page of the session it is on."""
    agent_id: str = field(metadata=redacted_as(IDENTIFIER))
    """The agent id its result names, if any."""
    prompt_digest: str = field(metadata=redacted_as(OURS))
    """Digest of the prompt it gave (1.x inline runs are matched by their first prompt)."""
    description: str = field(metadata=redacted_as(TEXT))
    """The caller's short description of the run."""
    name: str = field(default="", metadata=redacted_as(TEXT))
    """The name the call gave the agent (agent teams), by which messages are sent to it."""


@declares_redaction
@dataclass(frozen=True, slots=True)
class FileTouch:
    """A file that a session's Edit, MultiEdit, Write or NotebookEdit calls changed."""

    path: str = field(metadata=redacted_as(TEXT))
    """The path as the tool call gave it (untrusted)."""
    changes: int = field(metadata=redacted_as(OURS))
    """How many calls changed it (failed calls are not counted)."""
    places: tuple[tuple[str, int], ...] = field(metadata=redacted_as(OURS))
    """The first few of those calls: (anchor, page of the session it is on)."""


@declares_redaction
@dataclass(frozen=True, slots=True)
class Commit:
    """A commit a session made: a `git commit` Bash call whose output printed `[branch sha] subject`."""

    sha: str = field(metadata=redacted_as(IDENTIFIER))
    """The abbreviated hash, as git printed it (lower-case hex)."""
    branch: str = field(metadata=redacted_as(TEXT))
    """The branch it was made on, as printed (`detached HEAD` when there was none); "" when a quiet commit
    printed none and the command did not name it."""
    subject: str = field(metadata=redacted_as(TEXT))
    """The first line of its message, as printed (untrusted)."""
    anchor: str = field(metadata=redacted_as(OURS))
    """The anchor of the Bash call that made it."""
    page: int = field(metadata=redacted_as(OURS))
    """The page of the session that call is on."""
    timestamp: str = field(metadata=redacted_as(IDENTIFIER))
    """When the call's result came back (the call's own time when the result has none)."""
    files_changed: int = field(default=-1, metadata=redacted_as(OURS))
    """Files changed, from git's stat line; -1 when git printed none."""
    insertions: int = field(default=0, metadata=redacted_as(OURS))
    """Lines added, from the stat line."""
    deletions: int = field(default=0, metadata=redacted_as(OURS))
    """Lines removed, from the stat line."""
    root: bool = field(default=False, metadata=redacted_as(OURS))
    """The first commit of its repository (`(root-commit)`)."""
    amend: bool = field(default=False, metadata=redacted_as(OURS))
    """Made with `--amend`: it replaced the commit before it."""
    forge: str = field(default="", metadata=redacted_as(TEXT))
    """The repository's web address (`https://github.com/owner/repo`), when the session's own `git push`
    output names the remote it went to; `--repo-url` overrides it."""


@declares_redaction
@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts, each API message counted once."""

    input_tokens: int = field(default=0, metadata=redacted_as(OURS))
    """Fresh input tokens."""
    output_tokens: int = field(default=0, metadata=redacted_as(OURS))
    """Output tokens as reported (Claude Code under-reports these for streamed replies)."""
    cache_read_tokens: int = field(default=0, metadata=redacted_as(OURS))
    """Input tokens served from the prompt cache."""
    cache_creation_tokens: int = field(default=0, metadata=redacted_as(OURS))
    """Input tokens written to the prompt cache."""
    cache_creation_1h_tokens: int = field(default=0, metadata=redacted_as(OURS))
    """Of those, the ones written to the one-hour cache (they cost more than the five-minute cache's);
    0 when the log does not split them."""


@declares_redaction
@dataclass(frozen=True, slots=True)
class Session:
    """One transcript: a main session or a subagent's run."""

    key: str = field(metadata=redacted_as(OURS))
    """Unique key in this build: the session id, or `<session id>/agent-<agent id>` for a subagent."""
    session_id: str = field(metadata=redacted_as(IDENTIFIER))
    """The `sessionId` Claude Code wrote (for a subagent, its parent's)."""
    source: str = field(metadata=redacted_as(OURS))
    """Path of the JSONL file."""
    project_dir: str = field(metadata=redacted_as(OURS))
    """Name of the project folder it was found in (for an agent that keeps no such folder, Codex CLI, the one
    Claude Code would keep for the folder it ran in)."""
    cwd: str = field(metadata=redacted_as(TEXT))
    """Working directory the session ran in."""
    title: str = field(metadata=redacted_as(TEXT))
    """Best title: custom title, then summary, then the first real prompt."""
    slug: str = field(default="", metadata=redacted_as(TEXT))
    """Claude Code's slug; shared by sessions of one plan chain."""
    git_branch: str = field(default="", metadata=redacted_as(TEXT))
    """Git branch at the start."""
    models: tuple[str, ...] = field(default=(), metadata=redacted_as(TEXT))
    """Models that replied, in order of first use."""
    versions: tuple[str, ...] = field(default=(), metadata=redacted_as(TEXT))
    """Versions of the agent that wrote it (`agent`) seen, in order of first use."""
    agent: str = field(default="claude-code", metadata=redacted_as(OURS))
    """The coding agent that wrote it (`stages.agents`: claude-code, codex): its label, and nothing more."""
    started: str = field(default="", metadata=redacted_as(IDENTIFIER))
    """Timestamp of the first entry."""
    ended: str = field(default="", metadata=redacted_as(IDENTIFIER))
    """Timestamp of the last entry."""
    events: tuple[Event, ...] = field(default=(), metadata=redacted_as(OURS))
    """Everything that happened, in file order. Empty in phase 1's archive, which holds summaries only:
    phase 2 streams the events again from the file."""
    prompt_count: int = field(default=0, metadata=redacted_as(OURS))
    """Number of real (visible) prompts."""
    rewound: Mapping[str, str] = field(default_factory=dict, metadata=redacted_as(OURS))
    """Prompts the user later went back before (a rewind, or the prompt edited), by anchor: the anchor of the
    notice where the conversation went on instead."""
    task_count: int = field(default=0, metadata=redacted_as(OURS))
    """For a subagent run: the tasks the agent that started it gave it (its prompts, which no person typed)."""
    first_prompt: str = field(default="", metadata=redacted_as(TEXT))
    """Text of the first real prompt."""
    first_action: str = field(default="", metadata=redacted_as(TEXT))
    """For a session with no prompt: the first thing that happened in it (a slash or shell command, a
    system message, a reply), to name it by."""
    usage: Usage = field(default_factory=Usage, metadata=redacted_as(OURS))
    """Token usage, each API message counted once."""
    usage_by_model: Mapping[str, Usage] = field(default_factory=dict, metadata=redacted_as(TEXT, OURS))
    """The same, split by the model that replied."""
    reported_cost_by_model: Mapping[str, float] = field(default_factory=dict, metadata=redacted_as(TEXT, OURS))
    """Dollars by model as Claude Code itself reported them (`cost-state`), when the log has them."""
    active_ms: int = field(default=0, metadata=redacted_as(OURS))
    """Time Claude spent working, summed from `turn_duration` entries (0 when the version wrote none)."""
    agent_id: str = field(default="", metadata=redacted_as(IDENTIFIER))
    """For a subagent transcript, its agent id."""
    parent_key: str = field(default="", metadata=redacted_as(OURS))
    """For a subagent transcript, the key of the session that started it."""
    uuid_digests: bytes = field(default=b"", metadata=redacted_as(OURS))
    """Every entry uuid in the file (8-byte digests, in file order), for linking summaries and
    continuations."""
    replay_digests: bytes = field(default=b"", metadata=redacted_as(OURS))
    """The same entries' uuids with their times (8-byte digests, `duplicates.replay_digest`): what a session
    that continues this one replays, told apart from another entry that has the same uuid."""
    leaf_summaries: Mapping[str, str] = field(default_factory=dict, metadata=redacted_as(IDENTIFIER, TEXT))
    """`summary` entries found in this file: leafUuid -> summary text (they may describe other files)."""
    custom_title: str = field(default="", metadata=redacted_as(TEXT))
    """Title set with /title or /rename, if any."""
    from_progress: bool = field(default=False, metadata=redacted_as(OURS))
    """A subagent transcript rebuilt from the parent's agent_progress entries (its own file was missing)."""
    event_counts: Mapping[str, int] = field(default_factory=dict, metadata=redacted_as(OURS))
    """Events by kind, for the build report."""
    outline: tuple[OutlineItem, ...] = field(default=(), metadata=redacted_as(TEXT))
    """The visible prompts, for the page's outline."""
    tool_call_count: int = field(default=0, metadata=redacted_as(OURS))
    """Tool calls made."""
    first_plan_status: str = field(default="", metadata=redacted_as(OURS))
    """Status of the first plan in the session, if any (after `link`: accepted in a later session)."""
    first_plan_how: str = field(default="", metadata=redacted_as(TEXT))
    """How that plan was decided."""
    started_plan_digest: str = field(default="", metadata=redacted_as(OURS))
    """For a session started from an accepted plan (`planContent`): digest of the plan's text."""
    started_plan_text: str = field(default="", metadata=redacted_as(TEXT))
    """The start of that plan's text (its first line titles the session)."""
    pending_plans: tuple[tuple[str, str], ...] = field(default=(), metadata=redacted_as(OURS))
    """Plans with no answer in this file: (anchor, digest of the text)."""
    role_hint: str = field(default="", metadata=redacted_as(OURS))
    """implementation, planning or further work, by what the session holds; `link` sets `role` in a chain."""
    plan_source_id: str = field(default="", metadata=redacted_as(IDENTIFIER))
    """The planning session's file stem, named in the first message of an implementation session."""
    subagent_calls: tuple[SubagentCall, ...] = field(default=(), metadata=redacted_as(TEXT))
    """Task/Agent calls."""
    skipped_entries: int = field(default=0, metadata=redacted_as(OURS))
    """Entries left out because the session this one continues holds them."""
    tokens_by_day: Mapping[str, int] = field(default_factory=dict, metadata=redacted_as(IDENTIFIER, OURS))
    """All tokens (read, written and output) by the UTC day (YYYY-MM-DD) of the message that used them."""
    tool_counts: Mapping[str, int] = field(default_factory=dict, metadata=redacted_as(TEXT, OURS))
    """Tool calls by tool name (past a few hundred names, the rest count under `OTHER_TOOLS`)."""
    tool_errors: Mapping[str, int] = field(default_factory=dict, metadata=redacted_as(TEXT, OURS))
    """Tool calls whose result was an error, by tool name."""
    api_errors: int = field(default=0, metadata=redacted_as(OURS))
    """API errors Claude Code recorded (overloaded, rate limited, …)."""
    files_touched: tuple[FileTouch, ...] = field(default=(), metadata=redacted_as(TEXT))
    """Files changed by the session's tool calls, in the order first changed (capped; see `files_left_out`)."""
    files_left_out: int = field(default=0, metadata=redacted_as(OURS))
    """Changes to further files, past the cap of `files_touched` (counted, not named: the cap is there
    to keep a summary small)."""
    commits: tuple[Commit, ...] = field(default=(), metadata=redacted_as(TEXT))
    """Commits the session's `git commit` calls made, in the order they were made (capped, as files are)."""

    chain_key: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: the chain (sessions of one project sharing a slug) this session belongs to, if any."""
    role: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: planning, implementation, or further work, within its chain."""
    plan_source_key: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: for a session started from an accepted plan, the session that made the plan."""
    continues_key: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: the session this one resumes or continues (it replays that one's entries)."""
    replayed: int = field(default=0, metadata=redacted_as(OURS))
    """Set by `link`: events left out here because the continued session shows them."""
    forked: bool = field(default=False, metadata=redacted_as(OURS))
    """Set by `link`: this session is a fork of the one it continues (`--fork-session`: a copy of its history
    under the same name, then a branch of its own), not its continuation."""
    fork_keys: tuple[str, ...] = field(default=(), metadata=redacted_as(OURS))
    """Set by `link`: the sessions forked from this one."""
    parent_anchor: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: for a subagent transcript, the anchor of the call that started it."""
    parent_anchor_page: int = field(default=1, metadata=redacted_as(OURS))
    """Set by `link`: the page of the parent session that call is on."""
    call_subagents: Mapping[str, str] = field(default_factory=dict, metadata=redacted_as(OURS))
    """Set by `link`: subagent transcript key by the anchor of the Task/Agent call that started it, and by
    `to:` and the agent's name or id, for the messages sent to it (`link.RECIPIENT`)."""
    accepted_plan_anchor: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: a pending plan that a later session carried out (it shows as approved)."""
    page_starts: tuple[int, ...] = field(default=(0,), metadata=redacted_as(OURS))
    """Index of the first event of each HTML page; long sessions are split between turns."""
    previous_key: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: the session before this one in its chain (same slug), if any."""
    next_key: str = field(default="", metadata=redacted_as(OURS))
    """Set by `link`: the session after this one in its chain, if any."""
    subagent_keys: tuple[str, ...] = field(default=(), metadata=redacted_as(OURS))
    """Set by `link`: subagent transcripts started from this session."""

    @property
    def is_subagent(self) -> bool:
        return bool(self.agent_id)

    @property
    def is_listed(self) -> bool:
        """Counted and listed as a session of its project: every session but the subagent runs reached from
        the session that started them (a subagent log whose parent is not in the archive is listed)."""
        return not (self.is_subagent and self.parent_key)


@dataclass(frozen=True, slots=True)
class Project:
    """Sessions that ran in one working directory (one folder under ~/.claude/projects)."""

    dir_name: str
    """The encoded folder name, e.g. -home-ada-src-app."""
    path: str
    """The real path, taken from the sessions' cwd (the folder name is lossy)."""
    session_keys: tuple[str, ...]
    """Main sessions, newest first."""
    last_activity: str
    """Timestamp of the latest entry in any of its sessions."""


@dataclass(frozen=True, slots=True)
class Chain:
    """One piece of work split over several sessions: planning, then implementation, then more."""

    key: str
    """`<project>/<slug>`."""
    slug: str
    """The slug its sessions share."""
    session_keys: tuple[str, ...]
    """Its sessions, oldest first."""


@dataclass(frozen=True, slots=True)
class Archive:
    """Everything phase 1 produced: the linked picture that phase 2 writes out."""

    projects: tuple[Project, ...]
    """Projects, most recently active first."""
    sessions: Mapping[str, Session]
    """Every session and subagent transcript by key."""
    chains: Mapping[str, Chain] = field(default_factory=dict)
    """Chains of two or more sessions, by key."""
    kept: Mapping[str, str] = field(default_factory=dict)
    """Sessions whose log is gone and was read from the vault, by key: the day the vault last saw it."""


@dataclass(frozen=True, slots=True)
class Interpreted:
    """What interpreting one file produced (`stages.interpret`): kept in the manifest between builds."""

    session: Session
    """The session, or a subagent transcript."""
    diagnostics: tuple[Diagnostic, ...]
    """Problems found while reading and interpreting it."""
    unknown: Counter[str]
    """Names that fell through to the generic fallback, counted."""
    has_conversation: bool
    """False for metadata-only files (only summaries or snapshots), which get no page."""
    sidechains: tuple[Session, ...] = ()
    """Subagent runs found in the main file (1.x inline `isSidechain` entries, 2.x agent_progress)."""
