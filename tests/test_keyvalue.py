"""One `key=value` reader (`referee.keyvalue`) for chat lines, Discord commands and SRP fighter
specs (CLI and lab): the same text gives the same value, or the same refusal, by every path."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.chat import Act, Roster, parse_line
from referee.discord.characters import parse_character
from referee.discord.desk import pairs
from referee.errors import LimitError, NotationError, RefereeError, RuleError
from referee.keyvalue import MAX_DIGITS, PairError, read_pair, read_pairs, read_value
from referee.systems.srp.combatants import sheet_from_spec

ROSTER = Roster(names=("Tarl", "Pa-Kur"))

#: Value texts as people type them: numbers (signed, padded, too long, not ASCII), the
#: boolean words in any case, and words.
VALUES = st.one_of(
    st.integers(-(10**7), 10**7).map(str),
    st.integers(0, 999).map(lambda n: f"+{n}"),
    st.integers(0, 99).map(lambda n: f"00{n}"),
    st.sampled_from(["true", "TRUE", "False", "yes", "no", "٦٥", "6a", "1" * (MAX_DIGITS + 1)]),
    st.text(alphabet="abcxyz0123456789+-_()", min_size=1, max_size=8),
)


def by_keyvalue(text: str) -> Any:
    return read_pairs([f"aimed={text}"])["aimed"]


def by_chat(text: str) -> Any:
    command = parse_line(f"act shoot aimed={text}", ROSTER)
    assert isinstance(command, Act)
    return dict(command.options)["aimed"]


def by_discord(text: str) -> Any:
    return pairs([f"aimed={text}"])["aimed"]


def outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        value = read(text)
    except LimitError as err:
        return ("limit", str(err))
    return ("value", (type(value).__name__, value))


@given(text=VALUES)
def test_chat_discord_and_the_reader_give_the_same_value(text: str) -> None:
    expected = outcome(by_keyvalue, text)
    assert outcome(by_chat, text) == expected
    assert outcome(by_discord, text) == expected


@given(text=VALUES)
def test_an_srp_spec_reads_its_numbers_by_the_same_reader(text: str) -> None:
    """`hits=TEXT` in a fighter spec: the hits are the reader's whole number when it is one in
    range; anything the reader does not read as a whole number is refused as not one."""
    try:
        value = read_value(text)
    except LimitError:
        with pytest.raises(LimitError):
            sheet_from_spec("Ann", f"hits={text}")
        return
    if isinstance(value, bool) or not isinstance(value, int):
        with pytest.raises(NotationError, match="is not a whole number"):
            sheet_from_spec("Ann", f"hits={text}")
    elif 1 <= value <= 1000:
        assert sheet_from_spec("Ann", f"hits={text}").hits == value
    else:
        with pytest.raises(RuleError, match="out of range"):
            sheet_from_spec("Ann", f"hits={text}")


@pytest.mark.parametrize("text", ["true", "True", "TRUE"])
def test_aimed_true_is_the_boolean_true_everywhere(text: str) -> None:
    assert by_keyvalue(text) is True and by_chat(text) is True and by_discord(text) is True


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["cs70"], "expected key=value, got 'cs70'"),
        (["=70"], "expected key=value, got '=70'"),
        (["cs="], "expected key=value, got 'cs='"),
        (["cs=1", "cs=2"], "'cs' given twice"),
    ],
)
def test_a_malformed_pair_has_one_clear_error(words: list[str], said: str) -> None:
    with pytest.raises(PairError) as caught:
        read_pairs(words)
    assert str(caught.value) == said
    with pytest.raises(PairError) as by_bot:
        pairs(words)
    assert str(by_bot.value) == said


def test_a_malformed_spec_item_says_so_with_the_spec() -> None:
    with pytest.raises(NotationError) as caught:
        sheet_from_spec("Ann", "skill=15 hits")
    assert str(caught.value) == (
        "in the fighter spec 'skill=15 hits': expected key=value, got 'hits'"
    )
    with pytest.raises(NotationError, match="'Skill' given twice"):
        sheet_from_spec("Ann", "skill=15, Skill=12")


def test_digits_are_limited_alike() -> None:
    long = "9" * (MAX_DIGITS + 1)
    for read in (by_keyvalue, by_chat, by_discord):
        with pytest.raises(LimitError, match=f"more than {MAX_DIGITS} digits"):
            read(long)
    with pytest.raises(LimitError):
        sheet_from_spec("Ann", f"hits={long}")
    assert read_pair("w=" + "9" * MAX_DIGITS).value == 10**MAX_DIGITS - 1


def test_text_fields_of_a_spec_keep_the_text_as_typed() -> None:
    # `defend=true` is no defense kind; it is refused by the defense reader, not read as True
    with pytest.raises(RefereeError, match="true"):
        sheet_from_spec("Ann", "skill=15 defend=true")


@given(text=VALUES)
def test_a_discord_character_reads_its_keys_by_the_same_reader(text: str) -> None:
    """`~char set Tarl cs=TEXT`: the CS is the reader's whole number, or the same refusal (and
    one of 0..100, as the rule system checks a joining fighter's)."""
    try:
        value = read_value(text)
    except LimitError:
        with pytest.raises(LimitError):
            parse_character(["Tarl", f"cs={text}"])
        return
    if isinstance(value, bool) or not isinstance(value, int):
        with pytest.raises(NotationError, match="is not a whole number"):
            parse_character(["Tarl", f"cs={text}"])
    elif 0 <= value <= 100:
        assert parse_character(["Tarl", f"cs={text}"]).stats == {"cs": value}
    elif value > 100:  # MSV-2: checked when saved, as a joining fighter's
        with pytest.raises(RuleError, match=r"CS must be 0\.\.100 \(MSV-2"):
            parse_character(["Tarl", f"cs={text}"])
    else:
        with pytest.raises(RuleError, match="CS must be a whole number >= 0"):
            parse_character(["Tarl", f"cs={text}"])


def test_a_discord_srp_character_is_mounted_by_the_word_true() -> None:
    # the sheet takes `mounted` as a boolean: the word `true` was the text "true" in `~char set`
    hal = parse_character(["Hal", "skill=13", "hits=10", "mounted=True"])
    assert hal.system == "srp" and hal.stats["mounted"] is True
    with pytest.raises(PairError, match="'Skill' given twice"):
        parse_character(["Hal", "skill=13", "Skill=12"])
