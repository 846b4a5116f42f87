"""Write a synthetic Claude Code archive of a chosen size, in Claude Code's real on-disk layout.

    python3 benchmarks/make_archive.py OUT [--size-mb 100] [--seed 1]
    python3 benchmarks/make_archive.py OUT --single-session-mb 1000

OUT becomes a folder like ~/.claude/projects: `OUT/<encoded-project-dir>/<session-uuid>.jsonl`, and for
some Agent/Task calls `OUT/<encoded-project-dir>/<session-uuid>/subagents/agent-<id>.jsonl`. Entries
follow the 2.1.x format seen in the real corpus (../shared/corpus/public): streamed assistant lines that
share `message.id` and repeat `usage`, tool results with their structured `toolUseResult`, `turn_duration`
system entries, file-history snapshots, pasted and read PNG images as base64 in the middle of lines, and
now and then a tool output of 100 KB to 2 MB. About 70% of the bytes are tool results, as in real logs.

The output depends only on the seed and the size. Lines are written as they are made, so a 1 GB archive
(or a single 1 GB session) needs no more memory than a small one.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import resource
import struct
import sys
import time
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import BinaryIO

MB = 1_000_000

# Tool calls drawn per round, weighted roughly as in the corpus's FEATURES.md.
TOOL_WEIGHTS = {
    "Bash": 30, "Read": 24, "Edit": 15, "Grep": 8, "Glob": 6, "Write": 6, "TodoWrite": 6, "Agent": 2,
    "ReadImage": 0.4,
}
LARGE_OUTPUT_CHANCE = 0.0015  # per Bash call: a test log, a build log or a `cat` of a big file
TOOL_ERROR_CHANCE = 0.04
PASTED_IMAGE_CHANCE = 0.04  # per prompt
VERSIONS = ["2.1.39", "2.1.42", "2.1.97", "2.1.119", "2.1.136"]
MODELS = ["claude-opus-4-5-20251101", "claude-sonnet-4-6", "claude-opus-4-6", "claude-sonnet-4-5-20250929"]
USERS = ["ada", "sam", "lin", "noor", "jo", "kai"]
WORDS = (
    "the a an this that config test build cache module parser renderer session index page output input "
    "file folder path error warning value list map key token request response handler client server "
    "query schema table column row migration deploy release branch commit merge diff patch review fix "
    "refactor rename split extract inline function class method field type interface option flag default "
    "timeout retry limit batch stream queue worker process thread lock state event callback promise async "
    "await return raise check assert expect mock fixture snapshot coverage lint format style import export "
    "should would could might must now then first next after before because so and but or not only also "
    "still again instead rather quite very fairly mostly small large empty missing broken slow fast new old"
).split()
NAME_PARTS = (
    "user account order invoice payment cart item product price tax report chart metric log trace span "
    "auth login token session cache store queue job task worker schedule event hook plugin theme page view "
    "route api client server config setting flag feature search index parser lexer node tree graph edge"
).split()
PROJECT_NAMES = (
    "payments-api web-dashboard infra data-pipeline mobile-app docs-site cli-tools ml-experiments "
    "auth-service search-indexer billing notebook game-engine blog design-system monorepo scraper "
    "chat-bot firmware ops-scripts analytics crm-sync etl-jobs"
).split()


def new_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def hex_id(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(digits * 4):0{digits}x}"


def base62(rng: random.Random, length: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(rng.choices(alphabet, k=length))


def make_png(rng: random.Random, target_bytes: int) -> tuple[bytes, int, int]:
    """A valid, unique PNG of about target_bytes (noise does not compress, so size follows pixels)."""
    width = rng.choice([320, 480, 640, 800, 1024])
    height = max(1, target_bytes // (width * 3))
    rows = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")
    return png, width, height


class ContentPools:
    """Text made once per seed and then sliced, because drawing every line afresh would make a
    1 GB archive take many minutes. Windows into the pools keep outputs varied."""

    def __init__(self, rng: random.Random):
        self.sentences = [self._sentence(rng) for _ in range(3000)]
        self.code_files = [self._code_file(rng, index) for index in range(400)]
        self.log_lines = self._log_lines(rng, 20000)

    @staticmethod
    def _sentence(rng: random.Random) -> str:
        words = rng.choices(WORDS, k=rng.randint(6, 22))
        return " ".join(words).capitalize() + rng.choice([".", ".", ".", "?", ":"])

    @staticmethod
    def _identifier(rng: random.Random) -> str:
        return "_".join(rng.choices(NAME_PARTS, k=rng.randint(1, 3)))

    def _code_file(self, rng: random.Random, index: int) -> tuple[str, list[str]]:
        # Local shorthands keep the templates legible.
        def ident() -> str:
            return self._identifier(rng)

        def cls() -> str:
            return "".join(part.capitalize() for part in ident().split("_"))

        if rng.random() < 0.55:
            path = f"src/{rng.choice(NAME_PARTS)}/{ident()}.py"
            templates = [
                lambda: f"def {ident()}({ident()}, {ident()}=None):",
                lambda: f"    {ident()} = {ident()}({ident()})",
                lambda: f"    if {ident()} is None:",
                lambda: f"        return {ident()}",
                lambda: f"    for {ident()} in {ident()}:",
                lambda: f"        {ident()}.append({ident()}({ident()}))",
                lambda: f"class {cls()}({cls()}):",
                lambda: f'    """{rng.choice(self.sentences)}"""',
                lambda: f"from {rng.choice(NAME_PARTS)}.{ident()} import {ident()}",
                lambda: "",
                lambda: f"    # {rng.choice(self.sentences)}",
                lambda: f'        raise ValueError(f"{rng.choice(WORDS)} {{{ident()}!r}}")',
            ]
        else:
            path = f"src/{rng.choice(NAME_PARTS)}/{cls()}.ts"
            templates = [
                lambda: f"export function {cls()}({ident()}: {cls()}): Promise<{cls()}> {{",
                lambda: f"  const {ident()} = await {ident()}({ident()});",
                lambda: f"  if (!{ident()}) {{",
                lambda: "    return null;",
                lambda: "  }",
                lambda: "}",
                lambda: f"import {{ {cls()} }} from './{ident()}';",
                lambda: f"  // {rng.choice(self.sentences)}",
                lambda: f"  {ident()}.{ident()}({{ {ident()}: {rng.randint(0, 999)} }});",
                lambda: "",
            ]
        line_count = int(min(2500, rng.lognormvariate(4.6, 0.8)))
        return path, [rng.choice(templates)() for _ in range(max(8, line_count))]

    def _log_lines(self, rng: random.Random, count: int) -> list[str]:
        kinds = [
            lambda: f"tests/test_{self._identifier(rng)}.py::test_{self._identifier(rng)} "
                    f"{rng.choice(['PASSED', 'PASSED', 'PASSED', 'FAILED', 'SKIPPED'])} [{rng.randint(0, 100):3d}%]",
            lambda: f"-rw-r--r--  1 {rng.choice(USERS)} staff {rng.randint(100, 99999):>6} "
                    f"Mar {rng.randint(1, 28):2d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} "
                    f"{self._identifier(rng)}.{rng.choice(['py', 'ts', 'md', 'json'])}",
            lambda: f"{hex_id(rng, 7)} {rng.choice(self.sentences)}",
            lambda: f"src/{self._identifier(rng)}.ts({rng.randint(1, 900)},{rng.randint(1, 80)}): "
                    f"error TS{rng.randint(2000, 2999)}: {rng.choice(self.sentences)}",
            lambda: f"npm WARN deprecated {self._identifier(rng)}@{rng.randint(0, 9)}.{rng.randint(0, 20)}.0: "
                    f"{rng.choice(self.sentences)}",
            lambda: f"[{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}] "
                    f"{rng.choice(['INFO', 'DEBUG', 'WARN', 'ERROR'])} {rng.choice(self.sentences)}",
        ]
        return [rng.choice(kinds)() for _ in range(count)]

    def prose(self, rng: random.Random, approx_bytes: int) -> str:
        count = max(1, approx_bytes // 90)
        sentences = rng.choices(self.sentences, k=count)
        paragraphs = [" ".join(sentences[i:i + 4]) for i in range(0, count, 4)]
        return "\n\n".join(paragraphs)

    def log_window(self, rng: random.Random, approx_bytes: int) -> str:
        count = max(1, approx_bytes // 60)
        start = rng.randrange(len(self.log_lines))
        lines = (self.log_lines * (1 + (start + count) // len(self.log_lines)))[start:start + count]
        return "\n".join(lines)


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def dumps(entry: dict) -> bytes:
    # Claude Code writes compact JSON with UTF-8 left as is.
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


@dataclass
class Project:
    directory: Path
    cwd: str


@dataclass
class ArchiveStats:
    projects: int = 0
    sessions: int = 0
    subagent_files: int = 0
    bytes_total: int = 0
    bytes_tool_results: int = 0
    images: int = 0
    large_outputs: int = 0
    session_paths: list[Path] = field(default_factory=list)

    def add(self, other: ArchiveStats) -> None:
        self.sessions += other.sessions
        self.subagent_files += other.subagent_files
        self.bytes_total += other.bytes_total
        self.bytes_tool_results += other.bytes_tool_results
        self.images += other.images
        self.large_outputs += other.large_outputs
        self.session_paths += other.session_paths


class SessionWriter:
    """Writes one session (or one subagent transcript) line by line until it reaches its size."""

    def __init__(self, path: Path, project: Project, rng: random.Random, pools: ContentPools,
                 stats: ArchiveStats, started: datetime, session_id: str | None = None,
                 agent_id: str | None = None, version: str | None = None, model: str | None = None,
                 slug: str | None = None):
        self.path = path
        self.project = project
        self.rng = rng
        self.pools = pools
        self.stats = stats
        self.clock = started
        self.session_id = session_id or path.stem
        self.agent_id = agent_id  # set for a subagent transcript, whose entries are sidechain
        self.version = version or rng.choice(VERSIONS)
        self.model = model or rng.choice(MODELS)
        self.slug = slug or "-".join(rng.choices(WORDS, k=3))
        self.branch = rng.choice(["main", "main", "develop", f"feature/{rng.choice(NAME_PARTS)}"])
        self.parent: str | None = None
        self.prompt_id: str | None = None
        self.written = 0
        self.handle: BinaryIO | None = None  # open while writing

    # -- plumbing ---------------------------------------------------------------------------------

    def tick(self, low: float = 0.2, high: float = 20.0) -> str:
        self.clock += timedelta(seconds=self.rng.uniform(low, high))
        return iso(self.clock)

    def emit(self, entry: dict, is_tool_result: bool = False) -> None:
        data = dumps(entry)
        self.handle.write(data)
        self.written += len(data)
        self.stats.bytes_total += len(data)
        if is_tool_result:
            self.stats.bytes_tool_results += len(data)

    def envelope(self, kind: str, body: dict) -> dict:
        """Fields in the order Claude Code 2.1.x writes them."""
        entry_uuid = new_uuid(self.rng)
        entry = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None}
        if kind == "user" and self.prompt_id:
            entry["promptId"] = self.prompt_id
        if self.agent_id:
            entry["agentId"] = self.agent_id
        if kind == "assistant":  # assistant lines put `message` and `requestId` before `type`
            entry.update(body)
            entry["type"] = kind
        else:
            entry["type"] = kind
            entry.update(body)
        entry["uuid"] = entry_uuid
        entry["timestamp"] = self.tick()
        return entry

    def tail(self, entry: dict) -> dict:
        entry.update({"userType": "external", "entrypoint": "cli", "cwd": self.project.cwd,
                      "sessionId": self.session_id, "version": self.version, "gitBranch": self.branch,
                      "slug": self.slug})
        self.parent = entry["uuid"]
        return entry

    def usage(self) -> dict:
        created = self.rng.randint(0, 9000)
        return {
            "input_tokens": self.rng.randint(1, 12), "cache_creation_input_tokens": created,
            "cache_read_input_tokens": self.rng.randint(10000, 180000),
            "output_tokens": self.rng.randint(20, 4000),
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": created, "ephemeral_5m_input_tokens": 0},
            "inference_geo": "", "iterations": [], "speed": "standard",
        }

    # -- entries ----------------------------------------------------------------------------------

    def write(self, target_bytes: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "wb") as self.handle:
            self.emit({"type": "permission-mode", "permissionMode": "default", "sessionId": self.session_id})
            last_prompt = self.write_turn(target_bytes=target_bytes)
            while self.written < target_bytes:
                last_prompt = self.write_turn(target_bytes=target_bytes)
            self.emit({"type": "last-prompt", "lastPrompt": last_prompt[:200], "sessionId": self.session_id})
        self.handle = None

    def write_turn(self, rounds: int | None = None, target_bytes: int | None = None) -> str:
        """A prompt, one to eight rounds of tool calls, a closing reply, and the turn's duration.

        Rounds stop early once the file reaches target_bytes, so sessions land close to their size.
        A subagent's transcript is one such turn, begun by the Agent call's prompt."""
        is_subagent = self.agent_id is not None
        rng = self.rng
        turn_started = self.clock
        self.prompt_id = new_uuid(rng)
        prompt = self.pools.prose(rng, rng.choice([60, 120, 250, 600, 1500]))
        content: str | list = prompt
        extra = {}
        if not is_subagent and rng.random() < PASTED_IMAGE_CHANCE:
            content = [{"type": "text", "text": f"[Image #1]\n{prompt}"}, self.image_part(rng)[0]]
            extra["imagePasteIds"] = [1]
        entry = self.envelope("user", {"message": {"role": "user", "content": content}})
        if not is_subagent:
            self.emit({"type": "file-history-snapshot", "messageId": entry["uuid"],
                       "snapshot": {"messageId": entry["uuid"], "trackedFileBackups": {},
                                    "timestamp": entry["timestamp"]}, "isSnapshotUpdate": False})
        entry.update(extra)
        entry["permissionMode"] = "default"
        self.emit(self.tail(entry))

        for _ in range(rounds if rounds is not None else rng.randint(1, 8)):
            self.write_round()
            if target_bytes is not None and self.written >= target_bytes:
                break
        self.write_assistant([{"type": "text", "text": self.pools.prose(rng, rng.choice([500, 1200, 2500, 5000]))}],
                             stop_reason="end_turn")
        if not is_subagent:
            duration = self.clock - turn_started
            self.emit(self.tail(self.envelope("system", {
                "subtype": "turn_duration", "durationMs": int(duration.total_seconds() * 1000),
                "messageCount": rng.randint(3, 80), "isMeta": False})))
        return prompt

    def write_assistant(self, parts: list[dict], stop_reason: str | None) -> list[str]:
        """One API message, streamed as Claude Code does: one line per content block, same id and usage."""
        message_id = "msg_01" + base62(self.rng, 22)
        request_id = "req_011C" + base62(self.rng, 20)
        usage = self.usage()
        uuids = []
        for part in parts:
            message = {"model": self.model, "id": message_id, "type": "message", "role": "assistant",
                       "content": [part], "stop_reason": stop_reason, "stop_sequence": None,
                       "stop_details": None, "usage": usage}
            entry = self.envelope("assistant", {"message": message, "requestId": request_id})
            self.emit(self.tail(entry))
            uuids.append(entry["uuid"])
        return uuids

    def write_round(self) -> None:
        rng = self.rng
        parts: list[dict] = []
        if rng.random() < 0.5:
            parts.append({"type": "thinking", "thinking": self.pools.prose(rng, rng.choice([300, 800, 2000, 4000])),
                          "signature": base64.b64encode(rng.randbytes(rng.randint(200, 600))).decode()})
        if rng.random() < 0.6:
            parts.append({"type": "text", "text": self.pools.prose(rng, rng.choice([150, 400, 1000]))})
        allowed = [name for name in TOOL_WEIGHTS if not (self.agent_id and name == "Agent")]
        tools = rng.choices(allowed, weights=[TOOL_WEIGHTS[name] for name in allowed], k=rng.choice([1, 1, 1, 2, 3]))
        calls = [self.make_call(name) for name in tools]
        for call in calls:
            parts.append({"type": "tool_use", "id": call.tool_use_id, "name": call.name, "input": call.tool_input,
                          "caller": {"type": "direct"}})
        uuids = self.write_assistant(parts, stop_reason="tool_use")
        source = uuids[-1]
        for call in calls:
            call.finish(self)
            result = {"tool_use_id": call.tool_use_id, "type": "tool_result", "content": call.content}
            if call.is_error:
                result["is_error"] = True
            entry = self.envelope("user", {"message": {"role": "user", "content": [result]}})
            entry["toolUseResult"] = call.structured
            entry["sourceToolAssistantUUID"] = source
            self.emit(self.tail(entry), is_tool_result=True)
            if call.name in ("Edit", "Write") and self.agent_id is None:
                self.emit({"type": "file-history-snapshot", "messageId": entry["uuid"],
                           "snapshot": {"messageId": self.prompt_id, "trackedFileBackups": {
                               call.tool_input["file_path"]: {"backupFileName": f"{hex_id(rng, 16)}@v2",
                                                             "version": 2, "backupTime": entry["timestamp"]}},
                               "timestamp": entry["timestamp"]}, "isSnapshotUpdate": True})

    def make_call(self, name: str) -> ToolCall:
        return ToolCall(name, "toolu_01" + base62(self.rng, 22), self)

    def image_part(self, rng: random.Random) -> tuple[dict, int, int]:
        """A base64 PNG content part, and the image's width and height."""
        png, width, height = make_png(rng, rng.randint(20_000, 300_000))
        self.stats.images += 1
        part = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                            "data": base64.b64encode(png).decode()}}
        return part, width, height


