"""The eleven labs: Markdown files with YAML front matter, split into sections with stable anchors.

Each lab lives in `data/labs/<slug>.md`, written and edited by people who know garage doors, not
Python. The same file feeds the lab page, the `lab://<slug>` MCP resource and the retrieval index,
so it is read and checked once at start-up: a missing anchor or a misspelt slug stops the service
with a message naming the file, instead of a broken citation link later.

A section starts at a `## Title {#anchor}` line. The anchor is part of a public URL
(`/labs/<slug>#<anchor>`) that agents cite and other sites link to, so it is written out by hand
rather than derived from the title: a title can be reworded without breaking a link.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pydantic import Field, StringConstraints, ValidationError

from garage_tools.knowledge.data_files import KnowledgeError
from garage_tools.knowledge.schemas import DataModel, Slug

#: The eleven labs, in the order of the specification (and of the `/labs` index).
LAB_SLUGS: tuple[str, ...] = (
    "science-of-garage-doors",
    "science-of-garage-door-springs",
    "energy-efficiency-lab",
    "garage-door-roi",
    "rolling-steel-lab",
    "spring-fatigue-cold-weather",
    "safety-systems-lab",
    "garage-door-trainer",
    "garage-door-anatomy",
    "spring-powered-catapult",
    "animated",
)

#: Size of a lab's preview image (16:9), as published by `getLab`.
PREVIEW_WIDTH = 960
PREVIEW_HEIGHT = 540
#: The `/labs` cards' thumbnail of each preview (WebP, beside the PNG): sharp on a phone, a third of the bytes.
THUMBNAIL_WIDTH = 640
THUMBNAIL_HEIGHT = 360
#: Where `garage-tools labs render-previews` writes the committed previews (`<slug>.png`, `<slug>.webp`). Spelled out
#: rather than taken from `garage_tools.web`, which sits above the knowledge layer.
PREVIEW_DIR = Path(__file__).parents[1] / "web" / "static" / "labs" / "previews"

#: The JSON Schema of the front matter, for editors (`garage-tools knowledge schemas` writes it).
FRONT_MATTER_SCHEMA_FILE = "lab.schema.json"

MIN_SECTIONS = 4
MAX_SECTIONS = 7
ANCHOR_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<yaml>.*?)^---[ \t]*(?:\n|\Z)", re.DOTALL | re.MULTILINE)
_HEADING_ANCHOR = re.compile(r"^(?P<title>.*?)[ \t]*\{#(?P<anchor>[^}]*)\}$")
_MARKDOWN = MarkdownIt("commonmark")

Line = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]


class LabFrontMatter(DataModel):
    """What a lab file declares about itself between its `---` lines."""

    slug: Slug = Field(description="The lab's slug; must equal the file name without `.md`.")
    title: Annotated[str, StringConstraints(min_length=1, max_length=100, strip_whitespace=True)]
    description: Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)] = Field(
        description="One or two sentences, shown by getLab and in link previews."
    )
    keywords: list[Line] = Field(min_length=1, description="Words a homeowner might search for.")
    interactive: Annotated[str, StringConstraints(min_length=1, max_length=300, strip_whitespace=True)] = Field(
        description="One sentence describing the lab's interactive part, shown above the widget."
    )


@dataclass(frozen=True, slots=True)
class LabSection:
    """One `##` section of a lab; `#anchor` on the lab page."""

    anchor: str
    title: str
    markdown: str  # the body, without its heading line
    text: str  # the body as plain text (Markdown syntax removed), for retrieval


@dataclass(frozen=True, slots=True)
class Lab:
    slug: str
    title: str
    description: str
    keywords: tuple[str, ...]
    interactive: str
    intro_markdown: str
    sections: tuple[LabSection, ...]


class LabLibrary:
    """Every lab, in the order of LAB_SLUGS, with the Markdown each was read from."""

    __slots__ = ("_labs", "_sources")

    def __init__(self, labs: Sequence[Lab], sources: dict[str, str]) -> None:
        self._labs = {lab.slug: lab for lab in labs}
        self._sources = sources

    def get(self, slug: str) -> Lab | None:
        return self._labs.get(slug)

    def __iter__(self) -> Iterator[Lab]:
        return iter(self._labs.values())

    def __len__(self) -> int:
        return len(self._labs)

    @property
    def slugs(self) -> list[str]:
        return list(self._labs)

    def markdown(self, slug: str) -> str:
        """The lab's file exactly as written, front matter included (the `lab://<slug>` resource text).

        Raises KeyError for an unknown slug; callers check the slug with `get` first.
        """
        return self._sources[slug]


def lab_url(base_url: str, slug: str) -> str:
    """The live lab page."""
    return f"{base_url.rstrip('/')}/labs/{slug}"


def section_url(base_url: str, slug: str, anchor: str) -> str:
    """A section of a lab page: the page gives each `##` heading `id="<anchor>"`."""
    return f"{lab_url(base_url, slug)}#{anchor}"


def preview_url(base_url: str, slug: str) -> str:
    """The lab's PREVIEW_WIDTH x PREVIEW_HEIGHT PNG thumbnail."""
    return f"{lab_url(base_url, slug)}/preview.png"


