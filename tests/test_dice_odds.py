"""Exact odds: checked against icepool where both compute a form, against 100,000 seeded rolls
for the rest, and against brute force; the depth cap and the not-finite case are shown."""

from __future__ import annotations

import importlib
import itertools
import json
import math
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import icepool
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cli.main import cli
from referee.dice import DEFAULT_LIMITS, Limits, Number, odds, parse, roll
from referee.dice.odds import _Worker
from referee.errors import LimitError, NotationError, RuleError
from referee.rng import ScriptedRng, SeededRng
from tests.depth import examples

Dist = dict[Number, Fraction]


def ours(text: str, dialect: str = "roll20", limits: Limits = DEFAULT_LIMITS) -> Dist:
    return dict(odds(parse(text, limits, dialect=dialect), limits).distribution)


def exact(die: icepool.Die) -> Dist:
    total = die.denominator()
    return {outcome: Fraction(q, total) for outcome, q in die.items() if q}


def as_int(die: icepool.Die) -> icepool.Die:
    return die.map(lambda x: int(x))


d6, d8, d10, d20 = icepool.d6, icepool.d8, icepool.d10, icepool.d20
fudge = icepool.Die([-1, 0, 1])


def count(die: icepool.Die, test: Callable[[int], bool]) -> icepool.Die:
    return die.map(lambda x: 1 if test(x) else 0)


