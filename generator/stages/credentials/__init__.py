"""The facts redaction matches on: what a credential looks like.

`providers` holds the token formats that providers publish and the open secret scanners (gitleaks,
TruffleHog, detect-secrets, GitHub's secret-scanning partners) document: for each, a literal prefix or
shape, an alphabet and a length, written here as our own rules (`TokenRule`), each with the literal
substrings every match holds, so that one pass over a text tells which rules can find anything in it.
Secrets that have no shape of their own (a password, a key that is only 32 hex digits) are found by
their context instead, in the redaction stage.
"""
