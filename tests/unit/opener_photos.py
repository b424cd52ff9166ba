"""Generated photos of an opener's motor unit, for the identifyOpener tests.

Each photo is drawn here: a light grey housing on a darker ceiling, a screw head, a label, and rounded
learn buttons in the button colours, with sensor-like noise on top, at any size and brightness.
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
        centre_x, centre_y = int(width * (0.3 + 0.4 * index)), height // 2
        box = (centre_x - side // 2, centre_y - side // 2, centre_x + side // 2, centre_y + side // 2)
        draw.rounded_rectangle(box, radius=side // 4, fill=PAINTS[paint][0], outline=(60, 60, 60))
    grain = Image.effect_noise(size, noise).convert("RGB")  # grey noise centred on 128
    photo = ImageChops.add(photo, grain, scale=1.0, offset=-128)
    return ImageEnhance.Brightness(photo).enhance(light)


def encoded(photo: Image.Image, image_format: str = "PNG") -> dict[str, str]:
    """`photo` as an identifyOpener `image` argument: {data: base64, mimeType}."""
    buffer = BytesIO()
    photo.save(buffer, format=image_format)
    return {"data": base64.b64encode(buffer.getvalue()).decode("ascii"), "mimeType": f"image/{image_format.lower()}"}
