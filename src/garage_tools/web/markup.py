"""The small plain-text format of the changelog and tool descriptions, as HTML.

Blank lines separate paragraphs, lines starting with `- ` form a list and `backticks` mark code. The
text is escaped before anything is added, so no HTML in the source reaches the page.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_CODE = re.compile(r"`([^`]+)`")


def inline_html(text: str) -> Markup:
    """`text` escaped, with `backticked` spans as <code>."""
    return Markup(_CODE.sub(lambda match: f"<code>{match.group(1)}</code>", str(escape(text))))  # noqa: S704


def text_html(text: str) -> Markup:
    """`text` as paragraphs and lists."""
    parts = []
    for block in re.split(r"\n[ \t]*\n", text.strip()):
        lines = block.strip("\n").splitlines()
        if all(line.startswith("- ") for line in lines):
            parts.append("<ul>" + "".join(f"<li>{inline_html(line[2:])}</li>" for line in lines) + "</ul>")
        else:
            parts.append(f"<p>{inline_html(' '.join(line.strip() for line in lines))}</p>")
    return Markup("\n".join(parts))  # noqa: S704 - every piece was escaped by inline_html
