"""Typed numbers are ASCII digits everywhere, not only in the dice grammar.

`str.isdigit` is true for `²` (then `int()` raised a traceback) and for `٦٥` (then `int()` read
it as 65). Each reader below refused the first with a traceback or took the second silently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from referee.cli.fairness import parse_dice_list
from referee.cli.lab import parse_skills
from referee.cli.msv import parse_faces, parse_fighter
from referee.cli.srp_base import numbers
from referee.dice.chat import HOST_LINE as HOST_RE
from referee.errors import RefereeError
from referee.lab.battle import parse_side
from referee.numerals import MAX_DIGITS, is_whole
from referee.service.limits import parse_rate
from referee.systems.formula import parse_formula
from referee.systems.msv.convert import parse_two_dice
from referee.systems.srp.gear import parse_shield
from referee.systems.srp.magic import parse_cast
from referee.systems.srp.spirit import parse_spirits
from referee.transcripts import fighters
from referee.transcripts.formats import STAMP_RE, split_stamp

#: Each reader, a template for one typed number, and what the template reads as with `65`.
READERS: list[tuple[str, Callable[[str], Any], str]] = [
    ("msv fighter", parse_fighter, "Tarl={}"),
    ("msv faces", parse_faces, "{},17"),
    ("srp numbers", lambda t: numbers(t, "--dice", 3), "3,{},6"),
    ("fairness dice", parse_dice_list, "d{},d20"),
    ("lab skills", parse_skills, "50,{}"),
    ("lab side", parse_side, "Tarl={}, Orc=50"),
    ("lab formula", lambda t: parse_formula(t, "damage"), "roll > {}"),
    ("judge fighter", fighters.parse_fighter, "Tarl={}"),
    ("old dice", parse_two_dice, "2d{}"),
    ("srp shield", parse_shield, ".{}."),
    ("srp spell", parse_cast, "Mira:{}:Bolt:3"),
    ("srp spirit", lambda t: parse_spirits([t]), "Ulf={}"),
    ("rate", parse_rate, "{}/20s"),
]

#: Look like digits to `str.isdigit` (or to `re`'s `\d`), but are not ASCII 0-9.
NOT_ASCII = ["²", "٦٥", "６５", "꯶꯵"]


@pytest.mark.parametrize(("what", "read", "template"), READERS, ids=[r[0] for r in READERS])
def test_ascii_digits_are_read(what: str, read: Callable[[str], Any], template: str) -> None:
    number = "12" if what in {"srp shield", "lab side"} else "25"
    if what in {"lab side", "msv fighter", "judge fighter", "lab skills"}:
        number = "65"
    assert read(template.format(number)) is not None


@pytest.mark.parametrize("digits", NOT_ASCII)
@pytest.mark.parametrize(("what", "read", "template"), READERS, ids=[r[0] for r in READERS])
def test_other_digits_are_a_clear_error(
    what: str, read: Callable[[str], Any], template: str, digits: str
) -> None:
    with pytest.raises(RefereeError):
        read(template.format(digits))


@pytest.mark.parametrize(("what", "read", "template"), READERS, ids=[r[0] for r in READERS])
def test_thousands_of_digits_are_a_clear_error(
    what: str, read: Callable[[str], Any], template: str
) -> None:
    # int() refuses over 4,300 digits with a ValueError; the readers refuse first, clearly.
    with pytest.raises(RefereeError):
        read(template.format("9" * 5000))


def test_is_whole() -> None:
    assert is_whole("0") and is_whole("9" * MAX_DIGITS)
    assert not is_whole("9" * (MAX_DIGITS + 1))
    assert is_whole("-12", signs="-") and not is_whole("-12")
    for text in ["", "-", "--1", "+1", "1_000", " 1", "1 ", "1.0", *NOT_ASCII]:
        assert not is_whole(text, signs="-"), text


def test_a_host_line_with_other_digits_is_not_a_host_roll() -> None:
    # The host writes ASCII; `٤٧` in a host line was typed by someone, not rolled.
    assert HOST_RE.match("OnlineHost: Tarl rolled 1 100-sided die: 47")
    assert not HOST_RE.match("OnlineHost: Tarl rolled 1 100-sided die: ٤٧")
    assert not HOST_RE.match("OnlineHost: Tarl rolled ١ 100-sided die: 47")


def test_a_stamp_with_other_digits_is_not_a_stamp() -> None:
    assert split_stamp("[21:03] Tarl: hi") == ("hh:mm", "Tarl: hi")
    assert STAMP_RE.match("[٢١:٠٣] Tarl: hi") is None
