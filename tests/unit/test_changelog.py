"""The changelog data file: validated when the service starts, escaped when shown."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.knowledge.data_files import KnowledgeError
from garage_tools.settings import Settings
from garage_tools.web.changelog import CONTENT, changelog_schema, json_feed, load_changelog
from garage_tools.web.markup import text_html

ENTRY = {
    "id": "2026-01-02-example",
    "date": "2026-01-02",
    "title": "An example",
    "kind": "fix",
    "summary": "Something was fixed.",
    "body": "It works now.",
}


def write(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    path = tmp_path / "changelog.json"
    path.write_text(json.dumps({"$schema": "./changelog.schema.json", "entries": entries}), encoding="utf-8")
    return path


def test_packaged_changelog_loads_and_its_schema_file_is_current() -> None:
    changelog = load_changelog()
    assert changelog.entries
    published = json.loads((CONTENT / "changelog.schema.json").read_text(encoding="utf-8"))
    assert published == changelog_schema(), "regenerate content/changelog.schema.json from changelog_schema()"


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"kind": "feature"}, "kind"),
        ({"date": "22 November 2026"}, "date"),
        ({"id": "Has Spaces"}, "id"),
        ({"body": ""}, "body"),
        ({"surprise": True}, "surprise"),
    ],
)
def test_malformed_entries_stop_start_up_naming_the_field(
    tmp_path: Path, change: dict[str, Any], complaint: str
) -> None:
    path = write(tmp_path, [{**ENTRY, **change}])
    with pytest.raises(KnowledgeError, match=complaint) as failure:
        load_changelog(path)
    assert str(path) in str(failure.value)


def test_an_id_used_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError, match="used twice"):
        load_changelog(write(tmp_path, [ENTRY, {**ENTRY, "title": "Again"}]))


def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "changelog.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(KnowledgeError, match="cannot read JSON"):
        load_changelog(path)


def test_feed_items_are_newest_first_with_stable_ids(tmp_path: Path) -> None:
    older = {**ENTRY, "id": "older", "date": "2025-12-31"}
    changelog = load_changelog(write(tmp_path, [older, ENTRY]))
    items = json_feed(changelog, "https://doors.example.com")["items"]
    assert [item["id"] for item in items] == ["2026-01-02-example", "older"]
    assert items[0]["date_published"] == "2026-01-02T00:00:00Z"
    assert items[0]["url"] == "https://doors.example.com/developers/changelog#2026-01-02-example"


def test_entry_text_is_escaped_and_formatted() -> None:
    html = str(text_html('Call `diagnose` <script>alert("x")</script>\n\n- one & two\n- `three`'))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<p>Call <code>diagnose</code>" in html
    assert "<ul><li>one &amp; two</li><li><code>three</code></li></ul>" in html


REPO = Path(__file__).resolve().parents[2]


def _commit_date(commit: str) -> str | None:
    """The day `commit` was made, from git; None outside a checkout or for a commit it does not have."""
    try:
        found = subprocess.run(
            ["git", "show", "-s", "--format=%ad", "--date=short", commit],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except OSError:
        return None
    return found.stdout.strip() if found.returncode == 0 else None


def test_each_entry_is_dated_by_the_commit_that_brought_it() -> None:
    entries = load_changelog().entries
    assert len({entry.date for entry in entries}) >= 3  # not all on one day
    checked = 0
    for entry in entries:
        if entry.commit is None:
            continue
        landed = _commit_date(entry.commit)
        if landed is None:
            continue  # a shallow clone or an archive: nothing to check against
        assert entry.date.isoformat() == landed, f"{entry.id} is dated {entry.date}, its commit {landed}"
        checked += 1
    if _commit_date("HEAD") is not None and not _shallow():
        assert checked >= 10  # a full checkout has every commit: the check above really ran


def _shallow() -> bool:
    found = subprocess.run(
        ["git", "rev-parse", "--is-shallow-repository"], cwd=REPO, capture_output=True, text=True, timeout=10
    )
    return found.stdout.strip() != "false"


def test_headings_are_not_links(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "var", mail_worker_in_process=False)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        page = client.get("/developers/changelog").text
    assert re.search(r"<h2>\s*<a", page) is None
    assert 'href="#2026-11-22-labs"' in page  # each entry keeps a link of its own, beside its date
