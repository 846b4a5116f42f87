"""The top of a session's first page: its title, where it comes from (the calling session of a subagent
run, the session it continues, the planning session and its original ask) and the commits it made."""

from __future__ import annotations

from typing import Any

from .blocks import Block, Prose, Structure
from .commits_made import commits_list
from .document_base import DocumentBase
from .escape import literal, typed


class HeaderWriter(DocumentBase):
    """The part of `SessionDocument` that writes the header."""

    def header(self) -> list[Block]:
        session, sessions = self.session, self.archive.sessions
        blocks: list[Block] = [Prose(f"# {literal(session.title)}", "sessionsite")]
        if session.parent_key in sessions:
            parent = sessions[session.parent_key]
            anchor = f"#{session.parent_anchor}" if session.parent_anchor else ""
            links = {"call": self._link(parent, anchor, "this call"), "parent": self._link(parent)}
            text = (f"Subagent run started from {self._markdown_link(parent, anchor, 'this call')} in "
                    f"{self._markdown_link(parent)}.")
            blocks.append(Structure(self._header_element("events/context-line.html", links, kind="subagent"), "context",
                                    text))
        if session.continues_key in sessions:
            earlier = sessions[session.continues_key]
            replayed = f" ({session.replayed} earlier entries are shown there)" if session.replayed else ""
            kind, verb = ("forked", "Forked from") if session.forked else ("continues", "Continues")
            replayed = f" (the {session.replayed} entries before the fork are shown there)" if (
                session.replayed and session.forked) else replayed
            blocks.append(Structure(self._header_element("events/context-line.html", {"earlier": self._link(earlier)},
                                                         kind=kind, replayed=session.replayed), "context",
                                    f"{verb} {self._markdown_link(earlier)}{replayed}."))
        forks = [sessions[key] for key in session.fork_keys if key in sessions]
        if forks:
            # Our links, each made safe already, joined by a comma.
            joined = {"forks": ", ".join(self._link(fork) for fork in forks)}
            blocks.append(Structure(self._header_element("events/context-line.html", joined, kind="forks"), "context",
                                    "Forked into " + ", ".join(self._markdown_link(fork) for fork in forks) + "."))
        if session.plan_source_key in sessions or session.role == "implementation" and session.previous_key:
            planning = sessions[session.plan_source_key or session.previous_key]
            if planning.first_prompt:
                quoted = "\n".join(("> " + line) if line else ">" for line in typed(planning.first_prompt).split("\n"))
                blocks.append(Structure(self._header_element("events/original-ask.html",
                                                             {"planning": self._link(planning)}), "label",
                                        f"**The original ask, in the planning session {self._markdown_link(planning)}**"))
                blocks.append(Prose(quoted, "person"))
        commits = commits_list(session, self.options.repo_url, self.markup)
        if commits is not None:
            blocks.append(commits)
        # The header ends in a line break of its own: a wider gap before the first message, as always.
        last = blocks[-1]
        assert isinstance(last, (Prose, Structure))  # a header holds nothing else
        blocks[-1] = (Prose(last.text + "\n", last.by) if isinstance(last, Prose)
                      else Structure(last.html + "\n", last.kind, last.text + "\n" if last.text else ""))
        return blocks

    def _header_element(self, template: str, links: dict[str, str], **context: Any) -> str:
        """One of the lines at the top of a session (once a page: rendered whole); `links`: ours (`_link`)."""
        import markupsafe

        ours = {name: markupsafe.Markup(link) for name, link in links.items()}  # noqa: S704 - made by _link, escaped
        return self.markup.element(self.markup.template(template), **context, **ours)
