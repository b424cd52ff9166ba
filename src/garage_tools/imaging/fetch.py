"""Fetch a caller's `imageUrl` without letting it reach anything but the public internet (SSRF guard).

A URL is a request the server makes on the caller's behalf, so every hop is checked before a byte
is sent:

- `https` only, on port 443, without credentials in the URL;
- the host is resolved once and every address it resolves to must be public, and the connection goes
  to the address that was checked (the shared guard: `garage_tools/outbound.py`);
- redirects are followed by hand, at most `max_redirects`, and each new URL goes through all of
  the above again;
- the response must be `image/*`, arrive within `total_timeout` seconds and be at most `max_bytes`
  long (counted while streaming, uncompressed: we ask for `identity` and refuse anything else);
- the bytes are then decoded like an inline image, so the same checks apply.

Tests inject the resolver, the TLS trust and the addresses allowed despite not being public
through `FetchPolicy`; production code uses the defaults and reads no settings.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass

import httpx
from pydantic import Field

from garage_tools import __version__
from garage_tools.errors import (
    ImageFetchFailed,
    ImageMissing,
    ImageTooLarge,
    ImageUrlForbidden,
    ImageUrlNotHttps,
    ImageUrlNotImage,
)
from garage_tools.imaging.decode import MAX_IMAGE_BYTES, DecodedImage, ImageInput, decode_bytes, decode_image
from garage_tools.models import InputModel
from garage_tools.outbound import IPAddress, Resolver, Unresolvable, is_public_address, pinned, resolve, system_resolver

__all__ = ["FetchPolicy", "PhotoInput", "Resolver", "fetch_image", "is_public_address", "load_image"]

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_FORBIDDEN = (
    "imageUrl leads to a private, loopback, link-local or otherwise non-public address; only public HTTPS "
    "hosts are fetched. Send the photo inline as `image` instead."
)


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """How `fetch_image` may reach out. The defaults are the production policy."""

    resolver: Resolver = system_resolver
    verify: ssl.SSLContext | bool = True  # TLS trust: True is the system's CA bundle (via certifi)
    also_allow: frozenset[IPAddress] = frozenset()  # non-public addresses allowed anyway (tests only)
    ports: frozenset[int] | None = frozenset({443})  # None: any port (tests only)
    max_bytes: int = MAX_IMAGE_BYTES
    max_redirects: int = 3
    connect_timeout: float = 3.0
    total_timeout: float = 10.0

    def allows(self, address: IPAddress) -> bool:
        return address in self.also_allow or is_public_address(address)


@dataclass(frozen=True, slots=True)
class _Hop:
    """One vetted request target: the URL as given, and the address it is pinned to."""

    url: httpx.URL
    host: str  # the IDNA (ASCII) host name, for Host and SNI
    address: IPAddress

    def request(self, client: httpx.AsyncClient) -> httpx.Request:
        return pinned(client, "GET", self.url, self.address, {"Accept": "image/*", "Accept-Encoding": "identity"})


class PhotoInput(InputModel):
    """The input fields of a tool that looks at one photo: inline, or by URL (`load_image` reads either)."""

    image: ImageInput | None = Field(
        default=None,
        description=(
            "The photo, inline: `{data, mimeType}` with `data` base64 without a `data:` prefix (JPEG, PNG, WebP "
            "or GIF; at most 5 MiB and 25 megapixels). Preferred over `imageUrl`."
        ),
    )
    image_url: str | None = Field(
        default=None,
        max_length=2048,
        description=(
            "An HTTPS URL of the photo, used only when `image` is absent. Fetched from public addresses only, "
            "port 443, at most 3 redirects, 5 MiB and 10 seconds."
        ),
        examples=["https://example.com/garage-door-photo.jpg"],
    )


async def load_image(
    image: ImageInput | None, image_url: str | None, *, policy: FetchPolicy | None = None
) -> DecodedImage:
    """The photo a tool was given: `image` when present (the preferred input), else `imageUrl`."""
    if image is not None:
        return await asyncio.to_thread(decode_image, image)
    if image_url is not None:
        return await fetch_image(image_url, policy=policy)
    raise ImageMissing("Send the photo as `image` ({data: base64, mimeType}) or as an HTTPS `imageUrl`.")


async def fetch_image(
    url: str, *, policy: FetchPolicy | None = None, client: httpx.AsyncClient | None = None
) -> DecodedImage:
    """Fetch and decode the image at `url` under `policy` (see the module docstring for the rules)."""
    policy = policy or FetchPolicy()
    try:
        async with asyncio.timeout(policy.total_timeout):
            if client is not None:
                raw = await _fetch(url, policy, client)
            else:
                async with _client(policy) as own:
                    raw = await _fetch(url, policy, own)
    except TimeoutError:
        raise ImageFetchFailed(f"imageUrl did not answer within {policy.total_timeout:g} seconds.") from None
    except httpx.HTTPError as exc:
        raise ImageFetchFailed(f"imageUrl could not be fetched ({_describe(exc)}).") from None
    return await asyncio.to_thread(decode_bytes, raw)


def _client(policy: FetchPolicy) -> httpx.AsyncClient:
    # trust_env=False: no proxy from the environment (it would resolve names itself) and no .netrc credentials.
    return httpx.AsyncClient(
        verify=policy.verify,
        timeout=httpx.Timeout(policy.total_timeout, connect=policy.connect_timeout),
        follow_redirects=False,
        trust_env=False,
        headers={"User-Agent": f"garage-tools/{__version__} (image fetch)"},
    )


async def _fetch(url: str, policy: FetchPolicy, client: httpx.AsyncClient) -> bytes:
    current = url
    for _ in range(policy.max_redirects + 1):
        hop = await _vet(current, policy)
        response = await client.send(hop.request(client), stream=True)
        try:
            if response.status_code in _REDIRECTS:
                location = response.headers.get("location")
                if not location:
                    raise ImageFetchFailed(f"imageUrl answered {response.status_code} without a Location.")
                current = str(hop.url.join(location))
                continue
            return await _body(response, policy)
        finally:
            await response.aclose()
    raise ImageFetchFailed(f"imageUrl redirected more than {policy.max_redirects} times.")


async def _vet(url: str, policy: FetchPolicy) -> _Hop:
    """Check one URL and resolve its host, or raise the error that says why it may not be fetched."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError):
        raise ImageFetchFailed("imageUrl is not a valid URL.") from None
    if parsed.scheme != "https":
        raise ImageUrlNotHttps(
            "imageUrl must be an https:// URL (redirects too); plain http and other schemes are not fetched."
        )
    if not parsed.host:
        raise ImageFetchFailed("imageUrl has no host.")
    if parsed.userinfo:
        raise ImageUrlForbidden("imageUrl may not carry a user name or password.")
    port = parsed.port or 443
    if policy.ports is not None and port not in policy.ports:
        raise ImageUrlForbidden(f"imageUrl uses port {port}; only the standard HTTPS port 443 is fetched.")
    host = parsed.raw_host.decode("ascii")
    addresses = await _resolve(host, port, policy)
    if not addresses or not all(policy.allows(address) for address in addresses):
        raise ImageUrlForbidden(_FORBIDDEN)
    return _Hop(url=parsed, host=host, address=addresses[0])


