"""Dice notation: trees, canonical text, exact error messages, limits, bounds."""

from __future__ import annotations

import pytest

from referee.dice import (
    DEFAULT_LIMITS,
    BinOp,
    Compare,
    Const,
    Dice,
    Keep,
    KeepMode,
    Limits,
    Neg,
    Op,
    Success,
    bounds,
    parse,
    parse_cached,
    render,
    roll,
)
from referee.errors import LimitError, NotationError, RuleError
from referee.rng import SeededRng

TREES = [
    ("2d20+1d6", BinOp(Op.ADD, Dice(2, 20), Dice(1, 6))),
    ("d20", Dice(1, 20)),
    ("d%", Dice(1, 100)),
    ("3D6", Dice(3, 6)),
    ("4d6kh3", Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))),
    ("4d6k3", Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))),
    ("2d20kl1", Dice(2, 20, keep=Keep(KeepMode.LOWEST, 1))),
    ("5d6dh2", Dice(5, 6, keep=Keep(KeepMode.DROP_HIGHEST, 2))),
    ("4d6dl1", Dice(4, 6, keep=Keep(KeepMode.DROP_LOWEST, 1))),
    ("6d6!", Dice(6, 6, explode=True)),
    ("8d10>=7", Dice(8, 10, success=Success(Compare.GE, 7))),
    ("8d10<3", Dice(8, 10, success=Success(Compare.LE, 3))),  # roll20: at most 3
    ("5d10!kh3>8", Dice(5, 10, True, Keep(KeepMode.HIGHEST, 3), Success(Compare.GE, 8))),
    ("1d1", Dice(1, 1)),
    ("007", Const(7)),
    ("-1d6", Neg(Dice(1, 6))),
    ("2--3", BinOp(Op.SUB, Const(2), Neg(Const(3)))),
    ("1+2*3", BinOp(Op.ADD, Const(1), BinOp(Op.MUL, Const(2), Const(3)))),
    ("(1+2)*3", BinOp(Op.MUL, BinOp(Op.ADD, Const(1), Const(2)), Const(3))),
    ("1-2-3", BinOp(Op.SUB, BinOp(Op.SUB, Const(1), Const(2)), Const(3))),
    ("1-(2-3)", BinOp(Op.SUB, Const(1), BinOp(Op.SUB, Const(2), Const(3)))),
    ("-2*3", BinOp(Op.MUL, Neg(Const(2)), Const(3))),
    ("-(2*3)", Neg(BinOp(Op.MUL, Const(2), Const(3)))),
    (" 2d20 +\t1d6 ", BinOp(Op.ADD, Dice(2, 20), Dice(1, 6))),
]


@pytest.mark.parametrize(("text", "tree"), TREES)
def test_parse_gives_the_tree(text: str, tree: object) -> None:
    assert parse(text) == tree


CANONICAL = [
    ("d20", "1d20"),
    ("d%", "1d100"),
    ("4D6K3", "4d6kh3"),
    (" 2d20 + 1d6 ", "2d20+1d6"),
    ("((1+2))*3", "(1+2)*3"),
    ("1+(2+3)", "1+(2+3)"),
    ("1+(2*3)", "1+2*3"),
    ("(1d6)", "1d6"),
    ("-(1d6+2)*3", "-(1d6+2)*3"),
    ("--4", "--4"),
    ("2*-3", "2*-3"),
    ("0010", "10"),
]


@pytest.mark.parametrize(("text", "canonical"), CANONICAL)
def test_str_is_the_canonical_notation(text: str, canonical: str) -> None:
    expr = parse(text)
    assert str(expr) == canonical
    assert parse(canonical) == expr
    assert repr(expr) == f"parse({canonical!r})"


MODIFIERS = "! !! !p < <= = > >= cf cs d dh dl f k kh kl r ro s sa sd"
OPERATORS = "an operator (+ - * / %)"
ATOM = "a number, a die, '(', '{' or a function (floor ceil round abs)"

