"""Find a learn button's colour in a photo, offline, with Pillow.

LiftMaster, Chamberlain and Craftsman mark the radio generation by the colour of the learn button
on the motor unit, and the housing around it is grey, white or beige. So the check looks for one
*connected* patch of strongly saturated colour in one of the button hues, not for scattered pixels:
a few saturated pixels in a noisy photo, a cable or a sticker edge must not count as a button.

The work is done in HSV on a downscaled copy (a button that fills enough of the frame to be read
survives the downscale, and the flood fill stays cheap). The confidence is honest about what a
colour alone can tell: it grows with the patch's size and saturation, shrinks when a second button
colour is nearly as present, and never reaches certainty (`OFFLINE_CEILING`), since a yellow
sticker looks like a yellow button to a colour check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageFilter

from garage_tools.knowledge.openers import LearnButtonColour

#: The longest side of the copy the check works on, in pixels.
ANALYSIS_SIDE = 192
#: Pixels below this saturation or value (0-255) are housing, shadow or glare, not a button.
MIN_SATURATION = 110
MIN_VALUE = 55
#: The smallest patch that can be a button: this share of the analysed frame, and this many pixels.
MIN_SHARE = 0.0025
MIN_PIXELS = 16
#: A patch this large (share of the frame) earns the full area score; smaller ones earn less.
FULL_SHARE = 0.03
#: A colour check can be fooled (a sticker, a toy, a painted wall), so it never claims more than this.
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
    """The largest connected patch of one button colour."""

    colour: LearnButtonColour
    pixels: int
    share: float  # of the analysed frame, 0..1
    saturation: float  # mean over the patch, 0..1


@dataclass(frozen=True, slots=True)
class ColourReading:
    """What the check found: the likeliest button colour (if any), every candidate, and how sure it is."""

    colour: LearnButtonColour | None
    confidence: float  # 0..1; 0 when no button colour was found
    patches: tuple[ColourPatch, ...]  # every colour with a patch big enough to be a button, largest first


def read_learn_button(image: Image.Image) -> ColourReading:
    """The learn-button colour in `image` (any mode Pillow can convert to RGB)."""
    small = _downscaled(image)
    hue, saturation, value = small.convert("HSV").split()
    vivid = ImageChops.multiply(_threshold(saturation, MIN_SATURATION), _threshold(value, MIN_VALUE))
    total = small.width * small.height
    smallest = max(MIN_PIXELS, round(total * MIN_SHARE))
    patches: list[ColourPatch] = []
    for colour, ranges in HUES.items():
        mask = ImageChops.multiply(hue.point(_hue_table(ranges)), vivid)
        # A median filter removes isolated noise pixels before any region is grown from them.
        mask = mask.filter(ImageFilter.MedianFilter(3))
        histogram = mask.histogram()
        if histogram[255] < smallest:
            continue
        pixels, saturation_sum = _largest_region(mask, saturation, small.width)
        if pixels >= smallest:
            patches.append(ColourPatch(colour, pixels, pixels / total, saturation_sum / pixels / 255))
    patches.sort(key=lambda patch: patch.pixels, reverse=True)
    if not patches:
        return ColourReading(colour=None, confidence=0.0, patches=())
    return ColourReading(colour=patches[0].colour, confidence=_confidence(patches), patches=tuple(patches))


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
    """Size and saturation of the winning patch, discounted by how close the runner-up comes."""
    best = patches[0]
    area = min(1.0, best.share / FULL_SHARE)
    vividness = min(1.0, max(0.0, (best.saturation - MIN_SATURATION / 255) / (0.85 - MIN_SATURATION / 255)))
    quality = 0.6 * area + 0.4 * vividness
    runner_up = patches[1].pixels if len(patches) > 1 else 0
    dominance = best.pixels / (best.pixels + runner_up)  # 0.5 (a tie) .. 1 (alone)
    # A tie keeps a quarter of the score: the photo does show a button colour, just not which one.
    contest = 0.25 + 0.75 * (2 * dominance - 1)
    return round(OFFLINE_CEILING * quality * contest, 2)


def _threshold(band: Image.Image, minimum: int) -> Image.Image:
    return band.point([255 if level >= minimum else 0 for level in range(256)])


def _hue_table(ranges: Sequence[tuple[float, float]]) -> list[int]:
    """A lookup table from Pillow's hue byte (degrees x 255/360, rounded down) to a 0/255 mask."""
    table = []
    for level in range(256):
        degrees = (level + 0.5) * 360 / 255  # the middle of the degrees this byte stands for
        table.append(255 if any(low <= degrees < high for low, high in ranges) else 0)
    return table


def _largest_region(mask: Image.Image, saturation: Image.Image, width: int) -> tuple[int, int]:
    """(pixel count, saturation sum) of the largest 4-connected region of set pixels in `mask`."""
    cells = bytearray(mask.tobytes())
    sat = saturation.tobytes()
    size = len(cells)
    best = (0, 0)
    start = cells.find(255)
    while start >= 0:
        cells[start] = 0
        stack = [start]
        count = total = 0
        while stack:
            index = stack.pop()
            count += 1
            total += sat[index]
            column = index % width
            for neighbour in (
                index - width,
                index + width,
                index - 1 if column else -1,
                index + 1 if column + 1 < width else -1,
            ):
                if 0 <= neighbour < size and cells[neighbour]:
                    cells[neighbour] = 0
                    stack.append(neighbour)
        if count > best[0]:
            best = (count, total)
        start = cells.find(255, start + 1)
    return best
