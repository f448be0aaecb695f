"""Grammar-shaped property tests in every dialect: parse, write back, roll within bounds;
bad text fails cleanly with the input quoted."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.dice import DIALECTS, Limits, bounds, parse, render, roll, write
from referee.dice.dialects import Arg
from referee.dice.expr import BinOp, Expr, Label, Neg, Node, Pool
from referee.dice.parser import grammar
from referee.dice.scan import _at_least_one, scan
from referee.errors import LimitError, NotationError, RefereeError, RuleError, ScriptError
from referee.rng import SeededRng, Throw
from tests.depth import examples
from tests.dice_reference import reference_roll

# Roomy limits so that generated expressions seldom trip them: only the grammar is under test.
ROOMY = Limits(max_length=1000, max_nesting=200, max_dice=100_000)

space = st.sampled_from(["", "", " ", "\t"])
small = st.integers(0, 7).map(str)
point20 = st.sampled_from(["", ">", "<"]).flatmap(lambda p: small.map(lambda n: p + n))

MODIFIERS = {
    "roll20": {
        "explode": st.sampled_from(["!", "!!", "!p"]).flatmap(
            lambda e: st.sampled_from(["", ">5", "6", "<1"]).map(lambda p: e + p)
        ),
        "keep": st.sampled_from(["kh", "kl", "dh", "dl", "k", "d"]).flatmap(
            lambda k: small.map(lambda n: k + n)
        ),
        "reroll": st.sampled_from(["r", "ro"]).flatmap(lambda r: point20.map(lambda p: r + p)),
        "success": st.sampled_from([">", "<", "=", ">=", "<="]).flatmap(
            lambda c: small.map(lambda n: c + n)
        ),
        "failure": point20.map(lambda p: "f" + p),
        "crit": point20.map(lambda p: "cs" + p),
        "fumble": point20.map(lambda p: "cf" + p),
        "sort": st.sampled_from(["sa", "sd", "s"]),
    },
    "onlinehost": {
        "explode": st.sampled_from(["!", "!5", "!>4", "!>=5", "!<2", "!<=1"]),
        "keep": st.sampled_from(["k", "d"]).flatmap(
            lambda k: st.sampled_from(["", "1", "2", "5"]).map(lambda n: k + n)
        ),
        "success": st.sampled_from(["c", "c>=4", "c<=2", "c>3", "c<3", "c6"]),
    },
    "d20": {
        "keep": st.sampled_from(["k", "p"]).flatmap(
            lambda k: st.sampled_from(["h1", "l2", ">3", "<3", "4", "h5"]).map(lambda s: k + s)
        ),
        "reroll": st.sampled_from(["rr", "ro"]).flatmap(
            lambda r: st.sampled_from(["1", "<2", ">5", "3"]).map(lambda s: r + s)
        ),
        "add": st.sampled_from(["ra1", "ra>4", "ra6"]),
        "explode": st.sampled_from(["e6", "e>4", "e1"]),
        "floor": st.sampled_from(["mi2", "mi5"]),
        "ceiling": st.sampled_from(["ma3", "ma6"]),
    },
}
SIDES = {
    "roll20": ["2", "3", "6", "20", "%", "F"],
    "onlinehost": ["2", "3", "6", "20", "%"],
    "d20": ["2", "3", "6", "20", "%"],
}


@st.composite
def dice_group(draw: st.DrawFn, dialect: str) -> str:
    count = draw(st.sampled_from(["", "1", "2", "3"]))
    text = f"{count}d{draw(st.sampled_from(SIDES[dialect]))}"
    mods = MODIFIERS[dialect]
    kinds = draw(st.lists(st.sampled_from(sorted(mods)), unique=True, max_size=3))
    for kind in kinds:
        text += draw(mods[kind])
    return text.upper() if draw(st.booleans()) else text


def expressions(dialect: str, labels: bool = True) -> st.SearchStrategy[str]:
    number = st.integers(0, 50).map(str)
    atom = st.one_of(number, dice_group(dialect))
    ops = {"roll20": "+-*/%", "onlinehost": "+-*/", "d20": "+-*/%"}[dialect]
    extra = ["//", "==", ">=", "<", "!="] if dialect == "d20" else []

    def combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        op = st.sampled_from(list(ops) + extra)
        binary = st.tuples(children, space, op, space, children).map("".join)
        signed = children.map(lambda c: f"-{c}")
        grouped = st.tuples(space, children, space).map(lambda t: f"({t[0]}{t[1]}{t[2]})")
        forms = [binary, signed, grouped]
        if dialect == "roll20":
            forms.append(
                st.lists(children, min_size=1, max_size=3).map(lambda i: "{" + ",".join(i) + "}")
            )
            forms.append(
                st.tuples(
                    st.lists(children, min_size=2, max_size=3),
                    st.sampled_from(["kh1", "dl1", ">3"]),
                ).map(lambda t: "{" + ",".join(t[0]) + "}" + t[1])
            )
            forms.append(children.map(lambda c: f"floor({c})"))
            forms.append(children.map(lambda c: f"round({c})"))
            if labels:
                forms.append(children.map(lambda c: f"({c})[label]"))
        if dialect == "d20":
            forms.append(
                st.tuples(
                    st.lists(children, min_size=1, max_size=3),
                    st.sampled_from(["", "kh1", "pl1", "k>3"]),
                ).map(lambda t: "(" + ",".join(t[0]) + ",)" + t[1])
            )
            if labels:
                forms.append(children.map(lambda c: f"({c}) [fire]"))
        return st.one_of(forms)

    return st.recursive(atom, combine, max_leaves=6)


def parsed(text: str, dialect: str) -> object:
    try:
        return parse(text, ROOMY, dialect=dialect)
    except (NotationError, LimitError) as err:
        assert repr(text) in str(err) or repr(text[:37] + "...") in str(err)
        assume(False)
        raise  # pragma: no cover


def rolled_within_bounds(expr: object, seed: int) -> None:
    try:
        result = roll(expr, rng=SeededRng(seed), limits=ROOMY)  # type: ignore[arg-type]
    except RuleError as err:
        assert "division by zero" in str(err)
        return
    low, high = bounds(expr, ROOMY)  # type: ignore[arg-type]
    assert low <= result.total <= high, (str(expr), result.total, low, high)
    assert render(result).startswith(f"{expr} = ")


@settings(max_examples=examples(250), deadline=None)
@given(
    data=st.data(),
    dialect=st.sampled_from(["roll20", "onlinehost", "d20"]),
    seed=st.integers(0, 2**32),
)
def test_generated_expressions_write_back_and_roll_within_their_bounds(
    data: st.DataObject, dialect: str, seed: int
) -> None:
    text = data.draw(expressions(dialect))
    expr = parsed(text, dialect)
    again = write(expr, dialect)  # type: ignore[arg-type]
    assert parse(again, ROOMY, dialect=dialect) == expr
    assert parse(str(expr), ROOMY, dialect=_dialect_of(expr)) == expr
    # the same node types all the way down, read without the nodes' own `==`
    assert typed(parse(again, ROOMY, dialect=dialect)) == typed(expr)
    rolled_within_bounds(expr, seed)


def typed(value: object) -> object:
    """A tree as nested plain tuples, each node led by its type's name."""
    if isinstance(value, Node):
        return (type(value).__name__, *(typed(v) for v in value.fields().values()))
    if isinstance(value, tuple):
        return tuple(typed(v) for v in value)
    return value


