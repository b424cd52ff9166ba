"""Draw the packaged reference photo library: original, labelled illustrations of the nine reference items.

    uv run python scripts/draw_reference_photos.py          # writes src/garage_tools/knowledge/data/photos/

Each of the nine items the inspection gallery covers (springs, cables, drums, bottom seal, photo-eyes,
opener motor unit, wall control, remotes, keypad) is drawn in three states, HEALTHY, WATCH and FIX,
at 640 x 480, with a title band, a severity badge, call-outs on the detail that matters and a caption.
They are illustrations, not photographs, and say so in the corner: they show what to look for, drawn
for this project (no photo was copied or traced). The script also writes `manifest.json`, so the
captions here are the ones the API returns. Drawing happens at twice the size and is scaled down,
which smooths every edge; files are saved as WebP, lossless or lossy, whichever is smaller.

Each picture is drawn once per language the service speaks (`garage_tools.languages.SUPPORTED`): the English
one as `springs-fix.webp`, the others beside it (`springs-fix.es.webp`), named in the manifest's `files`. The
words drawn are written in English in the drawing code; `WORDS` has one table per other language, from each
English phrase to its translation, and a phrase missing from a table, a caption too long for its band, a
title that runs into its badge or call-outs that overlap or leave the picture stop the script.
tests/unit/test_drawn_pictures.py draws them again and compares them with the committed files.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from garage_tools.languages import DEFAULT, SUPPORTED

OUT = Path(__file__).resolve().parent.parent / "src" / "garage_tools" / "knowledge" / "data" / "photos"
W, H = 640, 480
S = 2  # supersampling factor
TOP, BOTTOM = 56, 406  # the illustration area between the title band and the caption band

INK = (38, 50, 56)
STEEL = (150, 160, 170)
STEEL_DARK = (92, 102, 112)
STEEL_LIGHT = (222, 229, 234)
RUST = (165, 82, 38)
RUST_LIGHT = (201, 122, 64)
WOOD = (176, 132, 88)
WOOD_DARK = (140, 100, 62)
CONCRETE = (176, 176, 170)
RUBBER = (40, 40, 44)
WALL_TOP, WALL_BOTTOM = (241, 239, 234), (221, 218, 210)

SEVERITY = {
    "HEALTHY": {"fill": (46, 125, 50), "text": (255, 255, 255), "mark": "ok"},
    "WATCH": {"fill": (255, 179, 0), "text": (51, 38, 0), "mark": "!"},
    "FIX": {"fill": (198, 40, 40), "text": (255, 255, 255), "mark": "x"},
}

Point = tuple[float, float]
Colour = tuple[int, int, int]


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    try:
        return ImageFont.truetype(f"/usr/share/fonts/truetype/dejavu/{name}", size * S)
    except OSError:
        return ImageFont.load_default(size * S)


class Canvas:
    """A 640 x 480 drawing in final-pixel coordinates, drawn at S times the size, its words in one language:
    `words` maps each English phrase drawn to its translation (None: English, as written)."""

    def __init__(self, words: Mapping[str, str] | None = None) -> None:
        self.image = Image.new("RGB", (W * S, H * S), WALL_TOP)
        self.draw = ImageDraw.Draw(self.image)
        self.words = words
        self.boxes: list[tuple[float, float, float, float]] = []  # the call-outs drawn so far

    def say(self, english: str) -> str:
        """The phrase in the picture's language."""
        if self.words is None:
            return english
        if english not in self.words:
            raise ValueError(f"no translation of {english!r}: add it to the language's table in WORDS")
        return self.words[english]

    @staticmethod
    def _p(points: Sequence[Point]) -> list[tuple[float, float]]:
        return [(x * S, y * S) for x, y in points]

    def rect(
        self,
        box: Sequence[float],
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        x0, y0, x1, y1 = (v * S for v in box)
        if radius:
            self.draw.rounded_rectangle(
                (x0, y0, x1, y1), radius * S, fill=fill, outline=outline, width=round(width * S)
            )
        else:
            self.draw.rectangle((x0, y0, x1, y1), fill=fill, outline=outline, width=round(width * S))

    def ellipse(
        self, box: Sequence[float], fill: Colour | None = None, outline: Colour | None = None, width: float = 1
    ) -> None:
        x0, y0, x1, y1 = (v * S for v in box)
        self.draw.ellipse((x0, y0, x1, y1), fill=fill, outline=outline, width=round(width * S))

    def circle(
        self, centre: Point, radius: float, fill: Colour | None = None, outline: Colour | None = None, width: float = 1
    ) -> None:
        x, y = centre
        self.ellipse((x - radius, y - radius, x + radius, y + radius), fill, outline, width)

    def line(self, points: Sequence[Point], fill: Colour, width: float = 1, round_ends: bool = True) -> None:
        scaled = self._p(points)
        self.draw.line(scaled, fill=fill, width=round(width * S), joint="curve")
        if round_ends and width >= 3:
            for x, y in (scaled[0], scaled[-1]):
                r = width * S / 2
                self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def polygon(
        self, points: Sequence[Point], fill: Colour | None = None, outline: Colour | None = None, width: float = 1
    ) -> None:
        self.draw.polygon(self._p(points), fill=fill, outline=outline, width=round(width * S))

    def arc(self, box: Sequence[float], start: float, end: float, fill: Colour, width: float = 1) -> None:
        x0, y0, x1, y1 = (v * S for v in box)
        self.draw.arc((x0, y0, x1, y1), start, end, fill=fill, width=round(width * S))

    def text(self, xy: Point, text: str, size: int, fill: Colour = INK, bold: bool = False, anchor: str = "la") -> None:
        self.draw.text((xy[0] * S, xy[1] * S), text, font=font(size, bold), fill=fill, anchor=anchor)

    def text_width(self, text: str, size: int, bold: bool = False) -> float:
        return self.draw.textlength(text, font=font(size, bold)) / S

    def text_within(
        self, xy: Point, text: str, size: int, width: float, fill: Colour = INK, bold: bool = False, anchor: str = "la"
    ) -> None:
        """Text on a small label `width` wide, a point smaller at a time until it fits (a translation can run
        longer than the English the label was drawn for)."""
        while self.text_width(text, size, bold) > width and size > 6:
            size -= 1
        if self.text_width(text, size, bold) > width:
            raise ValueError(f"{text!r} does not fit its label")
        self.text(xy, text, size, fill, bold, anchor)

    def gradient(self, box: Sequence[float], top: Colour, bottom: Colour) -> None:
        x0, y0, x1, y1 = box
        steps = int((y1 - y0) * S)
        for i in range(steps):
            t = i / max(steps - 1, 1)
            colour = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
            self.draw.line((x0 * S, y0 * S + i, x1 * S, y0 * S + i), fill=colour)

    def callout(self, target: Point, label: str, at: Point, colour: Colour, text_colour: Colour) -> None:
        """A label box at `at` (its top-left corner) with a leader line and a dot on `target`."""
        size = 15
        width = self.text_width(label, size, bold=True) + 20
        box = (at[0], at[1], at[0] + width, at[1] + 28)
        # English call-outs are checked by eye (one, "Cover closes over the keys", ends 6 px past the edge, and
        # is kept so the published English pictures stay as they are); a translation is checked here.
        if self.words is not None and (box[0] < 0 or box[2] > W):
            raise ValueError(f"call-out {label!r} runs off the picture: shorten it or move it")
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in self.boxes):
            raise ValueError(f"call-out {label!r} overlaps another: shorten it or move it")
        self.boxes.append(box)
        cx = min(max(target[0], box[0] + 10), box[2] - 10)
        anchor_y = box[3] if target[1] > box[3] else box[1]
        self.line([(cx, anchor_y), target], colour, 3)
        self.circle(target, 6, fill=colour, outline=(255, 255, 255), width=2)
        self.rect(box, fill=colour, outline=(255, 255, 255), width=2, radius=8)
        self.text((box[0] + 10, box[1] + 14), label, size, fill=text_colour, bold=True, anchor="lm")

    def finish(self) -> Image.Image:
        return self.image.resize((W, H), Image.Resampling.LANCZOS)


