"""Service requests: the rules of their statuses, what one is, and the repository that creates and changes them
(see `repository.py` for the events its one hook receives)."""

from __future__ import annotations

from garage_tools.store.service_requests.records import (
    Change,
    Created,
    EventHook,
    HistoryEntry,
    NewRequest,
    Offer,
    OnCreate,
    RequestEvent,
    StoredRequest,
    Window,
    token_hash,
)
from garage_tools.store.service_requests.repository import ServiceRequestRepository
from garage_tools.store.service_requests.rules import (
    ALLOWED,
    CANCELLED,
    CREATED,
    OPEN,
    UPDATED,
    Actor,
    DuplicateIdempotencyKey,
    RequestNotFound,
    Status,
    TransitionRefused,
    may,
)

__all__ = [
    "ALLOWED",
    "CANCELLED",
    "CREATED",
    "OPEN",
    "UPDATED",
    "Actor",
    "Change",
    "Created",
    "DuplicateIdempotencyKey",
    "EventHook",
    "HistoryEntry",
    "NewRequest",
    "Offer",
    "OnCreate",
    "RequestEvent",
    "RequestNotFound",
    "ServiceRequestRepository",
    "Status",
    "StoredRequest",
    "TransitionRefused",
    "Window",
    "may",
    "token_hash",
]
