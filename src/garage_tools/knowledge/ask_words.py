"""How a question reads: the cue words the answerer uses to tell a price question from a how-to, and its phrasing.

The answerer (tools/ask/) only ever states what a tool answered; these words decide *which* tools to ask,
and the templates are the plain sentences that carry the tools' facts to a person. Both are data
(`data/ask_words.json`) so a domain editor can add a homeowner's way of asking without reading Python.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from garage_tools.knowledge.data_files import DATA_DIR, read_data_file
from garage_tools.knowledge.matcher import words
from garage_tools.knowledge.schemas import DataModel, DoorType, Text

Cue = Annotated[Text, Field(max_length=40)]


class CueList(DataModel):
    """Words or short phrases, matched as whole words ignoring case."""

    cues: list[Cue] = Field(min_length=1)

    def found_in(self, tokens: list[str]) -> str | None:
        """The first cue whose words occur in `tokens` in order and side by side, or None."""
        text = f" {' '.join(tokens)} "  # one string: each cue is one substring search, whatever its length
        return next((cue for cue in self.cues if f" {' '.join(words(cue))} " in text), None)


class DoorTypeCues(CueList):
    door_type: DoorType = Field(alias="type")


class Templates(DataModel):
    """Sentences with `{named}` blanks, each filled only from a tool's answer."""

    diy_unsafe: Text = Field(alias="diyUnsafe")
    diy_safe: Text = Field(alias="diySafe")
    diy_caution: Text = Field(alias="diyCaution")
    price_repair: Text = Field(alias="priceRepair")
    price_where: Text = Field(alias="priceWhere")
    price_national: Text = Field(alias="priceNational")
    styles_range: Text = Field(alias="stylesRange")
    styles_item: Text = Field(alias="stylesItem")
    styles_none: Text = Field(alias="stylesNone")
    symptom: Text
    cause: Text
    pro: Text
    no_pro: Text = Field(alias="noPro")
    ask_place: Text = Field(alias="askPlace")
    explain_more: Text = Field(alias="explainMore")
    unknown: Text
    safety_prefix: Text = Field(alias="safetyPrefix")
    urgency: dict[str, Text]


class AskWords(DataModel):
    about: Text
    diy: CueList
    price: CueList
    new_door: CueList = Field(alias="newDoor")
    first_person: CueList = Field(alias="firstPerson")
    question_words: CueList = Field(alias="questionWords")
    double_door: CueList = Field(alias="doubleDoor")
    single_door: CueList = Field(alias="singleDoor")
    door_types: list[DoorTypeCues] = Field(alias="doorTypes", min_length=1)
    templates: Templates

    @model_validator(mode="after")
    def _urgencies(self) -> AskWords:
        missing = {"emergency", "soon", "routine"} - set(self.templates.urgency)
        if missing:
            raise ValueError(f"templates.urgency lacks {sorted(missing)}")
        return self


#: Schema files `garage-tools knowledge schemas` writes for this module (name -> model).
ASK_FILES: dict[str, type[BaseModel]] = {"ask_words.json": AskWords}


@lru_cache(maxsize=1)
def packaged_ask_words() -> AskWords:
    """The packaged question words, read on first use (the answerer is not on every server's hot path)."""
    return read_data_file(DATA_DIR / "ask_words.json", AskWords)
