"""The contractor widget: `/widget.js` (the current major version), `/widget/v1.js` (pinned), its stylesheet,
and `/developers/widget`, the page that shows it working and writes a site's two lines.

One script, built here once at start-up, with no dependencies: the homeowner page's result cards
(static/components/results.js, run with `window` shadowed so they add no global to the host page), the
widget (static/widget/widget.js) and its setup (the cards' words and the widget's own, the symptom chips,
the stylesheet's URL). The stylesheet is the cards' (components/results.css, with rem turned into em: rem
follows the host page's root font size, which a shadow root cannot reset) followed by static/widget/widget.css.
Versions: `/widget.js` always serves the current major; a site that wants no surprises pins `/widget/v1.js`,
which keeps its behaviour and options for as long as v1 is served (fixes still reach it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import escape
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools import __version__
from garage_tools.access.origins import origin_of
from garage_tools.access.policy import Access
from garage_tools.knowledge.loader import Knowledge
from garage_tools.languages import SUPPORTED
from garage_tools.services import Services
from garage_tools.web.assets import BuiltAsset
from garage_tools.web.pages import STATIC, render
from garage_tools.web.results import load_words, symptom_chips
from garage_tools.web.translations import translate_words

WIDGET_DIR = STATIC / "widget"
COMPONENTS_DIR = STATIC / "components"
MAJOR = 1
JS = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"
#: A length in rem (`1.25rem`, `.9rem`), not part of a longer name.
_REM = re.compile(r"(?<![\w.-])(\d*\.?\d+)rem\b")
#: What a snippet may carry: the checks widget.js makes, so the page never writes code the widget ignores.
PARTNER_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
ACCENT = re.compile(r"#[0-9A-Fa-f]{6}")
DEFAULT_ACCENT = "#0b5cad"


#: Every sentence widget.js uses of its own; start-up fails on a words file that lacks one.
REQUIRED_WIDGET_WORDS = frozenset(
    {
        "heading",
        "chipsLabel",
        "describeLabel",
        "describePlaceholder",
        "describeButton",
        "placeLabel",
        "placePlaceholder",
        "placeButton",
        "working",
        "challengeFailed",
        "notSetUp",
        "poweredBy",
    }
)


def widget_words() -> dict[str, Any]:
    """The cards' words with the widget's own under `widget`; ValueError naming any that is missing."""
    own: dict[str, Any] = json.loads((WIDGET_DIR / "words.json").read_text(encoding="utf-8"))
    missing = sorted(REQUIRED_WIDGET_WORDS - own.keys())
    if missing:
        raise ValueError(f"widget/words.json lacks {', '.join(missing)}")
    return {**load_words(), "widget": own}


def build_stylesheet() -> BuiltAsset:
    cards = _REM.sub(r"\1em", (COMPONENTS_DIR / "results.css").read_text(encoding="utf-8"))
    widget = (WIDGET_DIR / "widget.css").read_text(encoding="utf-8")
    return BuiltAsset(f"{cards}\n{widget}".encode(), CSS)


def build_script(knowledge: Knowledge, stylesheet: BuiltAsset) -> BuiltAsset:
    """The one widget script: the cards, then widget.js called with them and its setup."""
    words = widget_words()
    setup = {
        "version": f"{MAJOR} ({__version__})",
        "words": {language: translate_words(words, language) for language in SUPPORTED},
        "chips": {language: symptom_chips(knowledge, language) for language in SUPPORTED},
        "stylesheet": f"/widget/v{MAJOR}.css?v={stylesheet.fingerprint}",
    }
    cards = (COMPONENTS_DIR / "results.js").read_text(encoding="utf-8")
    widget = (WIDGET_DIR / "widget.js").read_text(encoding="utf-8").rstrip().rstrip(";")
    script = "\n".join(
        [
            f"/*! Garage Door Tools widget v{MAJOR} ({__version__}): {'<div data-garage-doors></div>'} */",
            "(function () {",
            '"use strict";',
            "var parts = {};",
            "(function (window) {",  # the cards publish `GarageResults` on `parts`, not on the host's window
            cards,
            "})(parts);",
            widget,
            f"(parts.GarageResults, {json.dumps(setup, separators=(',', ':'))});",
            "})();",
            "",
        ]
    )
    return BuiltAsset(script.encode(), JS)


@dataclass(frozen=True)
class WidgetFiles:
    """The widget's script and stylesheet of one major version."""

    script: BuiltAsset
    stylesheet: BuiltAsset

    @classmethod
    def build(cls, knowledge: Knowledge) -> WidgetFiles:
        stylesheet = build_stylesheet()
        return cls(build_script(knowledge, stylesheet), stylesheet)

    async def serve_script(self, request: Request) -> Response:
        return self.script.respond(request)

    async def serve_stylesheet(self, request: Request) -> Response:
        return self.stylesheet.respond(request)


