"""Part of stage 3, interpret: the commits a session made, read from its Bash calls and their results.

A commit is a `git commit` call (`-m`, `-am`, a heredoc message, in an `&&` chain, `git -C dir commit`,
`--amend`) whose result holds git's summary line, `[branch sha] subject` (`[branch (root-commit) sha]
subject` for a repository's first commit), usually followed by the stat line (`2 files changed, 10
insertions(+), 3 deletions(-)`). git prints that line only once the commit exists: a commit refused by a
hook, or with nothing to commit, prints none and is not one. A call whose result is an error still made
the commit when the line is there (`git commit … && git push` where only the push failed). A quiet commit
(`git commit -q`) prints no summary line: it is found when the same command then prints the commit with
`git log --oneline -1`, and the call did not fail.

Where each commit can be seen on the web comes from the session's own `git push` calls: their output names
the remote (`To github.com:owner/repo.git`) and the commits pushed (`a1b2c3d..e4f5a6b  main -> main`). A
commit goes to the remote that a push named it in, else to the remote pushed to from the same folder,
else to the only remote the session pushed to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import pairwise
from urllib.parse import urlsplit

from ..core.model import Commit, ToolCall

# A summary stays small whatever the session (a hostile log could print a million summary lines).
COMMITS_PER_SESSION = 500
SUBJECT_LIMIT = 500

# A shell word: quoted (up to a bound, so that a stray quote costs little), or up to a space or an operator.
_WORD = re.compile(r"""\s+("[^"\n]{0,4096}"|'[^'\n]{0,4096}'|[^\s;&|()]+)""")
_GIT_WORD = re.compile(r"(?<![\w./-])git(?=\s)")
# git's own options before its subcommand are few (`-C dir`, `-c name=value`, `--no-pager`): past these
# many words the command is not read further, so that no input makes the search slow.
GIT_OPTIONS_LIMIT = 12
# How much of a command after `git <subcommand>` is read for its arguments, and how many git commands of
# one command line are read (a script Claude ran may hold a few dozen `git` words; a hostile one, millions).
ARGUMENTS_LIMIT = 2000
GIT_COMMANDS_LIMIT = 64
_CD = re.compile(r"(?:^|[;&|(\n]|\bthen|\bdo)[ \t]*(?:cd|pushd)[ \t]+(\"[^\"\n]{0,4096}\"|'[^'\n]{0,4096}'|[^\s;&|()]+)")
_SEGMENT_END = re.compile(r"&&|\|\||[;|\n]")
_NEW_BRANCH = re.compile(r"(?<![\w./-])git[ \t]+(?:switch[ \t]+-[cC]|checkout[ \t]+-[bB])[ \t]+([^\s;&|()]+)")


@dataclass(frozen=True)
class GitCommand:
    """One `git <subcommand>` in a shell command line."""

    start: int
    """Where `git` is in the command."""
    end: int
    """Where the subcommand's arguments start."""
    subcommand: str
    directory: str
    """The folder `-C` gave, if any."""
    arguments: tuple[str, ...]
    """Its words up to the end of its part of the command line (`&&`, `;`, `|`, a new line)."""


def git_commands(command: str) -> list[GitCommand]:
    """Every `git <subcommand>` of a command line, in order, read word by word (never by a pattern that
    could backtrack over the whole command)."""
    found: list[GitCommand] = []
    for count, word in enumerate(_GIT_WORD.finditer(command)):
        if count >= GIT_COMMANDS_LIMIT:
            break
        position, directory = word.end(), ""
        for _ in range(GIT_OPTIONS_LIMIT):
            token = _WORD.match(command, position)
            if token is None:
                break
            value, position = token.group(1), token.end()
            if value in ("-C", "-c"):
                argument = _WORD.match(command, position)
                if argument is None:
                    break
                position = argument.end()
                if value == "-C":
                    directory = _unquoted(argument.group(1))
            elif not value.startswith("-"):
                limit = min(len(command), position + ARGUMENTS_LIMIT)
                segment = _SEGMENT_END.search(command, position, limit)
                arguments = tuple(command[position:segment.start() if segment else limit].split())
                found.append(GitCommand(word.start(), position, value, directory, arguments))
                break
    return found


