"""The plan (what `roll` and `roll_text` roll a tree with) against a brute-force reference
(`tests/dice_reference.py`): from the same dice, throw by throw, the same groups, pools,
flags, values and total, or the same error."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.dice import DIALECTS, Limits, parse, roll, roll_text
from referee.dice.expr import Expr
from referee.dice.plan import Plan, _planned, plan
from referee.errors import LimitError, NotationError, RuleError, ScriptError
from referee.rng import Rng, ScriptedRng, SeededRng
from tests.depth import examples
from tests.dice_reference import reference_roll
from tests.test_dice_props import Replayed, dice_group, expressions, grouped_texts

D20_MODIFIERS = ["", "rr1", "ro1", "ro<3", "rr<2", "ro1ro2", "rr1rr3", "rr>5", "mi2", "ma5"]
D20_MODIFIERS += ["mi2ma5", "e6", "e>4", "e1", "ra6", "ra>4", "rr1mi2", "ro1ra6"]
D20_KEEPS = ["", "kh1", "kh3", "kl1", "kl2", "pl1", "ph1", "ph2", "kh0"]
D20_KEEPS += ["k>3", "p<2", "p>3", "k<3", "k3", "p3"]


@st.composite
def d20_group(draw: st.DrawFn) -> str:
    """A group as the benchmark's generated expressions write them, and a few more."""
    count = draw(st.integers(1, 8))
    sides = draw(st.sampled_from([2, 4, 6, 8, 20, 100]))
    modifier, keep = draw(st.sampled_from(D20_MODIFIERS)), draw(st.sampled_from(D20_KEEPS))
    return f"{count}d{sides}{modifier}{keep}"


@st.composite
def d20_text(draw: st.DrawFn) -> str:
    """Sums and products of groups and numbers, divided by numbers (a divisor that can be 0
    is refused), maybe in a set."""
    terms = draw(st.lists(st.one_of(d20_group(), st.integers(0, 9).map(str)), min_size=1))
    text = terms[0]
    for term in terms[1:]:
        text += draw(st.sampled_from([" + ", " - ", " * "])) + term
        if draw(st.integers(0, 3)) == 0:
            text += draw(st.sampled_from([" // ", " / ", " % "])) + str(draw(st.integers(1, 9)))
    if draw(st.booleans()):
        text = f"({text}, {draw(d20_group())}){draw(st.sampled_from(D20_KEEPS))}"
    return text


texts = st.one_of(
    d20_text().map(lambda text: ("d20", text)),
    st.sampled_from(sorted(DIALECTS)).flatmap(
        lambda name: st.tuples(
            st.just(name),
            st.one_of(
                expressions(name),
                dice_group(name),
                grouped_texts(name).map(lambda case: case[0]),
            ),
        )
    ),
)


def rolled(by: Callable[[Rng], object], rng: Rng) -> object:
    try:
        return by(rng)
    except (LimitError, RuleError, ScriptError) as err:
        return f"{type(err).__name__}: {err}"


def parsed_and_planned(dialect: str, text: str) -> tuple[Expr, Plan] | None:
    """The tree of `text` and its plan, or None when the text is refused."""
    try:
        expr = parse(text, dialect=dialect)
    except (NotationError, LimitError):
        return None
    return expr, plan(expr)


def reference(expr: Expr, limits: Limits | None = None) -> Callable[[Rng], object]:
    """The brute-force reference's roll of `expr` (under `limits`, else the default ones)."""
    return lambda rng: reference_roll(expr, rng, limits or Limits())


@settings(max_examples=examples(400), deadline=None)
@given(case=texts, faces=st.lists(st.integers(1, 120), min_size=8, max_size=80))
def test_a_plan_throws_as_the_reference_from_scripted_faces(
    case: tuple[str, str], faces: list[int]
) -> None:
    """Scripted faces (folded into each die's sides) reach rerolls, explosions and the end
    of the script: the same dice taken in the same order, and the same result or error."""
    planned = parsed_and_planned(*case)
    if planned is None:
        return
    expr, found = planned
    mine, theirs = Replayed(faces), Replayed(faces)
    assert rolled(found, mine) == rolled(reference(expr), theirs)
    assert mine.used == theirs.used


