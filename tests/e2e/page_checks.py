"""Checks every page of the site must pass in a real browser: axe-core's serious and critical findings, and
nothing scrolling sideways on a phone.

axe-core is the npm package pinned in tests/accessibility/package.json, installed by scripts/setup-axe.sh (as
`make test` does, and `axe_source` here when it is missing). Its axe.min.js is evaluated in the page through
the browser's debugging protocol, which the pages' Content-Security-Policy (script-src 'self') does not apply to,
so the pages are checked with their real headers.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SETUP = REPO / "scripts" / "setup-axe.sh"
AXE = REPO / "tests" / "accessibility" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

_RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.slice(0, 30).map((n) => n.target.join(" ") + " :: " + n.failureSummary) }));
}"""

#: The outermost elements that reach past the right edge of the viewport, to say what scrolls sideways.
_TOO_WIDE = """(width) => {
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const right = el.getBoundingClientRect().right;
    if (right <= width + 1) continue;
    let parent = el.parentElement, inside = false;
    while (parent && parent !== document.body) {
      if (parent.getBoundingClientRect().right > width + 1) { inside = true; break; }
      parent = parent.parentElement;
    }
    if (!inside) out.push(`${el.tagName.toLowerCase()}.${el.className} reaches ${Math.round(right)} px`);
  }
  return out.slice(0, 10);
}"""


@functools.cache
def axe_source() -> str:
    """axe.min.js of the pinned axe-core, installed first if it is not there yet."""
    if not AXE.exists():
        subprocess.run([str(SETUP)], check=True, timeout=300)
    return AXE.read_text(encoding="utf-8")


def serious_findings(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_source())
    findings: list[dict[str, Any]] = page.evaluate(_RUN_AXE)
    return findings


def sideways(page: Any) -> list[str]:
    """What makes the page wider than its viewport (empty when nothing scrolls sideways)."""
    width = page.viewport_size["width"]
    if page.evaluate("document.documentElement.scrollWidth") <= width:
        return []
    wide: list[str] = page.evaluate(_TOO_WIDE, width)
    return wide or ["the page is wider than the viewport"]
