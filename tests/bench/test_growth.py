"""The growth benchmark's corpus: N copies of every record, each copy's venue a series of its
own (the full run is by hand: python -m bench.growth)."""

import gzip
import json
from collections import defaultdict

from app.ids import series_slug
from bench.growth import first_records, write_corpus

RECORDS = [
    {"venue": "NeurIPS", "year": 2019, "title": "A", "abstract": "First abstract.",
     "authors": ["Ada Lovelace"], "keywords": []},
    {"venue": "NeurIPS", "year": 2020, "title": "B", "abstract": "Second abstract.",
     "authors": [], "keywords": ["graphs"]},
    {"venue": "ICLR", "year": 2020, "title": "Ç", "abstract": "Third abstract.",
     "authors": ["李明"], "keywords": []},
]


def _fake_corpus(tmp_path):
    source = tmp_path / "fake.jsonl.gz"
    with gzip.open(source, "wt", encoding="utf-8") as out:
        out.write("".join(json.dumps(record) + "\n" for record in RECORDS) + "\n")
    return source


def test_three_copies_of_three_records(tmp_path):
    out = tmp_path / "corpus.jsonl"
    assert write_corpus([_fake_corpus(tmp_path)], 3, 1.0, out) == 9
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(written) == 9
    names = defaultdict(set)
    for record in written:
        original = next(r for r in RECORDS if r["abstract"] == record["abstract"])
        assert {**record, "venue": original["venue"]} == original  # the rest is equal
        names[original["venue"]].add(record["venue"])
    assert set(names) == {"NeurIPS", "ICLR"}
    for venue, copies in names.items():
        assert len(copies) == 3 and venue in copies  # copy 0 keeps the name
    slugs = {series_slug(name) for copies in names.values() for name in copies}
    assert len(slugs) == 6  # six distinct series


def test_fraction_takes_the_first_records(tmp_path):
    source = _fake_corpus(tmp_path)
    assert [r["title"] for r in first_records(source, 0.34)] == ["A"]
    assert [r["title"] for r in first_records(source, 0.67)] == ["A", "B"]
    assert len(list(first_records(source))) == 3
