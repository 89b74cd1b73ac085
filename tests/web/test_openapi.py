"""The OpenAPI document is a true contract: schemathesis generates requests for every /api/
operation from it and checks each response against it (no server error, no status code,
content type or body the document does not declare)."""

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

from app.web.middleware import MAX_ADDRESS_CHARS


def test_api_answers_as_its_openapi_document_says(client: TestClient):
    # Driven from here rather than by schemathesis' pytest plugin (its lazy fixture loader
    # fails on pytest 9): every operation, 30 generated requests each, the same ones every
    # run (derandomized: a CI run fails only for a change, not for a new draw).
    schema = schemathesis.openapi.from_asgi("/openapi.json", client.app).include(
        path_regex="^/api/")
    checked = 0
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=30, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        def answers_as_documented(case):  # type: ignore[no-untyped-def]
            case.call_and_validate()

        answers_as_documented()
        checked += 1
    assert checked >= 12


def test_every_api_operation_declares_its_error_shape(client: TestClient):
    document = client.get("/openapi.json").json()
    operations = [op for path, item in document["paths"].items() if path.startswith("/api/")
                  for op in item.values()]
    assert len(operations) >= 12
    for operation in operations:
        for status in ("400", "404"):
            schema_ref = operation["responses"][status]["content"]["application/json"]["schema"]
            assert schema_ref["$ref"].endswith("/ErrorOut")


def _bounded_query_parameters(document: dict) -> list[tuple[str, str, int]]:
    return [(path, parameter["name"], parameter["schema"]["maxLength"])
            for path, item in document["paths"].items() if path.startswith("/api/")
            for operation in item.values() for parameter in operation.get("parameters", [])
            if parameter["in"] == "query" and "maxLength" in parameter["schema"]]


def test_every_valid_request_fits_in_an_address(client: TestClient):
    """maxLength counts characters, and so does the 414 bound on addresses: the bounded
    parameters of an operation, all at their longest, leave room under it."""
    document = client.get("/openapi.json").json()
    longest: dict[str, int] = {}
    for path, name, max_length in _bounded_query_parameters(document):
        longest[path] = longest.get(path, len(path) + 1) + len(name) + 2 + max_length
    assert longest and max(longest.values()) < MAX_ADDRESS_CHARS // 2


def test_a_parameter_just_too_long_is_a_400_in_any_script(client: TestClient):
    """Schemathesis' invalid lists of IDs, a few characters past their 8,499 and in two-byte
    characters (51 KB percent-encoded), got the 414 for overlong addresses, which it does not
    count as a rejection: each bounded parameter one such character too long is a 400 that
    names it (httpx sends no longer query than 64 KB)."""
    bounded = _bounded_query_parameters(client.get("/openapi.json").json())
    assert {name for _, name, _ in bounded} >= {"ids", "q", "less"}
    paper = client.get("/api/search", params={"q": "learning"}).json()["hits"][0]["id"]
    for path, name, max_length in bounded:
        response = client.get(path.replace("{paper_id}", paper),
                              params={name: "´" * (max_length + 1)})
        assert response.status_code == 400, (path, name, response.text[:200])
        assert f"{name}: String should have at most {max_length} characters" in response.text