@settings(max_examples=examples(300), deadline=None)
@given(case=texts, seed=st.integers(0, 2**32))
def test_a_plan_throws_as_the_reference_from_a_seeded_source(
    case: tuple[str, str], seed: int
) -> None:
    """A seeded source draws dice its own way (one die at a time in C): the same result,
    and the generator left in the same state."""
    planned = parsed_and_planned(*case)
    if planned is None:
        return
    expr, found = planned
    mine, theirs = SeededRng(seed), SeededRng(seed)
    for _ in range(3):
        assert rolled(found, mine) == rolled(reference(expr), theirs)
    assert mine._random.getstate() == theirs._random.getstate()


COMMON = ["1d20+5", "4d6kh3", "2d6ro<3", "8d6mi2", "4d6e6kh3", "3d8ro1+2", "2d20kh1+7", "6d6e6"]
COMMON += ["7d12ra12", "(1d4 + 1, 3, 2d6kl1)kh1", "-1d8 + 4 - (3, 1d4)kh1", "5d6k>3 [fire] * 2"]
COMMON += ["1d10rr<2 [cold] - 10 + 3d12 * (9, 6d6ra6, 2d100ro1ro2p<2)pl1", "7d20ro1ph1 // 3d6"]
COMMON += ["8d6p<2", "8d6p>3", "8d6k<3", "8d6k3", "8d6p3", "8d6kh3", "8d6pl2", "(1d6, 2d6, 3)p<2"]
COMMON += ["8d6pl1", "8d6ph1", "8d6kl1", "3d6kh1 + 2d20kh1"]


@pytest.mark.parametrize("text", COMMON)
def test_the_common_d20_forms_have_plans(text: str) -> None:
    expr = parse(text, dialect="d20")
    found = plan(expr)
    assert found(ScriptedRng([1, 2, 3, 4, 5, 6] * 20)) == reference(expr)(
        ScriptedRng([1, 2, 3, 4, 5, 6] * 20)
    )


@pytest.mark.parametrize("text", ["7", "1 + 2 * 3", "(1, 2, 3)kh1", "-(4 // 2) [x]"])
def test_trees_without_dice_roll_their_one_result(text: str) -> None:
    expr = parse(text, dialect="d20")
    found = plan(expr)
    assert found(SeededRng(1)) is found(ScriptedRng([])) == reference(expr)(SeededRng(3))
    assert rolled(lambda rng: roll_text(text, rng=rng, dialect="d20"), SeededRng(3)) == rolled(
        lambda rng: roll(expr, rng=rng), SeededRng(3)
    )


@pytest.mark.parametrize("text", ["1000d6 + 1d6", "1d6e6 * 50d6e6", "40d6e6"])
@pytest.mark.parametrize("limit", [1000, 60, 45])
def test_trees_that_could_pass_the_dice_limit_count_their_dice(text: str, limit: int) -> None:
    """(Parsed under a roomier limit.) The die that would pass the roll's limit is refused
    before it is thrown, as the reference refuses it: the same dice taken, the same error."""
    expr = parse(text, Limits(max_dice=5000), dialect="d20")
    limits = Limits(max_dice=limit)
    for faces in ([6] * 3000, [6, 1] * 1500, [1] * 3000):
        mine, theirs = Replayed(faces), Replayed(faces)
        assert rolled(lambda rng: roll(expr, rng=rng, limits=limits), mine) == rolled(
            reference(expr, limits), theirs
        )
        assert mine.used == theirs.used


def test_roll_text_rolls_by_plan_what_roll_rolls() -> None:
    text = "4d8ro1p<2 + (3d10e10, 6d20mi2)pl1 - 2"
    assert roll_text(text, rng=SeededRng(9), dialect="d20") == roll(
        parse(text, dialect="d20"), rng=SeededRng(9)
    )


@pytest.mark.parametrize("dialect", [None, "roll20", DIALECTS["roll20"], DIALECTS["d20"]])
def test_roll_text_rolls_by_plan_in_the_default_dialect_and_a_given_one(dialect: object) -> None:
    """The default dialect (a `Dialect`, not its name) and a dialect given as one of `DIALECTS`
    go by plan too, as a name does."""
    text = "3d6ro1+2"
    chosen = {} if dialect is None else {"dialect": dialect}
    before = _planned.cache_info()
    for seed in (4, 5):
        expected = roll(parse(text, **chosen), rng=SeededRng(seed))  # type: ignore[arg-type]
        assert roll_text(text, rng=SeededRng(seed), **chosen) == expected  # type: ignore[arg-type]
    after = _planned.cache_info()
    assert after.hits + after.misses == before.hits + before.misses + 2
