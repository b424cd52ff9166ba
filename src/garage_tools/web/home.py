"""`/`: the homeowner's front door. What is the door doing, how urgent, what it costs, who can fix it nearby.

The page is a client of the service's own REST API: its script (static/home.js) calls
`POST /api/v1/homeownerAnswer` (the journey, tools/journey.py) and `visualDiagnose`, and renders the answers
with the shared result cards. Every action also works as a plain form post without script, answered here
with the same page rendered on the server: `POST /` asks the same journey once (what is wrong, a pro, the
pro's offers, costs priced for the place), `POST /photo` checks a photo (visualDiagnose). Those calls go
through `PageTools`, so they are counted and refused exactly as on REST; the posts are guarded like the
portal's (same origin, a double-submit token).
"""

from __future__ import annotations

import base64
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.caller import Caller
from garage_tools.access.policy import Access
from garage_tools.access.ratelimit import LimitReached
from garage_tools.errors import ServiceError
from garage_tools.imaging import MAX_IMAGE_BYTES
from garage_tools.languages import SUPPORTED
from garage_tools.registry import Registry
from garage_tools.services import Services
from garage_tools.tools.cost import parse_door_size
from garage_tools.web.forms import DoubleSubmit, PhotoForm, Refused, check_origin, read_form, read_photo_form
from garage_tools.web.page_tools import PageTools
from garage_tools.web.pages import page_language, render
from garage_tools.web.results import fill, load_words, symptom_chips
from garage_tools.web.translations import translate_words

FormT = TypeVar("FormT", dict[str, str], PhotoForm)
NO_STORE = {"Cache-Control": "no-store"}
#: The token the homeowner pages' forms repeat (a homeowner has no session to derive one from).
FORM_TOKEN = DoubleSubmit("gt_help", "/")
FIELD = "csrf"
SMALL_FORM_BYTES = 8 * 1024
PHOTO_TOOL = "visualDiagnose"
#: The homeowner's journey (tools/journey.py): both forms of the page ask it, as the page's script does.
JOURNEY_TOOL = "homeownerAnswer"
ASK_TOOL = "ask"
GALLERY_PATH = "/parts/"
#: Room beside the photo for the form's other fields.
PHOTO_FORM_BYTES = MAX_IMAGE_BYTES + 64 * 1024


@dataclass
class Answer:
    """What the page shows: the homeowner's words and place, and each tool's answer as REST sends it."""

    description: str = ""
    place: str = ""
    size: str = ""  # the door's size as the form's size question gives it (`9x7`, `16x7`), or none
    diagnosis: dict[str, Any] | None = None
    costs: dict[str, dict[str, Any]] = field(default_factory=dict)
    cost_place: str | None = None
    gallery: dict[str, Any] | None = None
    gallery_href: str | None = None
    route: dict[str, Any] | None = None
    promotions: dict[str, Any] | None = None
    verdict: dict[str, Any] | None = None
    verdict_cost: dict[str, Any] | None = None
    verdict_href: str | None = None
    reply: dict[str, Any] | None = None  # the ask tool's answer, when the words name no symptom but it can answer
    ask_error: str | None = None
    place_error: str | None = None
    place_choices: list[str] = field(default_factory=list)  # other places of the name the routing chose among
    place_choices_intro: str | None = None
    photo_error: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)

    def refused(self, refusal: Refusal) -> str:
        """Take a refusal's status and headers for the page; its sentence, to show where it happened."""
        self.status, self.headers = refusal.status, refusal.headers
        return refusal.message

    @property
    def link(self) -> str:
        """The address that reopens this answer (the state in the query, no account): `/?q=…&place=…&size=…`."""
        pairs = [(name, value) for name, value in (("q", self.description), ("place", self.place), ("size", self.size))]
        return "/?" + urlencode([(name, value) for name, value in pairs if value])

    @property
    def urgent(self) -> bool:
        """The lead is hot when the diagnosis said the door is unsafe, as widgets in the field send it."""
        return bool(self.diagnosis and self.diagnosis.get("safetyFlag"))


def door_size_choice(text: str) -> str:
    """The form's door size when costEstimate can read it (`9x7`, `16x7`), else none."""
    try:
        parse_door_size(text.strip())
    except ValueError:
        return ""
    return text.strip()