@dataclass(frozen=True)
class WidgetOptions:
    """The options a site sets on its `<div data-garage-doors>`, as the snippet generator took them."""

    partner_id: str = ""
    zip: str = ""
    accent: str = ""
    compact: bool = False
    lang: str = ""  # "" for the host page's language; else one the service speaks

    @classmethod
    def from_query(cls, query: Any) -> WidgetOptions:
        """The generator's form, keeping only what the widget would accept."""
        partner = str(query.get("partner", "")).strip()
        accent = str(query.get("accent", "")).strip()
        lang = str(query.get("lang", "")).strip()
        return cls(
            partner_id=partner if PARTNER_ID.fullmatch(partner) else "",
            zip=str(query.get("zip", "")).strip()[:200],
            accent=accent if ACCENT.fullmatch(accent) and accent.lower() != DEFAULT_ACCENT else "",
            compact=query.get("compact") == "1",
            lang=lang if lang in SUPPORTED else "",
        )

    def attributes(self) -> list[tuple[str, str | None]]:
        """The element's data- attributes, in the order the snippet writes them."""
        pairs: list[tuple[str, str | None]] = [("data-garage-doors", None)]
        if self.partner_id:
            pairs.append(("data-partner-id", self.partner_id))
        if self.zip:
            pairs.append(("data-zip", self.zip))
        if self.accent:
            pairs.append(("data-accent", self.accent))
        if self.compact:
            pairs.append(("data-compact", None))
        if self.lang:
            pairs.append(("data-lang", self.lang))
        return pairs

    def snippet(self, base_url: str) -> str:
        """The two lines a site pastes."""
        attributes = " ".join(
            name if value is None else f'{name}="{escape(value, quote=True)}"' for name, value in self.attributes()
        )
        return f'<div {attributes}></div>\n<script src="{base_url}/widget.js" async></script>'


class WidgetPage:
    """`/developers/widget`: a live preview, the snippet generator and the operator's notes."""

    def __init__(self, services: Services, access: Access) -> None:
        self.services = services
        self.access = access

    async def page(self, request: Request) -> Response:
        base = self.access.base_url(request.scope)
        options = WidgetOptions.from_query(request.query_params)
        unknown_partner = False
        if options.partner_id:
            directory = await self.services.tool_data.partners.directory.current()
            unknown_partner = directory.index.get(options.partner_id) is None
        challenge = self.access.challenge
        context = {
            "options": options,
            "accent": options.accent or DEFAULT_ACCENT,
            "snippet": options.snippet(base),
            "unknown_partner": unknown_partner,
            "base_url": base,
            "major": MAJOR,
            "challenge_on": challenge.enabled,
            "site_key_set": challenge.site_key is not None,
            "challenge_origin": origin_of(challenge.script_url),
        }
        return render(request, "widget/developers.html", context)


def widget_routes(services: Services, access: Access) -> list[BaseRoute]:
    """The widget's files and its page for developers, for `create_app`'s route list."""
    files = WidgetFiles.build(services.knowledge)
    page = WidgetPage(services, access)
    return [
        Route("/widget.js", files.serve_script, methods=["GET"]),
        Route(f"/widget/v{MAJOR}.js", files.serve_script, methods=["GET"]),
        Route(f"/widget/v{MAJOR}.css", files.serve_stylesheet, methods=["GET"]),
        Route("/developers/widget", page.page, methods=["GET"]),
    ]
