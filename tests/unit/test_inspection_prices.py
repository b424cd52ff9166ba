"""The report page prices each item marked Fix for the inspection's place and door size (and only those)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings


def report_text(tmp_path: Path, **inspection: Any) -> str:
    body = {
        "recipient": {"email": "kim@example.com", "zip": "84770"},
        "consent": {"marketing": False, "contactShare": False},
        "emailReport": False,
        **inspection,
    }
    with TestClient(create_app(Settings(_env_file=None, data_dir=tmp_path))) as client:
        answer = client.post("/api/v1/submitInspection", json=body)
        assert answer.status_code == 200, answer.text
        page = client.get("/reports/" + answer.json()["reportUrl"].rsplit("/", 1)[1])
    assert page.status_code == 200
    return " ".join(page.text.split())


def test_each_item_to_fix_has_a_local_price(tmp_path: Path) -> None:
    items = {"springs": {"status": "fix"}, "rollers": {"status": "fix"}, "hinges": {"status": "watch"}}
    text = report_text(tmp_path, door={"size": "16x7"}, items=items)
    assert text.count("typical in Utah") == 2  # springs and rollers; a Watch is not priced
    assert "typical in Utah for a 16 ft wide door" in text and "$200\u2013$600" not in text
    assert "An emergency or after-hours call adds about" in text and "Regional Price Parity" in text
    assert "84770" not in text  # the place is named, never the ZIP code


def test_an_unreadable_door_size_is_priced_as_a_single_car_door(tmp_path: Path) -> None:
    text = report_text(tmp_path, door={"size": "big one"}, items={"springs": {"status": "fix"}})
    assert "typical in Utah." in text and "ft wide door" not in text
