"""`garage-tools partners ...` and `garage-tools promotions ...`: the operator's hands on the directory.

An import replaces the whole directory (or every promotion) in one transaction, or, when any row is
bad, lists each bad row by line and changes nothing. Running servers pick the change up within
GARAGE_TOOLS_PARTNER_REFRESH_SECONDS.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from garage_tools.cli.partner_files import (
    FileFormat,
    Parsed,
    format_of,
    read_partners,
    read_promotions,
    write_partners,
    write_promotions,
)
from garage_tools.cli.runner import load_settings, run_with_services
from garage_tools.cli.webhooks import webhooks
from garage_tools.knowledge.directory import PartnerRecord, PromotionRecord, ServiceType

if TYPE_CHECKING:
    from garage_tools.mail import Mail
    from garage_tools.partners.service import Partners
    from garage_tools.services import Services
    from garage_tools.store.partners import DirectoryRows, LeadTally

T = TypeVar("T")
RecordT = TypeVar("RecordT", PartnerRecord, PromotionRecord)
FORMAT = click.Choice([f.value for f in FileFormat])


def _with_partners(work: Callable[[Partners, Services], Awaitable[T]]) -> T:
    return run_with_services(load_settings(), lambda services: work(services.tool_data.partners, services))


async def _directory(partners: Partners) -> DirectoryRows:
    """The directory as stored, after seeding the samples into a store that was never filled."""
    await partners.directory.seed_if_new()
    return await partners.repository.load()


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise click.ClickException(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def _refuse(parsed: Parsed[RecordT], path: Path, what: str) -> None:
    if parsed.ok:
        return
    for problem in parsed.problems:
        click.echo(f"{path}: {problem}", err=True)
    count = len(parsed.problems)
    raise click.ClickException(f"{count} bad row{'s' if count != 1 else ''} in {path}; the {what} are unchanged")


def _format(path: Path, given: str | None) -> FileFormat:
    try:
        return format_of(path.name, given)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="FILE") from exc


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """`7d`, `12h`, `30m` ago, or an ISO date or date-time (UTC unless it says otherwise)."""
    now = now or datetime.now(UTC)
    relative = re.fullmatch(r"([0-9]+)([dhm])", text.strip())
    if relative:
        amount, unit = int(relative.group(1)), relative.group(2)
        return now - timedelta(**{{"d": "days", "h": "hours", "m": "minutes"}[unit]: amount})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise click.BadParameter("use 7d, 12h, 30m, or a date such as 2026-11-01", param_hint="--since") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# --- partners --------------------------------------------------------------------------------


@click.group()
def partners() -> None:
    """The partner directory: import, export, list, and the leads it received."""


@partners.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=FORMAT, default=None, help="csv or json (default: from the extension).")
@click.option("--dry-run", is_flag=True, help="Check the file and report; change nothing.")
def partners_import(file: Path, fmt: str | None, dry_run: bool) -> None:
    """Replace the whole directory with the partners in FILE (CSV or JSON).

    Partners not in FILE are removed with their promotions; the others keep theirs.
    """
    from garage_tools.knowledge.places import us_places

    parsed = read_partners(_read_text(file), _format(file, fmt), us_places())
    _refuse(parsed, file, "partners")
    if dry_run:
        click.echo(f"{file}: {len(parsed.records)} partners, all valid (dry run: nothing imported)")
        return

    async def work(partners: Partners, services: Services) -> str:
        done = await partners.repository.replace_partners(parsed.records)
        await partners.directory.reload()
        gone = f" and their {done.promotions_removed} promotions" if done.promotions_removed else ""
        return (
            f"imported {len(parsed.records)} partners from {file}: {done.added} added, {done.updated} updated, "
            f"{done.removed} removed{gone}. Directory version {done.version}; running servers use it within "
            f"{services.settings.partner_refresh_seconds:g} s."
        )

    click.echo(_with_partners(work))


@partners.command("export")
@click.option("--format", "fmt", type=FORMAT, default="json", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Default: stdout.")
def partners_export(fmt: str, output: Path | None) -> None:
    """Write the whole directory, in the format `partners import` reads."""

    async def work(partners: Partners, services: Services) -> str:
        return write_partners((await _directory(partners)).partners, FileFormat(fmt))

    _emit(_with_partners(work), output)


def _area(record: PartnerRecord) -> str:
    parts = []
    if record.zip_prefixes:
        parts.append(" ".join(f"{prefix}xx" for prefix in record.zip_prefixes))
    if record.zips:
        parts.append(f"{len(record.zips)} ZIPs")
    if record.radius_miles is not None:
        centre = record.center_zip or f"{record.center_lat:.3f},{record.center_lon:.3f}"
        parts.append(f"{record.radius_miles:g} mi of {centre}")
    return "; ".join(parts)


partners.add_command(webhooks)


@partners.command("list")
def partners_list() -> None:
    """Every partner with its area, services, emergency service and promotion opt-in."""
    rows = _with_partners(lambda partners, services: _directory(partners))
    click.echo(f"directory version {rows.version}: {len(rows.partners)} partners")
    click.echo(f"{'ID':<28} {'NAME':<28} {'REGION':<20} {'SERVICES':<9} {'EMERG':<5} {'PROMOS':<6} {'STATE':<8} AREA")
    for p in rows.partners:
        services = "".join(_LETTERS[service] for service in p.services)
        click.echo(
            f"{p.id:<28} {p.display_name[:28]:<28} {p.region[:20]:<20} {services:<9} "
            f"{'yes' if p.emergency else 'no':<5} {'yes' if p.promotions_opt_in else 'no':<6} "
            f"{'active' if p.active else 'inactive':<8} {_area(p)}"
        )
    click.echo("services: R repair, M maintenance, P replacement, I installation")


_LETTERS = {
    ServiceType.REPAIR: "R",
    ServiceType.MAINTENANCE: "M",
    ServiceType.REPLACEMENT: "P",
    ServiceType.INSTALLATION: "I",
}


@partners.command("leads")
@click.option("--since", default=None, help="Only leads since then: 7d, 12h, 30m, or a date such as 2026-11-01.")
@click.option(
    "--searches", is_flag=True, help="Searches (referrals: demand, one per caller, partner and issue a day) instead."
)
def partners_leads(since: str | None, searches: bool) -> None:
    """Leads per partner (inspections shared with consent): how many, how hot, and when the last one came."""
    start = parse_since(since) if since else None

    async def work(partners: Partners, services: Services) -> tuple[DirectoryRows, list[LeadTally]]:
        if searches:
            from garage_tools.store.referrals import ReferralRepository

            return await _directory(partners), await ReferralRepository(services.database).tallies(start)
        return await _directory(partners), await partners.repository.lead_tallies(start)

    rows, tallies = _with_partners(work)
    names = {p.id: p.display_name for p in rows.partners}
    window = f" since {start:%Y-%m-%d %H:%M} UTC" if start else ""
    what = "searches" if searches else "leads"
    if not tallies:
        click.echo(f"no {what}{window}")
        return
    click.echo(f"{what} per partner{window}")
    click.echo(f"{'PARTNER':<28} {'NAME':<28} {what.upper():>6} {'HOT':>5} {'WARM':>5} {'COLD':>5}  LAST (UTC)")
    for t in tallies:
        name = names.get(t.partner_id, "(no longer listed)") if t.partner_id else "(area not covered)"
        click.echo(
            f"{t.partner_id or '-':<28} {name[:28]:<28} {t.total:>6} {t.hot:>5} {t.warm:>5} {t.cold:>5}  "
            f"{t.last_at:%Y-%m-%d %H:%M}"
        )


def _base_url(given: str | None, services: Services) -> str | None:
    return (given or services.settings.public_base_url or "").rstrip("/") or None


@partners.command("digest")
@click.option(
    "--base-url", default=None, help="Where the console and reports are (default: GARAGE_TOOLS_PUBLIC_BASE_URL)."
)
def partners_digest(base_url: str | None) -> None:
    """Mail each partner the leads not yet sent to them (warm and cold ones; hot ones go at once).

    Run it daily from the scheduler. Each lead goes out once, however often this runs; running two at
    once is safe too. Messages go through the outbox, which the server's mail worker delivers.
    """

    async def work(partners: Partners, services: Services) -> str:
        told = await partners.notices.send_digest(datetime.now(UTC), _base_url(base_url, services))
        return f"digest: {told} lead{'s' if told != 1 else ''} queued for their partners"

    click.echo(_with_partners(work))


@partners.command("invite")
@click.argument("partner_id")
@click.option("--base-url", default=None, help="Where the console is (default: GARAGE_TOOLS_PUBLIC_BASE_URL).")
def partners_invite(partner_id: str, base_url: str | None) -> None:
    """Mail PARTNER_ID's contact address a link that signs it in to the partner console."""
    from garage_tools.access.limits import Limits
    from garage_tools.store.partner_console import PartnerConsoleRepository
    from garage_tools.store.portal import PortalRepository
    from garage_tools.web.partners.endpoints import CONFIRM_PATH
    from garage_tools.web.partners.mail import partner_link_mail
    from garage_tools.web.signin import PARTNERS, SignIn

    async def work(partners: Partners, services: Services) -> str:
        base = _base_url(base_url, services)
        if base is None:
            raise click.ClickException(
                "the link needs the service's address: pass --base-url or set GARAGE_TOOLS_PUBLIC_BASE_URL"
            )
        await partners.directory.seed_if_new()
        console = PartnerConsoleRepository(services.database)
        addresses = await console.contacts(partner_id)
        if not addresses:
            raise click.ClickException(
                f"partner {partner_id!r} is not in the directory, is inactive, or has no contactEmail "
                "(add it to the directory file and import it)"
            )
        partner = await console.partner(partner_id)
        language = partner.language if partner is not None else "en"  # the invitation reads as its console will
        limits = Limits(services.settings)
        sign_in = SignIn(
            PortalRepository(services.database), services.limiter, services.outbox, PARTNERS, limits=limits
        )
        sent = []
        for address in addresses:

            def compose(token: str, to: str = address) -> Mail:
                return partner_link_mail(to, f"{base}{CONFIRM_PATH}{token}", invited=True, language=language)

            if await sign_in.request_link(address, None, compose):
                sent.append(address)
        await console.record(partner_id, "operator", "invite", {"to": sent})
        if not sent:
            raise click.ClickException("no link sent: too many links for that address lately; try again in 15 minutes")
        return f"invited {partner_id}: a sign-in link is queued for {', '.join(sent)} (it works once, for 15 minutes)"

    click.echo(_with_partners(work))


