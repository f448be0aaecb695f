"""One self-contained HTML page about a pack: its rules, the text's tables, heat maps, battles.

No outside assets and no scripts: inline CSS and inline SVG only, so the file can be mailed.

>>> from referee.systems.msv.rules import default_rules
>>> page = build_report(default_rules(), default_rules(), "text", "text", skills=[50, 75])
>>> page.startswith("<!DOCTYPE html>") and "<script" not in page and "<svg" in page
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from html import escape
from typing import Any

import numpy as np

from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_text import RATIO_TITLES, STAT_TITLES
from referee.lab.battle import BattleResult, exact_battle
from referee.lab.battle_result import BattleFigures
from referee.lab.msv_packs import build_ladder, compare_rows
from referee.lab.svg import heat_map_svg
from referee.systems.msv.rules import MsvRules

#: The battles every report shows (small enough to be exact).
BATTLES: tuple[tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]], ...] = (
    ((("Tarl", 65),), (("Orc", 50), ("Orc", 50))),
    ((("Woman", 50), ("Warrior", 60)), (("Legend", 75),)),
    ((("Veteran", 65), ("Man", 55)), (("Elite", 70),)),
)

STYLE = """
body{font-family:sans-serif;max-width:980px;margin:2em auto;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 8px;
text-align:right}th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}
code{background:#f4f4f4;padding:0 3px}.maps{display:flex;gap:2em;flex-wrap:wrap}
.up{color:#2166ac}.down{color:#b2182b}
"""


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{cells}</tr>{body}</table>"


def pack_table(mine: Mapping[str, object], theirs: Mapping[str, object]) -> str:
    """Two packs' keys side by side (a key only one has: "-" for the other)."""
    keys = list(dict.fromkeys([*mine, *theirs]))
    rows = [
        [
            f"<code>{escape(k)}</code>",
            escape(str(mine.get(k, "-"))),
            escape(str(theirs.get(k, "-"))),
        ]
        for k in keys
    ]
    return _table(["key", "this pack", "against"], rows)


def _number(value: float | None, stat: str) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if stat == "hit" and value > 2 else f"{value:.3f}"


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _compare_tables(pack: MsvRules, against: MsvRules) -> str:
    parts = []
    for row in compare_rows(pack, against):
        title = RATIO_TITLES[row.stat] if row.table == "ratio" else STAT_TITLES[row.stat]
        lines = [
            ["printed in the text", *map(escape, row.printed)],
            ["against", *(_number(_float(x), row.stat) for x in row.against)],
            ["this pack", *(_number(_float(x), row.stat) for x in row.pack)],
        ]
        if any(x is not None for x in row.pack_free):
            free = [_float(x) for x in row.pack_free]
            lines.append(["this pack, with free attacks", *(_number(x, row.stat) for x in free)])
        parts.append(f"<h3>{escape(title)}</h3>" + _table(["", *row.columns], lines))
    return "".join(parts)


def battles_table(rows: Iterable[tuple[str, str, BattleFigures[Any], BattleFigures[Any]]]) -> str:
    """Battles under two packs, a row each: the sides as written, P(side 1 wins) under both
    and the change, and the expected rounds under both."""
    body = []
    for one, two, mine, theirs in rows:
        change = mine.p_first_side - theirs.p_first_side
        css = "up" if change > 0 else "down" if change < 0 else ""
        body.append([
            escape(one), escape(two), f"{mine.p_first_side:.4f}", f"{theirs.p_first_side:.4f}",
            f'<span class="{css}">{change:+.4f}</span>', f"{mine.expected_rounds:.2f}",
            f"{theirs.expected_rounds:.2f}",
        ])  # fmt: skip
    head = ["side 1", "side 2", "P(side 1 wins)", "against", "change", "rounds", "against"]
    return _table(head, body)


def _battles(pack: MsvRules, against: MsvRules) -> str:
    def names(result: BattleResult, side: int) -> str:
        return ", ".join(f"{f.name} ({f.cs})" for f in result.fighters if f.side == side)

    rows = []
    for first, second in BATTLES:
        mine = exact_battle(first, second, pack, "focus-weakest")
        theirs = exact_battle(first, second, against, "focus-weakest")
        rows.append((names(mine, 0), names(mine, 1), mine, theirs))
    return battles_table(rows)


def build_report(
    pack: MsvRules,
    against: MsvRules,
    pack_name: str,
    against_name: str,
    skills: Sequence[int] = tuple(range(40, 101, 5)),
) -> str:
    """The whole page as one string."""
    mine, theirs = win_matrix(skills, pack), win_matrix(skills, against)
    change = mine - theirs
    scale = float(np.nanmax(np.abs(change))) if np.isfinite(change).any() else 0.0
    scale = scale or 1.0
    ladder = build_ladder(pack)
    steps = [
        [f"CS {s.high} vs CS {s.low}", f"{s.p_higher_wins:.3f}", f"{100 * s.edge_per_point:+.2f}"]
        for s in ladder.steps
    ]
    title = f"Balance report: {pack_name} against {against_name}"
    return "".join(
        [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
            f"<h1>{escape(title)}</h1>",
            "<p>Every figure is exact (the MSV Markov chain, RULINGS.md MSV-1..MSV-10) unless "
            "it says otherwise. Made by <code>referee lab report</code>.</p>",
            "<h2>The pack</h2>",
            pack_table(pack.to_json(), against.to_json()),
            "<h2>The text's tables (MSV-10)</h2>",
            "<p>Hit % and damage per round by the text's method (criticals as plain hits); "
            "rounds: the exact expected rounds to 15 damage. Ratios to the old 2d20..2d25 "
            "system (MSV-9).</p>",
            _compare_tables(pack, against),
            "<h2>Who beats whom</h2><div class='maps'>",
            heat_map_svg(skills, mine, f"P(row beats column): {pack_name}"),
            heat_map_svg(skills, change, f"change from {against_name}", -scale, scale, 4),
            "</div>",
            f"<p>The change runs from {float(np.nanmin(change)):+.4f} to "
            f"{float(np.nanmax(change)):+.4f}; blue: the row fighter does better under this "
            "pack.</p>",
            "<h2>The ladder</h2>",
            _table(["step", "P(higher wins)", "win chance per CS point (%)"], steps),
            "<h2>A few battles</h2><p>Exact, focus-weakest targets.</p>",
            _battles(pack, against),
            "</body></html>",
        ]
    )
