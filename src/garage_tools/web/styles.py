"""`/styles`: the door styles to browse, and `/parts/<item>`: the reference pictures of one part.

Both are plain GET pages over a tool (getDoorStyles with its four filters as a GET form, so the page
works without script and a filtered list has its own address; getInspectionReferencePhotos for the
gallery a photo verdict or a diagnosis links to). The calls go through `PageTools`, counted as REST.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.policy import Access
from garage_tools.access.ratelimit import LimitReached
from garage_tools.errors import ServiceError
from garage_tools.knowledge.checklist import REFERENCE_PHOTO_ITEM_IDS
from garage_tools.knowledge.schemas import Budget, DoorType
from garage_tools.registry import Registry
from garage_tools.services import Services
from garage_tools.web.page_tools import PageTools
from garage_tools.web.pages import page_language, render
from garage_tools.web.results import fill, load_words
from garage_tools.web.translations import N_, translate_words

#: The filters as the form names them (the tool's own argument names), with what a person reads.
#: The words are in English here and translated where they are shown (the templates' `_(label)`).
BUDGETS = {Budget.ECONOMY: N_("Economy"), Budget.MID_RANGE: N_("Mid-range"), Budget.PREMIUM: N_("Premium")}
MATERIALS = {
    DoorType.STEEL: N_("Steel"),
    DoorType.INSULATED: N_("Insulated steel"),
    DoorType.ALUMINUM: N_("Aluminum"),
    DoorType.GLASS: N_("Glass (full view)"),
    DoorType.CUSTOM: N_("Wood, composite and custom"),
}
RATINGS = {
    "durability": N_("Durability"),
    "insulation": N_("Insulation"),
    "curbAppeal": N_("Looks"),
    "lowMaintenance": N_("Low upkeep"),
}
#: The most styles a comparison shows side by side (a phone has room for three columns at most).
COMPARE_AT_MOST = 3
SEVERITY_WORDS = {"HEALTHY": N_("Healthy"), "WATCH": N_("Keep an eye on it"), "FIX": N_("Needs repair")}


def _number(text: str) -> float | None:
    """A filter's number, or None when blank or unreadable (the form then shows it was ignored)."""
    try:
        value = float(text.replace(",", "").replace("$", "").strip())
    except ValueError:
        return None
    return value if value >= 0 else None


class StylePages:
    def __init__(self, services: Services, access: Access, registry: Registry) -> None:
        self.tools = PageTools(services, access, registry)
        self.words = load_words()

    async def styles(self, request: Request) -> Response:
        query = request.query_params
        chosen = {name: query.get(name, "").strip() for name in ("budget", "type", "maxPriceUsd", "minRValue")}
        arguments: dict[str, Any] = {}
        if chosen["budget"] in {b.value for b in BUDGETS}:
            arguments["budget"] = chosen["budget"]
        if chosen["type"] in {t.value for t in MATERIALS}:
            arguments["type"] = chosen["type"]
        ignored = []
        for name, label in (("maxPriceUsd", N_("highest price")), ("minRValue", N_("lowest R-value"))):
            if chosen[name]:
                number = _number(chosen[name])
                if number is None:
                    ignored.append(label)
                else:
                    arguments[name] = number
        context: dict[str, Any] = {
            "chosen": chosen,
            "budgets": {b.value: label for b, label in BUDGETS.items()},
            "materials": {t.value: label for t, label in MATERIALS.items()},
            "ratings": RATINGS,
            "ignored": ignored,
            "filtered": bool(arguments),
        }
        status, headers = 200, {}
        try:
            context["catalog"] = await self._call(
                request, "getDoorStyles", {**arguments, "lang": page_language(request)}
            )
        except ServiceError as error:
            context["error"] = self._plain(request, error)
            status, headers = error.status, error.headers
        return render(request, "home/styles.html", context, status=status, headers=headers)

    async def compare(self, request: Request) -> Response:
        """Two or three styles side by side, in the order they were ticked."""
        ids = list(dict.fromkeys(request.query_params.getlist("id")))
        context: dict[str, Any] = {
            "budgets": {b.value: label for b, label in BUDGETS.items()},
            "ratings": RATINGS,
        }
        status = 200
        if not 2 <= len(ids) <= COMPARE_AT_MOST:
            context["problem"] = N_("Tick two or three styles on the styles page to compare them.")
            return render(request, "home/styles_compare.html", context, status=400)
        try:
            catalog = await self._call(request, "getDoorStyles", {"lang": page_language(request)})
        except ServiceError as error:
            context["problem"] = self._plain(request, error)
            return render(request, "home/styles_compare.html", context, status=error.status, headers=error.headers)
        by_id = {style["id"]: style for style in catalog["styles"]}
        chosen = [by_id[style_id] for style_id in ids if style_id in by_id]
        if len(chosen) != len(ids):
            context["problem"] = N_("We don't know one of those styles any more. Choose again on the styles page.")
            status = 404
        context.update(chosen=chosen, price_basis=catalog["priceBasis"])
        return render(request, "home/styles_compare.html", context, status=status)

    async def gallery(self, request: Request) -> Response:
        item = request.path_params["item"]
        if item not in REFERENCE_PHOTO_ITEM_IDS:
            return render(request, "not_found.html", {"path": request.url.path}, status=404)
        context: dict[str, Any] = {"severity_words": SEVERITY_WORDS}
        status, headers = 200, {}
        try:
            arguments = {"itemId": item, "lang": page_language(request)}  # pictures and words in the reader's
            context["gallery"] = await self._call(request, "getInspectionReferencePhotos", arguments)
        except ServiceError as error:
            context["error"] = self._plain(request, error)
            status, headers = error.status, error.headers
        return render(request, "home/gallery.html", context, status=status, headers=headers)

    async def _call(self, request: Request, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        caller = await self.tools.caller(request)
        return (await self.tools.call(request, caller, name, arguments)).result

    def _plain(self, request: Request, error: ServiceError) -> str:
        """The error in the page's words (the result cards' sentences, in the reader's language)."""
        words = translate_words(self.words, page_language(request))
        if isinstance(error, LimitReached):
            return fill(words["tooMany"], seconds=error.retry_after)
        return str(words["tryAgain"] if error.status >= 500 else words["errors"]["invalid"])


def style_routes(services: Services, access: Access, registry: Registry) -> list[BaseRoute]:
    """The door styles page and the reference galleries, for `create_app`'s route list."""
    pages = StylePages(services, access, registry)
    return [
        Route("/styles", pages.styles, methods=["GET"]),
        Route("/styles/compare", pages.compare, methods=["GET"]),
        Route("/parts/{item}", pages.gallery, methods=["GET"]),
    ]
