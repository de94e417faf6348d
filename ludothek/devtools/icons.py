"""The installable site's PNG icons, drawn from ``static/favicon.svg``: ``python -m ludothek.devtools.icons``.

The icons are committed (``ludothek/portal/static/icons/``); run this again after changing the SVG.
It draws with the same Debian chromium the browser tests use (through Playwright), so nothing else is
needed to turn the SVG into pixels:

- ``icon-192.png``, ``icon-512.png``: the SVG as it is, on a transparent ground;
- ``icon-maskable-512.png``: full-bleed ground in the icon's colour with the dice inside the central
  circle every mask keeps (80 % of the width; the "maskable" purpose of the manifest);
- ``apple-touch-icon.png`` (180 px): the same full-bleed form, as iOS fills transparency with black.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parents[1] / "portal" / "static"
CHROMIUM = "/usr/bin/chromium"
#: The tile's colour in favicon.svg, used as the full-bleed ground of the maskable icons.
GROUND = "#b3462f"


def maskable_svg(svg: str) -> str:
    """The dice of ``svg`` without their rounded tile, on a full square of the tile's colour, scaled to
    the safe zone (a maskable icon may be cut to any shape inside the central 80 % circle)."""
    inner = re.sub(r"<rect[^>]*/>", "", svg, count=1)
    inner = re.sub(r"^<svg[^>]*>|</svg>$", "", inner.strip())
    # The dice span 6.5..25.5 of 32 (19 units); inside a circle of diameter 0.8 * 32 they fit at 1.0.
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
            f'<rect width="32" height="32" fill="{GROUND}"/><g transform="translate(16 16) scale(0.95) translate(-16 -16)">'
            f"{inner}</g></svg>")


def render(page: Any, svg: str, size: int, out: Path) -> None:
    """Draw ``svg`` at ``size`` x ``size`` pixels into the PNG ``out`` (transparent where the SVG is)."""
    sized = svg.replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
    page.set_viewport_size({"width": size, "height": size})
    page.set_content(f"<html><body style='margin:0;background:transparent'>{sized}</body></html>")
    page.screenshot(path=str(out), omit_background=True, clip={"x": 0, "y": 0, "width": size, "height": size})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=STATIC / "icons", help="where the PNGs go")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    svg = (STATIC / "favicon.svg").read_text(encoding="utf-8")
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(device_scale_factor=1)
        for size in (192, 512):
            render(page, svg, size, args.out / f"icon-{size}.png")
        render(page, maskable_svg(svg), 512, args.out / "icon-maskable-512.png")
        render(page, maskable_svg(svg), 180, args.out / "apple-touch-icon.png")
        browser.close()
    for png in sorted(args.out.glob("*.png")):
        print(png, png.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
