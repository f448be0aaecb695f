"""Fighter names that cannot pass for someone else (`referee.bout.names`), the one rule the
engine, the service, every client and the judge's skeletons share: UTS #39 for names people
read (nothing invisible, no piled marks, one script) and look-alikes by its confusables."""

from __future__ import annotations

import sys
import unicodedata
from functools import cache

import pytest
import regex
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.bout.names import _confusables, fighter_name, name, skeleton
from referee.errors import ConflictError, RuleError
from tests.depth import examples

ZWJ = "\u200d"
ASTRONAUT = f"\U0001f469{ZWJ}\U0001f680"  # woman, ZWJ, rocket
RAINBOW_FLAG = f"\U0001f3f3\ufe0f{ZWJ}\U0001f308"  # white flag, VS16, ZWJ, rainbow
THUMBS_UP = "\U0001f44d\U0001f3fd"  # thumbs up, medium skin tone
SWORD = "\U0001f5e1\ufe0f"  # dagger, VS16
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"  # tag sequence

REFUSED = [
    ("Referee", [], RuleError, "fighter name 'Referee' is reserved"),
    ("0nlineHost", [], RuleError,
     "fighter name '0nlineHost' is reserved (it looks like OnlineHost)"),
    ("\u041enlineHost", [], RuleError,
     "fighter name '\u041enlineHost' is reserved (it looks like OnlineHost)"),
    ("ѕystem", [], RuleError, "fighter name 'ѕystem' is reserved (it looks like System)"),
    ("Tarl rolled 1 100-sided die: 99", [], RuleError,
     "fighter name 'Tarl rolled 1 100-sided die: 99' has '-sided' in it, the word of the host's "
     "roll lines"),
    # with the host's roll-line prefix in it, a name's roll line would pass for another's
    ("OnlineHost: Tarl", ["Tarl"], RuleError,
     "fighter name 'OnlineHost: Tarl' has 'OnlineHost:' in it, how the host's roll lines begin"),
    ("Tarl 0nlineHost\uff1a", [], RuleError,
     "fighter name 'Tarl 0nlineHost\uff1a' has 'OnlineHost:' in it, how the host's roll lines "
     "begin"),
    ("\u0422\u0430rl", ["Tarl"], ConflictError,
     "fighter name '\u0422\u0430rl' looks like 'Tarl', who is already fighting"),
    ("TarI", ["Tarl"], ConflictError,
     "fighter name 'TarI' looks like 'Tarl', who is already fighting"),
    ("TARL", ["Tarl"], ConflictError, "there is already a fighter called 'Tarl'"),
    # look-alikes by UTS #39's whole confusables: letters, and what draws nothing
    ("Torn", ["Tom"], ConflictError,
     "fighter name 'Torn' looks like 'Tom', who is already fighting"),
    ("\U0001f5e1 Rask", [f"{SWORD} Rask"], ConflictError,
     f"fighter name '\U0001f5e1 Rask' looks like '{SWORD} Rask', who is already fighting"),
    # invisible characters: found accepted before (a combining grapheme joiner) and the rest
    ("Ta\u034frl", [], RuleError,
     "fighter name 'Ta\u034frl' has an invisible or control character (U+034F)"),
    ("Ta\u200brl", [], RuleError,
     "fighter name 'Ta\\u200brl' has an invisible or control character (U+200B)"),
    ("Ta\u200crl", [], RuleError,
     "fighter name 'Ta\\u200crl' has an invisible or control character (U+200C)"),
    ("Ta\u200drl", [], RuleError,
     "fighter name 'Ta\\u200drl' has an invisible or control character (U+200D)"),
    ("Ta\u2060rl", [], RuleError,
     "fighter name 'Ta\\u2060rl' has an invisible or control character (U+2060)"),
    ("Ta\ufe0frl", [], RuleError,
     "fighter name 'Ta\ufe0frl' has an invisible or control character (U+FE0F)"),
    ("Tarl\U000e0041", [], RuleError,
     "fighter name 'Tarl\\U000e0041' has an invisible or control character (U+E0041)"),
    (f"Talena \U0001f469{ZWJ}", [], RuleError,
     "fighter name 'Talena \U0001f469\\u200d' has an invisible or control character (U+200D)"),
    (f"Tarl 1{ZWJ}2", [], RuleError,
     "fighter name 'Tarl 1\\u200d2' has an invisible or control character (U+200D)"),
    # marks piled on one letter
    ("Tarl\u0301\u0301", [], RuleError,
     "fighter name 'Tarl\u0301\u0301' has the same mark twice on one character (U+0301)"),
    ("Ta\u0301\u0302\u0303\u0304\u0306rl", [], RuleError,
     "fighter name 'Ta\u0301\u0302\u0303\u0304\u0306rl' has more than 4 marks on one character "
     "(U+0306)"),
    # mixed scripts: found accepted before (a Greek capital alpha) and the rest
    ("\u0391nn", [], RuleError,
     "fighter name '\u0391nn' mixes scripts: '\u0391' (U+0391) is Greek among Latin letters"),
    ("T\u0430rl", [], RuleError,
     "fighter name 'T\u0430rl' mixes scripts: '\u0430' (U+0430) is Cyrillic among Latin letters"),
    ("\u0422\u0430rl", [], RuleError,
     "fighter name '\u0422\u0430rl' mixes scripts: '\u0422' (U+0422) is Cyrillic among Latin "
     "letters"),
    ("\u039frc", [], RuleError,
     "fighter name '\u039frc' mixes scripts: '\u039f' (U+039F) is Greek among Latin letters"),
    ("Rask of \u0422reve", [], RuleError,
     "fighter name 'Rask of \u0422reve' mixes scripts: '\u0422' (U+0422) is Cyrillic among Latin "
     "letters"),
    ("\u041f\u0451\u0442\u0440 K", [], RuleError,
     "fighter name '\u041f\u0451\u0442\u0440 K' mixes scripts: 'K' (U+004B) is Latin among "
     "Cyrillic letters"),
    ("Tarl \uff11 2", [], RuleError,
     "fighter name 'Tarl \uff11 2' mixes digits of two systems: '\uff11' (U+FF11) and '2' "
     "(U+0032)"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "others", "error", "message"), REFUSED)
