"""Facet counts from columns (app/search/columns.py): the values a facet lists for a search,
built in memory; a search's matches are a mask over the documents."""

from __future__ import annotations

import numpy as np

from app.search.columns import FacetColumn, MultiColumn


def test_the_most_held_values_are_listed_most_first_ties_by_value():
    column = FacetColumn.of(["b", "a", "c", "a", "b", "d", "", "a"], 8)
    counted = column.counted(np.ones(8, dtype=bool))
    assert column.top(counted, 2) == [("a", 3), ("b", 2)]
    assert column.top(counted, 3) == [("a", 3), ("b", 2), ("c", 1)]
    assert column.top(counted, None) == [("a", 3), ("b", 2), ("c", 1), ("d", 1)]


def test_the_empty_value_is_never_listed_however_many_hold_it():
    column = FacetColumn.of(["", "", "", "x", None], 5)
    assert column.top(column.counted(np.ones(5, dtype=bool)), 5) == [("x", 1)]


def test_values_no_matching_document_holds_are_not_listed():
    column = FacetColumn.of(["a", "b", "c"], 3)
    assert column.top(column.counted(np.array([False, True, False])), 5) == [("b", 1)]
    assert column.top(column.counted(np.zeros(3, dtype=bool)), 5) == []


def test_ties_at_the_cut_are_decided_by_value_as_when_all_were_sorted():
    names = [f"author-{i:03d}" for i in range(300)]
    column = MultiColumn.of([" ".join(names[i : i + 3]) for i in range(0, 300, 3)]
                            + ["author-299 author-150"], 101)
    counted = column.counted(np.ones(101, dtype=bool))
    everything = sorted(((v, int(n)) for v, n in zip(column.values, counted, strict=True) if n),
                        key=lambda kv: (-kv[1], kv[0]))
    assert column.top(counted, 15) == everything[:15]
    assert column.top(counted, 15)[:2] == [("author-150", 2), ("author-299", 2)]