ICEPOOL: list[tuple[str, str, Callable[[], icepool.Die]]] = [
    ("2d20+1d6", "roll20", lambda: 2 @ d20 + d6),
    ("4d6kh3", "roll20", lambda: d6.pool(4).highest(3).sum()),
    ("4d6k3", "onlinehost", lambda: d6.pool(4).highest(3).sum()),
    ("2d20kl1", "roll20", lambda: d20.pool(2).lowest(1).sum()),
    ("5d6dh2", "roll20", lambda: d6.pool(5).lowest(3).sum()),
    ("4d6d3", "roll20", lambda: d6.pool(4).highest(1).sum()),
    ("4d6d3", "onlinehost", lambda: d6.pool(4).lowest(1).sum()),
    ("8d10>7", "roll20", lambda: 8 @ count(d10, lambda x: x >= 7)),
    ("3d6<3", "roll20", lambda: 3 @ count(d6, lambda x: x <= 3)),
    ("4d10c>=4", "onlinehost", lambda: 4 @ count(d10, lambda x: x >= 4)),
    ("4d6c", "onlinehost", lambda: 4 @ count(d6, lambda x: x == 6)),
    ("3d6>4f1", "roll20", lambda: 3 @ d6.map(lambda x: (x >= 4) - (x == 1))),
    ("2d6!", "roll20", lambda: 2 @ d6.explode(depth=20)),
    ("1d6!>5", "roll20", lambda: d6.explode([5, 6], depth=20)),
    ("3d6!>4", "onlinehost", lambda: 3 @ d6.explode([5, 6], depth=20)),
    ("2d8r<2", "roll20", lambda: 2 @ d8.reroll([1, 2], depth=20)),
    ("2d6ro1", "roll20", lambda: 2 @ d6.reroll([1], depth=1)),
    ("2d6ro<3", "d20", lambda: 2 @ d6.reroll([1, 2], depth=1)),
    ("8d6mi2", "d20", lambda: 8 @ d6.map(lambda x: max(x, 2))),
    ("4dF", "roll20", lambda: 4 @ fudge),
    ("4f", "onlinehost", lambda: 4 @ fudge),
    ("(1d20, 1d20)kh1", "d20", lambda: d20.pool(2).highest(1).sum()),
    ("{4d6+3d8}k4", "roll20", lambda: icepool.Pool([d6] * 4 + [d8] * 3).highest(4).sum()),
    ("2d6>7", "d20", lambda: as_int(2 @ d6 > 7)),
    ("1d20>=1d20", "d20", lambda: as_int(d20 >= d20)),
    ("(2d6+3)*2-1d4", "roll20", lambda: (2 @ d6 + 3) * 2 - icepool.d4),
    ("1d20//3", "d20", lambda: d20 // 3),
    ("1d20%6", "roll20", lambda: d20 % 6),
]


@pytest.mark.parametrize(("text", "dialect", "oracle"), ICEPOOL)
def test_odds_match_icepool(text: str, dialect: str, oracle: Callable[[], icepool.Die]) -> None:
    assert ours(text, dialect) == exact(oracle())


def test_explosions_with_keep_match_brute_force() -> None:
    limits = Limits(max_explode_depth=2)
    got = ours("2d3!kh1", limits=limits)
    seen: dict[tuple[int, ...], Number] = {}  # every distinct sequence of faces thrown
    for faces in itertools.product(range(1, 4), repeat=6):  # at most 2 x 3 dice
        rng = ScriptedRng(faces)
        total = roll(parse("2d3!kh1", limits), rng=rng, limits=limits).total
        seen[faces[: 6 - rng.remaining]] = total
    brute: Dist = {}
    for thrown, total in seen.items():
        brute[total] = brute.get(total, Fraction(0)) + Fraction(1, 3 ** len(thrown))
    assert got == brute


def brute_force(text: str, dialect: str, limits: Limits, most: int, sides: int) -> Dist:
    """Every sequence of `most` scripted faces rolled; each distinct prefix thrown counts once,
    with probability (1/sides) per face thrown."""
    expr = parse(text, limits, dialect=dialect)
    seen: dict[tuple[int, ...], Number] = {}
    for faces in itertools.product(range(1, sides + 1), repeat=most):
        rng = ScriptedRng(faces)
        total = roll(expr, rng=rng, limits=limits).total
        seen[faces[: most - rng.remaining]] = total
    brute: Dist = {}
    for thrown, total in seen.items():
        brute[total] = brute.get(total, Fraction(0)) + Fraction(1, sides ** len(thrown))
    return brute


# Keep/drop by rank (order statistics over sorted faces, keep counts 0..past the dice), counts
# with keep, rerolls as one die's distribution, clamps, and sums/differences of groups (one
# big-integer product), with Fudge faces below zero and fractions that are not whole.
BRUTE_FORCE = [
    ("4d4kh2", "roll20", 4, 4),
    ("4d4kl1", "roll20", 4, 4),
    ("4d4dh3", "roll20", 4, 4),
    ("4d4dl1", "roll20", 4, 4),
    ("3d4kh0", "roll20", 3, 4),
    ("3d4kl5", "roll20", 3, 4),
    ("3d4dh0", "roll20", 3, 4),
    ("3d4dl4", "roll20", 3, 4),
    ("4dFkh2", "roll20", 4, 3),
    ("3dFdl1-1dF", "roll20", 4, 3),
    ("3d4kh2>3", "roll20", 3, 4),
    ("3d4>3f1kh2", "roll20", 3, 4),
    ("3d4>3f1", "roll20", 3, 4),
    ("4d4k2", "onlinehost", 4, 4),
    ("3d4c>=3", "onlinehost", 3, 4),
    ("4d4mi2kh2", "d20", 4, 4),
    ("3d4ma3kl2", "d20", 3, 4),
    ("2d4r<2kh1", "roll20", 6, 4),
    ("2d4r<2", "roll20", 6, 4),
    ("3d4ro1dl1", "roll20", 6, 4),
    ("2d3rr1", "d20", 6, 3),
    ("1d3-2d3", "roll20", 3, 3),
    ("2dF-1d3+1", "roll20", 3, 3),
    ("1d3/2+1d3", "roll20", 2, 3),
    ("1d3-(1d3, 1d3)kh1", "d20", 3, 3),
    # dice exploding into dice of their own, kept by rank (order statistics of two parts)
    ("3d3!kh2", "roll20", 9, 3),
    ("3d3!dl1", "roll20", 9, 3),
    ("2d4!>3kl1", "roll20", 6, 4),
    ("2d3!<1dh1", "roll20", 6, 3),
    ("2d3!kh5", "roll20", 6, 3),
]


@pytest.mark.parametrize(("text", "dialect", "most", "sides"), BRUTE_FORCE)
def test_odds_match_brute_force(text: str, dialect: str, most: int, sides: int) -> None:
    """Exact against every sequence of faces (rerolls at most twice: a cap of 2)."""
    limits = Limits(max_explode_depth=2)
    got = dict(odds(parse(text, limits, dialect=dialect), limits).distribution)
    assert got == brute_force(text, dialect, limits, most, sides)


MONTE_CARLO = [
    ("2d6!!", "roll20"),
    ("3d6!p", "roll20"),
    ("4d6!kh3", "roll20"),
    ("3d6ra6", "d20"),
    ("{3d6, 2d8+2}>9", "roll20"),
    ("dh50", "onlinehost"),
    ("4d6e6p<3", "d20"),
    ("floor(2d20/3)+1d4", "roll20"),
]


@pytest.mark.parametrize(("text", "dialect"), MONTE_CARLO)
def test_odds_match_100000_seeded_rolls(text: str, dialect: str) -> None:
    """Every total's frequency within 5 standard errors of its exact probability."""
    n = 100_000
    expr = parse(text, dialect=dialect)
    rng = SeededRng(20261201)
    seen = Counter(roll(expr, rng=rng).total for _ in range(n))
    dist = dict(odds(expr).distribution)
    assert set(seen) <= set(dist)
    for total, p in dist.items():
        spread = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(seen[total] / n - float(p)) <= 5 * spread + 1e-9, (total, seen[total], p)


def test_the_depth_cap_is_shown_and_exact() -> None:
    answer = odds(parse("1d6!"))
    assert answer.depth == 20 and answer.chained
    assert answer.capped == Fraction(1, 6**21)
    assert answer.probability(126) == Fraction(1, 6**20) * Fraction(1, 6)
    shallow = odds(parse("1d6!", Limits(max_explode_depth=1)), Limits(max_explode_depth=1))
    assert dict(shallow.distribution)[12] == Fraction(1, 36)
    assert not odds(parse("2d6")).chained


def test_mean_sd_and_at_least() -> None:
    answer = odds(parse("2d6"))
    assert answer.mean == 7
    assert answer.variance == Fraction(35, 6)
    assert answer.sd == pytest.approx(math.sqrt(35 / 6))
    assert answer.at_least(7) == Fraction(7, 12)
    assert sum(p for _, p in answer.distribution) == 1


def test_odds_with_fractions() -> None:
    assert ours("1d4/2") == {
        Fraction(1, 2): Fraction(1, 4),
        1: Fraction(1, 4),
        Fraction(3, 2): Fraction(1, 4),
        2: Fraction(1, 4),
    }


def test_a_tree_that_can_divide_by_zero_has_no_finite_distribution() -> None:
    from referee.dice.expr import BinOp, Const, Dice, Op

    # parse refuses such a divisor; a tree built by hand still gets a clear answer
    tree = BinOp(Op.DIV, Const(6), BinOp(Op.SUB, Dice(1, 2), Const(1)))
    with pytest.raises(RuleError, match=r"has no finite distribution: it divides by zero"):
        odds(tree)


def test_a_tree_too_large_to_compute_says_so() -> None:
    with pytest.raises(LimitError, match="too many outcomes"):
        odds(parse("1d10000*1d10000*1d10000"))


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["roll", *args])
    return result.exit_code, result.stdout, result.stderr


