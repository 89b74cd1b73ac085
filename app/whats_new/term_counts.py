"""Counting how many papers of each edition hold each word and each two-word phrase
(edition_terms.py), from the index's own posting arrays when a generation is written (a build
or an update), so that a count is exactly what a search for the word, or the quoted phrase,
finds in that edition: the same analyzer, the same fields (title or abstract), the same
positions (a phrase is two terms one position apart, stop words renumbered over as the
analyzer does). The counts are what's new's part of every generation (`TERMS_PART`,
registered with it by app/feature_parts.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
from whoosh.searching import Searcher

from app.search.index.arrays import FieldArrays, deleted_docs, field_arrays, windows
from app.search.index.columns import read_columns
from app.search.index.held_files import counts_in, write_array_directory
from app.search.index.registry import Held
from app.search.index.whoosh import open_index
from app.search.words.analysis import MAX_STOPS, STOP_BITS, analyze
from app.search.words.completions import PHRASES_FILE
from app.whats_new.edition_terms import TERMS_FILE, read_edition_terms
from app.words import TERM_EDGE_WORDS, TERM_LEADING_WORDS

MIN_PAPERS = 5  # in the whole catalog: rarer terms are noise to every comparison
# A segment's documents counted at a time: the step's memory is a chunk's postings and
# positions, not the whole index's (~50 MB at L's abstracts; the run time is the same from
# 4096 to 32768, measured).
CHUNK_DOCUMENTS = 8192
ADDRESS_PARTS = frozenset({"http", "https", "www", "com", "org", "github"})  # and "github.com"


def _code(term: str, vocabulary: dict[str, int]) -> int:
    """A term's word number; -1 for a word that may only lead a phrase ("in"), -2 for one that
    takes no part (a function word, a number), -3 for an acronym's marker (MAP beside map, at
    its position: words of the catalog are lowercase)."""
    if term != term.lower():
        return -3
    if term in TERM_LEADING_WORDS:
        return -1
    if (len(term) < 2 or term in TERM_EDGE_WORDS or not any(c.isalpha() for c in term)
            or "." in term or term in ADDRESS_PARTS):
        return -2
    return vocabulary.setdefault(term, len(vocabulary))


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (numpy 2's np.unique hashes int64 keys, 30x slower here)."""
    values = np.sort(values)
    return values[np.concatenate([[True], values[1:] != values[:-1]])] if len(values) else values


