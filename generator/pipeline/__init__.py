"""The build's two phases, for the files that changed since the last one.

Phase 1 (`phase1.collect`): read → interpret → redact → link → select. Every file is read once and only a
small summary of each session is kept: indexes, chains and subagent links need the whole picture before a
page is written, but not the transcripts.

Phase 2 (`phase2.build_site`, a file at a time in `phase2.FileRenderer`): read → redact → interpret →
markdown → html and search → write. Every file is read again and its sessions rendered as their events
stream past, pages written as they fill; then the index pages, the search index and the manifest.

Both phases spread files over worker processes: memory is a constant plus the summaries plus one page per
worker, whatever the size of the archive or of its largest session. What the previous build made is
reused only where the output would be the same; `incremental` answers those questions at the stages'
boundaries (is this file's summary reusable, are this file's outputs unchanged, what is this page's body).
`plans` holds what the phases pass along for each file (its summaries, its manifest record, its outputs).

Redaction, one rule: whatever a phase hands on has been through the redactor. Phase 1 hands on
summaries, so it redacts each file's summaries as it keeps them (after interpreting: the transcripts it
reads are dropped, and redacting a summary costs far less than redacting every entry); phase 2 hands on
pages, so it redacts every entry before interpreting it. A summary taken from the manifest was redacted
when it was made (the settings, redaction included, are part of what makes a manifest reusable).
tests/test_pipeline.py plants a secret in each field a summary carries and finds it in no output.
"""
