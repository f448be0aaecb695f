"""AOL chat dice (MSV-1): `//roll` commands and `OnlineHost:` lines."""

# ruff: noqa: E501  (golden tables: one case per line, messages quoted whole)

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.dice import Dice, HostLine, format_host_line, parse_chat, parse_host_line
from referee.errors import LimitError, NotationError, RuleError
from tests.depth import examples

COMMANDS = [
    ("//roll -sides100 -dice1", Dice(1, 100)),  # MSV-1, the MSV combat roll
    ("//roll-sides100-dice1", Dice(1, 100)),  # MSV-1, written without spaces
    ("//roll -dice2 -sides20", Dice(2, 20)),
    ("//roll-dice15-sides999", Dice(15, 999)),
    ("//ROLL -Dice3 -SIDES8", Dice(3, 8)),
    ("  //roll  -dice 4  -sides 10  ", Dice(4, 10)),
    ("//roll", Dice(2, 6)),  # AOL's default: two six-sided dice
    ("//roll -sides20", Dice(2, 20)),
    ("//roll -dice1", Dice(1, 6)),
]


@pytest.mark.parametrize(("text", "group"), COMMANDS)
def test_chat_commands(text: str, group: Dice) -> None:
    assert parse_chat(text) == group


CHAT_ERRORS = [
    ("roll 1d100", NotationError, "'roll 1d100' is not a chat roll (expected '//roll -dice1 -sides100')"),
    ("//roll -sides100 -faces2", NotationError, "unexpected '-' at column 18 in '//roll -sides100 -faces2' (expected '-dice' or '-sides' and a number)"),
    ("//roll -dice", NotationError, "unexpected '-' at column 8 in '//roll -dice' (expected '-dice' or '-sides' and a number)"),
    ("//roll -dice1 -dice2", NotationError, "'-dice' given twice in '//roll -dice1 -dice2'"),
    ("//roll -dice16", RuleError, "AOL rolled 1..15 dice, got 16 in '//roll -dice16' (MSV-1)"),
    ("//roll -dice0", RuleError, "AOL rolled 1..15 dice, got 0 in '//roll -dice0' (MSV-1)"),
    ("//roll -sides1000", RuleError, "AOL dice had 2..999 sides, got 1000 in '//roll -sides1000' (MSV-1)"),
    ("//roll -sides1", RuleError, "AOL dice had 2..999 sides, got 1 in '//roll -sides1' (MSV-1)"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "error", "message"), CHAT_ERRORS)
