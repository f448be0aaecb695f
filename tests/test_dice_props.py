"""Grammar-shaped property tests: parse, round trip, roll within bounds; bad text fails cleanly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.dice import DEFAULT_LIMITS, Limits, bounds, parse, render, roll
from referee.dice.parser import _parse
from referee.errors import LimitError, NotationError
from referee.rng import SeededRng

# Roomy limits so that generated expressions never trip them: only the grammar is under test.
ROOMY = Limits(max_length=1000, max_nesting=200)

space = st.sampled_from(["", "", " ", "\t"])


def case(text: str, upper: bool) -> str:
    return text.upper() if upper else text


@st.composite
def dice_group(draw: st.DrawFn) -> str:
    count = draw(st.sampled_from(["", "1", "2", "3", "5"]))
    sides = draw(st.sampled_from(["1", "2", "3", "6", "20", "%", "100"]))
    explode = sides not in ("1",) and draw(st.booleans())
    keep = draw(st.sampled_from(["", "", "k", "kh", "kl", "dh", "dl"]))
    keep_n = str(draw(st.integers(0, 6))) if keep else ""
    test = draw(st.sampled_from(["", "", ">=", "<=", ">", "<"]))
    target = str(draw(st.integers(0, 101))) if test else ""
    text = f"{count}d{sides}{'!' if explode else ''}{keep}{keep_n}{test}{target}"
    return case(text, draw(st.booleans()))


number = st.integers(0, 1000).map(str)
atom = st.one_of(number, dice_group())


def combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, space, st.sampled_from("+-*"), space, children).map("".join)
    signed = children.map(lambda c: f"-{c}")
    grouped = st.tuples(space, children, space).map(lambda t: f"({t[0]}{t[1]}{t[2]})")
    return st.one_of(binary, signed, grouped)


expression = st.recursive(atom, combine, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(text=expression, seed=st.integers(0, 2**32))
def test_generated_expressions_parse_round_trip_and_roll_within_bounds(
    text: str, seed: int
) -> None:
    expr = parse(text, ROOMY)
    assert parse(str(expr), ROOMY) == expr
    assert str(parse(str(expr), ROOMY)) == str(expr)
    result = roll(expr, rng=SeededRng(seed), limits=ROOMY)
    low, high = bounds(expr, ROOMY)
    assert low <= result.total <= high
    assert render(result).startswith(f"{expr} = ")
    assert render(result).endswith(f" = {result.total}")


@settings(max_examples=300, deadline=None)
@given(text=expression)
def test_fast_and_careful_parsing_agree_on_valid_text(text: str) -> None:
    assert _parse(text, ROOMY, fast=True) == _parse(text, ROOMY, fast=False)


def outcome(text: str, fast: bool | None) -> str:
    """What parsing gives: `parse` itself (None), the fast reader or the careful one."""
    try:
        return repr(parse(text) if fast is None else _parse(text, DEFAULT_LIMITS, fast))
    except (NotationError, LimitError) as err:
        return f"{type(err).__name__}: {err}"


notation_soup = st.text(alphabet="0123456789dDkKhHlL%!<>=+-*() \t x", max_size=20)


@settings(max_examples=500, deadline=None)
@given(text=notation_soup)
def test_fast_and_careful_parsing_agree_on_any_text(text: str) -> None:
    careful = outcome(text, fast=False)
    assert outcome(text, fast=True) == careful
    assert outcome(text, fast=None) == careful


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(st.text(), notation_soup, st.text(max_size=400)))
def test_any_text_parses_or_fails_with_a_referee_error(text: str) -> None:
    try:
        expr = parse(text)
    except (NotationError, LimitError) as err:
        message = str(err)
        assert repr(text) in message or repr(text[:37] + "...") in message
        assert "\n" not in message
        return
    assert parse(str(expr)) == expr


@settings(max_examples=100, deadline=None)
@given(text=expression)
def test_render_shows_every_die_once(text: str) -> None:
    expr = parse(text, ROOMY)
    result = roll(expr, rng=SeededRng(5), limits=ROOMY)
    middle = render(result)
    assert middle.count("[") == len(result.groups)
    assert sum(len(g.faces) for g in result.groups) == len(result.dice)
