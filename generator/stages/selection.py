"""After link: which sessions to publish (`--since`, `--until`, `--project`, `--exclude`, `--branch`,
`--session`, or the config's `[select]`), decided once, on the linked archive, for every command.

A session is chosen when it passes every criterion given (several values of one criterion: any of them).
What it needs to be read comes with it, so that no page links to a session that is not there and nothing
is shown twice or half:

- its plan chain (planning, implementation, further work): a chain partly out of a date range is
  published whole, since each of its pages links to the others;
- the sessions it continues (a resumed session replays them and shows only what is new);
- every subagent transcript of all of these.

`--exclude` is stronger than all of that: an excluded project or session is never published, even when a
chosen session's chain holds it, and neither is a session that continues it (it would replay it).
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from dataclasses import dataclass
from enum import Flag, auto
from datetime import date, datetime, time, timedelta, timezone
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from ..core.errors import UsageProblem
from ..core.paths import decoded_project_folder, last_part

if TYPE_CHECKING:  # a build that finds nothing changed loads no model
    from ..core.model import Archive, Session

_RELATIVE = re.compile(r"(?P<count>\d+)\s*(?P<unit>d|w|m|y)", re.IGNORECASE)
_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}
_GLOB = re.compile(r"[*?\[]")
SHORTEST_ID_PREFIX = 4
"""A session id may be given by its start, as git takes a commit's (`--session 5b1f0c2e`)."""


