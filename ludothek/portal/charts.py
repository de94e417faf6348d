"""Small charts drawn on the server as SVG: no script, no library, readable by screen readers.

`rating_chart` draws a rating history (the conservative rating mu - 3 sigma after each rated
game) as a line with its first and last values; the text alternative says the same in words.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

from ludothek.services.community.ratings import RatingPoint
from ludothek.storage.rating_update import conservative, initial
from ludothek.texts import tn

from .render import format_decimal_1

WIDTH, HEIGHT, PAD = 320, 90, 6


def rating_chart(points: Sequence[RatingPoint], lang: str) -> Markup | None:
    """An inline SVG of the conservative rating after each game; ``None`` without points."""
    if not points:
        return None
    values = [p.conservative for p in points]
    count = len(values)
    if count == 1:  # the first rated game: draw it from the rating everyone starts with (mu - 3 sigma = 0)
        mu, sigma = initial()
        values = [conservative(mu, sigma), values[0]]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (WIDTH - 2 * PAD) / max(1, len(values) - 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return PAD + i * step, PAD + (HEIGHT - 2 * PAD) * (1 - (v - low) / span)

    coords = [xy(i, v) for i, v in enumerate(values)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    def num(v: float) -> str:
        return format_decimal_1(v, lang)

    label = tn("rating_chart_label", count, lang, first=num(values[0]), last=num(values[-1]), low=num(low),
               high=num(high))
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2"/>' for x, y in coords) if len(coords) <= 40 else ""
    zero = ""
    if low < 0 < high:
        _, y0 = xy(0, 0.0)
        zero = f'<line class="zero" x1="{PAD}" x2="{WIDTH - PAD}" y1="{y0:.1f}" y2="{y0:.1f}"/>'
    return Markup(
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>{zero}'
        f'<polyline points="{line}" fill="none"/>{dots}</svg>'
    )
