"""The drawing beside each inspection question: what its part should look like.

Where the reference gallery covers the part, it is the gallery's HEALTHY picture (the one the report compares
against). The nine parts the gallery does not cover have a drawing of their own for the form, in
`static/inspection/parts/` with `drawings.json` (drawn by `scripts/draw_part_drawings.py`). Both kinds are read
once at start-up; a drawing for an item the checklist does not have, or a missing file, stops start-up.

Both kinds have words drawn into them, so both come in each language the service speaks: a reader is shown the
picture in the page's language (`drawings_of(..., lang)`), or the default one where it has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field, StringConstraints

from garage_tools.knowledge.checklist import InspectionChecklist
from garage_tools.knowledge.data_files import read_data_file
from garage_tools.knowledge.photos import PhotoLibrary, PhotoSeverity
from garage_tools.knowledge.schemas import DataModel, Text
from garage_tools.languages import DEFAULT
from garage_tools.web.pages import STATIC

PARTS = STATIC / "inspection" / "parts"
PARTS_URL = "/static/inspection/parts/"


DrawingFile = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]*(?:\.[a-z]{2,3})?\.webp$")]


class PartDrawing(DataModel):
    item_id: str = Field(alias="itemId", description="The inspection item the drawing shows.")
    caption: Annotated[Text, Field(max_length=300)]
    alt: Annotated[Text, Field(max_length=300)]
    file: DrawingFile
    files: dict[str, DrawingFile] = Field(
        default_factory=dict, description="The drawing with its words in another language, by language (`es`)."
    )


class PartDrawings(DataModel):
    about: Text
    width: int = Field(gt=0, le=4000)
    height: int = Field(gt=0, le=4000)
    drawings: list[PartDrawing]


@dataclass(frozen=True, slots=True)
class ItemDrawing:
    """What the form needs to show a drawing: its URL, size, alt text and caption."""

    path: str
    width: int
    height: int
    alt: str
    caption: str


def drawings_of(checklist: InspectionChecklist, library: PhotoLibrary, lang: str = DEFAULT) -> dict[str, ItemDrawing]:
    """Each item's drawing, by item id: the gallery's healthy picture of its part, else the form's own; each in
    `lang` where it has a file in that language (the words, alt text and caption, are the default's: the page
    translates them)."""
    found: dict[str, ItemDrawing] = {}
    for item in checklist.items:
        gallery = item.reference_photo_item
        healthy = library.for_item(gallery, PhotoSeverity.HEALTHY, lang) if gallery else []
        if healthy:
            photo = healthy[0]
            found[item.id] = ItemDrawing(photo.path, photo.width, photo.height, photo.entry.alt, photo.entry.caption)
    parts = read_data_file(PARTS / "drawings.json", PartDrawings)
    known = {item.id for item in checklist.items}
    for drawing in parts.drawings:
        if drawing.item_id not in known:
            raise ValueError(f"{PARTS / 'drawings.json'}: no inspection item {drawing.item_id!r}")
        for file in (drawing.file, *drawing.files.values()):
            if not (PARTS / file).is_file():
                raise ValueError(f"{PARTS / file}: missing; run scripts/draw_part_drawings.py")
        file = drawing.files.get(lang, drawing.file)
        found.setdefault(
            drawing.item_id, ItemDrawing(PARTS_URL + file, parts.width, parts.height, drawing.alt, drawing.caption)
        )
    return found
