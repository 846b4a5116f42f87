"""The stages, in order: `discover` finds the logs, `read` parses their lines, `redact` replaces secrets,
`interpret` turns entries into events and sessions (with `summarize`, what is kept of them between phases),
`link` ties sessions together (titles, subagents, continuations, plans) into an archive."""
