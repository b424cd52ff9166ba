"""The partner console's pages at `/partners`: sign-in, leads (and their CSV), profile, promotions (the request
inbox and webhooks: `requests.py` and `webhooks.py` beside this module).

Handlers only translate between forms and the services: sign-in and sessions live in `web/signin.py` (the
PARTNERS audience: only an address in the directory gets a link), their cookies, forms and confirm step in
`web/signin_pages.py`, what a form may hold in `forms.py` beside this module, and every read and change in
`store/partner_console.py`, which scopes each query to the signed-in address's partner. Which partner
that is comes from the address on every request, so a contact the directory drops is signed out at once.
Cookies are scoped to `/partners`, apart from the developer portal's.
"""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.policy import Access
from garage_tools.knowledge.directory import PartnerRecord, PromotionRecord
from garage_tools.mail.webhooks import EndpointRules
from garage_tools.observability.redaction import redact_paths_in_access_log
from garage_tools.partners.notices import problem_words, report_link
from garage_tools.partners.request_mail import spoken
from garage_tools.services import Services
from garage_tools.store.partner_console import MAX_LEADS, PartnerConsoleRepository, PartnerLead
from garage_tools.store.partners import LeadSource
from garage_tools.store.portal import PortalRepository
from garage_tools.store.referrals import ReferralRepository
from garage_tools.web.forms import Refused
from garage_tools.web.pages import page_language, reads_in, render
from garage_tools.web.partners.demand import DEMAND_DAYS, demand_lines
from garage_tools.web.partners.forms import (
    AS_BEFORE,
    HEATS,
    MAX_FIELDS,
    READING_LANGUAGES,
    SERVICE_WORDS,
    TIME_ZONES,
    new_promotion_id,
    promotion_values,
    read_lead_filter,
    read_profile,
    read_promotion,
)
from garage_tools.web.partners.mail import partner_link_mail
from garage_tools.web.partners.requests import local_zone, request_routes
from garage_tools.web.partners.spreadsheet import spreadsheet_cells
from garage_tools.web.partners.webhooks import webhook_routes
from garage_tools.web.partners.words import refresh_words
from garage_tools.web.signin import LINK_LIFETIME, PARTNERS, Session, SignedIn, SignIn, normalise_email
from garage_tools.web.signin_pages import NO_STORE, SIGNED_OUT, SignInPages, as_pages
from garage_tools.web.translations import N_, short_day

log = logging.getLogger(__name__)