def _is_quiet(arguments: tuple[str, ...]) -> bool:
    return any(word == "--quiet" or re.fullmatch(r"-[A-Za-z]*q[A-Za-z]*", word) for word in arguments)


def _is_one_line_log(git: GitCommand) -> bool:
    words = git.arguments
    return git.subcommand == "log" and "--oneline" in words and (
        "-1" in words or "--max-count=1" in words or any(a == "-n" and b == "1" for a, b in pairwise(words)))


# `git log --oneline -1` after a quiet commit names it: `7c2e91f (HEAD -> x) subject`.
ONELINE = re.compile(r"^(?P<sha>[0-9a-f]{7,64}) (?:\([^)\n]*\) )?(?P<subject>.*)$")
# `[main a1b2c3d] subject`, `[feature/x (root-commit) a1b2c3d] subject`, `[detached HEAD a1b2c3d] subject`.
SUMMARY_LINE = re.compile(
    r"^\[(?P<branch>detached HEAD|[^\s\[\]]+) (?P<root>\(root-commit\) )?(?P<sha>[0-9a-f]{7,64})\] (?P<subject>.*)$"
)
STAT_LINE = re.compile(
    r"^ (?P<files>\d{1,12}) files? changed(?:, (?P<insertions>\d{1,12}) insertions?\(\+\))?"
    r"(?:, (?P<deletions>\d{1,12}) deletions?\(-\))?\s*$"
)
"""git's counts, at most twelve digits, and nothing after them: a line with a longer number (one of thousands of
digits, which Python will not read as an int) is no stat line."""
# How far after the summary line the stat line may be (an amend prints ` Date: …`, `--author` ` Author: …`).
STAT_DISTANCE = 3
_PUSH_TARGET = re.compile(r"^To (\S+)\s*$")
_PUSHED_RANGE = re.compile(r"^\s*[ +*=!-]?\s*([0-9a-f]{7,64})\.\.\.?([0-9a-f]{7,64})\s+\S+\s+->\s+\S+")

# A remote git prints: `https://host/owner/repo(.git)`, `ssh://git@host:22/owner/repo.git` or scp-like
# `git@host:owner/repo.git`. Only names made of plain characters become a web address.
_PATH = r"(?P<path>[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)+)/?"
_URL_REMOTE = re.compile(r"(?P<scheme>https?|ssh|git)://(?:[^@/\s]*@)?(?P<host>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)(?::\d+)?/"
                         + _PATH)
_SCP_REMOTE = re.compile(r"(?:[A-Za-z0-9._-]+@)?(?P<host>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):(?!/)" + _PATH)


def web_address(remote: str) -> str:
    """The repository's web address for a git remote, or "" when it is not one a browser can open (a
    local path, an odd name): `git@github.com:owner/repo.git` -> `https://github.com/owner/repo`."""
    remote = remote.strip()
    found = _URL_REMOTE.fullmatch(remote) or _SCP_REMOTE.fullmatch(remote)
    if found is None:
        return ""
    path = found.group("path").removesuffix(".git")
    if any(part in ("", ".", "..") for part in path.split("/")):
        return ""
    scheme = "http" if found.groupdict().get("scheme") == "http" else "https"
    return f"{scheme}://{found.group('host').lower()}/{path}"


def repository_url(value: str) -> str:
    """`--repo-url`: an http(s) address, without a query or a fragment; "" when it is not one."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        return ""
    if any(character.isspace() or character in "\"'<>\\`" for character in value.strip()):
        return ""
    return value.strip().rstrip("/").removesuffix(".git")


def commit_url(forge: str, sha: str) -> str:
    """Where a commit is shown on its forge (GitHub, GitLab, Gitea and Codeberg all answer this path)."""
    return f"{forge}/commit/{sha}" if forge and re.fullmatch(r"[0-9a-f]{4,64}", sha) else ""


def _directory(command: str, git: GitCommand) -> str:
    """The folder a git command ran in, as the command names it (`git -C dir`, or the last `cd dir` before
    it); "" for the session's working directory."""
    if git.directory:
        return git.directory
    changes = _CD.findall(command[: git.start])
    return _unquoted(changes[-1]) if changes else ""


def _unquoted(argument: str) -> str:
    if len(argument) >= 2 and argument[0] == argument[-1] and argument[0] in "\"'":
        argument = argument[1:-1]
    return argument.rstrip("/\\") or argument


