"""A question names its concepts; a description says what it means in its own words: beside
a question's words, closeness in meaning weighs less (question.Reading.meaning_weight,
measured in docs/search.md)."""

from __future__ import annotations

import numpy as np
import pytest

from app.search.query.question import Reading
from app.search.rank.by_meaning import Closeness
from app.search.rank.question_ranking import PartMatches, ordered

NAMED, CLOSER = 0, 1  # holds the rare concept / holds the common one, closer in meaning


def _order(reading: Reading) -> list[int]:
    # Two parts: a rare concept ("warmup") that NAMED holds, a common word that CLOSER holds
    bag = PartMatches(["warmup", "transformers"],
                      np.array([[1.0, 0.0], [0.0, 1.0]], np.float32), np.array([6.7, 3.7]))
    closeness = Closeness(np.array([0.4, 0.7], np.float32))  # CLOSER: the closest of all
    scores = np.array([10.0 / bag.share[NAMED], 2.0 / bag.share[CLOSER]])  # words: 1 vs 0.2
    ranked = ordered(bag, closeness, np.array([NAMED, CLOSER]), scores, lambda hits: hits,
                     head=2, limit=2, reading=reading)
    return [doc for doc, _ in ranked]


@pytest.mark.parametrize(("reading", "first"), [(Reading.QUESTION, NAMED),
                                                 (Reading.DESCRIPTION, CLOSER)])
def test_a_questions_named_concept_outweighs_a_closer_meaning_a_descriptions_does_not(
        reading: Reading, first: int):
    assert _order(reading)[0] == first
