"""Honest checks of a photo's quality: size, light and sharpness, measured on a small grey copy.

These say whether a photo can show the details an inspection needs (a gap in a spring coil, frayed
strands), not what it shows: recognising a garage-door part takes a vision model. The thresholds
are rules of thumb, reported with the measured values so a caller can judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageFilter, ImageStat

from garage_tools.imaging.decode import DecodedImage
from garage_tools.languages import N_, Phrase

#: Size of the grey copy the measurements are taken on.
SAMPLE_SIDE = 512
MIN_SIDE = 320
TOO_DARK, TOO_BRIGHT = 45, 225
FLAT = 12  # standard deviation of brightness below which a picture is nearly uniform
BLURRY = 40  # variance of the Laplacian (on the 512 px copy) below which edges are soft

_LAPLACIAN = ImageFilter.Kernel((3, 3), (0, 1, 0, 1, -4, 1, 0, 1, 0), scale=1, offset=128)


@dataclass(frozen=True, slots=True)
class PhotoQuality:
    width: int
    height: int
    brightness: int  # mean, 0 (black) to 255 (white)
    contrast: int  # standard deviation of brightness
    sharpness: int  # variance of the Laplacian: higher is sharper
    problems: tuple[Phrase, ...]  # what makes it hard to judge, and how to retake it, in words any reader reads

    @property
    def usable(self) -> bool:
        return not self.problems


def assess(photo: DecodedImage) -> PhotoQuality:
    """Measure a decoded photo (CPU-bound: run it in a worker thread)."""
    picture = photo.image
    sample = picture if max(picture.size) <= SAMPLE_SIDE else picture.resize(_fit(picture.size), reducing_gap=2.0)
    if sample.mode not in ("L", "RGB"):
        sample = _flatten(sample)
    grey = sample.convert("L")
    stats = ImageStat.Stat(grey)
    brightness, contrast = round(stats.mean[0]), round(stats.stddev[0])
    edges = grey.filter(_LAPLACIAN)
    if min(edges.size) > 2:  # Pillow leaves the outermost pixels unfiltered: they are not edges
        edges = edges.crop((1, 1, edges.width - 1, edges.height - 1))
    sharpness = round(ImageStat.Stat(edges).var[0])
    problems: list[Phrase] = []
    if min(photo.width, photo.height) < MIN_SIDE:
        words = N_(
            "low resolution ({width} x {height}): details such as a gap in a spring coil or frayed cable strands "
            "may not show; send the original photo"
        )
        problems.append(Phrase(words, width=photo.width, height=photo.height))
    if brightness < TOO_DARK:
        problems.append(Phrase(N_("very dark: add light (a flashlight, or open the door for daylight) and retake it")))
    elif brightness > TOO_BRIGHT:
        problems.append(Phrase(N_("overexposed: keep bright light behind you rather than in the picture")))
    if contrast < FLAT:
        problems.append(Phrase(N_("nearly uniform: the picture may be blank, covered or fogged")))
    elif sharpness < BLURRY:
        problems.append(Phrase(N_("looks blurry: hold the phone steady and tap the part to focus")))
    return PhotoQuality(photo.width, photo.height, brightness, contrast, sharpness, tuple(problems))


def _fit(size: tuple[int, int]) -> tuple[int, int]:
    width, height = size
    scale = SAMPLE_SIDE / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _flatten(picture: Image.Image) -> Image.Image:
    """Palette and transparent images as RGB on white (a transparent area is not 'dark')."""
    rgba = picture.convert("RGBA")
    background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(background, rgba).convert("RGB")