ERRORS = [
    (
        "3d6x2",
        "unexpected 'x' at column 4 in '3d6x2' (expected a modifier "
        f"({MODIFIERS}), {OPERATORS} or end of input)",
    ),
    ("", f"unexpected end of input at column 1 in '' (expected {ATOM})"),
    ("3d6+", f"unexpected end of input at column 5 in '3d6+' (expected {ATOM})"),
    ("4d6kh", "unexpected end of input at column 6 in '4d6kh' (expected a number of dice)"),
    (
        "4d6d",
        "unexpected end of input at column 5 in '4d6d' (expected a number of dice); "
        "this is onlinehost notation (dialect='onlinehost')",
    ),
    ("4d6dx1", "unexpected 'x' at column 5 in '4d6dx1' (expected a number of dice)"),
    (
        "2d",
        "unexpected end of input at column 3 in '2d' (expected a number of sides, '%' or 'F')",
    ),
    ("1d6>", "unexpected end of input at column 5 in '1d6>' (expected a target number)"),
    ("(1", f"unexpected end of input at column 3 in '(1' (expected {OPERATORS} or ')')"),
    ("1)", f"unexpected ')' at column 2 in '1)' (expected {OPERATORS} or end of input)"),
    ("1 2", f"unexpected '2' at column 3 in '1 2' (expected {OPERATORS} or end of input)"),
    (
        "4d6 kh3",
        f"unexpected 'k' at column 5 in '4d6 kh3' (expected {OPERATORS} or end of input)",
    ),
    ("1d0", "a die needs at least 1 side, got '1d0' at column 1 in '1d0'"),
    ("2+0d6", "a dice group needs at least 1 die, got '0d6' at column 3 in '2+0d6'"),
    ("1d1!", "'1d1!' at column 1 in '1d1!' explodes on every face, so it would never stop"),
    ("1d6r<6", "'1d6r<6' at column 1 in '1d6r<6' rerolls every face, so it would never stop"),
    (
        "é",
        "unexpected 'é' (U+00E9 LATIN SMALL LETTER E WITH ACUTE) at column 1 in 'é' "
        f"(expected {ATOM})",
    ),
    (
        "1d²",
        "unexpected '²' (U+00B2 SUPERSCRIPT TWO, not an ASCII digit 0-9) at column 3 in "
        "'1d²' (expected a number of sides, '%' or 'F')",
    ),
    (
        "١d٦",
        "unexpected '١' (U+0661 ARABIC-INDIC DIGIT ONE, not an ASCII digit 0-9) at column 1 "
        f"in '١d٦' (expected {ATOM})",
    ),
    (
        "3d6!>=5",
        "unexpected '=' at column 6 in '3d6!>=5' (expected a number); "
        "this is onlinehost notation (dialect='onlinehost')",
    ),
    (
        "8d6mi2",
        f"unexpected 'm' at column 4 in '8d6mi2' (expected a modifier ({MODIFIERS}), "
        f"{OPERATORS} or end of input); this is d20 notation (dialect='d20')",
    ),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_bad_notation_says_where_and_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse(text)
    assert str(caught.value) == message


def test_non_text_is_a_notation_error() -> None:
    with pytest.raises(NotationError, match=r"must be text, got 12"):
        parse(12)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match=r"must be text, got None"):
        parse_cached(None)  # type: ignore[arg-type]


LIMIT_ERRORS = [
    ("1d10001", "too many sides: '1d10001' at column 1 in '1d10001' (at most 10000)"),
    ("1001d6kh3", "too many dice: '1001d6' at column 1 in '1001d6kh3' (at most 1000)"),
    (
        "600d6+400d6+1d6",
        "'600d6+400d6+1d6' could throw 1001 dice in one roll, rerolls and explosions "
        "included (at most 1000)",
    ),
    (
        "48d6!",
        "'48d6!' could throw 1008 dice in one roll, rerolls and explosions included (at most 1000)",
    ),
]


@pytest.mark.parametrize(("text", "message"), LIMIT_ERRORS)
def test_dice_past_the_limits_are_refused(text: str, message: str) -> None:
    with pytest.raises(LimitError) as caught:
        parse(text)
    assert str(caught.value) == message


def test_the_largest_allowed_rolls_parse() -> None:
    assert parse("1000d6").maximum == 6000
    assert parse("1d10000").maximum == 10000
    assert parse("47d6!").maximum == 47 * 21 * 6  # 47 * (20 + 1) = 987 dice at most


