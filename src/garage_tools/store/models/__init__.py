"""Tables. Every schema change ships as an Alembic migration in `migrations/versions/`.

One module a part of the service; importing this package registers every table on `Base.metadata`, which
the migrations and the store read.
"""

from garage_tools.store.models.access import (
    ApiKey,
    Developer,
    KeyUsage,
    LoginToken,
    OAuthClient,
    OAuthGrant,
    OAuthToken,
    PortalSession,
)
from garage_tools.store.models.base import NAMING, Base
from garage_tools.store.models.delivery import (
    WEBHOOK_CHANNEL,
    OutboxMessage,
    WebhookEndpoint,
)
from garage_tools.store.models.homeowners import (
    InspectionRecord,
    ServiceRequest,
    ServiceRequestEvent,
)
from garage_tools.store.models.partners import (
    LeadEvent,
    Partner,
    PartnerAuditEntry,
    PartnerContact,
    PartnerDirectoryState,
    PartnerPromotion,
    Referral,
)

__all__ = [
    "NAMING",
    "WEBHOOK_CHANNEL",
    "ApiKey",
    "Base",
    "Developer",
    "InspectionRecord",
    "KeyUsage",
    "LeadEvent",
    "LoginToken",
    "OAuthClient",
    "OAuthGrant",
    "OAuthToken",
    "OutboxMessage",
    "Partner",
    "PartnerAuditEntry",
    "PartnerContact",
    "PartnerDirectoryState",
    "PartnerPromotion",
    "PortalSession",
    "Referral",
    "ServiceRequest",
    "ServiceRequestEvent",
    "WebhookEndpoint",
]
