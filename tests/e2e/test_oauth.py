"""OAuth 2.1 on /mcp-pro through a real server: the SDK's own OAuth client end to end (the person signs in by
e-mailed link and allows it on the consent page, driven over HTTP with the page's own forms), then the
refusals a hostile or broken client meets: wrong verifier, reused code, wrong redirect, wrong resource,
refresh reuse, revoked and foreign tokens.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from garage_tools.access.oauth import REFRESH_GRACE
from garage_tools.tools import build_registry
from tests.conftest import KEY_CACHE_SECONDS, LiveServer, start_server, stop_server
from tests.e2e.test_mcp import first_message
from tests.e2e.test_portal import Visitor, csrf_of, latest_link, mails_to, new_email, signed_in
from tests.polling import eventually

REDIRECT = "http://127.0.0.1:9/callback"
REVOCATION_SECONDS = KEY_CACHE_SECONDS + 3  # a revoked token may work until every process's key cache lets it go
_registrations = itertools.count()  # nothing listens: the tests read the Location the consent page sends


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("oauth"),
        {
            "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1",
            "GARAGE_TOOLS_KEY_CACHE_SECONDS": str(KEY_CACHE_SECONDS),
        },
    )
    yield live
    stop_server(live)


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(server: LiveServer, redirect: str = REDIRECT, **extra: object) -> httpx.Response:
    """Register a client from an address of its own (the server trusts the loopback proxy), so the tests' many
    registrations do not spend the per-address limit one of them measures."""
    body = {"redirect_uris": [redirect], "client_name": "Test Assistant", "token_endpoint_auth_method": "none"}
    address = {"X-Forwarded-For": f"198.51.100.{next(_registrations) % 250 + 1}"}
    return httpx.post(f"{server.url}/register", json={**body, **extra}, headers=address)


def authorize_url(server: LiveServer, client_id: str, challenge: str, **extra: str) -> str:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "st-1",
        "scope": "pro",
        "resource": f"{server.url}/mcp-pro",
        **extra,
    }
    return f"{server.url}/authorize?{urlencode(query)}"


def decide(visitor: Visitor, url: str, decision: str = "allow") -> httpx.Response:
    """Open an authorization as a signed-in person and press Allow or Deny; the redirect the page answers."""
    page = visitor.client.get(url, follow_redirects=True)
    assert page.status_code == 200 and "Test Assistant" in page.text, page.text
    answer = visitor.client.post(str(page.url), data={"csrf": csrf_of(page), "decision": decision})
    assert answer.status_code == 303, answer.text
    return answer


def redirect_query(answer: httpx.Response) -> dict[str, str]:
    location = answer.headers["location"]
    assert location.startswith(REDIRECT), location
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def token(server: LiveServer, **form: str) -> httpx.Response:
    return httpx.post(f"{server.url}/token", data=form)


class Grant:
    """A registered client with a code the person allowed for `resource` (a path), and its PKCE verifier."""

    def __init__(self, server: LiveServer, visitor: Visitor, resource: str = "/mcp-pro") -> None:
        self.server = server
        self.resource = resource
        self.client_id = register(server).json()["client_id"]
        self.verifier, challenge = pkce()
        url = authorize_url(server, self.client_id, challenge, resource=f"{server.url}{resource}")
        self.code = redirect_query(decide(visitor, url))["code"]

    def exchange(self, **overrides: str) -> httpx.Response:
        form = {
            "grant_type": "authorization_code",
            "code": self.code,
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "code_verifier": self.verifier,
            "resource": f"{self.server.url}{self.resource}",
        }
        return token(self.server, **{**form, **overrides})

    def refresh(self, refresh_token: str) -> httpx.Response:
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id}
        return token(self.server, **form)


def pro_status(server: LiveServer, access_token: str) -> int:
    return first_message(f"{server.url}/mcp-pro", "2026-07-28", access_token).status_code


# -- discovery --------------------------------------------------------------------------------------


def test_metadata_names_the_resource_and_the_authorization_server(server: LiveServer) -> None:
    base = server.url
    for path in ("/.well-known/oauth-protected-resource/mcp-pro", "/.well-known/oauth-protected-resource"):
        resource = httpx.get(base + path).json()
        assert resource["resource"] == f"{base}/mcp-pro"
        assert resource["authorization_servers"] == [base]
        assert resource["scopes_supported"] == ["pro"]
    metadata = httpx.get(f"{base}/.well-known/oauth-authorization-server").json()
    assert metadata["issuer"] == base
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["token_endpoint_auth_methods_supported"] == ["none"]
    assert metadata["registration_endpoint"] == f"{base}/register"
    # Not an OpenID provider: a clean 404 in the envelope.
    assert httpx.get(f"{base}/.well-known/openid-configuration").json()["error"]["status"] == 404


def test_the_401_points_to_the_metadata_and_says_invalid_token_only_when_one_was_sent(server: LiveServer) -> None:
    metadata = f'resource_metadata="{server.url}/.well-known/oauth-protected-resource/mcp-pro"'
    without = first_message(f"{server.url}/mcp-pro", "2026-07-28", None)
    assert without.status_code == 401
    assert metadata in without.headers["www-authenticate"] and "error=" not in without.headers["www-authenticate"]
    bad = first_message(f"{server.url}/mcp-pro", "2026-07-28", "svc_at_" + "x" * 43)
    assert bad.status_code == 401
    assert metadata in bad.headers["www-authenticate"] and 'error="invalid_token"' in bad.headers["www-authenticate"]
    # /mcp stays anonymous: no challenge there.
    assert first_message(f"{server.url}/mcp", "2026-07-28", None).status_code == 200


# -- the SDK's OAuth client, end to end ---------------------------------------------------------------


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def test_sdk_oauth_client_signs_in_by_link_allows_and_calls_pro_tools(server: LiveServer) -> None:
    person = Visitor(server)  # no session yet: the flow must sign them in and bring them back
    address = new_email()
    answers: list[dict[str, str]] = []

    async def redirect_handler(url: str) -> None:
        page = person.client.get(url, follow_redirects=True)
        assert "/developers/sign-in" in str(page.url), page.url
        next_page = re.search(r'name="next" value="([^"]+)"', page.text)
        assert next_page and next_page.group(1).startswith("/developers/authorize/")
        before = len(mails_to(server, address))
        assert person.request_link(address, next=next_page.group(1)).status_code == 303
        landed = person.confirm(latest_link(server, address, before))
        assert landed.headers["location"] == next_page.group(1)  # the link brought them back
        consent = person.client.get(landed.headers["location"])
        assert "Connect" in consent.text and "a program on this computer" in consent.text
        allowed = person.client.post(landed.headers["location"], data={"csrf": csrf_of(consent), "decision": "allow"})
        query = parse_qs(urlsplit(allowed.headers["location"]).query)
        answers.append({name: values[0] for name, values in query.items()})

    async def callback_handler() -> AuthorizationCodeResult:
        answer = answers[-1]  # as a callback page reads the redirect, `iss` included (the SDK checks it)
        return AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))

    storage = MemoryStorage()
    auth = OAuthClientProvider(
        server_url=f"{server.url}/mcp-pro",
        client_metadata=OAuthClientMetadata(
            client_name="Test Assistant", redirect_uris=[REDIRECT], token_endpoint_auth_method="none"
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    transport = streamable_http_client(
        f"{server.url}/mcp-pro", http_client=httpx2.AsyncClient(auth=auth, timeout=30, follow_redirects=True)
    )
    async with Client(transport, mode="legacy") as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("retrieveLabContext", {"query": "why did my spring break in the cold?"})
    assert len(tools) == len(list(build_registry()))  # every tool, however many the registry holds
    assert not result.is_error, result
    assert storage.tokens and storage.tokens.access_token.startswith("svc_at_")
    assert storage.tokens.refresh_token and storage.tokens.refresh_token.startswith("svc_rt_")
    assert storage.tokens.expires_in == 3600
    # Stored hashed: neither token is in the database as it is.
    rows = server.query("SELECT token_hash FROM oauth_tokens")
    assert rows and all(storage.tokens.access_token not in row[0] for row in rows)

    # The person sees the app on the dashboard and disconnects it: its token stops within the key cache time.
    dashboard = person.dashboard()
    assert "Connected apps" in dashboard.text and "Test Assistant" in dashboard.text
    grant_id = re.search(r'action="/developers/apps/([^/"]+)/revoke"', dashboard.text)
    assert grant_id
    revoked = person.client.post(f"/developers/apps/{grant_id.group(1)}/revoke", data={"csrf": csrf_of(dashboard)})
    assert revoked.status_code == 303
    eventually(lambda: pro_status(server, storage.tokens.access_token) == 401, seconds=REVOCATION_SECONDS)
    assert "Test Assistant" not in person.dashboard().text.split("Connected apps", 1)[1]


# -- refusals -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def person(server: LiveServer) -> Visitor:
    return signed_in(server)


def test_tokens_work_on_mcp_pro_only_and_keys_keep_working(server: LiveServer, person: Visitor) -> None:
    tokens = Grant(server, person).exchange().json()
    assert pro_status(server, tokens["access_token"]) == 200
    rest = httpx.post(
        f"{server.url}/api/v1/diagnose",
        json={"description": "the door makes a loud bang"},
        headers={"Authorization": f"Bearer {tokens['access_token']}"},
    )
    assert rest.status_code == 401 and "/mcp-pro" in rest.json()["error"]["message"]
    _, key = server.create_key()
    assert pro_status(server, key) == 200


def chat(server: LiveServer, access_token: str) -> httpx.Response:
    question = {"model": "garage-tools", "messages": [{"role": "user", "content": "my door makes a loud bang"}]}
    headers = {"Authorization": f"Bearer {access_token}"}
    return httpx.post(f"{server.url}/v1/chat/completions", json=question, headers=headers, timeout=30)


def test_a_chat_product_connects_to_the_answers_endpoint_with_its_own_token(
    server: LiveServer, person: Visitor
) -> None:
    metadata = httpx.get(f"{server.url}/.well-known/oauth-protected-resource/v1").json()
    assert metadata["resource"] == f"{server.url}/v1" and metadata["authorization_servers"] == [server.url]
    _, challenge = pkce()
    url = authorize_url(server, register(server).json()["client_id"], challenge, resource=f"{server.url}/v1")
    consent = person.client.get(url, follow_redirects=True).text  # the person reads what the app gets
    assert "Answers to garage door questions" in consent and "Every garage door tool" not in consent
    grant = Grant(server, person, resource="/v1")
    wrong = grant.exchange(resource=f"{server.url}/mcp-pro")  # the code was allowed for /v1 only
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_target"
    tokens = grant.exchange().json()
    answered = chat(server, tokens["access_token"])
    assert answered.status_code == 200, answered.text
    assert answered.headers["ratelimit-policy"].startswith('"pro-minute"')  # the pro tier, as a key gives
    assert pro_status(server, tokens["access_token"]) == 401  # not a token for /mcp-pro
    refreshed = grant.refresh(tokens["refresh_token"]).json()
    assert chat(server, refreshed["access_token"]).status_code == 200


def test_a_token_for_mcp_pro_is_refused_on_the_answers_endpoint_with_where_to_connect(
    server: LiveServer, person: Visitor
) -> None:
    tokens = Grant(server, person).exchange().json()
    refused = chat(server, tokens["access_token"])
    assert refused.status_code == 401 and "/mcp-pro" in refused.json()["error"]["message"]
    challenge = refused.headers["www-authenticate"]
    assert f'resource_metadata="{server.url}/.well-known/oauth-protected-resource/v1"' in challenge
    assert 'error="invalid_token"' in challenge
    assert chat(server, "anonymous").status_code == 200  # the documented placeholder is no key: the public tier


def test_a_wrong_verifier_or_redirect_is_refused(server: LiveServer, person: Visitor) -> None:
    grant = Grant(server, person)
    wrong = grant.exchange(code_verifier=pkce()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    moved = grant.exchange(redirect_uri="http://127.0.0.1:9/elsewhere")
    assert moved.status_code == 400 and moved.json()["error"] == "invalid_request"
    assert grant.exchange().status_code == 200  # the code still works for its rightful owner


def test_a_reused_code_is_refused_and_revokes_what_it_gave(server: LiveServer, person: Visitor) -> None:
    grant = Grant(server, person)
    first = grant.exchange().json()
    again = grant.exchange()
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    eventually(lambda: pro_status(server, first["access_token"]) == 401, seconds=REVOCATION_SECONDS)
    assert grant.refresh(first["refresh_token"]).status_code == 400


def test_a_wrong_resource_is_refused(server: LiveServer, person: Visitor) -> None:
    client_id = register(server).json()["client_id"]
    _, challenge = pkce()
    url = authorize_url(server, client_id, challenge, resource="https://elsewhere.example/mcp")
    refused = httpx.get(url)  # answered here, never on the redirect URI (RFC 9700 §4.11.2)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_target"
    grant = Grant(server, person)
    wrong = grant.exchange(resource=f"{server.url}/mcp")
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_target"


def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_family(server: LiveServer, person: Visitor) -> None:
    grant = Grant(server, person)
    first = grant.exchange().json()
    second = grant.refresh(first["refresh_token"])
    assert second.status_code == 200, second.text
    rotated = second.json()
    assert rotated["refresh_token"] != first["refresh_token"]
    assert pro_status(server, rotated["access_token"]) == 200
    # Within the grace window a retry gets the same new tokens; past it, the reuse (a thief, or a client that
    # lost track) is refused and revokes the family.

    def grace_closed() -> httpx.Response | None:
        replayed = grant.refresh(first["refresh_token"])
        if replayed.status_code == 200:
            assert replayed.json()["refresh_token"] == rotated["refresh_token"], "a retry in grace got other tokens"
            return None
        return replayed

    replayed = eventually(
        grace_closed, seconds=REFRESH_GRACE.total_seconds() + 10, every=0.5, what="the grace window to close"
    )
    assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
    eventually(lambda: pro_status(server, rotated["access_token"]) == 401, seconds=REVOCATION_SECONDS)
    assert grant.refresh(rotated["refresh_token"]).status_code == 400


def test_deny_returns_access_denied_and_the_request_cannot_be_answered_twice(
    server: LiveServer, person: Visitor
) -> None:
    client_id = register(server).json()["client_id"]
    _, challenge = pkce()
    answer = decide(person, authorize_url(server, client_id, challenge), "deny")
    assert redirect_query(answer)["error"] == "access_denied" and redirect_query(answer)["state"] == "st-1"
    assert redirect_query(answer)["iss"] == server.url  # RFC 9207: which server answered
    page = person.client.get(urlsplit(answer.request.url.path).path)
    assert page.status_code == 400 and "expired or was already answered" in page.text


def test_registration_takes_https_or_loopback_redirects_only(server: LiveServer) -> None:
    assert register(server, "https://claude.ai/api/mcp/auth_callback").status_code == 201
    assert register(server, "http://localhost:3334/oauth/callback").status_code == 201
    for bad in ("http://evil.example/cb", "https://app.example/cb#frag", "javascript:alert(1)"):
        refused = register(server, bad)
        assert refused.status_code == 400
        assert refused.json()["error"] in ("invalid_redirect_uri", "invalid_client_metadata")
    confidential = register(server, token_endpoint_auth_method="client_secret_post").json()
    assert confidential["token_endpoint_auth_method"] == "none" and "client_secret" not in confidential


def test_registrations_are_limited_per_address(server: LiveServer) -> None:
    """A client registers once; a flood from one address is refused with the envelope and a wait, others go on."""
    body = {"redirect_uris": [REDIRECT], "client_name": "Flood", "token_endpoint_auth_method": "none"}
    with httpx.Client(base_url=server.url, headers={"X-Forwarded-For": "203.0.113.77"}) as flooding:
        answers = [flooding.post("/register", json=body).status_code for _ in range(20)]
        assert answers == [201] * 20
        refused = flooding.post("/register", json=body)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["Retry-After"]) > 0
    assert "API key" not in refused.json()["error"]["message"]  # a key raises nothing here
    other = httpx.post(f"{server.url}/register", json=body, headers={"X-Forwarded-For": "203.0.113.78"})
    assert other.status_code == 201


def test_an_unknown_client_or_a_forged_consent_gets_nothing(server: LiveServer, person: Visitor) -> None:
    _, challenge = pkce()
    unknown = httpx.get(authorize_url(server, "no-such-client", challenge))
    assert unknown.status_code == 400 and "location" not in unknown.headers
    assert unknown.json()["error"] == "invalid_request"  # an API client reads OAuth's error
    page = person.client.get(authorize_url(server, "no-such-client", challenge), headers={"Accept": "text/html"})
    assert page.status_code == 400 and "This app could not be connected" in page.text  # a person reads a page
    assert "no-such-client" in page.text and "<script" not in page.text.split("<main", 1)[1]
    client_id = register(server).json()["client_id"]
    page = person.client.get(authorize_url(server, client_id, challenge), follow_redirects=True)
    forged = person.client.post(str(page.url), data={"csrf": "forged", "decision": "allow"})
    assert forged.status_code == 403 and "location" not in forged.headers
    stranger = httpx.post(str(page.url), data={"csrf": csrf_of(page), "decision": "allow"})
    assert stranger.status_code == 403  # no session (and no cookie): refused
    guessed = token(server, grant_type="authorization_code", code="x", client_id=client_id, code_verifier="v" * 43)
    assert json.loads(guessed.text)["error"] == "invalid_grant"


def test_a_client_revokes_its_own_tokens(server: LiveServer, person: Visitor) -> None:
    grant = Grant(server, person)
    tokens = grant.exchange().json()
    assert pro_status(server, tokens["access_token"]) == 200
    revoked = httpx.post(f"{server.url}/revoke", data={"token": tokens["refresh_token"], "client_id": grant.client_id})
    assert revoked.status_code == 200, revoked.text
    # The whole grant went with its refresh token.
    eventually(lambda: pro_status(server, tokens["access_token"]) == 401, seconds=REVOCATION_SECONDS)
    assert grant.refresh(tokens["refresh_token"]).status_code == 400


def test_pkce_is_s256_only_and_required(server: LiveServer) -> None:
    client_id = register(server).json()["client_id"]
    _, challenge = pkce()
    plain = httpx.get(authorize_url(server, client_id, challenge, code_challenge_method="plain"))
    assert plain.status_code == 400 and plain.json()["error"] == "invalid_request"
    url = authorize_url(server, client_id, challenge).replace(f"code_challenge={challenge}&", "")
    missing = httpx.get(url)
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request"


def test_operators_list_and_revoke_connected_apps(server: LiveServer, person: Visitor) -> None:
    tokens = Grant(server, person).exchange().json()
    listing = server.cli("apps", "list").stdout
    assert "Test Assistant" in listing and tokens["access_token"] not in listing
    grant_id = listing.splitlines()[1].split()[0]  # the newest first
    assert all(c in "0123456789abcdef" for c in grant_id)  # no leading "-" for `apps revoke` to read as an option
    assert server.cli("apps", "revoke", grant_id).stdout.startswith(f"revoked {grant_id}")
    # Another process: within the key cache time.
    eventually(lambda: pro_status(server, tokens["access_token"]) == 401, seconds=REVOCATION_SECONDS)
    assert grant_id not in server.cli("apps", "list").stdout
    assert server.cli("apps", "revoke", "no-such-app", check=False).returncode != 0
