"""Partner routing and promotions against a real server: REST, both MCP tiers, the CLI, and a store outage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_mcp import MODES, connect
from tests.polling import eventually
from tests.scratch_postgres import UPSTREAM, scratch_database_sync, service_url
from tests.tcp_proxy import tcp_proxy

DONE_WHEN = {"zipOrLocation": "84770", "issue": "wont_close", "leadHeat": "hot"}


def test_the_widget_request_gets_a_bookable_partner_whose_id_promotions_accept(api: httpx.Client) -> None:
    response = api.post("/api/v1/routeByZip", json=DONE_WHEN, headers={"Content-Type": "application/json"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["covered"] is True and body["region"] == "Southern Utah"
    assert body["partner"]["schedulerUrl"].startswith("https://") and body["partner"]["displayName"]
    offers = api.post("/api/v1/getActivePromotions", json={"partnerId": body["partnerId"]})
    assert offers.status_code == 200, offers.text
    assert offers.json()["matchedBy"] == "partnerId"


def test_a_partner_with_offers_and_one_without(api: httpx.Client) -> None:
    with_offers = api.post("/api/v1/getActivePromotions", json={"partnerId": "red-rock-garage-doors"}).json()
    assert with_offers["count"] >= 1 and with_offers["promotions"][0]["discount"]["label"]
    without = api.post("/api/v1/getActivePromotions", json={"partnerId": "great-salt-door-repair"}).json()
    assert without["promotions"] == [] and without["count"] == 0


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "says"),
    [
        ("routeByZip", {"zipOrLocation": "00000"}, "unknown_location", "00000"),
        (
            "routeByZip",
            {"zipOrLocation": "84770", "leadHeat": "urgent"},
            "invalid_arguments",
            "'hot', 'warm' or 'cold'",
        ),
        ("routeByZip", {"zipOrLocation": "84770", "doorSize": "huge"}, "invalid_arguments", "<width>x<height>"),
        ("getActivePromotions", {"serviceType": "painting"}, "invalid_arguments", "'installation'"),
    ],
)
def test_errors_are_400_envelopes_that_say_what_to_send(
    api: httpx.Client, tool: str, arguments: dict[str, object], code: str, says: str
) -> None:
    response = api.post(f"/api/v1/{tool}", json=arguments)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["status"] == 400 and says in error["message"]


def test_a_city_without_its_state_is_200_with_the_likeliest_place(api: httpx.Client) -> None:
    response = api.post("/api/v1/routeByZip", json={"zipOrLocation": "St. George", "issue": "wont_close"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["covered"] is True and body["region"] == "Southern Utah"
    assert body["location"]["ambiguous"] is True and body["location"]["state"] == "UT"
    assert {place["state"] for place in body["location"]["alternatives"]} == {"GA", "KS", "SC"}
    assert "Saint George, GA" in body["hint"]


def test_an_uncovered_area_is_200_with_a_hint(api: httpx.Client) -> None:
    body = api.post("/api/v1/routeByZip", json={"zipOrLocation": "Billings, MT", "leadHeat": None}).json()
    assert body["covered"] is False and body["hint"] and body["nearest"]["partnerId"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tier", ["public", "pro"])
async def test_both_mcp_tiers_route_and_list_offers_like_rest(
    mode: str, tier: str, live_server: LiveServer, pro_key: str
) -> None:
    url, key = (f"{live_server.url}/mcp", None) if tier == "public" else (f"{live_server.url}/mcp-pro", pro_key)
    async with connect(url, mode, key) as client:
        routed = await client.call_tool("routeByZip", DONE_WHEN)
        assert not routed.is_error and routed.structured_content is not None
        partner_id = routed.structured_content["partnerId"]
        offers = await client.call_tool("getActivePromotions", {"partnerId": partner_id})
        assert not offers.is_error and offers.structured_content is not None
        ambiguous = await client.call_tool("routeByZip", {"zipOrLocation": "Kansas City"})
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        rest = (await http.post("/api/v1/routeByZip", json=DONE_WHEN)).json()
    assert routed.structured_content == rest
    assert offers.structured_content["matchedBy"] == "partnerId"
    assert not ambiguous.is_error and ambiguous.structured_content is not None
    assert ambiguous.structured_content["location"]["ambiguous"] is True
    assert "Kansas City, KS" in ambiguous.structured_content["hint"]
    published = listed["routeByZip"].output_schema
    assert published is not None
    location = published["$defs"]["ResolvedLocation"]["properties"]
    assert "ambiguous" in location and "alternatives" in location  # typed clients can see the guess


# --- the operator's CLI against a running server (its own server: these change the directory) ----

NEW_DIRECTORY = """id,displayName,phone,schedulerUrl,url,region,regionKey,zipPrefixes,zips,centerZip,radiusMiles,services,emergency,promotionsOptIn,active
dixie-new,Dixie New Doors,(435) 555-0190,https://dixie-new.example.com/book,https://dixie-new.example.com,Dixie,ut-dixie,847,,,,repair;replacement,true,true,true
zion-radius,Zion Radius Doors,(435) 555-0191,https://zion.example.com/book,https://zion.example.com,Zion,ut-zion,,,84767,30,repair,false,false,true
"""  # noqa: E501


@pytest.fixture(scope="module")
def operated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of its own whose directory these tests replace; it re-checks the directory every 0.5 s."""
    server = start_server(tmp_path_factory.mktemp("operated"), {"GARAGE_TOOLS_PARTNER_REFRESH_SECONDS": "0.5"})
    yield server
    stop_server(server)


