"""The statistics page's charts (issue 32): one SVG per table, drawn on the server, no script.

Each row of the table becomes a block: its name, then the raw win rate as a circle on a solid whisker (its
95 % interval) and the strength-adjusted rate as a square on a dashed whisker.  Circle/square and
solid/dashed tell the two apart without colour; the axis is marked at 0, 25, 50, 75 and 100 %.  The
drawing is 320 units wide and scales down with the page, so the text stays legible on a 390 px phone
(the labels are 13 units: about 12 px at the narrowest).  The table under the chart holds the same
numbers, so the chart's text alternative only says what it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from ludothek.texts import t, tn

from .render import format_decimal_1

WIDTH = 320
LEFT, RIGHT = 8, 12
ROW = 44
TOP = 30
#: Longer names are cut in the chart (the table beside it shows them whole).
LABEL_CHARS = 44


def _x(rate: float) -> float:
    return LEFT + (WIDTH - LEFT - RIGHT) * max(0.0, min(1.0, rate))


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"


def stats_chart(rows: Sequence[Mapping[str, Any]], title: str, lang: str) -> Markup | None:
    """An inline SVG of the rows' win rates (``label``, ``rate``/``low``/``high``, ``adjusted``…); None
    without rows."""
    if not rows:
        return None
    height = TOP + ROW * len(rows) + 6
    parts: list[str] = []
    # The axis: ticks and their percentages at the top, faint lines down through every row.
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = _x(tick)
        anchor = "start" if tick == 0 else "end" if tick == 1 else "middle"
        parts.append(f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP - 4}" y2="{height - 4}"/>'
                     f'<text class="tick" x="{x:.1f}" y="{TOP - 10}" text-anchor="{anchor}">'
                     f'{escape(format_decimal_1(tick * 100, lang).removesuffix(",0").removesuffix(".0"))} %</text>')
    for i, row in enumerate(rows):
        y = TOP + i * ROW
        parts.append(f'<text class="name" x="{LEFT}" y="{y + 13}">{escape(_label(str(row["label"])))}</text>')
        ry = y + 23
        parts.append(f'<line class="raw" x1="{_x(row["low"]):.1f}" x2="{_x(row["high"]):.1f}" y1="{ry}" y2="{ry}"/>'
                     f'<circle class="raw" cx="{_x(row["rate"]):.1f}" cy="{ry}" r="4"/>')
        if row.get("adjusted") is not None:
            ay = y + 34
            parts.append(f'<line class="adjusted" x1="{_x(row["adjusted_low"]):.1f}" '
                         f'x2="{_x(row["adjusted_high"]):.1f}" y1="{ay}" y2="{ay}"/>'
                         f'<rect class="adjusted" x="{_x(row["adjusted"]) - 4:.1f}" y="{ay - 4}" width="8" height="8"/>')
    label = tn("stats_chart_label", len(rows), lang, title=title)
    return Markup(
        f'<svg class="stats-chart" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>{"".join(parts)}</svg>'
    )


def chart_legend(lang: str) -> Markup:
    """The key to the charts, in words and the two shapes (shown once per page)."""
    raw, adjusted = escape(t("stats_chart_raw", lang)), escape(t("stats_chart_adjusted", lang))
    return Markup(
        '<p class="stats-legend muted" id="stats-legend"><span>'
        '<svg viewBox="0 0 28 10" width="28" height="10" aria-hidden="true"><line class="raw" x1="1" x2="27" '
        f'y1="5" y2="5"/><circle class="raw" cx="14" cy="5" r="4"/></svg> {raw}</span><span>'
        '<svg viewBox="0 0 28 10" width="28" height="10" aria-hidden="true"><line class="adjusted" x1="1" '
        f'x2="27" y1="5" y2="5"/><rect class="adjusted" x="10" y="1" width="8" height="8"/></svg> {adjusted}</span></p>'
    )