def frame(c: Canvas, title: str, severity: str, caption: str) -> None:
    """The parts every picture shares: wall, title band, severity badge, caption band, 'illustration' mark.

    The words are English, drawn in the canvas's language."""
    title, badge, caption = c.say(title), c.say(severity), c.say(caption)
    c.gradient((0, TOP, W, BOTTOM), WALL_TOP, WALL_BOTTOM)
    c.rect((0, 0, W, TOP), fill=INK)
    c.text((20, TOP / 2), title, 24, fill=(255, 255, 255), bold=True, anchor="lm")
    style = SEVERITY[severity]
    label_width = c.text_width(badge, 18, bold=True)
    x1 = W - 16
    x0 = x1 - label_width - 52
    if 20 + c.text_width(title, 24, bold=True) > x0 - 12:
        raise ValueError(f"title {title!r} runs into the badge {badge!r}: shorten one")
    c.rect((x0, 12, x1, TOP - 12), fill=style["fill"], radius=16)
    mark_centre = (x0 + 18, TOP / 2)
    c.circle(mark_centre, 10, fill=style["text"])
    _mark(c, mark_centre, str(style["mark"]), style["fill"])
    c.text((x0 + 36, TOP / 2), badge, 18, fill=style["text"], bold=True, anchor="lm")
    c.rect((0, BOTTOM, W, H), fill=(250, 250, 248))
    c.rect((0, BOTTOM, W, BOTTOM + 4), fill=style["fill"])
    _wrapped(c, caption, (20, BOTTOM + 14), W - 40, 17)
    c.text((W - 10, BOTTOM - 8), c.say("illustration"), 11, fill=(120, 120, 116), anchor="rs")


def _mark(c: Canvas, centre: Point, mark: str, colour: Colour) -> None:
    x, y = centre
    if mark == "ok":
        c.line([(x - 5, y), (x - 1.5, y + 4), (x + 5, y - 4)], colour, 2.6)
    elif mark == "!":
        c.line([(x, y - 5.5), (x, y + 1.5)], colour, 2.6)
        c.circle((x, y + 5), 1.5, fill=colour)
    else:
        c.line([(x - 4, y - 4), (x + 4, y + 4)], colour, 2.6)
        c.line([(x - 4, y + 4), (x + 4, y - 4)], colour, 2.6)


def _wrapped(c: Canvas, text: str, at: Point, width: float, size: int) -> None:
    lines: list[str] = []
    for word in text.split():
        if lines and c.text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    if len(lines) > 3:
        raise ValueError(f"caption too long for the picture: {text!r}")
    for n, line in enumerate(lines):
        c.text((at[0], at[1] + n * (size + 6)), line, size, fill=INK)


def callout(c: Canvas, severity: str, target: Point, label: str, at: Point) -> None:
    style = SEVERITY[severity]
    c.callout(target, c.say(label), at, style["fill"], style["text"])  # type: ignore[arg-type]


def speckle(
    c: Canvas,
    box: Sequence[float],
    colours: Sequence[Colour],
    count: int,
    seed: int,
    size: tuple[float, float] = (1.0, 2.5),
) -> None:
    rng = random.Random(seed)  # noqa: S311 - repeatable texture, not a secret
    x0, y0, x1, y1 = box
    for _ in range(count):
        r = rng.uniform(*size)
        c.circle((rng.uniform(x0, x1), rng.uniform(y0, y1)), r, fill=rng.choice(colours))


def lerp(a: Colour, b: Colour, t: float) -> Colour:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


# --- springs ------------------------------------------------------------------------------


def coil_run(
    c: Canvas, x0: float, x1: float, cy: float, radius: float, wire: float, rust: Callable[[float], float] | None = None
) -> None:
    """Close-wound torsion-spring coils between x0 and x1, each a slanted band with a highlight."""
    n = int((x1 - x0) / wire)
    for i in range(n):
        x = x0 + i * wire
        t = rust(x) if rust else 0.0
        body = lerp(STEEL, RUST, t)
        shade = lerp(STEEL_DARK, (110, 52, 24), t)
        light = lerp(STEEL_LIGHT, RUST_LIGHT, t)
        c.line([(x, cy - radius), (x + wire * 0.9, cy + radius)], shade, wire * 1.05, round_ends=False)
        c.line([(x + 1, cy - radius + 2), (x + wire * 0.9 + 1, cy + radius - 2)], body, wire * 0.7, round_ends=False)
        c.line(
            [(x + wire * 0.15, cy - radius * 0.55), (x + wire * 0.45, cy - radius * 0.05)],
            light,
            wire * 0.3,
            round_ends=False,
        )


def torsion_assembly(c: Canvas, severity: str) -> None:
    cy = 218
    c.rect((0, 262, W, 300), fill=WOOD, outline=WOOD_DARK, width=2)  # header board above the door
    for x in range(30, W, 90):
        c.line([(x, 266), (x + 40, 296)], WOOD_DARK, 1)
    c.rect((0, 300, W, BOTTOM), fill=(206, 210, 214))  # top of the door
    c.line([(0, 330), (W, 330)], (180, 186, 192), 2)
    c.rect((24, cy - 7, W - 24, cy + 7), fill=STEEL_DARK, radius=3)  # torsion shaft
    c.line([(28, cy - 3), (W - 28, cy - 3)], STEEL_LIGHT, 2)
    # centre bearing plate and stationary cone
    c.polygon([(302, cy - 52), (338, cy - 52), (346, 292), (294, 292)], fill=(120, 128, 136), outline=INK, width=2)
    c.circle((320, cy), 16, fill=STEEL_DARK, outline=INK, width=2)
    for x0, x1 in ((96, 290), (350, 544)):
        rust: Callable[[float], float] | None = None
        if severity == "WATCH" and x0 < 300:
            rust = lambda x: max(0.0, 1 - abs(x - 190) / 70)  # noqa: E731
        if severity == "FIX" and x0 < 300:
            coil_run(c, x0, 176, cy, 38, 7)
            coil_run(c, 214, x1, cy, 38, 7)
            c.line([(176, cy - 38), (181, cy - 10)], STEEL_DARK, 6)  # broken ends
            c.line([(212, cy + 38), (207, cy + 14)], STEEL_DARK, 6)
        else:
            coil_run(c, x0, x1, cy, 38, 7, rust)
        # winding cone (outer end) and stationary cone (at the centre plate)
        outer = x0 - 22 if x0 < 300 else x1
        inner = x1 if x0 < 300 else x0 - 22
        for cone_x in (outer, inner):
            c.rect(
                (cone_x, cy - 34, cone_x + 22, cy + 34),
                fill=(178, 34, 34) if cone_x == outer else INK,
                outline=INK,
                width=2,
                radius=5,
            )
            if cone_x == outer:
                for hy in (cy - 18, cy, cy + 18):
                    c.circle((cone_x + 11, hy), 3.2, fill=INK)
    # end bearing plates
    for x in (26, W - 46):
        c.rect((x, cy - 40, x + 20, 292), fill=(120, 128, 136), outline=INK, width=2)
        c.circle((x + 10, cy), 9, fill=STEEL_DARK, outline=INK, width=2)
    if severity == "WATCH":
        speckle(c, (140, cy - 36, 240, cy + 36), [RUST, (130, 60, 26), RUST_LIGHT], 120, 7)
        callout(c, severity, (190, cy - 30), "Rust on the coils", (120, 86))
    elif severity == "FIX":
        callout(c, severity, (195, cy), "Gap of about 2 in.: broken", (96, 86))
        c.line([(176, cy + 52), (214, cy + 52)], SEVERITY["FIX"]["fill"], 3)  # type: ignore[arg-type]
        c.line([(176, cy + 44), (176, cy + 60)], SEVERITY["FIX"]["fill"], 3)  # type: ignore[arg-type]
        c.line([(214, cy + 44), (214, cy + 60)], SEVERITY["FIX"]["fill"], 3)  # type: ignore[arg-type]
    else:
        callout(c, severity, (200, cy - 36), "Tight, even coils", (130, 86))
        callout(c, severity, (450, cy - 36), "Matched pair", (400, 86))


# --- shared scenery -------------------------------------------------------------------------


def door_panels(c: Canvas, box: Sequence[float], joints: Sequence[float] = ()) -> None:
    """A steel door face with raised panels and section joints at the given heights."""
    x0, y0, x1, y1 = box
    c.rect(box, fill=(214, 217, 220), outline=(170, 176, 182), width=2)
    edges = [y0, *joints, y1]
    for top, bottom in itertools.pairwise(edges):
        if bottom - top < 40:
            continue
        pad = 14
        step = (x1 - x0 - pad) / 4
        for n in range(4):
            px = x0 + pad + n * step
            c.rect(
                (px, top + pad, px + step - pad, bottom - pad),
                fill=(224, 227, 230),
                outline=(186, 191, 196),
                width=2,
                radius=3,
            )
    for y in joints:
        c.line([(x0, y), (x1, y)], (160, 166, 172), 3)


