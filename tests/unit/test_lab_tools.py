"""getLab, getLabEmbed and retrieveLabContext through `invoke`, and the pieces under them.

Everything runs on the packaged labs: the same Markdown the lab pages and the MCP resources use.
"""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from mcp import MCPError
from PIL import Image
from pydantic import ValidationError

from garage_tools.access.caller import Caller, Tier
from garage_tools.errors import AuthRequired, InvalidArguments
from garage_tools.knowledge.lab_index import STOP_WORDS, SYNONYM_WEIGHT, LabIndex, Query, SynonymList, terms
from garage_tools.knowledge.labs import LAB_SLUGS, PREVIEW_DIR, section_url
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.stemmer import stem
from garage_tools.models import inline_images
from garage_tools.registry import ToolContext, dump, invoke
from garage_tools.surfaces.mcp_encoding import tool_result
from garage_tools.surfaces.mcp_resources import lab_resources, read_lab
from garage_tools.tools import build_registry
from garage_tools.tools import labs as lab_tools
from garage_tools.tools.retrieval import MAX_CHUNK_CHARS, lab_index, trim
from tests.tool_data import unopened_data

DATA = unopened_data()  # real stores no handler here opens

REGISTRY = build_registry()
BASE = "https://doors.example.com"
SPRINGS = "science-of-garage-door-springs"


def context(knowledge: Knowledge, surface: str = "rest", tier: Tier = Tier.PRO) -> ToolContext:
    key_id = "test-key" if tier is Tier.PRO else None
    caller = Caller(tier=tier, surface=surface, key_id=key_id)
    return ToolContext(knowledge=knowledge, caller=caller, base_url=BASE, data=DATA)


async def call(knowledge: Knowledge, name: str, arguments: dict[str, Any], **caller: Any) -> dict[str, Any]:
    return dump(await invoke(REGISTRY, name, arguments, context(knowledge, **caller)))


async def refusal(knowledge: Knowledge, name: str, arguments: dict[str, Any]) -> InvalidArguments:
    with pytest.raises(InvalidArguments) as caught:
        await invoke(REGISTRY, name, arguments, context(knowledge))
    return caught.value


# --- getLab ------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", LAB_SLUGS)
async def test_get_lab_describes_every_lab(knowledge: Knowledge, slug: str) -> None:
    lab = await call(knowledge, "getLab", {"slug": slug})
    assert lab["slug"] == slug and lab["title"] and lab["description"] and lab["interactive"]
    assert lab["url"] == f"{BASE}/labs/{slug}"
    assert lab["preview"] == {
        "url": f"{BASE}/labs/{slug}/preview.png",
        "width": 960,
        "height": 540,
        "mimeType": "image/png",
        "alt": lab["preview"]["alt"],
    }
    assert lab["title"] in lab["preview"]["alt"]
    sections = knowledge.labs.get(slug).sections  # type: ignore[union-attr]
    assert [s["url"] for s in lab["sections"]] == [section_url(BASE, slug, s.anchor) for s in sections]


async def test_rest_answers_carry_no_image_and_stay_small(knowledge: Knowledge) -> None:
    result = await invoke(REGISTRY, "getLab", {"slug": SPRINGS}, context(knowledge, surface="rest"))
    assert inline_images(result) == []
    assert len(REGISTRY.get("getLab").output_model.model_dump_json(result)) < 5_000  # GPT Actions refuse >= 100,000


@pytest.mark.parametrize("surface", ["mcp", "mcp-pro"])
async def test_mcp_answers_carry_the_committed_preview_when_there_is_one(knowledge: Knowledge, surface: str) -> None:
    result = await invoke(REGISTRY, "getLab", {"slug": SPRINGS}, context(knowledge, surface=surface))
    committed = PREVIEW_DIR / f"{SPRINGS}.png"
    images = inline_images(result)
    if committed.exists():
        assert [base64.b64decode(i.data) for i in images] == [committed.read_bytes()]
    else:  # not rendered yet: the URL alone, never a failure
        assert images == [] and dump(result)["preview"]["url"].endswith("/preview.png")


