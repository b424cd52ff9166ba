"""OAuth persistence: registered clients, grants and the hashes of their codes and tokens.

This module keeps rows and makes each change atomic (a code or refresh token is spent by one conditional
UPDATE, so of two concurrent uses exactly one wins); what a grant or token may do is decided in
`access/oauth.py`. Like the portal's repository, every comparison with the time uses `clock`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.inputs import shown
from garage_tools.store.database import Database
from garage_tools.store.models import OAuthClient, OAuthGrant, OAuthToken
from garage_tools.store.moments import as_utc
from garage_tools.store.portal import Clock, utc_now


class _Lost(Exception):
    """A code or refresh token was spent already: roll its exchange back."""


CODE = "code"
ACCESS = "access"
REFRESH = "refresh"


@dataclass(frozen=True, slots=True)
class ClientRecord:
    id: str
    name: str
    redirect_uris: list[str]
    document: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GrantRecord:
    """An authorization request and, once allowed, the connected app it became."""

    id: str
    client_id: str
    email: str | None
    redirect_uri: str
    redirect_uri_explicit: bool
    code_challenge: str
    state: str | None
    scope: str
    resource: str
    created_at: datetime
    expires_at: datetime
    allowed_at: datetime | None
    revoked_at: datetime | None
    client_name: str = ""
    plan: str | None = None  # its own plan; None: the default plan (`access/limits.py`)

    @property
    def live(self) -> bool:
        """Allowed and not revoked: its tokens work."""
        return self.allowed_at is not None and self.revoked_at is None


@dataclass(frozen=True, slots=True)
class TokenRecord:
    kind: str
    grant: GrantRecord
    expires_at: datetime
    used_at: datetime | None
    successor: bytes | None = None  # a rotated refresh token's replacements, sealed under it


@dataclass(frozen=True, slots=True)
class NewToken:
    token_hash: str
    kind: str
    lifetime: timedelta


def _grant(row: OAuthGrant, client_name: str = "") -> GrantRecord:
    return GrantRecord(
        id=row.id,
        client_id=row.client_id,
        email=row.email,
        redirect_uri=row.redirect_uri,
        redirect_uri_explicit=row.redirect_uri_explicit,
        code_challenge=row.code_challenge,
        state=row.state,
        scope=row.scope,
        resource=row.resource,
        created_at=as_utc(row.created_at),
        expires_at=as_utc(row.expires_at),
        allowed_at=as_utc(row.allowed_at) if row.allowed_at else None,
        revoked_at=as_utc(row.revoked_at) if row.revoked_at else None,
        client_name=shown(client_name),
        plan=row.plan,
    )


#: How often a process sweeps away requests nobody answered, as new ones come (`data purge` does it too).
SWEEP_EVERY = timedelta(minutes=1)


class OAuthRepository:
    def __init__(self, database: Database, clock: Clock = utc_now) -> None:
        self._db = database
        self.clock = clock
        self._swept_at: datetime | None = None

    async def add_client(self, client_id: str, name: str, redirect_uris: list[str], document: dict[str, Any]) -> None:
        async with self._db.session() as session, session.begin():
            session.add(
                OAuthClient(
                    id=client_id, name=name, redirect_uris=redirect_uris, document=document, created_at=self.clock()
                )
            )

    async def client(self, client_id: str) -> ClientRecord | None:
        async with self._db.session() as session:
            row = await session.get(OAuthClient, client_id)
            return ClientRecord(row.id, shown(row.name), list(row.redirect_uris), dict(row.document)) if row else None

    async def add_grant(self, grant: GrantRecord) -> None:
        """Store a pending authorization request (allowed_at and revoked_at are not taken from `grant`); first,
        once every `SWEEP_EVERY`, delete the requests that expired unanswered (or denied), which hold no token."""
        now = self.clock()
        sweep = self._swept_at is None or now - self._swept_at >= SWEEP_EVERY
        async with self._db.session() as session, session.begin():
            if sweep:
                self._swept_at = now
                await session.execute(
                    delete(OAuthGrant)
                    .where(OAuthGrant.allowed_at.is_(None), OAuthGrant.expires_at <= now)
                    .execution_options(synchronize_session=False)
                )
            session.add(
                OAuthGrant(
                    id=grant.id,
                    client_id=grant.client_id,
                    redirect_uri=grant.redirect_uri,
                    redirect_uri_explicit=grant.redirect_uri_explicit,
                    code_challenge=grant.code_challenge,
                    state=grant.state,
                    scope=grant.scope,
                    resource=grant.resource,
                    created_at=grant.created_at,
                    expires_at=grant.expires_at,
                )
            )

    async def grant(self, grant_id: str) -> GrantRecord | None:
        """The grant with this id and its client's name, whatever its state."""
        async with self._db.session() as session:
            row = (
                await session.execute(
                    select(OAuthGrant, OAuthClient.name)
                    .join(OAuthClient, OAuthClient.id == OAuthGrant.client_id)
                    .where(OAuthGrant.id == grant_id)
                )
            ).first()
            return _grant(row[0], row[1]) if row else None

    async def decide(self, grant_id: str, email: str | None, code: NewToken | None) -> bool:
        """Allow a pending grant for `email` and store its code, or (no email) deny it; False when it was not
        pending any more (decided, revoked or expired)."""
        now = self.clock()
        values: dict[str, Any] = {"email": email, "allowed_at": now} if email else {"revoked_at": now}
        async with self._db.session() as session, session.begin():
            decided = await session.execute(
                update(OAuthGrant)
                .where(
                    OAuthGrant.id == grant_id,
                    OAuthGrant.allowed_at.is_(None),
                    OAuthGrant.revoked_at.is_(None),
                    OAuthGrant.expires_at > now,
                )
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            if decided.rowcount != 1:  # type: ignore[attr-defined]
                return False
            if code is not None:
                session.add(self._token_row(grant_id, code, now))
        return True

    async def token(self, token_hash: str, kind: str) -> TokenRecord | None:
        """The code or token of `kind` with this hash and its grant, spent, expired or not."""
        async with self._db.session() as session:
            row = (
                await session.execute(
                    select(OAuthToken, OAuthGrant)
                    .join(OAuthGrant, OAuthGrant.id == OAuthToken.grant_id)
                    .where(OAuthToken.token_hash == token_hash, OAuthToken.kind == kind)
                )
            ).first()
            if row is None:
                return None
            token, grant = row
            return TokenRecord(
                kind=token.kind,
                grant=_grant(grant),
                expires_at=as_utc(token.expires_at),
                used_at=as_utc(token.used_at) if token.used_at else None,
                successor=token.successor,
            )

    async def exchange(
        self, spent_hash: str, grant_id: str, issued: Sequence[NewToken], successor: bytes | None = None
    ) -> bool:
        """Spend a code or refresh token (keeping `successor` on it) and store what replaces it, in one
        transaction; False when it was already spent (a concurrent use won) or its grant is no longer live."""
        now = self.clock()
        try:
            async with self._db.session() as session, session.begin():
                await self._spend_and_issue(session, spent_hash, grant_id, issued, now, successor)
        except _Lost:
            return False
        return True

    async def _spend_and_issue(
        self,
        session: AsyncSession,
        spent_hash: str,
        grant_id: str,
        issued: Sequence[NewToken],
        now: datetime,
        successor: bytes | None,
    ) -> None:
        """The body of `exchange`; raises `_Lost` (rolling the transaction back) when the token was spent."""
        spent = await session.execute(
            update(OAuthToken)
            .where(OAuthToken.token_hash == spent_hash, OAuthToken.used_at.is_(None))
            .values(used_at=now, successor=successor)
            .execution_options(synchronize_session=False)
        )
        live = await session.scalar(
            select(OAuthGrant.id).where(
                OAuthGrant.id == grant_id, OAuthGrant.allowed_at.is_not(None), OAuthGrant.revoked_at.is_(None)
            )
        )
        if spent.rowcount != 1 or live is None:  # type: ignore[attr-defined]
            raise _Lost
        session.add_all([self._token_row(grant_id, token, now) for token in issued])

    async def revoke(self, grant_id: str, email: str | None = None) -> GrantRecord | None:
        """Revoke a grant and with it every token of its family (only `email`'s when given); idempotent.

        None if there is no such grant (or it is someone else's)."""
        async with self._db.session() as session, session.begin():
            row = await session.get(OAuthGrant, grant_id)
            if row is None or (email is not None and row.email != email):
                return None
            if row.revoked_at is None:
                row.revoked_at = self.clock()
            return _grant(row)

    async def set_plan(self, grant_id: str, plan: str | None) -> GrantRecord | None:
        """Put a connected app on `plan` (None: back to the default plan); None if there is no such grant."""
        async with self._db.session() as session, session.begin():
            row = await session.get(OAuthGrant, grant_id)
            if row is None:
                return None
            row.plan = plan
            return _grant(row)

    async def connected(self, email: str | None) -> list[GrantRecord]:
        """The live grants of `email` (everyone's: None) with their clients' names, newest first."""
        query = (
            select(OAuthGrant, OAuthClient.name)
            .join(OAuthClient, OAuthClient.id == OAuthGrant.client_id)
            .where(OAuthGrant.allowed_at.is_not(None), OAuthGrant.revoked_at.is_(None))
            .order_by(OAuthGrant.allowed_at.desc(), OAuthGrant.id)
        )
        if email is not None:
            query = query.where(OAuthGrant.email == email)
        async with self._db.session() as session:
            rows = await session.execute(query)
            return [_grant(grant, name) for grant, name in rows.all()]

    def _token_row(self, grant_id: str, token: NewToken, now: datetime) -> OAuthToken:
        return OAuthToken(
            token_hash=token.token_hash,
            grant_id=grant_id,
            kind=token.kind,
            created_at=now,
            expires_at=now + token.lifetime,
        )
