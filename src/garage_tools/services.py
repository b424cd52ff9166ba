"""The long-lived parts every surface shares, built once per process.

Everything here is stateless beyond connection pools and short caches, so any number of
processes can run side by side against one database (and one Redis for rate limits).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from garage_tools.access.caller import Caller
from garage_tools.access.challenge import ChallengeVerifier
from garage_tools.access.keys import KeyCache, KeyService
from garage_tools.access.ratelimit import RateLimiter
from garage_tools.knowledge.loader import Knowledge, load_knowledge
from garage_tools.knowledge.photos import PhotoLibrary, load_photo_library
from garage_tools.languages import from_accept_language
from garage_tools.lifetime import Background
from garage_tools.mail.outbox import Outbox
from garage_tools.partners.business_hours import business_hours
from garage_tools.partners.service import Partners
from garage_tools.providers.factory import build_models
from garage_tools.registry import ToolContext, ToolData
from garage_tools.settings import Settings
from garage_tools.store.api_keys import ApiKeyRepository
from garage_tools.store.database import Database
from garage_tools.store.secret_key import secrets_key
from garage_tools.store.webhooks import WebhookRepository

if TYPE_CHECKING:
    from garage_tools.access.oauth import OAuthService
    from garage_tools.access.usage import UsageCounter

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Services:
    settings: Settings
    knowledge: Knowledge
    database: Database
    keys: KeyService
    limiter: RateLimiter
    challenge: ChallengeVerifier
    outbox: Outbox
    photos: PhotoLibrary  # read and checked here, so a bad operator manifest stops start-up
    background: Background = field(default_factory=Background)  # work requests leave running

    @functools.cached_property
    def tool_data(self) -> ToolData:
        """The stores handlers use, built once: a new field of `ToolData` is filled in here."""
        return ToolData(
            database=self.database,
            outbox=self.outbox,
            partners=Partners.over(
                self.database,
                refresh_seconds=self.settings.partner_refresh_seconds,
                outbox=self.outbox,
                knowledge=self.knowledge,
                response_hours=self.settings.request_response_hours,
                business_hours=business_hours(self.settings.request_business_hours),
                limit_per_contact=self.settings.request_limit_per_contact,
            ),
            models=build_models(self.settings),
            photos=self.photos,
        )

    @functools.cached_property
    def webhooks(self) -> WebhookRepository:
        """Partners' webhook endpoints and deliveries; signing secrets sealed under the secrets key."""
        return WebhookRepository(self.database, secrets_key(self.settings))

    @functools.cached_property
    def oauth(self) -> OAuthService:
        """OAuth 2.1 clients, grants and tokens for /mcp-pro, built on first use: it loads the MCP SDK's auth
        models, which the commands that do not serve should not pay for at start-up."""
        from garage_tools.access.oauth import OAuthService
        from garage_tools.store.oauth import OAuthRepository

        return OAuthService(OAuthRepository(self.database), KeyCache(ttl=self.settings.key_cache_seconds))

    @functools.cached_property
    def usage(self) -> UsageCounter:
        """Each key's calls per day, counted in memory and written in batches (`access/usage.py`)."""
        from garage_tools.access.usage import UsageCounter
        from garage_tools.store.usage import UsageRepository

        return UsageCounter(UsageRepository(self.database), self.settings.usage_flush_seconds)

    def tool_context(
        self,
        caller: Caller,
        base_url: str,
        idempotency_key: str | None = None,
        accept_language: str = "",
    ) -> ToolContext:
        """The context a handler runs with: built here, the one place, for every surface and the CLI.
        `accept_language` is the request's header: the language it prefers is a hint for tools that answer in
        words (languages.py reads it, as the pages do)."""
        preferred = from_accept_language(accept_language) if accept_language else None  # most calls send none
        return ToolContext(
            knowledge=self.knowledge,
            caller=caller,
            base_url=base_url,
            data=self.tool_data,
            idempotency_key=idempotency_key,
            languages=(preferred,) if preferred else (),
        )

    async def start(self) -> None:
        if self.settings.auto_migrate:
            await self.database.migrate()
        log.info("%s", self.challenge.describe())
        log.info("rate limits: counted in %s", "Redis" if self.limiter.backend == "redis" else "process memory")
        log.info("%s", self.tool_data.models.describe())
        self.usage.start()

    async def close(self) -> None:
        await self.background.drain()  # before anything it may use closes
        await self.tool_data.partners.close()  # leads still waiting are written before the store closes
        await self.tool_data.models.aclose()
        await self.keys.drain()
        await self.usage.close()  # the day's counts so far are written before the store closes
        await self.challenge.aclose()
        await self.limiter.close()
        await self.database.dispose()


def build_services(settings: Settings) -> Services:
    """Load and check the knowledge base and open the database (no I/O beyond reading data files)."""
    database = Database(settings.db_url)
    shared = None
    if settings.redis_url:
        from garage_tools.access.redis_counters import RedisCounters  # the Redis client loads only when used

        shared = RedisCounters(settings.redis_url, prefix=settings.redis_key_prefix)
    return Services(
        settings=settings,
        knowledge=load_knowledge(),
        database=database,
        keys=KeyService(ApiKeyRepository(database), KeyCache(ttl=settings.key_cache_seconds)),
        limiter=RateLimiter(shared),
        challenge=ChallengeVerifier.from_settings(settings),
        outbox=Outbox.from_settings(database, settings),
        photos=load_photo_library(settings.reference_photos_manifest),
    )
