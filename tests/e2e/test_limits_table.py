"""The table of limits drives every page that describes limits, and the OAuth endpoints count their own rules.

The server is started with a distinct notation for every rule of `access/limits.py` (read from each rule's own
setting), so a page that showed a hard-coded number, or left a rule out, fails here.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from urllib.parse import urlencode

import httpx
import pytest

from garage_tools.access.limits import RULES, Limits
from garage_tools.access.limits_text import overview
from tests.conftest import LiveServer, start_server, stop_server

#: Small numbers for the OAuth rules this module floods; every other rule gets a large number of its own.
FLOODED = {"oauth-authorize": "2/hour", "oauth-token": "3/hour", "oauth-register": "4/hour"}
NOTATIONS = {rule.name: FLOODED.get(rule.name, f"{1_000_003 + 7 * index}/minute") for index, rule in enumerate(RULES)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {f"GARAGE_TOOLS_{rule.setting.upper()}": NOTATIONS[rule.name] for rule in RULES}
    live = start_server(tmp_path_factory.mktemp("limits"), {**env, "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"})
    yield live
    stop_server(live)


def configured() -> Limits:
    """The table as the server reads it."""
    settings = {rule.setting: NOTATIONS[rule.name] for rule in RULES}
    return Limits(type("Configured", (), {**settings, "default_plan": "beta"})())


@pytest.mark.parametrize("path", ["/developers", "/ai", "/llms.txt"])
def test_every_rule_of_the_table_is_on_the_page_with_its_setting(server: LiveServer, path: str) -> None:
    page = html.unescape(httpx.get(f"{server.url}{path}").text)
    limits = configured()
    shown = overview(limits)
    assert shown.rule_names() == {rule.name for rule in RULES}
    for rule in RULES:
        assert rule.what in page, (path, rule.name)
        assert limits.policy(rule.name).describe() in page, (path, rule.name)
    for plan in shown.plans:
        assert plan.label in page, (path, plan.name)


def authorize(server: LiveServer, ip: str, accept: str) -> httpx.Response:
    query = {"response_type": "code", "client_id": "nobody", "redirect_uri": "http://127.0.0.1:9/cb"}
    headers = {"X-Forwarded-For": ip, "Accept": accept}
    return httpx.get(f"{server.url}/authorize?{urlencode(query)}", headers=headers)


def test_authorize_is_limited_per_address_and_a_person_sees_the_service_page(server: LiveServer) -> None:
    page = "text/html,application/xhtml+xml"
    assert [authorize(server, "203.0.113.10", page).status_code for _ in range(2)] == [400, 400]
    refused = authorize(server, "203.0.113.10", page)
    assert refused.status_code == 429 and refused.headers["content-type"].startswith("text/html")
    assert int(refused.headers["Retry-After"]) > 0
    assert "Too many connection attempts" in refused.text and "2 per hour" in refused.text
    as_json = authorize(server, "203.0.113.10", "application/json")
    assert as_json.status_code == 429 and as_json.json()["error"]["code"] == "rate_limited"
    assert authorize(server, "203.0.113.11", page).status_code == 400  # another address goes on


def test_token_is_limited_per_address_in_oauths_error_shape(server: LiveServer) -> None:
    def token(ip: str) -> httpx.Response:
        form = {"grant_type": "refresh_token", "refresh_token": "nothing", "client_id": "nobody"}
        return httpx.post(f"{server.url}/token", data=form, headers={"X-Forwarded-For": ip})

    assert all(token("203.0.113.20").status_code in (400, 401) for _ in range(3))
    refused = token("203.0.113.20")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    body = refused.json()
    assert body["error"] == "temporarily_unavailable" and "3 per hour" in body["error_description"]
    assert refused.headers["cache-control"] == "no-store"
    assert token("203.0.113.21").status_code in (400, 401)


def test_register_refusal_names_what_it_counts_and_offers_no_key(server: LiveServer) -> None:
    body = {"redirect_uris": ["http://127.0.0.1:9/cb"], "client_name": "Flood", "token_endpoint_auth_method": "none"}
    headers = {"X-Forwarded-For": "203.0.113.30"}
    answers = [httpx.post(f"{server.url}/register", json=body, headers=headers).status_code for _ in range(5)]
    assert answers == [201] * 4 + [429]
    refused = httpx.post(f"{server.url}/register", json=body, headers=headers).json()["error"]
    assert refused["code"] == "rate_limited" and "4 per hour" in refused["message"]
    assert "API key" not in refused["message"] and "tier" not in refused["message"]
