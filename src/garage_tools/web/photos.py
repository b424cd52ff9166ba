"""`GET /photos/<file>`: the reference photos, for the image URLs getInspectionReferencePhotos returns.

Only files the manifest names are served, looked up by exact name in the library (which holds
them in memory), so no path from the URL ever reaches the file system. The URLs the tool hands
out carry `?v=<content hash>`: such a request may be cached for a year, since a changed photo gets
a new URL. Any other request gets a short cache lifetime. `Cross-Origin-Resource-Policy:
cross-origin` lets chat clients and partner pages show the pictures. `?format=jpeg` serves a JPEG copy at
most `EMAIL_SIDE` pixels on its longest side: the inspection e-mail shows those, since several mail
clients show no WebP.
"""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.knowledge.photos import PHOTOS_PATH, PhotoLibrary
from garage_tools.web.assets import unchanged

VERSIONED_CACHE = "public, max-age=31536000, immutable"
UNVERSIONED_CACHE = "public, max-age=3600"


class PhotoFiles:
    def __init__(self, library: PhotoLibrary) -> None:
        self.library = library

    async def serve(self, request: Request) -> Response:
        photo = self.library.get(request.path_params["file"])
        if photo is None:
            raise HTTPException(status_code=404)
        jpeg = request.query_params.get("format") == "jpeg"
        etag = f'"{photo.version}-jpeg"' if jpeg else f'"{photo.version}"'
        headers = {
            "ETag": etag,
            "Cache-Control": VERSIONED_CACHE if request.query_params.get("v") == photo.version else UNVERSIONED_CACHE,
            "X-Content-Type-Options": "nosniff",
            "Cross-Origin-Resource-Policy": "cross-origin",
        }
        if (current := unchanged(request, etag, headers)) is not None:
            return current
        if jpeg:
            copy = await asyncio.to_thread(self.library.email_rendition, photo)  # Pillow, once per photo
            return Response(copy.data, media_type=copy.mime_type, headers=headers)
        return Response(photo.data, media_type=photo.mime_type, headers=headers)


def photo_routes(library: PhotoLibrary) -> list[BaseRoute]:
    return [Route(f"{PHOTOS_PATH}{{file:path}}", PhotoFiles(library).serve, methods=["GET", "HEAD"])]