def floor(c: Canvas, y: float) -> None:
    c.rect((0, y, W, BOTTOM), fill=CONCRETE)
    speckle(c, (0, y + 2, W, BOTTOM - 2), [(160, 160, 154), (190, 190, 184), (150, 150, 146)], 160, 11, (0.6, 1.6))


def cable(
    c: Canvas,
    points: Sequence[Point],
    width: float = 9,
    rust: Callable[[float], float] | None = None,
    fray: tuple[float, float] | None = None,
) -> None:
    """A wire rope along a polyline: dark core with twisted light strands; `fray` is a (y0, y1) stretch."""
    c.line(points, (70, 74, 80), width)
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        length = math.hypot(bx - ax, by - ay)
        steps = int(length / 5)
        ux, uy = (bx - ax) / length, (by - ay) / length
        nx, ny = -uy, ux
        for i in range(steps):
            x, y = ax + ux * i * 5, ay + uy * i * 5
            if fray and fray[0] <= y <= fray[1]:
                continue
            t = rust(y) if rust else 0.0
            colour = lerp((190, 196, 202), RUST_LIGHT, t)
            half = width / 2 - 1
            c.line(
                [(x + nx * half, y + ny * half), (x - nx * half + ux * 4, y - ny * half + uy * 4)],
                colour,
                1.8,
                round_ends=False,
            )
    if fray:
        rng = random.Random(5)  # noqa: S311 - repeatable texture, not a secret
        for y in range(int(fray[0]), int(fray[1]), 3):
            x = _x_at(points, y)
            for side in (-1, 1):
                reach = rng.uniform(8, 26)
                bend = rng.uniform(-10, 10)
                c.line(
                    [(x + side * 2, y), (x + side * reach * 0.6, y + bend * 0.5), (x + side * reach, y + bend)],
                    rng.choice([(120, 126, 132), (176, 182, 188), (96, 100, 106)]),
                    1.6,
                    round_ends=False,
                )
        c.line([(_x_at(points, fray[0]), fray[0]), (_x_at(points, fray[1]), fray[1])], (70, 74, 80), width * 0.45)


def _x_at(points: Sequence[Point], y: float) -> float:
    """Where a polyline running downwards crosses height y."""
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        if min(ay, by) <= y <= max(ay, by) and ay != by:
            return ax + (bx - ax) * (y - ay) / (by - ay)
    return points[-1][0]


# --- cables -----------------------------------------------------------------------------------


def lift_cable(c: Canvas, severity: str) -> None:
    floor(c, 384)
    door_panels(c, (40, TOP, 372, 384), joints=(170, 280))
    c.rect((378, TOP, 404, 384), fill=STEEL, outline=STEEL_DARK, width=2)  # vertical track
    c.line([(391, TOP), (391, 384)], STEEL_DARK, 2)
    for y in range(90, 384, 60):
        c.circle((386, y), 9, fill=(60, 64, 70), outline=INK, width=2)  # rollers in the track
    # bottom bracket with its tension warning tag
    c.polygon([(330, 330), (420, 330), (420, 384), (330, 384)], fill=(128, 134, 140), outline=INK, width=2)
    c.circle((412, 344), 6, fill=STEEL_DARK, outline=INK, width=2)
    c.rect((338, 346, 394, 376), fill=(198, 40, 40), outline=INK, width=1.5, radius=3)
    c.text_within((366, 361), c.say("WARNING"), 8, 52, fill=(255, 255, 255), bold=True, anchor="mm")
    # drum at the top, the cable running down to the bracket pin
    c.circle((438, 96), 34, fill=STEEL_DARK, outline=INK, width=2)
    c.circle((438, 96), 10, fill=INK)
    for angle in range(0, 360, 40):
        r = math.radians(angle)
        c.line(
            [(438 + 18 * math.cos(r), 96 + 18 * math.sin(r)), (438 + 31 * math.cos(r), 96 + 31 * math.sin(r))], STEEL, 2
        )
    rust = (lambda y: max(0.0, min(1.0, (y - 250) / 60))) if severity == "WATCH" else None
    fray = (196, 244) if severity == "FIX" else None
    cable(c, [(470, 104), (470, 300), (412, 344)], rust=rust, fray=fray)
    if severity == "HEALTHY":
        callout(c, severity, (470, 180), "Strands tight and even", (470 - 250, 120))
        callout(c, severity, (412, 344), "Seated on the bracket", (150, 300))
    elif severity == "WATCH":
        speckle(c, (464, 262, 476, 300), [RUST, (130, 60, 26)], 40, 3, (0.8, 1.8))
        callout(c, severity, (470, 284), "Rust near the bracket", (200, 210))
    else:
        callout(c, severity, (470, 220), "Frayed, broken strands", (180, 150))


# --- drums ------------------------------------------------------------------------------------


def cable_drum(c: Canvas, severity: str) -> None:
    cy = 214
    c.rect((0, 300, W, BOTTOM), fill=(206, 210, 214))
    c.rect((0, 296, W, 304), fill=WOOD)
    c.rect((20, cy - 8, 500, cy + 8), fill=STEEL_DARK, radius=3)  # shaft
    c.line([(24, cy - 4), (496, cy - 4)], STEEL_LIGHT, 2)
    c.rect((500, 120, 530, 300), fill=(120, 128, 136), outline=INK, width=2)  # end bearing plate
    c.circle((515, cy), 10, fill=STEEL_DARK, outline=INK, width=2)
    x0, x1, top, bottom = 230, 420, cy - 62, cy + 62
    c.rect((x0, top, x1, bottom), fill=STEEL, outline=INK, width=2)  # drum body
    c.rect((x0, top + 6, x1, top + 22), fill=STEEL_LIGHT)
    for x in range(x0 + 8, x1, 12):  # helical grooves
        c.line([(x, top + 2), (x + 10, bottom - 2)], STEEL_DARK, 1.6, round_ends=False)
    # hub with set-screws (inner end) and flange (outer end)
    c.rect((x0 - 34, cy - 34, x0, cy + 34), fill=STEEL_DARK, outline=INK, width=2, radius=4)
    for sy in (cy - 18, cy + 18):
        c.rect((x0 - 24, sy - 6, x0 - 12, sy + 6), fill=(60, 64, 70), outline=INK, width=1.5)
    c.ellipse((x1 - 8, top - 30, x1 + 22, bottom + 30), fill=(120, 128, 136), outline=INK, width=2)
    wraps = [x0 + 12 + 12 * n for n in range(9)] if severity != "FIX" else [x0 + 12 + 12 * n for n in range(6)]
    for n, x in enumerate(wraps):  # the cable, wound in the grooves
        dx = 5 if severity == "WATCH" and n in (4, 5) else 0
        c.line([(x + dx, top + 2), (x + 10 - dx, bottom - 2)], (58, 62, 68), 7, round_ends=False)
        c.line([(x + dx + 1, top + 6), (x + 4 - dx, cy)], (170, 176, 182), 1.6, round_ends=False)
    if severity == "WATCH":
        c.line([(x0 + 60, top + 2), (x0 + 110, bottom - 2)], (58, 62, 68), 7, round_ends=False)  # crossed wrap
        speckle(c, (x0 + 120, top + 4, x1 - 10, bottom - 4), [RUST, (130, 60, 26), RUST_LIGHT], 70, 9)
    last = wraps[-1] + 10
    if severity == "FIX":
        cable(
            c,
            [
                (last, bottom),
                (last + 20, bottom + 34),
                (last + 70, bottom + 40),
                (x1 + 30, bottom + 20),
                (x1 + 50, BOTTOM),
            ],
            width=7,
        )
        crack = [(x1 + 9, top - 28), (x1 + 1, top - 6), (x1 + 12, top + 12), (x1 + 3, top + 34), (x1 + 10, top + 52)]
        c.line(crack, (250, 250, 250), 6)
        c.line(crack, INK, 3)
    else:
        cable(c, [(last, bottom), (last, BOTTOM)], width=7)
    if severity == "HEALTHY":
        callout(c, severity, (x0 + 70, top + 14), "Cable seated in the grooves", (60, 80))
        callout(c, severity, (x0 - 18, cy - 18), "Set-screws tight", (40, 320))
    elif severity == "WATCH":
        callout(c, severity, (x0 + 86, cy), "Uneven, crossed wraps", (40, 80))
        callout(c, severity, (x1 - 40, top + 30), "Surface rust", (430, 80))
    else:
        callout(c, severity, (x1 + 5, top + 4), "Cracked flange", (440, 74))
        callout(c, severity, (last + 60, bottom + 38), "Cable off the drum", (60, 330))


