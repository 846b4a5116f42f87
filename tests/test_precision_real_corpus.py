"""Precision on real logs (issue 40, 9): every redaction and every finding of the net on the public corpus and the
real client's fixtures is in the reviewed table (tests/fixtures/reviewed_real_corpus.tsv, a person's verdict and
reason for each); redactions that are no secret stay under 5% of them, and the findings a person has to look at
stay at two a session or fewer (the median).

A redaction or a finding the table lacks fails the test: review it (`python tests/real_corpus_review.py` lists
them) and add its line."""

from __future__ import annotations

import statistics
from collections import defaultdict

import pytest

import real_corpus_review

pytestmark = [pytest.mark.usefixtures("public_corpus"), pytest.mark.slow]


@pytest.fixture(scope="module")
def seen():
    return sorted(set(real_corpus_review.everything()), key=lambda s: (s.source, s.what, s.kind, s.digest))


def test_every_redaction_and_finding_is_reviewed(seen):
    table = real_corpus_review.reviewed()
    missing = [f"{s.source}\t{s.what}\t{s.kind}\t{s.digest}\t{s.shown}" for s in seen
               if (s.source, s.what, s.kind, s.digest) not in table]
    assert missing == [], "review these and add them to tests/fixtures/reviewed_real_corpus.tsv:\n" + "\n".join(missing)
    assert all(verdict in ("secret", "not-secret", "keep") and reason for verdict, reason in table.values())


def test_false_positives_stay_under_five_percent_of_redactions(seen):
    table = real_corpus_review.reviewed()
    redactions = [s for s in seen if s.what == "redacted"]
    wrong = [s for s in redactions if table.get((s.source, s.what, s.kind, s.digest), ("", ""))[0] == "not-secret"]
    assert redactions and len(wrong) < 0.05 * len(redactions), [(s.source, s.shown) for s in wrong]


def test_the_median_session_has_two_findings_or_fewer(seen):
    by_session: dict[str, int] = defaultdict(int)
    for source, _ in real_corpus_review.session_files():
        by_session[source] = 0
    for s in seen:
        if s.what == "finding":
            by_session[s.source] += 1
    assert len(by_session) >= 40
    assert statistics.median(by_session.values()) <= 2, sorted(by_session.values())
