"""A stand-in image host: HTTPS on a free loopback port, with a self-signed certificate for made-up names.

Tests point `FetchPolicy.resolver` at it (e.g. `photos.example.test` -> 127.0.0.1) and trust its
certificate with `ssl_context()`, so the SSRF guard's real code path runs end to end: resolve, vet,
connect to the vetted address with the name in SNI and `Host`, verify the certificate against the
name, follow redirects by hand. Each path answers what the test set with `serve()`; every request
is recorded with the `Host` it carried.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.fakes.loopback import LoopbackFake

NAMES = ("photos.example.test", "cdn.example.test", "private.example.test")


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    delay: float = 0.0  # seconds before the answer starts
    chunked: bool = False  # no Content-Length: the body arrives in chunks of 64 KiB


def _certificate(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAMES[0])])
    now = datetime.datetime.now(datetime.UTC)
    alt_names: list[x509.GeneralName] = [x509.DNSName(n) for n in NAMES]
    alt_names.append(x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


class FakeImageHost(LoopbackFake):
    """Start with `with FakeImageHost() as host`; `host.serve(path, Reply(...))`; fetch `host.url(path)`."""

    name = "fake image host"

    def __init__(self) -> None:
        super().__init__()
        self._directory = tempfile.TemporaryDirectory()
        self.cert_path, self.key_path = _certificate(Path(self._directory.name))
        self._lock = threading.Lock()
        self._routes: dict[str, Reply] = {}
        self.requests: list[tuple[str, str]] = []  # (Host header, path)

    def url(self, path: str, host: str = NAMES[0]) -> str:
        return f"https://{host}:{self.port}{path}"

    def serve(self, path: str, reply: Reply) -> None:
        with self._lock:
            self._routes[path] = reply

    def reset(self) -> None:
        with self._lock:
            self._routes.clear()
            self.requests.clear()

    def ssl_context(self) -> ssl.SSLContext:
        """A client context that trusts this host's certificate (and nothing else)."""
        return ssl.create_default_context(cafile=str(self.cert_path))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        host = next((v.decode() for k, v in scope["headers"] if k == b"host"), "")
        with self._lock:
            self.requests.append((host, scope["path"]))
            reply = self._routes.get(scope["path"], Reply(404, {"content-type": "text/plain"}, b"not here"))
        if reply.delay:
            await asyncio.sleep(reply.delay)
        headers = [(k.lower().encode(), v.encode()) for k, v in reply.headers.items()]
        if not reply.chunked and not any(k == b"content-length" for k, _ in headers):
            headers.append((b"content-length", str(len(reply.body)).encode()))
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        if not reply.chunked:
            await send({"type": "http.response.body", "body": reply.body})
            return
        for start in range(0, len(reply.body), 65536):
            await send({"type": "http.response.body", "body": reply.body[start : start + 65536], "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    def asgi_app(self) -> ASGIApp:
        return self

    def uvicorn_options(self) -> dict[str, Any]:
        return {"ssl_certfile": str(self.cert_path), "ssl_keyfile": str(self.key_path), "timeout_graceful_shutdown": 1}

    def stop(self) -> None:
        super().stop()
        self._directory.cleanup()