@pytest.mark.parametrize(
    ("text", "dialect", "other"),
    [("dh50", "onlinehost", "50"), ("dh50+1", "onlinehost", "50+1"), ("-dh7", "onlinehost", "-7")],
)
def test_nodes_of_different_types_are_different_trees(text: str, dialect: str, other: str) -> None:
    """A node's type is part of its identity: `dh50` (degrees of success against 50) is not
    the number 50, though both hold one field 50; they are two dict keys."""
    one, two = parse(text, dialect=dialect), parse(other)
    assert one != two
    assert not one == two  # noqa: SIM201 - both operators, each written by the node
    assert len({one: 1, two: 2}) == 2
    assert typed(one) != typed(two)
    assert parse(text, dialect=dialect) == one
    assert hash(parse(text, dialect=dialect)) == hash(one)


@pytest.mark.parametrize(
    ("text", "other", "dialect"),
    [("1d6", "2", "roll20"), ("1", "3", "roll20"), ("(1, 2d4)kh1", "4d6e6kh3", "d20")],
)
def test_a_node_is_not_a_sequence(text: str, other: str, dialect: str) -> None:
    """No length, no items, no order, no `+` of two trees: a node is its fields by name."""
    one, two = parse(text, dialect=dialect), parse(other, dialect=dialect)
    assert not isinstance(one, tuple)
    for attempt in (
        lambda: len(one),  # type: ignore[arg-type]
        lambda: one[0],  # type: ignore[index]
        lambda: list(one),  # type: ignore[call-overload]
        lambda: one + two,  # type: ignore[operator]
        lambda: one < two,  # type: ignore[operator]
    ):
        with pytest.raises(TypeError):
            attempt()
    assert one.replace() == one and one.replace() is not one
    assert type(one)(**one.fields()) == one


def _dialect_of(expr: object) -> str:
    text = repr(expr)
    return text.split("dialect=")[1].strip("')") if "dialect=" in text else "roll20"


