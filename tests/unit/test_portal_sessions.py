"""Magic-link sign-in and portal sessions through the real store, on SQLite and PostgreSQL.

Time comes from a fake clock, so expiry is tested at its exact edge instead of by waiting.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import inspect, select, text

from garage_tools.access.ratelimit import Policy, RateLimiter
from garage_tools.access.tokens import tokens_match
from garage_tools.mail import Mail, Outbox
from garage_tools.mail.message import InvalidMail
from garage_tools.observability.redaction import RedactSecretPaths
from garage_tools.store.database import Database
from garage_tools.store.models import LoginToken, OutboxMessage
from garage_tools.store.portal import PortalRepository
from garage_tools.tools.inspection.models import Recipient
from garage_tools.web.portal.endpoints import CONFIRM_PATH
from garage_tools.web.portal.forms import clean_key_name
from garage_tools.web.signin import Audience, SignIn, csrf_token_for, normalise_email
from tests.databases import migrate_to, throwaway_url
from tests.fakes.clock import FakeClock

LINK = "https://doors.example.com/developers/confirm/"


class Mailed:
    """Composes sign-in mails and remembers the tokens they carried, as the inbox would."""

    def __init__(self) -> None:
        self.tokens: list[str] = []

    def __call__(self, to: str) -> Callable[[str], Mail]:
        def compose(token: str) -> Mail:
            self.tokens.append(token)
            return Mail(to=to, subject="Sign in", text=f"Open {LINK}{token}", kind="magic_link")

        return compose


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sign_in(database: Database, clock: FakeClock) -> SignIn:
    return SignIn(PortalRepository(database, clock), RateLimiter(), Outbox(database, clock=clock))


async def ask(sign_in: SignIn, email: str, ip: str = "192.0.2.1") -> str:
    """Request a link for `email` and return its token."""
    mailed = Mailed()
    assert await sign_in.request_link(email, ip, mailed(email))
    return mailed.tokens[-1]


async def test_the_link_is_stored_hashed_and_queued_with_its_mail(sign_in: SignIn, database: Database) -> None:
    token = await ask(sign_in, "dev@example.com")
    async with database.session() as session:
        rows = (await session.scalars(select(LoginToken))).all()
        mails = (await session.scalars(select(OutboxMessage))).all()
    assert [row.token_hash for row in rows] == [hashlib.sha256(token.encode()).hexdigest()]
    assert all(token not in str(value) for row in rows for value in vars(row).values())
    assert rows[0].email == "dev@example.com" and rows[0].request_ip == "192.0.2.1"
    assert [(m.to_address, m.kind) for m in mails] == [("dev@example.com", "magic_link")]
    assert f"{LINK}{token}" in mails[0].text_body
    assert len(token) >= 43  # 256 random bits, URL-safe


async def test_looking_at_a_link_does_not_use_it(sign_in: SignIn) -> None:
    token = await ask(sign_in, "dev@example.com")
    assert await sign_in.link_usable(token) and await sign_in.link_usable(token)
    signed_in = await sign_in.sign_in(token)
    assert signed_in is not None and signed_in.email == "dev@example.com"
    assert not await sign_in.link_usable(token)


async def test_a_link_works_once(sign_in: SignIn) -> None:
    token = await ask(sign_in, "dev@example.com")
    assert await sign_in.sign_in(token) is not None
    assert await sign_in.sign_in(token) is None


async def test_a_wrong_token_signs_nobody_in(sign_in: SignIn) -> None:
    token = await ask(sign_in, "dev@example.com")
    assert await sign_in.sign_in(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert await sign_in.sign_in("") is None
    assert await sign_in.link_usable(token)


async def test_a_link_expires_after_fifteen_minutes(sign_in: SignIn, clock: FakeClock) -> None:
    early = await ask(sign_in, "early@example.com")
    late = await ask(sign_in, "late@example.com")
    clock.advance(15 * 60 - 1)
    assert await sign_in.sign_in(early) is not None
    clock.advance(1)
    assert not await sign_in.link_usable(late)
    assert await sign_in.sign_in(late) is None


async def test_signing_in_spends_the_addresses_other_links(sign_in: SignIn) -> None:
    first = await ask(sign_in, "dev@example.com")
    second = await ask(sign_in, "dev@example.com")
    other = await ask(sign_in, "other@example.com")
    assert await sign_in.sign_in(second) is not None
    assert await sign_in.sign_in(first) is None
    assert await sign_in.sign_in(other) is not None  # another address's links are untouched


async def test_one_link_used_at_once_opens_one_session(sign_in: SignIn) -> None:
    token = await ask(sign_in, "dev@example.com")
    results = await asyncio.gather(*(sign_in.sign_in(token) for _ in range(5)))
    assert sum(result is not None for result in results) == 1


async def test_a_session_lasts_seven_days(sign_in: SignIn, clock: FakeClock) -> None:
    signed_in = await sign_in.sign_in(await ask(sign_in, "dev@example.com"))
    assert signed_in is not None
    clock.advance(7 * 86400 - 1)
    session = await sign_in.session(signed_in.session_id)
    assert session is not None and session.email == "dev@example.com"
    clock.advance(1)
    assert await sign_in.session(signed_in.session_id) is None


async def test_signing_out_ends_the_session(sign_in: SignIn) -> None:
    signed_in = await sign_in.sign_in(await ask(sign_in, "dev@example.com"))
    assert signed_in is not None
    await sign_in.sign_out(signed_in.session_id)
    assert await sign_in.session(signed_in.session_id) is None
    assert await sign_in.session(None) is None and await sign_in.session("made-up") is None


async def test_signing_in_again_replaces_the_browsers_session(sign_in: SignIn) -> None:
    first = await sign_in.sign_in(await ask(sign_in, "dev@example.com"))
    assert first is not None
    second = await sign_in.sign_in(await ask(sign_in, "dev@example.com"), previous_session_id=first.session_id)
    assert second is not None and second.session_id != first.session_id
    assert await sign_in.session(first.session_id) is None
    assert await sign_in.session(second.session_id) is not None


async def test_the_first_sign_in_creates_the_developer(sign_in: SignIn, clock: FakeClock) -> None:
    assert await sign_in.store.developer_since("dev@example.com") is None
    await sign_in.sign_in(await ask(sign_in, "dev@example.com"))
    joined = clock.now
    clock.advance(3600)
    await sign_in.sign_in(await ask(sign_in, "dev@example.com"))
    assert await sign_in.store.developer_since("dev@example.com") == joined


PARTNERS = Audience("partner", home="/partners", returns=("/partners/",))


async def test_a_link_and_its_session_open_only_their_own_audiences_pages(
    sign_in: SignIn, database: Database, clock: FakeClock
) -> None:
    partners = SignIn(PortalRepository(database, clock), RateLimiter(), Outbox(database, clock=clock), PARTNERS)
    developer_link = await ask(sign_in, "both@example.com")
    partner_link = await ask(partners, "both@example.com", ip="192.0.2.2")
    assert not await partners.link_usable(developer_link) and await partners.sign_in(developer_link) is None
    assert not await sign_in.link_usable(partner_link) and await sign_in.sign_in(partner_link) is None
    as_partner = await partners.sign_in(partner_link)
    assert as_partner is not None and as_partner.landing == "/partners"
    assert await sign_in.session(as_partner.session_id) is None  # a partner's cookie is no developer's
    assert await partners.session(as_partner.session_id) is not None
    assert await sign_in.store.developer_since("both@example.com") is None  # partners get no developer account
    as_developer = await sign_in.sign_in(developer_link)  # the partner's sign-in spent no developer link
    assert as_developer is not None and await partners.session(as_developer.session_id) is None


@pytest.mark.parametrize(
    ("asked", "lands"),
    [
        ("/developers/keys/abc", "/developers/keys/abc"),
        ("/developers/authorize?client_id=x&state=y", "/developers/authorize?client_id=x&state=y"),
        (None, "/developers/dashboard"),
        ("https://evil.example/developers/", "/developers/dashboard"),
        ("//evil.example/developers/", "/developers/dashboard"),
        ("/\\evil.example/developers/", "/developers/dashboard"),
        ("/partners/leads", "/developers/dashboard"),  # another audience's pages
        ("/developers/\u202eevil", "/developers/dashboard"),
    ],
)
async def test_a_link_returns_only_to_a_local_page_of_its_audience(
    sign_in: SignIn, database: Database, asked: str | None, lands: str
) -> None:
    mailed = Mailed()
    assert await sign_in.request_link("dev@example.com", "192.0.2.1", mailed("dev@example.com"), return_to=asked)
    signed_in = await sign_in.sign_in(mailed.tokens[-1])
    assert signed_in is not None and signed_in.landing == lands
    async with database.session() as session:
        stored = (await session.scalars(select(LoginToken.return_to))).all()
    assert stored == [lands if lands != "/developers/dashboard" else None]


async def test_throttled_requests_send_nothing(
    sign_in: SignIn, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    mailed = Mailed()
    sent = [await sign_in.request_link("dev@example.com", "192.0.2.1", mailed("dev@example.com")) for _ in range(4)]
    assert sent == [True, True, True, False]
    by_ip = [
        await sign_in.request_link(f"u{n}@example.com", "192.0.2.9", mailed(f"u{n}@example.com")) for n in range(11)
    ]
    assert by_ip == [True] * 10 + [False]
    async with database.session() as session:
        assert len((await session.scalars(select(OutboxMessage))).all()) == 13
        assert len((await session.scalars(select(LoginToken))).all()) == 13
    assert "too many requests" in caplog.text


def test_csrf_tokens_belong_to_one_session() -> None:
    assert csrf_token_for("session-a") == csrf_token_for("session-a") != csrf_token_for("session-b")
    assert tokens_match("abc", "abc")
    assert not tokens_match("abc", "abd") and not tokens_match("", "") and not tokens_match(None, None)


def test_addresses_are_normalised_and_checked() -> None:
    assert normalise_email("  Dev@Example.COM ") == "dev@example.com"
    for bad in ("", "dev", "dev@", "@example.com", "a b@example.com", "dev@example..com", "x" * 320 + "@e.com"):
        assert normalise_email(bad) is None, bad


#: Addresses a form or an agent might send, with whether the service's one e-mail rule takes them.
ADDRESSES = {
    "dev@example.com": True,
    "o'brien+door@mail.example.co.uk": True,
    "dev\x00@example.com": False,  # NUL: PostgreSQL cannot even store it
    "dev@exam\x00ple.com": False,
    "dev\x07@example.com": False,  # other control characters
    "dev@example.com\x1b[2J": False,
    "\u202edev@example.com": False,  # right-to-left override: shows a different address than it is
    "dev@example.com\u2066": False,
    "dev\u200b@example.com": False,  # zero-width space: two addresses that look the same
    "dev@exa\u200dmple.com": False,
    "dév@example.com": False,  # the rule is ASCII, as submitInspection publishes it
    "dev@localhost": False,
    "dev@-example.com": False,
    "x" * 65 + "@example.com": False,
}


@pytest.mark.parametrize(("address", "valid"), ADDRESSES.items(), ids=[repr(a)[:40] for a in ADDRESSES])
def test_sign_in_submit_inspection_and_the_outbox_share_one_e_mail_rule(address: str, valid: bool) -> None:
    def takes(check: Callable[[], object], refusal: type[Exception]) -> bool:
        try:
            check()
        except refusal:
            return False
        return True

    assert (normalise_email(address) is not None) is valid
    assert takes(lambda: Recipient.model_validate({"email": address, "zip": "94110"}), ValidationError) is valid
    assert takes(lambda: Mail(to=address, subject="Hi", text="Hello"), InvalidMail) is valid


def test_key_names_are_trimmed_and_bounded() -> None:
    assert clean_key_name("  my   laptop ") == "my laptop"
    assert clean_key_name("x" * 100) == "x" * 100
    assert clean_key_name("x" * 101) is None
    assert clean_key_name("   ") is None
    assert clean_key_name("bad\x00name") is None


def test_limits_are_described_for_people() -> None:
    assert Policy.parse("shown", "60/minute;2000/day").describe() == "60 per minute, 2,000 per day"
    assert Policy.parse("shown", "3 per 15 minutes").describe() == "3 per 15 minutes"
    assert Policy.parse("shown", "1/second;7200/2 hours").describe() == "1 per second, 7,200 per 2 hours"


def test_access_log_lines_do_not_carry_sign_in_tokens() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "POST", f"{CONFIRM_PATH}SECRET-TOKEN", "1.1", 303), None,
    )  # fmt: skip
    redactor = RedactSecretPaths()
    redactor.prefixes.add(CONFIRM_PATH)
    redactor.filter(record)
    assert "SECRET-TOKEN" not in record.getMessage()
    assert f"{CONFIRM_PATH}…" in record.getMessage()


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_migration_0008_makes_earlier_links_and_sessions_developers_and_goes_back(
    kind: str, tmp_path: Path
) -> None:
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await migrate_to(database, "0007")
            now = datetime.now(UTC)
            token, session_id = "t" * 43, "s" * 43
            async with database.engine.begin() as connection:
                await connection.execute(
                    text(
                        "INSERT INTO login_tokens (token_hash, email, created_at, expires_at) "
                        "VALUES (:hash, 'dev@example.com', :now, :later)"
                    ),
                    {"hash": hashlib.sha256(token.encode()).hexdigest(), "now": now, "later": now + timedelta(hours=1)},
                )
                await connection.execute(
                    text(
                        "INSERT INTO portal_sessions (id_hash, email, created_at, expires_at) "
                        "VALUES (:hash, 'old@example.com', :now, :later)"
                    ),
                    {
                        "hash": hashlib.sha256(session_id.encode()).hexdigest(),
                        "now": now,
                        "later": now + timedelta(days=1),
                    },
                )
            await database.migrate()
            developers = SignIn(PortalRepository(database), RateLimiter(), Outbox(database))
            partners = SignIn(PortalRepository(database), RateLimiter(), Outbox(database), PARTNERS)
            assert (await developers.session(session_id)) is not None and await partners.session(session_id) is None
            signed_in = await developers.sign_in(token)
            assert signed_in is not None and signed_in.landing == "/developers/dashboard"
            await migrate_to(database, "0007")
            async with database.engine.begin() as connection:
                tables = await connection.run_sync(
                    lambda sync: {
                        table: {column["name"] for column in inspect(sync).get_columns(table)}
                        for table in ("login_tokens", "portal_sessions")
                    }
                )
            assert "audience" not in tables["login_tokens"] | tables["portal_sessions"]
            assert "return_to" not in tables["login_tokens"]
        finally:
            await database.dispose()
