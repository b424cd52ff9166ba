"""Images callers send: every bad one refused with its own 400 code, and the SSRF guard on `imageUrl`.

The fetch tests run the real guard against a fake HTTPS host on loopback (tests/fakes/image_host.py):
names resolve through an injected resolver, the host's self-signed certificate is trusted through
an injected TLS context, and loopback is allowed only where a test says so. Every other address
check runs against the production policy, whose refusals happen before any connection is opened.
"""

from __future__ import annotations

import ipaddress
import socket
import warnings
from collections.abc import Iterator
from io import BytesIO
from typing import Any

import pytest
from PIL import Image

from garage_tools.errors import ImageRejected
from garage_tools.imaging import (
    MAX_IMAGE_BYTES,
    FetchPolicy,
    ImageInput,
    decode_bytes,
    decode_image,
    fetch_image,
    load_image,
)
from garage_tools.imaging.fetch import Resolver, is_public_address
from tests.fakes.image_host import FakeImageHost, Reply
from tests.unit.image_samples import MIME, b64, encode, inline, photo, png_claiming, scene

LOOPBACK = ipaddress.ip_address("127.0.0.1")


def image(data: bytes | str, mime: str) -> ImageInput:
    text = data if isinstance(data, str) else b64(data)
    return ImageInput.model_validate({"data": text, "mimeType": mime})


def assert_code(excinfo: pytest.ExceptionInfo[ImageRejected], code: str) -> None:
    assert excinfo.value.code == code, excinfo.value.message
    assert excinfo.value.status == 400


# --- decoding -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "GIF"])
def test_each_supported_format_decodes_with_its_real_type_and_size(fmt: str) -> None:
    decoded = decode_image(image(photo(fmt, (320, 200)), MIME[fmt]))
    assert decoded.mime_type == MIME[fmt]
    assert (decoded.width, decoded.height) == (320, 200)
    assert decoded.image.size == (320, 200)
    assert decoded.image.getpixel((2, 2)) is not None  # the pixels are decoded, not just the header


def test_line_breaks_in_the_base64_and_common_type_aliases_are_accepted() -> None:
    text = b64(photo("JPEG", (64, 48)))
    wrapped = "\r\n".join(text[i : i + 76] for i in range(0, len(text), 76))
    assert decode_image(image(wrapped, "IMAGE/JPG")).mime_type == "image/jpeg"


def test_a_data_url_prefix_is_refused_with_its_own_code() -> None:
    with pytest.raises(ImageRejected) as excinfo:
        decode_image(image("data:image/png;base64," + b64(photo()), "image/png"))
    assert_code(excinfo, "image_data_url_prefix")


@pytest.mark.parametrize("text", ["not base64 at all!", "iVBORw0KGgo", "iVBOR-w0_KGgo=", "aGVsbG8=aGVsbG8="])
def test_bad_base64_is_refused(text: str) -> None:
    with pytest.raises(ImageRejected) as excinfo:
        decode_image(image(text, "image/png"))
    assert_code(excinfo, "image_bad_base64")


@pytest.mark.parametrize(
    "data",
    [
        b"hello, this is text",
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        encode(scene((40, 30)), "BMP"),  # a real image, in a format we do not read
        encode(scene((40, 30)), "TIFF"),
    ],
    ids=["text", "pdf", "bmp", "tiff"],
)
def test_bytes_that_are_not_an_accepted_image_are_refused(data: bytes) -> None:
    with pytest.raises(ImageRejected) as excinfo:
        decode_image(image(data, "image/png"))
    assert_code(excinfo, "image_not_an_image")


@pytest.mark.parametrize(("fmt", "declared"), [("PNG", "image/jpeg"), ("JPEG", "image/webp"), ("WEBP", "image/png")])
def test_a_mime_type_that_does_not_match_the_bytes_is_refused(fmt: str, declared: str) -> None:
    with pytest.raises(ImageRejected) as excinfo:
        decode_image(image(photo(fmt, (40, 30)), declared))
    assert_code(excinfo, "image_type_mismatch")
    assert MIME[fmt] in excinfo.value.message


@pytest.mark.parametrize("declared", ["image/heic", "text/plain", "image/svg+xml"])
def test_an_unsupported_mime_type_is_refused(declared: str) -> None:
    with pytest.raises(ImageRejected) as excinfo:
        decode_image(image(photo("PNG", (40, 30)), declared))
    assert_code(excinfo, "image_type_mismatch")
    assert "image/webp" in excinfo.value.message  # says what is accepted


def test_too_many_bytes_is_refused_before_decoding() -> None:
    with pytest.raises(ImageRejected) as excinfo:
        decode_image(image(b"\x00" * (MAX_IMAGE_BYTES + 1), "image/png"))
    assert_code(excinfo, "image_too_large")


