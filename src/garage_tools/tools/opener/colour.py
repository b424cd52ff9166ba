"""Find a learn button's colour in a photo, offline, with Pillow.

LiftMaster, Chamberlain and Craftsman mark the radio generation by the colour of the learn button
on the motor unit, and the housing around it is grey, white or beige. So the check looks for a
*button*: one connected, solid, compact (roughly square or round) patch of strongly saturated
colour in one of the button hues, small next to the frame and set in a neutral surround. Colour
alone misleads: a few saturated pixels in a noisy photo, a wooden joist, a hand, a yellow warning
label or a painted wall all carry a button hue, so patches that are too large, elongated, ragged or
printed on are set aside, and orange and yellow pixels must be more saturated than wood or skin.

The work is done in HSV on a downscaled copy (a button that fills enough of the frame to be read
survives the downscale, and the flood fill stays cheap). The confidence is honest about what a
colour check can tell: it grows with the patch's size, saturation and compactness, shrinks when a
patch of another button colour competes, stays low when nothing but the colour says "button" (no
housing around the patch), and never reaches certainty (`OFFLINE_CEILING`), since a yellow sticker
on a grey housing looks like a yellow button to a colour check.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageFilter

from garage_tools.knowledge.openers import LearnButtonColour

#: The longest side of the copy the check works on, in pixels.
ANALYSIS_SIDE = 192
#: Pixels below this saturation or value (0-255) are housing, shadow or glare, not a button.
MIN_SATURATION = 110
MIN_VALUE = 55
#: Wood, skin, cardboard and rust have orange-to-yellow hues too but are duller than button plastic, so in
#: the warm button hues a pixel needs this saturation (0-255) to count.
WARM_MIN_SATURATION = 150
WARM = frozenset({LearnButtonColour.RED_ORANGE, LearnButtonColour.YELLOW})
#: The smallest patch that can be a button: this share of the analysed frame, and this many pixels.
MIN_SHARE = 0.0025
MIN_PIXELS = 16
#: A patch this large (share of the frame) earns the full area score; smaller ones earn less.
FULL_SHARE = 0.03
#: A button photographed close up still leaves housing around it; a patch over this share of the frame is a
#: wall, a panel or a large label.
MAX_SHARE = 0.25
#: Bounding-box long side over short side: a round button seen at a slant stays under this; joists, wires and
#: strips of tape do not.
MAX_ASPECT = 2.0
#: Share of its bounding box a patch's outline fills: a rounded square ~0.95, a disc ~0.79, a tilted square
#: 0.5; a hand, a diagonal strip or a splash fills less.
MIN_FILL = 0.45
#: Share of a patch's outline taken by enclosed other colour: a button is solid, a label carries print.
MAX_HOLES = 0.1
#: A disc's fill and an aspect this close to square count as fully compact; less compact shapes weigh less.
ROUND_FILL = 0.75
SQUARE_ENOUGH = 1.3
#: The ring looked at around a patch, as a share of its longer side, and the share of that ring that must be
#: neutral (grey, white, beige or shadow: below NEUTRAL_SATURATION or MIN_VALUE) for the patch to sit in a
#: housing. Off-frame parts of the ring count as not neutral: a patch cut by the edge shows no setting.
RING = 0.5
NEUTRAL_SATURATION = 80
HOUSED_FROM = 0.6
#: A patch outside any housing ranks at this fraction of its size, and its reading never claims more than
#: COLOUR_ONLY_CEILING (below identifyOpener's `medium`): the colour is then all there is.
UNHOUSED_WEIGHT = 0.5
COLOUR_ONLY_CEILING = 0.35
#: A colour check can be fooled (a sticker, a toy), so it never claims more than this.
OFFLINE_CEILING = 0.85

#: Hue ranges in degrees, [low, high). Orange buttons are read as red/orange (one generation has
#: both), blue and magenta are no learn-button colour, and white has no hue to find.
HUES: dict[LearnButtonColour, tuple[tuple[float, float], ...]] = {
    LearnButtonColour.RED_ORANGE: ((0.0, 42.0), (340.0, 360.0)),
    LearnButtonColour.YELLOW: ((42.0, 72.0),),
    LearnButtonColour.GREEN: ((78.0, 170.0),),
    LearnButtonColour.PURPLE: ((255.0, 325.0),),
}


@dataclass(frozen=True, slots=True)
class ColourPatch:
    """A connected patch of one button colour, measured for how much it looks like a learn button."""

    colour: LearnButtonColour
    pixels: int
    share: float  # of the analysed frame, 0..1
    saturation: float  # mean over the patch, 0..1
    fill: float  # share of its bounding box its outline (holes included) covers, 0..1
    aspect: float  # bounding box long side over short side, >= 1
    holes: float  # share of its outline taken by enclosed other colour, 0..1
    housed: float  # share of the ring around it that is neutral (a housing), 0..1

    @property
    def button_shaped(self) -> bool:
        """Small, compact and solid enough to be a button at all."""
        return (
            self.share <= MAX_SHARE and self.aspect <= MAX_ASPECT and self.fill >= MIN_FILL and self.holes <= MAX_HOLES
        )

    @property
    def in_housing(self) -> bool:
        return self.housed >= HOUSED_FROM

    @property
    def compactness(self) -> float:
        """1 for a square or round patch, less for a tilted, slanted or lumpy one."""
        return min(1.0, self.fill / ROUND_FILL) * min(1.0, SQUARE_ENOUGH / self.aspect)

    @property
    def weight(self) -> float:
        """The patch's size, discounted for a shape or setting unlike a button's: how patches are ranked."""
        return self.pixels * self.compactness * (1.0 if self.in_housing else UNHOUSED_WEIGHT)


@dataclass(frozen=True, slots=True)
class ColourReading:
    """What the check found: the likeliest button colour (if any), every candidate, and how sure it is."""

    colour: LearnButtonColour | None
    confidence: float  # 0..1; 0 when no button colour was found
    patches: tuple[ColourPatch, ...]  # the best button-shaped patch of each colour, best first
    set_aside: tuple[ColourPatch, ...] = ()  # per colour, the largest vivid area not shaped like a button

    @property
    def colour_only(self) -> bool:
        """The winning patch sits in no housing: nothing but its colour says it is a button."""
        return bool(self.patches) and not self.patches[0].in_housing


def read_learn_button(image: Image.Image) -> ColourReading:
    """The learn-button colour in `image` (any mode Pillow can convert to RGB)."""
    small = _downscaled(image)
    hue, saturation, value = small.convert("HSV").split()
    bright = _threshold(value, MIN_VALUE)
    neutral = ImageChops.invert(ImageChops.multiply(_threshold(saturation, NEUTRAL_SATURATION), bright))
    levels = saturation.tobytes()
    total = small.width * small.height
    smallest = max(MIN_PIXELS, round(total * MIN_SHARE))
    patches: list[ColourPatch] = []
    set_aside: list[ColourPatch] = []
    for colour, ranges in HUES.items():
        vivid = _threshold(saturation, WARM_MIN_SATURATION if colour in WARM else MIN_SATURATION)
        mask = ImageChops.multiply(ImageChops.multiply(hue.point(_hue_table(ranges)), vivid), bright)
        # A median filter removes isolated noise pixels before any region is grown from them.
        mask = mask.filter(ImageFilter.MedianFilter(3))
        if mask.histogram()[255] < smallest:
            continue
        found = [_measure(colour, region, levels, neutral, total) for region in _regions(mask, smallest)]
        buttons = [patch for patch in found if patch.button_shaped]
        others = [patch for patch in found if not patch.button_shaped]
        if buttons:
            patches.append(max(buttons, key=lambda patch: patch.weight))
        if others:
            set_aside.append(max(others, key=lambda patch: patch.pixels))
    patches.sort(key=lambda patch: patch.weight, reverse=True)
    set_aside.sort(key=lambda patch: patch.pixels, reverse=True)
    if not patches:
        return ColourReading(colour=None, confidence=0.0, patches=(), set_aside=tuple(set_aside))
    return ColourReading(
        colour=patches[0].colour, confidence=_confidence(patches), patches=tuple(patches), set_aside=tuple(set_aside)
    )


def _downscaled(image: Image.Image) -> Image.Image:
    """An RGB copy at most ANALYSIS_SIDE pixels a side, averaged (BOX) so sensor noise evens out.

    Resized before any conversion, so a 25-megapixel photo is never copied at full size.
    """
    if image.mode not in ("RGB", "RGBA", "L"):  # palette and the rest resize by nearest pixel only
        image = image.convert("RGB")
    scale = min(1.0, ANALYSIS_SIDE / max(image.size))
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.BOX, reducing_gap=2.0).convert("RGB")


def _confidence(patches: Sequence[ColourPatch]) -> float:
    """Size, saturation and shape of the winning patch, discounted by how close the runner-up comes."""
    best = patches[0]
    area = min(1.0, best.share / FULL_SHARE)
    vividness = min(1.0, max(0.0, (best.saturation - MIN_SATURATION / 255) / (0.85 - MIN_SATURATION / 255)))
    quality = (0.6 * area + 0.4 * vividness) * best.compactness
    runner_up = patches[1].weight if len(patches) > 1 else 0.0
    dominance = best.weight / (best.weight + runner_up)  # 0.5 (a tie) .. 1 (alone)
    # A tie keeps a quarter of the score: the photo does show a button colour, just not which one.
    contest = 0.25 + 0.75 * (2 * dominance - 1)
    confidence = OFFLINE_CEILING * quality * contest
    if not best.in_housing:
        confidence = min(confidence, COLOUR_ONLY_CEILING)
    return round(confidence, 2)


def _threshold(band: Image.Image, minimum: int) -> Image.Image:
    return band.point([255 if level >= minimum else 0 for level in range(256)])


def _hue_table(ranges: Sequence[tuple[float, float]]) -> list[int]:
    """A lookup table from Pillow's hue byte (degrees x 255/360, rounded down) to a 0/255 mask."""
    table = []
    for level in range(256):
        degrees = (level + 0.5) * 360 / 255  # the middle of the degrees this byte stands for
        table.append(255 if any(low <= degrees < high for low, high in ranges) else 0)
    return table