# --- bottom seal ------------------------------------------------------------------------------


def bottom_seal(c: Canvas, severity: str) -> None:
    floor_y = 330
    if severity == "FIX":
        c.gradient((0, floor_y - 22, W, floor_y + 4), (255, 236, 150), (255, 214, 90))
    floor(c, floor_y)
    door_panels(c, (0, TOP, W, 298), joints=(180,))
    c.rect((0, 298, W, 310), fill=(120, 124, 130), outline=INK, width=1.5)  # retainer
    seal_bottom = floor_y if severity != "WATCH" else floor_y - 6
    if severity == "FIX":
        c.rect((0, 310, 232, seal_bottom), fill=RUBBER)
        c.rect((372, 310, W, seal_bottom), fill=RUBBER)
        c.polygon([(232, 310), (262, 310), (250, 318), (240, 326), (232, 330)], fill=RUBBER)  # torn flap
        c.polygon([(372, 310), (350, 310), (356, 322), (372, 330)], fill=RUBBER)
        for x in range(250, 370, 14):  # daylight streaming in
            c.polygon(
                [(x, floor_y - 2), (x + 8, floor_y - 2), (x + 30, BOTTOM), (x - 12, BOTTOM)], fill=(255, 238, 170)
            )
        c.ellipse((150, 360, 330, 396), fill=(150, 190, 220), outline=(110, 150, 190), width=2)  # water
        for lx, ly, colour in ((420, 352, (160, 110, 40)), (452, 368, (190, 140, 50)), (396, 378, (140, 100, 40))):
            c.ellipse((lx - 11, ly - 5, lx + 11, ly + 5), fill=colour)
            c.line([(lx - 10, ly), (lx + 10, ly)], (110, 80, 30), 1)
    else:
        c.rect((0, 310, W, seal_bottom), fill=RUBBER)
        c.line([(0, 313), (W, 313)], (80, 80, 86), 1.5)
    if severity == "WATCH":
        c.rect((380, seal_bottom, 470, floor_y), fill=(255, 226, 120))  # a sliver of light
        for x in (120, 170, 230, 300, 520, 560):
            c.line([(x, 311), (x + 3, 318), (x - 2, seal_bottom - 1)], (150, 150, 156), 1.4)
    if severity == "HEALTHY":
        callout(c, severity, (320, 322), "Seal touches the floor all along", (170, 220))
    elif severity == "WATCH":
        callout(c, severity, (170, 316), "Flattened, cracking", (70, 220))
        callout(c, severity, (425, floor_y - 2), "Light at one spot", (400, 220))
    else:
        callout(c, severity, (300, 322), "Torn: daylight and water get in", (150, 216))


# --- photo-eyes -------------------------------------------------------------------------------


def sensor(
    c: Canvas, x: float, y: float, facing: int, led: Colour | None, angle: float = 0.0, dirty: bool = False
) -> Point:
    """A photo-eye on its bracket at (x, y) facing right (1) or left (-1); returns the lens centre."""
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    k = 1.7  # drawn larger than life so the lens and light read at gallery size

    def at(dx: float, dy: float) -> Point:
        dx *= facing * k
        dy *= k
        return (x + dx * cos - dy * sin, y + dx * sin + dy * cos)

    c.polygon([at(-14, -16), at(24, -16), at(24, 16), at(-14, 16)], fill=(236, 236, 232), outline=INK, width=2)
    c.polygon([at(24, -10), at(34, -7), at(34, 7), at(24, 10)], fill=(60, 64, 70), outline=INK, width=2)
    lens = at(34, 0)
    if dirty:
        speckle(
            c, (lens[0] - 12, lens[1] - 14, lens[0] + 4, lens[1] + 14), [(120, 96, 60), (96, 80, 50)], 50, 4, (1.2, 3.0)
        )
    led_at = at(0, -6)
    if led is not None:
        c.circle(led_at, 11, fill=lerp(led, (255, 255, 255), 0.55))
        c.circle(led_at, 6.5, fill=led)
    else:
        c.circle(led_at, 6.5, fill=(120, 120, 120))
    return lens


def photo_eyes(c: Canvas, severity: str) -> None:
    floor_y = 374
    floor(c, floor_y)
    for x in (30, 582):  # door jambs with the vertical tracks
        c.rect((x, TOP, x + 28, floor_y), fill=STEEL, outline=STEEL_DARK, width=2)
    beam_y = 292
    c.rect((58, beam_y - 6, 84, beam_y + 40), fill=(120, 128, 136), outline=INK, width=1.5)  # brackets
    sender = sensor(c, 108, beam_y, 1, (255, 170, 0))
    if severity == "FIX":
        c.polygon(
            [(556, beam_y - 6), (582, beam_y - 6), (582, beam_y + 40), (540, beam_y + 52)],
            fill=(120, 128, 136),
            outline=INK,
            width=1.5,
        )
        receiver = sensor(c, 512, beam_y + 44, -1, None, angle=-28)
    else:
        c.rect((556, beam_y - 6, 582, beam_y + 40), fill=(120, 128, 136), outline=INK, width=1.5)
        led = (46, 170, 60) if severity == "HEALTHY" else (120, 190, 120)
        receiver = sensor(c, 532, beam_y, -1, led, dirty=severity == "WATCH")
    # the invisible beam, drawn dashed
    end = receiver[0] if severity != "FIX" else 582
    x = sender[0] + 6
    while x < end - 6:
        c.line([(x, beam_y), (min(x + 14, end - 6), beam_y)], (220, 60, 60), 3, round_ends=False)
        x += 24
    # height marker: 6 in. or less above the floor
    c.line([(300, beam_y), (300, floor_y)], INK, 2)
    c.line([(290, beam_y), (310, beam_y)], INK, 2)
    c.line([(290, floor_y), (310, floor_y)], INK, 2)
    c.text((314, (beam_y + floor_y) / 2), c.say("6 in. max"), 15, bold=True, anchor="lm")
    led_at = (532, beam_y - 10)  # the receiver's light
    if severity == "HEALTHY":
        callout(c, severity, led_at, "Lights steady, lenses clean", (300, 140))
        callout(c, severity, (200, beam_y), "Beam clear across the door", (80, 200))
    elif severity == "WATCH":
        for angle in (-60, -20, 20, 60):
            r = math.radians(angle - 90)
            c.line(
                [
                    (led_at[0] + 14 * math.cos(r), led_at[1] + 14 * math.sin(r)),
                    (led_at[0] + 22 * math.cos(r), led_at[1] + 22 * math.sin(r)),
                ],
                (90, 160, 90),
                2.5,
            )
        callout(c, severity, (478, beam_y), "Dirty lens, light flickers", (280, 160))
    else:
        callout(c, severity, (510, beam_y + 40), "Bent bracket: eyes out of line", (240, 150))


# --- opener motor unit ------------------------------------------------------------------------


def chain_run(c: Canvas, points: Sequence[Point]) -> None:
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        length = math.hypot(bx - ax, by - ay)
        for i in range(int(length / 7)):
            t = i * 7 / length
            x, y = ax + (bx - ax) * t, ay + (by - ay) * t
            c.ellipse((x - 4, y - 2.4, x + 4, y + 2.4), outline=(70, 74, 80), width=1.6)


