"""The luck report's plots as self-contained SVG (no outside assets, no scripts): an exact
distribution with the observed value marked, and the faces against what fair dice give.

>>> svg = distribution_svg([0.25, 0.5, 0.25], 2, "Low halves", "low faces")
>>> svg.startswith("<svg") and svg.count('class="bar"') == 2 and svg.count('class="seen"') == 1
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from referee.analysis.luck import FaceBin

WIDTH, HEIGHT, LEFT, TOP, BOTTOM = 420, 180, 40, 24, 36
#: The tails left out of a drawing: values whose tails beyond hold less than this.
TAIL = 1e-5
BAR, SEEN, FAIR = "#8fa8c8", "#b2182b", "#555555"
_FONT = 'font-family="sans-serif"'


def _frame(title: str, parts: list[str], label: str) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-label="{escape(title)}">'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>'
        f'<text x="{LEFT}" y="14" font-size="12" {_FONT}>{escape(title)}</text>'
    )
    axis = (
        f'<text x="{LEFT + (WIDTH - LEFT) / 2:g}" y="{HEIGHT - 4}" font-size="10" '
        f'text-anchor="middle" {_FONT}>{escape(label)}</text>'
    )
    return head + "".join(parts) + axis + "</svg>"


def shown_range(pmf: Sequence[float], observed: int) -> range:
    """The values worth drawing: all but the tails holding less than TAIL, and the observed.

    >>> shown_range([0.0, 0.0, 0.5, 0.5, 0.0], 1)
    range(1, 4)
    """
    total, low = 0.0, 0
    while low < len(pmf) - 1 and total + pmf[low] < TAIL:
        total += pmf[low]
        low += 1
    total, high = 0.0, len(pmf) - 1
    while high > 0 and total + pmf[high] < TAIL:
        total += pmf[high]
        high -= 1
    return range(min(low, observed), max(high, observed) + 1)


def distribution_svg(pmf: Sequence[float], observed: int, title: str, label: str) -> str:
    """Bars of P(value) for the values worth drawing, the observed one in red, with its
    chance in its tooltip."""
    values = shown_range(pmf, observed)
    top = max(pmf[v] for v in values if v < len(pmf)) or 1.0
    step = (WIDTH - LEFT - 8) / len(values)
    base = HEIGHT - BOTTOM
    parts: list[str] = []
    every = max(1, math.ceil(len(values) / 8))
    for i, value in enumerate(values):
        chance = pmf[value] if value < len(pmf) else 0.0
        height = (base - TOP) * chance / top
        kind, fill = ("seen", SEEN) if value == observed else ("bar", BAR)
        x = LEFT + i * step
        parts.append(
            f'<rect class="{kind}" x="{x:.2f}" y="{base - height:.2f}" '
            f'width="{max(step - 0.5, 0.5):.2f}" height="{height:.2f}" fill="{fill}">'
            f"<title>{value}: {chance:.6f}{' (observed)' if value == observed else ''}</title>"
            "</rect>"
        )
        if i % every == 0 or value == observed:
            parts.append(
                f'<text x="{x + step / 2:.2f}" y="{base + 11}" font-size="9" '
                f'text-anchor="middle" {_FONT}>{value}</text>'
            )
    parts.append(
        f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - 8}" y2="{base}" stroke="{FAIR}" '
        'stroke-width="0.5"/>'
    )
    return _frame(f"{title} (red: observed {observed})", parts, label)


def faces_svg(bins: Sequence[FaceBin], title: str = "Faces against fair dice") -> str:
    """Each bin's count as a bar and what fair dice give as a dark tick over it.

    >>> svg = faces_svg([FaceBin(6, 1, 3, 4, 5.0), FaceBin(6, 4, 6, 6, 5.0)])
    >>> svg.count('class="bin"'), svg.count('class="fair"')
    (2, 2)
    """
    top = max(max(b.observed, b.expected) for b in bins) or 1.0
    step = (WIDTH - LEFT - 8) / len(bins)
    base = HEIGHT - BOTTOM
    parts: list[str] = []
    every = max(1, math.ceil(len(bins) / 10))
    for i, cell in enumerate(bins):
        x = LEFT + i * step
        height = (base - TOP) * cell.observed / top
        fair = base - (base - TOP) * cell.expected / top
        faces = (
            f"d{cell.sides} {cell.low}-{cell.high}"
            if cell.low != cell.high
            else (f"d{cell.sides} {cell.low}")
        )
        parts.append(
            f'<rect class="bin" x="{x:.2f}" y="{base - height:.2f}" '
            f'width="{max(step - 1, 0.5):.2f}" height="{height:.2f}" fill="{BAR}">'
            f"<title>{faces}: {cell.observed} seen, {cell.expected:.1f} fair</title></rect>"
        )
        parts.append(
            f'<line class="fair" x1="{x:.2f}" y1="{fair:.2f}" x2="{x + step - 1:.2f}" '
            f'y2="{fair:.2f}" stroke="{FAIR}" stroke-width="1.5"/>'
        )
        if i % every == 0:
            parts.append(
                f'<text x="{x + step / 2:.2f}" y="{base + 11}" font-size="8" '
                f'text-anchor="middle" {_FONT}>{cell.low}</text>'
            )
    return _frame(f"{title} (bars: seen; dark lines: fair)", parts, "the bin's first face")
