"""Small partner directories for tests, built from records like the ones operators import."""

from __future__ import annotations

from datetime import date
from typing import Any

from garage_tools.knowledge.directory import (
    PartnerRecord,
    PromotionRecord,
    load_sample_partners,
    load_sample_promotions,
)
from garage_tools.knowledge.places import us_places
from garage_tools.partners.directory import DirectorySnapshot
from garage_tools.store.partners import DirectoryRows

ALL_SERVICES = ["repair", "maintenance", "replacement", "installation"]


def partner(partner_id: str, **fields: Any) -> PartnerRecord:
    """A valid partner; `fields` (JSON names) override the defaults."""
    values: dict[str, Any] = {
        "id": partner_id,
        "displayName": partner_id.replace("-", " ").title(),
        "phone": "(435) 555-0150",
        "schedulerUrl": f"https://{partner_id}.example.com/book",
        "url": f"https://{partner_id}.example.com",
        "region": "Test Region",
        "regionKey": "test-region",
        "services": ALL_SERVICES,
        "emergency": False,
        "promotionsOptIn": True,
    }
    values.update(fields)
    return PartnerRecord.model_validate(values)


def promotion(promotion_id: str, partner_id: str, **fields: Any) -> PromotionRecord:
    values: dict[str, Any] = {
        "id": promotion_id,
        "partnerId": partner_id,
        "title": f"Offer {promotion_id}",
        "description": "An offer for tests.",
        "discountType": "amount",
        "discountValue": 50,
        "validFrom": "2026-01-01",
        "validUntil": "2026-12-31",
    }
    values.update(fields)
    return PromotionRecord.model_validate(values)


def snapshot(partners: list[PartnerRecord], promotions: list[PromotionRecord] | None = None) -> DirectorySnapshot:
    return DirectorySnapshot.build(
        DirectoryRows(version=1, partners=partners, promotions=promotions or []), us_places()
    )


def sample_snapshot() -> DirectorySnapshot:
    return snapshot(list(load_sample_partners().partners), list(load_sample_promotions().promotions))


SAMPLE_DAY = date(2026, 11, 22)  # a day inside the sample offers' windows