def _png(path: Path) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (960, 540), (200, 60, 20)).save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def test_the_preview_becomes_an_mcp_image_block_and_appears_once_rendered(knowledge: Knowledge, tmp_path: Path) -> None:
    missing = lab_tools.describe_lab(knowledge, SPRINGS, BASE, inline_preview=True, previews=tmp_path)
    assert missing.preview.image is None and missing.preview.url.endswith(f"/labs/{SPRINGS}/preview.png")

    png = _png(tmp_path / f"{SPRINGS}.png")
    found = lab_tools.describe_lab(knowledge, SPRINGS, BASE, inline_preview=True, previews=tmp_path)
    encoded = tool_result(found)
    blocks = [c for c in encoded["content"] if c["type"] == "image"]
    assert [(b["mimeType"], base64.b64decode(b["data"])) for b in blocks] == [("image/png", png)]
    # The bytes travel once, in the image block: not again as base64 in the JSON a model reads.
    assert "data" not in encoded["structuredContent"]["preview"]["image"]
    assert blocks[0]["data"] not in encoded["content"][0]["text"]

    (tmp_path / f"{SPRINGS}.png").unlink()  # read once, then served from memory
    again = lab_tools.describe_lab(knowledge, SPRINGS, BASE, inline_preview=True, previews=tmp_path)
    assert again.preview.image == found.preview.image
    assert (
        lab_tools.describe_lab(knowledge, SPRINGS, BASE, inline_preview=False, previews=tmp_path).preview.image is None
    )


@pytest.mark.parametrize("name", ["getLab", "getLabEmbed"])
async def test_an_unknown_slug_is_a_400_listing_the_slugs(knowledge: Knowledge, name: str) -> None:
    error = await refusal(knowledge, name, {"slug": "science-of-doors"})
    assert error.status == 400 and error.details and error.details[0].field == "slug"
    assert "'science-of-doors'" in error.message and all(slug in error.message for slug in LAB_SLUGS)
    missing = await refusal(knowledge, name, {})
    assert missing.details and missing.details[0].field == "slug" and missing.details[0].message == "is required"


def test_input_schemas_publish_the_slugs() -> None:
    for name in ("getLab", "getLabEmbed"):
        schema = REGISTRY.get(name).input_model.model_json_schema(by_alias=True)
        assert schema["properties"]["slug"]["enum"] == list(LAB_SLUGS) and schema["required"] == ["slug"]
    retrieval = REGISTRY.get("retrieveLabContext").input_model.model_json_schema(by_alias=True)
    assert retrieval["properties"]["labSlug"]["enum"] == [*LAB_SLUGS, None]
    top_k = {"type": "integer", "minimum": 1, "maximum": 10}
    assert retrieval["properties"]["topK"]["anyOf"] == [top_k, {"type": "null"}]
    assert retrieval["required"] == ["query"]


def test_descriptions_say_which_tool_fits_which_caller() -> None:
    assert "cannot render iframes" in REGISTRY.get("getLab").description
    assert "getLabEmbed" in REGISTRY.get("getLab").description
    assert "getLab" in REGISTRY.get("getLabEmbed").description


def test_the_embed_description_promises_what_the_sandbox_allows() -> None:
    description = REGISTRY.get("getLabEmbed").description
    sandbox = lab_tools.IFRAME_SANDBOX.split()
    assert "pop-up" not in description  # the "Open full lab" link is a pop-up the sandbox lets through
    assert ("opens the lab in a new tab" in description) == ("allow-popups" in sandbox)
    assert ("use cookies or storage" in description) == ("allow-same-origin" not in sandbox)
    assert "full screen" not in description


# --- getLabEmbed -------------------------------------------------------------------------


