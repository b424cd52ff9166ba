"""`getInspectionReferencePhotos`: what one inspection item looks like when HEALTHY, WATCH and FIX.

Every photo always has a `url` (served at `/photos/…`). The pictures themselves travel inline, as
base64 with a media type, when the caller asks for it (`inlineImages: true`) and by default on MCP,
where each one becomes an image content block right after a text block with its severity and
caption. REST defaults to URLs: GPT Actions refuse responses of 100,000 characters or more and pass
no images on. So a REST reply is sized as the JSON it is sent as (captions, alt texts, URLs and all)
and kept within `REST_REPLY_LIMIT` characters: pictures are shrunk step by step (640, 480, 320, 240,
160 pixels on the longest side) into the room the words leave, and if the smallest still do not fit
(a large operator library), the photos that do not fit are sent by URL only and `note` says so. An
operator gallery so wordy that even its text would not fit loses photos, the most numerous severity
first, and `note` says how many.
"""

from __future__ import annotations

import asyncio
import base64
from collections import Counter
from collections.abc import Callable, Sequence

from pydantic import Field

from garage_tools.access.caller import Caller
from garage_tools.catalogs import translations
from garage_tools.knowledge.checklist import ReferencePhotoItem
from garage_tools.knowledge.photos import Photo, PhotoLibrary, PhotoSeverity, Rendition
from garage_tools.languages import supported
from garage_tools.models import Flag, InlineImage, InputModel, OutputModel
from garage_tools.registry import Tool, ToolContext, dump_json
from garage_tools.tools.common import LANG_PATTERN

#: Characters a REST reply may have, all of it: GPT Actions refuse 100,000 or more.
REST_REPLY_LIMIT = 99_000
#: Room kept within that limit for `note`, which is written once the pictures are chosen (two sentences at most).
NOTE_ROOM = 500
#: Characters of base64 image data one MCP result may carry: MCP clients take larger results, and there the
#: words travel once more, in the text blocks.
MCP_INLINE_BUDGET = 600_000
#: Longest side of inline pictures, largest first: each step is tried until the set fits the budget.
INLINE_SIDES = (640, 480, 320, 240, 160)

SEVERITY_DESCRIPTION = (
    "`HEALTHY` (what it should look like), `WATCH` (worn or borderline: check again, plan a repair) or `FIX` "
    "(needs repair; for springs, cables and drums: stop using the door and call a technician)."
)


class ReferencePhotosInput(InputModel):
    item_id: ReferencePhotoItem = Field(
        description="The inspection item to show: one of the nine reference items.", examples=["springs"]
    )
    severity: PhotoSeverity | None = Field(
        default=None, description="Only photos with this tag. " + SEVERITY_DESCRIPTION
    )
    inline_images: Flag | None = Field(
        default=None,
        description=(
            "Send each picture inline (base64 with its mimeType) besides its URL. Default: false on REST, "
            "true on MCP (where pictures become image content)."
        ),
    )
    lang: str | None = Field(
        default=None,
        pattern=LANG_PATTERN,
        description=(
            "The language of the words (`label`, `lookFor`, each photo's `caption` and `alt`, and the words drawn in "
            "the pictures at `url`): `en` (default) or `es`. Ids and severity tags stay as they are. A language not "
            "spoken answers in English; an operator's own photos keep the captions they were given where the "
            "catalog has no translation, and their pictures where they have none in that language."
        ),
    )


class ReferencePhoto(OutputModel):
    item_id: str
    severity: PhotoSeverity = Field(description=SEVERITY_DESCRIPTION)
    caption: str = Field(description="What the photo shows and what to do about it.")
    alt: str = Field(description="Alt text for people who cannot see the picture.")
    url: str = Field(description="The picture (stable while it is unchanged; may be cached).")
    mime_type: str
    width: int = Field(description="Width of the picture at `url`, in pixels.")
    height: int = Field(description="Height of the picture at `url`, in pixels.")
    image: InlineImage | None = Field(default=None, description="The picture inline, when inline images were sent.")


