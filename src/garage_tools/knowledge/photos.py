"""The reference photo library: a manifest of captioned, severity-tagged photos per inspection item.

The manifest (`data/photos/manifest.json`, schema `data/schemas/photo_manifest.schema.json`) lists
each photo's item id, severity (`HEALTHY`, `WATCH`, `FIX`), caption, alt text and file, relative to
the manifest. The packaged photos are original illustrations drawn by
`scripts/draw_reference_photos.py`; an operator can point `GARAGE_TOOLS_REFERENCE_PHOTOS_MANIFEST`
at a manifest of their own. Either way the library is read and checked when the service starts:
every file must exist inside the manifest's directory, be an image of the type its name says and
within `MAX_PHOTO_BYTES`, and every one of the nine reference items must have at least one photo of
each severity. The photos are small, so they are held in memory and served from there (`/photos/…`),
each with a content hash that versions its URL.

A photo with words drawn into it can name the same picture in other languages (`files`, e.g.
`{"es": "springs-fix.es.webp"}`, checked like `file`): a reader of that language is shown that one
(`for_item(..., lang=...)`, `in_language`), a language without one, or a manifest without `files`, the default.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from io import BytesIO
from pathlib import Path, PurePosixPath
from typing import Annotated
from urllib.parse import quote

from PIL import Image
from pydantic import BaseModel, Field, StringConstraints, model_validator

from garage_tools.errors import ImageRejected
from garage_tools.imaging.decode import decode_bytes
from garage_tools.knowledge.checklist import REFERENCE_PHOTO_ITEM_IDS, ReferencePhotoItem
from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError, read_data_file
from garage_tools.knowledge.schemas import DataModel, Text
from garage_tools.languages import DEFAULT, SUPPORTED

PACKAGED_MANIFEST = DATA_DIR / "photos" / "manifest.json"
#: The URL path the photos are served under.
PHOTOS_PATH = "/photos/"
#: Largest photo file accepted in a manifest. Reference photos are shown small; this keeps the library
#: (held in memory) and every response that inlines photos small too.
MAX_PHOTO_BYTES = 512 * 1024
MAX_PHOTOS = 300
#: Longest side of the JPEG copies e-mails show (`?format=jpeg`): mail clients that show no WebP (Outlook on
#: Windows among them) all show JPEG, and an e-mail shows a picture about 280 px wide.
EMAIL_SIDE = 480
_MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp"}

#: A path relative to the manifest: segments start with a letter or digit (so no `..`, no hidden
#: files, no absolute paths), directories have no dots, and the name ends in a supported extension.
PhotoFile = Annotated[
    str,
    StringConstraints(
        pattern=r"^(?:[A-Za-z0-9][A-Za-z0-9_-]*/)*[A-Za-z0-9][A-Za-z0-9_.-]*\.(?:png|jpg|jpeg|webp)$", max_length=200
    ),
]


class PhotoSeverity(StrEnum):
    """The severity tag of a reference photo, as the inspection form's statuses read on a picture."""

    HEALTHY = "HEALTHY"  # what the part should look like
    WATCH = "WATCH"  # worn or borderline: check again, plan a repair
    FIX = "FIX"  # needs repair (and for springs, cables and drums: stop using the door)


SEVERITY_ORDER = {severity: rank for rank, severity in enumerate(PhotoSeverity)}


class PhotoEntry(DataModel):
    item_id: ReferencePhotoItem = Field(alias="itemId", description="The inspection item the photo shows.")
    severity: PhotoSeverity
    caption: Annotated[Text, Field(max_length=300)] = Field(description="What the photo shows, for everyone.")
    alt: Annotated[Text, Field(max_length=300)] = Field(description="Alt text for people who cannot see the photo.")
    file: PhotoFile = Field(description="The image file, relative to the manifest (PNG, JPEG or WebP).")
    files: dict[str, PhotoFile] = Field(
        default_factory=dict,
        description=(
            "The same picture with its words in another language, by language (`es`): readers of that language "
            "are shown it; a language without one is shown `file`."
        ),
    )

    @model_validator(mode="after")
    def _languages(self) -> PhotoEntry:
        others = [lang for lang in SUPPORTED if lang != DEFAULT]
        if unknown := sorted(set(self.files) - set(others)):
            raise ValueError(f"`files` are by language, one of {', '.join(others)}; not {', '.join(unknown)}")
        return self

    def file_in(self, lang: str | None) -> str:
        """The file to show a reader of `lang`: its own, else the default."""
        return self.files.get(lang or DEFAULT, self.file)


class PhotoManifest(DataModel):
    about: Text
    credit: Text = Field(description="Who made the photos, and on what terms they may be shown.")
    photos: list[PhotoEntry] = Field(min_length=1, max_length=MAX_PHOTOS)

    @model_validator(mode="after")
    def _complete(self) -> PhotoManifest:
        files = [file for photo in self.photos for file in (photo.file, *photo.files.values())]
        if len(set(files)) != len(files):
            raise ValueError("each file may be listed once")
        present = {(photo.item_id, photo.severity) for photo in self.photos}
        missing = [
            f"{item} {severity.value}"
            for item in REFERENCE_PHOTO_ITEM_IDS
            for severity in PhotoSeverity
            if (item, severity) not in present
        ]
        if missing:
            raise ValueError(f"every reference item needs a photo of each severity; missing: {', '.join(missing)}")
        return self


#: Schema files `garage-tools knowledge schemas` writes for this module (name -> model).
PHOTO_FILES: dict[str, type[BaseModel]] = {"photo_manifest.json": PhotoManifest}