class _Frames(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.frames: list[dict[str, str | None]] = []
        self.other_tags: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "iframe":
            self.frames.append(dict(attrs))
        else:
            self.other_tags.append(tag)
        if tag == "script":
            self.scripts.append(dict(attrs))


def frames(html: str) -> _Frames:
    parser = _Frames()
    parser.feed(html)
    parser.close()
    return parser


async def test_embed_html_is_a_sandboxed_lazy_responsive_iframe(knowledge: Knowledge) -> None:
    embed = await call(knowledge, "getLabEmbed", {"slug": SPRINGS})
    assert embed["url"] == f"{BASE}/labs/{SPRINGS}" and embed["embedUrl"] == f"{BASE}/labs/{SPRINGS}?embed=1"
    assert (embed["width"], embed["height"]) == (960, 540)
    parsed = frames(embed["iframeHtml"])
    assert parsed.other_tags == ["script"] and len(parsed.frames) == 1
    assert parsed.scripts == [{"src": f"{BASE}/labs/embed.js", "async": None}]  # the loader that fits the frame
    (frame,) = parsed.frames
    assert frame["src"] == embed["embedUrl"]
    assert frame["title"] and embed["title"] in frame["title"]
    assert frame["loading"] == "lazy"
    assert "allow" not in frame and "allowfullscreen" not in frame, "no lab asks to go full screen"
    # The lab runs and its "Open full lab" link opens a normal tab; it cannot navigate the host page or post
    # forms, and without allow-same-origin it runs in an opaque origin, away from this site's cookies and storage.
    assert frame["sandbox"] == "allow-scripts allow-popups allow-popups-to-escape-sandbox"
    assert frame["referrerpolicy"]
    # Full width and a phone-friendly height without the loader, also where a host's CSP drops the style.
    assert "width:100%" in (frame["style"] or "") and "height:640px" in (frame["style"] or "")
    assert (frame["width"], frame["height"]) == ("100%", "640")
    assert "data-garage-lab" in frame


def test_every_attribute_of_the_iframe_is_escaped() -> None:
    hostile_src = 'https://doors.example.com/labs/x?a=1&b="><script>alert(1)</script>'
    hostile_title = 'Tom & Jerry\'s <b>"lab"</b>'
    html = lab_tools.iframe_html(hostile_src, hostile_title)
    assert "<script" not in html and "<b>" not in html and html.count('"') % 2 == 0
    (frame,) = frames(html).frames
    assert frame["src"] == hostile_src and frame["title"] == hostile_title


# --- retrieveLabContext ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "lab", "anchor"),
    [
        ("how much energy is stored in a wound torsion spring?", SPRINGS, "stored-energy"),
        ("is polyurethane foam better than polystyrene?", "energy-efficiency-lab", "polystyrene-vs-polyurethane"),
        ("why do springs break more often in the winter cold", "spring-fatigue-cold-weather", "cold-effects"),
        ("what is a fire rated rolling door", "rolling-steel-lab", "fire-doors"),
    ],
)
async def test_questions_find_the_section_that_answers_them(
    knowledge: Knowledge, question: str, lab: str, anchor: str
) -> None:
    answer = await call(knowledge, "retrieveLabContext", {"query": question})
    found = [(c["labSlug"], c["anchor"]) for c in answer["chunks"]]
    assert (lab, anchor) in found[:3], found


async def test_chunks_are_ranked_and_citable(knowledge: Knowledge) -> None:
    answer = await call(knowledge, "retrieveLabContext", {"query": "torsion spring cycle life in cold weather"})
    chunks = answer["chunks"]
    assert answer["count"] == len(chunks) == 5 and "hint" not in answer
    assert [c["rank"] for c in chunks] == [1, 2, 3, 4, 5]
    scores = [c["score"] for c in chunks]
    assert scores == sorted(scores, reverse=True) and all(s > 0 and s == round(s, 3) for s in scores)
    for chunk in chunks:
        lab = knowledge.labs.get(chunk["labSlug"])
        assert lab is not None and chunk["labTitle"] == lab.title
        section = next(s for s in lab.sections if s.anchor == chunk["anchor"])
        assert chunk["sectionTitle"] == section.title
        assert chunk["url"] == section_url(BASE, lab.slug, section.anchor)
        assert chunk["text"] == trim(section.text) and len(chunk["text"]) <= MAX_CHUNK_CHARS + 2


async def test_lab_slug_restricts_the_search(knowledge: Knowledge) -> None:
    everywhere = await call(knowledge, "retrieveLabContext", {"query": "spring", "topK": 10})
    assert len({c["labSlug"] for c in everywhere["chunks"]}) > 1
    one_lab = await call(
        knowledge, "retrieveLabContext", {"query": "spring", "topK": 10, "labSlug": "rolling-steel-lab"}
    )
    assert one_lab["chunks"] and {c["labSlug"] for c in one_lab["chunks"]} == {"rolling-steel-lab"}
    error = await refusal(knowledge, "retrieveLabContext", {"query": "spring", "labSlug": "springs"})
    assert error.details and error.details[0].field == "labSlug" and all(slug in error.message for slug in LAB_SLUGS)