def lower(text: str) -> str:
    """The text with its ASCII letters lower-cased (what the scanner reads; every column stays)."""
    return text.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"))


def scanned(text: str, dialect: str, limits: Limits | None = None) -> Expr | None:
    """What the scanner alone reads of `text` (None where it declines)."""
    return scan(text, lower(text), limits or Limits(), DIALECTS[dialect])


def careful(text: str, dialect: str) -> str:
    """What the grammar itself gives, without the scanner."""
    try:
        return repr(grammar(text, dialect=dialect))
    except (NotationError, LimitError) as err:
        return f"{type(err).__name__}: {err}"


def outcome(text: str, dialect: str) -> str:
    try:
        return repr(parse(text, dialect=dialect))
    except (NotationError, LimitError) as err:
        return f"{type(err).__name__}: {err}"


notation_soup = st.text(alphabet="0123456789dDkKhHlLfF%!<>=+-*/(){},[] \t xrpcse", max_size=20)


@settings(max_examples=examples(300), deadline=None)
@given(text=notation_soup, dialect=st.sampled_from(["roll20", "onlinehost", "d20"]))
def test_the_fast_path_agrees_with_the_grammar(text: str, dialect: str) -> None:
    assert outcome(text, dialect) == careful(text, dialect)


# Sums of plain terms, the shape the regex fast path reads: counts and sides at and past the
# limits, `d%`, labels (read only where the dialect has them), spaces and tabs between terms.
sum_term = st.one_of(
    st.integers(0, 1001).map(str),
    st.tuples(
        st.sampled_from(["", "0", "1", "3", "1000", "1001", "07"]),
        st.sampled_from(["%", "0", "1", "6", "20", "1000000", "1000001", "010"]),
    ).map(lambda t: f"{t[0]}d{t[1]}"),
).flatmap(
    lambda t: st.sampled_from(["", "[fire]", " [Two Words]", "[]", "\t[x+1]"]).map(
        lambda label: t + label
    )
)
plain_sum = st.tuples(
    space, sum_term, st.lists(st.tuples(space, st.sampled_from("+-"), space, sum_term), max_size=4)
).map(lambda t: t[0] + t[1] + "".join(a + op + b + term for a, op, b, term in t[2]))


@settings(max_examples=examples(300), deadline=None)
@given(
    text=plain_sum, dialect=st.sampled_from(["roll20", "onlinehost", "d20"]), seed=st.integers(0)
)
def test_the_plain_sum_fast_path_reads_and_rolls_as_the_grammar(
    text: str, dialect: str, seed: int
) -> None:
    """Same tree or same error; rolled from the same seed (the plan against the brute-force
    reference, `tests/dice_reference.py`), the same groups, faces, total and render."""
    assert outcome(text, dialect) == careful(text, dialect)
    try:
        fast = parse(text, dialect=dialect)
    except (NotationError, LimitError):
        return
    slow = grammar(text, dialect=dialect)
    a = roll(fast, rng=SeededRng(seed))
    b = reference_roll(slow, SeededRng(seed), Limits())
    assert a == b
    assert (a.throws, a.total, render(a)) == (b.throws, b.total, render(b))


# One group and its modifiers, as the scanner and the grammar read it: mostly the dialect's own
# letters with arguments that fit, sometimes others' letters, arguments that do not fit or
# belong to the next modifier, bounds passed, and something after the group.
ODD_LETTERS = ["K", "RO", "Mi", "x", "h", "dh", "c", "e", "!!", ">="]
ARGS = ["", "", "1", "3", "6", "0", "20", "h2", "l1", "H1", ">4", "<2", "=3", ">=5", "<=2", ">"]


FITTING = {
    Arg.NONE: [""],
    Arg.NUMBER: ["1", "3", "2"],
    Arg.NUMBER_OR_ONE: ["", "2"],
    Arg.POINT: ["1", "2", ">5", "<2", "=3", ">=5", "<=2"],
    Arg.POINT_OR_TOP: ["", ">5", "<2", "=6", ">=4"],
    Arg.SELECTOR: ["h3", "l1", "1", ">5", "<3", "6"],
}


def lone_texts(dialect: str) -> st.SearchStrategy[tuple[str, str]]:
    fitting = [(m.letters, a) for m in DIALECTS[dialect].dice for a in FITTING[m.arg]]
    token = st.one_of(
        st.sampled_from(fitting),
        st.sampled_from(fitting),
        st.sampled_from(fitting),
        st.tuples(st.sampled_from(ODD_LETTERS + [m for m, _ in fitting]), st.sampled_from(ARGS)),
    )
    text = st.tuples(
        space,
        st.sampled_from(["", "1", "2", "4", "4", "0", "1000", "1001"]),
        st.sampled_from(["6", "6", "20", "%", "1", "2", "0", "10001"]),
        st.lists(token, min_size=1, max_size=3),
        st.sampled_from(["", "", "", "", " ", "\t", " +1", "[x]", " 2", "d"]),
    ).map(lambda t: f"{t[0]}{t[1]}d{t[2]}" + "".join(a + b for a, b in t[3]) + t[4])
    return text.map(lambda t: (t, dialect))