@pytest.mark.parametrize(
    ("width", "height"),
    [(6000, 5000), (10_000, 10_000), (50_000, 50_000)],
    ids=["30-megapixels", "pillow-warning-range", "pillow-error-range"],
)
def test_too_many_pixels_and_decompression_bombs_are_refused_without_warnings(width: int, height: int) -> None:
    bomb = png_claiming(width, height)
    assert len(bomb) < 2000
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a DecompressionBombWarning escaping would fail the test
        with pytest.raises(ImageRejected) as excinfo:
            decode_image(image(bomb, "image/png"))
    assert_code(excinfo, "image_too_large")


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_a_truncated_image_is_refused(fmt: str) -> None:
    data = photo(fmt, (320, 240))
    with pytest.raises(ImageRejected) as excinfo:
        decode_image(image(data[: len(data) // 2], MIME[fmt]))
    assert_code(excinfo, "image_not_an_image")


def test_a_photo_stored_sideways_is_turned_upright() -> None:
    picture = scene((60, 40))
    exif = picture.getexif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    out = BytesIO()
    picture.save(out, "JPEG", exif=exif)
    decoded = decode_bytes(out.getvalue(), "image/jpeg")
    assert (decoded.width, decoded.height) == (40, 60)


# --- which addresses a URL may reach -------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd00:ec2::254",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
        "2002:a00:1::",  # 6to4 of 10.0.0.1
    ],
)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert not is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert is_public_address(ipaddress.ip_address(address))


# --- fetching -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def image_host() -> Iterator[FakeImageHost]:
    with FakeImageHost() as host:
        yield host


@pytest.fixture
def host(image_host: FakeImageHost) -> FakeImageHost:
    image_host.reset()
    return image_host


class Names:
    """An injected resolver: a fixed table, and a record of every name looked up."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.table[host]


def trusting(host: FakeImageHost, resolver: Resolver, **changes: Any) -> FetchPolicy:
    """The test policy: the fake host's certificate trusted, loopback (and only loopback) allowed, any port."""
    options: dict[str, Any] = {
        "resolver": resolver,
        "verify": host.ssl_context(),
        "also_allow": frozenset({LOOPBACK}),
        "ports": None,
        "total_timeout": 5.0,
    }
    return FetchPolicy(**{**options, **changes})


PNG_REPLY = Reply(200, {"content-type": "image/png"}, photo("PNG", (80, 60)))


async def test_a_url_is_fetched_from_the_address_that_was_checked(host: FakeImageHost) -> None:
    host.serve("/door.png", PNG_REPLY)
    names = Names({"photos.example.test": ["127.0.0.1"]})
    decoded = await fetch_image(host.url("/door.png"), policy=trusting(host, names))
    assert (decoded.mime_type, decoded.width, decoded.height) == ("image/png", 80, 60)
    # The system resolver does not know this name: the request went to the pinned address, with the
    # name in Host (and SNI: the certificate check below depends on it).
    assert names.asked == ["photos.example.test"]
    assert host.requests == [(f"photos.example.test:{host.port}", "/door.png")]


async def test_the_certificate_must_be_valid_for_the_name(host: FakeImageHost) -> None:
    host.serve("/door.png", PNG_REPLY)
    names = Names({"elsewhere.example.test": ["127.0.0.1"]})  # not a name on the certificate
    with pytest.raises(ImageRejected) as excinfo:
        await fetch_image(host.url("/door.png", "elsewhere.example.test"), policy=trusting(host, names))
    assert_code(excinfo, "image_fetch_failed")
    assert host.requests == []


async def test_redirects_are_followed_and_each_hop_is_checked_again(host: FakeImageHost) -> None:
    host.serve("/start", Reply(302, {"location": host.url("/door.png", "cdn.example.test")}))
    host.serve("/door.png", PNG_REPLY)
    names = Names({"photos.example.test": ["127.0.0.1"], "cdn.example.test": ["127.0.0.1"]})
    decoded = await fetch_image(host.url("/start"), policy=trusting(host, names))
    assert decoded.mime_type == "image/png"
    assert names.asked == ["photos.example.test", "cdn.example.test"]
    assert [path for _, path in host.requests] == ["/start", "/door.png"]


@pytest.mark.parametrize(
    ("location", "code"),
    [
        ("https://10.0.0.1/door.png", "image_url_forbidden"),
        ("https://169.254.169.254/latest/meta-data/", "image_url_forbidden"),
        ("https://[::1]/door.png", "image_url_forbidden"),
        ("https://private.example.test/door.png", "image_url_forbidden"),  # resolves to 192.168.1.20
        ("http://photos.example.test/door.png", "image_url_not_https"),
    ],
)
async def test_a_redirect_to_a_forbidden_place_is_refused(host: FakeImageHost, location: str, code: str) -> None:
    host.serve("/start", Reply(301, {"location": location}))
    names = Names({"photos.example.test": ["127.0.0.1"], "private.example.test": ["192.168.1.20"]})
    with pytest.raises(ImageRejected) as excinfo:  # 127.0.0.1, the fake host, is the one address allowed
        await fetch_image(host.url("/start"), policy=trusting(host, names))
    assert_code(excinfo, code)
    assert [path for _, path in host.requests] == ["/start"]


async def test_more_than_three_redirects_is_a_fetch_failure(host: FakeImageHost) -> None:
    host.serve("/loop", Reply(307, {"location": "/loop"}))
    names = Names({"photos.example.test": ["127.0.0.1"]})
    with pytest.raises(ImageRejected) as excinfo:
        await fetch_image(host.url("/loop"), policy=trusting(host, names))
    assert_code(excinfo, "image_fetch_failed")
    assert len(host.requests) == 4  # the first request and three redirects


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (Reply(200, {"content-type": "text/html"}, b"<html>a page, not a photo</html>"), "image_url_not_image"),
        (Reply(200, {}, photo("PNG", (40, 30))), "image_url_not_image"),  # no content type at all
        (Reply(404, {"content-type": "image/png"}, b""), "image_fetch_failed"),
        (Reply(500, {"content-type": "text/plain"}, b"oops"), "image_fetch_failed"),
        (Reply(200, {"content-type": "image/png", "content-encoding": "gzip"}, b"\x1f\x8b"), "image_fetch_failed"),
        (Reply(200, {"content-type": "image/png"}, b"\x89PNG not really"), "image_not_an_image"),
        (Reply(200, {"content-type": "image/png"}, b"x" * 5000), "image_too_large"),  # Content-Length says so
        (Reply(200, {"content-type": "image/png"}, b"x" * 200_000, chunked=True), "image_too_large"),  # streamed
        (Reply(200, {"content-type": "image/png"}, b"", delay=3.0), "image_fetch_failed"),  # too slow
        (Reply(302, {}), "image_fetch_failed"),  # a redirect without a Location
    ],
    ids=["html", "no-type", "404", "500", "gzip", "corrupt", "declared-large", "streamed-large", "slow", "no-location"],
)
async def test_bad_answers_are_refused_with_their_code(host: FakeImageHost, reply: Reply, code: str) -> None:
    host.serve("/photo", reply)
    names = Names({"photos.example.test": ["127.0.0.1"]})
    policy = trusting(host, names, max_bytes=4096, total_timeout=1.0)
    with pytest.raises(ImageRejected) as excinfo:
        await fetch_image(host.url("/photo"), policy=policy)
    assert_code(excinfo, code)


