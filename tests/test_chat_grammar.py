"""The chat grammar: whole lines only, names without quotes or capitals, a notation that
round-trips, and one clear error for every line that is not a command."""

# ruff: noqa: E501  (golden tables: one case per line, messages quoted whole)

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.chat import (
    VERBS,
    Act,
    Add,
    AmbiguousName,
    AolRoll,
    Attack,
    Cancel,
    ChatCommand,
    Close,
    End,
    Help,
    Init,
    NotACommand,
    Odds,
    Power,
    Quit,
    Referee,
    Remove,
    Roll,
    Roster,
    Score,
    Spirit,
    Status,
    Update,
    parse_line,
)
from referee.errors import LimitError, NotFoundError, RefereeError
from tests.depth import examples

ROSTER = Roster(("Tarl", "Pa-Kur", "Pa Kur", "Bob the Bold", "Bob"), ("Reds", "Blues"))

LINES: list[tuple[str, ChatCommand]] = [
    ("help", Help()),
    ("status", Status()),
    ("  STATUS  ", Status()),
    ("!score", Score()),
    ("init", Init()),
    ("quit", Quit()),
    ("pause", Referee(Power.PAUSE)),
    ("Resume", Referee(Power.RESUME)),
    ("skip", Referee(Power.SKIP)),
    ("void", Referee(Power.VOID)),
    ("close bout", Close()),
    ("CLOSE  Bout", Close()),
    ("cancel bout", Cancel()),
    ("end bout", End()),
    ("end bout reds", End("Reds")),
    ("//roll -sides100 -dice1", AolRoll(1, 100)),
    ("//roll", AolRoll(2, 6)),
    ("//roll 2d20+1d6", Roll("2d20+1d6")),
    ("roll 2d20 + 1d6", Roll("2d20+1d6")),
    ("roll 4d6kh3", Roll("4d6kh3")),
    ("attack pa-kur", Attack("Pa-Kur")),
    ("attack Pa Kur", Attack("Pa Kur")),
    ("attack PA KUR", Attack("Pa Kur")),
    ('attack "Pa Kur"', Attack("Pa Kur")),
    ("attack tarl pa kur", Attack("Pa Kur", "Tarl")),
    ("attack Bob the Bold Tarl", Attack("Tarl", "Bob the Bold")),
    ("attack bob tarl", Attack("Tarl", "Bob")),
    ("act shoot target=pa kur", Act("shoot", (("target", "Pa Kur"),))),
    (
        "act disarm target=Tarl actor=bob the bold rear=true",
        Act("disarm", (("target", "Tarl"), ("actor", "Bob the Bold"), ("rear", True))),
    ),
    ("act move x=-2 y=3", Act("move", (("x", -2), ("y", 3)))),
    ("add Bob the Bold 50", Add("Bob the Bold", 50)),
    ("add Tarl 65 Reds", Add("Tarl", 65, "Reds")),
    ("add Ann 60 reds", Add("Ann", 60, "Reds")),
    ('add "Agent 47" 50', Add("Agent 47", 50)),
    ("update pa kur wounds=3", Update("Pa Kur", (("wounds", 3),))),
    ("update Tarl cs=70 wounds=0", Update("Tarl", (("cs", 70), ("wounds", 0)))),
    ("remove bob the bold", Remove("Bob the Bold")),
]


@pytest.mark.parametrize(("line", "command"), LINES)
def test_whole_lines_are_commands(line: str, command: ChatCommand) -> None:
    assert parse_line(line, ROSTER) == command


@pytest.mark.parametrize(("line", "command"), LINES)
def test_the_notation_round_trips(line: str, command: ChatCommand) -> None:
    assert parse_line(str(command), ROSTER) == command


ERRORS: list[tuple[str, type[RefereeError], str]] = [
    ("close call!", NotACommand, "not a command; did you mean `close bout`? (or `close joining`)"),
    ("close", NotACommand, "not a command; did you mean `close bout`? (or `close joining`)"),
    ("pause for a moment please", NotACommand, "not a command; did you mean `pause`?"),
    ("status please", NotACommand, "not a command; did you mean `status`?"),
    ("cancel that", NotACommand, "not a command; did you mean `cancel bout`?"),
    (
        "end",
        NotACommand,
        "not a command; did you mean `end bout`? (or `end bout SIDE` to name the winners)",
    ),
    (
        "end of story",
        NotACommand,
        "not a command; did you mean `end bout`? (or `end bout SIDE` to name the winners)",
    ),
    ("init now", NotACommand, "not a command; did you mean `init`?"),
    ("dance wildly", NotACommand, "not a command: 'dance wildly' (say `help` for the list)"),
    ("", NotACommand, "not a command: the line is empty (say `help` for the list)"),
    (
        "attack",
        NotACommand,
        "not a command; say `attack TARGET` (the referee: `attack ATTACKER TARGET`)",
    ),
    (
        "attack the orc with my sword",
        NotFoundError,
        "no fighter called 'the orc with my sword' (fighters: Tarl, Pa-Kur, Pa Kur, Bob the Bold, Bob)",
    ),
    ("end bout greens", NotFoundError, "no side called 'greens' (sides: Reds, Blues)"),
    (
        "remove Zed",
        NotFoundError,
        "no fighter called 'Zed' (fighters: Tarl, Pa-Kur, Pa Kur, Bob the Bold, Bob)",
    ),
    (
        "add Tarl",
        NotACommand,
        "not a command; say `add NAME CS [SIDE]` (e.g. `add Tarl 65` or `add Bob the Bold 50 Reds`)",
    ),
    ("add Tarl 1234567", LimitError, "number '1234567'... has more than 6 digits"),
    (
        "update Tarl",
        NotACommand,
        "not a command; say `update NAME key=value ...` (e.g. `update Tarl wounds=3`)",
    ),
    ("update Tarl wounds=", NotACommand, "not a command: wounds= has no value"),
    (
        "act",
        NotACommand,
        "not a command; say `act KIND key=value ...` (e.g. `act shoot target=Orc`)",
    ),
    (
        "act shoot Tarl",
        NotACommand,
        "not a command; say `act KIND key=value ...` (e.g. `act shoot target=Orc`)",
    ),
    ("act shoot target=Tarl target=Bob", NotACommand, "not a command: 'target' given twice"),
    ("roll", NotACommand, "not a command; say `roll EXPR` (roll 2d20+1d6)"),
    ("roll for initiative!", NotACommand, "not a command: "),
    ("//roll -sides1000", NotACommand, "not a command: AOL dice had 2..999 sides, got 1000"),
    ("remove", NotACommand, "not a command; say `remove NAME` (a fighter leaving says `quit`)"),
]


