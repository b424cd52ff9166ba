"""Preview images of the labs: a real screenshot of each lab page, drawn by headless Chromium.

`garage-tools labs render-previews` runs this. It opens each lab in its embed view (`?embed=1`: the title,
the interactive part and no site navigation, as a framed lab looks) at 1280x720, scales the shot to
960x540 and stores it as a small palette PNG under PREVIEW_DIR, where `/labs/<slug>/preview.png` serves
it and `getLab` points, with a 640x360 WebP thumbnail of it beside (`/labs/<slug>/thumbnail.webp`, what the
`/labs` cards show). The images are committed, so the service itself never needs a browser.

Playwright is a development dependency: it is imported only here, when the command runs. Pages are
shot with reduced motion, so animated labs hold still and the same lab gives the same picture.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from PIL import Image, ImageChops, ImageStat

from garage_tools.knowledge.labs import PREVIEW_HEIGHT, PREVIEW_WIDTH, THUMBNAIL_HEIGHT, THUMBNAIL_WIDTH

#: The page is laid out at this size (a common 16:9 desktop frame), then scaled down to the preview's.
SHOT_WIDTH = 1280
SHOT_HEIGHT = 720
#: Debian's Chromium; Playwright's own download is used when it is absent.
SYSTEM_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"]
#: A 256-colour palette keeps a flat UI screenshot faithful at about half the bytes. Max-coverage picks
#: the palette: median cut scores a lower mean error but can drop a small saturated spot (a green LED)
#: entirely. A shot whose palette version strays further than these (per channel, 0-255) stays in full colour.
PALETTE_MEAN_ERROR = 2.0
PALETTE_WORST_ERROR = 24
#: WebP quality of the thumbnails: flat UI text stays legible at 640 px; each is about 18 KB.
THUMBNAIL_QUALITY = 70
PAGE_TIMEOUT_MS = 30_000
SERVER_START_SECONDS = 90.0


class PreviewError(RuntimeError):
    """A preview could not be drawn: no Playwright, no browser, no server, or a lab page that misbehaves."""


@dataclass(frozen=True, slots=True)
class Written:
    slug: str
    path: Path
    size: int
    palette: bool


def render_previews(
    base_url: str,
    slugs: Sequence[str],
    out: Path,
    *,
    chromium: Path | None = None,
    report: Callable[[Written], None] = lambda written: None,
) -> list[Written]:
    """Shoot `/labs/<slug>?embed=1` of the server at `base_url` for each slug and write `<out>/<slug>.png`.

    Raises PreviewError when a page logs a console error, fails a request or never draws its widget:
    a broken lab should not be committed as its own preview.
    """
    sync_playwright = _playwright()
    out.mkdir(parents=True, exist_ok=True)
    executable = chromium or (SYSTEM_CHROMIUM if SYSTEM_CHROMIUM.exists() else None)
    written = []
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(
                executable_path=str(executable) if executable else None, args=CHROMIUM_ARGS
            )
        except Exception as exc:  # Playwright raises its own Error type for a missing or broken browser
            raise PreviewError(f"cannot start Chromium ({executable or 'Playwright default'}): {exc}") from exc
        try:
            context = browser.new_context(
                viewport={"width": SHOT_WIDTH, "height": SHOT_HEIGHT},
                device_scale_factor=1,
                reduced_motion="reduce",
                color_scheme="light",
            )
            for slug in slugs:
                shot = _shoot(context, f"{base_url.rstrip('/')}/labs/{slug}?embed=1")
                body, palette = optimised_png(shot)
                path = out / f"{slug}.png"
                path.write_bytes(body)
                write_thumbnail(path)
                written.append(Written(slug, path, len(body), palette))
                report(written[-1])
        finally:
            browser.close()
    return written


def _playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise PreviewError(
            "rendering previews needs Playwright, a development dependency: run `uv sync` (dev group) or "
            "`pip install playwright`, and have Chromium at /usr/bin/chromium or `playwright install chromium`"
        ) from exc
    return sync_playwright


def _shoot(context: Any, url: str) -> bytes:
    """The viewport of `url` once its widget has drawn, as PNG bytes."""
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("requestfailed", lambda request: problems.append(f"{request.url}: {request.failure}"))
    page.on("response", lambda response: problems.extend(_refused(response)))
    try:
        response = page.goto(url, wait_until="networkidle", timeout=PAGE_TIMEOUT_MS)
        if response is None or response.status != 200:
            raise PreviewError(f"{url} answered {response.status if response else 'nothing'}")
        page.wait_for_selector("#lab-interactive [data-lab-output]", state="attached", timeout=PAGE_TIMEOUT_MS)
        page.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
        shot: bytes = page.screenshot(type="png", animations="disabled")
    except PreviewError:
        raise
    except Exception as exc:  # Playwright's TimeoutError and friends
        raise PreviewError(f"{url}: {exc}") from exc
    finally:
        page.close()
    if problems:
        raise PreviewError(f"{url} is not clean: {'; '.join(problems)}")
    return shot


def _refused(response: Any) -> list[str]:
    return [f"{response.url}: HTTP {response.status}"] if response.status >= 400 else []


def optimised_png(shot: bytes) -> tuple[bytes, bool]:
    """`shot` scaled to PREVIEW_WIDTH x PREVIEW_HEIGHT, as a palette PNG when that stays faithful.

    Returns the PNG and whether it uses a palette.
    """
    with Image.open(io.BytesIO(shot)) as image:
        full = image.convert("RGB").resize((PREVIEW_WIDTH, PREVIEW_HEIGHT), Image.Resampling.LANCZOS)
    palette = full.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    mean, worst = _errors(full, palette.convert("RGB"))
    faithful = mean <= PALETTE_MEAN_ERROR and worst <= PALETTE_WORST_ERROR
    chosen = palette if faithful else full
    buffer = io.BytesIO()
    chosen.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue(), faithful


def thumbnail(preview_png: bytes) -> bytes:
    """The WebP thumbnail of a preview: THUMBNAIL_WIDTH x THUMBNAIL_HEIGHT, lossy at THUMBNAIL_QUALITY."""
    with Image.open(io.BytesIO(preview_png)) as image:
        small = image.convert("RGB").resize((THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    small.save(buffer, format="WEBP", quality=THUMBNAIL_QUALITY, method=6)
    return buffer.getvalue()


def write_thumbnail(preview: Path) -> Path:
    """Write `<slug>.webp` beside the preview `<slug>.png`, from it; the thumbnail's path."""
    target = preview.with_suffix(".webp")
    target.write_bytes(thumbnail(preview.read_bytes()))
    return target


