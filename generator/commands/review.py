"""Nothing unreviewed leaves the machine: the values that may be secrets no rule knows (`audit.NEEDS_DECISION`)
are each put to a person, once, before anything that publishes (`gh-deploy`, `bundle`, `build --strict`) writes
them out; `sessionsite review` puts them, lists the decisions and changes them.

- A decision is kept by a keyed digest of the value (`output.decisions`), so a value is reviewed once, and is
  applied by every later build: a value decided "redact" is found by the same net that put it to review and
  taken out through the user's own rules (`stages.redact.ReviewedSecrets`), in pages, Markdown, search, JSON
  and bundles alike.
- At a terminal, a command that publishes asks about each value not decided yet, one key each; anywhere
  else it stops, saying how many values wait and how to review them. `--yes` publishes them as they are,
  and says so loudly; it decides nothing (the next run asks again).
- Nothing a repository holds can decide: the decisions are in the user's data folder, signed with a key
  only the user has, and `sessionsite.toml` has no key for them (nor for `--yes`).
"""

from __future__ import annotations

import shlex
import sys
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import click

from ..core.errors import SessionsiteError, UsageProblem
from ..core.text import for_terminal
from .decided import with_decisions
from .options import Options, files_to_read, inputs_or_default, own_rules_of, selection_of
from .running import configure_logging, errors, stopped_by_signals

if TYPE_CHECKING:
    from ..audit import AuditReport, Finding
    from ..config import ReadOptions
    from ..output.decisions import Decided, DecisionStore
    from ..stages.discover import SessionFile
    from ..stages.redact import OwnRules

KEYS = {"r": "redact", "k": "keep", "s": "skip", " ": "skip", "\r": "skip", "\n": "skip", "q": "quit"}
PROMPT = "  (r)edact  (k)eep  (s)kip  (q)uit ? "
PLACES_SHOWN = 2


class NotReviewed(SessionsiteError):
    """Values wait for a decision, and nobody is there to make it: nothing was published."""


@dataclass(frozen=True)
class Pending:
    """A value to decide on: its digest, and what the audit found of it (never the value itself, for show)."""

    digest: str
    finding: Finding
    decided: str = ""
    """Its decision so far ("" when there is none; `review --again` shows it)."""


