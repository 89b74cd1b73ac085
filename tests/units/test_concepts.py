"""Which counted terms name research concepts (app/whats_new/concepts.py), judged on a small
vocabulary: prose, pieces and venue boilerplate are left out, the concepts that look like them
are not."""

import pytest

from app.search.words.acronyms import Meaning
from app.search.words.prefix_table import PrefixTable
from app.search.words.vocabulary import Vocabulary
from app.whats_new.concepts import ConceptNames
from app.whats_new.edition_terms import NO_TERMS

WRITTEN = {  # words as papers write them, and how many papers do
    "best": 9, "paper": 9, "papers": 5, "conference": 9, "conferences": 4, "sister": 3,
    "journal": 3, "track": 2, "tracking": 6, "object": 8, "enhance": 4, "enhanced": 3,
    "significantly": 5, "improve": 6, "decision": 4, "making": 4, "unlearning": 3,
    "federated": 3, "learning": 20, "fully": 3, "convolutional": 5, "pre": 4, "training": 9,
    "self": 6, "13b": 3, "emphn": 3, "ps": 4, "dms": 5, "dm": 2, "diffusion": 6, "models": 9,
    "neurips": 3, "outperforms": 4, "outperform": 2, "thereby": 3, "art": 5, "state": 7,
}


@pytest.fixture
def names() -> ConceptNames:
    vocabulary = Vocabulary(PrefixTable.of(WRITTEN))
    meanings = {"dm": [Meaning("DM", "diffusion models", 4)]}
    acronyms = {"dm", "ps"}
    return ConceptNames(NO_TERMS, vocabulary, None, meanings,
                        lambda word: 1.0 if word in acronyms else 0.0)


def papers(term: str) -> int:
    return {"dm": 5, "diffusion": 5, "model": 9}.get(term, 3)


@pytest.mark.parametrize("term", [
    "best paper", "conference best", "sister conference", "journal track",  # the venue's
    "enhance", "significantly improve", "outperform", "thereby",  # prose
    "state art", "self", "13b", "emphn", "ps",  # generic, pieces, an acronym nobody defined
])
def test_prose_pieces_and_boilerplate_are_not_listed(names: ConceptNames, term: str):
    assert names.name(term, papers) is None


@pytest.mark.parametrize(("term", "shown"), [
    ("object track", "object tracking"), ("decision make", "decision making"),
    ("unlearn", "unlearning"), ("federate learn", "federated learning"),
    ("fully convolutional", "fully convolutional"), ("pre train", "pre training"),
])
def test_concepts_that_look_like_prose_are_listed(names: ConceptNames, term: str, shown: str):
    named = names.name(term, papers)
    assert named is not None and named.shown == shown and named.meaning is None


def test_an_acronym_is_listed_with_its_meaning_where_its_papers_write_it_out(
        names: ConceptNames):
    named = names.name("dm", papers)
    assert named is not None
    assert (named.shown, named.meaning, named.query) == ("DMs", "diffusion models", "dms")
    # Where few of its papers write "diffusion" (IJCAI's "Data Mining: DM" keywords), DM is
    # not diffusion models, and nothing else it means is known: it is not listed.
    there = {"dm": 80, "diffusion": 9, "model": 50, "diffusion model": 8}
    assert names.name("dm", there.get) is None
