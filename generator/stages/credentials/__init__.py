"""What a secret looks like, as facts redaction matches on: token formats of known providers (`providers`),
names that say a value is a secret in any case style (`names`), values given to such names in any syntax
(`assignments`), fixed forms such as passwords in URLs and tool flags (`forms`), credential files (`files`),
and the entropy of random keys (`entropy`). `scan` runs them over a text, each rule only where its anchors
are. Nothing here knows about entries or outputs: `stages.redact` applies it."""
