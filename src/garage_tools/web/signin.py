"""Who is signed in to the service's pages: magic links, sessions and their form tokens, for several audiences.

A person proves an address by opening a link mailed to it. The link carries 256 random bits; only their
SHA-256 is stored, it works once and for `LINK_LIFETIME`. Opening it (GET) only shows a button, because
mail scanners fetch links; pressing the button (POST) spends it and opens a session. The session id lives
in a cookie and, hashed, in the store, so sessions survive restarts and work across processes.

One machinery serves every kind of person who signs in, each an `Audience`: developers (the portal,
where any address may get a link: there is no separate sign-up) and partners (their console, where only
an address a partner gave us gets one). A link and its session belong to one audience, so a link mailed
for one set of pages never opens another's. A link may carry the local page its reader came from (an
authorization waiting for them to sign in), and brings them back there; nothing else is accepted as a
return address. Requests are throttled per address and per client IP; the answer never tells whether an
address is known or a request was throttled, nor does its timing (the work is done after the answer), and a
throttled request sends nothing.

Forms are protected by synchronizer tokens: once signed in, the token is an HMAC of the session id
(nothing to store, and it dies with the session); before that, a random cookie the form must repeat
(`web/forms.py` `DoubleSubmit`). Both are checked on every POST, next to an `Origin` check.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.access.client_ip import rate_limit_partition
from garage_tools.access.limits import Limits
from garage_tools.access.ratelimit import RateLimiter
from garage_tools.access.tokens import new_secret, secret_hash
from garage_tools.lifetime import Background
from garage_tools.mail import Mail, Outbox
from garage_tools.models import is_email_address
from garage_tools.store.portal import DEVELOPER, PARTNER, PortalRepository

log = logging.getLogger(__name__)

LINK_LIFETIME = timedelta(minutes=15)
SESSION_LIFETIME = timedelta(days=7)
#: The rules of `access/limits.py` a link request counts against: per client address, per e-mail address.
LINKS_PER_IP, LINKS_PER_ADDRESS = "sign-in-ip", "sign-in-address"
MAX_TOKEN = 128  # longer than any token we make: refused before it reaches the store

_CSRF_LABEL = b"garage-tools portal csrf"


@dataclass(frozen=True, slots=True)
class Audience:
    """One kind of person who signs in, and where their pages live.

    `home` is where a fresh sign-in lands; `returns` the local path prefixes a link may bring its reader
    back to instead (each starts with `/`).
    """

    name: str
    home: str
    returns: tuple[str, ...] = ()

    def return_path(self, path: str | None) -> str | None:
        """`path` when it is a local page of this audience's a link may return to; otherwise None.

        Only a plain absolute path is taken: no scheme or host, no `//` (another host to a browser), no
        backslash (read as a slash by some), nothing that is not printable.
        """
        if not path or len(path) > 500 or not path.startswith("/") or path.startswith("//"):
            return None
        if "\\" in path or not path.isprintable() or not path.isascii():
            return None
        return path if any(path.startswith(prefix) for prefix in self.returns) else None


#: Developers: the portal's dashboard, or the portal page that sent them to sign in.
DEVELOPERS = Audience(DEVELOPER, home="/developers/dashboard", returns=("/developers/",))

#: Partners: their console. Only an address a partner gave us gets a link (`SignIn`'s `admits`).
PARTNERS = Audience(PARTNER, home="/partners", returns=("/partners/",))

#: Whether an address may be sent a link (every address, when a `SignIn` is given none).
Admits = Callable[[str], Awaitable[bool]]


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
    """A session just opened: `session_id` goes into the cookie and nowhere else; `landing` is where to go."""

    session_id: str
    email: str
    landing: str


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in person, as their session cookie shows them."""

    email: str
    csrf_token: str
    expires_at: datetime