lone_case = st.sampled_from(sorted(DIALECTS)).flatmap(lone_texts)


@settings(max_examples=examples(300), deadline=None)
@given(case=lone_case)
def test_the_scanner_reads_a_lone_group_as_the_grammar(case: tuple[str, str]) -> None:
    """Where the scanner reads a text at all, the same tree as the grammar's; parse gives the
    same tree or the same error as the grammar alone."""
    text, dialect = case
    fast = scanned(text, dialect)
    slow = careful(text, dialect)
    if fast is not None:
        assert repr(fast) == slow
    assert outcome(text, dialect) == slow


def grouped_texts(dialect: str) -> st.SearchStrategy[tuple[str, str]]:
    """Groups of `lone_texts` inside sums, products, parentheses, sets and braces."""
    group = lone_texts(dialect).map(lambda case: case[0])
    joined = st.lists(
        st.tuples(group, st.sampled_from([" + ", "-", "*", ", ", " >= ", "/", " "])),
        min_size=1,
        max_size=3,
    ).map(lambda parts: "".join(g + op for g, op in parts)[:-1])
    wrapped = st.tuples(
        st.sampled_from(["", "-", "(", "{", "floor("]),
        joined,
        st.sampled_from(["", ")", ")kh1", "}", "}kh1", ")[x]"]),
    ).map("".join)
    return wrapped.map(lambda t: (t, dialect))


@settings(max_examples=examples(200), deadline=None)
@given(case=st.sampled_from(sorted(DIALECTS)).flatmap(grouped_texts))
def test_groups_read_by_regex_inside_expressions_read_as_the_grammar(
    case: tuple[str, str],
) -> None:
    """Same tree or same error (column, expected operators) as the grammar without any fast
    path, for groups with modifiers anywhere in an expression."""
    text, dialect = case
    assert outcome(text, dialect) == careful(text, dialect)


# Sets (`(1d4 + 1, 3, 2d6kl1)kh1`), the shape the scanner and the grammar
# read: items that are sums of numbers, plain groups and groups with modifiers, and items the
# grammar must read (signs, products, labels, comparisons, empty or trailing items, bounds
# passed); then a pool modifier, fitting or not, and something after.
good_set_term = st.sampled_from(["3", "1", "07", "1d4", "d6", "1d%", "2d6kl1", "4d6e6kh3"])
set_term = st.one_of(
    good_set_term,
    good_set_term,
    good_set_term,
    st.sampled_from(["0", "1001", "0d6", "1000d6", "1000d6+1d4"]),
    st.sampled_from(["1001d6", "1d0", "2d6ro<3", "-1", "1d4[x]", "2*3", "1d4 [x]"]),
    st.sampled_from(["1d4>2", "(1)", "2d6k", "3d", "1 d4", "", "1d4kh1kl1", "4f", "1d4x"]),
)
set_item = st.lists(st.tuples(space, set_term, space), min_size=1, max_size=3).flatmap(
    lambda terms: st.lists(
        st.sampled_from("+-"), min_size=len(terms) - 1, max_size=len(terms) - 1
    ).map(
        lambda ops: (
            terms[0][0]
            + terms[0][1]
            + terms[0][2]
            + "".join(op + a + t + b for op, (a, t, b) in zip(ops, terms[1:], strict=True))
        )
    )
)
set_text = st.tuples(
    st.sampled_from(["(", "(", "-1d8 + 4 - (", "2*(", "-(", "((", "1d20 + ("]),
    st.lists(set_item, min_size=1, max_size=4).map(",".join),
    st.sampled_from([")", ")", ",)", ", )", ")"]),
    st.sampled_from(["kh1", "kl1", "ph1", "pl2", "k>2", "p<2", "kh", "khl", "kh1kl1", "kh1x"]),
    st.sampled_from(["", "", "", " + 1", "*2", "[x]", ")", "]", "1", " ", "\n", "k"]),
).map("".join)


