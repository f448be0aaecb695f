"""Dialects: every row of docs/dice.md's table, what each dialect refuses, and the limits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.dice import (
    DIALECTS,
    Compare,
    Dice,
    Explode,
    Keep,
    KeepMode,
    Limits,
    Success,
    dialect,
    parse,
    parse_cached,
    roll,
    write,
)
from referee.dice.render import number
from referee.errors import LimitError, NotationError, ScriptError
from referee.rng import ScriptedRng

DOC = Path(__file__).resolve().parent.parent / "docs" / "dice.md"


def table_cells() -> list[list[str]]:
    """The cells of every row of the forms table."""
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- forms -->")[1].split("<!-- /forms -->")[0]
    rows = []
    for line in block.strip().splitlines()[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 9, line
        rows.append(cells)
    return rows


def table_rows() -> list[tuple[str, str, list[int], str]]:
    """(dialect, example, faces, total) for every row of the forms table."""
    rows = []
    for _form, _r20, _oh, _d20, _differs, name, example, faces, total in table_cells():
        rows.append((name, example.strip("`"), [int(f) for f in faces.split(",")], total))
    return rows


def test_every_row_marks_where_the_dialects_differ() -> None:
    """A row whose dialects mean different things names who differs; one that says `none`
    has every meaning the same (`same` as roll20's, or one dialect alone)."""
    for form, r20, oh, d20, differs, *_ in table_cells():
        meanings = {m for m in (r20, oh, d20) if m != "same" and not m.startswith("-")}
        if differs == "none":
            assert len(meanings) <= 1, form
        else:
            assert differs.split(" ")[0] in {*DIALECTS, "spelling"}, form
            assert len(meanings) > 1 or "refused" in differs or "order" in differs, form


ROWS = table_rows()


def test_the_table_covers_every_dialect_and_many_forms() -> None:
    assert {name for name, *_ in ROWS} == set(DIALECTS)
    assert len(ROWS) >= 50


@pytest.mark.parametrize(("name", "example", "faces", "total"), ROWS)
def test_every_row_of_the_docs_table(name: str, example: str, faces: list[int], total: str) -> None:
    rng = ScriptedRng(faces)
    expr = parse(example, dialect=name)
    result = roll(expr, rng=rng)
    assert number(result.total) == total
    assert rng.remaining == 0  # every face given was thrown, in order
    assert parse(write(expr, name), dialect=name) == expr


DISAGREE = [
    ("4d6k3", "roll20", Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))),
    ("4d6k3", "onlinehost", Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 3))),
    ("4d6k3", "d20", Dice(4, 6, keep=Keep(KeepMode.MATCHING, 0, Success(Compare.EQ, 3)))),
    ("4d6d3", "roll20", Dice(4, 6, keep=Keep(KeepMode.DROP_LOWEST, 3))),
    ("4d6d3", "onlinehost", Dice(4, 6, keep=Keep(KeepMode.DROP_HIGHEST, 3))),
    ("4d6d", "onlinehost", Dice(4, 6, keep=Keep(KeepMode.DROP_HIGHEST, 1))),
    ("4d6k", "onlinehost", Dice(4, 6, keep=Keep(KeepMode.HIGHEST, 1))),
    ("3d6>3", "roll20", Dice(3, 6, success=Success(Compare.GE, 3))),
    ("3d6<3", "roll20", Dice(3, 6, success=Success(Compare.LE, 3))),
    ("3d6!>4", "roll20", Dice(3, 6, explode=True, explode_on=Success(Compare.GE, 4))),
    ("3d6!>4", "onlinehost", Dice(3, 6, explode=True, explode_on=Success(Compare.GE, 5))),
    ("3d6!>=4", "onlinehost", Dice(3, 6, explode=True, explode_on=Success(Compare.GE, 4))),
    ("3d6!4", "onlinehost", Dice(3, 6, explode=True, explode_on=Success(Compare.EQ, 4))),
    ("3d6e>4", "d20", Dice(3, 6, explode=True, explode_on=Success(Compare.GE, 5))),
    ("3d6e6", "d20", Dice(3, 6, explode=True)),
    ("4d10c>=4", "onlinehost", Dice(4, 10, success=Success(Compare.GE, 4))),
    ("4d10c<=4", "onlinehost", Dice(4, 10, success=Success(Compare.LE, 4))),
    ("4d10c", "onlinehost", Dice(4, 10, success=Success(Compare.EQ, 10))),
    ("5d6!!", "roll20", Dice(5, 6, explode=True, explode_kind=Explode.COMPOUND)),
    (
        "5d6!p>5",
        "roll20",
        Dice(5, 6, True, explode_kind=Explode.PENETRATE, explode_on=Success(Compare.GE, 5)),
    ),
    ("2d8r1r3", "roll20", Dice(2, 8, reroll=(Success(Compare.EQ, 1), Success(Compare.EQ, 3)))),
    ("2d8ro<2", "roll20", Dice(2, 8, reroll=(Success(Compare.LE, 2),), reroll_once=True)),
    ("2d6rr<3", "d20", Dice(2, 6, reroll=(Success(Compare.LE, 2),))),
    ("8d6mi2ma5", "d20", Dice(8, 6, floor=2, ceiling=5)),
    ("4dF", "roll20", Dice(4, 3, fudge=True)),
    ("4f", "onlinehost", Dice(4, 3, fudge=True)),
]


