"""A partner sign-in request takes the same time whether or not the address is a partner's.

A known partner's address used to cost a stored link and a queued e-mail on the request path, an unknown one
nothing: a median 21 ms against 8.5 ms, so the answer's timing told which addresses are partners'. The work
is now done after the answer (the portal, which sends a link to any address, does its work there too).
Samples are interleaved (known, unknown, known, ...) so a busy machine slows both kinds alike, each from an
address of its own (the per-address budget holds three links), and the medians compared.
"""

from __future__ import annotations

import itertools
import re
import statistics
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server

SAMPLES = 60
MARGIN_MS = 3.0
SAMPLE_PARTNERS = Path(__file__).parents[2] / "src/garage_tools/knowledge/data/sample_partners.json"
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("timing"), {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"})
    yield live
    stop_server(live)


def partner_addresses() -> list[str]:
    found = re.findall(r'"contactEmail":\s*"([^"]+)"', SAMPLE_PARTNERS.read_text())
    assert len(found) >= 20, found
    return [address.lower() for address in found]


def timed_post(client: httpx.Client, path: str, email: str, csrf: str) -> float:
    n = next(_addresses)
    headers = {"X-Forwarded-For": f"198.19.{n // 250}.{n % 250 + 1}"}
    started = time.perf_counter()
    answer = client.post(path, data={"email": email, "csrf": csrf}, headers=headers)
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.status_code == 303, answer.text[:300]
    return elapsed


def medians(server: LiveServer, home: str, known: list[str]) -> tuple[float, float]:
    """(known, unknown) median milliseconds of `SAMPLES` interleaved sign-in requests to `home`/sign-in."""
    with httpx.Client(base_url=server.url, timeout=15) as client:
        page = client.get(home)
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf is not None
        path = f"{home}/sign-in"
        for _ in range(5):  # warm both paths (connections, templates, caches)
            timed_post(client, path, f"warm-{uuid.uuid4().hex[:8]}@example.net", csrf.group(1))
        times: dict[bool, list[float]] = {True: [], False: []}
        for n in range(SAMPLES):
            for is_known in (n % 2 == 0, n % 2 == 1):
                email = known[n % len(known)] if is_known else f"nobody-{uuid.uuid4().hex[:10]}@example.net"
                times[is_known].append(timed_post(client, path, email, csrf.group(1)))
    return statistics.median(times[True]), statistics.median(times[False])


def test_partner_sign_in_takes_the_same_time_for_known_and_unknown_addresses(server: LiveServer) -> None:
    known, unknown = medians(server, "/partners", partner_addresses())
    assert abs(known - unknown) < MARGIN_MS, f"known {known:.1f} ms, unknown {unknown:.1f} ms"
    links = server.query("SELECT count(*) FROM login_tokens WHERE audience = 'partner'")[0][0]
    assert links > 0, (server.workdir / "server.log").read_text()[-3000:]  # the known got links, after the answer