@settings(max_examples=examples(250), deadline=None)
@given(text=set_text, dialect=st.sampled_from(["d20", "d20", "roll20", "onlinehost"]))
def test_sets_read_by_the_set_reader_read_as_the_grammar(text: str, dialect: str) -> None:
    """Same tree or same error (column, expected) as the grammar without any fast path."""
    assert outcome(text, dialect) == careful(text, dialect)


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        ("1d1rr1", "d20"),
        ("2d6ro>0", "d20"),
        ("2d6rr<7", "d20"),
        ("3d1ro1", "roll20"),
        ("2d6r>1", "roll20"),
    ],
)
def test_a_group_rerolling_every_face_is_refused_as_the_grammar_refuses_it(
    text: str, dialect: str
) -> None:
    """The scanner leaves a group that rerolls every face to the grammar, which says why."""
    assert scanned(text, dialect) is None
    assert outcome(text, dialect) == careful(text, dialect)
    assert "rerolls every face, so it would never stop" in outcome(text, dialect)


@pytest.mark.parametrize(
    "text", ["(1d4 + 1, 3, 2d6kl1)kh1", "-1d8 + 4 - (3, 1d4)kh1", "(1d20, 1d20)pl1", "(1, 2)"]
)
def test_the_scanner_reads_the_common_sets(text: str) -> None:
    fast = scanned(text, "d20")
    assert fast is not None
    assert repr(fast) == careful(text, "d20") == outcome(text, "d20")


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        ("4d6kh3", "d20"),
        ("2d6ro<3", "d20"),
        ("8d6mi2", "d20"),
        ("4d6e6kh3", "d20"),
        ("6d6rr1ra6p<2", "d20"),
        ("4d6!>5kh3cs>6sd", "roll20"),
        ("5d10>=8f1", "roll20"),
        ("4d6k", "onlinehost"),
        ("4d10c>=4", "onlinehost"),
        ("3d6!>=5", "onlinehost"),
    ],
)
def test_the_common_groups_read_as_the_grammar(text: str, dialect: str) -> None:
    """The scanner reads each dialect's common groups with modifiers, as the grammar does."""
    fast = scanned(text, dialect)
    assert fast is not None
    assert repr(fast) == careful(text, dialect) == outcome(text, dialect)


@settings(max_examples=examples(200), deadline=None)
@given(
    text=st.one_of(st.text(), notation_soup, st.text(max_size=400)),
    dialect=st.sampled_from(["roll20", "onlinehost", "d20"]),
)
def test_any_text_parses_or_fails_with_a_referee_error(text: str, dialect: str) -> None:
    try:
        expr = parse(text, dialect=dialect)
    except RefereeError as err:
        message = str(err)
        assert repr(text) in message or repr(text[:37] + "...") in message
        assert "\n" not in message
        return
    assert parse(write(expr, dialect), dialect=dialect) == expr


@settings(max_examples=examples(100), deadline=None)
@given(text=expressions("roll20", labels=False))
def test_render_shows_every_group_once(text: str) -> None:
    expr = parsed(text, "roll20")
    try:
        result = roll(expr, rng=SeededRng(5), limits=ROOMY)  # type: ignore[arg-type]
    except RuleError:
        return
    assert render(result).count("[") == len(result.groups)
    assert sum(len(g.faces) for g in result.groups) == len(result.dice)


def shape(node: object) -> object:
    """A tree as nested (type name, fields): equal shapes are equal trees, node types too."""
    if isinstance(node, Node):
        return (type(node).__name__, *(shape(value) for value in node.fields().values()))
    if isinstance(node, tuple):
        return tuple(shape(item) for item in node)
    return node


def strict(text: str, dialect: str, quick: bool) -> object:
    """The tree's shape, or the error, from `parse` (quick) or the grammar alone."""
    try:
        if quick:
            return shape(parse(text, dialect=dialect))
        return shape(grammar(text, dialect=dialect))
    except (NotationError, LimitError) as err:
        return f"{type(err).__name__}: {err}"


# d20's README forms and their neighbours: terms (numbers, plain groups, groups with
# modifiers) with labels or none, joined by signs inside sums and sets, a set's pool keep,
# the first term or a parenthesis negated, products (`*`, `/`, `//`, `%`: a divisor that
# can be 0 too), blanks anywhere between tokens, and breakages
# (an unclosed label, a label where a dialect has none, a stray character, limits passed).
readme_term = st.sampled_from(
    [
        "0",
        "1",
        "3",
        "07",
        "1d4",
        "d6",
        "1d8",
        "3d6",
        "1d%",
        "4d6kh3",
        "2d6kl1",
        "2d6ro<3",
        "8d6mi2",
        "4d6e6kh3",
        "1d20ra1",
        "4d6k3",
        "3d6!",
        "4d6dl1",
        "1001d6",
        "0d6",
        "1d0",
    ]
)
readme_label = st.sampled_from(
    [
        "",
        "",
        "",
        "[fire]",
        " [piercing]",
        "\t[Two Words]",
        "[]",
        "[a][b]",
        " [x] [y]",
        "[unclosed",
        "[x]]",
        "[ Spaced Out ]",
    ]
)
readme_sep = st.sampled_from(
    [" + ", "+", " - ", "-", "\t+ ", " * ", " ", " // ", "//", "/", " % ", "*-", " * ("]
)