@pytest.mark.parametrize(("text", "name", "tree"), DISAGREE)
def test_each_dialect_reads_its_own_way(text: str, name: str, tree: Dice) -> None:
    assert parse(text, dialect=name) == tree


REFUSED = [
    ("4d6d3", "d20", "'d' at column 4", "roll20 and onlinehost"),
    ("3d6>3", "onlinehost", "'>' at column 4", "roll20 and d20"),
    ("8d6mi2", "roll20", "'m' at column 4", "d20"),
    ("4d6pl1", "onlinehost", "'p' at column 4", "d20"),
    ("dh50", "roll20", "'h' at column 2", "onlinehost"),
    ("4d10c>=4", "roll20", "'c' at column 5", "onlinehost"),
    ("1d20+5[fire]", "onlinehost", "'[' at column 7", "roll20 and d20"),
    ("{1d20,1d20}kh1", "d20", "'{' at column 1", "roll20"),
    ("(1d20,1d20)kh1", "roll20", "',' at column 6", "d20"),
    ("4dF", "d20", "'F' at column 3", "roll20"),
    ("/roll 1d20", "d20", "'/' at column 1", "roll20"),
    ("7//2", "roll20", "'/' at column 3", "d20"),
]


@pytest.mark.parametrize(("text", "name", "where", "has_it"), REFUSED)
def test_a_form_a_dialect_lacks_is_refused_naming_who_has_it(
    text: str, name: str, where: str, has_it: str
) -> None:
    with pytest.raises(NotationError) as caught:
        parse(text, dialect=name)
    message = str(caught.value)
    assert repr(text) in message and where in message
    assert f"this is {has_it} notation" in message


def test_errors_name_the_operators_accepted_there() -> None:
    with pytest.raises(NotationError) as caught:
        parse("1d6 x", dialect="d20")
    assert "(expected an operator (// + - * / % == != >= <= > <) or end of input)" in str(
        caught.value
    )
    with pytest.raises(NotationError, match=r"expected a modifier \(! c d k\)"):
        parse("4d6x", dialect="onlinehost")


def test_unknown_dialect_names_the_known_ones() -> None:
    with pytest.raises(NotationError, match=r"expected one of d20, onlinehost, roll20"):
        dialect("avrae")
    assert dialect("D20") is DIALECTS["d20"]
    # Every path of the parser checks the name first, the plainest texts too.
    for text in ("1d6", "7", "1d6+2", "4d6kh3", "(1d4, 2)kh1"):
        with pytest.raises(NotationError, match=r"expected one of d20, onlinehost, roll20"):
            parse(text, dialect="avrae")
        with pytest.raises(NotationError, match=r"expected one of d20, onlinehost, roll20"):
            parse_cached(text, dialect="avrae")


def test_non_ascii_digits_are_refused_naming_the_character() -> None:
    for text, char in [("1d²", "U+00B2 SUPERSCRIPT TWO"), ("١d٦", "U+0661 ARABIC-INDIC DIGIT ONE")]:
        for name in DIALECTS:
            with pytest.raises(NotationError, match=re.escape(char) + ", not an ASCII digit"):
                parse(text, dialect=name)