class ToolCall:
    """One tool_use: its input now, its result (text and structured `toolUseResult`) on finish()."""

    def __init__(self, name: str, tool_use_id: str, writer: SessionWriter):
        rng, pools = writer.rng, writer.pools
        self.name = "Read" if name == "ReadImage" else name
        self.kind = name
        self.tool_use_id = tool_use_id
        self.is_error = False
        self.content: str | list = ""
        self.structured: dict | str = {}
        root = writer.project.cwd
        self.file_path, self.file_lines = rng.choice(pools.code_files)
        self.file_path = f"{root}/{self.file_path}"
        if name == "Bash":
            self.command = rng.choice(["pytest -q", "npm test", "git log --oneline -50", "ls -la src",
                                       "npm run build", "git diff --stat", "make check", "cargo build"])
            self.tool_input = {"command": self.command, "description": pools.prose(rng, 40)[:60]}
        elif name == "Read":
            self.tool_input = {"file_path": self.file_path}
        elif name == "ReadImage":
            self.file_path = f"{root}/screenshots/{hex_id(rng, 8)}.png"
            self.tool_input = {"file_path": self.file_path}
        elif name == "Edit":
            self.tool_input = {"replace_all": False, "file_path": self.file_path, "old_string": "", "new_string": ""}
        elif name == "Write":
            self.tool_input = {"file_path": self.file_path, "content": "\n".join(self.file_lines)}
        elif name == "Grep":
            self.pattern = rng.choice(NAME_PARTS)
            self.tool_input = {"pattern": self.pattern, "path": root, "output_mode": "content", "-n": True}
        elif name == "Glob":
            self.tool_input = {"pattern": rng.choice(["**/*.py", "**/*.ts", "src/**/*.json"]), "path": root}
        elif name == "TodoWrite":
            self.todos = [{"content": pools.prose(rng, 50)[:70], "status": rng.choice(["pending", "in_progress",
                           "completed"]), "activeForm": pools.prose(rng, 50)[:70]} for _ in range(rng.randint(2, 8))]
            self.tool_input = {"todos": self.todos}
        elif name == "Agent":
            self.agent_prompt = pools.prose(rng, rng.choice([300, 800, 1500]))
            self.tool_input = {"description": pools.prose(rng, 40)[:50], "subagent_type": rng.choice(
                ["Explore", "general-purpose", "Plan"]), "prompt": self.agent_prompt}
            if version_tuple(writer.version) < (2, 1, 50):
                self.name = "Task"  # the corpus shows Task up to 2.1.42 and Agent from 2.1.81
        if name == "Edit":
            start = rng.randrange(len(self.file_lines))
            self.old_lines = self.file_lines[start:start + rng.randint(1, 6)]
            self.new_lines = [line + "  # changed" if line else "pass" for line in self.old_lines]
            self.start = start
            self.tool_input["old_string"] = "\n".join(self.old_lines)
            self.tool_input["new_string"] = "\n".join(self.new_lines)

    def finish(self, writer: SessionWriter) -> None:
        rng, pools = writer.rng, writer.pools
        if self.kind not in ("Agent", "TodoWrite") and rng.random() < TOOL_ERROR_CHANCE:
            self.is_error = True
            self.content = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
            self.structured = "Error: File has not been read yet. Read it first before writing to it."
            return
        getattr(self, "finish_" + self.kind.lower())(writer, rng, pools)

    def finish_bash(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        if rng.random() < LARGE_OUTPUT_CHANCE:
            size = int(rng.uniform(100_000, 2_000_000))
            writer.stats.large_outputs += 1
        else:
            size = int(min(60_000, rng.lognormvariate(6.4, 1.1)))
        stdout = pools.log_window(rng, size)
        self.content = stdout
        self.structured = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False,
                           "noOutputExpected": False}

    def finish_read(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        lines = self.file_lines
        self.content = "\n".join(f"{number:>6}\u2192{line}" for number, line in enumerate(lines, 1))
        self.structured = {"type": "text", "file": {"filePath": self.file_path, "content": "\n".join(lines),
                                                    "numLines": len(lines), "startLine": 1,
                                                    "totalLines": len(lines)}}

    def finish_readimage(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        part, width, height = writer.image_part(rng)
        png = part["source"]["data"]
        self.content = [part]
        self.structured = {"type": "image", "file": {
            "base64": png, "type": "image/png", "originalSize": len(png) * 3 // 4,
            "dimensions": {"originalWidth": width, "originalHeight": height, "displayWidth": width,
                           "displayHeight": height}}}

    def finish_edit(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        context_before = self.file_lines[max(0, self.start - 3):self.start]
        context_after = self.file_lines[self.start + len(self.old_lines):self.start + len(self.old_lines) + 3]
        hunk_lines = ([" " + line for line in context_before] + ["-" + line for line in self.old_lines]
                      + ["+" + line for line in self.new_lines] + [" " + line for line in context_after])
        first = max(1, self.start - 2)
        old_count = len(context_before) + len(self.old_lines) + len(context_after)
        self.content = (f"The file {self.file_path} has been updated successfully. "
                        "(file state is current in your context \u2014 no need to Read it back)")
        self.structured = {"filePath": self.file_path, "oldString": self.tool_input["old_string"],
                           "newString": self.tool_input["new_string"], "originalFile": "\n".join(self.file_lines),
                           "structuredPatch": [{"oldStart": first, "oldLines": old_count, "newStart": first,
                                                "newLines": old_count, "lines": hunk_lines}],
                           "userModified": False, "replaceAll": False}

    def finish_write(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        self.content = f"File created successfully at: {self.file_path}"
        self.structured = {"type": "create", "filePath": self.file_path, "content": self.tool_input["content"],
                           "structuredPatch": [], "originalFile": None}

    def finish_grep(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        matches = []
        for _ in range(rng.randint(1, 40)):
            path, lines = rng.choice(pools.code_files)
            number = rng.randrange(len(lines))
            matches.append(f"{path}:{number + 1}:{lines[number]}")
        text = "\n".join(matches)
        self.content = text
        self.structured = {"mode": "content", "numFiles": len({m.split(':')[0] for m in matches}),
                           "filenames": [], "content": text, "numLines": len(matches)}

    def finish_glob(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        names = [f"{writer.project.cwd}/{path}" for path, _ in rng.sample(pools.code_files, rng.randint(1, 60))]
        self.content = "\n".join(names)
        self.structured = {"filenames": names, "durationMs": rng.randint(3, 400), "numFiles": len(names),
                           "truncated": False}

    def finish_todowrite(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        self.content = ("Todos have been modified successfully. Ensure that you continue to use the todo list to "
                        "track your progress. Please proceed with the current tasks if applicable")
        self.structured = {"oldTodos": [], "newTodos": self.todos}

    def finish_agent(self, writer: SessionWriter, rng: random.Random, pools: ContentPools) -> None:
        """Run the subagent: its own transcript beside the session, then its report as the result."""
        agent_id = "a" + hex_id(rng, 16)
        subagent_path = (writer.path.parent / writer.session_id / "subagents" / f"agent-{agent_id}.jsonl")
        subagent = SessionWriter(subagent_path, writer.project, random.Random(rng.getrandbits(64)), pools,
                                 writer.stats, writer.clock, session_id=writer.session_id, agent_id=agent_id,
                                 version=writer.version, model=writer.model, slug=writer.slug)
        subagent.path.parent.mkdir(parents=True, exist_ok=True)
        with open(subagent_path, "wb") as subagent.handle:
            subagent.write_turn(rounds=rng.randint(2, 10))
        writer.stats.subagent_files += 1
        writer.clock = subagent.clock
        report = pools.prose(rng, rng.choice([800, 2000, 5000]))
        tokens, uses, duration = rng.randint(5000, 90000), rng.randint(2, 60), rng.randint(10000, 400000)
        self.content = [{"type": "text", "text": report},
                        {"type": "text", "text": f"agentId: {agent_id} (use SendMessage with to: '{agent_id}' to "
                         f"continue this agent)\n<usage>total_tokens: {tokens}\ntool_uses: {uses}\n"
                         f"duration_ms: {duration}</usage>"}]
        self.structured = {"status": "completed", "prompt": self.agent_prompt, "agentId": agent_id,
                           "agentType": self.tool_input["subagent_type"], "content": [self.content[0]],
                           "totalDurationMs": duration, "totalTokens": tokens, "totalToolUseCount": uses,
                           "usage": writer.usage()}


# -- archive-level ----------------------------------------------------------------------------------

def seeded(seed: int, *labels: object) -> random.Random:
    """An independent stream per session, so adding one session does not reshuffle the others."""
    return random.Random(f"{seed}:" + ":".join(map(str, labels)))


def make_projects(root: Path, count: int, rng: random.Random) -> list[Project]:
    projects = []
    for index in range(count):
        user = rng.choice(USERS)
        home = rng.choice([f"/home/{user}", f"/Users/{user}"])
        name = f"{rng.choice(PROJECT_NAMES)}-{index}"
        cwd = f"{home}/{rng.choice(['src', 'code', 'work'])}/{name}"
        # Claude Code's folder name: the cwd with every non-alphanumeric character replaced by '-'.
        encoded = "".join(char if char.isalnum() else "-" for char in cwd)
        projects.append(Project(root / encoded, cwd))
    return projects


def session_size(rng: random.Random) -> int:
    """Median about 300 KB, a long tail of multi-megabyte sessions, as in real archives."""
    return int(min(12 * MB, max(8_000, rng.lognormvariate(12.6, 1.1))))


def write_session(project: Project, target_bytes: int, seed: int, index: int, stats: ArchiveStats,
                  pools: ContentPools) -> Path:
    rng = seeded(seed, "session", index)
    path = project.directory / f"{new_uuid(rng)}.jsonl"
    started = datetime(2026, 1, 5, 9, tzinfo=timezone.utc) + timedelta(hours=index * 7 + rng.randint(0, 5))
    session_stats = ArchiveStats()
    SessionWriter(path, project, rng, pools, session_stats, started).write(target_bytes)
    session_stats.sessions = 1
    session_stats.session_paths = [path]
    stats.add(session_stats)
    return path


def write_archive(root: Path, size_bytes: int, seed: int = 1, progress: bool = False) -> ArchiveStats:
    """Many projects, sessions of realistic sizes, until the archive holds size_bytes."""
    rng = seeded(seed, "archive")
    pools = ContentPools(seeded(seed, "pools"))
    projects = make_projects(root, max(2, min(400, round(size_bytes / (4 * MB)))), rng)
    # A few projects get most of the sessions, as in real use.
    weights = [1 / (rank + 1) for rank in range(len(projects))]
    stats = ArchiveStats(projects=len(projects))
    index = 0
    reported = 0
    while stats.bytes_total < size_bytes:
        target = min(session_size(rng), max(8_000, size_bytes - stats.bytes_total))
        project = rng.choices(projects, weights=weights)[0]
        write_session(project, target, seed, index, stats, pools)
        index += 1
        if progress and stats.bytes_total - reported >= 100 * MB:
            reported = stats.bytes_total
            print(f"  … {stats.bytes_total / MB:.0f} MB", file=sys.stderr, flush=True)
    stats.projects = sum(1 for project in projects if project.directory.exists())
    return stats


def write_single_session(root: Path, size_bytes: int, seed: int = 1) -> ArchiveStats:
    """One project holding one session file of size_bytes (plus its subagent files)."""
    pools = ContentPools(seeded(seed, "pools"))
    project = make_projects(root, 1, seeded(seed, "single"))[0]
    stats = ArchiveStats(projects=1)
    write_session(project, size_bytes, seed, 0, stats, pools)
    return stats


def add_session(project_directory: Path, size_bytes: int, seed: int, index: int) -> Path:
    """A new session file in an existing project folder (the benchmark's "one new session")."""
    cwd = read_last_entry(next(project_directory.glob("*.jsonl"))).get("cwd", "/home/bench/src/project")
    pools = ContentPools(seeded(seed, "pools"))
    return write_session(Project(project_directory, cwd), size_bytes, seed, index, ArchiveStats(), pools)


def read_last_entry(path: Path, wanted: str = "uuid") -> dict:
    """The last entry of a JSONL file that has the field `wanted`, reading backwards from the end."""
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        block = 1 << 20
        while True:
            start = max(0, end - block)
            handle.seek(start)
            lines = handle.read(end - start).splitlines()
            complete = lines if start == 0 else lines[1:]  # the first may be cut
            for line in reversed(complete):
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and wanted in entry:
                    return entry
            if start == 0:
                return {}
            block *= 4


def append_turn(session_path: Path, seed: int) -> int:
    """Append one more turn to an existing session, as a resumed session would. Returns bytes added."""
    last = read_last_entry(session_path)
    rng = seeded(seed, "append", session_path.name)
    project = Project(session_path.parent, last.get("cwd", "/home/bench/src/project"))
    moment = datetime.fromisoformat(last["timestamp"].replace("Z", "+00:00")) if "timestamp" in last else \
        datetime(2026, 6, 1, tzinfo=timezone.utc)
    writer = SessionWriter(session_path, project, rng, ContentPools(seeded(seed, "pools")), ArchiveStats(),
                           moment + timedelta(minutes=5), session_id=last.get("sessionId", session_path.stem),
                           version=last.get("version"), slug=last.get("slug"))
    writer.parent = last.get("uuid")
    with open(session_path, "ab") as writer.handle:
        writer.write_turn(rounds=2)
    return writer.written


def describe(stats: ArchiveStats, seconds: float) -> str:
    share = stats.bytes_tool_results / stats.bytes_total if stats.bytes_total else 0
    return (f"{stats.bytes_total / MB:.1f} MB in {stats.projects} projects, {stats.sessions} sessions, "
            f"{stats.subagent_files} subagent files; tool results {share:.0%} of bytes, {stats.images} images, "
            f"{stats.large_outputs} outputs over 100 KB; {seconds:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path, help="folder to create (like ~/.claude/projects); must be empty")
    parser.add_argument("--size-mb", type=float, default=100, help="archive size in MB (default 100)")
    parser.add_argument("--single-session-mb", type=float,
                        help="instead, write ONE session file of this size (for the memory test)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.output.exists() and any(args.output.iterdir()):
        parser.error(f"{args.output} is not empty")
    start = time.perf_counter()
    if args.single_session_mb:
        stats = write_single_session(args.output, int(args.single_session_mb * MB), args.seed)
    else:
        stats = write_archive(args.output, int(args.size_mb * MB), args.seed, progress=True)
    print(describe(stats, time.perf_counter() - start))
    if args.single_session_mb:
        print(f"the session file itself: {stats.session_paths[0].stat().st_size / MB:.1f} MB "
              "(the rest is its subagent transcripts)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of the generator: {peak:.0f} MB")


if __name__ == "__main__":
    main()
