"""Decode an image a caller sent and refuse, with a code of its own, everything that is not a usable photo.

The order matters. Cheap checks come first (the `data:` prefix, the length of the base64 text, the
alphabet), then Pillow reads only the header: the format must be one we accept and match the
declared `mimeType`, and the pixel count must be within `MAX_IMAGE_PIXELS` before a single pixel is
decoded. That header check is what stops decompression bombs (a few kilobytes that claim a
50,000 x 50,000 canvas); Pillow's own bomb warning and error are turned into the same refusal, so
neither a warning nor a 500 ever reaches the caller. Only then is the image decoded in full, and a
truncated or corrupt file is a 400 too.

Pillow is told which formats it may try (`formats=`), so bytes in any other format (TIFF, BMP, PSD,
EPS, which would start Ghostscript) are refused without their plugin ever running. Decoding is
CPU-bound: callers run it in a worker thread, and at most `DECODE_SLOTS` decode at once, which
bounds the memory held by large photos.
"""

from __future__ import annotations

import base64
import binascii
import threading
import warnings
from dataclasses import dataclass
from io import BytesIO

from PIL import Image, ImageOps
from pydantic import Field

from garage_tools.errors import (
    ImageBadBase64,
    ImageDataUrlPrefix,
    ImageNotAnImage,
    ImageTooLarge,
    ImageTypeMismatch,
)
from garage_tools.models import InputModel

#: Largest image accepted, in bytes as decoded (a phone JPEG is typically 2-5 MB).
MAX_IMAGE_BYTES = 5 * 1024 * 1024
#: Largest image accepted, in pixels: 25 megapixels (e.g. 6000 x 4000) decode to about 75 MB of RGB.
MAX_IMAGE_PIXELS = 25_000_000
#: Pillow format name -> the media type we accept it as.
SUPPORTED_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
#: Media types some clients send for a supported type.
_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg"}
#: Full decodes allowed at the same time in this process (each may hold ~100 MB while it runs).
DECODE_SLOTS = 2

_decode_slots = threading.BoundedSemaphore(DECODE_SLOTS)
_WHITESPACE = str.maketrans("", "", " \t\r\n")
_ACCEPTED = ", ".join(SUPPORTED_TYPES.values())


def base64_length(size: int) -> int:
    """Characters of padded base64 text for `size` bytes."""
    return 4 * ((size + 2) // 3)


#: Longest `image.data` text that can decode to at most MAX_IMAGE_BYTES (line breaks aside).
MAX_BASE64_CHARS = base64_length(MAX_IMAGE_BYTES)


class ImageInput(InputModel):
    """A photo sent inline: `{data, mimeType}`."""

    data: str = Field(
        min_length=1,
        description=(
            "The image bytes in standard base64 (padded; line breaks are ignored), without a `data:` prefix. "
            "At most 5 MiB once decoded and 25 megapixels."
        ),
    )
    mime_type: str = Field(
        min_length=1,
        max_length=100,
        description="The media type: `image/jpeg`, `image/png`, `image/webp` or `image/gif`; it must match the bytes.",
        examples=["image/jpeg"],
    )


@dataclass(frozen=True, slots=True)
class DecodedImage:
    """An image that passed every check: its bytes as received, its real type, size and pixels."""

    data: bytes
    mime_type: str
    width: int
    height: int
    image: Image.Image  # fully decoded (first frame of an animation), upright per its EXIF orientation


def normalise_media_type(value: str) -> str:
    """`Image/JPG; q=1` -> `image/jpeg`: lower case, parameters dropped, common aliases folded."""
    media = value.split(";", 1)[0].strip().lower()
    return _ALIASES.get(media, media)


def decode_image(image: ImageInput) -> DecodedImage:
    """Decode an inline image, or raise the `ImageRejected` error that says what is wrong with it."""
    text = image.data
    if text[:5].lower() == "data:":
        raise ImageDataUrlPrefix(
            "image.data starts with a `data:` URL prefix: send only the base64 text after the comma, and the "
            "media type in image.mimeType."
        )
    declared = normalise_media_type(image.mime_type)
    if declared not in SUPPORTED_TYPES.values():
        raise ImageTypeMismatch(f"image.mimeType {image.mime_type!r} is not supported: send one of {_ACCEPTED}.")
    text = text.translate(_WHITESPACE)
    if len(text) > MAX_BASE64_CHARS:
        raise ImageTooLarge(f"The image is over {MAX_IMAGE_BYTES // (1024 * 1024)} MiB; send a smaller photo.")
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ImageBadBase64(
            "image.data is not valid base64: use the standard alphabet (A-Z, a-z, 0-9, +, /) with `=` padding."
        ) from None
    return decode_bytes(raw, declared)


def decode_bytes(raw: bytes, declared: str | None = None) -> DecodedImage:
    """Decode image bytes; `declared` (a media type), when given, must be what the bytes really are."""
    if len(raw) > MAX_IMAGE_BYTES:
        raise ImageTooLarge(f"The image is over {MAX_IMAGE_BYTES // (1024 * 1024)} MiB; send a smaller photo.")
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        picture = _open(raw)
        assert picture.format is not None  # set by every plugin _open allows
        actual = SUPPORTED_TYPES[picture.format]
        if declared is not None and declared != actual:
            raise ImageTypeMismatch(f"image.mimeType says {declared}, but the bytes are {actual}.")
        width, height = picture.size
        if width * height > MAX_IMAGE_PIXELS:
            raise ImageTooLarge(
                f"The image is {width} x {height} pixels, over the {MAX_IMAGE_PIXELS // 1_000_000} megapixel "
                "limit; send a smaller photo."
            )
        with _decode_slots:
            picture = _load(picture)
    return DecodedImage(data=raw, mime_type=actual, width=picture.width, height=picture.height, image=picture)


def _open(raw: bytes) -> Image.Image:
    """Read the header only. Any failure other than a bomb means the bytes are not an image we accept."""
    try:
        return Image.open(BytesIO(raw), formats=list(SUPPORTED_TYPES))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _bomb() from None
    except Exception:  # Pillow's plugins raise many types on malformed input; all mean the same here
        raise ImageNotAnImage(f"The data is not an image this service reads ({_ACCEPTED}).") from None


def _load(picture: Image.Image) -> Image.Image:
    """Decode every pixel: a truncated or corrupt file fails here, not later in a tool."""
    try:
        picture.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _bomb() from None
    except Exception:
        raise ImageNotAnImage("The image is truncated or corrupt; send the complete file.") from None
    try:
        if picture.getexif().get(0x0112, 1) != 1:  # EXIF Orientation: phones store photos sideways
            picture = ImageOps.exif_transpose(picture)
    except Exception:  # a broken EXIF block does not make the pixels unusable
        return picture
    return picture


def _bomb() -> ImageTooLarge:
    return ImageTooLarge(
        f"The image claims more pixels than the {MAX_IMAGE_PIXELS // 1_000_000} megapixel limit "
        "(a decompression bomb, or simply too large); send a smaller photo."
    )