def test_length_limit() -> None:
    assert parse("1+" * 127 + "1").maximum == 128  # 255 characters
    with pytest.raises(LimitError, match=r"is 257 characters long \(at most 256\)"):
        parse("1+" * 128 + "1")


def test_nesting_limit_stops_deep_parentheses_and_signs() -> None:
    assert parse("(" * 32 + "1" + ")" * 32) == Const(1)
    with pytest.raises(LimitError, match=r"nests more than 32 parentheses and signs deep"):
        parse("(" * 33 + "1" + ")" * 33)
    with pytest.raises(LimitError, match=r"at column 33\)$"):
        parse("-" * 33 + "1")


def test_custom_limits_apply() -> None:
    small = Limits(max_length=10, max_dice=5, max_sides=20, max_explode_depth=1, max_nesting=2)
    assert parse("5d20", small) == Dice(5, 20)
    with pytest.raises(LimitError):
        parse("6d6", small)
    with pytest.raises(LimitError):
        parse("1d21", small)
    with pytest.raises(LimitError, match=r"could throw 6 dice"):
        parse("3d6!", small)  # 3 dice, each may explode once
    with pytest.raises(LimitError):
        parse("((-1))", small)
    with pytest.raises(LimitError):
        parse("1+1+1+1+1+1", small)


@pytest.mark.parametrize(
    "fields",
    [{"max_dice": 0}, {"max_length": 1001}, {"max_explode_depth": -1}, {"max_sides": True}],
)
def test_limits_themselves_are_checked(fields: dict[str, int]) -> None:
    with pytest.raises(RuleError):
        Limits(**fields)


def test_parse_cache_shares_frozen_trees() -> None:
    assert parse_cached("2d20+1d6") is parse_cached("2d20+1d6")
    small = Limits(max_dice=3)
    assert parse_cached("3d6", small) == Dice(3, 6)
    with pytest.raises(LimitError):
        parse_cached("4d6", small)


BOUNDS = [
    ("1d100", 1, 100),
    ("2d20+1d6", 3, 46),
    ("4d6kh3", 3, 18),
    ("4d6dl1", 3, 18),
    ("2d20kl1", 1, 20),
    ("5d6dh7", 0, 0),
    ("1d6!", 1, 126),  # up to 21 dice (20 explosions), all sixes
    ("3d6!kh1", 1, 6),
    ("8d10>=7", 0, 8),
    ("8d10>=1", 8, 8),
    ("8d10>10", 0, 8),  # roll20: 10 or more
    ("8d10>=11", 0, 0),
    ("2d6!6>=6", 0, 42),
    ("2d6!6<=3", 0, 2),
    ("2d6!dh1<=3", 0, 2),
    ("2d6!dl1<=3", 0, 1),
    ("10-2d6", -2, 8),
    ("-1d6", -6, -1),
    ("(1d6-4)*(1d6-4)", -6, 9),
    ("1d1*5", 5, 5),
]


@pytest.mark.parametrize(("text", "low", "high"), BOUNDS)
def test_minimum_and_maximum(text: str, low: int, high: int) -> None:
    expr = parse(text)
    assert (expr.minimum, expr.maximum) == (low, high)
    assert bounds(expr, DEFAULT_LIMITS) == (low, high)


def test_bounds_follow_the_explosion_depth() -> None:
    assert bounds(parse("2d6!"), Limits(max_explode_depth=0)) == (2, 12)
    assert bounds(parse("2d6!"), Limits(max_explode_depth=2)) == (2, 36)


def test_the_longest_allowed_chain_parses_prints_and_rolls() -> None:
    widest = Limits(max_length=1000)
    expr = parse("1d6-" * 249 + "1", widest)  # 997 characters, 249 operators deep
    result = roll(expr, rng=SeededRng(3), limits=widest)
    assert expr.minimum <= result.total <= expr.maximum
    assert render(result).startswith(str(expr) + " = [")


def test_upper_case_letters_beside_other_text_keep_their_columns() -> None:
    with pytest.raises(
        NotationError, match=r"^unexpected 'é' \(U\+00E9 .*\) at column 4 in '4D6é'"
    ):
        parse("4D6é")
