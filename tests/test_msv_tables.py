"""MSV-10: the text's three tables, printed vs the text's method vs exact."""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path

from referee.analysis.msv_outcomes import attack_outcomes
from referee.analysis.msv_tables import comparison_cells, round_half_up, rounds_to_reach
from referee.analysis.msv_text import PRINTED
from referee.systems.msv.rules import MsvRules

GOLDEN = tomllib.loads(Path("tests/golden/msv_text.toml").read_text(encoding="utf-8"))
CELLS = {(c.table, c.stat, c.column): c for c in comparison_cells()}


def test_printed_figures_match_the_golden_copy() -> None:
    for table, stats in PRINTED.items():
        for stat, cells in stats.items():
            assert list(cells) == GOLDEN[table][stat], (table, stat)


def test_new_system_rows_are_reproduced_by_the_method() -> None:
    # MSV-10: "Stats from the 1d100 system": 1.1 .. 2.1 damage, 14 .. 7 rounds, all as printed
    for cs in (50, 55, 60, 65, 70, 75):
        for stat in ("hit", "damage", "rounds"):
            assert not CELLS["new", stat, f"s{cs}"].differs
    assert CELLS["new", "damage", "s50"].method == Fraction(11, 10)


def test_differences_are_marked_exactly_where_the_text_is_off() -> None:
    # MSV-9: 2d21 damage printed 0.84, Rhy'Din gives 6/7 = 0.857
    cell = CELLS["old", "damage", "2d21"]
    assert (cell.printed, cell.method, cell.differs) == ("0.84", Fraction(6, 7), True)
    marked = sorted(key for key, c in CELLS.items() if c.differs)
    assert marked == sorted(
        [("old", "hit", "2d22")]  # 59.504% printed 59%
        + [("old", "damage", f"2d{n}") for n in (21, 22, 23, 24, 25)]
        + [("old", "rounds", f"2d{n}") for n in (20, 23, 24)]
        + [("ratio", "hit", c) for c in ("s55/2d21", "s60/2d22", "s75/2d25")]
        + [("ratio", "damage", f"s{cs}/2d{n}") for cs, n in ((55, 21), (60, 22), (65, 23),
                                                              (70, 24), (75, 25))]
    )  # fmt: skip
    # 1.08 is not even 75 / 69 = 1.087 of the printed figures; the damage ratios are
    assert [k for k, c in CELLS.items() if c.inconsistent] == [("ratio", "hit", "s75/2d25")]


def test_rounds_method_and_exact() -> None:
    # method: 15 / damage rounded half up; 2d21: 15 / (6/7) = 17.5 -> 18 as printed
    assert CELLS["old", "rounds", "2d21"].method == 18
    assert round_half_up(Fraction(35, 2)) == 18
    # exact expected rounds to 15 damage (three decimals, by the engine)
    assert [round(float(CELLS["new", "rounds", f"s{cs}"].exact), 3) for cs in (50, 60, 75)] == [
        14.38, 10.666, 7.684,
    ]  # fmt: skip
    assert round(float(CELLS["new", "rounds", "s60"].exact_free or 0), 3) == 10.133


def test_rounds_to_reach_brute_force() -> None:
    # oracle: push mass forward roll by roll for CS 100 (no misses, so a finite tree)
    rules = MsvRules()
    outcomes = attack_outcomes(100, rules.without_criticals())
    live, expected = {0: Fraction(1)}, Fraction(0)
    rounds = 0
    while live:
        rounds += 1
        nxt: dict[int, Fraction] = {}
        for taken, mass in live.items():
            for out, p in outcomes.items():
                if taken + out.damage >= 15:
                    expected += rounds * mass * p
                else:
                    nxt[taken + out.damage] = nxt.get(taken + out.damage, Fraction(0)) + mass * p
        live = nxt
    assert rounds_to_reach(outcomes, 15) == expected


def test_a_pack_whose_every_roll_is_a_free_attack_has_no_mean_action_damage() -> None:
    """`success = "1"`, `critical = "1"` (MSV-4 stun-free-attack): an action never ends on its
    own, so its mean damage is unbounded ("-", None) and it deals the 15 damage in one round;
    with criticals as plain hits every roll hits for ceil(roll / 15) capped at 4 (MSV-3)."""
    from referee.systems.msv.rules import rules_from_mapping

    cells = {
        (c.table, c.stat, c.column): c
        for c in comparison_cells(rules_from_mapping({"success": "1", "critical": "1"}))
    }
    damage = cells["new", "damage", "s50"]
    assert (damage.exact, damage.exact_free) == (Fraction(31, 10), None)
    assert cells["ratio", "damage", "s50/2d20"].exact_free is None
    rounds = cells["new", "rounds", "s50"]
    faces = [min(4, -(-roll // 15)) for roll in range(1, 101)]
    expected = {x: Fraction(0) for x in range(15, 19)}  # rounds still to go at damage x
    for x in range(14, -1, -1):
        expected[x] = 1 + sum((expected[x + d] for d in faces), Fraction(0)) / 100
    assert (rounds.exact, rounds.exact_free) == (expected[0], Fraction(1))