async def test_a_name_that_does_not_resolve_is_a_fetch_failure(host: FakeImageHost) -> None:
    with pytest.raises(ImageRejected) as excinfo:
        await fetch_image("https://nowhere.example.test/a.png", policy=trusting(host, Names({})))
    assert_code(excinfo, "image_fetch_failed")


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/door.png",
        "https://169.254.169.254/latest/meta-data/iam/",
        "https://10.0.0.1/door.png",
        "https://[::1]/door.png",
        "https://[::ffff:127.0.0.1]/door.png",
        "https://[fd00:ec2::254]/latest",
        "https://100.64.0.1/door.png",
        "https://0.0.0.0/door.png",
        "https://localhost/door.png",  # the system resolver says 127.0.0.1 (or ::1)
        "https://2130706433/door.png",  # 127.0.0.1 as one number
        "https://example.com:8443/door.png",  # only port 443
        "https://user:secret@example.com/door.png",
    ],
)
async def test_the_production_policy_refuses_these_urls_before_connecting(url: str) -> None:
    with pytest.raises(ImageRejected) as excinfo:
        await fetch_image(url)
    assert_code(excinfo, "image_url_forbidden")


@pytest.mark.parametrize(
    "answers",
    [["10.1.2.3"], ["93.184.216.34", "10.0.0.1"], ["fe80::1%eth0"]],
    ids=["private", "mixed", "link-local-v6"],
)
async def test_a_name_resolving_to_a_private_address_is_refused(answers: list[str]) -> None:
    policy = FetchPolicy(resolver=Names({"intranet.example.test": answers}))
    with pytest.raises(ImageRejected) as excinfo:
        await fetch_image("https://intranet.example.test/door.png", policy=policy)
    assert_code(excinfo, "image_url_forbidden")


@pytest.mark.parametrize("url", ["http://example.com/door.png", "ftp://example.com/door.png", "file:///etc/passwd"])
async def test_only_https_is_fetched(url: str) -> None:
    with pytest.raises(ImageRejected) as excinfo:
        await fetch_image(url)
    assert_code(excinfo, "image_url_not_https")


async def test_load_image_prefers_the_inline_image_and_needs_one_of_the_two() -> None:
    decoded = await load_image(image(photo("WEBP", (50, 40)), "image/webp"), "http://not-even-https.example/x")
    assert decoded.mime_type == "image/webp"
    with pytest.raises(ImageRejected) as excinfo:
        await load_image(None, None)
    assert_code(excinfo, "image_missing")


def test_the_inline_argument_shape_is_data_and_mime_type() -> None:
    parsed = ImageInput.model_validate(inline(photo("PNG", (8, 8)), "image/png"))
    assert parsed.mime_type == "image/png"
    assert Image.open(BytesIO(decode_image(parsed).data)).format == "PNG"
