"""Compression of every answer worth compressing: pages, CSS, JS, JSON documents and large tool answers.

One ASGI layer, outermost (the front door wraps both its branches with it, so tool calls that skip
Starlette's middleware are covered too). It picks brotli when the client asks for it, else gzip, and
leaves alone what is small (under `MINIMUM_SIZE`: the framing would eat the gain), already encoded,
partial (206), a server-sent event stream, marked `no-transform`, or not text (pictures are compressed
already). Every compressible answer says `Vary: Accept-Encoding`, compressed or not, so a shared cache
never hands a gzip body to a client that did not ask for one; the one exception is a POST from a client that
accepts no coding (most tool calls), which goes through untouched: no shared cache stores an answer to a POST,
so there is neither anything to compress nor a cache to tell. A compressed answer's strong ETag becomes weak
(the bytes differ from the identity form's; the validators still match, as If-None-Match compares weakly).
Answers with a strong ETag (the widget, its stylesheet, static files) are compressed once per process at the
highest level and kept; everything else is compressed as it goes at a fast level.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from enum import StrEnum
from functools import lru_cache

import anyio.to_thread
import brotli
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.headers import RequestHeaders

#: Below this many bytes an answer goes out as it is. A typical tool answer (diagnose: 1.4 KB) stays under
#: it: compressing it would cost about 50 µs of CPU (bench/compression.py), more than half of what the whole
#: call costs, to save a kilobyte.
MINIMUM_SIZE = 4096
#: The threshold for answers with a strong ETag, which are compressed once and kept.
KEPT_MINIMUM_SIZE = 1024
#: Compressed forms of answers with a strong ETag, kept per process (they are few: the built assets and
#: static files).
CACHED_FORMS = 64

#: Brotli's slowest, smallest quality is used for kept forms up to this size.
BEST_BROTLI_UP_TO = 128 * 1024
#: A kept form larger than this is made on a worker thread, so the event loop does not wait on it.
IN_THREAD_FROM = 64 * 1024

_TEXT_TYPES = (b"text/", b"application/json", b"application/javascript", b"application/xml", b"image/svg+xml")


class Coding(StrEnum):
    BROTLI = "br"
    GZIP = "gzip"


@lru_cache(maxsize=64)
def choose_coding(accept_encoding: str) -> Coding | None:
    """The coding to answer with for an `Accept-Encoding` value: the one the client weighs highest, brotli
    before gzip when it weighs them alike; None when it accepts neither (or sent no header)."""
    if not accept_encoding:
        return None
    weights: dict[str, float] = {}
    for item in accept_encoding.lower().split(","):
        name, _, params = item.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if name.strip():
            weights[name.strip()] = weight
    star = weights.get("*", 0.0)
    best: Coding | None = None
    best_weight = 0.0
    for coding in (Coding.BROTLI, Coding.GZIP):
        weight = weights.get(coding.value, star)
        if weight > best_weight:
            best, best_weight = coding, weight
    return best


def compress(body: bytes, coding: Coding, *, best: bool = False) -> bytes:
    """`body` in one piece; `best` spends more time for fewer bytes (for answers compressed once and kept).

    Brotli's top quality is for small files only: it took 41 s on the 1.5 MB Swagger UI bundle here.
    """
    if coding is Coding.BROTLI:
        return brotli.compress(body, quality=(11 if len(body) <= BEST_BROTLI_UP_TO else 5) if best else 4)
    shrinker = zlib.compressobj(9 if best else 6, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
    return shrinker.compress(body) + shrinker.flush()


class _Stream:
    """Compression of a body that arrives in pieces."""

    def __init__(self, coding: Coding) -> None:
        self._brotli = brotli.Compressor(quality=4) if coding is Coding.BROTLI else None
        self._gzip = zlib.compressobj(6, zlib.DEFLATED, 31) if coding is Coding.GZIP else None

    def feed(self, chunk: bytes, last: bool) -> bytes:
        if self._brotli is not None:
            out = self._brotli.process(chunk)
            return out + self._brotli.finish() if last else out
        assert self._gzip is not None
        out = self._gzip.compress(chunk)
        return out + self._gzip.flush() if last else out


class Compression:
    """The ASGI layer; see the module's docstring."""

    def __init__(self, app: ASGIApp, minimum_size: int = MINIMUM_SIZE) -> None:
        self.app = app
        self.minimum_size = minimum_size
        self._kept: OrderedDict[tuple[str, bytes, Coding], bytes] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, self.sender(scope, send))

    def sender(self, scope: Scope, send: Send) -> Send:
        """What the answer to `scope` is sent through: `send` itself when it goes on untouched (not HTTP, a HEAD,
        or a POST from a client that accepts no coding: nothing to compress, and no cache to tell with `Vary`),
        else this layer's. The front door hands a tool call's gate this, and no other layer of its own."""
        if scope["type"] != "http" or scope["method"] == "HEAD":
            return send
        coding = choose_coding(RequestHeaders.of(scope).accept_encoding)
        if coding is None and scope["method"] == "POST":
            return send
        return _Responder(self, coding, scope["path"], send).send

    async def kept_form(self, path: str, etag: bytes, coding: Coding, body: bytes) -> bytes:
        """The compressed form of an answer with a strong ETag, made once and kept (by path and ETag: a
        static file's ETag comes from its time and size, which two files may share)."""
        key = (path, etag, coding)
        found = self._kept.get(key)
        if found is None:
            if len(body) >= IN_THREAD_FROM:
                found = await anyio.to_thread.run_sync(lambda: compress(body, coding, best=True))
            else:
                found = compress(body, coding, best=True)
            self._kept[key] = found
            if len(self._kept) > CACHED_FORMS:
                self._kept.popitem(last=False)
        return found


