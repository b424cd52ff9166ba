"""Who may call, and how: API keys, developers' sign-in, OAuth clients, grants and tokens, and keys' daily use."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Date, DateTime, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from garage_tools.store.models.base import Base


class ApiKey(Base):
    """An API key. Only a SHA-256 hash of the secret is stored; the plaintext is shown once."""

    __tablename__ = "api_keys"
    # Keys are found by the hash of the whole key (see access/keys.py), so this index is the lookup path.
    __table_args__ = (Index("uq_api_keys_secret_hash", "secret_hash", unique=True),)

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    owner_email: Mapped[str] = mapped_column(String(320), index=True)
    name: Mapped[str] = mapped_column(String(100))
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    plan: Mapped[str | None] = mapped_column(String(32), default=None)  # None: the default plan (settings)


class Developer(Base):
    """Someone who has signed in to the developer portal; the first sign-in creates the row."""

    __tablename__ = "developers"

    email: Mapped[str] = mapped_column(String(320), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_sign_in_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LoginToken(Base):
    """A magic sign-in link. Only a SHA-256 of the token is stored; it works once, until `expires_at`."""

    __tablename__ = "login_tokens"
    __table_args__ = (Index("ix_login_tokens_email_used_at", "email", "used_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    email: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    request_ip: Mapped[str | None] = mapped_column(String(45), default=None)
    audience: Mapped[str] = mapped_column(String(16), default="developer", server_default="developer")
    return_to: Mapped[str | None] = mapped_column(String(500), default=None)  # a local path to land on


class PortalSession(Base):
    """A signed-in browser. Keyed by a SHA-256 of the cookie value, so a copy of the table signs nobody in.

    `audience` is whose pages it opens (the developer portal, a partner's console), as its link said."""

    __tablename__ = "portal_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    email: Mapped[str] = mapped_column(String(320), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    audience: Mapped[str] = mapped_column(String(16), default="developer", server_default="developer")


class OAuthClient(Base):
    """An application that registered itself for OAuth (RFC 7591): a public client, no secret.

    `document` is the registration as we answered it, so the client reads back what it registered.
    """

    __tablename__ = "oauth_clients"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    redirect_uris: Mapped[list[str]] = mapped_column(JSON)
    document: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class OAuthGrant(Base):
    """One authorization: pending until the person allows it, then a connected app and its token family.

    Its id is public (the consent page's address, the dashboard's revoke button); revoking it ends every
    code and token issued under it. `expires_at` bounds how long the request waits for a decision.
    """

    __tablename__ = "oauth_grants"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64), index=True)
    email: Mapped[str | None] = mapped_column(String(320), index=True, default=None)
    redirect_uri: Mapped[str] = mapped_column(String(2000))
    redirect_uri_explicit: Mapped[bool] = mapped_column(Boolean)
    code_challenge: Mapped[str] = mapped_column(String(128))
    state: Mapped[str | None] = mapped_column(Text, default=None)
    scope: Mapped[str] = mapped_column(String(100))
    resource: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    allowed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    plan: Mapped[str | None] = mapped_column(String(32), default=None)  # None: the default plan (settings)


class KeyUsage(Base):
    """A key's tool calls on one day (UTC): API keys by id, connected apps as `oauth:<grant id>`."""

    __tablename__ = "key_usage"

    key_id: Mapped[str] = mapped_column(String(48), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    calls: Mapped[int] = mapped_column(Integer)


class OAuthToken(Base):
    """An authorization code, access token or refresh token of a grant; only its SHA-256 is stored.

    `used_at` marks a spent code or a rotated refresh token: presenting one again revokes the grant, unless
    a rotated refresh token comes back within the grace window: `successor` holds the tokens that replaced
    it, sealed under the spent token itself (which the store never holds), so only its holder can read them.
    """

    __tablename__ = "oauth_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    grant_id: Mapped[str] = mapped_column(String(32), ForeignKey("oauth_grants.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    successor: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
