"""The reference photo library, getInspectionReferencePhotos and the `/photos/` route."""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from starlette.testclient import TestClient

from garage_tools.access.caller import Caller
from garage_tools.app import create_app
from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.checklist import REFERENCE_PHOTO_ITEM_IDS
from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError, schema_for
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.parts import PartWords
from garage_tools.knowledge.photos import (
    MAX_PHOTO_BYTES,
    PhotoLibrary,
    PhotoManifest,
    PhotoSeverity,
    packaged_photo_library,
)
from garage_tools.registry import ToolContext, dump, dump_json, invoke, parse_arguments
from garage_tools.settings import Settings
from garage_tools.surfaces.mcp_encoding import tool_result
from garage_tools.tools import build_registry
from garage_tools.tools.photos import TOOL, ReferencePhotosInput, get_reference_photos
from tests.tool_data import unopened_data
from tests.unit.image_samples import scene

DATA = unopened_data()  # real stores no handler here opens

BASE = "https://tools.example.com"


def context(knowledge: Knowledge, surface: str = "rest") -> ToolContext:
    return ToolContext(knowledge=knowledge, caller=Caller.anonymous(surface), base_url=BASE, data=DATA)


async def call(knowledge: Knowledge, surface: str = "rest", **arguments: Any) -> dict[str, Any]:
    args = parse_arguments(TOOL, arguments)
    result = await get_reference_photos(args, context(knowledge, surface))
    return json.loads(dump_json(result))  # type: ignore[no-any-return]


def write_library(
    root: Path,
    *,
    crowded: str | None = None,
    per_severity: int = 1,
    size: tuple[int, int] = (64, 48),
    wordy: bool = False,
) -> Path:
    """An operator's own library: JPEG photos in a subfolder, a manifest beside them. The `crowded` item gets
    `per_severity` large, detailed photos of each severity; every other item one small photo each. `wordy`
    gives every photo a caption and alt text of the 300 characters the schema allows, quotes and all."""
    (root / "pics").mkdir(parents=True, exist_ok=True)
    photos = []
    for item in REFERENCE_PHOTO_ITEM_IDS:
        for severity in PhotoSeverity:
            crowd = item == crowded
            for n in range(per_severity if crowd else 1):
                name = f"pics/{item}-{severity.value.lower()}-{n}.jpg"
                picture = scene(size if crowd else (64, 48))
                if crowd:  # photo-like detail that does not compress away
                    picture = Image.blend(picture, Image.effect_noise(size, 90).convert("RGB"), 0.5)
                picture.save(root / name, "JPEG", quality=92)
                photos.append(
                    {
                        "itemId": item,
                        "severity": severity.value,
                        "caption": _wordy(f"Our {item} ({severity.value})", wordy),
                        "alt": _wordy(f"Photo of {item}", wordy),
                        "file": name,
                    }
                )
    manifest = {"about": "Our own photos.", "credit": "Photos by Example Doors.", "photos": photos}
    path = root / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def _wordy(text: str, wordy: bool) -> str:
    """`text`, or `text` run on to 300 characters with quotes and a backslash (each two in JSON)."""
    return (text + ' \u2014 note the "gap", the \\ bend and the "rust" here.' * 12)[:300].strip() if wordy else text


# --- the packaged library ------------------------------------------------------------------------


def test_the_packaged_library_covers_the_nine_items_in_every_severity() -> None:
    library = packaged_photo_library()
    for item in REFERENCE_PHOTO_ITEM_IDS:
        for severity in PhotoSeverity:
            assert library.for_item(item, severity), f"no {severity.value} photo of {item}"
    assert len(library.photos) >= 27
    for photo in library.photos:
        assert photo.mime_type == "image/webp" and (photo.width, photo.height) == (640, 480)
        assert len(photo.data) < 40 * 1024, f"{photo.file} is {len(photo.data)} bytes"
        assert photo.entry.caption and photo.entry.alt.startswith("Illustration")
    assert "Original illustrations" in library.manifest.credit


def test_the_schema_files_match_the_models() -> None:
    for name, model in {"photo_manifest.json": PhotoManifest, "part_words.json": PartWords}.items():
        on_disk = json.loads((DATA_DIR / "schemas" / name.replace(".json", ".schema.json")).read_text())
        assert on_disk == schema_for(model), f"run `garage-tools knowledge schemas` to refresh {name}"


# --- the tool ------------------------------------------------------------------------------------