LIMITED = [
    ("3d6r1", Limits(max_dice=18), "could throw 63 dice"),
    ("{1d6!, 1d6!}kh1", Limits(max_dice=41), "could throw 42 dice"),
    ("(1d6e6, 1d6)kh1", Limits(max_dice=21), "could throw 22 dice"),
    ("2d6ra6", Limits(max_dice=2), "could throw 3 dice"),
    ("dh50+dh50+dh50", Limits(max_dice=2), "could throw 3 dice"),
    ("1d6[" + "x" * 300 + "]", Limits(), "characters long"),
    ("{" * 33 + "1" + "}" * 33, Limits(), "nests more than 32"),
    ("floor(" * 33 + "1" + ")" * 33, Limits(max_length=400), "nests more than 32"),
]


@pytest.mark.parametrize(("text", "limits", "message"), LIMITED)
def test_every_new_form_keeps_the_limits_before_any_die_is_thrown(
    text: str, limits: Limits, message: str
) -> None:
    name = "d20" if text.startswith("(") or "ra" in text else "roll20"
    name = "onlinehost" if text.startswith("dh") else name
    with pytest.raises(LimitError, match=re.escape(message)):
        parse(text, limits, dialect=name)


def test_scripted_faces_run_out_or_misfit_with_a_clear_error() -> None:
    with pytest.raises(ScriptError, match="ran out"):
        roll(parse("2d6!"), rng=ScriptedRng([6, 6]))
    with pytest.raises(ScriptError, match="does not fit a d6"):
        roll(parse("2d6r1"), rng=ScriptedRng([1, 7]))


@pytest.mark.parametrize(
    ("text", "divisor", "can"),
    [
        ("6/(1d2-1)", "(1d2-1)", "can be"),
        ("1/(1d100>31)", "(1d100>31)", "can be"),  # the outside probe's preview of a d100
        ("1d20 % (2d6-7)", "(2d6-7)", "can be"),
        ("1d6/floor(1d6/4)", "floor(1d6/4)", "can be"),
        ("7/0", "0", "is"),
    ],
)
def test_a_divisor_that_can_be_zero_is_refused_when_read(text: str, divisor: str, can: str) -> None:
    """No outcome before its record: a division by zero that showed only after the throw would
    tell the roller about faces nobody recorded, so it is refused before any die is thrown."""
    with pytest.raises(NotationError, match=rf"the divisor {re.escape(repr(divisor))} .* {can} 0"):
        parse(text)


@pytest.mark.parametrize("text", ["6/(1d2+1)", "1d20 % (2d6)", "-1d6 / -1d4", "1d6/(1d2-3)"])
def test_a_divisor_that_cannot_be_zero_is_read(text: str) -> None:
    parse(text)


def test_a_tree_built_by_hand_that_divides_by_zero_is_a_rule_error() -> None:
    from referee.dice.expr import BinOp, Const, Dice, Op
    from referee.errors import RuleError

    tree = BinOp(Op.DIV, Const(6), BinOp(Op.SUB, Dice(1, 2), Const(1)))
    with pytest.raises(RuleError, match=r"division by zero in '6/\(1d2-1\)'"):
        roll(tree, rng=ScriptedRng([1]))


