"""Rolling: scripted dice with exact totals and rendered lines, throws, explosions, oracles."""

from __future__ import annotations

import itertools
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.dice import (
    Compare,
    Dice,
    Die,
    Keep,
    KeepMode,
    Limits,
    Success,
    bounds,
    parse,
    render,
    roll,
    roll_group,
    roll_text,
)
from referee.errors import LimitError, ScriptError
from referee.rng import (
    RecordingRng,
    ScriptedRng,
    SeededRng,
    Throw,
    VerifiableRng,
    verifiable_faces,
)
from tests.depth import examples
from tests.dice_reference import reference_group

SCRIPTED = [
    ("2d20+1d6", [14, 3, 5], "2d20+1d6 = [14, 3] + [5] = 22", 22),
    ("1d100", [47], "1d100 = [47] = 47", 47),
    ("d%", [100], "1d100 = [100] = 100", 100),
    ("4d6kh3", [6, 5, 4, 1], "4d6kh3 = [6, 5, 4, ~~1~~] = 15", 15),
    ("4d6k3", [1, 5, 4, 6], "4d6kh3 = [~~1~~, 5, 4, 6] = 15", 15),
    ("4d6dl1", [3, 1, 1, 6], "4d6dl1 = [3, ~~1~~, 1, 6] = 10", 10),  # earlier 1 dropped
    ("4d6kh2", [5, 6, 5, 5], "4d6kh2 = [5, 6, ~~5~~, ~~5~~] = 11", 11),  # earlier 5 kept
    ("2d20kl1", [17, 4], "2d20kl1 = [~~17~~, 4] = 4", 4),
    ("5d6dh2", [2, 6, 3, 6, 1], "5d6dh2 = [2, ~~6~~, 3, ~~6~~, 1] = 6", 6),
    ("3d6kh5", [2, 3, 4], "3d6kh5 = [2, 3, 4] = 9", 9),
    ("3d6dl0", [2, 3, 4], "3d6dl0 = [2, 3, 4] = 9", 9),
    ("2d6!", [6, 2, 3], "2d6! = [6!, 2, 3] = 11", 11),
    ("2d6!", [6, 6, 6, 1, 2], "2d6! = [6!, 6!, 6!, 1, 2] = 21", 21),
    ("3d6!kh2", [6, 1, 2, 4], "3d6!kh2 = [6!, ~~1~~, ~~2~~, 4] = 10", 10),
    ("8d10>=7", [7, 1, 10, 6, 3, 9, 2, 7], "8d10>7 = [7*, 1, 10*, 6, 3, 9*, 2, 7*] = 4", 4),
    ("3d6<3", [1, 3, 2], "3d6<3 = [1*, 3*, 2*] = 3", 3),  # roll20: at most 3
    ("3d6>4", [4, 5, 6], "3d6>4 = [4*, 5*, 6*] = 3", 3),  # roll20: at least 4
    ("3d6<=4", [4, 5, 6], "3d6<4 = [4*, 5, 6] = 1", 1),
    ("3d6!6>=5", [6, 2, 5, 3], "3d6!6>5 = [6!*, 2, 5*, 3] = 2", 2),
    ("3d6!>5", [6, 2, 5, 3, 1], "3d6!>5 = [6!, 2, 5!, 3, 1] = 17", 17),
    ("4d10kh2>=8", [9, 8, 10, 1], "4d10kh2>8 = [9*, ~~8~~, 10*, ~~1~~] = 2", 2),
    ("1+2*3", [], "1+2*3 = 1 + 2 * 3 = 7", 7),
    ("(1+2)*3", [], "(1+2)*3 = (1 + 2) * 3 = 9", 9),
    ("1-2-3", [], "1-2-3 = 1 - 2 - 3 = -4", -4),
    ("1-(2-3)", [], "1-(2-3) = 1 - (2 - 3) = 2", 2),
    ("-1d6+10", [4], "-1d6+10 = -[4] + 10 = 6", 6),
    ("2*-1d4", [3], "2*-1d4 = 2 * -[3] = -6", -6),
    ("-(1d6+2)*3", [2], "-(1d6+2)*3 = -([2] + 2) * 3 = -12", -12),
    ("(2d6+3)*2-1d4", [5, 6, 2], "(2d6+3)*2-1d4 = ([5, 6] + 3) * 2 - [2] = 26", 26),
    ("1d1", [1], "1d1 = [1] = 1", 1),
]
# d20's README forms read by the quick readers (labels, sets, a negated parenthesis), as d20.
SCRIPTED_D20 = [
    ("4d6kh3", [6, 1, 5, 4], 15),
    ("2d6ro<3", [1, 5, 4], 9),  # the 1 thrown again, once
    ("2d6ro<3", [2, 1, 6], 7),  # again once: the second 1 stands
    ("(1d4 + 1, 3, 2d6kl1)kh1", [3, 6, 2], 4),  # items 4, 3, 2
    ("(1d4 [a] + 1, 3, 2d6kl1 [b])kh1", [1, 5, 4], 4),  # items 2, 3, 4
    ("(1 [one], 2 [two], 3 [three])", [], 6),
    ("(1 [one], 2 [two], 3 [three])kh1", [], 3),
    ("-(1d8 + 3) [healing]", [5], -8),
    ("-(1d8 + 3) [healing] + 2", [8], -9),
    ("-1d8 [cold] + 4 - (3, 1d4)kh1", [2, 4], -2),  # -2 + 4 - 4
    ("-1d8 + 4 - (3, 1d4)kh1", [7, 1], -6),  # -7 + 4 - 3
    ("3d6 [fire] + 1d4 [piercing]", [1, 2, 3, 4], 10),
    ("4d6e6kh3", [6, 2, 3, 1, 5], 14),  # 6 explodes into 2: keeps 6, 3, 5
    ("8d6mi2", [1, 1, 2, 3, 4, 5, 6, 1], 26),
]


