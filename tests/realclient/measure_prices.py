"""Measure what the real Claude Code CLI charges per million tokens for each model it knows, offline.

    python tests/realclient/measure_prices.py [--version X] [--model ID]... [--cache DIR]

For each model id and each kind of token (input, output, cache read, 5-minute and 1-hour cache write), one
`claude -p --model ID` run gets a single reply from the scripted API whose `usage` reports TOKENS tokens of that
kind and none of the others. Claude Code then writes the session's `cost-state` record, whose `costUSD` for the
model is what it charges for those tokens; times 1,000,000 / TOKENS, that is its price per million. A model it
has no price for is flagged there (`hasUnknownModelCost`) and left out. TOKENS stays well under the 200K-token
prompts that some APIs price higher, so the figures are the standard ones.

The model ids are those of Claude Code's own list of known models (an array of "claude-..." ids in its
bundled JavaScript, found by the default model it holds). The result is printed as prices.json rows; copy
them into generator/render/prices.json. tests/test_realclient.py checks the table against the fixtures'
`cost-state` figures, and against the real CLI where npm's cache has it.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from api_stub import DEFAULT_MODEL, Reply, ScriptedAPI, text  # noqa: E402
import generate  # noqa: E402

TOKENS = 100_000
KINDS: dict[str, dict[str, object]] = {
    "input": {"input_tokens": TOKENS},
    "output": {"output_tokens": TOKENS},
    "cache_read": {"cache_read_input_tokens": TOKENS},
    "cache_write_5m": {"cache_creation_input_tokens": TOKENS,
                       "cache_creation": {"ephemeral_5m_input_tokens": TOKENS, "ephemeral_1h_input_tokens": 0}},
    "cache_write_1h": {"cache_creation_input_tokens": TOKENS,
                       "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": TOKENS}},
}
_NO_TOKENS = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}


def known_models(executable: Path) -> list[str]:
    """Claude Code's list of model ids: the longest array literal of "claude-..." strings holding the
    default model, in the package's JavaScript (a native build embeds it in its binary)."""
    real = executable.resolve()
    candidates = [real, *real.parent.parent.rglob("cli.js"), *real.parent.parent.parent.rglob("claude")]
    found: list[str] = []
    for path in candidates:
        if not path.is_file():
            continue
        for match in re.finditer(rb'\[(?:"claude-[a-z0-9-]+",){5,}"claude-[a-z0-9-]+"\]', path.read_bytes()):
            ids = json.loads(match.group())
            if DEFAULT_MODEL in ids and len(ids) > len(found):
                found = ids
    if not found:
        sys.exit(f"{real}: no list of model ids holding {DEFAULT_MODEL} found")
    return found


def charged(executable: Path, model: str, usage: dict[str, object]) -> tuple[float, bool]:
    """(dollars Claude Code charged `model` for one reply with this usage, whether it has a price of its own
    for the model: not when it flags the cost as unknown, nor when it sends a retired id as another model)."""
    with tempfile.TemporaryDirectory(prefix="realclient-prices-") as work, ScriptedAPI() as api:
        home = Path(work).resolve() / "home"
        project = home / "tidewatch"
        project.mkdir(parents=True)
        api.queue([Reply.costing({**_NO_TOKENS, **usage}, text("Counted."))])
        result = subprocess.run([str(executable), "-p", "Count this", "--model", model], cwd=project,
                                env=generate.environment(home, api, {}), capture_output=True, text=True,
                                timeout=generate.RUN_TIMEOUT)
        states = [json.loads(line) for log in (home / ".claude" / "projects").rglob("*.jsonl")
                  for line in log.read_text(encoding="utf-8").splitlines() if '"type":"cost-state"' in line]
        if not states:
            sys.exit(f"{model}: Claude Code wrote no cost-state (exit {result.returncode}): {result.stderr[-400:]}")
        figures = states[-1]["modelUsage"].get(model)
        if not isinstance(figures, dict):
            # A retired id: Claude Code asked for another model instead.
            return 0.0, False
        return float(figures["costUSD"]), not states[-1].get("hasUnknownModelCost", False)


def price_per_million(executable: Path, model: str) -> dict[str, float] | None:
    """The model's prices by kind of token, or None when Claude Code has no price of its own for it."""
    prices: dict[str, float] = {}
    for kind, usage in KINDS.items():
        dollars, known = charged(executable, model, usage)
        if not known:
            return None
        prices[kind] = round(dollars * 1_000_000 / TOKENS, 6)
    return prices


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default=generate.PINNED_VERSION)
    parser.add_argument("--model", action="append", help="only this model id (repeatable)")
    parser.add_argument("--cache", type=Path, default=generate.DEFAULT_CACHE)
    options = parser.parse_args()
    executable = generate.install(options.version, options.cache)
    models = options.model or known_models(executable)
    rows = []
    for model in models:
        prices = price_per_million(executable, model)
        print(f"  {model}: {prices or 'no price of its own'}", file=sys.stderr)
        if prices:
            rows.append(f'    "{model}": ' + json.dumps({kind: prices[kind] for kind in
                                                        ("input", "cache_write_5m", "cache_write_1h", "cache_read",
                                                         "output")}))
    print(f"Claude Code {options.version} charges, per million tokens:")
    print(",\n".join(rows))


if __name__ == "__main__":
    main()