def test_an_unknown_item_id_is_refused_with_the_list_of_ids() -> None:
    with pytest.raises(InvalidArguments) as excinfo:
        parse_arguments(TOOL, {"itemId": "hinges"})
    assert excinfo.value.details and excinfo.value.details[0].field == "itemId"
    assert all(item in excinfo.value.message for item in REFERENCE_PHOTO_ITEM_IDS)
    with pytest.raises(InvalidArguments):
        parse_arguments(TOOL, {})


async def test_rest_returns_urls_in_severity_order_by_default(knowledge: Knowledge) -> None:
    answer = await call(knowledge, itemId="springs")
    assert answer["label"] == "Torsion or extension springs" and "gap" in answer["lookFor"]
    assert [p["severity"] for p in answer["photos"]] == ["HEALTHY", "WATCH", "FIX"]
    assert answer["inline"] is False and all("image" not in p for p in answer["photos"])
    first = answer["photos"][0]
    assert first["url"].startswith(f"{BASE}/photos/springs-healthy.webp?v=")
    assert first["mimeType"] == "image/webp" and first["caption"].startswith("Healthy torsion springs")


async def test_mcp_gets_the_pictures_inline_unless_it_declines(knowledge: Knowledge) -> None:
    answer = await call(knowledge, "mcp", itemId="cables", severity="FIX")
    assert answer["inline"] is True and answer["count"] == 1
    photo = answer["photos"][0]
    stored = packaged_photo_library().get("cables-fix.webp")
    assert stored is not None and base64.b64decode(photo["image"]["data"]) == stored.data
    assert photo["image"]["mimeType"] == "image/webp"
    declined = await call(knowledge, "mcp-pro", itemId="cables", inlineImages=False)
    assert declined["inline"] is False and all("image" not in p for p in declined["photos"])


async def test_on_mcp_each_picture_follows_its_severity_and_caption(knowledge: Knowledge) -> None:
    result = await get_reference_photos(parse_arguments(TOOL, {"itemId": "springs"}), context(knowledge, "mcp"))
    encoded = tool_result(result)
    first, *blocks = encoded["content"]
    # What clients that read the JSON see is untouched: the JSON text block first, then the structured content.
    assert json.loads(first["text"]) == encoded["structuredContent"]
    assert "caption" not in json.dumps([photo["image"] for photo in encoded["structuredContent"]["photos"]])
    assert [block["type"] for block in blocks] == ["text", "image"] * len(result.photos)
    for photo, caption, image in zip(result.photos, blocks[::2], blocks[1::2], strict=True):
        assert photo.image is not None
        assert caption["text"] == f"{photo.severity.value}: {photo.caption}"
        assert (image["data"], image["mimeType"]) == (photo.image.data, photo.image.mime_type)
    assert [block["text"].split(":")[0] for block in blocks[::2]] == ["HEALTHY", "WATCH", "FIX"]


async def test_in_spanish_every_caption_and_alt_text_is_spanish_and_ids_stay(knowledge: Knowledge) -> None:
    english = await call(knowledge, itemId="springs")
    spanish = await call(knowledge, itemId="springs", lang="es")
    assert spanish["lang"] == "es" and english["lang"] == "en"
    springs = knowledge.language("es").checklist.items[0]
    assert (
        (spanish["label"], spanish["lookFor"])
        == (springs.label, springs.look_for)
        != (
            english["label"],
            english["lookFor"],
        )
    )
    assert [p["severity"] for p in spanish["photos"]] == ["HEALTHY", "WATCH", "FIX"]
    # The pictures themselves are the Spanish ones: their titles, badges and call-outs are drawn in Spanish.
    assert [p["url"].split("?")[0] for p in spanish["photos"]] == [
        f"{BASE}/photos/springs-{severity}.es.webp" for severity in ("healthy", "watch", "fix")
    ]
    assert all(
        p["url"].split("?")[0].endswith(f"{p['itemId']}-{p['severity'].lower()}.webp") for p in english["photos"]
    )
    fix = spanish["photos"][2]
    assert fix["caption"].startswith("Resorte de torsión roto") and "2 pulgadas" in fix["caption"]
    assert fix["alt"].startswith("Dibujo de un resorte de torsión")
    for spanish_photo, english_photo in zip(spanish["photos"], english["photos"], strict=True):
        assert spanish_photo["caption"] != english_photo["caption"]
        assert spanish_photo["alt"] != english_photo["alt"]


async def test_on_mcp_the_caption_beside_each_picture_is_in_the_language_asked_for(knowledge: Knowledge) -> None:
    args = parse_arguments(TOOL, {"itemId": "cables", "severity": "FIX", "lang": "es-MX"})
    result = await get_reference_photos(args, context(knowledge, "mcp"))
    _, caption, image = tool_result(result)["content"]
    assert caption["text"].startswith("FIX: Cable de elevación deshilachado")
    # ... and the picture beside it is the Spanish one, as stored (it fits the inline budget whole).
    spanish = packaged_photo_library().get("cables-fix.es.webp")
    assert spanish is not None and base64.b64decode(image["data"]) == spanish.data