def interactive() -> bool:
    """Whether a person can answer: the command reads from a terminal and writes to one."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def pending_in(report: AuditReport, store: DecisionStore, again: bool = False) -> list[Pending]:
    """The values of the report that need a decision and have none (`again`: with those that have one)."""
    if not report.needing_decision():
        return []  # and no key made where nothing was ever reviewed
    key, decisions = store.load()
    found = []
    for value, finding in report.needing_decision():
        digest = store.digest(key, value)
        decided = decisions.get(digest)
        if decided is None or again:
            found.append(Pending(digest, finding, decided.decision if decided else ""))
    return found


def ask(pending: Sequence[Pending], store: DecisionStore, getchar: Callable[[], str] = click.getchar
        ) -> dict[str, str]:
    """Put each value to the person at the terminal, one key each; each answer is kept as it is given (a
    review stopped halfway keeps what was decided). The answers, by digest."""
    from ..output.decisions import Decided, Decision, now

    answers: dict[str, str] = {}
    total = len(pending)
    click.echo(f"{total} value{'s' if total != 1 else ''} to review: each looks random, and may be a key of a "
               "format no rule knows. Redact it in everything published, or keep it as it is.")
    for number, item in enumerate(pending, 1):
        for line in describe(item, number, total):
            click.echo(line)
        answer = ""
        while not answer:
            click.echo(PROMPT, nl=False)
            pressed = getchar()
            answer = KEYS.get(pressed.lower(), "")
            click.echo(answer or "?")
            if not answer:
                click.echo("  r: replace it with [REDACTED:reviewed] everywhere; k: publish it as it is; "
                           "s: decide later; q: stop here")
        if answer == "quit":
            break
        if answer in ("redact", "keep"):
            first = item.finding.places[0]
            decision: Decision = "redact" if answer == "redact" else "keep"
            store.change({item.digest: Decided(decision, item.finding.kind, _length(item.finding),
                                               f"{first.file}:{first.line}", now())})
        answers[item.digest] = answer
    return answers


def describe(item: Pending, number: int, total: int) -> list[str]:
    """How a value is shown for review: masked, counted, and in its context, every character of the
    transcript made harmless to the terminal (`for_terminal`)."""
    finding = item.finding
    sessions = len({place.session for place in finding.places})
    count = len(finding.places)
    was = f"  (decided: {item.decided})" if item.decided else ""
    plural = "s" if sessions != 1 else ""
    lines = [f"[{number}/{total}] {finding.kind}  {for_terminal(finding.shown)}  ×{count} in {sessions} session{plural}{was}"]
    if finding.context:
        lines.append(f"    {for_terminal(finding.context)}")
    for place in finding.places[:PLACES_SHOWN]:
        lines.append(f"    {for_terminal(place.link or f'{place.file}:{place.line}')}")
    if count > PLACES_SHOWN:
        lines.append(f"    … and {count - PLACES_SHOWN} more")
    return lines


def _length(finding: Finding) -> int:
    shown = finding.shown
    try:
        return int(shown.rsplit("(", 1)[1].split(" ", 1)[0])
    except (IndexError, ValueError):
        return 0


def settle(report: AuditReport, yes: bool, how_to_review: str, store: DecisionStore | None = None,
           at_terminal: bool | None = None) -> None:
    """Before publishing: every value needing a decision has one, or the person at the terminal makes it, or
    `yes` keeps the rest as they are (said loudly); else `NotReviewed`, and nothing is published."""
    from ..output.decisions import DecisionStore

    store = store or DecisionStore()
    pending = pending_in(report, store)
    if not pending:
        return
    places = sum(len(item.finding.places) for item in pending)
    counted = (f"{len(pending)} value{'s' if len(pending) != 1 else ''} that may be secrets ({places} "
               f"place{'s' if places != 1 else ''})")
    if yes:
        click.secho(f"WARNING: --yes: publishing {counted} that nobody reviewed, as they are:", fg="red", bold=True,
                    err=True)
        for item in pending[:10]:
            first = item.finding.places[0]
            click.secho(f"  {for_terminal(item.finding.shown)}  {for_terminal(f'{first.file}:{first.line}')}",
                        fg="red", err=True)
        if len(pending) > 10:
            click.secho(f"  … and {len(pending) - 10} more (`{how_to_review}` reviews them)", fg="red", err=True)
        return
    if not (interactive() if at_terminal is None else at_terminal):
        raise NotReviewed(f"{counted} not reviewed: nothing was published. Decide on each (redact or keep; "
                          f"decisions are kept) with `{how_to_review}`, or publish them as they are with --yes")
    answers = ask(pending, store)
    left = len(pending) - sum(1 for answer in answers.values() if answer in ("redact", "keep"))
    if left:
        raise NotReviewed(f"{left} value{'s' if left != 1 else ''} still not reviewed: nothing was published "
                          f"(`{how_to_review}` goes on where you stopped)")


def review_before_publishing(yes: bool, how_to_review: str) -> Callable[[ReadOptions, list[SessionFile]], OwnRules]:
    """The review a build that publishes runs once it knows its files (those the vault reads back among them):
    the audit of those files, with the decisions made so far applied, then `settle`; the own rules to build
    with, the decisions made now among them."""
    def review(config: ReadOptions, files: list[SessionFile]) -> OwnRules:
        from ..audit import audit
        from ..pipeline.plans import Redaction

        if not config.redact:
            return config.own_redaction
        own = with_decisions(config.own_redaction)
        report = audit(config.inputs, Redaction(config.redact, config.redact_paths, own), config.selection,
                       jobs=config.jobs, files=files)
        settle(report, yes, how_to_review)
        return with_decisions(config.own_redaction)
    return review


def how_to_review(options: Options) -> str:
    """The review command for the sessions a command was given (its inputs, up to a few, and selection)."""
    if len(options.inputs) > 3:
        return f"sessionsite review INPUT... (the {len(options.inputs)} inputs and the options given here)"
    words = ["sessionsite", "review", *(str(path) for path in options.inputs)]
    for option, values in (("--since", [options.since] if options.since else []),
                           ("--until", [options.until] if options.until else []), ("--project", options.projects),
                           ("--exclude", options.excludes), ("--branch", options.branches),
                           ("--session", options.session_ids)):
        for value in values:
            words += [option, value]
    return " ".join(shlex.quote(word) for word in words)


def listing(decisions: Mapping[str, Decided]) -> list[str]:
    """The decisions kept, as `review --list` prints them: the start of each digest (what --forget and
    --decide take), the decision, the kind and length of the value, where it was first seen, and when."""
    if not decisions:
        return ["no decisions kept yet"]
    rows = sorted(decisions.items(), key=lambda item: (item[1].decided, item[0]))
    return [f"{digest[:12]}  {decided.decision:6}  {decided.kind} ({decided.length} characters)  "
            f"{for_terminal(decided.where)}  {decided.decided}" for digest, decided in rows]


def by_prefix(decisions: Mapping[str, Decided], prefix: str) -> str:
    """The one digest that starts with `prefix` (as `--list` shows it)."""
    prefix = prefix.strip().lower()
    matching = [digest for digest in decisions if len(prefix) >= 6 and digest.startswith(prefix)]
    if len(matching) != 1:
        what = "no decision" if not matching else f"{len(matching)} decisions"
        raise click.UsageError(f"{prefix!r}: {what} with a digest starting so (at least 6 characters; "
                               "`sessionsite review --list` shows them)")
    return matching[0]


def change_decisions(forget: Sequence[str], decide: Sequence[str], store: DecisionStore | None = None) -> None:
    """`--forget ID` and `--decide ID=redact|keep`, all or none."""
    from ..output.decisions import DECISIONS, DecisionStore

    store = store or DecisionStore()
    _, decisions = store.load()
    changes: dict[str, Decided | None] = {by_prefix(decisions, prefix): None for prefix in forget}
    for given in decide:
        prefix, _, decision = given.partition("=")
        if decision not in DECISIONS:
            raise click.UsageError(f"--decide {given!r}: give ID=redact or ID=keep")
        digest = by_prefix(decisions, prefix)
        changes[digest] = replace(decisions[digest], decision=decision)  # type: ignore[arg-type]
    store.change(changes)
    for digest, decided in changes.items():
        click.echo(f"{digest[:12]}  {'forgotten' if decided is None else decided.decision}")


def review_sessions(options: Options, again: bool) -> None:
    """`sessionsite review`: put each value not decided yet (`again`: each value) to the person at the
    terminal, reading the sessions as a build with the same options would (the vault's copies of logs that
    are gone among them)."""
    from ..audit import audit
    from ..output.decisions import DecisionStore
    from ..pipeline.plans import Redaction

    configure_logging(options.verbose)
    if not interactive():
        raise UsageProblem("review asks at a terminal, one key a value; here, `sessionsite review --list` lists "
                           "the decisions and --decide ID=redact|keep changes one")
    with stopped_by_signals(), errors(options.verbose), ExitStack() as stack:
        store = DecisionStore()
        own = replace(own_rules_of(options), reviewed=None) if again else own_rules_of(options)
        inputs = inputs_or_default(options.inputs)
        files = files_to_read(list(inputs), options, own, stack)
        report = audit(inputs, Redaction(True, options.redact_paths, own), selection_of(options), jobs=options.jobs,
                       files=files)
        pending = pending_in(report, store, again)
        if not pending:
            click.echo(f"{report.sessions} session{'s' if report.sessions != 1 else ''}: nothing waits for a "
                       "decision (--again reviews the values decided already)")
            return
        answers = ask(pending, store)
    counts = {answer: sum(1 for given in answers.values() if given == answer) for answer in ("redact", "keep", "skip")}
    left = len(pending) - counts["redact"] - counts["keep"]
    click.echo(f"{counts['redact']} to redact, {counts['keep']} to keep"
               + (f"; {left} not decided (run review again to go on)" if left else ""))


__all__ = ["NotReviewed", "Pending", "ask", "change_decisions", "describe", "interactive", "listing",
           "pending_in", "review_before_publishing", "review_sessions", "settle", "with_decisions"]

