"""Foundations every layer uses: the frozen model (`model`), errors, text helpers, and `urls`, which
decides where every output file goes."""