@partners.command("audit")
@click.option("--partner", "partner_id", default=None, help="Only this partner's entries.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10_000))
def partners_audit(partner_id: str | None, limit: int) -> None:
    """What partners did in their console (and invitations sent to them), newest first."""
    from garage_tools.store.partner_console import PartnerConsoleRepository

    async def work(partners: Partners, services: Services) -> str:
        entries = await PartnerConsoleRepository(services.database).audit(partner_id, limit)
        if not entries:
            return "no partner actions recorded"
        lines = [f"{'WHEN (UTC)':<17} {'PARTNER':<28} {'WHO':<36} {'WHAT':<18} DETAIL"]
        for e in entries:
            detail = ", ".join(f"{key}={value}" for key, value in e.detail.items())
            lines.append(
                f"{e.created_at:%Y-%m-%d %H:%M} {e.partner_id:<28} {e.actor[:36]:<36} {e.action:<18} {detail[:200]}"
            )
        return "\n".join(lines)

    click.echo(_with_partners(work))


# --- promotions ------------------------------------------------------------------------------


@click.group()
def promotions() -> None:
    """Partner promotions: import, export, list."""


@promotions.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=FORMAT, default=None, help="csv or json (default: from the extension).")
@click.option("--dry-run", is_flag=True, help="Check the file and report; change nothing.")
def promotions_import(file: Path, fmt: str | None, dry_run: bool) -> None:
    """Replace every promotion with those in FILE (CSV or JSON); each must name a listed partner."""
    from garage_tools.knowledge.loader import packaged_tree

    text, file_format = _read_text(file), _format(file, fmt)

    async def work(partners: Partners, services: Services) -> str:
        rows = await _directory(partners)
        parsed = read_promotions(text, file_format, {p.id for p in rows.partners}, packaged_tree().issues)
        _refuse(parsed, file, "promotions")
        if dry_run:
            return f"{file}: {len(parsed.records)} promotions, all valid (dry run: nothing imported)"
        version = await partners.repository.replace_promotions(parsed.records)
        await partners.directory.reload()
        return (
            f"imported {len(parsed.records)} promotions from {file}. Directory version {version}; running servers "
            f"use it within {services.settings.partner_refresh_seconds:g} s."
        )

    click.echo(_with_partners(work))