@pytest.mark.parametrize(("text", "faces", "total"), SCRIPTED_D20)
def test_scripted_d20_readme_rolls(text: str, faces: list[int], total: int) -> None:
    rng = ScriptedRng(faces)
    assert roll_text(text, rng=rng, dialect="d20").total == total
    assert rng.remaining == 0


@pytest.mark.parametrize(("text", "faces", "rendered", "total"), SCRIPTED)
def test_scripted_rolls(text: str, faces: list[int], rendered: str, total: int) -> None:
    rng = ScriptedRng(faces)
    result = roll_text(text, rng=rng)
    assert result.total == total
    assert render(result) == rendered
    assert str(result) == rendered
    assert rng.remaining == 0


def test_a_plain_group_is_one_throw_and_an_exploding_die_is_followed_by_its_chain() -> None:
    rec = RecordingRng(ScriptedRng([6, 6, 1, 6, 2, 3, 4, 1, 2]))
    result = roll(parse("3d6!+1d4+2d6"), rng=rec)
    assert [(t.sides, t.faces) for t in rec.throws] == [
        ((6,), (6,)),  # the first die explodes
        ((6,), (6,)),  # into a six, which explodes
        ((6,), (1,)),  # into a one: its chain ends
        ((6,), (6,)),  # the second die explodes
        ((6,), (2,)),
        ((6,), (3,)),  # the third die
        ((4,), (4,)),  # the next group: one throw
        ((6, 6), (1, 2)),  # a plain group: one throw
    ]
    assert result.throws == tuple(rec.throws)
    assert result.total == 6 + 6 + 1 + 6 + 2 + 3 + 4 + 1 + 2
    assert result.dice[:4] == (
        Die(6, 6, True, True),
        Die(6, 6, True, True),
        Die(6, 1),
        Die(6, 6, exploded=True),
    )


def test_verifiable_rolls_take_one_nonce_per_throw() -> None:
    result = roll(parse("2d20+1d6"), rng=VerifiableRng("00" * 32, "table"))
    assert [t.nonce for t in result.throws] == [0, 1]
    assert result.groups[0].faces == verifiable_faces("00" * 32, "table", 0, (20, 20))
    assert result.groups[1].faces == verifiable_faces("00" * 32, "table", 1, (6,))


def test_explosions_stop_at_the_depth_limit() -> None:
    limits = Limits(max_explode_depth=2)
    rng = ScriptedRng([6, 6, 6])
    result = roll(parse("1d6!", limits), rng=rng, limits=limits)
    assert render(result) == "1d6! = [6!, 6!, 6] = 18"
    assert rng.remaining == 0


