"""The formula language: grammar, exact semantics against a Fraction oracle, errors, budgets."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import RefereeError, RulePackError
from referee.systems.formula import (
    MAX_DEPTH,
    MAX_LENGTH,
    MAX_NODES,
    MAX_VALUE,
    Binary,
    Call,
    FormulaError,
    Name,
    Node,
    Num,
    Unary,
    parse_formula,
    render,
)
from tests.depth import examples


def oracle(node: Node, env: dict[str, int]) -> Fraction:
    """The meaning of a tree, written independently with Python Fractions."""
    if isinstance(node, Num):
        return Fraction(node.value)
    if isinstance(node, Name):
        return Fraction(env[node.name])
    if isinstance(node, Unary):
        x = oracle(node.arg, env)
        return -x if node.op == "-" else Fraction(int(x == 0))
    if isinstance(node, Call):
        xs = [oracle(a, env) for a in node.args]
        ops = {"min": min, "max": max, "abs": lambda v: abs(v), "ceil": math.ceil}
        if node.name == "floor":
            return Fraction(math.floor(xs[0]))
        return Fraction(ops[node.name](*xs))
    a, b = oracle(node.left, env), oracle(node.right, env)
    table = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "/": lambda: a / b, "%": lambda: a - b * math.floor(a / b),
        "<": lambda: Fraction(int(a < b)), "<=": lambda: Fraction(int(a <= b)),
        ">": lambda: Fraction(int(a > b)), ">=": lambda: Fraction(int(a >= b)),
        "==": lambda: Fraction(int(a == b)), "!=": lambda: Fraction(int(a != b)),
        "and": lambda: Fraction(int(a != 0 and b != 0)),
        "or": lambda: Fraction(int(a != 0 or b != 0)),
    }  # fmt: skip
    return table[node.op]()


@pytest.mark.parametrize(
    ("text", "roll", "cs", "value"),
    [
        ("min(5, ceil(roll / 12))", 47, 65, Fraction(4)),
        ("2 + (roll > cs - 10)", 60, 65, Fraction(3)),
        ("2 + (roll > cs - 10)", 50, 65, Fraction(2)),
        ("roll / 4", 10, 0, Fraction(5, 2)),
        ("floor(-7 / 2)", 1, 1, Fraction(-4)),
        ("ceil(-7 / 2)", 1, 1, Fraction(-3)),
        ("-7 % 3", 1, 1, Fraction(2)),
        ("7 / 2 % 1", 1, 1, Fraction(1, 2)),
        ("roll <= cs and not roll % 10", 40, 65, Fraction(1)),
        ("roll > 90 or roll < 5", 50, 65, Fraction(0)),
        ("abs(roll - cs)", 40, 65, Fraction(25)),
        ("max(1, 2, roll, 3)", 2, 0, Fraction(3)),
        ("1 - 2 - 3", 1, 1, Fraction(-4)),
        ("2 * 3 + 4 * 5", 1, 1, Fraction(26)),
        ("ROLL <= CS", 5, 5, Fraction(1)),
    ],
)
def test_values(text: str, roll: int, cs: int, value: Fraction) -> None:
    formula = parse_formula(text, "x")
    assert formula.value(roll=roll, cs=cs) == value
    assert oracle(formula.tree, {"roll": roll, "cs": cs}) == value


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("(1+2)*3", "(1 + 2) * 3"),
        ("1-(2-3)", "1 - (2 - 3)"),
        ("(1-2)-3", "1 - 2 - 3"),
        ("not(roll<cs)", "not roll < cs"),
        ("-(roll+1)", "-(roll + 1)"),
        ("(roll or cs) and 1", "(roll or cs) and 1"),
        ("+roll", "roll"),
        ("min( roll ,cs )", "min(roll, cs)"),
    ],
)  # fmt: skip
def test_canonical_text(text: str, canonical: str) -> None:
    assert str(parse_formula(text, "x")) == canonical
    assert str(parse_formula(canonical, "x")) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("roll <= cs +", "formula 'damage': unexpected end at column 13 in 'roll <= cs +' "
         "(expected a number, a name or '(')"),
        ("roll = cs", "formula 'damage': unexpected '=' at column 6 in 'roll = cs' "
         "(expected '==' to compare)"),
        ("rol + 1", "formula 'damage': unknown name 'rol' at column 1 in 'rol + 1' "
         "(known: roll, cs, min, max, ceil, floor, abs)"),
        ("ceil(1, 2)", "formula 'damage': ceil takes 1 arguments, got 2 at column 1 in "
         "'ceil(1, 2)'"),
        ("1 < 2 < 3", "formula 'damage': a second comparison (join comparisons with 'and') at "
         "column 7 in '1 < 2 < 3'"),
        ("roll $ 2", "formula 'damage': unexpected '$' at column 6 in 'roll $ 2' (expected a "
         "number, a name, an operator or a bracket)"),
        ("(roll", "formula 'damage': unexpected end at column 6 in '(roll' (expected ')')"),
        ("", "formula 'damage' is empty"),
        ("9" * 11, f"formula 'damage': the number {'9' * 11} is larger than {MAX_VALUE} at "
         "column 1 in '99999999999'"),
        ("x" * (MAX_LENGTH + 1), f"formula 'damage' is longer than {MAX_LENGTH} characters"),
        ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1),
         f"formula 'damage' nests deeper than {MAX_DEPTH} levels"),
        ("+".join(["1"] * 150), f"formula 'damage' has more than {MAX_NODES} parts (numbers, "
         "names and operations: 'a + b' is 3)"),
        # 100 additions are 201 parts: the message must not claim more than 200 operations.
        ("+".join(["1"] * 101), f"formula 'damage' has more than {MAX_NODES} parts (numbers, "
         "names and operations: 'a + b' is 3)"),
    ],
)  # fmt: skip
def test_parse_errors_name_the_column(text: str, message: str) -> None:
    with pytest.raises(FormulaError) as err:
        parse_formula(text, "damage")
    assert str(err.value) == message
    assert isinstance(err.value, RulePackError) and err.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("roll / (cs - 50)", "formula 'x': division by zero (at roll = 1, cs = 50)"),
        ("roll % (cs - 50)", "formula 'x': remainder by zero (at roll = 1, cs = 50)"),
        ("roll * 100000 * 100000", f"formula 'x': a value grew past {MAX_VALUE} in size "
         "(at roll = 1, cs = 0)"),
        ("1 / (roll * 1000000) / 1000000", f"formula 'x': a fraction's denominator grew past "
         f"{MAX_VALUE} (at roll = 1, cs = 0)"),
    ],
)  # fmt: skip
def test_evaluation_errors_say_where(text: str, message: str) -> None:
    rolls = list(range(1, 101)) * 101
    cs = [skill for skill in range(101) for _ in range(100)]
    with pytest.raises(FormulaError) as err:
        parse_formula(text, "x").evaluate({"roll": rolls, "cs": cs})
    assert str(err.value) == message


# Grammar-shaped trees: every operator and function, small literals.
_leaf = st.one_of(st.integers(0, 30).map(Num), st.sampled_from(["roll", "cs"]).map(Name))
_OPS = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "and", "or"]


def _grow(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    return st.one_of(
        st.builds(Binary, st.sampled_from(_OPS), children, children),
        st.builds(Unary, st.sampled_from(["-", "not"]), children),
        st.builds(lambda n, a: Call(n, (a,)), st.sampled_from(["ceil", "floor", "abs"]), children),
        st.builds(
            lambda n, a, b: Call(n, (a, b)), st.sampled_from(["min", "max"]), children, children
        ),
    )


trees = st.recursive(_leaf, _grow, max_leaves=12)


@settings(max_examples=examples(300), deadline=None)
@given(trees, st.integers(1, 100), st.integers(0, 100))
def test_evaluation_matches_the_fraction_oracle(tree: Node, roll: int, cs: int) -> None:
    text = render(tree)
    formula = parse_formula(text, "x")
    assert str(formula) == text  # print -> parse -> print is the identity
    try:
        expected: Fraction | None = oracle(formula.tree, {"roll": roll, "cs": cs})
    except ZeroDivisionError:
        expected = None
    try:
        got: Fraction | None = formula.value(roll=roll, cs=cs)
    except FormulaError as err:
        assert expected is None or "grew past" in str(err), str(err)
        return
    assert got == expected


_PIECES = [
    "roll", "cs", "1", "15", "100", "0", "+", "-", "*", "/", "%", "(", ")", ",", "<", "<=",
    "==", "=", "!", "and", "or", "not", "min", "max", "ceil", "floor", "abs", " ", "x", "9" * 12,
]  # fmt: skip


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join) | st.text(max_size=60))
def test_fuzzed_text_never_crashes_and_stays_in_budget(text: str) -> None:
    try:
        formula = parse_formula(text, "fuzz")
    except FormulaError as err:
        assert str(err).startswith("formula 'fuzz'")
        return
    assert len(text) <= MAX_LENGTH
    count = _count(formula.tree)
    assert count <= MAX_NODES
    rolls = list(range(1, 101)) * 101
    cs = [skill for skill in range(101) for _ in range(100)]
    try:
        num, den = formula.evaluate({"roll": rolls, "cs": cs})
    except RefereeError as err:
        assert isinstance(err, FormulaError)
        return
    assert all(abs(n) <= MAX_VALUE for n in num)
    assert den is None or all(1 <= d <= MAX_VALUE for d in den)


def _count(node: Node) -> int:
    if isinstance(node, Num | Name):
        return 1
    if isinstance(node, Unary):
        return 1 + _count(node.arg)
    if isinstance(node, Call):
        return 1 + sum(_count(a) for a in node.args)
    return 1 + _count(node.left) + _count(node.right)


def test_long_chains_of_operations_stay_within_the_stack() -> None:
    text = "+".join(["roll"] * (MAX_NODES // 2))
    assert parse_formula(text, "x").value(roll=2, cs=0) == MAX_NODES // 2 * 2
    deep = "-" * (MAX_DEPTH - 1) + "1"
    assert parse_formula(deep, "x").value(roll=1, cs=0) == -1