HOME = "/partners"
CONFIRM_PATH = "/partners/confirm/"
LEADS_SHOWN = 200
CSV_COLUMNS = ["received_utc", "urgency", "problem", "zip", "door_size", "from", "homeowner_name",
               "homeowner_email", "report"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class SignedInPartner:
    """Who is signed in, and the partner their address belongs to (as stored now)."""

    session: Session
    partner: PartnerRecord

    @property
    def id(self) -> str:
        return self.partner.id


_page = as_pages("partners/message.html")


class Console:
    def __init__(self, services: Services, access: Access) -> None:
        self.access = access
        self.store = PartnerConsoleRepository(services.database)
        self.referrals = ReferralRepository(services.database)
        self.sign_in = SignIn(
            PortalRepository(services.database),
            services.limiter,
            services.outbox,
            PARTNERS,
            admits=self._admits,
            limits=access.limits,
            background=services.background,
        )
        self.pages = SignInPages(
            self.sign_in,
            access,
            home=HOME,
            session_cookie="gt_partner_session",
            form_cookie="gt_partner_form",
            confirm_path=CONFIRM_PATH,
            max_form_fields=MAX_FIELDS,
        )
        self.refresh_seconds = services.settings.partner_refresh_seconds
        self.notices = services.tool_data.partners.notices
        self.directory = services.tool_data.partners.directory
        self.issues = {key: issue.name for key, issue in services.knowledge.tree.issues.items()}

    async def _admits(self, email: str) -> bool:
        await self.directory.current()  # a new store's first load seeds the directory: none before the check
        return await self.store.partner_of(email) is not None

    # -- signing in -----------------------------------------------------------------------------

    @_page
    async def home(self, request: Request) -> Response:
        """Signed in: the leads. Otherwise: the sign-in form."""
        me = await self._partner(request)
        if me is None:
            return self.pages.with_form_token(request, "partners/sign_in.html", {})
        wanted, problems = read_lead_filter(dict(request.query_params))
        leads = await self.store.leads(me.id, wanted, limit=LEADS_SHOWN)
        today, language = datetime.now(UTC).date(), page_language(request)
        places = (await self.directory.current()).places
        context = {
            "me": me,
            "demand": await demand_lines(self.referrals, me.id, lambda key: self.notices.problem(key, language), today),
            "demand_days": DEMAND_DAYS,
            "leads": [self._lead_view(request, lead, local_zone(me.partner, places, lead.zip)) for lead in leads],
            "shown": LEADS_SHOWN,
            "heats": HEATS,
            "query": {name: request.query_params.get(name, "") for name in ("heat", "from", "to")},
            "problems": problems,
            "csv_query": request.url.query,
        }
        return render(request, "partners/leads.html", context, headers=NO_STORE)

    @_page
    async def request_link(self, request: Request) -> Response:
        form = await self.pages.anonymous_form(request)
        email = normalise_email(form.get("email", ""))
        if email is None:
            typed = "".join(c for c in form.get("email", "") if c.isprintable())
            context = {"error": N_("Enter the e-mail address we have for your business."), "email": typed}
            return self.pages.with_form_token(request, "partners/sign_in.html", context, status=400)
        confirm, language = f"{self._base_url(request)}{CONFIRM_PATH}", page_language(request)
        self.sign_in.request_link_later(
            email,
            self.access.client_ip(request.scope),
            lambda token: partner_link_mail(email, confirm + token, language=language),
        )
        # The same answer whether the address is a partner's, unknown or throttled.
        return RedirectResponse(f"{HOME}/sign-in/sent", status_code=303)

    @_page
    async def link_sent(self, request: Request) -> Response:
        minutes = int(LINK_LIFETIME.total_seconds() // 60)
        return render(request, "partners/sent.html", {"minutes": minutes})

    @_page
    async def confirm(self, request: Request) -> Response:
        return await self.pages.confirm(request, "partners/confirm.html", on_sign_in=self._audit_sign_in)

    async def _audit_sign_in(self, signed_in: SignedIn) -> None:
        partner_id = await self.store.partner_of(signed_in.email)
        if partner_id is not None:
            await self.store.record(partner_id, signed_in.email, "sign_in", {})

    @_page
    async def sign_out(self, request: Request) -> Response:
        return await self.pages.sign_out(request)

    # -- leads ----------------------------------------------------------------------------------

    @_page
    async def leads_csv(self, request: Request) -> Response:
        me = await self._partner(request)
        if me is None:
            return RedirectResponse(HOME, status_code=303)
        wanted, _ = read_lead_filter(dict(request.query_params))
        leads = await self.store.leads(me.id, wanted, limit=MAX_LEADS)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        for lead in leads:
            view = self._lead_view(request, lead)
            cells = [
                lead.created_at.strftime("%Y-%m-%d %H:%M"),
                view["heat"],
                view["problem"],
                lead.zip or "",
                lead.door_size or "",
                view["source"],
                lead.contact_name or "",
                lead.contact_email or "",
                view["report"] or "",
            ]
            writer.writerow(spreadsheet_cells(cells))
        await self.store.record(me.id, me.session.email, "leads.export", {"count": len(leads)})
        headers = {**NO_STORE, "Content-Disposition": f'attachment; filename="leads-{me.id}.csv"'}
        return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=headers)

    def _lead_view(self, request: Request, lead: PartnerLead, zone: tzinfo = UTC) -> dict[str, Any]:
        language = page_language(request)
        received = lead.created_at.astimezone(zone)
        return {
            "lead": lead,
            "received": f"{short_day(received.date(), language)}, {received:%H:%M} ({received:%Z})",
            "heat": HEATS.get(lead.lead_heat or "", N_("Not said")),
            "problem": self.notices.problem(lead.issue, language),
            "speaks": spoken(lead.language, language),
            "source": N_("Inspection report") if lead.source is LeadSource.INSPECTION else N_("Request for a pro"),
            "report": report_link(self._base_url(request), lead.report_id),
        }

    # -- profile --------------------------------------------------------------------------------

    @_page
    async def profile(self, request: Request) -> Response:
        me = await self._partner(request)
        if me is None:
            return RedirectResponse(HOME, status_code=303)
        saved = request.query_params.get("saved") == "1"
        return self._profile_page(request, me, notice=N_("Saved.") if saved else None)

    @_page
    async def save_profile(self, request: Request) -> Response:
        me, form = await self._signed_in_form(request)
        checked = read_profile(form)
        if checked.value is None:
            return self._profile_page(request, me, form=form, problems=checked.problems, status=400)
        await self.store.update_profile(me.id, checked.value, me.session.email)
        return RedirectResponse(f"{HOME}/profile?saved=1", status_code=303)

    def _profile_page(
        self,
        request: Request,
        me: SignedInPartner,
        *,
        form: dict[str, str] | None = None,
        problems: dict[str, str] | None = None,
        notice: str | None = None,
        status: int = 200,
    ) -> Response:
        partner = me.partner
        values = form or {
            "phone": partner.phone,
            "booking": partner.scheduler_url or "",
            "website": partner.url,
            "license": partner.license_number or "",
            "insured": {True: "yes", False: "no", None: ""}[partner.insured],
            "since": str(partner.in_business_since or ""),
            "hours": partner.hours or "",
            "guarantee": partner.guarantee or "",
            "time_zone": partner.time_zone or "",
            "language": partner.language,
        }
        context = {"me": me, "values": values, "problems": problems or {}, "notice": notice,
                   "refresh": self._refresh_words(request), "time_zones": TIME_ZONES,
                   "languages": READING_LANGUAGES}  # fmt: skip
        return render(request, "partners/profile.html", context, status=status, headers=NO_STORE)

    # -- promotions -----------------------------------------------------------------------------

    @_page
    async def promotions(self, request: Request) -> Response:
        me = await self._partner(request)
        if me is None:
            return RedirectResponse(HOME, status_code=303)
        notice = _NOTICES.get(request.query_params.get("done", ""))
        return await self._promotions_page(request, me, notice=notice)

    @_page
    async def create_promotion(self, request: Request) -> Response:
        me, form = await self._signed_in_form(request)
        checked = read_promotion(form, me.id, new_promotion_id(me.id), list(self.issues))
        if checked.value is None:
            return await self._promotions_page(request, me, form=form, problems=checked.problems, status=400)
        await self.store.save_promotion(checked.value, me.session.email, new=True)
        return RedirectResponse(f"{HOME}/promotions?done=created", status_code=303)

    @_page
    async def edit_promotion(self, request: Request) -> Response:
        me = await self._partner(request)
        if me is None:
            return RedirectResponse(HOME, status_code=303)
        promotion = await self._own_promotion(me, request.path_params["promotion_id"])
        context = self._promotion_form(me, promotion_values(promotion), {}, promotion)
        return render(request, "partners/promotion.html", context, headers=NO_STORE)

    @_page
    async def update_promotion(self, request: Request) -> Response:
        me, form = await self._signed_in_form(request)
        promotion = await self._own_promotion(me, request.path_params["promotion_id"])
        checked = read_promotion(form, me.id, promotion.id, list(self.issues), before=promotion)
        if checked.value is None:
            context = self._promotion_form(me, form, checked.problems, promotion)
            return render(request, "partners/promotion.html", context, status=400, headers=NO_STORE)
        await self.store.save_promotion(checked.value, me.session.email, new=False)
        return RedirectResponse(f"{HOME}/promotions?done=saved", status_code=303)

    @_page
    async def confirm_end(self, request: Request) -> Response:
        """The page "End now" opens: it asks first, and its button posts the end."""
        me = await self._partner(request)
        if me is None:
            return RedirectResponse(HOME, status_code=303)
        promotion = await self._own_promotion(me, request.path_params["promotion_id"])
        context = {"me": me, "section": "promotions", "offer": promotion}
        return render(request, "partners/end_offer.html", context, headers=NO_STORE)

    @_page
    async def end_promotion(self, request: Request) -> Response:
        me, _ = await self._signed_in_form(request)
        today = datetime.now(UTC).date()
        if not await self.store.end_promotion(me.id, request.path_params["promotion_id"], today, me.session.email):
            raise Refused(NO_SUCH_OFFER, status=404)
        return RedirectResponse(f"{HOME}/promotions?done=ended", status_code=303)

    @_page
    async def set_opt_in(self, request: Request) -> Response:
        me, form = await self._signed_in_form(request)
        show = form.get("show") == "yes"
        await self.store.set_opt_in(me.id, show, me.session.email)
        return RedirectResponse(f"{HOME}/promotions?done={'shown' if show else 'hidden'}", status_code=303)

    async def _own_promotion(self, me: SignedInPartner, promotion_id: str) -> PromotionRecord:
        found = next((p for p in await self.store.promotions(me.id) if p.id == promotion_id), None)
        if found is None:
            raise Refused(NO_SUCH_OFFER, status=404)
        return found

    async def _promotions_page(
        self,
        request: Request,
        me: SignedInPartner,
        *,
        form: dict[str, str] | None = None,
        problems: dict[str, str] | None = None,
        notice: str | None = None,
        status: int = 200,
    ) -> Response:
        today = datetime.now(UTC).date()
        offers = [
            {"offer": p, "state": "current" if p.valid_on(today) else ("ended" if p.valid_until < today else "coming")}
            for p in await self.store.promotions(me.id)
        ]
        blank = {"discount_type": "amount", "valid_from": today.isoformat(), "valid_until": ""}
        context = {
            **self._promotion_form(me, form or blank, problems or {}, None),
            "offers": offers,
            "notice": notice,
            "refresh": self._refresh_words(request),
        }
        return render(request, "partners/promotions.html", context, status=status, headers=NO_STORE)

    def _promotion_form(
        self, me: SignedInPartner, values: dict[str, str], problems: dict[str, str], promotion: PromotionRecord | None
    ) -> dict[str, Any]:
        return {
            "me": me,
            "values": values,
            "problems": problems,
            "promotion": promotion,
            "issues": self.issues,
            "services": SERVICE_WORDS,
            "as_before": AS_BEFORE,
        }

    def _refresh_words(self, request: Request) -> str:
        return refresh_words(self.refresh_seconds, page_language(request))

    # -- helpers --------------------------------------------------------------------------------

    async def signed_in(self, request: Request) -> SignedInPartner | None:
        """The partner signed in on this request, or None (for the console's other pages)."""
        return await self._partner(request)

    async def signed_in_form(self, request: Request) -> tuple[SignedInPartner, dict[str, str]]:
        """A form posted by a signed-in partner, with its token checked (for the console's other pages)."""
        return await self._signed_in_form(request)

    async def _partner(self, request: Request) -> SignedInPartner | None:
        return await self._partner_of(request, await self.pages.session(request))

    async def _partner_of(self, request: Request, session: Session | None) -> SignedInPartner | None:
        """The partner a session's address belongs to now (a contact the directory drops opens nothing); the
        pages of this request read in the partner's own language."""
        partner_id = await self.store.partner_of(session.email) if session is not None else None
        partner = await self.store.partner(partner_id) if partner_id is not None else None
        if session is None or partner is None:
            return None
        reads_in(request, partner.language)
        return SignedInPartner(session, partner)

    async def _signed_in_form(self, request: Request) -> tuple[SignedInPartner, dict[str, str]]:
        """A form posted by a signed-in partner: it must carry the session's own token."""
        session, form = await self.pages.signed_in_form(request)
        me = await self._partner_of(request, session)
        if me is None:
            raise Refused(SIGNED_OUT)
        return me, form

    def _base_url(self, request: Request) -> str:
        return self.pages.base_url(request)


#: The console's words, marked for the catalog and translated where the pages show them.
_NOTICES = {
    "created": N_("Your offer is saved."),
    "saved": N_("Your changes are saved."),
    "ended": N_("The offer has ended: homeowners no longer see it."),
    "shown": N_("Homeowners are shown your current offers."),
    "hidden": N_("Your offers are hidden from homeowners."),
}
NO_SUCH_OFFER = N_("There is no such offer among yours.")


def partner_routes(services: Services, access: Access) -> list[BaseRoute]:
    """The routes of the partner console, for `create_app`'s route list."""
    redact_paths_in_access_log(CONFIRM_PATH)
    console = Console(services, access)
    return [
        Route(HOME, console.home, methods=["GET"]),
        Route(f"{HOME}/sign-in", console.request_link, methods=["POST"]),
        Route(f"{HOME}/sign-in/sent", console.link_sent, methods=["GET"]),
        Route(CONFIRM_PATH + "{token}", console.confirm, methods=["GET", "POST"]),
        Route(f"{HOME}/sign-out", console.sign_out, methods=["POST"]),
        Route(f"{HOME}/leads.csv", console.leads_csv, methods=["GET"]),
        Route(f"{HOME}/profile", console.profile, methods=["GET"]),
        Route(f"{HOME}/profile", console.save_profile, methods=["POST"]),
        Route(f"{HOME}/promotions", console.promotions, methods=["GET"]),
        Route(f"{HOME}/promotions", console.create_promotion, methods=["POST"]),
        Route(f"{HOME}/promotions/show", console.set_opt_in, methods=["POST"]),
        Route(f"{HOME}/promotions/{{promotion_id}}", console.edit_promotion, methods=["GET"]),
        Route(f"{HOME}/promotions/{{promotion_id}}", console.update_promotion, methods=["POST"]),
        Route(f"{HOME}/promotions/{{promotion_id}}/end", console.confirm_end, methods=["GET"]),
        Route(f"{HOME}/promotions/{{promotion_id}}/end", console.end_promotion, methods=["POST"]),
        *request_routes(console, services.tool_data.partners.requests, problem_words(services.knowledge)),
        *webhook_routes(console, services.webhooks, EndpointRules.from_settings(services.settings)),
    ]
