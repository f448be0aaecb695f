"""Self-contained SVG drawings (no outside assets, no scripts): heat maps and bar rows.

>>> svg = heat_map_svg([50, 60], np.array([[0.5, 0.25], [0.75, 0.5]]), "P(row wins)")
>>> svg.startswith("<svg") and svg.count("<rect") == 4 + 2  # cells, background, colour scale
True
"""

from __future__ import annotations

import hashlib
import math
import textwrap
from collections.abc import Sequence
from html import escape

import numpy as np

CELL = 14
MARGIN = 44
#: Room left of the row labels for the row axis's title, and the colour scale's width.
LEFT = 16
LEGEND_WIDTH = 140


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> str:
    r, g, bl = (round(x + (y - x) * t) for x, y in zip(a, b, strict=True))
    return f"#{r:02x}{g:02x}{bl:02x}"


RED, WHITE, BLUE = (178, 24, 43), (247, 247, 247), (33, 102, 172)


def colour(value: float, low: float, high: float) -> str:
    """A diverging colour: `low` red, the middle white, `high` blue; NaN grey.

    >>> colour(0.5, 0.0, 1.0), colour(1.0, 0.0, 1.0), colour(float("nan"), 0, 1)
    ('#f7f7f7', '#2166ac', '#bbbbbb')
    """
    if math.isnan(value):
        return "#bbbbbb"
    t = 0.5 if high == low else (min(max(value, low), high) - low) / (high - low)
    return _mix(RED, WHITE, t * 2) if t < 0.5 else _mix(WHITE, BLUE, (t - 0.5) * 2)


def heat_map_svg(
    skills: Sequence[int],
    matrix: np.ndarray,
    title: str,
    low: float = 0.0,
    high: float = 1.0,
    digits: int = 3,
    label: str = "CS",
    legend: str | None = None,
) -> str:
    """A heat map of `matrix` (row CS down, column CS across); each cell's value in a tooltip.

    `label` names the numbers in the tooltips and on the axes (`CS` for MSV, `skill` for
    SRP). Both axes have a title, and a colour scale under the map reads from `low` to `high`
    with `legend` (default: the title) naming what the colours measure.

    >>> svg = heat_map_svg([50, 60], np.array([[0.5, 0.25], [0.75, 0.5]]), "P(row wins)")
    >>> "CS of the row's fighter" in svg and "CS of the column's fighter" in svg
    True
    >>> [t for t in ("0", "0.5", "1") if f">{t}</text>" in svg]
    ['0', '0.5', '1']
    """
    n = len(skills)
    left = LEFT + MARGIN
    grid = n * CELL
    width = left + max(grid, LEGEND_WIDTH) + 12
    top = 24
    bottom = top + grid
    # What the colour measures, wrapped to the drawing's width (about 5.6 px a character).
    lines = textwrap.wrap(f"colour: {legend or title}", max(24, int((width - 8) / 5.6)))
    height = bottom + 78 + 13 * (len(lines) - 1)
    every = max(1, math.ceil(n / 12))
    font = 'font-family="sans-serif"'
    scale_id = "heat-scale-" + hashlib.sha256(f"{title}|{low}|{high}".encode()).hexdigest()[:10]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="14" font-size="12" {font}>{escape(title)}</text>',
    ]
    for i, row_cs in enumerate(skills):
        for j, col_cs in enumerate(skills):
            value = float(matrix[i, j])
            shown = "n/a" if math.isnan(value) else f"{value:.{digits}f}"
            parts.append(
                f'<rect x="{left + j * CELL}" y="{top + i * CELL}" width="{CELL}" '
                f'height="{CELL}" fill="{colour(value, low, high)}">'
                f"<title>{label} {row_cs} vs {label} {col_cs}: {shown}</title></rect>"
            )
    for k in range(0, n, every):
        y = top + k * CELL + CELL - 3
        x = left + k * CELL + CELL // 2
        parts.append(
            f'<text x="{left - 4}" y="{y}" font-size="9" text-anchor="end" {font}>'
            f"{skills[k]}</text>"
        )
        parts.append(
            f'<text x="{x}" y="{bottom + 11}" font-size="9" text-anchor="middle" {font}>'
            f"{skills[k]}</text>"
        )
    # The axes' titles: the row's fighter down the left, the column's across the bottom.
    middle = top + grid / 2
    parts.append(
        f'<text transform="rotate(-90)" x="{-middle:g}" y="12" font-size="10" '
        f'text-anchor="middle" {font}>{escape(label)} of the row\'s fighter</text>'
    )
    parts.append(
        f'<text x="{left + grid / 2:g}" y="{bottom + 25}" font-size="10" text-anchor="middle" '
        f"{font}>{escape(label)} of the column's fighter</text>"
    )
    # The colour scale: low (red) to high (blue) through white, with its three values.
    bar_y = bottom + 34
    stops = "".join(
        f'<stop offset="{t:g}" stop-color="{colour(low + (high - low) * t, low, high)}"/>'
        for t in (0.0, 0.5, 1.0)
    )
    parts.append(f'<defs><linearGradient id="{scale_id}">{stops}</linearGradient></defs>')
    parts.append(
        f'<rect x="{left}" y="{bar_y}" width="{LEGEND_WIDTH}" height="10" '
        f'fill="url(#{scale_id})" stroke="#888888" stroke-width="0.5"/>'
    )
    for t, anchor in ((0.0, "start"), (0.5, "middle"), (1.0, "end")):
        parts.append(
            f'<text x="{left + LEGEND_WIDTH * t:g}" y="{bar_y + 21}" font-size="9" '
            f'text-anchor="{anchor}" {font}>{_scale_value(low + (high - low) * t, low, digits)}'
            "</text>"
        )
    for k, line in enumerate(lines):
        parts.append(
            f'<text x="4" y="{bar_y + 36 + 13 * k}" font-size="10" {font}>{escape(line)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _scale_value(value: float, low: float, digits: int) -> str:
    """A value of the colour scale: signed when the scale runs below 0 (a change).

    >>> _scale_value(0.5, 0.0, 3), _scale_value(-0.0113, -0.0113, 4), _scale_value(0.0, -1, 4)
    ('0.5', '-0.0113', '0')
    """
    if abs(value) < 10**-digits / 2:
        return "0"
    return f"{value:+.{digits}f}" if low < 0 else f"{value:g}"


def bars_svg(labels: Sequence[str], values: Sequence[float], title: str, unit: str = "") -> str:
    """Horizontal bars, one per label, with the value written beside each.

    >>> bars_svg(["a", "b"], [1.0, 2.0], "t").count("<rect")
    3
    """
    width, bar_h = 420, 18
    top = max(values, default=0.0) or 1.0
    height = 24 + len(labels) * (bar_h + 4)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="4" y="14" font-size="12" font-family="sans-serif">{escape(title)}</text>',
    ]
    for k, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = 22 + k * (bar_h + 4)
        length = 0.0 if math.isnan(value) else max(0.0, value) / top * (width - 170)
        parts.append(
            f'<text x="90" y="{y + 13}" font-size="11" text-anchor="end" '
            f'font-family="sans-serif">{escape(label)}</text>'
            f'<rect x="96" y="{y}" width="{length:.1f}" height="{bar_h}" fill="#2166ac"/>'
            f'<text x="{100 + length:.1f}" y="{y + 13}" font-size="11" '
            f'font-family="sans-serif">{value:.3f}{escape(unit)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