async def test_top_k_defaults_to_5_and_is_bounded_to_1_to_10(knowledge: Knowledge) -> None:
    query = "garage door spring torsion opener safety insulation"
    assert len((await call(knowledge, "retrieveLabContext", {"query": query}))["chunks"]) == 5
    assert len((await call(knowledge, "retrieveLabContext", {"query": query, "topK": 10}))["chunks"]) == 10
    assert len((await call(knowledge, "retrieveLabContext", {"query": query, "topK": 1}))["chunks"]) == 1
    assert len((await call(knowledge, "retrieveLabContext", {"query": query, "topK": 3.0}))["chunks"]) == 3
    assert len((await call(knowledge, "retrieveLabContext", {"query": query, "topK": None}))["chunks"]) == 5  # unset
    for bad in (0, 11, 2.5, "5", True):
        error = await refusal(knowledge, "retrieveLabContext", {"query": query, "topK": bad})
        assert error.details and error.details[0].field == "topK"


async def test_the_query_is_required_and_bounded(knowledge: Knowledge) -> None:
    for bad in ({}, {"query": ""}, {"query": "spring " * 100}):
        error = await refusal(knowledge, "retrieveLabContext", bad)
        assert error.details and error.details[0].field == "query"
    assert (await call(knowledge, "retrieveLabContext", {"query": "spring " * 71 + "abc"}))["chunks"]  # 500 chars


@pytest.mark.parametrize("query", ["xyzzy plugh", "   ", "the and of"])
async def test_no_match_is_an_empty_list_with_a_hint(knowledge: Knowledge, query: str) -> None:
    answer = await call(knowledge, "retrieveLabContext", {"query": query})
    assert answer["chunks"] == [] and answer["count"] == 0 and "plain words" in answer["hint"]
    narrowed = await call(knowledge, "retrieveLabContext", {"query": query, "labSlug": "animated"})
    assert "labSlug" in narrowed["hint"]


async def test_anonymous_callers_are_refused_with_401(knowledge: Knowledge) -> None:
    for surface in ("rest", "mcp"):
        anonymous = ToolContext(knowledge=knowledge, caller=Caller.anonymous(surface), base_url=BASE, data=DATA)
        with pytest.raises(AuthRequired) as caught:
            await invoke(REGISTRY, "retrieveLabContext", {"query": "springs"}, anonymous)
        assert caught.value.status == 401 and caught.value.envelope()["error"]["code"] == "auth_required"
    assert (await call(knowledge, "getLab", {"slug": SPRINGS}, tier=Tier.PUBLIC))["slug"] == SPRINGS


# --- the index underneath ----------------------------------------------------------------


def test_porter_stems() -> None:
    published = {
        "caresses": "caress", "ponies": "poni", "agreed": "agre", "hopping": "hop", "filing": "file",
        "relational": "relat", "generalizations": "gener", "electrical": "electr", "adjustment": "adjust",
        "controlling": "control", "sky": "sky",
    }  # fmt: skip
    assert {word: stem(word) for word in published} == published
    assert {stem(w) for w in ("spring", "springs")} == {"spring"}
    assert {stem(w) for w in ("insulation", "insulated", "insulating")} == {"insul"}


def test_terms_drop_stop_words_and_fold_word_forms() -> None:
    assert terms("Why won't my door's springs CLOSE?") == ["door", "spring", "close"]
    assert not {"the", "why", "wont"} - STOP_WORDS
    # Fillers carry no topic; doing it yourself is a topic here.
    assert terms("is it really actually worth doing myself?") == ["worth", "myself"]


def test_section_titles_and_lab_keywords_weigh_more_than_body_words(knowledge: Knowledge) -> None:
    index = LabIndex.build(knowledge.labs)
    assert len(index) == sum(len(lab.sections) for lab in knowledge.labs)
    # A section whose title names the topic outranks sections that only mention it.
    (best,) = index.search("cycle rating years", top_k=1)
    assert "cycle" in best.section.title.lower()


def test_the_index_is_built_once_per_knowledge_base(knowledge: Knowledge) -> None:
    assert lab_index(knowledge) is lab_index(knowledge)


def test_synonyms_bring_in_the_other_phrases_of_a_group(knowledge: Knowledge) -> None:
    query = lab_index(knowledge).expand("the photo eye blinks")
    assert query.terms == ("photo", "ey", "blink")
    (alternatives,) = query.synonyms  # one group: photo eye, safety sensor, electric eye...
    assert ("sensor",) in alternatives and ("safeti", "sensor") in alternatives
    assert ("safeti",) in alternatives, "'safety eye' without the caller's own 'eye'"
    assert ("photo", "ey") not in alternatives and () not in alternatives
    assert LabIndex.build(knowledge.labs).expand("the photo eye blinks") == Query(("photo", "ey", "blink"), ())
    with pytest.raises(ValidationError, match="only of stop words"):
        SynonymList.model_validate({"groups": [{"words": ["sensor", "the other"]}]})


