"""The ceiling on everything but tool calls (issue 32): pages, files, health checks and the portal count per
client address against the `pages` rule; a full rule is a 429 with `Retry-After`, a page for a person and the
envelope for a program, while tool calls go on counting against their own plan."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings

BROWSER = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(_env_file=None, data_dir=tmp_path, rate_limit_pages="3/minute")
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def spend(client: TestClient) -> None:
    for path in ("/healthz", "/privacy", "/about"):
        assert client.get(path).status_code == 200, path


def test_a_flood_of_health_checks_and_pages_is_refused_with_the_wait(client: TestClient) -> None:
    spend(client)
    refused = client.get("/healthz?again=1")
    assert refused.status_code == 429
    error = refused.json()["error"]
    assert error["code"] == "rate_limited" and error["status"] == 429
    assert "Pages" in error["message"] and "3 per minute per client address" in error["message"]
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.headers["X-Request-Id"]


def test_a_person_gets_a_page_that_says_how_long_to_wait(client: TestClient) -> None:
    spend(client)
    page = client.get("/inspection", headers=BROWSER)
    assert page.status_code == 429 and page.headers["content-type"].startswith("text/html")
    seconds = page.headers["Retry-After"]
    assert "Please wait a moment" in page.text and f"try again in {seconds} second" in page.text
    sent = client.post("/partners/sign-in", data={"email": "a@b.example"}, headers=BROWSER)
    assert sent.status_code == 429 and "did not reach us" in sent.text  # a form: say it was not received
    spanish = client.get("/styles", headers={**BROWSER, "Accept-Language": "es"})
    assert spanish.status_code == 429 and '<html lang="es"' in spanish.text and "Espere un momento" in spanish.text
    assert client.get("/static/site.css").status_code == 200  # the wait page keeps its styles


def test_tool_calls_count_against_their_plan_not_the_pages_ceiling(client: TestClient) -> None:
    spend(client)
    answer = client.post("/api/v1/diagnose", json={"description": "my door makes a loud bang"})
    assert answer.status_code == 200 and answer.json()["symptom"]["key"] == "banging_noise"
    assert client.get("/healthz").status_code == 429


def test_the_ceiling_is_in_the_table_of_limits_people_read(client: TestClient) -> None:
    assert "Pages and health checks" in client.get("/developers").text
