"""homeownerAnswer, the homeowner's journey in one call, over the real stores (SQLite and PostgreSQL).

Diagnose, then route with the heat taken from the safety flag, then the routed pro's offers, then the causes
priced for the routed place: each step is its own tool's answer, so the journey can be checked against them.
"""

from __future__ import annotations

from typing import Any

import pytest

from garage_tools.access.caller import Caller
from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.loader import Knowledge
from garage_tools.mail import Outbox
from garage_tools.partners.service import Partners
from garage_tools.registry import ToolContext, ToolData, dump, invoke
from garage_tools.store.database import Database
from garage_tools.store.referrals import NewReferral, ReferralRepository
from garage_tools.tools import build_registry

REGISTRY = build_registry()


class Journey:
    def __init__(self, database: Database, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self.database = database
        self.partners = Partners.over(database)
        data = ToolData(database=database, outbox=Outbox(database, domain="doors.example.com"), partners=self.partners)
        caller = Caller.anonymous("rest", "203.0.113.9")
        self.context = ToolContext(knowledge=knowledge, caller=caller, base_url="https://doors.example.com", data=data)

    async def ask(self, **arguments: Any) -> dict[str, Any]:
        return dump(await invoke(REGISTRY, "homeownerAnswer", arguments, self.context))

    async def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        return dump(await invoke(REGISTRY, name, arguments, self.context))

    async def referrals(self) -> list[NewReferral]:
        """What routeByZip recorded (searches: demand, mailed to nobody)."""
        await self.partners.referrals.flush()
        return await ReferralRepository(self.database).all()


@pytest.fixture
def journey(database: Database, knowledge: Knowledge) -> Journey:
    return Journey(database, knowledge)


async def test_an_unsafe_door_is_a_hot_lead_with_offers_and_local_prices(journey: Journey) -> None:
    answer = await journey.ask(description="loud bang and the door won't open", place="84770", doorSize="16x7")
    diagnosis = answer["diagnosis"]
    assert diagnosis == await journey.tool("diagnose", description="loud bang and the door won't open")
    assert diagnosis["safetyFlag"] is True
    routed = await journey.tool(
        "routeByZip", zipOrLocation="84770", issue=diagnosis["symptom"]["key"], leadHeat="hot", doorSize="16x7"
    )
    assert answer["route"] == routed and answer["route"]["leadHeat"] == "hot"
    assert answer["promotions"] == await journey.tool("getActivePromotions", partnerId=routed["partnerId"])
    assert answer["promotions"]["promotions"]
    causes = [issue["key"] for issue in diagnosis["likelyIssues"]]
    assert [cost["issueKey"] for cost in answer["costs"]] == causes
    assert answer["costs"][0] == await journey.tool("costEstimate", issueKey=causes[0], zip="84770", doorSize="16x7")
    assert answer["referencePhotos"]["itemId"] == "springs" and answer["referencePhotos"]["photos"]
    assert all("image" not in photo for photo in answer["referencePhotos"]["photos"])  # by URL: a small answer
    referrals = await journey.referrals()
    assert [(r.zip, r.heat, r.issue, r.door_size) for r in referrals][-1] == (
        "84770",
        "hot",
        diagnosis["symptom"]["key"],
        "16x7",
    )


async def test_a_safe_symptom_is_warm_and_words_alone_route_nobody(journey: Journey) -> None:
    alone = await journey.ask(description="the remote does nothing")
    assert alone["diagnosis"]["safetyFlag"] is False
    assert "route" not in alone and alone["costs"] == []
    assert await journey.referrals() == []  # no place, nothing routed
    answer = await journey.ask(description="the remote does nothing", place="Salt Lake City, UT")
    assert answer["route"]["leadHeat"] == "warm"


async def test_a_place_alone_routes_without_a_diagnosis(journey: Journey) -> None:
    answer = await journey.ask(place="84770")
    assert "diagnosis" not in answer and answer["costs"] == []
    assert answer["route"]["covered"] is True and "issue" not in answer["route"]


async def test_an_unknown_place_keeps_the_diagnosis_and_says_why(journey: Journey) -> None:
    answer = await journey.ask(description="loud bang", place="Nowhere Special, ZZ")
    assert answer["diagnosis"]["symptom"] is not None
    assert answer["placeError"]["code"] == "unknown_location"
    assert "route" not in answer and "promotions" not in answer


async def test_nothing_asked_is_an_empty_answer_and_an_empty_place_a_clear_400(journey: Journey) -> None:
    assert await journey.ask() == {"costs": []}
    assert await journey.ask(description=None, place=None) == {"costs": []}
    with pytest.raises(InvalidArguments, match="place"):
        await journey.ask(place="")