def _route(server: LiveServer, **arguments: object) -> dict[str, object]:
    response = httpx.post(f"{server.url}/api/v1/routeByZip", json={"zipOrLocation": "84770", **arguments}, timeout=10)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_operator_replaces_the_directory_from_a_csv_and_the_server_follows(operated: LiveServer) -> None:
    assert _route(operated)["partnerId"] != "dixie-new"  # the samples, seeded on first start
    listing = operated.cli("partners", "list").stdout
    assert "red-rock-garage-doors" in listing and "great-salt-door-repair" in listing
    before = operated.cli("partners", "export", "--format", "csv").stdout

    bad = operated.workdir / "bad.csv"
    broken_row = NEW_DIRECTORY.splitlines()[1].replace("(435) 555-0190", "ring us").replace(",847,", ",8477,")
    bad.write_text("\n".join([NEW_DIRECTORY.splitlines()[0], broken_row, *NEW_DIRECTORY.splitlines()[2:]]) + "\n")
    refused = operated.cli("partners", "import", str(bad), check=False)
    assert refused.returncode == 1
    assert "line 2:" in refused.stderr and "phone" in refused.stderr and "zipPrefixes" in refused.stderr
    assert "unchanged" in refused.stderr
    assert operated.cli("partners", "export", "--format", "csv").stdout == before

    good = operated.workdir / "directory.csv"
    good.write_text(NEW_DIRECTORY)
    imported = operated.cli("partners", "import", str(good))
    assert "imported 2 partners" in imported.stdout and "removed" in imported.stdout
    eventually(lambda: _route(operated, leadHeat="hot")["partnerId"] == "dixie-new", seconds=15)
    assert _route(operated, leadHeat="cold", issue="broken_spring")["partnerId"] in {"dixie-new", "zion-radius"}

    exported = json.loads(operated.cli("partners", "export").stdout)
    assert [p["id"] for p in exported["partners"]] == ["dixie-new", "zion-radius"]