@pytest.mark.parametrize(
    ("description", "lang"),
    [("escuché un estallido en la cochera y el portón ya no sube", "es"), ("loud bang and the door won't open", "en")],
)
async def test_the_journeys_gallery_is_in_the_language_of_the_description(
    knowledge: Knowledge, description: str, lang: str
) -> None:
    answer = dump(await invoke(build_registry(), "homeownerAnswer", {"description": description}, context(knowledge)))
    gallery = answer["referencePhotos"]
    assert answer["diagnosis"]["lang"] == gallery["lang"] == lang and gallery["itemId"] == "springs"
    spanish = [photo["url"].split("?")[0].endswith(".es.webp") for photo in gallery["photos"]]
    assert spanish == [lang == "es"] * 3
    assert gallery["photos"][2]["caption"].startswith("Resorte de torsión roto" if lang == "es" else "Broken torsion")


def test_the_library_shows_each_language_its_own_picture_and_the_default_to_others() -> None:
    library = packaged_photo_library()
    for item in REFERENCE_PHOTO_ITEM_IDS:
        for severity in PhotoSeverity:
            (english,) = library.for_item(item, severity)
            (spanish,) = library.for_item(item, severity, "es")
            assert english.file == f"{item}-{severity.value.lower()}.webp" == english.entry.file
            assert spanish.file == f"{item}-{severity.value.lower()}.es.webp"
            assert spanish.entry is english.entry and spanish.data != english.data
            assert (spanish.width, spanish.height) == (english.width, english.height)
            assert spanish.version != english.version  # its own URL, cached on its own
            # English, a language the pictures are not drawn in, and no language at all: the default picture
            assert [library.for_item(item, severity, lang)[0] for lang in ("en", "fr", None)] == [english] * 3
            assert library.in_language(english, "es") is spanish and library.in_language(english, "de") is english


def test_an_operator_manifest_without_languages_shows_its_pictures_in_every_language(tmp_path: Path) -> None:
    library = PhotoLibrary.load(write_library(tmp_path / "mine"))
    assert (
        [p.file for p in library.for_item("keypad", lang="es")]
        == [p.file for p in library.for_item("keypad")]
        == [f"pics/keypad-{severity}-0.jpg" for severity in ("healthy", "watch", "fix")]
    )


def test_an_operator_can_give_a_picture_in_spanish(tmp_path: Path) -> None:
    manifest = write_library(tmp_path / "mine")
    scene((64, 48)).save(tmp_path / "mine" / "pics" / "keypad-fix-0.es.jpg", "JPEG")
    _break(manifest, lambda m: m["photos"][-1].update(files={"es": "pics/keypad-fix-0.es.jpg"}))
    library = PhotoLibrary.load(manifest)
    assert [p.file for p in library.for_item("keypad", lang="es")] == [
        "pics/keypad-healthy-0.jpg",
        "pics/keypad-watch-0.jpg",
        "pics/keypad-fix-0.es.jpg",
    ]
    assert library.for_item("keypad", PhotoSeverity.FIX)[0].file == "pics/keypad-fix-0.jpg"


@pytest.mark.parametrize("item", REFERENCE_PHOTO_ITEM_IDS)
async def test_rest_answers_with_inline_pictures_stay_under_100000_characters(knowledge: Knowledge, item: str) -> None:
    args = ReferencePhotosInput.model_validate({"itemId": item, "inlineImages": True})
    result = await get_reference_photos(args, context(knowledge))
    assert len(dump_json(result)) < 100_000
    assert all(photo.image is not None for photo in result.photos)


def test_a_large_library_is_shrunk_then_sent_partly_by_url_to_stay_small(tmp_path: Path) -> None:
    manifest = write_library(tmp_path / "big", crowded="keypad", per_severity=8, size=(700, 525))
    settings = Settings(_env_file=None, data_dir=tmp_path, reference_photos_manifest=manifest)  # type: ignore[call-arg]
    with TestClient(create_app(settings)) as client:
        response = client.post("/api/v1/getInspectionReferencePhotos", json={"itemId": "keypad", "inlineImages": True})
    assert response.status_code == 200 and len(response.text) < 100_000
    answer = response.json()
    inlined = [photo["image"] for photo in answer["photos"] if "image" in photo]
    assert answer["count"] == 24 and inlined and answer["note"]
    assert all(Image.open(BytesIO(base64.b64decode(image["data"]))).width <= 160 for image in inlined)
    assert len(inlined) < 24 and "by URL only" in answer["note"]


