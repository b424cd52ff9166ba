"""Images callers send: decoded and checked (`decode`), or fetched from an HTTPS URL behind an SSRF guard (`fetch`).

Nothing else in the service opens a caller's image: every photo passes through `load_image`, so
the same limits and the same error codes apply to every tool that takes one.
"""

from garage_tools.imaging.decode import (
    MAX_IMAGE_BYTES,
    MAX_IMAGE_PIXELS,
    SUPPORTED_TYPES,
    DecodedImage,
    ImageInput,
    decode_bytes,
    decode_image,
)
from garage_tools.imaging.fetch import FetchPolicy, PhotoInput, fetch_image, load_image

__all__ = [
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "SUPPORTED_TYPES",
    "DecodedImage",
    "FetchPolicy",
    "ImageInput",
    "PhotoInput",
    "decode_bytes",
    "decode_image",
    "fetch_image",
    "load_image",
]
