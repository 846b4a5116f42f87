"""The commits a session made, as its header lists them."""

from __future__ import annotations

from ...core.model import Commit, Session
from ...stages.commits import commit_url
from .gfm import bold, destination, facts, link
from .blocks import Structure
from .escape import inline_code, literal
from .markup import TranscriptMarkup
from .times import time_of

# The session's header lists this many commits; all of them are on the project's commits page.
COMMITS_IN_HEADER = 20


def commit_stat(commit: Commit) -> str:
    """`3 files +10 −2`, from git's stat line; "" when git printed none."""
    if commit.files_changed < 0:
        return ""
    # As git prints it: a count of zero lines added or removed is left out.
    parts = [f"{commit.files_changed} file{'s' if commit.files_changed != 1 else ''}"]
    parts += [f"+{commit.insertions}"] if commit.insertions else []
    parts += [f"\u2212{commit.deletions}"] if commit.deletions else []
    return " ".join(parts)


def commits_list(session: Session, repo_url: str, markup: TranscriptMarkup) -> Structure | None:
    """The commits a session made, as one block (the page's HTML in one piece, so that Markdown keeps it
    whole; a list in the .md): each SHA links to the forge when its address is known, each subject to the
    call that made the commit."""
    if not session.commits:
        return None
    shown = session.commits[:COMMITS_IN_HEADER]
    urls_of = [commit_url(repo_url or commit.forge, commit.sha) for commit in shown]
    labels_of = [[label for label in ("root commit" if commit.root else "", "amended" if commit.amend else "",
                                      commit_stat(commit)) if label] for commit in shown]
    commits = [{"url": url, "sha": commit.sha, "anchor": commit.anchor, "subject": commit.subject,
                "branch": commit.branch, "time": time_of(commit.timestamp), "labels": labels}
               for commit, url, labels in zip(shown, urls_of, labels_of, strict=True)]
    count, more = len(session.commits), len(session.commits) - COMMITS_IN_HEADER
    items = []
    for commit, url, labels in zip(shown, urls_of, labels_of, strict=True):
        sha = inline_code(commit.sha)
        subject = commit.subject or "(no subject)"
        items.append("- " + " ".join((
            f"[{sha}]({destination(url)})" if url else sha,
            link(subject, "#" + commit.anchor) if commit.anchor else literal(subject),
            facts(inline_code(commit.branch), literal(time_of(commit.timestamp)), *map(literal, labels)))))
    if more > 0:
        items.append(f"- and {more} more (the project's commits page lists them all)")
    text = bold(f"{count} commit{'s' if count != 1 else ''} made in this session") + "\n\n" + "\n".join(items)
    return Structure(markup.element(markup.template("events/commits-made.html"), commits=commits, count=count,
                                    more=more), "commits", text)