def test_long_captions_count_against_the_100000_characters_too(tmp_path: Path) -> None:
    # Twenty-four photos of one item, each with 600 characters of caption and alt text (more once escaped):
    # some 25,000 characters before any picture. Only the pictures were counted once, and this came out at
    # about 107,000 characters.
    manifest = write_library(tmp_path / "wordy", crowded="keypad", per_severity=8, size=(700, 525), wordy=True)
    settings = Settings(_env_file=None, data_dir=tmp_path, reference_photos_manifest=manifest)  # type: ignore[call-arg]
    with TestClient(create_app(settings)) as client:
        response = client.post("/api/v1/getInspectionReferencePhotos", json={"itemId": "keypad", "inlineImages": True})
    assert response.status_code == 200 and len(response.text) < 100_000
    answer = response.json()
    captions = [photo["caption"] for photo in answer["photos"]]
    assert answer["count"] == 24 and all(len(caption) >= 299 and '"gap"' in caption for caption in captions)
    assert sum(len(photo["caption"]) + len(photo["alt"]) for photo in answer["photos"]) > 14_000
    inlined = [photo for photo in answer["photos"] if "image" in photo]
    assert inlined and "by URL only" in answer["note"]  # the pictures shrink and some go, the words stay
    assert len(response.text) > 90_000  # and the room left is used: the limit is the reply, not a guess


@pytest.mark.parametrize("inline", [False, True])
def test_a_gallery_too_wordy_for_one_reply_leaves_photos_out_evenly_and_says_so(tmp_path: Path, inline: bool) -> None:
    # 135 photos of one item with 300-character captions and alt texts: some 113,000 characters in words alone.
    manifest = write_library(tmp_path / "wordy", crowded="keypad", per_severity=45, wordy=True)
    settings = Settings(_env_file=None, data_dir=tmp_path, reference_photos_manifest=manifest)  # type: ignore[call-arg]
    with TestClient(create_app(settings)) as client:
        path = "/api/v1/getInspectionReferencePhotos"
        response = client.post(path, json={"itemId": "keypad", "inlineImages": inline})
        one_severity = client.post(path, json={"itemId": "keypad", "severity": "FIX"})
    assert response.status_code == 200 and len(response.text) < 100_000
    answer = response.json()
    shown = Counter(photo["severity"] for photo in answer["photos"])
    assert answer["count"] == len(answer["photos"]) < 135 and max(shown.values()) - min(shown.values()) <= 1
    assert f"{135 - answer['count']} more photos of this item are left out" in answer["note"]
    assert "one `severity` at a time" in answer["note"]
    assert one_severity.json()["count"] == 45 and "note" not in one_severity.json()  # as the note promises


# --- operator libraries and the /photos/ route -------------------------------------------------


