"""sessionsite: Claude Code session logs -> Markdown -> a static HTML archive.

The pipeline runs one way, one folder per layer, each importing only from the layers before it
(`LAYERS`, which tests/test_layers.py checks against every import):

    core/     the frozen model the stages pass along, errors, text helpers, and `urls` (where every file goes)
    stages/   discover -> read -> redact -> interpret (with summarize, commits) -> link: log files to linked sessions
    render/   markdown/ (the intermediate), then the writers over it: html/ (pages) and search (the index)
    output/   write (atomic staging), locks, manifest (what the last build did), vault (logs kept), encrypt and
              sealed_site (--encrypt: the archive sealed from the built site)
    config, job (what every command that writes an output shares: checks, lock, vault, --strict, staging),
    pipeline/ (the two phases, and what they reuse of the last build), build: the application that runs them;
    audit, bundle (commit_range), claude, config_file (the user's sessionsite.toml), json_export, serve:
    commands over it; commands/ (the options made into configs in one place), then cli (only Click), and
    program (the process: the command line, then its end)
"""

__version__ = "0.1.0"
"""sessionsite's version, the one place it is written: pyproject.toml reads it from here (hatchling's dynamic
version), and `sessionsite --version` says it."""

CLAUDE_CODE_OLDEST = "1.0.x"
"""The oldest Claude Code whose logs sessionsite reads (examples/ and the corpus hold them)."""
CLAUDE_CODE_NEWEST = "2.1.332"
"""The newest Claude Code whose logs sessionsite is tested with: the real CLI that wrote
tests/fixtures/realclient/ (tests/realclient/generate.py pins it from here)."""
CLAUDE_CODE_VERSIONS = f"{CLAUDE_CODE_OLDEST} to {CLAUDE_CODE_NEWEST}"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundations", ("generator.__init__", "generator.core")),
    ("stages: from log files to linked sessions", ("generator.stages",)),
    ("the Markdown intermediate, and the figures pages show", ("generator.render.__init__", "generator.render.theme",
                                                               "generator.render.markdown", "generator.render.stats")),
    ("writers over the Markdown: HTML pages and the search index", ("generator.render.html", "generator.render.search")),
    ("output: files written safely, the manifest, the vault", ("generator.output",)),
    ("what a command is asked to do, the job that runs it, and the worker processes",
     ("generator.config", "generator.job", "generator.workers")),
    ("a build's two phases", ("generator.pipeline",)),
    ("the build", ("generator.build",)),
    ("commands over the build", ("generator.audit", "generator.bundle", "generator.commit_range", "generator.claude",
                                 "generator.config_file", "generator.json_export", "generator.serve")),
    ("what each command does, apart from Click; the options made into configs", ("generator.commands",)),
    ("the command line", ("generator.cli",)),
    ("the program: the command line in a process of its own", ("generator.program", "generator.__main__")),
)
"""The layers in order, each named by the packages and modules in it (a package takes in what is below it,
its `__init__` included). A module may import from its own layer and the ones before it, never from a later
one, and no imports go round in a circle."""