@dataclass
class _Push:
    directory: str
    forge: str
    shas: list[str]


@dataclass
class CommitLog:
    """Watches a session's tool calls go by and keeps the commits they made and the pushes that name
    where those commits went."""

    found: list[tuple[Commit, str]] = field(default_factory=list)
    """Each commit, with the folder it was made in."""
    pushes: list[_Push] = field(default_factory=list)

    def add(self, call: ToolCall, page: int) -> None:
        if call.name != "Bash" or call.result is None:
            return
        command = call.input.get("command")
        if not isinstance(command, str) or "git" not in command:
            return
        output = call.result.text.replace("\r\n", "\n").replace("\r", "\n")
        gits = git_commands(command)
        commit = next((git for git in gits if git.subcommand == "commit"), None)
        if commit is not None:
            amend = "--amend" in commit.arguments
            made_here = self._commits_in(output, call, page, amend) or self._quiet_commit(command, commit, gits, output,
                                                                                         call, page, amend)
            directory = _directory(command, commit)
            for made in made_here:
                if len(self.found) < COMMITS_PER_SESSION:
                    self.found.append((made, directory))
        push = next((git for git in gits if git.subcommand == "push"), None)
        if push is not None:
            self._pushes_in(output, _directory(command, push))

    @staticmethod
    def _commits_in(output: str, call: ToolCall, page: int, amend: bool) -> list[Commit]:
        lines = output.split("\n")
        made = []
        for index, line in enumerate(lines):
            summary = SUMMARY_LINE.match(line)
            if summary is None:
                continue
            stat = next((found for found in map(STAT_LINE.match, lines[index + 1:index + 1 + STAT_DISTANCE]) if found),
                        None)
            made.append(Commit(
                sha=summary.group("sha"), branch=summary.group("branch"),
                subject=summary.group("subject").strip()[:SUBJECT_LIMIT], anchor=call.anchor, page=page,
                timestamp=call.result.timestamp if call.result and call.result.timestamp else call.timestamp,
                files_changed=int(stat.group("files")) if stat else -1,
                insertions=int(stat.group("insertions") or 0) if stat else 0,
                deletions=int(stat.group("deletions") or 0) if stat else 0,
                root=bool(summary.group("root")), amend=amend,
            ))
        return made

    @staticmethod
    def _quiet_commit(command: str, commit: GitCommand, gits: list[GitCommand], output: str, call: ToolCall,
                      page: int, amend: bool) -> list[Commit]:
        """`git commit -q … && git log --oneline -1`: the log's line is the commit (when nothing failed)."""
        if call.result is None or call.result.is_error or not _is_quiet(commit.arguments):
            return []
        if not any(_is_one_line_log(git) for git in gits if git.start > commit.start):
            return []
        found = next((match for match in map(ONELINE.match, output.split("\n")) if match), None)
        if found is None:
            return []
        branch = _NEW_BRANCH.findall(command[:commit.start])
        return [Commit(sha=found.group("sha"), branch=branch[-1] if branch else "",
                       subject=found.group("subject").strip()[:SUBJECT_LIMIT], anchor=call.anchor, page=page,
                       timestamp=call.result.timestamp or call.timestamp, amend=amend)]

    def _pushes_in(self, output: str, directory: str) -> None:
        current: _Push | None = None
        for line in output.split("\n"):
            target = _PUSH_TARGET.match(line)
            if target is not None:
                current = _Push(directory, web_address(target.group(1)), [])
                if current.forge:
                    self.pushes.append(current)
                continue
            pushed = _PUSHED_RANGE.match(line)
            if pushed is not None and current is not None:
                current.shas.extend(pushed.groups())

    def commits(self) -> tuple[Commit, ...]:
        """The commits, each with the web address of the repository it was pushed to, when known."""
        by_sha = [(sha, push.forge) for push in self.pushes for sha in push.shas]
        by_directory = {push.directory: push.forge for push in self.pushes}
        only = {push.forge for push in self.pushes}
        resolved = []
        for commit, directory in self.found:
            forge = next((forge for sha, forge in by_sha if sha.startswith(commit.sha) or commit.sha.startswith(sha)),
                         "") or by_directory.get(directory, "") or (next(iter(only)) if len(only) == 1 else "")
            resolved.append(replace(commit, forge=forge))
        return tuple(resolved)