def motorhead(c: Canvas, severity: str) -> None:
    c.rect((0, TOP, W, 92), fill=WOOD, outline=WOOD_DARK, width=2)  # ceiling joist
    for x in range(0, W, 70):
        c.line([(x, TOP), (x, 92)], WOOD_DARK, 1.5)
    rail_y = 206
    tilt = -7.0 if severity == "FIX" else 0.0
    cx, cy = 470, 222
    cos, sin = math.cos(math.radians(tilt)), math.sin(math.radians(tilt))

    def at(dx: float, dy: float) -> Point:
        return (cx + dx * cos - dy * sin, cy + dx * sin + dy * cos)

    # hangers: perforated angle iron from the joist to the unit
    front_hanger = at(-70, -44)
    rear_hanger = at(70, -44)
    c.line([(front_hanger[0], 92), front_hanger], (130, 136, 142), 10, round_ends=False)
    if severity == "FIX":
        c.line([(rear_hanger[0] + 34, 92), (rear_hanger[0] + 34, 130)], (130, 136, 142), 10, round_ends=False)
        c.line([(rear_hanger[0] + 14, 128), rear_hanger], (130, 136, 142), 10, round_ends=False)
    else:
        c.line([(rear_hanger[0], 92), rear_hanger], (130, 136, 142), 10, round_ends=False)
    for hx, top_y, bottom_y in ((front_hanger[0], 98, front_hanger[1]), (rear_hanger[0], 98, rear_hanger[1])):
        if severity == "FIX" and hx == rear_hanger[0]:
            continue
        for y in range(int(top_y), int(bottom_y) - 4, 12):
            c.circle((hx, y), 2, fill=INK)
    # the rail and chain towards the door (left)
    c.rect((30, rail_y - 6, 400, rail_y + 6), fill=(150, 156, 162), outline=INK, width=1.5)
    if severity == "WATCH":
        chain_run(c, [(40, rail_y - 9), (390, rail_y - 9)])
        sag = (
            [(40, rail_y + 9)]
            + [(x, rail_y + 9 + 46 * math.sin(math.pi * (x - 40) / 350)) for x in range(60, 390, 20)]
            + [(390, rail_y + 9)]
        )
        chain_run(c, sag)
    else:
        chain_run(c, [(40, rail_y - 9), (390, rail_y - 9)])
        chain_run(c, [(40, rail_y + 9), (390, rail_y + 9)])
    c.rect((140, rail_y - 14, 186, rail_y + 14), fill=(90, 96, 102), outline=INK, width=2, radius=4)  # trolley
    c.line([(163, rail_y + 14), (163, 322)], (198, 40, 40), 2.2)  # emergency release cord
    c.rect((152, 322, 174, 352), fill=(198, 40, 40), outline=INK, width=1.5, radius=6)
    # the unit, drawn around (cx, cy) so it can tilt
    body = [at(-96, -44), at(96, -44), at(96, 44), at(-96, 44)]
    c.polygon(body, fill=(230, 231, 228), outline=INK, width=2)
    c.polygon([at(-96, 20), at(96, 20), at(96, 44), at(-96, 44)], fill=(200, 202, 198), outline=INK, width=2)
    c.polygon([at(-60, 26), at(60, 26), at(60, 40), at(-60, 40)], fill=(255, 248, 220), outline=INK, width=1.5)
    c.polygon([at(-86, -30), at(-40, -30), at(-40, -14), at(-86, -14)], fill=(90, 96, 102))
    if severity == "HEALTHY":
        callout(c, severity, (front_hanger[0], 140), "Hangers tight to the joist", (120, 104))
        callout(c, severity, (300, rail_y + 9), "Chain taut along the rail", (220, 270))
    elif severity == "WATCH":
        callout(c, severity, (220, rail_y + 54), "Chain sagging below the rail", (190, 300))
    else:
        callout(c, severity, (rear_hanger[0] + 22, 130), "Hanger loose: unit tilting", (150, 110))


# --- wall control -----------------------------------------------------------------------------


def wall_control(c: Canvas, severity: str) -> None:
    floor_y = 392
    per_foot = 50.0
    floor(c, floor_y)
    c.rect((0, floor_y - 10, W, floor_y), fill=(200, 196, 186))  # skirting board
    door_panels(c, (470, TOP, W, floor_y), joints=(150, 250, 330))  # the garage door, in sight
    c.rect((462, TOP, 470, floor_y), fill=(120, 128, 136))
    # the height scale
    c.rect((40, floor_y - 6.4 * per_foot, 66, floor_y), fill=(255, 214, 79), outline=INK, width=1.5)
    for foot in range(7):
        y = floor_y - foot * per_foot
        c.line([(40, y), (58, y)], INK, 2)
        if foot:
            mark = c.say("1 ft") if foot == 1 else c.say("{foot} ft").format(foot=foot)
            c.text((72, y), mark, 12, bold=True, anchor="lm")
    height_ft = 3.0 if severity == "FIX" else 5.3
    top = floor_y - height_ft * per_foot - 44
    x = 250
    c.rect((x, top, x + 64, top + 96), fill=(244, 244, 240), outline=INK, width=2, radius=8)
    c.circle((x + 32, top + 36), 20, fill=(220, 222, 218), outline=INK, width=2)
    c.circle((x + 32, top + 36), 13, fill=(250, 250, 248), outline=(150, 150, 150), width=1.5)
    lock_led = (255, 140, 0) if severity == "WATCH" else (160, 160, 160)
    for n, colour in enumerate(((160, 160, 160), lock_led)):
        bx = x + 16 + n * 32
        c.rect((bx - 10, top + 66, bx + 10, top + 84), fill=(220, 222, 218), outline=INK, width=1.5, radius=4)
        c.circle((bx, top + 60), 3, fill=colour)
    c.line([(x + 32, top + 96), (x + 32, floor_y - 10)], (235, 235, 230), 2)  # the wire in its run
    button_y = floor_y - height_ft * per_foot
    c.line([(x - 16, button_y), (x - 16, floor_y)], INK, 1.5)
    c.line([(x - 22, button_y), (x - 10, button_y)], INK, 1.5)
    if severity == "FIX":  # a child standing under it, reaching up
        kx = 380
        c.circle((kx, floor_y - 154), 17, fill=(120, 140, 170))
        c.rect((kx - 20, floor_y - 134, kx + 20, floor_y - 56), fill=(120, 140, 170), radius=12)
        c.line([(kx - 18, floor_y - 124), (x + 64, top + 52)], (120, 140, 170), 10)
        c.line([(kx - 9, floor_y - 60), (kx - 9, floor_y - 2)], (120, 140, 170), 11)
        c.line([(kx + 9, floor_y - 60), (kx + 9, floor_y - 2)], (120, 140, 170), 11)
        callout(c, severity, (x + 20, top + 30), "Within a child's reach", (120, 150))
    elif severity == "WATCH":
        lx, ly = x + 48, top + 60
        for angle in range(0, 360, 45):
            r = math.radians(angle)
            c.line(
                [(lx + 6 * math.cos(r), ly + 6 * math.sin(r)), (lx + 11 * math.cos(r), ly + 11 * math.sin(r))],
                (255, 140, 0),
                2,
            )
        callout(c, severity, (lx, ly), "Lock light blinking: remotes blocked", (140, 290))
    else:
        callout(c, severity, (x + 8, top + 60), "5 ft or higher, in sight of the door", (96, 250))


# --- remotes ----------------------------------------------------------------------------------


def remote(c: Canvas, severity: str) -> None:
    c.gradient((0, TOP, W, BOTTOM), (232, 228, 220), (208, 202, 192))
    x, y = 230, 124
    c.rect((x + 6, y + 8, x + 156, y + 262), fill=(150, 144, 134), radius=30)  # shadow
    c.rect((x, y, x + 150, y + 254), fill=(58, 62, 68), outline=INK, width=2, radius=30)
    c.rect((x + 10, y + 10, x + 140, y + 40), fill=(72, 76, 84), radius=14)
    for n in range(3):
        by = y + 92 + n * 54
        c.circle((x + 75, by), 22, fill=(96, 102, 110), outline=INK, width=2)
        c.circle((x + 71, by - 4), 12, fill=(120, 126, 134))
    led = (x + 75, y + 54)
    if severity == "HEALTHY":
        c.circle(led, 10, fill=(255, 170, 170))
        c.circle(led, 6, fill=(230, 30, 30))
        for radius in (24, 38, 52):
            c.arc((led[0] - radius, y - radius + 4, led[0] + radius, y + radius + 4), 225, 315, (46, 125, 50), 3)
        callout(c, severity, led, "Light shows on every press", (380, 250))
    elif severity == "WATCH":
        c.circle(led, 6, fill=(120, 60, 60))
        bx, by = 440, 170  # battery gauge: one bar left
        c.rect((bx, by, bx + 90, by + 44), outline=INK, width=3, radius=6)
        c.rect((bx + 90, by + 14, bx + 98, by + 30), fill=INK)
        c.rect((bx + 6, by + 6, bx + 24, by + 38), fill=(198, 40, 40))
        callout(c, severity, (bx + 45, by + 44), "Weak battery: dim light", (400, 300))
    else:
        c.circle(led, 6, fill=(80, 80, 80))
        crack = [(x + 20, y + 120), (x + 52, y + 138), (x + 44, y + 160), (x + 90, y + 176), (x + 130, y + 204)]
        c.line(crack, (230, 230, 230), 3)
        c.polygon([(x + 150, y + 210), (x + 126, y + 232), (x + 150, y + 240)], fill=(30, 32, 36))
        cx, cy = 490, 200  # a corroded coin cell beside it
        c.circle((cx, cy), 44, fill=(190, 194, 198), outline=INK, width=2)
        c.circle((cx, cy), 36, outline=(150, 154, 158), width=2)
        speckle(
            c,
            (cx - 30, cy - 8, cx + 34, cy + 34),
            [(120, 170, 120), (230, 236, 220), (90, 140, 100)],
            90,
            12,
            (1.2, 3.2),
        )
        callout(c, severity, (x + 60, y + 146), "Cracked case", (40, 120))
        callout(c, severity, (cx, cy + 24), "Corroded battery", (400, 300))


