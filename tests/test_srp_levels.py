"""SRP levels (SRP-5) and the high-skill bonus (SRP-8), against the text's tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from referee.cli.main import cli
from referee.errors import RuleError
from referee.systems.srp.levels import (
    Level,
    high_skill_bonus,
    level,
    level_counts,
    level_ranges,
    level_table,
)

GOLDEN = Path(__file__).parent / "golden" / "srp_levels.txt"


def golden_lines() -> list[str]:
    return [ln for ln in GOLDEN.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]


def expand(span: str) -> tuple[int, int] | None:
    if span == "--":
        return None
    low, _, high = span.partition("-")
    return int(low), int(high or low)


def test_cli_table_to_30_is_the_texts_table() -> None:  # SRP-5
    result = CliRunner().invoke(cli, ["srp", "levels", "--max", "30"])
    assert result.exit_code == 0
    assert result.output.splitlines() == golden_lines()


def test_every_skill_1_to_30_matches_the_golden_row() -> None:  # SRP-5
    for row in golden_lines()[1:]:
        skills, special, critical = row.split("\t")
        first, last = expand(skills) or (0, 0)
        for skill in range(first, last + 1):
            assert level_ranges(skill) == (expand(special), expand(critical)), skill


def test_default_table_extends_past_30_without_merging_row_30() -> None:
    result = CliRunner().invoke(cli, ["srp", "levels"])
    lines = result.output.splitlines()
    assert lines[: len(golden_lines())] == golden_lines()
    assert lines[len(golden_lines()) :] == [
        "31-32\t4-10\t1-3",
        "33-35\t4-11\t1-3",
        "36-38\t4-12\t1-3",
        "39\t4-13\t1-3",
        "40\t5-13\t1-4",
    ]


def test_levels_json() -> None:
    result = CliRunner().invoke(cli, ["srp", "levels", "--max", "9", "--json"])
    assert result.exit_code == 0
    assert '"skills": "9"' in result.output and '"special": "1-3"' in result.output


@pytest.mark.parametrize("bad", ["0", "101", "-3"])
def test_levels_bad_max_is_one_line_exit_2(bad: str) -> None:
    result = CliRunner().invoke(cli, ["srp", "levels", "--max", bad])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and repr(int(bad)) in result.stderr


def test_twenty_always_fails_attack_and_by_default_defense() -> None:  # SRP-5
    assert level(20, 100) is Level.FAILURE
    assert level(20, 25, twenty_fails=False) is Level.SUCCESS
    assert level(19, 25) is Level.SUCCESS


@pytest.mark.parametrize(
    ("roll", "skill", "expected"),
    [
        (1, 9, Level.SPECIAL),  # no critical below 10
        (3, 9, Level.SPECIAL),
        (4, 9, Level.SUCCESS),
        (1, 10, Level.CRITICAL),
        (2, 20, Level.CRITICAL),
        (3, 20, Level.SPECIAL),
        (6, 20, Level.SPECIAL),
        (7, 20, Level.SUCCESS),
        (1, 1, Level.SPECIAL),  # minimum special 1
        (2, 1, Level.FAILURE),
        (1, 0, Level.FAILURE),  # skill 0 never succeeds
        (1, -4, Level.FAILURE),
    ],
)
def test_level_examples(roll: int, skill: int, expected: Level) -> None:
    assert level(roll, skill) is expected


@given(st.integers(1, 20), st.integers(-10, 100))
def test_level_order_matches_thresholds(roll: int, skill: int) -> None:
    lvl = level(roll, skill)
    assert (lvl >= Level.SUCCESS) == (roll <= skill and roll != 20)
    if lvl is Level.CRITICAL:
        assert roll <= skill // 10
    if lvl >= Level.SPECIAL:
        assert roll <= max(1, skill // 3)


@given(st.integers(0, 100))
def test_level_counts_add_up(skill: int) -> None:
    counts = level_counts(skill)
    assert sum(counts) == 20
    assert counts[0] == 20 - min(skill, 19)


def test_high_skill_bonus_table() -> None:  # SRP-8, the text's table 21-40
    expected = {
        range(0, 21): 0,
        range(21, 26): 1,
        range(26, 31): 2,
        range(31, 36): 3,
        range(36, 41): 4,
        range(41, 46): 5,
    }
    for skills, bonus in expected.items():
        for skill in skills:
            assert high_skill_bonus(skill) == bonus, skill


def test_table_size_is_checked() -> None:
    with pytest.raises(RuleError, match="101"):
        level_table(101)