class ReferencePhotosOutput(OutputModel):
    item_id: str
    label: str = Field(description="The item's name on the inspection checklist.")
    look_for: str = Field(description="What to look for on this item, in a homeowner's words.")
    photos: list[ReferencePhoto] = Field(description="HEALTHY first, then WATCH, then FIX.")
    count: int
    inline: bool = Field(description="Whether pictures were sent inline (see each photo's `image`).")
    credit: str = Field(description="Who made the pictures.")
    note: str | None = Field(
        default=None, description="Present when inline pictures were shrunk or left out, or photos were left out."
    )
    lang: str = Field(default="en", description="The language of the words (`en`, `es`).")


def wants_inline(args: ReferencePhotosInput, caller: Caller) -> bool:
    """The caller's choice, else: inline on MCP, by URL elsewhere (REST, the CLI)."""
    return args.inline_images if args.inline_images is not None else caller.takes_image_blocks


#: What one inline picture costs in a reply, from its rendition: base64 characters alone (MCP), or its whole
#: JSON member `,"image":{...}` (REST).
Cost = Callable[[Rendition], int]


def inline_set(
    library: PhotoLibrary, photos: Sequence[Photo], budget: int, cost: Cost
) -> tuple[list[InlineImage | None], str | None]:
    """Inline pictures for `photos` within `budget` characters, shrinking them if need be (CPU: run in a thread)."""
    for side in INLINE_SIDES:
        images = _within(library, photos, side, budget, cost)
        if images is not None:
            shrunk = any(max(photo.width, photo.height) > side for photo in photos)
            note = f"Inline pictures are at most {side} px on their longest side; `url` has each at full size."
            return list(images), note if shrunk else None
    smallest = INLINE_SIDES[-1]
    chosen: list[InlineImage | None] = []
    room = budget
    for photo in photos:
        rendition = library.rendition(photo, smallest)
        size = cost(rendition)
        fits = size <= room
        chosen.append(_inline(rendition, photo) if fits else None)
        room -= size if fits else 0
    return chosen, (
        f"{chosen.count(None)} of {len(photos)} pictures are sent by URL only, to keep the answer small; "
        f"inline pictures are at most {smallest} px on their longest side."
    )


def _within(
    library: PhotoLibrary, photos: Sequence[Photo], side: int, budget: int, cost: Cost
) -> list[InlineImage] | None:
    """Every picture at `side`, or None as soon as they overrun the budget (the rest are not even encoded)."""
    images: list[InlineImage] = []
    used = 0
    for photo in photos:
        rendition = library.rendition(photo, side)
        used += cost(rendition)
        if used > budget:
            return None
        images.append(_inline(rendition, photo))
    return images


