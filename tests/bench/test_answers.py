"""The before-and-after check of a restructuring (bench/answers.py) covers what it promises:
at least 200 URLs of pages, JSON twins and downloads on the seeds, none failing, and it names
an answer that changed."""

from bench.answers import answers, differences
from tests.conftest import Catalog


def test_the_answers_cover_every_kind_of_url_and_name_a_change(seeded: Catalog):
    found = answers(seeded.settings)
    assert len(found) >= 200
    assert all(answer["status"] in (200, 400, 404) for answer in found.values())
    assert {url.split("?")[0].rsplit(".", 1)[-1] for url in found} >= {
        "csv", "json", "bib", "ris", "atom"}
    assert any(url.startswith("/api/") for url in found)
    changed = {**found, "/": {**found["/"], "sha256": "0" * 64}}
    assert differences(found, changed) == ["/: 200 -> 200, body changed"]
    assert differences(found, found) == []