# Every silent misread issue 31 found: each is now refused, with the reason, in the dialect
# named (d20's answer, worked out from its written order, is in the comment).
MISREADS = [
    ("1d6rr1ro2", "d20", "rerolls both once and repeatedly"),  # faces 1,1: d20 rerolls again
    ("1d6r1ro2", "roll20", "rerolls both once and repeatedly"),
    ("1d6ro2rr1", "d20", "rerolls both once and repeatedly"),
    ("1d6ro2r1", "roll20", "rerolls both once and repeatedly"),
    ("1d10p>5ma3", "d20", "'ma' at column 8 in '1d10p>5ma3' comes after 'p'"),  # face 8: d20 0
    ("1d6ma2mi4", "d20", "'mi' at column 7 in '1d6ma2mi4' comes after 'ma'"),  # face 1: d20 4
    ("1d2ma1ro<2", "d20", "'ro' at column 7 in '1d2ma1ro<2' comes after 'ma'"),  # 1,2: d20 2
    ("4d6kh3e6", "d20", "'e' at column 7 in '4d6kh3e6' comes after 'k'"),  # 6,2,5,4,1: d20 16
    ("1d10p5e10", "d20", "'e' at column 7 in '1d10p5e10' comes after 'p'"),  # 10,5: d20 15
    ("1d3ma1e<2", "d20", "explodes on every value it can show (1 once clamped)"),
    ("1d6rr1e6", "d20", "d20 rerolls only the dice thrown before 'e'"),  # 6,1,4: d20 7
    ("1d6mi2e6", "d20", "d20 sets 'mi'/'ma' only on the dice thrown before"),  # 6,1: d20 7
    ("1d6ra6mi2", "d20", "d20 sets 'mi'/'ma' only on the dice thrown before"),
    ("2d6ra6e6", "d20", "d20's 'ra' may pick a die 'e' exploded"),
    ("d%", "d20", "d20's d% is a tens die (0, 10, ..., 90)"),
    ("2d6 + 1d%", "d20", "'d%' at column 8 in '2d6 + 1d%'"),
    ("(1d6-10) % 3", "d20", "'%' before column 11 in '(1d6-10) % 3' has a side that can be"),
    ("7 % (1d6-8)", "d20", "has a side that can be negative"),
    ("(3d6kh2)kh1", "d20", "a second keep or drop on the group in '(3d6kh2)kh1'"),
    # roll20 forms whose meaning its reference leaves open, or that referee does not read
    ("2d6!r1", "roll20", "rerolls and explodes: roll20's dice reference does not say"),
    ("2d6r1!", "roll20", "rerolls and explodes: roll20's dice reference does not say"),
    ("1 + 3d6ro<2!!", "roll20", "'3d6ro<2!!' at column 5 in '1 + 3d6ro<2!!' rerolls and"),
    ("{2d6r1!p}kh1", "roll20", "rerolls and explodes"),
    ("4d6m", "roll20", "'m' at column 4 in '4d6m': roll20's matching dice"),
    ("4d6mt", "roll20", "'mt' at column 4 in '4d6mt': roll20's matching dice"),
    ("4d6mt3+1", "roll20", "roll20's matching dice ('4d6m' marks dice that show the same face"),
    ("1 + [[1d6]]", "roll20", "'[[' at column 5 in '1 + [[1d6]]': an inline roll is read only"),
    ("[[ [[1d4]]d6 ]]", "roll20", "an inline roll is read only as a whole text"),
    ("[[1d6]]", "d20", "an inline roll is read only as roll20's '[[ expression ]]', not in"),
    ("[[1d6]]", "onlinehost", "not in the onlinehost dialect"),
]


@pytest.mark.parametrize(("text", "name", "message"), MISREADS)
def test_no_silent_misread_is_left(text: str, name: str, message: str) -> None:
    with pytest.raises(NotationError, match=re.escape(message)):
        parse(text, dialect=name)
    with pytest.raises(NotationError, match=re.escape(message)):
        parse_cached(text, dialect=name)


@pytest.mark.parametrize(
    ("text", "name", "faces", "total"),
    [
        ("(3d6)kh1", "d20", [1, 5, 3], 5),  # d20 keeps the highest die, not the sum 9
        ("((3d6))pl2", "d20", [1, 5, 3], 5),
        ("(1d6+1d4)kh1", "d20", [3, 1], 4),  # anything else: a one-item set, as d20 has it
        ("(1d6-10) % 3", "roll20", [3], -1),  # JavaScript: -7 % 3 is -1 (Python: 2)
        ("(1d6-10) % -3", "roll20", [3], -1),
        ("(1d6+3) % -4", "roll20", [4], 3),
        ("1d20 % 6", "d20", [17], 5),  # no negative side: the same in every dialect
        ("2d6ro1ro2", "d20", [2, 4, 1, 6], 10),  # consecutive `ro`: either test, once
        ("2d6ro1ro2", "roll20", [2, 4, 1, 6], 10),
        ("3d6rr1mi3kh2", "d20", [1, 1, 2, 5, 2], 8),  # 1 -> 1 -> 2 -> mi 3; 5; 2 -> 3
        # referee's throw order: each die, then what it adds (d20 throws 6, 1, then 3, 4)
        ("2d6rr1ra6kh2", "d20", [6, 4, 1, 3], 10),  # 6 adds one die (4); 1 -> 3; keep 6, 4
        ("1d6r1r2", "roll20", [1, 2, 5], 5),
        # roll20's inline roll, a whole text: the expression inside
        ("[[1d20+5]]", "roll20", [14], 19),
        (" [[ 4d6kh3 ]] ", "roll20", [6, 1, 5, 4], 15),
        ("[[2d6!]]", "roll20", [6, 2, 3], 11),
        ("[[1d6[fire] + 2]]", "roll20", [4], 6),
    ],
)
def test_written_forms_give_the_platforms_total(
    text: str, name: str, faces: list[int], total: int
) -> None:
    rng = ScriptedRng(faces)
    assert roll(parse(text, dialect=name), rng=rng).total == total
    assert rng.remaining == 0