@st.composite
def readme_sum(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for i in range(draw(st.integers(1, 3))):
        if depth < 1 and draw(st.integers(0, 4)) == 0:
            items = [draw(readme_sum(depth + 1)) for _ in range(draw(st.integers(1, 3)))]
            closing = draw(st.sampled_from([")", ")", ",)", " )"]))
            pool = draw(st.sampled_from(["", "", "kh1", "kl1", "pl1", "k>2", "kh", "x"]))
            term = "(" + ", ".join(items) + closing + pool
        else:
            term = draw(readme_term)
        if i == 0 and draw(st.integers(0, 3)) == 0:
            term = "-" + term
        parts.append(term + draw(readme_label))
    text = parts[0] + "".join(draw(readme_sep) + p for p in parts[1:])
    return draw(space) + text + draw(space)


@settings(max_examples=examples(300), deadline=None)
@given(text=readme_sum(), dialect=st.sampled_from(["d20", "d20", "roll20", "onlinehost"]))
def test_the_scanner_reads_d20_readme_forms_as_the_grammar(text: str, dialect: str) -> None:
    """Labels, sets, pool keeps, modifiers, blanks and signs: whatever the quick readers
    accept is the grammar's tree (node types and fields, label text as written); whatever
    they decline or refuse fails with the grammar's error, message and column alike."""
    assert strict(text, dialect, quick=True) == strict(text, dialect, quick=False)


@pytest.mark.parametrize(
    "text",
    [
        "(1 [one], 2 [two], 3 [three])",
        "-(1d8 + 3) [healing]",
        "(1d4 [a] + 1, 3, 2d6kl1 [b c])kh1",
        "-1d8 [cold] + 4 - (3, 1d4)kh1",
        "3d6 [fire] + 2d6kh1 [x] [y]",
    ],
)
def test_the_scanner_reads_labelled_d20_forms(text: str) -> None:
    """These are read by the scanner itself (not left to the grammar)."""
    fast = scanned(text, "d20")
    assert fast is not None
    assert shape(fast) == strict(text, "d20", quick=False)


@pytest.mark.parametrize(
    "text",
    [
        "6d4e4 // 1d12ra12",
        "4d12ra12 // 3d100 + 4",
        "-(1) + 2d8ro1kh3 - 4d20ra20 // 8d20ra20kh1 // 6d100ma99kl1",
        "-1d6 [cold] * 3 [x] [y] - 7 % 1d4 + 2",
        "3 * 2d6 [x] - 4 // 1d4 % 3",
        "1d20 / 2d4",
        "6d6mi2ma5 - 3d20e>18kl1 // (1d8, 3)kh1 // 3d100ra100ph1",
        "(4d8ro1p<2, 5d12ra12, 2d6ro1ro2)pl1 * 6d20ro1ro2kl1 [piercing] // 6 - 5d8",
        "2 * (1d4 + 1) [x] % (3)",
    ],
)
def test_the_scanner_reads_products(text: str) -> None:
    """Products of numbers and groups inside a sum are read by the scanner itself, as the
    grammar reads them."""
    fast = scanned(text, "d20")
    assert fast is not None
    assert shape(fast) == strict(text, "d20", quick=False)


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        ("2 // 0", "d20"),  # a divisor that is 0
        ("1d8 + 3 // 1d2 [x] % 0", "d20"),
        ("5 - 3d6 % 1d4", "d20"),  # a side that can be negative: Python's remainder
        ("2d6 // 3", "roll20"),  # no `//` in roll20
        ("4 * 1d6ro1", "roll20"),  # roll20 has no `ro`: its error
        ("3 * -2", "d20"),  # a sign after the operator: the grammar's
        ("3 * (1d4)", "d20"),
        ("3 // (1d4 - 1)", "d20"),  # a parenthesis that can be 0
        ("3 // (1d4, 0)kl1", "d20"),  # a set that can be 0
        ("3 * (1d4", "d20"),  # not closed
        ("3 * (-(-(1)))", "d20"),
        ("1d6 * 2 > 3", "roll20"),
        ("1d6 * [x]", "d20"),
        ("2 % 1d4 [unclosed", "d20"),
    ],
)
def test_parse_declines_what_the_grammar_refuses_or_reads_otherwise(
    text: str, dialect: str
) -> None:
    """Whatever the scanner declines, the grammar reads or refuses alike."""
    assert strict(text, dialect, quick=True) == strict(text, dialect, quick=False)


