"""`/readyz` reports each dependency: the store decides readiness, Redis (when configured) is reported.

An unreachable Redis leaves the service ready but "degraded": the limiter counts in process memory
meanwhile (see access/ratelimit.py), and a balancer that dropped every instance over it would turn
a cache outage into a full one. The store's outages are tested against a real server that loses its
PostgreSQL in tests/e2e/test_store_faults.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings


def ready(tmp_path: Path, **changes: str) -> tuple[int, dict[str, object]]:
    settings = Settings(data_dir=tmp_path / "var", mail_worker_in_process=False, **changes)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        response = client.get("/readyz")
    return response.status_code, response.json()


def test_without_redis_only_the_store_is_checked(tmp_path: Path) -> None:
    assert ready(tmp_path) == (200, {"status": "ready", "checks": {"store": "ok"}})


def test_with_redis_answering_both_are_reported(tmp_path: Path) -> None:
    assert ready(tmp_path, redis_url="redis://127.0.0.1:6379/0") == (
        200,
        {"status": "ready", "checks": {"store": "ok", "redis": "ok"}},
    )


@pytest.mark.parametrize("url", ["redis://127.0.0.1:1/0", "redis://192.0.2.1:6379/0"])
def test_with_redis_unreachable_the_service_stays_ready_but_says_degraded(tmp_path: Path, url: str) -> None:
    # 192.0.2.1 (TEST-NET-1) never answers: the check gives up on its own deadline instead of hanging.
    assert ready(tmp_path, redis_url=url) == (
        200,
        {"status": "degraded", "checks": {"store": "ok", "redis": "unreachable"}},
    )