@dataclass(frozen=True, slots=True)
class Photo:
    """One photo of the library, checked and in memory: the entry's `file`, or one of its `files`."""

    entry: PhotoEntry
    file: str
    data: bytes
    mime_type: str
    width: int
    height: int
    version: str  # a short hash of the bytes: part of the URL, so caches never serve an old picture

    @property
    def path(self) -> str:
        """Where the web app serves it (`web/photos.py`): stable while the file is unchanged."""
        return f"{PHOTOS_PATH}{quote(self.file)}?v={self.version}"

    @property
    def email_path(self) -> str:
        """Where the web app serves its JPEG copy for e-mails (at most `EMAIL_SIDE` px)."""
        return f"{self.path}&format=jpeg"


@dataclass(frozen=True, slots=True)
class Rendition:
    """A photo re-encoded to fit a size, for inlining."""

    data: bytes
    mime_type: str


class PhotoLibrary:
    """The photos of one manifest, indexed by file and by item; `photos` are the default files, and
    `translated` the entries' `files` (served as well, shown through `in_language`)."""

    def __init__(
        self, source: Path, manifest: PhotoManifest, photos: list[Photo], translated: Sequence[Photo] = ()
    ) -> None:
        self.source = source
        self.manifest = manifest
        self.photos = tuple(photos)
        self._by_file = {photo.file: photo for photo in (*photos, *translated)}
        self._renditions: dict[tuple[str, int, str], Rendition] = {}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, manifest_path: Path) -> PhotoLibrary:
        """Read and check a manifest and every photo it names, or raise `KnowledgeError` saying what is wrong."""
        manifest_path = manifest_path.expanduser().resolve()
        manifest = read_data_file(manifest_path, PhotoManifest)
        root = manifest_path.parent
        photos = [_photo(root, entry, entry.file) for entry in manifest.photos]
        translated = [_photo(root, entry, file) for entry in manifest.photos for file in entry.files.values()]
        return cls(manifest_path, manifest, photos, translated)

    def get(self, file: str) -> Photo | None:
        """The photo of a file the manifest names (in any language), or None."""
        return self._by_file.get(file)

    def in_language(self, photo: Photo, lang: str | None) -> Photo:
        """The same picture for a reader of `lang`: its file in that language, else the default one."""
        return self._by_file[photo.entry.file_in(lang)]

    def for_item(self, item_id: str, severity: PhotoSeverity | None = None, lang: str | None = None) -> list[Photo]:
        """The item's photos, HEALTHY first, then WATCH, then FIX; manifest order within a severity; each in
        `lang` where it has a file in that language."""
        chosen = [
            self.in_language(photo, lang)
            for photo in self.photos
            if photo.entry.item_id == item_id and (severity is None or photo.entry.severity is severity)
        ]
        return sorted(chosen, key=lambda photo: SEVERITY_ORDER[photo.entry.severity])

    def rendition(self, photo: Photo, max_side: int) -> Rendition:
        """The photo at most `max_side` pixels wide and high: as stored when it fits, else a WebP copy (cached)."""
        if max(photo.width, photo.height) <= max_side:
            return Rendition(photo.data, photo.mime_type)
        return self._cached(photo, max_side, "WEBP")

    def email_rendition(self, photo: Photo) -> Rendition:
        """A JPEG copy at most `EMAIL_SIDE` pixels on its longest side, for e-mails (cached)."""
        return self._cached(photo, EMAIL_SIDE, "JPEG")

    def _cached(self, photo: Photo, max_side: int, kind: str) -> Rendition:
        key = (photo.file, max_side, kind)
        with self._lock:
            cached = self._renditions.get(key)
        if cached is None:
            cached = _shrink(photo, max_side, kind)
            with self._lock:
                self._renditions[key] = cached
        return cached


def _photo(root: Path, entry: PhotoEntry, file: str) -> Photo:
    path = (root / PurePosixPath(file)).resolve()
    if not path.is_relative_to(root):  # a symlink out of the manifest's directory
        raise KnowledgeError(f"{root / file}: photo files must be inside {root}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KnowledgeError(f"{path}: cannot read the photo: {exc.strerror or exc}") from exc
    if len(data) > MAX_PHOTO_BYTES:
        raise KnowledgeError(f"{path}: {len(data)} bytes, over the {MAX_PHOTO_BYTES // 1024} KiB limit for a photo")
    try:
        decoded = decode_bytes(data, _MEDIA_TYPES[path.suffix.lower()])
    except ImageRejected as exc:
        raise KnowledgeError(f"{path}: {exc.message}") from exc
    version = hashlib.sha256(data).hexdigest()[:12]
    return Photo(entry, file, data, decoded.mime_type, decoded.width, decoded.height, version)


def _shrink(photo: Photo, max_side: int, kind: str = "WEBP") -> Rendition:
    with Image.open(BytesIO(photo.data)) as picture:
        picture.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
        out = BytesIO()
        if kind == "JPEG":
            flat = Image.new("RGB", picture.size, "white")  # JPEG has no transparency: lay it on white
            flat.paste(picture, mask=picture.getchannel("A") if "A" in picture.getbands() else None)
            flat.save(out, "JPEG", quality=82, optimize=True, progressive=True)
            return Rendition(out.getvalue(), "image/jpeg")
        picture.save(out, "WEBP", quality=80, method=4)
    return Rendition(out.getvalue(), "image/webp")


@lru_cache(maxsize=1)
def packaged_photo_library() -> PhotoLibrary:
    """The packaged library (the default when no operator manifest is configured)."""
    return PhotoLibrary.load(PACKAGED_MANIFEST)


def load_photo_library(manifest: Path | None) -> PhotoLibrary:
    """The operator's library when `manifest` is set, else the packaged one."""
    return packaged_photo_library() if manifest is None else PhotoLibrary.load(manifest)
