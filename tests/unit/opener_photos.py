"""Generated photos of an opener's motor unit, for the identifyOpener tests.

Each photo is drawn here: a light grey housing on a darker ceiling, a screw head, a label, and rounded
learn buttons in the button colours, with sensor-like noise on top, at any size and brightness.
`scene` draws the things a colour check must not take for a learn button (a wooden joist, a hand, a
yellow warning label, a yellow wall) and a motor unit as it hangs in a real garage.
"""

from __future__ import annotations

import base64
from io import BytesIO

from PIL import Image, ImageChops, ImageDraw, ImageEnhance

from garage_tools.knowledge.openers import LearnButtonColour

#: Button paints as photographed (RGB), each with the colour it must read as.
PAINTS: dict[str, tuple[tuple[int, int, int], LearnButtonColour]] = {
    "yellow": ((235, 190, 25), LearnButtonColour.YELLOW),
    "purple": ((110, 40, 150), LearnButtonColour.PURPLE),
    "red": ((200, 35, 30), LearnButtonColour.RED_ORANGE),
    "orange": ((235, 115, 25), LearnButtonColour.RED_ORANGE),
    "green": ((40, 150, 70), LearnButtonColour.GREEN),
}
#: Tones that are vivid enough for a naive colour check but are no button paint.
WOOD = ((176, 112, 52), (150, 94, 42))  # a pine joist and its darker grain
SKIN = (190, 125, 90)  # a hand under warm garage light
LABEL_YELLOW = (240, 200, 30)
WALL_YELLOW = (228, 192, 64)


def motor_unit(
    *buttons: str,
    size: tuple[int, int] = (800, 600),
    button: float = 0.25,
    light: float = 1.0,
    noise: float = 14.0,
    housing: tuple[int, int, int] = (225, 225, 222),
) -> Image.Image:
    """A photo of the back of a motor unit with `buttons` (paint names) side by side.

    `button` is the button's side as a share of the photo's shorter side.
    """
    width, height = size
    photo = Image.new("RGB", size, (150, 150, 148))  # ceiling in shadow
    draw = ImageDraw.Draw(photo)
    draw.rectangle((width * 0.05, height * 0.1, width * 0.95, height * 0.9), fill=housing, outline=(110, 110, 110))
    draw.ellipse((width * 0.85, height * 0.15, width * 0.88, height * 0.19), fill=(70, 70, 70))  # a screw
    draw.rectangle((width * 0.1, height * 0.7, width * 0.4, height * 0.82), fill=(245, 245, 240))  # a label
    side = int(min(size) * button)
    for index, paint in enumerate(buttons):
        _button(draw, (int(width * (0.3 + 0.4 * index)), height // 2), side, paint)
    return photographed(photo, noise, light)


def scene(name: str, size: tuple[int, int] = (800, 600)) -> Image.Image:
    """A drawn photo by name: `joist` (a wooden joist above a yellow button), `hand` (a hand beside a
    purple button), `label` (a yellow warning label beside a red button), `wall` (a plain yellow wall)
    or `garage` (a yellow button on a motor unit hanging between joists, with a light lens and a
    yellow antenna wire: the photo a homeowner sends)."""
    width, height = size
    photo = Image.new("RGB", size, (150, 150, 148))
    draw = ImageDraw.Draw(photo)
    side = int(min(size) * 0.2)
    if name == "wall":
        for y in range(height):  # lit from above: a gentle fall-off, no edge anywhere
            shade = 1.0 - 0.25 * y / height
            draw.line((0, y, width, y), fill=tuple(round(c * shade) for c in WALL_YELLOW))
        return photographed(photo)
    if name == "garage":
        photo.paste((232, 229, 222), (0, 0, *size))  # drywall ceiling
        _joist(draw, (0, 0, width, height * 0.14))
        _joist(draw, (0, height * 0.86, width, height))
    if name == "joist":
        _joist(draw, (0, 0, width, height * 0.22))
    top = 0.3 if name == "joist" else 0.2
    draw.rectangle((width * 0.08, height * top, width * 0.92, height * 0.8), fill=(205, 206, 204), outline=(90, 90, 90))
    if name == "garage":
        draw.rectangle((width * 0.55, height * 0.3, width * 0.88, height * 0.7), fill=(246, 244, 236))  # light lens
        draw.line((width * 0.2, height * 0.8, width * 0.23, height * 0.99), fill=LABEL_YELLOW, width=4)  # antenna
        _button(draw, (int(width * 0.3), int(height * 0.5)), side, "yellow")
    if name == "joist":
        _button(draw, (width // 2, int(height * 0.55)), side, "yellow")
    if name == "hand":
        _button(draw, (int(width * 0.3), height // 2), side, "purple")
        _hand(draw, (int(width * 0.72), int(height * 0.62)), int(height * 0.3))
    if name == "label":
        draw.rectangle((width * 0.45, height * 0.3, width * 0.85, height * 0.6), fill=LABEL_YELLOW)
        for row in range(4):  # lines of black warning text
            y = height * (0.36 + 0.06 * row)
            draw.rectangle((width * 0.49, y, width * (0.81 - 0.05 * (row % 2)), y + height * 0.025), fill=(25, 25, 25))
        _button(draw, (int(width * 0.25), height // 2), side, "red")
    return photographed(photo)


def photographed(photo: Image.Image, noise: float = 14.0, light: float = 1.0) -> Image.Image:
    """`photo` with sensor-like grain and a brightness: what a camera makes of a drawing."""
    grain = Image.effect_noise(photo.size, noise).convert("RGB")  # grey noise centred on 128
    photo = ImageChops.add(photo, grain, scale=1.0, offset=-128)
    return ImageEnhance.Brightness(photo).enhance(light)


def _button(draw: ImageDraw.ImageDraw, centre: tuple[int, int], side: int, paint: str) -> None:
    x, y = centre
    box = (x - side // 2, y - side // 2, x + side // 2, y + side // 2)
    draw.rounded_rectangle(box, radius=side // 4, fill=PAINTS[paint][0], outline=(60, 60, 60))


def _joist(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    """A sawn joist across the frame, with darker grain along it."""
    left, top, right, bottom = box
    draw.rectangle(box, fill=WOOD[0])
    for n in range(1, 6):
        y = top + (bottom - top) * n / 6
        draw.line((left, y, right, y + (bottom - top) * 0.05), fill=WOOD[1], width=3)


def _hand(draw: ImageDraw.ImageDraw, centre: tuple[int, int], size: int) -> None:
    """A palm with four fingers reaching up and a thumb to the side."""
    x, y = centre
    draw.ellipse((x - size * 0.55, y - size * 0.5, x + size * 0.55, y + size * 0.7), fill=SKIN)
    for n in range(4):
        fx = x - size * 0.45 + n * size * 0.3
        draw.rounded_rectangle((fx, y - size * 1.3, fx + size * 0.22, y), radius=int(size * 0.1), fill=SKIN)
    thumb = (x - size * 1.0, y - size * 0.1, x - size * 0.3, y + size * 0.15)
    draw.rounded_rectangle(thumb, radius=int(size * 0.1), fill=SKIN)


def encoded(photo: Image.Image, image_format: str = "PNG") -> dict[str, str]:
    """`photo` as an identifyOpener `image` argument: {data: base64, mimeType}."""
    buffer = BytesIO()
    photo.save(buffer, format=image_format)
    return {"data": base64.b64encode(buffer.getvalue()).decode("ascii"), "mimeType": f"image/{image_format.lower()}"}