def test_bad_chat_commands(text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        parse_chat(text)
    assert str(caught.value) == message


def test_overlong_chat_command_is_a_limit_error() -> None:
    with pytest.raises(LimitError):
        parse_chat("//roll" + " " * 300)


def test_host_lines_are_written_as_aol_wrote_them() -> None:
    assert format_host_line("Tarl", 100, [47]) == "OnlineHost: Tarl rolled 1 100-sided die: 47"
    assert (
        format_host_line("Tarl", 20, (14, 17)) == "OnlineHost: Tarl rolled 2 20-sided dice: 14 17"
    )
    assert format_host_line("JimFear", 999, (587, 671, 18)) == (
        "OnlineHost: JimFear rolled 3 999-sided dice: 587 671 18"
    )


def test_host_lines_are_read_back() -> None:
    line = parse_host_line("OnlineHost: Tarl of Ko-ro-ba rolled 2 20-sided dice: 14 17")
    assert line == HostLine("Tarl of Ko-ro-ba", 2, 20, (14, 17))
    tabbed = parse_host_line("OnlineHost:\tJimFear rolled 1 2-sided die: 2\r\n")
    assert tabbed == HostLine("JimFear", 1, 2, (2,))


HOST_ERRORS = [
    ("Tarl rolled 1 100-sided die: 47", NotationError, "'Tarl rolled 1 100-sided die: 47' is not an OnlineHost roll line (expected 'OnlineHost: NAME rolled 2 20-sided dice: 14 17')"),
    ("OnlineHost: Tarl rolled 2 20-sided die: 14 17", NotationError, "'OnlineHost: Tarl rolled 2 20-sided die: 14 17' says 2 die (expected 'die' for 1, 'dice' for more)"),
    ("OnlineHost: Tarl rolled 1 20-sided dice: 14", NotationError, "'OnlineHost: Tarl rolled 1 20-sided dice: 14' says 1 dice (expected 'die' for 1, 'dice' for more)"),
    ("OnlineHost: Tarl rolled 2 20-sided dice: 14 17 3", RuleError, "2 dice named but 3 faces shown: (14, 17, 3) in 'OnlineHost: Tarl rolled 2 20-sided dice: 14 17 3'"),
    ("OnlineHost: Tarl rolled 1 100-sided die: 101", RuleError, "face 101 does not fit a 100-sided die in 'OnlineHost: Tarl rolled 1 100-sided die: 101'"),
    ("OnlineHost: Tarl rolled 1 100-sided die: 0", RuleError, "face 0 does not fit a 100-sided die in 'OnlineHost: Tarl rolled 1 100-sided die: 0'"),
    ("OnlineHost: Tarl rolled 16 6-sided dice: 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", RuleError, "AOL rolled 1..15 dice, got 16 (MSV-1) in 'OnlineHost: Tarl rolled 16 6-sided dice: 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1'"),
    ("OnlineHost: Tarl rolled 1 1000-sided die: 5", RuleError, "AOL dice had 2..999 sides, got 1000 (MSV-1) in 'OnlineHost: Tarl rolled 1 1000-sided die: 5'"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "error", "message"), HOST_ERRORS)
def test_bad_host_lines(text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        parse_host_line(text)
    assert str(caught.value) == message


@pytest.mark.parametrize("name", ["", " Tarl", "Tarl\n", "a-sided b", "x" * 65])
def test_bad_screen_names_are_refused(name: str) -> None:
    with pytest.raises((RuleError, LimitError)):
        format_host_line(name, 6, (3,))


def test_faces_must_fit_when_writing_too() -> None:
    with pytest.raises(RuleError, match=r"face 7 does not fit a 6-sided die"):
        format_host_line("Tarl", 6, (7,))
    with pytest.raises(RuleError, match=r"got 0"):
        format_host_line("Tarl", 6, ())


names = st.text(
    alphabet=st.characters(codec="utf-8", categories=["L", "N", "Zs", "P"]), min_size=1, max_size=64
).filter(lambda n: n == n.strip() and "-sided" not in n and n.isprintable())


@st.composite
def host_lines(draw: st.DrawFn) -> HostLine:
    sides = draw(st.integers(2, 999))
    faces = draw(st.lists(st.integers(1, sides), min_size=1, max_size=15))
    return HostLine(draw(names), len(faces), sides, tuple(faces))


@settings(max_examples=examples(300), deadline=None)
@given(line=host_lines())
def test_host_lines_round_trip(line: HostLine) -> None:
    assert parse_host_line(str(line)) == line
    assert format_host_line(line.name, line.sides, line.faces) == str(line)


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(max_size=200))
def test_any_text_reads_as_a_host_line_or_fails_cleanly(text: str) -> None:
    try:
        line = parse_host_line(text)
    except (NotationError, RuleError, LimitError):
        return
    assert parse_host_line(str(line)) == line


def test_the_services_own_host_lines_read_back_with_their_receipts() -> None:
    """The public reader reads what the service writes (`referee.sentences.roll_line`): the
    host line with its receipt, the stream too when it is not the roller's actions."""
    from referee.sentences import roll_line

    own = roll_line("Tarl", {"nonce": 3, "dice": ["d100"], "faces": [47], "stream": "act:Tarl"})
    assert parse_host_line(own) == HostLine("Tarl", 1, 100, (47,), nonce=3)
    free = roll_line("Tarl", {"nonce": 0, "dice": ["d6", "d6"], "faces": [2, 5],
                              "stream": "free:Tarl"})  # fmt: skip
    assert parse_host_line(free) == HostLine("Tarl", 2, 6, (2, 5), 0, "free:Tarl")
    assert str(parse_host_line(free)) == free


@pytest.mark.parametrize(
    ("nonce", "stream", "message"),
    [(-1, None, "nonce is a whole number >= 0, got -1"), (True, None, "got True"),
     (None, "act:Tarl", "is no receipt's"), (2, "Act:Tarl", "is no receipt's")],
)  # fmt: skip
def test_bad_receipts_are_refused(nonce: object, stream: str | None, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        HostLine("Tarl", 1, 100, (47,), nonce, stream)  # type: ignore[arg-type]


@settings(max_examples=examples(200), deadline=None)
@given(line=host_lines(), nonce=st.integers(0, 10**12 - 1), free=st.booleans())
def test_host_lines_with_receipts_round_trip_and_the_judge_reads_them_alike(
    line: HostLine, nonce: int, free: bool
) -> None:
    from referee.transcripts.rolls import HostRoll, read_roll

    stream = f"free:{line.name}" if free and "(" not in line.name and ")" not in line.name else None
    stamped = HostLine(line.name, line.count, line.sides, line.faces, nonce, stream)
    assert parse_host_line(str(stamped)) == stamped
    judged = read_roll(str(stamped))
    if isinstance(judged, HostRoll):  # a name the judge reads as a bot's (no ':', '@', ...)
        assert (judged.name, judged.faces, judged.nonce, judged.stream) == (
            stamped.name, stamped.faces, stamped.nonce, stamped.stream
        )  # fmt: skip