def test_operator_imports_promotions_and_sees_leads(operated: LiveServer) -> None:
    operated.cli("partners", "import", str(_write(operated, "dir.csv", NEW_DIRECTORY)))
    promotions = {
        "promotions": [
            {
                "id": "dixie-spring",
                "partnerId": "dixie-new",
                "title": "$60 off springs",
                "description": "Any spring.",
                "discountType": "amount",
                "discountValue": 60,
                "issueKeys": ["broken_spring"],
                "validFrom": "2020-01-01",
                "validUntil": "2099-12-31",
            }
        ]
    }
    bad = dict(promotions, promotions=[dict(promotions["promotions"][0], partnerId="nobody")])
    refused = operated.cli("promotions", "import", str(_write(operated, "bad.json", json.dumps(bad))), check=False)
    assert refused.returncode == 1 and "no partner 'nobody'" in refused.stderr
    operated.cli("promotions", "import", str(_write(operated, "promos.json", json.dumps(promotions))))
    assert "dixie-spring" in operated.cli("promotions", "list").stdout

    def offers() -> list[object]:
        body = httpx.post(f"{operated.url}/api/v1/getActivePromotions", json={"partnerId": "dixie-new"}).json()
        return list(body["promotions"])

    eventually(lambda: len(offers()) == 1, seconds=15)

    since = datetime.now(UTC).isoformat()
    for heat, issue in [("hot", "broken_cable"), ("hot", "broken_cable"), ("warm", "worn_rollers")]:
        _route(operated, leadHeat=heat, issue=issue, doorSize="16x7")

    # Searches are referrals, one per caller, partner and issue a day: the repeated search counts once.
    eventually(
        lambda: sum(t[0] for t in _tallies(operated, "--searches", "--since", since).values()) == 2,
        seconds=15,
        every=0.2,
    )
    assert sum(t[1] for t in _tallies(operated, "--searches", "--since", since).values()) == 1  # the hot one, once
    assert "no leads" in operated.cli("partners", "leads", "--since", since).stdout  # a search is not a lead
    assert "no searches" in operated.cli("partners", "leads", "--searches", "--since", "2099-01-01").stdout


def _tallies(server: LiveServer, *options: str) -> dict[str, tuple[int, int, int, int]]:
    """`partners leads` as {partner id: (leads or searches, hot, warm, cold)}."""
    found = {}
    for line in server.cli("partners", "leads", *options).stdout.splitlines()[2:]:
        words = line.split()
        total, hot, warm, cold = (int(word) for word in words[-6:-2])
        found[words[0]] = (total, hot, warm, cold)
    return found


def _stored_leads(server: LiveServer) -> list[tuple[object, ...]]:
    """The heat of every search (referral) in the server's store, read directly (the CLI takes seconds to start)."""
    return server.query("SELECT heat FROM referrals ORDER BY id")


def _write(server: LiveServer, name: str, text: str) -> Path:
    path = server.workdir / name
    path.write_text(text)
    return path


# --- a store outage ----------------------------------------------------------------------------


@pytest.mark.postgres
def test_routing_answers_through_a_store_outage_and_the_lead_is_kept(tmp_path: Path) -> None:
    with scratch_database_sync() as name, tcp_proxy(UPSTREAM) as proxy:
        server = start_server(tmp_path, {"GARAGE_TOOLS_DATABASE_URL": service_url(name, port=proxy.port)})
        try:
            assert _route(server)["covered"] is True  # the directory is in memory from here on
            # The first lead reaches the store before the cut, so the outage only holds back the second.
            eventually(lambda: _stored_leads(server) == [(None,)], seconds=15)
            proxy.cut()
            during = _route(server, leadHeat="hot", issue="broken_spring")
            assert during["covered"] is True and during["partner"]
            proxy.restore()
            # Written on the recorder's next retry (1 s after the failed write, doubling while the store is down).
            eventually(lambda: len(_stored_leads(server)) >= 2, seconds=30)
            assert sorted(_stored_leads(server), key=str) == [("hot",), (None,)]  # kept, and written once
        finally:
            stop_server(server)
    assert "Traceback" not in (server.workdir / "server.log").read_text()
