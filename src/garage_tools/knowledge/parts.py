"""Which part of the door a description names: "the cable is frayed" -> `cables`.

visualDiagnose without a vision model cannot look at the photo, so it reads the caller's
description: first through the symptom matcher (a symptom leads to an issue and its part), and
when no symptom matches, through these words, which at least say which part the photo is of. The
words are data (`data/part_words.json`) so they can grow without code; each names an item of the
inspection checklist, checked when the finder is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from garage_tools.knowledge.checklist import ChecklistItem, InspectionChecklist
from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError, read_data_file
from garage_tools.knowledge.matcher import words
from garage_tools.knowledge.schemas import DataModel, Slug, Text


class PartWordsEntry(DataModel):
    item_id: Slug = Field(alias="itemId", description="The inspection checklist item these words name.")
    words: list[Annotated[Text, Field(max_length=40)]] = Field(
        min_length=1, description="Words or short phrases, matched as whole words, ignoring case."
    )


class PartWords(DataModel):
    about: Text
    parts: list[PartWordsEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unambiguous(self) -> PartWords:
        owner: dict[tuple[str, ...], str] = {}
        for part in self.parts:
            for phrase in part.words:
                tokens = tuple(words(phrase))
                if not tokens:
                    raise ValueError(f"{part.item_id}: {phrase!r} has no words")
                if owner.setdefault(tokens, part.item_id) != part.item_id:
                    raise ValueError(f"{phrase!r} names both {owner[tokens]} and {part.item_id}")
        return self


#: Schema files `garage-tools knowledge schemas` writes for this module (name -> model).
PART_FILES: dict[str, type[BaseModel]] = {"part_words.json": PartWords}


@dataclass(frozen=True, slots=True)
class PartMention:
    item: ChecklistItem
    phrase: str


class PartFinder:
    """Finds the checklist item a description names; the longest phrase wins, then the first mentioned."""

    def __init__(self, part_words: PartWords, checklist: InspectionChecklist) -> None:
        items = {item.id: item for item in checklist.items}
        unknown = sorted({part.item_id for part in part_words.parts} - set(items))
        if unknown:
            raise KnowledgeError(f"part_words.json names items the checklist lacks: {unknown}")
        self._phrases = [
            (tuple(words(phrase)), phrase, items[part.item_id]) for part in part_words.parts for phrase in part.words
        ]

    def find(self, text: str) -> PartMention | None:
        tokens = words(text)
        best: tuple[int, int, PartMention] | None = None
        for phrase_tokens, phrase, item in self._phrases:
            size = len(phrase_tokens)
            for start in range(len(tokens) - size + 1):
                if tuple(tokens[start : start + size]) == phrase_tokens:
                    rank = (size, -start)
                    if best is None or rank > best[:2]:
                        best = (*rank, PartMention(item, phrase))
                    break
        return best[2] if best else None


@lru_cache(maxsize=1)
def packaged_part_words() -> PartWords:
    """The packaged part words, read on first use (like the diagnostic tree's keys)."""
    return read_data_file(DATA_DIR / "part_words.json", PartWords)
