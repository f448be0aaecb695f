"""Plots of the MSV analysis, written to PNG files. matplotlib is imported lazily (Agg).

>>> callable(plot_win_matrix) and callable(plot_comparison)
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from referee.analysis.msv_tables import Cell
from referee.errors import RefereeError


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise RefereeError("plotting needs matplotlib: install referee[plot]") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure: Any, path: str | Path) -> None:
    try:
        figure.savefig(str(path), dpi=120, bbox_inches="tight")
    except (OSError, ValueError) as err:
        raise RefereeError(f"cannot write plot {str(path)!r}: {err}") from None


def plot_win_matrix(skills: Sequence[int], matrix: np.ndarray, path: str | Path) -> None:
    """Heat map of P(row beats column) for the given skills, saved as PNG at `path`."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 6))
    low, high = skills[0], skills[-1]
    image = axes.imshow(
        matrix,
        origin="lower",
        cmap="RdBu",
        vmin=0.0,
        vmax=1.0,
        extent=(low - 0.5, high + 0.5, low - 0.5, high + 0.5),
        aspect="auto",
    )
    figure.colorbar(image, ax=axes, label="P(row wins)")
    axes.set_xlabel("CS of the column fighter")
    axes.set_ylabel("CS of the row fighter")
    axes.set_title("MSV: chance that the row fighter wins (exact)")
    _save(figure, path)
    plt.close(figure)


def _bar(value: Fraction | None) -> float:
    """A bar's height; NaN (no bar) for rounds that never come."""
    return math.nan if value is None else float(value)


def plot_comparison(cells: Sequence[Cell], path: str | Path) -> None:
    """Bars of the rounds-to-15 rows: printed, by the text's method, exact (and free attacks)."""
    plt = _pyplot()
    rows = [c for c in cells if c.stat == "rounds"]
    labels = [c.column for c in rows]
    series = {
        "printed": [float(c.printed_value) for c in rows],
        "text's method": [_bar(c.method) for c in rows],
        "exact": [_bar(c.exact) for c in rows],
        "exact, free attacks": [_bar(c.exact_free or c.exact) for c in rows],
    }
    figure, axes = plt.subplots(figsize=(9, 4))
    width = 0.2
    for i, (name, values) in enumerate(series.items()):
        axes.bar(np.arange(len(rows)) + (i - 1.5) * width, values, width, label=name)
    axes.set_xticks(np.arange(len(rows)), labels)
    axes.set_ylabel("average rounds to 15 damage")
    axes.set_title("MSV text's tables: printed vs method vs exact")
    axes.legend()
    _save(figure, path)
    plt.close(figure)


def plot_hit_distribution(distribution: Mapping[int, Fraction], path: str | Path) -> None:
    """Bar chart of SRP's exact P(hits = k) for one attack, saved as PNG at `path`."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6, 3.5))
    keys = list(distribution)
    axes.bar(keys, [float(distribution[k]) for k in keys])
    axes.set_xlabel("hits per attack")
    axes.set_ylabel("probability")
    axes.set_title("SRP: exact hits per attack")
    try:
        _save(figure, path)
    finally:
        plt.close(figure)


def plot_difference_matrix(
    skills: Sequence[int], matrix: np.ndarray, scale: float, path: str | Path, title: str
) -> None:
    """Heat map of a difference of two win matrices (-scale red .. +scale blue), as PNG."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 6))
    low, high = skills[0], skills[-1]
    image = axes.imshow(
        matrix,
        origin="lower",
        cmap="RdBu",
        vmin=-scale,
        vmax=scale,
        extent=(low - 0.5, high + 0.5, low - 0.5, high + 0.5),
        aspect="auto",
    )
    figure.colorbar(image, ax=axes, label="change in P(row wins)")
    axes.set_xlabel("CS of the column fighter")
    axes.set_ylabel("CS of the row fighter")
    axes.set_title(title)
    _save(figure, path)
    plt.close(figure)