def test_a_name_that_passes_for_another_is_refused(
    name: str, others: list[str], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as refused:
        fighter_name(name, others)
    assert str(refused.value) == message


KEPT = [
    ("Tarl Cabot", ["Tarl"]), ("Rask", ["Tarl"]), ("Pa-K\u00fcr", []), ("**Kamchak**", []),
    ("Onlinehostess", []), ("Sided", []), ("Rask of Treve", []), ("Pa-Kur", []),
    ("Tarl 2", []), ("D'Artagnan", []), (f"{SWORD} Rask of Treve", []),
    # emoji sequences: joined by ZWJ, with VS16, a skin tone, a tag sequence, a keycap
    (f"Talena {ASTRONAUT}", []), (f"{RAINBOW_FLAG} Banner", []), (f"{THUMBS_UP} Kamchak", []),
    (f"{SCOTLAND} Scot", []), ("#\ufe0f\u20e3 Hash", []),
    # one script other than Latin, and Latin beside Japanese (highly restrictive)
    ("\u041f\u0451\u0442\u0440", []),  # Пётр
    ("\u1f08\u03c7\u03b9\u03bb\u03bb\u03b5\u03cd\u03c2", []),  # Ἀχιλλεύς
    ("\u305f\u308d\u3046", []),  # たろう
    ("\u674e\u5c0f\u9f99", []),  # 李小龙
    ("\u6771\u4eac\u306e\u30a2\u30ea\u30b9", []),  # 東京のアリス: Han, Hiragana, Katakana
    ("\ud64d\uae38\ub3d9", []),  # 홍길동
    ("Tarl \u305f\u308d\u3046", []),
    # a ZWJ after a virama (Devanagari half form), a ZWNJ between Persian letters
    ("\u0915\u094d\u200d\u0937", []),  # क्‍ष
    ("\u0645\u0627\u0647\u200c\u0631\u062e", []),  # ماه‌رخ
]  # fmt: skip


@pytest.mark.parametrize(("name", "others"), KEPT)
def test_names_that_look_like_nobody_else_are_kept(name: str, others: list[str]) -> None:
    assert fighter_name(name, others) == name


# -- properties ---------------------------------------------------------------------------------

#: Every character of Unicode, once (surrogates left out), to pick characters from by property.
ALL = "".join(chr(point) for point in range(sys.maxunicode + 1) if not 0xD800 <= point < 0xE000)
SCRIPTS = ("Latn", "Grek", "Cyrl", "Armn", "Geor", "Hebr", "Arab", "Deva", "Thai", "Ethi",
           "Cher", "Hira", "Kana", "Hani", "Hang")  # fmt: skip
EMOJI = (SWORD, ASTRONAUT, RAINBOW_FLAG, THUMBS_UP, "\U0001f525", "\u2694\ufe0f")
IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
#: Hangul letters that NFC joins into a syllable with their neighbours (leading, vowel, trailing).
CONJOINING_JAMO = regex.compile(r"[\p{hst=L}\p{hst=V}\p{hst=T}]")  # Hangul_Syllable_Type


@cache
def letters(script: str) -> str:
    """The letters of one script that this Python can print and NFC leaves alone, alone or
    side by side (no conjoining Hangul jamo)."""
    found = regex.findall(rf"(?V1)[\p{{Script_Extensions={script}}}&&\p{{L}}]", ALL)
    return "".join(
        ch
        for ch in found
        if ch.isprintable()
        and unicodedata.normalize("NFC", ch) == ch
        and not IGNORABLE.match(ch)
        and not CONJOINING_JAMO.match(ch)
    )


@cache
def ignorables() -> str:
    """Every default-ignorable code point (Unicode's Default_Ignorable_Code_Point)."""
    return "".join(IGNORABLE.findall(ALL))


def words(script: str) -> st.SearchStrategy[str]:
    """A word of one script's letters."""
    return st.text(alphabet=letters(script), min_size=1, max_size=7)


@st.composite
def one_script_names(draw: st.DrawFn) -> str:
    """A word of one script's letters, then up to 3 more words, numbers or emoji, spaced (31
    characters at most)."""
    script = draw(st.sampled_from(SCRIPTS))
    other = st.one_of(st.integers(0, 999).map(str), st.sampled_from(EMOJI))
    parts = draw(st.lists(st.one_of(words(script), other), max_size=3))
    return " ".join([draw(words(script)), *parts])


@given(text=one_script_names())
@settings(max_examples=examples(200), deadline=None)
def test_a_name_of_one_script_with_numbers_and_emoji_is_a_name(text: str) -> None:
    assert name(text, "side") == text


@given(
    left=words("Latn") | words("Grek") | words("Cyrl"),
    right=st.text(alphabet=letters("Latn"), min_size=1, max_size=8),
    hidden=st.sampled_from(ignorables()),
)
@settings(max_examples=examples(300), deadline=None)
def test_a_default_ignorable_between_two_letters_is_refused(
    left: str, right: str, hidden: str
) -> None:
    text = left + hidden + right
    with pytest.raises(RuleError) as refused:
        name(text, "side")
    assert str(refused.value) == (
        f"side {text!r} has an invisible or control character (U+{ord(hidden):04X})"
    )


@given(
    word=st.text(alphabet=letters("Latn")[:52], min_size=2, max_size=12),
    at=st.integers(0, 11),
    stray=st.sampled_from(
        regex.sub(r"\p{Script_Extensions=Latn}", "", letters("Grek") + letters("Cyrl"))
    ),  # not `ʼ`, a modifier letter of Latin, Cyrillic and more
)
@settings(max_examples=examples(200), deadline=None)
def test_one_greek_or_cyrillic_letter_among_latin_ones_is_named(
    word: str, at: int, stray: str
) -> None:
    text = word[:at] + stray + word[at:]
    script = "Greek" if regex.match(r"\p{Script_Extensions=Grek}", stray) else "Cyrillic"
    with pytest.raises(RuleError) as refused:
        name(text, "side")
    assert str(refused.value) == (
        f"side {text!r} mixes scripts: {stray!r} (U+{ord(stray):04X}) is {script} among Latin "
        "letters"
    )


@cache
def drawn_like() -> dict[str, str]:
    """Each ASCII letter to the characters confusables.txt draws like it alone (printable,
    no marks), to make look-alikes from."""
    alike: dict[str, str] = {}
    for point, prototype in _confusables().items():
        char = chr(point)
        letter = prototype.isascii() and prototype.isalpha() and len(prototype) == 1
        if letter and char.isprintable() and not unicodedata.category(char).startswith("M"):
            alike[prototype] = alike.get(prototype, "") + char
    return alike


@given(
    original=st.text(alphabet="abcdefghijklnopqrstuvwxyz", min_size=3, max_size=12),
    data=st.data(),
)
@settings(max_examples=examples(200), deadline=None)
def test_a_name_that_differs_only_by_confusables_is_refused(
    original: str, data: st.DataObject
) -> None:
    """`m` is left out of the letters: it is drawn like `rn`, two letters."""
    assume(not any(skeleton(original) == skeleton(word) for word in ("referee", "system")))
    swaps = [i for i, ch in enumerate(original) if ch in drawn_like()]
    at = data.draw(st.lists(st.sampled_from(swaps), min_size=1, unique=True), label="at")
    alike = list(original)
    for i in at:
        alike[i] = data.draw(st.sampled_from(drawn_like()[original[i]]), label=f"for {i}")
    lookalike = "".join(alike)
    with pytest.raises(ConflictError) as refused:
        fighter_name(lookalike, [original])
    assert str(refused.value) in (
        f"there is already a fighter called {original!r}",
        f"fighter name {lookalike!r} looks like {original!r}, who is already fighting",
    )


def test_the_skeleton_is_one_of_a_look_alike_and_its_model() -> None:
    assert skeleton("\u0422\u0430rl") == skeleton("TarI") == skeleton("Tarl") == "tarl"
    assert skeleton(f"{SWORD} Tom") == skeleton("\U0001f5e1 Torn") == "\U0001f5e1 torn"
