"""Draw one picture per door style: the front of a double garage door in the style's pattern and finish.

    uv run python scripts/draw_door_styles.py          # writes src/garage_tools/web/static/styles/<id>.webp
                                                        # and static/sizes/single.webp, double.webp

Each style's `look` in `door_styles.json` (its face's pattern: ribbed, raised panels, flush, carriage house
with overlays, V-groove, modern panels, full-view glass, planks; and its finish) decides the drawing, so a new
style needs a `look` and a run of this script, nothing else. The pictures are original illustrations made
here (no photo is copied or traced), drawn at twice the size and scaled down to 360 x 240 like the reference
drawings (scripts/draw_reference_photos.py), and saved as WebP, lossless or lossy, whichever is smaller.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from draw_reference_photos import encode  # a sibling script: one WebP encoder for both

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "garage_tools" / "knowledge" / "data" / "door_styles.json"
OUT = ROOT / "src" / "garage_tools" / "web" / "static" / "styles"
SIZES = ROOT / "src" / "garage_tools" / "web" / "static" / "sizes"  # the front door's "which size?" pictures
W, H, S = 360, 240, 2

Colour = tuple[int, int, int]
FINISHES: dict[str, Colour] = {
    "white": (244, 244, 240),
    "almond": (226, 214, 190),
    "sandstone": (204, 190, 164),
    "charcoal": (78, 82, 88),
    "black": (40, 42, 46),
    "silver": (188, 194, 200),
    "oak": (184, 138, 88),
    "walnut": (112, 76, 50),
    "cedar": (168, 104, 62),
}
WALL, WALL_LINE = (214, 205, 190), (190, 180, 164)
DRIVE, TRIM, INK = (170, 170, 164), (250, 250, 248), (40, 46, 54)
GLASS_CLEAR, GLASS_FROST = (160, 196, 220), (214, 226, 234)


def shade(colour: Colour, amount: float) -> Colour:
    """Darker (amount < 0) or lighter (amount > 0), towards black or white."""
    target = 0 if amount < 0 else 255
    return tuple(round(c + (target - c) * abs(amount)) for c in colour)  # type: ignore[return-value]


class Door:
    """The door's opening and its drawing surface, in supersampled pixels."""

    def __init__(self, draw: ImageDraw.ImageDraw, finish: Colour) -> None:
        self.draw, self.finish = draw, finish
        self.left, self.top, self.right, self.bottom = 40 * S, 42 * S, 320 * S, 214 * S
        self.edge = shade(finish, -0.35)

    def sections(self, count: int = 4) -> list[tuple[int, int]]:
        step = (self.bottom - self.top) / count
        return [(round(self.top + i * step), round(self.top + (i + 1) * step)) for i in range(count)]

    def box(self, x0: float, y0: float, x1: float, y1: float, fill: Colour, outline: Colour | None = None) -> None:
        self.draw.rectangle((x0, y0, x1, y1), fill=fill, outline=outline or self.edge, width=S)

    def line(self, x0: float, y0: float, x1: float, y1: float, fill: Colour | None = None, width: int = 1) -> None:
        self.draw.line((x0, y0, x1, y1), fill=fill or self.edge, width=width * S)


def ribbed(door: Door) -> None:
    for top, bottom in door.sections():
        for k in range(1, 8):
            y = top + (bottom - top) * k / 8
            door.line(door.left, y, door.right, y, shade(door.finish, -0.18))


def panels(door: Door, across: int, inset: float) -> None:
    width = (door.right - door.left) / across
    for top, bottom in door.sections():
        for i in range(across):
            x0 = door.left + i * width + inset * S
            door.box(x0, top + inset * S, x0 + width - 2 * inset * S, bottom - inset * S, shade(door.finish, -0.06))
            door.box(x0 + 3 * S, top + (inset + 3) * S, x0 + width - (2 * inset + 3) * S, bottom - (inset + 3) * S,
                     shade(door.finish, 0.05), shade(door.finish, -0.2))  # fmt: skip


def flush(door: Door) -> None:
    for top, _ in door.sections()[1:]:
        door.line(door.left, top, door.right, top, shade(door.finish, -0.25))


def carriage(door: Door) -> None:
    middle = (door.left + door.right) / 2
    door.line(middle, door.top, middle, door.bottom, shade(door.finish, -0.3), 2)
    for x0, x1 in ((door.left, middle), (middle, door.right)):
        for k in range(1, 6):  # boards
            x = x0 + (x1 - x0) * k / 6
            door.line(x, door.top + 34 * S, x, door.bottom, shade(door.finish, -0.12))
        pad = 8 * S
        door.line(x0 + pad, door.bottom - pad, x1 - pad, door.top + 40 * S, shade(door.finish, -0.3), 3)  # brace
        for i in range(3):  # windows in the top row
            wx = x0 + pad + i * (x1 - x0 - 2 * pad) / 3
            door.box(wx + 2 * S, door.top + 6 * S, wx + (x1 - x0 - 2 * pad) / 3 - 2 * S, door.top + 28 * S, GLASS_CLEAR)
        for hx in (middle - 14 * S, middle + 8 * S):  # handles
            door.box(hx, door.top + 96 * S, hx + 6 * S, door.top + 112 * S, INK, INK)