async def _resolve(host: str, port: int, policy: FetchPolicy) -> list[IPAddress]:
    try:
        return await resolve(host, port, policy.resolver)
    except Unresolvable:
        raise ImageFetchFailed(f"The host of imageUrl ({host}) could not be resolved.") from None


async def _body(response: httpx.Response, policy: FetchPolicy) -> bytes:
    if response.status_code != 200:
        raise ImageFetchFailed(f"imageUrl answered HTTP {response.status_code}.")
    media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if not media.startswith("image/"):
        shown = media or "no content type"
        raise ImageUrlNotImage(f"imageUrl answered with {shown}, not an image/* type.")
    if response.headers.get("content-encoding", "identity").strip().lower() != "identity":
        raise ImageFetchFailed("imageUrl answered with a compressed body; images are fetched uncompressed.")
    too_large = ImageTooLarge(f"The image at imageUrl is over {policy.max_bytes // (1024 * 1024)} MiB.")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise too_large
    received = bytearray()
    async for chunk in response.aiter_raw():
        received += chunk
        if len(received) > policy.max_bytes:
            raise too_large
    return bytes(received)


def _describe(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "the connection timed out"
    if isinstance(exc, httpx.ConnectError):
        return "the connection failed or the TLS certificate was not valid for the host"
    if isinstance(exc, httpx.TimeoutException):
        return "it timed out"
    return "the connection broke off"
