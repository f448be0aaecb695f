"""One self-contained HTML page about an SRP pack: its keys, levels, damage bonuses, duels
and battles beside another pack's (RULINGS SRP-5, 8, 9). Inline CSS and SVG only.

>>> from referee.systems.srp.rules import DEFAULT_RULES
>>> page = build_srp_report(DEFAULT_RULES, DEFAULT_RULES, "text", "text", skills=[10, 20])
>>> page.startswith("<!DOCTYPE html>") and "<script" not in page and page.count("<svg") == 2
True
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

from referee.analysis.srp_odds import duel_odds, hit_distribution
from referee.lab.report import STYLE, _table, battles_table, pack_table
from referee.lab.srp_battle import exact_battle, parse_srp_side
from referee.lab.svg import heat_map_svg
from referee.systems.srp.levels import Level
from referee.systems.srp.melee import Attack, Defense
from referee.systems.srp.rules import SrpRules

#: The duel fighters of the heat maps: weapon +3, AP 3, defense = own skill, 10 hits.
DUEL_DAMAGE, DUEL_ARMOR, DUEL_HITS = 3, 3, 10
#: The battles every report shows (small enough to be exact).
BATTLES = (
    (
        "Ann=skill=15 damage=3 hits=8 armor=2",
        "Orc=skill=11 damage=2 hits=6; Orc=skill=11 damage=2 hits=6",
    ),
    (
        "Bran=skill=22 damage=4 hits=9 armor=4",
        "Cara=skill=14 damage=2 hits=7; Dorn=skill=14 damage=2 hits=7",
    ),
    (
        "Eda=skill=12 damage=3 hits=7 codes=S*",
        "Fen=skill=16 damage=2 hits=8 defend=shield shield=medium",
    ),
)


def duel_matrix(skills: Sequence[int], rules: SrpRules) -> np.ndarray:
    """P(row beats column) in a duel of two like fighters of those skills, each attacking
    first half the time (exact, from `odds.duel_odds`)."""
    n = len(skills)
    out = np.zeros((n, n))
    dists = {
        (a, b): hit_distribution(
            Attack(skill=a, weapon_damage=DUEL_DAMAGE), Defense(skill=b, armor=DUEL_ARMOR), rules
        )
        for a in skills
        for b in skills
    }
    for i, a in enumerate(skills):
        for j, b in enumerate(skills):
            first = duel_odds(dists[a, b], dists[b, a], DUEL_HITS, DUEL_HITS, rules).first
            second = duel_odds(dists[b, a], dists[a, b], DUEL_HITS, DUEL_HITS, rules).second
            out[i, j] = float((first + second) / 2)
    return out


def _levels_table(pack: SrpRules, against: SrpRules, top: int = 40) -> str:
    """Faces of 20 that give success / special / critical, and the damage bonuses, by skill."""

    def cell(rules: SrpRules, skill: int) -> str:
        _, hit, spec, crit = rules.level_counts(skill)
        bonus = rules.skill_bonus(skill)
        extra = (
            rules.level_damage(Level.SPECIAL, skill),
            rules.level_damage(Level.CRITICAL, skill),
        )
        return f"{hit}/{spec}/{crit}, +{bonus}, +{extra[0]}/+{extra[1]}"

    rows = []
    for skill in range(1, top + 1):
        mine, theirs = cell(pack, skill), cell(against, skill)
        mark = "" if mine == theirs else " class='up'"
        rows.append([str(skill), f"<span{mark}>{escape(mine)}</span>", escape(theirs)])
    head = ["skill", "this pack", "against"]
    return _table(head, rows)


def _battles(pack: SrpRules, against: SrpRules) -> str:
    rows = []
    for one, two in BATTLES:
        first, second = parse_srp_side(one), parse_srp_side(two)
        rows.append(
            (one, two, exact_battle(first, second, pack), exact_battle(first, second, against))
        )
    return battles_table(rows)


def build_srp_report(
    pack: SrpRules,
    against: SrpRules,
    pack_name: str,
    against_name: str,
    skills: Sequence[int] = tuple(range(5, 41, 5)),
) -> str:
    """The whole page as one string."""
    mine, theirs = duel_matrix(skills, pack), duel_matrix(skills, against)
    change = mine - theirs
    scale = float(np.max(np.abs(change))) or 1.0
    title = f"SRP balance report: {pack_name} against {against_name}"
    return "".join(
        [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
            f"<h1>{escape(title)}</h1>",
            "<p>Every figure is exact (RULINGS.md SRP-4..SRP-9, SRP-16, SRP-19). Made by "
            "<code>referee lab report --system srp</code>.</p>",
            "<h2>The pack</h2>",
            pack_table(pack.as_dict(), against.as_dict()),
            "<h2>Levels and damage bonuses (SRP-5, SRP-8)</h2>",
            "<p>Per skill: faces of the d20 that give a plain success / a special / a critical "
            "(for an attack), the high-skill damage bonus, and what a special / critical "
            "adds.</p>",
            _levels_table(pack, against),
            "<h2>Who beats whom</h2>",
            f"<p>Duels of like fighters (weapon +{DUEL_DAMAGE}, AP {DUEL_ARMOR}, weapon "
            f"defense at their own skill, {DUEL_HITS} hits), each attacking first half the "
            "time.</p><div class='maps'>",
            heat_map_svg(skills, mine, f"P(row beats column): {pack_name}", label="skill"),
            heat_map_svg(skills, change, f"change from {against_name}", -scale, scale, 4, "skill"),
            "</div>",
            "<h2>A few battles</h2><p>Exact, focus-weakest targets, listed turn order unless "
            "the pack rolls it.</p>",
            _battles(pack, against),
            "</body></html>",
        ]
    )