def _runs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and how many times each occurs."""
    if not len(values):
        return values, np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    return values[starts], np.diff(np.append(starts, len(values)))


def _chunk_pairs(arrays: FieldArrays, codes: np.ndarray, chosen: np.ndarray, first: int,
                 documents: int, words: int, phrases: np.ndarray) -> np.ndarray:
    """The (word, document) and (phrase, document) pairs of the postings `chosen` (all those
    of the segment's documents `first` to `first + documents`), each as one int64: term *
    documents + document - first, where a phrase's term is words + (left + 1) * words +
    right and one of `phrases` (sorted)."""
    posting_codes = codes[np.searchsorted(arrays.starts, chosen, side="right") - 1]
    posting_docs = (_gather(arrays.ids, chosen) - first).astype(np.int32)
    held = posting_codes >= 0
    word_pairs = posting_codes[held].astype(np.int64) * documents + posting_docs[held]
    placed = posting_codes > -3
    return np.concatenate([word_pairs, _phrase_pairs(
        arrays, chosen[placed], posting_codes[placed], posting_docs[placed], documents, words,
        phrases)])


def _phrase_pairs(arrays: FieldArrays, chosen: np.ndarray, codes: np.ndarray, docs: np.ndarray,
                  documents: int, words: int, phrases: np.ndarray) -> np.ndarray:
    """The (phrase, document) pairs of `_chunk_pairs`, from the chosen postings' positions."""
    begin = _gather(arrays.bounds, chosen).astype(np.int64)
    per_posting = _gather(arrays.bounds, chosen + 1) - begin
    # Only the chunk's positions are read: each chosen posting's run of them.
    at = np.arange(int(per_posting.sum()), dtype=np.int64)
    at += np.repeat(begin - (np.cumsum(per_posting) - per_posting), per_posting)
    stored = _gather(arrays.positions, at)
    positions = stored >> STOP_BITS  # places: stop words skipped
    parted = (stored & MAX_STOPS) > 0  # stop words just before the word
    del at, begin, stored
    codes_at = np.repeat(codes, per_posting)
    docs_at = np.repeat(docs, per_posting)
    # The chunk's text as a sequence of codes: each document's run of positions, one slot
    # apart from the next document's so that no phrase crosses from one to another. Postings
    # at one position are placed in index order, as when the field was counted in one piece.
    # int32 like the positions: with an int64 target, np.maximum.at was 20x slower (measured).
    length = np.zeros(documents, dtype=np.int32)
    np.maximum.at(length, docs_at, positions + 2)
    begins = np.concatenate([[0], np.cumsum(length, dtype=np.int64)[:-1]])
    text = np.full(int(length.sum()), -2, dtype=np.int32)
    text[begins[docs_at] + positions] = codes_at
    # A typed phrase matches only where no stop word parts its two words, as the quoted phrase
    # of a term's link does: "vision and language" is no "vision language" (at L its papers of
    # 2022-2024 had read 314, the link's search 221).
    apart = np.zeros(len(text), dtype=bool)
    apart[begins[docs_at] + positions] = parted
    del codes_at, docs_at, positions, parted
    left, right = text[:-1], text[1:]
    at = np.flatnonzero((left >= -1) & (right >= 0) & ~apart[1:])
    found = words + (left[at].astype(np.int64) + 1) * words + right[at]
    known = _among(found, phrases)
    slot_doc = np.searchsorted(begins, at[known], side="right") - 1
    return found[known] * documents + slot_doc


def _among(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which values are among the keys (np.isin sorts both; the keys are sorted already)."""
    if not len(sorted_keys):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_keys, values), len(sorted_keys) - 1)
    return sorted_keys[at] == values


def _term_text(key: int, words: list[str]) -> str:
    if key < len(words):
        return words[key]
    left, right = divmod(key - len(words), len(words))
    return f"{words[left - 1] if left else 'in'} {words[right]}"


def _phrase_keys(phrases: Iterable[str], vocabulary: dict[str, int]) -> np.ndarray:
    """The keys of the catalog's two-word title and keyword phrases (search/words/completions.py):
    the phrases counted, rather than every two words that happen to meet ("network deep"
    across a full stop, "player multi" inside "two player multi-agent games")."""
    words = max(len(vocabulary), 1)
    keys = set()
    for phrase in phrases:
        terms = analyze(phrase)
        if len(terms) != 2:
            continue
        left, right = terms
        left_code = -1 if left in TERM_LEADING_WORDS else vocabulary.get(left, -2)
        if left_code >= -1 and right in vocabulary:
            keys.add(words + (left_code + 1) * words + vocabulary[right])
    return np.array(sorted(keys), dtype=np.int64)


def count_edition_terms(directory: Path, phrases: Iterable[str]) -> None:
    """Count the generation's terms per edition into its `edition_terms` (after its arrays
    are written), two-word terms among the catalog's `phrases`."""
    ix = open_index(directory)
    try:
        with ix.searcher() as searcher:
            counted = _count(searcher, phrases)
    finally:
        ix.close()
    write_array_directory(directory / TERMS_FILE, counted)


def _derive(directory: Path, whole: bool) -> None:
    count_edition_terms(directory, counts_in(directory / PHRASES_FILE))


def _open(directory: Path, documents: int) -> object:
    return read_edition_terms(directory)


# Counted from the arrays and the completions' phrases, so made after them; no search waits
# for it (`Held.deferred`). Module-level functions: a spawned child is handed it pickled.
TERMS_PART = Held(TERMS_FILE, (TERMS_FILE,), derive=_derive, open=_open, deferred=True,
                  after="completions")


def _count(searcher: Searcher, phrases: Iterable[str]) -> dict[str, np.ndarray]:
    columns = read_columns(searcher, ("venue", "series", "year"))
    if len(columns) < 3:  # an empty index has no columns
        return {}
    column = columns["venue"]
    found = _held_terms(searcher, phrases, column.codes)
    if found is None:  # an index written before its arrays
        return {}
    names, kept, edition_of, term_ids, counts, live = found
    editions = len(column.values)
    firsts = _firsts(column.codes, editions)
    return {
        "terms": np.array("\n".join(_term_text(int(key), names) for key in kept)),
        "editions": np.array(column.decoded()),
        # Each edition's series and year: the value its first document has.
        "series": np.array([columns["series"].value(columns["series"].codes[first])
                            for first in firsts]),
        "years": np.array([columns["year"].value(columns["year"].codes[first])
                           for first in firsts], dtype=np.int32),
        "papers": np.bincount(column.codes[live], minlength=editions).astype(np.int32),
        "starts": np.searchsorted(edition_of, np.arange(editions + 1)).astype(np.int64),
        "term_ids": term_ids.astype(np.int32),
        "counts": counts.astype(np.int32),
    }


class _Tally:
    """Papers per (edition, term) cell, each an int64 key edition * span + term, over the
    chunks counted so far: far fewer than the (term, paper) pairs they count."""

    def __init__(self, span: int) -> None:
        self.span = span
        self.cells = np.zeros(0, dtype=np.int64)  # sorted
        self.papers = np.zeros(0, dtype=np.int32)

    def add(self, editions: np.ndarray, terms: np.ndarray) -> None:
        """Count a chunk's (term, paper) pairs, each paper's once, by the paper's edition."""
        cells, papers = _runs(np.sort(editions.astype(np.int64) * self.span + terms))
        at = np.searchsorted(self.cells, cells)
        old = at < len(self.cells)
        old[old] = self.cells[at[old]] == cells[old]
        self.papers[at[old]] += papers[old].astype(np.int32)
        new = ~old
        self.cells = np.insert(self.cells, at[new], cells[new])
        self.papers = np.insert(self.papers, at[new], papers[new].astype(np.int32))

    def frequent(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The term keys of `MIN_PAPERS` papers or more in the whole catalog, and the cells of
        those (sorted by edition, then term): edition, term number among those kept, papers."""
        edition_of, terms = np.divmod(self.cells, self.span)
        distinct = _distinct(terms)
        which = np.searchsorted(distinct, terms)
        del terms
        frequent = np.bincount(which, weights=self.papers, minlength=len(distinct)) >= MIN_PAPERS
        keep = frequent[which]
        return (distinct[frequent], edition_of[keep], (np.cumsum(frequent) - 1)[which[keep]],
                self.papers[keep])


def _segments(searcher: Searcher, documents: int) -> tuple[
        np.ndarray, list[tuple[list[FieldArrays], int, int]]]:
    """Which documents are live, and each segment's fields with arrays, with its first
    document number and its documents."""
    live = np.ones(documents, dtype=bool)
    segments = []
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        live[deleted_docs(reader) + offset] = False
        fields = [arrays for arrays in (field_arrays(reader, name) for name in ("headline", "text"))
                  if arrays]
        if fields:
            segments.append((fields, offset, reader.doc_count_all()))
    return live, segments


def _held_terms(searcher: Searcher, phrases: Iterable[str], editions: np.ndarray) -> tuple[
        list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Which live papers hold which terms of `MIN_PAPERS` papers or more, per edition (the
    document's code in `editions`): the words, the term keys kept, the cells of
    `_Tally.frequent` and which documents are live."""
    live, segments = _segments(searcher, len(editions))
    if not segments:
        return None
    vocabulary: dict[str, int] = {}
    coded = [[(arrays, np.fromiter((_code(term, vocabulary) for term in arrays.terms),
                                   dtype=np.int32, count=len(arrays.terms))) for arrays in fields]
             for fields, _, _ in segments]
    words = max(len(vocabulary), 1)
    phrase_keys = _phrase_keys(phrases, vocabulary)
    tally = _Tally(words * (words + 2))  # above every term key
    for fields, (_, offset, documents) in zip(coded, segments, strict=True):
        # Each posting's chunk, computed once: comparing the document numbers for each chunk
        # reads four bytes a posting instead of one (3x slower at L, measured).
        chunk_of = [_chunk_numbers(arrays.ids, documents) for arrays, _ in fields]
        for chunk, first in enumerate(range(0, documents, CHUNK_DOCUMENTS)):
            size = min(CHUNK_DOCUMENTS, documents - first)
            # A paper holds a term once, whether in its title, its abstract or both.
            pairs = _distinct(np.concatenate([
                _chunk_pairs(arrays, codes, np.flatnonzero(numbers == chunk), first, size,
                            words, phrase_keys)
                for (arrays, codes), numbers in zip(fields, chunk_of, strict=True)]))
            terms, docs = np.divmod(pairs, size)
            docs += first + offset
            keep = live[docs]
            tally.add(editions[docs[keep]], terms[keep])
    return list(vocabulary), *tally.frequent(), live


def _chunk_numbers(ids: np.ndarray, documents: int) -> np.ndarray:
    """Each posting's chunk of documents, a byte (or two) a posting."""
    numbers = np.empty(len(ids), dtype=np.min_scalar_type(max(documents - 1, 0)
                                                          // CHUNK_DOCUMENTS))
    for begin, end in windows(ids):
        np.floor_divide(ids[begin:end], CHUNK_DOCUMENTS, out=numbers[begin:end],
                        casting="unsafe")
    return numbers


def _gather(array: np.ndarray, index: np.ndarray) -> np.ndarray:
    """array[index], for an ascending index, a window of the array at a time."""
    found = np.empty(len(index), dtype=array.dtype)
    done = 0
    for _, end in windows(array):
        upto = int(np.searchsorted(index, end))
        found[done:upto] = array[index[done:upto]]
        done = upto
    return found


def _firsts(codes: np.ndarray, count: int) -> np.ndarray:
    """The first document of each code."""
    firsts = np.full(count, len(codes), dtype=np.int64)
    np.minimum.at(firsts, codes, np.arange(len(codes)))
    return firsts