# --- keypad -----------------------------------------------------------------------------------


def keypad(c: Canvas, severity: str) -> None:
    for row, y in enumerate(range(TOP, BOTTOM, 26)):  # siding outside the garage
        c.rect((0, y, W, y + 26), fill=(214, 206, 190) if row % 2 else (222, 214, 198))
        c.line([(0, y + 25), (W, y + 25)], (180, 170, 150), 2)
    c.rect((470, TOP, 500, BOTTOM), fill=(250, 250, 246), outline=(200, 200, 196), width=2)  # door trim
    x, y = 250, 142
    c.rect((x + 6, y + 8, x + 146, y + 236), fill=(150, 142, 126), radius=14)
    c.rect((x, y, x + 140, y + 228), fill=(232, 232, 228), outline=INK, width=2, radius=14)
    if severity == "FIX":
        c.rect((x + 20, y - 8, x + 44, y + 6), fill=(180, 180, 176), outline=INK, width=1.5)  # broken hinge stub
    else:
        c.rect((x - 4, y - 70, x + 144, y + 4), fill=(200, 204, 206), outline=INK, width=2, radius=10)  # lid, up
        c.line([(x + 10, y - 4), (x + 130, y - 4)], (170, 174, 176), 2)
    c.circle((x + 70, y + 24), 5, fill=(46, 170, 60) if severity != "FIX" else (120, 120, 120))
    labels = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#"]
    worn = {"1", "3", "7", "9"}
    for n, label in enumerate(labels):
        kx = x + 22 + (n % 3) * 36
        ky = y + 46 + (n // 3) * 42
        faded = severity == "WATCH" and label in worn
        fill = (250, 250, 246) if faded else (96, 102, 110)
        c.rect((kx - 2, ky, kx + 30, ky + 34), fill=fill, outline=INK, width=1.5, radius=6)
        c.text(
            (kx + 14, ky + 17), label, 15, fill=(210, 210, 206) if faded else (255, 255, 255), bold=True, anchor="mm"
        )
    if severity == "HEALTHY":
        callout(c, severity, (x + 140, y - 40), "Cover closes over the keys", (400, 96))
        callout(c, severity, (x + 126, y + 150), "Keys clear and firm", (420, 300))
    elif severity == "WATCH":
        callout(c, severity, (x + 22, y + 63), "Worn keys show the code", (20, 190))
    else:
        c.line([(x + 140, y + 30), (x + 126, y + 60), (x + 134, y + 84), (x + 118, y + 112)], (250, 250, 250), 6)
        c.line([(x + 140, y + 30), (x + 126, y + 60), (x + 134, y + 84), (x + 118, y + 112)], INK, 3)
        for dx, dy in ((40, 212), (70, 216), (100, 210)):
            c.ellipse((x + dx - 5, y + dy - 8, x + dx + 5, y + dy + 8), fill=(120, 170, 220))
        callout(c, severity, (x + 132, y + 72), "Cracked case, cover gone", (340, 100))
        callout(c, severity, (x + 40, y + 212), "Water inside", (60, 320))


# --- registry of pictures ------------------------------------------------------------------


@dataclass(frozen=True)
class Picture:
    item: str
    severity: str
    title: str
    label: str  # the caption band inside the picture
    caption: str  # the manifest caption (what the API returns)
    alt: str
    draw: Callable[[Canvas, str], None]

    @property
    def file(self) -> str:
        return f"{self.item}-{self.severity.lower()}.webp"


PICTURES: list[Picture] = [
    Picture(
        "springs",
        "HEALTHY",
        "Torsion springs",
        "Coils tight and even on both springs, no gaps, no rust. Look, don't touch.",
        "Healthy torsion springs: coils tight and evenly wound, no gap, no rust, and a matched pair on the shaft.",
        "Illustration of two torsion springs on a shaft above a garage door, coils tight and silver.",
        torsion_assembly,
    ),
    Picture(
        "springs",
        "WATCH",
        "Torsion springs",
        "Rust on the coils: the spring wears faster. Have a technician check it soon.",
        "Rust on a torsion spring: it wears faster and nears the end of its life. Have a technician check it "
        "at the next service; never adjust it yourself.",
        "Illustration of a torsion spring with orange-brown rust patches on the middle coils.",
        torsion_assembly,
    ),
    Picture(
        "springs",
        "FIX",
        "Torsion springs",
        "A gap in the coils means a broken spring. Don't run the door; call a technician.",
        "Broken torsion spring: a gap of about 2 in. between the coils. Don't use the opener or lift the door; "
        "keep clear and call a trained technician.",
        "Illustration of a torsion spring split into two parts with a gap of about two inches between the coils.",
        torsion_assembly,
    ),
    Picture(
        "cables",
        "HEALTHY",
        "Lift cables",
        "Strands tight and clean, seated on the drum and the bottom bracket. Look, don't touch.",
        "Healthy lift cable: strands tight and clean, seated on the drum and the bottom bracket, and as tight as "
        "the cable on the other side.",
        "Illustration of a steel lift cable running from its drum down to the bottom bracket of a garage door.",
        lift_cable,
    ),
    Picture(
        "cables",
        "WATCH",
        "Lift cables",
        "Surface rust on the cable: have a technician check it soon.",
        "Surface rust on a lift cable near the bottom bracket: have it checked soon. Cables are under spring "
        "tension; don't adjust them yourself.",
        "Illustration of a lift cable with orange rust on its lower end, near the bottom bracket.",
        lift_cable,
    ),
    Picture(
        "cables",
        "FIX",
        "Lift cables",
        "Frayed, broken strands: the door can tip or fall. Stop using it and call a technician.",
        "Frayed lift cable with broken strands: the door can tip, jam or fall. Stop using the door and call a "
        "technician.",
        "Illustration of a lift cable with broken wire strands splaying out halfway down.",
        lift_cable,
    ),
    Picture(
        "drums",
        "HEALTHY",
        "Cable drums",
        "Cable wound evenly in the grooves, set-screws in place, flange whole.",
        "Healthy cable drum: the cable wraps evenly in the grooves, the set-screws are in place and the flange "
        "is whole.",
        "Illustration of a cable drum on the torsion shaft with the cable wound neatly in its grooves.",
        cable_drum,
    ),
    Picture(
        "drums",
        "WATCH",
        "Cable drums",
        "Uneven, crossed wraps and surface rust: mention it at the next service.",
        "Cable drum with uneven, crossed wraps and surface rust: mention it to a technician at the next service.",
        "Illustration of a cable drum where one wrap of cable crosses the others, with rust spots on the drum.",
        cable_drum,
    ),
    Picture(
        "drums",
        "FIX",
        "Cable drums",
        "Cracked flange, cable off the drum: the door can drop. Stop and call a technician.",
        "Cracked drum flange and a cable that has jumped off the drum: the door can drop. Stop using it and call "
        "a technician; drums are under spring tension.",
        "Illustration of a cable drum with a crack in its flange and the cable hanging loose off the drum.",
        cable_drum,
    ),
    Picture(
        "bottom-seal",
        "HEALTHY",
        "Bottom seal",
        "Flexible seal touching the floor along the whole width: no light, no drafts.",
        "Healthy bottom seal: flexible and touching the floor along the whole width, so no daylight, water or "
        "pests get in.",
        "Illustration of the bottom of a garage door with a black rubber seal resting evenly on a concrete floor.",
        bottom_seal,
    ),
    Picture(
        "bottom-seal",
        "WATCH",
        "Bottom seal",
        "Flattened, cracking seal with light at one spot: plan a replacement.",
        "Worn bottom seal: flattened and cracking, with daylight at one spot. Plan a replacement; the seal "
        "slides out of its retainer, a job homeowners can do.",
        "Illustration of a flattened, cracked bottom seal with a thin line of daylight under one part of the door.",
        bottom_seal,
    ),
    Picture(
        "bottom-seal",
        "FIX",
        "Bottom seal",
        "Torn seal: daylight, water and leaves get in. Replace the seal.",
        "Torn bottom seal: daylight, water, leaves and pests get in under the door. Replace it, matching the "
        "profile of the retainer.",
        "Illustration of a torn bottom seal with daylight under the door, a puddle and leaves on the garage floor.",
        bottom_seal,
    ),
    Picture(
        "photo-eyes",
        "HEALTHY",
        "Photo-eye sensors",
        "Lights steady, lenses clean, beam no higher than 6 in. above the floor.",
        "Healthy photo-eyes: facing each other across the door, lights steady, lenses clean and the beam no "
        "higher than 6 in. above the floor.",
        "Illustration of two safety sensors low on each side of the door, the invisible beam drawn dashed "
        "between them.",
        photo_eyes,
    ),
    Picture(
        "photo-eyes",
        "WATCH",
        "Photo-eye sensors",
        "Dirty lens, flickering light: clean both lenses, check they face each other, then test.",
        "Photo-eye with a dirty lens and a flickering light: clean the lenses, check the eyes face each other, "
        "then test that the door reverses when the beam is broken.",
        "Illustration of a safety sensor with a smudged lens and a flickering green light.",
        photo_eyes,
    ),
    Picture(
        "photo-eyes",
        "FIX",
        "Photo-eye sensors",
        "Bent bracket: the beam misses, so the door reverses or won't close. Straighten and realign.",
        "Photo-eye knocked out of line on a bent bracket: the beam misses it, so the door reverses or won't "
        "close. Straighten the bracket, realign the eyes and test the reversal.",
        "Illustration of a safety sensor twisted downwards on a bent bracket, its light off and the beam missing it.",
        photo_eyes,
    ),
    Picture(
        "motorhead",
        "HEALTHY",
        "Opener motor unit",
        "Unit level, hangers tight to the framing, chain taut along the rail.",
        "Healthy opener motor unit: level and secure on its hangers, with the chain or belt taut along the rail.",
        "Illustration of a garage door opener hanging level from a ceiling joist on two metal hangers, with its "
        "rail and chain.",
        motorhead,
    ),
    Picture(
        "motorhead",
        "WATCH",
        "Opener motor unit",
        "Chain sagging well below the rail: have the chain tension adjusted.",
        "Opener chain sagging well below the rail: have the chain tension adjusted at the next service.",
        "Illustration of an opener whose return chain sags in a deep curve below the rail.",
        motorhead,
    ),
    Picture(
        "motorhead",
        "FIX",
        "Opener motor unit",
        "Loose hanger, unit tilting: stop using the opener until it is fastened again.",
        "Opener motor unit hanging from one loose hanger and tilting: stop using the opener until it is "
        "fastened to the framing again.",
        "Illustration of an opener unit tilted at one end where its rear hanger has come away from the joist.",
        motorhead,
    ),
    Picture(
        "wall-button",
        "HEALTHY",
        "Wall control",
        "Mounted at least 5 ft up, in sight of the door, away from moving parts.",
        "Wall control mounted at least 5 ft above the floor, in sight of the door and away from moving parts.",
        "Illustration of a wall-mounted door control at about five feet, with a height scale and the garage "
        "door beside it.",
        wall_control,
    ),
    Picture(
        "wall-button",
        "WATCH",
        "Wall control",
        "Lock light blinking: remotes won't open the door until Lock mode is turned off.",
        "Wall control in Lock (vacation) mode, its light blinking: remotes won't open the door until Lock mode "
        "is turned off at the control.",
        "Illustration of a wall control with its lock light blinking orange.",
        wall_control,
    ),
    Picture(
        "wall-button",
        "FIX",
        "Wall control",
        "Mounted within a child's reach: move it to 5 ft or higher.",
        "Wall control mounted at about 3 ft, within a child's reach: move it to at least 5 ft above the floor.",
        "Illustration of a wall control mounted at three feet with a child reaching up to it.",
        wall_control,
    ),
    Picture(
        "remotes",
        "HEALTHY",
        "Remote control",
        "Light shows on every press and the door answers from the driveway.",
        "Working remote: its light shows on every press and the door answers from a normal distance.",
        "Illustration of a handheld garage door remote with its light on and signal waves above it.",
        remote,
    ),
    Picture(
        "remotes",
        "WATCH",
        "Remote control",
        "Dim light, short range: replace the coin-cell battery (they last about 2 years).",
        "Remote with a weak battery: a dim light and a shorter range. Replace the coin-cell battery; they last "
        "about two years.",
        "Illustration of a remote with a dim light beside a battery gauge showing one red bar.",
        remote,
    ),
    Picture(
        "remotes",
        "FIX",
        "Remote control",
        "Cracked case and a corroded battery: replace the remote.",
        "Remote with a cracked case and a corroded battery: replace it with one that matches the opener (check "
        "the colour of its learn button).",
        "Illustration of a remote with a cracked case beside a coin-cell battery crusted with corrosion.",
        remote,
    ),
    Picture(
        "keypad",
        "HEALTHY",
        "Outside keypad",
        "Keys clear and firm, light on, and the cover closes over them.",
        "Healthy outside keypad: keys clear and firm, its light comes on, and the cover closes over the keys.",
        "Illustration of an outdoor garage keypad on siding, its cover raised over twelve dark keys.",
        keypad,
    ),
    Picture(
        "keypad",
        "WATCH",
        "Outside keypad",
        "Worn keys show which digits are in the code: change the code.",
        "Keypad with worn keys: the pale ones show which digits are in the code. Change the code, and replace "
        "the keypad if keys stop responding.",
        "Illustration of a keypad where the keys 1, 3, 7 and 9 are worn pale.",
        keypad,
    ),
    Picture(
        "keypad",
        "FIX",
        "Outside keypad",
        "Cracked case, cover gone, water inside: replace the keypad.",
        "Keypad with a cracked case, its cover broken off and water inside: replace it.",
        "Illustration of a keypad with a cracked housing, a broken cover hinge and water drops inside.",
        keypad,
    ),
]


def encode(picture: Image.Image) -> bytes:
    """The smaller of lossless and lossy WebP."""
    candidates = []
    for options in ({"lossless": True, "quality": 100, "method": 6}, {"quality": 82, "method": 6}):
        out = io.BytesIO()
        picture.save(out, "WEBP", **options)
        candidates.append(out.getvalue())
    return min(candidates, key=len)


#: The words drawn, one table per language besides English: each English phrase (a title, a badge, a call-out, a
#: caption band's sentence) to its translation. Spanish as a US homeowner reads it ("usted"), in the words the
#: catalog (locales/es) gives these pictures' captions: resorte, cable de elevación, tambor, sello de abajo,
#: sensores, motor, botón de pared, control remoto, teclado.
WORDS: dict[str, dict[str, str]] = {
    "es": {
        # the frame
        "HEALTHY": "BIEN",
        "WATCH": "VIGILAR",
        "FIX": "ARREGLAR",
        "illustration": "dibujo",
        "WARNING": "ADVERTENCIA",
        # titles
        "Torsion springs": "Resortes de torsión",
        "Lift cables": "Cables de elevación",
        "Cable drums": "Tambores de los cables",
        "Bottom seal": "Sello de abajo",
        "Photo-eye sensors": "Sensores de seguridad",
        "Opener motor unit": "Motor de la puerta",
        "Wall control": "Botón de pared",
        "Remote control": "Control remoto",
        "Outside keypad": "Teclado de afuera",
        # springs
        "Coils tight and even on both springs, no gaps, no rust. Look, don't touch.": (
            "Vueltas apretadas y parejas en los dos resortes, sin huecos ni óxido. Mire, pero no toque."
        ),
        "Rust on the coils: the spring wears faster. Have a technician check it soon.": (
            "Óxido en las vueltas: el resorte se gasta más rápido. Pida a un técnico que lo revise pronto."
        ),
        "A gap in the coils means a broken spring. Don't run the door; call a technician.": (
            "Un hueco entre las vueltas quiere decir que el resorte está roto. No use la puerta; llame a un técnico."
        ),
        "Rust on the coils": "Óxido en las vueltas",
        "Gap of about 2 in.: broken": "Hueco de unas 2 pulgadas: roto",
        "Tight, even coils": "Vueltas parejas",
        "Matched pair": "Par igual",
        # cables
        "Strands tight and clean, seated on the drum and the bottom bracket. Look, don't touch.": (
            "Hilos apretados y limpios, bien puestos en el tambor y en el soporte de abajo. Mire, pero no toque."
        ),
        "Surface rust on the cable: have a technician check it soon.": (
            "Óxido en la superficie del cable: pida a un técnico que lo revise pronto."
        ),
        "Frayed, broken strands: the door can tip or fall. Stop using it and call a technician.": (
            "Hilos rotos y deshilachados: la puerta se puede ladear o caer. Deje de usarla y llame a un técnico."
        ),
        "Strands tight and even": "Hilos apretados y parejos",
        "Seated on the bracket": "Bien puesto en el soporte",
        "Rust near the bracket": "Óxido cerca del soporte",
        "Frayed, broken strands": "Hilos rotos, deshilachados",
        # drums
        "Cable wound evenly in the grooves, set-screws in place, flange whole.": (
            "Cable enrollado parejo en las ranuras, tornillos de fijación en su lugar, borde entero."
        ),
        "Uneven, crossed wraps and surface rust: mention it at the next service.": (
            "Cable enrollado disparejo y cruzado, y óxido: dígaselo al técnico en el próximo servicio."
        ),
        "Cracked flange, cable off the drum: the door can drop. Stop and call a technician.": (
            "Borde rajado, cable fuera del tambor: la puerta se puede caer. Deje de usarla y llame a un técnico."
        ),
        "Cable seated in the grooves": "Cable en las ranuras",
        "Set-screws tight": "Tornillos apretados",
        "Uneven, crossed wraps": "Enrollado disparejo, cruzado",
        "Surface rust": "Óxido",
        "Cracked flange": "Borde rajado",
        "Cable off the drum": "Cable fuera del tambor",
        # bottom seal
        "Flexible seal touching the floor along the whole width: no light, no drafts.": (
            "Sello flexible que toca el piso a todo lo ancho: no entra luz ni aire."
        ),
        "Flattened, cracking seal with light at one spot: plan a replacement.": (
            "Sello aplastado y rajándose, con luz en un punto: planee cambiarlo."
        ),
        "Torn seal: daylight, water and leaves get in. Replace the seal.": (
            "Sello roto: entra luz, agua y hojas. Cambie el sello."
        ),
        "Seal touches the floor all along": "El sello toca el piso a todo lo ancho",
        "Flattened, cracking": "Aplastado, rajándose",
        "Light at one spot": "Luz en un punto",
        "Torn: daylight and water get in": "Roto: entra luz y agua",
        # photo-eyes
        "Lights steady, lenses clean, beam no higher than 6 in. above the floor.": (
            "Luces fijas, lentes limpios, el rayo a no más de 6 pulgadas del piso."
        ),
        "Dirty lens, flickering light: clean both lenses, check they face each other, then test.": (
            "Lente sucio, luz parpadeando: limpie los dos lentes, revise que queden uno frente al otro y luego pruebe."
        ),
        "Bent bracket: the beam misses, so the door reverses or won't close. Straighten and realign.": (
            "Soporte doblado: el rayo no llega, así que la puerta se regresa o no cierra. Enderécelo y vuelva "
            "a alinear los sensores."
        ),
        "Lights steady, lenses clean": "Luces fijas, lentes limpios",
        "Beam clear across the door": "Rayo libre de lado a lado",
        "Dirty lens, light flickers": "Lente sucio, luz parpadea",
        "Bent bracket: eyes out of line": "Soporte doblado: desalineado",
        "6 in. max": "6 pulg. máx.",
        # opener motor unit
        "Unit level, hangers tight to the framing, chain taut along the rail.": (
            "Motor derecho, colgadores bien sujetos a la estructura, cadena tensa a lo largo del riel."
        ),
        "Chain sagging well below the rail: have the chain tension adjusted.": (
            "Cadena muy colgada debajo del riel: pida que le ajusten la tensión de la cadena."
        ),
        "Loose hanger, unit tilting: stop using the opener until it is fastened again.": (
            "Colgador flojo, motor ladeado: deje de usar el motor hasta que lo vuelvan a sujetar."
        ),
        "Hangers tight to the joist": "Colgadores sujetos a la viga",
        "Chain taut along the rail": "Cadena tensa en el riel",
        "Chain sagging below the rail": "Cadena colgada debajo del riel",
        "Hanger loose: unit tilting": "Colgador flojo: motor ladeado",
        # wall control
        "Mounted at least 5 ft up, in sight of the door, away from moving parts.": (
            "A por lo menos 5 pies de altura, con vista a la puerta y lejos de las partes que se mueven."
        ),
        "Lock light blinking: remotes won't open the door until Lock mode is turned off.": (
            "Luz de bloqueo (Lock) parpadeando: los controles remotos no abren la puerta hasta que se quite el bloqueo."
        ),
        "Mounted within a child's reach: move it to 5 ft or higher.": (
            "Al alcance de un niño: súbalo a 5 pies del piso o más."
        ),
        "Within a child's reach": "Al alcance de un niño",
        "Lock light blinking: remotes blocked": "Luz de bloqueo: los remotos no abren",
        "5 ft or higher, in sight of the door": "A 5 pies o más, con vista a la puerta",
        "1 ft": "1 pie",
        "{foot} ft": "{foot} pies",
        # remotes
        "Light shows on every press and the door answers from the driveway.": (
            "La luz se prende cada vez que lo aprieta y la puerta responde desde la entrada."
        ),
        "Dim light, short range: replace the coin-cell battery (they last about 2 years).": (
            "Luz débil, poco alcance: cambie la pila de botón (duran unos 2 años)."
        ),
        "Cracked case and a corroded battery: replace the remote.": (
            "Caja rajada y pila sulfatada: cambie el control remoto."
        ),
        "Light shows on every press": "Se prende al apretar",
        "Weak battery: dim light": "Pila baja: luz débil",
        "Cracked case": "Caja rajada",
        "Corroded battery": "Pila sulfatada",
        # keypad
        "Keys clear and firm, light on, and the cover closes over them.": (
            "Teclas que se leen y firmes, la luz prendida, y la tapa cierra sobre ellas."
        ),
        "Worn keys show which digits are in the code: change the code.": (
            "Las teclas gastadas dejan ver qué números tiene la clave: cambie la clave."
        ),
        "Cracked case, cover gone, water inside: replace the keypad.": (
            "Caja rajada, sin tapa, agua adentro: cambie el teclado."
        ),
        "Cover closes over the keys": "La tapa cierra bien",
        "Keys clear and firm": "Teclas firmes",
        "Worn keys show the code": "Teclas gastadas: se ve la clave",
        "Cracked case, cover gone": "Caja rajada, sin tapa",
        "Water inside": "Agua adentro",
    },
}


def file_in(file: str, lang: str) -> str:
    """A picture's file in a language: the default language's is `springs-fix.webp`, Spanish `springs-fix.es.webp`."""
    return file if lang == DEFAULT else file.removesuffix(".webp") + f".{lang}.webp"


def other_files(file: str) -> dict[str, str]:
    """The manifest's `files` of a picture: its file in each language but the default."""
    return {lang: file_in(file, lang) for lang in SUPPORTED if lang != DEFAULT}


def words_of(lang: str) -> Mapping[str, str] | None:
    """The words a canvas in `lang` draws with (None: English, as written)."""
    return None if lang == DEFAULT else WORDS[lang]


def draw(picture: Picture, lang: str) -> bytes:
    """One picture in one language, encoded."""
    canvas = Canvas(words_of(lang))
    frame(canvas, picture.title, picture.severity, picture.label)
    picture.draw(canvas, picture.severity)
    return encode(canvas.finish())


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    entries = []
    for picture in PICTURES:
        for lang in SUPPORTED:
            data = draw(picture, lang)
            name = file_in(picture.file, lang)
            (OUT / name).write_bytes(data)
            print(f"{name}: {len(data) // 1024} KiB")
        entries.append(
            {
                "itemId": picture.item,
                "severity": picture.severity,
                "caption": picture.caption,
                "alt": picture.alt,
                "file": picture.file,
                "files": other_files(picture.file),
            }
        )
    manifest = {
        "$schema": "../schemas/photo_manifest.schema.json",
        "about": (
            "Reference photos for the inspection gallery (getInspectionReferencePhotos): for each of the nine "
            "reference items, what HEALTHY, WATCH and FIX look like, each drawn in every language the service "
            "speaks (`file` in English, `files` the others). Generated by scripts/draw_reference_photos.py; edit "
            "the captions and the words drawn there and run it again."
        ),
        "credit": (
            "Original illustrations drawn for garage-tools with Pillow (scripts/draw_reference_photos.py); "
            "no photograph was copied or traced. Same license as the code (MIT)."
        ),
        "photos": entries,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
