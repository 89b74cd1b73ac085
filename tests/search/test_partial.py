"""No dead ends: where the exact matches end before the page does, the page goes on with
papers that match most of the query's parts, each with the parts it lacks."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient


def _search(client: TestClient, q: str, **params: object) -> dict:
    return client.get("/api/search", params={"q": q, **params}).json()


def test_few_exact_matches_continue_with_papers_of_most_words(client: TestClient):
    body = _search(client, "mixture of experts routing")
    exact = [hit for hit in body["hits"] if not hit["partial"]]
    partial = [hit for hit in body["hits"] if hit["partial"]]
    assert len(exact) == body["total"] >= 1 and partial
    assert body["partial_hits"] == len(partial)
    assert not {h["id"] for h in exact} & {h["id"] for h in partial}
    assert all(hit["missing"] == ["routing"] for hit in partial)
    assert all("routing" not in hit["abstract"].lower() for hit in partial)
    assert all(not hit["missing"] for hit in exact)


def test_counts_facets_and_exports_mean_the_exact_matches(client: TestClient):
    body = _search(client, "tabular data")
    assert body["partial_hits"] > 0
    for counts in body["facets"].values():
        if counts and counts[0]["value"] != "code":
            assert sum(c["count"] for c in counts) == body["total"]
    rows = list(csv.DictReader(io.StringIO(client.get("/search.csv?q=tabular+data").text)))
    assert len(rows) == body["total"]


def test_four_words_that_no_paper_holds_all_of_are_read_as_a_description(client: TestClient):
    body = _search(client, "grokking memorization transformers algorithmic")
    assert body["reading"]["kind"] == "description" and body["reading"]["complete"] == 0
    assert body["total"] == len(body["hits"]) > 0 and body["partial_hits"] == 0
    page = client.get("/search", params={"q": "grokking memorization transformers algorithmic"})
    assert "0 results" not in page.text and "Read as a description" in page.text


def test_words_that_never_meet_show_no_total_and_papers_with_some(client: TestClient):
    body = _search(client, "grokking federated")
    assert body["total"] == 0 and body["facets"] == {}
    missing = {tuple(hit["missing"]) for hit in body["hits"]}
    assert missing == {("grokking",), ("federated",)}
    page = client.get("/search", params={"q": "grokking federated"}).text
    assert "No abstract has all of these words" in page
    assert "Papers matching some of your words" in page and "<s>federated</s>" in page


def test_the_partial_part_follows_the_last_exact_match(client: TestClient):
    body = _search(client, "learning")
    assert body["total"] > 20 and not any(hit["partial"] for hit in body["hits"])
    first = _search(client, "learning model")
    last = _search(client, "learning model", page=first["pages"])
    flags = [hit["partial"] for hit in last["hits"]]
    assert flags == sorted(flags) and True in flags  # the exact matches, then the others
    assert flags.count(False) == first["total"] - 20 * (first["pages"] - 1)


def test_filters_and_exclusions_hold_for_the_partial_part(client: TestClient):
    body = _search(client, "tabular data -benchmark", series="iclr")
    assert body["partial_hits"] > 0
    assert all(hit["series"] == "iclr" and "benchmark" not in hit["abstract"].lower()
               for hit in body["hits"] if hit["partial"])


def test_of_three_parts_a_partial_match_has_at_least_two(client: TestClient):
    """"At least half" of an odd number of parts rounds up: two of three, never one (issue
    28, mutant 5)."""
    body = _search(client, "grokking memorization quokka")
    partial = [hit for hit in body["hits"] if hit["partial"]]
    assert partial and all(len(hit["missing"]) == 1 for hit in partial)
    assert body["total"] == 0  # no abstract has the quokka


def test_a_phrase_with_few_matches_goes_on_with_papers_holding_its_words_apart(
        client: TestClient):
    exact = _search(client, '"federated learning"')
    apart = [hit for hit in exact["hits"] if hit["partial"]]
    assert 0 < exact["total"] < 20 and apart
    assert apart[0]["missing"] == ["learning"]  # lacking the common word, not the rare one
    assert all("federated learning" not in hit["abstract"].lower() for hit in apart)