@pytest.mark.parametrize(
    "text",
    [
        "4d6kh3",
        "1d20+5",
        "(1d4 + 1, 3, 2d6kl1)kh1",
        "-(1d8 + 3) [healing]",
        "(1 [one], 2 [two], 3 [three])",
        "-1d8 + 4 - (3, 1d4)kh1",
        "3d8ro1+2",
        "-(6d8p<2 + 4d100 - (5d20ro1ro2k>3, 4d20ra20, 5)kl1 // 3)",
        "4d20kl1 // (1, 2d12e>10, 1d20ma19)kl1 + (2, 8)pl1",
        "(7d10rr1, 3d4rr<2p<2) * 5d12mi2ma5k>3",
        "+2d6 * -(3d6)kh1 / 2 + 7 % (1d4,)",
        "() + (1d6, ) + 2d20ra>19",
    ],
)
def test_the_scanner_reads_d20_forms_as_the_grammar(text: str) -> None:
    """The scanner itself reads these (it does not leave them to the readers after it)."""
    fast = scanned(text, "d20")
    assert fast is not None
    assert shape(fast) == strict(text, "d20", quick=False)


@pytest.mark.parametrize(
    "text",
    [
        "1d20 >= 10",  # a comparison
        "(1d6-10) % 3",  # a side of `%` that can be negative
        "3 // (1d4, 0)kl1",  # a divisor that can be 0
        "3d6 [Fire]",  # a label in other case than the lower-cased text
        "(1d6) kh1",  # a keep after blanks
        "4d6e6kh3ro1",  # out of d20's order
        "2d6rr1ro2",  # once and repeatedly
        "1d6e>0",  # explodes on every face
        "1001d6",  # too many dice
        "1d6 [unclosed",
        "[[1d6]]",
        "\u0663",  # ARABIC-INDIC DIGIT THREE alone: not an ASCII digit
        "\u00b2",  # SUPERSCRIPT TWO alone: `isdigit`, but `int` refuses it
    ],
)
def test_the_scanner_declines_what_the_grammar_refuses_or_reads_otherwise(text: str) -> None:
    assert scanned(text, "d20") is None
    assert strict(text, "d20", quick=True) == strict(text, "d20", quick=False)


@settings(max_examples=examples(300), deadline=None)
@given(
    case=st.sampled_from(sorted(DIALECTS)).flatmap(
        lambda dialect: st.tuples(
            st.one_of(
                readme_sum(),
                expressions(dialect),
                grouped_texts(dialect).map(lambda c: c[0]),
                notation_soup,
                plain_sum,
            ),
            st.just(dialect),
        )
    )
)
def test_what_the_scanner_reads_is_the_grammars_tree(case: tuple[str, str]) -> None:
    """Where the scanner reads a text at all, the grammar reads the same tree (node types,
    fields, label text as written), in every dialect, under roomy and tight limits."""
    text, dialect = case
    for limits in (Limits(), Limits(max_nesting=1, max_dice=8, max_explode_depth=1)):
        fast = scanned(text, dialect, limits)
        if fast is not None:
            assert shape(fast) == shape(grammar(text, limits, dialect=dialect))


def _nodes(node: object) -> list[object]:
    """`node` and every node inside it."""
    if type(node) is Label or type(node) is Neg:
        return [node, *_nodes(node.operand)]
    if type(node) is BinOp:
        return [node, *_nodes(node.left), *_nodes(node.right)]
    if type(node) is Pool:
        return [node, *(inner for item in node.items for inner in _nodes(item))]
    return [node]


@pytest.mark.parametrize(
    "text",
    [
        "2d6ma0 + 2d6ma1 + 3d6kh0 + 3d6kh1 + 2d6pl2 + 2d6pl1 + 4d6k>3 + 4d6p<2 + 1d6ro1ra6 + 2d4e4",
        "(1, 2d4)kh1 + (1, 2d4)kh0 + (1, 0) + (2, 3)pl1 + (2, 3)pl2 + () + (1d6,)k>3 + (3, -1)",
        "(2 [a], 1d4ma1 [b])pl1 [c] [d] + 3d6mi2ma5ph2 + (1d4ma0 [e],)",
    ],
)
def test_what_the_scanner_takes_for_at_least_one_bounds_finds_so(text: str) -> None:
    """A divisor the scanner does not bound again is one `bounds` finds 1 or more, and the
    ones it leaves to `bounds` include some `bounds` finds can be 0."""
    tree = scanned(text, "d20")
    assert tree is not None
    told = [(bounds(node)[0] >= 1, _at_least_one(node)) for node in _nodes(tree)]
    assert all(found for found, said in told if said)
    assert (True, True) in told and (False, False) in told


