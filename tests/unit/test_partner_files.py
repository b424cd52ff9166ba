"""Directory files: CSV and JSON in and out, and every bad row reported by its line."""

from __future__ import annotations

import json

import pytest

from garage_tools.cli.partner_files import (
    FileFormat,
    format_of,
    read_partners,
    read_promotions,
    write_partners,
    write_promotions,
)
from garage_tools.knowledge.data_files import DATA_DIR
from garage_tools.knowledge.directory import (
    DIRECTORY_FILES,
    load_sample_partners,
    load_sample_promotions,
)
from garage_tools.knowledge.loader import packaged_tree
from garage_tools.knowledge.places import Gazetteer, us_places

HEADER = "id,displayName,phone,schedulerUrl,url,region,regionKey,zipPrefixes,zips,centerZip,radiusMiles,services,emergency,promotionsOptIn"  # noqa: E501
GOOD = "red-rock,Red Rock Doors,(435) 555-0101,https://red.example.com/book,https://red.example.com,Southern Utah,ut-southern,847,,,,repair;maintenance,yes,true"  # noqa: E501


@pytest.fixture(scope="module")
def places() -> Gazetteer:
    return us_places()


def test_the_sample_files_are_labelled_and_their_schema_files_are_current() -> None:
    partners, promotions = load_sample_partners(), load_sample_promotions()
    assert partners.notice and "fictional" in partners.notice.lower() and "SAMPLE" in partners.notice
    assert promotions.notice and "SAMPLE" in promotions.notice
    assert len(partners.partners) >= 25
    assert {p.region_key.split("-")[0] for p in partners.partners} >= {"ut", "az", "co", "tx", "nv", "il"}
    assert all("555-01" in p.phone and ".example.com" in p.url for p in partners.partners)
    for name, model in DIRECTORY_FILES.items():
        on_disk = json.loads((DATA_DIR / "schemas" / name.replace(".json", ".schema.json")).read_text())
        expected = model.model_json_schema(by_alias=True)
        expected["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        expected.setdefault("properties", {})["$schema"] = {"type": "string"}
        assert on_disk == expected, f"run `garage-tools knowledge schemas` to refresh the schema of {name}"


@pytest.mark.parametrize("fmt", list(FileFormat))
def test_an_export_imports_back_unchanged(fmt: FileFormat, places: Gazetteer) -> None:
    partners = list(load_sample_partners().partners)
    parsed = read_partners(write_partners(partners, fmt), fmt, places)
    assert parsed.problems == [] and parsed.records == partners
    promotions = list(load_sample_promotions().promotions)
    back = read_promotions(write_promotions(promotions, fmt), fmt, {p.id for p in partners}, packaged_tree().issues)
    assert back.problems == [] and back.records == promotions


def test_the_sample_file_itself_imports(places: Gazetteer) -> None:
    text = (DATA_DIR / "sample_partners.json").read_text()
    parsed = read_partners(text, FileFormat.JSON, places)
    assert parsed.ok and len(parsed.records) == len(load_sample_partners().partners)


def test_csv_cells_are_read_as_people_write_them(places: Gazetteer) -> None:
    parsed = read_partners(f"\ufeff{HEADER}\n{GOOD}\n\n", FileFormat.CSV, places)
    assert parsed.ok, parsed.problems
    (record,) = parsed.records
    assert record.zip_prefixes == ["847"] and record.services == ["repair", "maintenance"]
    assert record.emergency is True and record.promotions_opt_in is True and record.active is True


def test_every_bad_csv_row_is_named_by_its_line(places: Gazetteer) -> None:
    rows = [
        HEADER,
        GOOD,  # line 2
        GOOD.replace("red-rock,", "red-rock-2,").replace("(435) 555-0101", "call us"),  # 3: phone
        GOOD.replace("red-rock,", "red-rock-3,").replace("repair;maintenance", "repair;painting"),  # 4: service
        GOOD,  # 5: the same id again
        GOOD.replace("red-rock,", "red-rock-5,").replace(",847,,,,", ",,84770;00000,,,"),  # 6: unknown ZIP
        GOOD.replace("red-rock,", "red-rock-6,").replace(",847,,,,", ",,,84720,,"),  # 7: centre without radius
        GOOD.replace("red-rock,", "red-rock-7,").replace(",yes,", ",maybe,"),  # 8: not a flag
        GOOD.replace("red-rock,", "red-rock-8,").replace("https://red.example.com/book", "http://red.example.com"),
    ]
    parsed = read_partners("\n".join(rows) + "\n", FileFormat.CSV, places)
    by_line = {problem.line: problem.message for problem in parsed.problems}
    assert sorted(by_line) == [3, 4, 5, 6, 7, 8, 9]
    assert "phone" in by_line[3]
    assert "services" in by_line[4] and "'repair'" in by_line[4]
    assert "already on line 2" in by_line[5]
    assert "00000" in by_line[6]
    assert "radiusMiles" in by_line[7]
    assert "emergency" in by_line[8] and "maybe" in by_line[8]
    assert "https://" in by_line[9]


def test_a_quoted_multiline_cell_keeps_line_numbers_true(places: Gazetteer) -> None:
    good_two_lines = GOOD.replace("Red Rock Doors", '"Red Rock\nDoors"')
    text = f"{HEADER}\n{good_two_lines}\n{GOOD.replace('red-rock,', 'bad,').replace('(435) 555-0101', 'x')}\n"
    assert [p.line for p in read_partners(text, FileFormat.CSV, places).problems] == [4]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("id,displayName,colour\n", "unknown columns ['colour']"),
        (f"{HEADER}\n", "no partners"),
    ],
)
def test_a_csv_that_is_not_a_directory_is_refused_at_line_1(text: str, says: str, places: Gazetteer) -> None:
    parsed = read_partners(text, FileFormat.CSV, places)
    assert [p.line for p in parsed.problems] == [1] and says in parsed.problems[0].message


