"""The partner console through a real server (two workers): sign-in, leads and their CSV, profile, promotions.

The server runs on the embedded stack or, with GARAGE_TOOLS_TEST_STACK=postgres-redis, on PostgreSQL and
Redis. Each partner signs in with its sample address (`office@<id>.example.com`). Two partners of the
sample serve St. George (84770): red-rock-garage-doors and dixie-door-and-spring; what one of them does
must never show in, or change, the other's console.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from garage_tools.web.partners.forms import HEATS
from tests.conftest import LiveServer, start_server, stop_server
from tests.polling import eventually

RED_ROCK = "red-rock-garage-doors"
DIXIE = "dixie-door-and-spring"
LINK = re.compile(r"http://[^\s\"<>]+/partners/confirm/[A-Za-z0-9_-]+")
REFRESH_SECONDS = 1.0
#: What the server answers holds once it holds on this many calls in a row: each may reach either of its two
#: workers, and each worker refreshes its own copy of the directory.
BOTH_WORKERS = 4
_addresses = itertools.count(1)


def office(partner_id: str) -> str:
    return f"office@{partner_id}.example.com"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("partners"),
        {
            "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1",
            "GARAGE_TOOLS_PARTNER_REFRESH_SECONDS": str(REFRESH_SECONDS),
            "GARAGE_TOOLS_WORKERS": "2",
        },
    )
    yield live
    stop_server(live)


def csrf_of(page: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def mails_to(server: LiveServer, address: str, kind: str | None = None) -> list[str]:
    rows = server.query("SELECT text_body, kind FROM outbox WHERE to_address = $1 ORDER BY id", address)
    return [text for text, found in rows if kind is None or found == kind]


class Partner:
    """One browser of one partner, from its own client address."""

    def __init__(self, server: LiveServer) -> None:
        n = next(_addresses)
        self.server = server
        self.client = httpx.Client(
            base_url=server.url, headers={"X-Forwarded-For": f"198.18.{n // 250}.{n % 250 + 1}"}, timeout=15
        )

    def request_link(self, address: str) -> httpx.Response:
        return self.client.post(
            "/partners/sign-in", data={"email": address, "csrf": csrf_of(self.client.get("/partners"))}
        )

    def sign_in(self, partner_id: str) -> Partner:
        before = len(mails_to(self.server, office(partner_id), "partner_link"))
        assert self.request_link(office(partner_id)).status_code == 303
        # The link is queued just after the answer (so its timing tells nothing about the address).
        mails = eventually(
            lambda: mails_to(self.server, office(partner_id), "partner_link")[before:],
            seconds=30,
            what=f"a sign-in link to {office(partner_id)}",
        )
        assert len(mails) == 1
        link = LINK.search(mails[-1])
        assert link
        page = self.client.get(link.group(0))
        assert page.status_code == 200, page.text
        done = self.client.post(link.group(0), data={"csrf": csrf_of(page)})
        assert done.status_code == 303 and done.headers["location"] == "/partners"
        return self

    def token(self) -> str:
        return csrf_of(self.client.get("/partners/profile"))

    def post(self, path: str, **fields: str) -> httpx.Response:
        return self.client.post(path, data={"csrf": self.token(), **fields})


_signed_in: dict[str, Partner] = {}


def console_of(server: LiveServer, partner_id: str) -> Partner:
    """A signed-in browser of the partner, shared by the tests (three links per address in 15 minutes)."""
    if partner_id not in _signed_in:
        _signed_in[partner_id] = Partner(server).sign_in(partner_id)
    return _signed_in[partner_id]


def offer(**changes: str) -> dict[str, str]:
    today = datetime.now(UTC).date()
    fields = {
        "title": "Spring replacement, $40 off",
        "description": "Both torsion springs replaced and the door balanced.",
        "discount_type": "amount",
        "discount_value": "40",
        "issue": "broken_spring",
        "service_repair": "on",
        "valid_from": today.isoformat(),
        "valid_until": (today + timedelta(days=30)).isoformat(),
    }
    return {**fields, **changes}


def promotions_of(server: LiveServer, partner_id: str) -> list[dict[str, Any]]:
    answer = httpx.post(f"{server.url}/api/v1/getActivePromotions", json={"partnerId": partner_id}, timeout=10)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["promotions"])


def test_only_a_partner_address_gets_a_link_and_both_see_the_same_page(server: LiveServer) -> None:
    visitor = Partner(server)
    stranger = visitor.request_link("someone@example.com")
    known = visitor.request_link(office(DIXIE))
    assert stranger.status_code == known.status_code == 303
    assert stranger.headers["location"] == known.headers["location"] == "/partners/sign-in/sent"
    assert LINK.search(eventually(lambda: mails_to(server, office(DIXIE), "partner_link"))[-1])
    assert mails_to(server, "someone@example.com") == []  # asked first, so settled by now: nothing


def lead_to(server: LiveServer, door_size: str) -> str:
    """A lead: an inspection that needs a pro now (springs to fix) whose homeowner shares their details."""
    body = {
        "recipient": {"email": f"owner{next(_addresses)}@example.com", "zip": "84770"},
        "consent": {"marketing": False, "contactShare": True},
        "door": {"size": door_size},
        "items": {"springs": {"status": "fix"}},
    }
    answer = httpx.post(f"{server.url}/api/v1/submitInspection", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["nextStep"]["localPro"]["partnerId"])


def test_a_partner_sees_its_leads_newest_first_with_filters_and_csv(server: LiveServer) -> None:
    partner_id = lead_to(server, "16x7")
    assert lead_to(server, "9x7") == partner_id
    assert lead_to(server, "18x8") == partner_id
    me = console_of(server, partner_id)
    page = me.client.get("/partners")
    assert page.status_code == 200 and "Your leads" in page.text
    assert page.text.index("18x8") < page.text.index("9x7")  # the newest first
    # When each arrived, in the time of the lead's place (St. George's, the partner having set no zone of its own).
    assert re.search(r"<time datetime=\"[^\"]+\">\w{3} \d{1,2} \w{3}, \d\d:\d\d \(M[SD]T\)</time>", page.text)
    assert " UTC</time>" not in page.text

    def exported(**query: str) -> list[dict[str, str]]:
        answer = me.client.get("/partners/leads.csv", params=query)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
        return list(csv.DictReader(io.StringIO(answer.text)))

    stored = server.query(
        "SELECT lead_heat, count(*) FROM lead_events WHERE partner_id = $1 GROUP BY lead_heat", partner_id
    )
    for heat, count in stored:
        rows = exported(heat=heat)
        assert len(rows) == count and {row["urgency"] for row in rows} == {HEATS[heat]}
    rows = exported()
    assert len(rows) == sum(count for _, count in stored)
    assert rows[0]["door_size"] == "18x8" and rows[0]["zip"] == "84770" and rows[0]["homeowner_email"]
    assert rows[0]["problem"] == "Broken or failing spring"

    tomorrow = (datetime.now(UTC).date() + timedelta(days=1)).isoformat()
    assert "No leads match these choices" in me.client.get("/partners", params={"from": tomorrow}).text
    assert exported(**{"from": tomorrow}) == []
    bad = me.client.get("/partners", params={"from": "soon"})
    assert bad.status_code == 200 and "Enter a date such as" in bad.text
    signed_out = httpx.get(f"{server.url}/partners/leads.csv", follow_redirects=False)
    assert signed_out.status_code == 303


def test_partners_see_and_change_only_their_own(server: LiveServer) -> None:
    red_rock, dixie = console_of(server, RED_ROCK), console_of(server, DIXIE)
    assert red_rock.post("/partners/promotions", **offer(title="Red Rock only")).status_code == 303
    mine = red_rock.client.get("/partners/promotions").text
    promotion_id = re.search(r'/partners/promotions/([a-z0-9-]+)/end"', mine)
    assert promotion_id and "Red Rock only" in mine
    assert "Red Rock only" not in dixie.client.get("/partners/promotions").text
    # Another partner's offer: not shown, not changed, not ended, whatever the form says.
    assert dixie.client.get(f"/partners/promotions/{promotion_id.group(1)}").status_code == 404
    changed = dixie.post(f"/partners/promotions/{promotion_id.group(1)}", **offer(title="Hijacked"))
    ended = dixie.post(f"/partners/promotions/{promotion_id.group(1)}/end")
    assert changed.status_code == ended.status_code == 404
    assert "Red Rock only" in red_rock.client.get("/partners/promotions").text
    assert "Hijacked" not in red_rock.client.get("/partners/promotions").text
    # Leads: each sees only the leads routed to it.
    leads = server.query("SELECT partner_id, count(*) FROM lead_events GROUP BY partner_id")
    counts = {partner: count for partner, count in leads}
    for who, partner_id in ((red_rock, RED_ROCK), (dixie, DIXIE)):
        rows = list(csv.DictReader(io.StringIO(who.client.get("/partners/leads.csv").text)))
        assert len(rows) == counts.get(partner_id, 0)
    audit = server.query("SELECT partner_id, actor, action FROM partner_audit WHERE action = 'promotion.create'")
    assert (RED_ROCK, office(RED_ROCK), "promotion.create") in audit


def test_the_profile_is_checked_before_it_is_saved(server: LiveServer) -> None:
    me = console_of(server, DIXIE)
    refused = me.post("/partners/profile", phone="12", booking="http://plain.example.com", website="")
    assert refused.status_code == 400
    for words in ("Enter a phone number with 10 to 15 digits", "starting with https://, or leave it empty"):
        assert words in refused.text
    saved = me.post(
        "/partners/profile", phone="(435) 555-0199", booking="", website="https://dixie-door-and-spring.example.com"
    )
    assert saved.status_code == 303
    assert 'value="(435) 555-0199"' in me.client.get("/partners/profile").text
    assert server.query("SELECT phone, scheduler_url FROM partners WHERE id = $1", DIXIE) == [("(435) 555-0199", None)]


def test_a_promotion_round_trips_through_get_active_promotions(server: LiveServer) -> None:
    me = console_of(server, RED_ROCK)
    assert me.post("/partners/promotions", **offer(title="Cold-snap spring special")).status_code == 303
    # The id is read from the polls that saw the promotion: one more read may reach a worker not yet refreshed.
    listed = eventually(
        lambda: [p for p in promotions_of(server, RED_ROCK) if p["title"] == "Cold-snap spring special"],
        times=BOTH_WORKERS,
    )
    promotion_id = listed[0]["id"]
    edited = me.post(f"/partners/promotions/{promotion_id}", **offer(title="Cold-snap special", discount_value="55"))
    assert edited.status_code == 303
    shown = eventually(
        lambda: [
            p
            for p in promotions_of(server, RED_ROCK)
            if p["id"] == promotion_id and p["title"] != "Cold-snap spring special"
        ],
        times=BOTH_WORKERS,
    )
    assert shown[0]["title"] == "Cold-snap special" and shown[0]["discount"]["label"] == "$55 off"
    assert me.post("/partners/promotions/show", show="no").status_code == 303
    eventually(lambda: promotions_of(server, RED_ROCK) == [], times=BOTH_WORKERS)
    assert me.post("/partners/promotions/show", show="yes").status_code == 303
    eventually(lambda: any(p["id"] == promotion_id for p in promotions_of(server, RED_ROCK)), times=BOTH_WORKERS)
    assert me.post(f"/partners/promotions/{promotion_id}/end").status_code == 303
    eventually(lambda: all(p["id"] != promotion_id for p in promotions_of(server, RED_ROCK)), times=BOTH_WORKERS)
    bad = me.post(
        "/partners/promotions", **offer(discount_type="percent", discount_value="150", valid_until="2020-01-01")
    )
    assert bad.status_code == 400
    assert "at most 100" in bad.text and "The last day cannot come before the first." in bad.text


def test_a_nul_in_an_offer_and_dates_out_of_range_are_asked_again(server: LiveServer) -> None:
    me = console_of(server, RED_ROCK)
    for field in ("title", "description", "terms"):
        refused = me.post("/partners/promotions", **offer(**{field: "Spring\x00special"}))
        assert refused.status_code == 400 and "cannot keep" in refused.text, field
    assert server.query("SELECT count(*) FROM partner_promotions WHERE title LIKE 'Spring%special'") == [(0,)]
    far = me.client.get("/partners", params={"from": "2026-01-01", "to": "9999-12-31"})
    assert far.status_code == 200 and "from 2000 to 2100" in far.text
    export = me.client.get("/partners/leads.csv", params={"to": "9999-12-31"})
    assert export.status_code == 200 and export.text.startswith("received_utc,")
    late = me.post("/partners/promotions", **offer(valid_until="9999-12-31"))
    assert late.status_code == 400 and "from 2000 to 2100" in late.text


FORMS = [
    ("/partners/profile", {"phone": "(435) 555-0100", "website": "https://x.example.com"}),
    ("/partners/promotions", offer()),
    ("/partners/promotions/show", {"show": "no"}),
    ("/partners/sign-out", {}),
]


def test_every_form_checks_its_token_and_its_origin(server: LiveServer) -> None:
    me = console_of(server, DIXIE)
    assert me.post("/partners/promotions", **offer(title="Guarded")).status_code == 303
    promotion_id = re.search(r'/partners/promotions/([a-z0-9-]+)/end"', me.client.get("/partners/promotions").text)
    assert promotion_id
    forms = [
        *FORMS,
        (f"/partners/promotions/{promotion_id.group(1)}", offer()),
        (f"/partners/promotions/{promotion_id.group(1)}/end", {}),
    ]
    token = me.token()
    for path, fields in forms:
        forged = me.client.post(path, data={**fields, "csrf": "x" * 64})
        assert forged.status_code == 403 and "did not come from this site" in forged.text, path
        foreign = me.client.post(path, data={**fields, "csrf": token}, headers={"Origin": "https://evil.example"})
        assert foreign.status_code == 403, path
    # Before sign-in: the sign-in form and the confirm button need the form cookie's token, and this site's origin.
    stranger = Partner(server)
    form_token = csrf_of(stranger.client.get("/partners"))
    for path in ("/partners/sign-in", "/partners/confirm/" + "a" * 43):
        forged = stranger.client.post(path, data={"email": office(DIXIE), "csrf": "x" * 40})
        foreign = stranger.client.post(
            path, data={"email": office(DIXIE), "csrf": form_token}, headers={"Origin": "https://evil.example"}
        )
        assert forged.status_code == foreign.status_code == 403, path
    assert "Guarded" in me.client.get("/partners/promotions").text  # nothing above changed it
    assert server.query("SELECT count(*) FROM partner_promotions WHERE title = 'Guarded'") == [(1,)]


def test_an_operator_invites_a_partner_and_the_link_signs_it_in(server: LiveServer) -> None:
    done = server.cli("partners", "invite", "canyon-country-doors", "--base-url", server.url)
    assert "a sign-in link is queued for office@canyon-country-doors.example.com" in done.stdout
    [mail] = mails_to(server, office("canyon-country-doors"), "partner_link")
    assert "Your partner console shows the leads we send" in mail
    link = LINK.search(mail)
    assert link
    visitor = Partner(server)
    page = visitor.client.get(link.group(0))
    assert visitor.client.post(link.group(0), data={"csrf": csrf_of(page)}).status_code == 303
    assert "Canyon Country" in visitor.client.get("/partners").text
    unknown = server.cli("partners", "invite", "no-such-partner", "--base-url", server.url, check=False)
    assert unknown.returncode != 0 and "is not in the directory" in unknown.stderr
    audit = server.cli("partners", "audit", "--partner", "canyon-country-doors").stdout
    assert "invite" in audit and "sign_in" in audit and "operator" in audit
    # A partner that reads Spanish is invited in Spanish, as its console will read.
    server.query("UPDATE partners SET language = 'es' WHERE id = $1", "canyon-country-doors")
    server.cli("partners", "invite", "canyon-country-doors", "--base-url", server.url)
    spanish = mails_to(server, office("canyon-country-doors"), "partner_link")[-1]
    assert "Abra este enlace para entrar a su panel de asociado:" in spanish and "Open this link" not in spanish


def test_the_daily_digest_tells_each_waiting_lead_once(server: LiveServer) -> None:
    partner_id = lead_to(server, "12x7")
    # A lead that needs a pro now is told at once, so no digest repeats it.
    assert any("12x7" in mail for mail in mails_to(server, office(partner_id), "partner_lead"))
    server.cli("partners", "digest", "--base-url", server.url)
    assert not [m for m in mails_to(server, office(partner_id), "partner_digest") if "12x7" in m]
    waiting = "SELECT count(*) FROM lead_events WHERE notified_at IS NULL AND partner_id IS NOT NULL"
    assert server.query(waiting) == [(0,)]
    assert (
        server.cli("partners", "digest", "--base-url", server.url).stdout.strip()
        == "digest: 0 leads queued for their partners"
    )