def test_rolling_under_wider_limits_than_parsed_is_still_bounded() -> None:
    expr = parse("40d6!")  # 40 * 21 = 840 dice at most under the default depth
    deep = Limits(max_explode_depth=30)  # 40 * 31 = 1240 > 1000
    with pytest.raises(LimitError, match=r"dice limit"):
        roll(expr, rng=ScriptedRng([6] * 1000), limits=deep)  # 25 rounds of 40 sixes


def test_scripted_dice_errors_pass_through_unchanged() -> None:
    with pytest.raises(ScriptError):
        roll_text("2d6", rng=ScriptedRng([3]))
    with pytest.raises(ScriptError):
        roll_text("1d6", rng=ScriptedRng([7]))


def test_seeded_rolls_repeat() -> None:
    first = roll_text("4d6kh3+2d20!", rng=SeededRng(11))
    again = roll_text("4d6kh3+2d20!", rng=SeededRng(11))
    assert first == again


def all_outcomes(text: str, limits: Limits) -> set[int]:
    """Brute force: every face sequence of every length, replayed through ScriptedRng."""
    group = parse(text, limits)
    assert isinstance(group, Dice)
    totals: set[int] = set()
    for length in range(group.count, group.most_dice(limits.max_explode_depth) + 1):
        for faces in itertools.product(range(1, group.sides + 1), repeat=length):
            rng = ScriptedRng(faces)
            try:
                result = roll(group, rng=rng, limits=limits)
            except ScriptError:
                continue  # too few faces for this roll
            if rng.remaining == 0:
                totals.add(result.total)
    return totals


ORACLE = [
    "2d3",
    "3d3kh1",
    "3d3kl2",
    "3d3dh1",
    "3d3dl2",
    "2d3!",
    "2d3!kh1",
    "2d3!kl1",
    "2d3!dh1",
    "2d3!dl1",
    "2d3>=2",
    "2d3<=2",
    "2d3!3>=3",
    "2d3!3<=2",
    "2d3!dh1<=2",
    "2d3!dl1<=2",
    "2d3!kh1<=2",
    "2d3!kl1>2",
    "3d3kh2<3",
    "2d3!>3",
    "2d3!3<3",
    "2d3!>2",
]


@pytest.mark.parametrize("text", ORACLE)
def test_bounds_are_exactly_the_extremes_of_every_possible_roll(text: str) -> None:
    limits = Limits(max_explode_depth=1)
    totals = all_outcomes(text, limits)
    assert bounds(parse(text, limits), limits) == (min(totals), max(totals))


def exact_mean_4d6kh3() -> Fraction:
    rolls = list(itertools.product(range(1, 7), repeat=4))
    return Fraction(sum(sum(sorted(r)[1:]) for r in rolls), len(rolls))


def test_4d6kh3_mean_matches_brute_force_and_icepool() -> None:
    exact = exact_mean_4d6kh3()
    assert exact == Fraction(15869, 1296)
    assert Fraction(icepool.d6.highest(4, 3).mean()) == exact


def test_seeded_4d6kh3_mean_is_within_tolerance() -> None:
    # 20,000 rolls; the standard deviation of one roll is about 2.85, so the mean's
    # is about 0.02: a tolerance of 0.1 is five of those.
    rng = SeededRng(2024)
    expr = parse("4d6kh3")
    n = 20_000
    mean = sum(roll(expr, rng=rng).total for _ in range(n)) / n
    assert abs(mean - float(exact_mean_4d6kh3())) < 0.1


REROLL_ONLY = [
    ("3d6r<2kh2", "roll20"),
    ("3d6ro1>4", "roll20"),
    ("3d10r1r10", "roll20"),
    ("3dFro0", "roll20"),
    ("4dFr<0", "roll20"),
    ("2d4r<3", "roll20"),
    ("5d6rr1mi3", "d20"),
    ("4d6ro<3ma5kl2", "d20"),
    ("2d3rr<2", "d20"),
    ("2d6ro<3", "d20"),  # once, no clamp: the short loop when the budget surely holds
    ("4d6ro<3kh3", "d20"),  # the short loop, then keep
    ("3d8ro>6", "d20"),  # the short loop, every die standing counted
    ("4d8ro1kh3", "roll20"),
    ("1d20ro1", "d20"),  # the one-test reroll-once loop of roll_group
    ("6d4ro>3", "d20"),
    ("3d6ro<2sd", "roll20"),  # sorting is display only: still the short loop
]


