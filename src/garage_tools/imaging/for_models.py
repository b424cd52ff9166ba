"""A photo as the photo tools send it to a vision model, and the request size a photo tool must accept.

Shared by visualDiagnose and identifyOpener, so both send models the same picture and take the same
largest body.
"""

from __future__ import annotations

from io import BytesIO

from garage_tools.imaging.decode import MAX_BASE64_CHARS, DecodedImage

#: The largest inline photo plus the rest of the JSON (a description of escaped characters, a URL).
PHOTO_TOOL_BODY_BYTES = MAX_BASE64_CHARS + 32 * 1024
#: Photos sent to a model are at most this many pixels on the longest side (what vision APIs scale to anyway).
MODEL_SIDE = 1568
MODEL_MAX_BYTES = 3_500_000


def for_model(photo: DecodedImage) -> tuple[bytes, str]:
    """The photo as sent to a model: as received when small enough, else a JPEG at most MODEL_SIDE px."""
    if (
        max(photo.width, photo.height) <= MODEL_SIDE
        and len(photo.data) <= MODEL_MAX_BYTES
        and photo.mime_type != "image/gif"
    ):
        return photo.data, photo.mime_type
    picture = photo.image.convert("RGB")
    picture.thumbnail((MODEL_SIDE, MODEL_SIDE))
    out = BytesIO()
    picture.save(out, "JPEG", quality=85)
    return out.getvalue(), "image/jpeg"