@pytest.fixture
def operator_app(tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    manifest = write_library(tmp_path / "mine")
    settings = Settings(_env_file=None, data_dir=tmp_path, reference_photos_manifest=manifest)  # type: ignore[call-arg]
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8000") as client:
        yield client, manifest.parent


def test_an_operator_manifest_replaces_the_packaged_photos(operator_app: tuple[TestClient, Path]) -> None:
    client, root = operator_app
    answer = client.post("/api/v1/getInspectionReferencePhotos", json={"itemId": "keypad"}).json()
    assert [p["caption"] for p in answer["photos"]] == [
        "Our keypad (HEALTHY)",
        "Our keypad (WATCH)",
        "Our keypad (FIX)",
    ]
    assert answer["credit"] == "Photos by Example Doors."
    spanish = client.post("/api/v1/getInspectionReferencePhotos", json={"itemId": "keypad", "lang": "es"}).json()
    assert spanish["photos"][0]["caption"] == "Our keypad (HEALTHY)"  # no translation: the operator's own words
    url = answer["photos"][2]["url"]
    assert url.startswith("http://127.0.0.1:8000/photos/pics/keypad-fix-0.jpg?v=")
    served = client.get(url)
    assert served.status_code == 200 and served.headers["content-type"] == "image/jpeg"
    assert served.content == (root / "pics" / "keypad-fix-0.jpg").read_bytes()
    assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert served.headers["x-content-type-options"] == "nosniff"
    again = client.get(url, headers={"If-None-Match": served.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    unversioned = client.get("/photos/pics/keypad-fix-0.jpg")
    assert unversioned.status_code == 200 and "immutable" not in unversioned.headers["cache-control"]


@pytest.mark.parametrize(
    "path",
    [
        "/photos/manifest.json",
        "/photos/pics/../manifest.json",
        "/photos/%2e%2e/manifest.json",
        "/photos/springs-fix.webp",
    ],
)
def test_only_files_the_manifest_names_are_served(operator_app: tuple[TestClient, Path], path: str) -> None:
    client, _ = operator_app
    response = client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_the_packaged_photos_are_served_by_default(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    with TestClient(create_app(settings)) as client:
        answer = client.post("/api/v1/getInspectionReferencePhotos", json={"itemId": "photo-eyes"}).json()
        for photo in answer["photos"]:
            picture = client.get(photo["url"])
            assert picture.status_code == 200 and picture.headers["content-type"] == "image/webp"
            assert Image.open(BytesIO(picture.content)).size == (640, 480)


def test_the_spanish_pictures_are_served_like_the_others(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    with TestClient(create_app(settings)) as client:
        answer = client.post("/api/v1/getInspectionReferencePhotos", json={"itemId": "springs", "lang": "es"}).json()
        for photo in answer["photos"]:
            assert ".es.webp?v=" in photo["url"]
            picture = client.get(photo["url"])
            assert picture.status_code == 200 and picture.headers["content-type"] == "image/webp"
            assert "immutable" in picture.headers["cache-control"]
            jpeg = client.get(photo["url"] + "&format=jpeg")  # the e-mail's copy
            assert jpeg.status_code == 200 and jpeg.headers["content-type"] == "image/jpeg"
        # Still only what the manifest names: a language's file of a picture that has none is not there.
        assert client.get("/photos/springs-fix.fr.webp").status_code == 404


def _break(manifest: Path, change: Any) -> None:
    data = json.loads(manifest.read_text())
    change(data)
    manifest.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: m["photos"].pop(), "missing: keypad FIX"),
        (lambda m: m["photos"][0].update(file="../outside.png"), "file"),
        (lambda m: m["photos"][0].update(file="/etc/passwd.png"), "file"),
        (lambda m: m["photos"][0].update(file="pics/nothing-here.jpg"), "cannot read the photo"),
        (lambda m: m["photos"][0].update(itemId="hinges"), "itemId"),
        (lambda m: m["photos"][0].update(severity="BROKEN"), "severity"),
        (lambda m: m["photos"][1].update(file=m["photos"][0]["file"]), "each file may be listed once"),
        (lambda m: m["photos"][1].update(files={"es": m["photos"][0]["file"]}), "each file may be listed once"),
        (lambda m: m["photos"][0].update(files={"es": "pics/nothing-here.jpg"}), "cannot read the photo"),
        (lambda m: m["photos"][0].update(files={"es": "../outside.png"}), "files"),
        (lambda m: m["photos"][0].update(files={"fr": m["photos"][0]["file"]}), "`files` are by language"),
    ],
    ids=[
        "coverage",
        "parent-dir",
        "absolute",
        "missing-file",
        "unknown-item",
        "bad-severity",
        "duplicate",
        "duplicate-language-file",
        "missing-language-file",
        "language-file-outside",
        "unknown-language",
    ],
)
def test_a_bad_operator_manifest_stops_start_up_with_a_clear_message(tmp_path: Path, change: Any, says: str) -> None:
    manifest = write_library(tmp_path / "mine")
    _break(manifest, change)
    settings = Settings(_env_file=None, data_dir=tmp_path, reference_photos_manifest=manifest)  # type: ignore[call-arg]
    with pytest.raises(KnowledgeError) as excinfo:
        create_app(settings)
    assert says in str(excinfo.value)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"this is not a jpeg", "not an image"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "not an image"),
        (b"\xff" * (MAX_PHOTO_BYTES + 1), "KiB limit"),
    ],
    ids=["text", "bad-png", "too-big"],
)
def test_a_photo_file_that_is_not_a_usable_image_is_refused(tmp_path: Path, content: bytes, says: str) -> None:
    manifest = write_library(tmp_path)
    (tmp_path / "pics" / "springs-fix-0.jpg").write_bytes(content)
    with pytest.raises(KnowledgeError) as excinfo:
        PhotoLibrary.load(manifest)
    assert "springs-fix-0.jpg" in str(excinfo.value) and says in str(excinfo.value)


def test_a_png_named_jpg_is_refused(tmp_path: Path) -> None:
    manifest = write_library(tmp_path)
    scene((40, 30)).save(tmp_path / "pics" / "drums-watch-0.jpg", "PNG")
    with pytest.raises(KnowledgeError) as excinfo:
        PhotoLibrary.load(manifest)
    assert "drums-watch-0.jpg" in str(excinfo.value) and "image/png" in str(excinfo.value)