def test_cli_odds_text_fractions_and_json(tmp_path: Path) -> None:
    code, out, _ = run("1d4", "--odds", "--fractions")
    assert code == 0
    assert out == (
        "1d4 (roll20, exact): mean 5/2, sd 1.1180\n"
        "total  P(=)  P(>=)\n"
        "1      1/4   1\n"
        "2      1/4   3/4\n"
        "3      1/4   1/2\n"
        "4      1/4   1/4\n"
    )
    code, out, _ = run("1d6!", "--odds")
    assert code == 0
    assert out.splitlines()[1] == (
        "explosions and rerolls stop at depth 20 (Limits.max_explode_depth); "
        "P(an explosion chain reaches it) = 4.559e-17"
    )
    code, out, _ = run("4d6k3", "--dialect", "d20", "--odds", "--json")
    data = json.loads(out)
    assert data["dialect"] == "d20" and data["distribution"][0]["total"] == 0
    assert Fraction(data["distribution"][0]["p"]) == Fraction(5, 6) ** 4


def test_cli_odds_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "odds.png"
    code, out, _ = run("3d6", "--odds", "--plot", str(path))
    assert code == 0 and out.endswith(f"plot written to {path}\n")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_a_divisor_that_can_be_zero_is_one_line_exit_2() -> None:
    code, out, err = run("6/(1d2-1)", "--odds")
    assert (code, out) == (2, "")
    assert err == (
        "error: the divisor '(1d2-1)' at column 3 in '6/(1d2-1)' can be 0 (a divisor that can "
        "be 0 is refused before any die is thrown; write one that cannot)\n"
    )


