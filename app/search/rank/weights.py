"""What each part of a match is worth, in one table that the ranking, the query's
expansion, questions, proximity and related papers read at each use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Weights:
    """What each part of a match is worth. Measured with bench/relevance (ICLR keywords,
    the seed judgments): docs/search.md gives the runs behind each value."""

    k1: float = 1.2  # BM25F: how fast a term's repeats stop counting (Whoosh's default)
    b: float = 0.75  # BM25F: how much a long field is discounted (Whoosh's default)
    headline_field: float = 1.5  # the headline field's boost in the index (a change re-indexes)
    # How much more a match in the headline (the title, when there is one) counts than the
    # same match in the abstract, on top of the headline field's own boost.
    headline_match: float = 0.5
    # A match of another form of the typed word's group, beside one of the form typed: "RNN"
    # finds the papers that write "recurrent neural network" too, after those that write RNN.
    other_form: float = 0.5
    proximity: float = 0.6  # the re-rank's gain for query words close together
    partial_share: float = 0.5  # the share of a query's parts a partial match holds at least
    # A question or a description lists the papers holding at least this share of its
    # concepts' weight that the best papers hold (all of it when some hold every concept;
    # each part weighs its IDF: question.py)...
    bag_share: float = 0.5
    # ...and ranks a paper lacking some by BM25F × (the share of the weight it holds) ** this.
    coverage: float = 1.0
    # A question's word also finds the words of its family (derivations) at this weight.
    family: float = 0.25
    # "without X": the phrases that say a paper does without X, scored, not required
    # (question.doing_without). At 1, "object detection without labels" still led with
    # label-error papers at L; at 3, with semi-supervised and open-vocabulary detectors.
    doing_without: float = 3.0
    # The aspect a question asks about ("the limitations of RLHF"): scored at this weight,
    # not required (question.is_aspect_word).
    aspect: float = 3.0
    same_topic: float = 1.3  # a related paper of the same primary topic
    # The share of the score of a paper like a paper (related papers) or like a pasted text
    # that is the cosine of their vectors (vectors.py), the rest its lexical score over the
    # best; for a reading list, the cosine with the mean of its papers' vectors.
    related_vectors: float = 0.5
    list_vectors: float = 0.4
    # Plus this times the cosine of their sentence vectors (by_meaning.py) with the paper's
    # (its related papers, a reading list of it alone), or with the unit mean of a list of
    # several papers': there the terms they share say most of what they have in common
    # (measured: docs/search.md).
    related_meaning: float = 1.0
    list_meaning: float = 0.5
    # And, from one paper, this times the cosine with the mean of the first papers found
    # that way (similar.FEEDBACK_PAPERS); a list of several has no such round.
    feedback_meaning: float = 1.0
    # A recommendation loses this times its closeness to the closest paper marked "less like
    # this" (similar._likeness): a list of one paper's; a list of several, as much less as it
    # weighs closeness less (similar._lowering).
    less_like: float = 1.0
    # The weight of the words of a phrase that listed papers share, where the phrase stands,
    # over the mean of the list's terms (similar.py; all three: docs/search.md).
    list_phrases: float = 2.0
    # Search by meaning (by_meaning.fused): a question's, a description's or a pasted text's
    # papers are ranked by their score by words over the best's, plus this times their
    # closeness in meaning over the closest paper's (counted from `near_floor`, a cosine,
    # up); papers closer than `near_floor` that hold too few of the words join them.
    meaning_weight: float = 1.5
    near_floor: float = 0.3
    # A question names its concepts, where a description says what it means in its own
    # words: closeness weighs less beside a question's words (0.5-1.25 read 71-72 of the 76
    # questions against 71 at 1.5, and no plain-word description lost: docs/search.md).
    question_meaning_weight: float = 1.0
    # A query the encoder is unsure of, no paper closer than `unsure_below`, is read as its
    # vector plus this times the mean of its closest papers' (by_meaning.closeness_to):
    # plain words are such queries (90 % of them at L), one-line summaries seldom (9 %).
    unsure_below: float = 0.6
    unsure_feedback: float = 1.0
    # Such a description's first page is scored again: each paper's score over the best's,
    # plus this times the share of the weight of the concepts its closest papers share that
    # it holds (shared_terms.py).
    shared_terms: float = 0.3


# Read at each use (`weights.WEIGHTS.proximity`), so a benchmark may try others by replacing
# it: bench/relevance/keywords.py.
WEIGHTS = Weights()