def load_labs(directory: Path) -> LabLibrary:
    """Read and check `<slug>.md` for every slug in LAB_SLUGS; raises KnowledgeError on any problem."""
    present = {path.stem for path in directory.glob("*.md")}
    missing = [slug for slug in LAB_SLUGS if slug not in present]
    unknown = sorted(present - set(LAB_SLUGS))
    if missing or unknown:
        _fail(directory, f"expected one file per lab: missing {missing}, unknown {unknown}")
    labs, sources = [], {}
    for slug in LAB_SLUGS:
        path = directory / f"{slug}.md"
        try:
            source = path.read_text(encoding="utf-8")  # universal newlines: CRLF is read as LF
        except (OSError, UnicodeDecodeError) as exc:
            _fail(path, f"cannot read: {exc}")
        labs.append(parse_lab(path, source))
        sources[slug] = source
    return LabLibrary(labs, sources)


def parse_lab(path: Path, source: str) -> Lab:
    """One lab file: front matter, then an intro, then MIN_SECTIONS to MAX_SECTIONS anchored sections."""
    found = _FRONT_MATTER.match(source)
    if found is None:
        _fail(path, "must start with YAML front matter between two `---` lines")
    meta = _front_matter(path, found.group("yaml"))
    if meta.slug != path.stem:
        _fail(path, f"front matter slug {meta.slug!r} does not match the file name")
    body = source[found.end() :]
    lines = body.split("\n")
    tokens = _MARKDOWN.parse(body)
    for token in tokens:
        if token.type in {"html_block", "html_inline"} or any(c.type == "html_inline" for c in token.children or ()):
            _fail(path, f"raw HTML is not allowed (line {_line(found, token)})")
    # Top-level headings only: a `##` quoted inside a blockquote or list stays part of its section.
    headings = [
        (i, t) for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag in {"h1", "h2"} and t.level == 0
    ]
    for _, token in headings:
        if token.tag == "h1":
            _fail(path, f"line {_line(found, token)}: no `#` headings; the title comes from the front matter")

    intro_end = _start(headings[0][1]) if headings else len(lines)
    intro = "\n".join(lines[:intro_end]).strip()
    if not intro:
        _fail(path, "needs an introduction before the first `##` section")
    if not MIN_SECTIONS <= len(headings) <= MAX_SECTIONS:
        _fail(path, f"has {len(headings)} `##` sections; a lab has {MIN_SECTIONS} to {MAX_SECTIONS}")

    sections: list[LabSection] = []
    for n, (index, token) in enumerate(headings):
        heading = tokens[index + 1].content.strip()
        anchored = _HEADING_ANCHOR.match(heading)
        where = f"line {_line(found, token)}"
        if anchored is None:
            _fail(path, f"{where}: the heading {heading!r} needs a stable anchor, e.g. `## Title {{#some-anchor}}`")
        title, anchor = anchored.group("title").strip(), anchored.group("anchor")
        if not title:
            _fail(path, f"{where}: the heading has an anchor but no title")
        if not ANCHOR_PATTERN.match(anchor):
            _fail(path, f"{where}: anchor {anchor!r} must be lowercase words joined by hyphens")
        if any(s.anchor == anchor for s in sections):
            _fail(path, f"{where}: anchor {anchor!r} is used twice")
        end = _start(headings[n + 1][1]) if n + 1 < len(headings) else len(lines)
        markdown = "\n".join(lines[_end(token) : end]).strip()
        end_index = headings[n + 1][0] if n + 1 < len(headings) else len(tokens)
        text = plain_text(tokens[index + 3 : end_index])  # after heading_open, inline, heading_close
        if not text:
            _fail(path, f"{where}: section {anchor!r} has no text")
        sections.append(LabSection(anchor=anchor, title=title, markdown=markdown, text=text))

    return Lab(
        slug=meta.slug,
        title=meta.title,
        description=meta.description,
        keywords=tuple(meta.keywords),
        interactive=meta.interactive,
        intro_markdown=intro,
        sections=tuple(sections),
    )


def plain_text(tokens: Sequence[Token]) -> str:
    """The words a reader sees, one line per block: emphasis, links and code marks removed."""
    blocks: list[str] = []
    for token in tokens:
        if token.type == "inline":
            words = "".join(_inline_text(token.children or ()))
        elif token.type in {"fence", "code_block"}:
            words = token.content
        else:
            continue
        words = " ".join(words.split())
        if words:
            blocks.append(words)
    return "\n".join(blocks)


def _inline_text(children: Sequence[Token]) -> Iterator[str]:
    for child in children:
        if child.type in {"text", "code_inline"}:
            yield child.content
        elif child.type in {"softbreak", "hardbreak"}:
            yield " "
        elif child.type == "image":
            yield from _inline_text(child.children or ())


def _front_matter(path: Path, text: str) -> LabFrontMatter:
    try:
        raw: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        _fail(path, f"front matter is not valid YAML: {exc}")
    if not isinstance(raw, dict):
        _fail(path, "front matter must be a YAML mapping (slug, title, description, keywords, interactive)")
    raw.pop("$schema", None)
    try:
        return LabFrontMatter.model_validate(raw)
    except ValidationError as exc:
        _fail(path, f"front matter does not match {FRONT_MATTER_SCHEMA_FILE}:\n{exc}")


def _start(token: Token) -> int:
    assert token.map is not None  # block tokens always carry their source lines
    return token.map[0]


def _end(token: Token) -> int:
    assert token.map is not None
    return token.map[1]


def _line(front_matter: re.Match[str], token: Token) -> int:
    """The 1-based line of `token` in the whole file (the body starts after the front matter)."""
    return front_matter.group(0).count("\n") + (token.map[0] if token.map else 0) + 1


def _fail(path: Path, message: str) -> NoReturn:
    raise KnowledgeError(f"{path}: {message}")
