"""Facet counts from columns (app/search/index/columns.py): the values a facet lists for a search,
built in memory; a search's matches are counted by their document numbers."""

from __future__ import annotations

import numpy as np

from app.search.index.columns import FacetColumn, MultiColumn, column_arrays, columns_of
from app.search.index.held_files import mapped_arrays, write_array_directory
from app.search.words.prefix_table import SortedKeys


def test_the_most_held_values_are_listed_most_first_ties_by_value():
    column = FacetColumn.of(["b", "a", "c", "a", "b", "d", "", "a"], 8)
    counted = column.counted(np.arange(8))
    assert column.top(counted, 2) == [("a", 3), ("b", 2)]
    assert column.top(counted, 3) == [("a", 3), ("b", 2), ("c", 1)]
    assert column.top(counted, None) == [("a", 3), ("b", 2), ("c", 1), ("d", 1)]


def test_the_empty_value_is_never_listed_however_many_hold_it():
    column = FacetColumn.of(["", "", "", "x", None], 5)
    assert column.top(column.counted(np.arange(5)), 5) == [("x", 1)]


def test_values_no_matching_document_holds_are_not_listed():
    column = FacetColumn.of(["a", "b", "c"], 3)
    assert column.top(column.counted(np.array([1])), 5) == [("b", 1)]
    assert column.top(column.counted(np.array([], dtype=np.int64)), 5) == []


def test_ties_at_the_cut_are_decided_by_value_as_when_all_were_sorted():
    names = [f"author-{i:03d}" for i in range(300)]
    column = MultiColumn.of([" ".join(names[i : i + 3]) for i in range(0, 300, 3)]
                            + ["author-299 author-150"], 101)
    counted = column.counted(np.arange(101))
    everything = sorted(((column.value(code), int(n)) for code, n in enumerate(counted) if n),
                        key=lambda kv: (-kv[1], kv[0]))
    assert column.top(counted, 15) == everything[:15]
    assert column.top(counted, 15)[:2] == [("author-150", 2), ("author-299", 2)]


def test_of_many_values_tied_at_the_cut_only_the_listed_ones_are_read():
    names = [f"{first}{i}" for i in range(100) for first in ("é", "z", "a", "Ω", "Z")]
    column = FacetColumn.of([*names, "a7", "é7", "Ω7", "Ω8"], len(names) + 4)
    counted = column.counted(np.arange(len(names) + 4))
    everything = sorted(((column.value(code), int(n)) for code, n in enumerate(counted) if n),
                        key=lambda kv: (-kv[1], kv[0]))
    read: list[int] = []

    class Counting(FacetColumn):
        def value(self, code: int) -> object:
            read.append(code)
            return super().value(code)

    assert Counting(column.codes, column.values).top(counted, 15) == everything[:15]
    assert len(read) == 15


def test_written_columns_are_mapped_back_with_the_same_answers(tmp_path):
    columns = {"year": FacetColumn.of([2020, 2018, 2020, 2019], 4),
               "topic": FacetColumn.of(["rl", "", "vision", "rl"], 4),
               "by": MultiColumn.of(["li-ming ann", "", "ann", "bo 李明"], 4)}
    write_array_directory(tmp_path / "columns", column_arrays(columns))
    mapped = columns_of(mapped_arrays(tmp_path / "columns"))
    assert mapped.keys() == columns.keys()
    everyone = np.arange(4)
    for name, column in columns.items():
        assert type(mapped[name]) is type(column)
        values = mapped[name].values
        held = values.text if isinstance(values, SortedKeys) else values
        assert isinstance(held, np.memmap) or isinstance(held.base, np.memmap)
        assert mapped[name].top(mapped[name].counted(everyone), None) == column.top(
            column.counted(everyone), None)
    assert mapped["by"].top(mapped["by"].counted(everyone), None) == [
        ("ann", 2), ("bo", 1), ("li-ming", 1), ("李明", 1)]
    assert mapped["by"].top(mapped["by"].counted(np.array([1, 3])), None) == [
        ("bo", 1), ("李明", 1)]
    assert mapped["by"].top(mapped["by"].counted(np.array([], dtype=np.int64)), None) == []
    assert list(mapped["by"].holding("ann")) == [True, False, True, False]
    assert list(mapped["year"].holding(2020)) == [True, False, True, False]


def test_a_value_of_another_kind_or_unheld_holds_no_document():
    years, topics = FacetColumn.of([2020, 2018], 2), FacetColumn.of(["rl", "vision"], 2)
    for column, value in ((years, "2020"), (years, True), (years, 2021), (topics, 2020),
                          (topics, "zz"), (topics, "")):
        assert column.code(value) == -1
        assert not column.holding(value).any()
    assert years.has_values() and topics.has_values()
    assert not FacetColumn.of(["", None], 2).has_values()