def _errors(a: Image.Image, b: Image.Image) -> tuple[float, int]:
    """The mean and the largest absolute difference of two RGB images, per channel (0-255)."""
    stat = ImageStat.Stat(ImageChops.difference(a, b))
    return sum(stat.mean) / 3, max(int(high) for _, high in stat.extrema)


@contextmanager
def local_server() -> Iterator[str]:
    """This service on a free loopback port, with a throwaway data directory; yields its base URL.

    A subprocess rather than a thread: Playwright's sync API runs its own event loop in this one. The
    operator's GARAGE_TOOLS_* settings are left out, so a production database is never touched.
    """
    port = _free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith("GARAGE_TOOLS_")}
    with tempfile.TemporaryDirectory(prefix="garage-tools-previews-") as workdir:
        env.update(GARAGE_TOOLS_DATA_DIR=workdir, GARAGE_TOOLS_LOG_LEVEL="warning")
        log = Path(workdir) / "server.log"
        with log.open("wb") as output:
            process = subprocess.Popen(  # noqa: S603 - our own interpreter and fixed arguments
                [sys.executable, "-m", "garage_tools", "serve", "--host", "127.0.0.1", "--port", str(port)],
                cwd=workdir,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
            try:
                url = f"http://127.0.0.1:{port}"
                _wait_until_up(url, process, log)
                yield url
            finally:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PreviewError(f"the local server exited:\n{log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise PreviewError(f"the local server did not answer within {SERVER_START_SECONDS:.0f} s")