@promotions.command("export")
@click.option("--format", "fmt", type=FORMAT, default="json", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Default: stdout.")
def promotions_export(fmt: str, output: Path | None) -> None:
    """Write every promotion, in the format `promotions import` reads."""

    async def work(partners: Partners, services: Services) -> str:
        return write_promotions((await _directory(partners)).promotions, FileFormat(fmt))

    _emit(_with_partners(work), output)


def _status(promotion: PromotionRecord, partner: PartnerRecord | None, today: date) -> str:
    if partner is None or not partner.active or not partner.promotions_opt_in:
        return "hidden"
    if today < promotion.valid_from:
        return "upcoming"
    if today > promotion.valid_until:
        return "expired"
    return "current"


@promotions.command("list")
@click.option("--partner", "partner_id", default=None, help="Only this partner's promotions.")
def promotions_list(partner_id: str | None) -> None:
    """Every promotion with its partner, discount, dates and whether homeowners see it today."""
    rows = _with_partners(lambda partners, services: _directory(partners))
    owners = {p.id: p for p in rows.partners}
    today = datetime.now(UTC).date()
    chosen = [p for p in rows.promotions if partner_id is None or p.partner_id == partner_id]
    click.echo(f"{len(chosen)} promotions (hidden: partner inactive or not opted in)")
    click.echo(f"{'ID':<30} {'PARTNER':<28} {'DISCOUNT':<9} {'FROM':<10} {'UNTIL':<10} {'STATUS':<8} TITLE")
    for p in chosen:
        discount = f"{p.discount_value:g}%" if p.discount_type.value == "percent" else f"${p.discount_value:g}"
        click.echo(
            f"{p.id[:30]:<30} {p.partner_id[:28]:<28} {discount:<9} {p.valid_from} {p.valid_until} "
            f"{_status(p, owners.get(p.partner_id), today):<8} {p.title}"
        )