def test_a_remainder_takes_the_sign_of_the_dividend_in_the_odds_too() -> None:
    """JavaScript's `%`, as roll20's and a roll's: 1d6-10 is -9..-4, so -9 % 3 is 0, -8 % 3
    is -2, -7 % 3 is -1 (Python's would be 0, 1, 2)."""
    answer = odds(parse("(1d6-10) % 3"))
    assert dict(answer.distribution) == {-2: Fraction(1, 3), -1: Fraction(1, 3), 0: Fraction(1, 3)}
    expr = parse("(1d6-10) % 3")
    assert expr.minimum <= -2 and expr.maximum >= 0


@pytest.mark.parametrize(
    ("text", "size", "kept", "lowest"),
    [("5d6!!kh2", 5, 2, False), ("6d6!!kh3", 6, 3, False), ("4d6!!kl1", 4, 1, True)],
)
def test_keeping_among_compounding_dice_is_icepools_answer(
    text: str, size: int, kept: int, lowest: bool
) -> None:
    """Each compounding die is one value, so the dice are alike and kept by order statistics
    (this took 510 s for `6d6!!kh3` one state at a time)."""
    pool = icepool.d6.explode(depth=20).pool(size)
    expected = (pool.lowest(kept) if lowest else pool.highest(kept)).sum()
    den = expected.denominator()
    answer = odds(parse(text))
    assert dict(answer.distribution) == {v: Fraction(w, den) for v, w in expected.items()}
    assert answer.capped == 1 - (1 - Fraction(1, 6**21)) ** size


@pytest.mark.parametrize(
    ("text", "size", "sides", "exploding", "side", "keep", "drop"),
    [
        ("4d6!kh3", 4, 6, [6], "highest", 3, None),
        ("3d6!kl1", 3, 6, [6], "lowest", 1, None),
        ("2d8!>7dh1", 2, 8, [7, 8], "highest", None, 1),  # roll20's `>7` is 7 or more
        ("3d6!<2kl2", 3, 6, [1, 2], "lowest", 2, None),
        ("3d6!<2dl1", 3, 6, [1, 2], "lowest", None, 1),
    ],
)
def test_keeping_among_exploding_dice_is_icepools_answer(
    text: str, size: int, sides: int, exploding: list[int], side: str, keep: int, drop: int
) -> None:
    """Each explosion is a die of its own, kept or dropped with the rest: icepool's
    `explode_to_pool`, exactly, with the chance that a chain reached the cap."""
    pool = icepool.d(sides).explode_to_pool(size, exploding, depth=20)
    expected = getattr(pool, side)(keep, drop).sum()
    den = expected.denominator()
    answer = odds(parse(text))
    assert dict(answer.distribution) == {v: Fraction(w, den) for v, w in expected.items()}
    share = Fraction(len(exploding), sides) ** 21
    assert answer.capped == 1 - (1 - share) ** size