def encoded_size(rendition: Rendition) -> int:
    """Characters of the rendition in base64: its cost on MCP, where it is an image block of its own."""
    return 4 * ((len(rendition.data) + 2) // 3)


def json_size(rendition: Rendition) -> int:
    """Characters the rendition adds to a photo's REST JSON: `,"image":{"data":"…","mimeType":"…"}`.

    Measured by the serializer REST uses, so it stays right if InlineImage changes; base64 needs no escaping.
    """
    member = len(dump_json(InlineImage(data="", mime_type=rendition.mime_type)))
    return len(',"image":') + member + encoded_size(rendition)


def _inline(rendition: Rendition, photo: Photo) -> InlineImage:
    """The picture's bytes; its caption is set with the reply's words (`get_reference_photos`)."""
    return InlineImage(data=base64.b64encode(rendition.data).decode("ascii"), mime_type=rendition.mime_type)


def _listed(photo: Photo, base_url: str, gettext: Callable[[str], str]) -> ReferencePhoto:
    """A photo as the reply lists it, without its picture, its words in the reply's language."""
    return ReferencePhoto(
        item_id=photo.entry.item_id,
        severity=photo.entry.severity,
        caption=gettext(photo.entry.caption),
        alt=gettext(photo.entry.alt),
        url=f"{base_url}{photo.path}",
        mime_type=photo.mime_type,
        width=photo.width,
        height=photo.height,
    )


def _fit_words(reply: ReferencePhotosOutput, photos: list[Photo]) -> int:
    """Leave photos out of a REST reply whose words alone overrun the limit; how many were left out.

    Only a very wordy operator gallery gets here. The most numerous severity loses its last photo first, so every
    severity the item has stays shown.
    """
    room = REST_REPLY_LIMIT - NOTE_ROOM - len(dump_json(reply))
    left_out = 0
    while room < 0 and len(photos) > 1:
        counts = Counter(photo.entry.severity for photo in photos)
        severity = max(counts, key=counts.__getitem__)
        index = max(i for i, photo in enumerate(photos) if photo.entry.severity is severity)
        room += len(dump_json(reply.photos[index])) + 1  # its JSON and the comma before it
        del photos[index], reply.photos[index]
        left_out += 1
    reply.count = len(photos)
    return left_out


async def get_reference_photos(args: ReferencePhotosInput, ctx: ToolContext) -> ReferencePhotosOutput:
    library = ctx.data.photos
    language = ctx.knowledge.language(supported(args.lang))
    gettext = translations(language.code).gettext  # the packaged captions are in the catalog; others stay as given
    item = next(item for item in language.checklist.items if item.id == args.item_id)
    photos = library.for_item(args.item_id, args.severity, language.code)  # the pictures' own words in it too
    reply = ReferencePhotosOutput(
        item_id=args.item_id,
        label=item.label,
        look_for=item.look_for,
        photos=[_listed(photo, ctx.base_url, gettext) for photo in photos],
        count=len(photos),
        inline=wants_inline(args, ctx.caller),
        credit=library.manifest.credit,
        lang=language.code,
    )
    notes: list[str] = []
    on_mcp = ctx.caller.takes_image_blocks
    if not on_mcp and (left_out := _fit_words(reply, photos)):
        ask = "" if args.severity is not None else ": ask for one `severity` at a time to see them all"
        notes.append(f"{left_out} more photos of this item are left out to keep the answer small{ask}.")
    if reply.inline and photos:
        # On REST the pictures get the room the reply's words leave, measured as the JSON that is sent.
        budget = MCP_INLINE_BUDGET if on_mcp else REST_REPLY_LIMIT - NOTE_ROOM - len(dump_json(reply))
        images, note = await asyncio.to_thread(
            inline_set, library, photos, budget, encoded_size if on_mcp else json_size
        )
        for entry, image in zip(reply.photos, images, strict=True):
            if image is not None:
                image.caption = f"{entry.severity.value}: {entry.caption}"
            entry.image = image
        notes += [note] if note else []
    reply.note = " ".join(notes) or None
    return reply


TOOL = Tool(
    name="getInspectionReferencePhotos",
    icon="photos",
    title="Reference photos of an inspection item",
    summary="Captioned reference pictures of one inspection item, tagged HEALTHY, WATCH or FIX, with image URLs.",
    description=(
        "Give `itemId`, one of: springs, cables, drums, bottom-seal, photo-eyes, motorhead, wall-button, remotes, "
        "keypad; optionally `severity` (HEALTHY, WATCH, FIX) to get only those. Returns the item's checklist label "
        "and what to look for, and its reference pictures (HEALTHY first, then WATCH, then FIX), each with a "
        "caption, alt text, severity tag and a stable image `url`. Show them so a homeowner can compare their "
        "own door. `inlineImages: true` also sends each picture as base64 (the default on MCP, where pictures "
        "arrive as image content beside the captions). visualDiagnose's `referenceItemId` names the gallery to "
        "show. `lang: es` gives the words in Spanish."
    ),
    input_model=ReferencePhotosInput,
    output_model=ReferencePhotosOutput,
    handler=get_reference_photos,
)