@settings(max_examples=examples(300), deadline=None)
@given(
    case=st.sampled_from(sorted(DIALECTS)).flatmap(
        lambda dialect: st.tuples(
            st.one_of(
                readme_sum(),
                expressions(dialect),
                grouped_texts(dialect).map(lambda c: c[0]),
                lone_texts(dialect).map(lambda c: c[0]),
            ),
            st.just(dialect),
        )
    )
)
def test_the_scanner_takes_a_divisor_for_at_least_one_only_where_bounds_does(
    case: tuple[str, str],
) -> None:
    """In every dialect (counted successes and penetrating dice can be 0)."""
    tree = scanned(*case)
    if tree is not None:
        for node in _nodes(tree):
            if _at_least_one(node):  # type: ignore[arg-type]
                assert bounds(node)[0] >= 1  # type: ignore[arg-type]


@settings(max_examples=examples(300), deadline=None)
@given(
    text=readme_sum(),
    dialect=st.sampled_from(["d20", "roll20", "onlinehost"]),
    limits=st.builds(
        Limits,
        max_nesting=st.integers(1, 3),
        max_dice=st.integers(1, 30),
        max_explode_depth=st.integers(0, 3),
        max_sides=st.sampled_from([6, 8, 20, 100]),
    ),
)
def test_the_scanner_keeps_every_limit_as_the_grammar(
    text: str, dialect: str, limits: Limits
) -> None:
    """Tight bounds on nesting, dice, explosions and sides: parse's tree or error (the
    scanner's where it reads the text) is the grammar's under the same limits (a text over
    `max_length` is refused before)."""
    assume(len(text) <= limits.max_length)

    def read(quick: bool) -> object:
        try:
            if quick:
                return shape(parse(text, limits, dialect=dialect))
            return shape(grammar(text, limits, dialect=dialect))
        except (NotationError, LimitError) as err:
            return f"{type(err).__name__}: {err}"

    assert read(quick=True) == read(quick=False)


class Replayed:
    """Scripted faces for any die: each drawn number folded into the die's sides, in order;
    `ScriptError` when they run out (as `ScriptedRng`)."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = faces
        self.used = 0

    def throw(self, sides: Sequence[int]) -> Throw:
        sizes = tuple(sides)
        if self.used + len(sizes) > len(self.faces):
            raise ScriptError(f"scripted dice ran out after {self.used}")
        drawn = self.faces[self.used : self.used + len(sizes)]
        self.used += len(sizes)
        return Throw(sizes, tuple((f - 1) % s + 1 for f, s in zip(drawn, sizes, strict=True)))


def rolled_by(fast: bool, expr: Expr, faces: list[int], limits: Limits) -> object:
    """A roll (its throws, flags, values and total) or the error it ends in, through `roll`
    (the plan) or through the brute-force reference (`tests/dice_reference.py`)."""
    rng = Replayed(faces)
    try:
        if fast:
            return roll(expr, rng=rng, limits=limits)
        return reference_roll(expr, rng, limits)
    except (LimitError, RuleError, ScriptError) as err:
        return f"{type(err).__name__}: {err}"


summed_groups = st.sampled_from(sorted(DIALECTS)).flatmap(
    lambda dialect: st.tuples(
        st.just(dialect),
        st.lists(
            st.tuples(
                st.sampled_from(["+", "-", " + ", " - "]),
                st.one_of(
                    lone_texts(dialect).map(lambda case: case[0]),
                    st.sampled_from(["3", "2d6", "d4[x]"]),
                ),
            ),
            min_size=1,
            max_size=4,
        ).map(lambda parts: "".join(op + term for op, term in parts)[1:]),
    )
)


@settings(max_examples=examples(300), deadline=None)
@given(
    case=st.one_of(
        summed_groups,
        st.sampled_from(sorted(DIALECTS)).flatmap(
            lambda dialect: st.tuples(st.just(dialect), expressions(dialect))
        ),
    ),
    faces=st.lists(st.integers(1, 120), max_size=60),
    max_dice=st.sampled_from([2, 5, 40, 1000]),
    depth=st.sampled_from([0, 1, 3, 20]),
)
def test_the_plan_throws_as_the_brute_force_reference(
    case: tuple[str, str], faces: list[int], max_dice: int, depth: int
) -> None:
    """Sums of groups with any modifiers and any other expression: throw by throw from the
    same scripted faces, the same groups, flags, values and total as the brute-force
    reference, or the same error (the dice budget, faces running out)."""
    dialect, text = case
    limits = Limits(max_dice=max_dice, max_explode_depth=depth)
    try:
        expr = parse(text, ROOMY, dialect=dialect)
    except (NotationError, LimitError):
        return
    assert rolled_by(True, expr, faces, limits) == rolled_by(False, expr, faces, limits)