class Refusal(Exception):
    """A tool call the page answers with a sentence instead of a card."""

    def __init__(self, message: str, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.headers = headers or {}


class HomePage:
    def __init__(self, services: Services, access: Access, registry: Registry) -> None:
        self.tools = PageTools(services, access, registry)
        self.access = access
        english = load_words()
        #: The cards' words and the one-tap chips (each symptom's first phrase, which always matches it) per language.
        self._words: dict[str, dict[str, Any]] = {
            language: translate_words(english, language) for language in SUPPORTED
        }
        self._chips = {language: symptom_chips(services.knowledge, language) for language in SUPPORTED}
        photo_tool = registry.find(PHOTO_TOOL)  # a registry of other tools (tests) serves the page too
        cap = photo_tool.usage_cap if photo_tool is not None else None
        self.photo_cap = cap.name if cap is not None else ""

    # -- routes -----------------------------------------------------------------------------------

    async def page(self, request: Request) -> Response:
        """The page; with `?q=` (and `place`, `size`) the answer a diagnosis link reopens, as the form gave it."""
        query = request.query_params
        answer = Answer(
            description=query.get("q", "").strip()[:2000],
            place=query.get("place", "").strip()[:200],
            size=door_size_choice(query.get("size", "")),
        )
        if not answer.description and not answer.place:
            return self._render(request, Answer())
        return await self._answer(request, answer)

    async def ask(self, request: Request) -> Response:
        """The ask form and the place form (each carries the other's value): everything the two give."""
        try:
            form = await self._read(request, read_form(request, self.access, limit=SMALL_FORM_BYTES))
        except Refused as refused:
            return self._refused(request, refused)
        answer = Answer(
            description=(form.get("chip") or form.get("description") or "").strip(),
            place=form.get("place", "").strip(),
            size=door_size_choice(form.get("size", "")),
        )
        return await self._answer(request, answer)

    async def _answer(self, request: Request, answer: Answer) -> Response:
        """What the ask form, the place form and a reopened diagnosis link show."""
        if not answer.description and not answer.place:
            answer.ask_error, answer.status = self.words(request)["errors"]["describe"], 400
            return self._render(request, answer)
        caller = await self.tools.caller(request)
        try:
            await self._journey(request, caller, answer)
        except Refusal as refusal:
            if answer.description:
                answer.ask_error = answer.refused(refusal)
            else:
                answer.place_error = answer.refused(refusal)
        return self._render(request, answer)

    async def photo(self, request: Request) -> Response:
        try:
            form = await self._read(request, read_photo_form(request, self.access, limit=PHOTO_FORM_BYTES))
        except Refused as refused:
            if refused.status != 413:
                return self._refused(request, refused)
            too_large = self.words(request)["errors"]["image_too_large"]
            return self._render(request, Answer(photo_error=too_large, status=413))
        answer = Answer(description=form.get("description").strip(), place=form.get("place").strip())
        if not form.photo:
            answer.photo_error, answer.status = self.words(request)["errors"]["image_missing"], 400
            return self._render(request, answer)
        image = {"data": base64.b64encode(form.photo).decode("ascii"), "mimeType": form.media_type}
        arguments: dict[str, Any] = {"image": image}
        if answer.description:
            arguments["description"] = answer.description[:2000]
        caller = await self.tools.caller(request)
        try:
            answer.verdict = verdict = await self._call(request, caller, PHOTO_TOOL, arguments)
            if verdict.get("issueKey"):
                answer.verdict_cost = await self._call(
                    request, caller, "costEstimate", {"issueKey": verdict["issueKey"]}
                )
            if verdict.get("referenceItemId"):
                answer.verdict_href = f"{GALLERY_PATH}{verdict['referenceItemId']}"
        except Refusal as refusal:
            answer.photo_error = answer.refused(refusal)
        return self._render(request, answer)

    # -- the calls --------------------------------------------------------------------------------

    async def _journey(self, request: Request, caller: Caller, answer: Answer) -> None:
        """The one journey call (tools/journey.py), its answer spread over the page's two regions."""
        arguments = {
            "description": answer.description[:2000] or None,
            "place": answer.place[:200] or None,
            "doorSize": answer.size or None,
        }
        journey = await self._call(request, caller, JOURNEY_TOOL, arguments, place=answer.place)
        answer.diagnosis = journey.get("diagnosis")
        if answer.description and answer.diagnosis is not None and "symptom" not in answer.diagnosis:
            # Not a symptom: perhaps a question ("how much is a new insulated door?"); the answerer has a go.
            reply = await self._call(request, caller, ASK_TOOL, {"question": answer.description[:2000]})
            answer.reply = reply if reply.get("kind") != "unknown" else None
        answer.gallery = gallery = journey.get("referencePhotos")
        if gallery is not None:
            answer.gallery_href = f"{GALLERY_PATH}{gallery['itemId']}"
        answer.route = route = journey.get("route")
        answer.promotions = journey.get("promotions")
        answer.costs = {estimate["issueKey"]: estimate for estimate in journey.get("costs", [])}
        if problem := journey.get("placeError"):
            answer.place_error = self.plain_error(request, 400, problem["code"], answer.place)
            answer.status = 400
        if route is None:
            return
        location = route["location"]
        answer.cost_place = f"{location['city']}, {location['state']}"
        if location.get("ambiguous"):  # the likeliest of several places of that name: offer the others
            answer.place_choices = [f"{other['city']}, {other['state']}" for other in location.get("alternatives", [])]
            answer.place_choices_intro = fill(self.words(request)["otherPlaces"], place=answer.cost_place)

    async def _call(
        self, request: Request, caller: Caller, name: str, arguments: dict[str, Any], *, place: str = ""
    ) -> dict[str, Any]:
        """The tool's answer, or a `Refusal` in plain words."""
        try:
            return (await self.tools.call(request, caller, name, arguments)).result
        except LimitReached as limit:
            errors = self.words(request)
            text = (
                errors["photoCapReached"]
                if self.photo_cap and limit.of_cap(self.photo_cap)
                else fill(errors["tooMany"], seconds=limit.retry_after)
            )
            raise Refusal(text, 429, {"Retry-After": str(limit.retry_after)}) from None
        except ServiceError as error:
            fallback = "describe" if name == JOURNEY_TOOL and arguments.get("description") else "invalid"
            sentence = self.plain_error(request, error.status, error.code, place, fallback)
            raise Refusal(sentence, error.status, error.headers) from None

    def words(self, request: Request) -> dict[str, Any]:
        """The cards' words in the reader's language (web/pages.py `page_language`)."""
        return self._words[page_language(request)]

    def plain_error(self, request: Request, status: int, code: str, place: str = "", fallback: str = "invalid") -> str:
        """What to tell the homeowner about a refused call (never the API's own wording)."""
        words = self.words(request)
        sentences: dict[str, str] = words["errors"]
        if status >= 500:
            return sentences.get(code, str(words["tryAgain"]))
        if code in sentences:
            return fill(sentences[code], place=place)
        return sentences[fallback]

    # -- rendering --------------------------------------------------------------------------------

    async def _read(self, request: Request, reading: Coroutine[Any, Any, FormT]) -> FormT:
        """The form, once it is known to come from this site and to carry the page's token."""
        try:
            check_origin(request, self.access.base_url(request.scope))
        except Refused:
            reading.close()  # never awaited: the body stays unread
            raise
        form = await reading
        FORM_TOKEN.check(request, form.get(FIELD))
        return form

    def _refused(self, request: Request, refused: Refused) -> Response:
        context = {"title": "Not done", "message": refused.message}
        return render(request, "home/message.html", context, status=refused.status, headers=NO_STORE)

    def _render(self, request: Request, answer: Answer) -> Response:
        token, fresh = FORM_TOKEN.token(request)
        context = {
            "answer": answer,
            "words": self.words(request),
            "chips": self._chips[page_language(request)],
            "csrf": token,
            "config": {"words": self.words(request), "photoCap": self.photo_cap},
        }
        response = render(
            request, "home/index.html", context, status=answer.status, headers={**NO_STORE, **answer.headers}
        )
        if fresh:
            FORM_TOKEN.set_cookie(response, token, secure=self.access.base_url(request.scope).startswith("https://"))
        return response


def home_routes(services: Services, access: Access, registry: Registry) -> list[BaseRoute]:
    """The routes of the homeowner page, for `create_app`'s route list."""
    home = HomePage(services, access, registry)
    return [
        Route("/", home.page, methods=["GET"]),
        Route("/", home.ask, methods=["POST"]),
        Route("/photo", home.photo, methods=["POST"]),
    ]