def test_keeping_among_exploding_dice_agrees_with_the_state_by_state_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Order statistics against the general computation (one state at a time), at several
    depth caps, for every keep and drop and explosions on the top or the bottom faces."""
    module = importlib.import_module("referee.dice.odds")
    forms = [
        f"{n}d{s}{e}{k}"
        for n, s, e, k in itertools.product(
            [1, 3], [2, 4, 6], ["!", "!>3", "!<2"], ["kh1", "kl2", "dh1", "dl2", "kh0", "kl5"]
        )
    ]
    compared = 0
    for depth in (0, 1, 3):
        limits = Limits(max_explode_depth=depth, max_odds_work=10**8)
        for text in forms:
            try:
                expr = parse(text, limits)
            except NotationError:
                continue  # explodes on every face
            fast = odds(expr, limits)
            with monkeypatch.context() as patch:
                patch.setattr(module, "_exploding_split", lambda group: None)
                assert odds(expr, limits) == fast, (text, depth)
            compared += 1
    assert compared > 80


def test_twelve_exploding_d10_keep_five_within_the_budget() -> None:
    """`12d10!kh5` was refused by the budget (539,490 steps one state at a time); icepool's
    answer (4.6 s there), here in about 40,000 steps."""
    worker = _Worker(DEFAULT_LIMITS.max_explode_depth, DEFAULT_LIMITS.max_odds_work)
    worker.dist(parse("12d10!kh5"))
    assert 0 < worker.work <= DEFAULT_LIMITS.max_odds_work
    answer = odds(parse("12d10!kh5"))
    assert answer.mean == Fraction(83239296809307331, 2000000000000000)
    assert answer.distribution[0] == (5, Fraction(1, 10**12))
    assert answer.distribution[-1][0] == 50


def test_exact_odds_past_the_budget_are_a_limit_error_naming_it() -> None:
    with pytest.raises(LimitError, match=r"more than 1000 steps \(Limits.max_odds_work\)"):
        odds(parse("12d10!kh5"), Limits(max_odds_work=1000))
    with pytest.raises(LimitError, match=r"Limits.max_odds_work"):
        odds(parse("12d10!5kh5"))  # explosions on a middle face: one state at a time
    with pytest.raises(LimitError, match=r"Limits.max_odds_work"):
        odds(parse("20d10!>8kh10"))


# The worst shapes within the default limits: many dice that explode, keep by rank, count,
# pools of such groups, and products of them.
worst_group = st.builds(
    "{}d{}{}{}{}".format,
    st.integers(1, 47),
    st.sampled_from([2, 3, 6, 10, 20, 100, 10000]),
    st.sampled_from(["", "!", "!!", "!p", "!>3", "r1", "ro<3"]),
    st.sampled_from(["", "kh1", "kh3", "kl5", "dh2", "dl7", "k23"]),
    st.sampled_from(["", ">4", ">4f1", "<2"]),
)
worst_case = st.one_of(
    worst_group,
    st.lists(worst_group, min_size=2, max_size=4).map(lambda g: "{" + ",".join(g) + "}kh2"),
    st.tuples(worst_group, worst_group).map(lambda g: f"({g[0]})*({g[1]})"),
)


@settings(max_examples=examples(20), deadline=None)
@given(text=worst_case)
def test_exact_odds_stay_within_the_budget_or_say_so(text: str) -> None:
    """No expression runs away: it is answered within `max_odds_work` counted steps, or
    refused with a `LimitError` (states or steps) before it goes further."""
    try:
        expr = parse(text)
    except (LimitError, NotationError):
        return
    worker = _Worker(DEFAULT_LIMITS.max_explode_depth, DEFAULT_LIMITS.max_odds_work)
    try:
        worker.dist(expr)
    except LimitError as err:
        assert "max_odds_work" in str(err) or "states in one step" in str(err)
        return
    assert worker.work <= DEFAULT_LIMITS.max_odds_work


def test_keeping_among_very_many_wide_dice_is_refused_before_it_takes_the_memory() -> None:
    """Order statistics hold a few big integers; for 1000d10000kh500 those would take
    gigabytes, so the steps are charged by their size and the answer is refused at once."""
    worker = _Worker(DEFAULT_LIMITS.max_explode_depth, DEFAULT_LIMITS.max_odds_work)
    with pytest.raises(LimitError, match=r"Limits.max_odds_work"):
        worker.dist(parse("1000d10000kh500"))
    assert worker.work > DEFAULT_LIMITS.max_odds_work  # charged up front: the first step
    worker = _Worker(DEFAULT_LIMITS.max_explode_depth, DEFAULT_LIMITS.max_odds_work)
    worker.dist(parse("60d20kh30"))  # the same way, within the budget
    assert 0 < worker.work <= DEFAULT_LIMITS.max_odds_work
