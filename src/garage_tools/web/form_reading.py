"""Reading the homeowner pages' form posts, bounded in size and time before anything is parsed.

Two shapes: a small URL-encoded form (a description, a place, the token) and the photo form
(multipart, one file). The body is read to its limit first, so an oversized upload is refused
without being spooled anywhere, then handed to the multipart parser from memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from garage_tools.web.form_guard import FormRefused

SMALL_FORM_BYTES = 8 * 1024
SEND_FROM_PAGE = "Send this form from the page."


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


async def read_body(request: Request, *, limit: int, seconds: float) -> bytes:
    """The whole body, or `FormRefused` 413 past `limit` bytes (declared or sent) and 408 past `seconds`."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise FormRefused("The form is too large.", status=413)
    body = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise FormRefused("The form is too large.", status=413)
    except TimeoutError:
        raise FormRefused("The form took too long to arrive.", status=408) from None
    return bytes(body)


async def read_small_form(request: Request, *, seconds: float, limit: int = SMALL_FORM_BYTES) -> dict[str, str]:
    """A URL-encoded form's fields (the last value of a repeated one)."""
    if _media_type(request) != "application/x-www-form-urlencoded":
        raise FormRefused(SEND_FROM_PAGE, status=415)
    body = await read_body(request, limit=limit, seconds=seconds)
    try:
        return dict(parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=10))
    except (UnicodeDecodeError, ValueError):
        raise FormRefused("The form could not be read.", status=400) from None


@dataclass(frozen=True, slots=True)
class PhotoForm:
    """The photo form's text fields, and the photo's bytes and media type as the browser named it."""

    fields: dict[str, str] = field(default_factory=dict)
    photo: bytes = b""
    media_type: str = ""

    def get(self, name: str, default: str = "") -> str:
        return self.fields.get(name, default)


async def read_photo_form(request: Request, *, limit: int, seconds: float) -> PhotoForm:
    """A multipart form with at most one file (field `photo`) and a few short text fields."""
    if _media_type(request) != "multipart/form-data":
        raise FormRefused(SEND_FROM_PAGE, status=415)
    body = await read_body(request, limit=limit, seconds=seconds)

    async def chunks() -> AsyncGenerator[bytes, None]:
        yield body

    parser = MultiPartParser(request.headers, chunks(), max_files=1, max_fields=8, max_part_size=16 * 1024)
    try:
        form = await parser.parse()
    except MultiPartException:
        raise FormRefused("The form could not be read.", status=400) from None
    fields: dict[str, str] = {}
    photo, media_type = b"", ""
    try:
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                if name == "photo" and value.filename:
                    photo, media_type = await value.read(), value.content_type or ""
            else:
                fields[name] = value
    finally:
        await form.close()
    return PhotoForm(fields, photo, media_type)
