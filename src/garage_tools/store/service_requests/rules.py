"""The statuses of a service request and who may move it between them: written once, here."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    RECEIVED = "received"  # new: waiting for the partner it is offered to
    ACCEPTED = "accepted"  # the partner will come, in `arrival_from`..`arrival_until`
    DECLINED = "declined"  # the partner cannot take it (and nobody else serves the ZIP code)
    DONE = "done"
    LOST = "lost"  # the partner marked it lost (the homeowner went elsewhere, could not be reached)
    CANCELLED = "cancelled"  # by the homeowner


class Actor(StrEnum):
    HOMEOWNER = "homeowner"
    PARTNER = "partner"
    SYSTEM = "system"


#: Which status each actor may move a request to, from which: the one rule. Accepting again changes the window.
ALLOWED: dict[Actor, dict[Status, frozenset[Status]]] = {
    Actor.HOMEOWNER: {
        Status.RECEIVED: frozenset({Status.CANCELLED}),
        Status.ACCEPTED: frozenset({Status.CANCELLED}),
    },
    Actor.PARTNER: {
        Status.RECEIVED: frozenset({Status.ACCEPTED, Status.DECLINED, Status.DONE, Status.LOST}),
        Status.ACCEPTED: frozenset({Status.ACCEPTED, Status.DECLINED, Status.DONE, Status.LOST}),
    },
    Actor.SYSTEM: {  # re-routing: a declined or unanswered request offered to the next partner
        Status.RECEIVED: frozenset({Status.RECEIVED}),
        Status.DECLINED: frozenset({Status.RECEIVED}),
    },
}
OPEN = frozenset({Status.RECEIVED, Status.ACCEPTED})

CREATED, UPDATED, CANCELLED = "request.created", "request.updated", "request.cancelled"


def may(actor: Actor, current: Status, to: Status) -> bool:
    return to in ALLOWED[actor].get(current, frozenset())


class RequestNotFound(LookupError):
    """No such request, or not one this partner or token may see."""


class TransitionRefused(ValueError):
    """The change is not allowed from the request's status (a cancelled request cannot be accepted)."""

    def __init__(self, current: Status, to: Status) -> None:
        super().__init__(f"a {current.value} request cannot become {to.value}")
        self.current = current
        self.to = to


class DuplicateIdempotencyKey(Exception):
    """Another request already holds this Idempotency-Key (a concurrent retry won the race)."""