def test_a_synonym_group_counts_once_and_a_phrase_as_one_word(knowledge: Knowledge) -> None:
    """A section scores the caller's word plus SYNONYM_WEIGHT x its best alternative, never the sum of them all,
    scaled by the share of the two (the word, the group) it matches.

    Summing let a large group outweigh what the caller typed: "worth" pulled in the ROI lab's every synonym.
    """
    group = SynonymList.model_validate({"groups": [{"words": ["worth", "ROI", "payback", "resale value"]}]})
    with_group = LabIndex.build(knowledge.labs, group)
    bare = LabIndex.build(knowledge.labs)

    def scores(index: LabIndex, text: str) -> dict[tuple[str, str], float]:
        return {(h.lab.slug, h.section.anchor): h.score for h in index.search(text, top_k=len(index))}

    worth, roi, payback = scores(bare, "worth"), scores(bare, "roi"), scores(bare, "payback")
    resale, value = scores(bare, "resale"), scores(bare, "value")
    got = scores(with_group, "worth")
    assert len(got) > len(worth), "the synonyms reach sections without the word 'worth'"
    for section, score in got.items():
        resale_value = (resale.get(section, 0.0) + value.get(section, 0.0)) / 2  # a two-word phrase: the mean
        best = max(roi.get(section, 0.0), payback.get(section, 0.0), resale_value)
        share = ((section in worth) + (best > 0)) / 2
        assert score == pytest.approx((worth.get(section, 0.0) + SYNONYM_WEIGHT * best) * share), section


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Can I replace my own spring to save money?", 1.2),
        ("can I replace my own garage door spring to save money?", 1.1),  # "garage door" is in every section
    ],
)
def test_doing_it_yourself_in_stop_words_finds_the_technician_only_section(
    knowledge: Knowledge, question: str, lead: float
) -> None:
    """ "My own" is two stop words; the DIY group's cue brings the group in, in full, standing in for them. And
    coordination: "money", in one section of the energy lab only, no longer outweighs the section that answers
    replace, spring, save, cost and doing it yourself, so that section leads clearly."""
    query = lab_index(knowledge).expand(question)
    assert ("yourself",) in query.synonyms[-1] and query.weights[-1] == 1.0
    best, second = lab_index(knowledge).search(question, top_k=2)
    assert (best.lab.slug, best.section.anchor) == (SPRINGS, "technician-only")
    assert best.score > lead * second.score


def test_cues_are_stop_words_and_words_are_not() -> None:
    with pytest.raises(ValidationError, match="cues are phrases made only of stop words"):
        SynonymList.model_validate({"groups": [{"words": ["diy", "myself"], "cues": ["my own spring"]}]})
    cued = SynonymList.model_validate({"groups": [{"words": ["diy", "myself"], "cues": ["my own"]}]})
    assert cued.cue_groups() == {("my", "own"): 0}


def test_trim_cuts_at_a_sentence_or_a_word() -> None:
    sentence = "A spring stores energy. " * 100
    cut = trim(sentence, 200)
    assert len(cut) <= 202 and cut.endswith(". …")
    words = "spring " * 100
    assert trim(words, 50).endswith("spring…") and len(trim(words, 50)) <= 50
    assert trim("short", 50) == "short"


# --- MCP resources -----------------------------------------------------------------------


def test_every_lab_is_a_markdown_resource(knowledge: Knowledge) -> None:
    listed = lab_resources(knowledge.labs)
    assert [r.uri for r in listed] == [f"lab://{slug}" for slug in LAB_SLUGS]
    assert all(r.mime_type == "text/markdown" and r.title and r.description for r in listed)
    read = read_lab(knowledge.labs, f"lab://{SPRINGS}")
    (content,) = read.contents
    assert content.uri == f"lab://{SPRINGS}" and content.text == knowledge.labs.markdown(SPRINGS)  # type: ignore[union-attr]


@pytest.mark.parametrize("uri", ["lab://nope", "https://doors.example.com/labs/animated", "lab://", "animated"])
def test_an_unknown_resource_is_invalid_params(knowledge: Knowledge, uri: str) -> None:
    with pytest.raises(MCPError) as caught:
        read_lab(knowledge.labs, uri)
    assert caught.value.error.code == -32602 and "lab://animated" in caught.value.error.message
