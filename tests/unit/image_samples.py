"""Images for the imaging and visualDiagnose tests, made here: real encodes by Pillow, and forged headers."""

from __future__ import annotations

import base64
import struct
import zlib
from io import BytesIO

from PIL import Image, ImageDraw

MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}


def scene(size: tuple[int, int] = (640, 480), light: int = 200) -> Image.Image:
    """A sharp, evenly lit picture: a wall, a shaft and a row of coil-like bars."""
    picture = Image.new("RGB", size, (light, light - 4, light - 12))
    draw = ImageDraw.Draw(picture)
    width, height = size
    draw.rectangle((0, height * 0.6, width, height), fill=(light // 2, light // 2, light // 2))
    for x in range(int(width * 0.15), int(width * 0.85), 8):
        draw.line((x, height * 0.3, x + 6, height * 0.55), fill=(60, 66, 72), width=4)
    return picture


def encode(picture: Image.Image, fmt: str, **options: object) -> bytes:
    out = BytesIO()
    picture.convert("P" if fmt == "GIF" else picture.mode).save(out, fmt, **options)
    return out.getvalue()


def photo(fmt: str = "PNG", size: tuple[int, int] = (640, 480), light: int = 200) -> bytes:
    return encode(scene(size, light), fmt)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def inline(data: bytes, mime: str) -> dict[str, str]:
    """The JSON `image` argument."""
    return {"data": b64(data), "mimeType": mime}


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims `width` x `height` pixels: how decompression bombs start."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"\x00" * 1024))
        + _chunk(b"IEND", b"")
    )
