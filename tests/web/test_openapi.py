"""The OpenAPI document is a true contract: schemathesis generates requests for every /api/
operation from it and checks each response against it (no server error, no status code,
content type or body the document does not declare)."""

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings


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