def parse_when(value: str, option: str, end_of_day: bool = False, today: date | None = None) -> datetime:
    """A moment from `--since`/`--until`: an ISO date (`2026-03-01`, the whole day, in UTC), an ISO time
    (`2026-03-01T14:00`, `…Z`, `…+02:00`; UTC when no offset is given), a number of days, weeks, months
    (30 days) or years back (`7d`, `2w`, `3m`, `1y`: from the start of that day, UTC), `today` or
    `yesterday`. `end_of_day`: a day given for --until includes the whole of it."""
    text = value.strip()
    today = today or datetime.now(timezone.utc).date()
    day: date | None = None
    relative = _RELATIVE.fullmatch(text)
    if relative:
        day = today - timedelta(days=int(relative["count"]) * _DAYS[relative["unit"].lower()])
    elif text.lower() in ("today", "yesterday"):
        day = today - timedelta(days=0 if text.lower() == "today" else 1)
    elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            day = date.fromisoformat(text)
        except ValueError as error:
            raise UsageProblem(f"{option} {value!r}: {error}") from None
    if day is not None:
        moment = datetime.combine(day, time(), timezone.utc)
        return moment + timedelta(days=1) if end_of_day else moment
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise UsageProblem(f"{option} {value!r}: expected a date (2026-03-01), a time (2026-03-01T14:00Z), "
                           "a number of days, weeks, months or years back (7d, 2w, 3m, 1y), today or yesterday"
                           ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _session_time(stamp: str) -> datetime | None:
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class Selection:
    """Which sessions to publish; empty, all of them."""

    since: datetime | None = None
    """Sessions active at or after this moment (they end at or after it)."""
    until: datetime | None = None
    """Sessions active before this moment (they start before it)."""
    projects: tuple[str, ...] = ()
    """Patterns (globs, or plain names) for a project: its folder's name, its path, or its last part."""
    excludes: tuple[str, ...] = ()
    """Patterns for projects, as `projects`, or for sessions: an id, the start of one, a slug, a title."""
    branches: tuple[str, ...] = ()
    """Patterns for the git branch a session was on."""
    sessions: tuple[str, ...] = ()
    """Session ids, or the start of one."""

    def __bool__(self) -> bool:
        return bool(self.since or self.until or self.projects or self.excludes or self.branches or self.sessions)

    def settings(self) -> list[object]:
        """What a build's output depends on, for the manifest's settings digest (moments as text)."""
        return [self.since.isoformat() if self.since else "", self.until.isoformat() if self.until else "",
                list(self.projects), list(self.excludes), list(self.branches), list(self.sessions)]

    def describe(self) -> str:
        """The criteria, as the options that give them."""
        parts = [f"--since {self.since.isoformat()}" if self.since else "",
                 f"--until (before) {self.until.isoformat()}" if self.until else ""]
        for option, values in (("--project", self.projects), ("--exclude", self.excludes),
                               ("--branch", self.branches), ("--session", self.sessions)):
            parts.extend(f"{option} {value}" for value in values)
        return " ".join(part for part in parts if part)

    def chosen(self, archive: Archive, folder_names: Mapping[str, str] | None = None) -> set[str]:
        """The keys of the sessions to publish (see the module's docstring). `folder_names`: by source file,
        the name of its project folder before redaction, which a project pattern is matched against too
        (a project whose name is redacted is still chosen by it)."""
        if not self:
            return set(archive.sessions)
        sessions = archive.sessions
        names = _project_names(archive, folder_names or {})
        excluded = {key for key, session in sessions.items() if self._excluded(session, names(session))}
        # A session that continues an excluded one would replay it; so would the ones continuing that.
        excluded |= _continuing(archive, excluded)
        seeds = [key for key, session in sessions.items()
                 if session.is_listed and key not in excluded and self._matches(session, names(session))]
        members: list[str] = []
        for key in seeds:
            chain = archive.chains.get(sessions[key].chain_key)
            members.extend(chain.session_keys if chain else (key,))
        return belonging_with(archive, members, Ties.SUBAGENTS | Ties.CONTINUED) - excluded

    def why_none(self, archive: Archive, folder_names: Mapping[str, str] | None = None) -> list[str]:
        """When `chosen` is empty: for each project or session given that matches no session, what would
        have (the closest project names, or all of them; how long a session id's start must be)."""
        listed = [session for session in archive.sessions.values() if session.is_listed]
        names = _project_names(archive, folder_names or {})
        shown = sorted({_project_title(archive, session) for session in listed})
        hints = []
        for pattern in self.projects:
            if any(_is_project(names(session), pattern) for session in listed):
                continue
            close = difflib.get_close_matches(pattern, shown, n=3, cutoff=0.6)
            if close:
                hints.append(f"--project {pattern}: did you mean {' or '.join(close)}?")
            else:
                more = f" and {len(shown) - _PROJECTS_LISTED} more" if len(shown) > _PROJECTS_LISTED else ""
                hints.append(f"--project {pattern} matches no project; the projects are: "
                             f"{', '.join(shown[:_PROJECTS_LISTED])}{more}")
        for wanted in self.sessions:
            if any(_is_session(session, wanted) for session in listed):
                continue
            if not _GLOB.search(wanted) and len(wanted) < SHORTEST_ID_PREFIX:
                hints.append(f"--session {wanted}: give at least {SHORTEST_ID_PREFIX} characters of a session id "
                             "(or the whole id, or a pattern such as 5b1f*)")
            else:
                hints.append(f"--session {wanted}: no session id starts with it")
        return hints

    def _matches(self, session: Session, project_names: list[str]) -> bool:
        if self.sessions and not any(_is_session(session, wanted) for wanted in self.sessions):
            return False
        if self.projects and not any(_is_project(project_names, pattern) for pattern in self.projects):
            return False
        if self.branches and not any(fnmatch.fnmatchcase(session.git_branch, pattern) for pattern in self.branches):
            return False
        if self.since or self.until:
            started, ended = _session_time(session.started), _session_time(session.ended or session.started)
            if started is None or ended is None:
                return False  # no time to place it in the range
            if self.since and ended < self.since:
                return False
            if self.until and started >= self.until:
                return False
        return True

    def _excluded(self, session: Session, project_names: list[str]) -> bool:
        return any(_is_project(project_names, pattern) or _is_session(session, pattern)
                   or (session.slug and fnmatch.fnmatchcase(session.slug, pattern))
                   or (_GLOB.search(pattern) and fnmatch.fnmatch(session.title, pattern))
                   for pattern in self.excludes)


_PROJECTS_LISTED = 10


def _project_names(archive: Archive, folder_names: Mapping[str, str]) -> Callable[[Session], list[str]]:
    """The names a project pattern is matched against, for each session: its project's folder name, path
    and the path's last part, and (by source file) the folder's name before redaction."""
    project_of = {project.dir_name: project for project in archive.projects}

    def names(session: Session) -> list[str]:
        project = project_of.get(session.project_dir)
        path = project.path if project else ""
        found = [session.project_dir, path, last_part(path) if path else ""]
        original = folder_names.get(session.source, "")
        if original and original != session.project_dir:
            decoded = decoded_project_folder(original)
            found += [original, decoded, last_part(decoded)]
        return [name for name in found if name]

    return names


def _project_title(archive: Archive, session: Session) -> str:
    """The shortest name `--project` takes for a session's project: the last part of its path."""
    path = next((project.path for project in archive.projects if project.dir_name == session.project_dir), "")
    return last_part(path) or session.project_dir


def _is_session(session: Session, wanted: str) -> bool:
    if not session.session_id:
        return False
    if _GLOB.search(wanted):
        return fnmatch.fnmatchcase(session.session_id, wanted)
    return session.session_id == wanted or (len(wanted) >= SHORTEST_ID_PREFIX and session.session_id.startswith(wanted))


def _is_project(names: list[str], pattern: str) -> bool:
    """A project's folder name, path or last part of it, matched by a pattern (as the file system's case)."""
    return any(fnmatch.fnmatch(name, pattern) for name in names)


def _continuing(archive: Archive, excluded: set[str]) -> set[str]:
    """The sessions that continue one of `excluded` (and would replay it), with their subagents."""
    sessions = archive.sessions
    found: set[str] = set()
    for key, session in sessions.items():
        seen, earlier = {key}, session.continues_key
        while earlier and earlier not in seen:
            if earlier in excluded:
                found.add(key)
                break
            seen.add(earlier)
            earlier = sessions[earlier].continues_key if earlier in sessions else ""
    return belonging_with(archive, found, Ties.SUBAGENTS)


class Ties(Flag):
    """What ties one session to another, for `belonging_with`."""

    SUBAGENTS = auto()
    """The subagent transcripts a session started."""
    CONTINUED = auto()
    """The sessions it continues (resumed with --continue or --resume): it replays them."""
    WORK = auto()
    """The rest of its piece of work: its plan chain, the planning session whose plan it carried out, and
    the sessions that continue it."""


def belonging_with(archive: Archive, seeds: Iterable[str], ties: Ties) -> set[str]:
    """The keys of `seeds` and of every session tied to them by `ties`, and to those in turn (keys the
    archive does not hold are left out). The one answer to which sessions belong together: the build's
    selection asks it for what a chosen session needs to be read (`Selection.chosen`), the bundle for
    a whole piece of work (`bundle.select_sessions`)."""
    sessions = archive.sessions
    continued_by: dict[str, list[str]] = {}
    if Ties.WORK in ties:
        for key, session in sessions.items():
            if session.continues_key:
                continued_by.setdefault(session.continues_key, []).append(key)
    found: set[str] = set()
    waiting = list(seeds)
    while waiting:
        key = waiting.pop()
        if key in found or key not in sessions:
            continue
        found.add(key)
        session = sessions[key]
        if Ties.SUBAGENTS in ties:
            waiting.extend(session.subagent_keys)
        if Ties.CONTINUED in ties and session.continues_key:
            waiting.append(session.continues_key)
        if Ties.WORK in ties:
            chain = archive.chains.get(session.chain_key)
            waiting.extend(chain.session_keys if chain else ())
            waiting.extend(k for k in (session.plan_source_key,) if k)
            waiting.extend(continued_by.get(key, ()))
    return found


def sources_of(archive: Archive, keys: Iterable[str]) -> set[str]:
    """The files (`Session.source`) the sessions `keys` are read from."""
    return {archive.sessions[key].source for key in keys}


__all__ = ["Selection", "Ties", "belonging_with", "parse_when", "sources_of"]
