"""Settings: environment, relative paths and the hosts MCP accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from garage_tools.access.origins import OriginPolicy
from garage_tools.settings import Settings


def test_relative_paths_resolve_against_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.data_dir == tmp_path / "var"
    assert settings.db_url == f"sqlite+aiosqlite:///{tmp_path / 'var' / 'garage-tools.db'}"


def test_relative_sqlite_url_is_pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GARAGE_TOOLS_DATABASE_URL", "sqlite+aiosqlite:///./state/x.db")
    assert Settings(_env_file=None).db_url == f"sqlite+aiosqlite:///{tmp_path / 'state' / 'x.db'}"  # type: ignore[call-arg]


def test_postgres_url_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgresql+asyncpg://app:pw@db.internal:5432/garage"
    monkeypatch.setenv("GARAGE_TOOLS_DATABASE_URL", url)
    assert Settings(_env_file=None).db_url == url  # type: ignore[call-arg]


def test_env_file_in_the_working_directory_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("GARAGE_TOOLS_PORT=9123\n")
    assert Settings().port == 9123


def test_deployed_hostname_is_allowed_for_mcp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GARAGE_TOOLS_PUBLIC_BASE_URL", "https://api.example.com/")
    monkeypatch.setenv("GARAGE_TOOLS_ALLOWED_HOSTS", "tools.example.org, internal:8080")
    monkeypatch.setenv("GARAGE_TOOLS_ALLOWED_ORIGINS", "https://app.example.com")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.public_base_url == "https://api.example.com"
    origins = OriginPolicy.from_settings(settings)
    hosts = origins.mcp_hosts
    assert {"api.example.com", "tools.example.org", "tools.example.org:*", "internal:8080", "127.0.0.1:*"} <= set(hosts)
    assert {"https://api.example.com", "https://app.example.com"} <= set(origins.mcp_origins)
    assert origins.site_origins == {"https://api.example.com", "https://app.example.com"}


@pytest.mark.parametrize("bad", ["api.example.com", "ftp://x", "/relative"])
def test_public_base_url_must_be_absolute(bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GARAGE_TOOLS_PUBLIC_BASE_URL", bad)
    with pytest.raises(ValueError, match="absolute"):
        Settings(_env_file=None)  # type: ignore[call-arg]
