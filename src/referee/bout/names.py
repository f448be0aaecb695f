"""Names people see: fighters, sides, bouts. One rule for what a name may be.

A name is NFC-normalised, 1 to 40 characters, printable (no control characters, no spaces other
than the plain one, none at either end) and shows something (not only combining marks or
blank-looking letters). It holds what Unicode's UTS #39 (Unicode Security Mechanisms) refuses in
an identifier people read, spaces, punctuation and emoji aside:

- nothing invisible: no default-ignorable or format character (a zero-width space, a combining
  grapheme joiner, a bidi control, a variation selector, a tag), except the joiner, variation
  selector and tags of a well-formed emoji sequence (UTS #51: `👩‍🚀`, `🏳️‍🌈`) and a ZWNJ or ZWJ
  where a script joins its letters with one (after a virama, or a ZWNJ between Arabic letters:
  UAX #31 §2.3, as IDNA's CONTEXTJ rules);
- no mark piled up: not the same nonspacing mark twice on one character, nor more than 4 marks
  on it (§5.4);
- one script (§5.2, *highly restrictive*: Latin may go with Han and kana, Han and Bopomofo, or
  Han and Hangul); digits, punctuation and emoji belong to every script and do not count. A
  Greek `Α` among Latin letters (`Αnn`) is refused, and so are digits of two systems (§5.3).

UTS #39's identifier profile (which characters an identifier may hold at all) is left out: a
name may hold any printable letter, a space, punctuation and emoji.

A fighter's name may not pass for the referee or the chat host (`Referee`, `OnlineHost`,
`system`), nor for another fighter: not in any letter case or width, and not drawn with
look-alike letters (`skeleton`, UTS #39 confusables: `0nlineHost`, `TarI` beside `Tarl`). Nor
may it carry the word a host's roll line turns on (`-sided`), so that no line naming it can
pass for a roll and every roll line can name it: `Tarl rolled 1 100-sided die: 99` is refused.

Character properties (scripts, default-ignorables, emoji) come from the `regex` library, which
follows each Unicode version; the confusables and the scripts' names are Unicode's data as ICU
holds it, shipped beside this module (`confusables.txt`, `scripts.txt`; `tools/unicode_data.py`
writes them). ICU's own checker (PyICU) is not used at run time: its project ships no wheels,
and the checker lets a zero-width space through unless it is held to the identifier profile,
which refuses spaces and emoji too.

>>> name("Cafe\\u0301", "fighter name")
'Café'
>>> name("Tarl\\u202e", "fighter name")
Traceback (most recent call last):
...
referee.errors.RuleError: fighter name 'Tarl\\u202e' has an invisible or control character (U+202E)
>>> name("\\u0391nn", "side")
Traceback (most recent call last):
...
referee.errors.RuleError: side 'Αnn' mixes scripts: 'Α' (U+0391) is Greek among Latin letters
>>> name("Talena \\U0001f469\\u200d\\U0001f680", "fighter name")
'Talena 👩\\u200d🚀'
>>> same_name("TARL", "tarl"), same_name("\\uff34\\uff41\\uff52\\uff4c", "Tarl")
(True, True)
>>> skeleton("\\u041enIineHost") == skeleton("OnlineHost")  # Cyrillic O, capital I for l
True
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cache, lru_cache
from importlib.resources import files

import regex

from referee.errors import ConflictError, RuleError

MAX_NAME = 40
#: The most marks one character may carry (UTS #39 §5.4).
MAX_MARKS = 4

#: Names a fighter may not take, compared by `key`: they would pass for the referee, the chat
#: host that says every roll, or the engine itself.
RESERVED = ("referee", "onlinehost", "system")
#: The word the chat host's roll line turns on (`OnlineHost: NAME rolled 1 100-sided die: 47`),
#: which a fighter's name may not carry (compared by `skeleton`; `referee.dice.chat` refuses a
#: screen name with it too).
HOST_WORD = "-sided"
#: How the chat host's roll lines begin, which a fighter's name may not carry either (compared
#: by `skeleton`; a name with the host's name alone in it, `Onlinehostess`, is kept).
HOST_PREFIX = "OnlineHost:"

#: Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern, ...).
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")
#: Characters that only steer how others are drawn (Default_Ignorable_Code_Point).
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
#: One emoji (UTS #51): a pictograph, bare or with a skin tone, VS16 or a tag sequence (🏴
#: and a region's tags); or a keycap (`#️⃣`).
_EMOJI_ELEMENT = (
    r"(?:\p{Extended_Pictographic}"
    r"(?:\p{Emoji_Modifier}|\uFE0F|[\U000E0020-\U000E007E]+\U000E007F)?"
    r"|[0-9#*]\uFE0F\u20E3)"
)
#: A well-formed emoji sequence: emoji joined by ZWJ (`👩‍🚀` is 👩 ZWJ 🚀).
_EMOJI = regex.compile(rf"{_EMOJI_ELEMENT}(?:\u200D{_EMOJI_ELEMENT})*")
#: A ZWNJ or ZWJ where a script joins letters with it: after a virama, or a ZWNJ between two
#: letters that join (UAX #31 §2.3 A1, A2, B).
_JOINER_IN_A_WORD = regex.compile(
    r"(?<=\p{Canonical_Combining_Class=Virama})[\u200C\u200D]"
    r"|(?<=[\p{Joining_Type=D}\p{Joining_Type=L}]\p{Joining_Type=T}*)\u200C"
    r"(?=\p{Joining_Type=T}*[\p{Joining_Type=D}\p{Joining_Type=R}])"
)
#: Characters of every script (Common) or of their letter's (Inherited): digits, punctuation,
#: emoji, most combining marks.
_OF_EVERY_SCRIPT = regex.compile(r"[\p{Script_Extensions=Zyyy}\p{Script_Extensions=Zinh}]")
#: The script code `_scripts_of` gives a letter of a script `scripts.txt` does not list yet.
_UNLISTED = "Zzzz"
#: UTS #39 §5.1: a letter of Han, kana, Hangul or Bopomofo is also of the writing systems that
#: mix them: Japanese (`Jpan`), Korean (`Kore`), Han with Bopomofo (`Hanb`).
_WRITING_SYSTEMS = {
    "Hani": frozenset({"Hanb", "Jpan", "Kore"}),
    "Hira": frozenset({"Jpan"}),
    "Kana": frozenset({"Jpan"}),
    "Hang": frozenset({"Kore"}),
    "Bopo": frozenset({"Hanb"}),
}
#: The writing systems Latin may go with in a highly restrictive name (UTS #39 §5.2).
_BESIDE_LATIN = frozenset({"Jpan", "Kore", "Hanb"})
#: Rounds of `skeleton`'s folding at most (four settle any one character; this only bounds it).
_FOLDS = 8


def key(text: str) -> str:
    """What two names are compared by: NFKC, case-folded (`TARL`, `tarl` and full-width match)."""
    return unicodedata.normalize("NFKC", text).casefold()


def _data(file: str) -> Iterator[str]:
    """The lines of one of the data files beside this module, comments left out."""
    text = files("referee.bout").joinpath(file).read_text(encoding="utf-8")
    return (line for line in text.split("\n") if line and not line.startswith("#"))


@cache
def _confusables() -> dict[int, str]:
    """Each character drawn like another, to the prototype of both (`confusables.txt`)."""
    table: dict[int, str] = {}
    for line in _data("confusables.txt"):
        source, prototype, _ = line.split(";", 2)
        table[int(source, 16)] = "".join(chr(int(point, 16)) for point in prototype.split())
    return table


def _fold(text: str) -> str:
    """One round of `skeleton`: decomposed (NFD), default-ignorables dropped, each character
    drawn like another replaced by their prototype, compatibility characters decomposed (NFKD:
    width), accents dropped, case-folded."""
    bare = _IGNORABLE.sub("", unicodedata.normalize("NFD", text))
    mapped = unicodedata.normalize("NFKD", bare.translate(_confusables()))
    return "".join(c for c in mapped if not unicodedata.combining(c)).casefold()


def skeleton(text: str) -> str:
    """What a name looks like, for telling a look-alike: folded (`_fold`) until it no longer
    changes (UTS #39's skeleton, with width, case and accents dropped too: Cyrillic `О`, `0`
    and `O` alike, `I`, `1` and `l` alike, `m` and `rn` alike). Equal skeletons look alike;
    equal `key`s are equal.

    >>> skeleton("0nl\\u0131ne\\u0397ost"), skeleton("Pa-K\\u00fcr"), skeleton("TOM")
    ('onlinehost', 'pa-kur', 'torn')
    """
    shape = text
    for _ in range(_FOLDS):
        folded = _fold(shape)
        if folded == shape:
            break
        shape = folded
    return shape


def same_name(a: str, b: str) -> bool:
    """Whether two names would be taken for one another."""
    return key(a) == key(b)


def _joiners_in_place(value: str) -> set[int]:
    """Where `value` has an invisible character that belongs: the joiners, variation selectors
    and tags inside an emoji sequence, a ZWNJ or ZWJ inside a word that needs it."""
    places = {
        i
        for emoji in _EMOJI.finditer(value)
        for i in range(emoji.start(), emoji.end())
        if _IGNORABLE.match(value[i])
    }
    return places | {joiner.start() for joiner in _JOINER_IN_A_WORD.finditer(value)}


def _invisible(value: str) -> str | None:
    """The first character of `value` that shows nothing or is out of its place, if any."""
    in_place = _joiners_in_place(value)
    for i, ch in enumerate(value):
        if i in in_place or ch == " ":
            continue
        if not ch.isprintable() or ch in _BLANK or _IGNORABLE.match(ch):
            return ch
    return None


def _piled_mark(value: str) -> str | None:
    """A sentence on the first mark piled up in `value` (UTS #39 §5.4), if any: the same
    nonspacing mark twice on one character, or more than `MAX_MARKS` marks on it."""
    marks: list[str] = []  # the marks on the character last seen
    for ch in unicodedata.normalize("NFD", value):
        kind = unicodedata.category(ch)
        if kind not in ("Mn", "Me"):
            marks = []
        elif kind == "Mn" and ch in marks:
            return f"has the same mark twice on one character (U+{ord(ch):04X})"
        elif len(marks) == MAX_MARKS:
            return f"has more than {MAX_MARKS} marks on one character (U+{ord(ch):04X})"
        else:
            marks.append(ch)
    return None


def _shown(text: object, what: str) -> str:
    """`text` as a name that shows what it is (NFC), or RuleError saying what is wrong with it:
    its length, an invisible character, spaces at an end, nothing visible, piled marks."""
    if not isinstance(text, str):
        raise RuleError(f"{what} must be text, got {text!r}")
    value = unicodedata.normalize("NFC", text)
    if not 1 <= len(value) <= MAX_NAME:
        raise RuleError(f"{what} {text[:50]!r} must be 1 to {MAX_NAME} characters")
    hidden = _invisible(value)
    if hidden is not None:
        raise RuleError(
            f"{what} {text!r} has an invisible or control character (U+{ord(hidden):04X})"
        )
    if value != value.strip():
        raise RuleError(f"{what} {text!r} has leading or trailing spaces")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in value):
        raise RuleError(f"{what} {text!r} shows nothing visible")
    piled = _piled_mark(value)
    if piled is not None:
        raise RuleError(f"{what} {text!r} {piled}")
    return value


@cache
def _script_names() -> dict[str, str]:
    """Each script's ISO 15924 code to its Unicode name (`scripts.txt`): `Grek` to `Greek`."""
    names = dict(line.split("\t") for line in _data("scripts.txt"))
    return names | {_UNLISTED: "Unknown"}


@cache
def _script_patterns() -> tuple[tuple[str, regex.Pattern[str]], ...]:
    """Each script's code with a pattern for one character written in it (Script_Extensions)."""
    return tuple(
        (code, regex.compile(rf"\p{{Script_Extensions={code}}}"))
        for code in _script_names()
        if code != _UNLISTED
    )


@lru_cache(maxsize=4096)
def _scripts_of(char: str) -> frozenset[str]:
    """The scripts a character is written in, by ISO 15924 code (Unicode's Script_Extensions):
    none for one of every script (a digit, punctuation, an emoji, most combining marks).

    >>> sorted(_scripts_of("\\u0391")), sorted(_scripts_of("\\u30fc")), _scripts_of("7")
    (['Grek'], ['Hira', 'Kana'], frozenset())
    """
    if _OF_EVERY_SCRIPT.match(char):
        return frozenset()
    codes = frozenset(code for code, pattern in _script_patterns() if pattern.match(char))
    return codes or frozenset({_UNLISTED})


def _with_writing_systems(codes: frozenset[str]) -> frozenset[str]:
    """A letter's scripts with the writing systems they make part of (UTS #39 §5.1)."""
    return codes.union(*(_WRITING_SYSTEMS.get(code, ()) for code in codes))


def _highly_restrictive(letters: list[frozenset[str]]) -> bool:
    """Whether letters (their scripts and writing systems) are of one script, or Latin with
    Japanese, Korean or Han with Bopomofo (UTS #39 §5.2, *highly restrictive*)."""
    if not letters or frozenset.intersection(*letters):
        return True
    beside_latin = [codes for codes in letters if "Latn" not in codes]
    return bool(frozenset.intersection(*beside_latin) & _BESIDE_LATIN)


def _main_script(letters: list[frozenset[str]]) -> str:
    """The script most letters are written in (Latin on a tie, the one met first after it)."""
    counts = Counter(code for codes in letters for code in codes)
    return max(counts, key=lambda code: (counts[code], code == "Latn"))


def _stray_letter(value: str) -> str | None:
    """A sentence on the letter that mixes scripts in `value` (UTS #39 §5.2), if one does: the
    first that a reader of the script most of its letters are in would not expect."""
    letters = [(ch, _with_writing_systems(_scripts_of(ch))) for ch in value if _scripts_of(ch)]
    if _highly_restrictive([codes for _, codes in letters]):
        return None
    names = _script_names()
    main = _main_script([_scripts_of(ch) for ch, _ in letters])
    ordered = sorted(letters, key=lambda letter: main not in letter[1])  # main's letters first
    stray = next(
        ch
        for n, (ch, _) in enumerate(ordered, 1)
        if not _highly_restrictive([codes for _, codes in ordered[:n]])
    )
    its = " or ".join(sorted(names[code] for code in _scripts_of(stray)))
    return f"mixes scripts: {stray!r} (U+{ord(stray):04X}) is {its} among {names[main]} letters"


def _mixed_digits(value: str) -> str | None:
    """A sentence on digits of two decimal systems in `value` (UTS #39 §5.3), if it has them."""
    systems: dict[int, str] = {}  # each system's zero, to its first digit in the name
    for ch in value:
        if unicodedata.category(ch) == "Nd":
            systems.setdefault(ord(ch) - unicodedata.decimal(ch), ch)
    if len(systems) < 2:
        return None
    first, second = list(systems.values())[:2]
    return (
        f"mixes digits of two systems: {first!r} (U+{ord(first):04X}) and"
        f" {second!r} (U+{ord(second):04X})"
    )


def _unmixed(value: str, what: str) -> None:
    """RuleError if `value` mixes scripts or digit systems."""
    mixed = _stray_letter(value) or _mixed_digits(value)
    if mixed is not None:
        raise RuleError(f"{what} {value!r} {mixed}")


def name(text: object, what: str) -> str:
    """`text` as a name (NFC), or RuleError saying what is wrong with it."""
    value = _shown(text, what)
    _unmixed(value, what)
    return value


def _not_taken(value: str, others: Iterable[str], what: str = "fighter name") -> None:
    """RuleError or ConflictError if a fighter's name (`what`) passes for a reserved name, for
    a host's roll line, or for one of `others`."""
    shape = skeleton(value)
    if key(value) in RESERVED:
        raise RuleError(f"{what} {value!r} is reserved")
    for reserved in RESERVED:
        if shape == skeleton(reserved):
            shown = {"onlinehost": "OnlineHost"}.get(reserved, reserved.capitalize())
            raise RuleError(f"{what} {value!r} is reserved (it looks like {shown})")
    if skeleton(HOST_WORD) in shape:
        raise RuleError(
            f"{what} {value!r} has {HOST_WORD!r} in it, the word of the host's roll lines"
        )
    if skeleton(HOST_PREFIX) in shape:
        # `OnlineHost: Tarl`'s roll line would read `OnlineHost: OnlineHost: Tarl rolled ...`,
        # which a log's reader (`referee judge`) takes for a roll of Tarl's.
        raise RuleError(
            f"{what} {value!r} has {HOST_PREFIX!r} in it, how the host's roll lines begin"
        )
    for other in others:
        if same_name(value, other):
            raise ConflictError(f"there is already a fighter called {other!r}")
        if shape == skeleton(other):
            raise ConflictError(
                f"fighter name {value!r} looks like {other!r}, who is already fighting"
            )


def character_name(text: object) -> str:
    """A saved character's name: one it can fight under (`fighter_name`'s rules but the other
    fighters', which are each bout's), so no character is kept that no bout would take.

    >>> character_name("Referee")
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: character name 'Referee' is reserved
    """
    value = _shown(text, "character name")
    _not_taken(value, (), "character name")
    _unmixed(value, "character name")
    return value


def fighter_name(text: object, others: Iterable[str] = ()) -> str:
    """A new fighter's name: `name`, not reserved, not the host's roll-line word, and not
    another fighter's in any case, width or look-alike letters. Whom it looks like is said
    before how it mixes scripts (a Cyrillic `Таrl` beside `Tarl` looks like Tarl).

    >>> fighter_name("0nlineHost")
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: fighter name '0nlineHost' is reserved (it looks like OnlineHost)
    """
    value = _shown(text, "fighter name")
    _not_taken(value, others)
    _unmixed(value, "fighter name")
    return value