@pytest.mark.parametrize(("line", "error", "message"), ERRORS)
def test_every_other_line_is_one_clear_error(
    line: str, error: type[RefereeError], message: str
) -> None:
    with pytest.raises(error) as caught:
        parse_line(line, ROSTER)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_two_fighters_of_one_name_in_any_case_are_listed() -> None:
    with pytest.raises(AmbiguousName, match=r"'tarl' fits Tarl and TARL"):
        parse_line("attack tarl", Roster(("Tarl", "TARL")))


def test_two_readings_of_a_referee_attack_are_listed() -> None:
    roster = Roster(("Bob", "Bob the", "the Bold", "Bold"))
    with pytest.raises(AmbiguousName) as caught:
        parse_line("attack Bob the Bold", roster)
    assert str(caught.value) == (
        "'Bob the Bold' can be read as `attack Bob the Bold`; `attack Bob the Bold`: say one of them"
    )


def test_the_longest_fighter_name_wins() -> None:
    roster = Roster(("Bob", "Tarl", "Bob Tarl"))
    assert parse_line("attack bob tarl", roster) == Attack("Bob Tarl")


def test_a_name_with_an_emoji_or_markdown_is_reached_by_its_letters() -> None:
    """A fighter called `🗡️ Rask of Treve` or `**Kamchak**` is named by typing its words; a
    name typed as written still wins, and two names with the same letters are both listed."""
    roster = Roster(("🗡️ Rask of Treve", "**Kamchak**", "Tarl 👩‍🚀", "Pa-Kur"))
    assert parse_line("attack kamchak rask of treve", roster) == Attack(
        "🗡️ Rask of Treve", attacker="**Kamchak**"
    )
    assert parse_line("remove tarl", roster) == Remove("Tarl 👩‍🚀")
    assert parse_line("attack Pa-Kur", roster) == Attack("Pa-Kur")  # punctuation of names stays
    with pytest.raises(NotFoundError):
        parse_line("attack pa kur", roster)
    twins = Roster(("Rask", "*Rask*"))
    assert parse_line("attack *Rask*", twins) == Attack("*Rask*")  # as written
    with pytest.raises(AmbiguousName, match=r"'rask' fits"):
        parse_line("attack rask", Roster(("🗡 Rask", "*Rask*")))


def test_every_verb_is_listed_for_huds_and_bots() -> None:
    assert set(VERBS) >= {"//roll", "roll", "attack", "act", "close", "end", "cancel", "help"}


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ-'", min_size=1, max_size=8)
_NAME = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)


@settings(max_examples=examples(200), deadline=None)
@given(names=st.lists(_NAME, min_size=2, max_size=5, unique_by=str.casefold), data=st.data())
def test_generated_commands_round_trip(names: list[str], data: st.DataObject) -> None:
    roster = Roster(tuple(names))
    target = data.draw(st.sampled_from(names))
    attacker = data.draw(st.sampled_from(names))
    cs = data.draw(st.integers(0, 100))
    for command in (
        Attack(target),
        Spirit(target),
        Odds(f"{cs + 1}d6+{cs}"),
        Remove(target),
        Add(target, cs),
        Update(target, (("wounds", cs),)),
        Act("shoot", (("target", target), ("rear", True))),
    ):
        assert parse_line(str(command), roster) == command
    two = Attack(target, attacker)
    try:
        read = parse_line(str(two), roster)
    except AmbiguousName:
        return  # names that make two readings are listed, not guessed
    if read != two:  # the rest of the line is itself one fighter's name: that reading comes first
        rest = " ".join(str(two).split()[1:]).casefold()
        assert read == Attack(next(n for n in names if n.casefold() == rest))


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_command_or_one_clear_error(line: str) -> None:
    try:
        command = parse_line(line, ROSTER)
    except RefereeError as err:
        assert str(err) and "\n" not in str(err)
    else:
        assert parse_line(str(command), ROSTER) == command