class SignIn:
    """Magic-link sign-in and sessions for one audience's pages."""

    def __init__(
        self,
        store: PortalRepository,
        limiter: RateLimiter,
        outbox: Outbox,
        audience: Audience = DEVELOPERS,
        admits: Admits | None = None,
        limits: Limits | None = None,
        background: Background | None = None,
    ) -> None:
        self.store = store
        self.limiter = limiter
        self.limits = limits or Limits.defaults()
        self.outbox = outbox
        self.audience = audience
        self.admits = admits
        self.background = background or Background()

    def request_link_later(
        self, email: str, ip: str | None, compose: Callable[[str], Mail], return_to: str | None = None
    ) -> None:
        """`request_link`, after the answer: what an address costs (the budgets, whether it is admitted, the
        stored link and the queued mail) must not show in how long the answer takes, or its timing would
        tell which addresses are known."""
        self.background.start(self.request_link(email, ip, compose, return_to), f"{self.audience.name} sign-in link")

    async def request_link(
        self, email: str, ip: str | None, compose: Callable[[str], Mail], return_to: str | None = None
    ) -> bool:
        """Mail a fresh link to `email` unless throttled; True when one was queued.

        `compose` turns the token into the message; `return_to`, if it is a page the audience may return
        to, is where the link brings its reader after signing in. Callers answer the same either way. The
        per-IP budget is checked first, so a flood from one address spends nobody's per-address budget.
        """
        by_ip = await self.limiter.check(f"ip:{rate_limit_partition(ip)}", [self.limits.policy(LINKS_PER_IP)])
        if not by_ip.allowed:
            log.warning("sign-in link not sent: too many requests from %s", ip)
            return False
        # Hashed: the limiter's keys (in Redis, perhaps) need not hold addresses.
        by_address = await self.limiter.check(
            f"address:{secret_hash(email)[:32]}", [self.limits.policy(LINKS_PER_ADDRESS)]
        )
        if not by_address.allowed:
            log.warning("sign-in link not sent: too many requests for one address (last from %s)", ip)
            return False
        if self.admits is not None and not await self.admits(email):
            # Checked after the budgets, so an unknown address costs what a known one does.
            log.info("sign-in link not sent: the address is not one of the %s audience's", self.audience.name)
            return False
        token = new_secret()
        mail = compose(token)

        async def enqueue(session: AsyncSession) -> None:
            await self.outbox.enqueue(session, mail)

        await self.store.add_login_token(
            email=email,
            token_hash=secret_hash(token),
            lifetime=LINK_LIFETIME,
            request_ip=ip,
            audience=self.audience.name,
            return_to=self.audience.return_path(return_to),
            also=enqueue,
        )
        return True

    async def link_usable(self, token: str) -> bool:
        """Whether a link would sign in now; looking does not use it up."""
        return len(token) <= MAX_TOKEN and await self.store.login_token_usable(secret_hash(token), self.audience.name)

    async def sign_in(self, token: str, previous_session_id: str | None = None) -> SignedIn | None:
        """Spend the link and open a new session (ending the browser's previous one); None if the link
        is unknown, used, expired or another audience's."""
        if len(token) > MAX_TOKEN:
            return None
        session_id = new_secret()
        spent = await self.store.sign_in(
            token_hash=secret_hash(token),
            session_hash=secret_hash(session_id),
            session_lifetime=SESSION_LIFETIME,
            audience=self.audience.name,
            replaces=secret_hash(previous_session_id) if previous_session_id else None,
        )
        if spent is None:
            return None
        landing = self.audience.return_path(spent.return_to) or self.audience.home
        return SignedIn(session_id, spent.email, landing)

    async def session(self, session_id: str | None) -> Session | None:
        """The person a session cookie belongs to, or None when it is missing, unknown, expired or another
        audience's."""
        if not session_id or len(session_id) > MAX_TOKEN:
            return None
        record = await self.store.session(secret_hash(session_id), self.audience.name)
        if record is None:
            return None
        return Session(record.email, csrf_token_for(session_id), record.expires_at)

    async def sign_out(self, session_id: str) -> None:
        await self.store.end_session(secret_hash(session_id))