def rolled(group: Dice, seed: int, limits: Limits, dice: int, *, fast: bool) -> object:
    """One roll of `group` from `seed` with a budget of `dice`, by `roll_group` (the plan's
    group step, `fast`) or by the brute-force reference (`tests/dice_reference.py`): the
    result, the budget left and every throw; or the refusal and the throws made before it
    (the budget left after a refusal is not used)."""
    rng, budget = RecordingRng(SeededRng(seed)), [dice]
    try:
        if fast:
            result: object = roll_group(group, rng, limits, budget)
        else:
            result = reference_group(group, rng, limits, budget)
    except LimitError as err:
        return str(err), rng.throws
    return result, budget, rng.throws


@settings(max_examples=examples(150), deadline=None)
@given(
    case=st.sampled_from(REROLL_ONLY),
    seed=st.integers(0),
    depth=st.integers(0, 3),
    dice=st.integers(1, 12),
)
def test_a_group_that_only_rerolls_throws_as_the_reference(
    case: tuple[str, str], seed: int, depth: int, dice: int
) -> None:
    """Same throws (die by die, each followed by its rerolls), kept, values, total; the same
    refusal after the same die when the dice budget runs out; else the same budget left."""
    text, dialect = case
    limits = Limits(max_explode_depth=depth, max_dice=dice)
    group = parse(text, dialect=dialect)
    assert isinstance(group, Dice)

    assert rolled(group, seed, limits, dice, fast=True) == rolled(
        group, seed, limits, dice, fast=False
    )


@settings(max_examples=examples(150), deadline=None)
@given(
    count=st.integers(1, 8),
    sides=st.sampled_from([1, 2, 6, 20]),
    spelling=st.sampled_from(["", "kh", "kl", "dh", "dl"]),
    keep=st.integers(0, 9),
    data=st.data(),
)
def test_a_group_that_only_keeps_is_one_throw_kept_as_the_rule_says(
    count: int, sides: int, spelling: str, keep: int, data: st.DataObject
) -> None:
    """One throw of every die; kept: the N highest or lowest (or all but them), equal faces
    taken in throw order (a stable sort); the value the sum of the kept faces."""
    faces = data.draw(st.lists(st.integers(1, sides), min_size=count, max_size=count))
    group = parse(f"{count}d{sides}{spelling}{keep if spelling else ''}")
    assert isinstance(group, Dice)
    budget = [count + 1]
    rolled = roll_group(group, RecordingRng(ScriptedRng(faces)), Limits(), budget)
    high = spelling in ("kh", "dh")
    order = sorted(range(count), key=lambda i: (-faces[i] if high else faces[i], i))
    if spelling in ("kh", "kl"):
        kept = {i for i in order[:keep]}
    elif spelling:
        kept = set(range(count)) - set(order[:keep])
    else:
        kept = set(range(count))
    flags = tuple(i in kept for i in range(count))
    assert rolled.throws == (Throw((sides,) * count, tuple(faces)),)
    assert (rolled.kept, rolled.exploded) == (flags, (False,) * count)
    assert rolled.value == sum(f for f, k in zip(faces, flags, strict=True) if k)
    assert (rolled.rerolled, rolled.values, rolled.joined) == ((), (), ())
    assert budget == [1]
    with pytest.raises(LimitError, match=f"rolling {count} more d{sides}"):
        roll_group(group, ScriptedRng(faces), Limits(), [count - 1])


