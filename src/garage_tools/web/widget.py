"""The contractor widget: `/widget.js` (the current major version), `/widget/v1.js` (pinned) and its stylesheet.

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
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools import __version__
from garage_tools.knowledge.loader import Knowledge
from garage_tools.web.assets import BuiltAsset
from garage_tools.web.pages import STATIC
from garage_tools.web.results import load_words, symptom_chips

WIDGET_DIR = STATIC / "widget"
COMPONENTS_DIR = STATIC / "components"
MAJOR = 1
JS = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"
#: A length in rem (`1.25rem`, `.9rem`), not part of a longer name.
_REM = re.compile(r"(?<![\w.-])(\d*\.?\d+)rem\b")


def widget_words() -> dict[str, Any]:
    """The cards' words with the widget's own under `widget`."""
    own = json.loads((WIDGET_DIR / "words.json").read_text(encoding="utf-8"))
    return {**load_words(), "widget": own}


def build_stylesheet() -> BuiltAsset:
    cards = _REM.sub(r"\1em", (COMPONENTS_DIR / "results.css").read_text(encoding="utf-8"))
    widget = (WIDGET_DIR / "widget.css").read_text(encoding="utf-8")
    return BuiltAsset(f"{cards}\n{widget}".encode(), CSS)


def build_script(knowledge: Knowledge, stylesheet: BuiltAsset) -> BuiltAsset:
    """The one widget script: the cards, then widget.js called with them and its setup."""
    setup = {
        "version": f"{MAJOR} ({__version__})",
        "words": widget_words(),
        "chips": symptom_chips(knowledge),
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


def widget_routes(knowledge: Knowledge) -> list[BaseRoute]:
    """The widget's files, for `create_app`'s route list."""
    files = WidgetFiles.build(knowledge)
    return [
        Route("/widget.js", files.serve_script, methods=["GET"]),
        Route(f"/widget/v{MAJOR}.js", files.serve_script, methods=["GET"]),
        Route(f"/widget/v{MAJOR}.css", files.serve_stylesheet, methods=["GET"]),
    ]
