"""MSV-5 initiative: every roll and reroll recorded, both tie-break options, bounded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.errors import LimitError, RuleError
from referee.rng import ScriptedRng, SeededRng
from referee.systems.msv.initiative import roll_initiative
from referee.systems.msv.rules import rules_from_mapping

RAW = rules_from_mapping({"tie_break": "higher-raw-roll"})


def test_two_fighters_text_exactly() -> None:
    # MSV-5: highest effect first. Tarl 47 -> 4, Pa-Kur 12 -> 1.
    result = roll_initiative([("Tarl", 65), ("Pa-Kur", 70)], ScriptedRng([47, 12]))
    assert result.to_json() == {
        "order": ["Tarl", "Pa-Kur"],
        "rounds": [
            {
                "round": 1,
                "group": ["Tarl", "Pa-Kur"],
                "rolls": [
                    {"name": "Tarl", "cs": 65, "roll": 47, "effect": 4},
                    {"name": "Pa-Kur", "cs": 70, "roll": 12, "effect": 1},
                ],
                "ties": [],
                "unrollable": False,
            }
        ],
    }


def test_both_fail_reroll_then_equal_effect_reroll() -> None:
    # MSV-5: both fail (80 > 65, 90 > 70) -> reroll; 50 and 60 both effect 4 -> reroll; then 3 v 20
    rng = ScriptedRng([80, 90, 50, 60, 3, 20])
    result = roll_initiative([("Tarl", 65), ("Pa-Kur", 70)], rng)
    assert result.order == ("Pa-Kur", "Tarl")
    assert [[(r.name, r.roll, r.effect) for r in x.rolls] for x in result.rounds] == [
        [("Tarl", 80, 0), ("Pa-Kur", 90, 0)],
        [("Tarl", 50, 4), ("Pa-Kur", 60, 4)],
        [("Tarl", 3, 1), ("Pa-Kur", 20, 2)],
    ]
    assert [x.ties for x in result.rounds] == [(("Tarl", "Pa-Kur"),), (("Tarl", "Pa-Kur"),), ()]
    assert rng.remaining == 0


def test_higher_raw_roll_option() -> None:
    # MSV-5 option: 50 and 60 both effect 4; the higher raw roll (60) goes first, no reroll
    result = roll_initiative([("Tarl", 65), ("Pa-Kur", 70)], ScriptedRng([50, 60]), RAW)
    assert result.order == ("Pa-Kur", "Tarl")
    assert len(result.rounds) == 1
    # failures are not compared: both fail -> reroll
    result = roll_initiative([("Tarl", 65), ("Pa-Kur", 70)], ScriptedRng([99, 71, 5, 4]), RAW)
    assert result.order == ("Tarl", "Pa-Kur")
    assert len(result.rounds) == 2


def test_three_fighters_only_the_tied_group_rerolls() -> None:
    # A 47 (4), B 50 (4), C 12 (1): A and B tie and reroll among themselves; C stays last.
    rng = ScriptedRng([47, 50, 12, 16, 1])
    result = roll_initiative([("A", 65), ("B", 65), ("C", 65)], rng)
    assert result.order == ("A", "B", "C")
    assert [x.group for x in result.rounds] == [("A", "B", "C"), ("A", "B")]
    assert result.rounds[0].ties == (("A", "B"),)


def test_cs_zero_group_is_kept_in_given_order_without_rolling() -> None:
    # CS 0 never succeeds (MSV-2): a group of CS 0 fighters would reroll forever.
    rng = ScriptedRng([99, 98, 4])
    result = roll_initiative([("A", 0), ("B", 0), ("C", 5)], rng)
    assert result.order == ("C", "A", "B")
    assert result.rounds[-1].unrollable
    assert result.rounds[-1].rolls == ()
    assert rng.remaining == 0
    solo = roll_initiative([("A", 0), ("B", 0)], ScriptedRng([]))
    assert solo.order == ("A", "B")


def test_rounds_are_bounded() -> None:
    with pytest.raises(LimitError, match="not settled after 3 rounds"):
        roll_initiative([("A", 1), ("B", 1)], ScriptedRng([50] * 100), max_rounds=3)


@pytest.mark.parametrize(
    ("fighters", "message"),
    [
        ([("A", 5), ("A", 6)], "fighter 'A' is listed twice"),
        ([("", 5)], "a fighter needs a name"),
        ([("A", -5)], "CS must be a whole number >= 0"),
        ([], "at least one fighter"),
    ],
)
def test_bad_fighters(fighters: list[tuple[str, int]], message: str) -> None:
    with pytest.raises(RuleError, match=message):
        roll_initiative(fighters, ScriptedRng([]))


@given(
    skills=st.lists(st.integers(0, 120), min_size=1, max_size=6),
    seed=st.integers(0, 2**32),
    raw=st.booleans(),
)
def test_order_is_a_permutation_sorted_by_last_key(skills: list[int], seed: int, raw: bool) -> None:
    fighters = [(f"F{i}", cs) for i, cs in enumerate(skills)]
    result = roll_initiative(fighters, SeededRng(seed), RAW if raw else None)
    assert sorted(result.order) == sorted(name for name, _ in fighters)
    # every round after the first rolls exactly a group that tied before
    tied = {t for r in result.rounds for t in r.ties}
    for record in result.rounds[1:]:
        assert record.group in tied
