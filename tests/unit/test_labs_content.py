"""The lab Markdown files: the packaged content, the loader's checks, and the evaluation questions."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from garage_tools.cli import main
from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError
from garage_tools.knowledge.labs import (
    ANCHOR_PATTERN,
    FRONT_MATTER_SCHEMA_FILE,
    LAB_SLUGS,
    MAX_SECTIONS,
    MIN_SECTIONS,
    PREVIEW_DIR,
    lab_url,
    load_labs,
    parse_lab,
    preview_url,
    section_url,
)
from garage_tools.knowledge.loader import Knowledge, load_knowledge

LABS_DIR = DATA_DIR / "labs"
BENCH_DATA = Path(__file__).parents[2] / "bench" / "data"
#: The development set (the search is tuned on it) and the held-out set (never used for tuning), with their least sizes.
QUESTION_SETS = {"lab_questions.json": 40, "lab_questions_holdout.json": 20}
SPRINGS = "science-of-garage-door-springs"


@pytest.fixture
def labs_copy(tmp_path: Path) -> Path:
    """A writable copy of the packaged lab files, for breaking one at a time."""
    return Path(shutil.copytree(LABS_DIR, tmp_path / "labs"))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --- the packaged content ------------------------------------------------------------------


def test_the_eleven_labs_load_in_the_order_of_the_spec(knowledge: Knowledge) -> None:
    labs = knowledge.labs
    assert labs.slugs == list(LAB_SLUGS) and len(LAB_SLUGS) == 11
    assert [lab.slug for lab in labs] == list(LAB_SLUGS)
    assert labs.get("no-such-lab") is None
    for lab in labs:
        assert MIN_SECTIONS <= len(lab.sections) <= MAX_SECTIONS, lab.slug
        assert lab.title and lab.description and lab.interactive and lab.keywords and lab.intro_markdown
        assert labs.markdown(lab.slug) == (LABS_DIR / f"{lab.slug}.md").read_text(encoding="utf-8")


def test_sections_have_plain_text_for_retrieval_and_markdown_for_pages(knowledge: Knowledge) -> None:
    springs = knowledge.labs.get(SPRINGS)
    assert springs is not None
    sizing = next(s for s in springs.sections if s.anchor == "torque-turns-ippt")
    assert sizing.title == "Torque, turns and IPPT"
    assert "**Torque.**" in sizing.markdown and not sizing.markdown.startswith("##")
    assert sizing.text.startswith("Three numbers size a torsion spring.\nTorque. The door pulls")
    for lab in knowledge.labs:
        for section in lab.sections:
            assert ANCHOR_PATTERN.match(section.anchor)
            assert "{#" not in section.markdown, f"{lab.slug}#{section.anchor} swallowed the next heading"
            assert not re.search(r"\*\*|^#|^- |\{#", section.text, re.MULTILINE), f"{lab.slug}#{section.anchor}"
            assert 60 <= len(section.text.split()) <= 300, f"{lab.slug}#{section.anchor}"


def test_plain_text_drops_markup_but_keeps_the_words(tmp_path: Path) -> None:
    path = tmp_path / "demo.md"
    source = (
        "---\nslug: demo\ntitle: Demo\ndescription: A demo.\nkeywords: [demo]\ninteractive: Nothing.\n---\n"
        "Intro.\n\n"
        "## One {#one}\n\nSee [the *springs* lab](/labs/x) and `IPPT = W x r / N`.\n\n"
        "- first\n- second\n\n### Deeper\n\n```\ncode line\n```\n\n"
        "## Two {#two}\n\nText.\n\n## Three {#three}\n\nText.\n\n## Four {#four}\n\nText.\n"
    )
    lab = parse_lab(path, source)
    one = lab.sections[0]
    assert one.text == "See the springs lab and IPPT = W x r / N.\nfirst\nsecond\nDeeper\ncode line"
    assert one.markdown.startswith("See [the *springs* lab](/labs/x)") and "### Deeper" in one.markdown
    assert [s.anchor for s in lab.sections] == ["one", "two", "three", "four"]
    assert lab.intro_markdown == "Intro."


def test_url_helpers_share_one_shape() -> None:
    base = "https://tools.example.com/"
    assert lab_url(base, SPRINGS) == f"https://tools.example.com/labs/{SPRINGS}"
    assert section_url(base, SPRINGS, "stored-energy") == f"https://tools.example.com/labs/{SPRINGS}#stored-energy"
    assert preview_url(base, SPRINGS) == f"https://tools.example.com/labs/{SPRINGS}/preview.png"
    assert PREVIEW_DIR.parts[-4:] == ("web", "static", "labs", "previews")


def test_the_front_matter_schema_file_is_current(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["knowledge", "schemas", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / FRONT_MATTER_SCHEMA_FILE).read_text(encoding="utf-8"))
    on_disk = json.loads((DATA_DIR / "schemas" / FRONT_MATTER_SCHEMA_FILE).read_text(encoding="utf-8"))
    assert on_disk == written, "run `garage-tools knowledge schemas` to refresh lab.schema.json"
    assert set(written["required"]) == {"slug", "title", "description", "keywords", "interactive"}


# --- the loader refuses bad files -----------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "complaint"),
    [
        ("## Torque, turns and IPPT {#torque-turns-ippt}", "## Torque, turns and IPPT", "needs a stable anchor"),
        ("{#torque-turns-ippt}", "{#stored-energy}", "'stored-energy' is used twice"),
        ("{#torque-turns-ippt}", "{#Torque_Turns}", "lowercase words joined by hyphens"),
        ("{#torque-turns-ippt}", "{#}", "lowercase words joined by hyphens"),
        ("## Torque, turns and IPPT {#torque-turns-ippt}", "## {#torque-turns-ippt}", "no title"),
        ("slug: science-of-garage-door-springs", "slug: garage-door-springs", "does not match the file name"),
        ("slug: science-of-garage-door-springs\n", "", "slug\n  Field required"),
        ("description: How torsion", "description: " + "x" * 200 + " How torsion", "at most 200 characters"),
        ("keywords: [torsion spring,", "keywords: 7\nx: [torsion spring,", "Extra inputs are not permitted"),
        ("title: The Science", "title: [The Science", "not valid YAML"),
        ("---\nslug:", "slug:", "must start with YAML front matter"),
        ("Three numbers size a torsion spring.", "Three <b>numbers</b> size a torsion spring.", "raw HTML"),
        ("## Torque, turns and IPPT {#torque-turns-ippt}", "# Torque {#torque}", "no `#` headings"),
        ("\n## How a torsion spring balances", "\n## Empty {#empty}\n\n## How a torsion spring balances", "no text"),
    ],
)
def test_a_broken_lab_file_is_refused_with_its_name(labs_copy: Path, old: str, new: str, complaint: str) -> None:
    edit(labs_copy / f"{SPRINGS}.md", old, new)
    with pytest.raises(KnowledgeError) as caught:
        load_labs(labs_copy)
    assert f"{SPRINGS}.md" in str(caught.value) and complaint in str(caught.value)


def test_too_few_or_too_many_sections_are_refused(labs_copy: Path) -> None:
    path = labs_copy / f"{SPRINGS}.md"
    original = path.read_text(encoding="utf-8")
    intro, _, rest = original.partition("\n## ")
    sections = ("## " + rest).split("\n## ")
    path.write_text(intro + "\n" + "\n## ".join(sections[:3]) + "\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"has 3 `##` sections; a lab has 4 to 7"):
        load_labs(labs_copy)
    extra = "".join(f"\n## More {n} {{#more-{n}}}\n\nText {n}.\n" for n in range(2))
    path.write_text(original + extra, encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"has 8 `##` sections"):
        load_labs(labs_copy)


def test_an_intro_is_required(labs_copy: Path) -> None:
    path = labs_copy / f"{SPRINGS}.md"
    text = path.read_text(encoding="utf-8")
    head, _, body = text.partition("\n---\n")
    path.write_text(head + "\n---\n" + body[body.index("## ") :], encoding="utf-8")
    with pytest.raises(KnowledgeError, match="needs an introduction"):
        load_labs(labs_copy)


def test_a_missing_or_unknown_lab_file_is_refused(labs_copy: Path) -> None:
    (labs_copy / "animated.md").rename(labs_copy / "animation.md")
    with pytest.raises(KnowledgeError) as caught:
        load_labs(labs_copy)
    assert "missing ['animated']" in str(caught.value) and "unknown ['animation']" in str(caught.value)


def test_the_service_refuses_to_start_with_a_broken_lab(tmp_path: Path) -> None:
    data = Path(shutil.copytree(DATA_DIR, tmp_path / "data"))
    assert len(load_knowledge(data).labs) == len(LAB_SLUGS)
    (data / "labs" / f"{SPRINGS}.md").unlink()
    with pytest.raises(KnowledgeError, match=r"missing \['science-of-garage-door-springs'\]"):
        load_knowledge(data)


# --- the retrieval evaluation set --------------------------------------------------------


def questions(name: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads((BENCH_DATA / name).read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("name", QUESTION_SETS)
def test_every_question_names_a_section_that_exists(knowledge: Knowledge, name: str) -> None:
    asked = questions(name)
    assert len(asked) >= QUESTION_SETS[name]
    assert len({q["question"].lower() for q in asked}) == len(asked), "a question is listed twice"
    for q in asked:
        assert set(q) == {"question", "labSlug", "anchor"}
        lab = knowledge.labs.get(q["labSlug"])
        assert lab is not None, q
        section = next((s for s in lab.sections if s.anchor == q["anchor"]), None)
        assert section is not None, q
        assert section.title.lower() not in q["question"].lower(), f"copies the section title: {q}"
    per_lab = {slug: sum(q["labSlug"] == slug for q in asked) for slug in LAB_SLUGS}
    assert min(per_lab.values()) >= 2, per_lab


def test_the_held_out_set_shares_no_question_with_the_development_set() -> None:
    development = {q["question"].lower() for q in questions("lab_questions.json")}
    assert not development & {q["question"].lower() for q in questions("lab_questions_holdout.json")}
