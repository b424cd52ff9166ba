"""Draw the inspection form's part drawings for the items the reference gallery has no pictures of.

    uv run python scripts/draw_part_drawings.py     # writes src/garage_tools/web/static/inspection/parts/

Nine of the 24 inspection items (rollers, hinges, sections, tracks, struts, handles and lock, warning labels, the
reversal test, travel limits and force) are not in the reference gallery, so the form showed no picture beside
them. Each gets one drawing here of what the part should look like, in the gallery's style (the same canvas,
frame, colours and call-outs, from `draw_reference_photos.py`), and `drawings.json` with the alt text and the
caption the form shows. Original illustrations, no photograph copied or traced.

Like the gallery, each drawing is drawn in every language the service speaks (`rollers.webp`, `rollers.es.webp`),
named in `drawings.json`'s `files`: the words are English in the code below, and `WORDS` has one table per other
language (the frame's own words, badge and "illustration", come from the gallery's tables).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from draw_reference_photos import (
    BOTTOM,
    INK,
    RUBBER,
    STEEL,
    STEEL_DARK,
    STEEL_LIGHT,
    TOP,
    WOOD,
    WOOD_DARK,
    Canvas,
    H,
    W,
    callout,
    door_panels,
    encode,
    file_in,
    floor,
    frame,
    other_files,
)
from draw_reference_photos import WORDS as FRAME_WORDS

from garage_tools.languages import DEFAULT, SUPPORTED

OUT = Path(__file__).resolve().parent.parent / "src" / "garage_tools" / "web" / "static" / "inspection" / "parts"
OK = "HEALTHY"
BOLT = (70, 74, 80)
YELLOW, RED = (255, 196, 0), (198, 40, 40)


def bolt(c: Canvas, at: tuple[float, float], r: float = 5) -> None:
    c.circle(at, r, fill=BOLT, outline=INK, width=1.5)
    c.line([(at[0] - r * 0.6, at[1]), (at[0] + r * 0.6, at[1])], STEEL_LIGHT, 1.2)


def vertical_track(c: Canvas, x: float, top: float, bottom: float) -> None:
    """A door track seen from inside the garage: the channel with its two lips."""
    c.rect((x, top, x + 34, bottom), fill=STEEL, outline=STEEL_DARK, width=2)
    c.rect((x + 6, top, x + 28, bottom), fill=(176, 184, 190))
    c.line([(x + 17, top), (x + 17, bottom)], STEEL_DARK, 1.5)


def rollers(c: Canvas, severity: str) -> None:
    door_panels(c, (40, TOP, 400, BOTTOM), joints=(190, 320))
    vertical_track(c, 470, TOP, BOTTOM)
    for y in (190, 320):
        c.rect((370, y - 26, 420, y + 26), fill=(150, 156, 162), outline=INK, width=2, radius=3)  # hinge at joint
        bolt(c, (384, y - 14))
        bolt(c, (384, y + 14))
        c.rect((418, y - 5, 478, y + 5), fill=STEEL_DARK, outline=INK, width=1.5)  # the stem
        c.circle((487, y), 24, fill=(64, 68, 74), outline=INK, width=2)  # wheel in the track
        c.circle((487, y), 14, fill=(120, 126, 132), outline=INK, width=1.5)
        for angle in range(0, 360, 45):
            r = math.radians(angle)
            c.circle((487 + 9 * math.cos(r), y + 9 * math.sin(r)), 2.6, fill=STEEL_LIGHT)
        c.circle((487, y), 4, fill=INK)
    callout(c, severity, (487, 190), "Wheel round, turns freely", (120, 100))
    callout(c, severity, (450, 320), "Stem straight in its hinge", (110, 250))


def hinges(c: Canvas, severity: str) -> None:
    door_panels(c, (0, TOP, W, BOTTOM), joints=(232,))
    for x in (140, 460):
        c.rect((x - 46, 172, x + 46, 292), fill=(156, 162, 168), outline=INK, width=2, radius=4)  # two leaves
        c.line([(x - 46, 232), (x + 46, 232)], INK, 2)
        c.rect((x - 10, 222, x + 10, 242), fill=STEEL_DARK, outline=INK, width=1.5, radius=3)  # knuckle
        for bx in (x - 28, x + 28):
            bolt(c, (bx, 192))
            bolt(c, (bx, 272))
    callout(c, severity, (432, 192), "Every bolt tight", (380, 90))
    callout(c, severity, (140, 232), "No crack at the fold", (40, 320))


def sections(c: Canvas, severity: str) -> None:
    door_panels(c, (30, TOP, 610, BOTTOM), joints=(144, 232, 320))
    c.rect((30, TOP + 6, 610, TOP + 30), fill=(196, 200, 204), outline=STEEL_DARK, width=1.5)  # top strut
    callout(c, severity, (320, 232), "Joints closed and even", (220, 160))
    callout(c, severity, (470, 280), "Straight: no dents, cracks or rust", (230, 340))


def track(c: Canvas, severity: str) -> None:
    c.rect((0, TOP, 120, BOTTOM), fill=WOOD, outline=WOOD_DARK, width=2)  # door jamb
    for y in range(TOP + 30, BOTTOM, 60):
        c.line([(0, y), (120, y)], WOOD_DARK, 1.2)
    vertical_track(c, 300, 150, BOTTOM)
    # the curve into the horizontal track at the top
    for width, colour in ((34, STEEL_DARK), (30, STEEL)):
        c.arc((300, 60, 300 + 2 * 120, 60 + 2 * 100), 180, 270, colour, width)
    c.rect((420, 60, W, 94), fill=STEEL, outline=STEEL_DARK, width=2)
    for y in (200, 290, 370):  # brackets from the jamb to the track
        bar = [(120, y - 12), (300, y - 12), (300, y + 12), (120, y + 12)]
        c.polygon(bar, fill=(140, 146, 152), outline=INK, width=2)
        bolt(c, (92, y))
        bolt(c, (292, y), 4)
        c.rect((80, y - 14, 120, y + 14), fill=(150, 156, 162), outline=INK, width=1.5)
        bolt(c, (98, y), 6)
    callout(c, severity, (98, 290), "Brackets tight to the wall", (150, 110))
    callout(c, severity, (317, 340), "Straight, no bends or dents", (360, 300))


def struts(c: Canvas, severity: str) -> None:
    c.rect((0, TOP, W, 86), fill=WOOD, outline=WOOD_DARK, width=2)  # header above the door
    door_panels(c, (30, 86, 610, BOTTOM), joints=(236,))
    c.rect((30, 100, 610, 128), fill=(188, 192, 196), outline=INK, width=2)  # the U-channel strut
    c.line([(30, 108), (610, 108)], STEEL_LIGHT, 2)
    for x in (80, 200, 440, 560):
        bolt(c, (x, 114), 4)
    c.rect((286, 94, 354, 176), fill=(128, 134, 140), outline=INK, width=2, radius=3)  # opener bracket
    for y in (112, 160):
        bolt(c, (300, y))
        bolt(c, (340, y))
    c.line([(320, 132), (360, 66)], STEEL_DARK, 12)  # the opener arm going up to the rail
    c.circle((320, 134), 7, fill=INK)
    callout(c, severity, (500, 114), "Strut along the top section", (380, 300))
    callout(c, severity, (300, 160), "Opener bracket bolted through it", (60, 300))


def handles(c: Canvas, severity: str) -> None:
    door_panels(c, (0, TOP, 560, BOTTOM), joints=(232,))
    vertical_track(c, 566, TOP, BOTTOM)
    c.rect((170, 262, 330, 292), fill=(60, 64, 70), outline=INK, width=2, radius=12)  # lift handle
    c.rect((182, 270, 318, 284), fill=(214, 217, 220), radius=6)
    for x in (180, 320):
        bolt(c, (x, 277), 4)
    c.rect((420, 300, 520, 326), fill=(150, 156, 162), outline=INK, width=2, radius=3)  # slide lock housing
    c.rect((470, 305, 566, 321), fill=STEEL_LIGHT, outline=INK, width=1.5)  # the bar, pulled back from the track
    c.circle((480, 292), 8, fill=(60, 64, 70), outline=INK, width=1.5)
    callout(c, severity, (250, 262), "Handle firm, no loose screws", (120, 120))
    callout(c, severity, (540, 313), "Lock bar out of the track", (300, 350))


def labels(c: Canvas, severity: str) -> None:
    door_panels(c, (0, TOP, 420, BOTTOM), joints=(232,))
    vertical_track(c, 426, TOP, BOTTOM)
    c.rect((470, TOP, W, BOTTOM), fill=(236, 234, 228))  # the wall beside the door
    # spring warning tag on the bottom bracket
    c.polygon([(340, 330), (420, 330), (420, BOTTOM), (340, BOTTOM)], fill=(128, 134, 140), outline=INK, width=2)
    c.rect((346, 338, 414, 380), fill=RED, outline=INK, width=1.5, radius=3)
    c.text_within((380, 352), c.say("WARNING"), 9, 64, fill=(255, 255, 255), bold=True, anchor="mm")
    c.text_within((380, 368), c.say("HIGH TENSION"), 7, 64, fill=(255, 255, 255), bold=True, anchor="mm")
    # the panel label and the one by the wall button
    for box in ((140, 120, 280, 200), (500, 160, 610, 240)):
        x0, y0, x1, _ = box
        c.rect(box, fill=(255, 255, 255), outline=INK, width=1.5, radius=3)
        c.rect((x0, y0, x1, y0 + 22), fill=YELLOW, outline=INK, width=1.5)
        c.polygon([(x0 + 14, y0 + 18), (x0 + 22, y0 + 4), (x0 + 30, y0 + 18)], fill=INK)
        c.text_within((x0 + 36, y0 + 11), c.say("WARNING"), 10, x1 - x0 - 42, fill=INK, bold=True, anchor="lm")
        for n in range(3):
            c.line([(x0 + 10, y0 + 34 + n * 12), (x1 - 10 - 14 * (n % 2), y0 + 34 + n * 12)], (120, 120, 116), 2)
    c.rect((530, 262, 580, 326), fill=(240, 240, 236), outline=INK, width=2, radius=6)  # the wall button
    c.circle((555, 294), 14, fill=(90, 96, 102), outline=INK, width=1.5)
    callout(c, severity, (380, 345), "Spring tag readable", (140, 300))
    callout(c, severity, (555, 200), "Label by the wall button", (320, 84))


def reversal(c: Canvas, severity: str) -> None:
    floor_y = 330
    floor(c, floor_y)
    door_panels(c, (40, TOP, 600, floor_y - 64), joints=(150,))
    c.rect((40, floor_y - 64, 600, floor_y - 54), fill=RUBBER)  # seal, just above the board
    c.rect((250, floor_y - 38, 390, floor_y), fill=WOOD, outline=WOOD_DARK, width=2)  # a 2x4 laid flat
    c.line([(256, floor_y - 20), (384, floor_y - 20)], WOOD_DARK, 1.2)
    for x in (120, 520):  # the door going back up
        c.line([(x, 220), (x, 140)], (46, 125, 50), 8)
        c.polygon([(x - 16, 146), (x, 118), (x + 16, 146)], fill=(46, 125, 50))
    callout(c, severity, (320, floor_y - 20), "A board laid flat under the door", (330, 350))
    callout(c, severity, (120, 180), "It touches the board and goes back up", (150, 74))


def limits(c: Canvas, severity: str) -> None:
    floor_y = 350
    floor(c, floor_y)
    door_panels(c, (40, TOP, 600, floor_y - 10), joints=(150, 250))
    c.rect((40, floor_y - 10, 600, floor_y), fill=RUBBER)  # seal pressed on the floor
    c.line([(40, floor_y - 6), (600, floor_y - 6)], (80, 80, 86), 1.5)
    c.rect((430, 110, 560, 190), fill=(255, 255, 255), outline=INK, width=2, radius=10)  # a hand, gently resisting
    for n in range(4):
        c.rect((440 + n * 28, 84, 462 + n * 28, 120), fill=(255, 255, 255), outline=INK, width=2, radius=10)
    callout(c, severity, (300, floor_y - 5), "Closes fully: the seal just touches the floor", (80, 370 - 80))
    callout(c, severity, (495, 150), "Held gently, it stops and goes back", (60, 90))


@dataclass(frozen=True)
class Drawing:
    item: str
    title: str
    label: str  # the caption band inside the picture
    alt: str
    draw: Callable[[Canvas, str], None]

    @property
    def file(self) -> str:
        return f"{self.item}.webp"


DRAWINGS = [
    Drawing(
        "rollers",
        "Rollers",
        "Each roller turns freely in the track; wheels round and whole, stems straight.",
        "Illustration of two door rollers: a wheel with ball bearings in the track, its stem in a hinge at a joint.",
        rollers,
    ),
    Drawing(
        "hinges",
        "Hinges",
        "A hinge at every joint, each bolt tight, no crack at the fold.",
        "Illustration of two hinges across a joint between door sections, four bolts each, the fold in the middle.",
        hinges,
    ),
    Drawing(
        "door-panels-interior",
        "Door sections from inside",
        "Sections straight and whole; the joints between them close evenly.",
        "Illustration of a garage door seen from inside: four sections with raised panels and straight joints.",
        sections,
    ),
    Drawing(
        "track",
        "Tracks",
        "Tracks straight and clean, every bracket tight to the wall.",
        "Illustration of a vertical door track fixed to the wooden jamb by three brackets, curving at the top.",
        track,
    ),
    Drawing(
        "struts",
        "Struts and opener bracket",
        "A steel strut along the top section; the opener's bracket bolted through it.",
        "Illustration of the top door section with a steel strut across it and the opener arm's bracket.",
        struts,
    ),
    Drawing(
        "lock-and-handles",
        "Handles and lock",
        "Handles firm; the slide lock pulled out of the track whenever the opener is used.",
        "Illustration of a lift handle on a door section and a slide lock whose bar is out of the track.",
        handles,
    ),
    Drawing(
        "warning-labels",
        "Warning labels",
        "Warning labels readable: on the door, by the wall button and on the spring brackets.",
        "Illustration of yellow warning labels on the door and by the wall button, and a red tag on the bracket.",
        labels,
    ),
    Drawing(
        "auto-reverse",
        "Reversal test",
        "A board laid flat under the door: closing, the door touches it and goes back up.",
        "Illustration of a closing garage door above a flat wooden board, arrows showing it going back up.",
        reversal,
    ),
    Drawing(
        "limits-and-force",
        "Travel limits and force",
        "The door closes fully without pressing hard, and stops if held back gently.",
        "Illustration of a closed door whose seal just touches the floor, and a hand gently holding the door.",
        limits,
    ),
]


#: The words drawn, one table per language besides English (see `draw_reference_photos.WORDS`); the captions are
#: the catalog's translations of the same sentences (`drawings.json`'s captions are these pictures' caption bands).
WORDS: dict[str, dict[str, str]] = {
    "es": {
        "HIGH TENSION": "ALTA TENSIÓN",
        # titles
        "Rollers": "Rodillos",
        "Hinges": "Bisagras",
        "Door sections from inside": "Secciones desde adentro",
        "Tracks": "Rieles",
        "Struts and opener bracket": "Refuerzos y soporte del motor",
        "Handles and lock": "Manijas y seguro",
        "Warning labels": "Etiquetas de advertencia",
        "Reversal test": "Prueba de retroceso",
        "Travel limits and force": "Límites de recorrido y fuerza",
        # caption bands
        "Each roller turns freely in the track; wheels round and whole, stems straight.": (
            "Cada rodillo gira libre en el riel; las ruedas están redondas y enteras, y los ejes derechos."
        ),
        "A hinge at every joint, each bolt tight, no crack at the fold.": (
            "Una bisagra en cada unión, cada tornillo apretado y sin grietas en el doblez."
        ),
        "Sections straight and whole; the joints between them close evenly.": (
            "Secciones derechas y enteras; las uniones entre ellas cierran parejo."
        ),
        "Tracks straight and clean, every bracket tight to the wall.": (
            "Rieles derechos y limpios, con cada soporte bien apretado a la pared."
        ),
        "A steel strut along the top section; the opener's bracket bolted through it.": (
            "Un refuerzo de acero a lo largo de la sección de arriba, con el soporte del motor atornillado a "
            "través de él."
        ),
        "Handles firm; the slide lock pulled out of the track whenever the opener is used.": (
            "Las manijas están firmes; el pasador del seguro está fuera del riel siempre que se usa el motor."
        ),
        "Warning labels readable: on the door, by the wall button and on the spring brackets.": (
            "Etiquetas de advertencia que se pueden leer: en la puerta, junto al botón de pared y en los soportes "
            "de los resortes."
        ),
        "A board laid flat under the door: closing, the door touches it and goes back up.": (
            "Una tabla acostada debajo de la puerta: al cerrar, la puerta la toca y se regresa hacia arriba."
        ),
        "The door closes fully without pressing hard, and stops if held back gently.": (
            "La puerta cierra por completo sin apretar fuerte, y se detiene si se le frena con cuidado."
        ),
        # call-outs
        "Wheel round, turns freely": "Rueda redonda, gira libre",
        "Stem straight in its hinge": "Eje derecho en su bisagra",
        "Every bolt tight": "Cada tornillo apretado",
        "No crack at the fold": "Sin grietas en el doblez",
        "Joints closed and even": "Uniones cerradas y parejas",
        "Straight: no dents, cracks or rust": "Sin golpes, grietas ni óxido",
        "Brackets tight to the wall": "Soportes apretados a la pared",
        "Straight, no bends or dents": "Derecho, sin golpes",
        "Strut along the top section": "Refuerzo de acero",
        "Opener bracket bolted through it": "Soporte del motor atornillado",
        "Handle firm, no loose screws": "Manija firme, sin tornillos flojos",
        "Lock bar out of the track": "Pasador fuera del riel",
        "Spring tag readable": "Se lee la etiqueta del resorte",
        "Label by the wall button": "Etiqueta junto al botón",
        "A board laid flat under the door": "Una tabla bajo la puerta",
        "It touches the board and goes back up": "La toca y se regresa hacia arriba",
        "Closes fully: the seal just touches the floor": "Cierra por completo: el sello apenas toca el piso",
        "Held gently, it stops and goes back": "Si la frena con cuidado, se detiene y se regresa",
    },
}


def words_of(lang: str) -> dict[str, str] | None:
    """The words a drawing in `lang` is drawn with: the frame's and the drawings' own (None: English)."""
    return None if lang == DEFAULT else {**FRAME_WORDS[lang], **WORDS[lang]}


def draw(drawing: Drawing, lang: str) -> bytes:
    """One drawing in one language, encoded."""
    canvas = Canvas(words_of(lang))
    frame(canvas, drawing.title, OK, drawing.label)
    drawing.draw(canvas, OK)
    return encode(canvas.finish())


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    entries = []
    for drawing in DRAWINGS:
        for lang in SUPPORTED:
            data = draw(drawing, lang)
            name = file_in(drawing.file, lang)
            (OUT / name).write_bytes(data)
            print(f"{name}: {len(data) // 1024} KiB")
        entries.append(
            {
                "itemId": drawing.item,
                "caption": drawing.label,
                "alt": drawing.alt,
                "file": drawing.file,
                "files": other_files(drawing.file),
            }
        )
    manifest = {
        "about": (
            "What the parts the reference gallery does not cover should look like, shown beside their questions on "
            "the inspection form, each drawn in every language the service speaks (`file` in English, `files` the "
            "others). Generated by scripts/draw_part_drawings.py; edit the words there and run it again."
        ),
        "width": W,
        "height": H,
        "drawings": entries,
    }
    (OUT / "drawings.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
