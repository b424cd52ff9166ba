"""The changelog: one data file of dated entries, shown as a page and published as a JSON Feed 1.1.

Entries live in `content/changelog.json` (schema beside it, for editors) and are validated when the
app is built, so a malformed entry stops start-up instead of breaking the feed for its readers. An
entry's `id` becomes the feed item id, which feed readers use to tell new items from seen ones:
never change or reuse one.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from garage_tools.knowledge.data_files import read_data_file, schema_for
from garage_tools.web.markup import text_html

CONTENT = Path(__file__).parent / "content"
CHANGELOG_FILE = CONTENT / "changelog.json"
FEED_MEDIA_TYPE = "application/feed+json"
FEED_VERSION = "https://jsonfeed.org/version/1.1"

EntryId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=100)]
Text = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]


class ChangeKind(StrEnum):
    NEW_TOOL = "new-tool"
    AUTH = "auth"
    RATE_LIMITS = "rate-limits"
    FIX = "fix"
    OTHER = "other"


KIND_LABELS = {
    ChangeKind.NEW_TOOL: "New tool",
    ChangeKind.AUTH: "Authentication",
    ChangeKind.RATE_LIMITS: "Rate limits",
    ChangeKind.FIX: "Fix",
    ChangeKind.OTHER: "Change",
}


class ChangelogEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: EntryId = Field(description="Stable forever: the feed item id. Never change or reuse one.")
    date: dt.date = Field(description="The day the change landed: the date of `commit` when it names one.")
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{7,40}$")] | None = Field(
        default=None, description="The commit that brought the change (7 or more hex digits of its hash)."
    )
    title: Annotated[Text, StringConstraints(max_length=120)]
    kind: ChangeKind
    summary: Annotated[Text, StringConstraints(max_length=300)] = Field(description="One or two plain sentences.")
    body: Text = Field(
        description=(
            "Plain text. Blank lines separate paragraphs, lines starting with '- ' form a list, and "
            "`backticks` mark code. No HTML: it is escaped."
        )
    )

    @property
    def published(self) -> dt.datetime:
        return dt.datetime.combine(self.date, dt.time(0, 0), tzinfo=dt.UTC)


class Changelog(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    entries: list[ChangelogEntry] = Field(min_length=1, description="Newest first.")

    @model_validator(mode="after")
    def _unique_ids(self) -> Changelog:
        seen: set[str] = set()
        for entry in self.entries:
            if entry.id in seen:
                raise ValueError(f"entry id {entry.id!r} is used twice")
            seen.add(entry.id)
        return self

    def newest_first(self) -> list[ChangelogEntry]:
        return sorted(self.entries, key=lambda entry: entry.date, reverse=True)  # stable: file order within a day


def load_changelog(path: Path = CHANGELOG_FILE) -> Changelog:
    """The changelog, read and checked; `KnowledgeError` (the service refuses to start) when it is bad."""
    return read_data_file(path, Changelog)


def changelog_schema() -> dict[str, Any]:
    """The JSON Schema of the changelog file, as `content/changelog.schema.json` holds it for editors."""
    return schema_for(Changelog)


def json_feed(changelog: Changelog, base: str) -> dict[str, Any]:
    """The changelog as a JSON Feed 1.1 document (https://jsonfeed.org/version/1.1)."""
    page = f"{base}/developers/changelog"
    return {
        "version": FEED_VERSION,
        "title": "Garage Door Tools API changelog",
        "home_page_url": page,
        "feed_url": f"{base}/developers/changelog.json",
        "description": "New tools, authentication changes and rate-limit updates of the Garage Door Tools API.",
        "language": "en",
        "items": [
            {
                "id": entry.id,
                "url": f"{page}#{entry.id}",
                "title": entry.title,
                "summary": entry.summary,
                "content_html": str(text_html(entry.body)),
                "date_published": entry.published.isoformat().replace("+00:00", "Z"),
                "tags": [entry.kind.value],
            }
            for entry in changelog.newest_first()
        ],
    }
