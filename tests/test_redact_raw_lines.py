"""A secret written into a log line with JSON's escapes is redacted as it would be written plain: any shortcut
that judges an entry by its line's bytes (issue 30: pass on unwalked an entry whose line shows the prefilter
nothing) must see the strings the line holds, not its spelling. Each case is a log line written by hand, escapes
and all, read and redacted as phase 2 does (`stream_entries`); the secret's random part must not come through.
Each family here (`\\uXXXX` in an anchor or a name, `\\/`, `\\"`, `\\n` and `\\t` making lines, surrogate pairs,
escaped backslashes, keys spelled with escapes or with no stem of a secret's name in them) lets a secret through a
gate that scans the raw bytes, or that leaves keys to the prefilter, or that finds keys without counting quotes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.core.model import Entry
from generator.pipeline.phase1 import stream_entries
from generator.stages.discover import SessionFile
from generator.stages.redact import Redactor

ANTHROPIC_BODY = "Xq7Lm2Pz9Rt4Vb8Nc3Dw6Hy1Jk5Fg0As" * 3 + "AA"
GITHUB_BODY = "N0tAR3alT0ken" * 2 + "N0tAR3alT0"
RANDOM_VALUE = "Xk9fQ2mZ7pL4vB8nR3tW6yH1"
KEY_LINES = ("MIIEpAIBAAKCAQEA7Xq7Lm2Pz9Rt4Vb8Nc3Dw6Hy1Jk5Fg0AsQwErTyUiOpLkJhGf",
             "Xq7Lm2Pz9Rt4Vb8Nc3Dw6Hy1Jk5Fg0AsQwErTyUiOpLkJhGfDsAzXcVbNmQwErTy")

# Each: a string's JSON spelling, as it stands between the quotes in the log line, and the part of its secret that
# must not come through. The spellings are written out by hand: `\\u002d` in this file is `\u002d` in the line.
IN_TEXT = {
    "anchor-dash-escaped": ("sk\\u002dant-api03-" + ANTHROPIC_BODY, ANTHROPIC_BODY[:24]),
    "anchor-letter-escaped": ("AKI\\u0041QX7LM2PZ9RT4VB8N", "QX7LM2PZ9RT4VB8N"),
    "anchor-letter-escaped-lower": ("gh\\u0070_" + GITHUB_BODY, GITHUB_BODY[:20]),
    "anchor-slashes-escaped": ("https:\\/\\/hooks.zapier.com\\/hooks\\/catch\\/4815162\\/Qz7Xk2Lm9", "Qz7Xk2Lm9"),
    "key-header-space-escaped": ("-----BEGIN\\u0020RSA PRIVATE KEY-----\\n" + "\\n".join(KEY_LINES)
                                 + "\\n-----END RSA PRIVATE KEY-----", KEY_LINES[1][:24]),
    "name-letter-escaped": ("DB_PASS\\u0057ORD=" + RANDOM_VALUE, RANDOM_VALUE),
    "name-quote-escaped": ('{\\"github_pat\\": \\"' + RANDOM_VALUE + '\\"}', RANDOM_VALUE),
    "lines-escaped": ("notes\\nSTRIPE=" + RANDOM_VALUE + "\\nOTHER=Rk4fQ2mZ7pL4vB8nR3tW6yH9", RANDOM_VALUE),
    "wrapped-with-tabs": ("     1\\tgh\\n     2\\tp_" + GITHUB_BODY, GITHUB_BODY[:20]),
    "wrapped-arrow-escaped": ("     1\\u2192gh\\n     2\\u2192p_" + GITHUB_BODY, GITHUB_BODY[:20]),
    "surrogate-pair-before": ("\\ud83d\\udd11 sk\\u002dant-api03-" + ANTHROPIC_BODY, ANTHROPIC_BODY[:24]),
    "escaped-backslashes-and-quotes": ('{\\"private_key\\": \\"-----BEGIN PRIVATE KEY-----\\\\n'
                                       + "\\\\n".join(KEY_LINES) + '\\\\n-----END PRIVATE KEY-----\\\\n\\"}',
                                       KEY_LINES[1][:24]),
    "escaped-backslash-then-u": ("C:\\\\u0041 AKI\\u0041QX7LM2PZ9RT4VB8N", "QX7LM2PZ9RT4VB8N"),
}

# Each: a mapping key's JSON spelling whose value is a secret by the key's name alone, and that value.
KEYS = {
    "key-letter-escaped": ("api\\u005fkey", RANDOM_VALUE),
    "key-without-any-stem": ("pin", "483920"),
    "key-quote-escaped": ('client\\"secret', RANDOM_VALUE),
    # After a string that ends in an escaped quote, a key that starts with `:`: a search for keys that does not
    # keep count of which quotes open a string takes `","` for one and misses this key.
    "key-after-escaped-quote": (":pin", "483920"),
    "key-spelled-all-escaped": ("\\u0070\\u0061\\u0073\\u0073\\u0077\\u006f\\u0072\\u0064", RANDOM_VALUE),
}


def _redacted(tmp_path: Path, line: str) -> str:
    path = tmp_path / "session.jsonl"
    # Lines that hold nothing around the one under test, in the same batch (the gate looks at each line).
    quiet = '{"type":"user","uuid":"u0","message":{"role":"user","content":"nothing to see here at all"}}\n'
    path.write_text(quiet + line + "\n" + quiet, encoding="utf-8")
    session_file = SessionFile(path, "-home-ada-src-app")
    items = list(stream_entries(session_file, Redactor(), []))
    assert all(isinstance(item, Entry) for item in items) and len(items) == 3
    return json.dumps([item.data for item in items if isinstance(item, Entry)], ensure_ascii=False)


@pytest.mark.parametrize("name", list(IN_TEXT))
def test_a_secret_spelled_with_escapes_in_a_text_is_redacted(tmp_path, name):
    spelled, secret = IN_TEXT[name]
    line = '{"type":"user","uuid":"u1","message":{"role":"user","content":"' + spelled + '"}}'
    assert json.loads(line)  # the line is JSON as a log holds it
    found = _redacted(tmp_path, line)
    assert secret not in found
    assert "[REDACTED:" in found


@pytest.mark.parametrize("name", list(KEYS))
def test_a_secret_under_a_key_spelled_with_escapes_is_redacted(tmp_path, name):
    key, secret = KEYS[name]
    line = ('{"type":"assistant","uuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"\\"","'
            + key + '":"' + secret + '"}]}}')
    assert json.loads(line)
    found = _redacted(tmp_path, line)
    assert secret not in found
    assert "[REDACTED:" in found


def test_a_secret_in_a_tool_result_spelled_with_escapes_is_redacted(tmp_path):
    line = ('{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result",'
            '"tool_use_id":"toolu_1","content":"export OPENAI\\u005fAPI_KEY=sk\\u002dproj-' + ANTHROPIC_BODY + '"}]}}')
    found = _redacted(tmp_path, line)
    assert ANTHROPIC_BODY[:24] not in found
