"""The developer portal through a real server: sign-in by magic link, sessions, CSRF, throttling, keys.

Each test signs in from client addresses of its own (the server trusts loopback as a proxy, so
`X-Forwarded-For` names the client), so the per-IP sign-in throttle of one test never touches another.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from garage_tools.inputs import holdable
from tests.conftest import RAISED_LIMITS, LiveServer, start_server, stop_server
from tests.mailbox import wait_for_mail
from tests.polling import eventually

_addresses = itertools.count(1)
LINK = re.compile(r"http://[^\s\"<>]+/developers/confirm/[A-Za-z0-9_-]+")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("portal"),
        {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1", "GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2"},
    )
    yield live
    stop_server(live)


def new_ip() -> str:
    n = next(_addresses)
    return f"198.51.{n // 250}.{n % 250 + 1}"


def new_email() -> str:
    return f"dev-{uuid.uuid4().hex[:10]}@example.com"


def csrf_of(page: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def mails_to(server: LiveServer, address: str) -> list[str]:
    """The text of every message queued to `address`, oldest first (read from the durable outbox)."""
    return [row[0] for row in server.query("SELECT text_body FROM outbox WHERE to_address = $1 ORDER BY id", address)]


def mails_once(server: LiveServer, address: str, count: int) -> list[str]:
    """The mail queued to `address` once there are `count` messages (a link is queued just after the answer,
    so that its timing tells nothing); fails if they do not come."""
    return eventually(
        lambda: found if len(found := mails_to(server, address)) >= count else None,
        seconds=15,
        what=f"{count} mails to {address}",
    )


def latest_link(server: LiveServer, address: str, before: int = 0) -> str:
    """The sign-in link in the newest mail to `address`, once there are more than `before`."""
    found = LINK.search(mails_once(server, address, before + 1)[-1])
    assert found
    return found.group(0)


class Visitor:
    """One browser: its own cookies, from its own client address."""

    def __init__(self, server: LiveServer, ip: str | None = None) -> None:
        self.server = server
        self.client = httpx.Client(base_url=server.url, headers={"X-Forwarded-For": ip or new_ip()}, timeout=10)

    def request_link(self, address: str, **extra: str) -> httpx.Response:
        token = csrf_of(self.client.get("/developers"))
        return self.client.post("/developers/sign-in", data={"email": address, "csrf": token, **extra})

    def confirm(self, link: str) -> httpx.Response:
        page = self.client.get(link)
        assert page.status_code == 200, page.text
        return self.client.post(link, data={"csrf": csrf_of(page)})

    def dashboard(self) -> httpx.Response:
        return self.client.get("/developers/dashboard")

    def create_key(self, name: str) -> httpx.Response:
        return self.client.post("/developers/keys", data={"name": name, "csrf": csrf_of(self.dashboard())})

    def revoke(self, key_id: str) -> httpx.Response:
        return self.client.post(f"/developers/keys/{key_id}/revoke", data={"csrf": csrf_of(self.dashboard())})


def signed_in(server: LiveServer, address: str | None = None) -> Visitor:
    visitor = Visitor(server)
    address = address or new_email()
    before = len(mails_to(server, address))
    assert visitor.request_link(address).status_code == 303
    assert visitor.confirm(latest_link(server, address, before)).status_code == 303
    return visitor


def new_key(visitor: Visitor, name: str = "laptop") -> tuple[str, str]:
    """(public id, plaintext) of a key created on the dashboard."""
    created = visitor.create_key(name)
    assert created.status_code == 303, created.text  # POST, then GET: a reload never sends the form again
    assert created.headers["location"].startswith("/developers/dashboard")
    page = visitor.dashboard()
    plaintext = re.search(r'<code id="new-key">(svc_live_\w+)</code>', page.text)
    assert plaintext
    return plaintext.group(1)[9:19], plaintext.group(1)


def diagnose(server: LiveServer, key: str) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/v1/diagnose",
        json={"description": "the door makes a loud bang"},
        headers={"Authorization": f"Bearer {key}"},
    )


# -- the landing page -------------------------------------------------------------------------------


def test_landing_page_explains_tiers_from_the_settings_and_loads_nothing_from_elsewhere(server: LiveServer) -> None:
    page = httpx.get(f"{server.url}/developers")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    # The test server's limits are raised; the page shows the configured numbers, not hard-coded ones.
    assert page.text.count("1,000,000 per minute") == len(RAISED_LIMITS) + 1  # every raised rule; pro for both plans
    for target in ("/mcp-pro", "/mcp<", "/openapi.json", "/developers/api", "/developers/changelog", "/ai"):
        assert target in page.text
    assert "no payment card" in page.text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert assets and all(a.startswith(("/", "#")) for a in assets), assets
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "<script>" not in page.text


# -- asking for a link ------------------------------------------------------------------------------


def test_known_and_unknown_addresses_get_the_same_answer(server: LiveServer) -> None:
    known = new_email()
    signed_in(server, known)
    unknown = new_email()
    answers = [Visitor(server).request_link(address) for address in (known, unknown)]
    assert [(a.status_code, a.headers["location"]) for a in answers] == [(303, "/developers/sign-in/sent")] * 2
    pages = [httpx.get(f"{server.url}{a.headers['location']}").text for a in answers]
    assert pages[0] == pages[1] and "Check your inbox" in pages[0]
    # Everyone who asks gets a link: there is no separate sign-up.
    assert len(mails_once(server, known, 2)) == 2 and len(mails_once(server, unknown, 1)) == 1


def test_the_mail_is_written_as_eml_with_text_and_html(server: LiveServer) -> None:
    address = new_email()
    Visitor(server).request_link(address.upper())
    message = wait_for_mail(server.workdir, address)
    assert message["To"] == address and "sign-in link" in str(message["Subject"])
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    # A local user without a mail server reads the link with the CLI.
    found = LINK.search(server.cli("mail", "latest", "--to", address).stdout)
    assert found
    link = found.group(0)
    assert link == latest_link(server, address)
    for part in (text.get_content(), html.get_content()):
        assert link in part and "15 minutes" in part and "did not ask" in part


def test_a_malformed_address_is_asked_again(server: LiveServer) -> None:
    answer = Visitor(server).request_link("not-an-address")
    assert answer.status_code == 400 and 'aria-invalid="true"' in answer.text


@pytest.mark.parametrize(
    "address",
    ["dev\x00@example.com", "dev\x1b@example.com", "\u202edev@example.com", "dev\u200b@example.com"],
    ids=["NUL", "escape", "right-to-left override", "zero-width space"],
)
def test_an_address_with_hidden_characters_is_asked_again_in_plain_words(server: LiveServer, address: str) -> None:
    links_before = server.query("SELECT count(*) FROM login_tokens")
    answer = Visitor(server).request_link(address)
    assert answer.status_code == 400, answer.text
    if holdable(address):
        assert "Enter an e-mail address, such as dev@example.com." in answer.text
        assert 'value="dev@example.com"' in answer.text  # what was typed, less what a page cannot show
    else:  # NUL and the other control characters are refused at the edge, before the form is read
        assert "holds a character we cannot keep" in answer.text
    assert server.query("SELECT count(*) FROM login_tokens") == links_before


# -- using the link ---------------------------------------------------------------------------------


def test_opening_the_link_does_not_sign_in_and_pressing_the_button_does(server: LiveServer) -> None:
    address = new_email()
    visitor = Visitor(server)
    visitor.request_link(address)
    link = latest_link(server, address)
    for _ in range(2):  # a mail scanner's fetch, then the developer's
        page = visitor.client.get(link)
        assert page.status_code == 200 and ">Sign in</button>" in page.text
        assert page.headers["referrer-policy"] == "no-referrer" and page.headers["cache-control"] == "no-store"
        assert "gt_session" not in page.headers.get("set-cookie", "")
    answer = visitor.client.post(link, data={"csrf": csrf_of(page)})
    assert answer.status_code == 303 and answer.headers["location"] == "/developers/dashboard"
    cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith("gt_session="))
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "path", "samesite", "max-age"} <= attributes and "secure" not in attributes  # plain http
    assert "SameSite=lax" in cookie and "Path=/developers" in cookie
    dashboard = visitor.dashboard()
    assert dashboard.status_code == 200 and address in dashboard.text


def test_a_sign_in_started_from_a_portal_page_returns_to_it_and_nowhere_else(server: LiveServer) -> None:
    address = new_email()
    visitor = Visitor(server)
    form = visitor.client.get("/developers/sign-in", params={"next": "/developers/dashboard?from=mail"})
    assert 'name="next" value="/developers/dashboard?from=mail"' in form.text
    visitor.client.post(
        "/developers/sign-in",
        data={"email": address, "csrf": csrf_of(form), "next": "/developers/dashboard?from=mail"},
    )
    answer = visitor.confirm(latest_link(server, address))
    assert answer.status_code == 303 and answer.headers["location"] == "/developers/dashboard?from=mail"
    assert 'name="next"' not in visitor.client.get("/developers/sign-in", params={"next": "https://evil.example/"}).text
    other, stranger = new_email(), Visitor(server)
    stranger.request_link(other, next="//evil.example/developers/")
    answer = stranger.confirm(latest_link(server, other))
    assert answer.headers["location"] == "/developers/dashboard"


def test_a_link_works_once(server: LiveServer) -> None:
    address = new_email()
    Visitor(server).request_link(address)
    link = latest_link(server, address)
    assert Visitor(server).confirm(link).status_code == 303
    again = Visitor(server)
    page = again.client.get(link)
    assert page.status_code == 400 and "does not work" in page.text
    answer = again.client.post(link, data={"csrf": csrf_of(again.client.get("/developers"))})
    assert answer.status_code == 400 and "gt_session" not in answer.headers.get("set-cookie", "")


def test_a_made_up_link_signs_nobody_in(server: LiveServer) -> None:
    visitor = Visitor(server)
    link = f"{server.url}/developers/confirm/{'A' * 43}"
    assert visitor.client.get(link).status_code == 400
    answer = visitor.client.post(link, data={"csrf": csrf_of(visitor.client.get("/developers"))})
    assert answer.status_code == 400 and "gt_session" not in str(answer.headers)
    assert visitor.dashboard().status_code == 303


# -- forged and cross-site forms --------------------------------------------------------------------


def test_forms_without_the_right_csrf_token_are_refused(server: LiveServer) -> None:
    visitor = Visitor(server)
    visitor.client.get("/developers")  # the browser holds a form cookie
    address = new_email()
    for form in ({"email": address}, {"email": address, "csrf": "wrong-token-" + "x" * 40}):
        answer = visitor.client.post("/developers/sign-in", data=form)
        assert answer.status_code == 403 and "did not come from this site" in answer.text
    assert mails_to(server, address) == []

    Visitor(server).request_link(address)
    link = latest_link(server, address)
    assert visitor.client.post(link, data={"remember": "yes"}).status_code == 403
    assert visitor.client.get(link).status_code == 200  # the refused POST did not spend the link

    developer = signed_in(server)
    before = developer.dashboard().text.count("svc_live_")
    stale = csrf_of(Visitor(server).client.get("/developers"))  # a token, but not this session's
    for form in ({"name": "forged"}, {"name": "forged", "csrf": stale}):
        assert developer.client.post("/developers/keys", data=form).status_code == 403
    assert developer.dashboard().text.count("svc_live_") == before


def test_posts_from_another_origin_are_refused(server: LiveServer) -> None:
    visitor = Visitor(server)
    address = new_email()
    answer = visitor.request_link(address)
    assert answer.status_code == 303  # same origin, or no Origin header: accepted
    token = csrf_of(visitor.client.get("/developers"))
    evil = visitor.client.post(
        "/developers/sign-in", data={"email": address, "csrf": token}, headers={"Origin": "https://evil.example"}
    )
    assert evil.status_code == 403
    own = visitor.client.post(
        "/developers/sign-in", data={"email": address, "csrf": token}, headers={"Origin": server.url}
    )
    assert own.status_code == 303
    # The sign-in page sends no referrer, so browsers post from it with `Origin: null`; only their
    # `Sec-Fetch-Site` can vouch for such a form.
    for headers, status in (
        ({"Origin": "null"}, 403),
        ({"Origin": "null", "Sec-Fetch-Site": "same-origin"}, 303),
        ({"Sec-Fetch-Site": "cross-site"}, 403),
    ):
        answer = visitor.client.post("/developers/sign-in", data={"email": new_email(), "csrf": token}, headers=headers)
        assert answer.status_code == status, headers
    assert len(mails_once(server, address, 2)) == 2

    developer = signed_in(server)
    token = csrf_of(developer.dashboard())
    evil = developer.client.post(
        "/developers/keys", data={"name": "x", "csrf": token}, headers={"Origin": "https://evil.example"}
    )
    assert evil.status_code == 403


def test_signed_out_visitors_cannot_reach_the_dashboard(server: LiveServer) -> None:
    visitor = Visitor(server)
    page = visitor.dashboard()
    assert page.status_code == 303 and page.headers["location"] == "/developers/sign-in"
    token = csrf_of(visitor.client.get("/developers"))
    assert visitor.client.post("/developers/keys", data={"name": "x", "csrf": token}).status_code == 403


def test_signing_out_ends_the_session(server: LiveServer) -> None:
    developer = signed_in(server)
    cookie = developer.client.cookies["gt_session"]
    answer = developer.client.post("/developers/sign-out", data={"csrf": csrf_of(developer.dashboard())})
    assert answer.status_code == 303 and 'gt_session=""' in answer.headers["set-cookie"]
    replay = httpx.get(f"{server.url}/developers/dashboard", cookies={"gt_session": cookie})
    assert replay.status_code == 303


# -- throttling -------------------------------------------------------------------------------------


def test_links_are_throttled_per_address_without_telling(server: LiveServer) -> None:
    address = new_email()
    answers = [Visitor(server).request_link(address) for _ in range(5)]  # five browsers, five addresses
    assert {(a.status_code, a.headers["location"]) for a in answers} == {(303, "/developers/sign-in/sent")}
    assert len(mails_once(server, address, 3)) == 3
    log = server.workdir / "server.log"
    # The last two are refused after their answers, so the log line comes a little later.
    eventually(lambda: "too many requests for one address" in log.read_text(), seconds=15)
    assert len(mails_to(server, address)) == 3


def test_links_are_throttled_per_client_ip_without_telling(server: LiveServer) -> None:
    visitor = Visitor(server)
    addresses = [new_email() for _ in range(11)]
    answers = [visitor.request_link(address) for address in addresses]
    assert {(a.status_code, a.headers["location"]) for a in answers} == {(303, "/developers/sign-in/sent")}
    assert [len(mails_once(server, a, 1)) for a in addresses[:10]] == [1] * 10
    assert mails_to(server, addresses[-1]) == []
    assert Visitor(server).request_link(addresses[-1]).status_code == 303  # another client is served
    assert len(mails_once(server, addresses[-1], 1)) == 1


# -- keys -------------------------------------------------------------------------------------------


def test_a_key_from_the_dashboard_works_and_is_listed_without_its_secret(server: LiveServer) -> None:
    developer = signed_in(server)
    key_id, plaintext = new_key(developer, "ci runner")
    answer = diagnose(server, plaintext)
    assert answer.status_code == 200 and '"pro-minute"' in answer.headers["ratelimit-policy"]
    listing = developer.dashboard().text
    assert f"svc_live_{key_id}" in listing and "ci runner" in listing and plaintext not in listing


def test_the_new_key_is_shown_once_and_a_reload_makes_no_other(server: LiveServer) -> None:
    developer = signed_in(server)
    key_id, plaintext = new_key(developer, "desk")
    reloaded = developer.dashboard().text
    assert plaintext not in reloaded and 'id="new-key"' not in reloaded
    assert reloaded.count("/revoke") == 1  # still the one key
    # Another browser of the same developer never sees it either: the slot belongs to the session.
    assert key_id in reloaded


def test_key_names_are_checked_and_active_keys_are_capped(server: LiveServer) -> None:
    developer = signed_in(server)
    for bad in ("", "   ", "x" * 101):
        assert developer.create_key(bad).status_code == 400
    for n in range(10):
        new_key(developer, f"key {n}")
    refused = developer.create_key("one too many")
    assert refused.status_code == 409 and "Revoke one" in refused.text
    key_id = re.findall(r"/developers/keys/(\w+)/revoke", refused.text)[0]
    assert developer.revoke(key_id).status_code == 303
    new_key(developer, "replacement")


def test_revoking_ends_the_key_and_only_the_owner_may(server: LiveServer) -> None:
    owner, stranger = signed_in(server), signed_in(server)
    key_id, plaintext = new_key(owner)
    refused = stranger.revoke(key_id)
    assert refused.status_code == 404 and "no such key among yours" in refused.text
    assert diagnose(server, plaintext).status_code == 200
    answer = owner.revoke(key_id)
    assert answer.status_code == 303 and answer.headers["location"] == f"/developers/dashboard?revoked={key_id}"
    notice = owner.client.get(answer.headers["location"]).text
    assert f"The key “laptop” (svc_live_{key_id}…) is revoked" in notice  # named as its owner named it
    assert "is revoked" not in stranger.client.get(answer.headers["location"]).text  # not another's key
    assert diagnose(server, plaintext).status_code == 401  # revoked through this process: at once


def test_behind_an_https_base_url_cookies_are_secure_and_links_use_it(tmp_path: Path) -> None:
    public = "https://portal.example"
    live = start_server(tmp_path / "https", {"GARAGE_TOOLS_PUBLIC_BASE_URL": public})
    try:
        visitor = Visitor(live)
        page = visitor.client.get("/developers")
        assert "; secure" in page.headers["set-cookie"].lower()
        address = new_email()
        token = csrf_of(page)
        # httpx keeps a Secure cookie off plain http, as a browser would; the TLS proxy is played here.
        url, form, cookie = f"{live.url}/developers/sign-in", {"email": address, "csrf": token}, f"gt_form={token}"
        assert httpx.post(url, data=form, headers={"Cookie": cookie}).status_code == 303
        assert f"{public}/developers/confirm/" in mails_once(live, address, 1)[0]
        # The service's origin is the public one now, not the address the request reached.
        assert httpx.post(url, data=form, headers={"Cookie": cookie, "Origin": live.url}).status_code == 403
    finally:
        stop_server(live)
