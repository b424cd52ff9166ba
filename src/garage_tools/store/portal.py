"""Sign-in persistence: magic sign-in links, developers and browser sessions.

Links and sessions carry an audience (whose pages they open: "developer" for the portal, "partner" for a
partner's console), and a link may carry the local page to return to. Only hashes of the link tokens and
session ids are stored; this module never sees a plaintext secret. Every comparison with the current time
uses the repository's `clock`, not the database's, so tests can step past an expiry instead of waiting for
it, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.store.database import Database
from garage_tools.store.models import Developer, LoginToken, PortalSession
from garage_tools.store.moments import as_utc

Clock = Callable[[], datetime]
#: Work to do in the same transaction as a new link (the e-mail that carries it).
InTransaction = Callable[[AsyncSession], Awaitable[object]]

#: Spent and expired rows are kept this long (for an operator looking into a complaint), then purged.
KEEP_SPENT = timedelta(days=1)


def utc_now() -> datetime:
    return datetime.now(UTC)


#: The audience whose first sign-in makes a developer account (the portal's keys hang on it).
DEVELOPER = "developer"
#: The audience of partners' consoles: their addresses are in the directory (`partner_contacts`).
PARTNER = "partner"


@dataclass(frozen=True, slots=True)
class SessionRecord:
    email: str
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class SpentLink:
    """Who a link just signed in, and the page it was made to return to (None: the audience's home)."""

    email: str
    return_to: str | None


class PortalRepository:
    def __init__(self, database: Database, clock: Clock = utc_now) -> None:
        self._db = database
        self.clock = clock

    async def add_login_token(
        self,
        *,
        email: str,
        token_hash: str,
        lifetime: timedelta,
        request_ip: str | None,
        audience: str = DEVELOPER,
        return_to: str | None = None,
        also: InTransaction | None = None,
    ) -> None:
        """Store a new link for `email`, and run `also` in the same transaction (so link and mail go together)."""
        now = self.clock()
        async with self._db.session() as session, session.begin():
            await session.execute(delete(LoginToken).where(LoginToken.expires_at < now - KEEP_SPENT))
            session.add(
                LoginToken(
                    token_hash=token_hash,
                    email=email,
                    created_at=now,
                    expires_at=now + lifetime,
                    request_ip=request_ip[:45] if request_ip else None,
                    audience=audience,
                    return_to=return_to,
                )
            )
            if also is not None:
                await also(session)

    async def login_token_usable(self, token_hash: str, audience: str = DEVELOPER) -> bool:
        """Whether the link would sign someone in to `audience`'s pages now (without using it up)."""
        async with self._db.session() as session:
            found = await session.scalar(
                select(LoginToken.id).where(
                    LoginToken.token_hash == token_hash,
                    LoginToken.audience == audience,
                    LoginToken.used_at.is_(None),
                    LoginToken.expires_at > self.clock(),
                )
            )
        return found is not None

    async def sign_in(
        self,
        *,
        token_hash: str,
        session_hash: str,
        session_lifetime: timedelta,
        audience: str = DEVELOPER,
        replaces: str | None = None,
    ) -> SpentLink | None:
        """Use up a link of `audience` and open a session for its address, in one transaction; None when the
        link is unknown, spent, expired or made for another audience's pages.

        The link is spent by one conditional UPDATE, so of two concurrent attempts exactly one wins.
        The address's other outstanding links for the same pages are spent with it, and `replaces` (the
        session the browser held before, if any) is ended: a sign-in always starts a fresh session id.
        """
        now = self.clock()
        async with self._db.session() as session, session.begin():
            spent = (
                await session.execute(
                    update(LoginToken)
                    .where(
                        LoginToken.token_hash == token_hash,
                        LoginToken.audience == audience,
                        LoginToken.used_at.is_(None),
                        LoginToken.expires_at > now,
                    )
                    .values(used_at=now)
                    .returning(LoginToken.email, LoginToken.return_to),
                    execution_options={"synchronize_session": False},
                )
            ).first()
            if spent is None:
                return None
            email, return_to = spent
            await session.execute(
                update(LoginToken)
                .where(LoginToken.email == email, LoginToken.audience == audience, LoginToken.used_at.is_(None))
                .values(used_at=now)
                .execution_options(synchronize_session=False)
            )
            if audience == DEVELOPER:
                await self._record_sign_in(session, email, now)
            stale = PortalSession.expires_at <= now
            if replaces is not None:
                stale = stale | (PortalSession.id_hash == replaces)
            await session.execute(delete(PortalSession).where(stale))
            session.add(
                PortalSession(
                    id_hash=session_hash,
                    email=email,
                    created_at=now,
                    expires_at=now + session_lifetime,
                    audience=audience,
                )
            )
        return SpentLink(str(email), return_to)

    async def _record_sign_in(self, session: AsyncSession, email: str, now: datetime) -> None:
        # An upsert: two first sign-ins of one address at the same moment must not collide.
        insert = sqlite_insert if self._db.is_sqlite else postgresql_insert
        statement = insert(Developer).values(email=email, created_at=now, last_sign_in_at=now)
        await session.execute(
            statement.on_conflict_do_update(index_elements=[Developer.email], set_={"last_sign_in_at": now})
        )

    async def session(self, session_hash: str, audience: str = DEVELOPER) -> SessionRecord | None:
        """The live session of `audience` with this id hash, or None (unknown, ended, expired or another's)."""
        async with self._db.session() as session:
            row = await session.scalar(
                select(PortalSession).where(
                    PortalSession.id_hash == session_hash,
                    PortalSession.audience == audience,
                    PortalSession.expires_at > self.clock(),
                )
            )
            if row is None:
                return None
            return SessionRecord(row.email, as_utc(row.created_at), as_utc(row.expires_at))

    async def end_session(self, session_hash: str) -> None:
        async with self._db.session() as session, session.begin():
            await session.execute(delete(PortalSession).where(PortalSession.id_hash == session_hash))

    async def developer_since(self, email: str) -> datetime | None:
        """When `email` first signed in, or None if it never has."""
        async with self._db.session() as session:
            created = await session.scalar(select(Developer.created_at).where(Developer.email == email))
        return as_utc(created) if created else None