class _Responder:
    """One response on its way out. Its start is read once: an answer that cannot be compressed (not text,
    or a known length under the threshold: most tool answers) goes on at once with `Vary` added; only the
    rest is held until the first piece of body shows what to do."""

    __slots__ = ("coding", "etag", "headers", "layer", "passing", "path", "send_on", "start", "stream")

    def __init__(self, layer: Compression, coding: Coding | None, path: str, send: Send) -> None:
        self.layer, self.coding, self.path, self.send_on = layer, coding, path, send
        self.start: Message | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.etag = b""
        self.stream: _Stream | None = None
        self.passing = False

    async def send(self, message: Message) -> None:
        if self.passing:
            await self.send_on(message)
        elif message["type"] == "http.response.start":
            await self._begin(message)
        elif message["type"] != "http.response.body":
            await self.send_on(message)
        elif self.stream is not None:
            last = not message.get("more_body", False)
            out = self.stream.feed(message.get("body", b""), last)
            await self.send_on({"type": "http.response.body", "body": out, "more_body": not last})
        else:
            await self._first_body(message)

    async def _begin(self, start: Message) -> None:
        raw: list[tuple[bytes, bytes]] = start.get("headers", [])
        media = encoding = cache = vary = length = b""
        for name, value in raw:
            slot = _READ.get(name)  # ASGI's header names are lower-case
            if slot == 0:
                media = value.lower()
            elif slot == 1:
                encoding = value
            elif slot == 2:
                cache = value.lower()
            elif slot == 3:
                vary = value
            elif slot == 4:
                self.etag = value
            elif slot == 5:
                length = value
        status: int = start["status"]
        if status != 304 and not _compressible(media, encoding, cache):
            self.passing = True
            await self.send_on(start)
            return
        headers = _with_vary(raw, vary)
        smallest = KEPT_MINIMUM_SIZE if self.etag.startswith(b'"') else self.layer.minimum_size
        if self.coding is None or status in (204, 206, 304) or (length.isdigit() and int(length) < smallest):
            self.passing = True
            await self.send_on({**start, "headers": headers})
            return
        self.start, self.headers = start, headers

    async def _first_body(self, message: Message) -> None:
        start, coding, etag = self.start, self.coding, self.etag
        assert start is not None, "a response body before its start"
        assert coding is not None
        body: bytes = message.get("body", b"")
        more = bool(message.get("more_body", False))
        strong = etag.startswith(b'"')
        self.passing = not more
        if not more and len(body) < (KEPT_MINIMUM_SIZE if strong else self.layer.minimum_size):
            await self.send_on({**start, "headers": self.headers})
            await self.send_on(message)
            return
        headers = [(n, v) for n, v in self.headers if n.lower() not in (b"content-length", b"etag")]
        headers.append((b"content-encoding", coding.value.encode()))
        if etag:
            headers.append((b"etag", etag if etag.startswith(b"W/") else b"W/" + etag))
        if more:  # a body in pieces (a large file): compressed as it goes, no length known
            self.stream = _Stream(coding)
            await self.send_on({**start, "headers": headers})
            await self.send_on({"type": "http.response.body", "body": self.stream.feed(body, False), "more_body": True})
            return
        packed = await self.layer.kept_form(self.path, etag, coding, body) if strong else compress(body, coding)
        headers.append((b"content-length", str(len(packed)).encode()))
        await self.send_on({**start, "headers": headers})
        await self.send_on({"type": "http.response.body", "body": packed})


_VARY = (b"vary", b"Accept-Encoding")
#: The response headers the layer reads, each to its slot in `_Responder._begin`.
_READ = {b"content-type": 0, b"content-encoding": 1, b"cache-control": 2, b"vary": 3, b"etag": 4, b"content-length": 5}


def _compressible(media: bytes, encoding: bytes, cache: bytes) -> bool:
    """Text worth compressing, not already encoded, not a stream of events, and not marked `no-transform`."""
    if encoding or cache.find(b"no-transform") >= 0 or media.startswith(b"text/event-stream"):
        return False  # `find`, not `in`: see `inputs` (a bytes `in` raises and clears a TypeError first)
    return media.startswith(_TEXT_TYPES) or (media.startswith(b"application/") and media.find(b"+json") >= 0)


def _with_vary(headers: list[tuple[bytes, bytes]], vary: bytes) -> list[tuple[bytes, bytes]]:
    if not vary:
        return [*headers, _VARY]
    names = {part.strip().lower() for part in vary.split(b",")}
    if b"accept-encoding" in names or b"*" in names:
        return headers
    merged = vary + b", Accept-Encoding"
    return [(n, merged if n.lower() == b"vary" else v) for n, v in headers]