@dataclass(frozen=True, slots=True)
class _Region:
    """One 4-connected region of a mask: its pixel indices and bounding box (inclusive)."""

    cells: list[int]
    left: int
    top: int
    right: int
    bottom: int
    width: int  # of the whole mask, to turn indices into coordinates


def _regions(mask: Image.Image, smallest: int) -> Iterator[_Region]:
    """Every 4-connected region of set pixels in `mask` with at least `smallest` pixels."""
    width = mask.width
    cells = bytearray(mask.tobytes())
    start = cells.find(255)
    while start >= 0:
        cells[start] = 0
        region = _grow(cells, [start], width, match=255, mark=0)
        if len(region) >= smallest:
            columns = [index % width for index in region]
            yield _Region(region, min(columns), min(region) // width, max(columns), max(region) // width, width)
        start = cells.find(255, start + 1)


def _grow(cells: bytearray, seeds: list[int], width: int, *, match: int, mark: int) -> list[int]:
    """Flood fill: from `seeds` (already marked) over 4-neighbours equal to `match`, marking each; all visited."""
    size = len(cells)
    stack = list(seeds)
    visited: list[int] = []
    while stack:
        index = stack.pop()
        visited.append(index)
        column = index % width
        for neighbour in (
            index - width,
            index + width,
            index - 1 if column else -1,
            index + 1 if column + 1 < width else -1,
        ):
            if 0 <= neighbour < size and cells[neighbour] == match:
                cells[neighbour] = mark
                stack.append(neighbour)
    return visited


def _measure(
    colour: LearnButtonColour, region: _Region, saturation: bytes, neutral: Image.Image, total: int
) -> ColourPatch:
    """A region's size, saturation, shape and setting."""
    box_width, box_height = region.right - region.left + 1, region.bottom - region.top + 1
    pixels = len(region.cells)
    holes = _enclosed(region, box_width, box_height)
    return ColourPatch(
        colour=colour,
        pixels=pixels,
        share=pixels / total,
        saturation=sum(saturation[index] for index in region.cells) / pixels / 255,
        fill=(pixels + holes) / (box_width * box_height),
        aspect=max(box_width, box_height) / min(box_width, box_height),
        holes=holes / (pixels + holes),
        housed=_housed(region, neutral, box_width, box_height),
    )


def _enclosed(region: _Region, box_width: int, box_height: int) -> int:
    """Pixels inside the region's bounding box that are not in it and that it encloses (print, a hole)."""
    box = bytearray(box_width * box_height)  # 1: the region; 2: reachable from the box's edge without crossing it
    for index in region.cells:
        box[(index // region.width - region.top) * box_width + index % region.width - region.left] = 1
    rim = {*range(box_width), *range(len(box) - box_width, len(box))}
    rim |= {row * box_width + column for row in range(box_height) for column in (0, box_width - 1)}
    seeds = [index for index in rim if not box[index]]
    for index in seeds:
        box[index] = 2
    _grow(box, seeds, box_width, match=0, mark=2)
    return box.count(0)


def _housed(region: _Region, neutral: Image.Image, box_width: int, box_height: int) -> float:
    """Share of a ring around the region's bounding box that is neutral; off-frame parts count as not."""
    margin = max(2, round(RING * max(box_width, box_height)))
    inner = (region.left, region.top, region.right + 1, region.bottom + 1)
    outer = (inner[0] - margin, inner[1] - margin, inner[2] + margin, inner[3] + margin)
    ring = (box_width + 2 * margin) * (box_height + 2 * margin) - box_width * box_height
    # Cropping beyond the frame pads with 0, which the neutral mask reads as "not neutral".
    calm = neutral.crop(outer).histogram()[255] - neutral.crop(inner).histogram()[255]
    return calm / ring