EXPLODE_ONLY = [
    ("3d6!", "roll20"),
    ("4d6!>5kh3", "roll20"),
    ("5d6!<2>4f1", "roll20"),
    ("4dF!", "roll20"),
    ("3d4!!", "roll20"),  # compounding
    ("4d6e6kh3", "d20"),
    ("3d6!>=5", "onlinehost"),
]
# Clamps with explosions, which the d20 dialect refuses (d20 clamps only the dice thrown
# before `e`), still roll the same both ways when a tree is built by hand.
EXPLODE_ONLY_TREES = [
    Dice(4, 6, explode=True, explode_on=Success(Compare.GE, 5), floor=3),
    Dice(
        6,
        6,
        explode=True,
        ceiling=5,
        keep=Keep(KeepMode.NOT_MATCHING, 0, Success(Compare.LE, 2)),
    ),
]


@settings(max_examples=examples(150), deadline=None)
@given(
    case=st.sampled_from(EXPLODE_ONLY + EXPLODE_ONLY_TREES),
    seed=st.integers(0),
    depth=st.integers(0, 3),
    dice=st.integers(1, 14),
)
def test_a_group_that_only_explodes_throws_as_the_reference(
    case: tuple[str, str] | Dice, seed: int, depth: int, dice: int
) -> None:
    """A group that only explodes (no reroll, no d20 `ra`): the same throws (die by die, each
    followed by its explosions), flags, values and total as the reference, and the same
    refusal after the same die when the dice budget runs out; else the same budget left."""
    limits = Limits(max_explode_depth=depth, max_dice=dice)
    group = case if isinstance(case, Dice) else parse(case[0], dialect=case[1])
    assert isinstance(group, Dice)
    assert group.explode and not group.reroll and group.add_on is None

    assert rolled(group, seed, limits, dice, fast=True) == rolled(
        group, seed, limits, dice, fast=False
    )


ADD_ONCE_ONLY = [
    ("7d12ra12", "d20"),
    ("4d6ra6kh3", "d20"),
    ("3d20ra20kl1", "d20"),
    ("5d6ra>4", "d20"),  # one in three passes: usually the second or third die adds
    ("2d2ra2k>1", "d20"),
]
# Fudge dice or clamps with `ra`, which no dialect writes (d20 clamps only the dice thrown
# before `ra` adds one), still roll the same both ways when a tree is built by hand.
ADD_ONCE_ONLY_TREES = [
    Dice(3, 4, add_on=Success(Compare.EQ, 1), floor=2),  # the clamped value is what ra reads
    Dice(4, 6, add_on=Success(Compare.LE, 3), ceiling=2, keep=Keep(KeepMode.LOWEST, 2)),
    Dice(4, 3, fudge=True, add_on=Success(Compare.EQ, 1)),
    Dice(3, 6, add_on=Success(Compare.GE, 5), success=Success(Compare.GE, 4)),
]


@settings(max_examples=examples(150), deadline=None)
@given(
    case=st.sampled_from(ADD_ONCE_ONLY + ADD_ONCE_ONLY_TREES),
    seed=st.integers(0),
    dice=st.integers(1, 9),
)
def test_a_group_that_only_adds_once_throws_as_the_reference(
    case: tuple[str, str] | Dice, seed: int, dice: int
) -> None:
    """A group that only adds a die once (d20's `ra`; no reroll, no explosion): the same
    throws (die by die, the added die right after the first that passes), flags, values and
    total as the reference, and the same refusal after the same die when the dice budget
    runs out; else the same budget left."""
    limits = Limits(max_dice=dice)
    group = case if isinstance(case, Dice) else parse(case[0], dialect=case[1])
    assert isinstance(group, Dice)
    assert group.add_on is not None and not group.reroll and not group.explode

    assert rolled(group, seed, limits, dice, fast=True) == rolled(
        group, seed, limits, dice, fast=False
    )


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("1d2mi5", [2], 5),  # a floor above the top face: every die shows the floor
        ("3d4mi6", [1, 4, 2], 18),
        ("2d6mi3ma4", [1, 6], 7),
        ("2d6ma4", [1, 6], 5),
    ],
)
def test_a_floor_above_the_top_face_still_raises_every_die(
    text: str, faces: list[int], total: int
) -> None:
    """d20's `mi` clamps up before `ma` clamps down; with no `ma`, nothing clamps down."""
    result = roll_text(text, rng=ScriptedRng(faces), dialect="d20")
    assert result.total == total
    assert tuple(f for g in result.groups for f in g.faces) == tuple(faces)
    assert bounds(parse(text, dialect="d20"))[0] <= total