def test_json_rows_are_named_by_the_line_they_start_on(places: Gazetteer) -> None:
    good = write_partners(list(load_sample_partners().partners)[:2], FileFormat.JSON)
    document = json.loads(good)
    document["partners"][1]["phone"] = "nope"
    document["partners"].append({"id": "Not An Id"})
    text = json.dumps({"$schema": "x", "notice": "mine", **document}, indent=2)
    parsed = read_partners(text, FileFormat.JSON, places)
    lines = text.splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if line == "    {"]
    assert [p.line for p in parsed.problems] == starts[1:]
    assert "phone" in parsed.problems[0].message and "displayName: is required" in parsed.problems[1].message


def test_a_bare_json_list_and_broken_json(places: Gazetteer) -> None:
    bare = json.dumps(
        json.loads(write_partners(list(load_sample_partners().partners)[:3], FileFormat.JSON))["partners"]
    )
    assert len(read_partners(bare, FileFormat.JSON, places).records) == 3
    broken = read_partners('{\n  "partners": [\n    {"id": }\n  ]\n}', FileFormat.JSON, places)
    assert broken.problems[0].line == 3 and "not valid JSON" in broken.problems[0].message
    wrong = read_partners('{"people": []}', FileFormat.JSON, places)
    assert 'an object with a "partners" list' in wrong.problems[0].message


def test_promotion_rows_must_name_listed_partners_and_known_issues() -> None:
    header = "id,partnerId,title,description,discountType,discountValue,serviceTypes,issueKeys,validFrom,validUntil"
    rows = [
        header,
        "ok,alpha,Spring deal,Springs,amount,50,repair,broken_spring,2026-01-01,2026-12-31",
        "ghost,nobody,Deal,Text,amount,50,,,2026-01-01,2026-12-31",
        "typo,alpha,Deal,Text,amount,50,,broken_sprang,2026-01-01,2026-12-31",
        "backwards,alpha,Deal,Text,percent,10,,,2026-12-31,2026-01-01",
        "greedy,alpha,Deal,Text,percent,150,,,2026-01-01,2026-12-31",
        "odd,alpha,Deal,Text,bogof,1,,,2026-01-01,2026-12-31",
    ]
    parsed = read_promotions("\n".join(rows), FileFormat.CSV, {"alpha"}, packaged_tree().issues)
    by_line = {p.line: p.message for p in parsed.problems}
    assert sorted(by_line) == [3, 4, 5, 6, 7]
    assert "no partner 'nobody'" in by_line[3]
    assert "broken_sprang" in by_line[4]
    assert "before validFrom" in by_line[5]
    assert "at most 100" in by_line[6]
    assert "'amount' or 'percent'" in by_line[7]


def test_format_comes_from_the_name_unless_given() -> None:
    assert format_of("directory.CSV") is FileFormat.CSV and format_of("x.json") is FileFormat.JSON
    assert format_of("export.txt", "csv") is FileFormat.CSV
    with pytest.raises(ValueError, match="--format"):
        format_of("export.txt")
