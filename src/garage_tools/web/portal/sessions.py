"""Who is signed in to the developer portal: magic links, sessions and CSRF tokens.

A developer proves an address by opening a link mailed to it. The link carries 256 random bits;
only their SHA-256 is stored, it works once and for `LINK_LIFETIME`. Opening it (GET) only shows
a button, because mail scanners fetch links; pressing the button (POST) spends it and opens a
session. The session id lives in a cookie and, hashed, in the store, so sessions survive restarts
and work across processes. Every address that asks gets a link (there is no separate sign-up), so
the answer never tells whether an address is known; requests are throttled per address and per
client IP, and a throttled request looks the same from outside but sends nothing.

Forms are protected by synchronizer tokens: once signed in, the token is an HMAC of the session
id (nothing to store, and it dies with the session); before that, a random cookie that the form
must repeat (double submit). Both are checked on every POST, next to an `Origin` check.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.access.client_ip import rate_limit_partition
from garage_tools.access.ratelimit import Policy, RateLimiter
from garage_tools.access.tokens import new_secret, secret_hash
from garage_tools.mail import Mail, Outbox
from garage_tools.models import is_email_address
from garage_tools.store.portal import PortalRepository

log = logging.getLogger(__name__)

LINK_LIFETIME = timedelta(minutes=15)
SESSION_LIFETIME = timedelta(days=7)
LINKS_PER_ADDRESS = Policy.parse("portal-link-address", "3 per 15 minutes")
LINKS_PER_IP = Policy.parse("portal-link-ip", "10/hour")

_CSRF_LABEL = b"garage-tools portal csrf"


def csrf_token_for(session_id: str) -> str:
    """The form token of a session: derived from its id, so it needs no storage and ends with it."""
    return hmac.new(session_id.encode(), _CSRF_LABEL, hashlib.sha256).hexdigest()


def normalise_email(text: str) -> str | None:
    """The address in the form it is stored and throttled under (trimmed, lower case), or None if it breaks
    the service's e-mail rule (`garage_tools.models.is_email_address`, the one submitInspection applies)."""
    address = text.strip().lower()
    return address if is_email_address(address) else None


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A session just opened: `session_id` goes into the cookie and nowhere else."""

    session_id: str
    email: str


@dataclass(frozen=True, slots=True)
class DeveloperSession:
    email: str
    csrf_token: str
    expires_at: datetime


class DeveloperSignIn:
    """Magic-link sign-in and sessions for the developer portal."""

    def __init__(self, store: PortalRepository, limiter: RateLimiter, outbox: Outbox) -> None:
        self.store = store
        self.limiter = limiter
        self.outbox = outbox

    async def request_link(self, email: str, ip: str | None, compose: Callable[[str], Mail]) -> bool:
        """Mail a fresh link to `email` unless throttled; True when one was queued.

        `compose` turns the token into the message. Callers answer the same either way. The
        per-IP budget is checked first, so a flood from one address spends nobody's per-address budget.
        """
        by_ip = await self.limiter.check(f"ip:{rate_limit_partition(ip)}", [LINKS_PER_IP])
        if not by_ip.allowed:
            log.warning("sign-in link not sent: too many requests from %s", ip)
            return False
        # Hashed: the limiter's keys (in Redis, perhaps) need not hold addresses.
        by_address = await self.limiter.check(f"address:{secret_hash(email)[:32]}", [LINKS_PER_ADDRESS])
        if not by_address.allowed:
            log.warning("sign-in link not sent: too many requests for one address (last from %s)", ip)
            return False
        token = new_secret()
        mail = compose(token)

        async def enqueue(session: AsyncSession) -> None:
            await self.outbox.enqueue(session, mail)

        await self.store.add_login_token(
            email=email, token_hash=secret_hash(token), lifetime=LINK_LIFETIME, request_ip=ip, also=enqueue
        )
        return True

    async def link_usable(self, token: str) -> bool:
        """Whether a link would sign in now; looking does not use it up."""
        return await self.store.login_token_usable(secret_hash(token))

    async def sign_in(self, token: str, previous_session_id: str | None = None) -> SignedIn | None:
        """Spend the link and open a new session (ending the browser's previous one); None if the link
        is unknown, used or expired."""
        session_id = new_secret()
        email = await self.store.sign_in(
            token_hash=secret_hash(token),
            session_hash=secret_hash(session_id),
            session_lifetime=SESSION_LIFETIME,
            replaces=secret_hash(previous_session_id) if previous_session_id else None,
        )
        return SignedIn(session_id, email) if email is not None else None

    async def session(self, session_id: str | None) -> DeveloperSession | None:
        """The developer a session cookie belongs to, or None when it is missing, unknown or expired."""
        if not session_id:
            return None
        record = await self.store.session(secret_hash(session_id))
        if record is None:
            return None
        return DeveloperSession(record.email, csrf_token_for(session_id), record.expires_at)

    async def sign_out(self, session_id: str) -> None:
        await self.store.end_session(secret_hash(session_id))
