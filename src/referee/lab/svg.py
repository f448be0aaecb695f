"""Self-contained SVG drawings (no outside assets, no scripts): heat maps and bar rows.

>>> svg = heat_map_svg([50, 60], np.array([[0.5, 0.25], [0.75, 0.5]]), "P(row wins)")
>>> svg.startswith("<svg") and svg.count("<rect") == 4 + 1
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

import numpy as np

CELL = 14
MARGIN = 44


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
) -> str:
    """A heat map of `matrix` (row CS down, column CS across); each cell's value in a tooltip.

    `label` names the numbers in the tooltips (`CS` for MSV, `skill` for SRP).
    """
    n = len(skills)
    size = MARGIN + n * CELL + 8
    every = max(1, math.ceil(n / 12))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size + 24}" '
        f'width="{size}" height="{size + 24}" role="img" aria-label="{escape(title)}">',
        f'<rect width="{size}" height="{size + 24}" fill="#ffffff"/>',
        f'<text x="{MARGIN}" y="14" font-size="12" font-family="sans-serif">{escape(title)}</text>',
    ]
    top = 24
    for i, row_cs in enumerate(skills):
        for j, col_cs in enumerate(skills):
            value = float(matrix[i, j])
            shown = "n/a" if math.isnan(value) else f"{value:.{digits}f}"
            parts.append(
                f'<rect x="{MARGIN + j * CELL}" y="{top + i * CELL}" width="{CELL}" '
                f'height="{CELL}" fill="{colour(value, low, high)}">'
                f"<title>{label} {row_cs} vs {label} {col_cs}: {shown}</title></rect>"
            )
    for k in range(0, n, every):
        y = top + k * CELL + CELL - 3
        x = MARGIN + k * CELL + CELL // 2
        parts.append(
            f'<text x="{MARGIN - 4}" y="{y}" font-size="9" text-anchor="end" '
            f'font-family="sans-serif">{skills[k]}</text>'
        )
        parts.append(
            f'<text x="{x}" y="{top + n * CELL + 11}" font-size="9" text-anchor="middle" '
            f'font-family="sans-serif">{skills[k]}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


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