def v_groove(door: Door) -> None:
    flush(door)
    top, bottom = door.sections()[0]
    for i in range(6):
        x = door.left + (door.right - door.left) * i / 6
        door.box(x + 5 * S, top + 8 * S, x + (door.right - door.left) / 6 - 5 * S, bottom - 8 * S, GLASS_CLEAR)
    for top, bottom in door.sections()[1:]:
        for k in range(1, 4):
            y = top + (bottom - top) * k / 4
            door.line(door.left, y, door.right, y, shade(door.finish, -0.22))


def modern(door: Door) -> None:
    frame = shade(door.finish, -0.1)
    door.box(door.left, door.top, door.right, door.bottom, frame)
    for top, bottom in door.sections():
        for i in range(4):
            x = door.left + (door.right - door.left) * i / 4
            door.box(x + 4 * S, top + 4 * S, x + (door.right - door.left) / 4 - 4 * S, bottom - 4 * S,
                     shade(door.finish, 0.12), frame)  # fmt: skip


def full_view(glass: Colour) -> Callable[[Door], None]:
    def draw(door: Door) -> None:
        frame = door.finish
        door.box(door.left, door.top, door.right, door.bottom, frame)
        for top, bottom in door.sections():
            for i in range(4):
                x = door.left + (door.right - door.left) * i / 4
                door.box(x + 4 * S, top + 4 * S, x + (door.right - door.left) / 4 - 4 * S, bottom - 4 * S, glass, frame)
                door.line(x + 10 * S, top + 8 * S, x + 22 * S, bottom - 12 * S, shade(glass, 0.35), 2)  # a glint

    return draw


def planks(door: Door) -> None:
    count = 18
    for k in range(1, count):
        y = door.top + (door.bottom - door.top) * k / count
        door.line(door.left, y, door.right, y, shade(door.finish, -0.28))


PATTERNS: dict[str, Callable[[Door], None]] = {
    "ribbed": ribbed,
    "short-panel": lambda door: panels(door, 8, 3),
    "long-panel": lambda door: panels(door, 4, 4),
    "flush": flush,
    "carriage": carriage,
    "v-groove": v_groove,
    "modern-panels": modern,
    "full-view-clear": full_view(GLASS_CLEAR),
    "full-view-frosted": full_view(GLASS_FROST),
    "planks": planks,
}


def drawing(pattern: str, finish: str) -> Image.Image:
    picture = Image.new("RGB", (W * S, H * S), WALL)
    draw = ImageDraw.Draw(picture)
    for y in range(0, H * S, 16 * S):  # siding
        draw.line((0, y, W * S, y), fill=WALL_LINE, width=S)
    draw.rectangle((0, 214 * S, W * S, H * S), fill=DRIVE)
    draw.rectangle((30 * S, 32 * S, 330 * S, 214 * S), fill=TRIM)  # the opening's trim
    door = Door(draw, FINISHES[finish])
    door.box(door.left, door.top, door.right, door.bottom, door.finish)
    PATTERNS[pattern](door)
    draw.rectangle((door.left, door.bottom - 3 * S, door.right, door.bottom), fill=INK)  # bottom seal
    return picture.resize((W, H), Image.Resampling.LANCZOS)


def size_picture(doors: int) -> Image.Image:
    """The front door's size question: one wide door (a double) or a single door, white, with its width."""
    picture = drawing("short-panel", "white") if doors == 2 else single()
    return picture


def single() -> Image.Image:
    """A single-car door (8 or 9 ft) in an opening half the double's width, the wall either side."""
    picture = Image.new("RGB", (W * S, H * S), WALL)
    draw = ImageDraw.Draw(picture)
    for y in range(0, H * S, 16 * S):
        draw.line((0, y, W * S, y), fill=WALL_LINE, width=S)
    draw.rectangle((0, 214 * S, W * S, H * S), fill=DRIVE)
    draw.rectangle((110 * S, 32 * S, 250 * S, 214 * S), fill=TRIM)
    door = Door(draw, FINISHES["white"])
    door.left, door.right = 120 * S, 240 * S
    door.box(door.left, door.top, door.right, door.bottom, door.finish)
    panels(door, 4, 3)
    draw.rectangle((door.left, door.bottom - 3 * S, door.right, door.bottom), fill=INK)
    return picture.resize((W, H), Image.Resampling.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    SIZES.mkdir(parents=True, exist_ok=True)
    for name, doors in (("single", 1), ("double", 2)):
        data = encode(size_picture(doors))
        (SIZES / f"{name}.webp").write_bytes(data)
        print(f"sizes/{name}.webp: {len(data)} bytes")
    styles = json.loads(DATA.read_text(encoding="utf-8"))["styles"]
    for style in styles:
        data = encode(drawing(style["look"]["pattern"], style["look"]["finish"]))
        (OUT / f"{style['id']}.webp").write_bytes(data)
        print(f"{style['id']}.webp: {len(data)} bytes")


if __name__ == "__main__":
    main()
